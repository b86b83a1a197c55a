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
(:func:`_suit_distribution`), whose state is only what the atoms read of the
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

__all__ = ["CLASS_BITS", "MAX_ROWS", "MAX_SUIT_HANDS", "RankwiseTables", "rankwise_counts"]

#: Bits of a suit-reading position's class in a suit distribution's value (six positions, from bit 0).
CLASS_BITS = 6
#: Where the pairs' suit flags start (P1-P2, B1-B2, P1-B1: each set when the two cards share a suit).
_TAIL_SHIFT = 6 * CLASS_BITS
#: Where the hands' one-suit flags (three bits of status each while the suits are counted) start.
_HAND_SHIFT = _TAIL_SHIFT + 3
#: Most hands whose poker values read suits in one group (three bits of status each fit an int64).
MAX_SUIT_HANDS = (63 - _HAND_SHIFT) // 3
#: A hand's status while its suits are counted: 0 no card yet, 1-4 one suit (suit + 1), MIXED two suits or more.
_MIXED = 5
_NO_LETTER = 13
_ABSENT = -1


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


@jit
def _merge(states, weights, n):
    """States ``0 .. n-1`` sorted, equal ones added together; returns how many are left."""
    if n <= 1:
        return n
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
def _suit_distribution(t, kinds, in_s, n_suit_hands):
    """The suits of the suit-reading positions ``in_s`` of a round of ``kinds``: (values, ordered ways).

    A value packs each position's class where it depends on the suit (``CLASS_BITS`` from bit ``6 p``), the
    pairs' suit flags (from ``_TAIL_SHIFT``) and each suit-reading hand's one-suit flag (from ``_HAND_SHIFT``).
    The ways count the ordered draws of those positions' suits, kind by kind, without replacement.
    """
    shoe, varies, classes, hand_over, hand_suits = t.shoe, t.varies, t.classes, t.hand_over, t.hand_suits
    codes = t.codes
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
                                delta |= np.int64(1) << _TAIL_SHIFT
                            if block[i] == 1 and block[j] == 3:
                                delta |= np.int64(1) << (_TAIL_SHIFT + 1)
                            if block[i] == 0 and block[j] == 1:
                                delta |= np.int64(1) << (_TAIL_SHIFT + 2)
            for old in range(n):
                state = states[old] | delta
                for h in range(n_suit_hands):
                    shift = _HAND_SHIFT + 3 * h
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
        state = states[i] & ((np.int64(1) << _HAND_SHIFT) - 1)
        for h in range(n_suit_hands):
            status = (states[i] >> (_HAND_SHIFT + 3 * h)) & 7
            if status != _MIXED:
                state |= np.int64(1) << (_HAND_SHIFT + h)
        states[i] = state
    n = _merge(states, weights, n)
    return states[:n].copy(), weights[:n].copy()


#: Most combinations of atom bits one group may make (rows of the output).
MAX_ROWS = 1 << 20
#: Most suit distributions (keys) and their entries, and most contexts and their entries, one call remembers:
#: past them a round is worked out afresh (exact all the same); they bound the memory of a call.
_MAX_KEYS = 1 << 12
_MAX_ENTRIES = 1 << 16
_MAX_CONTEXTS = 1 << 14


class _Memo(NamedTuple):
    """What one call of :func:`rankwise_counts` remembers (open-addressing tables: -1 where a slot is free).

    ``key_table``/``key_first``: suit distribution by key, its entries ``entry_start[i] .. entry_start[i + 1]``
    (``entry_value``, ``entry_ways``). ``context_table`` (rows of ``context_width``) / ``context_first``: the
    *context* of a round (its key, the classes and hand states that do not depend on the suits, its pairs by rank)
    and its entries ``found_start[i] .. found_start[i + 1]``: the output row (atom bits), suffix and ways.
    ``row_table``/``row_index``: the output row of each combination of atom bits. ``counters``: keys, entries,
    contexts, their entries, rows used.
    """

    key_table: np.ndarray
    key_first: np.ndarray
    entry_start: np.ndarray
    entry_value: np.ndarray
    entry_ways: np.ndarray
    context_table: np.ndarray
    context_first: np.ndarray
    found_start: np.ndarray
    found_row: np.ndarray
    found_suffix: np.ndarray
    found_ways: np.ndarray
    row_table: np.ndarray
    row_index: np.ndarray
    counters: np.ndarray


@jit
def _memo(context_width, row_slots):
    return _Memo(np.full(2 * _MAX_KEYS, -1, np.int64), np.zeros(2 * _MAX_KEYS, np.int64),
                 np.zeros(_MAX_KEYS + 1, np.int64), np.zeros(_MAX_ENTRIES, np.int64), np.zeros(_MAX_ENTRIES, np.int64),
                 np.full((2 * _MAX_CONTEXTS, context_width), -1, np.int64), np.zeros(2 * _MAX_CONTEXTS, np.int64),
                 np.zeros(_MAX_CONTEXTS + 1, np.int64), np.zeros(_MAX_ENTRIES, np.int64),
                 np.zeros(_MAX_ENTRIES, np.int64), np.zeros(_MAX_ENTRIES, np.int64),
                 np.full(row_slots, -1, np.int64), np.zeros(row_slots, np.int64), np.zeros(5, np.int64))


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
def _row_of(memo, bits, out_bits, out):
    """The output row of a combination of atom bits, a new one where it has none (the output grown as needed).

    Returns ``(row, out_bits, out)``.
    """
    slot = _slot(memo.row_table, bits)
    if memo.row_table[slot] == bits:
        return memo.row_index[slot], out_bits, out
    row = memo.counters[4]
    if 2 * (row + 1) > memo.row_table.shape[0]:
        raise ValueError("the card-level conditions make more combinations than the exact enumeration holds")
    memo.counters[4] = row + 1
    if row == out.shape[0]:
        grown = np.zeros((2 * row, out.shape[1]), np.int64)
        grown[:row] = out
        out = grown
        grown_bits = np.zeros(2 * row, np.int64)
        grown_bits[:row] = out_bits
        out_bits = grown_bits
    out_bits[row] = bits
    memo.row_table[slot] = bits
    memo.row_index[slot] = row
    return row, out_bits, out


@jit
def _suit_entries(t, memo, kinds, in_s, key, n_suit_hands):
    """The suit distribution of a round (:func:`_suit_distribution`), remembered by its key where there is room."""
    slot = _slot(memo.key_table, key)
    if memo.key_table[slot] == key:
        i = memo.key_first[slot]
        return memo.entry_value[memo.entry_start[i]:memo.entry_start[i + 1]], \
            memo.entry_ways[memo.entry_start[i]:memo.entry_start[i + 1]]
    values, ways = _suit_distribution(t, kinds, in_s, n_suit_hands)
    i = memo.counters[0]
    start = memo.entry_start[i]
    if i < _MAX_KEYS and start + values.shape[0] <= _MAX_ENTRIES:
        memo.entry_value[start:start + values.shape[0]] = values
        memo.entry_ways[start:start + values.shape[0]] = ways
        memo.entry_start[i + 1] = start + values.shape[0]
        memo.key_table[slot] = key
        memo.key_first[slot] = i
        memo.counters[0] = i + 1
    return values, ways


@jit
def _atom_bits(t, card_class, hand_state, value):
    """The atoms' bits for the positions' classes and the hands' states, with a suit distribution's ``value``."""
    atom_term, truth, truth_offset, value_first = t.atom_term, t.truth, t.truth_offset, t.value_first
    value_hand, value_which, value_stride, hand_suits, hand_value = (t.value_hand, t.value_which, t.value_stride,
                                                                      t.hand_suits, t.hand_value)
    bits = np.int64(0)
    for a in range(atom_term.shape[0]):
        index = truth_offset[a]
        for p in range(6):
            index += atom_term[a, p, card_class[p]]
        for v in range(value_first[a], value_first[a + 1]):
            h = value_hand[v]
            one_suit = 1
            if hand_suits[h] >= 0:
                one_suit = (value >> (_HAND_SHIFT + hand_suits[h])) & 1
            index += np.int64(hand_value[value_which[v], 2 * hand_state[h] + one_suit]) * value_stride[v]
        bits |= np.int64(truth[index]) << a
    return bits


@jit
def _suffix(t, kinds, value):
    """The outcome code's suffix (pairs, first-card comparison) of a round, 0 where the group counts prefixes."""
    if not t.codes:
        return 0
    player_pair = pair_status(kinds[0] == kinds[2], kinds[0] == kinds[2] and (value >> _TAIL_SHIFT) & 1)
    banker_pair = pair_status(kinds[1] == kinds[3], kinds[1] == kinds[3] and (value >> (_TAIL_SHIFT + 1)) & 1)
    first_card = first_card_status(t.letter[kinds[0]], t.letter[kinds[1]],
                                   kinds[0] == kinds[1] and (value >> (_TAIL_SHIFT + 2)) & 1)
    return suffix_of(player_pair, banker_pair, first_card)


@jit
def _found_of_context(t, memo, kinds, in_s, key, n_suit_hands, card_class, hand_state, out_bits, out, found_row,
                      found_suffix, found_ways):
    """A round's entries (output row, suffix, ways) from its suit distribution, for a context not seen before.

    ``card_class`` holds the classes that do not depend on the suits; those that do are read off each value of
    the distribution. Returns ``(n_found, out_bits, out)``, the output grown where a new row was needed.
    """
    values, value_ways = _suit_entries(t, memo, kinds, in_s, key, n_suit_hands)
    varies = t.varies
    n_found = 0
    for e in range(values.shape[0]):
        value = values[e]
        for p in range(6):
            if kinds[p] != _ABSENT and in_s[p] and varies[p, kinds[p]]:
                card_class[p] = (value >> (CLASS_BITS * p)) & ((1 << CLASS_BITS) - 1)
        row, out_bits, out = _row_of(memo, _atom_bits(t, card_class, hand_state, value), out_bits, out)
        suffix = _suffix(t, kinds, value)
        j = 0
        while j < n_found and (found_row[j] != row or found_suffix[j] != suffix):
            j += 1
        if j == n_found:
            found_row[j] = row
            found_suffix[j] = suffix
            found_ways[j] = 0
            n_found += 1
        found_ways[j] += value_ways[e]
    return n_found, out_bits, out


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

    The arrays the loop over rounds reads are taken out of ``t`` once, up front: numba counts references to an
    array each time a loop reads it out of a tuple, and that counting cost more than the work.

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
    none_class, hand_over, first_four_state, next_state = t.none_class, t.hand_over, t.first_four_state, t.next_state
    codes = t.codes
    n_kinds = shoe.shape[0]
    n_hands = hand_over.shape[0]
    kind_total = np.zeros(n_kinds, np.int64)
    for k in range(n_kinds):
        for s in range(4):
            kind_total[k] += shoe[k, s]
    n_cards = kind_total.sum()
    n_suit_hands = 0
    in_suit_hand = np.zeros(6, np.bool_)  # a position of a hand whose poker values read suits
    for h in range(n_hands):
        if t.hand_suits[h] >= 0:
            n_suit_hands = max(n_suit_hands, t.hand_suits[h] + 1)
            for p in range(6):
                if hand_over[h, p]:
                    in_suit_hand[p] = True
    radix = N_SUFFIXES if codes else 1
    memo = _memo(8 + n_hands, np.int64(1) << min(t.atom_term.shape[0] + 1, 21))
    context_table, context_first, found_start = memo.context_table, memo.context_first, memo.found_start
    found_row, found_suffix, found_ways, counters = memo.found_row, memo.found_suffix, memo.found_ways, memo.counters
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
                    # Each hand's first-four letters (the poker state tables' index).
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
                        n_found, out_bits, out = _found_of_context(t, memo, kinds, in_s, key, n_suit_hands,
                                                                   card_class, hand_state, out_bits, out, new_row,
                                                                   new_suffix, new_ways)
                        for j in range(n_found):
                            out[new_row[j], prefix + new_suffix[j]] += new_ways[j] * ways
                        i = counters[2]
                        start = found_start[i]
                        if i < _MAX_CONTEXTS and start + n_found <= found_row.shape[0]:
                            context_table[slot] = context
                            context_first[slot] = i
                            found_row[start:start + n_found] = new_row[:n_found]
                            found_suffix[start:start + n_found] = new_suffix[:n_found]
                            found_ways[start:start + n_found] = new_ways[:n_found]
                            found_start[i + 1] = start + n_found
                            counters[2] = i + 1
    n_rows = counters[4]
    return out_bits[:n_rows].copy(), out[:n_rows].copy()
