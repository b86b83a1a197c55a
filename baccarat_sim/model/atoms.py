"""Atoms: the card-only parts of conditions, compiled to a truth table over the classes of cards they tell apart.

Every maximal part of a condition that reads only cards
(:mod:`baccarat_sim.model.conditions`) is an :class:`Atom`: a yes/no function
of the cards of a round. It is compiled to a projection of the card at each
position it reads onto the few classes it tells apart (for ``P1.suit ==
hearts``: hearts or not), and, for each poker value it reads
(:class:`~baccarat_sim.model.cardlevel.HandValue`, a function of several cards
as a whole), a dimension over that value's domain; its truth table covers every
combination. Engines evaluate atoms from the cards they deal; settlement reads
them back as the *card detail* of an outcome (:mod:`baccarat_sim.model.detail`).
"""

from __future__ import annotations

import dataclasses

import numpy as np

from . import poker
from .cardlevel import N_CARD_VALUES, POSITIONS, CardValue, hand_key
from .cards import N_CARD_IDS

__all__ = ["MAX_ATOM_CELLS", "Atom"]

#: Most table cells an atom may have (positions' classes and poker values' domains multiplied).
MAX_ATOM_CELLS = 1 << 22


@dataclasses.dataclass(frozen=True, eq=False)
class Atom:
    """A yes/no function of the cards of a round, compiled to tables the engines read.

    The card at each position used is projected onto the classes the atom
    distinguishes (``projection[j][card value]``), each poker value it reads
    (``derived[i]``) is its value; the atom's value is ``truth[sum_j class_j *
    stride_j + sum_i value_i * stride_{n_positions + i}]``. Positions are
    ordered as in :data:`~baccarat_sim.model.cardlevel.POSITIONS`, so the first
    four cards' part of the index comes before the third cards' part; the poker
    values come last.

    Attributes
    ----------
    text : str
        Canonical text of the card-only condition it stands for (its identity).
    positions : tuple of str
    projection : ndarray(int64, shape=(n_positions, 53))
        Class of each card value at each position.
    sizes : tuple of int
        Classes at each position, then the size of each poker value's domain.
    truth : ndarray(bool, shape=(prod(sizes),))
        The atom's value for every combination of classes and poker values.
    derived : tuple of HandValue
        The poker values it reads, each a dimension of ``truth`` after the positions'.
    """

    text: str
    positions: tuple[str, ...]
    projection: np.ndarray
    sizes: tuple[int, ...]
    truth: np.ndarray
    derived: tuple = ()

    def __eq__(self, other):
        return isinstance(other, Atom) and self.text == other.text

    def __hash__(self):
        return hash(self.text)

    @property
    def strides(self) -> tuple[int, ...]:
        """Index stride of each position's class, then of each poker value (the last varies slowest)."""
        strides, step = [], 1
        for size in self.sizes:
            strides.append(step)
            step *= size
        return tuple(strides)

    def value(self, cards: dict[str, int]) -> bool:
        """The atom for one round's cards (card values by position; a missing third card is ``NONE``)."""
        strides = self.strides
        index = sum(int(self.projection[j, cards[p]]) * strides[j] for j, p in enumerate(self.positions))
        for i, hand_value in enumerate(self.derived):
            value = poker.value(hand_value.number, hand_key(cards, hand_value.over))
            index += int(value) * strides[len(self.positions) + i]
        return bool(self.truth[index])

    @classmethod
    def build(cls, text: str, values: list[CardValue], evaluate) -> Atom:
        """Compile a card-only condition over ``values`` (``evaluate(cards) -> bool array``) into an atom.

        Raises
        ------
        ValueError
            When the condition distinguishes more card combinations than :data:`MAX_ATOM_CELLS`.
        """
        derived = tuple(dict.fromkeys(d for v in values for d in v.derived()))
        positions = tuple(p for p in POSITIONS if any(p in v.positions() and v.functions(p) for v in values))
        projection = np.zeros((len(positions), N_CARD_VALUES), np.int64)
        representatives, sizes = [], []
        for j, position in enumerate(positions):
            functions = [f for v in values if position in v.positions() for f in v.functions(position)]
            keys = np.stack(functions, axis=1)
            if position in ("P1", "B1", "P2", "B2"):
                keys = keys[:N_CARD_IDS]  # the first four cards are always there
            unique, first, inverse = np.unique(keys, axis=0, return_index=True, return_inverse=True)
            projection[j, : len(inverse)] = inverse.ravel()
            representatives.append(first)
            sizes.append(len(unique))
        domains = [np.asarray(d.domain(), np.int64) for d in derived]
        sizes += [len(domain) for domain in domains]
        cells = int(np.prod(sizes)) if sizes else 1
        if cells > MAX_ATOM_CELLS:
            raise ValueError(f"it tells apart {cells:,} combinations of cards, more than the limit of "
                             f"{MAX_ATOM_CELLS:,}; split it into simpler conditions")
        axes = [*representatives, *domains]
        grids = np.meshgrid(*axes, indexing="ij") if axes else []
        # Fortran order: the first position's class varies fastest, matching the strides.
        names = [*positions, *(d.text() for d in derived)]
        cards = {name: g.ravel(order="F") for name, g in zip(names, grids)}
        truth = np.asarray(evaluate(cards), bool).reshape(-1) if axes else np.asarray([bool(evaluate({}))])
        if truth.size != cells:
            truth = np.broadcast_to(truth, (cells,)).copy()
        for array in (projection, truth):
            array.setflags(write=False)
        return cls(text, positions, projection, tuple(int(s) for s in sizes), truth, derived)
