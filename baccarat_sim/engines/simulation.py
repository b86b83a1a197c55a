"""Monte Carlo runs from Python: :func:`simulate` (this machine) and :func:`simulate_dask` (a cluster)."""

from __future__ import annotations

import contextlib
import time
from pathlib import Path

from ..model.histogram import OutcomeHistogram
from ..model.rules import Rules
from .checkpoint import load_checkpoint
from .dask_backend import DaskBackend, connect, prepare_workers
from .driver import RunControl, run
from .local import LocalBackend
from .montecarlo import HistogramJob
from .plan import plan_run

__all__ = ["simulate", "simulate_dask"]


def _start(rules: Rules, rounds, seed, model, shoe, by_position, checkpoint, resume):
    """The job and state of a run: planned afresh, or continued from ``checkpoint``."""
    plan = plan_run(rules, rounds, seed, model=model, shoe=shoe, by_position=by_position)
    if resume and checkpoint is not None and Path(checkpoint).exists():
        plan, state = load_checkpoint(checkpoint, expect=plan if seed is not None else None, rules=rules)
        return HistogramJob(plan), state
    job = HistogramJob(plan)
    return job, job.new_state()


def _finish(job, state, checkpoint, meta: dict) -> OutcomeHistogram:
    if checkpoint is not None and state.chunks_done >= job.plan.n_chunks:
        Path(checkpoint).unlink(missing_ok=True)  # a finished run needs no checkpoint
    return state.histogram(job.plan, meta)


def simulate(rules: Rules, rounds: int, seed: int | None = None, *, threads: int | None = None,
             model: str | None = None, shoe=None, by_position: bool | None = None, progress=None,
             checkpoint: str | Path | None = None, resume: bool = False) -> OutcomeHistogram:
    """Monte Carlo outcome histogram of ``rounds`` rounds under ``rules``, dealt on this machine.

    Parameters
    ----------
    rules : Rules
        The rule set (shoe model, decks, burn, cut card).
    rounds : int
        Rounds to deal (exactly, fresh model; about, in whole shoes, dealt
        model). A float that is a whole number (``1e6``) is accepted.
    seed : int or None
        Master seed (None draws one; it is recorded in the histogram).
    threads : int or None
        Kernel threads (None: numba's current setting, which is restored
        afterwards). The result does not depend on it.
    model, shoe, by_position
        See :func:`~baccarat_sim.engines.plan.plan_run`.
    progress : object or None
        Anything with ``update(n)``, such as
        ``baccarat_sim.report.progress.progress_bar(rounds)``: told of every round dealt.
    checkpoint : path or None
        Write a resumable checkpoint here while running (removed when the run finishes).
    resume : bool
        Continue from ``checkpoint`` if it exists.

    Returns
    -------
    OutcomeHistogram

    Examples
    --------
    >>> from baccarat_sim import load_rules
    >>> h = simulate(load_rules("default"), 1e5, seed=1)
    >>> h.rounds, h.total
    (100000, 100000)
    """
    job, state = _start(rules, rounds, seed, model, shoe, by_position, checkpoint, resume)
    outcome = run(job, state, LocalBackend(threads), RunControl(checkpoint=checkpoint, progress=progress))
    return _finish(job, state, checkpoint, {"wall_seconds": outcome.wall_seconds, **outcome.backend})


def simulate_dask(rules: Rules, rounds: int, seed: int | None = None, *, client=None,
                  scheduler: str | None = None, workers: int | None = None, threads_per_worker: int = 1,
                  model: str | None = None, shoe=None, by_position: bool | None = None, progress=None,
                  checkpoint: str | Path | None = None, resume: bool = False) -> OutcomeHistogram:
    """:func:`simulate` on a Dask cluster: the same histogram, bit for bit.

    Parameters
    ----------
    rules, rounds, seed, model, shoe, by_position, progress, checkpoint, resume
        As for :func:`simulate`.
    client : distributed.Client or None
        A client of the cluster to use.
    scheduler : str or None
        Without ``client``: address of a running scheduler.
    workers : int or None
        Without ``client`` or ``scheduler``: start a LocalCluster of this many
        worker processes (``threads_per_worker`` threads each) for the run.
    threads_per_worker : int
        See ``workers``.

    Returns
    -------
    OutcomeHistogram
        ``meta`` adds ``backend``, ``workers`` (processes that dealt), ``threads``
        and ``scheduler``.

    Examples
    --------
    >>> from baccarat_sim import load_rules, simulate
    >>> rules = load_rules("default")
    >>> h = simulate_dask(rules, 10**9, seed=1, scheduler="tcp://10.0.0.5:8786")  # doctest: +SKIP
    >>> (h.counts == simulate(rules, 10**9, seed=1).counts).all()  # doctest: +SKIP
    True
    """
    job, state = _start(rules, rounds, seed, model, shoe, by_position, checkpoint, resume)
    with contextlib.ExitStack() as stack:
        if client is None:
            client = stack.enter_context(connect(scheduler, workers, threads_per_worker))
        prepare_workers(client, job.plan)
        started = time.monotonic()
        outcome = run(job, state, DaskBackend(client), RunControl(checkpoint=checkpoint, progress=progress))
    return _finish(job, state, checkpoint, {"wall_seconds": time.monotonic() - started, **outcome.backend})
