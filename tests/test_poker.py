"""Poker values of any cards (issue 22): the definitions against publishers' tables and an independent brute force.

:mod:`baccarat_sim.model.poker` defines the categories once; here they are held to

* Wizard of Odds' Jackpot Baccarat table, row by row (8 decks, the first four cards, unordered four-card sets),
  counted over every multiset of four card ids with its number of four-card sets, by the package's definitions
  and by the plain-Python ones of :mod:`tests.cardlevel_oracle` (written from the rule-set README, not from the
  package);
* closed forms on 8 decks (four of a kind and two pair among four cards);
* the oracle on random hands of 0 to 6 cards, value by value, over numpy arrays and compiled by numba.

The grammar that names them (``poker(first_four) == royal``, bracketed position lists, values compared with each
other) is checked here too; the engines' prices of poker bets are in ``tests/test_poker_engines.py``.
"""

from __future__ import annotations

import itertools
from math import comb, prod

import numba
import numpy as np
import pytest

from baccarat_sim.errors import ConditionError
from baccarat_sim.kernels.detail import _hand_state
from baccarat_sim.kernels.hand import add_card as compiled_add_card
from baccarat_sim.kernels.hand import rank_counts_only as compiled_rank_counts_only
from baccarat_sim.kernels.hand import suits_settled as compiled_suits_settled
from baccarat_sim.model import poker
from baccarat_sim.model.conditions import compile_condition, evaluate, feature_table
from baccarat_sim.model.poker_states import state_tables

from .cardlevel_oracle import POKER_LADDER, is_flush, is_run, kind_rank, poker_category, rank_groups

#: Wizard of Odds, Jackpot Baccarat, 8 decks: combinations (unordered four-card sets of the first four cards).
JACKPOT_ROWS = {
    "mini royal": 16_384,
    "four of a kind": 467_480,
    "straight flush": 163_840,
    "three of a kind": 24_760_320,
    "flush": 17_929_088,
    "straight": 11_354_112,
    "two pair": 18_944_640,
    "pair of aces": 33_048_576,
    "pair 10s to Ks": 132_194_304,
    "loser": 991_051_776,
}


def jackpot_row(category: str, top_rank: int | None) -> str:
    """The pay-table row of a hand from its category and its largest group's rank number (1 = Ace)."""
    rows = {"royal": "mini royal", "four_of_a_kind": "four of a kind", "straight_flush": "straight flush",
            "three_of_a_kind": "three of a kind", "flush": "flush", "straight": "straight", "two_pair": "two pair"}
    if category in rows:
        return rows[category]
    if category == "pair" and top_rank == 1:
        return "pair of aces"
    if category == "pair" and top_rank in (10, 11, 12, 13):
        return "pair 10s to Ks"
    return "loser"


def four_card_sets():
    """Every multiset of four card ids with its number of four-card sets from 8 decks (8 of each id)."""
    for combo in itertools.combinations_with_replacement(range(52), 4):
        yield combo, prod(comb(8, combo.count(c)) for c in set(combo))


def test_jackpot_baccarat_rows_by_the_oracle_and_by_the_package():
    by_oracle = dict.fromkeys(JACKPOT_ROWS, 0)
    by_package = dict.fromkeys(JACKPOT_ROWS, 0)
    combos, weights = [], []
    for combo, weight in four_card_sets():
        by_oracle[jackpot_row(poker_category(combo), kind_rank(combo))] += weight
        combos.append(combo)
        weights.append(weight)
    cards = np.array(combos, np.int64)
    key = np.zeros(len(cards), np.int64)
    for column in range(4):
        key = poker.add_card(key, cards[:, column])
    categories, ranks = poker.category(key), poker.kind_rank(key)
    for category, top, weight in zip(categories, ranks, weights):
        by_package[jackpot_row(poker.CATEGORIES[category], int(top) + 1)] += weight
    assert sum(weights) == comb(416, 4) == 1_229_930_520
    assert by_oracle == JACKPOT_ROWS
    assert by_package == JACKPOT_ROWS


def test_closed_forms_among_four_cards_of_8_decks():
    combos, weights = zip(*four_card_sets())
    cards = np.array(combos, np.int64)
    key = np.zeros(len(cards), np.int64)
    for column in range(4):
        key = poker.add_card(key, cards[:, column])
    by_category = np.bincount(poker.category(key), weights=np.array(weights, np.float64),
                              minlength=len(poker.CATEGORIES))
    counts = {name: int(by_category[i]) for i, name in enumerate(poker.CATEGORIES)}
    assert counts["four_of_a_kind"] == 13 * comb(32, 4)
    # Two ranks of 32 cards each, two cards of each, less the hands all of one suit (a flush).
    assert counts["two_pair"] == 78 * comb(32, 2) ** 2 - 78 * 4 * comb(8, 2) ** 2
    assert counts["royal"] == 4 * 8 ** 4 and counts["straight_flush"] == 10 * 4 * 8 ** 4
    assert counts["five_of_a_kind"] == counts["six_of_a_kind"] == counts["three_pair"] == 0


@pytest.mark.parametrize("seed", [1, 2])
def test_every_value_equals_the_oracle_on_random_hands(seed):
    rng = np.random.default_rng(seed)
    n_hands = 20_000
    # Hands of 0 to 6 cards from few ranks (so that groups are common), no card in some positions.
    ranks = rng.choice([0, 1, 2, 3, 9, 10, 11, 12], size=(n_hands, 6))
    suits = rng.integers(0, 2, size=(n_hands, 6))
    cards = ranks * 4 + suits
    cards[rng.random((n_hands, 6)) < 0.25] = 52
    key = np.zeros(n_hands, np.int64)
    for column in range(6):
        key = poker.add_card(key, cards[:, column])
    category, top, most = poker.category(key), poker.kind_rank(key), poker.kind(key)
    flush, straight, pairs = poker.flush(key), poker.straight(key), poker.pairs(key)
    triples = poker.triples(key)
    for i in range(n_hands):
        hand = [int(c) if c < 52 else None for c in cards[i]]
        groups = rank_groups(hand)
        assert POKER_LADDER[category[i]] == poker_category(hand), hand
        assert (None if top[i] == poker.NO_RANK else int(top[i]) + 1) == kind_rank(hand), hand
        assert most[i] == (groups[0] if groups else 0)
        assert flush[i] == is_flush(hand) and straight[i] == is_run([c // 4 + 1 for c in hand if c is not None])
        assert pairs[i] == sum(1 for g in groups if g >= 2)
        assert triples[i] == sum(1 for g in groups if g >= 3)


@numba.njit
def _kernel_values(cards, reads, which, tables):
    """Each value of each hand as the Monte Carlo kernels read it: the hand's state, then the value table."""
    first_four_state, next_state, hand_value = tables
    out = np.zeros((cards.shape[0], reads.shape[0], which.shape[0]), np.int64)
    for i in range(cards.shape[0]):
        c = cards[i]
        for h in range(reads.shape[0]):
            state = _hand_state(c[0], c[1], c[2], c[3], c[4], c[5], reads, h, first_four_state, next_state)
            for w in range(which.shape[0]):
                out[i, h, w] = hand_value[which[w], state]
    return out


#: The catalogue's rank-only lines (catalogue-poker.toml: Dragon Dragon, Lucky Match) and the poker categories
#: they stand for: the same hands wherever no flush or straight outranks the category.
RANK_ONLY_CATEGORIES = {
    "double_three_of_a_kind": lambda k, p, t: t == 2,
    "four_of_a_kind": lambda k, p, t: k == 4,
    "full_house": lambda k, p, t: (k == 3) & (p >= 2) & (t == 1),
    "three_of_a_kind": lambda k, p, t: (k == 3) & (p == 1),
}


def test_rank_only_lines_are_the_poker_categories_over_every_hand_of_a_small_shoe():
    # Every multiset of up to six cards of four ranks (the Ace and King among them: royals and straights) and two
    # suits, each card id up to six times: every rank pattern, flushes, straights and straight flushes.
    ids = [rank * 4 + suit for rank in (0, 1, 11, 12) for suit in (0, 1)]
    hands = [combo for n in range(7) for combo in itertools.combinations_with_replacement(ids, n)]
    cards = np.full((len(hands), 6), 52, np.int64)
    for i, hand in enumerate(hands):
        cards[i, :len(hand)] = hand
    key = np.zeros(len(cards), np.int64)
    for column in range(6):
        key = poker.add_card(key, cards[:, column])
    category = poker.category(key)
    values = poker.kind(key), poker.pairs(key), poker.triples(key)
    for name, line in RANK_ONLY_CATEGORIES.items():
        np.testing.assert_array_equal(line(*values), category == poker.CATEGORY_BY_NAME[name], err_msg=name)
        assert line(*values).any()


def test_the_kernels_read_the_models_values_off_the_state_tables():
    # Random rounds (no third card in about a third of the positions) and hands over several sets of positions,
    # as the Monte Carlo kernels read them (kernels/detail.py): every value equals the model's.
    rng = np.random.default_rng(3)
    cards = rng.integers(0, 52, size=(5_000, 6)).astype(np.int64)
    cards[:, 4:][rng.random((5_000, 2)) < 0.35] = 52
    cards[:100, :4] = rng.choice([0, 1, 4, 48], size=(100, 4))  # many Aces, Twos and Kings: kinds, straights
    reads = np.array([[1, 1, 1, 1, 1, 1], [1, 1, 1, 1, 0, 0], [1, 0, 1, 0, 1, 0], [0, 1, 0, 1, 0, 1],
                      [1, 1, 0, 0, 0, 0], [0, 0, 0, 0, 1, 1], [1, 0, 0, 0, 0, 1]], np.int64)
    which = np.arange(len(poker.VALUES))
    tables = state_tables()
    got = _kernel_values(cards, reads, which, (tables.first_four_state, tables.next_state, tables.hand_value))
    for h, read in enumerate(reads):
        key = np.zeros(len(cards), np.int64)
        for column in np.flatnonzero(read):
            key = poker.add_card(key, cards[:, column])
        expected = np.stack([poker.value(w, key) for w in which], axis=1)
        np.testing.assert_array_equal(got[:, h], expected, err_msg=f"hand over {read}")


@numba.njit
def _compiled_keys(cards):
    out = np.zeros((cards.shape[0], 3), np.int64)
    for i in range(cards.shape[0]):
        key = np.int64(0)
        for j in range(cards.shape[1]):
            key = compiled_add_card(key, cards[i, j])
        out[i] = key, compiled_rank_counts_only(key), compiled_suits_settled(key)
    return out


def test_the_exact_kernels_compile_the_models_hand_key():
    # kernels/hand.py compiles the model's hand key for the exact enumeration: the same keys, bit for bit.
    rng = np.random.default_rng(3)
    cards = rng.integers(0, 53, size=(5_000, 6)).astype(np.int64)
    key = np.zeros(len(cards), np.int64)
    for column in range(6):
        key = poker.add_card(key, cards[:, column])
    expected = np.stack([key, poker.rank_counts_only(key), poker.suits_settled(key)], axis=1)
    np.testing.assert_array_equal(_compiled_keys(cards), expected)


def test_straights_and_royals_of_two_to_six_cards():
    def category(*names):
        key = np.int64(0)
        for name in names:
            rank, suit = name[:-1], name[-1]
            card = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K").index(rank) * 4 + "shdc".index(
                suit)
            key = poker.add_card(key, np.int64(card))
        return poker.CATEGORIES[int(poker.category(key))]

    assert category("Kh", "Ah") == "royal" and category("Ah", "2h") == "straight_flush"
    assert category("Kh", "As") == "straight" and category("Kh", "2h") == "flush"
    assert category("Qs", "Ks", "As") == "royal" and category("Ks", "As", "2s") == "flush"  # no wrap-around
    assert category("Qs", "Kd", "Ah", "2c") == "high_card"
    assert category("10d", "Jd", "Qd", "Kd", "Ad") == "royal" and category("9d", "10d", "Jd", "Qd", "Kd") == (
        "straight_flush")
    assert category("9c", "10d", "Jd", "Qd", "Kd", "Ad") == "straight"
    assert category("5h", "5h", "7h", "7h") == "flush"  # a suited two pair is a flush
    assert category("5h", "5h", "5h", "7h") == "three_of_a_kind"  # suited trips stay trips
    assert category("5h", "5d", "5s", "7h", "7h", "7c") == "double_three_of_a_kind"
    assert category("5h", "5d", "5s", "5c", "7h", "7c") == "four_of_a_kind"
    assert category("5h", "5d", "7s", "7c", "9h", "9c") == "three_pair"
    assert category("5h") == category() == "high_card"


# --------------------------------------------------------------------------- the grammar


@pytest.mark.parametrize(("condition", "atom"), [
    ("poker(first_four) == mini_royal", "poker(P1, B1, P2, B2) in [royal]"),
    ("poker([P1, B1, P3]) in [pair, flush]", "poker(P1, B1, P3) in [pair, flush]"),
    ("poker(P3, B1) >= straight_flush", "poker(B1, P3) in [straight_flush, royal, five_of_a_kind, six_of_a_kind]"),
    ("kind(all) >= 5", "kind(P1, B1, P2, B2, P3, B3) in [5, 6]"),
    ("kind_rank(player) == A", "kind_rank(P1, P2, P3) in [A]"),
    ("kind_rank(player) != none", "kind_rank(P1, P2, P3) in [A, 2, 3, 4, 5, 6, 7, 8, 9, 10, J, Q, K]"),
    ("flush(banker)", "flush(B1, B2, B3)"),
    ("pairs(all) >= 2", "pairs(P1, B1, P2, B2, P3, B3) in [2, 3]"),
    ("triples(all) >= 1", "triples(P1, B1, P2, B2, P3, B3) in [1, 2]"),
    ("count(colour == red, [P1, P2]) == 2", "count(colour in [red], P1, P2) in [2]"),
    ("player_two_card_total == banker_two_card_total", "player_two_card_total == banker_two_card_total"),
    ("poker(player) > poker(banker)", "poker(P1, P2, P3) > poker(B1, B2, B3)"),
    ("P3.rank == kind_rank(first_four)", "P3.rank == kind_rank(P1, B1, P2, B2)"),
])
def test_poker_values_and_comparisons_in_the_grammar(condition, atom):
    assert [a.text for a in compile_condition(condition).atoms] == [atom]


def test_outcome_features_compared_with_each_other():
    table = feature_table()
    np.testing.assert_array_equal(evaluate("player_score > banker_score"),
                                  table["player_score"] > table["banker_score"])
    np.testing.assert_array_equal(evaluate("player_cards == banker_cards"),
                                  table["player_cards"] == table["banker_cards"])
    np.testing.assert_array_equal(evaluate("player_score > banker_score"), evaluate("winner == player"))


def test_a_card_value_compared_with_an_outcome_feature_is_a_case_per_value():
    condition = compile_condition("player_two_card_total == banker_score")
    assert [a.text for a in condition.atoms] == [f"player_two_card_total in [{v}]" for v in range(10)]
    # Each card detail (one total) leaves the codes whose Banker score equals it.
    bits = {atom.text: np.arange(10) == v for v, atom in enumerate(condition.atoms)}
    mask = condition.mask(bits)
    np.testing.assert_array_equal(mask, np.arange(10)[:, None] == feature_table()["banker_score"][None, :])


@pytest.mark.parametrize(("condition", "message"), [
    ("poker(first_four) == full_hose", "no poker category 'full_hose'"),
    ("poker(first_four)", "needs a comparison"),
    ("kind_rank(all)", "needs a comparison"),
    ("poker(P1, P1) == pair", "names a position twice"),
    ("poker() == pair", "over no card"),
    ("poker([P1, P7]) == pair", "no card position 'P7'"),
    ("kind(first_four) == 5", "takes values 0 to 4, not '5'"),
    ("triples(first_four) == 2", "takes values 0 to 1, not '2'"),
    ("winner == first_card", "cannot be compared"),
    ("poker(player) == kind(banker)", "cannot be compared"),
    ("player_score == player_score", "compared with itself"),
    ("P1.suit < B1.suit", "no order"),
    ("P1.rank == B1.suit", "same attribute"),
])
def test_bad_poker_conditions_say_what_is_wrong(condition, message):
    with pytest.raises(ConditionError) as info:
        compile_condition(condition)
    assert message in str(info.value) and "\n" not in str(info.value)


def _every_key_of_up_to_six_cards() -> np.ndarray:
    """Every hand key of 0 to 6 cards: each multiset of ranks, with each set of suits (434,112 keys)."""
    keys = [sum(1 << (poker.RANK_FIELD_BITS * rank) for rank in ranks)
            for n in range(7) for ranks in itertools.combinations_with_replacement(range(13), n)]
    keys = np.array(keys, np.int64)
    return (keys[:, None] | (np.arange(16, dtype=np.int64)[None, :] << poker.SUIT_SHIFT)).ravel()


def test_the_bit_parallel_rank_fields_equal_a_loop_over_the_ranks_on_every_hand_of_up_to_six_cards():
    """The model reads the 13 rank fields at once (bit tricks); here each value is a loop over the ranks instead."""
    key = _every_key_of_up_to_six_cards()
    counts = np.stack([(key >> (3 * rank)) & 7 for rank in range(13)], axis=1)
    most = counts.max(axis=1)
    ace_high = np.concatenate([counts[:, 1:], counts[:, :1]], axis=1)  # 2..K, then the Ace
    top = np.where(most > 0, (12 - np.argmax((ace_high == most[:, None])[:, ::-1], axis=1) + 1) % 13, poker.NO_RANK)
    present = counts > 0

    def consecutive(marks):  # the marked ranks (columns) form one run
        first, last = np.argmax(marks, axis=1), marks.shape[1] - 1 - np.argmax(marks[:, ::-1], axis=1)
        return marks.any(axis=1) & (last - first + 1 == marks.sum(axis=1))

    suits = (key >> poker.SUIT_SHIFT) & 15
    two_or_more = counts.sum(axis=1) >= 2
    np.testing.assert_array_equal(poker.n_cards(key), counts.sum(axis=1))
    np.testing.assert_array_equal(poker.kind(key), most)
    np.testing.assert_array_equal(poker.kind_rank(key), top)
    np.testing.assert_array_equal(poker.pairs(key), (counts >= 2).sum(axis=1))
    np.testing.assert_array_equal(poker.triples(key), (counts >= 3).sum(axis=1))
    np.testing.assert_array_equal(poker.flush(key), two_or_more & np.isin(suits, [1, 2, 4, 8]))
    straight = two_or_more & (most == 1) & (consecutive(present) | consecutive(
        np.concatenate([present[:, 1:], present[:, :1]], axis=1)))
    np.testing.assert_array_equal(poker.straight(key), straight)
    assert straight.any() and (top == 0).any() and (poker.kind(key) == 6).any()
