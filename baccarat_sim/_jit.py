"""numba options, set in one place.

``cache=True`` keeps compiled kernels on disk so the CLI starts fast after the
first run; ``error_model="numpy"`` drops Python's division-by-zero checks from
integer loops (the kernels never divide by zero, and the checks cost speed);
``nogil=True`` lets the Dask backend run kernels from worker threads.
"""

from __future__ import annotations

import functools

import numba as nb

jit = functools.partial(nb.njit, cache=True, error_model="numpy", nogil=True)
#: The same, with ``prange`` loops run in parallel (the block drivers).
jit_parallel = functools.partial(nb.njit, cache=True, error_model="numpy", nogil=True, parallel=True)
