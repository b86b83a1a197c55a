"""The outcome code space: one integer per round carries everything a bet reads.

=============  ======  =====================================================
field          values  meaning
=============  ======  =====================================================
player_score   0-9     the Player's final score
banker_score   0-9     the Banker's final score
player_cards   0-1     0: two cards, 1: three cards
banker_cards   0-1     0: two cards, 1: three cards
player_pair    0-2     first two Player cards: 0 no pair, 1 pair, 2 suited pair
banker_pair    0-2     first two Banker cards: 0 no pair, 1 pair, 2 suited pair
first_card     0-3     Player's first card vs Banker's first card by rank (Ace
                       low, King high): 0 Player higher, 1 Banker higher,
                       2 equal rank, 3 equal rank and suit
=============  ======  =====================================================

``code = ((((((ps * 10 + bs) * 2 + pc) * 2 + bc) * 3 + pp) * 3 + bp) * 4 + fc)``,
so there are :data:`N_CODES` = 14,400 codes. A hand with two cards and a score of
8 or 9 is exactly a natural, so naturals need no field of their own.

The code splits where the information splits, ``code = prefix * N_SUFFIXES +
suffix`` (:func:`code_of`): the *prefix* (scores and card counts,
:data:`N_PREFIXES` values, :func:`prefix_of`) depends on the point values of
the cards only, the *suffix* (pairs and the first-card comparison,
:data:`N_SUFFIXES` values, :func:`suffix_of`, :func:`pair_status`,
:func:`first_card_status`) on the ranks and suits of the first four cards only.
The kernels work on the two halves.

The functions here are the one definition of that arithmetic. They are plain
integer arithmetic on scalars or numpy arrays, with no call to another
function, so the kernels compile these same functions
(:mod:`baccarat_sim.kernels.outcome`) and inline them.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = [
    "FIELDS",
    "N_CODES",
    "N_PREFIXES",
    "N_SUFFIXES",
    "banker_drew_of",
    "cards_used_of",
    "code_of",
    "decode",
    "encode",
    "field_grid",
    "first_card_status",
    "pair_status",
    "player_drew_of",
    "prefix_of",
    "suffix_of",
]

#: (name, number of values) of each field, most significant first.
FIELDS: tuple[tuple[str, int], ...] = (
    ("player_score", 10),
    ("banker_score", 10),
    ("player_cards", 2),
    ("banker_cards", 2),
    ("player_pair", 3),
    ("banker_pair", 3),
    ("first_card", 4),
)
#: Fields of the code's prefix (scores and card counts); the rest form its suffix.
_PREFIX_FIELDS = 4
#: Values of the code's prefix: scores (10 x 10) and card counts (2 x 2).
N_PREFIXES = int(np.prod([size for _, size in FIELDS[:_PREFIX_FIELDS]]))
#: Values of the code's suffix: player_pair (3) x banker_pair (3) x first_card (4).
N_SUFFIXES = int(np.prod([size for _, size in FIELDS[_PREFIX_FIELDS:]]))
N_CODES = N_PREFIXES * N_SUFFIXES


def prefix_of(player_score, banker_score, player_drew, banker_drew):
    """The code's prefix: final scores and whether each hand drew a third card (0/1).

    ``((player_score * 10 + banker_score) * 2 + player_drew) * 2 + banker_drew``:
    the two low bits say whether the Player (bit 1) and the Banker (bit 0) drew
    (:func:`player_drew_of`, :func:`banker_drew_of`).
    """
    return ((player_score * 10 + banker_score) * 2 + player_drew) * 2 + banker_drew


def player_drew_of(prefix):
    """Whether the Player drew a third card (0/1), read from a prefix (:func:`prefix_of`)."""
    return (prefix >> 1) & 1


def banker_drew_of(prefix):
    """Whether the Banker drew a third card (0/1), read from a prefix (:func:`prefix_of`)."""
    return prefix & 1


def cards_used_of(prefix):
    """Cards a round with this prefix takes from the shoe: four, and each hand's third card (4-6)."""
    return 4 + ((prefix >> 1) & 1) + (prefix & 1)


def pair_status(same_rank, same_card):
    """A hand's first two cards: 0 no pair, 1 a pair (equal rank), 2 a suited pair (equal rank and suit).

    ``same_rank``, ``same_card``: whether the two cards have equal rank, and
    equal rank and suit (booleans or 0/1; ``same_card`` implies ``same_rank``).
    """
    return np.int64(same_rank) + np.int64(same_card)


def first_card_status(player_rank, banker_rank, same_card):
    """The Player's first card against the Banker's, by rank (Ace low, King high).

    0 Player higher, 1 Banker higher, 2 equal rank, 3 equal rank and suit
    (``same_card``: the two cards are equal in rank and suit).
    """
    return np.int64(player_rank < banker_rank) + 2 * np.int64(player_rank == banker_rank) + np.int64(same_card)


def suffix_of(player_pair, banker_pair, first_card):
    """The code's suffix: ``(player_pair * 3 + banker_pair) * 4 + first_card``."""
    return (player_pair * 3 + banker_pair) * 4 + first_card


def code_of(prefix, suffix):
    """The outcome code of a prefix and a suffix: ``prefix * N_SUFFIXES + suffix``."""
    return prefix * N_SUFFIXES + suffix


def encode(player_score, banker_score, player_cards, banker_cards, player_pair, banker_pair, first_card):
    """Outcome code of a round (works on scalars and on numpy arrays).

    ``player_cards``/``banker_cards`` are 0 for a two-card hand and 1 for three.
    """
    return code_of(prefix_of(player_score, banker_score, player_cards, banker_cards),
                   suffix_of(player_pair, banker_pair, first_card))


def decode(code) -> dict[str, Any]:
    """Fields of an outcome code (scalar or array), inverse of :func:`encode`."""
    fields = {}
    rest = np.asarray(code)
    for name, size in reversed(FIELDS):
        fields[name] = rest % size
        rest = rest // size
    return {name: fields[name] for name, _ in FIELDS}


def field_grid() -> dict[str, np.ndarray]:
    """Every field evaluated over the whole code space.

    Returns
    -------
    dict of str to ndarray(int64, shape=(N_CODES,))
        ``grid[name][code]`` is the value of field ``name`` in outcome ``code``.
    """
    return decode(np.arange(N_CODES, dtype=np.int64))
