"""Cards as the dealing kernels carry them: ``card << POINT_BITS | point``.

Cards are integers ``rank * 4 + suit`` (:mod:`baccarat_sim.model.cards`).
Inside the kernels a card travels *encoded* as ``card << 5 | point`` (int32),
so a hand's point total is one add and a mask, with no table lookup between
the cards of a round and the next round's position (the dealt model's
critical path).
"""

from __future__ import annotations

import numpy as np

from ..model.cards import N_CARD_IDS, RANK_POINTS, SUIT_BITS
from .jit import jit

__all__ = ["ENCODED_CARD", "POINT_BITS", "POINT_MASK", "encode_cards", "encode_shoe"]

#: Bits of an encoded card that hold its point value (a two-card sum, up to
#: 18, must not carry into the card id).
POINT_BITS = 5
#: The point value's bits of an encoded card, or of the sum of two.
POINT_MASK = (1 << POINT_BITS) - 1

#: Encoded form ``card << POINT_BITS | point`` of each card id, ``ndarray(int32, shape=(52,))``.
ENCODED_CARD = ((np.arange(N_CARD_IDS) << POINT_BITS)
                | RANK_POINTS[np.arange(N_CARD_IDS) >> SUIT_BITS]).astype(np.int32)
ENCODED_CARD.setflags(write=False)


def encode_cards(cards) -> np.ndarray:
    """Encode card ids (``rank * 4 + suit``) for the kernel, ``ndarray(int32)``."""
    return ENCODED_CARD[np.asarray(cards, dtype=np.int64)]


@jit
def encode_shoe(canonical):
    """Encoded copy of a shoe given as card ids, ``ndarray(int32)``."""
    cards = np.empty(canonical.shape[0], np.int32)
    for i in range(canonical.shape[0]):
        cards[i] = ENCODED_CARD[canonical[i]]
    return cards
