"""Issue 8: the Dask backend deals the local backend's histogram bit for bit, also through faults.

One LocalCluster of two worker processes (one thread each) serves the module;
the test that kills a worker runs last and waits for the nanny to replace it.
Reference histograms come from the local numba backend (``simulate``), the
very thing the cluster must reproduce.
"""

from __future__ import annotations

import dataclasses
import json
import os
import signal
import subprocess
import sys
import textwrap

import numpy as np
import pytest

distributed = pytest.importorskip("distributed")

from baccarat_sim import load_rules  # noqa: E402
from baccarat_sim.cli.rtp import EXIT_PARTIAL, main  # noqa: E402
from baccarat_sim.engines.checkpoint import load_checkpoint, peek_checkpoint, save_checkpoint  # noqa: E402
from baccarat_sim.engines.dask_backend import (  # noqa: E402
    MAX_CHUNKS_PER_TASK,
    connect,
    guided_task_size,
    prepare_workers,
    simulate_dask,
    task_ranges,
)
from baccarat_sim.engines.fingerprint import stream_fingerprint  # noqa: E402
from baccarat_sim.engines.montecarlo import batch_segments  # noqa: E402
from baccarat_sim.engines.plan import plan_run  # noqa: E402
from baccarat_sim.engines.simulation import simulate  # noqa: E402
from baccarat_sim.engines.state import RunState  # noqa: E402
from baccarat_sim.errors import BackendError, CheckpointError  # noqa: E402

from .run_helpers import MANY_THREADS, run_chunk, run_chunks, run_dask  # noqa: E402

#: Fresh model: 40 blocks of 2**16 rounds plus one round, so the last block deals a single round and the run
#: has 21 chunks in 21 batches (chunks of 2 blocks: at least MIN_CHUNKS=32 would need 64 blocks).
FRESH_ROUNDS = 40 * 2**16 + 1
#: Dealt model: 5 blocks of 16 shoes, per-position rows (105 positions for 8 decks: 12 MB a task).
DEALT_ROUNDS = 100_000
TIMEOUT = 300  # seconds: generous, the machine is shared and small (and a subprocess may have to compile)


@pytest.fixture(scope="module")
def rules():
    return load_rules("default")


@pytest.fixture(scope="module")
def client(rules):
    # Compile (or load) the worker kernel here first: the workers then load numba's cache instead of
    # compiling side by side on a two-core machine.
    from baccarat_sim.engines.dask_backend import _prepare_worker

    plan = plan_run(rules, FRESH_ROUNDS, seed=7)
    _prepare_worker(stream_fingerprint(), plan)
    with connect(workers=2, threads_per_worker=1) as client:
        prepare_workers(client, plan)
        yield client


@pytest.fixture(scope="module")
def fresh_reference(rules):
    return simulate(rules, FRESH_ROUNDS, seed=7, threads=MANY_THREADS)


@pytest.fixture(scope="module")
def dealt_reference(rules):
    return simulate(rules, DEALT_ROUNDS, seed=3, model="dealt", threads=MANY_THREADS)


def assert_same(hist, reference):
    """Bit-identical histograms: counts, per-position rows, batch rows, rounds and shoes."""
    assert hist.rounds == reference.rounds
    assert hist.shoes == reference.shoes
    np.testing.assert_array_equal(hist.counts, reference.counts)
    np.testing.assert_array_equal(hist.batches, reference.batches)
    if reference.by_position is None:
        assert hist.by_position is None
    else:
        np.testing.assert_array_equal(hist.by_position, reference.by_position)
    assert hist.meta["complete"] and hist.meta["chunks_done"] == reference.meta["chunks_done"]


# --- without a cluster: the bookkeeping that lets chunks arrive in any order -----------------------------------


def test_task_ranges_cover_each_undone_chunk_once(rules):
    plan = plan_run(rules, 10**9, seed=1)  # 120 chunks in 100 batches: some batches hold two chunks
    state = RunState.empty(plan)
    state.mark_done(0, 3)
    state.mark_done(10, 2)  # a gap: chunks 3..9 undone, 10 and 11 done ahead
    undone = [c for c in range(plan.n_chunks) if not state.is_done(c)]
    for size in (lambda left: 1, lambda left: 5, lambda left: guided_task_size(left, threads=2)):
        tasks = list(task_ranges(plan, state, size, None))
        assert [c for first, n in tasks for c in range(first, first + n)] == undone
    guided = [n for _, n in task_ranges(plan, RunState.empty(plan), lambda left: guided_task_size(left, 2), None)]
    # Big tasks first (a quarter of what each of the 2 threads has left), single chunks at the end.
    assert guided[0] == min(MAX_CHUNKS_PER_TASK, plan.n_chunks // 8) and guided[-3:] == [1, 1, 1]
    assert guided == sorted(guided, reverse=True) and sum(guided) == plan.n_chunks
    assert sum(n for _, n in task_ranges(plan, state, lambda left: 3, 5)) == 5


def test_batch_segments_split_a_task_where_batches_change(rules):
    plan = plan_run(rules, 10**9, seed=1)
    segments = list(batch_segments(plan, 0, plan.n_chunks))
    assert len(segments) == plan.n_batches and sum(n for _, n in segments) == plan.n_chunks
    assert all(plan.batch_of_chunk(f) == plan.batch_of_chunk(f + n - 1) for f, n in segments)


def test_out_of_order_chunks_checkpoint_and_local_resume_equal_one_run(rules, fresh_reference, tmp_path):
    """A distributed run's checkpoint can have a gap; resuming it locally must skip the chunks done ahead."""
    plan = plan_run(rules, FRESH_ROUNDS, seed=7)
    state = RunState.empty(plan)
    for chunk in (4, 0, 2, 3, 9):  # out of order, leaving chunk 1 and 5..8 undone
        state.add(plan, chunk, *run_chunk(plan, chunk))
    assert state.next_chunk == 1 and state.done_ahead == {2, 3, 4, 9}
    with pytest.raises(ValueError, match="twice"):
        state.add(plan, 3, *run_chunk(plan, 3))
    path = tmp_path / "gap.npz"
    save_checkpoint(path, plan, state)
    plan2, state2 = load_checkpoint(path, expect=plan, rules=rules)
    assert state2.done_ahead == {2, 3, 4, 9}
    partial = state2.histogram(plan2)
    assert partial.batches.sum() == partial.counts.sum() == state2.rounds  # batch rows hold chunks done ahead
    run_chunks(plan2, state2, threads=MANY_THREADS)
    assert state2.done_ahead == set()
    assert_same(state2.histogram(plan2), fresh_reference)


def test_a_checkpoint_whose_header_was_edited_is_refused(rules, tmp_path):
    """A checkpoint holds a checksum of its header and arrays: a field edited by hand is never resumed."""
    plan = plan_run(rules, FRESH_ROUNDS, seed=7)
    state = RunState.empty(plan)
    state.add(plan, 0, *run_chunk(plan, 0))
    path = tmp_path / "edited.npz"
    save_checkpoint(path, plan, state)
    _, loaded = load_checkpoint(path, expect=plan, rules=rules)
    assert loaded.next_chunk == 1 and loaded.done_ahead == set()
    with np.load(path) as data:
        arrays = dict(data)
    header = json.loads(str(arrays["header"]))
    header["done_ahead"] = [5]  # claims a chunk it never dealt
    arrays["header"] = np.array(json.dumps(header))
    np.savez_compressed(path, **arrays)
    with pytest.raises(CheckpointError, match="checksum does not match"):
        load_checkpoint(path, expect=plan, rules=rules)


# --- on the cluster ------------------------------------------------------------------------------------------


def test_fresh_run_is_bit_identical_to_local(rules, client, fresh_reference):
    plan = plan_run(rules, FRESH_ROUNDS, seed=7)
    state = RunState.empty(plan)
    run = run_dask(plan, state, client)
    assert_same(state.histogram(plan), fresh_reference)
    assert run.tasks < plan.n_chunks  # guided task sizes: several chunks a task at first
    # The scheduler gives the first two tasks to the two idle workers, so both deal.
    assert len(run.workers) == 2 and run.threads == 2


@pytest.mark.parametrize("chunks_per_task", [None, 3])
def test_tasks_of_several_chunks_fill_the_same_batches(rules, client, chunks_per_task):
    """Runs past 100 chunks share batches between chunks; a task of several chunks fills each batch row right."""
    # One dealt block (16 shoes) per chunk gives 400 chunks in 100 batches at a modest size; no position rows
    # keep the 400 task results small.
    plan = dataclasses.replace(plan_run(rules, 520_000, seed=5, model="dealt", by_position=False),
                               blocks_per_chunk=1)
    assert plan.n_chunks > 3 * plan.n_batches
    local = RunState.empty(plan)
    run_chunks(plan, local, threads=MANY_THREADS)
    state = RunState.empty(plan)
    run = run_dask(plan, state, client, chunks_per_task=chunks_per_task)
    assert_same(state.histogram(plan), local.histogram(plan))
    if chunks_per_task is not None:
        assert run.tasks == -(-plan.n_chunks // chunks_per_task)
    else:
        assert run.tasks < plan.n_chunks / 2


def test_dealt_run_with_position_rows_is_bit_identical_to_local(rules, client, dealt_reference):
    hist = simulate_dask(rules, DEALT_ROUNDS, seed=3, model="dealt", client=client)
    assert hist.by_position is not None and hist.by_position.shape[0] == 105
    assert_same(hist, dealt_reference)
    assert hist.meta["backend"] == "dask" and hist.meta["workers"] >= 1


def test_ctrl_c_stops_with_a_checkpoint_and_resume_on_the_cluster_is_identical(rules, client, fresh_reference,
                                                                               tmp_path):
    """SIGINT after the first task: in-flight tasks are dropped, finished ones kept, and --resume completes it."""
    path = tmp_path / "interrupted.npz"
    plan = plan_run(rules, FRESH_ROUNDS, seed=7)
    state = RunState.empty(plan)
    fired = []

    def interrupt(_state):
        if not fired:
            fired.append(True)
            signal.raise_signal(signal.SIGINT)  # what Ctrl-C does; the run's handler turns it into a stop flag

    run_dask(plan, state, client, chunks_per_task=1, checkpoint=path, on_chunk=interrupt)
    assert state.interrupted and 1 <= state.chunks_done < plan.n_chunks
    plan2, state2 = load_checkpoint(path, expect=plan, rules=rules)
    assert state2.chunks_done == state.chunks_done and state2.rounds == state.rounds
    run_dask(plan2, state2, client, checkpoint=path)
    assert_same(state2.histogram(plan2), fresh_reference)


def test_max_chunks_on_the_cluster_then_finish_locally(rules, client, fresh_reference, tmp_path):
    path = tmp_path / "partial.npz"
    plan = plan_run(rules, FRESH_ROUNDS, seed=7)
    state = RunState.empty(plan)
    run_dask(plan, state, client, chunks_per_task=2, checkpoint=path, max_chunks=7)
    assert state.chunks_done == 7 and not state.interrupted
    plan2, state2 = load_checkpoint(path, expect=plan, rules=rules)
    run_chunks(plan2, state2, threads=MANY_THREADS)
    assert_same(state2.histogram(plan2), fresh_reference)


def test_worker_of_another_version_is_refused(rules, client, monkeypatch, tmp_path):
    """A worker whose kernel differs would deal another stream: the run must stop, not sum it in."""
    import baccarat_sim.engines.dask_backend as backend

    plan = plan_run(rules, FRESH_ROUNDS, seed=7)
    monkeypatch.setattr(backend, "stream_fingerprint", lambda: "0.0.0+another-kernel")
    with pytest.raises(BackendError, match="another baccarat_sim"):
        prepare_workers(client, plan)
    state = RunState.empty(plan)
    path = tmp_path / "refused.npz"
    with pytest.raises(BackendError, match="failed on the cluster.*install the same version") as caught:
        run_dask(plan, state, client, retries=0, checkpoint=path)
    assert "\n" not in str(caught.value)
    assert state.rounds == 0 and path.exists()  # nothing summed in, and a (trivial) checkpoint kept


def test_cli_scheduler_matches_local_and_reports_the_workers(client, capsys, tmp_path):
    common = ["--rounds", str(FRESH_ROUNDS), "--seed", "7", "--format", "json", "--quiet"]
    assert main(common + ["--threads", "1"]) == 0
    local = json.loads(capsys.readouterr().out)
    assert main(common + ["--backend", "dask", "--scheduler", client.scheduler.address]) == 0
    cluster = json.loads(capsys.readouterr().out)
    assert cluster["bets"] == local["bets"]
    run = cluster["run"]
    assert run["backend"] == "dask" and run["workers"] == 2 and run["threads"] == 2
    assert run["scheduler"] == client.scheduler.address and run["rounds"] == FRESH_ROUNDS
    assert local["run"]["backend"] == "local"


def test_cli_workers_starts_and_stops_a_local_cluster(capsys):
    """--workers 1 --threads 2: one process running two tasks at once from two threads (the nogil kernel)."""
    common = ["--rounds", str(FRESH_ROUNDS), "--seed", "11", "--format", "json", "--quiet"]
    assert main(common) == 0
    local = json.loads(capsys.readouterr().out)
    assert main(common + ["--backend", "dask", "--workers", "1", "--threads", "2"]) == 0
    cluster = json.loads(capsys.readouterr().out)
    assert cluster["bets"] == local["bets"]
    assert cluster["run"]["workers"] == 1 and cluster["run"]["threads"] == 2


@pytest.mark.parametrize("argv, message", [
    (["--backend", "dask"], "give --scheduler ADDRESS .* or --workers N"),
    (["--backend", "dask", "--workers", "2", "--scheduler", "tcp://127.0.0.1:8786"], "not both"),
    (["--workers", "2"], "--workers: needs --backend dask"),
    (["--scheduler", "tcp://127.0.0.1:8786"], "--scheduler: needs --backend dask"),
    (["--backend", "dask", "--scheduler", "tcp://127.0.0.1:8786", "--threads", "2"], "--threads: a cluster"),
    (["--backend", "dask", "--workers", "2", "--exact"], "drop --exact"),
    (["--backend", "dask", "--scheduler", "tcp://10.0.0.5"], "not a scheduler address .*missing port"),
])
def test_cli_backend_usage_errors_are_one_line(argv, message, capsys):
    assert main(argv + ["--rounds", "1000"]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1
    assert __import__("re").search(message, err), err


def test_cli_unreachable_scheduler_is_a_one_line_error(capsys):
    import dask

    with dask.config.set({"distributed.comm.timeouts.connect": "2s"}):
        status = main(["--backend", "dask", "--scheduler", "tcp://127.0.0.1:9", "--rounds", "1000",
                       "--quiet"])
    err = capsys.readouterr().err
    assert status == 2 and "--scheduler: cannot connect to tcp://127.0.0.1:9" in err
    assert len(err.strip().splitlines()) == 1


def test_without_dask_the_local_backend_runs_and_dask_is_a_one_line_error(tmp_path):
    """Dask is an optional extra: blocked here as if not installed."""
    script = textwrap.dedent("""
        import sys
        for name in ("dask", "distributed"):
            sys.modules[name] = None  # import now raises ImportError
        from baccarat_sim.cli.rtp import main
        local = main(["--rounds", "1000", "--seed", "1", "--quiet", "--format", "json"])
        print("STATUS", local, "baccarat_sim.engines.dask_backend" in sys.modules, file=sys.stderr)
        sys.exit(main(["--backend", "dask", "--workers", "2", "--rounds", "1000"]))
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=TIMEOUT,
                          cwd=tmp_path)
    assert "STATUS 0 False" in done.stderr, done.stderr
    assert done.returncode == 2
    error_lines = [line for line in done.stderr.splitlines() if "error:" in line]
    assert len(error_lines) == 1 and "pip install 'baccarat_sim[dask]'" in error_lines[0], done.stderr


class _DieOnFirstTask(distributed.WorkerPlugin):
    """Makes the first worker that starts its second baccarat_sim task exit on the spot (once per cluster).

    ``os._exit`` skips every cleanup, like a machine losing power or the OOM killer: the scheduler only sees the
    connection drop, and must hand the task (and the worker's others) to another worker. A marker file created
    with O_EXCL makes it happen once even though the nanny restarts the worker and the plugin comes back.
    """

    def __init__(self, marker: str):
        self.marker = marker
        self.started = 0

    def transition(self, key, start, finish, **kwargs):
        if finish == "executing" and str(key).startswith("baccarat_sim-chunks"):
            self.started += 1
            if self.started == 2:
                try:
                    handle = os.open(self.marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
                except FileExistsError:
                    return
                os.write(handle, str(key).encode())
                os.close(handle)
                os._exit(1)


def test_a_worker_killed_mid_task_does_not_change_the_result(rules, client, fresh_reference, tmp_path):
    import cloudpickle

    cloudpickle.register_pickle_by_value(sys.modules[__name__])  # the workers cannot import this test module
    marker = tmp_path / "killed"
    client.register_plugin(_DieOnFirstTask(str(marker)), name="die-on-first-task")
    try:
        plan = plan_run(rules, FRESH_ROUNDS, seed=7)
        state = RunState.empty(plan)
        run = run_dask(plan, state, client, chunks_per_task=1)
        assert marker.exists(), "no worker died: the fault was not injected"
        killed_key = marker.read_text()
        assert killed_key.startswith("baccarat_sim-chunks-")
        assert_same(state.histogram(plan), fresh_reference)
        assert run.tasks == plan.n_chunks
    finally:
        client.unregister_worker_plugin("die-on-first-task")
        cloudpickle.unregister_pickle_by_value(sys.modules[__name__])
        client.wait_for_workers(2, timeout=TIMEOUT)


def test_cli_interrupted_cluster_run_resumes_to_the_local_result(client, capsys, tmp_path):
    """--max-chunks stops a cluster run as Ctrl-C would; --resume on the cluster finishes it bit for bit."""
    common = ["--rounds", str(FRESH_ROUNDS), "--seed", "7", "--format", "json", "--quiet", "--no-plots"]
    assert main([option for option in common if option != "--no-plots"]) == 0  # no --out: nothing to plot
    local = json.loads(capsys.readouterr().out)
    cluster = ["--backend", "dask", "--scheduler", client.scheduler.address, "--out", str(tmp_path)]
    assert main(common + cluster + ["--max-chunks", "5"]) == EXIT_PARTIAL  # a partial result (issue 16)
    partial = json.loads(capsys.readouterr().out)["run"]
    assert not partial["complete"] and partial["chunks_done"] == 5 and partial["checkpoint"]
    assert main(["--resume", "--format", "json", "--quiet", "--no-plots"] + cluster) == 0
    resumed = json.loads(capsys.readouterr().out)
    assert resumed["bets"] == local["bets"] and resumed["run"]["complete"]
    # With --out a finished run keeps its checkpoint, complete, so that it can be extended (issue 16).
    (kept,) = tmp_path.glob("checkpoint-*")
    assert peek_checkpoint(kept)["next_chunk"] == resumed["run"]["chunks"]


def test_a_cluster_without_workers_is_given_up_with_a_checkpoint(rules, tmp_path):
    """Rather than wait for ever (a batch job would hang): a one-line error, and the checkpoint to resume from."""
    path = tmp_path / "idle.npz"
    with distributed.LocalCluster(n_workers=0, processes=False, dashboard_address=":0") as cluster, \
            distributed.Client(cluster, set_as_default=False) as idle:
        plan = plan_run(rules, FRESH_ROUNDS, seed=7)
        state = RunState.empty(plan)
        with pytest.raises(BackendError, match=r"no workers for 1 s; 0 of 21 chunks .*\(resume to continue\)"):
            run_dask(plan, state, idle, checkpoint=path, no_workers_timeout=1.0)
    assert load_checkpoint(path, expect=plan, rules=rules)[1].rounds == 0


def test_simulate_dask_extends_a_run_stopped_locally(rules, client, fresh_reference, tmp_path):
    """The one run flow: a run stopped on this machine is resumed, with more rounds, on the cluster."""
    from baccarat_sim.engines.driver import RunControl
    from baccarat_sim.engines.local import LocalBackend
    from baccarat_sim.engines.simulation import MonteCarloRun

    path = tmp_path / "run.npz"
    with MonteCarloRun.open(rules, FRESH_ROUNDS // 2, 7, checkpoint=path) as flow:
        flow.deal(LocalBackend(1), RunControl(max_chunks=3))
    notes = []
    hist = simulate_dask(rules, FRESH_ROUNDS, seed=7, client=client, checkpoint=path, resume=True, note=notes.append)
    assert_same(hist, fresh_reference)
    assert not path.exists() and any(note.startswith("dask: 2 workers") for note in notes)
