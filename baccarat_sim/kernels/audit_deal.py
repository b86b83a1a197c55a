"""Dealing shoes into round logs: every card of every round, as a card-reading shoe records them.

The audit's simulated month (:mod:`baccarat_sim.engines.audit_logs`) needs the cards of each round, not a
histogram. This kernel deals whole shoes with the one dealing procedure of the Monte Carlo lanes
(:func:`~baccarat_sim.kernels.shoe.open_shoe`, :func:`~baccarat_sim.kernels.round.round_at`,
:func:`~baccarat_sim.kernels.shoe.another_round`, :func:`~baccarat_sim.kernels.shoe.after_round`): the cut
card placed, the shoe shuffled, a card turned and the burn taken, rounds dealt to the cut card and the rule set's
rounds after it. Shoe ``k`` of master ``seed`` is dealt from its own generator
(:func:`~baccarat_sim.kernels.rng.block_state` of block ``k``), so a shoe's cards do not depend on how many shoes a
call deals.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .detail import NO_CARD
from .encoding import POINT_BITS
from .jit import jit
from .outcome import banker_drew_of, player_drew_of, third_cards
from .rng import STREAM_DEAL, block_state
from .round import round_at
from .shoe import after_round, another_round, open_shoe

__all__ = ["LOG_CARDS", "ShoeLogs", "deal_logged_shoes"]

#: Card columns of a logged round, in dealing order: P1, B1, P2, B2, then the Player's and Banker's third cards.
LOG_CARDS = 6


class ShoeLogs(NamedTuple):
    """What :func:`deal_logged_shoes` fills (``n`` shoes of at most ``m`` rounds).

    Attributes
    ----------
    cards : ndarray(int8, shape=(n, m, 6))
        Card ids (``rank * 4 + suit``) of each round: P1, B1, P2, B2, P3, B3; -1 where a hand stood.
    rounds : ndarray(int64, shape=(n,))
        Rounds dealt in each shoe.
    turned : ndarray(int8, shape=(n,))
        The card turned to set the burn (the shoe's first card).
    burned : ndarray(int64, shape=(n,))
        Cards taken before the first round (the turned card included when the rule set discards it).
    cut : ndarray(int64, shape=(n,))
        Where the cut card was placed, in cards from the end of the shoe.
    """

    cards: np.ndarray
    rounds: np.ndarray
    turned: np.ndarray
    burned: np.ndarray
    cut: np.ndarray


@jit
def deal_logged_shoes(seed, first_shoe, encoded_shoe, shoe_params, cards, rounds, turned, burned, cut):
    """Deal shoes ``first_shoe .. first_shoe + len(rounds) - 1`` of ``seed`` into the arrays of :class:`ShoeLogs`.

    ``encoded_shoe``: the shoe's cards encoded (:func:`~baccarat_sim.kernels.encoding.encode_cards`), in any
    order. Rounds past ``cards.shape[1]`` are dealt but not recorded (the caller sizes the arrays by
    :func:`~baccarat_sim.kernels.shoe.rounds_in_every_shoe` and the shoe's size).
    """
    shoe = encoded_shoe.copy()
    n_cards = shoe.shape[0]
    most = cards.shape[1]
    for s in range(rounds.shape[0]):
        # Every shoe is shuffled from the same order: its cards are its generator's alone, whichever shoe a call
        # starts at (a shuffle of the last shoe's order would tie each shoe to the one before it).
        shoe[:] = encoded_shoe
        state = block_state(seed, first_shoe + s, STREAM_DEAL, 0)
        position, cut_index, stop, more, state = open_shoe(shoe, state, shoe_params)
        turned[s] = shoe[0] >> POINT_BITS
        burned[s] = position
        cut[s] = n_cards - cut_index
        r = 0
        while another_round(position, stop, more):
            prefix, suffix, used = round_at(shoe, position, None)
            if r < most:
                for k in range(4):
                    cards[s, r, k] = shoe[position + k] >> POINT_BITS
                p3, b3 = third_cards(player_drew_of(prefix), banker_drew_of(prefix),
                                     shoe[position + 4] >> POINT_BITS, shoe[position + 5] >> POINT_BITS, NO_CARD)
                cards[s, r, 4] = -1 if p3 == NO_CARD else p3
                cards[s, r, 5] = -1 if b3 == NO_CARD else b3
            r += 1
            position += used
            stop, more = after_round(position, stop, more, n_cards, cut_index, shoe_params)
        rounds[s] = r
