"""The card detail packed for the kernels: lookup tables of the Monte Carlo kernels, and of the exact enumeration.

A group of atoms (:class:`~baccarat_sim.model.detail.CardDetail`) is evaluated
from the cards of a round through *tables*: the card at each position is
projected onto the classes the table's atoms tell apart together
(:func:`joint_classes`), each poker value the atoms read
(:class:`~baccarat_sim.model.cardlevel.HandValue`) is computed from its cards,
and one lookup gives the atoms' bits, as a small *local id*. A group whose
atoms do not fit one table has several; their local ids make a *combination*
that a last lookup turns into the group's detail.

* :func:`kernel_tables` packs one group, or every group of a rule set's
  :class:`~baccarat_sim.model.detail.FactoredDetail`, for
  :mod:`baccarat_sim.kernels.detail`;
* :func:`exact_tables` lays out one group's atoms for the exact enumeration by
  card (:mod:`baccarat_sim.kernels.exact_detail`; :func:`exact_cells` is its
  size, known beforehand: a group whose table would be large is counted by rank
  instead, :mod:`baccarat_sim.engines.rankwise`): the first four cards' classes and
  the *partial state* of every poker value after them, the third cards' classes,
  and tables of local ids by (partial class of the first four cards, classes of
  the third cards).
"""

from __future__ import annotations

import functools
import itertools
from typing import NamedTuple

import numpy as np

from . import poker, poker_states
from .cardlevel import N_CARD_VALUES, NONE, POSITIONS
from .cards import CARDS_OF_VALUE, N_CARD_IDS, N_CARDS_OF_VALUE, N_RANKS, N_SUITS, RANK_POINTS
from .codes import N_CODES, N_SUFFIXES
from .detail import CardDetail, FactoredDetail

__all__ = ["EXACT_SET_CELLS", "KernelTables", "MAX_COMBINATIONS", "MAX_EXACT_CELLS", "MAX_EXACT_STATES",
           "RANK_ONLY_VALUES", "TABLE_CELLS", "card_letter", "exact_cells", "exact_tables", "hand_values_of",
           "joint_classes", "kernel_tables", "table_cells", "table_patterns", "third_class_count"]

#: Most cells of one table of the Monte Carlo kernels (their reads stay in the fastest caches).
TABLE_CELLS = 1 << 16
#: Most combinations of local ids of one group (the last lookup of the Monte Carlo kernels; the rows of the exact
#: enumeration's output).
MAX_COMBINATIONS = 1 << 20
#: Most cells (kinds of first four cards times kinds of third cards) of one set of atoms in the exact enumeration:
#: atoms are enumerated jointly while their table fits, so atoms that read the same cards (a poker bet's lines)
#: share one partial class instead of multiplying theirs.
EXACT_SET_CELLS = 1 << 25
#: Scratch cells of the exact enumeration per thread (states x third-card classes squared): 64 MiB of int64.
#: A group with more states runs the third-card stage whenever its scratch fills.
MAX_EXACT_CELLS = 1 << 23
#: Most states (kinds of first four cards) the exact enumeration tells apart: its state index is 64 MiB per thread.
MAX_EXACT_STATES = 1 << 24
_FIRST_FOUR = ("P1", "B1", "P2", "B2")
#: Poker values read by rank alone: their partial state after the first four cards drops the suits.
RANK_ONLY_VALUES = ("kind", "kind_rank", "straight", "pairs", "triples")


def hand_values_of(atoms) -> tuple:
    """The poker values the atoms read, each once, in the order they first appear."""
    return tuple(dict.fromkeys(d for atom in atoms for d in atom.derived))


def card_letter(hand_value) -> np.ndarray:
    """What a poker value reads of a card at one of its positions: its rank, or its rank and suit (by card value)."""
    cards = np.arange(N_CARD_VALUES)
    letter = np.where(cards < N_CARD_IDS, cards // N_SUITS, N_RANKS) if hand_value.which in RANK_ONLY_VALUES else cards
    return letter.astype(np.int64)


def joint_classes(atoms, positions=POSITIONS, letters: bool = False) -> tuple[list, list]:
    """Per position, the classes the atoms tell apart together: (class of every card value, a representative).

    With ``letters``, a third card that a poker value of the atoms reads also
    tells apart what that value reads of its card (the exact enumeration's
    third cards); otherwise poker values are not read through classes.
    """
    classes, representatives = [], []
    derived = hand_values_of(atoms)
    for position in positions:
        columns = [atom.projection[atom.positions.index(position)] for atom in atoms if position in atom.positions]
        if letters and position in ("P3", "B3"):
            columns += [card_letter(d) for d in derived if position in d.over]
        if not columns:
            classes.append(np.zeros(N_CARD_VALUES, np.int64))
            representatives.append(np.zeros(1, np.int64))
            continue
        _, first, inverse = np.unique(np.stack(columns, axis=1), axis=0, return_index=True, return_inverse=True)
        classes.append(inverse.ravel().astype(np.int64))
        representatives.append(first.astype(np.int64))
    return classes, representatives


def table_cells(atoms) -> int:
    """Cells of the Monte Carlo table of ``atoms`` together: their joint classes and poker values' domains."""
    sizes = [len(r) for r in joint_classes(atoms)[1]] + [len(d.domain()) for d in hand_values_of(atoms)]
    return int(np.prod(sizes, dtype=np.float64))


def table_patterns(atoms) -> int:
    """How many combinations of the atoms' values their Monte Carlo table holds (at least their details)."""
    _, _, bits = _mc_table(atoms, list(range(len(atoms))), {d.text(): 0 for d in hand_values_of(atoms)})
    return len(np.unique(bits))


def third_class_count(atoms) -> int:
    """Classes of third cards the exact enumeration of ``atoms`` tells apart."""
    return len(_third_classes(atoms)[1])


def _atom_bits(atoms, values: dict, derived_values: dict, first_bit) -> np.ndarray:
    """The atoms' bits (uint64) where positions hold ``values`` (card values) and poker values are ``derived_values``.

    ``first_bit[a]``: the bit of atom ``a`` in its group.
    """
    bits = None
    for atom, bit in zip(atoms, first_bit):
        index = 0
        for j, (position, stride) in enumerate(zip(atom.positions, atom.strides)):
            index = index + atom.projection[j][values[position]] * stride
        for i, hand_value in enumerate(atom.derived):
            index = index + derived_values[hand_value.text()] * atom.strides[len(atom.positions) + i]
        term = atom.truth[index].astype(np.uint64) << np.uint64(bit)
        bits = term if bits is None else bits | term
    return bits


def _mc_table(atoms, bits_of: list[int], derived_index: dict):
    """One Monte Carlo table: (projection ``(6, 53)``, stride of each poker value by global index, bits per cell)."""
    classes, representatives = joint_classes(atoms)
    derived = hand_values_of(atoms)
    sizes = [len(r) for r in representatives] + [len(d.domain()) for d in derived]
    strides = np.cumprod([1, *sizes[:-1]]).astype(np.int64)
    projection = np.stack([c * s for c, s in zip(classes, strides[:len(POSITIONS)])])
    dstride = {derived_index[d.text()]: int(s) for d, s in zip(derived, strides[len(POSITIONS):])}
    # Every combination of classes and poker values, the first position's varying fastest (as the strides say).
    grid = [g.ravel(order="F") for g in np.meshgrid(*[np.arange(n) for n in sizes], indexing="ij")]
    values = {p: representatives[i][grid[i]] for i, p in enumerate(POSITIONS)}
    derived_values = {d.text(): np.asarray(d.domain(), np.int64)[grid[len(POSITIONS) + i]]
                      for i, d in enumerate(derived)}
    return projection, dstride, _atom_bits(atoms, values, derived_values, bits_of)


def _split(atoms, cells_of, limit: int) -> list[list]:
    """Atoms in consecutive sets whose joint tables fit ``limit`` cells (an atom too large alone is its own set)."""
    sets: list[list] = []
    for atom in atoms:
        if sets and cells_of([*sets[-1], atom]) <= limit:
            sets[-1].append(atom)
        else:
            sets.append([atom])
    return sets


def _ids_and_combinations(local_bits: list[np.ndarray]) -> tuple[list[np.ndarray], list[np.ndarray], int]:
    """Each table's local ids (times its radix) and distinct bits, and the number of combinations of ids."""
    ids, distinct, radix = [], [], 1
    for bits in local_bits:
        values, inverse = np.unique(bits, return_inverse=True)
        ids.append(inverse.ravel().astype(np.int64) * radix)
        distinct.append(values)
        radix *= len(values)
    return ids, distinct, radix


def _combination_details(group: CardDetail, distinct: list[np.ndarray]) -> np.ndarray:
    """The detail of every combination of local ids (``int32``; -1: a combination that cannot happen)."""
    bits = np.zeros(1, np.uint64)
    for values in distinct:  # the first table's id varies fastest, as the radices say
        bits = (values[:, None] | bits[None, :]).reshape(-1)
    return group.details_of_bits(bits).astype(np.int32)


class KernelTables(NamedTuple):
    """A card detail packed for the Monte Carlo, counting and session kernels (read-only arrays).

    :mod:`baccarat_sim.kernels.detail` says what each field holds and how the
    kernels read them.
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


def kernel_tables(detail: CardDetail | FactoredDetail) -> KernelTables:
    """One group, or every group of a factored detail, packed for :mod:`baccarat_sim.kernels.detail`.

    Raises
    ------
    ValueError
        A group whose atoms make more than :data:`MAX_COMBINATIONS` combinations of tables.
    """
    groups = detail.groups if isinstance(detail, FactoredDetail) else (detail,)
    derived = hand_values_of([atom for group in groups for atom in group.atoms])
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


# --------------------------------------------------------------------------- the exact enumeration


def _third_classes(atoms) -> tuple[np.ndarray, np.ndarray]:
    """Classes of third cards: a point value, refined where an atom reads a third card.

    Returns
    -------
    (ndarray(int64, shape=(52,)), ndarray(int64, shape=(n_classes,)))
        The class of every card id and a representative card id of each class.
    """
    keys = [RANK_POINTS[np.arange(N_CARD_IDS) // N_SUITS]]
    for atom in atoms:
        for j, position in enumerate(atom.positions):
            if position in ("P3", "B3"):
                keys.append(atom.projection[j, :N_CARD_IDS])
    for d in hand_values_of(atoms):
        if "P3" in d.over or "B3" in d.over:
            keys.append(card_letter(d)[:N_CARD_IDS])
    _, first, inverse = np.unique(np.stack(keys, axis=1), axis=0, return_index=True, return_inverse=True)
    return inverse.ravel().astype(np.int64), first.astype(np.int64)


def _hands(derived) -> dict:
    """The *hands* of some poker values: their positions, and whether every value over them reads ranks alone.

    Poker values over the same positions (``poker(first_four)`` and ``kind_rank(first_four)``) share one partial
    state in the exact enumeration, the finest that any of them needs, instead of multiplying their states.
    """
    hands: dict = {}
    for d in derived:
        hands[tuple(d.over)] = hands.get(tuple(d.over), True) and d.which in RANK_ONLY_VALUES
    return hands


def _canonical(rank_only: bool, key):
    """A hand's partial state after some cards: all that later cards can still change of its values."""
    return poker.rank_counts_only(key) if rank_only else poker.suits_settled(key)


@functools.lru_cache(maxsize=32)
def _first_four_states(over: tuple, rank_only: bool) -> np.ndarray:
    """Every partial state a hand can be in after the first four cards (sorted ``int64``, read-only)."""
    read = [p for p in _FIRST_FOUR if p in over]
    if not read:  # a hand of third cards alone: empty after the first four cards
        return _read_only_states(np.zeros(1, np.int64))
    letters = np.arange(N_CARD_IDS)
    if rank_only:
        letters = np.arange(N_RANKS) * N_SUITS  # one card of each rank stands for the rank
    cards = np.array(list(itertools.combinations_with_replacement(letters, len(read))), np.int64).reshape(-1, len(read))
    key = np.zeros(len(cards), np.int64)
    for column in range(len(read)):
        key = poker.add_card(key, cards[:, column])
    return _read_only_states(np.unique(_canonical(rank_only, key)))


def _read_only_states(states: np.ndarray) -> np.ndarray:
    states.setflags(write=False)
    return states


def _exact_set(atoms, bits_of: list[int], states: dict, tclass_rep: np.ndarray):
    """One set of a group in the exact enumeration.

    Returns the set's classes of the first four positions (times their
    strides), its poker values (with their strides), its third-card classes
    (by third-card class of the group, times their strides; the last entry is
    no card), and its table of atom bits by (first-four index, third-card index).
    """
    classes, representatives = joint_classes(atoms, letters=True)
    derived = hand_values_of(atoms)
    hands = list(_hands(derived))  # the set's hands; ``states`` holds the group's, by positions
    first_sizes = [len(representatives[p]) for p in range(4)] + [len(states[hand]) for hand in hands]
    first_strides = np.cumprod([1, *first_sizes[:-1]]).astype(np.int64)
    n_first = int(np.prod(first_sizes))
    t_player, t_banker = len(representatives[4]), len(representatives[5])
    third = np.zeros((2, len(tclass_rep) + 1), np.int64)
    for which, (p, stride) in enumerate(((4, 1), (5, t_player))):
        third[which, :-1] = classes[p][tclass_rep] * stride
        third[which, -1] = classes[p][NONE] * stride
    table = np.zeros((n_first, t_player * t_banker), np.uint64)
    rows_at_once = max(1, (1 << 21) // max(1, t_player * t_banker))
    for start in range(0, n_first, rows_at_once):
        f = np.arange(start, min(start + rows_at_once, n_first))[:, None]
        t = np.arange(t_player * t_banker)[None, :]
        values = {p: representatives[i][(f // first_strides[i]) % first_sizes[i]] for i, p in enumerate(_FIRST_FOUR)}
        values["P3"] = representatives[4][t % t_player]
        values["B3"] = representatives[5][t // t_player]
        derived_values = {}
        for d in derived:
            i = hands.index(tuple(d.over))
            key = states[tuple(d.over)][(f // first_strides[4 + i]) % first_sizes[4 + i]]
            for position in ("P3", "B3"):
                if position in d.over:
                    key = poker.add_card(key, values[position])
            derived_values[d.text()] = poker.value(d.number, key)
        table[start:start + len(f)] = np.broadcast_to(_atom_bits(atoms, values, derived_values, bits_of),
                                                       (len(f), t_player * t_banker))
    first4 = np.stack([classes[p][:N_CARD_IDS] * first_strides[p] for p in range(4)])
    return first4, hands, first_strides[4:], third, table


def exact_cells(atoms) -> float:
    """Cells of the by-card enumeration's table of ``atoms`` together (what it costs, before it is built).

    Its kinds of first four cards (their classes and their poker hands' partial states) times its kinds of third
    cards (both hands').
    """
    sizes = [len(r) for r in joint_classes(atoms, letters=True)[1]]
    return float(np.prod(sizes[:4], dtype=np.float64) * np.prod(sizes[4:], dtype=np.float64)
                 * np.prod([len(_first_four_states(over, rank_only))
                            for over, rank_only in _hands(hand_values_of(atoms)).items()], dtype=np.float64))


def exact_tables(atoms, shoe: np.ndarray, outcomes: str = "codes") -> dict:
    """The arrays :func:`baccarat_sim.kernels.exact_detail.exact_detail_counts` reads, for one group and a shoe.

    The atoms are enumerated in sets (:data:`EXACT_SET_CELLS`); a set's first
    four cards are reduced to *partial classes*: first-four cards that no third
    card can tell apart for any atom of the set share one. ``outcomes``
    (``"codes"`` or ``"prefixes"``) is what the weights are counted by beside
    the combination of the sets' local ids.

    Raises
    ------
    ValueError
        When the bets tell apart more than :data:`MAX_EXACT_STATES` kinds of first four cards, or make more than
        :data:`MAX_COMBINATIONS` combinations.
    """
    counts = np.asarray(shoe, np.int64).reshape(-1)
    points = RANK_POINTS[np.arange(N_CARD_IDS) // N_SUITS].astype(np.int64)
    tclass, representative = _third_classes(atoms)
    k = len(representative)
    t_total = np.bincount(tclass, weights=counts, minlength=k).astype(np.int64)
    hands = _hands(hand_values_of(atoms))  # positions -> reads ranks alone
    states = {over: _first_four_states(over, rank_only) for over, rank_only in hands.items()}
    hand_list = list(hands)

    sets = _split(list(atoms), exact_cells, EXACT_SET_CELLS)
    bit_of = {atom.text: i for i, atom in enumerate(atoms)}
    first4 = np.zeros((len(sets), 4, N_CARD_IDS), np.int64)
    third = np.zeros((len(sets), 2, k + 1), np.int64)
    d_stride = np.zeros((len(sets), max(1, len(hand_list))), np.int64)
    reduced_parts, rt_parts, local_bits = [], [], []
    radix = [N_SUFFIXES if outcomes == "codes" else 1]
    reduced_offset = np.zeros(len(sets), np.int64)
    rt_offset = np.zeros(len(sets), np.int64)
    rt_width = np.zeros(len(sets), np.int64)
    for s, members in enumerate(sets):
        set_first4, set_hands, strides, third[s], table = _exact_set(members, [bit_of[a.text] for a in members],
                                                                     states, representative)
        first4[s] = set_first4
        for hand, stride in zip(set_hands, strides):
            d_stride[s, hand_list.index(hand)] = stride
        rows, reduced = np.unique(table, axis=0, return_inverse=True)
        reduced_offset[s] = sum(len(part) for part in reduced_parts)
        reduced_parts.append(reduced.ravel().astype(np.int64))
        rt_offset[s] = sum(part.size for part in rt_parts)
        rt_width[s] = rows.shape[1]
        rt_parts.append(rows)
        local_bits.append(rows.ravel())
        radix.append(radix[-1] * len(rows))
        if radix[-1] > MAX_EXACT_STATES:
            raise ValueError(f"the card-level bets tell apart more than {MAX_EXACT_STATES:,} kinds of first four "
                             "cards, the exact enumeration's limit; split conditions that read many cards into "
                             "separate bets or rule sets")
    ids, distinct, n_combinations = _ids_and_combinations(local_bits)
    if n_combinations > MAX_COMBINATIONS:
        raise ValueError(f"the card-level bets make {n_combinations:,} combinations of card details, more than the "
                         f"limit of {MAX_COMBINATIONS:,}; split them into simpler bets")
    n_states = radix[-1]
    # The kernel's "poker values" are the hands: one partial state each.
    over = np.array([[p in h for p in _FIRST_FOUR] for h in hand_list], np.int64).reshape(len(hand_list), 4)
    keys = [states[h] for h in hand_list]
    return {
        "counts": counts, "points": points, "ids": CARDS_OF_VALUE, "n_ids": N_CARDS_OF_VALUE, "tclass": tclass,
        "t_total": t_total, "t_point": points[representative], "first4": first4,
        "d_over": over, "d_rank_only": np.array([hands[h] for h in hand_list], np.int64),
        "d_keys": np.concatenate(keys) if keys else np.zeros(1, np.int64),
        "d_key_offset": np.cumsum([0, *[len(x) for x in keys]])[:-1].astype(np.int64),
        "d_key_count": np.array([len(x) for x in keys], np.int64), "d_stride": d_stride,
        "reduced": np.concatenate(reduced_parts) if reduced_parts else np.zeros(1, np.int64),
        "reduced_offset": reduced_offset, "radix": np.array(radix, np.int64), "third": third,
        "rt": np.concatenate(ids) if ids else np.zeros(1, np.int64), "rt_offset": rt_offset, "rt_width": rt_width,
        "n_states": int(n_states), "rows": int(max(1, min(n_states, MAX_EXACT_CELLS // (k * k)))),
        "n_outcomes": N_CODES if outcomes == "codes" else N_CODES // N_SUFFIXES,
        "n_combinations": int(n_combinations), "distinct": distinct,
    }
