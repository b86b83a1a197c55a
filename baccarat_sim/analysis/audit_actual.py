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
from .audit_data import COUNT_BLOCK, AuditData
from .audit_stats import FDR, Runs, benjamini_hochberg, chi_square_sf
from .hold import sum_distribution
from .one_round import one_round
from .settlement import settle_bet

__all__ = ["LATTICE_MAX_BETS", "ActualSums", "actual_vs_theoretical", "flagged_shoes", "shoe_rank_tests",
           "stake_band", "theoretical"]

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


def _distinct(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct values (in the order they first appear) and where each value is among them (by hashing)."""
    import pandas as pd

    code, distinct = pd.factorize(values)
    return np.asarray(distinct), code


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


def _round_groups(data: AuditData) -> list:
    """(by, group keys, group of each round) of the breakdowns a round belongs to as a whole: all, month, table.

    A key sorts as the groups are listed. Made once per batch.
    """
    if "round_groups" not in data.cache:
        months = data.rounds["day"].astype("datetime64[M]")
        first = months.min()
        month = (months - first).astype(np.int64)
        names = (first + np.arange(int(month.max()) + 1)).astype(str)
        data.cache["round_groups"] = [
            ("all", [("all", "all")], np.zeros(data.n_rounds, np.int64)),
            ("month", [(str(m), str(m)) for m in names], month),
            ("table", [(str(t), str(t)) for t in data.rounds["table_names"]], data.rounds["table_code"])]
    return data.cache["round_groups"]


#: The sums a bet row is made of, in this order: bets, rounds (the independent units), staked, net, the rounds'
#: results per unit staked, rounds won.
_BET_SUMS = ("bets", "rounds", "staked", "net", "units", "hits")


def _add_sums(found: dict, keys: list, group: np.ndarray, group_of_pair: np.ndarray, stakes: np.ndarray,
              nets: np.ndarray, per_round: np.ndarray) -> None:
    """Add one breakdown's groups to ``found`` (key: :data:`_BET_SUMS`).

    ``group`` of each bet, ``group_of_pair`` and ``per_round`` of each (group, round) pair, the pairs of a group in
    the order of their rounds.
    """
    size = len(keys)
    sums = np.stack([np.bincount(group, minlength=size), np.bincount(group_of_pair, minlength=size),
                     np.bincount(group, weights=stakes, minlength=size),
                     np.bincount(group, weights=nets, minlength=size),
                     np.bincount(group_of_pair, weights=per_round, minlength=size),
                     np.bincount(group_of_pair, weights=per_round > 0, minlength=size)], axis=1)
    by_group = None
    for g in np.flatnonzero(sums[:, 0]):
        key = keys[g]
        if key not in found:
            found[key] = sums[g].astype(float)
            continue
        if by_group is None:  # the pairs by group, each group's in their order (a stable sort of small integers)
            by_group = np.argsort(group_of_pair.astype(np.int32), kind="stable")
            starts = np.searchsorted(group_of_pair[by_group], np.arange(size + 1))
        earlier = found[key][4]
        found[key] = found[key] + sums[g]
        # The rounds' results go on from the earlier batches' sum, one by one as np.bincount adds them: the
        # normal-law p-value of a large group cancels most of the sum's digits.
        found[key][4] = np.add.accumulate(np.r_[earlier, per_round[by_group[starts[g]:starts[g + 1]]]])[-1]


def _bet_sums(data: AuditData, rules: Rules, rule_id: str, into: dict) -> None:
    """Add a batch's sums of every bet, breakdown and group of rule set ``rule_id`` to ``into``.

    ``into[(rule_id, bet_id)][by][key]``: an array of :data:`_BET_SUMS` (rounds of a batch are its own: the sums of
    the batches add up).

    The round is the unit that is independent: the bets on one bet in one round share its outcome. A (group,
    round) pair is one unit of the group; its result the mean of its bets' results per unit staked. A round is in
    one month and at one table: its pairs there are its own; its bets' stakes fall in several bands.
    """
    bets = data.bets
    for bet_id in theoretical(rules)["bets"]:
        chosen = data.bets_on(rule_id, bet_id)
        if not chosen.size:
            continue
        stakes, nets = bets["stake"][chosen], bets["net"][chosen]
        units = nets / stakes
        rounds_of = bets["row"][chosen]
        by_breakdown = into.setdefault((rule_id, bet_id), {})
        bets_in_round = np.bincount(rounds_of, minlength=data.n_rounds)
        played = np.flatnonzero(bets_in_round)
        per_round = np.bincount(rounds_of, weights=units, minlength=data.n_rounds)[played] / bets_in_round[played]
        for by, keys, of_round in _round_groups(data):
            _add_sums(by_breakdown.setdefault(by, {}), keys, of_round[rounds_of], of_round[played], stakes, nets,
                      per_round)
        # The bands of the distinct stakes (a few), then each bet's; a (band, round) pair's results by dense sums.
        distinct, code = _distinct(stakes)
        names, band_of = np.unique(stake_band(distinct), return_inverse=True)
        group = band_of[code]
        cell = group * np.int64(data.n_rounds) + rounds_of
        bets_in_cell = np.bincount(cell, minlength=len(names) * data.n_rounds)
        pairs = np.flatnonzero(bets_in_cell)
        per_pair = np.bincount(cell, weights=units, minlength=len(bets_in_cell))[pairs] / bets_in_cell[pairs]
        _add_sums(by_breakdown.setdefault("stake", {}), [(float(band), f"{band:g}") for band in names], group,
                  pairs // data.n_rounds, stakes, nets, per_pair)


def _bet_rows(rules: Rules, rule_id: str, sums: dict) -> list[dict]:
    """The rows of rule set ``rule_id``'s bets from their sums (:func:`_bet_sums`): figures and p-values."""
    rows_out = []
    for bet_id, figures in theoretical(rules)["bets"].items():
        if (rule_id, bet_id) not in sums:
            continue
        law, hit_law = figures["law"], figures["hit_law"]
        for by in ("all", "month", "table", "stake"):
            for (_, name), (n_bets, n, staked, net, total, hits) in sorted(sums[(rule_id, bet_id)][by].items()):
                n, hits = int(n), int(hits)
                p_rtp, method = _two_sided(law, n, float(total), figures["ev"], figures["sd"])
                p_hit = _two_sided(hit_law, n, hits, figures["hit"],
                                   math.sqrt(figures["hit"] * (1 - figures["hit"])))[0] if hit_law is not None else 1.0
                rows_out.append({"rule_set": rule_id, "bet": bet_id, "by": by, "group": name,
                                 "bets": int(n_bets), "rounds": n, "staked": float(staked),
                                 "net": float(net), "actual_rtp": 1 + float(net / staked),
                                 "theoretical_rtp": figures["rtp"], "hits": hits, "actual_hit": hits / n,
                                 "theoretical_hit": figures["hit"], "p_rtp": p_rtp, "p_hit": p_hit,
                                 "method": method})
    return rows_out


def _outcome_classes(fields: dict) -> np.ndarray:
    """Winner (Player, Banker, Tie) by the hands' card counts: 12 classes (of the :func:`decode` fields of codes)."""
    winner = np.sign(fields["banker_score"] - fields["player_score"])  # -1 Player, 0 tie, 1 Banker
    return ((winner + 1) * 2 + fields["player_cards"]) * 2 + fields["banker_cards"]


def _chi_square(observed: np.ndarray, probabilities: np.ndarray, correction: float = 1.0) -> tuple[float, int, float]:
    n = observed.sum()
    expected = probabilities * n
    keep = expected > 0
    statistic = float((((observed - expected) ** 2)[keep] / expected[keep]).sum()) / correction
    dof = int(keep.sum()) - 1
    return statistic, dof, chi_square_sf(statistic, dof)


def _round_sums(data: AuditData, rules: Rules, rule_id: str, into: dict) -> None:
    """Add a batch's counts of rule set ``rule_id``'s legal rounds to ``into[rule_id]``.

    Per group ("all" and each month) the rounds, outcome classes, cards and runs (:class:`~.audit_stats.Runs`), and
    the cards used and shoes (the share of a shoe dealt).
    """
    mine = np.flatnonzero(data.of_rule(rule_id) & (data.resolved.misdeal == 0))
    if not mine.size:
        return
    sums = into.setdefault(rule_id, {"cards_used": 0, "shoes": 0, "groups": {}})
    sums["cards_used"] += int(data.resolved.cards_used[mine].sum())
    sums["shoes"] += int(data.shoe_start[mine].sum())
    _, keys, month_of = _round_groups(data)[1]
    month = month_of[mine]
    fields = decode(data.resolved.code[mine])
    size = len(keys)
    rounds = np.bincount(month, minlength=size)
    classes = np.bincount(month * 12 + _outcome_classes(fields), minlength=size * 12).reshape(size, 12)
    cards = np.zeros(size * 13 * N_SUITS, np.int64)
    for first in range(0, len(mine), COUNT_BLOCK):  # a block at a time: a year's cards as int64 keys are gigabytes
        dealt = data.rounds["cards"][mine[first:first + COUNT_BLOCK]]
        present = dealt >= 0
        keys_dealt = month[first:first + COUNT_BLOCK, None] * (13 * N_SUITS) + dealt
        cards += np.bincount(keys_dealt[present], minlength=cards.size)
    cards = cards.reshape(size, 13 * N_SUITS)
    decided = fields["banker_score"] != fields["player_score"]
    banker = fields["banker_score"] > fields["player_score"]
    starts = data.shoe_start[mine]
    for g in [None, *np.flatnonzero(rounds)]:
        name = "all" if g is None else keys[g][1]
        found = sums["groups"].setdefault(name, {"rounds": 0, "classes": np.zeros(12, np.int64),
                                                 "cards": np.zeros(13 * N_SUITS, np.int64), "runs": Runs()})
        chosen = decided if g is None else decided & (month == g)
        found["rounds"] += int(rounds.sum() if g is None else rounds[g])
        found["classes"] += classes.sum(axis=0) if g is None else classes[g]
        found["cards"] += cards.sum(axis=0) if g is None else cards[g]
        found["runs"].add(banker[chosen], starts[chosen])


def _round_tests(rules: Rules, rule_id: str, sums: dict) -> list[dict]:
    """The outcome, rank, suit and runs tests of rule set ``rule_id`` from its counts (:func:`_round_sums`)."""
    if rule_id not in sums:
        return []
    sums = sums[rule_id]
    hist = theoretical(rules)["hist"]
    class_probabilities = np.bincount(_outcome_classes(decode(np.arange(hist.code_counts.size))),
                                      weights=hist.code_counts.astype(float), minlength=12)
    class_probabilities /= class_probabilities.sum()
    n_cards = rules.shoe.decks * 52
    dealt_share = min(0.99, float(sums["cards_used"]) / (max(1, sums["shoes"]) * n_cards))
    out = []
    groups = sums["groups"]
    for group in ["all", *sorted(g for g in groups if g != "all")]:
        found = groups[group]
        by = "all" if group == "all" else "month"
        statistic, dof, p = _chi_square(found["classes"].astype(float), class_probabilities)
        out.append({"rule_set": rule_id, "test": "outcomes", "by": by, "group": group, "rounds": found["rounds"],
                    "statistic": statistic, "dof": dof, "p": p})
        by_card = found["cards"].reshape(13, N_SUITS)  # card id: rank * 4 + suit
        for test, counted, size in (("ranks", by_card.sum(axis=1), 13), ("suits", by_card.sum(axis=0), N_SUITS)):
            statistic, dof, p = _chi_square(counted.astype(float), np.full(size, 1 / size), 1 - dealt_share)
            out.append({"rule_set": rule_id, "test": test, "by": by, "group": group, "rounds": found["rounds"],
                        "statistic": statistic, "dof": dof, "p": p})
        runs = found["runs"]
        decided = runs.elements
        if decided > 2:
            count, expected, z = runs.result()
            out.append({"rule_set": rule_id, "test": "runs", "by": by, "group": group, "rounds": decided,
                        "statistic": z, "dof": 0, "p": math.erfc(abs(z) / math.sqrt(2)), "runs": count,
                        "expected_runs": expected})
    return out


def shoe_rank_tests(data: AuditData) -> list[dict]:
    """Every shoe whose ranks are tested (the chi-square holds), with its statistic and p-value (12 dof).

    :func:`flagged_shoes` keeps those Benjamini-Hochberg at 5% over all the shoes flags.

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
    return [{"table": data.table(first_rows[s]), "shoe": data.shoe(first_rows[s]),
             "round": None, "day": str(data.rounds["day"][first_rows[s]]), "statistic": float(statistic[k]),
             "p": float(p[k])} for k, s in enumerate(tested)]


def flagged_shoes(tested: list[dict]) -> list[dict]:
    """The shoes of ``tested`` (:func:`shoe_rank_tests` of every batch) that Benjamini-Hochberg at 5% flags."""
    flagged = benjamini_hochberg([shoe["p"] for shoe in tested], FDR)
    return [shoe for shoe, flag in zip(tested, flagged) if flag]


class ActualSums:
    """Actual against theoretical, a batch of tables at a time: :meth:`add` each batch, then :meth:`finish`."""

    def __init__(self):
        self.rules: dict = {}
        self.bets: dict = {}
        self.rounds: dict = {}
        self.shoes: list = []

    def add(self, data: AuditData) -> None:
        """Add a batch's bets, rounds and shoes."""
        for rule_id, rules in data.rules.items():
            self.rules[rule_id] = rules
            _bet_sums(data, rules, rule_id, self.bets)
            _round_sums(data, rules, rule_id, self.rounds)
        self.shoes += shoe_rank_tests(data)

    def finish(self) -> dict:
        """Bet rows, round-test rows (each with ``flag``), the shoes whose ranks fail, and the method stated."""
        bets, tests = [], []
        for rule_id in sorted(self.rules):
            bets += _bet_rows(self.rules[rule_id], rule_id, self.bets)
            tests += _round_tests(self.rules[rule_id], rule_id, self.rounds)
        p_values = [row["p_rtp"] for row in bets] + [row["p_hit"] for row in bets] + [row["p"] for row in tests]
        flagged = benjamini_hochberg(p_values, FDR)
        for k, row in enumerate(bets):
            row["flag"] = bool(flagged[k] or flagged[len(bets) + k])
        for k, row in enumerate(tests):
            row["flag"] = bool(flagged[2 * len(bets) + k])
        return {"bets": bets, "tests": tests, "shoes": flagged_shoes(self.shoes),
                "multiple_testing": f"Benjamini-Hochberg at a false discovery rate of {FDR:g} over the "
                                    f"{len(p_values)} p-values of the bets and round tests; the shoes' rank tests "
                                    "as a family of their own"}


def actual_vs_theoretical(data: AuditData) -> dict:
    """Actual against theoretical of one batch holding every table (:class:`ActualSums`)."""
    sums = ActualSums()
    sums.add(data)
    return sums.finish()
