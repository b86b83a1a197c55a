"""The card detail of an outcome: which atoms of a rule set's card-level bets hold.

A rule set whose bets read cards (``P1.suit == hearts``, ``player_flush``, ...)
has *atoms* (:class:`~baccarat_sim.model.cardlevel.Atom`): the card-only parts
of its conditions. A round's *detail* is the combination of the atoms' values;
only the combinations that can happen are kept, numbered ``0 .. n_details - 1``.
The histogram of such a rule set counts *cells* ``detail * N_CODES + code``. A
rule set without card-level bets has no detail: its cells are the outcome
codes.

The detail a histogram holds is part of the histogram (:attr:`CardDetail.atoms`
by their texts and :attr:`CardDetail.patterns`): any rule file can be settled on
it whose card-level conditions use only those atoms.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib

import numpy as np

from .cardlevel import N_CARD_VALUES, NONE, POSITIONS
from .cards import CARDS_OF_VALUE, N_CARD_IDS, N_CARDS_OF_VALUE, N_SUITS, RANK_POINTS
from .codes import N_CODES, N_SUFFIXES

__all__ = ["EXACT_GROUP_CELLS", "GROUP_CELLS", "MAX_ATOMS", "MAX_DETAILS", "MAX_EXACT_CELLS", "MAX_EXACT_STATES",
           "CardDetail", "exact_tables", "kernel_tables"]

#: Most atoms (card-only conditions) a rule set's bets may have together.
MAX_ATOMS = 10
#: Most card details (combinations of atom values that can happen) of a rule set: each multiplies the
#: histogram's cells (14,400 per detail).
MAX_DETAILS = 64
#: Scratch cells of the exact enumeration per thread (states x third-card classes squared): 64 MiB of int64.
#: A rule set with more states runs the third-card stage whenever its scratch fills.
MAX_EXACT_CELLS = 1 << 23
#: Most states (kinds of first four cards) the exact enumeration tells apart: its state index is 64 MiB per thread.
MAX_EXACT_STATES = 1 << 24


@dataclasses.dataclass(frozen=True, eq=False)
class CardDetail:
    """The atoms of a rule set and the combinations of their values that can happen.

    Attributes
    ----------
    atoms : tuple of Atom
    patterns : ndarray(bool, shape=(n_details, n_atoms))
        Row ``d``: the value of every atom in detail ``d``.
    possible : ndarray(bool, shape=(n_details * N_CODES,)) or None
        Which cells can happen at the table (from a shoe with six of every
        card); the engines work it out, a histogram read from a file does not
        carry it.
    """

    atoms: tuple
    patterns: np.ndarray
    possible: np.ndarray | None = None

    @property
    def n_details(self) -> int:
        """Details (combinations of atom values) that can happen."""
        return int(self.patterns.shape[0])

    @property
    def n_cells(self) -> int:
        """Histogram cells ``detail * N_CODES + code``: ``n_details * N_CODES``."""
        return self.n_details * N_CODES

    @property
    def texts(self) -> tuple[str, ...]:
        """The atoms' canonical texts (their identities)."""
        return tuple(atom.text for atom in self.atoms)

    @functools.cached_property
    def signature(self) -> str:
        """SHA-256 (hex, 16 characters) of the atoms and their possible combinations."""
        digest = hashlib.sha256("\n".join(self.texts).encode())
        digest.update(np.packbits(self.patterns).tobytes())
        return digest.hexdigest()[:16]

    def atom_bits(self) -> dict[str, np.ndarray]:
        """Each atom's value in each detail, by atom text: ``ndarray(bool, shape=(n_details,))``."""
        return {atom.text: self.patterns[:, i] for i, atom in enumerate(self.atoms)}

    @functools.cached_property
    def lookup(self) -> np.ndarray:
        """Detail index of every combination of atom bits (``int64[2**n_atoms]``; -1: cannot happen)."""
        weights = 1 << np.arange(len(self.atoms))
        table = np.full(1 << len(self.atoms), -1, np.int64)
        table[(self.patterns * weights).sum(axis=1)] = np.arange(self.n_details)
        table.setflags(write=False)
        return table

    def to_json(self) -> dict:
        """The detail as JSON-ready data: atom texts and the patterns as strings of 0 and 1."""
        return {"atoms": list(self.texts), "patterns": ["".join("01"[int(b)] for b in row) for row in self.patterns]}

    @classmethod
    def from_json(cls, data: dict) -> CardDetail:
        """The detail :meth:`to_json` wrote, its atoms compiled again from their texts.

        Raises
        ------
        ValueError
            When the data is not a card detail of this version.
        """
        from .conditions import atom_of_text  # conditions compile atoms; this module only holds them

        if not isinstance(data, dict) or set(data) != {"atoms", "patterns"}:
            raise ValueError("the card detail must have atoms and patterns")
        texts, rows = data["atoms"], data["patterns"]
        if not (isinstance(texts, list) and isinstance(rows, list) and rows and all(isinstance(t, str) for t in texts)
                and all(isinstance(r, str) and len(r) == len(texts) and set(r) <= {"0", "1"} for r in rows)):
            raise ValueError("the card detail's atoms and patterns do not fit together")
        if not texts or len(texts) > MAX_ATOMS or len(set(rows)) != len(rows):
            raise ValueError("the card detail's atoms and patterns do not fit together")
        patterns = np.array([[c == "1" for c in row] for row in rows], bool).reshape(len(rows), len(texts))
        patterns.setflags(write=False)
        return cls(tuple(atom_of_text(text) for text in texts), patterns)

    def describe(self, detail: int) -> str:
        """A detail in words: which atoms hold."""
        held = [atom.text for atom, bit in zip(self.atoms, self.patterns[detail]) if bit]
        return " and ".join(held) if held else "no card-level condition holds"


#: Most cells of one table of the Monte Carlo kernel: atoms are evaluated in groups that fit, each group by one
#: lookup (a rule set's atoms usually make one group).
GROUP_CELLS = 1 << 16


def _joint_classes(atoms) -> tuple[list, list]:
    """Per position, the classes the atoms tell apart together: (class of every card value, a representative)."""
    poker = [atom.text for atom in atoms if atom.derived]
    if poker:
        raise ValueError(f"{poker[0]}: poker values of several cards are not priced by this version's engines yet")
    classes, representatives = [], []
    for position in POSITIONS:
        columns = [atom.projection[atom.positions.index(position)] for atom in atoms if position in atom.positions]
        if not columns:
            classes.append(np.zeros(N_CARD_VALUES, np.int64))
            representatives.append(np.zeros(1, np.int64))
            continue
        _, first, inverse = np.unique(np.stack(columns, axis=1), axis=0, return_index=True, return_inverse=True)
        classes.append(inverse.ravel().astype(np.int64))
        representatives.append(first.astype(np.int64))
    return classes, representatives


def _group_cells(atoms) -> int:
    return int(np.prod([len(r) for r in _joint_classes(atoms)[1]]))


def _group_table(atoms, first_bit: int) -> tuple[np.ndarray, np.ndarray]:
    """One group's projection (class times stride, by position and card value) and its table of atom bits."""
    classes, representatives = _joint_classes(atoms)
    sizes = [len(r) for r in representatives]
    strides = np.cumprod([1, *sizes[:-1]])
    projection = np.stack([c * stride for c, stride in zip(classes, strides)])
    # Every combination of joint classes, the first position's varying fastest (as the strides say).
    grid = [g.ravel(order="F") for g in np.meshgrid(*[np.arange(n) for n in sizes], indexing="ij")]
    table = np.zeros(int(np.prod(sizes)), np.uint16)
    for a, atom in enumerate(atoms):
        index = np.zeros(table.size, np.int64)
        for j, (position, stride) in enumerate(zip(atom.positions, atom.strides)):
            p = POSITIONS.index(position)
            index += atom.projection[j][representatives[p][grid[p]]] * stride
        table |= atom.truth[index].astype(np.uint16) << (first_bit + a)
    return projection, table


def kernel_tables(detail: CardDetail) -> tuple:
    """The detail's tables packed for :func:`baccarat_sim.kernels.detail.detail_index`.

    The atoms are put in groups whose joint tables have at most
    :data:`GROUP_CELLS` cells, in order; each group's table gives the bits of
    its atoms for the classes of the six cards.
    """
    groups: list[list] = []
    for atom in detail.atoms:
        if groups and _group_cells([*groups[-1], atom]) <= GROUP_CELLS:
            groups[-1].append(atom)
        else:
            groups.append([atom])
    projections, tables, offsets, bit, offset = [], [], [], 0, 0
    for group in groups:
        projection, table = _group_table(group, bit)
        projections.append(projection)
        tables.append(table)
        offsets.append(offset)
        bit += len(group)
        offset += table.size
    # uint32: the tables stay small in cache; the kernel indexes them unsigned.
    return (np.stack(projections).astype(np.uint32), np.array(offsets, np.uint32), np.concatenate(tables),
            detail.lookup)


def _third_classes(atoms) -> tuple[np.ndarray, np.ndarray]:
    """Classes of third cards: a point value, refined where an atom reads a third card's rank, suit or colour.

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
    _, first, inverse = np.unique(np.stack(keys, axis=1), axis=0, return_index=True, return_inverse=True)
    return inverse.ravel().astype(np.int64), first.astype(np.int64)


#: Most cells (kinds of first four cards times kinds of third cards) of one group of atoms in the exact
#: enumeration: atoms are enumerated jointly while their table fits, so atoms that read the same cards (a poker
#: bet's straight, flush and three of a kind) share one partial class instead of multiplying theirs.
EXACT_GROUP_CELLS = 1 << 22


def _exact_cells(atoms) -> int:
    sizes = [len(r) for r in _joint_classes(atoms)[1]]
    return int(np.prod(sizes))


def _exact_group(atoms, bits: list[int]):
    """A group's joint classes per position and its table of atom bits (first-four index x third-card index)."""
    classes, representatives = _joint_classes(atoms)
    sizes = [len(r) for r in representatives]
    first_strides = np.cumprod([1, *sizes[:3]])
    first_size, t_player = int(np.prod(sizes[:4])), sizes[4]
    f = np.arange(first_size)[:, None]
    t = np.arange(t_player * sizes[5])[None, :]
    class_of = [(f // first_strides[p]) % sizes[p] for p in range(4)] + [t % t_player, t // t_player]
    values = [representatives[p][class_of[p]] for p in range(len(POSITIONS))]
    table = np.zeros((first_size, t_player * sizes[5]), np.uint16)
    for atom, bit in zip(atoms, bits):
        index = sum(atom.projection[j][values[POSITIONS.index(position)]] * stride
                    for j, (position, stride) in enumerate(zip(atom.positions, atom.strides)))
        table |= atom.truth[index].astype(np.uint16) << bit
    return classes, first_strides, t_player, table


def exact_tables(atoms, shoe: np.ndarray) -> dict:
    """The arrays :func:`baccarat_sim.kernels.exact_detail.exact_detail_counts` reads, for a shoe.

    The atoms are enumerated in groups (:data:`EXACT_GROUP_CELLS`); a group's
    first four cards are reduced to *partial classes*: first-four cards that
    no third card can tell apart for any atom of the group share one.

    Raises
    ------
    ValueError
        When the bets tell apart more than :data:`MAX_EXACT_STATES` kinds of first four cards.
    """
    counts = np.asarray(shoe, np.int64).reshape(-1)
    points = RANK_POINTS[np.arange(N_CARD_IDS) // N_SUITS].astype(np.int64)
    ids, n_ids = CARDS_OF_VALUE, N_CARDS_OF_VALUE
    tclass, representative = _third_classes(atoms)
    k = len(representative)
    t_total = np.bincount(tclass, weights=counts, minlength=k).astype(np.int64)
    t_point = points[representative]
    groups: list[list[int]] = []
    for a, atom in enumerate(atoms):
        if groups and _exact_cells([atoms[i] for i in groups[-1]] + [atom]) <= EXACT_GROUP_CELLS:
            groups[-1].append(a)
        else:
            groups.append([a])
    first4 = np.zeros((len(groups), 4, N_CARD_IDS), np.int64)
    third = np.zeros((len(groups), 2, k + 1), np.int64)
    reduced_parts, rt_parts, radix = [], [], [N_SUFFIXES]
    reduced_offset = np.zeros(len(groups), np.int64)
    rt_offset = np.zeros(len(groups), np.int64)
    rt_width = np.zeros(len(groups), np.int64)
    for g, members in enumerate(groups):
        classes, first_strides, t_player, table = _exact_group([atoms[a] for a in members], members)
        for p in range(4):
            first4[g, p] = classes[p][:N_CARD_IDS] * first_strides[p]
        for which, (position, stride) in enumerate((("P3", 1), ("B3", t_player))):
            column = classes[POSITIONS.index(position)]
            third[g, which, :k] = column[representative] * stride
            third[g, which, k] = column[NONE] * stride
        rows, reduced = np.unique(table, axis=0, return_inverse=True)
        reduced_offset[g] = sum(len(part) for part in reduced_parts)
        reduced_parts.append(reduced.ravel().astype(np.int64))
        rt_offset[g] = sum(part.size for part in rt_parts)
        rt_width[g] = rows.shape[1]
        rt_parts.append(rows.ravel())
        radix.append(radix[-1] * len(rows))
    n_states = radix[-1]
    if n_states > MAX_EXACT_STATES:
        raise ValueError(f"the card-level bets tell apart {n_states:,} kinds of first four cards, more than the exact "
                         f"enumeration's limit of {MAX_EXACT_STATES:,}; split conditions that read many cards into "
                         "separate bets or rule sets")
    return {
        "counts": counts, "points": points, "ids": ids, "n_ids": n_ids, "tclass": tclass, "t_total": t_total,
        "t_point": t_point, "first4": first4,
        "reduced": np.concatenate(reduced_parts) if reduced_parts else np.zeros(1, np.int64),
        "reduced_offset": reduced_offset, "radix": np.array(radix, np.int64), "third": third,
        "rt": np.concatenate(rt_parts) if rt_parts else np.zeros(1, np.uint16), "rt_offset": rt_offset,
        "rt_width": rt_width, "n_states": int(n_states),
        "rows": int(max(1, min(n_states, MAX_EXACT_CELLS // (k * k)))),
    }
