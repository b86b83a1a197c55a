"""The fingerprint of the random-stream definition: what a seed deals, as one string.

Two processes deal the same rounds from the same seed and plan exactly when
they run the same kernels on the same tables. The fingerprint hashes every
source the Monte Carlo stream is made of (:data:`STREAM_SOURCES`: the random
streams, the dealing procedure, the lanes, the card and tableau tables) with
the package version; checkpoints record it, and Dask workers must match
the client's, so that two streams are never mixed into one silently wrong
histogram.
"""

from __future__ import annotations

from .._version import __version__
from ..kernels.jit import kernel_sources_digest

__all__ = ["STREAM_SOURCES", "stream_fingerprint"]

#: The sources that fix what a seed deals (other kernels, such as the exact engine's, do not).
STREAM_SOURCES = ("kernels/jit.py", "kernels/rng.py", "kernels/dealing.py", "kernels/mc.py", "model/cards.py",
                  "model/codes.py", "model/tableau.py")


def stream_fingerprint() -> str:
    """Package version and a hash of the dealing code, as ``"<version>+<sha256[:16]>"``."""
    return f"{__version__}+{kernel_sources_digest(STREAM_SOURCES)[:16]}"
