"""The local backend: a run's chunks dealt on this machine, one lane per numba thread."""

from __future__ import annotations

import contextlib

import numba

from ..errors import InputError

__all__ = ["LocalBackend", "numba_threads"]


@contextlib.contextmanager
def numba_threads(threads: int | None):
    """Run with ``threads`` numba threads (None: as set now), restoring the previous setting afterwards.

    Yields
    ------
    int
        The number of threads in use.

    Raises
    ------
    InputError
        ``threads``: not a whole number from 1 to the threads numba can run here.
    """
    available = numba.config.NUMBA_NUM_THREADS
    if threads is not None and (isinstance(threads, bool) or not isinstance(threads, int)
                                or not 1 <= threads <= available):
        raise InputError("threads", f"must be a whole number from 1 to {available} (the cores numba can use on "
                                    f"this machine), got {threads!r}")
    previous = numba.get_num_threads()
    if threads is not None:
        numba.set_num_threads(threads)
    try:
        yield numba.get_num_threads()
    finally:
        numba.set_num_threads(previous)


class LocalBackend:
    """Deals chunks in order on this machine's numba threads (the result does not depend on their number).

    Parameters
    ----------
    threads : int or None
        Kernel threads (None: numba's current setting). The previous setting is
        restored when the run ends.
    """

    def __init__(self, threads: int | None = None):
        self.threads = threads
        self._dealer = None
        self._lanes = None

    def info(self) -> dict:
        """The report's ``run`` fields of this backend."""
        return {"backend": "local", "threads": self._lanes or self.threads or numba.get_num_threads()}

    def deal(self, job, state, max_chunks: int | None):
        """Deal the chunks not in ``state``, in order; yields the units (``job.unit``) dealt so far after each chunk."""
        plan = job.plan
        budget = plan.n_chunks if max_chunks is None else max_chunks
        with numba_threads(self.threads) as lanes:
            self._lanes = lanes
            self._dealer = job.local_dealer(lanes)
            chunk, dealt = state.next_chunk, 0
            while chunk < plan.n_chunks and dealt < budget:
                if not state.is_done(chunk):  # chunks past a gap may come from a Dask run's checkpoint
                    self._dealer.deal(state, chunk)
                    dealt += 1
                    yield job.done(state) + self._dealer.pending
                chunk += 1

    def commit(self, state) -> None:
        """Move everything dealt into ``state``."""
        if self._dealer is not None:
            self._dealer.commit(state)
