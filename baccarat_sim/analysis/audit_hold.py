"""Hold on drop: each period's hold against the hold the game's bet mix and chip churn lead to expect.

A table's hold is ``win / drop``; the game's edge is per unit of *handle*. With a drop-to-handle ratio (the
*churn*, handle / drop: how many times a chip is bet) the expected hold on drop is ``edge x churn``. The bet mix
(each bet's share of the handle) and the churn are estimated from the logs where bets are logged and handle is
reported, else given. Where no bets are logged, a period's rounds (from the round log) are taken as rounds of
equal stake.

The house's result over a period is the sum of its rounds. Its variance is the sum over the logged rounds of each
round's exact variance, ``s' C s`` (``s`` the round's stakes by bet, ``C`` the exact covariance of the bets' results
in one round: Banker and Player staked in one round offset). The period is then taken as ``n_eff`` rounds of the bet
mix, ``n_eff`` chosen so that the mean and the variance are the period's, rounded to two
significant digits (the ranges move by less than 1% for it); the result of ``n_eff`` units of the bet mix is
computed on its payout lattice (:func:`~baccarat_sim.analysis.hold.sum_distribution`,
:func:`~baccarat_sim.analysis.hold.check_observed`) up to :data:`LATTICE_MAX_ROUNDS` units, by the normal law
above. Each
period gets its hold's central 95% and 99% range and a two-sided p-value; the periods outside the 95% range are the
ones to investigate (5% of clean periods are), and Benjamini-Hochberg at 5% over all periods flags those the
logs cannot explain.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from ..errors import InputError
from ..model.rules import Rules
from .audit_actual import theoretical
from .audit_data import AuditData
from .audit_settle import settles_on_codes
from .audit_stats import FDR, benjamini_hochberg
from .hold import check_observed, sum_distribution, summarize
from .one_round import OneRound, house_round, one_round
from .settlement import line_nets

__all__ = ["PERIODS", "HoldSums", "hold_on_drop"]

#: Most units of the bet mix whose sum is computed on the payout lattice (the normal law above, where the central
#: limit has long taken over: a month of a busy table).
LATTICE_MAX_ROUNDS = 50_000
#: The periods of the hold, by name and numpy unit.
PERIODS = {"day": "D", "month": "M", "year": "Y"}
_SUMS: dict = {}


def _two_digits(n: float) -> int:
    if n < 100:
        return max(1, int(round(n)))
    scale = 10 ** (int(math.floor(math.log10(n))) - 1)
    return int(round(n / scale) * scale)


def _logged_mix(staked: dict, rule_id: str, given: dict | None) -> dict:
    """Each bet's share of the rule set's logged handle, else ``given``.

    ``staked``: bet to amount, in the order of the bets' first appearance.
    """
    total = sum(staked.values())
    if total > 0:
        return {bet: amount / total for bet, amount in staked.items() if amount > 0}
    if not given:
        raise InputError("mix", f"rule set {rule_id}: no bets are logged; give the bet mix (e.g. banker=0.55,"
                                "player=0.4,tie=0.05)")
    return given


def _mixture(rules: Rules, mix: dict) -> OneRound:
    """One unit of handle on one bet drawn by the mix (shares in hundredths, at least one): the player's law.

    A mixture, not a slip of every bet at once: a slip would offset Banker against Player in every round, which
    the logged rounds do only as far as their seats did; the period's variance is matched by the number of units
    (``n_eff``), and a mixture never needs fewer units than the period had rounds.
    """
    hist = theoretical(rules)["hist"]
    counts = hist.code_counts
    values, weights = [], []
    for bet, share in mix.items():
        if share <= 0 or bet not in rules.bet_ids or not settles_on_codes(rules, bet):
            continue
        nets = line_nets(rules.bet(bet), rules)
        exact = np.zeros(len(nets), dtype=object)
        np.add.at(exact, rules.bet(bet).case_index(), counts.astype(object))
        for net, weight in zip(nets, exact):
            if weight:
                values.append(net)
                weights.append(max(1, round(share * 100)) * int(weight))
    return one_round(values, weights, cost=1)


class HoldSums:
    """Hold on drop, a batch of tables at a time: :meth:`add` each batch's rounds and bets, then :meth:`finish`.

    ``results``: the table results (:func:`~.audit_data.read_results`); without any, there is no hold to check.
    """

    def __init__(self, results: dict):
        self.results = results
        self.table_rule: dict = {}
        self.rules: dict = {}
        self.variance: dict = {}  # (table, day) -> the logged rounds' variance of the house result
        self.rounds: dict = {}  # (table, day) -> rounds logged
        self.staked: dict = {}  # rule set -> bet -> amount staked
        self.first_seen: dict = {}  # bet -> its first place in the database's bets

    def add(self, data: AuditData) -> None:
        """Add a batch: its tables' rule sets, each table-day's variance and rounds, the amounts staked by bet."""
        if not len(self.results["day"]):
            return
        for row in np.flatnonzero(data.shoe_start):
            self.table_rule.setdefault(data.table(row), data.rule_set(row))
        self.rules.update(data.rules)
        for into, values in ((self.variance, _round_variances(data)), (self.rounds, np.ones(data.n_rounds))):
            for key, value in _by_table_day(data, values).items():
                into[key] = into.get(key, 0.0) + value
        bets = data.bets
        if not len(bets["row"]):
            return
        first = np.full(len(bets["bet_names"]), np.iinfo(np.int64).max)
        np.minimum.at(first, bets["bet_code"], bets["position"])
        for name, at in zip(bets["bet_names"], first):
            self.first_seen[str(name)] = min(int(at), self.first_seen.get(str(name), int(at)))
        for rule_id in data.rules:
            staked = self.staked.setdefault(rule_id, {})
            for bet in bets["bet_names"]:
                staked[str(bet)] = staked.get(str(bet), 0.0) + float(bets["stake"][data.bets_on(rule_id, str(bet))]
                                                                     .sum())

    def finish(self, mix: dict | None = None, churn: float | None = None) -> dict:
        """Hold by day, month and year for every table and every rule set's floor, with ranges and p-values.

        Parameters
        ----------
        mix : dict of str to float or None
            Share of the handle per bet, where no bets are logged.
        churn : float or None
            Handle over drop, where no handle is reported.
        """
        results = self.results
        if not len(results["day"]):
            return {"periods": [], "rule_sets": {}}
        known = np.isfinite(results["handle"])
        measured = float(results["handle"][known].sum() / results["drop"][known].sum()) if known.any() and \
            results["drop"][known].sum() > 0 else None
        use_churn = measured if measured is not None else churn
        if use_churn is None:
            raise InputError("churn", "no handle is reported with the table results; give the drop-to-handle ratio "
                                      "(handle / drop, e.g. 2.2)")
        row_variance = _by_result_row(results, self.variance, set(self.table_rule))
        row_rounds = _by_result_row(results, self.rounds, set(self.table_rule))  # rounds logged, where no bets are
        figures, periods = {}, []
        for rule_id in sorted(set(self.table_rule.values())):
            rules = self.rules[rule_id]
            staked = self.staked.get(rule_id, {})
            bet_mix = _logged_mix({bet: staked[bet] for bet in sorted(staked, key=self.first_seen.get)}, rule_id, mix)
            slip = _mixture(rules, bet_mix)
            house = house_round(slip)
            edge = _exact_edge(rules, bet_mix)
            figures[rule_id] = {"mix": bet_mix, "house_edge": edge, "churn": use_churn,
                                "churn_source": "logs" if measured is not None else "given",
                                "expected_hold": edge * use_churn}
            tables = [t for t, r in self.table_rule.items() if r == rule_id]
            in_rule = np.isin(results["table"], tables)
            for period, unit in PERIODS.items():
                labels = results["day"].astype(f"datetime64[{unit}]").astype(str)
                for scope in [*tables, "all tables"]:
                    chosen = in_rule & ((results["table"] == scope) if scope != "all tables" else True)
                    for label in np.unique(labels[chosen]):
                        rows = chosen & (labels == label)
                        periods.append(_period(rule_id, scope, period, label, results, rows, house, slip, use_churn,
                                               row_variance, edge, row_rounds))
        flagged = benjamini_hochberg([p["p"] for p in periods], FDR)
        for p, flag in zip(periods, flagged):
            p["flag"] = bool(flag)
        return {"periods": periods, "rule_sets": figures}


def hold_on_drop(data: AuditData, mix: dict | None = None, churn: float | None = None) -> dict:
    """Hold on drop of one batch holding every table (:class:`HoldSums`)."""
    sums = HoldSums(data.results)
    sums.add(data)
    return sums.finish(mix, churn)


def _covariance(rules: Rules) -> tuple[tuple[str, ...], np.ndarray]:
    """The exact covariance of the bets' results per unit staked in one round (bets settled on codes)."""
    hist = theoretical(rules)["hist"]
    p = hist.code_counts / hist.code_counts.sum()
    ids = tuple(b for b in rules.bet_ids if settles_on_codes(rules, b))
    nets = np.array([np.array([float(v) for v in line_nets(rules.bet(b), rules)])[rules.bet(b).case_index()]
                     for b in ids])
    centred = nets - nets @ p[:, None]
    return ids, (centred * p) @ centred.T


def _round_variances(data: AuditData) -> np.ndarray:
    """Each round's variance of the house result: ``s' C s`` of its stakes by bet (0 for a round without bets)."""
    bets = data.bets
    variance = np.zeros(data.n_rounds)
    if not len(bets["row"]):
        return variance
    block = 1 << 18  # rounds at a time: a (rounds x bets) matrix of stakes
    for rule_id, rules in data.rules.items():
        ids, cov = _covariance(rules)
        index_of_code = np.array([ids.index(b) if b in ids else -1 for b in bets["bet_names"]], np.int64)
        bet_index = index_of_code[bets["bet_code"]]
        mine = np.flatnonzero(data.of_rule(rule_id)[bets["row"]] & (bet_index >= 0))
        # Every round's stakes by bet at once, in the bets' order (the stakes of one round and bet add in the order
        # they were logged); the products a block of rounds at a time.
        stakes = np.bincount(bets["row"][mine].astype(np.int64) * len(ids) + bet_index[mine],
                             weights=bets["stake"][mine], minlength=data.n_rounds * len(ids)
                             ).reshape(data.n_rounds, len(ids))
        for first in range(0, data.n_rounds, block):
            part = stakes[first:first + block]
            # einsum, not a matrix product: OpenBLAS's threads on a busy machine took ten times as long.
            variance[first:first + block] += np.einsum("ij,jk,ik->i", part, cov, part)
    return variance


def _exact_edge(rules: Rules, mix: dict) -> float:
    """The house edge per unit of handle of the bet mix, from each bet's exact EV."""
    bets = theoretical(rules)["bets"]
    total = sum(share for bet, share in mix.items() if bet in bets)
    return -sum(share * bets[bet]["ev"] for bet, share in mix.items() if bet in bets) / total


def _by_table_day(data: AuditData, values: np.ndarray) -> dict:
    """The sum of a value per round over each table's gaming day, as ``{(table, day): sum}``."""
    if not data.n_rounds:
        return {}
    first = data.rounds["day"].min()
    span = int((data.rounds["day"].max() - first) / np.timedelta64(1, "D")) + 1
    cell = data.rounds["table_code"].astype(np.int64) * span + (data.rounds["day"] - first).astype(np.int64)
    sums = np.bincount(cell, weights=values, minlength=len(data.rounds["table_names"]) * span)
    present = np.flatnonzero(np.bincount(cell, minlength=sums.size))
    tables, days = np.divmod(present, span)
    return {(str(data.rounds["table_names"][t]), first + np.timedelta64(int(d), "D")): float(sums[k])
            for k, t, d in zip(present, tables, days)}


def _by_result_row(results: dict, by_table_day: dict, tables: set) -> np.ndarray:
    """Each table result's share of its table-day's sum (``by_table_day``; shared evenly among its shifts)."""
    if not len(results["day"]) or not by_table_day:
        return np.zeros(len(results["day"]))
    keys = list(zip(results["table"].tolist(), results["day"].tolist()))
    shifts: dict = {}
    for key in keys:
        shifts[key] = shifts.get(key, 0) + 1
    return np.array([by_table_day.get((str(t), np.datetime64(d, "D")), 0.0) / shifts[(t, d)]
                     if str(t) in tables else 0.0 for t, d in keys])


def _period(rule_id, scope, period, label, results, rows, house, slip, churn, row_variance, edge,
            row_rounds) -> dict:
    drop = float(results["drop"][rows].sum())
    win = float(results["win"][rows].sum())
    handle_known = np.isfinite(results["handle"][rows])
    handle = float(results["handle"][rows].sum()) if handle_known.all() else drop * churn
    variance = float(row_variance[rows].sum())  # the house result's variance over the period's logged rounds
    spread = float(slip.variance)  # the mixture's, per unit of handle
    logged_rounds = float(row_rounds[rows].sum())
    if variance > 0:
        n_eff = _two_digits(handle * handle * spread / variance)
    else:  # no bets logged: the rounds logged, each of an equal share of the handle
        n_eff = _two_digits(logged_rounds) if logged_rounds > 0 else None
    row = {"rule_set": rule_id, "table": scope, "period": period, "label": label, "drop": drop, "win": win,
           "handle": handle, "hold": win / drop if drop else None, "expected_hold": edge * handle
           / drop if drop else None, "effective_rounds": n_eff}
    if n_eff is None or drop <= 0 or handle <= 0:
        return {**row, "range_95": None, "range_99": None, "p": 1.0, "investigate": False, "method": "none"}
    key = (id(house), n_eff)
    if key not in _SUMS:
        lattice = sum_distribution(house, n_eff) if n_eff <= LATTICE_MAX_ROUNDS else None
        _SUMS[key] = (house, lattice, summarize(lattice, 1) if lattice is not None else None)
    dist, summary = _SUMS[key][1:]
    if dist is None:  # past the lattice's rounds: the normal law, its mean and variance the period's
        sd = handle * math.sqrt(float(slip.variance) / n_eff)
        z = (win - edge * handle) / sd
        ranges = {level: [(edge * handle + sign * q * sd) / drop for sign in (-1, 1)]
                  for level, q in ((95, 1.959963984540054), (99, 2.5758293035489004))}
        return {**row, "range_95": ranges[95], "range_99": ranges[99], "p": math.erfc(abs(z) / math.sqrt(2)),
                "investigate": abs(z) > 1.959963984540054, "method": "normal"}
    # The mixture's shares are the logged ones in hundredths: its mean is moved to the exact mix's.
    shift = edge + float(slip.mean)
    verdict = check_observed(dist, 1, Fraction(win - shift * handle).limit_denominator(10**6),
                             Fraction(handle).limit_denominator(10**6), summary)
    scale = handle / drop
    range_95 = [(float(v) + shift) * scale for v in verdict.range_95]
    range_99 = [(float(v) + shift) * scale for v in verdict.range_99]
    return {**row, "range_95": range_95, "range_99": range_99, "p": float(verdict.p_two_sided.value),
            "investigate": not verdict.inside_95, "method": verdict.method}
