"""Exact combinatorial kernel: pure numba functions over integer arrays, no I/O.

Every round is counted as an ordered sequence of six cards drawn without
replacement (Player 1, Banker 1, Player 2, Banker 2, then the third cards); a
round that uses fewer than six cards stands for every ordering of the unused
positions. The weights therefore total ``N (N-1) ... (N-5)`` for a shoe of ``N``
cards, and each weight is an exact integer.

The outcome code splits where the information splits
(``code = prefix * N_SUFFIXES + tail``):

* the *tail* (pairs and the first-card comparison, 3 x 3 x 4 values) depends on
  the ranks and suits of the first four cards only;
* the *prefix* (final scores and card counts, 400 values) depends on the point
  values of the first four cards and of the third cards only.

So the kernel runs over the point values of the first four cards, each hand's
two taken as an unordered pair (55 x 55 cases: the third cards see only the
two-card totals and which point values have left the shoe). For each case it
sums the ordered ways to draw those cards by rank and suit into a 36-entry tail
(:func:`_add_tail_weights`), resolves the third cards once by point value off
the tableau's table (:func:`third_card_stage`), and adds the product of the two
to the histogram.
Suits tie cards together only within a rank, so they are worked out once per
rank and shoe (:func:`_rank_suit_ways`) and ranks combine by multiplication.
"""

from __future__ import annotations

import numpy as np

from ..model.cards import RANK_POINTS
from ..model.codes import N_SUFFIXES
from .jit import jit
from .outcome import cards_used_of, code_of, first_card_status, pair_status, suffix_of, third_card_prefix

__all__ = ["exact_counts", "shoe_tallies", "third_card_stage"]


@jit
def _rank_suit_ways(shoe, ways):
    """Ordered ways to draw cards of one rank into some of the first four positions.

    Suits tie cards together only within a rank, so they are worked out here
    once per rank and shoe, and the kernel combines ranks by multiplication.

    Parameters
    ----------
    shoe : ndarray(int64, shape=(13, 4))
        Cards per rank and suit.
    ways : ndarray(int64, shape=(13, 16, 8))
        Zeroed output: ``ways[r, mask, k]`` is the number of ordered ways to draw cards
        of rank ``r`` into the positions in ``mask`` (bit ``i`` for position ``i``
        of P1, B1, P2, B2) such that ``k = 4 * [P1, P2 same suit] + 2 * [B1, B2
        same suit] + [P1, B1 same suit]`` (a flag is only set when both of its
        positions are in ``mask``).
    """
    s = np.zeros(4, np.int64)
    for r in range(13):
        for mask in range(16):
            for s0 in range(4 if mask & 1 else 1):
                s[0] = s0
                for s1 in range(4 if mask & 2 else 1):
                    s[1] = s1
                    for s2 in range(4 if mask & 4 else 1):
                        s[2] = s2
                        for s3 in range(4 if mask & 8 else 1):
                            s[3] = s3
                            weight = np.int64(1)
                            for i in range(4):
                                if mask & (1 << i):
                                    drawn = 0
                                    for j in range(i):
                                        if mask & (1 << j) and s[j] == s[i]:
                                            drawn += 1
                                    weight *= max(shoe[r, s[i]] - drawn, 0)
                            k = 0
                            if mask & 5 == 5 and s[0] == s[2]:
                                k += 4
                            if mask & 10 == 10 and s[1] == s[3]:
                                k += 2
                            if mask & 3 == 3 and s[0] == s[1]:
                                k += 1
                            ways[r, mask, k] += weight


@jit
def _add_tail_weights(rank_total, rank_ways, r, classes, scratch, tail):
    """Add the ordered ways to draw four cards of ranks ``r`` (P1, B1, P2, B2).

    Parameters
    ----------
    rank_total : ndarray(int64, shape=(13,))
        Cards per rank.
    rank_ways : ndarray(int64, shape=(13, 16, 8))
        From :func:`_rank_suit_ways`.
    r : ndarray(int64, shape=(4,))
        Ranks of Player 1, Banker 1, Player 2, Banker 2.
    classes, scratch : ndarray(int64, shape=(8,))
        Scratch space.
    tail : ndarray(int64, shape=(N_SUFFIXES,))
        Receives the ways at ``(player_pair * 3 + banker_pair) * 4 + first_card``.
    """
    first_cmp = first_card_status(r[0], r[1], False)
    if r[0] != r[2] and r[1] != r[3] and first_cmp != 2:
        # No pair and no first-card tie: suits are invisible, draw by rank
        # (the common case, so it skips the suit classes).
        weight = rank_total[r[0]]
        weight *= rank_total[r[1]] - (r[1] == r[0])
        weight *= rank_total[r[2]] - (r[2] == r[0]) - (r[2] == r[1])
        weight *= rank_total[r[3]] - (r[3] == r[0]) - (r[3] == r[1]) - (r[3] == r[2])
        if weight > 0:
            tail[suffix_of(0, 0, first_cmp)] += weight
        return
    # Some cards share a rank and a bet can see their suits. Take each rank
    # once, with the set of positions holding it; suits tie cards together only
    # within a rank, so ranks combine by multiplication.
    by_rank = np.int64(1)  # ranks whose suits no bet sees
    for a in range(8):
        classes[a] = 0
    classes[0] = 1
    for i in range(4):
        mask = 0
        for j in range(4):
            if r[j] == r[i]:
                if j < i:
                    mask = -1  # this rank was taken at position j
                    break
                mask |= 1 << j
        if mask < 0:
            continue
        rank = r[i]
        if mask & 5 != 5 and mask & 10 != 10 and mask & 3 != 3:
            by_rank *= rank_ways[rank, mask, 0]  # no pair, no first-card tie here
            continue
        # Each suit flag belongs to one pair of positions, hence to one rank:
        # the combined flags are the bitwise or of each rank's.
        for a in range(8):
            scratch[a] = 0
        for a in range(8):
            if classes[a]:
                for b in range(8):
                    scratch[a | b] += classes[a] * rank_ways[rank, mask, b]
        for a in range(8):
            classes[a] = scratch[a]
    if by_rank <= 0:
        return
    for k in range(8):
        weight = classes[k] * by_rank
        if weight == 0:
            continue
        player_pair = pair_status(r[0] == r[2], r[0] == r[2] and k & 4 != 0)
        banker_pair = pair_status(r[1] == r[3], r[1] == r[3] and k & 2 != 0)
        first_card = first_card_status(r[0], r[1], r[0] == r[1] and k & 1 != 0)
        tail[suffix_of(player_pair, banker_pair, first_card)] += weight


@jit
def third_card_stage(p_total, b_total, remaining, n_left, prefixes, weights):
    """Outcomes after the first four cards, by point value of the fifth and sixth cards.

    The tableau is read off its table (:func:`~baccarat_sim.kernels.outcome.third_card_prefix`):
    whether the round takes the fifth card depends on the two-card totals
    alone, and whether it takes the sixth on the fifth card's point value, so
    a card the round does not take stands for every card left.

    Parameters
    ----------
    p_total, b_total : int
        Two-card totals.
    remaining : ndarray(int64, shape=(10,))
        Cards left per point value.
    n_left : int
        Cards left in the shoe (after the first four).
    prefixes : ndarray(int64, shape=(at least 100,))
        Output: the outcome-code prefix of each entry (scores and card counts).
    weights : ndarray(int64, shape=(at least 100,))
        Output: ordered ways for cards 5 and 6 (unused positions included).

    Returns
    -------
    int
        Number of entries written.
    """
    stands = third_card_prefix(p_total, b_total, 0, 0)
    if cards_used_of(stands) == 4:  # a natural, or both hands stand
        prefixes[0] = stands
        weights[0] = n_left * (n_left - 1)
        return 1
    n = 0
    for v in range(10):  # the fifth card
        ways5 = remaining[v]
        if ways5 == 0:
            continue
        fifth = third_card_prefix(p_total, b_total, v, 0)
        if cards_used_of(fifth) == 5:
            prefixes[n] = fifth
            weights[n] = ways5 * (n_left - 1)
            n += 1
            continue
        for u in range(10):  # the sixth card: the Banker's third after the Player's
            ways6 = remaining[u] - (1 if u == v else 0)
            if ways6 <= 0:
                continue
            prefixes[n] = third_card_prefix(p_total, b_total, v, u)
            weights[n] = ways5 * ways6
            n += 1
    return n


@jit(inline="always")
def shoe_tallies(shoe):
    """A shoe's cards per rank and per point value, the ranks of each value, and its size.

    Returns
    -------
    (rank_total, value_total, ranks_of, n_ranks_of, n_cards)
        ``ranks_of[p, :n_ranks_of[p]]`` are the ranks worth ``p`` points (0: 10, J, Q, K).
    """
    rank_total = np.zeros(13, np.int64)
    value_total = np.zeros(10, np.int64)
    ranks_of = np.zeros((10, 4), np.int64)
    n_ranks_of = np.zeros(10, np.int64)
    n_cards = np.int64(0)
    for rank in range(13):
        for suit in range(4):
            rank_total[rank] += shoe[rank, suit]
        point = RANK_POINTS[rank]
        value_total[point] += rank_total[rank]
        ranks_of[point, n_ranks_of[point]] = rank
        n_ranks_of[point] += 1
        n_cards += rank_total[rank]
    return rank_total, value_total, ranks_of, n_ranks_of, n_cards


@jit
def exact_counts(shoe, out):
    """Exact outcome weights of one round dealt from a freshly shuffled shoe.

    Parameters
    ----------
    shoe : ndarray(int64, shape=(13, 4))
        Cards per rank and suit; at least six cards in all.
    out : ndarray(int64, shape=(N_CODES,))
        Zeroed output; receives the weight of each outcome code.
    """
    rank_total, value_total, ranks_of, n_ranks_of, n_cards = shoe_tallies(shoe)
    rank_ways = np.zeros((13, 16, 8), np.int64)
    _rank_suit_ways(shoe, rank_ways)
    r = np.zeros(4, np.int64)
    classes = np.zeros(8, np.int64)
    scratch = np.zeros(8, np.int64)
    tail = np.zeros(N_SUFFIXES, np.int64)
    remaining = np.zeros(10, np.int64)
    prefixes = np.zeros(128, np.int64)
    stage_weights = np.zeros(128, np.int64)
    # The third cards see only the two-card totals and which point values have
    # left the shoe, not the order the first cards came in: gather the tails of
    # both orders of each hand's two cards, then resolve the third cards once.
    for p_lo in range(10):
        for p_hi in range(p_lo, 10):
            for b_lo in range(10):
                for b_hi in range(b_lo, 10):
                    for v in range(10):
                        remaining[v] = value_total[v]
                    remaining[p_lo] -= 1
                    remaining[p_hi] -= 1
                    remaining[b_lo] -= 1
                    remaining[b_hi] -= 1
                    if remaining[p_lo] < 0 or remaining[p_hi] < 0 or remaining[b_lo] < 0 or remaining[b_hi] < 0:
                        continue  # not enough cards of these point values
                    for t in range(N_SUFFIXES):
                        tail[t] = 0
                    for flip_p in range(1 if p_lo == p_hi else 2):
                        p0, p1 = (p_hi, p_lo) if flip_p else (p_lo, p_hi)
                        for flip_b in range(1 if b_lo == b_hi else 2):
                            b0, b1 = (b_hi, b_lo) if flip_b else (b_lo, b_hi)
                            for i0 in range(n_ranks_of[p0]):
                                r[0] = ranks_of[p0, i0]
                                for i1 in range(n_ranks_of[b0]):
                                    r[1] = ranks_of[b0, i1]
                                    for i2 in range(n_ranks_of[p1]):
                                        r[2] = ranks_of[p1, i2]
                                        for i3 in range(n_ranks_of[b1]):
                                            r[3] = ranks_of[b1, i3]
                                            _add_tail_weights(rank_total, rank_ways, r, classes, scratch, tail)
                    n_stage = third_card_stage((p_lo + p_hi) % 10, (b_lo + b_hi) % 10, remaining, n_cards - 4,
                                               prefixes, stage_weights)
                    for t in range(N_SUFFIXES):
                        w4 = tail[t]
                        if w4 == 0:
                            continue
                        for i in range(n_stage):
                            out[code_of(prefixes[i], t)] += w4 * stage_weights[i]
