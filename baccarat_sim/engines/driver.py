"""The one run driver: deals a run's chunks on a backend, with progress, checkpoints and clean stops.

Every Monte Carlo run goes through :func:`run`, whatever it deals (an outcome
histogram, a counting study) and wherever (this machine's threads or a Dask
cluster). The *job* says what a chunk deals and how it is added to the run's
state (:mod:`baccarat_sim.engines.montecarlo`); the *backend* deals the chunks
(:mod:`baccarat_sim.engines.local`, :mod:`baccarat_sim.engines.dask_backend`);
the driver does everything else once: it stops at a chunk boundary on SIGINT,
SIGTERM, SIGHUP or after ``max_chunks`` chunks, writes the checkpoint soon after
the start, then every ``checkpoint_every`` seconds and when it stops before its
end, keeps dealing when a periodic checkpoint cannot be written, and reports
progress to whatever object the caller hands it. A finished run's checkpoint
is the caller's to keep or remove once its results are safe
(:meth:`baccarat_sim.engines.simulation.MonteCarloRun.finish`).
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from pathlib import Path

from ..errors import BackendError, CheckpointError
from .signals import StopSignals

__all__ = ["FIRST_CHECKPOINT_SECONDS", "RunControl", "RunOutcome", "run"]

#: Seconds into a run when its first checkpoint is written (then every ``checkpoint_every``).
FIRST_CHECKPOINT_SECONDS = 2.0


@dataclasses.dataclass
class RunControl:
    """How a run is watched and saved (nothing here changes what it deals).

    Attributes
    ----------
    checkpoint : path or None
        Where the run's checkpoint is written (None: no checkpoint).
    checkpoint_every : float
        Seconds between checkpoints.
    max_chunks : int or None
        Deal at most this many chunks, then stop as a signal would.
    progress : object or None
        Anything with ``update(n)`` (a tqdm bar): told of every unit dealt (``job.unit``: rounds or shoes).
    on_chunk : callable or None
        Called with the state whenever new chunks have been added to it.
    meta : dict or None
        Written into the checkpoint's header.
    warn : callable or None
        Receives one-line warnings (a checkpoint that could not be written).
    """

    checkpoint: str | Path | None = None
    checkpoint_every: float = 30.0
    max_chunks: int | None = None
    progress: object | None = None
    on_chunk: Callable | None = None
    meta: dict | None = None
    warn: Callable[[str], None] | None = None


@dataclasses.dataclass
class RunOutcome:
    """What a run did beyond its state.

    Attributes
    ----------
    wall_seconds : float
        Wall time of the dealing loop.
    stopped_by : str or None
        ``"SIGINT"``, ``"SIGTERM"``, ``"SIGHUP"``, ``"max_chunks"``, or None for a finished run.
    signum : int or None
        The signal that stopped the run.
    backend : dict
        The backend's report fields (``backend``, ``threads``, for Dask ``workers``, ...).
    checkpoint_failures : int
        Periodic checkpoints that could not be written (the run dealt on).
    """

    wall_seconds: float
    stopped_by: str | None
    signum: int | None
    backend: dict
    checkpoint_failures: int = 0

    @property
    def interrupted(self) -> bool:
        """Whether a signal stopped the run."""
        return self.signum is not None


class Checkpointer:
    """When to write a run's checkpoint, and what to do when it cannot be written.

    A periodic checkpoint that fails (disk full, permission) costs nothing
    dealt: the run warns once, keeps the previous checkpoint and retries at the
    next interval. Only the final write, when a run stops unfinished, must
    succeed.
    """

    def __init__(self, job, control: RunControl):
        self.job = job
        self.path = None if control.checkpoint is None else Path(control.checkpoint)
        self.every = control.checkpoint_every
        self.meta = control.meta
        self.warn = control.warn
        self.started = self.last = time.monotonic()
        self.saved = False
        self.failures = 0

    def due(self) -> bool:
        """Whether a checkpoint should be written now."""
        if self.path is None:
            return False
        now = time.monotonic()
        return now - self.last >= (self.every if self.saved else min(self.every, FIRST_CHECKPOINT_SECONDS))

    def save(self, state, final: bool = False) -> None:
        """Write the checkpoint (atomically); a failed periodic write warns once and is retried later.

        Raises
        ------
        CheckpointError
            The final write failed: the message says what was dealt and not saved.
        """
        if self.path is None:
            return
        try:
            self.job.save_checkpoint(self.path, state, self.meta)
            self.saved = True
        except OSError as error:
            self.failures += 1
            reason = error.strerror or str(error)
            if final:
                # No parameter is at fault (the disk is): the message names the file, and a command line
                # prints it without an option such as --resume in front.
                raise CheckpointError("", f"cannot write checkpoint {self.path} ({reason}); the "
                                          f"{self.job.done(state):,} {self.job.unit} dealt are not saved") from None
            if self.failures == 1 and self.warn is not None:
                self.warn(f"warning: cannot write checkpoint {self.path} ({reason}); dealing on, keeping the "
                          f"previous checkpoint, retrying every {self.every:g} s")
        finally:
            self.last = time.monotonic()


def run(job, state, backend, control: RunControl | None = None) -> RunOutcome:
    """Deal the chunks of ``job`` not yet in ``state`` (in place) on ``backend``.

    Parameters
    ----------
    job
        What a chunk deals and how it is folded into ``state``
        (e.g. :class:`~baccarat_sim.engines.montecarlo.HistogramJob`).
    state
        What is dealt already (``job.new_state()`` or a checkpoint's); updated in place.
    backend
        :class:`~baccarat_sim.engines.local.LocalBackend` or
        :class:`~baccarat_sim.engines.dask_backend.DaskBackend`.
    control : RunControl or None
        Checkpoints, progress, early stops.

    Returns
    -------
    RunOutcome

    Raises
    ------
    BackendError
        The backend failed for good; the state keeps everything dealt before,
        and the checkpoint is written.
    CheckpointError
        A run that stopped unfinished could not write its checkpoint.
    """
    control = control or RunControl()
    saver = Checkpointer(job, control)
    progress = control.progress
    reported = job.done(state)
    stopped_by = None
    started = time.monotonic()
    with StopSignals() as stop:
        stream = backend.deal(job, state, control.max_chunks)
        try:
            try:
                for rounds in stream:
                    if progress is not None and rounds > reported:
                        progress.update(rounds - reported)
                        reported = rounds
                    if saver.due() and not stop.requested:
                        backend.commit(state)
                        with stop.deferred():
                            saver.save(state)
                    if control.on_chunk is not None:
                        backend.commit(state)
                        control.on_chunk(state)
                    if stop.requested:
                        break
            finally:
                stream.close()
        except BackendError as error:
            backend.commit(state)
            with stop.deferred():
                saver.save(state, final=True)
            where = f"saved in {saver.path} (resume to continue)" if saver.path is not None else "not saved"
            raise BackendError(f"{error.message}; {state.chunks_done} of {job.plan.n_chunks} chunks "
                               f"({job.done(state):,} {job.unit}) were done, {where}", error.param) from None
        backend.commit(state)
        finished = state.chunks_done >= job.plan.n_chunks
        if stop.requested:
            stopped_by = stop.name
        elif not finished:
            stopped_by = "max_chunks"
        if not finished:  # a stopped run's checkpoint holds all it dealt
            with stop.deferred():
                saver.save(state, final=True)
        if progress is not None and job.done(state) > reported:
            progress.update(job.done(state) - reported)
    state.interrupted = stop.requested
    return RunOutcome(time.monotonic() - started, stopped_by, stop.signum, backend.info(), saver.failures)
