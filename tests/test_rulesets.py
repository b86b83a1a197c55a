"""The shipped rule sets say what their rule sheets say (issue 3, deliverables 1-3 and 6)."""

import json
import re
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from baccarat_sim.analysis.settlement import settle
from baccarat_sim.cli.rtp import main
from baccarat_sim.engines.exact import exact_histogram
from baccarat_sim.model.rules import available_rules, load_rules, parse_rules
from baccarat_sim.tables import breakdown

REPO = Path(__file__).resolve().parents[1]
RULESETS = REPO / "baccarat_sim" / "rulesets"
README = RULESETS / "README.md"

SHEET_BETS = {
    "live-8deck-side-bets": ["player", "banker", "banker_no_commission", "tie", "player_pair", "banker_pair",
                             "any_pair", "perfect_pair", "player_natural", "banker_natural", "player_bonus",
                             "banker_bonus", "lucky_six", "lucky_six_2_cards", "lucky_six_3_cards"],
    "classic-6deck": ["player", "banker", "tie"],
    "rng-6deck-single-hand": ["player", "banker", "tie"],
    "live-8deck-dragon-tiger": ["player", "banker", "tie", "dragon", "tiger"],
    "online-commission-rounding": ["player", "banker", "tie"],
}
VARIANT_BETS = {
    "default": ["player", "banker", "tie"],
    "ez-baccarat": ["player", "banker", "tie", "dragon_7", "panda_8"],
    "common-variants": ["player", "banker", "tie", "tie_9_to_1", "any_pair", "perfect_pair", "perfect_pair_200",
                        "perfect_pair_250", "player_bonus", "banker_bonus", "lucky_six_12_23", "big", "small"],
}
ALL = {**SHEET_BETS, **VARIANT_BETS}


def nets(rules, bet_id):
    """Net result per line of a bet's pay table, commission applied, ``otherwise`` last."""
    bet = rules.bet(bet_id)
    return [case.net * (1 - rules.commission.rate) if case.commission else case.net
            for case in (*bet.cases, bet.otherwise)]


def test_every_shipped_rule_set_is_known_here():
    # The side-bet catalogue (catalogue-*.toml) is checked against its sources in test_catalogue.py.
    assert {name for name in available_rules() if not name.startswith("catalogue-")} == set(ALL)


def test_every_sheet_has_a_rule_set_named_after_it():
    folder = REPO.parent / "shared" / "rulesheets"
    if not folder.is_dir():
        pytest.skip(f"the rule sheets are not beside the repository ({folder}): nothing to compare")
    assert {p.stem for p in folder.glob("*.txt")} == set(SHEET_BETS)


@pytest.mark.parametrize("name", sorted(ALL))
def test_shipped_set_has_its_bets_and_source(name):
    rules = load_rules(name)
    assert rules.id == name
    assert list(rules.bet_ids) == ALL[name]
    if name in SHEET_BETS:
        assert rules.source.split()[0] == f"{name}.txt"  # the sheet by its file name
    main_bets = {bet.id for bet in rules.bets if bet.group == "main"}
    assert {"player", "banker", "tie"} <= main_bets


def test_live_side_bets_table_rules():
    rules = load_rules("live-8deck-side-bets")
    shoe = rules.shoe
    assert (shoe.decks, shoe.model, shoe.burn, shoe.ten_value, shoe.rounds_after_cut) == (8, "dealt", "face_value",
                                                                                           10, 0)
    # Burn: a turned ace burns 1 card, a nine 9, a ten or face card 10 (plus the turned card itself).
    assert list(shoe.burn_by_rank()) == [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10]
    max_round = {bet.id: bet.max_round for bet in rules.bets}
    assert max_round == {"player": None, "banker": None, "banker_no_commission": None, "tie": None,
                         "player_pair": 60, "banker_pair": 60, "any_pair": 50, "perfect_pair": 50,
                         "player_natural": 50, "banker_natural": 50, "player_bonus": None, "banker_bonus": None,
                         "lucky_six": 50, "lucky_six_2_cards": 50, "lucky_six_3_cards": 50}
    assert nets(rules, "banker") == [Fraction(19, 20), 0, -1]
    assert nets(rules, "banker_no_commission") == [Fraction(1, 2), 1, 0, -1]
    assert nets(rules, "tie") == [8, -1]
    assert nets(rules, "player_natural") == [Fraction(7, 2), -1]
    assert nets(rules, "player_bonus") == [30, 10, 6, 4, 2, 1, 1, 0, -1]
    assert nets(rules, "lucky_six") == [12, 20, -1]
    assert nets(rules, "lucky_six_2_cards") == [22, -1]
    assert nets(rules, "lucky_six_3_cards") == [50, -1]
    assert rules.limits.player_banker_limit == "difference"
    assert [(c.what, c.value) for c in rules.claims] == [("max_rtp", "98.94%")]


def test_classic_6deck_reads_payouts_for_one():
    rules = load_rules("classic-6deck")
    assert rules.notation == "for" and (rules.shoe.decks, rules.shoe.model) == (6, "fresh")
    assert [case.pays for case in rules.bet("player").cases] == ["2:1", "push"]
    assert nets(rules, "player") == [1, 0, -1]  # "2:1" for one is even money
    assert nets(rules, "banker") == [Fraction(19, 20), 0, -1]
    assert nets(rules, "tie") == [8, -1]  # "9:1" for one is 8 to 1


def test_rng_6deck_limits_and_stated_rtps():
    rules = load_rules("rng-6deck-single-hand")
    assert (rules.shoe.decks, rules.shoe.model) == (6, "fresh")
    limits = rules.limits
    assert dict(limits.max_bet) == {"player": 70, "banker": 70, "tie": 15}
    assert limits.equal_player_banker is False and limits.player_banker_min_difference == 1
    assert {bet.id: bet.stated_rtp for bet in rules.bets} == {"player": "98.76%", "banker": "98.94%",
                                                              "tie": "85.56%"}


def test_dragon_tiger_shoe_and_bets():
    rules = load_rules("live-8deck-dragon-tiger")
    cut = rules.shoe.cut_card
    assert (rules.shoe.decks, rules.shoe.model) == (8, "dealt")
    assert (cut.low, cut.high) == (round(0.45 * 416), round(0.55 * 416))
    # "approximately in half" stays half of the shoe when the deck count changes.
    six = rules.with_shoe(decks=6).shoe.cut_card
    assert (six.low, six.high) == (round(0.45 * 312), round(0.55 * 312))
    assert nets(rules, "dragon") == [1, Fraction(-1, 2), -1]
    assert rules.bet("dragon").cases[0].when == "first_card == player_high"
    assert rules.bet("tiger").cases[0].when == "first_card == banker_high"
    assert rules.limits.side_bets_need_main_bet is False
    assert any("Dragon" in line for line in [rules.description]) and rules.assumptions


def test_online_commission_rounding():
    rules = load_rules("online-commission-rounding")
    c = rules.commission
    assert (c.rate, c.rounding, c.unit) == (Fraction(1, 20), "up", Fraction(1, 4))
    assert c.amount(Fraction(1)) == Fraction(1, 4)  # 5 cents on a chip rounds up to a quarter
    assert c.amount(Fraction(5)) == Fraction(1, 4)
    assert c.amount(Fraction(6)) == Fraction(1, 2)
    assert rules.shoe.decks == 8 and any("8 decks" in a for a in rules.assumptions)
    assert nets(rules, "tie") == [8, -1] and any("8:1" in a for a in rules.assumptions)


def test_ez_baccarat_banker_pushes_on_three_card_seven():
    rules = load_rules("ez-baccarat")
    assert rules.commission.rate == 0
    assert nets(rules, "banker") == [1, 0, 0, -1]
    assert nets(rules, "dragon_7") == [40, -1] and nets(rules, "panda_8") == [25, -1]


def test_perfect_pair_variants_pay_once_or_more_when_both():
    rules = load_rules("common-variants")
    assert nets(rules, "perfect_pair") == [25, -1]
    assert nets(rules, "perfect_pair_200") == [200, 25, -1]
    assert nets(rules, "perfect_pair_250") == [250, 25, -1]
    assert nets(rules, "tie_9_to_1") == [9, -1]


@pytest.mark.parametrize("name", sorted(ALL))
def test_cli_exact_json_for_every_shipped_set(name, capsys):
    status = main(["--exact", "--rules", name, "--quiet", "--format", "json"])
    out, _ = capsys.readouterr()
    assert status == 0
    report = json.loads(out)
    assert report["run"]["rules"] == name
    assert [bet["id"] for bet in report["bets"]] == ALL[name]
    rules = load_rules(name)
    exact = {r.id: r for r in settle(exact_histogram(rules.shoe.decks), rules)}
    for bet in report["bets"]:
        for key in ("id", "rtp", "house_edge", "hit_frequency", "sd", "ci95", "exact_rtp", "stated_rtp", "z"):
            assert key in bet
        assert bet["exact_rtp"] == pytest.approx(exact[bet["id"]].rtp, abs=1e-15)
        stated = rules.bet(bet["id"]).stated_rtp
        assert bet["stated_rtp"] == (None if stated is None else pytest.approx(float(stated[:-1]) / 100))


def test_cli_exact_with_a_rule_file_path():
    # The real command line with --rules PATH (one subprocess: starting Python costs a second).
    path = RULESETS / "rng-6deck-single-hand.toml"
    done = subprocess.run([sys.executable, "-m", "baccarat_sim.rtp", "--exact", "--rules", str(path)],
                          capture_output=True, text=True, cwd=REPO, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "rng-6deck-single-hand" in done.stdout
    for line in ("stated 98.76%", "stated 98.94%", "stated 85.56%"):
        assert line in done.stdout


def _readme_blocks(language):
    return re.findall(rf"```{language}\n(.*?)```", README.read_text(), flags=re.S)


def test_readme_worked_example_is_real(tmp_path):
    # The side bet a designer prices in rulesets/README.md loads and gives the figures printed there.
    example = next(block for block in _readme_blocks("toml") if 'id = "three-card-nine"' in block)
    path = tmp_path / "three-card-nine.toml"
    path.write_text(example)
    rules = load_rules(path)
    table = breakdown(exact_histogram(8), "three_card_nine", rules).to_string(index=False)
    shown = next(block for block in _readme_blocks("python") if "breakdown(" in block)
    assert table.splitlines() == shown.strip().splitlines()[3:]
    result = settle(exact_histogram(8), rules)[0]
    assert f"{100 * result.rtp:.6f}" in README.read_text()
    assert f"{100 * result.house_edge:.6f}" in README.read_text()


def test_readme_format_block_is_a_valid_rule_set():
    # The annotated file in "The file format" is itself a valid rule file.
    block = next(block for block in _readme_blocks("toml") if 'id = "my-table"' in block)
    rules = parse_rules(block, "README.md")
    assert rules.shoe.cut_card.low == 14 and rules.commission.rounding == "up"
    assert rules.bet("lucky_six").max_round == 50 and rules.claims[0].what == "max_rtp"


def test_rule_files_are_hashed_and_distinct():
    hashes = {load_rules(name).sha256 for name in ALL}
    assert len(hashes) == len(ALL)
    assert all(re.fullmatch(r"[0-9a-f]{64}", h) for h in hashes)


def test_every_possible_outcome_is_settled_by_exactly_one_line():
    # Pay tables partition the outcome space (disjoint lines + otherwise): the breakdown
    # combinations add up to the histogram total for every bet of every shipped set.
    hist = exact_histogram(8)
    for name in ALL:
        rules = load_rules(name)
        for bet in rules.bets:
            table = breakdown(hist, bet, rules)
            assert table["combinations"].iloc[:-1].sum() == hist.total == table["combinations"].iloc[-1]
            assert np.isclose(table["return"].iloc[:-1].sum(), table["return"].iloc[-1])


def test_report_prints_assumptions_and_commission_rounding(capsys):
    assert main(["--exact", "--rules", "online-commission-rounding", "--quiet"]) == 0
    out, _ = capsys.readouterr()
    assert "assumed where the rule sheet is silent:" in out and "8 decks are assumed" in out
    out = " ".join(out.split())
    assert "banker: the commission (5%) is rounded up to 0.25 of the lowest chip (1)" in out
    # A 1-chip win pays 0.75: 1 - 0.25 x P(Banker win) off the nominal RTP.
    assert "at the minimum stake of 1 it is 89.7701%" in out
    assert main(["--exact", "--rules", "online-commission-rounding", "--quiet", "--format",
                 "json"]) == 0
    run = json.loads(capsys.readouterr()[0])["run"]
    assert run["assumptions"] == list(load_rules("online-commission-rounding").assumptions)
    assert len(run["notes"]) == 1


def test_main_readme_shows_the_real_exact_figures():
    # The findings page (docs/findings.md) shows the output of --exact --rules live-8deck-side-bets; its RTP column
    # must be the exact one.
    text = (REPO / "docs" / "findings.md").read_text()
    block = text[text.index("$ python -m baccarat_sim.rtp --exact --rules live-8deck-side-bets\n"):]
    block = block[:block.index("```")]
    rules = load_rules("live-8deck-side-bets")
    for result in settle(exact_histogram(8), rules):
        line = next(line for line in block.splitlines() if line.startswith(result.name + "  "))
        assert f"{100 * result.rtp:.6f}" in line.split(), line
