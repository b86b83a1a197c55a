"""The Monte Carlo histogram job: what a chunk of a run deals, and how it is added to the run's state.

A job is what the run driver (:mod:`baccarat_sim.engines.driver`) needs to
deal a run on any backend: a local dealer that keeps per-thread lanes across
chunks (:class:`LocalDealer`), a task a remote worker runs on a range of chunks
(:meth:`HistogramJob.task`), and the fold of a task's result into the state.
Both paths run the same kernel on the same blocks, so the histogram is the
same bit for bit whichever backend deals it.
"""

from __future__ import annotations

import time

import numpy as np

from ..kernels.mc import (
    MODEL_DEALT,
    MODEL_FRESH,
    add_code_totals,
    deal_blocks,
    deal_blocks_serial,
    fold_lane,
    small_lanes,
)
from ..model.shoe import canonical_cards
from .checkpoint import save_checkpoint
from .detail import detail_of_plan
from .packer import kernel_tables
from .plan import RunPlan
from .state import RunState

__all__ = ["HistogramJob", "LocalDealer", "detail_tables", "kernel_args", "warm_up"]


#: Most bytes of a local run's per-thread lanes together (int64 and small counters per cell and round position): a
#: rule set with card-level bets deals over fewer threads rather than run out of memory.
LANE_BYTES = 1 << 30


def kernel_args(plan: RunPlan):
    """The kernel's view of a plan: canonical shoe, model constant, seed."""
    return (canonical_cards(plan.shoe), MODEL_FRESH if plan.model == "fresh" else MODEL_DEALT, np.uint64(plan.seed))


def detail_tables(plan: RunPlan):
    """The kernel's card detail tables (None: the plan counts outcome codes alone)."""
    detail = detail_of_plan(plan.detail)
    return None if detail is None else kernel_tables(detail)


class HistogramJob:
    """A Monte Carlo run that fills an outcome histogram (with per-position rows in the dealt model).

    Parameters
    ----------
    plan : RunPlan
    """

    supports_remote = True
    #: What :meth:`done` counts (progress and messages).
    unit = "rounds"

    def __init__(self, plan: RunPlan):
        self.plan = plan

    def new_state(self) -> RunState:
        """Nothing dealt yet."""
        return RunState.empty(self.plan)

    def local_dealer(self, lanes: int) -> LocalDealer:
        """A dealer that deals chunks on this machine over ``lanes`` numba threads."""
        return LocalDealer(self.plan, lanes)

    def task(self, first_chunk: int, n_chunks: int):
        """Deal chunks ``first_chunk .. first_chunk + n_chunks - 1`` on the calling thread (a remote worker).

        Returns
        -------
        list of (int, int, ndarray, int, int)
            One segment ``(first, n, counts, rounds, shoes)`` per batch the
            chunks fall in (the state keeps a row per batch); ``counts`` is
            ``(n_positions, n_cells)`` in the smallest unsigned type that holds
            it (:func:`narrow`), so that results travel in fewer bytes.
        """
        plan = self.plan
        canonical, model, seed = kernel_args(plan)
        params = np.array(plan.shoe_params, np.int64)
        tables = detail_tables(plan)
        segments = []
        for first, n in batch_segments(plan, first_chunk, n_chunks):
            first_block, n_blocks = plan.chunk_range_blocks(first, n)
            counts = np.zeros((plan.n_positions, plan.n_cells), np.int64)
            totals = np.zeros(2, np.int64)
            # Serial: a Dask worker runs several tasks at once from its own threads, and a parallel kernel
            # launched from several threads aborts under numba's workqueue threading layer.
            deal_blocks_serial(canonical, model, seed, first_block, n_blocks, plan.units_per_block,
                               plan.last_units, plan.total_blocks, params, counts, totals, tables)
            segments.append((first, n, narrow(counts), int(totals[0]), int(totals[1])))
        return segments

    def fold(self, state: RunState, result) -> int:
        """Add a :meth:`task` result to ``state``; returns the rounds it dealt."""
        rounds = 0
        for first, n, counts, segment_rounds, shoes in result:
            state.add(self.plan, first, counts.astype(np.int64), segment_rounds, shoes, n_chunks=n)
            rounds += segment_rounds
        return rounds

    def done(self, state: RunState) -> int:
        """Rounds in ``state``."""
        return state.rounds

    def save_checkpoint(self, path, state: RunState, meta: dict | None = None) -> None:
        """Write the run's resumable checkpoint (see :mod:`baccarat_sim.engines.checkpoint`)."""
        save_checkpoint(path, self.plan, state, meta)


def batch_segments(plan: RunPlan, first_chunk: int, n_chunks: int):
    """Split chunks ``first_chunk ..`` (``n_chunks`` of them) where a new batch begins: ``(first, n)`` pairs."""
    end = first_chunk + n_chunks
    while first_chunk < end:
        batch = plan.batch_of_chunk(first_chunk)
        stop = first_chunk + 1
        while stop < end and plan.batch_of_chunk(stop) == batch:
            stop += 1
        yield first_chunk, stop - first_chunk
        first_chunk = stop


def narrow(counts: np.ndarray) -> np.ndarray:
    """``counts`` in the smallest unsigned type that holds them exactly.

    A dealt-model result has a row per round position (105 for 8 decks, 12 MB
    as int64); its cells rarely pass 65,535, so it travels in a quarter of
    the bytes.
    """
    peak = int(counts.max()) if counts.size else 0
    for dtype in (np.uint8, np.uint16, np.uint32):
        if peak <= np.iinfo(dtype).max:
            return counts.astype(dtype)
    return counts


class LocalDealer:
    """Deals a run's chunks on this machine, one lane of counts per numba thread.

    Chunks of one batch are dealt into the lane arrays and moved into the
    state together: moving costs a pass over ``lanes x positions x cells``
    counts (12 MB a lane for 8 decks, dealt model), so it happens at
    checkpoints and the end (everything, :meth:`commit`); at batch
    boundaries only the per-code totals are read (:meth:`close_batch`). A
    dealt run's position rows stay in the kernel's small counters until then
    (:func:`~baccarat_sim.kernels.mc.small_lanes`). Lanes that would take
    more than :data:`LANE_BYTES` together are fewer than asked.
    """

    def __init__(self, plan: RunPlan, lanes: int):
        self.plan = plan
        self._args = kernel_args(plan)
        self._params = np.array(plan.shoe_params, np.int64)
        self._tables = detail_tables(plan)
        # A lane's int64 rows and its small counters (a byte a cell: see small_lanes).
        lanes = max(1, min(lanes, LANE_BYTES // (9 * plan.n_positions * plan.n_cells)))
        self.lane_counts = np.zeros((lanes, plan.n_positions, plan.n_cells), np.int64)
        self.lane_totals = np.zeros((lanes, 2), np.int64)
        self.lane_small, self.lane_carried = small_lanes(self.lane_counts, self._args[1])
        # Per-cell totals of the lanes already credited to batches (see close_batch).
        self.credited = np.zeros(plan.n_cells, np.int64)
        self.batch: int | None = None  # the batch of the chunks whose totals are not yet in the state
        self.kernel_seconds = 0.0

    @property
    def pending(self) -> int:
        """Rounds dealt into the lanes and not yet credited to the state."""
        return int(self.lane_totals[:, 0].sum())

    def deal(self, state: RunState, chunk: int) -> None:
        """Deal chunk ``chunk`` into the lanes and mark it done in ``state``."""
        batch = self.plan.batch_of_chunk(chunk)
        if self.batch is not None and batch != self.batch:
            self.close_batch(state)
        self.batch = batch
        first_block, n_blocks = self.plan.chunk_blocks(chunk)
        started = time.perf_counter()
        deal_blocks(*self._args, first_block, n_blocks, self.plan.units_per_block, self.plan.last_units,
                    self.plan.total_blocks, self._params, self.lane_counts, self.lane_totals, self._tables,
                    (self.lane_small, self.lane_carried))
        seconds = time.perf_counter() - started
        self.kernel_seconds += seconds
        state.kernel_seconds += seconds
        state.mark_done(chunk)

    def close_batch(self, state: RunState) -> None:
        """Credit the rounds dealt since the last call (all in one batch) to that batch, rounds and shoes.

        The lanes keep their per-position rows: the batch's totals need one
        read of them (of their small counters and carried sums, where a
        dealt run keeps its rows in them). ``credited`` holds the per-code
        totals of the lanes already credited to batches.
        """
        if self.batch is None:
            return
        if self.lane_small.size:
            now = self.lane_carried.sum(axis=0)
            for small in self.lane_small:
                add_code_totals(small, now)
        else:
            now = self.lane_counts.sum(axis=(0, 1))
        state.batches[self.batch] += now - self.credited
        self.credited[:] = now
        totals = self.lane_totals.sum(axis=0)
        state.rounds += int(totals[0])
        state.shoes += int(totals[1])
        self.lane_totals[:] = 0
        self.batch = None

    def commit(self, state: RunState) -> None:
        """Close the pending batch and move everything the lanes hold into ``state``."""
        self.close_batch(state)
        if self.credited.any():  # the lanes hold rounds that are not in state.by_position yet
            if self.lane_small.size:  # not where there are no small rows: a fresh run would compile the fold (1.2 s)
                for small, counts in zip(self.lane_small, self.lane_counts):
                    fold_lane(small, counts)
            for counts in self.lane_counts:  # lane by lane: no temporary of the rows' size
                state.by_position += counts
            self.lane_counts[:] = 0
            self.lane_carried[:] = 0
            self.credited[:] = 0


def warm_up(plan: RunPlan, remote: bool = False) -> None:
    """Compile (or load from numba's cache) the kernel a plan runs, before any timing starts.

    ``remote``: the Dask backend's task kernel (:func:`~baccarat_sim.kernels.mc.deal_blocks_serial`) instead of
    the local lanes' (a local run never compiles the task kernel: it is a first run's compile time).
    """
    canonical, model, seed = kernel_args(plan)
    tables = detail_tables(plan)
    params = np.array(plan.shoe_params, np.int64)
    if remote:
        deal_blocks_serial(canonical, model, seed, 0, 1, 1, 1, 1, params,
                           np.zeros((plan.n_positions, plan.n_cells), np.int64), np.zeros(2, np.int64), tables)
    else:
        deal_blocks(canonical, model, seed, 0, 1, 1, 1, 1, params,
                    np.zeros((1, plan.n_positions, plan.n_cells), np.int64), np.zeros((1, 2), np.int64), tables)
