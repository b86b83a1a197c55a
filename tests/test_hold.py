"""Hold over N rounds (issue 14): the slip's one-round law, exact lattice sums, saddlepoint, summaries, verdicts.

Exact checks compare with brute-force enumeration in exact Fractions; Monte Carlo checks use fixed seeds and
|z| < 4, as the rest of the suite does.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from baccarat_sim import exact_histogram, load_rules, settle_slip
from baccarat_sim.analysis.convolution import U, exact_convolve
from baccarat_sim.analysis.empirical import EmpiricalSum
from baccarat_sim.analysis.hold import (
    QUANTILE_LEVELS,
    check_observed,
    fan_chart,
    hold_distribution,
    sum_distribution,
    summarize,
)
from baccarat_sim.analysis.lattice import LatticeSum, exact_sum
from baccarat_sim.analysis.one_round import OneRound, fraction_gcd, house_round, one_round
from baccarat_sim.analysis.saddlepoint import SaddlepointSum, saddlepoint_sum
from baccarat_sim.analysis.sessions import simulate_tables
from baccarat_sim.analysis.settlement import settle_bet
from baccarat_sim.analysis.slip import build_slip
from baccarat_sim.errors import InputError, LimitError

MAIN = {"banker": 100, "player": 50}
SIDE = {"banker": 100, "perfect_pair_250": 5}  # perfect pair pays 25 and 250 to 1


@pytest.fixture(scope="module")
def main_slip():
    return build_slip(load_rules("default"), MAIN)


@pytest.fixture(scope="module")
def side_slip():
    return build_slip(load_rules("common-variants"), SIDE)


def brute_force_sum(one: OneRound, n: int) -> dict[int, Fraction]:
    """Exact law of the sum of n rounds, in lattice units, by repeated convolution in Fractions."""
    law = {0: Fraction(1)}
    atoms = [(int(s), Fraction(w, one.total)) for s, w in zip(one.steps, one.weights)]
    for _ in range(n):
        nxt: dict[int, Fraction] = {}
        for v, p in law.items():
            for s, q in atoms:
                nxt[v + s] = nxt.get(v + s, 0) + p * q
        law = nxt
    return law


def z_score(estimate: float, exact: float, se: float) -> float:
    return (estimate - exact) / se if se > 0 else (0.0 if estimate == exact else math.inf)


# --- the slip's one round: what the settlement layer gives ------------------------------------------------------


@pytest.mark.parametrize("stakes, rules", [(MAIN, "default"), (SIDE, "common-variants"),
                                           ({"player": 10, "tie": 1}, "default"),
                                           ({"banker": 7, "player_bonus": 2}, "live-8deck-side-bets"),
                                           ({"banker": 10, "tie": 1}, "rng-6deck-single-hand")])
def test_one_round_equals_settle_slip(stakes, rules):
    rule_set = load_rules(rules)
    slip = build_slip(rule_set, stakes)
    settled = settle_slip(exact_histogram(rule_set.shoe.decks), rule_set, stakes)
    one = slip.player
    assert [(v, p) for v, p in settled.distribution] == [(v, w / one.total) for v, w in zip(one.values, one.weights)]
    assert one.mean == settled.ev_exact
    assert math.isclose(one.sd, settled.sd, rel_tol=1e-12)
    assert all(v == s * one.unit for v, s in zip(one.values, one.steps))
    assert fraction_gcd(one.values) == one.unit
    assert slip.total_stake == sum(Fraction(s) for s in stakes.values()) == one.cost


def test_net_per_code_settles_every_outcome_as_the_one_round_law(side_slip):
    hist = exact_histogram(8)
    weights: dict[int, int] = {}
    for code in np.flatnonzero(hist.counts):
        weights[int(side_slip.code_steps[code])] = weights.get(int(side_slip.code_steps[code]), 0) + int(
            hist.counts[code])
    common = math.gcd(*weights.values())
    assert sorted((s, w // common) for s, w in weights.items()) == list(zip(side_slip.player.steps.tolist(),
                                                                             side_slip.player.weights))


@pytest.mark.parametrize("stake", [1, 2, 3, 5, 7])
def test_rounded_commission_uses_the_nets_for_the_stake(stake):
    rules = load_rules("online-commission-rounding")
    slip = build_slip(rules, {"banker": stake})
    per_unit = settle_bet(exact_histogram(8), "banker", rules, stake=stake)
    assert slip.rounded_commission
    assert [(stake * v, p) for v, p in per_unit.distribution] == [(v, w / slip.player.total) for v, w in
                                                                  zip(slip.player.values, slip.player.weights)]
    assert float(slip.house_edge) == pytest.approx(-per_unit.ev, rel=1e-12)
    if stake == 1:  # a one-chip win pays 0.75: the Banker returns 89.77%
        assert round(1 - float(slip.house_edge), 4) == 0.8977


def test_slip_limits_and_bets_come_from_the_settlement_layer():
    with pytest.raises(LimitError, match="limits.max_bet.tie"):
        build_slip(load_rules("rng-6deck-single-hand"), {"tie": 20})
    with pytest.raises(LimitError, match="equal_player_banker"):
        build_slip(load_rules("rng-6deck-single-hand"), {"player": 10, "banker": 10})
    with pytest.raises(LimitError, match="no such bet"):
        build_slip(load_rules("default"), {"dragon": 1})


def test_lattice_units(main_slip):
    rules = load_rules("default")
    assert main_slip.unit == 5  # 45, -50, 0
    assert build_slip(rules, {"banker": 100, "tie": 5}).unit == 5  # 95-5, -105, 40
    assert build_slip(rules, {"banker": 1}).unit == Fraction(1, 20)  # 0.95 and -1
    house = house_round(main_slip.player)
    assert house.values == (-45, 0, 50) and house.mean == -main_slip.player.mean


# --- exact lattice sums -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("n", [1, 2, 3, 5, 7])
def test_exact_sum_equals_brute_force(n, main_slip, side_slip):
    for one in (house_round(main_slip.player), house_round(side_slip.player)):
        dist = exact_sum(one, n)
        truth = brute_force_sum(one, n)
        assert dist.error_bound < 1e-10  # Chernoff cuts of 1e-12 at each step, round-off far below
        stored = dict(zip((dist.start + dist.stride * np.arange(dist.pmf.size)).tolist(), dist.pmf.tolist()))
        cdf = Fraction(0)
        for v in sorted(truth):
            cdf += truth[v]
            assert abs(stored.get(v, 0.0) - truth[v]) <= dist.error_bound
            assert abs(dist.cdf(v * one.unit) - cdf) <= dist.error_bound
            assert abs(dist.prob_below(v * one.unit) - (cdf - truth[v])) <= dist.error_bound
        assert dist.mean == n * one.mean and dist.variance == n * one.variance


def test_exact_convolution_is_correctly_rounded():
    rng = np.random.default_rng(7)
    for na, nb in [(12, 9), (700, 41), (3000, 2500)]:
        a = rng.random(na) ** 6
        b = rng.random(nb)
        c, bound = exact_convolve(a, b)
        assert bound < 2 * U * c.sum()
        for i in rng.integers(0, na + nb - 1, 6):
            exact = sum(Fraction(a[j]) * Fraction(b[i - j]) for j in range(max(0, i - nb + 1), min(i, na - 1) + 1))
            assert abs(Fraction(c[i]) - exact) <= 1.01 * U * exact


def test_a_million_rounds_meet_the_1e9_target(main_slip):
    dist = hold_distribution(main_slip, 10**6)
    assert isinstance(dist, LatticeSum)
    assert dist.error_bound < 1e-9 and dist.method.startswith("exact lattice")
    assert math.isclose(float(dist.pmf @ dist.values()), float(dist.mean), rel_tol=1e-12)
    assert math.isclose(math.sqrt(float(dist.pmf @ (dist.values() - float(dist.mean)) ** 2)), dist.sd, rel_tol=1e-9)


def test_lattice_against_monte_carlo_tables(side_slip):
    """N = 10^4 rounds of the side-bet slip at 8,000 simulated tables (the session kernel with no stops; 8e7 rounds)."""
    n, tables = 10_000, 8_000
    exact = hold_distribution(side_slip, n)
    mc = simulate_tables(side_slip, n, tables, seed=2024, model="fresh")
    assert isinstance(mc, EmpiricalSum) and mc.samples == tables and mc.complete
    for x in [0, float(exact.quantile(0.1).value), float(exact.mean), float(exact.quantile(0.9).value)]:
        p = exact.prob_below(x)
        z = z_score(mc.prob_below(x), p, math.sqrt(p * (1 - p) / tables))
        assert abs(z) < 4, f"P(S < {x}): MC {mc.prob_below(x)} vs exact {p}, z = {z:.2f}"
    z = z_score(mc.mean, float(exact.mean), exact.sd / math.sqrt(tables))
    assert abs(z) < 4, f"mean: z = {z:.2f}"
    summary = summarize(mc, side_slip.total_stake)
    assert summary.kind == "monte carlo" and summary.p_house_behind.ci95 is not None
    lo, hi = summary.p_house_behind.ci95
    assert lo <= summary.p_house_behind.value <= hi


# --- saddlepoint --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("stakes, rules, n", [(SIDE, "common-variants", 20_000), (MAIN, "default", 200_000),
                                              ({"perfect_pair_250": 1}, "common-variants", 30_000)])
def test_saddlepoint_within_its_stated_error(stakes, rules, n):
    """The error measured at a smaller N (check_points 2**12) bounds the error at N, checked at every value."""
    house = house_round(build_slip(load_rules(rules), stakes).player)
    approx = saddlepoint_sum(house, n, check_points=2**12)
    exact = exact_sum(house, n)
    assert approx.check.n_check < n
    values = exact.start + exact.stride * np.arange(exact.pmf.size)
    t = (values - approx.start) // approx.stride
    below, above = approx.split_at(t + 1)
    exact_below, exact_above = exact.split_at(np.arange(1, exact.pmf.size + 1))
    worst = float(np.max(np.abs(below - exact_below)))
    assert worst <= approx.error_bound, f"{worst:.2e} > stated {approx.error_bound:.2e}"
    assert float(np.max(np.abs(above - exact_above))) <= approx.error_bound
    for q in QUANTILE_LEVELS:
        a, e = approx.quantile(q), exact.quantile(q)
        assert a.low <= e.value <= a.high
    assert approx.mean == exact.mean and approx.sd == exact.sd


def test_switch_to_saddlepoint_is_labelled_and_never_normal(side_slip):
    dist = sum_distribution(house_round(side_slip.player), 50_000, max_points=2**14)
    assert isinstance(dist, SaddlepointSum)
    assert dist.method.startswith("saddlepoint (Lugannani-Rice") and "measured" in dist.method
    assert "normal" not in dist.method
    summary = summarize(dist, side_slip.total_stake, behind_by=[1000])
    assert summary.kind == "saddlepoint"
    assert summary.p_house_behind.method == dist.method and summary.p_house_behind.error == dist.error_bound


# --- summaries and the observed-hold verdict ---------------------------------------------------------------------


def test_quantile_and_p_value_definitions():
    one = one_round([-2, 1, 3], [1, 2, 1])  # P = 1/4, 1/2, 1/4
    dist = exact_sum(one, 1)
    assert dist.quantile(0.25).value == -2  # P(S <= -2) = 0.25 >= 0.25
    assert dist.quantile(0.2500001).value == 1
    assert dist.quantile(0.75).value == 1 and dist.quantile(0.76).value == 3
    assert dist.cdf(1) == 0.75 and dist.prob_below(1) == 0.25 and dist.prob_at_least(1) == 0.75
    assert dist.cdf(Fraction(1, 2)) == 0.25 and dist.prob_above(1) == 0.25
    top = check_observed(dist, 1, win=3, handle=1)  # handle of one round of a 1-chip slip
    assert top.p_at_most.value == 1.0 and top.p_at_least.value == 0.25
    assert top.p_two_sided.value == 0.5 and top.percentile == 100.0
    middle = check_observed(dist, 1, win=1, handle=1)
    assert middle.p_two_sided.value == 1.0  # min(1, 2 min(0.75, 0.75))
    with pytest.raises(InputError, match="observed_handle"):
        check_observed(dist, 1, win=1, handle=0)


def test_summary_of_the_main_slip(main_slip):
    dist = hold_distribution(main_slip, 10_000)
    s = summarize(dist, main_slip.total_stake, behind_by=[0, 5000])
    assert s.mean == 10_000 * -main_slip.player.mean and math.isclose(s.sd, 100 * main_slip.player.sd)
    assert s.handle == 10_000 * 150 and s.hold_mean == pytest.approx(float(main_slip.house_edge))
    assert s.p_house_behind.value == dist.prob_below(0) == s.p_behind_by[0][1].value
    assert s.p_behind_by[1][1].value <= s.p_house_behind.value
    lo, hi = s.central_95
    assert dist.cdf(hi.value) - dist.prob_below(lo.value) >= 0.95
    assert s.hold_range_95 == (float(lo.value / s.handle), float(hi.value / s.handle))
    assert [q.q for q in s.quantiles] == list(QUANTILE_LEVELS)
    assert all(q.low == q.value == q.high for q in s.quantiles)  # the 1e-11 bound cannot move a quantile here
    assert s.kind == "exact" and s.p_house_behind.method.startswith("exact lattice")


def test_observed_hold_is_compared_as_a_hold_on_the_slips_handle(main_slip):
    dist = hold_distribution(main_slip, 10_000)
    summary = summarize(dist, main_slip.total_stake)
    low, high = summary.central_95
    # The observed handle need not be the slip's: the hold W / H is what is compared.
    inside = check_observed(dist, 150, win=low.value * 2, handle=summary.handle * 2)
    assert inside.model_win == low.value and inside.inside_95 and inside.percentile >= 2.5
    below = check_observed(dist, 150, win=(low.value - 5) * 3, handle=summary.handle * 3)
    assert not below.inside_95 and below.percentile < 2.5 and below.p_two_sided.value < 0.05
    assert below.inside(99) == below.inside_99
    assert check_observed(dist, 150, win=float(dist.mean), handle=summary.handle).p_two_sided.value > 0.9


def test_fan_chart_bands_are_nested_and_narrow(main_slip):
    fan = fan_chart(main_slip, [10, 10_000])
    assert fan.rounds[0] == 10 and fan.rounds[-1] == 10_000 and 100 in fan.rounds and len(fan.rounds) == 13
    holds = np.array(fan.holds)
    assert np.all(np.diff(holds, axis=1) >= 0)  # quantiles ascend within each N
    widths = holds[:, -1] - holds[:, 0]
    assert np.all(np.diff(widths) < 0)  # the 99% band narrows as N grows


# --- slips with bets on the cards themselves (issue 13) -----------------------------------------------------------


def test_a_slip_with_card_level_bets_is_settled_on_its_card_detail():
    from baccarat_sim.engines.detail import rules_detail

    rules = load_rules("catalogue-colour-and-suits").with_shoe(model="dealt")
    stakes = {"colour_match": 10, "super_tie_100_25_7": 1}
    slip = build_slip(rules, stakes)
    assert slip.detail is not None and slip.code_steps.shape == (slip.detail.n_cells,)
    settled = settle_slip(exact_histogram(8, rules_detail(rules)), rules, stakes)
    assert [(v, p) for v, p in settled.distribution] == [
        (v, w / slip.player.total) for v, w in zip(slip.player.values, slip.player.weights)]
    # Dealt tables: every round's cell (outcome and card detail) is settled as the slip says; the mean hold of
    # 4,000 tables of 200 rounds agrees with the exact edge (rounds of a shoe are dependent, but the mean is not).
    tables = simulate_tables(slip, 200, 4000, seed=3)
    low, high = tables.mean_ci95
    se = (high - low) / (2 * 1.959963984540054)
    assert abs(z_score(tables.mean, -200 * float(slip.player.mean), se)) < 4
