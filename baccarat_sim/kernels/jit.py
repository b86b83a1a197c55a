"""numba options, set in one place, and an on-disk cache that knows what the kernels inline.

``cache=True`` keeps compiled kernels on disk so the CLI starts fast after the
first run; ``error_model="numpy"`` drops Python's division-by-zero checks from
integer loops (the kernels never divide by zero, and the checks cost speed);
``nogil=True`` lets the Dask backend run kernels from worker threads.

numba keys a cached kernel on the contents of the file that defines it, but the
kernels inline helpers and constant tables from other files (the random
streams, the dealing procedure, the tableau, the card points). Every kernel of
this package is therefore stamped with a digest of all of those sources
(:data:`KERNEL_SOURCES`): editing any of them recompiles every kernel, with no
file to touch by hand.
"""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path

import numba as nb

__all__ = ["KERNEL_SOURCES", "jit", "jit_parallel", "kernel_sources_digest"]

_PACKAGE = Path(__file__).resolve().parent.parent
#: Sources, relative to the package, that compiled kernels read: their helpers and constant tables.
KERNEL_SOURCES = ("kernels/*.py", "model/cards.py", "model/codes.py", "model/poker.py", "model/tableau.py")


@functools.lru_cache(maxsize=4)
def kernel_sources_digest(patterns: tuple[str, ...] = KERNEL_SOURCES) -> str:
    """SHA-256 of every file matching ``patterns`` (relative to the package; names and contents), hex."""
    digest = hashlib.sha256()
    files = sorted({path for pattern in patterns for path in _PACKAGE.glob(pattern)})
    for path in files:
        digest.update(path.relative_to(_PACKAGE).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def _stamp_our_kernels() -> None:
    """Make numba's cache of this package's kernels depend on every kernel source, not only the defining file.

    numba picks the first cache locator class that accepts a function; a
    stamped copy of each of its locators is put in front, accepting only
    functions defined in ``baccarat_sim/kernels``. If numba's caching internals
    ever change shape, caching falls back to numba's own behaviour.
    """
    try:
        from numba.core import caching

        impl = getattr(caching, "CacheImpl", None) or caching._CacheImpl  # renamed in numba 0.60
        locators = impl._locator_classes
    except (ImportError, AttributeError):
        return
    kernels_dir = _PACKAGE / "kernels"
    if any(getattr(cls, "_baccarat_sim", False) for cls in locators):
        return

    def stamped(base):
        class Stamped(base):
            _baccarat_sim = True

            def get_source_stamp(self):
                return (super().get_source_stamp(), kernel_sources_digest())

            @classmethod
            def from_function(cls, py_func, py_file):
                try:
                    ours = Path(py_file).resolve().parent == kernels_dir
                except (OSError, TypeError):
                    ours = False
                return super().from_function(py_func, py_file) if ours else None

        Stamped.__name__ = Stamped.__qualname__ = f"BaccaratSim{base.__name__}"
        return Stamped

    locators[:0] = [stamped(cls) for cls in list(locators)]


_stamp_our_kernels()

jit = functools.partial(nb.njit, cache=True, error_model="numpy", nogil=True)
#: The same, with ``prange`` loops run in parallel (the block drivers).
jit_parallel = functools.partial(nb.njit, cache=True, error_model="numpy", nogil=True, parallel=True)
