"""Exact combinatorial kernel: pure numba functions over integer arrays, no I/O.

Every round is counted as an ordered sequence of six cards drawn without
replacement (Player 1, Banker 1, Player 2, Banker 2, then the third cards); a
round that uses fewer than six cards stands for every ordering of the unused
positions. The weights therefore total ``N (N-1) ... (N-5)`` for a shoe of ``N``
cards, and each weight is an exact integer.

The first four cards are enumerated by rank (13**4 tuples). Suits matter only
for suited pairs and the suited first-card tie, so they are enumerated only for
cards whose rank repeats among the four; third cards matter only by point value
and are enumerated over the ten point values.
"""

from __future__ import annotations

import numpy as np

from ._jit import jit
from .cards import BANKER_DRAWS, PLAYER_DRAWS, RANK_POINTS
from .outcomes import N_CODES


@jit
def _suit_class_weights(shoe, r, out):
    """Ordered ways to draw four cards of ranks ``r[0..3]`` (P1, B1, P2, B2).

    Fills ``out[k]`` (k = 4*player_suited + 2*banker_suited + first_suited) with
    the number of ordered draws in which the Player's pair is suited, the
    Banker's pair is suited and the two first cards share rank and suit.
    """
    for k in range(8):
        out[k] = 0
    shared = np.zeros(4, np.bool_)
    for i in range(4):
        for j in range(4):
            if i != j and r[i] == r[j]:
                shared[i] = True
    n0 = 4 if shared[0] else 1
    n1 = 4 if shared[1] else 1
    n2 = 4 if shared[2] else 1
    n3 = 4 if shared[3] else 1
    s = np.zeros(4, np.int64)
    for s0 in range(n0):
        s[0] = s0
        for s1 in range(n1):
            s[1] = s1
            for s2 in range(n2):
                s[2] = s2
                for s3 in range(n3):
                    s[3] = s3
                    weight = np.int64(1)
                    for i in range(4):
                        if shared[i]:
                            used = 0
                            for j in range(i):
                                if shared[j] and r[j] == r[i] and s[j] == s[i]:
                                    used += 1
                            available = shoe[r[i], s[i]] - used
                        else:
                            available = 0
                            for suit in range(4):
                                available += shoe[r[i], suit]
                        if available <= 0:
                            weight = 0
                            break
                        weight *= available
                    if weight == 0:
                        continue
                    player_suited = 1 if (r[0] == r[2] and s[0] == s[2]) else 0
                    banker_suited = 1 if (r[1] == r[3] and s[1] == s[3]) else 0
                    first_suited = 1 if (r[0] == r[1] and s[0] == s[1]) else 0
                    out[4 * player_suited + 2 * banker_suited + first_suited] += weight


@jit
def _third_card_stage(p_total, b_total, remaining, n_left, bases, weights):
    """Outcomes after the first four cards, by point value of the third cards.

    Parameters
    ----------
    p_total, b_total : int
        Two-card totals.
    remaining : ndarray(int64, shape=(10,))
        Cards left per point value.
    n_left : int
        Cards left in the shoe (after the first four).
    bases : ndarray(int64)
        Output: ``(((ps*10 + bs)*2 + pc)*2 + bc)`` of each outcome.
    weights : ndarray(int64)
        Output: ordered ways for cards 5 and 6 (unused positions included).

    Returns
    -------
    int
        Number of entries written.
    """
    n = 0
    if p_total >= 8 or b_total >= 8:
        bases[0] = ((p_total * 10 + b_total) * 2 + 0) * 2 + 0
        weights[0] = n_left * (n_left - 1)
        return 1
    if PLAYER_DRAWS[p_total]:
        for v in range(10):
            ways_p = remaining[v]
            if ways_p == 0:
                continue
            p_final = (p_total + v) % 10
            if BANKER_DRAWS[b_total, 1 + v]:
                for u in range(10):
                    ways_b = remaining[u] - (1 if u == v else 0)
                    if ways_b <= 0:
                        continue
                    bases[n] = ((p_final * 10 + (b_total + u) % 10) * 2 + 1) * 2 + 1
                    weights[n] = ways_p * ways_b
                    n += 1
            else:
                bases[n] = ((p_final * 10 + b_total) * 2 + 1) * 2 + 0
                weights[n] = ways_p * (n_left - 1)
                n += 1
        return n
    if BANKER_DRAWS[b_total, 0]:
        for u in range(10):
            ways_b = remaining[u]
            if ways_b == 0:
                continue
            bases[n] = ((p_total * 10 + (b_total + u) % 10) * 2 + 0) * 2 + 1
            weights[n] = ways_b * (n_left - 1)
            n += 1
        return n
    bases[0] = ((p_total * 10 + b_total) * 2 + 0) * 2 + 0
    weights[0] = n_left * (n_left - 1)
    return 1


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
    rank_total = np.zeros(13, np.int64)
    value_total = np.zeros(10, np.int64)
    n_cards = 0
    for rank in range(13):
        for suit in range(4):
            rank_total[rank] += shoe[rank, suit]
        value_total[RANK_POINTS[rank]] += rank_total[rank]
        n_cards += rank_total[rank]
    r = np.zeros(4, np.int64)
    class_weights = np.zeros(8, np.int64)
    remaining = np.zeros(10, np.int64)
    bases = np.zeros(128, np.int64)
    stage_weights = np.zeros(128, np.int64)
    for r0 in range(13):
        if rank_total[r0] == 0:
            continue
        for r1 in range(13):
            if rank_total[r1] - (r1 == r0) <= 0:
                continue
            first_cmp = 0 if r0 > r1 else (1 if r0 < r1 else 2)
            for r2 in range(13):
                if rank_total[r2] - (r2 == r0) - (r2 == r1) <= 0:
                    continue
                for r3 in range(13):
                    if rank_total[r3] - (r3 == r0) - (r3 == r1) - (r3 == r2) <= 0:
                        continue
                    r[0] = r0
                    r[1] = r1
                    r[2] = r2
                    r[3] = r3
                    _suit_class_weights(shoe, r, class_weights)
                    for v in range(10):
                        remaining[v] = value_total[v]
                    p0 = RANK_POINTS[r0]
                    b0 = RANK_POINTS[r1]
                    p1 = RANK_POINTS[r2]
                    b1 = RANK_POINTS[r3]
                    remaining[p0] -= 1
                    remaining[b0] -= 1
                    remaining[p1] -= 1
                    remaining[b1] -= 1
                    n_stage = _third_card_stage(
                        (p0 + p1) % 10, (b0 + b1) % 10, remaining, n_cards - 4, bases, stage_weights
                    )
                    for k in range(8):
                        w4 = class_weights[k]
                        if w4 == 0:
                            continue
                        player_pair = 0 if r0 != r2 else (2 if k & 4 else 1)
                        banker_pair = 0 if r1 != r3 else (2 if k & 2 else 1)
                        first_card = first_cmp if first_cmp != 2 else (3 if k & 1 else 2)
                        tail = (player_pair * 3 + banker_pair) * 4 + first_card
                        for i in range(n_stage):
                            out[bases[i] * 36 + tail] += w4 * stage_weights[i]


def _check_code_space():
    # The kernel hard-codes 36 = 3 * 3 * 4 (pair x pair x first-card) as the
    # tail of the code; fail loudly at import if the code space ever changes.
    assert N_CODES == 400 * 36


_check_code_space()
