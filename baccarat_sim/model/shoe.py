"""Shoe compositions: how many cards of each rank and suit a shoe holds.

A shoe composition is an ``ndarray(int64, shape=(13, 4))`` of card counts per
rank and suit, so that single cards can be removed for depleted shoes,
effect-of-removal and counting studies.
"""

from __future__ import annotations

import numpy as np

from ..errors import ShoeError
from ..limits import MAX_DECKS
from .cards import N_RANKS, N_SUITS, RANK_NAMES, RANK_POINTS, card_name, parse_cards

__all__ = [
    "MAX_CARDS",
    "MIN_CARDS",
    "as_shoe",
    "canonical_cards",
    "deck_count",
    "nearest_deck_count",
    "describe_shoe",
    "remove_cards",
    "shoe_composition",
]

#: Fewest cards a shoe must hold: one round can take six.
MIN_CARDS = 6
#: Largest shoe whose six-card orderings ``N (N-1) ... (N-5)`` fit in a signed
#: 64-bit integer (1450 cards, 27 decks and then some); every weight and partial
#: sum of the exact kernel is at most that total, so none can overflow.
MAX_CARDS = 1450


def shoe_composition(decks: int = 8) -> np.ndarray:
    """Card counts of a shoe of ``decks`` standard 52-card decks.

    Returns
    -------
    ndarray(int64, shape=(13, 4))
        Count per rank (Ace..King) and suit.

    Raises
    ------
    ShoeError
        ``decks`` is not a whole number from 1 to :data:`MAX_DECKS`.
    """
    if isinstance(decks, bool) or not isinstance(decks, (int, np.integer)) or not 1 <= decks <= MAX_DECKS:
        raise ShoeError("decks", f"must be a whole number from 1 to {MAX_DECKS}, got {decks!r}")
    return np.full((N_RANKS, N_SUITS), int(decks), dtype=np.int64)


def as_shoe(shoe) -> np.ndarray:
    """Normalise a shoe given as a deck count or a (13, 4) count array.

    Returns
    -------
    ndarray(int64, shape=(13, 4))
        A fresh C-contiguous copy: the caller's array is never aliased, and a
        strided view (``shoe[:, perm]``) would make numba compile a second kernel.

    Raises
    ------
    ShoeError
        With the parameter name and the allowed values when the shoe is not usable.
    """
    if isinstance(shoe, (int, np.integer)) and not isinstance(shoe, bool):
        return shoe_composition(int(shoe))
    array = np.asarray(shoe)
    if array.shape == (N_RANKS,):  # counts per rank: spreading them evenly over suits is a guess
        raise ShoeError("shoe", "give counts per rank and suit, shape (13, 4)")
    if array.shape != (N_RANKS, N_SUITS) or array.dtype.kind not in "iu":
        raise ShoeError("shoe", f"must be a deck count or integer counts of shape (13, 4), got {array.dtype} "
                                f"{array.shape}")
    if (array < 0).any():
        raise ShoeError("shoe", "card counts must be >= 0")
    total = int(array.sum())
    if not MIN_CARDS <= total <= MAX_CARDS:
        raise ShoeError("shoe", f"must hold {MIN_CARDS} to {MAX_CARDS} cards, got {total}")
    return np.array(array, dtype=np.int64, order="C")


def deck_count(composition: np.ndarray) -> int | None:
    """The number of standard decks, or None for any other composition."""
    first = int(composition[0, 0])
    return first if first > 0 and (composition == first).all() else None


def nearest_deck_count(composition: np.ndarray) -> int:
    """The whole number of decks nearest to a shoe's card count, at least 1 (a depleted 8-deck shoe: 8).

    The deck count to state for a shoe of any composition, such as a saved
    histogram's.

    >>> nearest_deck_count(remove_cards(as_shoe(8), "6,6,7")), nearest_deck_count(as_shoe(1)[:1])
    (8, 1)
    """
    return int(round(composition.sum() / 52)) or 1


def describe_shoe(composition: np.ndarray) -> str:
    """A shoe as people read it: ``"8 decks (416 cards)"`` or ``"a shoe of 409 cards"``."""
    decks = deck_count(composition)
    total = int(composition.sum())
    if decks:
        return f"{decks} deck{'s' if decks != 1 else ''} ({total} cards)"
    return f"a shoe of {total} cards"


def remove_cards(shoe, cards: str | list) -> np.ndarray:
    """A copy of ``shoe`` with cards removed.

    Parameters
    ----------
    shoe : int or ndarray(int64, shape=(13, 4))
        Deck count or composition.
    cards : str or list
        As read by :func:`baccarat_sim.model.cards.parse_cards` (``"6,6,7"``:
        point values; ``"K,Q"``: ranks; ``"Qh"``: one exact card). A point value
        or a rank is removed from the suit (and, for point value 0, the
        ten-value rank) that has the most cards left, which keeps the shoe as
        even as possible.

    Raises
    ------
    ShoeError
        ``remove``: an item that cannot be read, or a card the shoe no longer holds,
        named as the user wrote it.

    Examples
    --------
    >>> int(remove_cards(8, "6,6,Kh").sum())
    413
    >>> remove_cards(1, "K,K,K,K,K")
    Traceback (most recent call last):
    ...
    baccarat_sim.errors.ShoeError: remove: no K left to remove: 1 deck has 4
    """
    counts = as_shoe(shoe).copy()
    start = counts.copy()
    try:
        items = parse_cards(cards) if isinstance(cards, str) else list(cards)
    except ValueError as error:
        raise ShoeError("remove", str(error)) from None
    for kind, value in items:
        if kind == "card":
            rank, suit = divmod(value, N_SUITS)
            name, held = card_name(value), int(start[rank, suit])
        else:
            ranks = [value] if kind == "rank" else [r for r in range(N_RANKS) if RANK_POINTS[r] == value]
            rank = max(ranks, key=lambda r: (counts[r].sum(), -r))
            suit = int(np.argmax(counts[rank]))
            name = RANK_NAMES[value] if kind == "rank" else f"card worth {value}"
            held = int(sum(start[r].sum() for r in ranks))
        if counts[rank, suit] == 0:
            raise ShoeError("remove", f"no {name} left to remove: {describe_holder(start)} has {held}")
        counts[rank, suit] -= 1
    if counts.sum() < MIN_CARDS:
        raise ShoeError("remove", f"removing {len(items)} cards leaves {int(counts.sum())}; a round needs {MIN_CARDS}")
    return as_shoe(counts)


def describe_holder(composition: np.ndarray) -> str:
    """The shoe as the subject of a sentence: ``"1 deck"``, ``"8 decks"`` or ``"the shoe"``."""
    decks = deck_count(composition)
    return f"{decks} deck{'s' if decks != 1 else ''}" if decks else "the shoe"


def canonical_cards(composition: np.ndarray) -> np.ndarray:
    """The shoe's cards (``rank * 4 + suit``) in canonical order, ``ndarray(uint8)``.

    Every random stream starts from this order, so what a seed deals depends
    only on the composition.
    """
    return np.repeat(np.arange(N_RANKS * N_SUITS, dtype=np.uint8), np.asarray(composition).reshape(-1))
