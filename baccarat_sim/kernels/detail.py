"""The card detail of a dealt round: the atoms of a rule set's card-level bets evaluated from the round's cards.

Pure numba functions, no I/O. The atoms come in *groups*
(:mod:`baccarat_sim.model.detail`); a group is evaluated through its tables
(:func:`baccarat_sim.engines.packer.kernel_tables`): the card at each
position is projected onto the classes a table's atoms tell apart, each poker
value a table reads is read off the poker state tables
(:mod:`baccarat_sim.model.poker_states`), and one lookup gives a *local id*;
the local ids of the group's tables add up to a *combination*, and a last
lookup gives the group's detail. The tables come packed in one named tuple,
:class:`KernelTables`, defined here so that the kernels' cache stamps cover it:

``which``       ``int64[d]``: each poker value's number (:data:`baccarat_sim.model.poker.VALUES`);
``projection``  ``uint32[t, 6, 53]``: by table and position (0-5: P1 B1 P2 B2
                P3 B3), the card's class times its stride, by card value
                (52: no card); 0 at positions the table does not read;
``dstride``     ``uint32[t, d]``: the stride of each poker value in each table (0: not read);
``toffset``     ``uint32[t]``: where each table starts in ``table``;
``table``       ``uint32[...]``: the local id (times its radix) of every cell, table after table;
``first_table`` ``int64[g + 1]``: the tables of group ``g`` are ``first_table[g] .. first_table[g + 1] - 1``;
``loffset``     ``int64[g]``: where each group's combinations start in ``lookup``;
``lookup``      ``int32[...]``: the detail of each combination (-1: cannot happen);
``cell_of``     ``int64[...]``: where each combination is counted in a
                histogram row, before its outcome is added (the group's first
                cell plus the detail times its outcomes);
``cell_table``  ``int64[...]``: the same by cell of ``table``, for a group of
                one table (the local id is then the combination; 0 in the
                tables of other groups);
``prefix_mult``, ``suffix_mult`` ``int64[g]``: a round's outcome in a group's
                cells is ``prefix * prefix_mult + suffix * suffix_mult`` (a
                code, or a prefix);
``hand_reads``  ``int64[h, 6]``: the positions of each *hand* (the cards some
                poker values read; values over the same cards share one);
``hand_of``     ``int64[d]``: the hand of each poker value;
``first_four_state``, ``next_state``, ``hand_value``: the poker state tables;
``words``       ``int64[w, 6, 53]``: the projections of several tables packed
                side by side, each table's term in a field of its own, so that
                one load per position gives every table's term (0 at a
                position no table of the word reads);
``table_word``, ``table_shift``, ``table_mask`` ``int64[t]``: each table's
                word and field;
``hand_word``, ``hand_shift``, ``hand_base`` ``int64[h]``: each hand's word
                and field (its first four cards' letters as an index into
                ``first_four_state``, less ``hand_base``, then its cards'
                count in each suit);
``first_term``  ``int64[t + 1]``: the *terms* of table ``t`` are
                ``first_term[t] .. first_term[t + 1] - 1``, one per hand whose
                poker values the table reads;
``term_hand``   ``int64[k]``: the hand of each term;
``term_table``  ``uint32[k, s]``: by the hand's ``2 * state + one_suit``, what
                its values add to the table's index (each value times its
                stride, summed), so that a batch reads a hand's values for a
                table in one lookup.

A round is evaluated on its own (:func:`detail_index`: the joint detail of the
counting and sessions kernels and of the Monte Carlo lanes that count it with
every code), or in a *batch* of rounds (:func:`count_batch`: the factored
detail of the Monte Carlo lanes, many groups beside the outcome codes). A batch
runs a step at a time over all its rounds: each hand's state once for all the
values over it, one load per position for all the tables of a word, one pass
per table from word to cell: an order of magnitude faster than round by
round.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..model.cards import N_CARD_IDS, N_SUITS, SUIT_BITS
from ..model.poker_states import HAND_LETTER_BITS, LETTERS, NO_LETTER, SUIT_COUNT_BITS, letter_of
from .jit import jit
from .outcome import banker_drew_of, player_drew_of, third_cards

__all__ = ["BATCH_CARD_BITS", "BATCH_FIELDS", "BATCH_ROUNDS", "NO_CARD", "KernelTables", "batch_cells", "count_batch",
           "detail_index", "new_batch", "put_round"]

_P1, _B1, _P2, _B2, _P3, _B3 = (np.uint64(i) for i in range(6))
#: The card value of a missing third card (see :data:`baccarat_sim.model.cardlevel.NONE`).
NO_CARD = N_CARD_IDS
_letter = jit(inline="always")(letter_of)
_SUIT_MASK = (1 << SUIT_BITS) - 1
_L1, _L2, _L3 = LETTERS, LETTERS ** 2, LETTERS ** 3

# A hand's field in a packed word (engines/packer._hand_terms): its letters' index, then a count a suit.
_LETTER_MASK = (1 << HAND_LETTER_BITS) - 1
_SUIT_COUNTS_MASK = (1 << (SUIT_COUNT_BITS * N_SUITS)) - 1
_SUIT_COUNT_ONES = sum(1 << (SUIT_COUNT_BITS * suit) for suit in range(N_SUITS))
if SUIT_COUNT_BITS != 3:  # count_batch ORs a count's bits with two shifts
    raise RuntimeError("internal error: count_batch reads suit counts of 3 bits")

#: Rounds in a batch: enough that a table's loop runs long, few enough that the batch stays in L2.
BATCH_ROUNDS = 1024
#: Each row of a batch is longer than its rounds by one cache line (8 int64): rows exactly 8 KB apart would put
#: round ``i`` of every row in the same set of an 8-way L1 cache, so that a round's stores, and count_batch's
#: passes that read several rows at once, evict one another (the padded rows are measurably faster).
_ROW_PADDING = 8
_ROW_LENGTH = BATCH_ROUNDS + _ROW_PADDING
_U_ROW_LENGTH = np.uint64(_ROW_LENGTH)
#: The rows of a batch (:func:`new_batch`): the six card values of each round in one word (P1 B1 P2 B2 P3 B3 from
#: the low byte up, :data:`NO_CARD` for a third card not drawn; put as the next two cards of the shoe, which
#: count_batch's first pass makes the third cards), its prefix, its suffix and its histogram row, then scratch rows.
#: One word, not a row a card: a round is four stores in the dealing loop instead of nine, and count_batch reads its
#: cards with one load.
BATCH_FIELDS = 4
_CARDS, _PREFIX, _SUFFIX, _ROW = 0, 1, 2, 3
#: Bits of a card value in the cards' word.
BATCH_CARD_BITS = 8
# Unsigned, as the kernels shift and index with them (numba makes a float of int64 mixed with uint64).
_U_MASK = np.uint64((1 << BATCH_CARD_BITS) - 1)
_U_SHIFT1, _U_SHIFT2, _U_SHIFT3, _U_SHIFT4, _U_SHIFT5 = (np.uint64(k * BATCH_CARD_BITS) for k in range(1, 6))
_U_CARDS, _U_PREFIX, _U_SUFFIX, _U_ROW = (np.uint64(k) for k in (_CARDS, _PREFIX, _SUFFIX, _ROW))
# The same in int64, for a word of card values below 128 (_resolve_third_cards): the third cards' shifts, a card's
# mask, the first four cards' bits.
_SHIFT4, _SHIFT5, _MASK = 4 * BATCH_CARD_BITS, 5 * BATCH_CARD_BITS, (1 << BATCH_CARD_BITS) - 1
_LOW4 = (1 << _SHIFT4) - 1
if N_CARD_IDS >= 1 << BATCH_CARD_BITS:
    raise RuntimeError("internal error: a card value (up to NO_CARD) must fit in BATCH_CARD_BITS")


@jit(inline="always")
def _read_letter(card, read):
    """The card's letter where the hand reads its position, else no letter (branch-free)."""
    return NO_LETTER + read * (_letter(card) - NO_LETTER)


@jit(inline="always")
def _suit_bit(card, read):
    """Bit ``suit`` for a card the hand reads, 0 for one it does not read or no card."""
    present = read * (card < NO_CARD)
    return present << (card & _SUIT_MASK)


@jit(inline="always")
def _first_four_index(c0, c1, c2, c3, reads, h):
    """Where ``first_four_state`` holds hand ``h``'s state after the first four cards."""
    return (_read_letter(c0, reads[h, 0]) + _L1 * _read_letter(c1, reads[h, 1])
            + _L2 * _read_letter(c2, reads[h, 2]) + _L3 * _read_letter(c3, reads[h, 3]))


@jit(inline="always")
def _one_suit(c0, c1, c2, c3, c4, c5, reads, h):
    """1 if the cards of hand ``h`` are of one suit (or there are none), else 0."""
    suits = (_suit_bit(c0, reads[h, 0]) | _suit_bit(c1, reads[h, 1]) | _suit_bit(c2, reads[h, 2])
             | _suit_bit(c3, reads[h, 3]) | _suit_bit(c4, reads[h, 4]) | _suit_bit(c5, reads[h, 5]))
    return np.int64((suits & (suits - 1)) == 0)


@jit(inline="always")
def _hand_state(c0, c1, c2, c3, c4, c5, reads, h, first_four_state, next_state):
    """Hand ``h``'s poker state and whether its cards are of one suit, as ``2 * state + one_suit``."""
    state = np.int64(first_four_state[np.uint64(_first_four_index(c0, c1, c2, c3, reads, h))])
    if reads[h, 4] | reads[h, 5]:  # the same every round: predicted
        state = np.int64(next_state[np.uint64(state * LETTERS + _read_letter(c4, reads[h, 4]))])
        state = np.int64(next_state[np.uint64(state * LETTERS + _read_letter(c5, reads[h, 5]))])
    return 2 * state + _one_suit(c0, c1, c2, c3, c4, c5, reads, h)


@jit(inline="always")
def group_detail(c0, c1, c2, c3, c4, c5, tables, group):
    """The detail of group ``group`` for a round whose six positions hold card values ``c0..c5`` (int64)."""
    projection, toffset, dstride = tables.projection, tables.toffset, tables.dstride
    combination = np.int64(0)
    u0, u1, u2, u3, u4, u5 = np.uint64(c0), np.uint64(c1), np.uint64(c2), np.uint64(c3), np.uint64(c4), np.uint64(c5)
    for t in range(tables.first_table[group], tables.first_table[group + 1]):
        # Unsigned indices spare numba's negative-index checks. A position the table does not read projects
        # every card to 0: six loads, no branch.
        u = np.uint64(t)
        index = (toffset[u] + projection[u, _P1, u0] + projection[u, _B1, u1] + projection[u, _P2, u2]
                 + projection[u, _B2, u3] + projection[u, _P3, u4] + projection[u, _B3, u5])
        for d in range(tables.which.shape[0]):
            stride = dstride[u, d]
            if stride != 0:  # the same every round: predicted
                at = _hand_state(c0, c1, c2, c3, c4, c5, tables.hand_reads, tables.hand_of[d], tables.first_four_state,
                                 tables.next_state)
                index += np.uint32(tables.hand_value[tables.which[d], np.uint64(at)]) * stride
        combination += np.int64(tables.table[index])
    return tables.lookup[tables.loffset[group] + combination]


@jit(inline="always")
def detail_index(c0, c1, c2, c3, c4, c5, tables):
    """The detail of a round in the one group of a joint card detail (card values ``c0..c5``, uint64)."""
    return group_detail(np.int64(c0), np.int64(c1), np.int64(c2), np.int64(c3), np.int64(c4), np.int64(c5),
                        tables, 0)


@jit
def new_batch(tables):
    """An empty batch for ``tables``: :data:`BATCH_FIELDS` rows, a row per hand and word, 3 of scratch.

    It holds :data:`BATCH_ROUNDS` rounds (its rows are a little longer: see ``_ROW_PADDING``).
    """
    n_hands, n_words = tables.hand_reads.shape[0], tables.words.shape[0]
    return np.zeros((BATCH_FIELDS + n_hands + n_words + 3, _ROW_LENGTH), np.int64)


@jit(inline="always")
def batch_cells(batch):
    """``batch`` as one flat array, for :func:`put_round` (a view, made once before a dealing loop)."""
    return batch.reshape(batch.size)


@jit(inline="always")
def put_round(cells, n, c0, c1, c2, c3, c4, c5, prefix, suffix, row):
    """Put a round at ``n`` of a batch, given flat (:func:`batch_cells`; :data:`BATCH_FIELDS`); returns ``n + 1``.

    ``c0..c5``: the card values of P1 B1 P2 B2, then of the next two cards
    of the shoe (:func:`count_batch` makes them the third cards by
    ``prefix``); ``row``: the histogram row the round is counted in.
    Flat, because the rows' offsets are then constants of the machine code:
    the dealing loop keeps one pointer for the batch, not one a row.
    """
    at = np.uint64(n)
    cells[_U_CARDS * _U_ROW_LENGTH + at] = (
        np.uint64(c0) | (np.uint64(c1) << _U_SHIFT1) | (np.uint64(c2) << _U_SHIFT2) | (np.uint64(c3) << _U_SHIFT3)
        | (np.uint64(c4) << _U_SHIFT4) | (np.uint64(c5) << _U_SHIFT5))
    cells[_U_PREFIX * _U_ROW_LENGTH + at] = prefix
    cells[_U_SUFFIX * _U_ROW_LENGTH + at] = suffix
    cells[_U_ROW * _U_ROW_LENGTH + at] = row
    return n + 1


@jit
def count_batch(batch, n, tables, counts, carry=None, carried=None):
    """Count rounds ``0 .. n - 1`` of ``batch`` in every group's cell of their rows of ``counts``.

    ``counts``: C-contiguous histogram rows (``(n_positions, n_cells)``, any
    integer type); round ``i`` goes to the row that :func:`put_round` gave it.
    ``carry``, ``carried``: for uint8 ``counts``, the int64 rows of the same
    shape that take 256 whenever a counter wraps, and their per-cell sums
    (None: the counters do not wrap).
    """
    (which, projection, dstride, toffset, table, first_table, loffset, lookup, cell_of, cell_table, prefix_mult,
     suffix_mult, hand_reads, hand_of, first_four_state, next_state, hand_value, words, table_word,
     table_shift, table_mask, hand_word, hand_shift, hand_base, first_term, term_hand, term_table) = tables
    n_hands, n_words = hand_reads.shape[0], words.shape[0]
    cards = batch[_CARDS]
    hands = batch[BATCH_FIELDS:BATCH_FIELDS + n_hands]
    packed = batch[BATCH_FIELDS + n_hands:BATCH_FIELDS + n_hands + n_words]
    index, combination, outcome = batch[-3], batch[-2], batch[-1]
    prefix, suffix, rows = batch[_PREFIX], batch[_SUFFIX], batch[_ROW]
    _resolve_third_cards(cards, prefix, n)
    for w in range(n_words):
        _word_terms(words[w], cards, n, packed[w])
    # Each step a loop of its own over the batch: a loop that computes an index and loads from a table in one
    # was four times slower (numba's vectorised gathers of uint16); a hand's state and suits in one loop, and a
    # poker table's term looked up in its increment loop, were slower too.
    for h in range(n_hands):
        # The hand's field of its word: its first four cards' letters as an index (the letters it skips in
        # hand_base), then its cards' count in each suit; its row of the batch: 2 * state + one_suit.
        state, word, shift, base = hands[h], packed[hand_word[h]], hand_shift[h], hand_base[h]
        for i in range(n):
            state[i] = first_four_state[np.uint64(base + ((word[i] >> shift) & _LETTER_MASK))]
        for p in (4, 5):
            if hand_reads[h, p]:
                shift_p = np.uint64(p * BATCH_CARD_BITS)
                for i in range(n):
                    third = np.int64((np.uint64(cards[i]) >> shift_p) & _U_MASK)
                    state[i] = next_state[np.uint64(state[i] * LETTERS + _letter(third))]
        for i in range(n):
            state[i] = 2 * state[i] + _one_suit_of_counts(word[i] >> (shift + HAND_LETTER_BITS))
    flat = counts.reshape(counts.size)
    n_cells = counts.shape[1]
    per_prefix, per_suffix = np.int64(-1), np.int64(-1)
    for g in range(prefix_mult.shape[0]):
        if prefix_mult[g] != per_prefix or suffix_mult[g] != per_suffix:  # a round's place in the flat rows
            per_prefix, per_suffix = prefix_mult[g], suffix_mult[g]
            for i in range(n):
                outcome[i] = rows[i] * n_cells + prefix[i] * per_prefix + suffix[i] * per_suffix
        single = first_table[g + 1] - first_table[g] == 1
        for t in range(first_table[g], first_table[g + 1]):
            word, shift, mask, offset = packed[table_word[t]], table_shift[t], table_mask[t], np.int64(toffset[t])
            n_terms = first_term[t + 1] - first_term[t]
            # Every cell index below is unsigned: a signed one costs each increment numba's two-instruction test for
            # a negative index.
            if single and n_terms == 0:  # most tables: the field gives the cell
                for i in range(n):
                    at = np.uint64(cell_table[np.uint64(offset + ((word[i] >> shift) & mask))] + outcome[i])
                    if carry is None:
                        flat[at] += 1
                    else:
                        _count_cell_carrying(flat, at, n_cells, carry, carried)
                break
            for i in range(n):
                index[i] = offset + ((word[i] >> shift) & mask)
            for k in range(first_term[t], first_term[t + 1]):  # each hand's poker values in one lookup
                terms, state = term_table[k], hands[term_hand[k]]
                for i in range(n):
                    index[i] += terms[np.uint64(state[i])]
            if single:
                for i in range(n):
                    at = np.uint64(cell_table[np.uint64(index[i])] + outcome[i])
                    if carry is None:
                        flat[at] += 1
                    else:
                        _count_cell_carrying(flat, at, n_cells, carry, carried)
                break
            first = t == first_table[g]
            for i in range(n):
                local = np.int64(table[np.uint64(index[i])])
                combination[i] = local if first else combination[i] + local
        if not single:
            start = loffset[g]
            for i in range(n):
                at = np.uint64(cell_of[np.uint64(start + combination[i])] + outcome[i])
                if carry is None:
                    flat[at] += 1
                else:
                    _count_cell_carrying(flat, at, n_cells, carry, carried)


@jit(inline="always")
def _count_cell_carrying(flat, at, n_cells, carry, carried):
    """Add one to uint8 cell counter ``at`` of ``flat``; when it wraps, 256 to the int64 rows ``carry`` and ``carried``.

    The codes carry the same way in the dealing loop (:func:`~baccarat_sim.kernels.dealing.deal_rounds`).
    """
    v = np.int64(flat[at]) + 1
    flat[at] = v
    if v == 256:  # once in 256 increments of a counter
        cell = at % np.uint64(n_cells)
        carry[at // np.uint64(n_cells), cell] += 256
        carried[cell] += 256


@jit(inline="always")
def _one_suit_of_counts(counts):
    """1 if a hand's count of cards in each suit (its field's top bits, 3 a suit) shows one suit, or none."""
    suits = counts & _SUIT_COUNTS_MASK
    # A bit per suit that has a card (the counts are SUIT_COUNT_BITS = 3 bits wide: any of their bits).
    some = (suits | (suits >> 1) | (suits >> 2)) & _SUIT_COUNT_ONES
    return np.int64((some & (some - 1)) == 0)


@jit
def _resolve_third_cards(cards, prefix, n):
    """In each round's word, the two cards after the first four replaced by the hands' third cards.

    :func:`put_round` is given the next two cards of the shoe; the prefix
    says which of them each hand drew (:func:`~baccarat_sim.kernels.outcome.third_cards`).
    One pass over the batch, which the compiler vectorises: done in the
    dealing loop, the same arithmetic made a fresh lane with many
    card-level bets slower.
    """
    for i in range(n):
        word = cards[i]  # int64: the top card value is below 128
        player_third, banker_third = third_cards(player_drew_of(prefix[i]), banker_drew_of(prefix[i]),
                                                 (word >> _SHIFT4) & _MASK, word >> _SHIFT5, NO_CARD)
        cards[i] = (word & _LOW4) | (player_third << _SHIFT4) | (banker_third << _SHIFT5)


@jit
def _word_terms(projection, cards, n, word):
    """``word[i]``: the sum of the packed projections of round ``i``'s cards (their word: :func:`put_round`).

    One pass over the batch, all six positions at once: a position the word
    does not read projects every card to 0 (a load from a row of zeros), which
    costs less than a pass of its own or a branch.
    """
    t0, t1, t2, t3, t4, t5 = projection[0], projection[1], projection[2], projection[3], projection[4], projection[5]
    for i in range(n):
        x = np.uint64(cards[i])
        word[i] = ((t0[x & _U_MASK] + t1[(x >> _U_SHIFT1) & _U_MASK]) + (t2[(x >> _U_SHIFT2) & _U_MASK]
                   + t3[(x >> _U_SHIFT3) & _U_MASK]) + (t4[(x >> _U_SHIFT4) & _U_MASK] + t5[x >> _U_SHIFT5]))


class KernelTables(NamedTuple):
    """A card detail packed for the Monte Carlo, counting and session kernels (read-only arrays).

    The module's docstring says what each field holds and how the kernels read
    them; :func:`baccarat_sim.engines.packer.kernel_tables` packs them.
    """

    which: np.ndarray
    projection: np.ndarray
    dstride: np.ndarray
    toffset: np.ndarray
    table: np.ndarray
    first_table: np.ndarray
    loffset: np.ndarray
    lookup: np.ndarray
    cell_of: np.ndarray
    cell_table: np.ndarray
    prefix_mult: np.ndarray
    suffix_mult: np.ndarray
    hand_reads: np.ndarray
    hand_of: np.ndarray
    first_four_state: np.ndarray
    next_state: np.ndarray
    hand_value: np.ndarray
    words: np.ndarray
    table_word: np.ndarray
    table_shift: np.ndarray
    table_mask: np.ndarray
    hand_word: np.ndarray
    hand_shift: np.ndarray
    hand_base: np.ndarray
    first_term: np.ndarray
    term_hand: np.ndarray
    term_table: np.ndarray
