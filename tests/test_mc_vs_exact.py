"""Monte Carlo against the exact engine, for every bet of every shipped rule set.

At a fixed seed, 10 million fresh-shoe rounds of 8 and of 6 decks must agree with the exact
combinatorial histogram: each bet's EV within 4 standard errors (a chance failure of one bet has
probability 6e-5), and the whole outcome histogram by a chi-square test with sparse cells pooled. The
dealt model (one shuffle per shoe, cut card) is held to the fresh-shoe exact RTP of its main bets through
its batch-means standard error, and that standard error is checked against the spread of independent runs.
"""

import math

import numpy as np
import pytest

from baccarat_sim import exact_histogram, load_rules, simulate
from baccarat_sim.analysis.settlement import net_vector, settle_bet
from baccarat_sim.analysis.stats import chi_square, estimate
from baccarat_sim.model.histogram import OutcomeHistogram
from baccarat_sim.model.rules import available_rules

from .run_helpers import MANY_THREADS

SEED = 1234
ROUNDS = 10_000_000


@pytest.fixture(scope="module", params=[8, 6], ids=["8 decks", "6 decks"])
def engines(request):
    decks = request.param
    rules = load_rules("default")
    mc = simulate(rules, ROUNDS, SEED, threads=MANY_THREADS, model="fresh", shoe=decks)
    return decks, mc, exact_histogram(decks)


def wilson_hilferty_z(statistic, dof):
    """Normal score of a chi-square statistic (accurate to about 0.01 in z for dof > 100)."""
    return ((statistic / dof) ** (1 / 3) - (1 - 2 / (9 * dof))) / math.sqrt(2 / (9 * dof))


# The side-bet catalogue (catalogue-*.toml) is checked against Monte Carlo with its card detail in test_catalogue.py.
@pytest.mark.parametrize("rule_set", [n for n in available_rules() if not n.startswith("catalogue-")])
def test_every_bet_agrees_with_the_exact_engine(engines, rule_set):
    decks, mc, exact = engines
    rules = load_rules(rule_set)
    assert mc.rounds == ROUNDS
    failures, checked = [], 0
    for bet in rules.bets:
        est = estimate(mc, net_vector(bet, rules))
        assert est.method == "iid"
        exact_rtp = 1 + float(settle_bet(exact, bet, rules).ev_exact)
        z = est.z(exact_rtp)
        checked += 1
        if not abs(z) < 4:
            failures.append(f"{rule_set}/{bet.id} ({decks} decks): MC RTP {est.rtp:.6f} +/- {est.se:.6f}, "
                            f"exact {exact_rtp:.6f}, z = {z:.2f}")
    assert checked == len(rules.bets) > 0
    assert not failures, "\n".join(failures)


def test_whole_outcome_histogram_passes_chi_square(engines):
    decks, mc, exact = engines
    statistic, dof = chi_square(mc.counts, exact.counts / exact.total, min_expected=5.0)
    z = wilson_hilferty_z(statistic, dof)
    assert dof > 3000  # thousands of cells tested, not a handful
    assert z < 4, f"{decks} decks: chi-square {statistic:.0f} on {dof} degrees of freedom, z = {z:.2f}"
    # Every code the MC engine dealt is possible.
    assert not mc.counts[exact.counts == 0].any()


MAIN_BETS = ("player", "banker", "tie")


def test_dealt_model_main_bets_agree_with_the_fresh_exact_rtp():
    rules = load_rules("live-8deck-side-bets")
    hist = simulate(rules, 6_000_000, SEED, threads=MANY_THREADS, by_position=False)
    exact = exact_histogram(rules.shoe.decks)
    assert hist.model == "dealt" and len(hist.batches) >= 30
    for bet_id in MAIN_BETS:
        bet = rules.bet(bet_id)
        est = estimate(hist, net_vector(bet, rules))
        assert est.method == "batch_means" and est.n_batches == len(hist.batches)
        exact_rtp = 1 + float(settle_bet(exact, bet, rules).ev_exact)
        z = est.z(exact_rtp)
        low, high = est.ci95
        assert abs(z) < 4, f"{bet_id}: dealt RTP {est.rtp:.6f}, 95% CI [{low:.6f}, {high:.6f}], exact " \
                           f"{exact_rtp:.6f}, z = {z:.2f}"


def test_batch_means_standard_error_matches_the_spread_of_independent_runs():
    """30 dealt runs: the SD of their RTPs is what each run's batch-means SE claims it is."""
    rules = load_rules("live-8deck-side-bets")
    nets = {bet_id: net_vector(rules.bet(bet_id), rules) for bet_id in ("banker", "tie", "player_pair")}
    runs = [simulate(rules, 250_000, SEED + k, threads=MANY_THREADS, by_position=False) for k in range(30)]
    for bet_id, net in nets.items():
        estimates = [estimate(h, net) for h in runs]
        spread = float(np.std([e.ev for e in estimates], ddof=1))
        claimed = float(np.sqrt(np.mean([e.se ** 2 for e in estimates])))
        # The sample SD of 30 runs (29 degrees of freedom) falls within 35% of the true SD with probability
        # 0.993 (chi-square: 0.27% below, 0.44% above); each run's batch-means SE is itself an estimate, so
        # this checks the SE to about a third, not more.
        assert 0.65 < spread / claimed < 1.35, f"{bet_id}: SD of run RTPs {spread:.2e}, batch-means SE {claimed:.2e}"


def test_batch_means_standard_error_exceeds_iid_when_shoes_differ():
    """Shoes that differ from each other make a shoe's rounds alike: only batches of whole shoes see it.

    Half the batches come from shoes short of all their 8s and 9s, half from shoes short of all their 6s:
    the Tie bet's exact EV is -2.7% in the first and -16.9% in the second. Counted as one dealt run, the
    i.i.d. formula sees only round-to-round noise; batch means see the shoe-to-shoe difference.
    """
    rules = load_rules("live-8deck-side-bets")
    no_eights_nines, no_sixes = np.full((13, 4), 8), np.full((13, 4), 8)
    no_eights_nines[7:9] = 0
    no_sixes[5] = 0
    a = simulate(rules, 1_000_000, SEED, threads=MANY_THREADS, shoe=no_eights_nines, model="dealt", by_position=False)
    b = simulate(rules, 1_000_000, SEED, threads=MANY_THREADS, shoe=no_sixes, model="dealt", by_position=False)
    n = min(len(a.batches), len(b.batches))
    batches = np.empty((2 * n, a.batches.shape[1]), np.int64)
    batches[0::2], batches[1::2] = a.batches[:n], b.batches[:n]
    mixed = OutcomeHistogram(counts=batches.sum(axis=0), engine="mc", model="dealt", shoe=a.shoe, seed=SEED,
                             rounds=int(batches.sum()), shoes=a.shoes + b.shoes, batches=batches)
    net = net_vector(rules.bet("tie"), rules)
    batch_means = estimate(mixed, net)
    iid = estimate(mixed, net, counts=mixed.counts.copy(), batches=None)
    assert batch_means.method == "batch_means" and iid.method == "iid"
    assert batch_means.ev == pytest.approx(iid.ev, rel=1e-12)
    # Between-batch SD of the EV is about half the 14-point gap, against 2.6 / sqrt(31,000) within.
    assert batch_means.se > 3 * iid.se, f"batch-means SE {batch_means.se:.2e}, iid SE {iid.se:.2e}"
