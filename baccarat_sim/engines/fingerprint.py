"""The fingerprint of the random-stream definition: what a seed deals, as one string.

Two processes deal the same rounds from the same seed and plan exactly when
they run the same kernels on the same tables. The fingerprint hashes every
source a compiled kernel reads (:data:`baccarat_sim.kernels.jit.KERNEL_SOURCES`)
with the package version; checkpoints record it, and Dask workers must match
the client's, so that two streams are never mixed into one silently wrong
histogram.
"""

from __future__ import annotations

from .._version import __version__
from ..kernels.jit import kernel_sources_digest

__all__ = ["stream_fingerprint"]


def stream_fingerprint() -> str:
    """Package version and a hash of the dealing code, as ``"<version>+<sha256[:16]>"``."""
    return f"{__version__}+{kernel_sources_digest()[:16]}"
