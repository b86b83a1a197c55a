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
suffix``: the *prefix* (scores and card counts, :data:`N_PREFIXES` values)
depends on the point values of the cards only, the *suffix* (pairs and the
first-card comparison, :data:`N_SUFFIXES` values) on the ranks and suits of
the first four cards only. The kernels work on the two halves.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = [
    "FIELDS",
    "N_CODES",
    "N_PREFIXES",
    "N_SUFFIXES",
    "decode",
    "encode",
    "field_grid",
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
N_CODES = int(np.prod([size for _, size in FIELDS]))
#: Values of the code's prefix: scores (10 x 10) and card counts (2 x 2).
N_PREFIXES = 400
#: Values of the code's suffix: player_pair (3) x banker_pair (3) x first_card (4).
N_SUFFIXES = 36
assert N_PREFIXES * N_SUFFIXES == N_CODES  # the kernels split codes this way


def encode(player_score, banker_score, player_cards, banker_cards, player_pair, banker_pair, first_card):
    """Outcome code of a round (works on scalars and on numpy arrays).

    ``player_cards``/``banker_cards`` are 0 for a two-card hand and 1 for three.
    """
    code = player_score
    for value, (_, size) in zip(
        (banker_score, player_cards, banker_cards, player_pair, banker_pair, first_card), FIELDS[1:]
    ):
        code = code * size + value
    return code


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
