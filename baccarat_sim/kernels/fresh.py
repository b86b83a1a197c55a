"""A freshly shuffled shoe for every round: six positions of the shoe drawn uniformly, by interleaved generators.

Pure numba functions, no I/O. A fresh block interleaves
:data:`FRESH_GENERATORS` generators (stream version 2): each turns one 64-bit
output into a candidate round's six positions, and the candidates of all of
them are drawn in one loop that LLVM vectorises (eight generators to a
512-bit register). A candidate is accepted when its positions are distinct
and both of its batched draws pass Lemire's threshold; the block's rounds are
the accepted candidates, generator by generator within each draw. The round
reads the cards at those positions of the unchanged canonical array (no
swaps, no stores), which is faster than a partial Fisher-Yates shuffle and
faster than one generator drawing six positions a round (measurements:
``docs/benchmarks.md``, "Kernel design measurements").
"""

from __future__ import annotations

import numpy as np

from .jit import jit
from .rng import STREAM_DEAL, batch_digits, block_state, high32, low32, next_u64, rejection_threshold
from .round import round_with_detail

__all__ = ["FRESH_DRAWS", "FRESH_GENERATORS", "FRESH_MAX_CARDS", "fresh_cards", "fresh_positions", "fresh_round_parts",
           "next_fresh", "open_fresh_block"]

_U0, _U1, _U2, _U3, _U4, _U5 = (np.uint64(k) for k in range(6))
#: Generators a fresh-shoe block interleaves (:func:`open_fresh_block`).
FRESH_GENERATORS = 32
_G = FRESH_GENERATORS
_UG = np.uint64(_G)
# The draws array of a fresh block (uint64): the generators' states (word k of generator g at k * _G + g), the six
# positions of each generator's latest candidate (position k at _DRAW_POSITIONS + k * _G + g), whether it was
# accepted, the threshold below which a batched draw is rejected and the shoe size it is for (kept together, so that
# no caller can draw positions for one size with another size's threshold).
_DRAW_POSITIONS = 4 * _G
_DRAW_ACCEPTED = 10 * _G
_DRAW_THRESHOLD = 11 * _G
_DRAW_CARDS = 11 * _G + 1
#: Length of a fresh block's draws array (:func:`open_fresh_block`).
FRESH_DRAWS = 11 * _G + 2
#: Most cards a fresh shoe may hold: a candidate draws three positions from each 32-bit half of an output, which
#: needs ``n_cards**3 <= 2**32`` (1,625; the shoe model's MAX_CARDS is below it).
FRESH_MAX_CARDS = int(np.floor(np.cbrt(2.0**32)))
if FRESH_MAX_CARDS**3 > 2**32 or (FRESH_MAX_CARDS + 1)**3 <= 2**32:
    raise RuntimeError("internal error: FRESH_MAX_CARDS is not the largest n with n**3 <= 2**32")
_M32 = np.uint64(0xFFFFFFFF)


@jit
def open_fresh_block(seed, block, n_cards, draws):
    """Start block ``block`` of master ``seed`` for a fresh shoe of ``n_cards`` cards; return the cursor.

    ``draws`` (uint64, :data:`FRESH_DRAWS`) takes the states of the block's
    :data:`FRESH_GENERATORS` generators (:func:`~baccarat_sim.kernels.rng.block_state`,
    generators ``0 .. FRESH_GENERATORS - 1`` of the dealing stream), the
    shoe size and the rejection threshold ``2**32 mod n_cards**3``; the
    cursor says that no candidate is drawn yet (:func:`next_fresh`).
    """
    if n_cards > FRESH_MAX_CARDS:
        raise ValueError("internal error: a fresh shoe holds more cards than three draws per 32 bits allow")
    for g in range(_G):
        s0, s1, s2, s3 = block_state(seed, block, STREAM_DEAL, g)
        draws[g], draws[_G + g], draws[2 * _G + g], draws[3 * _G + g] = s0, s1, s2, s3
    draws[_DRAW_THRESHOLD] = rejection_threshold(np.uint64(n_cards) * np.uint64(n_cards) * np.uint64(n_cards))
    draws[_DRAW_CARDS] = n_cards
    return np.int64(_G)


@jit
def _draw_candidates(draws):
    """One candidate round from every generator of ``draws``: six positions in ``[0, n_cards)`` and its acceptance.

    Each generator's next output gives three positions from each 32-bit half
    by Brackett-Rozinsky and Lemire's batched draw (:func:`~baccarat_sim.kernels.rng.bounded_batch`):
    a half whose low word falls below the threshold ``2**32 mod n_cards**3``
    would bias them, and a repeated position would make the six not a sample
    without replacement; either rejects the candidate, so the accepted ones
    are uniform ordered samples of six distinct positions, independent of
    each other. Written lane by lane on the arrays, with no branch, so that
    LLVM vectorises the generators.
    """
    n = draws[_DRAW_CARDS] & _M32  # the shoe size, known to fit 32 bits: 32-bit multiplies
    threshold = draws[_DRAW_THRESHOLD]
    for g in range(_G):
        x, (s0, s1, s2, s3) = next_u64((draws[g], draws[_G + g], draws[2 * _G + g], draws[3 * _G + g]))
        draws[g], draws[_G + g], draws[2 * _G + g], draws[3 * _G + g] = s0, s1, s2, s3
        j0, j1, j2, low_high = batch_digits(high32(x), n, n, n)
        j3, j4, j5, low_low = batch_digits(low32(x), n, n, n)
        repeat = (np.uint64(j1 == j0) | np.uint64(j2 == j0) | np.uint64(j2 == j1) | np.uint64(j3 == j0)
                  | np.uint64(j3 == j1) | np.uint64(j3 == j2) | np.uint64(j4 == j0) | np.uint64(j4 == j1)
                  | np.uint64(j4 == j2) | np.uint64(j4 == j3) | np.uint64(j5 == j0) | np.uint64(j5 == j1)
                  | np.uint64(j5 == j2) | np.uint64(j5 == j3) | np.uint64(j5 == j4))
        positions = _DRAW_POSITIONS + g
        draws[positions], draws[positions + _G], draws[positions + 2 * _G] = j0, j1, j2
        draws[positions + 3 * _G], draws[positions + 4 * _G], draws[positions + 5 * _G] = j3, j4, j5
        draws[_DRAW_ACCEPTED + g] = (np.uint64(low_high >= threshold) & np.uint64(low_low >= threshold)
                                     & (repeat ^ _U1))


@jit(inline="always")
def next_fresh(draws, cursor):
    """The generator whose candidate is the block's next round (uint64), and the new cursor: ``(g, cursor)``.

    ``cursor`` (``0 .. FRESH_GENERATORS``) is the next generator to look at;
    when every candidate is used, all the generators draw again (:func:`_draw_candidates`).
    """
    while True:
        if cursor == _G:
            _draw_candidates(draws)
            cursor = 0
        g = np.uint64(cursor)  # unsigned: no test for a negative index
        cursor += 1
        if draws[np.uint64(_DRAW_ACCEPTED) + g] != _U0:
            return g, cursor


@jit(inline="always")
def fresh_positions(draws, cursor):
    """Six distinct positions in ``[0, n_cards)``, a uniform ordered sample; returns ``(j0, ..., j5, cursor)``.

    The next accepted candidate of the block's generators (:func:`next_fresh`), as unsigned indices.
    """
    g, cursor = next_fresh(draws, cursor)
    at = np.uint64(_DRAW_POSITIONS) + g  # unsigned throughout: no test for a negative index
    return (draws[at], draws[at + _UG], draws[at + _UG * _U2], draws[at + _UG * _U3], draws[at + _UG * _U4],
            draws[at + _UG * _U5], cursor)


@jit(inline="always")
def fresh_cards(cards, draws, cursor):
    """A fresh round's six encoded cards, as int64 ``(e0, ..., e5, cursor)``.

    ``cards`` (encoded, any fixed order; the shoe its block was opened for)
    is only read: the round takes the cards at six positions drawn by
    :func:`fresh_positions` (a uniform ordered sample of six cards is exactly
    the top of a uniformly shuffled shoe).
    """
    j0, j1, j2, j3, j4, j5, cursor = fresh_positions(draws, cursor)
    return (np.int64(cards[j0]), np.int64(cards[j1]), np.int64(cards[j2]), np.int64(cards[j3]), np.int64(cards[j4]),
            np.int64(cards[j5]), cursor)


@jit(inline="always")
def fresh_round_parts(cards, draws, cursor, detail):
    """Deal one round from a freshly shuffled shoe (:func:`fresh_cards`); return ``(prefix, suffix, cursor)``.

    All six cards are drawn even when a natural ends the round: a
    branch-free round is faster than saving the random bits. With card
    ``detail`` tables (None: none) the prefix carries the round's card detail
    (:func:`~baccarat_sim.kernels.round.round_detail`).
    """
    e0, e1, e2, e3, e4, e5, cursor = fresh_cards(cards, draws, cursor)
    prefix, suffix, _ = round_with_detail(e0, e1, e2, e3, e4, e5, detail)
    return prefix, suffix, cursor
