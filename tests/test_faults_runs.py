"""Issue 21, lost or overwritten work: a run's files and checkpoints, whatever the disk, the names or the stops.

A finished run's report and files come before the checkpoint it keeps to be
extended (a checkpoint that cannot be written costs the extension only); runs
that differ in anything (decks, removed cards, after-cut, bets, the rule
file's content) never share a file; counting studies and cut-card sweeps stop
with a run's exit statuses and ``-partial`` names, and a sweep resumes; a
finished run removes exactly its own partial files; a huge run resumes without
a loop over its chunks; a folder that cannot hold checkpoints costs only the
checkpoint; and a Dask run's checkpoints carry its dealing time.
"""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from baccarat_sim.cli.rtp import EXIT_INTERRUPTED, EXIT_PARTIAL
from baccarat_sim.engines.checkpoint import load_checkpoint, peek_checkpoint, save_checkpoint
from baccarat_sim.engines.plan import plan_run
from baccarat_sim.engines.state import RunState
from baccarat_sim.model.histogram import OutcomeHistogram
from baccarat_sim.model.rules import load_rules

from .cli_helpers import cli, rules_text, run_name
from .test_faults import JSON_QUIET, assert_same_histogram, finish, start, wait_for

#: A small fresh run of 31 chunks (a few seconds in all).
SMALL = ["--rounds", "4e6", "--threads", "1", "--no-plots"]


def _files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()}


def _continue_command(err: str) -> list[str]:
    return shlex.split(err.split("continue with ")[-1].strip().splitlines()[0])


# --------------------------------------------------------------------------- 1: the results come first


def test_a_finished_run_whose_checkpoint_cannot_be_written_still_reports_and_writes_its_results(capsys, tmp_path):
    """The checkpoint kept only to extend a finished run is written last, and a failure costs nothing else."""
    out = tmp_path / "out"
    out.mkdir()
    (out / f"checkpoint-{run_name(seed=3)}.npz").mkdir()  # a name no checkpoint can be written to
    status, stdout, err = cli(capsys, *SMALL, "--seed", 3, "--out", out, "--checkpoint-every", 0.001, *JSON_QUIET)
    assert status == 0, err
    report = json.loads(stdout)["run"]
    assert report["complete"] is True and report["rounds"] == 4_000_000
    histogram = OutcomeHistogram.load(out / f"{run_name(seed=3)}-histogram.npz")
    assert histogram.rounds == 4_000_000 and (out / f"{run_name(seed=3)}.json").exists()
    (line,) = err.strip().splitlines()  # --quiet: the one line that is not a note
    assert "cannot be extended" in line and "its results above are complete" in line and "Traceback" not in err


# --------------------------------------------------------------------------- 2: runs never overwrite each other


@pytest.mark.parametrize("second", [["--decks", 6], ["--remove", "6,6,K"], ["--bets", "player,tie"],
                                    ["--model", "dealt", "--after-cut", "one_more_round"]])
def test_runs_that_differ_in_their_shoe_or_bets_keep_their_own_files(capsys, tmp_path, second):
    out = tmp_path / "out"
    first = ["--model", "dealt"] if second[0] == "--model" else []
    assert cli(capsys, *SMALL, *first, "--seed", 1, "--max-chunks", 2, "--out", out, "--quiet")[0] == EXIT_PARTIAL
    before = _files(out)
    assert cli(capsys, *SMALL, *second, "--seed", 1, "--max-chunks", 1, "--out", out, "--quiet")[0] == EXIT_PARTIAL
    after = _files(out)
    assert {name: after.get(name) for name in before} == before  # every file of the first run, untouched
    assert len(after) == 2 * len(before)  # the second run's checkpoint and partial files, under other names


def test_a_rule_file_edited_between_two_runs_gives_two_runs(capsys, tmp_path):
    out = tmp_path / "out"
    path = tmp_path / "table.toml"
    path.write_text(rules_text())
    assert cli(capsys, *SMALL, "--rules", path, "--seed", 2, "--max-chunks", 1, "--out", out, "--quiet")[0] == 3
    before = _files(out)
    path.write_text(rules_text(tie_pays="9:1"))  # the same id, another pay table
    assert cli(capsys, *SMALL, "--rules", path, "--seed", 2, "--max-chunks", 1, "--out", out, "--quiet")[0] == 3
    after = _files(out)
    assert {name: after.get(name) for name in before} == before and len(after) == 2 * len(before)


def test_the_first_runs_printed_resume_command_works_after_another_run_in_its_folder(capsys, tmp_path):
    """The issue's reproducer: --decks 6 stopped, --decks 8 run to the end, then the first one's --resume."""
    out = tmp_path / "out"
    status, _, err = cli(capsys, *SMALL, "--decks", 6, "--seed", 1, "--max-chunks", 3, "--out", out, "--quiet")
    assert status == EXIT_PARTIAL
    resume = _continue_command(err)
    assert cli(capsys, *SMALL, "--decks", 8, "--seed", 1, "--rounds", "1e6", "--out", out, "--quiet")[0] == 0
    status, stdout, err = cli(capsys, *resume, "--no-plots", *JSON_QUIET)
    assert status == 0, err
    assert json.loads(stdout)["run"]["decks"] == 6
    reference = tmp_path / "reference"
    assert cli(capsys, *SMALL, "--decks", 6, "--seed", 1, "--out", reference, *JSON_QUIET)[0] == 0
    name = run_name("--decks", 6, seed=1)
    assert_same_histogram(OutcomeHistogram.load(out / f"{name}-histogram.npz"),
                          OutcomeHistogram.load(reference / f"{name}-histogram.npz"))
    assert OutcomeHistogram.load(out / f"{run_name('--decks', 8, seed=1)}-histogram.npz").rounds == 1_000_000


# --------------------------------------------------------------------------- 3: counting studies stop as runs do


def test_a_counting_study_stopped_by_max_chunks_exits_3_with_partial_files_beside_a_finished_one(capsys, tmp_path):
    count = ["--rules", "live-8deck-side-bets", "--count", "lucky6-derived", "--seed", 1, "--no-plots",
             "--out", tmp_path]
    assert cli(capsys, *count, "--shoes", 2000, "--quiet")[0] == 0
    finished = _files(tmp_path)
    status, stdout, err = cli(capsys, *count, "--shoes", 2000, "--max-chunks", 2, "--format", "json")
    assert status == EXIT_PARTIAL, err
    assert json.loads(stdout)["run"]["complete"] is False and "stopped at --max-chunks after" in err
    after = _files(tmp_path)
    assert {name: after.get(name) for name in finished} == finished  # the finished study's files are not replaced
    partial = sorted(set(after) - set(finished))
    assert partial and all("-partial." in name for name in partial), partial


def test_a_counting_study_stopped_by_ctrl_c_exits_130_with_partial_files(capsys, tmp_path):
    count = ["--rules", "live-8deck-side-bets", "--count", "lucky6-derived", "--seed", 1]
    assert cli(capsys, *count, "--shoes", 64, "--quiet")[0] == 0  # the counting kernel compiled in this process
    timer = threading.Timer(3.0, os.kill, (os.getpid(), signal.SIGINT))  # lands while it deals (tens of seconds)
    timer.start()
    try:
        status, stdout, err = cli(capsys, *count, "--shoes", "5e6", "--out", tmp_path, "--no-plots", "--format",
                                  "json")
    finally:
        timer.cancel()
    assert status == EXIT_INTERRUPTED, err
    assert "stopped by Ctrl-C (SIGINT) after" in err and "Traceback" not in err
    assert json.loads(stdout)["run"]["complete"] is False
    assert sorted(p.name for p in tmp_path.iterdir()) and all("-partial." in p.name for p in tmp_path.iterdir())


# --------------------------------------------------------------------------- 4: a cut-card sweep stops and resumes


SWEEP = ["--rules", "live-8deck-side-bets", "--sweep", "cut=14,0.5,60", "--rounds", "3e5", "--seed", 8,
         "--threads", 1, "--no-plots"]


@pytest.fixture(scope="module")
def whole_sweep(tmp_path_factory) -> dict:
    """The sweep done in one go."""
    from baccarat_sim.cli.rtp import main

    out = tmp_path_factory.mktemp("sweep")
    import contextlib
    import io

    with contextlib.redirect_stdout(io.StringIO()) as printed:
        assert main([*map(str, SWEEP), "--out", str(out), *JSON_QUIET]) == 0
    return json.loads(printed.getvalue())


def _figures(document: dict) -> list:
    """A sweep's figures, without what may differ between two runs of it (none should)."""
    return [(cut["cut_from_end"], cut["rounds"], cut["shoes"], [(b["id"], b["rtp"], b["se"]) for b in cut["bets"]])
            for cut in document["cuts"]]


def test_a_sweep_stopped_by_max_chunks_checkpoints_exits_3_and_resume_finishes_it_bit_identically(
        capsys, tmp_path, whole_sweep):
    status, stdout, err = cli(capsys, *SWEEP, "--max-chunks", 40, "--checkpoint-every", 5, "--out", tmp_path,
                              *JSON_QUIET)
    assert status == EXIT_PARTIAL, err
    partial = json.loads(stdout)
    assert partial["run"]["complete"] is False and 0 < len(partial["cuts"]) < 3
    assert _figures(partial) == _figures(whole_sweep)[:len(partial["cuts"])]
    assert "of 3 cut-card positions" in err
    names = sorted(p.name for p in tmp_path.iterdir())
    assert any(name.startswith("checkpoint-") for name in names) and any("-partial." in name for name in names)
    status, stdout, err = cli(capsys, *_continue_command(err), "--no-plots", *JSON_QUIET)
    assert status == 0, err
    assert _figures(json.loads(stdout)) == _figures(whole_sweep)
    assert not any("-partial" in p.name for p in tmp_path.iterdir())  # the finished sweep's files replace them


def test_a_sweep_stops_as_a_whole_on_ctrl_c_and_resume_finishes_it(tmp_path, whole_sweep):
    longer = [*map(str, SWEEP)]
    # So long that the signal comes in its first position (2e7 was not, under load: it had finished).
    longer[longer.index("--rounds") + 1] = "2e8"
    process = start(*longer, "--checkpoint-every", "0.5", "--out", tmp_path, "--format", "json", cwd=tmp_path)
    wait_for(lambda: any(tmp_path.glob("checkpoint-*.npz")), process, "the first position's first checkpoint")
    process.send_signal(signal.SIGINT)
    code, stdout, err = finish(process)
    assert code == EXIT_INTERRUPTED, err
    assert "stopped by Ctrl-C (SIGINT) after" in err and "Traceback" not in err
    assert "of 3 cut-card positions" in err and "continue with" in err
    assert [p.name for p in tmp_path.glob("*.json") if "-partial" not in p.name] == []
    # The command it prints continues the sweep where its first position stopped.
    resume = _continue_command(err)
    (checkpoint,) = tmp_path.glob("checkpoint-*.npz")
    before = peek_checkpoint(checkpoint)
    assert before["rounds"] > 0 and stdout == ""  # no position finished: nothing to report
    from baccarat_sim.cli.rtp import main

    assert main([*resume, "--max-chunks", "1", "--quiet"]) == EXIT_PARTIAL
    assert peek_checkpoint(checkpoint)["next_chunk"] == before["next_chunk"] + 1


# --------------------------------------------------------------------------- 5: a finished run removes its own files


def test_finishing_a_run_removes_exactly_its_own_partial_files(capsys, tmp_path):
    out = tmp_path / "out"
    assert cli(capsys, *SMALL, "--seed", 5, "--max-chunks", 1, "--out", out, "--quiet")[0] == EXIT_PARTIAL
    stem = run_name(seed=5)
    assert (out / f"{stem}-partial.json").exists()
    # A rule set whose id starts with that run's name and "-partial" (allowed: ids may hold dots and dashes).
    other = tmp_path / "other.toml"
    other.write_text(rules_text(f"{stem}-partial.mine"))
    assert cli(capsys, "--rules", other, *SMALL, "--seed", 5, "--rounds", "1e5", "--out", out, "--quiet")[0] == 0
    others = {p.name for p in out.iterdir() if p.name.startswith(f"{stem}-partial.mine")}
    assert len(others) >= 4
    assert cli(capsys, "--resume", "--seed", 5, "--out", out, "--no-plots", "--quiet")[0] == 0
    names = {p.name for p in out.iterdir()}
    assert others <= names  # the other rule set's files are still there
    assert not [name for name in names if name.startswith(f"{stem}-partial") and name not in others]
    assert f"{stem}.json" in names


# --------------------------------------------------------------------------- 16: smaller ones


def test_a_default_checkpoint_folder_that_cannot_be_written_runs_without_a_checkpoint(capsys, tmp_path, monkeypatch):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("BACCARAT_SIM_CHECKPOINTS", str(blocker / "checkpoints"))  # cannot be made, even by root
    status, stdout, err = cli(capsys, "--rounds", "2e5", "--seed", 1, "--format", "json")
    assert status == 0, err
    assert json.loads(stdout)["run"]["rounds"] == 200_000
    assert "writes no checkpoint" in err and "Traceback" not in err
    status, _, err = cli(capsys, "--rounds", "2e6", "--seed", 1, "--max-chunks", 1, "--quiet")
    assert status == EXIT_PARTIAL and "not checkpointed" in err
    status, _, err = cli(capsys, "--resume", "--seed", 1, "--quiet")  # a run to resume needs its folder: one line
    assert status == 2 and len(err.strip().splitlines()) == 1 and "--out" in err


def _huge_checkpoint(path: Path, rounds: int = 10**15):
    """A checkpoint of a run of ``rounds`` rounds, half dealt (its counts consistent, dealt by no one)."""
    rules = load_rules("default")
    plan = plan_run(rules, rounds, seed=9)
    state = RunState.empty(plan)
    state.next_chunk = plan.n_chunks // 2
    state.rounds = plan.units_of_chunks(0, state.next_chunk)
    state.by_position[0, 100] = state.rounds
    state.batches[0, 100] = state.rounds
    save_checkpoint(path, plan, state)
    return rules, plan


def test_a_huge_run_resumes_without_a_loop_over_its_chunks(tmp_path):
    rules, plan = _huge_checkpoint(tmp_path / "huge.npz")
    assert plan.n_chunks > 10**8
    started = time.monotonic()
    loaded, state = load_checkpoint(tmp_path / "huge.npz", expect=plan, rules=rules)
    assert time.monotonic() - started < 10  # 26 s and more before: a Python loop over 1.2e8 chunks
    assert loaded == plan and state.chunks_done == plan.n_chunks // 2


def test_a_huge_run_extends_without_a_set_of_its_blocks(tmp_path):
    """Extending one of 5 * 10^14 rounds to 10^15 keeps every chunk dealt alike, in bounded time and memory."""
    _huge_checkpoint(tmp_path / "huge.npz", 5 * 10**14)
    script = f"""
import resource, sys
resource.setrlimit(resource.RLIMIT_AS, ({2 << 30}, {2 << 30}))
from baccarat_sim.engines.checkpoint import load_checkpoint
from baccarat_sim.engines.extend import extend_state
from baccarat_sim.engines.plan import plan_run
from baccarat_sim.model.rules import load_rules
rules = load_rules("default")
old, state = load_checkpoint({str(tmp_path / "huge.npz")!r}, rules=rules)
new = plan_run(rules, 10**15, seed=9)
extended = extend_state(old, state, new)
print(extended.chunks_done, extended.rounds, state.rounds)
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stderr[-2000:]
    chunks, rounds, before = map(int, done.stdout.split())
    assert rounds == before and chunks > 0  # every block dealt alike is kept: nothing taken out


def test_a_dask_runs_checkpoints_carry_the_time_it_dealt(tmp_path):
    distributed = pytest.importorskip("distributed")
    from .run_helpers import run_dask

    rules = load_rules("default")
    plan = plan_run(rules, 2_000_000, seed=4)
    seen = []
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=":0") as \
            cluster, distributed.Client(cluster) as client:
        run_dask(plan, RunState.empty(plan), client, chunks_per_task=1, retries=0,
                 on_chunk=lambda state: seen.append((state.rounds, state.kernel_seconds)))
    dealt = [(rounds, seconds) for rounds, seconds in seen if rounds]
    assert dealt and all(seconds > 0 for _, seconds in dealt), dealt  # what a checkpoint written then would hold


def test_readme_says_the_checksum_guards_integrity_not_authenticity():
    # The checkpoints' story moved from README.md to the bigger-runs guide (issue 24).
    words = " ".join((Path(__file__).resolve().parents[1] / "docs" / "guide" / "bigger-runs.md").read_text().split())
    assert "The checksum is not keyed: it guards *integrity*" in words and "not *authenticity*" in words


def test_a_partial_histogram_settled_says_of_how_many_rounds_requested(capsys, tmp_path):
    out = tmp_path / "out"
    assert cli(capsys, *SMALL, "--seed", 6, "--max-chunks", 2, "--out", out, "--quiet")[0] == EXIT_PARTIAL
    (histogram,) = out.glob("*-partial-histogram.npz")
    status, stdout, err = cli(capsys, "--from-histogram", histogram, "--quiet")
    assert status == 0, err
    assert "of 4,000,000 requested (stopped early" in stdout and "of 0 requested" not in stdout

