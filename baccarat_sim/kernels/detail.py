"""The card detail of a dealt round: every atom of the rule set evaluated from the round's cards.

Pure numba functions, no I/O. The atoms of a rule set
(:class:`baccarat_sim.model.cardlevel.Atom`) are evaluated in *groups*: the
card at each position is projected onto the classes the group's atoms tell
apart, and one table gives the bits of all its atoms; the bits, looked up in
the detail table, give the round's *detail index*, and the round counts in the
histogram cell ``detail * N_CODES + code``. The tables come packed in one tuple
(:func:`baccarat_sim.model.detail.kernel_tables`):

``projection`` ``int64[g, 6, 53]``: by group and position (0-5: P1 B1 P2 B2
              P3 B3), the card's class times its stride, by card value
              (52: no card); 0 at positions the group does not read;
``offsets``   ``int64[g]``: where each group's table starts in ``table``;
``table``     ``uint16[...]``: the atom bits of every combination of classes,
              group after group;
``lookup``    ``int64[2**k]``: the detail index of each combination of the
              ``k`` atom bits (-1 for one that cannot happen).
"""

from __future__ import annotations

import numpy as np

from ..model.cards import N_CARD_IDS
from .jit import jit

__all__ = ["NO_CARD", "detail_index"]

_P1, _B1, _P2, _B2, _P3, _B3 = (np.uint64(i) for i in range(6))
#: The card value of a missing third card (see :data:`baccarat_sim.model.cardlevel.NONE`).
NO_CARD = N_CARD_IDS


@jit(inline="always")
def detail_index(c0, c1, c2, c3, c4, c5, tables):
    """The detail index of a round whose six positions hold card values ``c0..c5`` (uint64; ``NO_CARD``: none)."""
    projection, offsets, table, lookup = tables
    bits = np.uint64(0)
    for group in range(offsets.shape[0]):
        # Unsigned indices spare numba's negative-index checks. A position the group does not read projects
        # every card to 0: six loads, no branch.
        g = np.uint64(group)
        index = (offsets[g] + projection[g, _P1, c0] + projection[g, _B1, c1] + projection[g, _P2, c2]
                 + projection[g, _B2, c3] + projection[g, _P3, c4] + projection[g, _B3, c5])
        bits |= np.uint64(table[index])
    return lookup[bits]
