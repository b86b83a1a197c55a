"""Logged rounds resolved by the model's tableau: each round's outcome code and whether its draws were legal.

A card-reading shoe logs the cards of every round in dealing order: P1, B1, P2, B2, then the Player's and the
Banker's third cards (-1 where a hand stood). Here they are read as the model reads a round, vectorised over
millions of rounds: the two-card totals, whether each hand *should* have drawn
(:data:`~baccarat_sim.model.tableau.PLAYER_DRAWS`, :data:`~baccarat_sim.model.tableau.BANKER_DRAWS`, the one
tableau) and the outcome code of the cards as dealt (:mod:`baccarat_sim.model.codes`), by which every bet is
settled. A round whose third cards differ from what the tableau draws is a misdeal.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from ..model import codes
from ..model.cards import RANK_POINTS, SUIT_BITS
from ..model.tableau import BANKER_DRAWS, PLAYER_DRAWS, is_natural

__all__ = ["CARD_COLUMNS", "ResolvedRounds", "resolve_rounds"]

#: The card columns of a round log, in dealing order.
CARD_COLUMNS = ("p1", "b1", "p2", "b2", "p3", "b3")
#: Point value of each rank, in the small integers the resolution works in.
_POINTS16 = RANK_POINTS.astype(np.int16)
#: What a misdeal code says, by bit: 1 the Player's third card, 2 the Banker's.
MISDEAL_PARTS = {1: "Player", 2: "Banker"}


@dataclasses.dataclass(frozen=True)
class ResolvedRounds:
    """Logged rounds as the tableau reads them.

    Attributes
    ----------
    code : ndarray(int64, shape=(n,))
        Outcome code of the cards as dealt (:mod:`baccarat_sim.model.codes`).
    misdeal : ndarray(int8, shape=(n,))
        0 a legal round; bit 1: the Player's third card is wrong (dealt when the tableau stands, or missing when it
        draws), bit 2: the Banker's.
    player_should_draw, banker_should_draw : ndarray(bool, shape=(n,))
        What the tableau does with the cards dealt.
    cards_used : ndarray(int64, shape=(n,))
        Cards the round took from the shoe as logged (4-6).
    """

    code: np.ndarray
    misdeal: np.ndarray
    player_should_draw: np.ndarray
    banker_should_draw: np.ndarray
    cards_used: np.ndarray


def resolve_rounds(cards: np.ndarray) -> ResolvedRounds:
    """Resolve logged rounds.

    Parameters
    ----------
    cards : ndarray(int, shape=(n, 6))
        Card ids (``rank * 4 + suit``) in :data:`CARD_COLUMNS` order, -1 where no third card was dealt.

    Examples
    --------
    >>> # Player 9-K (a natural 9) against Banker 5-A (6): both stand, and a Banker third card is a misdeal.
    >>> r = resolve_rounds(np.array([[32, 16, 48, 0, -1, -1], [32, 16, 48, 0, -1, 8]]))
    >>> r.misdeal.tolist(), codes.decode(r.code)["player_score"].tolist()
    ([0, 2], [9, 9])
    """
    # Column by column, in small integers: the six cards of a round are six contiguous arrays.
    column = np.ascontiguousarray(np.asarray(cards).T, dtype=np.int16)
    dealt = column >= 0
    rank = np.where(dealt, column >> SUIT_BITS, 0)
    point = np.where(dealt, _POINTS16[rank], 0)
    player_two = (point[0] + point[2]) % 10
    banker_two = (point[1] + point[3]) % 10
    natural = is_natural(player_two) | is_natural(banker_two)
    player_should = ~natural & (PLAYER_DRAWS[player_two] == 1)
    # The Banker's rule reads the Player's third card as the tableau would have dealt it: the logged one.
    player_has, banker_has = dealt[4], dealt[5]
    banker_should = ~natural & (BANKER_DRAWS[banker_two, np.where(player_has, 1 + point[4], 0)] == 1)
    misdeal = (player_has != player_should).astype(np.int8) | ((banker_has != banker_should).astype(np.int8) << 1)
    prefix = codes.prefix_of((player_two + point[4]) % 10, (banker_two + point[5]) % 10, player_has.astype(np.int16),
                             banker_has.astype(np.int16))
    player_pair = codes.pair_status(rank[0] == rank[2], column[0] == column[2])
    banker_pair = codes.pair_status(rank[1] == rank[3], column[1] == column[3])
    first = codes.first_card_status(rank[0], rank[1], column[0] == column[1])
    code = codes.code_of(prefix.astype(np.int64), codes.suffix_of(player_pair, banker_pair, first))
    return ResolvedRounds(code, misdeal, player_should, banker_should,
                          4 + player_has.astype(np.int64) + banker_has.astype(np.int64))
