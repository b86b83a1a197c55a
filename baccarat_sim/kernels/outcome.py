"""The model's rules of a round, compiled for the kernels: the outcome code's arithmetic and the tableau.

Every function here is the model's own definition (:mod:`baccarat_sim.model.codes`,
:mod:`baccarat_sim.model.tableau`) compiled with ``inline="always"``: a kernel
that calls one gets the same machine code as if the arithmetic were typed out
in its loop, and there is still one copy of each rule. The tableau itself is
read as its table, :data:`~baccarat_sim.model.tableau.THIRD_CARD_PREFIX`
(a compile-time constant): which hand draws, and from which card, follows
from the prefix it gives (:func:`cards_used_of`, :func:`player_drew_of`,
:func:`banker_drew_of`, :func:`third_cards`).
"""

from __future__ import annotations

from ..model import codes, tableau
from ..model.cards import SUIT_BITS
from ..model.tableau import THIRD_CARD_PREFIX
from .jit import jit

__all__ = [
    "banker_drew_of",
    "cards_used_of",
    "code_of",
    "first_card_status",
    "pair_status",
    "player_drew_of",
    "prefix_of",
    "suffix_of",
    "suffix_of_cards",
    "third_card_index",
    "third_card_prefix",
    "third_cards",
]

_inline = jit(inline="always")

prefix_of = _inline(codes.prefix_of)
player_drew_of = _inline(codes.player_drew_of)
banker_drew_of = _inline(codes.banker_drew_of)
cards_used_of = _inline(codes.cards_used_of)
pair_status = _inline(codes.pair_status)
first_card_status = _inline(codes.first_card_status)
suffix_of = _inline(codes.suffix_of)
code_of = _inline(codes.code_of)
third_card_index = _inline(tableau.third_card_index)
third_cards = _inline(tableau.third_cards)


@jit(inline="always")
def third_card_prefix(player_total, banker_total, next_point, point_after):
    """The round's code prefix by the tableau: two-card totals and the point values of the next two cards."""
    return THIRD_CARD_PREFIX[third_card_index(player_total, banker_total, next_point, point_after)]


@jit(inline="always")
def suffix_of_cards(c0, c1, c2, c3):
    """The code's suffix (pairs, first-card comparison) of the first four card ids, P1 B1 P2 B2.

    Cards are ``rank * 4 + suit`` (:mod:`baccarat_sim.model.cards`): equal ids
    are equal in rank and suit.
    """
    r0 = c0 >> SUIT_BITS
    r1 = c1 >> SUIT_BITS
    return suffix_of(pair_status(r0 == (c2 >> SUIT_BITS), c0 == c2), pair_status(r1 == (c3 >> SUIT_BITS), c1 == c3),
                     first_card_status(r0, r1, c0 == c1))
