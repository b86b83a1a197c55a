"""The numba dealing kernel against the plain-Python reference dealer, on hand-built rounds and shoes.

Three implementations meet here: the compiled kernels (:mod:`baccarat_sim.kernels.round`,
:mod:`baccarat_sim.kernels.shoe`, :mod:`baccarat_sim.kernels.dealing`, ...), the same source run as plain Python
(``py_func``, and a subprocess with ``NUMBA_DISABLE_JIT=1`` for whole blocks), and the reference dealer
(:mod:`tests.reference_dealer`), written independently from the rule sheets. The banker
table is transcribed again here from ``shared/rulesheets/live-8deck-side-bets.txt`` ("Third Card Rules").
"""

import dataclasses
import functools
import json
import math
import os
import subprocess
import sys
import textwrap

import numba
import numpy as np
import pytest

from baccarat_sim import load_rules
from baccarat_sim.engines.plan import plan_run
from baccarat_sim.kernels import dealing as DL
from baccarat_sim.kernels import encoding as E
from baccarat_sim.kernels import fresh as F
from baccarat_sim.kernels import mc as MC
from baccarat_sim.kernels import rng as RNG
from baccarat_sim.kernels import round as R
from baccarat_sim.kernels import shoe as S
from baccarat_sim.kernels import shuffle as SH
from baccarat_sim.model.codes import N_CODES, decode
from baccarat_sim.model.shoe import canonical_cards

from . import reference_dealer as reference

RANKS = {"A": 0, "2": 1, "3": 2, "4": 3, "5": 4, "6": 5, "7": 6, "8": 7, "9": 8, "10": 9, "J": 10, "Q": 11, "K": 12}
SUITS = {"s": 0, "h": 1, "d": 2, "c": 3}

#: Banker two-card total -> points of the Player's third card on which the Banker draws (rule sheet).
BANKER_DRAWS_ON = {0: set(range(10)), 1: set(range(10)), 2: set(range(10)), 3: set(range(10)) - {8},
                   4: {2, 3, 4, 5, 6, 7}, 5: {4, 5, 6, 7}, 6: {6, 7}, 7: set()}


def hand(text):
    """Card ids from text such as ``"Ks 8h 10d"`` (a bare rank gets spades)."""
    out = []
    for token in text.split():
        rank, suit = (token[:-1], token[-1]) if token[-1] in SUITS else (token, "s")
        out.append(RANKS[rank] * 4 + SUITS[suit])
    return out


def kernel_round(cards, compiled=True):
    encoded = [int(e) for e in E.encode_cards(cards[:6])]
    function = R.round_code if compiled else R.round_code.py_func
    code, used = function(*encoded)
    return int(code), int(used)


def assert_round_agrees(cards):
    expected = reference.deal_round(cards)
    for compiled in (True, False):
        assert kernel_round(cards, compiled) == (expected.code, expected.cards_used), (cards, compiled)
    return expected


# --- single rounds ------------------------------------------------------------------------------------------------

ROUNDS = {
    # name: (cards P B P B P3 B3, expected fields that matter)
    "player natural 9 vs banker 7": ("4 3 5 4 2 2", dict(player_score=9, banker_score=7, player_cards=0,
                                                         banker_cards=0)),
    "banker natural 8 vs player 0": ("K 3 Q 5 2 2", dict(player_score=0, banker_score=8, player_cards=0,
                                                         banker_cards=0)),
    "natural 8 tie": ("3 2 5 6 9 9", dict(player_score=8, banker_score=8, player_cards=0, banker_cards=0)),
    "natural 9 beats natural 8": ("9 8 K J 5 5", dict(player_score=9, banker_score=8)),
    "player stands on 6, banker draws on 5": ("3 2 3 3 4 7", dict(player_score=6, banker_score=9,
                                                                  player_cards=0, banker_cards=1)),
    "player stands on 7, banker stands on 6": ("3 3 4 3 9 9", dict(player_score=7, banker_score=6,
                                                                   player_cards=0, banker_cards=0)),
    "player stands on 6, banker stands on 7": ("3 3 3 4 9 9", dict(player_cards=0, banker_cards=0)),
    "both draw, banker 0 on a 9": ("K Q J 10 9 9", dict(player_score=9, banker_score=9, player_cards=1,
                                                        banker_cards=1)),
    "player pair": ("8h 2s 8s 3s K K", dict(player_pair=1, banker_pair=0)),
    "player suited pair": ("8h 2s 8h 3s K K", dict(player_pair=2)),
    "banker pair and player pair": ("Qd Jc Qh Js 5 5", dict(player_pair=1, banker_pair=1)),
    "banker suited pair": ("2s Jc 3s Jc 5 5", dict(banker_pair=2, player_pair=0)),
    "first card player higher (K over A)": ("K A 5 5 5 5", dict(first_card=0)),
    "first card banker higher (A under 2)": ("A 2 5 5 5 5", dict(first_card=1)),
    "first card equal rank": ("7h 7d 5 5 5 5", dict(first_card=2)),
    "first card identical": ("7h 7h 5 5 5 5", dict(first_card=3)),
    "J under Q under K": ("J Q 5 5 5 5", dict(first_card=1)),
}


@pytest.mark.parametrize("name", ROUNDS)
def test_hand_built_rounds(name):
    text, fields = ROUNDS[name]
    expected = assert_round_agrees(hand(text))
    got = expected.fields()
    assert {key: got[key] for key in fields} == fields, name


BANKER_TWO_CARDS = {0: "10 Q", 1: "A 10", 2: "A A", 3: "A 2", 4: "2 2", 5: "2 3", 6: "3 3", 7: "3 4"}
THIRD_CARD_OF_POINT = {0: "J", **{p: ["A", "2", "3", "4", "5", "6", "7", "8", "9"][p - 1] for p in range(1, 10)}}


@pytest.mark.parametrize("banker_total", range(8))
@pytest.mark.parametrize("player_third", [None, *range(10)])
def test_every_banker_third_card_cell(banker_total, player_third):
    b1, b2 = BANKER_TWO_CARDS[banker_total].split()
    if player_third is None:  # Player stands on 6: the Banker draws on 0-5
        cards = hand(f"3 {b1} 3 {b2} 9 9")
        banker_draws = banker_total <= 5
    else:  # Player 0 draws the card of point player_third
        cards = hand(f"K {b1} Q {b2} {THIRD_CARD_OF_POINT[player_third]} 9")
        banker_draws = player_third in BANKER_DRAWS_ON[banker_total]
    expected = assert_round_agrees(cards)
    player_cards = 0 if player_third is None else 1
    assert expected.fields()["player_cards"] == player_cards
    assert expected.fields()["banker_cards"] == int(banker_draws)
    assert expected.cards_used == 4 + player_cards + int(banker_draws)


def test_random_rounds_agree_with_the_reference():
    rng = np.random.default_rng(20240611)
    shoe = reference.shoe_cards(np.full((13, 4), 8))
    for _ in range(3000):
        picks = rng.choice(len(shoe), 6, replace=False)
        assert_round_agrees([shoe[i] for i in picks])


def test_dealt_round_reads_the_shoe_in_order():
    cards = hand("5 K 2 9 8 3 4 4 K K 7 2 A A J 6")
    encoded = E.encode_cards(cards)
    position = 0
    while position + 6 <= len(cards):
        expected = reference.deal_round(cards[position:])
        code, used = R.dealt_round(encoded, position)
        assert (int(code), int(used)) == (expected.code, expected.cards_used)
        position += used


def test_round_code_covers_the_code_space_consistently():
    """Every code the kernel makes decodes to fields that the reference would produce from those cards."""
    rng = np.random.default_rng(3)
    shoe = reference.shoe_cards(np.full((13, 4), 1))  # one deck: many pairs and identical first cards
    seen = set()
    for _ in range(4000):
        cards = [shoe[i] for i in rng.choice(52, 6, replace=False)]
        code, _ = kernel_round(cards)
        seen.add(code)
        assert {k: int(v) for k, v in decode(code).items()} == reference.deal_round(cards).fields()
    assert all(0 <= c < N_CODES for c in seen)


# --- whole shoes ------------------------------------------------------------------------------------------------

@functools.cache
def rules_with(**shoe):
    base = load_rules("default")
    return dataclasses.replace(base, shoe=dataclasses.replace(base.shoe, model="dealt", **shoe))


def params_for(**shoe):
    return np.array(plan_run(rules_with(**shoe), 1, 0, model="dealt").shoe_params, np.int64)


def kernel_shoe(cards, cut_index, params, compiled=True):
    """Codes of the rounds dealt by the kernel, in order (one count per position row)."""
    counts = np.zeros((len(cards) // 4 + 1, N_CODES), np.int64)
    function = DL.deal_through if compiled else DL.deal_through.py_func
    rounds = int(function(E.encode_cards(cards), cut_index, params, counts))
    assert counts.sum() == rounds and (counts.sum(axis=1)[:rounds] == 1).all()
    return [int(np.argmax(row)) for row in counts[:rounds]]


def reference_shoe(cards, cut_index, **shoe):
    return [r.code for r in reference.deal_shoe(cards, cut_index, rules_with(**shoe).shoe)]


SHOE_RULES = {
    "face value burn, turned card discarded": dict(burn="face_value", ten_value=10, discard_turned=True),
    "face value burn, turned card is the first burned": dict(burn="face_value", ten_value=10,
                                                             discard_turned=False),
    "fixed burn of 3, one more round": dict(burn="fixed", burn_cards=3, rounds_after_cut=1),
    "no burn": dict(burn="none"),
}


@pytest.mark.parametrize("rules_name", SHOE_RULES)
def test_shuffled_shoes_agree_with_the_reference(rules_name):
    shoe = SHOE_RULES[rules_name]
    params = params_for(**shoe)
    rng = np.random.default_rng(len(rules_name))
    cards = reference.shoe_cards(np.full((13, 4), 8))
    for trial in range(12):
        rng.shuffle(cards)
        cut_index = int(rng.integers(20, len(cards) + 1))
        expected = reference_shoe(cards, cut_index, **shoe)
        assert kernel_shoe(cards, cut_index, params) == expected, (trial, cut_index)
    assert kernel_shoe(cards, cut_index, params, compiled=False) == expected


def round_starts(cards, **shoe):
    """Where each round of an uncut shoe starts, by the reference dealer."""
    position = reference.cards_before_first_round(cards[0], rules_with(**shoe).shoe)
    starts = []
    for round_ in reference.deal_shoe(cards, len(cards), rules_with(**shoe).shoe):
        starts.append(position)
        position += round_.cards_used
    return starts


@pytest.mark.parametrize("after", [0, 1])
def test_cut_card_edges(after):
    rng = np.random.default_rng(17)
    cards = reference.shoe_cards(np.full((13, 4), 1))
    rng.shuffle(cards)
    shoe = dict(burn="none", rounds_after_cut=after)
    params = params_for(**shoe)
    starts = round_starts(cards, **shoe)
    j = 3
    uncut = kernel_shoe(cards, len(cards), params)
    cases = {
        "cut card out exactly at the first card of round j": (starts[j], j + 1),
        "cut card before the second card of round j": (starts[j] + 1, j + 1),
        "cut card before the last card of round j": (starts[j + 1] - 1, j + 1),
        "cut card after round j's last card (round j + 1's first)": (starts[j + 1], j + 2),
    }
    for name, (cut_index, last_round) in cases.items():
        got = kernel_shoe(cards, cut_index, params)
        assert got == reference_shoe(cards, cut_index, **shoe), name
        assert len(got) == last_round + after, name
        assert got == uncut[:len(got)], name  # the cut card changes where dealing stops, nothing else


@pytest.mark.parametrize("after", [0, 2])
@pytest.mark.parametrize("turned", ["A", "9", "K"])
def test_every_cut_position_agrees_with_the_reference(turned, after):
    """The shoe's end (``kernels.shoe.shoe_end``) at every cut index of a one-deck shoe: the burn reaching past
    the cut card (the first round is then the cut card's), the cut card coming out in each round, the rounds after
    it running out of cards, a shoe never cut."""
    rng = np.random.default_rng(31 + after)
    shoe = dict(burn="face_value", ten_value=10, discard_turned=True, rounds_after_cut=after)
    params = params_for(**shoe)
    for trial in range(3):
        rest = reference.shoe_cards(np.full((13, 4), 1))
        rng.shuffle(rest)
        cards = hand(turned) + rest[:51]
        first = reference.cards_before_first_round(cards[0], rules_with(**shoe).shoe)
        for cut_index in range(len(cards) + 1):
            expected = reference_shoe(cards, cut_index, **shoe)
            assert kernel_shoe(cards, cut_index, params) == expected, (trial, cut_index)
            # The round-by-round form the sessions and counting kernels deal with: the same rounds.
            position, rounds = first, 0
            stop, more = S.shoe_end(first, len(cards), cut_index)
            while S.another_round(position, stop, more):
                position += reference.deal_round(cards[position:position + 6]).cards_used
                rounds += 1
                stop, more = S.after_round(position, stop, more, len(cards), cut_index, params)
            assert rounds == len(expected), (trial, cut_index)


def test_uncut_shoe_deals_while_six_cards_are_left():
    rng = np.random.default_rng(99)
    cards = reference.shoe_cards(np.full((13, 4), 1))
    shoe = dict(burn="none")
    for _ in range(20):
        rng.shuffle(cards)
        got = kernel_shoe(cards, len(cards), params_for(**shoe))
        assert got == reference_shoe(cards, len(cards), **shoe)
        left = len(cards) - sum(reference.deal_round(cards[s:]).cards_used for s in round_starts(cards, **shoe))
        assert left < 6  # with six left, one more round would have been dealt


@pytest.mark.parametrize("turned, discard, first_round_at", [
    ("A", True, 2), ("A", False, 1), ("9", True, 10), ("9", False, 9), ("10", True, 11), ("K", True, 11),
    ("Q", False, 10), ("5", True, 6),
])
def test_burn_by_face_value(turned, discard, first_round_at):
    rng = np.random.default_rng(5)
    rest = reference.shoe_cards(np.full((13, 4), 1))
    rng.shuffle(rest)
    cards = hand(turned) + rest
    shoe = dict(burn="face_value", ten_value=10, discard_turned=discard)
    assert reference.cards_before_first_round(cards[0], rules_with(**shoe).shoe) == first_round_at
    got = kernel_shoe(cards, len(cards) - 10, params_for(**shoe))
    assert got == reference_shoe(cards, len(cards) - 10, **shoe)
    assert got[0] == reference.deal_round(cards[first_round_at:]).code


def test_fixed_burn_skips_the_turned_card_rule():
    cards = hand("A K K 2 3 4 5 6 7 8 9 10 J Q K A 2 3 4 5 6")
    shoe = dict(burn="fixed", burn_cards=4)
    assert kernel_shoe(cards, len(cards), params_for(**shoe))[0] == reference.deal_round(cards[4:]).code


# --- the random parts ---------------------------------------------------------------------------------------------

@numba.njit(cache=True)
def _positions_histogram(n_cards, draws, seed):
    buffer = np.empty(F.FRESH_DRAWS, np.uint64)
    cursor = F.open_fresh_block(np.uint64(seed), 0, n_cards, buffer)
    counts = np.zeros(n_cards ** 2, np.int64)
    repeats = 0
    for _ in range(draws):
        j0, j1, j2, j3, j4, j5, cursor = F.fresh_positions(buffer, cursor)
        counts[j0 * n_cards + j5] += 1
        repeats += ((j0 == j1) + (j0 == j2) + (j0 == j3) + (j0 == j4) + (j0 == j5) + (j1 == j2) + (j1 == j3)
                    + (j1 == j4) + (j1 == j5) + (j2 == j3) + (j2 == j4) + (j2 == j5) + (j3 == j4) + (j3 == j5)
                    + (j4 == j5))
    return counts, repeats


@numba.njit(cache=True)
def _six_of_seven(draws, seed):
    """Histogram of the ordered 6-sample of 7 positions (5040 cells), by its left-out position and order."""
    buffer = np.empty(F.FRESH_DRAWS, np.uint64)
    cursor = F.open_fresh_block(np.uint64(seed), 0, 7, buffer)
    counts = np.zeros(7 ** 6, np.int64)
    for _ in range(draws):
        j0, j1, j2, j3, j4, j5, cursor = F.fresh_positions(buffer, cursor)
        counts[((((j0 * 7 + j1) * 7 + j2) * 7 + j3) * 7 + j4) * 7 + j5] += 1
    return counts


@numba.njit(cache=True)
def _fresh_samples(seed, block, n_cards, draws):
    buffer = np.empty(F.FRESH_DRAWS, np.uint64)
    cursor = F.open_fresh_block(np.uint64(seed), block, n_cards, buffer)
    out = np.empty((draws, 6), np.int64)
    for k in range(draws):
        j0, j1, j2, j3, j4, j5, cursor = F.fresh_positions(buffer, cursor)
        out[k] = (j0, j1, j2, j3, j4, j5)
    return out


def py_fresh_samples(seed, block, n_cards, draws):
    """A fresh block's samples in plain Python: each of the 32 generators' outputs in turn, as big integers."""
    from .test_rng import py_block_state, py_next  # the generators' twin

    states = [py_block_state(seed, block, RNG.STREAM_DEAL, g) for g in range(F.FRESH_GENERATORS)]
    product = n_cards ** 3
    samples = []
    while len(samples) < draws:
        for g in range(F.FRESH_GENERATORS):
            x, states[g] = py_next(states[g])
            sample, unbiased = [], True
            for bits in (x >> 32, x & 0xFFFFFFFF):
                m = bits * product
                unbiased &= (m & 0xFFFFFFFF) >= (1 << 32) % product  # Lemire's threshold on the product range
                draw = m >> 32
                sample += [draw // n_cards ** 2, draw // n_cards % n_cards, draw % n_cards]
            if unbiased and len(set(sample)) == 6:
                samples.append(tuple(sample))
    return samples[:draws]


def test_every_shoe_the_model_allows_fits_a_fresh_block():
    from baccarat_sim.model.shoe import MAX_CARDS

    assert MAX_CARDS <= F.FRESH_MAX_CARDS and F.FRESH_MAX_CARDS**3 <= 2**32 < (F.FRESH_MAX_CARDS + 1)**3


@pytest.mark.parametrize("seed, block, n_cards", [(5, 0, 416), (2**62 + 9, 77, 7), (12, 3, 1450)])
def test_fresh_positions_are_the_twins_accepted_candidates(seed, block, n_cards):
    draws = 300
    expected = py_fresh_samples(seed, block, n_cards, draws)
    assert [tuple(int(j) for j in row) for row in _fresh_samples(seed, block, n_cards, draws)] == expected


@numba.njit(cache=True)
def _prefix_histogram(n_cards, m, draws, seed):
    state = RNG.block_state(np.uint64(seed), 0)
    cards = np.arange(n_cards).astype(np.int32)
    counts = np.zeros(n_cards ** 2, np.int64)
    for _ in range(draws):
        state = SH.shuffle_prefix(cards, m, state)
        counts[cards[0] * n_cards + cards[m - 1]] += 1
    seen = np.zeros(n_cards, np.int64)
    for card in cards:
        seen[card] += 1
    return counts, (seen != 1).sum()  # still a permutation of the shoe


def chi_square_z(counts, expected):
    statistic = float(((counts - expected) ** 2 / expected).sum())
    k = counts.size - 1
    return ((statistic / k) ** (1 / 3) - (1 - 2 / (9 * k))) / math.sqrt(2 / (9 * k))


def test_fresh_positions_are_a_uniform_ordered_sample_with_heavy_repeats():
    # Seven positions: a repeat among six independent draws happens in 96% of rounds, so the redraw
    # logic decides almost every sample; all 7!/1! = 5040 ordered samples must be equally likely.
    counts = _six_of_seven(504_000, 1)
    observed = counts[counts > 0]
    assert observed.size == 5040 and counts.sum() == 504_000
    z = chi_square_z(observed, 100.0)
    assert abs(z) < 4, f"chi-square z = {z:.2f}"


@pytest.mark.parametrize("n_cards", [9, 416, 700, 1450])  # 1450 cards: 29% of batched draws rejected
def test_fresh_positions_first_and_last_pair_uniform(n_cards):
    draws = 400_000
    counts, repeats = _positions_histogram(n_cards, draws, 7)
    counts = counts.reshape(n_cards, n_cards)
    assert repeats == 0
    if n_cards > 30:  # too many cells for a joint test: first and last position marginals
        for marginal in (counts.sum(axis=1), counts.sum(axis=0)):
            z = chi_square_z(marginal, draws / n_cards)
            assert abs(z) < 4, f"chi-square z = {z:.2f}"
        return
    off_diagonal = counts[~np.eye(n_cards, dtype=bool)]
    assert (np.diag(counts) == 0).all()
    z = chi_square_z(off_diagonal, draws / off_diagonal.size)
    assert abs(z) < 4, f"chi-square z = {z:.2f}"


@pytest.mark.parametrize("n_cards, m", [(7, 7), (7, 3), (12, 11), (700, 6), (700, 700)])
def test_shuffle_prefix_is_uniform(n_cards, m):
    draws = 200_000 if n_cards < 100 else 40_000
    counts, broken = _prefix_histogram(n_cards, m, draws, 3)
    counts = counts.reshape(n_cards, n_cards)
    assert broken == 0
    if n_cards > 30:
        z = chi_square_z(counts.sum(axis=1), draws / n_cards)
    else:
        off_diagonal = counts[~np.eye(n_cards, dtype=bool)]
        z = chi_square_z(off_diagonal, draws / off_diagonal.size)
    assert abs(z) < 4, f"chi-square z = {z:.2f}"


@numba.njit(cache=True)
def _shoe_by_shoe(canonical, seed, block, units, params, rows):
    """A dealt block from the primitives: one start_shoe and one deal_through per shoe, in code order."""
    state = RNG.block_state(seed, block)
    cards = E.encode_shoe(canonical)
    counts = np.zeros((rows, N_CODES), np.int64)
    rounds = 0
    for _ in range(units):
        cut_index, state = S.start_shoe(cards, state, params)
        rounds += DL.deal_through(cards, cut_index, params, counts)
    return counts, rounds


@pytest.mark.parametrize("rows", [1, 105])
def test_block_paths_equal_dealing_shoe_by_shoe(rows):
    """The block kernel's flat path and its grouped, slot-ordered position rows deal exactly the primitives' rounds."""
    params = params_for(burn="face_value", ten_value=10, discard_turned=True, rounds_after_cut=1)
    canonical = canonical_cards(np.full((13, 4), 8))
    seed, block, units = np.uint64(77), 5, 70  # 70 shoes: two full groups of 32 and a part
    expected, expected_rounds = _shoe_by_shoe(canonical, seed, block, units, params, rows)
    direct = np.zeros((rows, N_CODES), np.int64)
    assert MC.deal_block(canonical, MC.MODEL_DEALT, seed, block, units, params, direct) == (expected_rounds, units)
    np.testing.assert_array_equal(direct, expected)
    lanes, totals = np.zeros((1, rows, N_CODES), np.int64), np.zeros((1, 2), np.int64)
    MC.deal_blocks(canonical, MC.MODEL_DEALT, seed, block, 1, units, units, block + 1, params, lanes, totals)
    np.testing.assert_array_equal(lanes[0], expected)
    assert totals[0].tolist() == [expected_rounds, units]


# --- compiled vs uncompiled, whole blocks ---------------------------------------------------------------------

_UNCOMPILED = textwrap.dedent("""
    import json, sys, warnings
    import numpy as np
    warnings.simplefilter("ignore")  # uint64 wrap-around in plain numpy
    from baccarat_sim.kernels import mc as MC
    canonical, params, seed, block = np.array(json.loads(sys.argv[1]), np.uint8), np.array(json.loads(sys.argv[2])), \
        np.uint64(int(sys.argv[3])), int(sys.argv[4])
    out = {}
    for name, model, units, rows in (("fresh", 0, 300, 1), ("dealt", 1, 3, 1), ("dealt_rows", 1, 3, 14)):
        counts = np.zeros((rows, 14400), np.int64)
        rounds, shoes = MC.deal_block(canonical, model, seed, block, units, params, counts)
        out[name] = [int(rounds), int(shoes), counts.nonzero()[0].tolist(), counts.nonzero()[1].tolist(),
                     counts[counts.nonzero()].tolist()]
    lane_counts, lane_totals = np.zeros((2, 14, 14400), np.int64), np.zeros((2, 2), np.int64)
    MC.deal_blocks(canonical, 1, seed, block, 3, 2, 1, block + 3, params, lane_counts, lane_totals)
    out["lanes"] = [lane_totals.tolist(), lane_counts.sum(axis=0).nonzero()[1].tolist()]
    print(json.dumps(out))
""")


def test_compiled_kernel_equals_the_same_source_run_as_python():
    shoe = dict(burn="face_value", ten_value=10, discard_turned=True, rounds_after_cut=1)
    params = params_for(**shoe)
    params[14], params[15] = 10, 16  # a cut card drawn from a range
    canonical = canonical_cards(np.full((13, 4), 1))
    seed, block = 2**62 + 5, 11
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    result = subprocess.run(
        [sys.executable, "-c", _UNCOMPILED, json.dumps(canonical.tolist()), json.dumps(params.tolist()), str(seed),
         str(block)], env=env, capture_output=True, text=True, timeout=300, check=True)
    uncompiled = json.loads(result.stdout)
    for name, model, units, rows in (("fresh", 0, 300, 1), ("dealt", 1, 3, 1), ("dealt_rows", 1, 3, 14)):
        counts = np.zeros((rows, N_CODES), np.int64)
        rounds, shoes = MC.deal_block(canonical, model, np.uint64(seed), block, units, params, counts)
        nz = counts.nonzero()
        assert [int(rounds), int(shoes), nz[0].tolist(), nz[1].tolist(), counts[nz].tolist()] == uncompiled[name]
    lane_counts, lane_totals = np.zeros((2, 14, N_CODES), np.int64), np.zeros((2, 2), np.int64)
    MC.deal_blocks(canonical, 1, np.uint64(seed), block, 3, 2, 1, block + 3, params, lane_counts, lane_totals)
    assert [lane_totals.tolist(), lane_counts.sum(axis=0).nonzero()[1].tolist()] == uncompiled["lanes"]
