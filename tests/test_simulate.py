"""The Monte Carlo driver: reproducible whatever the threads or chunking, exact counts, the reference dealer.

A histogram is a pure function of (rules, rounds, seed): the tests below run the same plan on 1 and 2
threads, in one go and in pieces, through the parallel and the serial (distributed) block drivers and
through the kernel's two dealt-model paths (position rows recorded per shoe group, or one row counted
directly), and require identical integers every time.
"""

import dataclasses
import math

import numba
import numpy as np
import pytest

from baccarat_sim import exact_histogram, load_rules, simulate
from baccarat_sim.engines.plan import plan_run
from baccarat_sim.engines.state import RunState
from baccarat_sim.kernels import counters as C
from baccarat_sim.kernels import mc as MC
from baccarat_sim.model.codes import N_CODES, decode
from baccarat_sim.model.shoe import canonical_cards

from . import reference_dealer as reference
from .run_helpers import MANY_THREADS, run_chunk, run_chunks

SEED = 20240611


@pytest.fixture(scope="module")
def fresh_rules():
    return load_rules("default")


@pytest.fixture(scope="module")
def dealt_rules():
    return load_rules("live-8deck-side-bets")


def assert_same(a, b):
    assert (a.rounds, a.shoes, a.seed, a.model) == (b.rounds, b.shoes, b.seed, b.model)
    np.testing.assert_array_equal(a.counts, b.counts)
    np.testing.assert_array_equal(a.batches, b.batches)
    if a.by_position is None or b.by_position is None:
        assert a.by_position is None and b.by_position is None
    else:
        np.testing.assert_array_equal(a.by_position, b.by_position)


CASES = {  # name: (rule set, model, by_position, rounds)
    "fresh": ("default", "fresh", None, 3_000_001),
    "dealt, position rows": ("live-8deck-side-bets", "dealt", True, 1_500_000),
    "dealt, one row": ("live-8deck-side-bets", "dealt", False, 1_500_000),
    "dealt, half-shoe cut card range": ("live-8deck-dragon-tiger", "dealt", True, 1_000_000),
}


@pytest.mark.parametrize("case", CASES)
def test_thread_count_does_not_change_the_histogram(case):
    name, model, by_position, rounds = CASES[case]
    rules = load_rules(name)
    one = simulate(rules, rounds, SEED, threads=1, model=model, by_position=by_position)
    two = simulate(rules, rounds, SEED, threads=MANY_THREADS, model=model, by_position=by_position)
    assert_same(one, two)
    other_seed = simulate(rules, rounds, SEED + 1, threads=MANY_THREADS, model=model, by_position=by_position)
    assert not np.array_equal(one.counts, other_seed.counts)


@pytest.mark.parametrize("case", CASES)
def test_chunking_does_not_change_the_histogram(case):
    name, model, by_position, rounds = CASES[case]
    plan = plan_run(load_rules(name), rounds, SEED, model=model, by_position=by_position)
    assert plan.n_chunks >= 10
    whole = run_chunks(plan, RunState.empty(plan), threads=MANY_THREADS).histogram(plan)
    pieces = RunState.empty(plan)
    while pieces.next_chunk < plan.n_chunks:  # three chunks at a time, alternating thread counts
        run_chunks(plan, pieces, threads=min(1 + pieces.next_chunk % 2, MANY_THREADS), max_chunks=3)
    assert_same(whole, pieces.histogram(plan))
    backwards = RunState.empty(plan)  # one chunk at a time, as a distributed backend delivers them
    for chunk in reversed(range(plan.n_chunks)):
        counts, rounds_dealt, shoes = run_chunk(plan, chunk)
        backwards.add(plan, chunk, counts, rounds_dealt, shoes)
    assert_same(whole, backwards.histogram(plan))


def test_serial_and_parallel_block_drivers_agree(dealt_rules):
    plan = plan_run(dealt_rules, 400_000, SEED)
    args = (canonical_cards(plan.shoe), MC.MODEL_DEALT, np.uint64(plan.seed), 0, plan.total_blocks,
            plan.units_per_block, plan.last_units, plan.total_blocks, np.array(plan.shoe_params, np.int64))
    lanes, lane_totals = np.zeros((3, plan.n_positions, N_CODES), np.int64), np.zeros((3, 2), np.int64)
    MC.deal_blocks(*args, lanes, lane_totals)
    serial, totals = np.zeros((plan.n_positions, N_CODES), np.int64), np.zeros(2, np.int64)
    MC.deal_blocks_serial(*args, serial, totals)
    np.testing.assert_array_equal(lanes.sum(axis=0), serial)
    np.testing.assert_array_equal(lane_totals.sum(axis=0), totals)


@pytest.mark.parametrize("rounds", [1, 2, 65_535, 65_536, 65_537, 1_000_003])
def test_fresh_model_deals_exactly_the_rounds_asked(fresh_rules, rounds):
    hist = simulate(fresh_rules, rounds, SEED, threads=MANY_THREADS)
    assert hist.rounds == rounds == hist.total
    assert hist.shoes == 0 and hist.by_position is None
    assert hist.batches.sum() == rounds


def test_dealt_model_counts_rounds_and_shoes_exactly(dealt_rules):
    plan = plan_run(dealt_rules, 1_000_000, SEED)
    hist = simulate(dealt_rules, 1_000_000, SEED, threads=MANY_THREADS)
    shoes = (plan.total_blocks - 1) * plan.units_per_block + plan.last_units
    assert hist.shoes == shoes
    assert hist.rounds == hist.total == hist.by_position.sum() == hist.batches.sum()
    rounds_per_shoe = hist.by_position.sum(axis=1)
    assert rounds_per_shoe[0] == shoes  # every shoe deals a first round
    assert (np.diff(rounds_per_shoe) <= 0).all()  # a shoe with a k-th round has a (k-1)-th
    # 8 decks, 2-11 cards burned, the cut card 14 from the end (the round that takes card 402 is the
    # last), 4-6 cards a round: from 11 + 6 r > 402 at least 66 rounds, from 2 + 4 r > 402 at most 101.
    assert rounds_per_shoe[65] == shoes and not rounds_per_shoe[101:].any()
    assert abs(hist.rounds / 1_000_000 - 1) < 0.01  # whole shoes, about as many rounds as asked


def test_position_rows_and_the_one_row_path_deal_the_same_rounds(dealt_rules):
    rows = simulate(dealt_rules, 800_000, SEED, threads=MANY_THREADS, by_position=True)
    flat = simulate(dealt_rules, 800_000, SEED, threads=MANY_THREADS, by_position=False)
    np.testing.assert_array_equal(rows.counts, flat.counts)
    np.testing.assert_array_equal(rows.by_position.sum(axis=0), flat.counts)
    assert flat.by_position is None


def test_lane_counters_are_flushed_before_they_overflow(dealt_rules):
    """A lane counts position rows in uint8, each wrap carried to int64 at once: the counts must be deal_block's."""
    plan = plan_run(dealt_rules, 1, SEED)
    shoe, canonical = np.array(plan.shoe_params, np.int64), canonical_cards(plan.shoe)
    blocks, per_block = 4_200, 16  # 67,200 shoes through one lane
    lanes, totals = np.zeros((1, plan.n_positions, N_CODES), np.int64), np.zeros((1, 2), np.int64)
    MC.deal_blocks(canonical, MC.MODEL_DEALT, np.uint64(3), 0, blocks, per_block, per_block, blocks, shoe, lanes,
                  totals)
    assert lanes[0, 0].sum() == blocks * per_block > 65_535
    assert lanes[0].max() > 256  # some counter wrapped
    direct = np.zeros((plan.n_positions, N_CODES), np.int64)
    for block in range(blocks):
        MC.deal_block(canonical, MC.MODEL_DEALT, np.uint64(3), block, per_block, shoe, direct)
    np.testing.assert_array_equal(lanes[0], direct)
    # A fresh block bigger than a uint16 counter holds goes through uint32 counters.
    big, big_totals = np.zeros((1, 2, N_CODES), np.int64), np.zeros((1, 2), np.int64)
    MC.deal_blocks(canonical, MC.MODEL_FRESH, np.uint64(3), 0, 2, 70_000, 70_000, 2, shoe, big, big_totals)
    direct = np.zeros((2, N_CODES), np.int64)
    for block in range(2):
        MC.deal_block(canonical, MC.MODEL_FRESH, np.uint64(3), block, 70_000, shoe, direct)
    np.testing.assert_array_equal(big[0], direct)
    assert big_totals[0, 0] == 140_000


def test_kept_small_lanes_give_every_call_its_per_code_totals_and_the_same_rows_when_folded(dealt_rules):
    """A run's dealer keeps the uint8 position rows from one call to the next, as LocalDealer does.

    After every call the carried sums plus the small rows' totals are the per-code totals of all shoes dealt so
    far (what a batch's close reads), and the rows folded at the end are deal_block's, shoe for shoe.
    """
    plan = plan_run(dealt_rules, 1, SEED)
    shoe, canonical = np.array(plan.shoe_params, np.int64), canonical_cards(plan.shoe)
    per_block, calls, blocks_a_call = 16, 6, 700  # 67,200 shoes through two lanes: counters wrap
    lanes, totals = np.zeros((2, plan.n_positions, N_CODES), np.int64), np.zeros((2, 2), np.int64)
    small, carried = MC.small_lanes(lanes, MC.MODEL_DEALT)
    assert small.shape == lanes.shape and small.dtype == np.uint8 and carried.shape == (2, N_CODES)
    direct = np.zeros((plan.n_positions, N_CODES), np.int64)
    for call in range(calls):
        first = call * blocks_a_call
        MC.deal_blocks(canonical, MC.MODEL_DEALT, np.uint64(3), first, blocks_a_call, per_block, per_block,
                       calls * blocks_a_call, shoe, lanes, totals, None, (small, carried))
        for block in range(first, first + blocks_a_call):
            MC.deal_block(canonical, MC.MODEL_DEALT, np.uint64(3), block, per_block, shoe, direct)
        np.testing.assert_array_equal(carried, lanes.sum(axis=1))
        by_code = carried.sum(axis=0)
        for lane in small:
            C.add_code_totals(lane, by_code)
        np.testing.assert_array_equal(by_code, direct.sum(axis=0))
    assert carried.any()  # some counter wrapped and was carried
    for lane in range(2):
        C.fold_lane(small[lane], lanes[lane])
    assert not small.any()
    np.testing.assert_array_equal(lanes.sum(axis=0), direct)
    assert totals[:, 1].sum() == calls * blocks_a_call * per_block



@pytest.mark.parametrize("model, units", [(MC.MODEL_FRESH, 3_000), (MC.MODEL_DEALT, 4)])
def test_lanes_take_every_block_of_a_call_once_whichever_lane_takes_it(dealt_rules, model, units):
    """The lanes of a call take its blocks from a shared counter, as they are free (more lanes than threads here).

    Which lane deals a block varies from call to call; the lanes' sums are the blocks' own, each block once, and
    the rounds and shoes the lanes report add up to the call's.
    """
    plan = plan_run(dealt_rules, 1, SEED)
    shoe, canonical = np.array(plan.shoe_params, np.int64), canonical_cards(plan.shoe)
    n_blocks, first, lanes = 37, 5, 5
    rows = plan.n_positions if model == MC.MODEL_DEALT else 1
    counts, totals = np.zeros((lanes, rows, N_CODES), np.int64), np.zeros((lanes, 2), np.int64)
    threads = numba.get_num_threads()
    numba.set_num_threads(MANY_THREADS)  # the lanes on threads of their own where the machine has them
    try:
        MC.deal_blocks(canonical, model, np.uint64(9), first, n_blocks, units, units - 1, first + n_blocks, shoe,
                       counts, totals)
    finally:
        numba.set_num_threads(threads)
    direct = np.zeros((rows, N_CODES), np.int64)
    dealt = [MC.deal_block(canonical, model, np.uint64(9), block, units - (block == first + n_blocks - 1), shoe,
                           direct) for block in range(first, first + n_blocks)]
    np.testing.assert_array_equal(counts.sum(axis=0), direct)
    assert totals[:, 0].sum() == sum(rounds for rounds, _ in dealt) == direct.sum()
    if model == MC.MODEL_DEALT:
        assert totals[:, 1].sum() == n_blocks * units - 1

# --- the reference dealer, in distribution ----------------------------------------------------------------------

def z_two_means(a, b):
    return (np.mean(a) - np.mean(b)) / math.sqrt(np.var(a, ddof=1) / len(a) + np.var(b, ddof=1) / len(b))


@pytest.mark.parametrize("name, after", [("live-8deck-side-bets", "finish_round"),
                                         ("live-8deck-side-bets", "one_more_round"),
                                         ("live-8deck-dragon-tiger", "finish_round")])
def test_kernel_shoes_match_the_reference_dealer(name, after):
    """Rounds per shoe, and the outcome mix by position, from both dealers.

    The burn, the cut card and the after-cut rule all move the number of rounds a shoe deals: a burn
    off by one card shifts the mean by about 0.2 round (a round takes 4.94 cards), a cut card one round
    late by a whole round. With 2,400 reference shoes (SD 1.6 rounds: SE 0.033) against 25,000 kernel
    shoes (SE 0.010) those are 6 and 30 standard errors, so |z| < 4 misses a one-card burn error in
    about one case in 50 and a late cut card never.
    """
    rules = load_rules(name)
    shoe = dataclasses.replace(rules.shoe, rounds_after_cut=int(after == "one_more_round"))
    rules = dataclasses.replace(rules, shoe=shoe)
    kernel = simulate(rules, 2_000_000, SEED, threads=MANY_THREADS)
    shoes = 2400
    ours = reference.deal_dealt(rules.shoe, shoes, SEED)
    kernel_rows, reference_rows = kernel.by_position.sum(axis=1), ours.sum(axis=1)
    # rows[k] counts the shoes with a (k + 1)-th round, so rows[k] - rows[k + 1] dealt exactly k + 1.
    kernel_per_shoe = np.repeat(np.arange(len(kernel_rows)) + 1, -np.diff(np.append(kernel_rows, 0)))
    reference_per_shoe = np.repeat(np.arange(len(reference_rows)) + 1, -np.diff(np.append(reference_rows, 0)))
    assert len(reference_per_shoe) == shoes
    z = z_two_means(kernel_per_shoe, reference_per_shoe)
    assert abs(z) < 4, f"rounds per shoe: kernel {kernel_per_shoe.mean():.3f}, reference " \
                       f"{reference_per_shoe.mean():.3f}, z = {z:.2f}"
    # Banker wins in the first ten positions and in the rest (the burn shapes the first rounds).
    fields = decode(np.arange(N_CODES))
    banker_wins = fields["banker_score"] > fields["player_score"]
    for rows in (slice(0, 10), slice(10, None)):
        k_hits, k_n = kernel.by_position[rows][:, banker_wins].sum(), kernel.by_position[rows].sum()
        r_hits, r_n = ours[rows][:, banker_wins].sum(), ours[rows].sum()
        p = (k_hits + r_hits) / (k_n + r_n)
        z = (k_hits / k_n - r_hits / r_n) / math.sqrt(p * (1 - p) * (1 / k_n + 1 / r_n))
        assert abs(z) < 4, f"banker wins, positions {rows}: z = {z:.2f}"


def test_reference_fresh_dealer_matches_the_exact_engine():
    counts = reference.deal_fresh(np.full((13, 4), 6), 60_000, SEED)
    exact = exact_histogram(6)
    fields = decode(np.arange(N_CODES))
    # Coarse cells that every round spreads over: the two final scores (100 cells).
    cell = fields["player_score"] * 10 + fields["banker_score"]
    observed = np.bincount(cell, weights=counts, minlength=100)
    expected = np.bincount(cell, weights=exact.counts / exact.total, minlength=100) * counts.sum()
    statistic = float(((observed - expected) ** 2 / expected).sum())
    k = 99
    z = ((statistic / k) ** (1 / 3) - (1 - 2 / (9 * k))) / math.sqrt(2 / (9 * k))
    assert abs(z) < 4, f"chi-square {statistic:.1f} on {k} degrees of freedom, z = {z:.2f}"
