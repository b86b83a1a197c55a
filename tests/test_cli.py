"""The command line (issue 5): defaults, output contract, --check, bad input, --help speed.

Runs are small (1e5-1e6 rounds) and in-process through ``main([...])``; a
subprocess is used only where the test is about the process itself (start-up
time, what is imported, exit status and stderr of a real command).
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from baccarat_sim.analysis.settlement import settle
from baccarat_sim.cli.common import EXIT_CHECK_FAILED, EXIT_USAGE, parse_rounds
from baccarat_sim.cli.rtp import DEFAULT_ROUNDS, build_parser, main
from baccarat_sim.cli.rtp_parser import DEFAULT_CHECKPOINT_SECONDS
from baccarat_sim.engines.exact import exact_histogram
from baccarat_sim.model.rules import load_rules

from .cli_helpers import cli, rules_text

FAST = ["--quiet"]


# --------------------------------------------------------------------------- defaults and parsing


def test_defaults_need_no_flags():
    args = build_parser().parse_args([])
    assert args.rules == "default"
    assert args.rounds is None and DEFAULT_ROUNDS == 10**8  # resolved to 1e8 unless --resume takes the checkpoint's
    assert args.seed is None  # drawn at random and printed
    # No result files unless --out is given (issue 16).
    # --checkpoint-every: 30 s unless given (None: not given, so that --exact can refuse it, issue 21).
    assert args.format == "table" and args.out is None and args.checkpoint_every is None
    assert DEFAULT_CHECKPOINT_SECONDS == 30.0


@pytest.mark.parametrize(("text", "rounds"), [("1e9", 10**9), ("2_000_000", 2_000_000), ("100000", 100_000),
                                              ("2.5e6", 2_500_000), ("1E3", 1000), ("1e15", 10**15)])
def test_rounds_accepts_scientific_and_underscores(text, rounds):
    assert parse_rounds(text) == rounds


def test_random_seed_is_printed_and_recorded(capsys):
    status, out, err = cli(capsys, "--rounds", "1e5", "--format", "json")
    assert status == 0
    seed = json.loads(out)["run"]["seed"]
    assert f"seed {seed}" in err


# --------------------------------------------------------------------------- the JSON contract


def test_json_contract_monte_carlo(capsys):
    status, out, _ = cli(capsys, "--rounds", "2e5", "--seed", "11", "--format", "json", *FAST)
    assert status == 0
    document = json.loads(out)
    run = document["run"]
    for key in ("rules", "model", "decks", "rounds", "shoes", "seed", "threads", "seconds", "rounds_per_second",
                "version", "rules_sha256", "banker_win", "player_win", "tie"):
        assert key in run, key
    assert (run["rules"], run["model"], run["decks"], run["rounds"], run["seed"]) == ("default", "fresh", 8, 200_000,
                                                                                      11)
    assert run["threads"] >= 1 and run["seconds"] > 0 and run["rounds_per_second"] > 0
    exact = {r.id: r for r in settle(exact_histogram(8), load_rules("default"))}
    assert [b["id"] for b in document["bets"]] == ["player", "banker", "tie"]
    for bet in document["bets"]:
        for key in ("id", "rtp", "house_edge", "hit_frequency", "sd", "ci95", "exact_rtp", "stated_rtp", "z"):
            assert key in bet, key
        # Fractions, not percents; the interval brackets the estimate; z is (MC - exact) / SE.
        assert 0.8 < bet["rtp"] < 1.0
        assert bet["house_edge"] == pytest.approx(1 - bet["rtp"], abs=1e-15)
        low, high = bet["ci95"]
        assert low < bet["rtp"] < high
        assert bet["exact_rtp"] == pytest.approx(exact[bet["id"]].rtp, rel=1e-15)
        assert bet["stated_rtp"] is None  # the default rule set states nothing
        assert bet["z"] == pytest.approx((bet["rtp"] - bet["exact_rtp"]) / bet["se"], rel=1e-9)
        assert (high - low) / 2 == pytest.approx(1.959964 * bet["se"], rel=1e-6)


def test_json_exact_matches_published_house_edges(capsys):
    # Wizard of Odds, "Baccarat" (wizardofodds.com/games/baccarat/basics/), 8 decks: house edge Banker 1.06%,
    # Player 1.24%, Tie (8 to 1) 14.36%; the 8-deck probabilities 0.458597 / 0.446247 / 0.095156.
    status, out, _ = cli(capsys, "--exact", "--format", "json", *FAST)
    assert status == 0
    document = json.loads(out)
    run = document["run"]
    assert run["model"] == "exact" and run["decks"] == 8
    assert run["rounds"] is None and run["seed"] is None  # present, null: no Monte Carlo
    edge = {b["id"]: b["house_edge"] for b in document["bets"]}
    assert edge["banker"] == pytest.approx(0.010579, abs=5e-7)
    assert edge["player"] == pytest.approx(0.012351, abs=5e-7)
    assert edge["tie"] == pytest.approx(0.143596, abs=5e-7)
    assert round(run["banker_win"], 6) == 0.458597 and round(run["tie"], 6) == 0.095156
    for bet in document["bets"]:
        assert bet["rtp"] == bet["exact_rtp"] and bet["ci95"] is None and bet["z"] is None


def test_bets_subset_and_formats(capsys):
    status, out, _ = cli(capsys, "--exact", "--bets", "tie,banker", "--format", "csv", *FAST)
    assert status == 0
    frame = pd.read_csv(pd.io.common.StringIO(out))
    assert list(frame["id"]) == ["tie", "banker"]
    assert {"rules_sha256", "version", "seed", "rounds", "threads"} <= set(frame.columns)
    status, out, _ = cli(capsys, "--exact", "--bets", "player", "--format", "markdown", *FAST)
    assert status == 0 and out.count("\n| Player |") == 1 and "Banker" not in out.split("|---|")[-1]


def test_table_fits_the_terminal_and_wraps_long_names(capsys, tmp_path, monkeypatch):
    # A bet name far longer than the table has room for wraps at word boundaries onto indented lines (issue 16).
    path = tmp_path / "long.toml"
    name = f"Tie {'with a very long name ' * 5}".strip()
    path.write_text(rules_text(tie_name=name))
    for columns in (120, 100):
        monkeypatch.setenv("COLUMNS", str(columns))
        status, out, _ = cli(capsys, "--rules", path, "--rounds", "1e5", "--seed", "1", *FAST)
        assert status == 0
        lines = out.splitlines()
        assert max(len(line) for line in lines) <= columns
        first = next(i for i, line in enumerate(lines) if line.startswith("Tie with a"))
        continued = [lines[first].split("  ")[0]] + [line.strip() for line in lines[first + 1:]
                                                     if line.startswith("  ") and not line.startswith("   ")]
        assert " ".join(continued).startswith(name) and "…" not in out
    for label in ("rule set", "shoe", "rounds", "seed", "time", "RTP % (95% CI)", "edge %", "exact %", "stated",
                  "hit %", "SD", "rounds ±0.01%"):
        assert label in out, label
    assert "100,000" in out and "threads" in out and "rounds/s" in out


# --------------------------------------------------------------------------- --check


def test_check_passes_on_a_sound_run(capsys):
    status, _, err = cli(capsys, "--rounds", "1e5", "--seed", "5", "--check")
    assert status == 0
    assert "check passed" in err and "check ok     banker" in err


def test_check_fails_on_a_wrong_stated_rtp(capsys, tmp_path):
    # Banker's exact 8-deck RTP is 98.9421%; a sheet stating 98.99% is wrong at its own precision (+/-0.005%).
    claim = '\n[[claims]]\nwhat = "bet"\nbet = "banker"\nvalue = "{}"\n'
    path = tmp_path / "wrong-stated.toml"
    path.write_text(rules_text(extra=claim.format("98.99%")))
    status, out, err = cli(capsys, "--rules", path, "--exact", "--check")
    assert status == EXIT_CHECK_FAILED
    failed = [line for line in err.splitlines() if line.startswith("check FAILED")]
    assert len(failed) == 1 and "banker" in failed[0] and "98.99%" in failed[0] and "does NOT hold" in failed[0]
    assert "98.99% *" in out  # flagged in the table too
    # The same sheet stating the right figure passes.
    path.write_text(rules_text(extra=claim.format("98.94%")))
    assert cli(capsys, "--rules", path, "--exact", "--check")[0] == 0


def test_check_fails_when_monte_carlo_and_exact_disagree():
    # A real disagreement, not a mock: Monte Carlo rounds dealt from a shoe without its tens and faces, settled
    # against the exact figures of the full shoe. Ties are then far more common: |z| is huge for the Tie bet.
    from baccarat_sim.analysis.check import check_failures
    from baccarat_sim.engines.simulation import simulate
    from baccarat_sim.model.shoe import as_shoe
    from baccarat_sim.report.run_report import build_report

    def failures_of(report):
        rows = [(bet_id, row["rtp"], row["exact_rtp"], row["z"]) for bet_id, row in report.table.iterrows()]
        return check_failures(rows, report.claims)

    rules = load_rules("default")
    shoe = as_shoe(8)
    shoe[9:] = 0
    mc = simulate(rules, 100_000, seed=3, shoe=shoe)
    report = build_report(rules, exact_histogram(8), mc)
    failures = failures_of(report)
    assert "tie" in failures and "|z| >= 4" in failures["tie"][0]
    sound = build_report(rules, exact_histogram(8), simulate(rules, 100_000, seed=3))
    assert failures_of(sound) == {}


# --------------------------------------------------------------------------- bad input: one line, exit 2


def _one_line_error(status, err, *must_name):
    assert status == EXIT_USAGE
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "Traceback" not in err and lines[0].startswith("python -m baccarat_sim.rtp: error:")
    for word in must_name:
        assert word in lines[0], (word, lines[0])


@pytest.mark.parametrize(
    ("args", "names"),
    [
        (["--rounds", "abc"], ["--rounds", "1e9"]),
        (["--rounds", "0"], ["--rounds", "at least 1"]),
        (["--rounds", "-5"], ["--rounds", "positive"]),
        (["--rounds", "1e30"], ["--rounds", "at most 1e15"]),
        (["--rounds", "1.5"], ["--rounds", "whole"]),
        (["--rules", "no-such-table"], ["--rules", "no-such-table", "default"]),
        (["--bets", "player,no_such_bet"], ["--bets", "no_such_bet", "banker"]),
        (["--threads", "0"], ["--threads", ">= 1"]),
        (["--threads", "100000"], ["--threads", "on this machine"]),
        (["--seed", "-1"], ["--seed"]),
        (["--format", "xml"], ["--format", "json"]),
        (["--model", "sometimes"], ["--model", "dealt"]),
    ],
)
def test_bad_option_is_one_line_exit_2(capsys, args, names):
    extra = [] if "--rounds" in args else ["--rounds", "1e5"]  # a mistake must never start a 1e8-round run
    status, out, err = cli(capsys, *args, *extra, *FAST)
    _one_line_error(status, err, *names)
    assert out == ""


def test_malformed_toml_names_the_file(capsys, tmp_path):
    path = tmp_path / "broken.toml"
    path.write_text(rules_text().replace("rate = 0.05", "rate = = 0.05"))
    status, _, err = cli(capsys, "--rules", path, "--exact", *FAST)
    _one_line_error(status, err, str(path), "malformed TOML", "line")


def test_invalid_rule_value_names_the_key(capsys, tmp_path):
    path = tmp_path / "bad-decks.toml"
    path.write_text(rules_text(decks=0))
    status, _, err = cli(capsys, "--rules", path, "--exact", *FAST)
    _one_line_error(status, err, str(path), "shoe.decks")


def test_unwritable_out(capsys, tmp_path):
    a_file = tmp_path / "taken"
    a_file.write_text("not a directory")
    status, _, err = cli(capsys, "--exact", "--quiet", "--out", a_file)
    _one_line_error(status, err, "--out", "is a file")
    status, _, err = cli(capsys, "--exact", "--quiet", "--out", a_file / "sub")
    _one_line_error(status, err, "--out", "cannot write")


def test_bad_input_in_a_real_process(tmp_path):
    # The installed console script and python -m: exit status 2, one line on stderr, no traceback, fast.
    broken = tmp_path / "broken.toml"
    broken.write_text("schema_version = 1\nid = [")
    for command in ([sys.executable, "-m", "baccarat_sim.rtp", "--rounds", "abc"],
                    [sys.executable, "-m", "baccarat_sim", "--rules", str(broken), "--exact"]):
        done = subprocess.run(command, capture_output=True, text=True, timeout=120, cwd=tmp_path)
        assert done.returncode == EXIT_USAGE, done.stderr
        assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr
        assert done.stdout == ""


# --------------------------------------------------------------------------- start-up


def test_help_is_fast_and_lists_every_option():
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "baccarat_sim.rtp", "--help"], capture_output=True, text=True,
                          timeout=30)
    elapsed = time.perf_counter() - started
    assert done.returncode == 0
    for option in ("--rounds", "--rules", "--seed", "--threads", "--model", "--exact", "--bets", "--out",
                   "--format", "--check", "--resume", "--quiet", "--checkpoint-every", "--max-chunks"):
        assert option in done.stdout, option
    assert elapsed < 1.0, f"--help took {elapsed:.2f} s"


def test_parsing_imports_no_heavy_module():
    code = ("import sys; from baccarat_sim.cli.rtp import build_parser; "
            "build_parser().parse_args(['--rounds', '1e9', '--seed', '1', '--check']); "
            "print(sorted(m for m in ('numba', 'numpy', 'pandas', 'matplotlib', 'tqdm') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=30, check=True)
    assert done.stdout.strip() == "[]"


def test_console_script_is_installed():
    script = Path(sys.executable).parent / "baccarat-rtp"
    if not script.exists():
        pytest.skip("package not installed with its console script in this environment")
    done = subprocess.run([str(script), "--version"], capture_output=True, text=True, timeout=30)
    assert done.returncode == 0 and "baccarat_sim" in done.stdout


def test_exit_status_of_help_in_process(capsys):
    assert main(["--help"]) == 0
    assert "usage:" in capsys.readouterr().out
