"""Exact enumeration with card detail: outcome weights joint with the atoms of one group of card-level bets.

Pure numba functions over integer arrays, no I/O. The weights are those of
:mod:`baccarat_sim.kernels.exact` (ordered six-card sequences, a round that
uses fewer than six cards standing for every ordering of the rest), now split
by the *combination* of the group's atoms (card-only conditions,
:class:`baccarat_sim.model.atoms.Atom`; the combination of the local ids of the
group's sets, :func:`baccarat_sim.model.detail_tables.exact_tables`).

The enumeration carries only the card detail the atoms read:

* the first four cards are taken one card id at a time, grouped by the two
  two-card totals (one group per thread); for each, the outcome-code suffix
  (pairs, first-card comparison: only where the group counts every code), the
  partial state of every poker value (its hand key after the cards it reads
  among the first four, :mod:`baccarat_sim.kernels.hand`), every set of atoms'
  *partial class* (what the first four cards leave open of it: two first-four
  cards that no third card can tell apart share a class) and the cards'
  *third-card classes* are recorded;
* the third cards are taken by third-card class: a point value, refined only
  where an atom reads a third card's rank, suit or colour, or a poker value
  reads it.

Prefixes that agree on the suffix and every partial class form a *state*.
The weight of a third card of class ``c`` after a prefix is ``N_c - r_c``,
with ``r_c`` the prefix's own cards of that class, so a state needs only the
sums over its prefixes of the weight ``w``, of ``w r_c`` and of
``w r_c r_d``: the third-card stage then runs once per state, not once per
prefix. The last is kept as the sum of ``w`` over the prefix's *pairs* of
cards (six of them) by their classes, the smaller first, from which
``r_c r_d`` is the pairs of classes ``c`` and ``d`` for ``c != d`` and
``r_c + 2 x`` (pairs) for ``c == d``: six additions a prefix instead of
sixteen.

Which cells can happen at all (:func:`exact_detail_reach`, the card detail's
cells on a shoe that deals every sequence) needs no weights: the same states
are only marked as they occur, and the third cards of each are worked out
once per pair of two-card totals.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from .hand import add_card, rank_counts_only, suits_settled
from .jit import jit, jit_parallel
from .outcome import banker_drew_of, cards_used_of, player_drew_of, suffix_of_cards, third_card_prefix

__all__ = ["exact_detail_counts", "exact_detail_reach"]


@jit(inline="always")
def _first_four_state(c0, c1, c2, c3, d_over, d_rank_only, d_keys, d_key_offset, d_key_count, d):
    """Poker value ``d``'s partial state after the first four cards, as its index among the states it can reach."""
    key = np.int64(0)
    key = add_card(key, c0 + (52 - c0) * (1 - d_over[d, 0]))
    key = add_card(key, c1 + (52 - c1) * (1 - d_over[d, 1]))
    key = add_card(key, c2 + (52 - c2) * (1 - d_over[d, 2]))
    key = add_card(key, c3 + (52 - c3) * (1 - d_over[d, 3]))
    if d_rank_only[d]:
        key = rank_counts_only(key)
    else:
        key = suits_settled(key)
    start = d_key_offset[d]
    return np.searchsorted(d_keys[start:start + d_key_count[d]], key)


@jit(inline="always")
def _prefix_state(c0, c1, c2, c3, first4, d_over, d_rank_only, d_keys, d_key_offset, d_key_count, d_stride, d_state,
                  reduced, reduced_offset, radix, n_sets):
    """The state of the first four cards: the code's suffix (where counted) and every set's partial class.

    ``d_state`` is scratch for the poker values' partial states.
    """
    # The suffix only where the group counts every code (radix[0] = N_SUFFIXES, else 1).
    state = suffix_of_cards(c0, c1, c2, c3) % radix[0]
    for d in range(d_over.shape[0]):
        d_state[d] = _first_four_state(c0, c1, c2, c3, d_over, d_rank_only, d_keys, d_key_offset, d_key_count, d)
    for aset in range(n_sets):
        f = first4[aset, 0, c0] + first4[aset, 1, c1] + first4[aset, 2, c2] + first4[aset, 3, c3]
        for d in range(d_over.shape[0]):
            f += d_state[d] * d_stride[aset, d]
        state += reduced[reduced_offset[aset] + f] * radix[aset]
    return state


@jit
def _group(pt, bt, counts, points, ids, n_ids, tclass, t_total, t_point, n_classes, first4, d_over, d_rank_only,
           d_keys, d_key_offset, d_key_count, d_stride, d_state, reduced, reduced_offset, radix, third, rt, rt_offset,
           rt_width, n_sets, n_cards, slot, states, weight, r1, r2, out):
    """Every prefix with two-card totals ``(pt, bt)``, then the third-card stage of each state it touched.

    A state's sums take the next free scratch row (``slot[state]``); when every
    row is taken, the third-card stage runs on the rows so far and frees them.
    The stage is linear in the sums, so a state whose prefixes are split
    between two such flushes is counted exactly once in all.
    """
    n_touched = 0
    rows = weight.shape[0]
    k = n_classes
    for a in range(10):
        a2 = (pt - a + 10) % 10
        for b in range(10):
            b2 = (bt - b + 10) % 10
            for i0 in range(n_ids[a]):
                c0 = ids[a, i0]
                n0 = counts[c0]
                if n0 == 0:
                    continue
                t0 = tclass[c0]
                for i1 in range(n_ids[b]):
                    c1 = ids[b, i1]
                    n1 = counts[c1] - (c1 == c0)
                    if n1 <= 0:
                        continue
                    t1 = tclass[c1]
                    w01 = n0 * n1
                    for i2 in range(n_ids[a2]):
                        c2 = ids[a2, i2]
                        n2 = counts[c2] - (c2 == c0) - (c2 == c1)
                        if n2 <= 0:
                            continue
                        t2 = tclass[c2]
                        w012 = w01 * n2
                        for i3 in range(n_ids[b2]):
                            c3 = ids[b2, i3]
                            n3 = counts[c3] - (c3 == c0) - (c3 == c1) - (c3 == c2)
                            if n3 <= 0:
                                continue
                            w = w012 * n3
                            t3 = tclass[c3]
                            state = _prefix_state(c0, c1, c2, c3, first4, d_over, d_rank_only, d_keys, d_key_offset,
                                                  d_key_count, d_stride, d_state, reduced, reduced_offset, radix,
                                                  n_sets)
                            row = slot[state]
                            if row < 0:
                                if n_touched == rows:
                                    _third_stage(pt, bt, n_touched, k, t_total, t_point, n_sets, n_cards, radix,
                                                 third, rt, rt_offset, rt_width, slot, states, weight, r1, r2, out)
                                    n_touched = 0
                                row = n_touched
                                slot[state] = row
                                states[row] = state
                                n_touched += 1
                            weight[row] += w
                            r1[row, t0] += w
                            r1[row, t1] += w
                            r1[row, t2] += w
                            r1[row, t3] += w
                            # Pairs of the four cards' classes, each unordered pair once (see _third_stage).
                            r2[row, min(t0, t1), max(t0, t1)] += w
                            r2[row, min(t0, t2), max(t0, t2)] += w
                            r2[row, min(t0, t3), max(t0, t3)] += w
                            r2[row, min(t1, t2), max(t1, t2)] += w
                            r2[row, min(t1, t3), max(t1, t3)] += w
                            r2[row, min(t2, t3), max(t2, t3)] += w
    _third_stage(pt, bt, n_touched, k, t_total, t_point, n_sets, n_cards, radix, third, rt, rt_offset, rt_width, slot,
                 states, weight, r1, r2, out)


@jit
def _third_stage(pt, bt, n_rows, k, t_total, t_point, n_sets, n_cards, radix, third, rt, rt_offset, rt_width, slot,
                 states, weight, r1, r2, out):
    """The third cards of scratch rows ``0 .. n_rows - 1`` (states with two-card totals ``(pt, bt)``); frees them.

    The tableau is read off its table (:func:`~baccarat_sim.kernels.outcome.third_card_prefix`),
    as in :func:`baccarat_sim.kernels.exact.third_card_stage`: the fifth card
    is taken or not by the two-card totals alone, the sixth by the fifth's
    point value.
    """
    stands = third_card_prefix(pt, bt, 0, 0)
    rest = n_cards - 4
    for row in range(n_rows):
        state = states[row]
        slot[state] = -1
        w = weight[row]
        # The outcome a weight is counted by: the code prefix * N_SUFFIXES + suffix, or the prefix alone.
        suffix = state % radix[0]
        if cards_used_of(stands) == 4:  # a natural, or both hands stand
            bits = _bits(state, k, k, n_sets, radix, third, rt, rt_offset, rt_width)
            out[bits, stands * radix[0] + suffix] += w * rest * (rest - 1)
        else:
            for c in range(k):  # the fifth card's class
                wc = t_total[c] * w - r1[row, c]
                if wc == 0:
                    continue
                fifth = third_card_prefix(pt, bt, t_point[c], 0)
                if cards_used_of(fifth) == 5:  # one hand drew the fifth card, the other stood
                    p3 = c if player_drew_of(fifth) else k
                    b3 = c if banker_drew_of(fifth) else k
                    bits = _bits(state, p3, b3, n_sets, radix, third, rt, rt_offset, rt_width)
                    out[bits, fifth * radix[0] + suffix] += wc * (rest - 1)
                    continue
                for d in range(k):  # both drew: the sixth card is the Banker's third
                    delta = np.int64(c == d)
                    # The sum of w r_c r_d from the sums of w by pair of classes (see the module's notes).
                    pairs = r2[row, min(c, d), max(c, d)]
                    if c == d:
                        pairs = r1[row, c] + 2 * pairs
                    wd = (t_total[c] * (t_total[d] - delta) * w - t_total[c] * r1[row, d]
                          - (t_total[d] - delta) * r1[row, c] + pairs)
                    if wd == 0:
                        continue
                    bits = _bits(state, c, d, n_sets, radix, third, rt, rt_offset, rt_width)
                    out[bits, third_card_prefix(pt, bt, t_point[c], t_point[d]) * radix[0] + suffix] += wd
        weight[row] = 0
        for c in range(k):
            r1[row, c] = 0
            for d in range(k):
                r2[row, c, d] = 0


@jit(inline="always")
def _bits(state, p3, b3, n_sets, radix, third, rt, rt_offset, rt_width):
    """The combination of a state whose third cards are of classes ``p3`` and ``b3`` (``n_classes``: no card).

    The sum of every set's local id times its radix (``rt`` holds them so).
    """
    combination = np.int64(0)
    for aset in range(n_sets):
        partial = (state // radix[aset]) % (radix[aset + 1] // radix[aset])
        t = third[aset, 0, p3] + third[aset, 1, b3]
        combination += rt[rt_offset[aset] + partial * rt_width[aset] + t]
    return combination


@jit_parallel
def exact_detail_counts(counts, points, ids, n_ids, tclass, t_total, t_point, first4, d_over, d_rank_only, d_keys,
                        d_key_offset, d_key_count, d_stride, reduced, reduced_offset, radix, third, rt, rt_offset,
                        rt_width, n_states, rows, pairs, lanes):
    """Exact weights of every (combination, outcome) of one round from a freshly shuffled shoe.

    Parameters
    ----------
    counts : ndarray(int64, shape=(52,))
        Cards of each id in the shoe.
    points : ndarray(int64, shape=(52,))
        Point value of each card id.
    ids, n_ids : ndarray(int64, shape=(10, 16)), ndarray(int64, shape=(10,))
        The card ids of each point value.
    tclass : ndarray(int64, shape=(52,))
        Third-card class of each card id (``n_classes`` classes).
    t_total, t_point : ndarray(int64, shape=(n_classes,))
        Cards of each third-card class in the shoe, and its point value.
    first4 : ndarray(int64, shape=(n_sets, 4, 52))
        Each set of atoms' first-four index contribution by position and card id
        (atoms are enumerated in sets: :func:`baccarat_sim.model.detail_tables.exact_tables`).
    d_over, d_rank_only : ndarray(int64, shape=(n_values, 4)), ndarray(int64, shape=(n_values,))
        Which of the first four positions each poker value reads, and whether it reads ranks alone.
    d_keys, d_key_offset, d_key_count : ndarray(int64)
        Each poker value's partial states after the first four cards (sorted, from ``d_key_offset``).
    d_stride : ndarray(int64, shape=(n_sets, n_values))
        Each set's first-four index contribution of each poker value's state index.
    reduced, reduced_offset : ndarray(int64)
        Each set's partial class of every first-four index (from ``reduced_offset[aset]``).
    radix : ndarray(int64, shape=(n_sets + 1,))
        State stride of each set's partial class; ``radix[0]`` is ``N_SUFFIXES`` where the group counts every
        outcome code, 1 where it counts prefixes.
    third : ndarray(int64, shape=(n_sets, 2, n_classes + 1))
        Each set's third-card index contribution of the Player's (0) and the
        Banker's (1) third card by class (``n_classes``: no card).
    rt, rt_offset, rt_width : ndarray(int64)
        Each set's local id times its radix by (partial class, third-card index), rows of ``rt_width[aset]``.
    n_states : int
        ``radix[n_sets]``: states per group.
    rows : int
        Scratch rows per lane: states whose sums are held at once.
    pairs : ndarray(int64)
        The pairs of two-card totals to enumerate (``10 * player + banker``): a long enumeration is split into
        calls, between which the caller can stop it.
    lanes : ndarray(int64, shape=(n_lanes, n_combinations, n_outcomes))
        Output, one histogram per lane (thread), added to; their sum is the result. Lane ``j`` takes
        ``pairs[j], pairs[j + n_lanes], ...``.
    """
    n_sets = first4.shape[0]
    k = t_total.shape[0]
    n_cards = np.int64(0)
    for c in range(52):
        n_cards += counts[c]
    n_lanes = lanes.shape[0]
    for lane in prange(n_lanes):
        # Scratch per lane, left zeroed by each group for the next.
        slot = np.full(n_states, -1, np.int32)
        states = np.zeros(rows, np.int64)
        weight = np.zeros(rows, np.int64)
        r1 = np.zeros((rows, k), np.int64)
        r2 = np.zeros((rows, k, k), np.int64)
        d_state = np.zeros(max(1, d_over.shape[0]), np.int64)
        for j in range(lane, pairs.shape[0], n_lanes):
            g = pairs[j]
            _group(g // 10, g % 10, counts, points, ids, n_ids, tclass, t_total, t_point, k, first4, d_over,
                   d_rank_only, d_keys, d_key_offset, d_key_count, d_stride, d_state, reduced, reduced_offset, radix,
                   third, rt, rt_offset, rt_width, n_sets, n_cards, slot, states, weight, r1, r2, lanes[lane])


@jit
def exact_detail_reach(counts, ids, n_ids, t_point, fifth, sixth, first4, d_over, d_rank_only, d_keys, d_key_offset,
                       d_key_count, d_stride, reduced, reduced_offset, radix, third, rt, rt_offset, rt_width, n_states,
                       pairs, out):
    """Which (combination, outcome) cells of one round can happen, from a shoe that holds six cards of every id it has.

    The cells of positive weight in :func:`exact_detail_counts` (same arrays),
    found without the weights. Where every card id in the shoe has at least
    six cards (or none), no round of six cards runs out of one, so a cell can
    happen exactly when some sequence of the shoe's ids deals it. For each
    pair of two-card totals, the first four cards give the *partial states*
    (every set's partial class) that occur, each with the set of code
    suffixes it occurs with; then the third cards of each partial state are
    worked out once, for all of its suffixes (a suffix changes the outcome,
    not the combination).

    Parameters
    ----------
    counts, ids, n_ids, t_point, first4, d_over, d_rank_only, d_keys, d_key_offset, d_key_count, d_stride, reduced,
    reduced_offset, radix, third, rt, rt_offset, rt_width, n_states
        As :func:`exact_detail_counts` reads them (``counts``: 0, or at least 6, of each id).
    fifth, sixth : ndarray(int64)
        The third-card classes to try as the fifth and as the sixth card: classes the shoe holds, at least one of
        each point value and of each third-card index of every set (for the fifth card, as the Player's and as the
        Banker's third card; for the sixth, as the Banker's) that a class the shoe holds gives.
    pairs : ndarray(int64)
        The pairs of two-card totals to enumerate (``10 * player + banker``).
    out : ndarray(bool, shape=(n_combinations, n_outcomes))
        Output: the cells that can happen are set (others are left as they are).
    """
    n_sets = first4.shape[0]
    n_partial = n_states // radix[0]
    # The suffixes each partial state occurred with (bit s: suffix s; radix[0] is N_SUFFIXES = 36 or 1), and the
    # partial states that occurred, for the pair of totals at hand.
    suffixes = np.zeros(n_partial, np.uint64)
    touched = np.zeros(n_partial, np.int32)
    d_state = np.zeros(max(1, d_over.shape[0]), np.int64)
    one = np.uint64(1)
    for j in range(pairs.shape[0]):
        pt = pairs[j] // 10
        bt = pairs[j] % 10
        n_touched = 0
        for a in range(10):
            a2 = (pt - a + 10) % 10
            for b in range(10):
                b2 = (bt - b + 10) % 10
                for i0 in range(n_ids[a]):
                    c0 = ids[a, i0]
                    if counts[c0] == 0:
                        continue
                    for i1 in range(n_ids[b]):
                        c1 = ids[b, i1]
                        if counts[c1] == 0:
                            continue
                        for i2 in range(n_ids[a2]):
                            c2 = ids[a2, i2]
                            if counts[c2] == 0:
                                continue
                            for i3 in range(n_ids[b2]):
                                c3 = ids[b2, i3]
                                if counts[c3] == 0:
                                    continue
                                state = _prefix_state(c0, c1, c2, c3, first4, d_over, d_rank_only, d_keys,
                                                      d_key_offset, d_key_count, d_stride, d_state, reduced,
                                                      reduced_offset, radix, n_sets)
                                partial = state // radix[0]
                                if suffixes[partial] == 0:
                                    touched[n_touched] = partial
                                    n_touched += 1
                                suffixes[partial] |= one << np.uint64(state - partial * radix[0])
        _reach_third_stage(pt, bt, n_touched, t_point.shape[0], t_point, fifth, sixth, n_sets, radix, third, rt,
                           rt_offset, rt_width, touched, suffixes, out)


@jit
def _reach_third_stage(pt, bt, n_touched, k, t_point, fifth, sixth, n_sets, radix, third, rt, rt_offset, rt_width,
                       touched, suffixes, out):
    """The cells that the partial states ``touched[:n_touched]`` (two-card totals ``(pt, bt)``) reach.

    The tableau as in :func:`_third_stage`; a class the shoe holds always has
    a card left for the fifth and the sixth position. Each partial state's
    cells are marked for every suffix it occurred with; its suffixes are then
    cleared for the next pair of totals.
    """
    stands = third_card_prefix(pt, bt, 0, 0)
    present = np.zeros(radix[0], np.int64)
    for row in range(n_touched):
        partial = np.int64(touched[row])
        n_present = 0
        for suffix in range(radix[0]):
            if (suffixes[partial] >> np.uint64(suffix)) & np.uint64(1):
                present[n_present] = suffix
                n_present += 1
        suffixes[partial] = 0
        state = partial * radix[0]
        if cards_used_of(stands) == 4:  # a natural, or both hands stand
            _mark(out, _bits(state, k, k, n_sets, radix, third, rt, rt_offset, rt_width), stands * radix[0], present,
                  n_present)
            continue
        for c in fifth:  # the fifth card's class
            prefix = third_card_prefix(pt, bt, t_point[c], 0)
            if cards_used_of(prefix) == 5:  # one hand drew the fifth card, the other stood
                p3 = c if player_drew_of(prefix) else k
                b3 = c if banker_drew_of(prefix) else k
                _mark(out, _bits(state, p3, b3, n_sets, radix, third, rt, rt_offset, rt_width), prefix * radix[0],
                      present, n_present)
                continue
            for d in sixth:  # both drew: the sixth card is the Banker's third
                _mark(out, _bits(state, c, d, n_sets, radix, third, rt, rt_offset, rt_width),
                      third_card_prefix(pt, bt, t_point[c], t_point[d]) * radix[0], present, n_present)


@jit(inline="always")
def _mark(out, combination, first_outcome, suffixes, n_suffixes):
    """Mark the cells of one combination at outcomes ``first_outcome + suffixes[:n_suffixes]``."""
    for i in range(n_suffixes):
        out[combination, first_outcome + suffixes[i]] = True
