"""Every engine against the tableau (issue 20): the third-card stage, naturals and codes derived once, here.

The oracle below reads the tableau's own tables (``PLAYER_DRAWS``, ``BANKER_DRAWS`` and ``is_natural`` of
:mod:`baccarat_sim.model.tableau`, held to the rule sheets' text in ``test_cards.py``) the way a dealer reads the
printed table, for arrays of rounds at once, and lays the result out by :func:`baccarat_sim.model.codes.encode`.
Every engine that resolves a round is then held to it:

* over every ordered combination of six point values (10^6 rounds): the Monte Carlo round function
  (``kernels.round.round_parts``), the tableau's table ``THIRD_CARD_PREFIX`` and the composition solver's
  coefficients;
* over every pair of two-card totals and third-card points: the exact kernels' third-card stage, the condition
  language's features (naturals, draws, card counts) and the reference dealer of the tests;
* over ranks and suits of the first four cards: the pair and first-card suffix of the round function, of the
  reference dealer and of the kernels' compiled helper;
* over every ordered six-card sequence of a small shoe: the exact kernel, the card-detail kernel (with atoms that
  read the third cards), the third cards of the Monte Carlo lanes' batches and the leak kernel (with the fifth
  card observed);
* over the ranks of the first four cards and the points of the third cards: the possible codes.
"""

from __future__ import annotations

import itertools

import numba
import numpy as np
import pytest

from baccarat_sim.engines.composition import _coefficients
from baccarat_sim.engines.detail import exact_detail_weights
from baccarat_sim.engines.exact import exact_histogram
from baccarat_sim.kernels import detail as D
from baccarat_sim.kernels import encoding as E
from baccarat_sim.kernels import exact as X
from baccarat_sim.kernels import round as R
from baccarat_sim.kernels.composition import BINOM, COLEX_TO_M
from baccarat_sim.kernels.leak import leak_counts
from baccarat_sim.kernels.outcome import suffix_of_cards
from baccarat_sim.model.codes import (
    N_CODES,
    N_SUFFIXES,
    banker_drew_of,
    cards_used_of,
    decode,
    encode,
    player_drew_of,
)
from baccarat_sim.model.conditions import compile_condition, feature_table, possible_codes
from baccarat_sim.model.tableau import BANKER_DRAWS, PLAYER_DRAWS, THIRD_CARD_PREFIX, is_natural, third_card_index

from . import reference_dealer as reference

#: A card id (rank * 4 + suit) worth each point value: Ace..9 for 1..9, a King for 0.
CARD_OF_POINT = np.array([12 * 4, 0, 4, 8, 12, 16, 20, 24, 28, 32], np.int64)


def tableau_round(p1, b1, p2, b2, fifth, sixth):
    """The round's scores, draws and cards used, by the tableau, for arrays of point values (dealing order).

    Returns
    -------
    dict of str to ndarray(int64)
        ``player_score``, ``banker_score``, ``player_cards``, ``banker_cards`` (0: two cards, 1: three, as the code
        has them), ``cards_used``, and the two-card totals ``player_two``, ``banker_two``.
    """
    player_two = (p1 + p2) % 10
    banker_two = (b1 + b2) % 10
    natural = is_natural(player_two) | is_natural(banker_two)  # a natural on either side: both hands stand
    player_drew = ~natural & (PLAYER_DRAWS[player_two] == 1)
    # The Banker's column: 0 when the Player stood, 1 + the Player's third card's point when it drew.
    banker_drew = ~natural & (BANKER_DRAWS[banker_two, np.where(player_drew, 1 + fifth, 0)] == 1)
    banker_third = np.where(player_drew, sixth, fifth)  # the next card after the Player's
    return {
        "player_score": np.where(player_drew, (player_two + fifth) % 10, player_two),
        "banker_score": np.where(banker_drew, (banker_two + banker_third) % 10, banker_two),
        "player_cards": player_drew.astype(np.int64),
        "banker_cards": banker_drew.astype(np.int64),
        "cards_used": 4 + player_drew + banker_drew,
        "player_two": player_two,
        "banker_two": banker_two,
    }


def pair_and_first_card(c0, c1, c2, c3):
    """``player_pair``, ``banker_pair`` and ``first_card`` of the first four card ids (arrays), as the code has them."""
    r0, r1, r2, r3 = (np.asarray(c) // 4 for c in (c0, c1, c2, c3))
    return {
        "player_pair": np.where(r0 != r2, 0, np.where(c0 == c2, 2, 1)),
        "banker_pair": np.where(r1 != r3, 0, np.where(c1 == c3, 2, 1)),
        "first_card": np.where(r0 > r1, 0, np.where(r0 < r1, 1, np.where(c0 == c1, 3, 2))),
    }


def tableau_codes(cards: np.ndarray) -> np.ndarray:
    """Outcome code of each row of six card ids (dealing order), by the oracle."""
    points = [reference_points(cards[:, i]) for i in range(6)]
    rounds = tableau_round(*points)
    fields = {name: rounds[name] for name in ("player_score", "banker_score", "player_cards", "banker_cards")}
    return encode(**fields, **pair_and_first_card(cards[:, 0], cards[:, 1], cards[:, 2], cards[:, 3]))


def reference_points(cards) -> np.ndarray:
    """Point value of card ids, as the rule sheets give them (Ace 1, 2-9 face value, tens and faces 0)."""
    rank = np.asarray(cards) // 4
    return np.where(rank <= 8, rank + 1, 0)


@numba.njit
def _round_parts_rows(encoded):
    """``kernels.round.round_parts`` of every row of six encoded cards: ``(prefix, suffix, cards_used)`` rows."""
    out = np.empty((encoded.shape[0], 3), np.int64)
    for i in range(encoded.shape[0]):
        prefix, suffix, used = R.round_parts(encoded[i, 0], encoded[i, 1], encoded[i, 2], encoded[i, 3],
                                             encoded[i, 4], encoded[i, 5])
        out[i, 0] = prefix
        out[i, 1] = suffix
        out[i, 2] = used
    return out


@numba.njit
def _suffix_rows(cards):
    """``kernels.outcome.suffix_of_cards`` of every row of four card ids."""
    out = np.empty(cards.shape[0], np.int64)
    for i in range(cards.shape[0]):
        out[i] = suffix_of_cards(cards[i, 0], cards[i, 1], cards[i, 2], cards[i, 3])
    return out


@pytest.fixture(scope="module")
def every_point_sequence():
    """Every ordered six-tuple of point values (10^6 rows) and the oracle's round for each."""
    points = np.array(list(itertools.product(range(10), repeat=6)), np.int64)
    return points, tableau_round(*(points[:, i] for i in range(6)))


def stage_grid():
    """Every (player two-card total, banker two-card total, fifth point, sixth point), as columns."""
    grid = np.array(list(itertools.product(range(10), repeat=4)), np.int64)
    return tuple(grid[:, i] for i in range(4))


# --------------------------------------------------------------------------- point values: the prefix


def test_the_tableau_table_is_the_tableau():
    pt, bt, fifth, sixth = stage_grid()
    # Two-card totals as the first four cards' points: Player 0 + pt, Banker 0 + bt.
    rounds = tableau_round(np.zeros_like(pt), np.zeros_like(bt), pt, bt, fifth, sixth)
    expected = encode(rounds["player_score"], rounds["banker_score"], rounds["player_cards"],
                      rounds["banker_cards"], 0, 0, 0) // N_SUFFIXES
    np.testing.assert_array_equal(THIRD_CARD_PREFIX[third_card_index(pt, bt, fifth, sixth)], expected)
    np.testing.assert_array_equal(cards_used_of(expected), rounds["cards_used"])
    np.testing.assert_array_equal(player_drew_of(expected), rounds["player_cards"])
    np.testing.assert_array_equal(banker_drew_of(expected), rounds["banker_cards"])


def test_monte_carlo_round_function_on_every_point_sequence(every_point_sequence):
    points, rounds = every_point_sequence
    cards = CARD_OF_POINT[points]
    parts = _round_parts_rows(E.encode_cards(cards).astype(np.int64))
    expected_prefix = encode(rounds["player_score"], rounds["banker_score"], rounds["player_cards"],
                             rounds["banker_cards"], 0, 0, 0) // N_SUFFIXES
    np.testing.assert_array_equal(parts[:, 0], expected_prefix)
    np.testing.assert_array_equal(parts[:, 2], rounds["cards_used"])
    fields = pair_and_first_card(cards[:, 0], cards[:, 1], cards[:, 2], cards[:, 3])
    np.testing.assert_array_equal(parts[:, 1], encode(0, 0, 0, 0, **fields))


def test_composition_coefficients_count_the_tableau_over_every_point_sequence(every_point_sequence):
    # The solver's coefficient A[prefix, multiset] counts the point sequences of that multiset ending in that prefix.
    points, rounds = every_point_sequence
    prefix = encode(rounds["player_score"], rounds["banker_score"], rounds["player_cards"], rounds["banker_cards"],
                    0, 0, 0) // N_SUFFIXES
    ordered = np.sort(points, axis=1)
    colex = sum(BINOM[ordered[:, i] + i, i + 1] for i in range(6))
    expected = np.zeros_like(_coefficients())
    np.add.at(expected, (prefix, COLEX_TO_M[colex]), 1)
    np.testing.assert_array_equal(_coefficients(), expected)


# --------------------------------------------------------------------------- two-card totals and third cards


@pytest.mark.parametrize("compiled", [True, False], ids=["compiled", "python"])
def test_exact_third_card_stage_on_every_pair_of_totals(compiled):
    # Cards left per point value, all different, so that each entry's weight says which cards it took.
    remaining = np.array([11, 3, 4, 5, 6, 7, 8, 9, 10, 2], np.int64)
    n_left = int(remaining.sum())
    stage = X.third_card_stage if compiled else X.third_card_stage.py_func
    prefixes, weights = np.zeros(128, np.int64), np.zeros(128, np.int64)
    for pt, bt in itertools.product(range(10), repeat=2):
        n = stage(pt, bt, remaining, n_left, prefixes, weights)
        got = np.zeros(400, np.int64)
        np.add.at(got, prefixes[:n], weights[:n])
        fifth, sixth = (a.ravel() for a in np.meshgrid(np.arange(10), np.arange(10), indexing="ij"))
        rounds = tableau_round(0, 0, np.full(100, pt), np.full(100, bt), fifth, sixth)
        expected = np.zeros(400, np.int64)
        ways = remaining[fifth] * (remaining[sixth] - (fifth == sixth))  # every ordered (fifth, sixth) card pair
        np.add.at(expected, encode(rounds["player_score"], rounds["banker_score"], rounds["player_cards"],
                                   rounds["banker_cards"], 0, 0, 0) // N_SUFFIXES, ways)
        np.testing.assert_array_equal(got, expected, err_msg=f"two-card totals {pt}, {bt}")


def test_condition_features_on_every_pair_of_totals():
    pt, bt, fifth, sixth = stage_grid()
    rounds = tableau_round(np.zeros_like(pt), np.zeros_like(bt), pt, bt, fifth, sixth)
    features = feature_table()
    for suffix in range(N_SUFFIXES):  # the features of the prefix hold whatever the pairs and first cards
        codes = encode(rounds["player_score"], rounds["banker_score"], rounds["player_cards"], rounds["banker_cards"],
                       0, 0, 0) + suffix
        player_natural = is_natural(pt) & (rounds["cards_used"] == 4)
        banker_natural = is_natural(bt) & (rounds["cards_used"] == 4)
        np.testing.assert_array_equal(features["player_natural"][codes], player_natural)
        np.testing.assert_array_equal(features["banker_natural"][codes], banker_natural)
        np.testing.assert_array_equal(features["natural"][codes], is_natural(pt) | is_natural(bt))
        np.testing.assert_array_equal(features["player_drew"][codes], rounds["player_cards"])
        np.testing.assert_array_equal(features["banker_drew"][codes], rounds["banker_cards"])
        np.testing.assert_array_equal(features["player_cards"][codes], 2 + rounds["player_cards"])
        np.testing.assert_array_equal(features["banker_cards"][codes], 2 + rounds["banker_cards"])
        np.testing.assert_array_equal(features["total_cards"][codes], rounds["cards_used"])
        np.testing.assert_array_equal(features["player_score"][codes], rounds["player_score"])
        np.testing.assert_array_equal(features["banker_score"][codes], rounds["banker_score"])


def test_reference_dealer_on_every_pair_of_totals():
    pt, bt, fifth, sixth = stage_grid()
    rounds = tableau_round(np.zeros_like(pt), np.zeros_like(bt), pt, bt, fifth, sixth)
    for i in range(pt.size):
        # Player K then pt, Banker 10 then bt (a ten counts 0): no pair, the Player's King above the Banker's ten.
        cards = [12 * 4, 9 * 4, int(CARD_OF_POINT[pt[i]]) + 1, int(CARD_OF_POINT[bt[i]]) + 2,
                 int(CARD_OF_POINT[fifth[i]]) + 3, int(CARD_OF_POINT[sixth[i]]) + 3]
        dealt = reference.deal_round(cards)
        assert (dealt.player_score, dealt.banker_score, dealt.cards_used, len(dealt.player) - 2,
                len(dealt.banker) - 2) == (rounds["player_score"][i], rounds["banker_score"][i],
                                           rounds["cards_used"][i], rounds["player_cards"][i],
                                           rounds["banker_cards"][i]), cards


# --------------------------------------------------------------------------- ranks and suits: the suffix


def test_pair_and_first_card_suffix_over_ranks_and_suits():
    # Ranks that give every order and equality (Ace low, King high), every suit: 20 card ids, 160,000 first fours.
    ids = np.array([rank * 4 + suit for rank in (0, 1, 5, 9, 12) for suit in range(4)], np.int64)
    first_four = np.array(list(itertools.product(ids, repeat=4)), np.int64)
    expected = encode(0, 0, 0, 0, **pair_and_first_card(*(first_four[:, i] for i in range(4))))
    np.testing.assert_array_equal(_suffix_rows(first_four), expected)
    # The round function: the same first four, then two cards that end the round on naturals or not.
    six = np.concatenate([first_four, np.full((len(first_four), 2), 12 * 4)], axis=1)
    np.testing.assert_array_equal(_round_parts_rows(E.encode_cards(six).astype(np.int64))[:, 1], expected)
    assert set(np.unique(expected)) == set(range(N_SUFFIXES))  # every pair and first-card value was reached
    for row in first_four[::97]:
        dealt = reference.deal_round([*map(int, row), 12 * 4, 12 * 4])
        assert dealt.code % N_SUFFIXES == encode(0, 0, 0, 0, **pair_and_first_card(*row))


# --------------------------------------------------------------------------- whole rounds of a small shoe

#: 14 cards: naturals, both third-card branches, pairs, suited pairs (two identical cards) and first-card ties.
SMALL_SHOE = (0, 1, 4, 11, 15, 16, 21, 24, 30, 35, 36, 49, 49, 11)


def small_shoe_sequences() -> tuple[np.ndarray, np.ndarray]:
    """The shoe as counts per rank and suit, and every ordered six-card sequence of its physical cards."""
    shoe = np.zeros((13, 4), np.int64)
    for card in SMALL_SHOE:
        shoe[card // 4, card % 4] += 1
    ids = np.array(SMALL_SHOE, np.int64)
    sequences = ids[np.array(list(itertools.permutations(range(len(ids)), 6)), np.int64)]
    return shoe, sequences


@pytest.fixture(scope="module")
def small_shoe():
    shoe, sequences = small_shoe_sequences()
    codes = tableau_codes(sequences)
    return shoe, sequences, codes, np.bincount(codes, minlength=N_CODES)


def test_exact_kernel_on_every_sequence_of_a_small_shoe(small_shoe):
    shoe, _, _, expected = small_shoe
    np.testing.assert_array_equal(exact_histogram(shoe).counts, expected)
    # The shoe reaches naturals, every draw, pairs, suited pairs and suited first-card ties.
    fields = decode(np.flatnonzero(expected))
    assert {0, 1} <= set(fields["player_cards"]) and {0, 1} <= set(fields["banker_cards"])
    assert 2 in set(fields["player_pair"]) and 3 in set(fields["first_card"])


def tableau_third_cards(sequences) -> tuple[np.ndarray, np.ndarray]:
    """The third cards (the Player's, the Banker's; 52: none) of six-card sequences, by the tableau.

    The Player's is the fifth card; the Banker's the sixth after a Player draw, the fifth after a stand.
    """
    rounds = tableau_round(*(reference_points(sequences[:, i]) for i in range(6)))
    none = 52
    p3 = np.where(rounds["player_cards"] == 1, sequences[:, 4], none)
    b3 = np.where(rounds["banker_cards"] == 0, none, np.where(rounds["player_cards"] == 1, sequences[:, 5],
                                                                sequences[:, 4]))
    return p3, b3


def test_card_detail_kernel_reads_the_third_cards_of_the_tableau(small_shoe):
    # Atoms on the third cards: the detail kernel must give each round its Player's and Banker's third card as the
    # tableau deals them (the fifth card, or the sixth after a Player draw).
    shoe, sequences, codes, expected = small_shoe
    texts = ("P3.point in [1, 3, 5, 7, 9]", "B3.rank == none", "B3.colour == red")
    atoms = tuple(compile_condition(text).atoms[0] for text in texts)
    weights = exact_detail_weights(atoms, shoe, 2)
    np.testing.assert_array_equal(weights.sum(axis=0), expected)
    p3, b3 = tableau_third_cards(sequences)
    bits = sum(_atom_values(atom, p3, b3) << i for i, atom in enumerate(atoms))
    by_bits = np.zeros_like(weights)
    np.add.at(by_bits, (bits, codes), 1)
    np.testing.assert_array_equal(weights, by_bits)


def test_the_batch_of_the_monte_carlo_lanes_reads_the_third_cards_of_the_tableau(small_shoe):
    # The lanes put each round in a batch with the two cards after the first four; count_batch's first pass makes
    # them the hands' third cards by the round's prefix (model.tableau.third_cards, compiled).
    _, sequences, codes, _ = small_shoe
    p3, b3 = tableau_third_cards(sequences)
    none = 52
    bits = D.BATCH_CARD_BITS
    words = sum(sequences[:, i] << (bits * i) for i in range(6)).astype(np.int64)
    D._resolve_third_cards(words, (codes // N_SUFFIXES).astype(np.int64), len(words))
    np.testing.assert_array_equal(words >> (4 * bits) & ((1 << bits) - 1), p3)
    np.testing.assert_array_equal(words >> (5 * bits), b3)
    np.testing.assert_array_equal(words & ((1 << (4 * bits)) - 1),
                                  sum(sequences[:, i] << (bits * i) for i in range(4)))
    assert {none} < set(p3.tolist()) and {none} < set(b3.tolist())  # the shoe reaches draws and stands


def _atom_values(atom, p3, b3) -> np.ndarray:
    """An atom over the third cards, for arrays of card values (52: no card)."""
    index = np.zeros(len(p3), np.int64)
    for j, (position, stride) in enumerate(zip(atom.positions, atom.strides)):
        index += atom.projection[j, {"P3": p3, "B3": b3}[position]] * stride
    return atom.truth[index].astype(np.int64)


def test_leak_kernel_on_every_sequence_of_a_small_shoe(small_shoe):
    shoe, sequences, codes, expected = small_shoe
    line_col = np.arange(N_CODES, dtype=np.int64)[None, :]  # one "bet" whose lines are the codes themselves
    # Nothing observed: one pattern, the code histogram.
    out = np.zeros((1, N_CODES), np.int64)
    leak_counts(shoe, np.zeros((4, 52), np.int64), np.zeros((2, 10), np.int64), np.zeros(6, np.int64), line_col, out)
    np.testing.assert_array_equal(out[0], expected)
    # The fifth card's point observed: one pattern per point value, whether the round uses the card or not.
    third_class = np.zeros((2, 10), np.int64)
    third_class[0] = np.arange(10)
    radix = np.array([0, 0, 0, 0, 1, 0], np.int64)
    out = np.zeros((10, N_CODES), np.int64)
    leak_counts(shoe, np.zeros((4, 52), np.int64), third_class, radix, line_col, out)
    by_fifth = np.zeros((10, N_CODES), np.int64)
    np.add.at(by_fifth, (reference_points(sequences[:, 4]), codes), 1)
    np.testing.assert_array_equal(out, by_fifth)


def test_exact_kernels_agree_on_a_full_deck():
    # One deck reaches every cell of the tableau; the card-detail kernel summed over its atoms is the exact kernel.
    atoms = (compile_condition("P3.rank == none").atoms[0],)
    weights = exact_detail_weights(atoms, np.ones((13, 4), np.int64), 2)
    np.testing.assert_array_equal(weights.sum(axis=0), exact_histogram(1).counts)


# --------------------------------------------------------------------------- possible codes


def test_possible_codes_are_the_codes_the_tableau_deals():
    ranks = np.arange(13)
    r = np.array(list(itertools.product(ranks, repeat=4)), np.int64)
    points = np.where(r <= 8, r + 1, 0)
    fifth, sixth = np.arange(10)[:, None], np.arange(10)[None, :]
    possible = np.zeros(N_CODES, bool)
    # Equal ranks may be equal or different suits, independently for each of the three relations.
    for p_suited, b_suited, f_suited in itertools.product((False, True), repeat=3):
        fields = {
            "player_pair": np.where(r[:, 0] != r[:, 2], 0, 1 + p_suited),
            "banker_pair": np.where(r[:, 1] != r[:, 3], 0, 1 + b_suited),
            "first_card": np.where(r[:, 0] > r[:, 1], 0, np.where(r[:, 0] < r[:, 1], 1, 2 + f_suited)),
        }
        signature = np.unique(np.stack([points[:, 0] + points[:, 2], points[:, 1] + points[:, 3],
                                        encode(0, 0, 0, 0, **fields)], axis=1) % [10, 10, N_CODES], axis=0)
        for pt, bt, suffix in signature:
            rounds = tableau_round(0, 0, pt, bt, fifth, sixth)
            possible[encode(rounds["player_score"], rounds["banker_score"], rounds["player_cards"],
                            rounds["banker_cards"], 0, 0, 0) + suffix] = True
    np.testing.assert_array_equal(possible_codes(), possible)
