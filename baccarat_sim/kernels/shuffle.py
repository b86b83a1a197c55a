"""The shuffle of a dealt shoe: Fisher-Yates steps over the part of the shoe that can be dealt, in place.

Pure numba functions, no I/O. The random bits come from the block's stream
(:mod:`baccarat_sim.kernels.rng`); two or three bounded draws are batched
into one 32-bit half of an output (:func:`~baccarat_sim.kernels.rng.bounded2`,
:func:`~baccarat_sim.kernels.rng.bounded3`), exactly uniform.
"""

from __future__ import annotations

import numpy as np

from .jit import jit
from .rng import bounded, bounded2, bounded3, high32, low32, next_u64

__all__ = ["TRIPLE_MAX_CARDS", "shuffle_prefix"]

#: Largest shoe for which the shuffle batches three draws into 32 random
#: bits: the rejection guard then fires on at most ``600**3 / 2**32`` = 5% of
#: batches; larger shoes batch two.
TRIPLE_MAX_CARDS = 600


@jit(inline="always")
def _swap_in(cards, index, offset):
    """Move ``cards[index + offset]`` to ``index`` (one Fisher-Yates step)."""
    here = np.uint64(index)  # unsigned: no test for a negative index
    there = here + np.uint64(offset)
    card = cards[there]
    cards[there] = cards[here]
    cards[here] = card


@jit
def shuffle_prefix(cards, m, state):
    """Fisher-Yates steps for positions ``0 .. m - 1`` of ``cards``, in place.

    Afterwards ``cards[:m]`` is a uniformly random ordered sample of the shoe
    (the whole shoe a uniform permutation when ``m >= len(cards) - 1``),
    whatever order ``cards`` started in; the rest of the array holds the
    unused cards. Returns the new state.
    """
    n_cards = cards.shape[0]
    steps = min(m, n_cards - 1)
    i = 0
    # Big shoes: two draws per 32 bits while the range is large (three would
    # make the rejection guard fire too often), then three.
    while i + 4 <= steps and n_cards - i > TRIPLE_MAX_CARDS:
        x, state = next_u64(state)
        j0, j1, state = bounded2(high32(x), n_cards - i, n_cards - i - 1, state)
        j2, j3, state = bounded2(low32(x), n_cards - i - 2, n_cards - i - 3, state)
        _swap_in(cards, i, j0)
        _swap_in(cards, i + 1, j1)
        _swap_in(cards, i + 2, j2)
        _swap_in(cards, i + 3, j3)
        i += 4
    while i + 6 <= steps:
        x, state = next_u64(state)
        j0, j1, j2, state = bounded3(high32(x), n_cards - i, n_cards - i - 1, n_cards - i - 2, state)
        j3, j4, j5, state = bounded3(low32(x), n_cards - i - 3, n_cards - i - 4, n_cards - i - 5, state)
        _swap_in(cards, i, j0)
        _swap_in(cards, i + 1, j1)
        _swap_in(cards, i + 2, j2)
        _swap_in(cards, i + 3, j3)
        _swap_in(cards, i + 4, j4)
        _swap_in(cards, i + 5, j5)
        i += 6
    while i < steps:
        x, state = next_u64(state)
        j, state = bounded(high32(x), n_cards - i, state)
        _swap_in(cards, i, j)
        i += 1
    return state
