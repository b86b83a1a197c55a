"""Short ways for tests to drive a run through the one run driver (local or Dask)."""

from __future__ import annotations

import numba

from baccarat_sim.engines.dask_backend import DaskBackend
from baccarat_sim.engines.driver import RunControl, run
from baccarat_sim.engines.local import LocalBackend
from baccarat_sim.engines.montecarlo import HistogramJob

#: Two threads where the machine has them, else one: no test assumes two cores.
MANY_THREADS = min(2, numba.config.NUMBA_NUM_THREADS)


def run_chunks(plan, state, threads=None, **control):
    """Deal what ``state`` lacks of ``plan`` on this machine; returns ``state`` (``control``: RunControl fields)."""
    run(HistogramJob(plan), state, LocalBackend(threads), RunControl(**control))
    return state


def run_dask(plan, state, client, *, chunks_per_task=None, retries=2, no_workers_timeout=300.0, **control):
    """Deal what ``state`` lacks of ``plan`` on a Dask cluster; returns the backend (workers, tasks, threads)."""
    backend = DaskBackend(client, chunks_per_task=chunks_per_task, retries=retries,
                          no_workers_timeout=no_workers_timeout)
    run(HistogramJob(plan), state, backend, RunControl(**control))
    return backend


def run_chunk(plan, chunk):
    """One chunk dealt on its own, as a worker deals it: ``(counts, rounds, shoes)``."""
    (_, _, counts, rounds, shoes), = HistogramJob(plan).task(chunk, 1)
    return counts.astype("int64"), rounds, shoes
