"""A dealt shoe's start and end: the cut card, the shuffle of what can be dealt, the burn, when rounds stop.

Pure numba functions, no I/O. A dealt shoe is dealt by one loop, written
once with these functions and used by every kernel that deals one (the Monte
Carlo lanes through :func:`baccarat_sim.kernels.dealing.deal_rounds`, the
sessions and the counting kernel)::

    position, cut_index, stop, more, state = open_shoe(cards, state, shoe_params)
    while another_round(position, stop, more):
        prefix, suffix, used = round_at(cards, position, detail)
        ...  # count or settle the round
        position += used
        stop, more = after_round(position, stop, more, n_cards, cut_index, shoe_params)

The cut card is placed and the part of the shoe that can be dealt is
shuffled (:func:`start_shoe`); a card is turned and that many cards burned
(``shoe_params``, :func:`first_round_position`); rounds are dealt from the top
while six cards are left, until the round in which the cut card comes out,
plus the rule set's extra rounds after it (:func:`shoe_end`, :func:`another_round`,
:func:`after_round`). The worst-case round count of the dealt-shoe analysis
runs the same loop (:func:`rounds_in_every_shoe`); the plain-Python reference
dealer of the tests is written independently, as an oracle.
"""

from __future__ import annotations

import numpy as np

from ..model.cards import SUIT_BITS
from .encoding import POINT_BITS
from .jit import jit
from .rng import bounded, high32, next_u64
from .shuffle import shuffle_prefix

__all__ = ["CARDS_PER_ROUND", "N_SHOE_PARAMS", "after_round", "another_round", "dealable_cards", "first_round_position",
           "most_cards_before_first_round", "open_shoe", "pack_shoe_params", "rounds_in_every_shoe", "shoe_end",
           "start_shoe"]

#: Most cards a round can take: two per hand and a third card each.
CARDS_PER_ROUND = 6

# The shoe_params array: how a dealt shoe starts and ends (pack_shoe_params).
#: ``shoe_params[rank]``: cards burned after a card of that rank is turned.
SHOE_BURN = 0
#: ``shoe_params[SHOE_TURNED]``: 1 if the turned card is discarded too (0: it is the first burned card).
SHOE_TURNED = 13
#: ``shoe_params[SHOE_CUT_LOW]``, ``[SHOE_CUT_HIGH]``: the cut card's distance from the end of the shoe, drawn
#: uniformly from this closed range for every shoe.
SHOE_CUT_LOW = 14
SHOE_CUT_HIGH = 15
#: ``shoe_params[SHOE_AFTER_CUT]``: rounds dealt after the round in which the cut card comes out.
SHOE_AFTER_CUT = 16
#: Length of the ``shoe_params`` array.
N_SHOE_PARAMS = 17


def pack_shoe_params(burn_by_rank, discard_turned: bool, cut_low: int, cut_high: int,
                     rounds_after_cut: int) -> np.ndarray:
    """The ``shoe_params`` array the dealing functions read.

    Parameters
    ----------
    burn_by_rank : sequence of 13 int
        Cards burned after a card of each rank is turned (all 0: no burn).
    discard_turned : bool
        Whether the turned card is discarded too.
    cut_low, cut_high : int
        The cut card's distance from the end of the shoe (drawn uniformly per shoe).
    rounds_after_cut : int
        Rounds dealt after the round in which the cut card comes out.

    Returns
    -------
    ndarray(int64, shape=(N_SHOE_PARAMS,))
    """
    params = np.zeros(N_SHOE_PARAMS, np.int64)
    params[SHOE_BURN:SHOE_BURN + 13] = burn_by_rank
    params[SHOE_TURNED] = 1 if discard_turned else 0
    params[SHOE_CUT_LOW] = cut_low
    params[SHOE_CUT_HIGH] = cut_high
    params[SHOE_AFTER_CUT] = rounds_after_cut
    return params


@jit(inline="always")
def most_cards_before_first_round(shoe_params):
    """Most cards the turned card and the burn can take before the first round."""
    most = np.int64(0)
    for rank in range(13):
        most = max(most, shoe_params[SHOE_BURN + rank])
    return most + shoe_params[SHOE_TURNED]


@jit(inline="always")
def dealable_cards(n_cards, cut_index, shoe_params):
    """How many cards from the top a shoe can deal, at most: the part :func:`start_shoe` shuffles.

    The cut card's round starts at the cut card or, when the burn reaches past
    it, at the first card after the burn; it and every round after it take at
    most six cards.
    """
    start = max(cut_index, most_cards_before_first_round(shoe_params))
    return min(start + CARDS_PER_ROUND * (1 + shoe_params[SHOE_AFTER_CUT]), n_cards)


@jit
def start_shoe(cards, state, shoe_params):
    """Place the cut card and shuffle the part of ``cards`` that can be dealt.

    ``cards`` (encoded) may start in any order. The cut card's distance from
    the end is drawn uniformly from ``shoe_params[SHOE_CUT_LOW:SHOE_CUT_HIGH + 1]``;
    the shuffle covers every card a round can reach (:func:`dealable_cards`).

    Returns
    -------
    (int, state)
        The cut index (see :func:`~baccarat_sim.kernels.dealing.deal_through`) and the generator state.
    """
    n_cards = cards.shape[0]
    cut_low = shoe_params[SHOE_CUT_LOW]
    x, state = next_u64(state)
    spread, state = bounded(high32(x), shoe_params[SHOE_CUT_HIGH] - cut_low + 1, state)
    cut_index = n_cards - (cut_low + spread)
    state = shuffle_prefix(cards, dealable_cards(n_cards, cut_index, shoe_params), state)
    return cut_index, state


@jit(inline="always")
def first_round_position(cards, shoe_params):
    """Where the first round starts: past the turned card (when it is discarded) and the cards it burns.

    ``cards[0]`` is the card turned for the burn.
    """
    return shoe_params[SHOE_BURN + (cards[0] >> (POINT_BITS + SUIT_BITS))] + shoe_params[SHOE_TURNED]


@jit(inline="always")
def open_shoe(cards, state, shoe_params):
    """Start a dealt shoe: the cut card placed, the dealable part shuffled (:func:`start_shoe`), the burn done.

    Returns
    -------
    (int, int, int, int, state)
        ``(position, cut_index, stop, more, state)``: where the first round
        starts, the cut index, the shoe's end as :func:`shoe_end` gives it at
        the start, and the generator state, for :func:`another_round`,
        :func:`~baccarat_sim.kernels.round.round_at` and :func:`after_round`.
    """
    cut_index, state = start_shoe(cards, state, shoe_params)
    position = first_round_position(cards, shoe_params)
    stop, more = shoe_end(position, cards.shape[0], cut_index)
    return position, cut_index, stop, more, state


@jit(inline="always")
def shoe_end(first_position, n_cards, cut_index):
    """The end of a shoe whose first round starts at ``first_position``, as ``(stop, more)``.

    The shoe's end is the rule of when rounds stop, written once: a round is
    dealt from ``position`` while ``position <= stop`` and ``more != 0``
    (:func:`another_round`), and after each round :func:`after_round` gives
    the new ``(stop, more)``. Rounds are dealt while six cards are left, up to
    the round in which the cut card comes out (the cut card lies just before
    ``cards[cut_index]``: the round that deals that card, or that starts
    there, is the cut card's round), then the rule set's rounds after the cut.
    While the cut card is not out ``more`` is -1 and ``stop`` is the last
    position such a round may start at: six cards from the end, and not past
    the cut card, except for the first round, which is dealt even when the
    burn reached past it (and is then the cut card's round). So the rounds
    before the cut card is out cost one compare each (:func:`~baccarat_sim.kernels.dealing.deal_rounds`).
    """
    return min(max(cut_index, first_position), n_cards - CARDS_PER_ROUND), np.int64(-1)


@jit(inline="always")
def another_round(position, stop, more):
    """Whether a round is dealt from ``position`` in a shoe whose end is ``(stop, more)`` (:func:`shoe_end`)."""
    return position <= stop and more != 0


@jit(inline="always")
def after_round(position, stop, more, n_cards, cut_index, shoe_params):
    """The shoe's end ``(stop, more)`` after a round that ended at ``position`` (:func:`shoe_end`).

    Before the cut card is out (``more == -1``) nothing changes until
    ``position`` passes ``stop``: then either the cut card came out in the
    round (``position > cut_index``), and the rule set's rounds after the cut
    are left while six cards are, or fewer than six cards are left and the
    shoe has ended. After the cut card's round ``more`` counts those rounds
    down to 0, where the shoe has ended.
    """
    if more > 0:
        return stop, more - 1
    if more < 0 and position > stop:
        if position > cut_index:
            return n_cards - CARDS_PER_ROUND, shoe_params[SHOE_AFTER_CUT]
        return stop, np.int64(0)
    return stop, more


@jit
def rounds_in_every_shoe(n_cards, shoe_params):
    """The last round position every shoe deals, whatever its cards.

    The dealing loop run on the worst shoe: the burn takes its most cards,
    the cut card sits at its deepest, and every round takes six cards. Each
    of these only makes a shoe deal fewer rounds, so every shoe deals at
    least this many.

    Parameters
    ----------
    n_cards : int
        Cards in the shoe.
    shoe_params : ndarray(int64, shape=(N_SHOE_PARAMS,))
    """
    cut_index = n_cards - shoe_params[SHOE_CUT_HIGH]
    position = most_cards_before_first_round(shoe_params)
    rounds = 0
    stop, more = shoe_end(position, n_cards, cut_index)
    while another_round(position, stop, more):
        rounds += 1
        position += CARDS_PER_ROUND
        stop, more = after_round(position, stop, more, n_cards, cut_index, shoe_params)
    return rounds
