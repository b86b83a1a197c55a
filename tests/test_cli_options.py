"""Issue 16: no option silently ignored, files only when asked, --from-histogram, --baseline, bets in any case."""

from __future__ import annotations

import json

import pytest

from baccarat_sim.cli.common import EXIT_CHECK_FAILED, EXIT_USAGE
from baccarat_sim.cli.rtp import EXIT_PARTIAL

from .cli_helpers import cli, run_name


def _one_line(status, err, *fragments):
    assert status == EXIT_USAGE, err
    assert err.count("\n") == 1, err
    for fragment in fragments:
        assert fragment in err, (fragment, err)


@pytest.mark.parametrize(("args", "fragments"), [
    (["--shoes", "10"], ["--shoes: only for --count"]),
    (["--cut-cards", "52"], ["--cut-cards: only for --count"]),
    (["--exact", "--rounds", "1e6"], ["--exact", "drop --rounds"]),
    (["--exact", "--seed", "3"], ["--exact", "drop --seed"]),
    (["--exact", "--model", "dealt"], ["--exact", "drop --model dealt"]),
    (["--exact", "--max-chunks", "2"], ["--exact", "drop --max-chunks"]),
    (["--count", "perfect-play", "--sweep", "cut=14"], ["--count", "drop --sweep"]),
    (["--exact", "--tolerance", "1e-3"], ["--tolerance: only for --baseline"]),
    (["--from-histogram", "x.npz", "--rounds", "1e6"], ["--from-histogram", "drop --rounds"]),
    (["--from-histogram", "x.npz", "--decks", "6"], ["--from-histogram", "drop --decks"]),
    (["--exact", "--bets", "bankr"], ["--bets", "did you mean 'banker'?"]),
    (["--exact", "--bets", "banker,,tie"], ["--bets", "single commas"]),
    (["--exact", "--baseline", "/nonexistent.json"], ["--baseline"]),
])
def test_options_that_do_not_apply_are_refused_in_one_line(capsys, args, fragments):
    status, _, err = cli(capsys, *args, "--quiet")
    _one_line(status, err, *fragments)


def test_bet_ids_match_in_any_case(capsys):
    status, out, _ = cli(capsys, "--exact", "--bets", "TIE,Banker", "--format", "json", "--quiet")
    assert status == 0
    assert [bet["id"] for bet in json.loads(out)["bets"]] == ["tie", "banker"]


def test_no_files_without_out(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("BACCARAT_SIM_CHECKPOINTS", str(tmp_path / "checkpoints"))
    assert cli(capsys, "--exact", "--quiet")[0] == 0
    assert cli(capsys, "--rounds", "2e5", "--seed", "1", "--quiet")[0] == 0
    # Nothing in the working folder; the finished run's checkpoint is gone from the checkpoint folder.
    assert sorted(p.name for p in tmp_path.iterdir()) == ["checkpoints"]
    assert not list((tmp_path / "checkpoints").iterdir())


def test_a_stopped_run_without_out_keeps_its_checkpoint_and_resumes(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("BACCARAT_SIM_CHECKPOINTS", str(tmp_path))
    status, _, err = cli(capsys, "--rounds", "3e6", "--seed", "4", "--max-chunks", "2", "--format", "json")
    assert status == EXIT_PARTIAL and "continue with --resume --seed 4" in err
    assert [p.name for p in tmp_path.iterdir()] == [f"checkpoint-{run_name(seed=4)}.npz"]
    status, out, _ = cli(capsys, "--resume", "--seed", "4", "--format", "json", "--quiet")
    assert status == 0 and json.loads(out)["run"]["rounds"] == 3_000_000
    assert not list(tmp_path.iterdir())


def test_partial_files_say_so(capsys, tmp_path):
    status, _, _ = cli(capsys, "--rounds", "3e6", "--seed", "4", "--max-chunks", "1", "--out", tmp_path,
                       "--no-plots", "--quiet")
    assert status == EXIT_PARTIAL
    names = {p.name for p in tmp_path.iterdir() if not p.name.startswith("checkpoint-")}
    assert names and all("-partial" in name for name in names)


def test_from_histogram_settles_another_pay_table_on_the_saved_rounds(capsys, tmp_path):
    status, _, _ = cli(capsys, "--rounds", "4e5", "--seed", "8", "--out", tmp_path, "--no-plots", "--quiet")
    assert status == 0
    saved = tmp_path / f"{run_name(seed=8)}-histogram.npz"
    status, out, err = cli(capsys, "--from-histogram", saved, "--rules", "ez-baccarat", "--format", "json")
    assert status == 0, err
    document = json.loads(out)
    assert document["run"]["rounds"] == 400_000 and document["run"]["seed"] == 8
    assert document["run"]["from_histogram"] == str(saved)
    assert {bet["id"] for bet in document["bets"]} >= {"dragon_7", "panda_8"}
    assert all(abs(bet["z"]) < 4 for bet in document["bets"])
    # A damaged file is one line.
    saved.write_bytes(saved.read_bytes()[:-50])
    status, _, err = cli(capsys, "--from-histogram", saved, "--quiet")
    _one_line(status, err, "--from-histogram", str(saved))


def test_baseline_passes_unchanged_and_lists_each_drift(capsys, tmp_path):
    status, out, _ = cli(capsys, "--exact", "--format", "json", "--quiet")
    baseline = tmp_path / "baseline.json"
    baseline.write_text(out)
    status, _, err = cli(capsys, "--exact", "--baseline", baseline)
    assert status == 0 and "baseline ok: 9 exact figures" in err
    document = json.loads(out)
    document["bets"][2]["exact_rtp"] += 1e-6
    document["bets"][0]["sd"] -= 1e-3
    baseline.write_text(json.dumps(document))
    status, _, err = cli(capsys, "--exact", "--baseline", baseline)
    assert status == EXIT_CHECK_FAILED
    assert "baseline DRIFT tie.rtp" in err and "baseline DRIFT player.sd" in err and "2 of 9 figures" in err
    # A looser tolerance lets the RTP drift of 1e-6 pass but not the SD's 1e-3.
    status, _, err = cli(capsys, "--exact", "--baseline", baseline, "--tolerance", "1e-5")
    assert status == EXIT_CHECK_FAILED and "tie.rtp" not in err and "player.sd" in err
    # A Monte Carlo run is compared on its exact figures.
    document = json.loads(out)
    baseline.write_text(json.dumps(document))
    assert cli(capsys, "--rounds", "1e5", "--seed", "1", "--baseline", baseline, "--quiet")[0] == 0
    baseline.write_text("{not json")
    status, _, err = cli(capsys, "--exact", "--baseline", baseline, "--quiet")
    _one_line(status, err, "--baseline", "is not JSON")


# --------------------------------------------------------------------------- the command line once (issue 20)

COMMANDS = ["rtp", "hold", "leak", "findings", "compile", "audit"]


def _command(name):
    import importlib

    return importlib.import_module(f"baccarat_sim.cli.{name}").COMMAND


@pytest.mark.parametrize("name", COMMANDS)
def test_every_command_has_a_console_script_whose_usage_names_it(name, capsys):
    import tomllib
    from pathlib import Path

    scripts = tomllib.loads((Path(__file__).resolve().parents[1] / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts[f"baccarat-{name}"] == f"baccarat_sim.cli.{name}:script"
    command = _command(name)
    assert command.script == f"baccarat-{name}"
    assert command.main(["--help"], prog=command.script) == 0
    assert capsys.readouterr().out.startswith(f"usage: baccarat-{name} ")
    assert command.main(["--help"]) == 0  # python -m baccarat_sim.X keeps its own
    assert capsys.readouterr().out.startswith(f"usage: python -m baccarat_sim.{name} ")
    assert command.main(["--version"]) == 0 and capsys.readouterr().out.startswith("baccarat_sim ")
    assert command.main(["--no-such-option"], prog=command.script) == EXIT_USAGE
    assert capsys.readouterr().err.startswith(f"baccarat-{name}: error: ")


def test_every_command_reads_the_deck_limit_from_limits(monkeypatch):
    from baccarat_sim.cli import options

    monkeypatch.setattr(options, "MAX_DECKS", 20)  # the limit is read where the option is defined, once
    for name in ("rtp", "hold", "leak"):
        parser = _command(name).build_parser(name)
        needed = ["--slip", "banker=1"] if name == "hold" else []
        assert parser.parse_args([*needed, "--decks", "20"]).decks == 20, name
        with pytest.raises(SystemExit):
            parser.parse_args([*needed, "--decks", "21"])


def test_leak_bets_match_in_any_case(capsys):
    from baccarat_sim.cli.leak import main as leak_main

    assert leak_main(["--bets", "PLAYER,Banker", "--format", "json", "--quiet"]) == 0
    assert [bet["id"] for bet in json.loads(capsys.readouterr().out)["bets"]] == ["player", "banker"]
    assert leak_main(["--bets", "bankr", "--quiet"]) == EXIT_USAGE
    assert "--bets: no bet 'bankr' in rule set 'default'; did you mean 'banker'?" in capsys.readouterr().err
