"""The card detail of a dealt round: the atoms of a rule set's card-level bets evaluated from the round's cards.

Pure numba functions, no I/O. The atoms come in *groups*
(:mod:`baccarat_sim.model.detail`); a group is evaluated through its tables
(:func:`baccarat_sim.model.detail_tables.kernel_tables`): the card at each
position is projected onto the classes a table's atoms tell apart, each poker
value a table reads is computed from its cards (:mod:`baccarat_sim.kernels.hand`),
and one lookup gives a *local id*; the local ids of the group's tables add up to
a *combination*, and a last lookup gives the group's detail. The tables come
packed in one tuple:

``over``        ``int64[d, 6]``: which positions each poker value reads;
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
``cell_offset``, ``n_outcomes``, ``prefix_mult``, ``suffix_mult`` ``int64[g]``:
                where a group's cells start in a histogram row, and its cell
                ``cell_offset + detail * n_outcomes + prefix * prefix_mult +
                suffix * suffix_mult`` (a code or a prefix beside the detail).
"""

from __future__ import annotations

import numpy as np

from ..model.cards import N_CARD_IDS
from .hand import add_card, hand_value
from .jit import jit

__all__ = ["NO_CARD", "add_group_cells", "detail_index", "group_detail"]

_P1, _B1, _P2, _B2, _P3, _B3 = (np.uint64(i) for i in range(6))
#: The card value of a missing third card (see :data:`baccarat_sim.model.cardlevel.NONE`).
NO_CARD = N_CARD_IDS


@jit(inline="always")
def _card_if(card, read):
    """``card`` where ``read`` is 1, else no card (branch-free)."""
    return card + (NO_CARD - card) * (1 - read)


@jit(inline="always")
def _poker_value(c0, c1, c2, c3, c4, c5, over, which, d):
    """Poker value ``d`` of the round (card values ``c0..c5``, int64)."""
    key = np.int64(0)
    key = add_card(key, _card_if(c0, over[d, 0]))
    key = add_card(key, _card_if(c1, over[d, 1]))
    key = add_card(key, _card_if(c2, over[d, 2]))
    key = add_card(key, _card_if(c3, over[d, 3]))
    key = add_card(key, _card_if(c4, over[d, 4]))
    key = add_card(key, _card_if(c5, over[d, 5]))
    return hand_value(which[d], key)


@jit(inline="always")
def group_detail(c0, c1, c2, c3, c4, c5, tables, group):
    """The detail of group ``group`` for a round whose six positions hold card values ``c0..c5`` (uint64)."""
    over, which, projection, dstride, toffset, table, first_table, loffset, lookup = tables[:9]
    combination = np.int64(0)
    for t in range(first_table[group], first_table[group + 1]):
        # Unsigned indices spare numba's negative-index checks. A position the table does not read projects
        # every card to 0: six loads, no branch.
        u = np.uint64(t)
        index = (toffset[u] + projection[u, _P1, c0] + projection[u, _B1, c1] + projection[u, _P2, c2]
                 + projection[u, _B2, c3] + projection[u, _P3, c4] + projection[u, _B3, c5])
        for d in range(which.shape[0]):
            stride = dstride[u, d]
            if stride != 0:  # the same every round: predicted
                value = _poker_value(np.int64(c0), np.int64(c1), np.int64(c2), np.int64(c3), np.int64(c4),
                                     np.int64(c5), over, which, d)
                index += np.uint32(value) * stride
        combination += np.int64(table[index])
    return lookup[loffset[group] + combination]


@jit(inline="always")
def detail_index(c0, c1, c2, c3, c4, c5, tables):
    """The detail of a round in the one group of a joint card detail (card values ``c0..c5``, uint64)."""
    return group_detail(c0, c1, c2, c3, c4, c5, tables, 0)


@jit(inline="always")
def add_group_cells(c0, c1, c2, c3, c4, c5, prefix, suffix, tables, row):
    """Count a round in every group's cell of histogram row ``row`` (card values ``c0..c5``, uint64)."""
    cell_offset, n_outcomes, prefix_mult, suffix_mult = tables[9:]
    for g in range(cell_offset.shape[0]):
        detail = group_detail(c0, c1, c2, c3, c4, c5, tables, g)
        row[cell_offset[g] + detail * n_outcomes[g] + prefix * prefix_mult[g] + suffix * suffix_mult[g]] += 1
