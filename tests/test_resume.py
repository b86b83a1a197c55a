"""Long runs never lose work (issue 5): checkpoints, Ctrl-C, --resume.

The identity that matters: half a run, stopped and resumed, gives a histogram
bit-identical to the same run done in one go (counts, per-position counts and
the batches the convergence plot and batch-means errors are built from).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from baccarat_sim.cli.common import EXIT_USAGE
from baccarat_sim.cli.rtp import EXIT_INTERRUPTED, EXIT_PARTIAL, main
from baccarat_sim.engines.checkpoint import load_checkpoint, peek_checkpoint, save_checkpoint
from baccarat_sim.engines.plan import plan_run
from baccarat_sim.engines.state import RunState
from baccarat_sim.errors import CheckpointError
from baccarat_sim.model.histogram import OutcomeHistogram
from baccarat_sim.model.rules import load_rules
from baccarat_sim.storage.archive import write_archive

from .cli_helpers import cli, rules_text, run_name
from .run_helpers import run_chunks

QUIET = ["--quiet", "--no-plots", "--format", "json"]


def _histogram(out_dir: Path) -> OutcomeHistogram:
    (path,) = out_dir.glob("*-histogram.npz")
    return OutcomeHistogram.load(path)


def _assert_identical(a: OutcomeHistogram, b: OutcomeHistogram):
    assert (a.rounds, a.shoes, a.seed, a.model) == (b.rounds, b.shoes, b.seed, b.model)
    assert np.array_equal(a.counts, b.counts)
    assert np.array_equal(a.batches, b.batches)
    assert (a.by_position is None) == (b.by_position is None)
    if a.by_position is not None:
        assert np.array_equal(a.by_position, b.by_position)


@pytest.mark.parametrize(("model", "rounds", "stop_after"), [("fresh", "1e6", 5), ("dealt", "3e5", 7)])
def test_half_run_and_resume_equals_one_full_run(capsys, tmp_path, model, rounds, stop_after):
    common = ["--rounds", rounds, "--seed", "20240601", "--model", model, *QUIET]
    status, out, _ = cli(capsys, *common, "--out", tmp_path / "full")
    assert status == 0
    full = json.loads(out)
    assert full["run"]["complete"] is True

    half_dir = tmp_path / "half"
    # First half on one thread, the rest on every thread: neither the stop nor the threads may change the stream.
    status, out, err = cli(capsys, *common, "--out", half_dir, "--max-chunks", stop_after, "--threads", 1)
    assert status == EXIT_PARTIAL  # a partial result has its own exit status (issue 16)
    half = json.loads(out)
    checkpoint = half_dir / f"checkpoint-{run_name('--model', model, seed=20240601)}.npz"
    assert half["run"]["complete"] is False and checkpoint.exists()
    assert 0 < half["run"]["rounds"] < full["run"]["rounds"]
    assert "--resume" in err
    # The partial report's files are written too (a report of what was done).
    assert _histogram(half_dir).rounds == half["run"]["rounds"]

    # No --model: a dealt run of a fresh-shuffle rule set is found by its checkpoint's name.
    status, out, _ = cli(capsys, "--resume", "--out", half_dir, *QUIET)
    assert status == 0
    resumed = json.loads(out)
    assert resumed["run"]["complete"] is True and resumed["run"]["resumed_from_rounds"] == half["run"]["rounds"]
    assert resumed["run"]["seed"] == 20240601
    # With --out a finished run keeps its checkpoint, complete, so that it can be extended (issue 16).
    finished = peek_checkpoint(checkpoint)
    assert finished["next_chunk"] == -(-finished["plan"]["total_blocks"] // finished["plan"]["blocks_per_chunk"])
    _assert_identical(_histogram(half_dir), _histogram(tmp_path / "full"))
    assert [b["rtp"] for b in resumed["bets"]] == [b["rtp"] for b in full["bets"]]
    assert [b["ci95"] for b in resumed["bets"]] == [b["ci95"] for b in full["bets"]]


@pytest.fixture(scope="module")
def interrupted(tmp_path_factory):
    """An out directory holding the checkpoint of a run stopped after 2 of 16 chunks."""
    out = tmp_path_factory.mktemp("interrupted")
    assert main(["--rounds", "1e6", "--seed", "99", "--out", str(out), "--max-chunks", "2", *QUIET]) == EXIT_PARTIAL
    assert (out / f"checkpoint-{run_name(seed=99)}.npz").exists()
    return out


@pytest.fixture
def stopped(interrupted, tmp_path):
    """A private copy of ``interrupted``."""
    copy = tmp_path / "out"
    shutil.copytree(interrupted, copy)
    return copy


def _one_line_error(status, err, *words):
    assert status == EXIT_USAGE
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    for word in words:
        assert word in err, (word, err)


def test_resume_takes_seed_and_rounds_from_the_checkpoint(capsys, stopped):
    status, out, err = cli(capsys, "--resume", "--out", stopped, "--max-chunks", "1", *QUIET)
    assert status == EXIT_PARTIAL
    run = json.loads(out)["run"]
    assert run["seed"] == 99 and run["rounds_requested"] == 1_000_000 and run["chunks_done"] == 3
    assert "resuming seed 99" not in err  # --quiet


def test_resume_with_another_seed_is_refused(capsys, stopped):
    status, _, err = cli(capsys, "--resume", "--seed", "98", "--out", stopped, *QUIET)
    _one_line_error(status, err, "--resume", "no checkpoint of rule set 'default', seed 98", "found: "
                    f"checkpoint-{run_name(seed=99)}.npz")


def test_resume_with_another_shoe_is_refused(capsys, stopped):
    status, _, err = cli(capsys, "--resume", "--remove", "6,6,7", "--out", stopped, *QUIET)
    _one_line_error(status, err, "--resume", "416 cards", "413 cards")


def test_resume_with_another_version_of_the_rule_set_is_refused(capsys, stopped, tmp_path):
    # The checkpoint of a run under one rule file; then the file is edited (Tie pays 9 to 1): same id, new hash.
    path = tmp_path / "table.toml"
    path.write_text(rules_text())
    assert main(["--rules", str(path), "--rounds", "1e6", "--seed", "1", "--out", str(stopped), "--max-chunks", "1",
                 *QUIET]) == EXIT_PARTIAL
    capsys.readouterr()
    path.write_text(rules_text(tie_pays="9:1"))
    status, _, err = cli(capsys, "--resume", "--rules", path, "--out", stopped, *QUIET)
    _one_line_error(status, err, "--resume", "another version of rule set 'test-table'")


def test_resume_with_a_checkpoint_of_another_rule_set_is_refused(capsys, stopped, tmp_path):
    other = tmp_path / "other.toml"
    other.write_text(rules_text("other"))
    theirs = stopped / f"checkpoint-{run_name('--rules', other, seed=99)}.npz"  # where a run of 'other' would be
    (stopped / f"checkpoint-{run_name(seed=99)}.npz").rename(theirs)
    status, _, err = cli(capsys, "--resume", "--rules", other, "--out", stopped, *QUIET)
    _one_line_error(status, err, "--resume", "rule set 'default'", "'other'")


def test_resume_with_a_checkpoint_of_another_version_is_refused(capsys, stopped):
    # A whole, checksummed checkpoint written by other dealing code (issue 12: the stream's fingerprint, not only
    # the package version): resuming it would mix two random streams.
    path = stopped / f"checkpoint-{run_name(seed=99)}.npz"
    with np.load(path) as data:
        arrays = dict(data)
    header = json.loads(str(arrays.pop("header")))
    header.pop("format"), header.pop("checksum")  # written again below, with a checksum of the edited header
    header["version"], header["stream"] = "0.0.1", "0.0.1+0123456789abcdef"
    write_archive(path, "baccarat_sim-checkpoint", header, arrays)
    status, _, err = cli(capsys, "--resume", "--out", stopped, *QUIET)
    _one_line_error(status, err, "--resume", "other dealing code", "baccarat_sim 0.0.1", "0123456789abcdef")


def _rewrite_header(path, **fields):
    """Write a checkpoint again, checksummed, with header fields changed."""
    with np.load(path) as data:
        arrays = dict(data)
    header = json.loads(str(arrays.pop("header")))
    header.pop("format"), header.pop("checksum")  # written again below, with a checksum of the edited header
    header.update(fields)
    write_archive(path, "baccarat_sim-checkpoint", header, arrays)


@pytest.mark.parametrize("other", [1, "next"])  # 1: every release before issue 23's stream version 2
def test_resume_with_a_checkpoint_of_another_stream_version_is_refused(capsys, stopped, other):
    # Issue 20: the checkpoint records the stream version, the one thing that says which rounds a seed deals.
    from baccarat_sim.engines.fingerprint import STREAM_VERSION

    other = STREAM_VERSION + 1 if other == "next" else other
    assert other != STREAM_VERSION
    _rewrite_header(stopped / f"checkpoint-{run_name(seed=99)}.npz", stream=other)
    status, _, err = cli(capsys, "--resume", "--out", stopped, *QUIET)
    _one_line_error(status, err, "--resume", "other dealing code", f"random stream {other}",
                    f"deals random stream {STREAM_VERSION}", "start the run again")


def test_resume_across_package_versions_of_one_stream(capsys, stopped):
    # Issue 20: a release that deals the same stream (an edit, a reformat, a faster kernel) resumes the checkpoint.
    _rewrite_header(stopped / f"checkpoint-{run_name(seed=99)}.npz", version="0.0.1")
    status, _, err = cli(capsys, "--resume", "--out", stopped, *QUIET)
    assert status == 0, err


def test_resume_without_a_checkpoint(capsys, tmp_path):
    status, _, err = cli(capsys, "--resume", "--out", tmp_path, *QUIET)
    _one_line_error(status, err, "--resume", "no checkpoint")
    status, _, err = cli(capsys, "--resume", "--model", "dealt", "--out", tmp_path, *QUIET)
    _one_line_error(status, err, "--resume", "dealt")


def test_damaged_checkpoint_is_refused(capsys, stopped):
    (stopped / f"checkpoint-{run_name(seed=99)}.npz").write_bytes(b"PK\x03\x04 not really a zip")
    status, _, err = cli(capsys, "--resume", "--out", stopped, *QUIET)
    _one_line_error(status, err, "--resume", "is damaged or not a baccarat_sim checkpoint")


def test_a_new_run_never_touches_another_runs_checkpoint(capsys, stopped):
    unfinished = stopped / f"checkpoint-{run_name(seed=99)}.npz"
    before = unfinished.read_bytes()
    # Another seed, run to completion (its own checkpoint written on the way and kept, finished): the old one stays.
    status, _, err = cli(capsys, "--rounds", "1e6", "--seed", "1", "--out", stopped, "--no-plots",
                         "--checkpoint-every", "1e-9")
    assert status == 0 and "unfinished" not in err
    assert unfinished.read_bytes() == before
    assert sorted(p.name for p in stopped.glob("checkpoint-*")) == [f"checkpoint-{run_name(seed=1)}.npz",
                                                                      unfinished.name]
    # The same seed again: warned before it is replaced.
    status, _, err = cli(capsys, "--rounds", "1e5", "--seed", "99", "--out", stopped, "--no-plots")
    assert status == 0 and "holds an unfinished run of this seed (131,072 of 1,000,000 rounds)" in err


def test_resume_chooses_among_unfinished_runs_by_seed(capsys, stopped):
    assert main(["--rounds", "1e6", "--seed", "5", "--out", str(stopped), "--max-chunks", "1", *QUIET]) == EXIT_PARTIAL
    capsys.readouterr()
    status, _, err = cli(capsys, "--resume", "--out", stopped, *QUIET)
    _one_line_error(status, err, "--resume", "2 runs", "seed5", "seed99", "--seed")
    status, out, _ = cli(capsys, "--resume", "--seed", "5", "--out", stopped, "--max-chunks", "1", *QUIET)
    assert status == EXIT_PARTIAL and json.loads(out)["run"]["seed"] == 5 and json.loads(out)["run"]["chunks_done"] == 2


def test_checkpoint_round_trip_and_atomic_replace(tmp_path):
    rules = load_rules("default")
    plan = plan_run(rules, 300_000, seed=4)
    state = RunState.empty(plan)
    run_chunks(plan, state, threads=1, max_chunks=2)
    path = tmp_path / "c.npz"
    save_checkpoint(path, plan, state)
    first = path.read_bytes()
    run_chunks(plan, state, threads=1, max_chunks=1)
    save_checkpoint(path, plan, state)  # over the old one: renamed into place, no temporary left behind
    assert path.read_bytes() != first and [p.name for p in tmp_path.iterdir()] == ["c.npz"]
    loaded_plan, loaded = load_checkpoint(path, expect=plan, rules=rules)
    assert loaded_plan == plan and loaded.next_chunk == 3 and loaded.rounds == state.rounds
    assert np.array_equal(loaded.by_position, state.by_position) and np.array_equal(loaded.batches, state.batches)
    assert peek_checkpoint(path)["rounds"] == state.rounds
    with pytest.raises(CheckpointError, match="seed = 4"):
        load_checkpoint(path, expect=plan_run(rules, 300_000, seed=5), rules=rules)


def test_checkpoint_written_at_least_every_interval(tmp_path):
    rules = load_rules("default")
    plan = plan_run(rules, 2_000_000, seed=8)
    state = RunState.empty(plan)
    path = tmp_path / "c.npz"
    seen = []

    def watch(state):  # after every chunk: what the file on disk says
        seen.append(peek_checkpoint(path)["next_chunk"] if path.exists() else 0)

    # An interval of 0 s: due after every chunk.
    run_chunks(plan, state, threads=1, checkpoint=path, checkpoint_every=1e-9, max_chunks=4, on_chunk=watch)
    assert seen == [1, 2, 3, 4]


def test_ctrl_c_stops_at_a_chunk_boundary_and_reports(tmp_path):
    """A real SIGINT to a real process: checkpoint written, partial report printed, exit 130, then resumable."""
    out = tmp_path / "out"
    command = [sys.executable, "-m", "baccarat_sim.rtp", "--rounds", "1e12", "--seed", "31", "--threads", "1",
               "--out", str(out), "--no-plots", "--format", "json", "--checkpoint-every", "0.2"]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path)
    checkpoint = out / f"checkpoint-{run_name(seed=31)}.npz"
    try:
        deadline = time.monotonic() + 240  # includes compiling the kernel if the cache is cold
        while not checkpoint.exists() and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert checkpoint.exists(), "no checkpoint appeared"
        os.kill(process.pid, signal.SIGINT)
        stdout, stderr = process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == EXIT_INTERRUPTED, stderr
    assert "Traceback" not in stderr and "stopped by Ctrl-C" in stderr
    report = json.loads(stdout)
    run = report["run"]
    assert run["interrupted"] is True and run["complete"] is False and run["rounds"] > 0
    assert run["rounds"] % (1 << 16) == 0  # whole blocks: it stopped at a chunk boundary
    header = peek_checkpoint(checkpoint)
    assert header["rounds"] == run["rounds"] and header["plan"]["seed"] == 31
    # The report's histogram is the checkpoint's.
    assert _histogram(out).rounds == run["rounds"]
    # And it continues from there.
    assert main(["--resume", "--out", str(out), "--max-chunks", "1", *QUIET]) == EXIT_PARTIAL
    assert peek_checkpoint(checkpoint)["next_chunk"] == header["next_chunk"] + 1
