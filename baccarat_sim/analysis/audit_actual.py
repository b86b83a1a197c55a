"""Actual against theoretical: each bet's RTP and hit frequency, outcome, rank, suit and run tests, BH-controlled.

Theoretical figures are the exact engine's for a freshly shuffled shoe of the rule set
(:func:`~baccarat_sim.engines.exact.exact_histogram`, settled by :func:`~baccarat_sim.analysis.settlement.settle_bet`);
the rounds of a dealt shoe differ from them by the cut card's effect, far below what a year of play resolves.

* RTP: the sum over the rounds of the bet's result per unit staked in the round (the mean over the round's bets
  on it: they share the round's outcome, so the round is the independent unit; a payout error moves it), whose law
  over ``n`` rounds is the ``n``-fold sum of the bet's exact one-round law, computed on its payout lattice
  (:func:`~baccarat_sim.analysis.hold.sum_distribution`, the one ``hold`` uses) while ``n <= LATTICE_MAX_BETS``
  rounds, the normal law above (counts large enough for it); the two-sided p-value is
  ``min(1, 2 min(P(S <= s), P(S >= s)))``.
* Hit frequency: the number of rounds the bet won, binomial, on the same lattice.
* Outcomes (winner and card counts), ranks and suits of the cards dealt against the shoe's composition: Pearson
  chi-square, the rank and suit statistics corrected for dealing without replacement (divided by ``1 - f``, ``f``
  the share of a shoe dealt).
* Runs of Banker and Player wins within shoes (ties left out): the Wald-Wolfowitz z, two-sided.
* Each shoe's ranks (:func:`shoe_rank_tests`), a family of its own, where the chi-square holds.

By rule set and bet: over all the rounds, by month, by table and by stake level (1-2-5 bands). Every p-value of
this family is put through Benjamini-Hochberg at a false discovery rate of 5%
(:func:`~baccarat_sim.analysis.audit_stats.benjamini_hochberg`): a clean month raises a flag of this family with
probability at most 5% (each family of the audit alike: hold periods, shoes, each advantage-play test).
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from ..engines.exact import exact_histogram
from ..model.cards import N_SUITS
from ..model.codes import decode
from ..model.rules import Rules
from .audit_data import AuditData, unique_inverse
from .audit_stats import FDR, benjamini_hochberg, chi_square_sf, runs_test
from .hold import sum_distribution
from .one_round import one_round
from .settlement import settle_bet

__all__ = ["LATTICE_MAX_BETS", "actual_vs_theoretical", "stake_band", "theoretical"]

#: Fewest cards of a rank a chi-square cell must expect.
MIN_EXPECTED = 5
#: Largest number of bets whose p-values are computed on the exact lattice (the normal law above).
LATTICE_MAX_BETS = 20_000
_THEORY: dict = {}
_SUMS: dict = {}


def theoretical(rules: Rules) -> dict:
    """The exact figures of a rule set: its histogram, and per bet (settled on codes) its law and hit law."""
    key = (rules.sha256, rules.shoe.decks)
    if key not in _THEORY:
        hist = exact_histogram(rules)
        bets = {}
        for bet in rules.bets:
            result = settle_bet(hist, bet, rules)
            values = [net for net, _ in result.distribution]
            probabilities = [Fraction(p) for _, p in result.distribution]
            scale = math.lcm(*(p.denominator for p in probabilities))
            weights = [int(p * scale) for p in probabilities]
            hit = sum(w for v, w in zip(values, weights) if v > 0)
            bets[bet.id] = {"rtp": result.rtp, "ev": result.ev, "sd": result.sd, "hit": result.hit_frequency,
                            "law": one_round(values, weights),
                            "hit_law": one_round([1, 0], [hit, scale - hit]) if 0 < hit < scale else None}
        _THEORY[key] = {"hist": hist, "bets": bets}
    return _THEORY[key]


def stake_band(stakes: np.ndarray) -> np.ndarray:
    """The 1-2-5 band of each stake (its lower end): 1, 2, 5, 10, 20, 50, ..."""
    stakes = np.asarray(stakes, float)
    decade = 10.0 ** np.floor(np.log10(np.maximum(stakes, 1e-9)))
    mantissa = stakes / decade
    return decade * np.where(mantissa >= 5, 5, np.where(mantissa >= 2, 2, 1))


def _two_sided(law, n: int, observed: float, mean: float, sd: float) -> tuple[float, str]:
    if n == 0:
        return 1.0, "none"
    if n <= LATTICE_MAX_BETS:
        key = (id(law), n)
        if key not in _SUMS:
            _SUMS[key] = (law, sum_distribution(law, n))
        dist = _SUMS[key][1]
        snapped = Fraction(round(observed / float(law.unit))) * law.unit
        return min(1.0, 2 * min(dist.cdf(snapped), dist.prob_at_least(snapped))), "lattice"
    z = (observed - n * mean) / (sd * math.sqrt(n))
    return min(1.0, math.erfc(abs(z) / math.sqrt(2))), "normal"


def _groups(data: AuditData, rows: np.ndarray, stakes: np.ndarray):
    """(by, group names, group of each of ``rows``) of every breakdown."""
    yield "all", np.array(["all"]), np.zeros(len(rows), np.int64)
    months = data.rounds["day"][rows].astype("datetime64[M]")
    names, where = np.unique(months, return_inverse=True)
    yield "month", names.astype(str), where
    numbers, where = unique_inverse(data.rounds["table_code"][rows])
    yield "table", data.rounds["table_names"][numbers], where
    names, where = np.unique(stake_band(stakes), return_inverse=True)
    yield "stake", np.array([f"{band:g}" for band in names]), where


def _bet_rows(data: AuditData, rules: Rules, rule_id: str) -> list[dict]:
    theory = theoretical(rules)["bets"]
    bets = data.bets
    rows_out = []
    for bet_id, figures in theory.items():
        chosen = data.bets_on(rule_id, bet_id)
        if not chosen.size:
            continue
        stakes, nets = bets["stake"][chosen], bets["net"][chosen]
        units = nets / stakes
        law = figures["law"]
        rounds_of = bets["row"][chosen]
        for by, names, group in _groups(data, rounds_of, stakes):
            # The round is the unit that is independent: the bets on one bet in one round share its outcome. A
            # (group, round) pair is one unit of the group; its result the mean of its bets' results per unit staked.
            pairs, where = unique_inverse(group * np.int64(data.n_rounds + 1) + rounds_of)
            per_round = np.bincount(where, weights=units) / np.bincount(where)
            group_of_pair = pairs // (data.n_rounds + 1)
            size = len(names)
            n_rounds = np.bincount(group_of_pair, minlength=size)
            sums = np.bincount(group_of_pair, weights=per_round, minlength=size)
            hit_counts = np.bincount(group_of_pair, weights=per_round > 0, minlength=size)
            n_bets = np.bincount(group, minlength=size)
            staked = np.bincount(group, weights=stakes, minlength=size)
            net = np.bincount(group, weights=nets, minlength=size)
            hit_law = figures["hit_law"]
            for g, name in enumerate(names):
                n, hits = int(n_rounds[g]), int(hit_counts[g])
                p_rtp, method = _two_sided(law, n, float(sums[g]), figures["ev"], figures["sd"])
                p_hit = _two_sided(hit_law, n, hits, figures["hit"],
                                   math.sqrt(figures["hit"] * (1 - figures["hit"])))[0] if hit_law is not None else 1.0
                rows_out.append({"rule_set": rule_id, "bet": bet_id, "by": by, "group": str(name),
                                 "bets": int(n_bets[g]), "rounds": n, "staked": float(staked[g]),
                                 "net": float(net[g]), "actual_rtp": 1 + float(net[g] / staked[g]),
                                 "theoretical_rtp": figures["rtp"], "hits": hits, "actual_hit": hits / n,
                                 "theoretical_hit": figures["hit"], "p_rtp": p_rtp, "p_hit": p_hit,
                                 "method": method})
    return rows_out


def _outcome_classes(codes: np.ndarray) -> np.ndarray:
    """Winner (Player, Banker, Tie) by the hands' card counts: 12 classes."""
    fields = decode(codes)
    winner = np.sign(fields["banker_score"] - fields["player_score"])  # -1 Player, 0 tie, 1 Banker
    return ((winner + 1) * 2 + fields["player_cards"]) * 2 + fields["banker_cards"]


def _chi_square(observed: np.ndarray, probabilities: np.ndarray, correction: float = 1.0) -> tuple[float, int, float]:
    n = observed.sum()
    expected = probabilities * n
    keep = expected > 0
    statistic = float((((observed - expected) ** 2)[keep] / expected[keep]).sum()) / correction
    dof = int(keep.sum()) - 1
    return statistic, dof, chi_square_sf(statistic, dof)


def _card_counts(cards: np.ndarray, rows: np.ndarray, block: int = 1 << 20) -> np.ndarray:
    """How many times each card id was dealt in ``rows``.

    A block of rounds at a time: a year's cards as int64 indexes are gigabytes.
    """
    counts = np.zeros(13 * N_SUITS, np.int64)
    for first in range(0, len(rows), block):
        dealt = cards[rows[first:first + block]].reshape(-1)
        counts += np.bincount(dealt[dealt >= 0], minlength=13 * N_SUITS)
    return counts


def _round_tests(data: AuditData, rules: Rules, rule_id: str) -> list[dict]:
    mine = np.flatnonzero(data.of_rule(rule_id) & (data.resolved.misdeal == 0))
    if not mine.size:
        return []
    hist = theoretical(rules)["hist"]
    class_probabilities = np.bincount(_outcome_classes(np.arange(hist.code_counts.size)),
                                      weights=hist.code_counts.astype(float), minlength=12)
    class_probabilities /= class_probabilities.sum()
    classes = _outcome_classes(data.resolved.code[mine])
    months = data.rounds["day"][mine].astype("datetime64[M]").astype(str)
    n_cards = rules.shoe.decks * 52
    dealt_share = min(0.99, float(data.resolved.cards_used[mine].sum()) / (max(1, data.shoe_start[mine].sum())
                                                                           * n_cards))
    out = []
    for group in ["all", *np.unique(months)]:
        chosen = np.ones(len(mine), bool) if group == "all" else months == group
        rows = mine[chosen]
        statistic, dof, p = _chi_square(np.bincount(classes[chosen], minlength=12).astype(float), class_probabilities)
        out.append({"rule_set": rule_id, "test": "outcomes", "by": "all" if group == "all" else "month",
                    "group": group, "rounds": int(chosen.sum()), "statistic": statistic, "dof": dof, "p": p})
        by_card = _card_counts(data.rounds["cards"], rows).reshape(13, N_SUITS)  # card id: rank * 4 + suit
        for test, counted, size in (("ranks", by_card.sum(axis=1), 13), ("suits", by_card.sum(axis=0), N_SUITS)):
            statistic, dof, p = _chi_square(counted.astype(float), np.full(size, 1 / size), 1 - dealt_share)
            out.append({"rule_set": rule_id, "test": test, "by": "all" if group == "all" else "month",
                        "group": group, "rounds": int(chosen.sum()), "statistic": statistic, "dof": dof, "p": p})
        fields = decode(data.resolved.code[rows])
        decided = fields["banker_score"] != fields["player_score"]
        banker = (fields["banker_score"] > fields["player_score"])[decided]
        starts = data.shoe_start[rows][decided] if decided.any() else np.zeros(0, bool)
        if banker.size > 2:
            starts = starts.copy()
            starts[0] = True
            runs, expected, z = runs_test(banker, starts)
            out.append({"rule_set": rule_id, "test": "runs", "by": "all" if group == "all" else "month",
                        "group": group, "rounds": int(banker.size), "statistic": z, "dof": 0,
                        "p": math.erfc(abs(z) / math.sqrt(2)), "runs": runs, "expected_runs": expected})
    return out


def shoe_rank_tests(data: AuditData) -> list[dict]:
    """The shoes whose ranks fail their composition (chi-square, 12 degrees of freedom, BH at 5% over the shoes).

    The statistic is corrected for dealing without replacement (``(N - 1) / (N - n)``, ``n`` of the shoe's ``N``
    cards dealt).
    """
    shoe = np.cumsum(data.shoe_start) - 1
    if not len(shoe):
        return []
    cards = data.rounds["cards"]
    present = cards >= 0
    counts = np.zeros((int(shoe[-1]) + 1, 13))
    cell = np.broadcast_to(shoe[:, None], cards.shape)[present] * 13 + cards[present] // 4
    counts += np.bincount(cell, minlength=counts.size).reshape(counts.shape)
    n = counts.sum(axis=1)
    first_rows = np.flatnonzero(data.shoe_start)
    decks = np.array([data.rules[data.rule_set(row)].shoe.decks for row in first_rows])
    size = decks * 52
    # Dealing without replacement: the dealt ranks' deviations are the undealt ranks', so the chi-square holds
    # only where both the dealt and the undealt cards expect at least MIN_EXPECTED of every rank (a shoe dealt to
    # its usual cut card leaves a dozen or two cards: its ranks are not tested; one with more of a card than the
    # shoe holds is an integrity finding).
    tested = np.flatnonzero((n / 13 >= MIN_EXPECTED) & ((size - n) / 13 >= MIN_EXPECTED))
    share = n[tested] / size[tested]
    expected = n[tested, None] / 13
    statistic = (((counts[tested] - expected) ** 2) / expected).sum(axis=1) / (1 - share) * (size[tested] - 1) \
        / size[tested]
    half = statistic / 2  # 12 degrees of freedom: the tail is exp(-x/2) * sum_{k<6} (x/2)^k / k!
    p = np.exp(-half) * sum(half ** k / math.factorial(k) for k in range(6))
    flagged = benjamini_hochberg(p, FDR)
    return [{"table": data.table(first_rows[s]), "shoe": data.shoe(first_rows[s]),
             "round": None, "day": str(data.rounds["day"][first_rows[s]]), "statistic": float(statistic[k]),
             "p": float(p[k])} for k, s in zip(np.flatnonzero(flagged), tested[flagged])]


def actual_vs_theoretical(data: AuditData) -> dict:
    """Bet rows, round-test rows (each with ``flag``), the shoes whose ranks fail, and the method stated."""
    bets, tests = [], []
    for rule_id, rules in data.rules.items():
        bets += _bet_rows(data, rules, rule_id)
        tests += _round_tests(data, rules, rule_id)
    p_values = [row["p_rtp"] for row in bets] + [row["p_hit"] for row in bets] + [row["p"] for row in tests]
    flagged = benjamini_hochberg(p_values, FDR)
    for k, row in enumerate(bets):
        row["flag"] = bool(flagged[k] or flagged[len(bets) + k])
    for k, row in enumerate(tests):
        row["flag"] = bool(flagged[2 * len(bets) + k])
    return {"bets": bets, "tests": tests, "shoes": shoe_rank_tests(data),
            "multiple_testing": f"Benjamini-Hochberg at a false discovery rate of {FDR:g} over the {len(p_values)} "
                                "p-values of the bets and round tests; the shoes' rank tests as a family of their own"}
