"""Issue 41: corrections of the command lines (items 15, 16 and 24)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from baccarat_sim.cli.common import EXIT_INTERRUPTED

from .cli_helpers import cli


def _families(pid: int) -> list[int]:
    """The family processes ``compile --only NAME`` whose parent is ``pid`` (Linux: read from /proc)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            parent = int(stat.read_text().rsplit(")", 1)[1].split()[1])
            command = (stat.parent / "cmdline").read_bytes().split(b"\0")
        except (OSError, IndexError, ValueError):
            continue
        if parent == pid and b"--only" in command:
            found.append(int(stat.parent.name))
    return found


@pytest.mark.skipif(not Path("/proc/self/stat").is_file(), reason="reads the process table from /proc")
def test_issue41_item24_ctrl_c_stops_compile_jobs_children_at_once(tmp_path):
    # An empty cache of its own: each family's process has a long compilation ahead of it.
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    parent = subprocess.Popen([sys.executable, "-m", "baccarat_sim.compile", "--jobs", "2", "--force"], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while len(_families(parent.pid)) < 2 and time.monotonic() < deadline and parent.poll() is None:
        time.sleep(0.1)
    children = _families(parent.pid)
    if len(children) != 2:
        parent.kill()
        pytest.fail(f"expected two family processes, found {children}: {parent.communicate()}")
    time.sleep(2)  # inside their compilations
    parent.send_signal(signal.SIGINT)  # to the command only, as `kill -INT` does (Ctrl-C reaches every process)
    started = time.monotonic()
    try:
        _, err = parent.communicate(timeout=30)
    finally:  # nothing left running after the test, whatever happens
        for pid in set(children) & set(_families(parent.pid)):
            os.kill(pid, signal.SIGKILL)
        if parent.poll() is None:
            parent.kill()
            parent.wait()
    took = time.monotonic() - started
    assert parent.returncode == EXIT_INTERRUPTED, err
    assert took < 10, f"the command took {took:.1f} s to stop"
    assert not [pid for pid in children if Path(f"/proc/{pid}").exists()]  # stopped and reaped


def test_issue41_item24_sweep_stopped_after_its_last_position_says_how_to_resume(tmp_path, capsys, monkeypatch):
    from baccarat_sim.report import files

    write = files.write_sweep_files

    def signalled(*args, **kwargs):  # Ctrl-C once every position is dealt, as the sweep's files are written
        os.kill(os.getpid(), signal.SIGINT)
        return write(*args, **kwargs)

    monkeypatch.setattr(files, "write_sweep_files", signalled)
    options = ["--rules", "live-8deck-side-bets", "--bets", "banker", "--sweep", "cut=14,0.5", "--rounds", "2e4",
               "--seed", "1", "--out", tmp_path, "--no-plots", "--format", "json", "--quiet"]
    status, _, err = cli(capsys, *options)
    assert status == EXIT_INTERRUPTED
    (line,) = err.splitlines()
    assert line.startswith("stopped by Ctrl-C (SIGINT) after 2 of 2 cut-card positions")
    assert line.endswith(f"continue with --sweep cut=14,0.5 --resume --seed 1 --rules live-8deck-side-bets "
                         f"--bets banker --out {tmp_path}")
    monkeypatch.setattr(files, "write_sweep_files", write)
    status, out, err = cli(capsys, *options, "--resume")  # the hint works: both positions read back
    assert status == 0, err
    assert len(json.loads(out)["cuts"]) == 2


def test_issue41_item24_meter_names_bets_in_any_case_as_bets_does(capsys):
    plain = cli(capsys, "--rules", "catalogue-poker", "--exact", "--bets", "dragon_dragon_1", "--meter",
                "dragon_dragon_1=10", "--format", "json", "--quiet")
    shouted = cli(capsys, "--rules", "catalogue-poker", "--exact", "--bets", "DRAGON_DRAGON_1", "--meter",
                  "Dragon_Dragon_1=10", "--format", "json", "--quiet")
    assert plain[0] == shouted[0] == 0 and shouted[2] == ""
    assert json.loads(shouted[1])["bets"] == json.loads(plain[1])["bets"]


@pytest.mark.parametrize("given", [["dragon_dragon_1=5,dragon_dragon_1=6"], ["dragon_dragon_1=5", "DRAGON_DRAGON_1=5"]])
def test_issue41_item24_meter_given_twice_is_refused_in_one_line(capsys, given):
    options = [option for text in given for option in ("--meter", text)]
    status, out, err = cli(capsys, "--rules", "catalogue-poker", "--exact", "--bets", "dragon_dragon_1", *options)
    assert status == 2 and out == "" and err.count("\n") == 1
    assert "--meter: bet 'dragon_dragon_1' is given twice" in err


def test_issue41_item15_a_pay_table_returning_more_than_staked_is_flagged(tmp_path, capsys):
    from .cli_helpers import rules_text

    rules = tmp_path / "draft.toml"
    rules.write_text(rules_text("draft", tie_pays="18:1"))  # a typo for 8:1: 19 x 9.516% = 180.80%
    status, out, err = cli(capsys, "--rules", rules, "--exact", "--format", "json", "--quiet")
    assert status == 0
    flags = {bet["id"]: bet["pays_more_than_staked"] for bet in json.loads(out)["bets"]}
    assert flags == {"player": False, "banker": False, "tie": True}
    (line,) = err.splitlines()
    assert line.startswith("warning: a bet returns more than is staked (exact RTP above 100%): tie 180.7963%")
    assert "typo" in line and "jackpot" not in line
    status, out, err = cli(capsys, "--exact", "--format", "json", "--quiet")  # the house's pays: nothing to say
    assert status == 0 and err == "" and not any(bet["pays_more_than_staked"] for bet in json.loads(out)["bets"])


KING_BET = '''schema_version = 1
id = "king"
name = "A bet on a King"
source = "tests/test_issue41_cli.py"

[shoe]
decks = 1
shuffle = "fresh"

[[bets]]
id = "tie"
name = "Tie"
pays = [{ when = "winner == tie", pays = "8:1" }]
otherwise = "lose"

[[bets]]
id = "first_king"
name = "Player's first card a King"
pays = [{ when = "P1.rank == K", pays = "11:1" }]
otherwise = "lose"
'''


@pytest.mark.parametrize("fmt", ["table", "markdown"])
def test_issue41_item16_eor_text_shows_by_rank_the_bets_that_tell_tens_apart(tmp_path, capsys, fmt):
    rules = tmp_path / "king.toml"
    rules.write_text(KING_BET)
    status, out, _ = cli(capsys, "--rules", rules, "--exact", "--eor", "--quiet", "--format", fmt)
    assert status == 0
    status, json_out, _ = cli(capsys, "--rules", rules, "--exact", "--eor", "--quiet", "--format", "json")
    by_rank = {bet["id"]: bet["eor_by_rank"] for bet in json.loads(json_out)["bets"]}
    assert by_rank["first_king"]["K"] != by_rank["first_king"]["Q"]  # the bet tells a King from a Queen
    assert len({by_rank["tie"][rank] for rank in ("10", "J", "Q", "K")}) == 1  # the tie does not
    cells = [line.replace("|", " ").split() for line in out.splitlines()]
    king = next(row for row in cells if row and row[0] == "first_king" and len(row) > 2)
    assert len(king) == 14 and king[-1] == f"{by_rank['first_king']['K']:+.6f}"  # A..K, the King's own figure
    header = next(row for row in cells if row[:2] == ["bet", "A"] and "K" in row)
    assert header[-4:] == ["10", "J", "Q", "K"]
    tie = next(row for row in cells if row and row[0] == "tie" and len(row) > 2)
    assert len(tie) == 11  # by point value, A..9 and T


@pytest.mark.parametrize(("written", "meant"), [("royal_flush", "royal"), ("full_house_bonus", "full_house"),
                                                ("four_of_kind", "four_of_a_kind"), ("straigt", "straight")])
def test_issue41_item16_poker_category_did_you_mean(written, meant):
    from baccarat_sim.errors import InputError
    from baccarat_sim.model.rules import parse_rules

    text = KING_BET.replace('"P1.rank == K"', f'"poker(all) == {written}"')
    with pytest.raises(InputError, match=f"no poker category '{written}'.*did you mean '{meant}'\\?"):
        parse_rules(text)


def test_issue41_item16_a_stopped_exact_run_mentions_no_checkpoint(capsys, monkeypatch):
    from baccarat_sim.engines import exact

    computed = exact.exact_histogram

    def signalled(*args, **kwargs):  # Ctrl-C while the exact figures are computed
        os.kill(os.getpid(), signal.SIGINT)
        return computed(*args, **kwargs)

    monkeypatch.setattr(exact, "exact_histogram", signalled)
    status, out, err = cli(capsys, "--exact")
    assert status == EXIT_INTERRUPTED and out == ""
    assert err.strip() == ("python -m baccarat_sim.rtp: interrupted; nothing was written (exact figures and a settled "
                           "histogram keep no checkpoint)")
    assert "checkpoint written" not in err


def test_issue41_item16_a_counting_runs_time_includes_deriving_its_count(capsys, monkeypatch):
    from baccarat_sim.analysis import counting

    counting._derived_tags.cache_clear()
    derived = []
    real = counting.effect_of_removal

    def spied(*args, **kwargs):
        started = time.perf_counter()
        found = real(*args, **kwargs)
        derived.append(time.perf_counter() - started)
        return found

    monkeypatch.setattr(counting, "effect_of_removal", spied)
    status, out, _ = cli(capsys, "--rules", "live-8deck-side-bets", "--count", "lucky6-derived", "--shoes", "100",
                         "--seed", "1", "--format", "json", "--quiet")
    assert status == 0
    run = json.loads(out)["run"]
    assert len(derived) == 1  # derived once, not again for the study after its first shoe
    assert run["prepare_seconds"] >= derived[0]
    assert run["total_seconds"] >= run["seconds"] + run["prepare_seconds"]
    counting._derived_tags.cache_clear()
    status, out, _ = cli(capsys, "--rules", "live-8deck-side-bets", "--count", "lucky6-derived", "--shoes", "100",
                         "--seed", "1", "--quiet")
    (line,) = [line for line in out.splitlines() if line.startswith("time ")]
    assert " s in all, " in line and "preparing the strategy (deriving its counts" in line


def _hold(capsys, *args):
    from baccarat_sim.cli.hold import main

    status = main([str(a) for a in args])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_issue41_item16_hold_says_when_the_observed_handle_is_not_the_slips(capsys):
    base = ("--slip", "banker=100", "--rounds", "1000", "--observed-win", "-3e6", "--rounds-played", "150000")
    status, out, err = _hold(capsys, *base, "--observed-handle", "10e6", "--format", "json")
    assert status == 1  # outside the range
    observed = json.loads(out)["observed"]
    assert observed["handle_rescaled"] is True and observed["slip_handle"] == 15e6 and observed["handle"] == 10e6
    assert observed["model_win"] == -4.5e6  # the hold, -30%, on the slip's handle
    note = ("note: the observed handle 10,000,000 is not 150,000 rounds of the slip (15,000,000): its hold is "
            "compared as if the slip had been staked every round, a house result of -4,500,000")
    assert note in err.splitlines()
    status, out, err = _hold(capsys, *base, "--observed-handle", "10e6")
    assert "the observed handle 10,000,000 is not 150,000 rounds of the slip" in out
    status, out, err = _hold(capsys, *base, "--observed-handle", "15e6", "--format", "json")
    assert json.loads(out)["observed"]["handle_rescaled"] is False and "observed handle" not in err


def test_issue41_item16_hold_summary_on_stderr_states_the_p_value_as_stdout_does(capsys):
    status, out, err = _hold(capsys, "--slip", "banker=100", "--rounds", "1000", "--observed-win", "-3e6",
                             "--observed-handle", "15e6", "--rounds-played", "150000")
    assert status == 1
    stated = out.split("two-sided p-value ", 1)[1].split()[:2]
    assert stated[0] == "<="  # far below the error bound: the bound, not a 0 that is not proven
    (line,) = [line for line in err.splitlines() if "lies outside" in line]
    assert f"two-sided p-value {' '.join(stated)})" in line


def _rank_lines(positions: str, start: int = 1) -> str:
    """Pay-table lines ``POS.rank == R`` paying 1:1, one per rank of each position (13 card-level conditions each)."""
    return ",\n".join(f'  {{ when = "{position}.rank == {rank}", pays = "1:1" }}'
                      for position in positions.split() for rank in range(start, 14))


@pytest.mark.parametrize(("bets", "named"), [
    ([("ranks", "P1 P2 B1 B2")], "bets.ranks:"),
    # Two bets sharing a condition count in one group: both are named.
    ([("first", "P1 P2"), ("second", "P2 B1 B2")], "bets.first, bets.second:"),
])
def test_issue41_item24_a_card_detail_limit_names_the_bet(tmp_path, capsys, bets, named):
    from .cli_helpers import rules_text

    extra = "".join(f'\n[[bets]]\nid = "{bet_id}"\nname = "{bet_id}"\npays = [\n{_rank_lines(positions)}\n]\n'
                    'otherwise = { pays = "lose" }\n' for bet_id, positions in bets)
    rules = tmp_path / "big.toml"
    rules.write_text(rules_text("big", extra=extra))
    status, out, err = cli(capsys, "--rules", rules, "--exact")
    assert status == 2 and out == "" and err.count("\n") == 1
    assert f"{rules}: {named} their card-level conditions can hold in" in err and "a group carries" in err


def test_issue41_item24_a_slip_beyond_a_card_detail_limit_names_its_bet(tmp_path):
    from baccarat_sim.engines.detail import joint_detail
    from baccarat_sim.errors import InvalidRules
    from baccarat_sim.model.rules import load_rules

    from .cli_helpers import rules_text

    rules = tmp_path / "big.toml"
    rules.write_text(rules_text("big", extra=f'\n[[bets]]\nid = "ranks"\nname = "ranks"\npays = [\n'
                                             f'{_rank_lines("P1 P2 B1")}\n]\notherwise = {{ pays = "lose" }}\n'))
    # Alone the bet fits; with every outcome code (a slip's joint group) it does not: one bet, named as bets.ID.
    with pytest.raises(InvalidRules, match=r"big\.toml: bets\.ranks: their card-level conditions"):
        joint_detail(load_rules(rules), ["banker", "ranks"])
