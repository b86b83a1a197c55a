"""The Monte Carlo packer: a card detail packed into the tables the Monte Carlo, counting and session kernels read.

A group's atoms are split into tables of at most
:data:`~baccarat_sim.model.detail_tables.TABLE_CELLS` cells (their classes and
atom bits: :mod:`baccarat_sim.model.detail_tables`); :func:`kernel_tables`
packs one group, or every group of a rule set's
:class:`~baccarat_sim.model.detail.FactoredDetail`, into the named tuple the
kernels read (:class:`baccarat_sim.kernels.detail.KernelTables`, defined beside
them, which says what each field holds). Its cost is predicted before it runs
(:func:`baccarat_sim.model.cost.kernel_cost`).
"""

from __future__ import annotations

import numpy as np

from ..kernels.detail import KernelTables
from ..model import poker_states
from ..model.cardlevel import N_CARD_VALUES, POSITIONS
from ..model.cards import N_CARD_IDS, N_SUITS
from ..model.codes import N_SUFFIXES
from ..model.detail import CardDetail, FactoredDetail
from ..model.detail_tables import (
    MAX_COMBINATIONS,
    TABLE_CELLS,
    _derived_of,
    _ids_and_combinations,
    _mc_table,
    _split,
    table_cells,
)

__all__ = ["KernelTables", "kernel_tables"]


def _combination_details(group: CardDetail, distinct: list[np.ndarray]) -> np.ndarray:
    """The detail of every combination of local ids (``int32``; -1: a combination that cannot happen)."""
    bits = np.zeros(1, np.uint64)
    for values in distinct:  # the first table's id varies fastest, as the radices say
        bits = (values[:, None] | bits[None, :]).reshape(-1)
    return group.details_of_bits(bits).astype(np.int32)


def kernel_tables(detail: CardDetail | FactoredDetail) -> KernelTables:
    """One group, or every group of a factored detail, packed for :mod:`baccarat_sim.kernels.detail`.

    Raises
    ------
    ValueError
        A group whose atoms make more than :data:`MAX_COMBINATIONS` combinations of tables.
    """
    groups = detail.groups if isinstance(detail, FactoredDetail) else (detail,)
    derived = _derived_of([atom for group in groups for atom in group.atoms])
    derived_index = {d.text(): i for i, d in enumerate(derived)}
    projections, dstrides, tables, table_offsets, first_table = [], [], [], [], [0]
    lookups, lookup_offsets, offset, lookup_offset = [], [], 0, 0
    for group in groups:
        bit_of = {atom.text: i for i, atom in enumerate(group.atoms)}
        local = []
        for members in _split(list(group.atoms), table_cells, TABLE_CELLS):
            projection, dstride, bits = _mc_table(members, [bit_of[a.text] for a in members], derived_index)
            projections.append(projection)
            dstrides.append(dstride)
            local.append(bits)
        ids, distinct, n_combinations = _ids_and_combinations(local)
        if n_combinations > MAX_COMBINATIONS:
            raise ValueError(f"{group.texts[0]}: its card-level conditions make {n_combinations:,} combinations of "
                             f"lookups, more than the limit of {MAX_COMBINATIONS:,}; split them into simpler bets")
        for table in ids:
            table_offsets.append(offset)
            tables.append(table)
            offset += table.size
        first_table.append(len(projections))
        lookups.append(_combination_details(group, distinct))
        lookup_offsets.append(lookup_offset)
        lookup_offset += n_combinations
    factored = isinstance(detail, FactoredDetail)
    stride_table = np.zeros((len(projections), max(1, len(derived))), np.int64)
    for t, dstride in enumerate(dstrides):
        for d, stride in dstride.items():
            stride_table[t, d] = stride
    over = np.array([[p in d.over for p in POSITIONS] for d in derived], np.int64).reshape(len(derived), 6)
    which = np.array([d.number for d in derived], np.int64)
    codes = np.array([group.outcomes == "codes" for group in groups], np.int64)
    # The hands the poker values read (values over the same cards share one), and the state tables they are read
    # off (tiny stand-ins of the same types where there is no poker value: building the tables takes 0.2 s).
    hands = list(dict.fromkeys(tuple(row) for row in over.tolist()))
    hand_reads = np.array(hands, np.int64).reshape(len(hands), 6)
    hand_of = np.array([hands.index(tuple(row)) for row in over.tolist()], np.int64)
    states = poker_states.state_tables() if derived else poker_states.StateTables(
        np.zeros(1, np.int64), np.zeros(1, np.uint16), np.zeros(1, np.uint16), np.zeros((1, 1), np.uint8))
    projection = np.stack(projections)
    table = np.concatenate(tables)
    # Where each combination of each group is counted in a histogram row (before its outcome is added), and the
    # same by cell of the table of a group of one table (most groups): one lookup from a round's classes to its cell.
    cell_of = np.concatenate([(detail.offset(g) if factored else 0) + lookup.astype(np.int64) * group.n_outcomes
                              for g, (group, lookup) in enumerate(zip(groups, lookups))])
    cell_table = np.zeros(table.size, np.int64)
    for g in range(len(groups)):
        if first_table[g + 1] - first_table[g] == 1:
            start, stop = table_offsets[first_table[g]], table_offsets[first_table[g]] + tables[first_table[g]].size
            cell_table[start:stop] = cell_of[lookup_offsets[g] + table[start:stop]]
    hand_terms, hand_base = _hand_terms(hand_reads)
    words, field_word, field_shift, field_mask = _pack_words(
        np.concatenate([projection.astype(np.int64), hand_terms]),
        [t.size for t in tables] + [1 << _HAND_FIELD_BITS] * len(hands))
    n_tables = len(tables)
    first_term, term_hand, term_table = _hand_value_terms(stride_table, hand_of, which, states.hand_value)
    # uint32: the tables stay small in cache; the kernel indexes them unsigned.
    packed = KernelTables(
        which, projection.astype(np.uint32), stride_table.astype(np.uint32),
        np.array(table_offsets, np.uint32), table.astype(np.uint32),
        np.array(first_table, np.int64), np.array(lookup_offsets, np.int64), np.concatenate(lookups),
        cell_of, cell_table, np.where(codes == 1, N_SUFFIXES, 1).astype(np.int64), codes, hand_reads, hand_of,
        states.first_four_state, states.next_state, states.hand_value, words,
        field_word[:n_tables], field_shift[:n_tables], field_mask[:n_tables],
        field_word[n_tables:], field_shift[n_tables:], hand_base, first_term, term_hand, term_table,
    )
    for array in packed:
        array.setflags(write=False)
    return packed


def _hand_value_terms(stride_table: np.ndarray, hand_of: np.ndarray, which: np.ndarray,
                      hand_value: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each table's terms: for each hand whose poker values it reads, what they add to its index, by hand state.

    Returns ``first_term`` (``int64[t + 1]``), ``term_hand`` (``int64[k]``)
    and ``term_table`` (``uint32[k, s]``, by ``2 * state + one_suit``: the
    sum of the hand's values times their strides in the table). A state the
    hand can reach has a term below :data:`TABLE_CELLS`; the others (more
    cards than the hand reads) are never looked up, and can be larger.
    """
    first_term, term_hand, terms = [0], [], []
    for strides in stride_table:
        for hand in dict.fromkeys(hand_of[strides[:len(hand_of)] != 0].tolist()):
            term = np.zeros(hand_value.shape[1], np.int64)
            for d in np.flatnonzero((hand_of == hand) & (strides[:len(hand_of)] != 0)):
                term += hand_value[which[d]].astype(np.int64) * strides[d]
            term_hand.append(hand)
            terms.append(term)
        first_term.append(len(terms))
    term_table = np.array(terms, np.int64).reshape(len(terms), hand_value.shape[1])
    if term_table.size and term_table.max() > np.iinfo(np.uint32).max:
        raise RuntimeError("internal error: a table's poker term does not fit in 32 bits")
    return np.array(first_term, np.int64), np.array(term_hand, np.int64), term_table.astype(np.uint32)


#: Bits of a packed word of table indices (:func:`_pack_words`): a sum of fields never reaches the sign bit.
_WORD_BITS = 63
#: Bits of a hand's field in a packed word (:data:`baccarat_sim.model.poker_states.HAND_LETTER_BITS`).
_HAND_FIELD_BITS = poker_states.HAND_LETTER_BITS + poker_states.SUIT_COUNT_BITS * N_SUITS


def _hand_terms(hand_reads: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each hand's terms by position and card value for :func:`_pack_words`, and the letters of the cards it skips.

    A hand's field is the sum of its cards' terms: at each of the first four
    positions it reads, the card's letter times ``14**position``; at every
    position it reads, one in its suit's count. The positions it does not
    read among the first four hold no letter: ``hand_base`` adds their
    :data:`~baccarat_sim.model.poker_states.NO_LETTER`.
    """
    cards = np.arange(N_CARD_VALUES)
    present = cards < N_CARD_IDS
    suit_term = np.where(present, 1 << (poker_states.SUIT_COUNT_BITS * (cards % N_SUITS)), 0) << (
        poker_states.HAND_LETTER_BITS)
    terms = np.zeros((len(hand_reads), len(POSITIONS), N_CARD_VALUES), np.int64)
    base = np.zeros(len(hand_reads), np.int64)
    for h, reads in enumerate(hand_reads):
        for p, read in enumerate(reads):
            letter_term = poker_states.LETTERS ** p * np.where(present, poker_states.letter_of(cards), 0)
            if read:
                terms[h, p] = suit_term + (letter_term if p < 4 else 0)
            elif p < 4:
                base[h] += poker_states.NO_LETTER * poker_states.LETTERS ** p
    return terms, base


def _pack_words(terms: np.ndarray, sizes: list[int]) -> tuple:
    """Fields of terms by position packed side by side in 64-bit words, for the batched kernel.

    A table's index (poker values aside) is a sum of one term per position,
    and so is a hand's field (:func:`_hand_terms`); fields that fit one word
    add up together, each in its own bits: one load per position gives every
    field's term in that word.

    Parameters
    ----------
    terms : ndarray(int64, shape=(f, 6, 53))
        Each field's term by position and card value.
    sizes : list of int
        A bound on each field's sum (its values are below it).

    Returns
    -------
    (ndarray(int64, shape=(w, 6, 53)), ndarray(int64, shape=(f,)) x 3)
        Each word's packed terms (0 at a position none of its fields
        reads); each field's word, shift and mask.
    """
    word_of, shift_of, mask_of = [], [], []
    used = _WORD_BITS  # start a new word at the first field
    for size in sizes:
        bits = max(1, int(size - 1).bit_length())
        if bits > _WORD_BITS:
            raise ValueError(f"a card-detail table of {size:,} cells is too large for the Monte Carlo kernels")
        if used + bits > _WORD_BITS:
            word_of.append(word_of[-1] + 1 if word_of else 0)
            used = 0
        else:
            word_of.append(word_of[-1])
        shift_of.append(used)
        mask_of.append((1 << bits) - 1)
        used += bits
    n_words = word_of[-1] + 1 if word_of else 0
    words = np.zeros((n_words, *terms.shape[1:]), np.int64)
    for field, (word, shift) in enumerate(zip(word_of, shift_of)):
        words[word] += terms[field] << shift
    return words, np.array(word_of, np.int64), np.array(shift_of, np.int64), np.array(mask_of, np.int64)
