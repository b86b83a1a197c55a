"""How a log may spell a card: ``Kh``, ``K♥``, ``13H``, ``Th``, ``10h``, in any case.

A spelling is a rank and a suit. The rank: a name of :data:`~baccarat_sim.model.cards.RANK_NAMES` (``T`` for
10, from :data:`~baccarat_sim.model.cards.RANK_BY_NAME`) or a number 1-13 (Ace 1, Jack 11, Queen 12, King 13).
The suit: a letter of :data:`~baccarat_sim.model.cards.SUIT_NAMES` or a suit symbol, black or white
(``♠♥♦♣``, ``♤♡♢♧``). :data:`SPELLINGS` lists every accepted spelling, upper-cased, with its card id; the
import reads a log's cards inside the database from :data:`RANK_SPELLINGS` (all but the last character) and
:data:`SUIT_SPELLINGS` (the last), so no card is parsed in a Python loop.
"""

from __future__ import annotations

from types import MappingProxyType

from ..model.cards import N_SUITS, RANK_BY_NAME, SUIT_NAMES

__all__ = ["ALLOWED", "RANK_SPELLINGS", "SPELLINGS", "SUIT_SPELLINGS", "parse_card"]

#: Symbols of each suit (by suit index: spades, hearts, diamonds, clubs), black and white forms.
SUIT_SYMBOLS = (("♠", "♤"), ("♥", "♡"), ("♦", "♢"), ("♣", "♧"))
#: What a card column allows, as the import's messages say it.
ALLOWED = "a card such as Kh, K♥ or 13H (rank A,2-10,J,Q,K, T for 10, or 1-13; suit s/h/d/c or ♠♥♦♣)"


#: How a rank may be spelled (upper-cased), to its rank (0 the Ace).
RANK_SPELLINGS = MappingProxyType({**{name.upper(): rank for name, rank in RANK_BY_NAME.items()},
                                   **{str(number): number - 1 for number in range(1, 14)}})
#: How a suit may be spelled (upper-cased), to its suit index: the last character of a card.
SUIT_SPELLINGS = MappingProxyType({text: suit for suit in range(N_SUITS)
                                   for text in (SUIT_NAMES[suit].upper(), *SUIT_SYMBOLS[suit])})
#: Every accepted spelling, upper-cased and stripped, to its card id ``rank * 4 + suit``.
SPELLINGS = MappingProxyType({rank_text + suit_text: rank * N_SUITS + suit
                              for rank_text, rank in RANK_SPELLINGS.items()
                              for suit_text, suit in SUIT_SPELLINGS.items()})


def parse_card(text: str) -> int:
    """The card id of one spelling.

    Raises
    ------
    ValueError
        One line saying what is allowed.

    Examples
    --------
    >>> parse_card("Kh"), parse_card("K♥"), parse_card("13H"), parse_card("10d"), parse_card("td")
    (49, 49, 49, 38, 38)
    """
    card = SPELLINGS.get(str(text).strip().upper())
    if card is None:
        raise ValueError(f"cannot read {text!r} as a card; use {ALLOWED}")
    return card
