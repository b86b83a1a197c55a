"""Dask backend: the same Monte Carlo run spread over a ``dask.distributed`` cluster.

A run's random stream and its chunk layout are fixed by :func:`~baccarat_sim.simulate.plan_run`
from the run size alone, so a task is just a range of whole chunks: a worker
deals it with the same numba kernel as a local run
(:func:`~baccarat_sim._kernel.deal_blocks_serial`) and sends back its
per-position counts. The client adds them into one
:class:`~baccarat_sim.simulate.RunState`; integer sums do not depend on the
order, so the histogram is bit-identical to the local backend's whatever the
number of workers, the order tasks finish in, or the workers lost on the way.

Faults are Dask's business: a task whose worker dies is recomputed on another
(up to the scheduler's ``allowed-failures``), and a task that raises is retried.
Every finished task is folded into the state at once and the state is
checkpointed, so a run stopped by Ctrl-C, or by a cluster that fails for good,
resumes with ``--resume`` (on the cluster or locally).

Dask is an optional extra (``pip install "baccarat_sim[dask]"``): this module
imports it only when a cluster is used.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import hashlib
import logging
import time
import uuid
from pathlib import Path

import numpy as np

from ._version import __version__
from .outcomes import N_CODES, OutcomeHistogram
from .simulate import RunPlan, RunState, add_chunk_result, canonical_cards, plan_run

__all__ = ["BackendError", "DaskRun", "check_address", "connect", "kernel_fingerprint", "prepare_workers",
           "run_dask", "simulate_dask"]

#: Seconds between looks at the cluster's size (for the number of tasks kept in flight).
_REFRESH_SECONDS = 2.0
#: Most chunks in one task (a second or two of one core): bigger tasks would make checkpoints and progress coarse.
MAX_CHUNKS_PER_TASK = 16
#: A task takes 1 / (GUIDED_SPLIT * threads) of the chunks left (see :func:`guided_task_size`).
GUIDED_SPLIT = 4
#: Sources whose bytes fix what a worker deals from a plan; client and workers must agree on them.
_KERNEL_SOURCES = ("_kernel.py", "_rng.py", "cards.py", "distributed.py")


class BackendError(RuntimeError):
    """The cluster backend cannot run (no Dask, no scheduler, mismatched workers, failed tasks); one line."""


def _require_distributed():
    """``dask.distributed``, or a one-line :class:`BackendError` saying how to install it."""
    try:
        import distributed
    except ImportError as error:
        raise BackendError(
            f"--backend dask needs Dask, which is not installed ({error}); "
            "install it with: pip install 'baccarat_sim[dask]'"
        ) from None
    return distributed


@functools.lru_cache(maxsize=1)
def kernel_fingerprint() -> str:
    """Package version and a hash of the dealing code, as ``"<version>+<sha256[:16]>"``.

    Client and workers compare it before a worker deals anything: a worker
    with another version of the kernel would deal another stream from the same
    seed, and the summed histogram would be silently wrong.
    """
    digest = hashlib.sha256()
    here = Path(__file__).parent
    for name in _KERNEL_SOURCES:
        digest.update(name.encode())
        digest.update((here / name).read_bytes())
    return f"{__version__}+{digest.hexdigest()[:16]}"


def _worker_address() -> str:
    """Address of the Dask worker running the caller ("" outside a worker)."""
    try:
        from distributed import get_worker

        return get_worker().address
    except (ImportError, ValueError):
        return ""


def _deal_task(plan: RunPlan, first_chunk: int, n_chunks: int, fingerprint: str):
    """Worker side: deal chunks ``first_chunk .. first_chunk + n_chunks - 1``.

    Returns
    -------
    tuple
        ``(segments, seconds, worker)``: one segment ``(first, n, counts,
        rounds, shoes)`` per batch the chunks fall in (a state keeps a row per
        batch), ``counts`` an ``ndarray(shape=(n_positions, N_CODES))`` of the
        smallest unsigned type that holds them (see :func:`_narrow`).
    """
    from ._kernel import MODEL_DEALT, MODEL_FRESH, deal_blocks_serial

    mine = kernel_fingerprint()
    if mine != fingerprint:
        raise RuntimeError(f"worker {_worker_address()} runs baccarat_sim {mine}, the client {fingerprint}: "
                           "install the same version everywhere")
    canonical = canonical_cards(plan.shoe)
    model = MODEL_FRESH if plan.model == "fresh" else MODEL_DEALT
    params = np.array(plan.shoe_params, np.int64)
    segments = []
    started = time.perf_counter()
    for first, n in _batch_segments(plan, first_chunk, n_chunks):
        first_block, _ = plan.chunk_blocks(first)
        last_first, last_n = plan.chunk_blocks(first + n - 1)
        counts = np.zeros((plan.n_positions, N_CODES), np.int64)
        totals = np.zeros(2, np.int64)
        deal_blocks_serial(canonical, model, np.uint64(plan.seed), first_block, last_first + last_n - first_block,
                           plan.units_per_block, plan.last_units, plan.total_blocks, params, counts, totals)
        segments.append((first, n, _narrow(counts), int(totals[0]), int(totals[1])))
    return segments, time.perf_counter() - started, _worker_address()


def _batch_segments(plan: RunPlan, first_chunk: int, n_chunks: int):
    """Split chunks ``first_chunk ..`` (``n_chunks`` of them) where a new batch begins: ``(first, n)`` pairs."""
    end = first_chunk + n_chunks
    while first_chunk < end:
        batch = plan.batch_of_chunk(first_chunk)
        stop = first_chunk + 1
        while stop < end and plan.batch_of_chunk(stop) == batch:
            stop += 1
        yield first_chunk, stop - first_chunk
        first_chunk = stop


def _narrow(counts: np.ndarray) -> np.ndarray:
    """``counts`` in the smallest unsigned type that holds them exactly.

    A dealt-model result has a row per round position (105 for 8 decks, 12 MB
    as int64); its cells rarely pass 65,535, so it travels in a quarter of
    the bytes.
    """
    peak = int(counts.max()) if counts.size else 0
    for dtype in (np.uint8, np.uint16, np.uint32):
        if peak <= np.iinfo(dtype).max:
            return counts.astype(dtype)
    return counts


def _prepare_worker(fingerprint: str) -> str:
    """Worker side: compile (or load from numba's cache) the kernel; return the worker's fingerprint."""
    mine = kernel_fingerprint()
    if mine == fingerprint:
        from ._kernel import MODEL_FRESH, deal_blocks_serial

        params = np.zeros(17, np.int64)
        deal_blocks_serial(canonical_cards(np.ones((13, 4), np.int64)), MODEL_FRESH, np.uint64(0), 0, 1, 1, 1, 1,
                           params, np.zeros((1, N_CODES), np.int64), np.zeros(2, np.int64))
    return mine


def prepare_workers(client) -> dict[str, int]:
    """Check every worker runs this kernel and warm it up; return ``{address: threads}``.

    Compiling in every worker up front keeps numba's compile time out of the
    run's timing (workers that join later compile on their first task).

    Raises
    ------
    BackendError
        A worker cannot import baccarat_sim or runs another version of it.
    """
    fingerprint = kernel_fingerprint()
    try:
        answers = client.run(_prepare_worker, fingerprint)
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
    distributed = _require_distributed()
    if (scheduler is None) == (workers is None):
        raise BackendError("dask: give either a scheduler address or a number of workers")
    with contextlib.ExitStack() as stack:
        if scheduler is not None:
            check_address(scheduler)
            try:
                wait = {} if timeout is None else {"timeout": timeout}  # None would mean: wait for ever
                client = stack.enter_context(distributed.Client(scheduler, set_as_default=False, **wait))
            except (OSError, ValueError, TypeError) as error:
                raise BackendError(f"--scheduler: cannot connect to {scheduler} ({error})") from None
            try:
                client.wait_for_workers(1, timeout=wait_for_workers)
            except TimeoutError:
                raise BackendError(f"--scheduler: {scheduler} has no workers (waited {wait_for_workers:g} s); "
                                   "start some with: dask worker " + scheduler) from None
        else:
            if workers < 1 or threads_per_worker < 1:
                raise BackendError(f"dask: need at least one worker and thread, got {workers} x {threads_per_worker}")
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


def check_address(scheduler: str) -> None:
    """Refuse a malformed scheduler address before a Client is made of it (a failed Client dies noisily)."""
    from distributed.comm.addressing import parse_address, parse_host_port

    try:
        protocol, location = parse_address(scheduler)
        if protocol in ("tcp", "tls", "ws", "wss"):
            parse_host_port(location)
    except ValueError as error:
        raise BackendError(f"--scheduler: {scheduler!r} is not a scheduler address such as tcp://10.0.0.5:8786 "
                           f"({error})") from None


@contextlib.contextmanager
def _sigint_ignored():
    """Ignore SIGINT while worker processes are started: they inherit it.

    Ctrl-C reaches every process of the terminal's foreground group. The run
    (this process) turns it into a stop at a task boundary, with a
    checkpoint; workers that died of it instead would only fill the terminal
    with the cluster's complaints.
    """
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


@dataclasses.dataclass
class DaskRun:
    """What :func:`run_dask` did beyond the run state.

    Attributes
    ----------
    state : RunState
        The state, updated in place.
    workers : set of str
        Addresses of the worker processes whose tasks were folded in (a
        restarted worker has a new address, so it counts again).
    threads : int
        Most worker threads the cluster had during the run.
    tasks : int
        Tasks folded in.
    worker_seconds : float
        Kernel seconds summed over tasks (worker threads' busy time).
    wall_seconds : float
        Wall time of the dealing loop.
    scheduler : str
        The scheduler's address.
    """

    state: RunState
    workers: set = dataclasses.field(default_factory=set)
    threads: int = 0
    tasks: int = 0
    worker_seconds: float = 0.0
    wall_seconds: float = 0.0
    scheduler: str = ""


def _task_ranges(plan: RunPlan, state: RunState, task_size, max_chunks: int | None):
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


def guided_task_size(remaining: int, threads: int) -> int:
    """Chunks for the next task: big while much is left, down to one at the end.

    Each task takes about ``1 / (4 * threads)`` of what is left (guided
    self-scheduling), at most :data:`MAX_CHUNKS_PER_TASK`: few tasks (little
    overhead) in the bulk of a run, and single chunks at the end, so no
    thread idles long while the last tasks finish.
    """
    return max(1, min(MAX_CHUNKS_PER_TASK, remaining // (GUIDED_SPLIT * max(1, threads))))


def run_dask(plan: RunPlan, state: RunState, client, *, progress: bool | None = False,
             checkpoint: str | Path | None = None, checkpoint_every: float = 30.0, max_chunks: int | None = None,
             extra_meta: dict | None = None, on_chunk=None, chunks_per_task: int | None = None,
             retries: int = 2, no_workers_timeout: float = 300.0) -> DaskRun:
    """Deal the chunks of ``plan`` not yet in ``state`` (in place) on a Dask cluster.

    The counterpart of :func:`~baccarat_sim.simulate.run_chunks`: the same
    state, checkpoints and progress bar, and the same histogram bit for bit.

    Parameters
    ----------
    plan : RunPlan
        The run (from :func:`~baccarat_sim.simulate.plan_run` or a checkpoint).
    state : RunState
        What is dealt already; updated in place.
    client : distributed.Client
        A client of the cluster (see :func:`connect`). Call
        :func:`prepare_workers` first to keep compile time out of the run.
    progress : bool or None
        Show a progress bar (None: only on a terminal).
    checkpoint : path or None
        Checkpoint file, written at least every ``checkpoint_every`` seconds,
        when the run stops early and when the cluster fails.
    checkpoint_every : float
        Seconds between checkpoints.
    max_chunks : int or None
        Deal at most this many chunks, then stop (as an interruption would).
    extra_meta : dict or None
        Written into the checkpoint's header.
    on_chunk : callable or None
        Called with ``state`` after each task is folded in.
    chunks_per_task : int or None
        Chunks per task (None: from the run size and the cluster's threads).
        The result does not depend on it.
    retries : int
        Times Dask reruns a task that raised (a task whose worker died is
        rerun by the scheduler anyway).
    no_workers_timeout : float
        Give up (with a checkpoint) when the cluster has had no worker for
        this many seconds, rather than wait for ever.

    Returns
    -------
    DaskRun

    Raises
    ------
    BackendError
        A task failed for good (after retries, or after killing
        ``allowed-failures`` workers), the scheduler was lost, or the cluster
        had no workers for ``no_workers_timeout`` seconds; the state keeps
        every task finished before, and the checkpoint is written.
    """
    distributed = _require_distributed()
    from ._progress import get_progress_bar
    from .checkpoint import save_checkpoint
    from .simulate import _StopFlag

    fingerprint = kernel_fingerprint()
    run = DaskRun(state=state, scheduler=str(client.scheduler.address))
    nthreads = client.nthreads()
    run.threads = sum(nthreads.values())
    if chunks_per_task is not None:
        todo = _task_ranges(plan, state, lambda remaining: chunks_per_task, max_chunks)
    else:
        todo = _task_ranges(plan, state, lambda remaining: guided_task_size(remaining, sum(nthreads.values())),
                            max_chunks)
    next_task = next(todo, None)
    run_tag = uuid.uuid4().hex[:8]
    in_flight: dict = {}
    est_total = plan.rounds_requested
    started = last_save = last_look = had_workers = time.monotonic()

    # as_current: distributed.wait finds its client there, also when the caller made it with set_as_default=False.
    with client.as_current(), _StopFlag() as flag, get_progress_bar(progress, est_total,
                                                                   initial=min(state.rounds, est_total)) as bar:
        bar.set_postfix_str(f"{len(nthreads)} workers")
        try:
            while (next_task is not None or in_flight) and not flag.stop:
                if time.monotonic() - last_look >= _REFRESH_SECONDS:  # workers come and go
                    now = client.nthreads()
                    if len(now) != len(nthreads):
                        bar.set_postfix_str(f"{len(now)} workers")
                    nthreads, last_look = now, time.monotonic()
                    run.threads = max(run.threads, sum(nthreads.values()))
                    if nthreads:
                        had_workers = last_look
                    elif last_look - had_workers > no_workers_timeout:
                        raise BackendError(f"dask: the cluster has had no workers for {no_workers_timeout:g} s")
                # Two tasks per thread keep every thread busy while results travel, and bound both what a
                # checkpoint holds past a gap and what Ctrl-C throws away.
                while next_task is not None and len(in_flight) < 2 * max(1, sum(nthreads.values())) + 2:
                    first, n = next_task
                    future = client.submit(_deal_task, plan, first, n, fingerprint, pure=False, retries=retries,
                                           key=f"baccarat_sim-chunks-{run_tag}-{first}-{first + n - 1}")
                    in_flight[future] = next_task
                    next_task = next(todo, None)
                try:
                    done, _ = distributed.wait(list(in_flight), timeout=0.5, return_when="FIRST_COMPLETED")
                except TimeoutError:  # wake up now and then for Ctrl-C and the cluster's size
                    continue
                for future in done:
                    if future.status != "finished":
                        raise _task_failure(future, *in_flight[future])
                finished = list(done)
                for future, (segments, seconds, worker) in zip(finished, client.gather(finished)):
                    del in_flight[future]
                    for first, n, counts, rounds, shoes in segments:
                        add_chunk_result(plan, state, first, counts.astype(np.int64), rounds, shoes, n_chunks=n)
                    run.tasks += 1
                    run.worker_seconds += seconds
                    run.workers.add(worker)
                    if on_chunk is not None:
                        on_chunk(state)
                bar.update(min(state.rounds, est_total) - bar.n)
                if checkpoint is not None and time.monotonic() - last_save >= checkpoint_every:
                    save_checkpoint(checkpoint, plan, state, extra_meta)
                    last_save = time.monotonic()
        except BaseException as error:
            # Keep what the finished tasks dealt: the run resumes from here.
            with contextlib.suppress(Exception):  # a lost cluster cannot cancel anything
                client.cancel(list(in_flight))
            state.kernel_seconds += time.monotonic() - started
            if checkpoint is not None:
                save_checkpoint(checkpoint, plan, state, extra_meta)
            if isinstance(error, (OSError, distributed.client.FutureCancelledError)):
                raise BackendError(f"dask: lost the cluster ({type(error).__name__}: {error}); "
                                   f"{_kept(plan, state, checkpoint)}") from None
            if isinstance(error, BackendError):
                raise BackendError(f"{error}; {_kept(plan, state, checkpoint)}") from None
            raise
        if in_flight:  # stopped by Ctrl-C: what is still running is thrown away
            with contextlib.suppress(Exception):
                client.cancel(list(in_flight))
    run.wall_seconds = time.monotonic() - started
    state.kernel_seconds += run.wall_seconds
    if checkpoint is not None and state.next_chunk < plan.n_chunks:
        save_checkpoint(checkpoint, plan, state, extra_meta)
    state.interrupted = flag.stop
    return run


def _kept(plan: RunPlan, state: RunState, checkpoint) -> str:
    where = f"saved in {checkpoint}, continue with --resume" if checkpoint is not None else "not saved"
    return f"{state.chunks_done} of {plan.n_chunks} chunks ({state.rounds:,} rounds) were done, {where}"


def _task_failure(future, first: int, n: int) -> BackendError:
    """The one-line error of a task that failed for good."""
    try:
        error = future.exception(timeout=10)
        what = f"{type(error).__name__}: {error}"
    except Exception as other:  # a cancelled or lost future has no exception to fetch
        what = f"{future.status} ({type(other).__name__})"
    return BackendError(f"dask: chunks {first}..{first + n - 1} failed on the cluster ({what})")


def simulate_dask(rules, rounds: int, seed: int | None = None, *, client=None, scheduler: str | None = None,
                  workers: int | None = None, threads_per_worker: int = 1, model: str | None = None, shoe=None,
                  by_position: bool | None = None, progress: bool | None = False,
                  checkpoint: str | Path | None = None, resume: bool = False) -> OutcomeHistogram:
    """:func:`~baccarat_sim.simulate.simulate` on a Dask cluster: the same histogram, bit for bit.

    Parameters
    ----------
    rules, rounds, seed, model, shoe, by_position, progress, checkpoint, resume
        As for :func:`~baccarat_sim.simulate.simulate`.
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
    from .checkpoint import load_checkpoint

    plan = plan_run(rules, rounds, seed, model=model, shoe=shoe, by_position=by_position)
    state = RunState.empty(plan)
    if resume and checkpoint is not None and Path(checkpoint).exists():
        plan, state = load_checkpoint(checkpoint, expect=plan if seed is not None else None, rules=rules)
    with contextlib.ExitStack() as stack:
        if client is None:
            client = stack.enter_context(connect(scheduler, workers, threads_per_worker))
        prepare_workers(client)
        run = run_dask(plan, state, client, progress=progress, checkpoint=checkpoint)
    if checkpoint is not None and state.next_chunk >= plan.n_chunks and Path(checkpoint).exists():
        Path(checkpoint).unlink()  # a finished run needs no checkpoint
    return state.histogram(plan, {"wall_seconds": run.wall_seconds, **run_info(run)})


def run_info(run: DaskRun) -> dict:
    """The report's ``run`` fields of a Dask run."""
    return {
        "backend": "dask",
        "workers": len(run.workers),
        "threads": run.threads,
        "scheduler": run.scheduler,
        "tasks": run.tasks,
        "worker_seconds": run.worker_seconds,
    }


def run_from_cli(plan: RunPlan, state: RunState, *, scheduler: str | None, workers: int | None,
                 threads_per_worker: int, progress: bool | None, checkpoint, checkpoint_every: float,
                 max_chunks: int | None, extra_meta: dict | None, note) -> tuple[float, dict]:
    """The command line's Dask run: connect (or start a LocalCluster), warm up, deal.

    Returns
    -------
    (float, dict)
        Wall seconds of the dealing and the report's ``run`` fields of the
        cluster (see :func:`run_info`).
    """
    with connect(scheduler, workers, threads_per_worker) as client:
        threads = prepare_workers(client)
        where = f"scheduler {client.scheduler.address}" if scheduler else "a local cluster"
        note(f"dask: {len(threads)} workers, {sum(threads.values())} threads, on {where}")
        run = run_dask(plan, state, client, progress=progress, checkpoint=checkpoint,
                       checkpoint_every=checkpoint_every, max_chunks=max_chunks, extra_meta=extra_meta)
    info = run_info(run)
    if workers is not None:
        info["scheduler"] = f"LocalCluster({workers} workers)"
    return run.wall_seconds, info
