"""Effect of removal by suit and colour where bets read them (issue 13, item 4).

The exact engine's effects of removal are held to an independent brute force on a ten-card shoe: every ordering
of the cards a round can take, dealt by the plain-Python reference dealer, each bet settled by a few lines of Python
that read the dealt cards (no condition language, no atoms, no card detail). Symmetry and balance are checked on
8-deck shoes: Colour Match, whose edge grows with the gap between red and black cards (Eliot Jacobson, "Card
Counting the Colour Match Baccarat Side Bet", 888casino.com blog), has the same effect of removal for a red card as
for a black one on a full shoe, and on a shoe short of black cards removing a black card helps it.
"""

import itertools
import json
import math
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from baccarat_sim.analysis.eor import effect_of_removal, reads_suits, suit_orbits
from baccarat_sim.cli.rtp import main
from baccarat_sim.errors import InputError
from baccarat_sim.model.cards import SUIT_WORDS
from baccarat_sim.model.rules import load_rules, parse_rules
from baccarat_sim.model.shoe import as_shoe
from baccarat_sim.report.eor import bet_fields, eor_csv, eor_dict, eor_markdown, eor_table, eor_text

from .reference_dealer import deal_round

DATA = Path(__file__).parent / "data"

CARD_BETS = """
schema_version = 1
id = "suit-bets"
payout_notation = "to"

[[bets]]
id = "player"
pays = [{ when = "winner == player", pays = "1:1" }, { when = "winner == tie", pays = "push" }]
otherwise = "lose"

[[bets]]
id = "colour_match"
pays = [{ when = "count(colour == red, first_four) in [0, 4]", pays = "6:1" }]
otherwise = "lose"

[[bets]]
id = "heart_first"
pays = [{ when = "P1.suit == hearts", pays = "2:1" }]
otherwise = "lose"

[[bets]]
id = "banker_heart"
pays = [{ when = "winner == banker and B1.suit == hearts", pays = "5:1" }]
otherwise = "lose"

[[bets]]
id = "red_third"
pays = [{ when = "P3.colour == red", pays = "3:1" }]
otherwise = "lose"
"""


def red(card: int) -> bool:
    return card % 4 in (1, 2)


def reference_nets(r) -> dict[str, int]:
    """Each bet of CARD_BETS settled from a reference round's cards (net per unit staked)."""
    ps, bs = r.player_score, r.banker_score
    first_four = (r.player[0], r.banker[0], r.player[1], r.banker[1])
    return {
        "player": 1 if ps > bs else 0 if ps == bs else -1,
        "colour_match": 6 if len({red(c) for c in first_four}) == 1 else -1,
        "heart_first": 2 if r.player[0] % 4 == 1 else -1,
        "banker_heart": 5 if bs > ps and r.banker[0] % 4 == 1 else -1,
        "red_third": 3 if len(r.player) == 3 and red(r.player[2]) else -1,  # a Player that stood has no third card
    }


def brute_force_ev(cards: list[int]) -> dict[str, Fraction]:
    """Exact EV of every bet: every ordering of the cards a round takes, weighted by the orderings of six cards.

    A round that takes ``k`` cards stands for ``(n - k)! / (n - 6)!`` orderings of six cards (the unused ones in any
    order), as the engines count ordered six-card sequences.
    """
    n = len(cards)
    totals = dict.fromkeys(("player", "colour_match", "heart_first", "banker_heart", "red_third"), 0)

    def extend(order: list[int]):
        try:
            r = deal_round([cards[i] for i in order])
        except IndexError:  # the tableau draws another card: every card left, in turn
            for i in range(n):
                if i not in order:
                    extend([*order, i])
            return
        weight = math.perm(n - len(order), 6 - len(order))
        for bet_id, net in reference_nets(r).items():
            totals[bet_id] += weight * net

    for order in itertools.permutations(range(n), 4):
        extend(list(order))
    return {bet_id: Fraction(total, math.perm(n, 6)) for bet_id, total in totals.items()}


def shoe_of(cards: list[int]) -> np.ndarray:
    shoe = np.zeros((13, 4), np.int64)
    for card in cards:
        shoe[card // 4, card % 4] += 1
    return shoe


# Ten cards, two of them the same (two aces of spades), five red and five black, hearts over-represented.
SMALL = [0, 0, 5, 10, 17, 20, 27, 33, 49, 47]  # As As 2h 3d 5h 6s 7c 9h Kh Qc
# An ace and a six of every suit: every suit alike in the shoe, so only the bets can tell them apart (a heart is
# not a spade for heart_first, though the shoe cannot see the difference).
ALIKE = [0, 1, 2, 3, 20, 21, 22, 23]


@pytest.fixture(scope="module")
def small():
    rules = parse_rules(CARD_BETS)
    return rules, effect_of_removal(rules, shoe_of(SMALL))


@pytest.mark.parametrize("cards", [SMALL, ALIKE], ids=["uneven", "suits-alike"])
def test_effects_by_suit_colour_and_rank_match_brute_force_on_a_small_shoe(cards):
    eor = effect_of_removal(parse_rules(CARD_BETS), shoe_of(cards))
    base = brute_force_ev(cards)
    assert eor.base == base
    after = {}  # EV minus base after removing one copy of each distinct card
    for card in sorted(set(cards)):
        rest = list(cards)
        rest.remove(card)
        after[card] = {b: ev - base[b] for b, ev in brute_force_ev(rest).items()}

    def mean(chosen: list[int], bet_id: str):
        chosen = [c for c in cards if c in chosen]  # one entry per copy: a card's weight is its count
        return sum((after[c][bet_id] for c in chosen), Fraction(0)) / len(chosen) if chosen else None

    for bet_id in eor.bet_ids:
        suits = tuple(mean([c for c in cards if c % 4 == s], bet_id) for s in range(4))
        colours = (mean([c for c in cards if not red(c)], bet_id), mean([c for c in cards if red(c)], bet_id))
        ranks = tuple(mean([c for c in cards if c // 4 == r], bet_id) for r in range(13))
        assert eor.by_suit[bet_id] == suits, bet_id
        assert eor.by_colour[bet_id] == colours, bet_id
        # By rank too: suits are no longer interchangeable once a bet reads them (a 2h is not a 2s for heart_first).
        assert eor.by_rank[bet_id] == ranks, bet_id
    assert set(eor.suit_bets) == {"colour_match", "heart_first", "banker_heart", "red_third"}


def test_small_shoe_effects_balance_exactly(small):
    _, eor = small
    for bet_id in eor.bet_ids:
        for by in ("rank", "value", "suit", "colour"):
            assert eor.balance(bet_id, by) == 0, (bet_id, by)


def test_suit_orbits_follow_what_the_bets_read():
    rules = parse_rules(CARD_BETS)
    full = as_shoe(8)
    assert suit_orbits(full) == [[0, 1, 2, 3]]
    # Colour Match is unchanged by any swap of suits that keeps colours together, and by swapping red with black.
    assert suit_orbits(full, rules.bet("colour_match").atoms) == [[0, 1, 2, 3]]
    assert suit_orbits(full, rules.bet("heart_first").atoms) == [[0, 2, 3], [1]]
    assert suit_orbits(full, rules.bet("red_third").atoms) == [[0, 3], [1, 2]]  # red is not black for it
    assert suit_orbits(full, rules.bet("colour_match").atoms + rules.bet("heart_first").atoms) == [[0, 3], [1], [2]]
    short = full.copy()
    short[5, 0] -= 1  # one six of spades gone: spades stand apart from the other suits
    assert suit_orbits(short) == [[0], [1, 2, 3]]
    assert reads_suits(rules.bet("red_third").atoms) and not reads_suits(())


@pytest.fixture(scope="module")
def colour_match():
    return load_rules(DATA / "colour-match.toml")


def test_colour_match_red_and_black_are_equal_on_a_full_shoe(colour_match):
    eor = effect_of_removal(colour_match, bets=["colour_match", "player"])
    black, red_effect = eor.by_colour["colour_match"]
    # Symmetric in the colours, and balanced: both are exactly zero (the bet is quadratic in the colour gap).
    assert black == red_effect == 0
    assert set(eor.by_suit["colour_match"]) == {0}
    assert eor.by_suit["player"] == (0, 0, 0, 0)  # an outcome bet never tells suits apart on a symmetric shoe
    assert float(eor.base["colour_match"]) == pytest.approx(-0.137635, abs=5e-7)  # Jacobson: 13.7635%


def test_colour_match_on_a_shoe_short_of_black_cards(colour_match):
    shoe = as_shoe(8).copy()
    shoe[:, [0, 3]] -= 2  # 26 spades and 26 clubs out: 208 red against 156 black cards
    eor = effect_of_removal(colour_match, shoe, bets=["colour_match"])
    black, red_effect = eor.by_colour["colour_match"]
    # Removing a card of the short colour widens the gap and helps the bet; removing the long colour's narrows it.
    assert black > 0 > red_effect
    assert 156 * black + 208 * red_effect == 0
    spades, hearts, diamonds, clubs = eor.by_suit["colour_match"]
    assert spades == clubs == black and hearts == diamonds == red_effect
    assert eor.balance("colour_match", "suit") == eor.balance("colour_match", "rank") == 0


def test_reports_carry_suit_and_colour_effects(small):
    _, eor = small
    doc = eor_dict(eor)
    heart = doc["bets"]["heart_first"]
    assert list(heart["eor_by_suit"]) == list(SUIT_WORDS) and list(heart["eor_by_colour"]) == ["black", "red"]
    assert heart["eor_by_suit"]["hearts"] == pytest.approx(float(eor.by_suit["heart_first"][1]))
    assert doc["suit_bets"] == list(eor.suit_bets)
    json.dumps(doc, allow_nan=False)
    fields = bet_fields(eor, "colour_match")
    assert {"eor", "eor_by_rank", "eor_by_suit", "eor_by_colour", "count_tags"} <= set(fields)
    csv = eor_csv(eor).splitlines()
    assert "heart_first,suit,hearts," in "\n".join(csv) and "colour_match,colour,red," in "\n".join(csv)
    assert len(csv) == 1 + len(eor.bet_ids) * (10 + 13 + 4 + 2)
    assert "effect of removal by suit and colour" in eor_text(eor)
    assert "### Effect of removal by suit and colour" in eor_markdown(eor)
    table = eor_table(eor, "colour")
    assert list(table.index) == ["black", "red"] and table.loc["red", "heart_first"] < 0


def test_outcome_only_rule_sets_keep_their_fields():
    rules = load_rules("default").with_bets(["player", "banker"])
    eor = effect_of_removal(rules)
    assert eor.by_suit is None and eor.by_colour is None and eor.suit_bets == ()
    assert set(eor_dict(eor)) == {"rules", "cards", "bets"}
    assert set(eor_dict(eor)["bets"]["player"]) == {"ev", "eor", "eor_by_rank"}
    assert "by suit" not in eor_text(eor) and ",suit," not in eor_csv(eor)
    with pytest.raises(InputError, match="by: no effect of removal by suit"):
        eor.balance("player", "suit")
    with pytest.raises(ValueError, match="no effect of removal by colour"):
        eor_table(eor, "colour")


def test_command_line_eor_of_a_depleted_shoe_short_of_red_cards(capsys):
    # Six red cards out of one deck: removing another red card widens the colour gap and helps Colour Match.
    status = main(["--rules", str(DATA / "colour-match.toml"), "--exact", "--eor", "--bets", "colour_match", "--decks",
                   "1", "--remove", "Ah,Ad,Kh,Kd,2h,3d", "--format", "json", "--quiet"])
    bet = json.loads(capsys.readouterr().out)["bets"][0]
    assert status == 0 and bet["id"] == "colour_match"
    assert bet["eor_by_colour"]["red"] > 0 > bet["eor_by_colour"]["black"]
    assert bet["eor_by_suit"]["hearts"] == bet["eor_by_suit"]["diamonds"] == bet["eor_by_colour"]["red"]
    assert 20 * bet["eor_by_colour"]["red"] + 26 * bet["eor_by_colour"]["black"] == pytest.approx(0, abs=1e-15)
