"""What leaked card information is worth (issue 15): published figures, brute force, exposed cards, the CLI.

Published figures, 8 decks, Banker paid 0.95 to 1, Tie 8 to 1 (Player and Banker push on a tie), a full shoe,
the player free to bet Player, Banker or Tie or to sit out:

* Eliot Jacobson, 888casino blog, "Edge Sorting in Baccarat" (2012-08-18,
  https://www.888casino.com/blog/baccarat-tips/edge-sorting-in-baccarat): one sorted first card with High =
  {6, 7, 8, 9}, "an edge of 6.765%"; the first four cards, "the average edge for an advantage player is 20.928%",
  HL against LL "occurring 20.502% of the time with a 36.332% advantage", LL against LL (no profitable wager)
  "22.824% of the time", the Tie the only profitable move "19.075% of the time".
* Eliot Jacobson, 888casino blog, "Edge Sorting in Baccarat, Update #1"
  (https://www.888casino.com/blog/baccarat-tips/edge-sorting-in-baccarat-update-1): the best of Fred Roach's "1023
  different sorts" of the first four cards gives "30.291%".
* Eliot Jacobson, "Baccarat: The Known Card" (https://apheat.net/2012/08/13/baccarat-the-known-card/): one card known
  exactly, "card 1 or 3 (Player first card): 6.765% / card 2 or 4 (Banker first card): 6.406% / card 5: 8.973% /
  card 6: 9.098%".
* excelpunks.com, "Concepts 14: Baccarat 1st Card Advantage"
  (https://excelpunks.com/2018/05/17/concepts-14-1st-card-advantage/): the first card known, card 1 "Player Exp
  -0.0783 Banker Exp 0.0536", card 9 "Player Exp 0.2153 Banker Exp -0.2325".
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import re
import subprocess
import sys
from collections import Counter
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from matplotlib.figure import Figure

from baccarat_sim.analysis.leak import (
    SIT_OUT,
    each,
    exposed_card,
    high_low,
    leak_value,
    optimal_sort,
    parse_groups,
)
from baccarat_sim.analysis.settlement import settle
from baccarat_sim.cli.leak import main
from baccarat_sim.engines.exact import exact_histogram
from baccarat_sim.errors import InputError
from baccarat_sim.model.codes import N_CODES
from baccarat_sim.model.rules import Bet, load_rules
from baccarat_sim.model.shoe import remove_cards
from baccarat_sim.report.leak import leak_dict, leak_markdown, leak_text, plot_leak_edges

from .reference_dealer import card_point, deal_round

FIRST_FOUR = ("P1", "B1", "P2", "B2")


def pct(value, digits=3) -> float:
    """A fraction as a percentage rounded to the digits a source prints."""
    return round(100 * float(value), digits)


@pytest.fixture(scope="module")
def default():
    return load_rules("default")


@pytest.fixture(scope="module")
def four_cards(default):
    return leak_value(default, FIRST_FOUR, high_low([6, 7, 8, 9]))


# --------------------------------------------------------------------------- published figures


def test_jacobson_one_sorted_card(default):
    result = leak_value(default, ["P1"], high_low([6, 7, 8, 9]))
    assert pct(result.player_edge) == 6.765
    # "the AP wagers on Banker if the top card belongs to the Low group and Player if [...] the High group"
    assert [(row.label, row.best_action) for row in result.rows] == [("L", "banker"), ("H", "player")]


def test_jacobson_four_sorted_cards(four_cards):
    assert pct(four_cards.player_edge) == 20.928
    hl_ll = [four_cards.row(label) for label in ("HLLL", "LLHL")]  # Player HL, Banker LL (and its mirror)
    assert pct(sum(row.probability for row in hl_ll)) == 20.502
    assert {row.best_action for row in hl_ll} == {"player"} and {pct(row.edge) for row in hl_ll} == {36.332}
    nothing = four_cards.row("LLLL")
    assert pct(nothing.probability) == 22.824 and nothing.best_action == SIT_OUT and nothing.edge == 0
    assert all(ev < 0 for ev in nothing.ev)
    assert [row.label for row in four_cards.rows if row.best_action == SIT_OUT] == ["LLLL"]
    tie_only = [row for row in four_cards.rows
                if row.best_action == "tie" and all(ev <= 0 for bet, ev in zip(four_cards.bet_ids, row.ev)
                                                    if bet != "tie")]
    assert pct(sum(row.probability for row in tie_only)) == 19.075
    assert pct(four_cards.action_frequency["tie"]) == 19.075


def test_four_card_patterns_match_the_reproduced_table(four_cards):
    # The per-pattern table of /work/notes/catalogue.md 3.1 (an independent exact reproduction), EV per unit.
    expected = {
        "LLLL": (0.22824, -0.02293, -0.00021, -0.12588), "LLLH": (0.10251, -0.38039, 0.34782, -0.30097),
        "LLHL": (0.10251, 0.36332, -0.37738, -0.32990), "LLHH": (0.04552, -0.00196, -0.01992, 0.13992),
        "LHLH": (0.04552, -0.17497, 0.14822, -0.05523), "HLHL": (0.04552, 0.12788, -0.14684, 0.02186),
        "LHHH": (0.01998, 0.28319, -0.29886, -0.18815), "HLHH": (0.01998, -0.30774, 0.27748, -0.12493),
        "HHHH": (0.00867, -0.01561, -0.00603, 0.34942),
    }
    for label, (probability, *evs) in expected.items():
        row = four_cards.row(label)
        assert round(float(row.probability), 5) == probability
        assert [round(float(ev), 5) for ev in row.ev] == evs


def test_optimal_four_card_sort(default):
    found = optimal_sort(default, FIRST_FOUR, top=3)
    assert found.searched == 1023
    best = found.candidates[0]
    assert pct(best.player_edge) == 30.291  # Update #1
    assert best.grouping.groups == ((0, 1, 2, 3), (4, 5, 6, 7, 8, 9))
    assert [pct(c.player_edge) for c in found.candidates[1:]] == [29.475, 25.943]
    assert found.best.player_edge == best.player_edge and found.best.grouping == best.grouping


def test_known_card_by_position(default):
    # One card known exactly, the player free to sit out (with sitting out, positions 2, 4, 5 and 6 reproduce
    # EJ's digits; always betting gives 6.389%, 8.888% and 9.061% there).
    published = {"P1": 6.765, "P2": 6.765, "B1": 6.406, "B2": 6.406, "C5": 8.973, "C6": 9.098}
    for position, edge in published.items():
        assert pct(leak_value(default, [position], each("value")).player_edge) == edge, position
    b1 = leak_value(default, ["B1"], each("value"))
    assert b1.row("5").best_action == SIT_OUT  # Banker first card 5: every bet loses
    always_bet = sum(row.probability * max(row.ev) for row in b1.rows)
    assert pct(always_bet) == 6.389


def test_first_card_value_table_excelpunks(default):
    flashed = exposed_card(default, "P1", by="value")
    ev = {row.label: dict(zip(flashed.bet_ids, row.ev)) for row in flashed.rows}
    assert round(float(ev["1"]["player"]), 4) == -0.0783 and round(float(ev["1"]["banker"]), 4) == 0.0536
    assert round(float(ev["9"]["player"]), 4) == 0.2153 and round(float(ev["9"]["banker"]), 4) == -0.2325
    assert [flashed.row(v).best_action for v in "0123456789"] == ["banker"] * 6 + ["player"] * 4


def test_exact_card_knowledge_on_a_full_shoe_equals_point_value_knowledge(default):
    by_card = exposed_card(default, "P1")
    assert len(by_card.rows) == 52 and by_card.player_edge == exposed_card(default, "P1", by="value").player_edge


def test_no_information_means_sitting_out(default):
    for rules in (default, load_rules("live-8deck-side-bets")):
        blind = leak_value(rules, [])
        assert blind.player_edge == 0
        assert [(row.label, row.best_action, row.edge, row.probability) for row in blind.rows] == [
            ("", SIT_OUT, 0, 1)]
        assert blind.action_frequency[SIT_OUT] == 1
        exact = {r.id: r.ev_exact for r in settle(exact_histogram(rules.shoe.decks), rules)}
        assert blind.ev_without_information == exact


def test_conditional_evs_average_to_the_blind_ev(four_cards, default):
    exact = {r.id: r.ev_exact for r in settle(exact_histogram(8), default)}
    assert four_cards.ev_without_information == exact
    for b, bet_id in enumerate(four_cards.bet_ids):
        assert sum(row.probability * row.ev[b] for row in four_cards.rows) == exact[bet_id]
    assert sum(four_cards.action_frequency.values()) == 1


# --------------------------------------------------------------------------- brute force


def _shoe(cards: dict[str, int]) -> np.ndarray:
    """A (13, 4) composition from cards such as {"As": 2, "10s": 1}."""
    ranks = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
    shoe = np.zeros((13, 4), np.int64)
    for name, count in cards.items():
        shoe[ranks.index(name[:-1]), "shdc".index(name[-1])] += count
    return shoe


#: Ten cards: suited and unsuited Aces (pairs, suited pairs, first-card ties), two ten-value ranks, naturals.
SHOE_A = _shoe({"As": 2, "Ah": 1, "3h": 1, "5d": 1, "6s": 1, "8c": 1, "9h": 1, "Ks": 1, "10s": 1})
#: Uneven suits and ranks: Kings of two suits, twin Twos, one card of the other values.
SHOE_B = _shoe({"Kh": 2, "Kd": 1, "Qs": 1, "2c": 2, "7h": 1, "4s": 1, "9d": 1, "6c": 1})
POSITION_INDEX = {"P1": 0, "B1": 1, "P2": 2, "B2": 3, "C5": 4, "C6": 5}


def _cards_of(shoe: np.ndarray) -> list[int]:
    return [card for card in range(52) for _ in range(int(shoe.reshape(-1)[card]))]


@pytest.fixture(scope="module")
def orderings():
    """Every ordering of six card instances of each shoe, dealt by the reference dealer: (card ids, code)."""
    dealt = {}
    for name, shoe in (("A", SHOE_A), ("B", SHOE_B)):
        cards = _cards_of(shoe)
        codes = {}
        rows = []
        for order in itertools.permutations(range(len(cards)), 6):
            ids = tuple(cards[i] for i in order)
            if ids not in codes:
                codes[ids] = deal_round(ids).code
            rows.append((ids, codes[ids]))
        dealt[name] = rows
    return dealt


def _seen(positions, class_of):
    """The pattern an ordering of card ids shows: the class of the card at each position."""
    return lambda ids: tuple(class_of(ids[POSITION_INDEX[p]]) for p in positions)


def _brute_force(rows, rules, pattern_of):
    """Per pattern: weight and exact EV of every bet, counted over every ordering."""
    nets = [bet.net_results(rules.commission.rate) for bet in rules.bets]
    counts: dict[tuple, Counter] = {}
    for ids, code in rows:
        pattern = pattern_of(ids)
        counts.setdefault(pattern, Counter())[code] += 1
    table = {}
    for pattern, by_code in counts.items():
        weight = sum(by_code.values())
        evs = tuple(sum(net[code] * n for code, n in by_code.items()) / weight for net in nets)
        table[pattern] = (weight, evs)
    return table


def _check_against(result, brute, total):
    assert result.total == total
    assert {row.classes: row.weight for row in result.rows} == {p: w for p, (w, _) in brute.items()}
    edge = Fraction(0)
    for row in result.rows:
        weight, evs = brute[row.classes]
        assert row.ev == evs
        assert row.probability == Fraction(weight, total)
        best = max(evs)
        assert row.edge == max(best, 0)
        assert row.best_action == (SIT_OUT if best <= 0 else result.bet_ids[evs.index(best)])
        edge += Fraction(weight, total) * max(best, 0)
    assert result.player_edge == edge


SIDE_BETS = load_rules("live-8deck-side-bets")  # pairs, suited (perfect) pairs, naturals, Lucky Six
HIGH = {6, 7, 8, 9}


@pytest.mark.parametrize("shoe_name", ["A", "B"])
def test_brute_force_four_sorted_cards(orderings, shoe_name):
    shoe = SHOE_A if shoe_name == "A" else SHOE_B
    brute = _brute_force(orderings[shoe_name], SIDE_BETS,
                         _seen(FIRST_FOUR, lambda card: int(card_point(card) in HIGH)))
    result = leak_value(SIDE_BETS, FIRST_FOUR, high_low(HIGH), shoe)
    _check_against(result, brute, len(orderings[shoe_name]))


def test_brute_force_exact_cards_rank_groups_and_third_cards(orderings):
    rows = orderings["B"]
    # Exact cards (suits matter: Kh twice, Kd once) at the Player's first card and the Banker's second.
    brute = _brute_force(rows, SIDE_BETS, _seen(["P1", "B2"], lambda card: card))
    result = leak_value(SIDE_BETS, ["P1", "B2"], each("card"), SHOE_B)
    assert len(result.rows) == len(brute)
    _check_against(dataclasses.replace(result, rows=tuple(
        dataclasses.replace(row, classes=tuple(result.grouping.groups[c][0] for c in row.classes))
        for row in result.rows)), brute, len(rows))
    # A partition of the ranks (K apart from Q: ten-value cards told apart), at the Player's two cards.
    groups = parse_groups("A234|56789|10J|QK")
    rank_group = {rank: g for g, members in enumerate(groups.groups) for rank in members}
    brute = _brute_force(rows, SIDE_BETS, _seen(["P1", "P2"], lambda card: rank_group[card // 4]))
    _check_against(leak_value(SIDE_BETS, ["P1", "P2"], groups, SHOE_B), brute, len(rows))
    # The fifth and sixth cards by point value, with the Banker's first card.
    brute = _brute_force(orderings["A"], SIDE_BETS, _seen(["C5", "B1", "C6"], card_point))
    _check_against(leak_value(SIDE_BETS, ["C5", "B1", "C6"], each("value"), SHOE_A), brute, len(orderings["A"]))


def test_brute_force_burn_card():
    # A shown burn card, sorted into High and Low like the Player's first card: the shoe's first card is burned
    # and the round is dealt from the next six.
    shoe = _shoe({"As": 2, "3h": 1, "5d": 1, "6s": 1, "8c": 1, "9h": 1, "Ks": 1, "Qh": 1})
    cards = _cards_of(shoe)
    rows = []
    for order in itertools.permutations(range(len(cards)), 7):
        ids = tuple(cards[i] for i in order)
        rows.append((ids, deal_round(ids[1:]).code))
    # The pattern: the P1 group (the second card of the shoe), then the burn group (the first).
    brute = _brute_force(rows, SIDE_BETS, lambda ids: tuple(int(card_point(ids[i]) in HIGH) for i in (1, 0)))
    result = leak_value(SIDE_BETS, ["P1", "burn"], high_low(HIGH), shoe)
    _check_against(result, brute, len(rows))


def test_burn_card_is_the_round_from_the_shoe_without_it():
    shoe = remove_cards(1, "9,9,8,K")
    rules = SIDE_BETS.with_bets(["player", "banker", "tie", "player_pair", "lucky_six"])
    burn = leak_value(rules, ["burn"], each("card"), shoe)
    exact_sum = Fraction(0)
    for row in burn.rows:
        card = burn.grouping.groups[row.classes[0]][0]
        rank, suit = divmod(card, 4)
        rest = shoe.copy()
        rest[rank, suit] -= 1
        expected = {r.id: r.ev_exact for r in settle(exact_histogram(rest), rules)}
        assert dict(zip(burn.bet_ids, row.ev)) == expected
        assert row.probability == Fraction(int(shoe[rank, suit]), int(shoe.sum()))
        exact_sum += row.probability * max(max(expected.values()), 0)
    assert burn.player_edge == exact_sum


# --------------------------------------------------------------------------- depleted shoes, exposed cards


def test_depleted_shoe(default):
    shoe = remove_cards(8, "9,9,9,9,8,8,8,8,8")
    depleted = leak_value(default, ["P1"], each("value"), shoe)
    exact = {r.id: r.ev_exact for r in settle(exact_histogram(shoe), default)}
    assert depleted.ev_without_information == exact
    full = leak_value(default, ["P1"], each("value"))
    # Fewer 8s and 9s: knowing P1 is a 9 is worth less to the Player bet than in a full shoe.
    assert depleted.row("9").probability < full.row("9").probability
    assert depleted.player_edge != full.player_edge
    bottom = leak_value(default.with_shoe(model="dealt"), ["bottom"], each("value"), shoe)
    assert bottom.rows[9].probability == Fraction(32 - 4, int(shoe.sum()))


def test_next_card_is_the_first_card(default):
    assert leak_value(default, ["next"]).positions == ("P1",)
    assert leak_value(default, ["next"]).player_edge == leak_value(default, ["P1"]).player_edge


def test_side_bets_take_part_in_the_best_action():
    rules = SIDE_BETS.with_bets(["player", "banker", "tie", "player_pair", "perfect_pair"])
    result = leak_value(rules, ["P1", "P2"], each("rank"), 8)
    pairs = [row for row in result.rows if row.classes[0] == row.classes[1]]
    assert pairs and all(row.best_action in ("player_pair", "perfect_pair") for row in pairs)
    assert result.player_edge > leak_value(rules.with_bets(["player", "banker", "tie"]), ["P1", "P2"],
                                           each("rank"), 8).player_edge


class WiderIndexBet(Bet):
    """A bet settled on card details besides the outcome code: its line index is not over the 14,400 codes."""

    def case_index(self, detail=None):
        return np.zeros((N_CODES, 4), np.int64)


def test_a_bet_beyond_the_outcome_codes_is_refused(default):
    # A card-level bet says it reads cards, and is priced by its card detail (tests/test_leak_cards.py); one whose
    # lines are not over the outcome codes without saying so is refused.
    player = default.bet("player")
    copy = WiderIndexBet(**{f.name: getattr(player, f.name) for f in dataclasses.fields(Bet) if f.init})
    rules = dataclasses.replace(default, bets=(player, copy))
    with pytest.raises(InputError) as error:
        leak_value(rules, ["P1"])
    assert error.value.param == "bets" and "card details" in str(error.value)


@pytest.mark.parametrize("call, param", [
    (lambda r: high_low([]), "high"),
    (lambda r: high_low(range(10)), "high"),
    (lambda r: high_low([6, 10]), "high"),
    (lambda r: parse_groups("0123||456789"), "groups"),
    (lambda r: parse_groups("0123456789"), "groups"),
    (lambda r: parse_groups("0123|45678"), "groups"),
    (lambda r: leak_value(r, ["P9"]), "positions"),
    (lambda r: leak_value(r, ["burn"]), "positions"),
    (lambda r: leak_value(r.with_shoe(model="dealt"), ["burn"]), "positions"),
    (lambda r: leak_value(r, ["C5"], each("rank")), "positions"),
    (lambda r: leak_value(r, FIRST_FOUR, each("card")), "positions"),
])
def test_library_bad_input(default, call, param):
    with pytest.raises(InputError) as error:
        call(default)
    assert error.value.param == param


# --------------------------------------------------------------------------- report and plot


def test_report_renders_every_format(four_cards):
    document = leak_dict(four_cards)
    assert document["positions"] == list(FIRST_FOUR)
    assert document["groups"] == [{"name": "L", "members": [0, 1, 2, 3, 4, 5]}, {"name": "H", "members": [6, 7, 8, 9]}]
    assert Fraction(document["player_edge_exact"]) == four_cards.player_edge
    assert len(document["patterns"]) == 16 and document["patterns"][0]["best_action"] == SIT_OUT
    assert "+20.928%" in leak_text(four_cards) and "| LLLL |" in leak_markdown(four_cards)


def test_plot_draws_one_bar_per_pattern(four_cards):
    artists = plot_leak_edges(four_cards, ax=Figure().add_subplot())
    assert len(artists["bars"]) == 16
    assert artists["edge"].get_ydata()[0] == pytest.approx(100 * float(four_cards.player_edge))
    widths = [bar.get_width() for bar in artists["bars"]]
    assert sum(widths) == pytest.approx(100)


# --------------------------------------------------------------------------- command line


def cli(capsys, *args):
    status = main([str(a) for a in args])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_cli_json(capsys):
    status, out, _ = cli(capsys, "--positions", "P1,B1,P2,B2", "--format", "json", "--quiet")
    assert status == 0
    doc = json.loads(out)
    assert round(100 * doc["player_edge"], 3) == 20.928
    assert doc["positions"] == ["P1", "B1", "P2", "B2"] and [g["name"] for g in doc["groups"]] == ["L", "H"]
    row = next(p for p in doc["patterns"] if p["pattern"] == "HLLL")
    assert {"probability", "best_action", "edge", "ev"} <= set(row) and row["best_action"] == "player"
    assert set(doc["action_frequency"]) == {"sit_out", "player", "banker", "tie"}


def test_cli_optimize_and_exposed(capsys):
    status, out, _ = cli(capsys, "--positions", "P1,B1,P2,B2", "--optimize", "--top", "3", "--format", "json",
                         "--quiet")
    doc = json.loads(out)
    assert status == 0 and round(100 * doc["player_edge"], 3) == 30.291
    assert doc["optimize"]["candidates"][0]["low"] == [0, 1, 2, 3] and len(doc["optimize"]["candidates"]) == 3
    status, out, _ = cli(capsys, "--rules", "live-8deck-side-bets", "--exposed", "burn", "--bets", "player,banker",
                         "--format", "csv", "--quiet")
    assert status == 0 and len(out.splitlines()) == 53  # a header and one row per card


def test_cli_files_only_with_out(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert cli(capsys, "--quiet")[0] == 0
    assert list(tmp_path.iterdir()) == []
    out_dir = tmp_path / "out"
    status, _, err = cli(capsys, "--card", "P1", "--out", out_dir)
    assert status == 0 and "wrote" in err
    names = sorted(p.name for p in out_dir.iterdir())
    assert names == [f"leak-default-P1-every-card.{ext}" for ext in ("csv", "json", "md", "png")]
    assert "![leak-default-P1-every-card]" in (out_dir / "leak-default-P1-every-card.md").read_text()


@pytest.mark.parametrize("args, option", [
    (["--positions", "P1,X9"], "--positions"),
    (["--positions", "P3"], "--positions"),
    (["--high", ""], "--high"),
    (["--high", "0,1,2,3,4,5,6,7,8,9"], "--high"),
    (["--groups", "0123||456789"], "--groups"),
    (["--groups", "A23456789TJQK"], "--groups"),
    (["--high", "6,7,8,10"], "--high"),
    (["--high", "-1"], "--high"),
    (["--positions", "burn"], "--positions"),
    (["--model", "dealt", "--exposed", "burn"], "--card"),
    (["--positions", "bottom"], "--positions"),
    (["--positions", "C6", "--by", "rank"], "--positions"),
    (["--card", "P1", "--high", "6"], "--card"),
    (["--optimize", "--high", "6"], "--optimize"),
    (["--bets", "nope"], "--bets"),
    (["--by", "suit"], "--by"),
])
def test_cli_bad_input_is_one_line(capsys, args, option):
    status, out, err = cli(capsys, *args)
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and option in err, err


def test_help_imports_no_numpy():
    code = ("import sys\nfrom baccarat_sim.cli.leak import main\n"
            "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
            "assert 'numpy' not in sys.modules and 'numba' not in sys.modules, sorted(sys.modules)\n")
    completed = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert completed.returncode == 0, completed.stderr
    assert "--positions" in completed.stdout


def test_readme_leak_outputs_are_real(capsys):
    # Every `$ python -m baccarat_sim.leak ...` block of the advantage-play guide's leak section prints what the
    # page shows ("..." stands for rows left out).
    page = (Path(__file__).resolve().parents[1] / "docs" / "guide" / "advantage-play.md").read_text()
    section = page[page.index("## What leaked card information is worth"):]
    section = section[:section.index("\n## ", 1)] if "\n## " in section[1:] else section
    blocks = re.findall(r"```console\n\$ python -m baccarat_sim\.leak(.*?)\n(.*?)```", section, re.S)
    assert len(blocks) >= 5
    for args, shown in blocks:
        status, out, _ = cli(capsys, *args.split(), "--quiet")
        assert status == 0
        printed = out.splitlines()
        expected = shown.rstrip("\n").splitlines()
        if "..." in expected:
            cut = expected.index("...")
            head, tail = expected[:cut], expected[cut + 1:]
            assert printed[:len(head)] == head and printed[len(printed) - len(tail):] == tail, args
        else:
            assert printed == expected, args


def test_optimal_sort_with_every_side_bet():
    # The advantage-play guide: with every bet of live-8deck-side-bets the best sort of the first four cards is
    # High = 5..9.
    found = optimal_sort(SIDE_BETS, FIRST_FOUR, top=1)
    assert found.candidates[0].grouping.groups[1] == (5, 6, 7, 8, 9) and pct(found.best.player_edge) == 88.440
