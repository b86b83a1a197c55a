"""Explicit random streams for the dealing kernel (numba, no global state).

Each block of rounds owns xoshiro256** generators whose states are derived from
(master seed, block index, stream id, generator) by an invertible mixing
(:func:`block_state`), so a block deals the same cards whichever thread runs
it and whenever it runs, and no two (seed, block, stream, generator) share a
state: a block of one seed never deals another seed's block. The stream id
says what the numbers are for (:data:`STREAM_DEAL`, the rounds dealt; other
ids for a kernel's auxiliary draws); the generator number tells apart the
generators a fresh-shoe block interleaves
(:func:`baccarat_sim.kernels.fresh.open_fresh_block`). Bounded integers use Lemire's
multiply-and-reject method on 32-bit halves of the 64-bit output: unbiased, and
a rejection is rare (probability below ``n / 2**32``).

The dealing kernel needs six to eight bits per card, so one 32-bit half of an
output serves up to three draws at once (:func:`bounded_batch`, the batched
method of Brackett-Rozinsky and Lemire): one multiply per draw and one rejection
test per three draws, still exactly unbiased. Every output is used whole and
consumed in a fixed order, so no "spare bits" state crosses a round.

References
----------
Blackman and Vigna, "Scrambled linear pseudorandom number generators" (2018).
Lemire, "Fast random integer generation in an interval", ACM TOMACS 29 (2019).
Brackett-Rozinsky and Lemire, "Batched ranged random integer generation",
Software: Practice and Experience 55 (2025), arXiv:2408.06213.
"""

from __future__ import annotations

import numpy as np

from .jit import jit

_U0 = np.uint64(0)
_U1 = np.uint64(1)
_U5 = np.uint64(5)
_U7 = np.uint64(7)
_U9 = np.uint64(9)
_U17 = np.uint64(17)
_U27 = np.uint64(27)
_U30 = np.uint64(30)
_U31 = np.uint64(31)
_U32 = np.uint64(32)
_U45 = np.uint64(45)
_MASK32 = np.uint64(0xFFFFFFFF)
_TWO32 = np.uint64(0x100000000)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
#: Odd constants of :func:`block_state`'s four mixing steps: the fractional parts of the square roots of 2, 3, 5 and
#: 7 (SHA-512's initial words), the first made odd.
_KEY_STEPS = (np.uint64(0x6A09E667F3BCC909), np.uint64(0xBB67AE8584CAA73B), np.uint64(0x3C6EF372FE94F82B),
              np.uint64(0xA54FF53A5F1D36F1))

#: Stream id of the rounds dealt (the Monte Carlo engine, sessions, the counting kernel's shoes).
STREAM_DEAL = 0
#: Stream id of the counting kernel's alternative cut cards (their places, and the shuffle of the cards they reach).
STREAM_CUT_SCENARIOS = 1


@jit(inline="always")
def _rotl(x, k):
    return (x << k) | (x >> (np.uint64(64) - k))


@jit(inline="always")
def splitmix64_mix(z):
    """The splitmix64 output function (a bijective 64-bit mixer)."""
    z = (z ^ (z >> _U30)) * _MIX1
    z = (z ^ (z >> _U27)) * _MIX2
    return z ^ (z >> _U31)


@jit(inline="always")
def _key_step(into, source, step):
    """``into ^ mix(source + step)``: one invertible step of :func:`block_state` (``into`` back from the result)."""
    return into ^ splitmix64_mix(source + step)


@jit
def block_state(seed, block, stream=STREAM_DEAL, generator=0):
    """Generator state of ``generator`` of block ``block`` in stream ``stream`` of master ``seed``.

    The four words start as ``(seed, block, stream, generator)`` and go
    through two rounds of four steps, each of which xors one word with the
    splitmix64 mix of the one before it (:func:`_key_step`). Every step can be
    undone, so the derivation is a bijection of 256 bits: two different
    (seed, block, stream, generator) never share a state (but for the one
    input that would give the all-zero state, moved to ``(1, 0, 0, 0)``: its
    stream and generator numbers are far beyond those in use), and a block of one
    seed never deals the rounds of another seed's block (stream version 1
    xored a mix of the seed with a mix of the block into one 64-bit key,
    which two seeds could share). After two rounds every word depends on all
    four inputs through the mix, so neighbouring blocks start far apart.

    Parameters
    ----------
    seed : uint64
        Master seed.
    block : int64
        Block index (>= 0).
    stream : int64
        Stream id (:data:`STREAM_DEAL`, :data:`STREAM_CUT_SCENARIOS`).
    generator : int64
        Which of a block's interleaved generators (0 where a block has one).

    Returns
    -------
    tuple of 4 uint64
        xoshiro256** state (never all zero).
    """
    w0, w1, w2, w3 = np.uint64(seed), np.uint64(block), np.uint64(stream), np.uint64(generator)
    for _ in range(2):
        w1 = _key_step(w1, w0, _KEY_STEPS[0])
        w2 = _key_step(w2, w1, _KEY_STEPS[1])
        w3 = _key_step(w3, w2, _KEY_STEPS[2])
        w0 = _key_step(w0, w3, _KEY_STEPS[3])
    if w0 == _U0 and w1 == _U0 and w2 == _U0 and w3 == _U0:
        w0 = _U1  # the all-zero state is xoshiro's only fixed point
    return (w0, w1, w2, w3)


@jit(inline="always")
def next_u64(state):
    """Next 64-bit output of xoshiro256**; returns ``(output, new_state)``.

    The state is a tuple of scalars rather than an array so that LLVM keeps it
    in registers inside the dealing loop.
    """
    s0, s1, s2, s3 = state
    result = _rotl(s1 * _U5, _U7) * _U9
    t = s1 << _U17
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    s3 = _rotl(s3, _U45)
    return result, (s0, s1, s2, s3)


@jit(inline="always")
def bounded(bits32, n, state):
    """Uniform integer in ``[0, n)`` from 32 random bits (Lemire, unbiased).

    Parameters
    ----------
    bits32 : uint64
        32 fresh random bits (one half of a :func:`next_u64` output).
    n : int
        Range, ``1 <= n <= 2**32``.
    state : tuple of 4 uint64
        Generator state, used only in the rare case of a rejection.

    Returns
    -------
    (int64, state)
    """
    d1, _, _, state = bounded_batch(bits32, n, 1, 1, state)
    return d1, state


@jit(inline="always")
def high32(x):
    """High 32 bits of a 64-bit output."""
    return x >> _U32


@jit(inline="always")
def low32(x):
    """Low 32 bits of a 64-bit output."""
    return x & _MASK32


@jit(inline="always")
def bounded2(bits32, n1, n2, state):
    """Two independent uniform integers in ``[0, n1)`` and ``[0, n2)`` from 32 random bits.

    See :func:`bounded_batch`; requires ``n1 * n2 <= 2**32``.

    Returns
    -------
    (int64, int64, state)
    """
    d1, d2, _, state = bounded_batch(bits32, n1, n2, 1, state)
    return d1, d2, state


@jit(inline="always")
def bounded3(bits32, n1, n2, n3, state):
    """Three independent uniform integers in ``[0, n1)``, ``[0, n2)``, ``[0, n3)`` from 32 random bits.

    See :func:`bounded_batch`; requires ``n1 * n2 * n3 <= 2**32``.

    Returns
    -------
    (int64, int64, int64, state)
    """
    return bounded_batch(bits32, n1, n2, n3, state)


@jit(inline="always")
def batch_digits(bits32, a, b, c):
    """``divmod(bits32 * a * b * c, 2**32)`` as mixed-radix digits ``(d1, d2, d3)`` and the low word."""
    m = bits32 * a
    d1 = m >> _U32
    m = (m & _MASK32) * b
    d2 = m >> _U32
    m = (m & _MASK32) * c
    return d1, d2, m >> _U32, m & _MASK32


@jit(inline="always")
def bounded_batch(bits32, n1, n2, n3, state):
    """Three independent uniform integers in ``[0, n1)``, ``[0, n2)``, ``[0, n3)`` from 32 random bits.

    Brackett-Rozinsky and Lemire's batched method. With ``P = n1 n2 n3 <=
    2**32``, the three multiply-and-carry steps of :func:`batch_digits` compute
    ``divmod(bits32 * P, 2**32) = (D, low)`` with ``D = (d1 n2 + d2) n3 + d3``
    (mixed radix), so accepting exactly when ``low >= 2**32 mod P`` is
    Lemire's unbiased draw of ``D`` from ``[0, P)``, and the digits are
    independent and uniform. (With ``n2 = n3 = 1`` it is Lemire's method
    itself.) The test ``low < P`` that guards the exact threshold fails with
    probability ``P / 2**32`` (1.7% for three draws from an 8-deck shoe);
    a rejection redraws all three from the next output's high half.

    Parameters
    ----------
    bits32 : uint64
        32 fresh random bits.
    n1, n2, n3 : int
        Ranges, each ``>= 1``, with ``n1 * n2 * n3 <= 2**32``.
    state : tuple of 4 uint64
        Generator state, used only on a rejection.

    Returns
    -------
    (int64, int64, int64, state)
    """
    a = np.uint64(n1)
    b = np.uint64(n2)
    c = np.uint64(n3)
    d1, d2, d3, low = batch_digits(bits32, a, b, c)
    if low < a * b * c:
        return _bounded_slow(low, d1, d2, d3, a, b, c, state)
    return np.int64(d1), np.int64(d2), np.int64(d3), state


@jit(inline="always")
def rejection_threshold(product):
    """Lemire's threshold ``2**32 mod product`` (uint64): a batched draw whose low word is below it is redrawn."""
    return (_TWO32 - product) % product


@jit(inline="always")
def _bounded_slow(low, d1, d2, d3, a, b, c, state):
    """The rare branch of :func:`bounded_batch`: the exact threshold, and redraws while below it.

    Inlined like the rest: a call, even on a cold path, keeps LLVM from
    holding the generator state in registers and costs the fresh kernel 20%.
    """
    threshold = rejection_threshold(a * b * c)
    while low < threshold:
        x, state = next_u64(state)
        d1, d2, d3, low = batch_digits(x >> _U32, a, b, c)
    return np.int64(d1), np.int64(d2), np.int64(d3), state
