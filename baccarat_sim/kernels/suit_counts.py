"""The suits of a round of kinds, counted kind by kind: the rank-wise enumeration's small dynamic program.

Pure numba functions, no I/O. Given the kind of every position of a round
(:mod:`baccarat_sim.kernels.rankwise`), the suits of the *suit-reading*
positions are an ordered draw without replacement from each kind's cards by
suit, kinds independent of one another ("suits tie cards together only within
a rank"). :func:`suit_distribution` takes the kinds one after another; its
state is only what the atoms read of the suits:

* each suit-reading position's class where it depends on the suit (a named
  suit, a colour, a suit compared with another position's), in
  :data:`CLASS_BITS` from bit ``CLASS_BITS * position``;
* the pairs' suit flags where outcome codes are counted (P1-P2, B1-B2, P1-B1
  of one suit), from :data:`TAIL_SHIFT`;
* each suit-reading poker hand's status (no card yet, one suit and which, two
  suits or more), three bits each from :data:`HAND_SHIFT`, turned into a
  one-suit flag (one bit each from :data:`HAND_SHIFT`) at the end.

States that agree are added together after each kind, so the program stays
as small as what the atoms can tell apart.
"""

from __future__ import annotations

import numpy as np

from .jit import jit

__all__ = ["CLASS_BITS", "HAND_SHIFT", "MAX_SUIT_HANDS", "TAIL_SHIFT", "suit_distribution"]

#: Bits of a suit-reading position's class in a suit distribution's value (six positions, from bit 0).
CLASS_BITS = 6
#: Where the pairs' suit flags start (P1-P2, B1-B2, P1-B1: each set when the two cards share a suit).
TAIL_SHIFT = 6 * CLASS_BITS
#: Where the hands' one-suit flags (three bits of status each while the suits are counted) start.
HAND_SHIFT = TAIL_SHIFT + 3
#: Most hands whose poker values read suits in one group (three bits of status each fit an int64).
MAX_SUIT_HANDS = (63 - HAND_SHIFT) // 3
#: A hand's status while its suits are counted: 0 no card yet, 1-4 one suit (suit + 1), MIXED two suits or more.
_MIXED = 5


@jit
def _merge(states, weights, n):
    """States ``0 .. n-1`` with equal ones added together (sorted where there are many); returns how many are left."""
    if n <= 32:  # a few: compared pairwise, in place (no sort, nothing allocated)
        m = 0
        for i in range(n):
            j = 0
            while j < m and states[j] != states[i]:
                j += 1
            if j < m:
                weights[j] += weights[i]
            else:
                states[m] = states[i]
                weights[m] = weights[i]
                m += 1
        return m
    order = np.argsort(states[:n])
    sorted_states = states[:n][order]
    sorted_weights = weights[:n][order]
    m = 0
    for i in range(n):
        if m > 0 and states[m - 1] == sorted_states[i]:
            weights[m - 1] += sorted_weights[i]
        else:
            states[m] = sorted_states[i]
            weights[m] = sorted_weights[i]
            m += 1
    return m


@jit
def _hand_status(status, suits):
    """A suit-reading hand's status after cards of the suits in mask ``suits`` join it."""
    if suits == 0 or status == _MIXED:
        return status
    if status > 0:
        suits |= 1 << (status - 1)
    if suits & (suits - 1):
        return _MIXED
    for s in range(4):
        if suits == 1 << s:
            return s + 1
    return _MIXED


@jit
def suit_distribution(shoe, varies, classes, hand_over, hand_suits, codes, kinds, in_s, n_suit_hands):
    """The suits of the suit-reading positions ``in_s`` of a round of ``kinds``: (values, ordered ways).

    The arrays are :class:`~baccarat_sim.kernels.rankwise.RankwiseTables`' (``codes``: whether the pairs' suit
    flags are counted).

    A value packs each position's class where it depends on the suit (``CLASS_BITS`` from bit ``6 p``), the
    pairs' suit flags (from ``TAIL_SHIFT``) and each suit-reading hand's one-suit flag (from ``HAND_SHIFT``).
    The ways count the ordered draws of those positions' suits, kind by kind, without replacement.
    """
    states = np.zeros(1, np.int64)
    weights = np.ones(1, np.int64)
    n = 1
    block = np.zeros(6, np.int64)
    suit = np.zeros(6, np.int64)
    done = np.zeros(6, np.bool_)
    for first in range(6):
        if not in_s[first] or done[first]:
            continue
        kind = kinds[first]
        m = 0
        for p in range(first, 6):
            if in_s[p] and kinds[p] == kind:
                block[m] = p
                done[p] = True
                m += 1
        n_assign = 1 << (2 * m)
        new_states = np.zeros(n * n_assign, np.int64)
        new_weights = np.zeros(n * n_assign, np.int64)
        n_new = 0
        for a in range(n_assign):
            ways = np.int64(1)
            delta = np.int64(0)
            hand_masks = np.int64(0)
            for i in range(m):
                s = (a >> (2 * i)) & 3
                suit[i] = s
                earlier = 0
                for j in range(i):
                    if suit[j] == s:
                        earlier += 1
                ways *= max(shoe[kind, s] - earlier, 0)
                p = block[i]
                if varies[p, kind]:
                    delta |= classes[p, kind, s] << (CLASS_BITS * p)
                for h in range(hand_over.shape[0]):
                    if hand_suits[h] >= 0 and hand_over[h, p]:
                        hand_masks |= np.int64(1) << (4 * hand_suits[h] + s)
            if ways == 0:
                continue
            if codes:
                for i in range(m):
                    for j in range(m):
                        if suit[i] == suit[j]:
                            if block[i] == 0 and block[j] == 2:
                                delta |= np.int64(1) << TAIL_SHIFT
                            if block[i] == 1 and block[j] == 3:
                                delta |= np.int64(1) << (TAIL_SHIFT + 1)
                            if block[i] == 0 and block[j] == 1:
                                delta |= np.int64(1) << (TAIL_SHIFT + 2)
            for old in range(n):
                state = states[old] | delta
                for h in range(n_suit_hands):
                    shift = HAND_SHIFT + 3 * h
                    status = (state >> shift) & 7
                    status = _hand_status(status, (hand_masks >> (4 * h)) & 15)
                    state = (state & ~(np.int64(7) << shift)) | (status << shift)
                new_states[n_new] = state
                new_weights[n_new] = weights[old] * ways
                n_new += 1
        n = _merge(new_states, new_weights, n_new)
        states = new_states
        weights = new_weights
    # Statuses to flags: one suit (or no card) is 1, two suits or more 0.
    for i in range(n):
        state = states[i] & ((np.int64(1) << HAND_SHIFT) - 1)
        for h in range(n_suit_hands):
            status = (states[i] >> (HAND_SHIFT + 3 * h)) & 7
            if status != _MIXED:
                state |= np.int64(1) << (HAND_SHIFT + h)
        states[i] = state
    n = _merge(states, weights, n)
    return states[:n].copy(), weights[:n].copy()
