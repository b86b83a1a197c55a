"""The card detail laid out in tables: the classes each position's card falls in, and the exact enumeration's tables.

A group of atoms (:class:`~baccarat_sim.model.detail.CardDetail`) is evaluated
from the cards of a round through *tables*: the card at each position is
projected onto the classes the table's atoms tell apart together
(:func:`joint_classes`), each poker value the atoms read
(:class:`~baccarat_sim.model.cardlevel.HandValue`) is computed from its cards,
and one lookup gives the atoms' bits, as a small *local id*. A group whose
atoms do not fit one table has several; their local ids make a *combination*
that a last lookup turns into the group's detail.

* the Monte Carlo tables' classes and atom bits (:func:`joint_classes`,
  :func:`table_cells`, :func:`table_patterns`), which the Monte Carlo packer
  (:func:`baccarat_sim.engines.packer.kernel_tables`) packs for
  :mod:`baccarat_sim.kernels.detail` and the cost model sizes
  (:mod:`baccarat_sim.model.cost`);
* :func:`exact_tables` lays out one group's atoms for the exact enumeration
  (:mod:`baccarat_sim.kernels.exact_detail`): the first four cards' classes and
  the *partial state* of every poker value after them, the third cards' classes,
  and tables of local ids by (partial class of the first four cards, classes of
  the third cards).
"""

from __future__ import annotations

import functools
import itertools

import numpy as np

from . import poker
from .cardlevel import N_CARD_VALUES, NONE, POSITIONS
from .cards import CARDS_OF_VALUE, N_CARD_IDS, N_CARDS_OF_VALUE, N_RANKS, N_SUITS, RANK_POINTS
from .codes import N_CODES, N_SUFFIXES

__all__ = ["EXACT_SET_CELLS", "MAX_COMBINATIONS", "MAX_EXACT_CELLS", "MAX_EXACT_STATES", "TABLE_CELLS", "card_letter",
           "exact_tables", "joint_classes", "table_cells", "table_patterns", "third_class_count"]

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
_RANK_ONLY = ("kind", "kind_rank", "straight", "pairs", "triples")


def _derived_of(atoms) -> tuple:
    return tuple(dict.fromkeys(d for atom in atoms for d in atom.derived))


def card_letter(hand_value) -> np.ndarray:
    """What a poker value reads of a card at one of its positions: its rank, or its rank and suit (by card value)."""
    cards = np.arange(N_CARD_VALUES)
    letter = np.where(cards < N_CARD_IDS, cards // N_SUITS, N_RANKS) if hand_value.which in _RANK_ONLY else cards
    return letter.astype(np.int64)


def joint_classes(atoms, positions=POSITIONS, letters: bool = False) -> tuple[list, list]:
    """Per position, the classes the atoms tell apart together: (class of every card value, a representative).

    With ``letters``, a third card that a poker value of the atoms reads also
    tells apart what that value reads of its card (the exact enumeration's
    third cards); otherwise poker values are not read through classes.
    """
    classes, representatives = [], []
    derived = _derived_of(atoms)
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
    sizes = [len(r) for r in joint_classes(atoms)[1]] + [len(d.domain()) for d in _derived_of(atoms)]
    return int(np.prod(sizes, dtype=np.float64))


def table_patterns(atoms) -> int:
    """How many combinations of the atoms' values their Monte Carlo table holds (at least their details)."""
    _, _, bits = _mc_table(atoms, list(range(len(atoms))), {d.text(): 0 for d in _derived_of(atoms)})
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
    derived = _derived_of(atoms)
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
    for d in _derived_of(atoms):
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
        hands[tuple(d.over)] = hands.get(tuple(d.over), True) and d.which in _RANK_ONLY
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
    derived = _derived_of(atoms)
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
    hands = _hands(_derived_of(atoms))  # positions -> reads ranks alone
    states = {over: _first_four_states(over, rank_only) for over, rank_only in hands.items()}
    hand_list = list(hands)

    def cells(members) -> float:
        sizes = [len(r) for r in joint_classes(members, letters=True)[1]]
        return float(np.prod(sizes[:4], dtype=np.float64) * np.prod(sizes[4:], dtype=np.float64)
                     * np.prod([len(states[h]) for h in _hands(_derived_of(members))], dtype=np.float64))

    sets = _split(list(atoms), cells, EXACT_SET_CELLS)
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
