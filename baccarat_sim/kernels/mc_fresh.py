"""Monte Carlo lanes of the fresh model: a freshly shuffled shoe for every round, counted by lane.

Pure numba functions, no I/O. A lane takes blocks (:mod:`baccarat_sim.kernels.blocks`),
opens each block's generators (:func:`~baccarat_sim.kernels.fresh.open_fresh_block`)
and deals its rounds (:func:`~baccarat_sim.kernels.fresh.fresh_round_parts`)
into small counters in slot order (:mod:`baccarat_sim.kernels.slots`), folded
into the caller's int64 counts before a counter could overflow
(:mod:`baccarat_sim.kernels.counters`). With a factored card detail, each
round's groups' cells go through a batch
(:func:`~baccarat_sim.kernels.detail.count_batch`). Each variant is a function
of its own so that a run compiles only the loops it deals with: every copy of
the inlined round adds seconds to the compile.
"""

from __future__ import annotations

import numpy as np

from .blocks import block_units, next_block
from .counters import LIMIT32, flush_slots
from .detail import BATCH_ROUNDS, batch_cells, count_batch, new_batch
from .encoding import encode_shoe
from .fresh import FRESH_DRAWS, fresh_cards, fresh_round_parts, open_fresh_block
from .jit import jit
from .outcome import code_of
from .round import batch_round, round_parts
from .slots import slot_of

__all__ = ["deal_fresh_codes", "deal_fresh_groups", "deal_lane_fresh", "lane_fresh", "lane_fresh_groups"]


@jit
def _deal_fresh(cards, draws, cursor, units, lane, limit, counts, pending, detail):
    """Deal ``units`` fresh-shoe rounds into row 0 of ``lane``, in slot order.

    ``draws``, ``cursor``: the block's random draws (:func:`~baccarat_sim.kernels.fresh.open_fresh_block`).
    ``pending`` rounds are already in ``lane``; it is flushed into ``counts``
    before a counter could pass ``limit``. Returns ``(pending, cursor)``.
    Slot order keeps the busy counters in two runs of 205 (see the module's
    notes); a caller's own int64 histogram in code order has
    :func:`deal_fresh_codes`. Each is a function of its own so that a run
    compiles only the loops it deals with: every copy of the inlined round
    adds seconds to the compile.
    """
    row = lane[0]
    left = units
    while left > 0:  # in spans that fit the counters, so the round loop has no check
        if pending >= limit:
            flush_slots(lane, counts)
            pending = 0
        span = min(left, limit - pending)
        for _ in range(span):
            prefix, suffix, cursor = fresh_round_parts(cards, draws, cursor, detail)
            row[slot_of(prefix, suffix)] += 1
        pending += span
        left -= span
    return pending, cursor


@jit
def deal_fresh_codes(cards, draws, cursor, units, counts, detail):
    """Deal ``units`` fresh-shoe rounds into row 0 of the int64 ``counts``, in code order; returns the cursor."""
    row = counts[0]
    for _ in range(units):
        prefix, suffix, cursor = fresh_round_parts(cards, draws, cursor, detail)
        row[code_of(prefix, suffix)] += 1
    return cursor


@jit
def lane_fresh(lane, canonical, seed, first_block, n_blocks, taken, units_per_block, last_units, total_blocks,
               counts, totals, detail):
    """Fresh-model blocks the lane takes (``next_block``) through ``lane`` (uint32, one row).

    The lane counts in slot order: its busy counters (two runs of 205) stay
    in the L1 cache beside the tableau's tables, where code order would
    spread them over the row's 57.6 KB.
    """
    cards = encode_shoe(canonical)  # only read: shared by the lane's blocks
    draws = np.empty(FRESH_DRAWS, np.uint64)
    pending = np.int64(0)  # not the literal 0: one compiled callee
    block = next_block(taken, first_block, n_blocks)
    while block >= 0:
        units = block_units(block, total_blocks, units_per_block, last_units)
        cursor = open_fresh_block(seed, block, cards.shape[0], draws)
        pending, _ = _deal_fresh(cards, draws, cursor, units, lane, LIMIT32, counts, pending, detail)
        totals[0] += units
        block = next_block(taken, first_block, n_blocks)
    flush_slots(lane, counts)


@jit
def deal_fresh_groups(cards, draws, cursor, units, lane, limit, counts, pending, tables, batch):
    """Deal ``units`` fresh-shoe rounds into row 0 of ``lane``: each by its code and in every group's cell.

    A round's code is counted at once, in slot order (see :func:`_deal_fresh`;
    the groups' cells follow the codes in code order), its groups' cells through ``batch``
    (:func:`~baccarat_sim.kernels.detail.count_batch`), which is empty again
    on return. ``pending`` rounds are already in ``lane``; it is flushed into
    ``counts`` before a counter could pass ``limit`` (a round adds one to a
    counter at most). ``draws``, ``cursor``: the block's random draws
    (:func:`~baccarat_sim.kernels.fresh.open_fresh_block`). Returns ``(pending, cursor)``.
    """
    row = lane[0]
    cells = batch_cells(batch)
    left = units
    n = np.int64(0)
    while left > 0:  # in spans that fit the counters, so the round loop has no check
        if pending >= limit:
            flush_slots(lane, counts)
            pending = 0
        span = min(left, limit - pending)
        for _ in range(span):
            e0, e1, e2, e3, e4, e5, cursor = fresh_cards(cards, draws, cursor)
            prefix, suffix, _ = round_parts(e0, e1, e2, e3, e4, e5)
            row[slot_of(prefix, suffix)] += 1
            n = batch_round(cells, n, prefix, suffix, e0, e1, e2, e3, e4, e5, 0)
            if n == BATCH_ROUNDS:
                count_batch(batch, n, tables, lane)
                n = 0
        count_batch(batch, n, tables, lane)  # before the lane can be flushed
        n = 0
        pending += span
        left -= span
    return pending, cursor


@jit
def lane_fresh_groups(canonical, seed, first_block, n_blocks, taken, units_per_block, last_units, total_blocks,
                      counts, totals, tables):
    """Fresh-model blocks the lane takes (``next_block``) with a factored card detail, into ``counts``.

    The rounds count in a uint32 lane (one row: the codes in slot order, then
    the groups' cells) folded into ``counts`` at the end. A function of
    its own, not a branch on the model beside the dealt one: numba would
    compile both paths for either model.
    """
    cards = encode_shoe(canonical)
    draws = np.empty(FRESH_DRAWS, np.uint64)
    lane = np.zeros(counts.shape, np.uint32)
    batch = new_batch(tables)
    pending = np.int64(0)
    block = next_block(taken, first_block, n_blocks)
    while block >= 0:
        units = block_units(block, total_blocks, units_per_block, last_units)
        cursor = open_fresh_block(seed, block, cards.shape[0], draws)
        pending, _ = deal_fresh_groups(cards, draws, cursor, units, lane, LIMIT32, counts, pending, tables,
                                       batch)
        totals[0] += units
        block = next_block(taken, first_block, n_blocks)
    flush_slots(lane, counts)


@jit
def deal_lane_fresh(canonical, seed, first_block, n_blocks, taken, units_per_block, last_units, total_blocks,
                    counts, totals, detail):
    """Fresh-model blocks of ``first_block .. first_block + n_blocks - 1`` the lane takes (``next_block``)."""
    if detail is not None:  # a factored card detail: its own loop (the plain path is unchanged)
        lane_fresh_groups(canonical, seed, first_block, n_blocks, taken, units_per_block, last_units,
                          total_blocks, counts, totals, detail)
    else:
        # None, not `detail`: numba prunes this branch where `detail` is None, but not where it holds tables, and
        # would compile the plain lane again for the tables' type (30 s of compile for code that never runs).
        lane_fresh(np.zeros(counts.shape, np.uint32), canonical, seed, first_block, n_blocks, taken,
                   units_per_block, last_units, total_blocks, counts, totals, None)

