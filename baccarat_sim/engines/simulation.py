"""Monte Carlo runs from Python on this machine: :func:`simulate`.

On a Dask cluster: :func:`baccarat_sim.engines.dask_backend.simulate_dask`.
"""

from __future__ import annotations

from pathlib import Path

from ..model.histogram import OutcomeHistogram
from ..model.rules import Rules
from .checkpoint import load_checkpoint
from .driver import RunControl, run
from .local import LocalBackend
from .montecarlo import HistogramJob
from .plan import plan_run

__all__ = ["finish_run", "simulate", "start_run"]


def start_run(rules: Rules, rounds, seed, model, shoe, by_position, checkpoint, resume):
    """The job and state of a run: planned afresh, or continued from ``checkpoint``."""
    plan = plan_run(rules, rounds, seed, model=model, shoe=shoe, by_position=by_position)
    if resume and checkpoint is not None and Path(checkpoint).exists():
        plan, state = load_checkpoint(checkpoint, expect=plan if seed is not None else None, rules=rules)
        return HistogramJob(plan), state
    job = HistogramJob(plan)
    return job, job.new_state()


def finish_run(job, state, checkpoint, meta: dict) -> OutcomeHistogram:
    """The histogram of a run; a finished run's checkpoint is removed."""
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
    job, state = start_run(rules, rounds, seed, model, shoe, by_position, checkpoint, resume)
    outcome = run(job, state, LocalBackend(threads), RunControl(checkpoint=checkpoint, progress=progress))
    return finish_run(job, state, checkpoint, {"wall_seconds": outcome.wall_seconds, **outcome.backend})
