"""Exact card detail by rank (issue 39): closed forms, the by-card count, an independent brute force, Monte Carlo.

The rank-wise count (:mod:`baccarat_sim.engines.rankwise`) enumerates the ranks of a round and counts the suits
of the positions the atoms read rank by rank. Tests that would fail on a wrong split of the weights between the
combinations of atom values (not only on wrong totals per outcome):

* closed forms on full shoes of 1, 2 and 8 decks: Colour Match (the first four cards of one colour)
  2 (26d)_4 / (52d)_4, ``P1.suit == B1.suit`` (13d - 1) / (52d - 1), a named suit of a third card a quarter of
  the weight where that card is drawn (and the weight where it is drawn the plain exact engine's);
* the by-card count (:func:`baccarat_sim.engines.detail.group_weights` with ``count="card"``, the other
  builder) on full and depleted shoes, bit for bit, for conditions it can count quickly;
* every ordering of small depleted shoes (:mod:`tests.cardlevel_oracle`, plain Python, no package code but the
  outcome code's layout), code by code, for conditions on suits and on two hands' poker values compared,
  third cards' suits included;
* Monte Carlo of ``poker(banker) > poker(player)`` at a fixed seed, within |z| < 4 of the exact figure.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from baccarat_sim.analysis.settlement import net_vector, settle_bet
from baccarat_sim.analysis.stats import estimate
from baccarat_sim.engines.detail import _combination_bits, by_card, group_reach, group_weights
from baccarat_sim.engines.exact import exact_histogram
from baccarat_sim.engines.rankwise import rankwise_weights
from baccarat_sim.engines.simulation import simulate
from baccarat_sim.kernels.exact import exact_counts
from baccarat_sim.model.codes import N_CODES, N_SUFFIXES, player_drew_of
from baccarat_sim.model.conditions import compile_condition
from baccarat_sim.model.rules import parse_rules

from .cardlevel_oracle import (
    POKER_LADDER,
    colour,
    deal_table,
    every_ordering,
    falling,
    is_flush,
    poker_category,
    shoe_of,
    suit,
)
from .run_helpers import MANY_THREADS


def by_card_rows(atoms, shoe, outcomes: str, lanes: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The by-card count of a group as rows by atom bits (ascending; rows of no weight left out), as by rank."""
    return _rows(*group_weights(tuple(atoms), shoe, outcomes, lanes, count="card"))


def by_card_reach_rows(atoms, outcomes: str) -> tuple[np.ndarray, np.ndarray]:
    """The by-card reach of a group as rows by atom bits (ascending), and which of their cells can happen."""
    reach, distinct = group_reach(tuple(atoms), outcomes, count="card")
    bits, rows = _rows(reach.astype(np.int64), distinct)
    return bits, rows > 0


def _rows(weights: np.ndarray, distinct: list) -> tuple[np.ndarray, np.ndarray]:
    bits = _combination_bits(distinct)
    keys, inverse = np.unique(bits, return_inverse=True)
    rows = np.zeros((len(keys), weights.shape[1]), weights.dtype)
    np.add.at(rows, inverse.ravel(), weights)
    keep = rows.any(axis=1)
    return keys[keep].astype(np.uint64), rows[keep]


def atom_of(text: str):
    """The one atom of a card-only condition (its bit is the condition's value)."""
    atoms = compile_condition(text).atoms
    assert len(atoms) == 1, text
    return atoms[0]


def weight_where(text: str, shoe, outcomes: str = "prefixes") -> tuple[int, int]:
    """Rank-wise weight of the rounds where a card-only condition holds, and of all rounds."""
    bits, weights = rankwise_weights((atom_of(text),), shoe, outcomes)
    return int(weights[bits == 1].sum()), int(weights.sum())


def falling_of(n: int, k: int) -> int:
    result = 1
    for i in range(k):
        result *= n - i
    return result


# --------------------------------------------------------------------------- closed forms on full shoes


@pytest.mark.parametrize("decks", [1, 2, 8])
@pytest.mark.parametrize("outcomes", ["prefixes", "codes"])
def test_colour_match_and_first_cards_suited_closed_forms(decks, outcomes):
    shoe = np.full((13, 4), decks, np.int64)
    held, total = weight_where("count(colour in [red], P1, B1, P2, B2) in [0, 4]", shoe, outcomes)
    assert total == falling(52 * decks)
    assert held * falling_of(52 * decks, 4) == total * 2 * falling_of(26 * decks, 4)
    held, total = weight_where("P1.suit == B1.suit", shoe, outcomes)
    assert held * (52 * decks - 1) == total * (13 * decks - 1)


@pytest.mark.parametrize("decks", [1, 8])
@pytest.mark.parametrize("position", ["P3", "B3"])
def test_a_named_suit_of_a_third_card_is_a_quarter_of_its_draws(decks, position):
    shoe = np.full((13, 4), decks, np.int64)
    by_suit = [weight_where(f"{position}.suit == {name}", shoe)[0] for name in ("spades", "hearts", "diamonds",
                                                                                  "clubs")]
    assert len(set(by_suit)) == 1
    codes = np.zeros(N_CODES, np.int64)
    exact_counts(shoe, codes)
    prefixes = np.arange(N_CODES) // N_SUFFIXES
    if position == "P3":
        drawn = int(codes[player_drew_of(prefixes) == 1].sum())
    else:
        drawn = falling(52 * decks) - weight_where("B3.suit == none", shoe)[0]
    assert 4 * by_suit[0] == drawn > 0


# --------------------------------------------------------------------------- the by-card count, bit for bit


def depleted_shoes() -> dict[str, np.ndarray]:
    eight = np.full((13, 4), 8, np.int64)
    dealt = eight.copy()
    dealt[[0, 4, 9, 12], [1, 2, 0, 3]] -= [8, 3, 5, 1]  # the ace of hearts gone, others thinned
    no_hearts = np.ones((13, 4), np.int64)
    no_hearts[:, 1] = 0
    thinned = np.full((13, 4), 2, np.int64) - np.random.default_rng(39).integers(0, 3, size=(13, 4))
    return {"eight": eight, "dealt": dealt, "no_hearts": no_hearts, "thinned": thinned}


#: Conditions the by-card count prices quickly: suits, colours, hand patterns, poker values of one hand.
BY_CARD_CONDITIONS = (
    "P1.suit == B1.suit",
    "P3.suit == B3.suit",
    "P3.suit == hearts and B3.colour == black",
    "count(colour in [red], P1, B1, P2, B2, P3, B3) >= 4",
    "poker(player) == flush",
    "flush([P1, P2]) == 1 and P1.rank == K",
    "poker(first_four) >= pair and P3.colour == red",
    "kind(all) >= 3",
)


@pytest.mark.parametrize("text", BY_CARD_CONDITIONS)
def test_rank_wise_and_by_card_counts_are_the_same_integers(text):
    atom = atom_of(text)
    # Each condition on two depleted shoes, by code or by prefix in turn (the full shoe: the closed forms above).
    outcomes = ("codes", "prefixes")[BY_CARD_CONDITIONS.index(text) % 2]
    assert by_card((atom,), outcomes)
    for name in ("dealt", "thinned"):
        shoe = depleted_shoes()[name]
        ours, theirs = rankwise_weights((atom,), shoe, outcomes), by_card_rows((atom,), shoe, outcomes)
        np.testing.assert_array_equal(ours[0], theirs[0], err_msg=f"{text} {name} {outcomes}")
        np.testing.assert_array_equal(ours[1], theirs[1], err_msg=f"{text} {name} {outcomes}")


def test_several_atoms_split_the_same_way_by_rank_and_by_card():
    atoms = tuple(atom_of(t) for t in ("P1.suit == B1.suit", "poker(player) == flush", "P3.colour == red"))
    for name in ("eight", "no_hearts"):
        shoe = depleted_shoes()[name]
        ours, theirs = rankwise_weights(atoms, shoe, "codes"), by_card_rows(atoms, shoe, "codes")
        assert len(ours[0]) == 8  # every combination of three atoms happens
        np.testing.assert_array_equal(ours[0], theirs[0])
        np.testing.assert_array_equal(ours[1], theirs[1])


# --------------------------------------------------------------------------- every ordering of small shoes

#: Small shoes: suits repeated within a rank (suited pairs, flushes of three), ranks in runs, a rank missing.
SMALL_SHOES = {
    "suited": ["As", "2s", "3s", "Qh", "Kh", "Ah", "5d", "9s", "Ks"],
    "repeated": ["7s", "7s", "7h", "7d", "Ks", "Ks", "Qs", "As", "2c"],
}


LADDER_INDEX = {name: i for i, name in enumerate(POKER_LADDER)}


def hand_category(d, positions) -> int:
    return LADDER_INDEX[poker_category(d.cards(positions))]


#: Card-only conditions and their plain predicates: suits at positions, two hands' poker values compared (third
#: cards' suits read), a poker value of all six cards.
ORACLE_CONDITIONS = {
    "poker(banker) > poker(player)": lambda d: hand_category(d, "banker") > hand_category(d, "player"),
    "poker(player) == poker(banker)": lambda d: hand_category(d, "player") == hand_category(d, "banker"),
    "poker([P1, P3]) >= poker([B1, B3])": lambda d: hand_category(d, ("P1", "P3")) >= hand_category(d, ("B1", "B3")),
    "poker(all) == flush": lambda d: poker_category(d.cards("all")) == "flush",
    "flush(player) == 1 and flush(banker) == 1": lambda d: is_flush(d.cards("player")) and is_flush(d.cards("banker")),
    "P3.suit == B3.suit": lambda d: d.P3 is not None and d.B3 is not None and suit(d.P3) == suit(d.B3),
    "P1.suit == B1.suit and P2.colour == red": lambda d: suit(d.P1) == suit(d.B1) and colour(d.P2) == "red",
}


@pytest.mark.parametrize("shoe", sorted(SMALL_SHOES))
def test_every_ordering_of_small_shoes_code_by_code(shoe):
    composition = shoe_of(SMALL_SHOES[shoe])
    table = deal_table(every_ordering(composition))
    for text, holds in ORACLE_CONDITIONS.items():
        expected: Counter = Counter()
        for d, n in table:
            expected[int(bool(holds(d))), d.code] += n
        bits, weights = rankwise_weights((atom_of(text),), composition, "codes")
        found = Counter({(int(b), int(code)): int(weights[i, code]) for i, b in enumerate(bits)
                         for code in np.flatnonzero(weights[i])})
        assert found == +expected, (shoe, text)


# --------------------------------------------------------------------------- Monte Carlo

BANKER_BEATS = """schema_version = 1
id = "banker-beats"
name = "banker-beats"

[shoe]
decks = 8
shuffle = "fresh"

[[bets]]
id = "banker_poker_beats"
pays = [
  { when = "poker(banker) > poker(player)", pays = "1:1" },
]
otherwise = "lose"
"""


def test_monte_carlo_agrees_with_the_exact_banker_poker_beats_player():
    rules = parse_rules(BANKER_BEATS, "banker-beats.toml")
    assert not by_card(rules.bets[0].atoms, "prefixes")  # the two hands' states cross: counted by rank
    exact = exact_histogram(rules)
    bet = rules.bets[0]
    exact_rtp = 1 + float(settle_bet(exact, bet, rules).ev_exact)
    assert 0.3 < exact_rtp < 1.2
    hist = simulate(rules, 1 << 22, 39, threads=MANY_THREADS)
    view = hist.view([bet])
    est = estimate(view, net_vector(bet, rules, view.detail))
    assert abs(est.z(exact_rtp)) < 4, (est.rtp, est.se, exact_rtp)


# --------------------------------------------------------------------------- effect of removal, by rank


def test_effect_of_removal_of_a_bet_counted_by_rank_balances_exactly():
    # Removing one card at random leaves the next round's EV unchanged: the count-weighted effects of every rank sum
    # to exactly zero. Each removal prices a depleted shoe by rank (a shoe whose suits are no longer all alike).
    from baccarat_sim.analysis.eor import effect_of_removal

    rules = parse_rules(BANKER_BEATS.replace("decks = 8", "decks = 1"), "banker-beats.toml")
    shoe = np.zeros((13, 4), np.int64)
    shoe[[0, 1, 2, 3, 8, 12]] = 1  # A, 2, 3, 4, 9 and K of every suit: runs, pairs and flushes, few ranks to count
    eor = effect_of_removal(rules, shoe=shoe)
    assert eor.balance("banker_poker_beats", "rank") == eor.balance("banker_poker_beats", "value") == 0
    assert any(effect != 0 for effect in eor.by_rank["banker_poker_beats"])
