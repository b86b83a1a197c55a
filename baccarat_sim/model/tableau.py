"""The drawing rules of punto banco (the tableau), shared by every engine.

The tableau is printed identically in all five rule sheets
(``classic-6deck.txt``, ``live-8deck-side-bets.txt``, ``rng-6deck-single-hand.txt``,
``live-8deck-dragon-tiger.txt``, ``online-commission-rounding.txt``): a hand of
8 or 9 on two cards is a natural and both hands stand; otherwise the Player
draws on 0-5 and stands on 6-7, and the Banker draws by its two-card total and
the Player's third card. The rules are kept as small constant tables and
functions, the one definition of them: :data:`THIRD_CARD_PREFIX` resolves a
whole round from them, and every engine reads it (the numba kernels as a
compile-time constant, through :mod:`baccarat_sim.kernels.outcome`; the
condition language's features and possible codes). The plain-Python reference
dealer of the tests is written independently, from the rule sheets, as an
oracle.
"""

from __future__ import annotations

import numpy as np

from .codes import prefix_of

__all__ = [
    "BANKER_DRAWS",
    "PLAYER_DRAWS",
    "THIRD_CARD_PREFIX",
    "banker_draws",
    "hand_score",
    "is_natural",
    "player_draws",
    "resolve_round",
    "third_card_index",
    "third_cards",
]

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


def hand_score(points) -> int:
    """Baccarat score of a hand: the sum of its point values modulo 10."""
    return int(sum(points)) % 10


def is_natural(two_card_total):
    """Whether a two-card total is a natural (8 or 9); scalars or numpy arrays (then elementwise)."""
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


def resolve_round(player_total: int, banker_total: int, next_point: int, point_after: int) -> tuple[int, int, int, int]:
    """The tableau applied to two-card totals and the points of the next two cards.

    Returns
    -------
    (int, int, int, int)
        Player's and Banker's final scores, and whether each drew (0/1). The
        Player's third card is the next card; the Banker's is the card after it
        when the Player drew, the next card when the Player stood.
    """
    p, b = player_total, banker_total
    if is_natural(p) or is_natural(b):
        return p, b, 0, 0
    if player_draws(p):
        p_final, third_point, banker_card, player_drew = (p + next_point) % 10, next_point, point_after, 1
    else:
        p_final, third_point, banker_card, player_drew = p, None, next_point, 0
    if banker_draws(b, third_point):
        return p_final, (b + banker_card) % 10, player_drew, 1
    return p_final, b, player_drew, 0


def third_cards(player_drew, banker_drew, next_card, card_after, no_card):
    """The third cards ``(Player's, Banker's)`` of a round: whether each hand drew (0/1) and the next two cards.

    As :func:`resolve_round` deals them: the Player's third card is the next
    card; the Banker's is the card after it when the Player drew, the next
    card when the Player stood; a hand that stood gets ``no_card``. Written
    as arithmetic, not branches: the kernels work it out for every round,
    where whether a hand draws is a coin toss to the branch predictor.
    """
    player_third = no_card + player_drew * (next_card - no_card)
    banker_third = no_card + banker_drew * (next_card + player_drew * (card_after - next_card) - no_card)
    return player_third, banker_third


def third_card_index(player_total, banker_total, next_point, point_after):
    """Where :data:`THIRD_CARD_PREFIX` holds the round of these two-card totals and next two points."""
    return ((player_total * 10 + banker_total) * 10 + next_point) * 10 + point_after


def _third_card_prefix() -> np.ndarray:
    # The round's outcome-code prefix (scores and card counts, codes.prefix_of) for
    # every (player total, banker total, point of the next card, point of the card
    # after): one lookup replaces three hard-to-predict branches per round in the
    # kernels, and the exact kernels read the third-card stage off it.
    table = np.zeros(10**4, np.int64)
    for p, b, next_point, point_after in np.ndindex(10, 10, 10, 10):
        table[third_card_index(p, b, next_point, point_after)] = prefix_of(*resolve_round(p, b, next_point,
                                                                                         point_after))
    return table


#: Outcome-code prefix (:func:`baccarat_sim.model.codes.prefix_of`) of a round by
#: (player total, banker total, next point, point after) at :func:`third_card_index`:
#: ``ndarray(int64, shape=(10000,))``. Which cards the round uses follows from
#: the prefix (:func:`baccarat_sim.model.codes.cards_used_of`): the next card
#: when a hand drew, the card after it when both did.
THIRD_CARD_PREFIX = _third_card_prefix()
for _table in (PLAYER_DRAWS, BANKER_DRAWS, THIRD_CARD_PREFIX):
    # numba reads module-level arrays as compile-time constants: freeze them so
    # that a stray write cannot make the Python rules differ from compiled ones.
    _table.setflags(write=False)
