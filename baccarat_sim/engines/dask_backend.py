"""Dask backend: the same Monte Carlo run spread over a ``dask.distributed`` cluster.

A run's random stream and its chunk layout are fixed by
:func:`~baccarat_sim.engines.plan.plan_run` from the run size alone, so a task
is just a range of whole chunks: a worker runs the job's task
(:meth:`~baccarat_sim.engines.montecarlo.HistogramJob.task`, the same kernel as
a local run) and sends back its counts. The client folds them into the run's
state; integer sums do not depend on the order, so the histogram is
bit-identical to the local backend's whatever the number of workers, the order
tasks finish in, or the workers lost on the way.

Faults are Dask's business: a task whose worker dies is recomputed on another
(up to the scheduler's ``allowed-failures``), and a task that raises is
retried. Every finished task is folded into the state at once, and the run
driver (:mod:`baccarat_sim.engines.driver`) checkpoints the state, so a run
stopped by a signal, or by a cluster that fails for good, resumes (on the
cluster or locally).

Dask is an optional extra (``pip install "baccarat_sim[dask]"``; from a clone ``pip install -e ".[dask]"``): it is
imported only when a cluster is used.
"""

from __future__ import annotations

import contextlib
import logging
import re
import signal
import threading
import time
import uuid
from pathlib import Path

from .._version import __version__
from ..errors import BackendError
from ..model.histogram import OutcomeHistogram
from ..model.rules import Rules
from .driver import RunControl
from .fingerprint import stream_fingerprint
from .montecarlo import warm_up
from .simulation import MonteCarloRun

__all__ = ["DaskBackend", "check_address", "cluster_backend", "connect", "guided_task_size", "prepare_workers",
           "require_distributed", "simulate_dask"]

#: Seconds between looks at the cluster's size (for the number of tasks kept in flight).
_REFRESH_SECONDS = 2.0
#: Most chunks in one task (a second or two of one core): bigger tasks would make checkpoints and progress coarse.
MAX_CHUNKS_PER_TASK = 16
#: A task takes 1 / (GUIDED_SPLIT * threads) of the chunks left (see :func:`guided_task_size`).
GUIDED_SPLIT = 4
#: Seconds a run waits for a worker when the cluster has none left (then it stops, with a checkpoint).
NO_WORKERS_TIMEOUT = 300.0
#: Seconds to fetch one finished task's counts before looking at the cluster again (a worker that left took them
#: with it: the scheduler computes the task again, once there is a worker to do it).
FETCH_SECONDS = 10.0


def require_distributed():
    """``dask.distributed``, or a one-line :class:`BackendError` saying how to install it."""
    try:
        import distributed
    except ImportError as error:
        raise BackendError(f"the Dask backend needs Dask, which is not installed ({error}); install it with: "
                           "pip install 'baccarat_sim[dask]' (from a clone: pip install -e '.[dask]')",
                           "backend") from None
    return distributed


def _worker_address() -> str:
    """Address of the Dask worker running the caller ("" outside a worker)."""
    try:
        from distributed import get_worker

        return get_worker().address
    except (ImportError, ValueError):
        return ""


def _deal_task(job, first_chunk: int, n_chunks: int, fingerprint: str):
    """Worker side: the job's task on chunks ``first_chunk .. first_chunk + n_chunks - 1``.

    Returns
    -------
    tuple
        ``(result, seconds, worker)``.
    """
    mine = stream_fingerprint()
    if mine != fingerprint:
        raise RuntimeError(f"worker {_worker_address()} runs baccarat_sim {mine}, the client {fingerprint}: "
                           "install the same version everywhere")
    started = time.perf_counter()
    result = job.task(first_chunk, n_chunks)
    return result, time.perf_counter() - started, _worker_address()


def _prepare_worker(fingerprint: str, plan) -> str:
    """Worker side: compile (or load from numba's cache) the plan's kernel; return the worker's fingerprint."""
    mine = stream_fingerprint()
    if mine == fingerprint:
        warm_up(plan, remote=True)  # a worker runs the task kernel alone
    return mine


def prepare_workers(client, plan) -> dict[str, int]:
    """Check every worker deals the client's stream and warm its kernel up; return ``{address: threads}``.

    Compiling in every worker up front keeps numba's compile time out of the
    run's timing (workers that join later compile on their first task).

    Raises
    ------
    BackendError
        A worker cannot import baccarat_sim or runs another version of it.
    """
    fingerprint = stream_fingerprint()
    try:
        answers = client.run(_prepare_worker, fingerprint, plan)
    except Exception as error:  # a worker without baccarat_sim cannot even unpickle the call
        raise BackendError(f"dask: a worker cannot run baccarat_sim ({type(error).__name__}: {error}); "
                           f"install baccarat_sim {__version__} on every worker") from None
    wrong = {address: theirs for address, theirs in answers.items() if theirs != fingerprint}
    if wrong:
        address, theirs = next(iter(wrong.items()))
        raise BackendError(f"dask: {len(wrong)} worker(s) run another baccarat_sim ({address}: {theirs}, "
                           f"this is {fingerprint}); install the same version everywhere")
    return dict(client.nthreads())


@contextlib.contextmanager
def connect(scheduler: str | None = None, workers: int | None = None, threads_per_worker: int = 1,
            timeout: float | None = None, wait_for_workers: float = 60.0):
    """A ``distributed.Client`` on an existing cluster, or on a LocalCluster started (and stopped) here.

    Parameters
    ----------
    scheduler : str or None
        Address of a running scheduler (``tcp://host:8786``).
    workers : int or None
        Without ``scheduler``: start a LocalCluster of this many worker
        processes.
    threads_per_worker : int
        LocalCluster: threads per worker process (each thread runs one task).
    timeout : float or None
        Seconds to wait for the scheduler to answer (None: Dask's
        ``distributed.comm.timeouts.connect``).
    wait_for_workers : float
        Seconds to wait for a scheduler without workers to get one.

    Yields
    ------
    distributed.Client
    """
    distributed = require_distributed()
    if (scheduler is None) == (workers is None):
        raise BackendError("give either a scheduler address or a number of workers", "scheduler")
    with contextlib.ExitStack() as stack:
        if scheduler is not None:
            check_address(scheduler)
            # A lost scheduler is reported in one line (BackendError); the client's own log of its failed
            # reconnection, with tracebacks, would bury that line.
            stack.enter_context(_quiet_logger("distributed.client"))
            try:
                wait = {} if timeout is None else {"timeout": timeout}  # None would mean: wait for ever
                client = stack.enter_context(distributed.Client(scheduler, set_as_default=False, **wait))
            except (OSError, ValueError, TypeError) as error:
                raise BackendError(f"cannot connect to {scheduler} ({error})", "scheduler") from None
            try:
                client.wait_for_workers(1, timeout=wait_for_workers)
            except TimeoutError:
                raise BackendError(f"{scheduler} has no workers (waited {wait_for_workers:g} s); start some "
                                   f"with: dask worker {scheduler}", "scheduler") from None
        else:
            if workers < 1 or threads_per_worker < 1:
                raise BackendError(f"need at least one worker and thread, got {workers} x {threads_per_worker}",
                                   "workers")
            with _sigint_ignored():
                cluster = stack.enter_context(distributed.LocalCluster(
                    n_workers=workers, threads_per_worker=threads_per_worker, processes=True,
                    # ":0": a free port. Its HTTP server always starts, and on the default 8787 a second cluster
                    # (another run on this machine) would warn and move.
                    dashboard_address=":0", silence_logs=logging.ERROR,
                ))
            client = stack.enter_context(distributed.Client(cluster, set_as_default=False))
            client.wait_for_workers(workers)
        yield client


@contextlib.contextmanager
def _quiet_logger(name: str):
    """Log only critical records of logger ``name`` within the block."""
    logger = logging.getLogger(name)
    level = logger.level
    logger.setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        logger.setLevel(level)


def check_address(scheduler: str) -> None:
    """Refuse a malformed scheduler address before a Client is made of it (a failed Client dies noisily)."""
    require_distributed()
    from distributed.comm.addressing import parse_address, parse_host_port

    try:
        protocol, location = parse_address(scheduler)
        if protocol in ("tcp", "tls", "ws", "wss"):
            parse_host_port(location)
    except ValueError as error:
        raise BackendError(f"{scheduler!r} is not a scheduler address such as tcp://10.0.0.5:8786 ({error})",
                           "scheduler") from None


@contextlib.contextmanager
def _sigint_ignored():
    """Ignore SIGINT while worker processes are started: they inherit it.

    Ctrl-C reaches every process of the terminal's foreground group. The run
    (this process) turns it into a stop at a task boundary, with a
    checkpoint; workers that died of it instead would only fill the terminal
    with the cluster's complaints.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def guided_task_size(remaining: int, threads: int) -> int:
    """Chunks for the next task: big while much is left, down to one at the end.

    Each task takes about ``1 / (4 * threads)`` of what is left (guided
    self-scheduling), at most :data:`MAX_CHUNKS_PER_TASK`: few tasks (little
    overhead) in the bulk of a run, and single chunks at the end, so no
    thread idles long while the last tasks finish.
    """
    return max(1, min(MAX_CHUNKS_PER_TASK, remaining // (GUIDED_SPLIT * max(1, threads))))


def task_ranges(plan, state, task_size, max_chunks: int | None):
    """Tasks still to deal, as ``(first_chunk, n_chunks)`` in run order.

    A task holds consecutive undealt chunks, ``task_size(remaining)`` of them
    at most (``remaining``: chunks not yet handed out, this one included),
    and all tasks together at most ``max_chunks`` chunks. The generator is
    lazy: sizes follow the cluster as it is when each task is submitted.
    """
    budget = plan.n_chunks if max_chunks is None else max_chunks
    remaining = min(budget, plan.n_chunks - state.chunks_done)
    chunk = state.next_chunk
    while chunk < plan.n_chunks and remaining > 0:
        if state.is_done(chunk):
            chunk += 1
            continue
        first, size = chunk, max(1, min(task_size(remaining), remaining))
        while chunk < plan.n_chunks and chunk - first < size and not state.is_done(chunk):
            chunk += 1
        remaining -= chunk - first
        yield first, chunk - first


def _cancellation_errors(distributed) -> tuple:
    """Every exception class a lost cluster can raise from a future (the names moved between Dask versions)."""
    import asyncio
    import concurrent.futures

    names = ("FutureCancelledError", "FuturesCancelledError", "CancelledError")
    found = [getattr(distributed.client, name) for name in names if hasattr(distributed.client, name)]
    return (OSError, asyncio.CancelledError, concurrent.futures.CancelledError, *found)


class DaskBackend:
    """Deals a run's chunks as tasks on a Dask cluster.

    Parameters
    ----------
    client : distributed.Client
        A client of the cluster (see :func:`connect`). Call
        :func:`prepare_workers` first to keep compile time out of the run.
    chunks_per_task : int or None
        Chunks per task (None: from the run size and the cluster's threads,
        :func:`guided_task_size`). The result does not depend on it.
    retries : int
        Times Dask reruns a task that raised (a task whose worker died is
        rerun by the scheduler anyway).
    no_workers_timeout : float
        When the cluster has no worker, wait this many seconds for one (saying
        so through ``note``), then stop with a :class:`BackendError`.
    note : callable or None
        Receives one-line notes (workers lost, waiting).
    label : str or None
        What the report calls the cluster (None: its scheduler's address).
    """

    def __init__(self, client, *, chunks_per_task: int | None = None, retries: int = 2,
                 no_workers_timeout: float = NO_WORKERS_TIMEOUT, note=None, label: str | None = None):
        self.client = client
        self.chunks_per_task = chunks_per_task
        self.retries = retries
        self.no_workers_timeout = no_workers_timeout
        self.note = note
        self.workers: set = set()
        self.threads = 0
        self.tasks = 0
        self.worker_seconds = 0.0
        self.scheduler = label or str(client.scheduler.address)

    def info(self) -> dict:
        """The report's ``run`` fields of a Dask run."""
        return {"backend": "dask", "workers": len(self.workers), "threads": self.threads,
                "scheduler": self.scheduler, "tasks": self.tasks, "worker_seconds": self.worker_seconds}

    def commit(self, state) -> None:
        """Nothing to do: every task is folded into the state as it arrives."""

    def deal(self, job, state, max_chunks: int | None):
        """Submit the chunks not in ``state`` as tasks; yields the rounds in ``state`` after each folded task.

        Raises
        ------
        BackendError
            A task failed for good (after retries, or after killing
            ``allowed-failures`` workers), the scheduler was lost, or the
            cluster had no workers for ``no_workers_timeout`` seconds.
        """
        distributed = require_distributed()
        if not getattr(job, "supports_remote", False):
            raise BackendError("this kind of run deals on the local backend only", "backend")
        client = self.client
        fingerprint = stream_fingerprint()
        nthreads = client.nthreads()
        self.threads = max(self.threads, sum(nthreads.values()))
        if self.chunks_per_task is not None:
            todo = task_ranges(job.plan, state, lambda remaining: self.chunks_per_task, max_chunks)
        else:
            todo = task_ranges(job.plan, state,
                               lambda remaining: guided_task_size(remaining, sum(nthreads.values())), max_chunks)
        next_task = next(todo, None)
        run_tag = uuid.uuid4().hex[:8]
        in_flight: dict = {}
        last_look = time.monotonic()
        no_workers_since = None  # when a look first found the cluster without a worker
        lost = _cancellation_errors(distributed)
        started = time.monotonic()
        # as_current: distributed.wait finds its client there, also when the caller made it with set_as_default=False.
        with client.as_current():
            try:
                while next_task is not None or in_flight:
                    # Workers come and go: look now and then, and at every wake-up while there are none.
                    if no_workers_since is not None or time.monotonic() - last_look >= _REFRESH_SECONDS:
                        nthreads, last_look = client.nthreads(), time.monotonic()
                        self.threads = max(self.threads, sum(nthreads.values()))
                        if nthreads:
                            no_workers_since = None
                        elif no_workers_since is None:  # the wait starts now, and is said at once
                            no_workers_since = last_look
                            if self.note is not None:
                                self.note(f"dask: no workers left; waiting up to {self.no_workers_timeout:g} s for "
                                          "one to join, then stopping with a checkpoint")
                        elif last_look - no_workers_since > self.no_workers_timeout:
                            raise BackendError(f"dask: the cluster has had no workers for "
                                               f"{self.no_workers_timeout:g} s")
                    # Two tasks per thread keep every thread busy while results travel, and bound both what a
                    # checkpoint holds past a gap and what a stop throws away.
                    while next_task is not None and len(in_flight) < 2 * max(1, sum(nthreads.values())) + 2:
                        first, n = next_task
                        future = client.submit(_deal_task, job, first, n, fingerprint, pure=False,
                                               retries=self.retries,
                                               key=f"baccarat_sim-chunks-{run_tag}-{first}-{first + n - 1}")
                        in_flight[future] = next_task
                        next_task = next(todo, None)
                    try:
                        done, _ = distributed.wait(list(in_flight), timeout=0.5, return_when="FIRST_COMPLETED")
                    except TimeoutError:  # wake up now and then for signals and the cluster's size
                        yield job.done(state)
                        continue
                    for future in done:
                        if future.status != "finished":
                            raise _task_failure(future, *in_flight[future])
                    held = client.who_has(list(done))  # a worker that left took its tasks' counts with it
                    for future in done:
                        if not held.get(future.key):  # stays in flight: the scheduler deals it again
                            continue
                        try:
                            result, seconds, worker = future.result(timeout=FETCH_SECONDS)
                        except TimeoutError:  # the holder left meanwhile: look at the cluster first
                            break
                        del in_flight[future]
                        job.fold(state, result)
                        self.tasks += 1
                        self.worker_seconds += seconds
                        self.workers.add(worker)
                    # The cluster's wall time dealing, counted as it goes: a checkpoint written now (and the run
                    # resumed from it, anywhere) has the time of the rounds it holds.
                    now = time.monotonic()
                    state.kernel_seconds += now - started
                    started = now
                    yield job.done(state)
            except lost as error:
                raise BackendError(f"dask: lost the cluster ({_why_lost(error)})") from None
            finally:
                state.kernel_seconds += time.monotonic() - started  # the cluster's wall time dealing, since the last
                if in_flight:  # stopped or failed: what is still running is thrown away
                    with contextlib.suppress(Exception):  # a lost cluster cannot cancel anything
                        client.cancel(list(in_flight))


def _why_lost(error: BaseException) -> str:
    """A lost cluster's exception in a few words: its class and Dask's reason (not its list of futures)."""
    text = str(error)
    reason = re.search(r"reason: ([\w-]+)", text)
    first_line = text.splitlines()[0] if text else ""
    return f"{type(error).__name__}: {reason.group(1) if reason else first_line[:200]}"


def _task_failure(future, first: int, n: int) -> BackendError:
    """The one-line error of a task that failed for good."""
    try:
        error = future.exception(timeout=10)
        what = f"{type(error).__name__}: {error}"
    except Exception as other:  # a cancelled or lost future has no exception to fetch
        what = f"{future.status} ({type(other).__name__})"
    return BackendError(f"dask: chunks {first}..{first + n - 1} failed on the cluster ({what})")


@contextlib.contextmanager
def cluster_backend(plan, *, client=None, scheduler: str | None = None, workers: int | None = None,
                    threads_per_worker: int = 1, wait_for_workers: float = 60.0,
                    no_workers_timeout: float = NO_WORKERS_TIMEOUT, note=None):
    """A :class:`DaskBackend` on a cluster ready to deal ``plan``: every worker checked and its kernel compiled.

    Parameters
    ----------
    plan : RunPlan
        The run the cluster deals.
    client : distributed.Client or None
        A client of the cluster to use.
    scheduler, workers, threads_per_worker, wait_for_workers
        Without ``client``: see :func:`connect` (a LocalCluster started here
        is stopped when the block ends).
    no_workers_timeout, note
        See :class:`DaskBackend`; ``note`` also hears the cluster's size.

    Yields
    ------
    DaskBackend
    """
    with contextlib.ExitStack() as stack:
        if client is None:
            client = stack.enter_context(connect(scheduler, workers, threads_per_worker,
                                                 wait_for_workers=wait_for_workers))
        nthreads = prepare_workers(client, plan)
        where = "a local cluster" if workers is not None else f"scheduler {client.scheduler.address}"
        if note is not None:
            note(f"dask: {len(nthreads)} workers, {sum(nthreads.values())} threads, on {where}")
        # A LocalCluster's address means nothing once it is stopped: the report says what it was.
        label = f"LocalCluster({workers} workers)" if workers is not None else None
        yield DaskBackend(client, no_workers_timeout=no_workers_timeout, note=note, label=label)


def simulate_dask(rules: Rules, rounds: int | None, seed: int | None = None, *, client=None,
                  scheduler: str | None = None, workers: int | None = None, threads_per_worker: int = 1,
                  model: str | None = None, shoe=None, by_position: bool | None = None, progress=None,
                  checkpoint: str | Path | None = None, resume: bool = False,
                  no_workers_timeout: float = NO_WORKERS_TIMEOUT, note=None) -> OutcomeHistogram:
    """:func:`~baccarat_sim.engines.simulation.simulate` on a Dask cluster: the same histogram, bit for bit.

    The same run flow (:class:`~baccarat_sim.engines.simulation.MonteCarloRun`):
    a run resumed on the cluster may have been stopped locally, and the reverse.

    Parameters
    ----------
    rules, rounds, seed, model, shoe, by_position, progress, checkpoint, resume
        As for :func:`~baccarat_sim.engines.simulation.simulate`.
    client : distributed.Client or None
        A client of the cluster to use.
    scheduler : str or None
        Without ``client``: address of a running scheduler.
    workers : int or None
        Without ``client`` or ``scheduler``: start a LocalCluster of this many
        worker processes (``threads_per_worker`` threads each) for the run.
    threads_per_worker : int
        See ``workers``.
    no_workers_timeout : float
        Seconds to wait for a worker whenever the cluster has none (at the
        start, or once every worker is lost), then stop with a
        :class:`~baccarat_sim.errors.BackendError` (and the checkpoint).
    note : callable or None
        Receives one-line notes: the cluster's size, and that no worker is
        left and how long the run waits for one (None: no notes).

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
    with MonteCarloRun.open(rules, rounds, seed, model=model, shoe=shoe, by_position=by_position,
                            checkpoint=checkpoint, resume=resume) as flow:
        with cluster_backend(flow.plan, client=client, scheduler=scheduler, workers=workers,
                             threads_per_worker=threads_per_worker, wait_for_workers=no_workers_timeout,
                             no_workers_timeout=no_workers_timeout, note=note) as backend:
            flow.deal(backend, RunControl(progress=progress))
        flow.finish()
    return flow.histogram()
