"""Player sessions (issue 14): the exact Markov chain, the Monte Carlo kernel (fresh and dealt shoes), the job.

The chain is checked against recursive path enumeration in Fractions; Monte Carlo against the chain with |z| < 4
and fixed seeds; results must be bit-identical for any number of threads (and must pass on one core).
"""

from __future__ import annotations

import math
from fractions import Fraction

import numba
import numpy as np
import pytest

from baccarat_sim import load_rules
from baccarat_sim.analysis.hold import bankroll_curve, hold_distribution, study_sessions
from baccarat_sim.analysis.one_round import one_round
from baccarat_sim.analysis.sessions import (
    SessionRules,
    chain_cells,
    session_bounds,
    session_chain,
    simulate_sessions,
    simulate_tables,
)
from baccarat_sim.analysis.slip import build_slip
from baccarat_sim.engines.driver import RunControl, run
from baccarat_sim.engines.local import LocalBackend
from baccarat_sim.engines.sessions import NO_BOUND, SessionJob, SessionPlan, sampling_table
from baccarat_sim.errors import InputError

NAMES = ("p_goal", "p_stop_loss", "p_ruin", "p_limit", "mean_final", "mean_length")


@pytest.fixture(scope="module")
def banker():
    return build_slip(load_rules("default"), {"banker": 10})  # steps of 0.5: -20, 0, +19


@pytest.fixture(scope="module")
def side_slip():
    return build_slip(load_rules("common-variants"), {"banker": 100, "perfect_pair_250": 5})


def enumerate_sessions(one, rules: SessionRules):
    """Exact session law by recursion over the paths that have not stopped yet (no double counting)."""
    b = session_bounds(one, rules)
    atoms = [(int(s), Fraction(w, one.total)) for s, w in zip(one.steps, one.weights)]
    final: dict[int, Fraction] = {}
    length: dict[int, Fraction] = {}

    def walk(z, k, p):
        for s, q in atoms:
            nz, np_ = z + s, p * q
            if nz <= b.low or nz >= b.high or k + 1 == rules.max_rounds:
                final[nz] = final.get(nz, 0) + np_
                length[k + 1] = length.get(k + 1, 0) + np_
            else:
                walk(nz, k + 1, np_)

    walk(0, 0, Fraction(1))
    return b, final, length


@pytest.mark.parametrize("rules", [
    SessionRules(bankroll=20, max_rounds=7, stop_loss=15, stop_win=12),
    SessionRules(bankroll=12, max_rounds=8, stop_win=25),  # ruin only: cannot cover the next 10
    SessionRules(bankroll=30, max_rounds=6),  # round limit only
])
def test_session_chain_equals_enumeration(rules, banker):
    one = banker.player
    b, final, length = enumerate_sessions(one, rules)
    chain = session_chain(one, rules)
    assert chain.bounds == b and chain.exact
    pmf = dict(zip(chain.final_steps.tolist(), chain.final_pmf.tolist()))
    for z, p in final.items():
        assert abs(pmf[z] - p) < 1e-14
    assert abs(chain.final_pmf.sum() - 1) < 1e-14
    for k, p in length.items():
        assert abs(chain.length_pmf[k] - p) < 1e-14
    goal = sum(p for z, p in final.items() if z >= b.high)
    ruin = sum(p for z, p in final.items() if z <= b.ruin)
    assert abs(chain.p_goal.value - goal) < 1e-14 and abs(chain.p_ruin.value - ruin) < 1e-14
    mean = sum(p * z for z, p in final.items()) * one.unit
    assert abs(chain.mean_final.value - mean) < 1e-12
    assert chain_cells(one, rules) == (b.high - b.low - 1) * rules.max_rounds


def test_ruin_and_stop_definitions(banker):
    one = banker.player
    b = session_bounds(one, SessionRules(bankroll=10, max_rounds=5))
    assert b.ruin == b.low == -1  # any net loss leaves less than the 10 the next slip costs
    b = session_bounds(one, SessionRules(bankroll=25, max_rounds=5, stop_loss=10))
    assert b.low == -20 and b.ruin == -31  # stop at a loss of 10; ruin below 25 - 10 = 15 left
    with pytest.raises(InputError, match="cannot cover"):
        session_bounds(one, SessionRules(bankroll=5, max_rounds=5))
    with pytest.raises(InputError, match="stop_loss"):
        SessionRules(bankroll=5, max_rounds=5, stop_loss=0)
    with pytest.raises(InputError, match="max_rounds"):
        SessionRules(bankroll=5, max_rounds=0)


@pytest.mark.parametrize("stakes, rules", [
    ({"banker": 10}, SessionRules(bankroll=200, max_rounds=400, stop_loss=100, stop_win=60)),
    ({"banker": 20, "player": 10}, SessionRules(bankroll=150, max_rounds=300, stop_win=100)),
])
def test_monte_carlo_sessions_against_the_chain(stakes, rules):
    slip = build_slip(load_rules("default"), stakes)
    chain = session_chain(slip.player, rules)
    mc = simulate_sessions(slip, rules, 200_000, seed=99)
    for name in NAMES:
        e, m = getattr(chain, name), getattr(mc, name)
        z = m.z(e.value)
        assert abs(z) < 4, f"{name}: MC {m.value} +- {m.se} vs exact {e.value}, z = {z:.2f}"
        assert m.ci_low <= m.value <= m.ci_high
    assert mc.seed == 99 and mc.n_sessions == 200_000 and mc.complete and "Monte Carlo" in mc.method
    assert abs(mc.final_pmf.sum() - 1) < 1e-12 and abs(mc.length_pmf.sum() - 1) < 1e-12


def test_dealt_sessions_against_the_fresh_exact_chain(banker):
    """Banker 10 through 8-deck shoes dealt to the cut card: the cut card barely moves its RTP, so the dealt-model
    Monte Carlo must agree with the fresh-shoe chain within its confidence intervals."""
    rules = SessionRules(bankroll=300, max_rounds=300, stop_loss=150, stop_win=100)
    dealt = build_slip(load_rules("default").with_shoe(model="dealt"), {"banker": 10})
    assert dealt.model == "dealt"
    chain = session_chain(banker.player, rules)
    mc = simulate_sessions(dealt, rules, 60_000, seed=7)
    assert mc.model == "dealt" and "cut card" in mc.method
    for name in NAMES:
        e, m = getattr(chain, name), getattr(mc, name)
        assert abs(m.z(e.value)) < 4, f"{name}: dealt MC {m.value} +- {m.se} vs fresh exact {e.value}"
        half = (m.ci_high - m.ci_low) / 2
        assert m.ci_low <= m.value <= m.ci_high
        assert m.ci_low - 2 * half <= e.value <= m.ci_high + 2 * half  # the exact value within twice the 95% CI
    # Whole dealt tables, no stops: the house's result over 500 rounds against the fresh lattice.
    tables = simulate_tables(dealt, 500, 8_000, seed=3)
    exact = hold_distribution(banker, 500)
    for x in (0, float(exact.quantile(0.2).value), float(exact.quantile(0.8).value)):
        p = exact.prob_below(x)
        z = (tables.prob_below(x) - p) / math.sqrt(p * (1 - p) / tables.samples)
        assert abs(z) < 4, f"P(S < {x}): dealt {tables.prob_below(x)} vs fresh exact {p}, z = {z:.2f}"
    low, high = tables.mean_ci95
    assert abs(tables.mean - float(exact.mean)) < 2 * (high - low)
    median = tables.quantile(0.5)
    assert median.low <= median.value <= median.high


def test_one_round_sampling_is_exact(side_slip):
    """Sessions of one round: the final result is one draw, against all 9 outcomes (chi-square, 8 dof)."""
    n = 400_000
    mc = simulate_sessions(side_slip.player, SessionRules(bankroll=10**4, max_rounds=1), n, seed=5)
    counts = dict(zip(mc.final_steps.tolist(), (mc.final_pmf * n).tolist()))
    observed = np.array([counts.get(int(s), 0.0) for s in side_slip.player.steps])
    expected = side_slip.player.probabilities * n
    chi2 = float(((observed - expected) ** 2 / expected).sum())
    assert chi2 < 26.1, f"chi-square {chi2:.1f} on 8 dof (p < 0.001 above 26.1)"
    thresholds, steps, total = sampling_table(side_slip.player.steps, side_slip.player.weights)
    assert int(total) == side_slip.player.total and int(thresholds[-1]) == side_slip.player.total
    assert list(np.diff(np.concatenate(([0], thresholds.astype(object))))) == sorted(side_slip.player.weights,
                                                                                    reverse=True)


@pytest.mark.parametrize("model", ["fresh", "dealt"])
def test_bit_identical_for_any_thread_count(model):
    slip = build_slip(load_rules("default").with_shoe(model=model), {"banker": 100, "player": 50})
    rules = SessionRules(bankroll=2000, max_rounds=500, stop_loss=1000, stop_win=800)
    threads = min(2, numba.config.NUMBA_NUM_THREADS)  # 1 vs 1 on a one-core machine: still a valid run
    before = numba.get_num_threads()
    one = simulate_sessions(slip, rules, 20_000, seed=11, threads=1)
    many = simulate_sessions(slip, rules, 20_000, seed=11, threads=threads)
    assert np.array_equal(one.final_steps, many.final_steps) and np.array_equal(one.final_pmf, many.final_pmf)
    assert np.array_equal(one.length_pmf, many.length_pmf) and one.rounds == many.rounds
    assert one.mean_final == many.mean_final and one.p_goal == many.p_goal
    assert numba.get_num_threads() == before  # restored
    different = simulate_sessions(slip, rules, 20_000, seed=12, threads=threads)
    assert not np.array_equal(one.length_pmf, different.length_pmf)


def test_a_session_is_fixed_by_seed_and_block_not_by_chunking():
    """The job's layout depends on the run's size only; playing its blocks one at a time gives the same sessions."""
    slip = build_slip(load_rules("default"), {"player": 10})
    plan = SessionPlan.for_sessions("fresh", 5000, 200, seed=3)
    assert plan.n_chunks > 1 and plan.sessions_per_block * plan.total_blocks >= 5000
    job = SessionJob(plan, -NO_BOUND, NO_BOUND, fresh=sampling_table(slip.player.steps, slip.player.weights))
    state = job.new_state()
    outcome = run(job, state, LocalBackend(1), RunControl())
    assert state.sessions == 5000 and state.rounds == 5000 * 200 and not outcome.interrupted
    finals = np.concatenate([job.play(b, min(plan.sessions_per_block, 5000 - b * plan.sessions_per_block))[0]
                             for b in range(plan.total_blocks)])
    values, counts = np.unique(finals, return_counts=True)
    assert np.array_equal(values, state.final_values) and np.array_equal(counts, state.final_counts)
    partial = job.new_state()
    run(job, partial, LocalBackend(1), RunControl(max_chunks=1))
    assert 0 < partial.sessions < 5000 and partial.chunks_done == 1


def test_memory_does_not_grow_with_the_horizon():
    """Tables of 10^7 rounds: the state counts the lengths seen, not a counter per possible length (80 MB here)."""
    import tracemalloc

    slip = build_slip(load_rules("default"), {"player": 10})
    plan = SessionPlan.for_sessions("fresh", 3, 10**7, seed=3)
    assert plan.n_chunks > 1  # the old per-chunk table was allocated on every chunk
    job = SessionJob(plan, -NO_BOUND, NO_BOUND, fresh=sampling_table(slip.player.steps, slip.player.weights))
    job.play(0, 1)  # compile (or load) before measuring
    state = job.new_state()
    tracemalloc.start()
    try:
        run(job, state, LocalBackend(1), RunControl())
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert state.sessions == 3 and state.rounds == 3 * 10**7
    assert state.length_values.tolist() == [10**7] and state.length_counts.tolist() == [3]
    assert state.length_table(10**7 + 1)[10**7] == 3
    assert peak < 8 * 10**6, f"{peak / 1e6:.1f} MB for tables of 10^7 rounds"


def test_long_sessions_get_small_blocks():
    plan = SessionPlan.for_sessions("dealt", 1000, 10**6, seed=1)
    assert plan.sessions_per_block == 1 and plan.total_blocks == 1000
    assert SessionPlan.for_sessions("fresh", 10**6, 1000, seed=1).sessions_per_block == 1024
    with pytest.raises(InputError, match="model"):
        SessionPlan.for_sessions("shuffled", 10, 10)


def test_study_and_bankroll_curve(banker):
    rules = SessionRules(bankroll=100, max_rounds=200, stop_loss=60, stop_win=50)
    study = study_sessions(banker, rules, 20_000, seed=4)
    assert study.exact is not None and set(study.z_scores()) == set(NAMES)
    assert all(abs(z) < 4 for z in study.z_scores().values())
    curve = bankroll_curve(banker, rules, 10_000, seed=4, points=5)
    assert all(point.exact for point in curve) and Fraction(100) in [p.bankroll for p in curve]
    ruin = [p.p_ruin for p in curve]
    assert ruin == sorted(ruin, reverse=True)  # more bankroll, less ruin


def test_a_bare_one_round_law_runs_fresh_only():
    coin = one_round([1, -1], [1, 1], cost=1)
    rules = SessionRules(bankroll=5, max_rounds=50, stop_win=5)
    mc = simulate_sessions(coin, rules, 20_000, seed=1)
    exact = session_chain(coin, rules)
    assert abs(mc.p_goal.z(exact.p_goal.value)) < 4
    with pytest.raises(InputError, match="dealt"):
        simulate_sessions(coin, rules, 100, seed=1, model="dealt")
