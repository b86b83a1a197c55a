"""Extending a Monte Carlo run: more rounds on the same stream, as if the longer run had been asked for at first.

A run of ``N`` rounds and a run of ``M > N`` rounds with the same seed deal
the same blocks (block ``b`` depends only on the seed and ``b``), except that
the shorter run's last block may stop early. Chunks and batches are aligned
powers of two of blocks that grow with the run (:class:`~.plan.RunPlan`), so
the longer run's chunks and batches are unions of the shorter run's.

:func:`extend_state` turns what a run of ``N`` dealt into the state of the
run of ``M`` that has dealt the same blocks: blocks the longer run would deal
differently (the short last block), or that share a chunk with a block it has
not dealt yet, are dealt again and taken back out (a chunk or so of work), and
the batch rows are merged into the longer run's. The extended run then deals
the remaining chunks, and its histogram is bit-identical to that of a run of
``M`` rounds from the start: counts, positions, batches, rounds and shoes.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from ..errors import InputError
from ..kernels.mc import deal_blocks_serial
from .montecarlo import detail_tables, kernel_args
from .plan import RunPlan
from .state import RunState

__all__ = ["extend_state"]

#: Plan fields an extension keeps (what fixes the stream and the layout of a row).
KEPT = ("model", "seed", "composition", "shoe_params", "units_per_block", "n_positions", "rules_sha256", "detail",
        "n_cells")


def _done_spans(plan: RunPlan, state: RunState) -> list[tuple[int, int]]:
    """The blocks of the chunks done, as ``[first, end)`` spans in order (arithmetic: a run may have 10^8 chunks)."""
    spans = []
    if state.next_chunk:
        first, n = plan.chunk_range_blocks(0, state.next_chunk)
        spans.append((first, first + n))
    for chunk in sorted(state.done_ahead):
        first, n = plan.chunk_blocks(chunk)
        spans.append((first, first + n))
    return spans


def _undeal(plan: RunPlan, state: RunState, blocks: list[int]) -> None:
    """Take blocks out of ``state``: deal them again as ``plan`` dealt them and subtract, batch row by row."""
    canonical, model, seed = kernel_args(plan)
    params = np.array(plan.shoe_params, np.int64)
    tables = detail_tables(plan)
    for block in blocks:
        counts = np.zeros((plan.n_positions, plan.n_cells), np.int64)
        totals = np.zeros(2, np.int64)
        # One block at a time: the block's own unit count is set by making it the "last" block of a run.
        deal_blocks_serial(canonical, model, seed, block, 1, plan.units_per_block, plan.units_of_block(block),
                           block + 1, params, counts, totals, tables)
        state.by_position -= counts
        state.batches[block // plan.batch_blocks] -= counts.sum(axis=0)
        state.rounds -= int(totals[0])
        state.shoes -= int(totals[1])


def extend_state(old: RunPlan, state: RunState, new: RunPlan) -> RunState:
    """The state of run ``new`` holding every block of ``state`` (a run of ``old``) that ``new`` deals alike.

    Parameters
    ----------
    old : RunPlan
        The plan ``state`` was dealt under (complete or not).
    state : RunState
        What it dealt; left unchanged.
    new : RunPlan
        The longer run: same stream and layout of a row (:data:`KEPT`), more units.

    Returns
    -------
    RunState
        Its chunks done are those of ``new`` whose every block ``state`` dealt
        as ``new`` deals it.

    Raises
    ------
    InputError
        ``rounds``: ``new`` is not longer than ``old``, or deals another stream.
    """
    changed = [name for name in KEPT if getattr(old, name) != getattr(new, name)]
    if changed:
        raise InputError("rounds", f"the run cannot be extended: its {', '.join(changed)} differ from the checkpoint's")
    old_units = (old.total_blocks - 1) * old.units_per_block + old.last_units
    new_units = (new.total_blocks - 1) * new.units_per_block + new.last_units
    if new_units <= old_units:
        unit = "rounds" if old.model == "fresh" else "shoes"
        raise InputError("rounds", f"must be more than the checkpoint's run ({old.rounds_requested:,} rounds, "
                                   f"{old_units:,} {unit}) to extend it")
    work = dataclasses.replace(state, by_position=state.by_position.copy(), batches=state.batches.copy(),
                               done_ahead=set())
    # Blocks dealt as the new run deals them: the old last block is dealt alike only if it was whole.
    last = old.total_blocks - 1
    alike_end = last if old.units_of_block(last) != new.units_of_block(last) else old.total_blocks
    done = _done_spans(old, state)
    merged: list[list[int]] = []
    for first, end in done:
        end = min(end, alike_end)
        if first >= end:
            continue
        if merged and merged[-1][1] == first:
            merged[-1][1] = end
        else:
            merged.append([first, end])
    # The new run's chunks whose every block was dealt alike (chunks are aligned powers of two of blocks, a new one
    # a union of old ones): a prefix, and any inside a later span (a Dask run's chunks done ahead).
    size = new.blocks_per_chunk
    prefix = merged[0][1] // size if merged and merged[0][0] == 0 else 0
    ahead = [c for first, end in merged if first > 0 for c in range(-(-first // size), end // size)]
    kept = set(ahead)
    undone = [b for first, end in done for b in range(max(first, prefix * size), end) if b // size not in kept]
    _undeal(old, work, undone)
    batches = np.zeros((new.n_batches, new.n_cells), np.int64)
    for row, counts in enumerate(work.batches):
        batches[row * old.batch_blocks // new.batch_blocks] += counts
    extended = RunState(by_position=work.by_position, batches=batches, rounds=work.rounds,
                        shoes=work.shoes if new.model == "dealt" else 0, kernel_seconds=state.kernel_seconds,
                        next_chunk=prefix)
    for chunk in ahead:
        extended.mark_done(chunk)
    return extended
