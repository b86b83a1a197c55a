"""Fault injection (issue 17): no wrong figure and no lost work, whatever happens to a run or its input.

A process-level fault is done for real: the command line runs in a
subprocess, which the test kills with SIGKILL at random points (while it
deals and while it writes its result files), stops with SIGTERM, SIGHUP or a
burst of Ctrl-C, freezes (SIGSTOP) while a second run tries its folder, or
starves of a place to write its checkpoint. Files are damaged byte by byte
and edited behind their checksums. Hostile rule files (deep nesting, huge
numbers, FIFOs, devices, 10^4 bets, control characters) each get one line
and exit status 2 within a time and address-space limit. Shoes built by
``--decks`` and ``--remove`` pass the rule file's own room check, and dealt
shoes across deck counts and cut cards deal every first round from a full
shuffled shoe (the exact fresh-shoe figure) and as many rounds per shoe as
the plain-Python reference dealer.

Every subprocess has a timeout; each case takes a few seconds, and those that
take more than 10 CPU-seconds (pyproject.toml's ``slow`` marker) are marked ``slow``.
"""

from __future__ import annotations

import json
import math
import os
import random
import resource
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from baccarat_sim.analysis.settlement import net_vector
from baccarat_sim.cli.common import EXIT_USAGE
from baccarat_sim.cli.rtp import EXIT_INTERRUPTED, EXIT_PARTIAL, main
from baccarat_sim.engines.checkpoint import FORMAT, load_checkpoint, peek_checkpoint, save_checkpoint
from baccarat_sim.engines.driver import FIRST_CHECKPOINT_SECONDS
from baccarat_sim.engines.exact import exact_histogram
from baccarat_sim.engines.plan import plan_run
from baccarat_sim.engines.simulation import simulate
from baccarat_sim.engines.state import RunState
from baccarat_sim.errors import CheckpointError, InputError, ShoeError
from baccarat_sim.limits import MAX_BETS, MAX_PLOTTED_BETS
from baccarat_sim.model.histogram import OutcomeHistogram
from baccarat_sim.model.rules import CutCard, load_rules
from baccarat_sim.model.shoe import as_shoe
from baccarat_sim.report import plots
from baccarat_sim.report.files import write_report_files
from baccarat_sim.report.run_report import MIN_ROUNDS_FOR_INTERVAL, build_report
from baccarat_sim.storage.archive import read_archive, write_archive
from baccarat_sim.storage.writing import FileSetError, write_file_set

from . import reference_dealer
from .cli_helpers import cli, rules_text, run_name
from .run_helpers import run_chunks

#: Seconds any one subprocess may take (a cold numba cache compiles first; the machine is small and shared).
TIMEOUT = 240
#: Address space a command may use on hostile input: a file that made it read or build without bound fails.
MEMORY_LIMIT = 2 << 30
JSON_QUIET = ["--quiet", "--format", "json"]


# --------------------------------------------------------------------------- helpers


def rtp_command(*args) -> list[str]:
    return [sys.executable, "-m", "baccarat_sim.rtp", *map(str, args)]


def start(*args, cwd: Path, limit_memory: bool = False) -> subprocess.Popen:
    """The command line in a subprocess (checkpoints without ``--out`` go to ``cwd``, never the user's cache)."""
    env = {**os.environ, "BACCARAT_SIM_CHECKPOINTS": str(cwd / "checkpoints")}

    def limits():
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))

    return subprocess.Popen(rtp_command(*args), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=cwd,
                            env=env, preexec_fn=limits if limit_memory else None)


def finish(process: subprocess.Popen, timeout: float = TIMEOUT) -> tuple[int, str, str]:
    try:
        out, err = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        out, err = process.communicate()
        pytest.fail(f"no answer in {timeout} s: {rtp_command()} ... {err[-500:]}")
    return process.returncode, out, err


def run_command(*args, cwd: Path, limit_memory: bool = False) -> tuple[int, str, str]:
    return finish(start(*args, cwd=cwd, limit_memory=limit_memory))


def wait_for(condition, process: subprocess.Popen, what: str, timeout: float = TIMEOUT, poll: float = 0.005):
    """Poll ``condition()`` until it holds; fail if the process ends first or time runs out."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        if process.poll() is not None:
            _, err = process.communicate()
            pytest.fail(f"the run ended (status {process.returncode}) before {what}: {err[-800:]}")
        time.sleep(poll)
    process.kill()
    pytest.fail(f"no {what} within {timeout} s")


def one_line_error(status: int, err: str, *words: str) -> None:
    assert status == EXIT_USAGE, (status, err[-2000:])
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err[-2000:]
    for word in words:
        assert word in err, (word, err)


def finished_histogram(out_dir: Path) -> OutcomeHistogram:
    """The histogram file of the finished run in ``out_dir`` (not a stopped run's ``-partial`` one)."""
    (path,) = [p for p in out_dir.glob("*-histogram.npz") if "-partial" not in p.name]
    return OutcomeHistogram.load(path)


def assert_same_histogram(a: OutcomeHistogram, b: OutcomeHistogram) -> None:
    """Bit-identical: rounds, shoes, seed, counts, batches and per-position rows."""
    assert (a.rounds, a.shoes, a.seed, a.model) == (b.rounds, b.shoes, b.seed, b.model)
    assert np.array_equal(a.counts, b.counts) and np.array_equal(a.batches, b.batches)
    assert (a.by_position is None) == (b.by_position is None)
    if a.by_position is not None:
        assert np.array_equal(a.by_position, b.by_position)


def temporaries(out_dir: Path, result_files_only: bool = False) -> list[Path]:
    """Files staged under a temporary name (``.NAME.PID.XXXXXXXX.tmp``)."""
    found = [p for p in out_dir.glob(".*.tmp")] if out_dir.exists() else []
    return [p for p in found if not (result_files_only and p.name.startswith(".checkpoint-"))]


def dead_pid() -> int:
    """The id of a process that has ended (for a temporary file a killed writer left)."""
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait()
    return process.pid


# --------------------------------------------------------------------------- kill -9, then resume

#: A fresh-shoe run of about a second on one thread: long enough to kill mid-deal, short enough for CI.
KILL_RUN = ["--rounds", "1e8", "--seed", "20241117", "--threads", "1", "--checkpoint-every", "0.2", "--no-plots"]


@pytest.fixture(scope="module")
def kill_reference(tmp_path_factory) -> OutcomeHistogram:
    """The same run done in one go."""
    out = tmp_path_factory.mktemp("kill-reference")
    assert main([*KILL_RUN, "--out", str(out), *JSON_QUIET]) == 0
    return finished_histogram(out)


def _checkpoint(out: Path) -> Path | None:
    found = sorted(out.glob("checkpoint-*.npz")) if out.exists() else []
    return found[0] if found else None


def _next_attempt(run: list[str], out: Path) -> list[str]:
    """Continue from the checkpoint a killed attempt left, or start again if it left none."""
    return ["--resume", "--out", out, *JSON_QUIET, *run] if _checkpoint(out) else [*run, "--out", out, *JSON_QUIET]


def _kill_at_random_points(run: list[str], out: Path, delays: list[float], cwd: Path) -> list[str]:
    """Start (or resume) the run and SIGKILL it after each delay; returns what each attempt had written."""
    seen = []
    for delay in delays:
        process = start(*_next_attempt(run, out), cwd=cwd)
        time.sleep(delay)
        process.kill()
        finish(process)
        checkpoint = _checkpoint(out)
        header = peek_checkpoint(checkpoint) if checkpoint else None
        if checkpoint is not None:  # a checkpoint under its final name is always whole
            assert header is not None, f"{checkpoint} is not a whole checkpoint after kill -9 at {delay:.2f} s"
        for path in out.glob("*.json") if out.exists() else []:
            json.loads(path.read_text())  # a result file under its final name is whole too
        seen.append("none" if header is None else f"{header['next_chunk']} chunks")
    return seen


def _resume_to_the_end(run: list[str], out: Path, cwd: Path) -> dict:
    status, stdout, err = run_command(*_next_attempt(run, out), cwd=cwd)
    assert status == 0, err[-2000:]
    assert not temporaries(out), "the finished run left temporary files behind"
    return json.loads(stdout)


@pytest.mark.slow
@pytest.mark.parametrize("kills", [3, 12])
def test_kill_9_at_random_points_then_resume_is_bit_identical(tmp_path, kill_reference, kills):
    rng = random.Random(1700 + kills)  # fixed points: from the imports to past the end of dealing
    out = tmp_path / "out"
    seen = _kill_at_random_points(KILL_RUN, out, [rng.uniform(0.3, 2.5) for _ in range(kills)], tmp_path)
    report = _resume_to_the_end(KILL_RUN, out, tmp_path)
    assert report["run"]["complete"] is True, seen
    assert_same_histogram(finished_histogram(out), kill_reference)


@pytest.mark.slow
def test_kill_9_of_a_dealt_run_at_random_points_then_resume_is_bit_identical(tmp_path):
    run = ["--rounds", "3e7", "--seed", "77", "--model", "dealt", "--threads", "1", "--checkpoint-every", "0.2",
           "--no-plots"]
    assert main([*run, "--out", str(tmp_path / "reference"), *JSON_QUIET]) == 0
    rng = random.Random(77)
    out = tmp_path / "out"
    _kill_at_random_points(run, out, [rng.uniform(0.3, 4.0) for _ in range(10)], tmp_path)
    _resume_to_the_end(run, out, tmp_path)
    assert_same_histogram(finished_histogram(out), finished_histogram(tmp_path / "reference"))


def test_kill_9_while_the_result_files_are_written(tmp_path):
    """Killed while its files are staged: nothing half-written under a final name, and the next run finishes it."""
    run = ["--rounds", "2e6", "--seed", "5", "--threads", "1"]  # with plots: writing takes a while
    out = tmp_path / "out"
    process = start(*run, "--out", out, *JSON_QUIET, cwd=tmp_path)
    wait_for(lambda: temporaries(out, result_files_only=True), process, "a result file being written")
    process.kill()
    finish(process)
    staged = temporaries(out, result_files_only=True)
    assert staged, "the kill came after the files were written"
    final = [p for p in out.iterdir() if p.suffix in (".npz", ".csv", ".json", ".md", ".png")
             and not p.name.startswith(("checkpoint-", "."))]
    assert final == [], f"result files under their final names beside staged ones: {final}"
    # The next run in the folder removes what the killed writer staged, and finishes the run where it was.
    report = _resume_to_the_end([*run, "--no-plots"], out, tmp_path)
    assert report["run"]["complete"] is True and not any(p.exists() for p in staged)
    assert main([*run, "--out", str(tmp_path / "reference"), "--no-plots", *JSON_QUIET]) == 0
    assert_same_histogram(finished_histogram(out), finished_histogram(tmp_path / "reference"))


def test_resume_of_a_complete_checkpoint_writes_the_results(capsys, tmp_path):
    """The full histogram that exists only in a checkpoint (the crash came while writing) is never refused."""
    rules = load_rules("default")
    plan = plan_run(rules, 300_000, seed=12)
    state = run_chunks(plan, RunState.empty(plan), threads=1)
    assert state.chunks_done == plan.n_chunks
    save_checkpoint(tmp_path / f"checkpoint-{run_name(seed=12)}.npz", plan, state)
    status, out, err = cli(capsys, "--resume", "--out", tmp_path, "--no-plots", *JSON_QUIET[1:])
    assert status == 0, err
    assert json.loads(out)["run"]["rounds"] == 300_000
    assert_same_histogram(finished_histogram(tmp_path), state.histogram(plan, {}))


def test_a_file_set_that_cannot_be_written_whole_leaves_the_old_one(tmp_path):
    """New .npz/.csv/.json never stand beside an old .md: a set is staged whole before anything is renamed."""
    def text(value):
        return lambda path: path.write_text(value)

    def disk_full(path):
        path.write_text("half")
        raise OSError(28, "No space left on device")

    write_file_set(tmp_path, {"run.csv": text("old"), "run.json": text("old"), "run.md": text("old")})
    with pytest.raises(FileSetError, match=r"cannot write .*run\.png \(No space left on device\); none of the 4 "):
        write_file_set(tmp_path, {"run.csv": text("new"), "run.json": text("new"), "run.png": disk_full,
                                  "run.md": text("new")})
    assert {p.name: p.read_text() for p in tmp_path.iterdir()} == {"run.csv": "old", "run.json": "old",
                                                                 "run.md": "old"}
    # A name taken by a directory would fail at its rename, after the others: refused before anything is staged.
    (tmp_path / "run.md").unlink()
    (tmp_path / "run.md").mkdir()
    with pytest.raises(FileSetError, match=r"run\.md: a directory .*; none of the 3 result files was written"):
        write_file_set(tmp_path, {"run.csv": text("new"), "run.json": text("new"), "run.md": text("new")})
    assert (tmp_path / "run.csv").read_text() == "old" and not temporaries(tmp_path)


# --------------------------------------------------------------------------- signals


def _long_run(out: Path, seed: int = 41) -> list[str]:
    return ["--rounds", "1e12", "--seed", seed, "--threads", "1", "--out", out, "--no-plots", "--format", "json",
            "--checkpoint-every", "0.2"]


@pytest.mark.parametrize(("signum", "status", "name"), [(signal.SIGTERM, 143, "SIGTERM"),
                                                        (signal.SIGHUP, 129, "SIGHUP")])
def test_sigterm_and_sighup_stop_with_a_checkpoint_a_report_and_the_continue_command(tmp_path, signum, status, name):
    out = tmp_path / "out"
    process = start(*_long_run(out), cwd=tmp_path)
    checkpoint = out / f"checkpoint-{run_name(seed=41)}.npz"
    wait_for(checkpoint.exists, process, "the first checkpoint")
    process.send_signal(signum)
    code, stdout, stderr = finish(process)
    assert code == status, stderr
    assert "Traceback" not in stderr and f"stopped by {name}" in stderr
    report = json.loads(stdout)["run"]
    header = peek_checkpoint(checkpoint)
    assert report["interrupted"] is True and header["rounds"] == report["rounds"] > 0  # saved as it stopped
    # The command it prints continues the run where it stopped.
    continue_with = shlex.split(stderr.split("continue with ")[-1])
    assert main([*continue_with, "--max-chunks", "1", "--no-plots", *JSON_QUIET]) == EXIT_PARTIAL
    assert peek_checkpoint(checkpoint)["next_chunk"] == header["next_chunk"] + 1


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_a_signal_before_dealing_begins_exits_with_its_own_status(tmp_path, signum):
    """Stopped while it loads (no dealing yet): nothing to save, and the status still names the signal."""
    process = start("--rounds", "1e12", "--seed", "3", "--out", tmp_path / "out", "--no-plots", cwd=tmp_path)
    time.sleep(0.6)  # in the imports: the command's handlers are installed first thing after parsing
    process.send_signal(signum)
    code, _, stderr = finish(process)
    assert code in (128 + signum, -signum), stderr  # -signum: it came before Python had started the command
    assert "Traceback" not in stderr


def test_the_first_checkpoint_is_written_seconds_into_a_run(tmp_path):
    """A run stopped by a crash (not a signal) 30 s in does not lose all: the first checkpoint comes ~2 s in."""
    rules = load_rules("default")
    plan = plan_run(rules, 10**11, seed=2)
    path = tmp_path / "c.npz"
    started = time.monotonic()
    appeared = []

    class Enough(Exception):
        pass

    def watch(state):
        if path.exists():
            appeared.append(time.monotonic() - started)
            raise Enough
        if time.monotonic() - started > 60:
            raise Enough

    with pytest.raises(Enough):  # the default interval of 30 s: only the first checkpoint can come this early
        run_chunks(plan, RunState.empty(plan), threads=1, checkpoint=path, checkpoint_every=30.0, on_chunk=watch)
    assert appeared and FIRST_CHECKPOINT_SECONDS <= appeared[0] < 20, appeared
    assert load_checkpoint(path, expect=plan, rules=rules)[1].rounds > 0


@pytest.mark.parametrize("gap", [0.05, 0.005])
def test_a_burst_of_ctrl_c_still_leaves_a_checkpoint(tmp_path, gap):
    """The second (third...) Ctrl-C lands while the first one's checkpoint is written: it must not stop it."""
    out = tmp_path / "out"
    process = start(*_long_run(out, seed=43), cwd=tmp_path)
    checkpoint = out / f"checkpoint-{run_name(seed=43)}.npz"
    wait_for(checkpoint.exists, process, "the first checkpoint")
    for _ in range(2 if gap > 0.01 else 40):
        process.send_signal(signal.SIGINT)
        time.sleep(gap)
    code, stdout, stderr = finish(process)
    assert code == EXIT_INTERRUPTED and "Traceback" not in stderr, stderr
    plan, state = load_checkpoint(checkpoint, rules=load_rules("default"))  # whole, consistent, resumable
    assert not temporaries(out)
    if stdout:  # the report of what was dealt (a later Ctrl-C may stop the command while it writes the report)
        assert json.loads(stdout)["run"]["rounds"] == state.rounds
    else:
        assert "interrupted; the last checkpoint written" in stderr
    if gap > 0.01:  # a double Ctrl-C: the second lands while it deals, saves or reports; all three finish
        (histogram,) = out.glob("*-partial-histogram.npz")
        assert stdout and OutcomeHistogram.load(histogram).rounds == state.rounds


# --------------------------------------------------------------------------- two runs, one folder


def test_a_second_run_in_the_same_folder_refuses_in_one_line_and_never_touches_the_first(tmp_path):
    out = tmp_path / "out"
    first = start(*_long_run(out, seed=45), cwd=tmp_path)
    checkpoint = out / f"checkpoint-{run_name(seed=45)}.npz"
    wait_for(checkpoint.exists, first, "the first checkpoint")
    first.send_signal(signal.SIGSTOP)  # frozen while it holds its lock: the checkpoint can only change by another
    try:
        time.sleep(0.2)
        before = checkpoint.read_bytes()
        orphan = out / f".{run_name(seed=45)}.csv.{dead_pid()}.0123abcd.tmp"  # left by a killed writer
        orphan.write_text("half a file")
        busy = out / f".{run_name(seed=45)}.json.{first.pid}.0123abcd.tmp"  # being written by a live one
        busy.write_text("half a file")
        second = [start(*again, cwd=tmp_path) for again in (_long_run(out, seed=45),
                                                            ["--resume", "--seed", "45", "--out", out, "--no-plots"])]
        for refused in second:
            code, _, err = finish(refused)
            one_line_error(code, err, "in use by another run", f"pid {first.pid}", "--seed 45")
        assert checkpoint.read_bytes() == before
        # Another run in the same folder has its own files; it cleans the dead writer's temporaries, not the live one's.
        code, _, err = run_command("--rounds", "1e5", "--seed", "46", "--out", out, "--no-plots", "--quiet",
                                   cwd=tmp_path)
        assert code == 0, err
        assert not orphan.exists() and busy.exists() and checkpoint.read_bytes() == before
    finally:
        first.send_signal(signal.SIGCONT)
    first.send_signal(signal.SIGTERM)
    code, stdout, stderr = finish(first)
    assert code == 143, stderr
    assert load_checkpoint(checkpoint, rules=load_rules("default"))[1].rounds == json.loads(stdout)["run"]["rounds"]


# --------------------------------------------------------------------------- damaged and edited files


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    """A checkpoint (2 of 5 chunks of a run) and a histogram file.

    The run is short so that its files are small (a batch row per chunk: 5 rows of 14,400 cells, 0.6 MB to
    decompress where 31 chunks made 3.6 MB): every load of a damaged copy costs a third of the time, and a byte
    flip lands in the headers, which the reader checks field by field, more often.
    """
    rules = load_rules("default")
    plan = plan_run(rules, 300_000, seed=4)
    state = run_chunks(plan, RunState.empty(plan), threads=1, max_chunks=2)
    directory = tmp_path_factory.mktemp("saved")
    save_checkpoint(directory / "checkpoint.npz", plan, state)
    hist = state.histogram(plan, {"note": "saved"})
    hist.save(directory / "histogram.npz")
    return rules, plan, state, hist, directory


def _flipped(data: bytes, rng: random.Random) -> bytes:
    position = rng.randrange(len(data))
    return data[:position] + bytes([data[position] ^ rng.randrange(1, 256)]) + data[position + 1:]


def _clean_error(error: Exception, path: Path) -> None:
    message = str(error)
    assert "\n" not in message and len(message) < 500 and str(path) in message, message
    assert "pickle" not in message, message


@pytest.mark.parametrize("flips", [150, 3000])
def test_every_byte_flip_of_a_checkpoint_loads_the_same_or_fails_cleanly(saved, tmp_path, flips):
    rules, plan, state, _, directory = saved
    data = (directory / "checkpoint.npz").read_bytes()
    rng = random.Random(flips)
    path = tmp_path / "flipped.npz"
    refused = 0
    for _ in range(flips):
        path.write_bytes(_flipped(data, rng))
        try:
            loaded_plan, loaded = load_checkpoint(path, expect=plan, rules=rules)
        except CheckpointError as error:
            _clean_error(error, path)
            refused += 1
            continue
        # A byte the reader never uses (a zip timestamp): the data must be exactly the saved data.
        assert loaded_plan == plan and (loaded.rounds, loaded.shoes, loaded.next_chunk) == (
            state.rounds, state.shoes, state.next_chunk)
        assert np.array_equal(loaded.by_position, state.by_position) and np.array_equal(loaded.batches, state.batches)
    assert refused > 0.9 * flips


@pytest.mark.parametrize("flips", [150, 3000])
def test_every_byte_flip_of_a_results_npz_loads_the_same_or_fails_cleanly(saved, tmp_path, flips):
    _, _, _, hist, directory = saved
    data = (directory / "histogram.npz").read_bytes()
    rng = random.Random(flips + 1)
    path = tmp_path / "flipped.npz"
    refused = 0
    for _ in range(flips):
        path.write_bytes(_flipped(data, rng))
        try:
            loaded = OutcomeHistogram.load(path)
        except InputError as error:
            _clean_error(error, path)
            refused += 1
            continue
        assert_same_histogram(loaded, hist)
        assert loaded.meta == hist.meta
    assert refused > 0.9 * flips


def test_damaged_checkpoints_through_the_command_line_are_one_line(capsys, saved, tmp_path):
    rules, plan, state, _, directory = saved
    data = (directory / "checkpoint.npz").read_bytes()
    out = tmp_path / "out"
    out.mkdir()
    path = out / f"checkpoint-{run_name(seed=4)}.npz"
    rng = random.Random(3)
    variants = [data[: len(data) // 2], b"", os.urandom(4096), b"PK\x03\x04" + os.urandom(200)]
    while len(variants) < 10:  # flips the library refuses (a flip of a byte nothing reads would resume)
        path.write_bytes(_flipped(data, rng))
        try:
            load_checkpoint(path, expect=plan, rules=rules)
        except CheckpointError:
            variants.append(path.read_bytes())
    for damaged in variants:
        path.write_bytes(damaged)
        status, _, err = cli(capsys, "--resume", "--out", out, "--no-plots", "--quiet")
        one_line_error(status, err, "--resume", str(path))
        assert "pickle" not in err


def _edit(source: Path, target: Path, edit) -> None:
    """Rewrite a checkpoint with ``edit(header, arrays)`` applied and a checksum that matches the edit."""
    header, arrays = read_archive(source, FORMAT, "checkpoint")
    edit(header, arrays)
    write_archive(target, FORMAT, header, arrays)


@pytest.mark.parametrize(("edit", "message"), [
    (lambda h, a: h.update(rounds=h["rounds"] + 1), "counts"),  # rounds not the sum of the counts
    (lambda h, a: h.update(next_chunk=h["next_chunk"] - 1), "chunks done deal"),  # moved back: a chunk twice
    (lambda h, a: h.update(next_chunk=-1), "next_chunk = -1"),
    (lambda h, a: h.update(next_chunk=10**6), "next_chunk"),
    (lambda h, a: h["plan"].update(total_blocks=h["plan"]["total_blocks"] + 1), "total_blocks"),
    (lambda h, a: h["plan"].update(rounds_requested=h["plan"]["rounds_requested"] * 2), "total_blocks"),
    (lambda h, a: h.update(rounds=10**30), "rounds"),  # an OverflowError once
    (lambda h, a: h.update(rounds=str(h["rounds"])), "rounds"),  # a TypeError once
    (lambda h, a: h.update(shoes=1.5), "shoes"),
    (lambda h, a: h.update(done_ahead=[10**40]), "done_ahead"),
    (lambda h, a: h.update(done_ahead="3"), "done_ahead"),
    (lambda h, a: h.update(kernel_seconds="fast"), "kernel_seconds"),
    (lambda h, a: h["plan"].update(seed=-5), "seed"),
    (lambda h, a: h["plan"].update(composition=["x"] * 52), "composition"),
    (lambda h, a: h.update(plan=[]), "plan"),
    (lambda h, a: a["batches"].__setitem__((0, 0), -1), "negative"),
    (lambda h, a: a.update(by_position=a["by_position"].astype(float)), "arrays"),
    (lambda h, a: a.pop("batches"), "arrays"),
], ids=["rounds-not-sum", "next-chunk-back", "next-chunk-negative", "next-chunk-past-end", "total-blocks",
        "rounds-requested", "rounds-huge", "rounds-string", "shoes-float", "done-ahead-huge", "done-ahead-string",
        "kernel-seconds", "seed-negative", "composition", "plan-list", "negative-count", "float-counts",
        "member-missing"])
def test_a_checkpoint_edited_behind_its_checksum_is_refused(saved, tmp_path, edit, message):
    """Structurally valid, checksum right, contents inconsistent: every invariant is checked on load."""
    rules, plan, _, _, directory = saved
    path = tmp_path / "edited.npz"
    _edit(directory / "checkpoint.npz", path, edit)
    with pytest.raises(CheckpointError) as refused:
        load_checkpoint(path, expect=plan, rules=rules, compare=())
    _clean_error(refused.value, path)
    assert message in str(refused.value)


# --------------------------------------------------------------------------- a checkpoint that cannot be written


def _turn_into_a_directory(path: Path):
    """After the first checkpoint, its path becomes a directory: every later write fails (as on a full disk)."""
    def watch(state):
        if path.is_file():
            path.unlink()
            path.mkdir()
            (path / "blocker").touch()
    return watch


@pytest.mark.parametrize("stopped", [False, True])
def test_a_failing_periodic_checkpoint_warns_once_and_the_run_deals_on(tmp_path, stopped):
    rules = load_rules("default")
    plan = plan_run(rules, 2_000_000, seed=8)
    state = RunState.empty(plan)
    path = tmp_path / "c.npz"
    warnings = []
    control = dict(threads=1, checkpoint=path, checkpoint_every=1e-9, on_chunk=_turn_into_a_directory(path),
                   warn=warnings.append, max_chunks=plan.n_chunks - 3 if stopped else None)
    if stopped:  # the final write, of a run stopped unfinished, must succeed: a clean error says what is lost
        with pytest.raises(CheckpointError, match="dealt are not saved") as failed:
            run_chunks(plan, state, **control)
        assert f"cannot write checkpoint {path}" in str(failed.value) and f"the {state.rounds:,} rounds" in str(
            failed.value)
    else:
        run_chunks(plan, state, **control)
    assert state.chunks_done == plan.n_chunks - (3 if stopped else 0)  # it dealt on after every failure
    assert len(warnings) == 1, warnings
    assert "dealing on, keeping the previous checkpoint" in warnings[0] and str(path) in warnings[0]


def test_a_failing_checkpoint_on_the_command_line_warns_once_then_stops_cleanly(tmp_path):
    out = tmp_path / "out"
    process = start(*_long_run(out, seed=47)[:-2], "--checkpoint-every", "0.3", cwd=tmp_path)
    checkpoint = out / f"checkpoint-{run_name(seed=47)}.npz"
    wait_for(checkpoint.is_file, process, "the first checkpoint")
    rounds_saved = peek_checkpoint(checkpoint)["rounds"]
    _turn_into_a_directory(checkpoint)(None)
    time.sleep(1.5)  # several intervals: each write fails
    process.send_signal(signal.SIGTERM)
    code, stdout, stderr = finish(process)
    lines = stderr.strip().splitlines()
    assert sum("warning: cannot write checkpoint" in line for line in lines) == 1, stderr
    one_line_error(code, lines[-1], "error: cannot write checkpoint", str(checkpoint), "dealt are not saved")
    dealt = int(lines[-1].split("the ")[-1].split(" rounds")[0].replace(",", ""))
    assert dealt > rounds_saved  # it kept dealing after the failures
    assert "Traceback" not in stderr and not temporaries(out)


# --------------------------------------------------------------------------- hostile rule files


def _one_bet(when: str = "winner == player", pays: str = 'pays = "1:1"', top: str = "") -> str:
    return f'''schema_version = 1
id = "hostile"
name = "Hostile"
source = "tests/test_faults.py"
{top}
[[bets]]
id = "player"
name = "Player"
pays = [{{ when = "{when}", {pays} }}, {{ when = "winner == tie", pays = "push" }}]
otherwise = "lose"
'''


def _many_bets(n: int) -> str:
    bets = "".join(f'\n[[bets]]\nid = "b{i}"\nname = "Bet {i}"\npays = [{{ when = "winner == player", pays = "1:1" }}]'
                   f'\notherwise = "lose"\n' for i in range(n))
    return f'schema_version = 1\nid = "many"\nname = "Many"\nsource = "tests/test_faults.py"\n{bets}'


#: name -> (rule-file text, words the one-line error holds)
HOSTILE_RULES = {
    "parentheses-300": (_one_bet("(" * 300 + "winner == player" + ")" * 300), ["nested more than 64"]),
    "not-1000": (_one_bet("not " * 1000 + "winner == player"), ["nested more than 64"]),
    "toml-arrays-1e5": ("x = " + "[" * 100_000 + "]" * 100_000 + "\n", ["nested too deeply", "32"]),
    "toml-tables-1e5": ("x = " + "{a = " * 100_000 + "1" + "}" * 100_000 + "\n", ["nested too deeply"]),
    "toml-headers-1e4": ("[" + ".".join(["a"] * 10_000) + "]\nx = 1\n", ["nested too deeply"]),
    "net-1e1000000000": (_one_bet(pays='net = "1e1000000000"'), ["pays[0].net", "at most 40 digits"]),
    "rate-1e1000000000": (_one_bet(top='[commission]\nrate = "1e1000000000"\n'), ["commission.rate", "exponent"]),
    "rate-float-overflow": (_one_bet(top="[commission]\nrate = 1e1000000000\n"), ["commission.rate", "finite"]),
    "integer-5000-digits": (_one_bet(top="[shoe]\ndecks = " + "9" * 5000 + "\n"), ["line 6", "5,000 digits"]),
    "odds-5000-digits": (_one_bet(pays=f'pays = "{"9" * 5000}:1"'), ["pays[0].pays", "at most 40 digits"]),
    "condition-number-5000-digits": (_one_bet("player_score == " + "9" * 5000), ["number of 5,000 characters"]),
    "condition-200kb": (_one_bet("winner == player " + "x" * 200_000), ["bets.player.pays[0].when"]),
    "condition-3mb-valid": (_one_bet("winner == player and " * 150_000 + "winner == player"),
                            ["limit of 2,000 words"]),  # each comparison a mask over every outcome: gigabytes once
    "bets-10000": (_many_bets(10_000), [f"more than the limit of {MAX_BETS} bets"]),
    "id-newline": (rules_text("x\\n"), ["id: must be", "x\\n"]),
    "file-5mb": ("# " + "x" * (5 << 20) + "\n", ["more than the limit"]),
}


@pytest.mark.parametrize("name", list(HOSTILE_RULES))
def test_a_hostile_rule_file_is_one_line_and_exit_2_in_bounded_time_and_memory(tmp_path, name):
    text, words = HOSTILE_RULES[name]
    path = tmp_path / f"{name}.toml"
    path.write_text(text)
    started = time.monotonic()
    status, out, err = run_command("--rules", path, "--exact", cwd=tmp_path, limit_memory=True)
    assert time.monotonic() - started < 60
    one_line_error(status, err, str(path), *words)
    assert out == "" and len(err) < 1200  # a 200 KB line is quoted as a short excerpt


@pytest.mark.parametrize("what", ["fifo", "/dev/zero", "/dev/urandom"])
def test_a_fifo_or_a_device_as_the_rule_file_is_refused_without_reading(tmp_path, what):
    path = tmp_path / "rules.toml"
    if what == "fifo":
        os.mkfifo(path)  # no writer: a blocking read would wait for ever
    else:
        path = Path(what)
    status, _, err = run_command("--rules", path, "--exact", cwd=tmp_path, limit_memory=True)
    one_line_error(status, err, "give a regular file", "FIFO" if what == "fifo" else "device")


@pytest.mark.parametrize("what", ["fifo", "/dev/zero"])
def test_a_fifo_or_a_device_in_place_of_the_checkpoint_is_refused_without_reading(tmp_path, what):
    out = tmp_path / "out"
    out.mkdir()
    checkpoint = out / f"checkpoint-{run_name(seed=9)}.npz"
    if what == "fifo":
        os.mkfifo(checkpoint)
    else:
        checkpoint.symlink_to(what)
    status, _, err = run_command("--resume", "--out", out, "--no-plots", cwd=tmp_path, limit_memory=True)
    one_line_error(status, err, "--resume", "give a regular file", "FIFO" if what == "fifo" else "device")


def test_control_characters_a_bom_and_formulas_in_names_reach_no_output_raw(capsys, tmp_path):
    """Names are data: escapes are shown, not obeyed, and a spreadsheet never runs a name as a formula."""
    evil = "T\\u001b[2J\\u001b]0;owned\\u0007ie\\u202eeil\\ufeff\\nnext"
    path = tmp_path / "names.toml"
    text = rules_text(tie_name=evil).replace('name = "Player"', 'name = "=HYPERLINK(\\"http://x\\",\\"y\\")"')
    path.write_bytes(b"\xef\xbb\xbf" + text.encode())  # a UTF-8 byte-order mark too: accepted
    raw = ("\x1b", "\x07", "\u202e", "\ufeff")
    for fmt in ("table", "markdown", "csv", "json"):
        status, out, err = cli(capsys, "--rules", path, "--exact", "--format", fmt, "--quiet")
        assert status == 0, err
        assert not any(c in out for c in raw), (fmt, out)
        if fmt in ("table", "markdown"):
            assert "T\\x1b[2J\\x1b]0;owned\\x07ie\\u202eeil\\ufeff\\nnext" in out  # shown, on one line
        if fmt == "csv":
            frame = pd.read_csv(pd.io.common.StringIO(out))
            assert frame.loc[frame["id"] == "player", "name"].item() == "'=HYPERLINK(\"http://x\",\"y\")"
    status, _, _ = cli(capsys, "--rules", path, "--exact", "--out", tmp_path / "out", "--no-plots", "--quiet")
    assert status == 0
    for written in (tmp_path / "out").glob("*.[cm][sd]*"):  # .csv and .md files
        assert not any(c in written.read_text() for c in raw), written
    csv_rows = (tmp_path / "out" / f"{run_name('--rules', path, model='exact')}.csv").read_text().splitlines()
    assert not any(row.split(",")[1].startswith(("=", "+", "-", "@")) for row in csv_rows[1:])


# --------------------------------------------------------------------------- many bets: bounded plots


def test_plots_of_many_bets_stay_bounded_and_say_what_they_leave_out(tmp_path):
    n = MAX_PLOTTED_BETS + 6
    path = tmp_path / "many.toml"
    path.write_text(_many_bets(n))
    rules = load_rules(str(path))
    exact = exact_histogram(rules)
    mc = simulate(rules, 20_000, seed=1, threads=1)
    report = build_report(rules, exact, mc, {"rules_path": str(path)})
    shown = report.plotted_bets()
    assert len(shown) == MAX_PLOTTED_BETS and shown == [b for b in report.table.index if b in shown]
    z = report.table["z"].abs()
    assert z[shown].min() >= z.drop(shown).max()  # the largest |z| first
    assert any(f"show {MAX_PLOTTED_BETS} of the {n} bets" in note for note in report.run["notes"])
    figure = plots.convergence_figure(report)
    assert sum(ax.get_visible() for ax in figure.axes) == MAX_PLOTTED_BETS
    assert f"{MAX_PLOTTED_BETS} of {n} bets" in figure._suptitle.get_text()
    rtp_axes = plots.bet_rtp_figure(report).axes[0]
    assert len(rtp_axes.get_yticks()) == MAX_PLOTTED_BETS
    write_report_files(report, tmp_path / "out")
    markdown = next((tmp_path / "out").glob("*.md")).read_text()
    assert f"The per-bet plots show {MAX_PLOTTED_BETS} of the {n} bets" in markdown
    assert markdown.count("| Bet ") == n  # every bet in the table


@pytest.mark.slow
def test_the_most_bets_a_rule_set_may_offer_run_with_default_plots_in_bounded_time_and_memory(tmp_path):
    path = tmp_path / "most.toml"
    path.write_text(_many_bets(MAX_BETS))
    started = time.monotonic()
    status, _, err = run_command("--rules", path, "--rounds", "1e5", "--seed", "1", "--out", tmp_path / "out",
                                 "--quiet", cwd=tmp_path, limit_memory=True)
    assert status == 0, err
    assert time.monotonic() - started < 180
    assert len(list((tmp_path / "out").glob("*.png"))) == 3


# --------------------------------------------------------------------------- degenerate runs


def test_one_round_gives_n_a_not_a_zero_width_interval(capsys, tmp_path):
    common = ["--rounds", "1", "--seed", "1", "--quiet"]
    status, out, _ = cli(capsys, *common)
    assert status == 0
    assert "± n/a" in out and "± 0.0000" not in out and "inf" not in out
    status, out, _ = cli(capsys, *common, "--format", "markdown")
    assert "± n/a" in out and "inf" not in out
    status, out, _ = cli(capsys, *common, "--format", "csv")
    frame = pd.read_csv(pd.io.common.StringIO(out))
    assert frame[["ci95_low", "ci95_high", "z", "se"]].isna().all().all()
    assert "n/a" in out
    status, out, _ = cli(capsys, *common, "--format", "json")
    for bet in json.loads(out)["bets"]:
        assert bet["ci95"] is None and bet["z"] is None and bet["se"] is None
    # Enough rounds: the interval and z are back.
    status, out, _ = cli(capsys, "--rounds", str(MIN_ROUNDS_FOR_INTERVAL * 100), "--seed", "1", "--quiet",
                         "--format", "json")
    assert all(bet["z"] is not None and bet["ci95"] is not None for bet in json.loads(out)["bets"])


def test_resume_after_a_kill_before_the_first_checkpoint_says_so(tmp_path):
    out = tmp_path / "out"
    process = start("--rounds", "1e12", "--seed", "8", "--out", out, "--no-plots", cwd=tmp_path)
    time.sleep(1.0)  # well before the first checkpoint (2 s into dealing)
    process.kill()
    finish(process)
    assert _checkpoint(out) is None
    status, _, err = run_command("--resume", "--seed", "8", "--out", out, cwd=tmp_path)
    one_line_error(status, err, "--resume", "no checkpoint", "seed 8", "stopped before its first checkpoint")
    assert "finished or never began" not in err


# --------------------------------------------------------------------------- shoes: --decks, --remove, cut cards


def _dealt(decks: int, cut: int, rounds_after_cut: int = 0):
    """The plain rule set dealt from ``decks`` decks with a face-value burn (up to 11 cards with the turned one)."""
    return load_rules("default").with_shoe(model="dealt", burn="face_value", decks=decks, cut_card=CutCard(cut, cut),
                                           rounds_after_cut=rounds_after_cut)


def _deepest_cut(n_cards: int, rounds_after_cut: int = 0) -> int:
    return n_cards - 11 - 6 * (1 + rounds_after_cut)  # room for the cut card's round after the longest burn


def _rounds_per_shoe(by_position: np.ndarray, shoes: int) -> tuple[float, float]:
    """Mean and variance of the rounds a shoe deals, from how many shoes reach each round."""
    reaching = by_position.sum(axis=1)
    probability = -np.diff(np.append(reaching, 0)) / shoes  # P(exactly k + 1 rounds)
    k = np.arange(1, len(reaching) + 1)
    mean = float(probability @ k)
    return mean, float(probability @ k**2) - mean**2


@pytest.mark.parametrize("decks", range(1, 9))
def test_deck_counts_and_cut_cards_deal_no_missing_card_and_no_biased_round_count(decks):
    """Every first round comes from a full, shuffled shoe; round counts match the independent reference dealer.

    For every deck count and a cut card at the deepest position that leaves
    room for a round after the longest burn (and halfway), with a face-value
    burn: the first round of each shoe has the exact fresh-shoe distribution
    (|z| < 4 for Player, Banker and Tie), every shoe deals a first round and
    none deals a round past the cards it holds, and the mean number of rounds
    per shoe agrees with the plain-Python reference dealer (|z| < 4).
    """
    n = 52 * decks
    exact = exact_histogram(decks)
    for cut, extra, rounds, shoes in ((_deepest_cut(n), 0, 150_000, 800), (_deepest_cut(n, 1), 1, 150_000, 800),
                                      (n // 2, 0, 60_000, 200)):
        rules = _dealt(decks, cut, extra)
        assert rules.shoe.room_problem() is None
        hist = simulate(rules, rounds, seed=1000 + decks, threads=1, by_position=True)
        first = hist.by_position[0]
        assert first.sum() == hist.shoes  # one first round per shoe, never more, never fewer
        most = (n - 2) // 4  # a round takes four cards at least, after the shortest burn (an ace and the turned card)
        assert not hist.by_position[most:].any()
        for bet in rules.bets:
            net = net_vector(bet, rules, None)
            mean, sd = exact.counts @ net / exact.total, math.sqrt(exact.counts @ net**2 / exact.total
                                                                   - (exact.counts @ net / exact.total) ** 2)
            z = (first @ net / first.sum() - mean) / (sd / math.sqrt(first.sum()))
            assert abs(z) < 4, (decks, cut, bet.id, z)
        ours = _rounds_per_shoe(hist.by_position, hist.shoes)
        theirs = reference_dealer.deal_dealt(rules.shoe, shoes, seed=decks)
        reference = _rounds_per_shoe(theirs, shoes)
        z = (ours[0] - reference[0]) / math.sqrt(ours[1] / hist.shoes + reference[1] / shoes + 1e-12)
        assert abs(z) < 4, (decks, cut, extra, ours, reference, z)
    # One card deeper leaves no room: refused by the plan (and so by every run), whatever built the shoe.
    with pytest.raises(ShoeError, match="no room"):
        plan_run(_dealt(decks, _deepest_cut(n) + 1), 1000, seed=1)


@pytest.fixture
def dealt52(tmp_path) -> Path:
    """An 8-deck dealt rule file with a face-value burn and the cut card 52 cards from the end (issue 17's shoe)."""
    path = tmp_path / "dealt52.toml"
    path.write_text(rules_text("dealt52").replace(
        'shuffle = "fresh"', 'shuffle = "dealt"\nburn = "face_value"\ncut_card = { cards_from_end = 52 }'))
    return path


@pytest.mark.parametrize(("options", "refused_by"), [
    (["--decks", "1"], "--decks"),  # 52 cards: at most 35 from the end after an 11-card burn
    (["--decks", "2"], None),
    (["--decks", "2", "--remove", ",".join(["K"] * 8 + ["Q"] * 8 + ["J"] * 8 + ["T"] * 8 + ["9"] * 4)], "--remove"),
    (["--decks", "2", "--remove", ",".join(["K"] * 8 + ["Q"] * 8 + ["J"] * 8 + ["T"] * 8 + ["9"] * 3)], None),
])
def test_a_shoe_built_by_decks_or_remove_passes_the_rule_files_room_check(capsys, dealt52, options, refused_by):
    status, out, err = cli(capsys, "--rules", dealt52, *options, "--rounds", "2000", "--seed", "1", *JSON_QUIET)
    if refused_by is None:
        assert status == 0, err
        assert json.loads(out)["run"]["rounds"] > 0
    else:
        one_line_error(status, err, refused_by, "leaves no room for a round")
    with pytest.raises(ShoeError):  # the rule file's own deck count with the same cut card, one deck: refused too
        plan_run(load_rules(str(dealt52)), 1000, seed=1, shoe=as_shoe(1))


# --------------------------------------------------------------------------- Dask: no worker left


def test_a_cluster_that_loses_every_worker_says_so_and_how_long_it_waits(tmp_path):
    distributed = pytest.importorskip("distributed")
    from baccarat_sim.engines.dask_backend import DaskBackend
    from baccarat_sim.engines.driver import RunControl, run
    from baccarat_sim.engines.montecarlo import HistogramJob
    from baccarat_sim.errors import BackendError

    rules = load_rules("default")
    plan = plan_run(rules, 40 * 2**16, seed=7)
    state = RunState.empty(plan)
    notes = []
    path = tmp_path / "c.npz"
    cluster = distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=":0")
    with cluster, distributed.Client(cluster, set_as_default=False) as client:
        def lose_the_workers(state):
            if state.chunks_done and cluster.workers:
                cluster.scale(0)
                deadline = time.monotonic() + 60
                while client.nthreads() and time.monotonic() < deadline:  # gone, and its results with it
                    time.sleep(0.05)

        backend = DaskBackend(client, chunks_per_task=1, no_workers_timeout=1.0, note=notes.append)
        with pytest.raises(BackendError, match=r"no workers for 1 s; .* chunks .* saved in .*resume to continue"):
            run(HistogramJob(plan), state, backend, RunControl(checkpoint=path, on_chunk=lose_the_workers))
    assert any("no workers left; waiting up to 1 s for one to join" in note for note in notes), notes
    assert load_checkpoint(path, expect=plan, rules=rules)[1].rounds == state.rounds > 0


def test_dask_timeout_needs_the_dask_backend(capsys):
    status, _, err = cli(capsys, "--dask-timeout", "5", "--rounds", "1e4", "--quiet")
    one_line_error(status, err, "--dask-timeout", "needs --backend dask")
    status, _, err = cli(capsys, "--backend", "dask", "--workers", "1", "--dask-timeout", "-1")
    one_line_error(status, err, "--dask-timeout")
