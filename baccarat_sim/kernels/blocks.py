"""How the lanes of one call share out its blocks, and how many units each block deals.

A run is cut into blocks (:mod:`baccarat_sim.engines.plan`); what a block
deals depends on (seed, block) alone, so the lanes may take them in any
order and their counts, summed, are the same histogram.
"""

from __future__ import annotations

import numpy as np

from .atomic import fetch_add
from .jit import jit

__all__ = ["block_units", "next_block"]


@jit(inline="always")
def next_block(taken, first_block, n_blocks):
    """The next block of ``first_block .. first_block + n_blocks - 1`` for a lane to deal; -1 when none is left.

    The lanes of one call share ``taken`` (int64, one element: how many
    blocks lanes have taken) and take the blocks one at a time, first come
    first served (an atomic add). What a block deals depends on (seed, block)
    alone and the lanes' counts are summed, so the histogram is the same
    whichever lane deals a block; a lane slowed by a busy neighbour on a
    shared machine deals fewer blocks instead of keeping the other waiting
    at the call's end (faster than giving every lane every ``n_lanes``-th
    block: ``docs/benchmarks.md``, "Kernel design measurements").
    """
    k = fetch_add(taken, np.int64(1))
    return first_block + k if k < n_blocks else np.int64(-1)


@jit(inline="always")
def block_units(block, total_blocks, units_per_block, last_units):
    """Rounds (fresh model) or shoes (dealt model) block ``block`` deals: the run's last block its ``last_units``."""
    return last_units if block == total_blocks - 1 else units_per_block
