"""A run's per-bet figures, exact and by Monte Carlo against exact: what the ``rtp`` command reports.

:func:`analyze_run` settles every bet of a rule set over the exact histogram
(and a Monte Carlo one), estimates the Monte Carlo figures with their standard
errors and z-scores against exact, checks the rule sheet's stated RTPs, finds
the bets whose RTP depends on the stake (a rounded commission) and, for a
dealt run with position rows, the RTP by round position. The result, a
:class:`RunResult`, is what the report renders as text, Markdown, JSON, CSV
and plots (:mod:`baccarat_sim.report.run_report`); nothing here renders.

A figure that is not available is NaN in :class:`BetFigures` (the JSON has
null): a Monte Carlo interval and z-score need :data:`MIN_ROUNDS_FOR_INTERVAL`
rounds and a result that has varied.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from .._version import __version__
from ..limits import MAX_PLOTTED_BETS
from ..model.amounts import amount_text, percent_text
from ..model.conditions import feature_table
from ..model.histogram import OutcomeHistogram
from ..model.rules import Rules
from ..model.shoe import describe_shoe
from .claims import ClaimCheck, check_claims
from .commission import StakeDependence, stake_dependence
from .positions import PositionAnalysis, analyze_positions
from .settlement import net_vector, settle, settle_bet
from .settlement_jackpot import JackpotFigures, jackpot_figures
from .stats import ScoreDistribution, estimate, running_estimate, score_distribution

__all__ = ["MIN_ROUNDS_FOR_INTERVAL", "STAKE_MARK", "BetFigures", "RunResult", "analyze_run",
           "main_bet_probabilities"]

#: Fewest Monte Carlo rounds for which a report gives a confidence interval and a z-score: below it the normal
#: approximation behind both means nothing (one round would give a zero-width interval and z = +-inf).
MIN_ROUNDS_FOR_INTERVAL = 100
#: Marks an RTP that holds only at some stakes (a rounded commission); the run's notes say at which.
STAKE_MARK = "†"


def main_bet_probabilities(hist: OutcomeHistogram) -> dict[str, float]:
    """P(Banker wins), P(Player wins), P(Tie) of a histogram."""
    winner = feature_table()["winner"]
    total = hist.total
    return {
        "banker_win": float(hist.code_counts[winner == 1].sum() / total),
        "player_win": float(hist.code_counts[winner == 0].sum() / total),
        "tie": float(hist.code_counts[winner == 2].sum() / total),
    }


@dataclasses.dataclass(frozen=True)
class BetFigures:
    """One bet's figures in a run: exact, and the Monte Carlo estimate where the run dealt (NaN: not available).

    Attributes
    ----------
    id, name : str
    exact_rtp, exact_ev : float
        Exact, over a freshly shuffled shoe.
    stated_rtp : float
        The rule sheet's stated RTP (NaN when it states none); ``stated_text`` as written (or None).
    max_round : int or float
        The bet's Max Round Availability (NaN when it has none).
    rtp_depends_on_stake : bool
        A rounded commission makes its RTP depend on the stake.
    min_stake, rtp_at_min_stake : float
        The rule set's minimum bet and the exact RTP at it.
    rtp_holds_at_stake_multiples_of : float
        The nominal RTP holds at multiples of this stake (NaN: at every stake).
    rtp, house_edge, hit_frequency, push_frequency, sd : float
        Of the run: exact, or the Monte Carlo estimates.
    ci95_low, ci95_high, z, se : float
        The Monte Carlo RTP's 95% interval, its z-score against exact and standard error.
    se_method : str or None
        ``"iid"`` or ``"batch_means"`` (:func:`~baccarat_sim.analysis.stats.estimate`).
    rounds_for_0_01pct_ci : int or float
        Rounds for a 95% interval of +/- 0.01 percentage points at this SD.
    """

    id: str
    name: str
    exact_rtp: float
    exact_ev: float
    stated_rtp: float
    stated_text: str | None
    max_round: int | float
    rtp_depends_on_stake: bool
    min_stake: float
    rtp_at_min_stake: float
    rtp_holds_at_stake_multiples_of: float
    rtp: float
    house_edge: float
    ci95_low: float
    ci95_high: float
    z: float
    se: float
    se_method: str | None
    hit_frequency: float
    push_frequency: float
    sd: float
    rounds_for_0_01pct_ci: int | float


#: How far above 1 an exact RTP must be to be more than the stake: floating-point rounding leaves a fair bet within it.
RTP_ABOVE_ONE = 1e-12


@dataclasses.dataclass(frozen=True, eq=False)
class RunResult:
    """Per-bet results of one run (exact, or Monte Carlo against exact).

    Attributes
    ----------
    rules : Rules
    exact : OutcomeHistogram
        Exact histogram of the same shoe (fresh shuffle).
    mc : OutcomeHistogram or None
    run : dict
        Header: rule set, model, decks, rounds, shoes, seed, threads, timing, notes (the JSON ``run``).
    bets : tuple of BetFigures
        One per bet, in the rule file's order.
    claims : list of ClaimCheck
    positions : PositionAnalysis or None
        Dealt-model runs: RTP by round position, under each bet's Max Round
        Availability, rounds per shoe (:mod:`baccarat_sim.analysis.positions`).
    eor : EffectOfRemoval or None
        ``--eor``: exact effects of removal and derived counting tags (:mod:`baccarat_sim.analysis.eor`).
    by_stake : dict of str to StakeDependence
        The bets whose RTP depends on the stake (a rounded commission), by id
        (:func:`baccarat_sim.analysis.commission.stake_dependence`).
    jackpots, mc_jackpots : dict of str to JackpotFigures
        The bets that pay a jackpot, by id: their RTP as base + slope x meter,
        exact and (a Monte Carlo run) estimated
        (:func:`baccarat_sim.analysis.settlement_jackpot.jackpot_figures`).
    """

    rules: Rules
    exact: OutcomeHistogram
    mc: OutcomeHistogram | None
    run: dict
    bets: tuple[BetFigures, ...]
    claims: list[ClaimCheck]
    positions: PositionAnalysis | None = None
    eor: object | None = None
    by_stake: dict[str, StakeDependence] = dataclasses.field(default_factory=dict)
    jackpots: dict[str, JackpotFigures] = dataclasses.field(default_factory=dict)
    mc_jackpots: dict[str, JackpotFigures] = dataclasses.field(default_factory=dict)

    @property
    def paying_more_than_staked(self) -> dict[str, float]:
        """The bets whose exact RTP is above 100%, bet id to RTP: no house offers one, so the pays hold a typo.

        Or a jackpot's meter is past the bet's break-even (an advantage bet, on
        purpose). An RTP within rounding of 100% (a fair bet) is not one.
        """
        return {figures.id: figures.exact_rtp for figures in self.bets if figures.exact_rtp > 1 + RTP_ABOVE_ONE}

    def convergence(self, bet_id: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Rounds, RTP and standard error of one bet after each batch of the Monte Carlo run.

        See :func:`~baccarat_sim.analysis.stats.running_estimate`; ValueError for a run without batches.
        """
        if self.mc is None:
            raise ValueError("a convergence figure needs a Monte Carlo report")
        view = self.mc.view([self.rules.bet(bet_id)])
        return running_estimate(view, net_vector(self.rules.bet(bet_id), self.rules, view.detail))

    def scores(self) -> ScoreDistribution:
        """Final-score distribution: exact bars, with the Monte Carlo estimate beside them when the run dealt."""
        return score_distribution(self.mc if self.mc is not None else self.exact, exact=self.exact)


def analyze_run(rules: Rules, exact: OutcomeHistogram, mc: OutcomeHistogram | None = None,
                run: dict | None = None, unpriced: dict[str, str] | None = None) -> RunResult:
    """Settle every bet of ``rules`` exactly (and by Monte Carlo) into a :class:`RunResult`.

    Parameters
    ----------
    rules : Rules
    exact : OutcomeHistogram
        Exact histogram of the shoe.
    mc : OutcomeHistogram or None
        A Monte Carlo run of the same shoe.
    run : dict or None
        Header fields of the run (threads, timing, ...), added last to ``RunResult.run``.
    unpriced : dict of str to str or None
        A Monte Carlo run's bets whose exact figures were not computed (``exact`` does not carry their card
        detail), each with why and how to ask for them
        (:func:`baccarat_sim.engines.detail.priced_detail`): their exact figures and z are NaN, and the
        run's notes say why.
    """
    unpriced = dict(unpriced or {})
    priced = rules.with_bets([bet.id for bet in rules.bets if bet.id not in unpriced]) if unpriced else rules
    by_id = {result.id: result for result in settle(exact, priced)}
    exact_results = list(by_id.values())
    by_stake = {bet.id: found for bet in priced.bets if (found := stake_dependence(exact, rules, bet)) is not None}
    rows = []
    for bet in rules.bets:
        ex = by_id.get(bet.id, _NOT_PRICED)
        stated = next((c for c in rules.claims if c.what == "bet" and c.bet == bet.id), None)
        row = {
            "id": bet.id,
            "name": bet.name,
            "exact_rtp": ex.rtp,
            "exact_ev": ex.ev,
            "stated_rtp": stated.fraction if stated else np.nan,
            "stated_text": stated.value if stated else None,
            "max_round": bet.max_round if bet.max_round is not None else np.nan,
            # Exact, at the rule set's minimum bet: the nominal RTP unless the commission is rounded for the stake.
            "rtp_depends_on_stake": bet.id in by_stake,
            "min_stake": float(rules.limits.min_bet),
            "rtp_at_min_stake": by_stake[bet.id].rtp_at_min_stake if bet.id in by_stake else ex.rtp,
            "rtp_holds_at_stake_multiples_of": (float(by_stake[bet.id].holds_at_multiples_of) if bet.id in by_stake
                                                else np.nan),
        }
        if mc is None:
            row.update(rtp=ex.rtp, house_edge=ex.house_edge, ci95_low=np.nan, ci95_high=np.nan, z=np.nan,
                       se=np.nan, se_method=None, hit_frequency=ex.hit_frequency,
                       push_frequency=ex.push_frequency, sd=ex.sd, rounds_for_0_01pct_ci=ex.rounds_for_precision)
        else:
            mc_result = settle_bet(mc, bet, rules)
            view = mc.view([bet])
            est = estimate(view, net_vector(bet, rules, view.detail))
            low, high = est.ci95
            row.update(rtp=est.rtp, house_edge=-est.ev, ci95_low=low, ci95_high=high,
                       z=est.z(ex.rtp) if ex is not _NOT_PRICED else np.nan, se=est.se,
                       se_method=est.method, hit_frequency=mc_result.hit_frequency,
                       push_frequency=mc_result.push_frequency, sd=mc_result.sd,
                       rounds_for_0_01pct_ci=mc_result.rounds_for_precision)
            if mc.rounds < MIN_ROUNDS_FOR_INTERVAL or not est.se > 0 or not math.isfinite(est.se):
                # Too few rounds, or a result that has not varied yet (every round lost): no interval, no z.
                row.update(ci95_low=np.nan, ci95_high=np.nan, z=np.nan, se=np.nan, se_method=None,
                           rounds_for_0_01pct_ci=np.nan)
        rows.append(BetFigures(**row))
    info = {
        "rules": rules.id,
        "rules_sha256": rules.sha256,
        "model": "exact" if mc is None else mc.model,
        "decks": exact.meta.get("decks"),
        "cards": int(exact.shoe.sum()),
        "decks_text": describe_shoe(exact.shoe),
        "version": __version__,
        **main_bet_probabilities(exact),
    }
    if mc is not None:
        info.update(rounds=mc.rounds, shoes=mc.shoes, seed=mc.seed, complete=mc.meta.get("complete", True))
    # Every header key of the JSON contract is present; null where it does not apply (an exact-only report).
    for key in ("rounds", "shoes", "seed", "threads", "seconds", "rounds_per_second"):
        info.setdefault(key, None)
    info["assumptions"] = list(rules.assumptions)
    info["notes"] = _commission_notes(rules, by_stake) + [f"{bet_id}: {why}" for bet_id, why in unpriced.items()]
    positions = None
    if mc is not None and mc.model == "dealt" and mc.by_position is not None and mc.total:
        # RTP by round, under each bet's max_round, rounds per shoe (issue 6): of the bets priced exactly.
        positions = analyze_positions(mc, priced, exact)
        info.update(positions.run_fields())
    info.update(run or {})
    if len(rules.bets) > MAX_PLOTTED_BETS:  # what the figures leave out, said where every output shows it
        chosen = "furthest from exact (largest |z|)" if mc is not None else "first in the rule file"
        info["notes"] = info["notes"] + [
            f"per-bet plots show {MAX_PLOTTED_BETS} of the {len(rules.bets)} bets (limits.MAX_PLOTTED_BETS): any whose "
            f"stated RTP does not hold, then those {chosen}; every bet is in the tables, CSV and JSON"]
    jackpots = {bet.id: jackpot_figures(exact, bet, rules) for bet in priced.bets if bet.jackpot is not None}
    mc_jackpots = ({} if mc is None else
                   {bet.id: jackpot_figures(mc, bet, rules) for bet in rules.bets if bet.jackpot is not None})
    return RunResult(rules, exact, mc, info, tuple(rows), check_claims(rules, exact_results), positions,
                     by_stake=by_stake, jackpots=jackpots, mc_jackpots=mc_jackpots)


class _NotPriced:
    """The exact figures of a bet a Monte Carlo run did not price exactly: every one NaN."""

    rtp = ev = house_edge = hit_frequency = push_frequency = sd = rounds_for_precision = math.nan


_NOT_PRICED = _NotPriced()


def _commission_notes(rules: Rules, by_stake: dict) -> list[str]:
    """Where the commission is rounded, what that does to each marked bet's RTP by stake (exact)."""
    commission = rules.commission
    notes = []
    for bet_id, found in by_stake.items():
        stakes = ", ".join(f"{percent_text(row.rtp)} at {amount_text(row.stake)}" for row in found.by_stake)
        notes.append(
            f"{STAKE_MARK} {bet_id}: the commission ({float(commission.rate):.0%}) is rounded {commission.rounding} "
            f"to {amount_text(commission.unit)} of the lowest chip ({amount_text(commission.lowest_chip)}), so the "
            f"RTP depends on the stake: the table's {percent_text(found.rtp_nominal)} holds only at stakes that are "
            f"multiples of {amount_text(found.holds_at_multiples_of)}; at the minimum stake of "
            f"{amount_text(found.min_stake)} it is {percent_text(found.rtp_at_min_stake)} (by stake: {stakes}; "
            "every stake: baccarat_sim.commission_table)"
        )
    return notes
