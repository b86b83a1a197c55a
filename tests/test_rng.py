"""The kernel's random streams: published vectors, a pure-Python twin, unbiased bounded draws.

Reference values:
- splitmix64 seeded with 0: 0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4, 0x06C45D188009454F (Vigna's reference
  implementation, https://prng.di.unimi.it/splitmix64.c).
- xoshiro256** from the state {1, 2, 3, 4}: 11520, 0, 1509978240, ... (the test vectors of the Rust crate
  rand_xoshiro, generated with Blackman and Vigna's reference C code, https://prng.di.unimi.it/xoshiro256starstar.c).
"""

import math

import numba
import numpy as np
import pytest

from baccarat_sim.kernels import rng as _rng

MASK64 = (1 << 64) - 1
MASK32 = (1 << 32) - 1
GAMMA = 0x9E3779B97F4A7C15


# --- a pure-Python twin, written from the papers with Python integers -------------------------------------------

def py_mix(z):
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9 & MASK64
    z = (z ^ (z >> 27)) * 0x94D049BB133111EB & MASK64
    return z ^ (z >> 31)


def py_rotl(x, k):
    return ((x << k) | (x >> (64 - k))) & MASK64


def py_next(s):
    """xoshiro256**: (output, new state)."""
    s0, s1, s2, s3 = s
    result = py_rotl(s1 * 5 & MASK64, 7) * 9 & MASK64
    t = s1 << 17 & MASK64
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    s3 = py_rotl(s3, 45)
    return result, (s0, s1, s2, s3)


#: The odd constants of block_state's mixing steps (fractional parts of the square roots of 2, 3, 5, 7; the first
#: made odd).
KEY_STEPS = (0x6A09E667F3BCC909, 0xBB67AE8584CAA73B, 0x3C6EF372FE94F82B, 0xA54FF53A5F1D36F1)


def py_block_state(seed, block, stream=0, generator=0):
    """Stream version 2: (seed, block, stream, generator) through two rounds of four invertible xor-mix steps."""
    w = [seed, block, stream, generator]
    for _ in range(2):
        for k in range(4):  # word k+1 (mod 4) takes the mix of word k
            w[(k + 1) % 4] ^= py_mix((w[k] + KEY_STEPS[k]) & MASK64)
    return tuple(w)


def py_block_inputs(state):
    """(seed, block, stream, generator) back from a state: the steps of py_block_state undone in reverse order."""
    w = list(state)
    for _ in range(2):
        for k in reversed(range(4)):
            w[(k + 1) % 4] ^= py_mix((w[k] + KEY_STEPS[k]) & MASK64)
    return tuple(w)


def py_bounded_batch(bits32, ranges, state):
    """Lemire's method on the product range, written as one big-integer draw (no mixed-radix trick)."""
    product = math.prod(ranges)
    while True:
        m = bits32 * product
        if (m & MASK32) >= (1 << 32) % product:
            break
        x, state = py_next(state)
        bits32 = x >> 32
    draw = m >> 32
    digits = []
    for r in reversed(ranges):
        draw, digit = divmod(draw, r)
        digits.append(digit)
    return tuple(reversed(digits)), state


def as_state(values):
    return tuple(np.uint64(v) for v in values)


def as_ints(state):
    return tuple(int(v) for v in state)


# --- jitted drivers (the kernel functions are inlined into real kernels, so test them the same way) -------------

@numba.njit(cache=True)
def _outputs(state, n):
    out = np.empty(n, np.uint64)
    for i in range(n):
        value, state = _rng.next_u64(state)
        out[i] = value
    return out


@numba.njit(cache=True)
def _bounded_once(bits32, n, state):
    value, state = _rng.bounded(np.uint64(bits32), n, state)
    return value, state


@numba.njit(cache=True)
def _bounded2_once(bits32, n1, n2, state):
    a, b, state = _rng.bounded2(np.uint64(bits32), n1, n2, state)
    return a, b, state


@numba.njit(cache=True)
def _bounded3_once(bits32, n1, n2, n3, state):
    a, b, c, state = _rng.bounded3(np.uint64(bits32), n1, n2, n3, state)
    return a, b, c, state


@numba.njit(cache=True)
def _histogram_bounded(seed, n, draws):
    """Counts of ``bounded(high half, n)`` and ``bounded(low half, n)`` over a stream."""
    state = _rng.block_state(np.uint64(seed), 0)
    counts = np.zeros(n, np.int64)
    for _ in range(draws // 2):
        x, state = _rng.next_u64(state)
        a, state = _rng.bounded(_rng.high32(x), n, state)
        b, state = _rng.bounded(_rng.low32(x), n, state)
        counts[a] += 1
        counts[b] += 1
    return counts


@numba.njit(cache=True)
def _histogram_bounded3(seed, n1, n2, n3, draws):
    state = _rng.block_state(np.uint64(seed), 0)
    counts = np.zeros((n1, n2, n3), np.int64)
    for _ in range(draws // 2):
        x, state = _rng.next_u64(state)
        a, b, c, state = _rng.bounded3(_rng.high32(x), n1, n2, n3, state)
        counts[a, b, c] += 1
        a, b, c, state = _rng.bounded3(_rng.low32(x), n1, n2, n3, state)
        counts[a, b, c] += 1
    return counts


@numba.njit(cache=True)
def _first_outputs(seed, n_blocks):
    out = np.empty((n_blocks, 4), np.uint64)
    for block in range(n_blocks):
        state = _rng.block_state(np.uint64(seed), block)
        for i in range(4):
            value, state = _rng.next_u64(state)
            out[block, i] = value
    return out


def chi_square_z(counts):
    """Wilson-Hilferty normal score of Pearson's chi-square against equal cell probabilities."""
    counts = np.asarray(counts, float).reshape(-1)
    expected = counts.sum() / counts.size
    statistic = float(((counts - expected) ** 2 / expected).sum())
    k = counts.size - 1
    return ((statistic / k) ** (1 / 3) - (1 - 2 / (9 * k))) / math.sqrt(2 / (9 * k))


# --- published vectors ------------------------------------------------------------------------------------------

def test_splitmix64_matches_the_published_vectors():
    expected = [0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4, 0x06C45D188009454F]
    # splitmix64's k-th output from seed 0 is the mixer applied to k * GAMMA.
    assert [int(_rng.splitmix64_mix(np.uint64(GAMMA * k & MASK64))) for k in (1, 2, 3)] == expected
    assert [py_mix(GAMMA * k & MASK64) for k in (1, 2, 3)] == expected


def test_xoshiro256starstar_matches_the_published_vectors():
    expected = [11520, 0, 1509978240, 1215971899390074240, 1216172134540287360, 607988272756665600,
                16172922978634559625, 8476171486693032832, 10595114339597558777, 2904607092377533576]
    assert [int(v) for v in _outputs(as_state((1, 2, 3, 4)), 10)] == expected
    state, python = (1, 2, 3, 4), []
    for _ in range(10):
        value, state = py_next(state)
        python.append(value)
    assert python == expected


# --- the pure-Python twin ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("seed, block", [(0, 0), (1, 0), (1234, 7), (2**63 - 1, 10**12), (42, 2**40 + 3)])
def test_block_state_and_stream_match_the_python_twin(seed, block):
    state = as_state(_rng.block_state(np.uint64(seed), block))  # numba hands back Python ints
    assert as_ints(state) == py_block_state(seed, block)
    python_state, expected = py_block_state(seed, block), []
    for _ in range(1000):
        value, python_state = py_next(python_state)
        expected.append(value)
    assert [int(v) for v in _outputs(state, 1000)] == expected


def test_bounded_matches_lemire_and_redraws_on_rejection():
    rng = np.random.default_rng(5)
    state = as_state(py_block_state(3, 0))
    for n in [1, 2, 3, 5, 7, 10, 13, 52, 311, 416, 1000, 2**31 + 11, 2**32 - 1]:
        for bits in [0, 1, MASK32, *(int(b) for b in rng.integers(0, 1 << 32, 200))]:
            value, after = _bounded_once(bits, n, state)
            (expected,), expected_state = py_bounded_batch(bits, (n,), as_ints(state))
            assert (value, as_ints(after)) == (expected, expected_state), (n, bits)
    # bits = 0 with n = 3: the product 0 falls in the rejected zone [0, 2**32 mod 3), so the draw
    # must come from the next output, and the state must advance.
    value, after = _bounded_once(0, 3, state)
    next_output, _ = py_next(as_ints(state))
    assert as_ints(after) != as_ints(state)
    assert value == (next_output >> 32) * 3 >> 32


@pytest.mark.parametrize("ranges", [(416, 415, 414), (311, 311, 311), (3, 5, 7), (1625, 1625, 1625), (1300, 1300, 1300),
                                    (1, 1, 1), (2, 2**31, 1)])
def test_bounded3_is_the_big_integer_lemire_draw(ranges):
    rng = np.random.default_rng(sum(ranges))
    state = as_state(py_block_state(9, 1))
    rejected = 0
    for bits in [0, 1, MASK32, *(int(b) for b in rng.integers(0, 1 << 32, 2000))]:
        *digits, after = _bounded3_once(bits, *ranges, state)
        expected, expected_state = py_bounded_batch(bits, ranges, as_ints(state))
        assert (tuple(digits), as_ints(after)) == (expected, expected_state), (ranges, bits)
        rejected += as_ints(after) != as_ints(state)
    if ranges == (1300, 1300, 1300):  # rejects 49% of draws: the rejection path is exercised
        assert rejected > 500


@pytest.mark.parametrize("ranges", [(416, 415), (832, 831), (65536, 65536), (3, 7)])
def test_bounded2_is_the_big_integer_lemire_draw(ranges):
    rng = np.random.default_rng(ranges[0])
    state = as_state(py_block_state(11, 2))
    for bits in [0, 1, MASK32, *(int(b) for b in rng.integers(0, 1 << 32, 2000))]:
        *digits, after = _bounded2_once(bits, *ranges, state)
        expected, expected_state = py_bounded_batch(bits, ranges, as_ints(state))
        assert (tuple(digits), as_ints(after)) == (expected, expected_state), (ranges, bits)


# --- unbiased -------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("n", [2, 3, 5, 6, 7, 10, 13])
def test_bounded_draws_are_uniform(n):
    counts = _histogram_bounded(2024 + n, n, 600_000)
    z = chi_square_z(counts)
    assert abs(z) < 4, f"n={n}: chi-square z = {z:.2f}, counts {counts}"


def test_bounded3_draws_are_uniform_and_independent():
    # 3 * 5 * 7 = 105 joint cells: a bias in any digit or a dependence between them shows here.
    counts = _histogram_bounded3(77, 3, 5, 7, 1_050_000)
    z = chi_square_z(counts)
    assert abs(z) < 4, f"chi-square z = {z:.2f}"


@numba.njit(cache=True)
def _accepted_over_all_inputs(n1, n2, n3):
    """How often each value of ``bounded3`` is accepted, over every 32-bit input."""
    counts = np.zeros(n1 * n2 * n3, np.int64)
    dummy = (np.uint64(1), np.uint64(2), np.uint64(3), np.uint64(4))
    product = np.uint64(n1 * n2 * n3)
    threshold = (np.uint64(1 << 32) - product) % product
    for bits in range(1 << 32):
        a, b, c, _ = _rng.bounded3(np.uint64(bits), n1, n2, n3, dummy)
        low = (np.uint64(bits) * product) & np.uint64(MASK32)
        if low >= threshold:
            counts[(a * n2 + b) * n3 + c] += 1
    return counts


@pytest.mark.slow
def test_bounded_is_exactly_uniform_over_all_inputs():
    """Every 32-bit input: each value in [0, n) is accepted exactly floor(2**32 / n) times."""
    counts = _accepted_over_all_inputs(3, 5, 7)
    assert (counts == (1 << 32) // 105).all()


# --- distinct streams ---------------------------------------------------------------------------------------------

def test_blocks_and_seeds_get_distinct_streams():
    first = _first_outputs(1234, 100_000)
    assert len(np.unique(first.reshape(-1))) == first.size
    other_seed = _first_outputs(1235, 1000)
    assert not np.intersect1d(first[:1000].reshape(-1), other_seed.reshape(-1)).size
    # Neighbouring blocks' outputs share no structure a simple test sees: bits are balanced.
    bits = np.unpackbits(np.ascontiguousarray(first[:, 0]).view(np.uint8))
    assert abs(bits.mean() - 0.5) < 4 * 0.5 / math.sqrt(bits.size)


# --- stream ids (issue 20), generators and the invertible derivation (issue 23) ----------------------------------

@pytest.mark.parametrize("seed, block", [(0, 0), (1234, 7), (2**63 - 1, 10**12)])
@pytest.mark.parametrize("stream", [_rng.STREAM_DEAL, _rng.STREAM_CUT_SCENARIOS])
@pytest.mark.parametrize("generator", [0, 1, 31])
def test_stream_ids_and_generators_match_the_python_twin(seed, block, stream, generator):
    state = as_ints(as_state(_rng.block_state(np.uint64(seed), block, stream, generator)))
    assert state == py_block_state(seed, block, stream, generator)
    if stream == _rng.STREAM_DEAL and generator == 0:
        assert state == as_ints(as_state(_rng.block_state(np.uint64(seed), block)))


def test_a_state_gives_back_its_seed_block_stream_and_generator():
    # Every step of the derivation can be undone, so no two inputs share a state: no block of one seed deals the
    # rounds of another seed's block, and an auxiliary stream or another generator is never a run's dealing stream.
    rng = np.random.default_rng(23)
    inputs = [(0, 0, 0, 0), (2**64 - 1, 2**63 - 1, 1, 31),
              *((int(a), int(b), int(c), int(d)) for a, b, c, d in rng.integers(0, 2**63, (200, 4), dtype=np.int64))]
    for seed, block, stream, generator in inputs:
        state = as_ints(as_state(_rng.block_state(np.uint64(seed), block, stream, generator)))
        assert py_block_inputs(state) == (seed, block, stream, generator)


def test_blocks_of_two_seeds_that_stream_1_collided_now_differ():
    # Stream version 1 keyed a block by mix(mix(seed) ^ mix(block salt)), one 64-bit word two seeds could share:
    # block 1 of seed 0x41a20e1f2270561b dealt the rounds of block 2 of seed 0x6fecc3ec50dd6918 (issue 23).
    def version_1_key(seed, block):
        return py_mix(py_mix(seed) ^ py_mix((block * 0xD1B54A32D192ED03 + GAMMA) & MASK64))

    assert version_1_key(0x41A20E1F2270561B, 1) == version_1_key(0x6FECC3EC50DD6918, 2)
    one = _first_outputs(0x41A20E1F2270561B, 2)[1]
    two = _first_outputs(0x6FECC3EC50DD6918, 3)[2]
    assert not np.intersect1d(one, two).size
