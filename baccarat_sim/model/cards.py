"""Cards: ranks, suits, point values and how a user names them.

A card is an integer ``rank * 4 + suit`` with ranks ``0..12`` for Ace, 2, ..., 10,
Jack, Queen, King (Ace low, King high, as the Dragon/Tiger bet compares them) and
suits ``0..3`` for spades, hearts, diamonds and clubs (hearts and diamonds are
red). Point values follow every rule sheet: Ace 1, 2-9 their face value, 10 and
the face cards 0.

The names a user writes for ranks, suits and colours are defined here once
(:data:`RANK_NAMES` with :data:`RANK_BY_NAME`, :data:`SUIT_NAMES`,
:data:`SUIT_WORDS`, :data:`COLOUR_WORDS`, :data:`SUIT_COLOURS`); rule files,
strategy files and leak groupings read them from here.
"""

from __future__ import annotations

from types import MappingProxyType

import numpy as np

__all__ = [
    "CARDS_OF_VALUE",
    "COLOUR_WORDS",
    "N_CARDS_OF_VALUE",
    "N_CARD_IDS",
    "N_RANKS",
    "N_SUITS",
    "RANK_BY_NAME",
    "RANK_NAMES",
    "RANK_POINTS",
    "RANK_WORDS",
    "SUIT_BITS",
    "SUIT_COLOURS",
    "SUITS_OF_COLOUR",
    "SUIT_NAMES",
    "SUIT_WORDS",
    "card_name",
    "card_point",
    "parse_cards",
]

N_RANKS = 13
#: Bits of a card id that hold its suit: ``card >> SUIT_BITS`` is its rank (the kernels' form of ``card // 4``).
SUIT_BITS = 2
N_SUITS = 1 << SUIT_BITS
#: Distinct cards of a standard deck (``rank * 4 + suit``).
N_CARD_IDS = N_RANKS * N_SUITS
#: Ranks as a card is written (``"Qh"``), Ace low to King high.
RANK_NAMES = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
#: Rank of each name a user may write for one: :data:`RANK_NAMES`, and ``T`` for 10.
RANK_BY_NAME = MappingProxyType({**{name: rank for rank, name in enumerate(RANK_NAMES)}, "T": 9})
#: Ranks a condition may also name by a word.
RANK_WORDS = MappingProxyType({"ace": 0, "jack": 10, "queen": 11, "king": 12})
#: Suits as a card is written (``"Qh"``), by suit index.
SUIT_NAMES = ("s", "h", "d", "c")
#: Suits as a rule or strategy file names them, by suit index.
SUIT_WORDS = ("spades", "hearts", "diamonds", "clubs")
#: Colours by colour index: black 0, red 1.
COLOUR_WORDS = ("black", "red")
#: Colour index of each suit: hearts and diamonds are red.
SUIT_COLOURS = (0, 1, 1, 0)
#: Suits of each colour, by colour word.
SUITS_OF_COLOUR = MappingProxyType({word: tuple(s for s in range(N_SUITS) if SUIT_COLOURS[s] == colour)
                                    for colour, word in enumerate(COLOUR_WORDS)})

#: Point value of each rank: Ace 1, 2-9 face value, 10/J/Q/K 0.
RANK_POINTS = np.array([1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 0, 0, 0], dtype=np.int64)
# numba reads this module-level array as a compile-time constant: freeze it so
# that a stray write cannot make the Python rules differ from compiled ones.
RANK_POINTS.setflags(write=False)


def _cards_by_value() -> tuple[np.ndarray, np.ndarray]:
    cards = np.zeros((10, 16), np.int64)
    count = np.zeros(10, np.int64)
    for card in range(N_CARD_IDS):
        value = RANK_POINTS[card // N_SUITS]
        cards[value, count[value]] = card
        count[value] += 1
    for table in (cards, count):
        table.setflags(write=False)
    return cards, count


#: ``CARDS_OF_VALUE[v, :N_CARDS_OF_VALUE[v]]``: the card ids worth ``v`` points (16 for 0, 4 for the others).
CARDS_OF_VALUE, N_CARDS_OF_VALUE = _cards_by_value()


def card_point(card: int) -> int:
    """Point value of a card ``rank * 4 + suit``."""
    return int(RANK_POINTS[card // N_SUITS])


def card_name(card: int) -> str:
    """A card as people write it: ``"Qh"`` for the Queen of hearts."""
    rank, suit = divmod(int(card), N_SUITS)
    return f"{RANK_NAMES[rank]}{SUIT_NAMES[suit]}"


def parse_cards(text: str) -> list[tuple[str, int]]:
    """Parse a comma-separated card list such as ``"6,6,7"`` or ``"K,Qh,0"``.

    A bare digit 0-9 names a *point value* (0 stands for any ten-value card);
    a rank name (``A 2 .. 10 J Q K``, or ``T`` for 10) names a rank; a rank
    followed by a suit letter (``s h d c``) names one exact card.

    Returns
    -------
    list of (kind, value)
        ``("point", p)``, ``("rank", r)`` or ``("card", rank * 4 + suit)``.

    Raises
    ------
    ValueError
        One line naming the item that cannot be read (an empty item included).

    Examples
    --------
    >>> parse_cards("6, K, Qh")
    [('point', 6), ('rank', 12), ('card', 45)]
    """
    parsed = []
    for raw in text.split(","):
        token = raw.strip().upper()
        if not token:
            raise ValueError(f"empty item in {text!r}; give cards separated by single commas, e.g. 6,6,K")
        if token.isdigit() and len(token) == 1:
            parsed.append(("point", int(token)))
            continue
        if token in RANK_BY_NAME:
            parsed.append(("rank", RANK_BY_NAME[token]))
            continue
        rank, suit = token[:-1], token[-1].lower()
        if rank in RANK_BY_NAME and suit in SUIT_NAMES:
            parsed.append(("card", RANK_BY_NAME[rank] * N_SUITS + SUIT_NAMES.index(suit)))
            continue
        raise ValueError(
            f"cannot read {raw.strip()!r}; use a point value 0-9, a rank A,2..10,J,Q,K (T for 10), "
            "or a rank with a suit s/h/d/c such as 'Qh'"
        )
    return parsed
