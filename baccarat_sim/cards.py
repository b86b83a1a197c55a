"""Cards, shoes and the rules of play (punto banco), shared by every engine.

A card is an integer ``rank * 4 + suit`` with ranks ``0..12`` for Ace, 2, ..., 10,
Jack, Queen, King (Ace low, King high, as the Dragon/Tiger bet compares them) and
suits ``0..3``. A shoe composition is an ``ndarray(int64, shape=(13, 4))`` of card
counts per rank and suit, so that single cards can be removed for
effect-of-removal and counting studies.

The drawing rules are the tableau printed identically in all five rule sheets
(``classic-6deck.txt``, ``live-8deck-side-bets.txt``, ...). They are kept here as
small constant tables that the numba kernels read as compile-time constants and
that the plain-Python reference dealer reads too.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "BANKER_DRAWS",
    "N_RANKS",
    "N_SUITS",
    "PLAYER_DRAWS",
    "RANK_NAMES",
    "RANK_POINTS",
    "SUIT_NAMES",
    "banker_draws",
    "card_point",
    "hand_score",
    "is_natural",
    "parse_cards",
    "player_draws",
    "shoe_composition",
]

N_RANKS = 13
N_SUITS = 4
RANK_NAMES = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUIT_NAMES = ("s", "h", "d", "c")

#: Point value of each rank: Ace 1, 2-9 face value, 10/J/Q/K 0.
RANK_POINTS = np.array([1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 0, 0, 0], dtype=np.int64)

#: ``PLAYER_DRAWS[t]``: the Player draws a third card on a two-card total ``t``
#: (0-5 draw, 6-7 stand; 8-9 are naturals and never reach this table).
PLAYER_DRAWS = np.array([1, 1, 1, 1, 1, 1, 0, 0, 0, 0], dtype=np.int64)

#: ``BANKER_DRAWS[t, k]``: the Banker, with two-card total ``t``, draws when
#: ``k = 0`` (the Player stood) or when ``k = 1 + p`` (the Player drew a third card
#: worth ``p`` points). Rows 8-9 are naturals and never reach this table.
BANKER_DRAWS = np.zeros((10, 11), dtype=np.int64)
BANKER_DRAWS[0:6, 0] = 1  # Player stood: Banker draws on 0-5
BANKER_DRAWS[0:3, 1:] = 1  # 0-2: always draws
BANKER_DRAWS[3, 1:] = 1
BANKER_DRAWS[3, 1 + 8] = 0  # 3: draws unless the Player's third card is 8
BANKER_DRAWS[4, [1 + p for p in range(2, 8)]] = 1  # 4: draws on 2-7
BANKER_DRAWS[5, [1 + p for p in range(4, 8)]] = 1  # 5: draws on 4-7
BANKER_DRAWS[6, [1 + 6, 1 + 7]] = 1  # 6: draws on 6-7
# 7: always stands
# numba reads these module-level arrays as compile-time constants: freeze them
# so that a stray write cannot make the Python rules differ from compiled ones.
for _table in (RANK_POINTS, PLAYER_DRAWS, BANKER_DRAWS):
    _table.setflags(write=False)


def card_point(card: int) -> int:
    """Point value of a card ``rank * 4 + suit``."""
    return int(RANK_POINTS[card // N_SUITS])


def hand_score(points) -> int:
    """Baccarat score of a hand: the sum of its point values modulo 10."""
    return int(sum(points)) % 10


def is_natural(two_card_total: int) -> bool:
    """Whether a two-card total is a natural (8 or 9)."""
    return two_card_total >= 8


def player_draws(player_total: int) -> bool:
    """Whether the Player draws a third card on a (non-natural) two-card total."""
    return bool(PLAYER_DRAWS[player_total])


def banker_draws(banker_total: int, player_third_point: int | None) -> bool:
    """Whether the Banker draws a third card.

    Parameters
    ----------
    banker_total : int
        The Banker's two-card total (0-7; naturals never draw).
    player_third_point : int or None
        Point value of the Player's third card, or None when the Player stood.
    """
    column = 0 if player_third_point is None else 1 + player_third_point
    return bool(BANKER_DRAWS[banker_total, column])


def shoe_composition(decks: int = 8) -> np.ndarray:
    """Card counts of a shoe of ``decks`` standard 52-card decks.

    Returns
    -------
    ndarray(int64, shape=(13, 4))
        Count per rank (Ace..King) and suit.
    """
    if isinstance(decks, bool) or not isinstance(decks, (int, np.integer)) or decks < 1:
        raise ValueError(f"decks: must be a whole number >= 1, got {decks!r}")
    return np.full((N_RANKS, N_SUITS), int(decks), dtype=np.int64)


_RANK_ALIASES = {name: i for i, name in enumerate(RANK_NAMES)}
_RANK_ALIASES.update({"T": 9, "1": 0, "11": 10, "12": 11, "13": 12})


def parse_cards(text: str) -> list[tuple[int, int | None]]:
    """Parse a comma-separated card list such as ``"6,6,7"`` or ``"K,As,0"``.

    A bare digit 0-9 names a *point value* (0 stands for any ten-value card);
    a rank name (``A 2 .. 10 J Q K``) names a rank; a rank followed by a suit
    letter (``s h d c``) names one exact card.

    Returns
    -------
    list of (kind, value)
        ``("point", p)``, ``("rank", r)`` or ``("card", rank * 4 + suit)``.
    """
    parsed = []
    for raw in text.split(","):
        token = raw.strip().upper()
        if not token:
            continue
        if token.isdigit() and len(token) == 1:
            parsed.append(("point", int(token)))
            continue
        if token in _RANK_ALIASES:
            parsed.append(("rank", _RANK_ALIASES[token]))
            continue
        rank, suit = token[:-1], token[-1].lower()
        if rank in _RANK_ALIASES and suit in SUIT_NAMES:
            parsed.append(("card", _RANK_ALIASES[rank] * N_SUITS + SUIT_NAMES.index(suit)))
            continue
        raise ValueError(
            f"cards: cannot read {raw.strip()!r}; use a point value 0-9, a rank "
            "A,2..10,J,Q,K, or a rank with a suit s/h/d/c such as 'Qh'"
        )
    return parsed
