"""Monte Carlo drivers: blocks of rounds dealt in parallel into per-thread histograms.

Pure numba functions, no I/O. A block of rounds (fresh model) or of whole
shoes (dealt model) is dealt from its own random stream
(:mod:`baccarat_sim.kernels.rng`), starting from the canonical shoe order, so
what a block deals depends only on (seed, block index). *Lanes* (one per
thread) take the blocks as they are free (:mod:`baccarat_sim.kernels.blocks`);
each lane adds its rounds to its own histogram and the lanes are summed
afterwards. Integer addition is exact and order-free, so the summed histogram
is the same whatever the number of lanes and whichever lane deals a block.

The two models draw cards differently, each chosen for speed and each an
exactly uniform draw without replacement, and each has its lanes:

* fresh (:mod:`baccarat_sim.kernels.mc_fresh`): six positions of the
  canonical shoe are drawn uniformly for each candidate round by 32
  generators interleaved in vector registers, and a candidate with a
  repeated position (or a biased draw) is passed over
  (:mod:`baccarat_sim.kernels.fresh`);
* dealt (:mod:`baccarat_sim.kernels.mc_dealt`): a Fisher-Yates shuffle of the
  part of the shoe that can be dealt, then the rounds are read off in order
  (:mod:`baccarat_sim.kernels.shoe`, :mod:`baccarat_sim.kernels.dealing`).

A lane keeps its counts in small counters, its per-position rows in slot
order (:mod:`baccarat_sim.kernels.slots`, :mod:`baccarat_sim.kernels.counters`).
"""

from __future__ import annotations

import numpy as np
from numba import prange

from .counters import CODE_ORDER, NO_LIMIT, flush_slots, fold_lane
from .detail import new_batch
from .encoding import encode_shoe
from .fresh import FRESH_DRAWS, open_fresh_block
from .jit import jit, jit_parallel
from .mc_dealt import deal_dealt_flat, deal_dealt_groups, deal_dealt_rows, deal_lane_dealt
from .mc_fresh import deal_fresh_codes, deal_fresh_groups, deal_lane_fresh
from .rng import block_state

__all__ = ["DRIVERS", "MODEL_DEALT", "MODEL_FRESH", "deal_block", "deal_blocks", "deal_blocks_serial", "small_lanes"]

MODEL_FRESH = 0
MODEL_DEALT = 1


@jit
def deal_block(canonical, model, seed, block, units, shoe_params, counts, detail=None):
    """Deal one block and add its rounds to ``counts``.

    The block-level kernel the drivers below run through their lanes, for
    direct use (tests, experiments).

    Parameters
    ----------
    canonical : ndarray(uint8, shape=(N,))
        The shoe's card ids in canonical order.
    model : int
        ``MODEL_FRESH`` (shuffle before every round) or ``MODEL_DEALT``.
    seed : uint64
        Master seed.
    block : int
        Block index: with ``seed`` it fixes the block's random stream.
    units : int
        Rounds (fresh model) or shoes (dealt model) in this block.
    shoe_params : ndarray(int64, shape=(N_SHOE_PARAMS,))
        Burn and cut-card parameters of the dealt model (:func:`~baccarat_sim.kernels.shoe.pack_shoe_params`).
    counts : ndarray(int64, shape=(n_positions, n_cells))
        Histogram to add to (row = round position in the shoe; one row for fresh).
    detail : tuple or None
        The tables of a factored card detail (:mod:`baccarat_sim.kernels.detail`): the columns are the outcome
        codes, then every group's cells; None: the outcome codes.

    Returns
    -------
    (int, int)
        Rounds and shoes dealt.
    """
    state = block_state(seed, block)
    cards = encode_shoe(canonical)
    draws = np.empty(FRESH_DRAWS, np.uint64)
    rounds, shoes = units, 0
    if detail is not None:  # the plain paths get None, not `detail`: see deal_lane_fresh
        batch = new_batch(detail)
        if model == MODEL_FRESH:
            lane = np.zeros(counts.shape, np.int64)  # codes in slot order, folded into counts' code order
            cursor = open_fresh_block(seed, block, cards.shape[0], draws)
            deal_fresh_groups(cards, draws, cursor, units, lane, NO_LIMIT, counts, np.int64(0), detail, batch)
            flush_slots(lane, counts)
        else:
            rounds, shoes = deal_dealt_groups(cards, state, units, shoe_params, counts, detail, batch)[0], units
    elif model == MODEL_FRESH:
        deal_fresh_codes(cards, draws, open_fresh_block(seed, block, cards.shape[0], draws), units, counts, None)
    else:
        none = np.int64(0)
        shoes = units
        if counts.shape[0] == 1:
            rounds, _, state = deal_dealt_flat(cards, state, units, shoe_params, counts, NO_LIMIT, counts, none,
                                               None)
        else:
            rounds, state = deal_dealt_rows(cards, state, units, shoe_params, counts, CODE_ORDER, None, None)
    return rounds, shoes


@jit
def _deal_lane(canonical, model, seed, first_block, n_blocks, taken, units_per_block, last_units, total_blocks,
               shoe_params, counts, totals, detail, small, carried):
    """Deal the blocks a lane takes (``next_block``) of ``first_block .. first_block + n_blocks - 1``."""
    if model == MODEL_FRESH:
        deal_lane_fresh(canonical, seed, first_block, n_blocks, taken, units_per_block, last_units, total_blocks,
                        counts, totals, detail)
    else:
        deal_lane_dealt(canonical, seed, first_block, n_blocks, taken, units_per_block, last_units, total_blocks,
                        shoe_params, counts, totals, detail, small, carried)


# One parallel driver per model, chosen in Python (:func:`deal_blocks`): a run compiles the lanes of its own model
# only (a first fresh run used to compile the dealt lanes too, a third of its compile time).
@jit_parallel
def _fresh_blocks(canonical, seed, first_block, n_blocks, units_per_block, last_units, total_blocks, lane_counts,
                  lane_totals, detail):
    taken = np.zeros(1, np.int64)  # the blocks the lanes have taken (see next_block)
    for lane in prange(lane_counts.shape[0]):
        deal_lane_fresh(canonical, seed, first_block, n_blocks, taken, units_per_block, last_units,
                        total_blocks, lane_counts[lane], lane_totals[lane], detail)


@jit_parallel
def _dealt_blocks(canonical, seed, first_block, n_blocks, units_per_block, last_units, total_blocks, shoe_params,
                  lane_counts, lane_totals, detail, lane_small, lane_carried):
    taken = np.zeros(1, np.int64)
    for lane in prange(lane_counts.shape[0]):
        deal_lane_dealt(canonical, seed, first_block, n_blocks, taken, units_per_block, last_units,
                        total_blocks, shoe_params, lane_counts[lane], lane_totals[lane], detail, lane_small[lane],
                        lane_carried[lane])


def small_lanes(lane_counts, model):
    """The small counters a dealt run's lanes keep beside their int64 rows: ``(lane_small, lane_carried)``.

    Position rows deal into uint8 rows (slot order) that stay unfolded from
    one call of :func:`deal_blocks` to the next, and into ``lane_carried``,
    the per-cell sums of what their wraps carried to the int64 rows (see
    :func:`~baccarat_sim.kernels.mc_dealt.lane_dealt_rows`,
    :func:`~baccarat_sim.kernels.mc_dealt.dealt_groups_rows`); any other
    lane gets empty arrays of the same types (one compiled driver).
    """
    lanes, positions, cells = lane_counts.shape
    rows = model != MODEL_FRESH and positions > 1
    return (np.zeros((lanes, positions, cells) if rows else (lanes, 0, 0), np.uint8),
            np.zeros((lanes, cells if rows else 0), np.int64))


def deal_blocks(canonical, model, seed, first_block, n_blocks, units_per_block, last_units, total_blocks,
                shoe_params, lane_counts, lane_totals, detail=None, small=None):
    """Deal blocks ``first_block .. first_block + n_blocks - 1`` over lanes in parallel.

    Each lane takes the blocks one at a time as it is free (``next_block``)
    and adds them to its ``lane_counts[k]`` (int64, ``(n_lanes, n_positions,
    n_cells)``); ``lane_totals[k]`` receives its (rounds, shoes). Block
    ``total_blocks - 1`` (the run's last) deals ``last_units`` units, every
    other block ``units_per_block``. ``detail``: as for :func:`deal_block`.
    ``small``: the lanes' small counters (:func:`small_lanes`), which a
    caller that deals many calls keeps and folds when it reads the rows
    (:func:`~baccarat_sim.kernels.counters.fold_lane`); None: made here and
    folded into ``lane_counts`` before the return. The model's own compiled driver runs (:data:`DRIVERS`).
    """
    if model == MODEL_FRESH:
        _fresh_blocks(canonical, seed, first_block, n_blocks, units_per_block, last_units, total_blocks, lane_counts,
                      lane_totals, detail)
        return
    lane_small, lane_carried = small_lanes(lane_counts, model) if small is None else small
    _dealt_blocks(canonical, seed, first_block, n_blocks, units_per_block, last_units, total_blocks, shoe_params,
                  lane_counts, lane_totals, detail, lane_small, lane_carried)
    if small is None:
        for lane in range(lane_small.shape[0]):
            fold_lane(lane_small[lane], lane_counts[lane])


#: The compiled parallel driver of each model (what :func:`deal_blocks` runs).
DRIVERS = {MODEL_FRESH: _fresh_blocks, MODEL_DEALT: _dealt_blocks}


def deal_blocks_serial(canonical, model, seed, first_block, n_blocks, units_per_block, last_units, total_blocks,
                       shoe_params, counts, totals, detail=None):
    """Deal blocks ``first_block .. first_block + n_blocks - 1`` one after another on the calling thread.

    The distributed backend's task kernel: a Dask worker runs several tasks at
    once from its own threads, and a ``parallel=True`` kernel launched from
    several threads aborts under numba's workqueue threading layer.
    ``counts`` (int64, ``(n_positions, n_cells)``) and
    ``totals`` (rounds, shoes) are added to, block by block, exactly as one
    lane of :func:`deal_blocks` would.
    """
    small, carried = small_lanes(counts[None], model)
    _serial_blocks(canonical, model, seed, first_block, n_blocks, units_per_block, last_units, total_blocks,
                   shoe_params, counts, totals, detail, small[0], carried[0])
    fold_lane(small[0], counts)


@jit
def _serial_blocks(canonical, model, seed, first_block, n_blocks, units_per_block, last_units, total_blocks,
                   shoe_params, counts, totals, detail, small, carried):
    """:func:`deal_blocks_serial`'s kernel: one lane, its small rows left to the caller to fold."""
    _deal_lane(canonical, model, seed, first_block, n_blocks, np.zeros(1, np.int64), units_per_block, last_units,
               total_blocks, shoe_params, counts, totals, detail, small, carried)
