"""Monte Carlo lanes of the dealt model: whole shoes shuffled and dealt through, counted by lane.

Pure numba functions, no I/O. A lane takes blocks (:mod:`baccarat_sim.kernels.blocks`);
every block starts from the canonical order, and each of its shoes is
shuffled (:func:`~baccarat_sim.kernels.shoe.start_shoe`) and dealt through
(:func:`~baccarat_sim.kernels.dealing.deal_rounds`,
:func:`~baccarat_sim.kernels.dealing.deal_rounds_groups`). A lane counts one
row (every round of a shoe in one histogram) in uint32 counters, folded into
the caller's int64 counts before a counter could overflow, or a row per
round position in uint8 counters in slot order, each wrap carried to the
int64 rows as it happens and the rest left for the caller to fold
(:mod:`baccarat_sim.kernels.counters`). With a factored card detail, each
round's groups' cells go through a batch
(:func:`~baccarat_sim.kernels.detail.count_batch`). Each variant is a function
of its own so that a run compiles only the loops it deals with.
"""

from __future__ import annotations

import numpy as np

from .blocks import block_units, next_block
from .counters import CODE_ORDER, LIMIT32, SLOT_ORDER, flush_codes, flush_slots
from .dealing import deal_rounds, deal_rounds_groups
from .detail import count_batch, new_batch
from .encoding import encode_shoe
from .jit import jit
from .rng import block_state
from .shoe import start_shoe

__all__ = ["deal_dealt_flat", "deal_dealt_groups", "deal_dealt_rows", "deal_lane_dealt", "dealt_groups_blocks",
           "dealt_groups_rows", "lane_dealt_flat", "lane_dealt_groups", "lane_dealt_rows"]


@jit
def deal_dealt_flat(cards, state, units, shoe_params, lane, limit, counts, pending, detail):
    """Deal ``units`` dealt shoes into a one-row ``lane`` (code order); returns ``(rounds, pending, state)``.

    A shoe adds at most ``N // 4`` rounds to a counter (a round takes at least
    four cards); ``lane`` is flushed into ``counts`` before it could pass ``limit``.
    """
    per_shoe = cards.shape[0] // 4
    rounds = 0
    for _ in range(units):
        if pending + per_shoe > limit:
            flush_codes(lane, counts)
            pending = 0
        cut_index, state = start_shoe(cards, state, shoe_params)
        rounds += deal_rounds(cards, cut_index, shoe_params, lane, False, detail)
        pending += per_shoe
    return rounds, pending, state


@jit
def deal_dealt_rows(cards, state, units, shoe_params, lane, slots, carry, carried):
    """Deal ``units`` dealt shoes into the position rows of ``lane``; returns ``(rounds, state)``.

    ``lane``: uint8 rows in slot order (``slots``, see :func:`~baccarat_sim.kernels.slots.slot_of`),
    each counter's wraps carried into the int64 rows ``carry`` (in code
    order) and into their per-code sums ``carried``, as the lanes keep them;
    or int64 rows in code order with ``carry`` and ``carried`` None (:func:`~baccarat_sim.kernels.mc.deal_block`).

    Each round is added as it is dealt, to its row: in slot order a row's
    busy counters are about a KB, so the rows' busy parts stay in the L2
    cache, and the loads hide behind the shoe's dealing. uint8 counters
    whose wraps are carried cost less than uint16 ones folded before they
    could overflow, the more so in short calls (measurements:
    ``docs/benchmarks.md``, "Kernel design measurements").
    """
    rounds = 0
    for _ in range(units):
        cut_index, state = start_shoe(cards, state, shoe_params)
        rounds += deal_rounds(cards, cut_index, shoe_params, lane, slots, None, carry, carried)
    return rounds, state


@jit
def lane_dealt_flat(lane, canonical, seed, first_block, n_blocks, taken, units_per_block, last_units, total_blocks,
                    shoe_params, counts, totals, detail):
    """Dealt-model blocks the lane takes (``next_block``) through ``lane`` (uint32, one row)."""
    pending = np.int64(0)  # not the literal 0: one compiled callee
    block = next_block(taken, first_block, n_blocks)
    while block >= 0:
        units = block_units(block, total_blocks, units_per_block, last_units)
        cards = encode_shoe(canonical)  # every block starts from the canonical order
        rounds, pending, _ = deal_dealt_flat(cards, block_state(seed, block), units, shoe_params, lane, LIMIT32,
                                             counts, pending, detail)
        totals[0] += rounds
        totals[1] += units
        block = next_block(taken, first_block, n_blocks)
    flush_codes(lane, counts)


@jit
def lane_dealt_rows(lane, canonical, seed, first_block, n_blocks, taken, units_per_block, last_units,
                    total_blocks, shoe_params, counts, totals, carried):
    """Dealt-model blocks the lane takes (``next_block``) through ``lane`` (uint8 rows, slot order).

    A counter's wraps go straight to ``counts`` and their per-code sums
    ``carried`` (:func:`deal_dealt_rows`); the rest stays in ``lane``, which
    the caller keeps from one call to the next and folds into ``counts``
    when it needs the rows (:func:`~baccarat_sim.kernels.counters.fold_lane`). Its per-code totals
    (:func:`~baccarat_sim.kernels.counters.add_code_totals`, plus ``carried``) need a read of the uint8
    rows alone: a fold at every call's end, and a sum of the int64 rows for
    a batch's totals, cost time a run does not need to spend.
    """
    block = next_block(taken, first_block, n_blocks)
    while block >= 0:
        units = block_units(block, total_blocks, units_per_block, last_units)
        cards = encode_shoe(canonical)  # every block starts from the canonical order
        rounds, _ = deal_dealt_rows(cards, block_state(seed, block), units, shoe_params, lane, SLOT_ORDER, counts,
                                    carried)
        totals[0] += rounds
        totals[1] += units
        block = next_block(taken, first_block, n_blocks)


@jit
def deal_dealt_groups(cards, state, units, shoe_params, counts, tables, batch):
    """Deal ``units`` dealt shoes straight into the int64 rows ``counts``; returns ``(rounds, state)``.

    The groups' cells go through ``batch``, counted in full before the return.
    """
    rounds = 0
    n = np.int64(0)
    for _ in range(units):
        cut_index, state = start_shoe(cards, state, shoe_params)
        dealt, n = deal_rounds_groups(cards, cut_index, shoe_params, counts, CODE_ORDER, tables, batch, n)
        rounds += dealt
    count_batch(batch, n, tables, counts)
    return rounds, state


@jit
def _deal_dealt_groups_small(cards, state, units, shoe_params, small, limit, counts, pending, tables, batch):
    """Deal ``units`` dealt shoes into the small counters ``small``; returns ``(rounds, pending, state)``.

    ``small``'s rows hold the codes in slot order, so that their busy
    counters stay in cache, then the groups' cells, which go through
    ``batch`` (counted in full before the return; see :func:`lane_dealt_groups`).
    A shoe adds at most one round to a row's counter (``N // 4`` where one
    row takes every round); ``small`` is folded into ``counts``
    (:func:`~baccarat_sim.kernels.counters.flush_slots`) before a counter could pass ``limit``.
    """
    n_cards = cards.shape[0]
    per_shoe = 1 if small.shape[0] > n_cards // 4 else n_cards // 4
    rounds = 0
    n = np.int64(0)
    for _ in range(units):
        if pending + per_shoe > limit:
            count_batch(batch, n, tables, small)  # its cells are folded too
            n = 0
            flush_slots(small, counts)
            pending = 0
        cut_index, state = start_shoe(cards, state, shoe_params)
        dealt, n = deal_rounds_groups(cards, cut_index, shoe_params, small, SLOT_ORDER, tables, batch, n)
        rounds += dealt
        pending += per_shoe
    count_batch(batch, n, tables, small)
    return rounds, pending, state


@jit
def dealt_groups_blocks(canonical, seed, first_block, n_blocks, taken, units_per_block, last_units, total_blocks,
                        shoe_params, small, limit, counts, totals, tables):
    """:func:`lane_dealt_groups`' blocks through the small counters ``small`` (:func:`_deal_dealt_groups_small`)."""
    batch = new_batch(tables)
    pending = np.int64(0)
    block = next_block(taken, first_block, n_blocks)
    while block >= 0:
        units = block_units(block, total_blocks, units_per_block, last_units)
        cards = encode_shoe(canonical)  # every block starts from the canonical order
        rounds, pending, _ = _deal_dealt_groups_small(cards, block_state(seed, block), units, shoe_params, small,
                                                      limit, counts, pending, tables, batch)
        totals[0] += rounds
        totals[1] += units
        block = next_block(taken, first_block, n_blocks)
    flush_slots(small, counts)


@jit
def dealt_groups_rows(canonical, seed, first_block, n_blocks, taken, units_per_block, last_units, total_blocks,
                      shoe_params, small, counts, totals, tables, carried):
    """:func:`lane_dealt_groups`' blocks into the position rows ``small`` (uint8, kept from call to call).

    As the plain lane's rows (:func:`lane_dealt_rows`): the codes in slot
    order, then the groups' cells, each counter's wraps carried into the
    int64 rows ``counts`` and their per-cell sums ``carried`` as they happen
    (in the dealing loop for the codes, in the batch for the cells), the
    rest left in ``small`` for the caller to fold: faster than uint16 rows
    folded before a counter could overflow and at every call's end.
    """
    batch = new_batch(tables)
    block = next_block(taken, first_block, n_blocks)
    while block >= 0:
        units = block_units(block, total_blocks, units_per_block, last_units)
        cards = encode_shoe(canonical)  # every block starts from the canonical order
        state = block_state(seed, block)
        rounds = 0
        n = np.int64(0)
        for _ in range(units):
            cut_index, state = start_shoe(cards, state, shoe_params)
            dealt, n = deal_rounds_groups(cards, cut_index, shoe_params, small, SLOT_ORDER, tables, batch, n, counts,
                                          carried)
            rounds += dealt
        count_batch(batch, n, tables, small, counts, carried)
        totals[0] += rounds
        totals[1] += units
        block = next_block(taken, first_block, n_blocks)


@jit
def lane_dealt_groups(canonical, seed, first_block, n_blocks, taken, units_per_block, last_units, total_blocks,
                      shoe_params, counts, totals, tables, small, carried):
    """Dealt-model blocks the lane takes (``next_block``) with a factored card detail, into ``counts``.

    The rounds count in small counters, the codes in slot order and the
    groups' cells after them: one row in a uint32 lane, as the fresh lane
    does, folded into ``counts`` at the end (:func:`_deal_dealt_groups_small`);
    position rows in the caller's uint8 rows ``small``, left unfolded as the
    plain lane's are (:func:`dealt_groups_rows`): small counters for the
    codes and the cells alike are what keeps card-level bets with position
    rows near the plain lane's speed.
    """
    if counts.shape[0] == 1:
        dealt_groups_blocks(canonical, seed, first_block, n_blocks, taken, units_per_block, last_units, total_blocks,
                            shoe_params, np.zeros(counts.shape, np.uint32), LIMIT32, counts, totals, tables)
    else:
        dealt_groups_rows(canonical, seed, first_block, n_blocks, taken, units_per_block, last_units, total_blocks,
                          shoe_params, small, counts, totals, tables, carried)


@jit
def deal_lane_dealt(canonical, seed, first_block, n_blocks, taken, units_per_block, last_units, total_blocks,
                    shoe_params, counts, totals, detail, small, carried):
    """Dealt-model blocks of ``first_block .. first_block + n_blocks - 1`` the lane takes (``next_block``).

    ``small``, ``carried``: the small rows and their carried sums of a lane
    with position rows (:func:`lane_dealt_rows`, :func:`lane_dealt_groups`),
    left unfolded; empty for any other lane.
    """
    if detail is not None:  # a factored card detail: its own loop
        lane_dealt_groups(canonical, seed, first_block, n_blocks, taken, units_per_block, last_units,
                          total_blocks, shoe_params, counts, totals, detail, small, carried)
    elif counts.shape[0] > 1:  # None, not `detail`: see deal_lane_fresh
        lane_dealt_rows(small, canonical, seed, first_block, n_blocks, taken, units_per_block, last_units,
                        total_blocks, shoe_params, counts, totals, carried)
    else:
        lane_dealt_flat(np.zeros(counts.shape, np.uint32), canonical, seed, first_block, n_blocks, taken,
                        units_per_block, last_units, total_blocks, shoe_params, counts, totals, None)

