"""Exact kernel for leaked card information: outcome weights jointly with what the player saw.

A player who can classify some cards of a round before betting (edge sorting,
a flashed card) sees an *observation pattern*: the class of the card at each
observed position. This kernel counts, for a shoe composition, every ordered
six-card sequence (Player 1, Banker 1, Player 2, Banker 2, then the fifth and
sixth cards, which become the third cards of the hands that draw; a round
that uses fewer cards stands for every ordering of the unused ones) into
``out[pattern, column]``, where the pattern is the observation and the column
is the pay-table line that settles the round, one block of columns per bet.
Weights are exact integers; every pattern's row, summed over one bet's block,
is the number of orderings that show that pattern.

The classes are given per position and card (``first_class[i, card]`` for the
first four cards) and per point value for the fifth and sixth cards
(``third_class[j, value]``): the outcome code depends on those two only
through their point values, and the third-card stage is resolved by point
value. The pattern is ``sum(class[i] * radix[i])`` over the six positions
(``radix[i] = 0`` for a position the player does not see).

The enumeration runs over the ordered point values of the first four cards
(10^4 tuples). For each tuple it takes every ordered choice of ranks and,
where a suit matters (a pair or a first-card tie, whose suits a bet can see,
or a position whose class depends on the suit), of suits, and gathers the
ordered ways to draw them by (local pattern, outcome-code suffix); the third
cards are then resolved once per tuple by point value and the two multiplied
into the bet lines. See :mod:`baccarat_sim.kernels.exact` for the code layout
(``code = prefix * N_SUFFIXES + suffix``).
"""

from __future__ import annotations

import numpy as np

from ..model.cards import CARDS_OF_VALUE, N_CARD_IDS, N_CARDS_OF_VALUE
from ..model.codes import N_SUFFIXES
from .exact import shoe_tallies, third_card_stage
from .jit import jit
from .outcome import code_of, first_card_status, pair_status, suffix_of, third_card_prefix

__all__ = ["leak_counts", "local_pattern_room", "suit_aware_positions"]


@jit
def suit_aware_positions(first_class):
    """Which of the first four positions have a class that depends on the suit, not only on the rank.

    Parameters
    ----------
    first_class : ndarray(int64, shape=(4, 52))

    Returns
    -------
    ndarray(int64, shape=(4,))
        1 where two cards of one rank fall in different classes.
    """
    aware = np.zeros(4, np.int64)
    for i in range(4):
        for card in range(N_CARD_IDS):
            if first_class[i, card] != first_class[i, (card // 4) * 4]:
                aware[i] = 1
    return aware


@jit
def _local_classes(first_class, value, i, cards_of_value, n_cards_of_value, classes, local_of_card):
    """Distinct classes of position ``i`` among the cards worth ``value`` points.

    Fills ``classes[i, :n]`` with them and ``local_of_card[i, card]`` with each
    card's index in that list; returns ``n``.
    """
    n = 0
    for k in range(n_cards_of_value[value]):
        card = cards_of_value[value, k]
        klass = first_class[i, card]
        found = -1
        for j in range(n):
            if classes[i, j] == klass:
                found = j
                break
        if found < 0:
            classes[i, n] = klass
            found = n
            n += 1
        local_of_card[i, card] = found
    return n


@jit
def local_pattern_room(first_class):
    """Largest number of local patterns of the first four positions over any tuple of point values.

    The kernel gathers weights per tuple in ``room * N_SUFFIXES`` cells.
    """
    cards_of_value, n_cards_of_value = CARDS_OF_VALUE, N_CARDS_OF_VALUE
    classes = np.zeros((4, 16), np.int64)
    local_of_card = np.zeros((4, N_CARD_IDS), np.int64)
    room = 1
    for i in range(4):
        most = 1
        for value in range(10):
            most = max(most, _local_classes(first_class, value, i, cards_of_value, n_cards_of_value, classes,
                                            local_of_card))
        room *= most
    return room


@jit
def _third_card_entries(p_total, b_total, remaining, n_left, third_class, radix, prefixes, offsets, weights):
    """The fifth and sixth cards by point value: outcome prefix, pattern offset and ordered ways of each entry.

    Where neither card is observed, these are the exact kernel's entries
    (:func:`baccarat_sim.kernels.exact.third_card_stage`: cards a round does
    not use are not told apart); where one is observed, every pair of point
    values is its own entry. Returns the number of entries written.
    """
    if radix[4] == 0 and radix[5] == 0:
        n = third_card_stage(p_total, b_total, remaining, n_left, prefixes, weights)
        offsets[:n] = 0
        return n
    n = 0
    for c5 in range(10):
        w5 = remaining[c5]
        if w5 == 0:
            continue
        for c6 in range(10):
            w6 = remaining[c6] - (1 if c6 == c5 else 0)
            if w6 <= 0:
                continue
            prefixes[n] = third_card_prefix(p_total, b_total, c5, c6)
            offsets[n] = third_class[0, c5] * radix[4] + third_class[1, c6] * radix[5]
            weights[n] = w5 * w6
            n += 1
    return n


@jit
def leak_counts(shoe, first_class, third_class, radix, line_col, out):
    """Exact weights of every observation pattern and pay-table line for one round of ``shoe``.

    Parameters
    ----------
    shoe : ndarray(int64, shape=(13, 4))
        Cards per rank and suit; at least six cards in all.
    first_class : ndarray(int64, shape=(4, 52))
        Class of each card id at Player 1, Banker 1, Player 2, Banker 2 (all
        0 at a position the player does not see).
    third_class : ndarray(int64, shape=(2, 10))
        Class of each point value at the fifth and sixth card.
    radix : ndarray(int64, shape=(6,))
        Weight of each position's class in the pattern index (0: not seen).
    line_col : ndarray(int64, shape=(n_bets, N_CODES))
        Column of ``out`` of the pay-table line that settles each outcome
        code, per bet.
    out : ndarray(int64, shape=(n_patterns, n_columns))
        Zeroed output; receives the ordered ways of every (pattern, line).
        For each bet, a row summed over that bet's columns is the pattern's
        number of orderings; all rows together total ``N (N-1) ... (N-5)``.
    """
    n_bets = line_col.shape[0]
    rank_total, value_total, ranks_of, n_ranks_of, n_cards = shoe_tallies(shoe)
    cards_of_value, n_cards_of_value = CARDS_OF_VALUE, N_CARDS_OF_VALUE
    aware = suit_aware_positions(first_class)
    room = local_pattern_room(first_class)
    gathered = np.zeros(room * N_SUFFIXES, np.int64)
    classes = np.zeros((4, 16), np.int64)
    local_of_card = np.zeros((4, N_CARD_IDS), np.int64)
    n_local = np.zeros(4, np.int64)
    local_radix = np.zeros(4, np.int64)
    values = np.zeros(4, np.int64)
    r = np.zeros(4, np.int64)
    s = np.zeros(4, np.int64)
    explicit = np.zeros(4, np.int64)
    remaining = np.zeros(10, np.int64)
    prefixes = np.zeros(100, np.int64)
    offsets = np.zeros(100, np.int64)
    stage_weights = np.zeros(100, np.int64)
    digits = np.zeros(4, np.int64)
    for tuple_index in range(10000):
        values[0] = tuple_index // 1000
        values[1] = (tuple_index // 100) % 10
        values[2] = (tuple_index // 10) % 10
        values[3] = tuple_index % 10
        for v in range(10):
            remaining[v] = value_total[v]
        short = False
        for i in range(4):
            remaining[values[i]] -= 1
            if remaining[values[i]] < 0:
                short = True
        if short:
            continue  # not enough cards of these point values
        # Local patterns: the classes each position can show among the cards of its point value.
        n_patterns_here = 1
        for i in range(3, -1, -1):
            n_local[i] = _local_classes(first_class, values[i], i, cards_of_value, n_cards_of_value, classes,
                                        local_of_card)
            local_radix[i] = n_patterns_here
            n_patterns_here *= n_local[i]
        for cell in range(n_patterns_here * N_SUFFIXES):
            gathered[cell] = 0
        # Every ordered choice of ranks, and of suits where a suit matters.
        for i0 in range(n_ranks_of[values[0]]):
            r[0] = ranks_of[values[0], i0]
            for i1 in range(n_ranks_of[values[1]]):
                r[1] = ranks_of[values[1], i1]
                for i2 in range(n_ranks_of[values[2]]):
                    r[2] = ranks_of[values[2], i2]
                    for i3 in range(n_ranks_of[values[3]]):
                        r[3] = ranks_of[values[3], i3]
                        _gather_ranks(shoe, rank_total, r, s, aware, explicit, local_of_card, local_radix,
                                      gathered)
        n_stage = _third_card_entries((values[0] + values[2]) % 10, (values[1] + values[3]) % 10, remaining,
                                      n_cards - 4, third_class, radix, prefixes, offsets, stage_weights)
        for local in range(n_patterns_here):
            rest = local
            base = 0
            for i in range(4):
                digits[i] = rest // local_radix[i]
                rest -= digits[i] * local_radix[i]
                base += classes[i, digits[i]] * radix[i]
            for t in range(N_SUFFIXES):
                w4 = gathered[local * N_SUFFIXES + t]
                if w4 == 0:
                    continue
                for e in range(n_stage):
                    weight = w4 * stage_weights[e]
                    row = base + offsets[e]
                    code = code_of(prefixes[e], t)
                    for b in range(n_bets):
                        out[row, line_col[b, code]] += weight


@jit
def _gather_ranks(shoe, rank_total, r, s, aware, explicit, local_of_card, local_radix, gathered):
    """Add the ordered ways to draw ranks ``r`` at the first four positions, by local pattern and suffix.

    Suits are drawn explicitly at the positions where they matter: those whose
    class depends on the suit, and both cards of a pair or of a first-card tie
    (a bet can see whether they are suited). Elsewhere a card is drawn by rank.
    """
    for i in range(4):
        explicit[i] = aware[i]
    if r[0] == r[2]:
        explicit[0] = 1
        explicit[2] = 1
    if r[1] == r[3]:
        explicit[1] = 1
        explicit[3] = 1
    if r[0] == r[1]:
        explicit[0] = 1
        explicit[1] = 1
    n_explicit = 0
    for i in range(4):
        n_explicit += explicit[i]
    for combo in range(4 ** n_explicit):
        rest = combo
        for i in range(4):
            if explicit[i]:
                s[i] = rest % 4
                rest //= 4
            else:
                s[i] = 0
        # Cards with a known suit first, then those drawn by rank: each factor
        # counts the cards still there once the earlier ones are taken.
        weight = np.int64(1)
        for i in range(4):
            if explicit[i]:
                taken = 0
                for j in range(i):
                    if explicit[j] and r[j] == r[i] and s[j] == s[i]:
                        taken += 1
                weight *= max(shoe[r[i], s[i]] - taken, 0)
        if weight == 0:
            continue
        for i in range(4):
            if not explicit[i]:
                taken = 0
                for j in range(4):
                    if r[j] == r[i] and (explicit[j] or j < i):
                        taken += 1
                weight *= max(rank_total[r[i]] - taken, 0)
        if weight == 0:
            continue
        player_pair = pair_status(r[0] == r[2], r[0] == r[2] and s[0] == s[2])
        banker_pair = pair_status(r[1] == r[3], r[1] == r[3] and s[1] == s[3])
        first_card = first_card_status(r[0], r[1], r[0] == r[1] and s[0] == s[1])
        local = 0
        for i in range(4):
            local += local_of_card[i, r[i] * 4 + s[i]] * local_radix[i]
        gathered[local * N_SUFFIXES + suffix_of(player_pair, banker_pair, first_card)] += weight
