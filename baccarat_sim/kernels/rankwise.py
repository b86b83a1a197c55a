"""Exact card detail by rank: the weights of one group of card-level atoms, suits counted, not enumerated.

Pure numba functions over integer arrays, no I/O. The weights are those of
:mod:`baccarat_sim.kernels.exact` (ordered six-card sequences; a round that
uses fewer than six cards stands for every ordering of the rest), split by the
bits of a group's atoms (:class:`baccarat_sim.model.atoms.Atom`) and by outcome
(a code, or its prefix).

The enumeration runs over the *kinds* of the six cards, one kind a rank (ranks
that nothing the group reads tells apart may share one): the first four
cards' kinds, then the third cards' kinds as the tableau draws them. A round
of kinds fixes the scores, the hands' ranks (so each hand's rank state,
:mod:`baccarat_sim.model.poker_states`) and every class that does not depend
on a suit. What is left is the suits of the *suit-reading* positions: those
whose class depends on the suit for their kind, those of a hand whose poker
value reads suits (a flush), and, where the group counts outcome codes, the
two cards of a pair or of a first-card tie.

Suits tie cards together only within a rank: given the kinds, the suits of
positions of different kinds are independent, and those of one kind are an
ordered draw without replacement from that kind's cards by suit. So the
suits are counted by a small dynamic program over the kinds of the round
(:func:`~baccarat_sim.kernels.suit_counts.suit_distribution`), whose state is only what the atoms read of the
suits: each suit-reading position's class, whether each suit-reading hand is
still of one suit (and which), and the pairs' suit flags. Positions whose
suit nothing reads drop out as falling factorials of their kind's count. The
distribution depends on the round only through which suit-reading positions
share a kind and what each kind holds and reads of its suits (the *key*), so
it is worked out once per key: on a shoe whose suits are equally represented
a handful of keys serve every round; a depleted shoe has more, each exact.

Each hand's poker values are read off its own rank state and its one-suit
flag (``hand_value[which, 2 * state + one_suit]``), hand by hand: never a
cross product of two hands' states.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..model.codes import N_SUFFIXES
from .jit import jit
from .outcome import (
    banker_drew_of,
    cards_used_of,
    first_card_status,
    pair_status,
    player_drew_of,
    suffix_of,
    third_card_prefix,
)
from .suit_counts import CLASS_BITS, HAND_SHIFT, TAIL_SHIFT, suit_distribution

__all__ = ["MAX_ROWS", "RankwiseTables", "rankwise_counts"]

_NO_LETTER = 13
_ABSENT = -1
#: Most combinations of atom bits one group may make (rows of the output).
MAX_ROWS = 1 << 20
#: Most suit distributions (keys) and their values, and most contexts and their entries, one call remembers:
#: past them a round is worked out afresh (exact all the same); they bound the memory of a call.
_MAX_KEYS = 1 << 12
_MAX_ENTRIES = 1 << 16
_MAX_CONTEXTS = 1 << 14


class RankwiseTables(NamedTuple):
    """One group of atoms and a shoe, as :func:`rankwise_counts` reads them (read-only arrays).

    Positions are P1 B1 P2 B2 P3 B3 (0-5). A *kind* is a rank, or ranks that
    nothing of the group tells apart (no poker value, no outcome code) pooled
    into one.

    Attributes
    ----------
    shoe : ndarray(int64, shape=(n_kinds, 4))
        Cards of each kind by suit.
    point : ndarray(int64, shape=(n_kinds,))
        Point value of each kind.
    letter : ndarray(int64, shape=(n_kinds,))
        The rank a poker value reads of each kind (kinds are ranks wherever a poker value is read).
    suit_kind : ndarray(int64, shape=(n_kinds,))
        Kinds with equal numbers : kinds of equal cards by suit and equal classes by suit at every position where
        the class depends on the suit (the suit distributions of such kinds are equal).
    classes : ndarray(int64, shape=(6, n_kinds, 4))
        The group's joint class of a card of each kind and suit at each position.
    varies : ndarray(int64, shape=(6, n_kinds))
        1 where the class at a position depends on the suit for that kind.
    none_class : ndarray(int64, shape=(6,))
        The class of no card (a third card not drawn) at each position.
    hand_over : ndarray(int64, shape=(n_hands, 6))
        1 where a hand (the positions some poker values read) holds the position.
    hand_suits : ndarray(int64, shape=(n_hands,))
        The hand's index among the suit-reading hands (a value over it reads suits: a flush), or -1.
    atom_term : ndarray(int64, shape=(n_atoms, 6, n_classes))
        What each atom's truth-table index adds for the class at each position (0 where it does not read it).
    value_first : ndarray(int64, shape=(n_atoms + 1,))
        Atom ``a``'s poker values are ``value_first[a] .. value_first[a + 1] - 1``.
    value_which, value_hand, value_stride : ndarray(int64, shape=(n_values,))
        Each poker value an atom reads: which value (:data:`baccarat_sim.model.poker.VALUES`), its hand, and its
        stride in the atom's truth table.
    truth : ndarray(uint8)
        Every atom's truth table, one after the other, from ``truth_offset[atom]``.
    truth_offset : ndarray(int64, shape=(n_atoms,))
    first_four_state, next_state, hand_value : ndarray
        The poker state tables (:func:`baccarat_sim.model.poker_states.state_tables`).
    codes : int
        1: count outcome codes (the pairs and the first-card comparison read suits); 0: code prefixes.
    """

    shoe: np.ndarray
    point: np.ndarray
    letter: np.ndarray
    suit_kind: np.ndarray
    classes: np.ndarray
    varies: np.ndarray
    none_class: np.ndarray
    hand_over: np.ndarray
    hand_suits: np.ndarray
    atom_term: np.ndarray
    value_first: np.ndarray
    value_which: np.ndarray
    value_hand: np.ndarray
    value_stride: np.ndarray
    truth: np.ndarray
    truth_offset: np.ndarray
    first_four_state: np.ndarray
    next_state: np.ndarray
    hand_value: np.ndarray
    codes: int


@jit(inline="always")
def _hash(value):
    """A well-mixed hash of an int64 (splitmix64's finaliser; right shifts masked to be logical)."""
    value = value ^ ((value >> 30) & np.int64(0x3FFFFFFFF))
    value = value * np.int64(-4658895280553007687)
    value = value ^ ((value >> 27) & np.int64(0x1FFFFFFFFF))
    value = value * np.int64(-7723592293110705685)
    return value ^ ((value >> 31) & np.int64(0x1FFFFFFFF))


@jit(inline="always")
def _context_slot(table, context):
    """The slot of ``context`` (a row) in an open-addressing table of rows (first column -1 where free)."""
    h = np.int64(0)
    for i in range(context.shape[0]):
        h = _hash(h ^ context[i])
    mask = table.shape[0] - 1
    slot = h & mask
    while table[slot, 0] != -1:
        same = True
        for i in range(context.shape[0]):
            if table[slot, i] != context[i]:
                same = False
                break
        if same:
            return slot
        slot = (slot + 1) & mask
    return slot


@jit(inline="always")
def _slot(table, key):
    """The slot of ``key`` in an open-addressing table of int64 keys (-1 where free)."""
    mask = table.shape[0] - 1
    slot = _hash(key) & mask
    while table[slot] != key and table[slot] != -1:
        slot = (slot + 1) & mask
    return slot


@jit
def _third_cards(point, kind_total, pt, bt, n_cards, opt_kinds, opt_prefix, opt_rest):
    """The third cards of first four cards with two-card totals ``pt``, ``bt``, by kind, off the tableau.

    Writes each option's third cards' kinds (``-1``: not drawn), code prefix and the ways of the positions the
    round leaves unused; returns how many options there are.
    """
    stands = third_card_prefix(pt, bt, 0, 0)
    if cards_used_of(stands) == 4:  # a natural, or both hands stand
        opt_kinds[0, 0] = _ABSENT
        opt_kinds[0, 1] = _ABSENT
        opt_prefix[0] = stands
        opt_rest[0] = (n_cards - 4) * (n_cards - 5)
        return 1
    n = 0
    for c in range(point.shape[0]):  # the fifth card
        if kind_total[c] == 0:
            continue
        fifth = third_card_prefix(pt, bt, point[c], 0)
        if cards_used_of(fifth) == 5:  # one hand drew it, the other stood
            opt_kinds[n, 0] = c if player_drew_of(fifth) else _ABSENT
            opt_kinds[n, 1] = c if banker_drew_of(fifth) else _ABSENT
            opt_prefix[n] = fifth
            opt_rest[n] = n_cards - 5
            n += 1
            continue
        for d in range(point.shape[0]):  # both drew: the sixth card is the Banker's third
            if kind_total[d] == 0:
                continue
            opt_kinds[n, 0] = c
            opt_kinds[n, 1] = d
            opt_prefix[n] = third_card_prefix(pt, bt, point[c], point[d])
            opt_rest[n] = 1
            n += 1
    return n


@jit
def rankwise_counts(t, first_kinds):
    """Exact weights of one group by combination of atom bits and outcome, for rounds whose P1 is of ``first_kinds``.

    Every array the loop over rounds reads is taken out of ``t`` once, up front, and the loop calls no function
    that takes arrays but inlined ones: numba counts references to an array each time it is read out of a tuple or
    passed to a call, and that counting cost more than the work.

    Parameters
    ----------
    t : RankwiseTables
    first_kinds : ndarray(int64)
        The kinds of the Player's first card to enumerate (a long enumeration is split into calls, between which
        the caller can stop it, or which threads share).

    Returns
    -------
    (ndarray(int64, shape=(n_rows,)), ndarray(int64, shape=(n_rows, n_outcomes)))
        The atom bits of each row (atom ``a`` is bit ``a``), and its weights by outcome: a code where ``t.codes``,
        else a code prefix.
    """
    shoe, point, letter, suit_kind, classes, varies = t.shoe, t.point, t.letter, t.suit_kind, t.classes, t.varies
    none_class, hand_over, hand_suits, first_four_state, next_state = (t.none_class, t.hand_over, t.hand_suits,
                                                                       t.first_four_state, t.next_state)
    atom_term, truth, truth_offset, value_first = t.atom_term, t.truth, t.truth_offset, t.value_first
    value_hand, value_which, value_stride, hand_value = t.value_hand, t.value_which, t.value_stride, t.hand_value
    codes = t.codes
    n_kinds = shoe.shape[0]
    n_hands = hand_over.shape[0]
    n_atoms = atom_term.shape[0]
    kind_total = np.zeros(n_kinds, np.int64)
    for k in range(n_kinds):
        for s in range(4):
            kind_total[k] += shoe[k, s]
    n_cards = kind_total.sum()
    n_suit_hands = 0
    in_suit_hand = np.zeros(6, np.bool_)  # a position of a hand whose poker values read suits
    for h in range(n_hands):
        if hand_suits[h] >= 0:
            n_suit_hands = max(n_suit_hands, hand_suits[h] + 1)
            for p in range(6):
                if hand_over[h, p]:
                    in_suit_hand[p] = True
    radix = N_SUFFIXES if codes else 1
    # What the call remembers (open-addressing tables, -1 where a slot is free): suit distributions by key, the
    # entries of contexts (output row, suffix, ways), the output row of each combination of atom bits.
    key_table, key_first = np.full(2 * _MAX_KEYS, -1, np.int64), np.zeros(2 * _MAX_KEYS, np.int64)
    entry_start, entry_value = np.zeros(_MAX_KEYS + 1, np.int64), np.zeros(_MAX_ENTRIES, np.int64)
    entry_ways = np.zeros(_MAX_ENTRIES, np.int64)
    n_keys = 0
    context_table = np.full((2 * _MAX_CONTEXTS, 8 + n_hands), -1, np.int64)
    context_first, found_start = np.zeros(2 * _MAX_CONTEXTS, np.int64), np.zeros(_MAX_CONTEXTS + 1, np.int64)
    found_row, found_suffix = np.zeros(_MAX_ENTRIES, np.int64), np.zeros(_MAX_ENTRIES, np.int64)
    found_ways = np.zeros(_MAX_ENTRIES, np.int64)
    n_contexts = 0
    row_slots = np.int64(1) << min(n_atoms + 1, 21)
    row_table, row_index = np.full(row_slots, -1, np.int64), np.zeros(row_slots, np.int64)
    n_rows = 0
    out = np.zeros((4, 400 * radix), np.int64)
    out_bits = np.zeros(4, np.int64)
    most = 1 << 12  # suit assignments of six positions: the most values a suit distribution has
    new_row, new_suffix, new_ways = np.zeros(most, np.int64), np.zeros(most, np.int64), np.zeros(most, np.int64)
    kinds = np.full(6, _ABSENT, np.int64)
    in_s = np.zeros(6, np.bool_)
    s_count = np.zeros(n_kinds, np.int64)
    seen = np.zeros(n_kinds, np.int64)
    card_class = np.zeros(6, np.int64)
    hand_state = np.zeros(max(1, n_hands), np.int64)
    hand_letters = np.zeros(max(1, n_hands), np.int64)
    context = np.zeros(8 + n_hands, np.int64)
    opt_kinds = np.zeros((n_kinds * n_kinds + n_kinds, 2), np.int64)
    opt_prefix = np.zeros(n_kinds * n_kinds + n_kinds, np.int64)
    opt_rest = np.zeros(n_kinds * n_kinds + n_kinds, np.int64)
    for k0 in first_kinds:
        for k1 in range(n_kinds):
            for k2 in range(n_kinds):
                for k3 in range(n_kinds):
                    if kind_total[k0] == 0 or kind_total[k1] == 0 or kind_total[k2] == 0 or kind_total[k3] == 0:
                        continue
                    kinds[0], kinds[1], kinds[2], kinds[3] = k0, k1, k2, k3
                    # Each hand's first-four state (the poker state tables' index of its letters).
                    for h in range(n_hands):
                        index = 0
                        scale = 1
                        for p in range(4):
                            index += (letter[kinds[p]] if hand_over[h, p] else _NO_LETTER) * scale
                            scale *= 14
                        hand_letters[h] = first_four_state[index]
                    n_options = _third_cards(point, kind_total, (point[k0] + point[k2]) % 10,
                                             (point[k1] + point[k3]) % 10, n_cards, opt_kinds, opt_prefix, opt_rest)
                    for o in range(n_options):
                        kinds[4] = opt_kinds[o, 0]
                        kinds[5] = opt_kinds[o, 1]
                        # Suit-reading positions, counted by kind.
                        for p in range(6):
                            in_s[p] = False
                            if kinds[p] != _ABSENT:
                                s_count[kinds[p]] = 0
                                seen[kinds[p]] = 0
                        for p in range(6):
                            kind = kinds[p]
                            if kind == _ABSENT:
                                continue
                            reads = varies[p, kind] != 0 or in_suit_hand[p]
                            if codes and ((p == 0 and (k2 == kind or k1 == kind)) or (p == 2 and k0 == kind)
                                          or (p == 1 and (k3 == kind or k0 == kind)) or (p == 3 and k1 == kind)):
                                reads = True
                            in_s[p] = reads
                            if reads:
                                s_count[kind] += 1
                        # The positions whose suit nothing reads: falling factorials of their kinds' counts.
                        ways = opt_rest[o]
                        for p in range(6):
                            kind = kinds[p]
                            if kind == _ABSENT:
                                continue
                            if s_count[kind] > kind_total[kind]:
                                ways = 0
                            elif not in_s[p]:
                                ways *= kind_total[kind] - s_count[kind] - seen[kind]
                                seen[kind] += 1
                        if ways <= 0:
                            continue
                        # The key of the suit distribution: which suit-reading positions share a kind, and each
                        # one's suit kind.
                        key = np.int64(0)
                        for p in range(6):
                            field = 7
                            if in_s[p]:
                                field = p
                                for q in range(p):
                                    if in_s[q] and kinds[q] == kinds[p]:
                                        field = q
                                        break
                                field |= suit_kind[kinds[p]] << 3
                            key |= np.int64(field) << (7 * p)
                        # The context: the key, the classes and hand states that the suits leave alone, the pairs
                        # by rank.
                        context[0] = key
                        for p in range(6):
                            kind = kinds[p]
                            card_class[p] = none_class[p] if kind == _ABSENT else classes[p, kind, 0]
                            context[1 + p] = -2 if kind != _ABSENT and in_s[p] and varies[p, kind] else card_class[p]
                        for h in range(n_hands):
                            state = np.int64(hand_letters[h])
                            for p in range(4, 6):
                                if hand_over[h, p] and kinds[p] != _ABSENT:
                                    state = np.int64(next_state[14 * state + letter[kinds[p]]])
                            hand_state[h] = state
                            context[7 + h] = state
                        if codes:
                            context[7 + n_hands] = ((k0 == k2) + 2 * (k1 == k3) + 4 * (k0 == k1)
                                                    + 8 * (letter[k0] < letter[k1]))
                        slot = _context_slot(context_table, context)
                        prefix = opt_prefix[o] * radix
                        if context_table[slot, 0] != -1:
                            i = context_first[slot]
                            for e in range(found_start[i], found_start[i + 1]):
                                out[found_row[e], prefix + found_suffix[e]] += found_ways[e] * ways
                            continue
                        # A new context: its suit distribution (remembered by key), then each value's atom bits.
                        key_slot = _slot(key_table, key)
                        if key_table[key_slot] == key:
                            i = key_first[key_slot]
                            values, value_ways = entry_value, entry_ways
                            first, last = entry_start[i], entry_start[i + 1]
                        else:
                            values, value_ways = suit_distribution(shoe, varies, classes, hand_over, hand_suits,
                                                                   codes, kinds, in_s, n_suit_hands)
                            first, last = 0, values.shape[0]
                            start = entry_start[n_keys]
                            if n_keys < _MAX_KEYS and start + last <= _MAX_ENTRIES:
                                entry_value[start:start + last] = values
                                entry_ways[start:start + last] = value_ways
                                entry_start[n_keys + 1] = start + last
                                key_table[key_slot] = key
                                key_first[key_slot] = n_keys
                                n_keys += 1
                        n_found = 0
                        for e in range(first, last):
                            value = values[e]
                            for p in range(6):
                                if kinds[p] != _ABSENT and in_s[p] and varies[p, kinds[p]]:
                                    card_class[p] = (value >> (CLASS_BITS * p)) & ((1 << CLASS_BITS) - 1)
                            bits = np.int64(0)
                            for a in range(n_atoms):
                                index = truth_offset[a]
                                for p in range(6):
                                    index += atom_term[a, p, card_class[p]]
                                for v in range(value_first[a], value_first[a + 1]):
                                    h = value_hand[v]
                                    one_suit = 1
                                    if hand_suits[h] >= 0:
                                        one_suit = (value >> (HAND_SHIFT + hand_suits[h])) & 1
                                    index += (np.int64(hand_value[value_which[v], 2 * hand_state[h] + one_suit])
                                              * value_stride[v])
                                bits |= np.int64(truth[index]) << a
                            row_slot = _slot(row_table, bits)
                            if row_table[row_slot] == bits:
                                row = row_index[row_slot]
                            else:
                                if 2 * (n_rows + 1) > row_slots or n_rows >= MAX_ROWS:
                                    raise ValueError("the card-level conditions make more combinations than the "
                                                     "exact enumeration holds")
                                row = n_rows
                                n_rows += 1
                                row_table[row_slot] = bits
                                row_index[row_slot] = row
                                if row == out.shape[0]:
                                    grown = np.zeros((2 * row, out.shape[1]), np.int64)
                                    grown[:row] = out
                                    out = grown
                                    grown_bits = np.zeros(2 * row, np.int64)
                                    grown_bits[:row] = out_bits
                                    out_bits = grown_bits
                                out_bits[row] = bits
                            suffix = 0
                            if codes:
                                suffix = suffix_of(
                                    pair_status(k0 == k2, k0 == k2 and (value >> TAIL_SHIFT) & 1),
                                    pair_status(k1 == k3, k1 == k3 and (value >> (TAIL_SHIFT + 1)) & 1),
                                    first_card_status(letter[k0], letter[k1],
                                                      k0 == k1 and (value >> (TAIL_SHIFT + 2)) & 1))
                            j = 0
                            while j < n_found and (new_row[j] != row or new_suffix[j] != suffix):
                                j += 1
                            if j == n_found:
                                new_row[j] = row
                                new_suffix[j] = suffix
                                new_ways[j] = 0
                                n_found += 1
                            new_ways[j] += value_ways[e]
                        for j in range(n_found):
                            out[new_row[j], prefix + new_suffix[j]] += new_ways[j] * ways
                        start = found_start[n_contexts]
                        if n_contexts < _MAX_CONTEXTS and start + n_found <= _MAX_ENTRIES:
                            context_table[slot] = context
                            context_first[slot] = n_contexts
                            found_row[start:start + n_found] = new_row[:n_found]
                            found_suffix[start:start + n_found] = new_suffix[:n_found]
                            found_ways[start:start + n_found] = new_ways[:n_found]
                            found_start[n_contexts + 1] = start + n_found
                            n_contexts += 1
    return out_bits[:n_rows].copy(), out[:n_rows].copy()
