"""The one Monte Carlo run flow (:class:`MonteCarloRun`), and :func:`simulate` on this machine.

Every outcome-histogram run goes through :class:`MonteCarloRun`, whoever
starts it: :func:`simulate` (this machine),
:func:`~baccarat_sim.engines.dask_backend.simulate_dask` (a Dask cluster) and
the command line (``python -m baccarat_sim.rtp``). It plans a new run, or
resumes one from its checkpoint and extends it when more rounds are asked for
(:mod:`baccarat_sim.engines.extend`); holds the checkpoint's lock, so that two
runs never deal into one checkpoint; deals what is left on a backend through
the run driver (:mod:`baccarat_sim.engines.driver`); and finishes: the
histogram, the run's facts for a report, and, once the results are safe, the
finished run's checkpoint removed, or written whole to be extended later (best
effort: a full disk costs the extension, never the results).
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

from ..errors import CheckpointInUse, InputError
from ..model.histogram import OutcomeHistogram
from ..model.rules import Rules
from ..storage.locking import LockHeld, RunLock
from .checkpoint import PLAN_FIELDS, load_checkpoint, peek_checkpoint
from .driver import RunControl, RunOutcome, run
from .extend import extend_state
from .local import LocalBackend
from .montecarlo import HistogramJob, warm_up
from .plan import RunPlan, plan_run
from .state import RunState

__all__ = ["MonteCarloRun", "simulate"]


@dataclasses.dataclass(eq=False)
class MonteCarloRun:
    """One Monte Carlo histogram run, from its plan to its histogram.

    Made by :meth:`open`; then :meth:`deal` (as often as a caller likes: a
    stopped run deals on), :meth:`histogram` and :meth:`summary`, and
    :meth:`finish` or :meth:`close` (also as a context manager), which release
    the checkpoint's lock.

    Attributes
    ----------
    job : HistogramJob
        What the run deals (its ``plan``).
    state : RunState
        What it has dealt.
    checkpoint : Path or None
        Its checkpoint (None: none is written).
    resumed : bool
        Whether the state came from the checkpoint.
    extended_from : RunPlan or None
        The checkpoint's plan, when the run resumed with more rounds than it had.
    replaces : dict or None
        A new run's checkpoint path held another run (of this seed): its
        ``rounds``, ``rounds_requested`` and whether it was ``finished``. This
        run's first checkpoint overwrites it.
    resumed_from : int
        Rounds already dealt when this session began.
    outcome : RunOutcome or None
        What the last :meth:`deal` did.
    meta : dict or None
        What the last :meth:`deal` wrote into the checkpoint's header (``RunControl.meta``).
    """

    job: HistogramJob
    state: RunState
    checkpoint: Path | None = None
    resumed: bool = False
    extended_from: RunPlan | None = None
    replaces: dict | None = None
    resumed_from: int = 0
    outcome: RunOutcome | None = None
    meta: dict | None = None
    lock: RunLock | None = dataclasses.field(default=None, repr=False)

    @classmethod
    def open(cls, rules: Rules, rounds: int | None, seed: int | None = None, *, model: str | None = None,
             shoe=None, by_position: bool | None = None, checkpoint: str | Path | None = None,
             resume: bool = False) -> MonteCarloRun:
        """Plan a run, or resume (and extend) the one in ``checkpoint``; the checkpoint is locked.

        Parameters
        ----------
        rules, rounds, seed, model, shoe, by_position
            See :func:`~baccarat_sim.engines.plan.plan_run`. When a run is
            resumed, a ``seed`` or ``rounds`` left None is the checkpoint's;
            every other setting must be the checkpoint's, and more ``rounds``
            than the checkpoint's run extend it bit for bit
            (:func:`~baccarat_sim.engines.extend.extend_state`).
        checkpoint : path or None
            The run's checkpoint (None: none is written and nothing is locked).
        resume : bool
            Continue the run in ``checkpoint`` if the file exists (else start a
            new one).

        Raises
        ------
        CheckpointInUse
            Another run holds ``checkpoint``.
        CheckpointError
            The checkpoint cannot be read, or is of another run.
        InputError
            ``rounds``: fewer than the checkpoint's run; any planning error.
        """
        path = None if checkpoint is None else Path(checkpoint)
        if resume and path is not None and path.exists():
            return cls._resume(rules, rounds, seed, model, shoe, by_position, path)
        if rounds is None:
            raise InputError("rounds", "give the number of rounds to deal (only a resumed run takes its "
                                       "checkpoint's)")
        plan = plan_run(rules, rounds, seed, model=model, shoe=shoe, by_position=by_position)
        job = HistogramJob(plan)
        lock = _lock(path)
        return cls(job, job.new_state(), path, replaces=_replaced_run(path), lock=lock)

    @classmethod
    def _resume(cls, rules, rounds, seed, model, shoe, by_position, path: Path) -> MonteCarloRun:
        # The seed and round count left out come from the checkpoint; everything else must match it. More rounds
        # extend the run.
        expect = plan_run(rules, 1 if rounds is None else rounds, 0 if seed is None else seed, model=model,
                          shoe=shoe, by_position=by_position)
        compare = tuple(f for f in PLAN_FIELDS if f != "rounds_requested" and (f != "seed" or seed is not None))
        lock = _lock(path)
        try:
            plan, state = load_checkpoint(path, expect=expect, rules=rules, compare=compare)
            extended_from = None
            if rounds is not None and expect.rounds_requested != plan.rounds_requested:
                if expect.rounds_requested < plan.rounds_requested:
                    raise InputError("rounds", f"the run in {path} is of {plan.rounds_requested:,} rounds; give more "
                                               "to extend it, or leave rounds out to continue it")
                longer = plan_run(rules, expect.rounds_requested, plan.seed, model=plan.model, shoe=plan.shoe,
                                  by_position=plan.n_positions > 1)
                state = extend_state(plan, state, longer)
                extended_from, plan = plan, longer
        except BaseException:
            if lock is not None:
                lock.release()
            raise
        return cls(HistogramJob(plan), state, path, resumed=True, extended_from=extended_from,
                   resumed_from=state.rounds, lock=lock)

    @property
    def plan(self) -> RunPlan:
        """The run's layout."""
        return self.job.plan

    @property
    def complete(self) -> bool:
        """Whether every chunk of the run is dealt."""
        return self.state.chunks_done >= self.plan.n_chunks

    def warm_up(self) -> None:
        """Compile (or load from numba's cache) the local kernel the run deals with, before any timing starts."""
        warm_up(self.plan)

    def deal(self, backend, control: RunControl | None = None) -> RunOutcome:
        """Deal what the run lacks on ``backend`` (local or Dask), writing its checkpoint as ``control`` says.

        ``control.checkpoint`` is the run's own. Raises what
        :func:`~baccarat_sim.engines.driver.run` raises.
        """
        control = dataclasses.replace(control or RunControl(), checkpoint=self.checkpoint)
        self.meta = control.meta
        self.outcome = run(self.job, self.state, backend, control)
        return self.outcome

    def histogram(self) -> OutcomeHistogram:
        """What the run has dealt; ``meta`` adds the wall time and the backend's fields of the last deal."""
        outcome = self.outcome
        meta = {} if outcome is None else {"wall_seconds": outcome.wall_seconds, **outcome.backend}
        return self.state.histogram(self.plan, meta)

    def summary(self) -> dict:
        """The run's facts for a report's ``run`` section (rounds, seed, speed, chunks, backend, checkpoint)."""
        plan, state = self.plan, self.state
        outcome = self.outcome or RunOutcome(0.0, None, None, {})
        wall = outcome.wall_seconds
        session_rounds = state.rounds - self.resumed_from
        return {
            "rounds": state.rounds,
            "rounds_requested": plan.rounds_requested,
            "shoes": state.shoes if plan.model == "dealt" else 0,
            "seed": plan.seed,
            "threads": outcome.backend.get("threads"),
            "seconds": wall,
            "kernel_seconds": state.kernel_seconds,
            # Kernel time is kept in the checkpoint, so this rate is right for a resumed run too.
            "rounds_per_second": state.rounds / state.kernel_seconds if state.kernel_seconds else None,
            "wall_rounds_per_second": session_rounds / wall if wall > 0 and session_rounds else None,
            "resumed_from_rounds": self.resumed_from if self.resumed else None,
            "chunks": plan.n_chunks,
            "chunks_done": state.chunks_done,
            "complete": self.complete,
            "interrupted": outcome.interrupted,
            "checkpoint": None if self.complete or self.checkpoint is None else str(self.checkpoint),
            **outcome.backend,  # backend; for dask also workers (processes that dealt), threads, scheduler, tasks
        }

    def finish(self, keep_checkpoint: bool = False) -> str | None:
        """End the run; unlocked. A finished run's checkpoint is removed, or written whole to be extended later.

        Call it once the results are safe (written): until then the checkpoint
        holds the only copy of what was dealt. Keeping the checkpoint is best
        effort: a checkpoint that cannot be written (a full disk) costs only the
        extension of a finished run, whose results are safe.

        Returns
        -------
        str or None
            Why the checkpoint asked for could not be kept (one line), or None.
        """
        try:
            if not self.complete or self.checkpoint is None:
                return None
            if keep_checkpoint:
                return self.keep()
            self.checkpoint.unlink(missing_ok=True)
            return None
        finally:
            self.close()

    def keep(self) -> str | None:
        """Write the checkpoint of what the run has dealt now (best effort); returns why it failed, or None.

        The checkpoint written before (if any) stays in place when this write fails.
        """
        if self.checkpoint is None:
            return None
        try:
            self.job.save_checkpoint(self.checkpoint, self.state, self.meta)
        except OSError as error:
            left = peek_checkpoint(self.checkpoint) if self.checkpoint.exists() else None
            kept = (f"; {self.checkpoint} still holds {int(left['rounds']):,} of its rounds (--resume deals the rest "
                    "again)") if isinstance(left, dict) and isinstance(left.get("rounds"), int) else ""
            return f"cannot write checkpoint {self.checkpoint} ({error.strerror or error}){kept}"
        return None

    def close(self) -> None:
        """Release the checkpoint's lock (the checkpoint stays)."""
        if self.lock is not None:
            self.lock.release()
            self.lock = None

    def __enter__(self) -> MonteCarloRun:
        return self

    def __exit__(self, *exc) -> bool:
        self.close()
        return False


def _replaced_run(path: Path | None) -> dict | None:
    """What the checkpoint a new run will overwrite holds (None: nothing, or nothing readable)."""
    header = peek_checkpoint(path) if path is not None and path.exists() else None
    try:
        plan = header["plan"]
        chunks = -(-plan["total_blocks"] // plan["blocks_per_chunk"])
        return {"rounds": int(header["rounds"]), "rounds_requested": int(plan["rounds_requested"]),
                "finished": header["next_chunk"] >= chunks}
    except (TypeError, KeyError, ValueError, ZeroDivisionError):  # None, or a header too damaged to describe
        return None


def _lock(path: Path | None) -> RunLock | None:
    """Hold ``path`` for this process; a run already holding it is named in a :class:`CheckpointInUse`."""
    if path is None:
        return None
    lock = RunLock(path, " ".join(sys.argv))
    try:
        lock.acquire()
    except LockHeld as held:
        raise CheckpointInUse("checkpoint", str(held)) from None
    return lock


def simulate(rules: Rules, rounds: int | None, seed: int | None = None, *, threads: int | None = None,
             model: str | None = None, shoe=None, by_position: bool | None = None, progress=None,
             checkpoint: str | Path | None = None, resume: bool = False) -> OutcomeHistogram:
    """Monte Carlo outcome histogram of ``rounds`` rounds under ``rules``, dealt on this machine.

    Parameters
    ----------
    rules : Rules
        The rule set (shoe model, decks, burn, cut card).
    rounds : int or None
        Rounds to deal (exactly, fresh model; about, in whole shoes, dealt
        model). A float that is a whole number (``1e6``) is accepted. None
        only with ``resume``: the checkpoint's.
    seed : int or None
        Master seed (None draws one, or takes the checkpoint's with
        ``resume``; it is recorded in the histogram).
    threads : int or None
        Kernel threads (None: numba's current setting, which is restored
        afterwards). The result does not depend on it.
    model, shoe, by_position
        See `baccarat_sim.engines.plan.plan_run`.
    progress : object or None
        Anything with ``update(n)``, such as
        ``baccarat_sim.report.progress.progress_bar(rounds)``: told of every round dealt.
    checkpoint : path or None
        Write a resumable checkpoint here while running (removed when the run
        finishes); no other run may use it meanwhile.
    resume : bool
        Continue from ``checkpoint`` if it exists; with more ``rounds`` than
        its run, extend that run bit for bit (see `MonteCarloRun.open`).

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
    with MonteCarloRun.open(rules, rounds, seed, model=model, shoe=shoe, by_position=by_position,
                            checkpoint=checkpoint, resume=resume) as flow:
        flow.deal(LocalBackend(threads), RunControl(progress=progress))
        flow.finish()
    return flow.histogram()
