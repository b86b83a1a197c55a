"""Session kernels: runs of rounds of one bet slip, stopped by a loss bound, a win bound or a round limit.

Pure numba functions over arrays and scalars, no I/O. A *session* is what a
player (or a table) does: rounds of the same slip, the net result ``z`` (in
lattice units of the slip) summed round by round, until ``z <= low``, ``z >=
high`` or ``max_rounds`` rounds. The drivers (:mod:`baccarat_sim.engines.sessions`)
choose the bounds; a table's hold over ``N`` rounds is a session with
unreachable bounds.

Two shoe models:

* fresh (every round from a freshly shuffled shoe, rounds independent): a
  round's net result is drawn directly from the slip's exact one-round law.
  A uniform integer ``u`` in ``[0, total)`` (:func:`uniform_below`, Lemire's
  method on 64 bits), then the outcome whose interval of cumulative integer
  weights holds ``u``: outcome ``j`` has probability exactly
  ``weight[j] / total``, with no rounding of the weights at all.
* dealt (a shoe shuffled once and dealt through to the cut card): rounds of
  one shoe are dependent, so every round is dealt by the one dealing
  procedure (:mod:`baccarat_sim.kernels.shoe`: burn, cut card, rounds after
  the cut) and settled through the slip's net per outcome code. A session
  starts with a freshly shuffled shoe and goes on through as many shoes as
  it needs, a new one shuffled whenever one ends.

Random streams: block ``b`` of sessions is played from the stream
``(seed, b)`` of :func:`baccarat_sim.kernels.rng.block_state`, its sessions one
after another, and each session writes only its own output slots, so what a
session does depends on (seed, block, its place in the block) alone: the
same for any number of threads.

References
----------
Lemire, "Fast random integer generation in an interval", ACM TOMACS 29 (2019).
"""

from __future__ import annotations

import numpy as np
from numba import prange

from .encoding import encode_shoe
from .jit import jit, jit_parallel
from .outcome import code_of
from .rng import block_state, next_u64
from .round import round_at
from .shoe import after_round, another_round, open_shoe
from .wide import mul_hi_lo

__all__ = [
    "draw_step",
    "play_dealt_blocks",
    "play_dealt_session",
    "play_fresh_blocks",
    "play_fresh_session",
    "uniform_below",
]

_U0 = np.uint64(0)


@jit(inline="always")
def uniform_below(n, state):
    """Uniform integer in ``[0, n)``, ``1 <= n < 2**64``, from 64-bit outputs (Lemire's method, unbiased).

    :func:`baccarat_sim.kernels.rng.bounded` draws below ``2**32`` only; a
    slip's weights total about ``2 * 10**13`` (8 decks, reduced by their gcd),
    so this is the same multiply-and-reject method on the whole 64-bit output.
    A rejection happens with probability below ``n / 2**64``.

    Returns
    -------
    (uint64, state)
    """
    x, state = next_u64(state)
    high, low = mul_hi_lo(x, n)
    if low < n:  # rare: only then can the draw fall in the biased band
        threshold = (_U0 - n) % n  # 2**64 mod n
        while low < threshold:
            x, state = next_u64(state)
            high, low = mul_hi_lo(x, n)
    return high, state


@jit(inline="always")
def draw_step(thresholds, steps, total, state):
    """One round's net result (lattice units), outcome ``j`` drawn with probability exactly ``weight[j] / total``.

    Parameters
    ----------
    thresholds : ndarray(uint64, shape=(a,))
        Cumulative integer weights, outcomes by decreasing weight (so the
        linear search ends early); the last is ``total``.
    steps : ndarray(int64, shape=(a,))
        Net result of each outcome, same order.
    total : uint64
    state : tuple of 4 uint64

    Returns
    -------
    (int64, state)
    """
    u, state = uniform_below(total, state)
    j = 0
    while u >= thresholds[j]:
        j += 1
    return steps[j], state


@jit(inline="always")
def play_fresh_session(thresholds, steps, total, low, high, max_rounds, state):
    """One fresh-shoe session: rounds until ``z <= low``, ``z >= high`` or ``max_rounds`` rounds.

    Returns
    -------
    (int64, int64, state)
        Final net result ``z`` (lattice units), rounds played, generator state.
    """
    z = np.int64(0)
    k = np.int64(0)
    while k < max_rounds:
        step, state = draw_step(thresholds, steps, total, state)
        z += step
        k += 1
        if z <= low or z >= high:
            break
    return z, k, state


@jit
def _fresh_block(seed, block, start, stop, thresholds, steps, total, low, high, max_rounds, out_final, out_length):
    """Sessions ``start .. stop - 1`` of the outputs, all from the stream of block ``block``.

    A function of its own, not inlined into the ``prange`` body, so that
    numba's parfor analysis never sees the generator's tuple state.
    """
    state = block_state(seed, block)
    for i in range(start, stop):
        z, k, state = play_fresh_session(thresholds, steps, total, low, high, max_rounds, state)
        out_final[i] = z
        out_length[i] = k


@jit_parallel
def play_fresh_blocks(seed, first_block, sessions_per_block, thresholds, steps, total, low, high, max_rounds,
                      out_final, out_length):
    """Play ``len(out_final)`` fresh-shoe sessions in blocks, in parallel over blocks.

    Session ``i`` of the call belongs to block ``first_block + i // sessions_per_block``
    and is played from that block's stream, after the block's earlier sessions.

    Parameters
    ----------
    seed : uint64
    first_block : int64
        Global index of the call's first block (a run is dealt in chunks of blocks).
    sessions_per_block : int64
    thresholds : ndarray(uint64, shape=(a,))
    steps : ndarray(int64, shape=(a,))
    total : uint64
    low, high : int64
        Stop when ``z <= low`` or ``z >= high``.
    max_rounds : int64
    out_final, out_length : ndarray(int64, shape=(n,))
        Filled with each session's final ``z`` and its number of rounds.
    """
    n = out_final.size
    n_blocks = (n + sessions_per_block - 1) // sessions_per_block
    for b in prange(n_blocks):
        start = b * sessions_per_block
        _fresh_block(seed, first_block + b, start, min(n, start + sessions_per_block), thresholds, steps, total, low,
                     high, max_rounds, out_final, out_length)


@jit(inline="always")
def play_dealt_session(cards, shoe_params, code_steps, low, high, max_rounds, state, detail=None):
    """One dealt-shoe session: rounds dealt through consecutive shoes until a bound or ``max_rounds`` rounds.

    The session starts with a freshly shuffled shoe (:func:`~baccarat_sim.kernels.shoe.open_shoe`:
    cut card placed, burn); a new shoe is shuffled whenever the current one
    ends (:func:`~baccarat_sim.kernels.shoe.another_round`). The cards left
    in the last shoe are not used.

    Parameters
    ----------
    cards : ndarray(int32, shape=(N,))
        Encoded cards of the shoe, in any order (reshuffled in place).
    shoe_params : ndarray(int64, shape=(N_SHOE_PARAMS,))
    code_steps : ndarray(int64, shape=(n_cells,))
        The slip's net result per histogram cell (outcome code, times the
        card detail when ``detail`` is given), in lattice units.
    low, high, max_rounds : int64
    state : tuple of 4 uint64
    detail : tuple or None
        Card detail tables (:mod:`baccarat_sim.kernels.detail`) of a slip with card-level bets.

    Returns
    -------
    (int64, int64, int64, state)
        Final net result ``z``, rounds played, shoes shuffled, generator state.
    """
    n_cards = cards.shape[0]
    position, cut_index, stop, more, state = open_shoe(cards, state, shoe_params)
    shoes = np.int64(1)
    z = np.int64(0)
    k = np.int64(0)
    while k < max_rounds:
        if not another_round(position, stop, more):
            position, cut_index, stop, more, state = open_shoe(cards, state, shoe_params)
            shoes += 1
        prefix, suffix, used = round_at(cards, position, detail)
        position += used
        stop, more = after_round(position, stop, more, n_cards, cut_index, shoe_params)
        z += code_steps[code_of(prefix, suffix)]
        k += 1
        if z <= low or z >= high:
            break
    return z, k, shoes, state


@jit
def _dealt_block(canonical, seed, block, start, stop, shoe_params, code_steps, low, high, max_rounds, out_final,
                 out_length, out_shoes, detail):
    """Dealt-shoe sessions ``start .. stop - 1`` of the outputs, all from the stream of block ``block``."""
    state = block_state(seed, block)
    cards = encode_shoe(canonical)  # every block starts from the canonical order
    for i in range(start, stop):
        z, k, shoes, state = play_dealt_session(cards, shoe_params, code_steps, low, high, max_rounds, state, detail)
        out_final[i] = z
        out_length[i] = k
        out_shoes[i] = shoes


@jit_parallel
def play_dealt_blocks(canonical, seed, first_block, sessions_per_block, shoe_params, code_steps, low, high,
                      max_rounds, out_final, out_length, out_shoes, detail=None):
    """Play ``len(out_final)`` dealt-shoe sessions in blocks, in parallel over blocks.

    As :func:`play_fresh_blocks`, with every round dealt from a shoe
    (:func:`play_dealt_session`).

    Parameters
    ----------
    canonical : ndarray(uint8, shape=(N,))
        The shoe's card ids in canonical order.
    seed : uint64
    first_block, sessions_per_block : int64
    shoe_params : ndarray(int64, shape=(N_SHOE_PARAMS,))
        Burn and cut-card settings (:func:`baccarat_sim.kernels.shoe.pack_shoe_params`).
    code_steps : ndarray(int64, shape=(n_cells,))
        Net result per histogram cell, lattice units.
    low, high, max_rounds : int64
    out_final, out_length, out_shoes : ndarray(int64, shape=(n,))
        Filled with each session's final ``z``, rounds and shoes shuffled.
    detail : tuple or None
        Card detail tables of a slip with card-level bets (see :func:`play_dealt_session`).
    """
    n = out_final.size
    n_blocks = (n + sessions_per_block - 1) // sessions_per_block
    for b in prange(n_blocks):
        start = b * sessions_per_block
        _dealt_block(canonical, seed, first_block + b, start, min(n, start + sessions_per_block), shoe_params,
                     code_steps, low, high, max_rounds, out_final, out_length, out_shoes, detail)
