"""Exact engine: the outcome histogram of a freshly shuffled shoe, in integers."""

from __future__ import annotations

import numpy as np

from ._exact_kernel import exact_counts
from .cards import N_RANKS, N_SUITS, RANK_POINTS, parse_cards, shoe_composition
from .outcomes import N_CODES, OutcomeHistogram

__all__ = ["MAX_CARDS", "as_shoe", "exact_histogram", "remove_cards"]

#: Largest shoe whose six-card orderings ``N (N-1) ... (N-5)`` fit in a signed
#: 64-bit integer (1450 cards, 27 decks and then some); every weight and partial
#: sum of the exact kernel is at most that total, so none can overflow.
MAX_CARDS = 1450


def as_shoe(shoe) -> np.ndarray:
    """Normalise a shoe given as a deck count or a (13, 4) count array.

    Raises
    ------
    ValueError
        With the field name and the allowed values when the shoe is not usable.
    """
    if isinstance(shoe, (int, np.integer)) and not isinstance(shoe, bool):
        if not 1 <= shoe <= 16:
            raise ValueError(f"decks: must be a whole number from 1 to 16, got {shoe}")
        return shoe_composition(int(shoe))
    array = np.asarray(shoe)
    if array.shape == (N_RANKS,):  # counts per rank: spread evenly over suits is not
        raise ValueError("shoe: give counts per rank and suit, shape (13, 4)")
    if array.shape != (N_RANKS, N_SUITS) or array.dtype.kind not in "iu":
        raise ValueError(f"shoe: must be integer counts of shape (13, 4), got {array.dtype} {array.shape}")
    if (array < 0).any():
        raise ValueError("shoe: card counts must be >= 0")
    total = int(array.sum())
    if not 6 <= total <= MAX_CARDS:
        raise ValueError(f"shoe: must hold 6 to {MAX_CARDS} cards, got {total}")
    # A fresh C-contiguous copy: the caller's array is never aliased, and a
    # strided view (``shoe[:, perm]``) would make numba compile a second kernel.
    return np.array(array, dtype=np.int64, order="C")


def remove_cards(shoe, cards: str | list) -> np.ndarray:
    """A copy of ``shoe`` with cards removed.

    Parameters
    ----------
    shoe : int or ndarray(int64, shape=(13, 4))
        Deck count or composition.
    cards : str or list
        As read by :func:`baccarat_sim.cards.parse_cards` (``"6,6,7"``: point
        values; ``"K,Q"``: ranks; ``"Qh"``: one exact card). A point value or a
        rank is removed from the suit (and, for point value 0, the ten-value rank)
        that has the most cards left, which keeps the shoe as even as possible.
    """
    counts = as_shoe(shoe).copy()
    items = parse_cards(cards) if isinstance(cards, str) else list(cards)
    for kind, value in items:
        if kind == "card":
            rank, suit = divmod(value, N_SUITS)
        else:
            ranks = [value] if kind == "rank" else [r for r in range(N_RANKS) if RANK_POINTS[r] == value]
            rank = max(ranks, key=lambda r: (counts[r].sum(), -r))
            suit = int(np.argmax(counts[rank]))
        if counts[rank, suit] == 0:
            raise ValueError(f"cards: no card left to remove for {kind} {value}")
        counts[rank, suit] -= 1
    return as_shoe(counts)


def exact_histogram(shoe=8) -> OutcomeHistogram:
    """Exact outcome histogram of one round from a freshly shuffled shoe.

    Parameters
    ----------
    shoe : int or ndarray(int64, shape=(13, 4)), default 8
        Number of standard decks (1 to 16), or the count of every rank and suit.

    Returns
    -------
    OutcomeHistogram
        ``counts[code]`` is the number of ordered six-card sequences that give
        ``code``; they total ``N (N-1) (N-2) (N-3) (N-4) (N-5)``.

    Examples
    --------
    >>> h = exact_histogram(8)
    >>> h.total == 416 * 415 * 414 * 413 * 412 * 411
    True
    """
    composition = as_shoe(shoe)
    counts = np.zeros(N_CODES, np.int64)
    exact_counts(composition, counts)
    return OutcomeHistogram(
        counts=counts,
        engine="exact",
        model="exact",
        shoe=composition,
        rounds=int(counts.sum()),
        meta={"decks": _deck_count(composition)},
    )


def _deck_count(composition: np.ndarray) -> int | None:
    """The number of standard decks, or None for any other composition."""
    first = int(composition[0, 0])
    return first if (composition == first).all() else None
