"""The dealing loop of a dealt shoe: its rounds counted, round by round, into a lane's rows.

Pure numba functions, no I/O. The shoe is opened, and its end decided, by
:mod:`baccarat_sim.kernels.shoe`; each round is read by
:func:`baccarat_sim.kernels.round.round_at` (:func:`~baccarat_sim.kernels.round.cards_at`
and :func:`~baccarat_sim.kernels.round.round_parts`). A round is counted in
the row of its position in the shoe, by code, by slot
(:mod:`baccarat_sim.kernels.slots`) or by card-detail cell; with a factored
card detail its groups' cells go through a batch
(:func:`baccarat_sim.kernels.detail.count_batch`).
"""

from __future__ import annotations

import numpy as np

from .counters import count_slot_carrying
from .detail import BATCH_ROUNDS, batch_cells, count_batch
from .jit import jit
from .round import batch_round, cards_at, round_at, round_parts
from .shoe import after_round, another_round, first_round_position, shoe_end, start_shoe
from .slots import cell

__all__ = ["deal_rounds", "deal_rounds_groups", "deal_shoe", "deal_through"]


@jit
def deal_rounds(cards, cut_index, shoe_params, counts, slots, detail, carry=None, carried=None):
    """The dealing loop of :func:`deal_through`: each round added to ``counts`` as documented there.

    ``carry``: int64 rows in code order that take 256 whenever a uint8 counter of ``counts`` wraps (None: no wrap);
    ``carried`` (int64, by code) takes the same 256 beside them, so that it always holds ``carry``'s rows summed.
    """
    if detail is not None and slots:  # pruned where there is no card detail
        raise ValueError("internal error: slot order numbers plain prefixes; card detail counts in code order")
    n_cards = cards.shape[0]
    last_row = counts.shape[0] - 1
    position = first_round_position(cards, shoe_params)
    rounds = 0
    stop, more = shoe_end(position, n_cards, cut_index)
    # The loop of another_round and after_round in two parts. Until the cut card is out `more` is -1 and
    # after_round changes nothing while position <= stop: one compare a round. After it, after_round counts `more`
    # down. (Faster than testing the rounds after the cut every round: docs/benchmarks.md, "Kernel design
    # measurements".)
    while position <= stop:
        position, rounds = _count_dealt_round(cards, position, rounds, last_row, counts, slots, detail, carry, carried)
    stop, more = after_round(position, stop, more, n_cards, cut_index, shoe_params)
    while position <= stop and more > 0:  # the rounds after the cut card's
        position, rounds = _count_dealt_round(cards, position, rounds, last_row, counts, slots, detail, carry, carried)
        more -= 1
    return rounds


@jit(inline="always")
def _count_dealt_round(cards, position, rounds, last_row, counts, slots, detail, carry, carried):
    """Deal the round at ``position`` into row ``min(rounds, last_row)`` of ``counts`` (:func:`deal_rounds`).

    Returns the next round's position and ``rounds + 1``.
    """
    prefix, suffix, used = round_at(cards, position, detail)
    r, c = np.uint64(min(rounds, last_row)), np.uint64(cell(prefix, suffix, slots))
    if carry is None:
        counts[r, c] += 1
    else:
        count_slot_carrying(counts, r, c, prefix, suffix, carry, carried)
    return position + used, rounds + 1


@jit
def deal_rounds_groups(cards, cut_index, shoe_params, counts, slots, tables, batch, n, carry=None, carried=None):
    """The dealing loop of :func:`deal_through`, each round counted by code and in every group of ``tables``.

    ``counts`` (``(n_positions, n_cells)``, the outcome codes first, in slot
    order if ``slots`` (see :func:`~baccarat_sim.kernels.slots.cell`), then the groups' cells): round
    ``k`` goes to row ``k``, the last row also taking every later round. A
    round's code is counted at once, its groups' cells through ``batch``,
    which holds ``n`` rounds and is counted whenever it fills
    (:func:`baccarat_sim.kernels.detail.count_batch`). ``carry``,
    ``carried``: as for :func:`deal_rounds` (uint8 ``counts`` whose wraps go
    to the int64 rows ``carry`` and their per-cell sums; None: no wrap).
    Returns the rounds dealt and the rounds left in ``batch``.
    """
    n_cards = cards.shape[0]
    last_row = counts.shape[0] - 1
    cells = batch_cells(batch)
    position = first_round_position(cards, shoe_params)
    rounds = 0
    stop, more = shoe_end(position, n_cards, cut_index)
    # One loop, the round in it: the round as an inlined function called from a loop for the rounds up to the cut
    # card's and another for those after it (as deal_rounds has it) dealt several times slower here.
    while another_round(position, stop, more):
        e0, e1, e2, e3, e4, e5 = cards_at(cards, position)
        prefix, suffix, used = round_parts(e0, e1, e2, e3, e4, e5)
        row = min(rounds, last_row)
        r, c = np.uint64(row), np.uint64(cell(prefix, suffix, slots))
        if carry is None:
            counts[r, c] += 1
        else:
            count_slot_carrying(counts, r, c, prefix, suffix, carry, carried)
        n = batch_round(cells, n, prefix, suffix, e0, e1, e2, e3, e4, e5, row)
        if n == BATCH_ROUNDS:
            count_batch(batch, n, tables, counts, carry, carried)
            n = 0
        rounds += 1
        position += used
        stop, more = after_round(position, stop, more, n_cards, cut_index, shoe_params)
    return rounds, n


@jit
def deal_through(cards, cut_index, shoe_params, counts, slots=False, detail=None):
    """Deal an ordered shoe from the top to the cut card; return the rounds dealt.

    Parameters
    ----------
    cards : ndarray(int32, shape=(N,))
        Encoded cards in dealing order; ``cards[0]`` is the card turned for
        the burn.
    cut_index : int
        The cut card lies just before ``cards[cut_index]`` (see :func:`~baccarat_sim.kernels.shoe.shoe_end`);
        ``N`` if it never comes out.
    shoe_params : ndarray(int64, shape=(N_SHOE_PARAMS,))
        Burn and cut-card settings (:func:`~baccarat_sim.kernels.shoe.pack_shoe_params`).
    counts : ndarray(unsigned or int64, shape=(n_positions, n_cells))
        Round ``k`` of the shoe (0-based) is added to row ``k``, the last row
        also taking every later round.
    slots : bool
        Count in slot order (see :func:`~baccarat_sim.kernels.slots.cell`) instead of by cell; without card
        ``detail`` only.
    detail : tuple or None
        Card detail tables (:func:`baccarat_sim.kernels.detail.detail_index`):
        the columns are cells ``detail * N_CODES + code``; None: outcome codes.

    Notes
    -----
    A round is started only with at least six cards left, so it can never run
    out mid-round.
    """
    return deal_rounds(cards, cut_index, shoe_params, counts, slots, detail)


@jit
def deal_shoe(cards, state, shoe_params, counts, slots=False, detail=None):
    """Shuffle a shoe (:func:`~baccarat_sim.kernels.shoe.start_shoe`) and deal it through (:func:`deal_through`).

    Returns
    -------
    (int, state)
        Rounds dealt and the generator state.
    """
    cut_index, state = start_shoe(cards, state, shoe_params)
    return deal_through(cards, cut_index, shoe_params, counts, slots, detail), state

