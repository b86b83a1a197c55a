"""What a new user hit on a fresh clone (issue 24, section 4): each message names the right option and says enough."""

from __future__ import annotations

import json

import pytest

from baccarat_sim import exact_histogram, load_rules, settle
from baccarat_sim.cli.findings import main as findings_main
from baccarat_sim.cli.rtp import main as rtp_main
from baccarat_sim.errors import InputError
from baccarat_sim.model.rules import Claim

from .cli_helpers import cli

SIX_CARDS_LEFT = ("A,A,A,A,2,2,2,2,3,3,3,3,4,4,4,4,5,5,5,5,6,6,6,6,7,7,7,7,8,8,8,8,9,9,9,9,10,10,10,10,"
                  "J,J,J,J,Q,Q")


def _error(capsys, main, *args) -> str:
    assert main([str(a) for a in args]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    return err[0]


def test_findings_rules_without_names_is_refused_in_one_line(capsys):
    assert "--rules" in _error(capsys, findings_main, "--rules")


def test_an_empty_rules_name_says_so(capsys):
    line = _error(capsys, rtp_main, "--exact", "--rules", "")
    assert "--rules: an empty name" in line and "'.'" not in line and "default" in line


def test_an_empty_bets_list_is_refused(capsys):
    assert "--bets: give bet ids" in _error(capsys, rtp_main, "--exact", "--bets", "")


def test_cut_cards_of_the_command_line_are_blamed_on_cut_cards(capsys):
    line = _error(capsys, rtp_main, "--rules", "live-8deck-side-bets", "--count", "lucky6-derived",
                  "--cut-cards", "500", "--shoes", "10", "--quiet")
    assert line.startswith("python -m baccarat_sim.rtp: error: --cut-cards: [500, 500]") and ".toml" not in line


def test_perfect_play_of_a_card_level_bet_too_long_says_why(capsys, tmp_path):
    strategy = tmp_path / "contrast.toml"
    strategy.write_text("schema_version = 1\nid = 'x'\n[[bets]]\nid = 'contrast_bonus_35_15_5'\nplay = 'perfect'")
    line = _error(capsys, rtp_main, "--rules", "catalogue-colour-and-suits", "--count", strategy,
                  "--shoes", "1e6", "--quiet")
    assert "bets.contrast_bonus_35_15_5: pricing the card-level bet exactly every round" in line
    assert "limit of 600 s" in line and "shoes fit (--shoes)" in line


def test_the_card_eor_removes_is_blamed_on_eor(capsys):
    line = _error(capsys, rtp_main, "--exact", "--eor", "--decks", "1", "--remove", SIX_CARDS_LEFT, "--bets", "tie")
    assert "--eor: removes one more card from the 6-card shoe" in line


def test_a_histogram_without_card_detail_names_the_fix():
    rules = load_rules("catalogue-colour-and-suits").with_bets(["colour_match"])
    with pytest.raises(InputError, match=r"exact_histogram\(rules\)"):
        settle(exact_histogram(8), rules)


def test_stated_rtp_is_the_decimal_written():
    assert Claim("bet", "89.06%", "x").fraction == 0.8906
    assert Claim("bet", "98.94%", "x").fraction == 0.9894


def test_markdown_heading_keeps_rtp_in_capitals(capsys):
    status, out, _ = cli(capsys, "--exact", "--rules", "rng-6deck-single-hand", "--format", "markdown")
    assert status == 0 and "### Stated RTP checks" in out and "Stated rtp" not in out


def test_exact_check_speaks_of_exact_figures_only(capsys):
    status, _, err = cli(capsys, "--exact", "--rules", "rng-6deck-single-hand", "--check")
    assert status == 0 and "check passed: every stated RTP holds" in err and "Monte Carlo" not in err


def test_counting_table_gives_the_unit_of_its_advantages(capsys):
    status, out, _ = cli(capsys, "--rules", "live-8deck-side-bets", "--count", "lucky6-derived", "--shoes", "200",
                         "--seed", "1", "--quiet")
    assert status == 0 and "adv/bet %" in out and "exact adv/bet %" in out


def test_narrow_terminals_break_no_bet_name_mid_word(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "60")
    status, out, _ = cli(capsys, "--exact", "--rules", "live-8deck-side-bets")
    assert status == 0
    words = {w for bet in load_rules("live-8deck-side-bets").bets for w in bet.name.split()}
    table = out[out.index("\nbet "):out.index("stated RTP checks")]
    first_column = [line[:17].split() for line in table.splitlines()[2:]]
    assert all(word in words for line in first_column for word in line[:1] if not word[0].isdigit()), first_column


def test_extending_a_run_says_the_rounds_dealt_are_kept(capsys, tmp_path):
    assert rtp_main(["--rounds", "1e5", "--seed", "3", "--out", str(tmp_path), "--no-files", "--quiet"]) == 0
    capsys.readouterr()
    status, _, err = cli(capsys, "--resume", "--rounds", "2e5", "--seed", "3", "--out", str(tmp_path), "--no-files")
    assert status == 0 and "rounds already dealt are kept" in err and "dealt kept)" not in err


def test_json_stated_rtp_has_no_float_noise(capsys):
    status, out, _ = cli(capsys, "--exact", "--rules", "rng-6deck-single-hand", "--format", "json")
    assert status == 0
    assert [bet["stated_rtp"] for bet in json.loads(out)["bets"]] == [0.9876, 0.9894, 0.8556]
