"""What a table does over N rounds: the house's result and hold, an observed hold's verdict, player sessions.

Plain result objects (frozen dataclasses), no pandas, no rendering. Every
figure names the method that produced it and the error it carries:

* fresh shoe (rounds independent): the house's result over ``N`` rounds is
  the sum of ``N`` independent rounds of the slip, computed on its payout
  lattice (:func:`~baccarat_sim.analysis.lattice.exact_sum`, a rigorous error
  bound on every probability) or, where that lattice would not fit in
  memory, by the saddlepoint approximation with its error measured against
  the lattice (:mod:`~baccarat_sim.analysis.saddlepoint`). Never a plain
  normal approximation.
* dealt shoe (rounds of a shoe dependent): Monte Carlo of whole tables of
  ``N`` rounds dealt through consecutive shoes, with 95% confidence intervals
  (:func:`~baccarat_sim.analysis.sessions.simulate_tables`).

Definitions. The house's result ``S`` is minus the player's net result of the
slip; the handle of ``N`` rounds is ``N`` times the slip's total stake; hold
is ``S`` divided by the handle. The quantile ``Q(q)`` is the smallest value
``v`` with ``P(S <= v) >= q``; the central 95% (99%) range is ``[Q(0.025),
Q(0.975)]`` (``[Q(0.005), Q(0.995)]``) and holds at least 95% (99%) of the
probability. The house is behind when ``S < 0`` and behind by more than ``k``
when ``S < -k``. An observed win ``W`` on handle ``H`` over ``N`` rounds is
compared as a hold: ``P(S / handle <= W / H)`` is its percentile, and
``min(1, 2 min(P(S <= w), P(S >= w)))`` (both tails include ``w``: conservative
for a discrete law) its two-sided p-value.
"""

from __future__ import annotations

import dataclasses
import math
from fractions import Fraction

from ..errors import InputError
from .empirical import EmpiricalSum
from .lattice import LatticeSum, exact_sum, lattice_window
from .one_round import OneRound, house_round
from .saddlepoint import SaddlepointSum, saddlepoint_sum
from .sessions import SessionOutcome, SessionRules, chain_cells, session_chain, simulate_sessions, simulate_tables
from .slip import Slip
from .sums import Probability

__all__ = [
    "FAN_LEVELS",
    "QUANTILE_LEVELS",
    "BankrollPoint",
    "FanChart",
    "HoldAnalysis",
    "HoldSummary",
    "ObservedVerdict",
    "SessionStudy",
    "analyze_hold",
    "bankroll_curve",
    "check_observed",
    "default_tables",
    "fan_chart",
    "hold_distribution",
    "study_sessions",
    "sum_distribution",
    "summarize",
]

#: The quantile levels a hold summary reports.
QUANTILE_LEVELS = (0.001, 0.01, 0.05, 0.5, 0.95, 0.99, 0.999)
#: Quantile levels of the fan chart: the central 50%, 90%, 95% and 99% bands and the median.
FAN_LEVELS = (0.005, 0.025, 0.05, 0.25, 0.5, 0.75, 0.95, 0.975, 0.995)
#: Largest exact lattice window (points; about 75 bytes each at the peak: 1.2 GB and 7 s).
MAX_LATTICE_POINTS = 2**24
#: Largest exact session chain (states x rounds) solved beside the Monte Carlo (about a second).
MAX_CHAIN_CELLS = 3 * 10**8
#: Rounds the simulated tables of one horizon deal by default (dealt model).
TABLE_ROUNDS_BUDGET = 10**8

Distribution = LatticeSum | SaddlepointSum | EmpiricalSum


def sum_distribution(one: OneRound, n_rounds: int, *, max_points: int = MAX_LATTICE_POINTS,
                     tolerance: float = 1e-9, tail: float = 1e-12,
                     check_points: int = 2**16) -> LatticeSum | SaddlepointSum:
    """Distribution of the sum of ``n_rounds`` independent copies of ``one``: the exact lattice where it fits.

    Parameters
    ----------
    one : OneRound
    n_rounds : int
    max_points : int
        Memory budget: the exact lattice is used when its final window has at
        most this many points; otherwise the saddlepoint approximation, its
        error measured against the exact lattice.
    tolerance : float
        Target error of the exact lattice.
    tail : float
        Chernoff bound per discarded tail and step.
    check_points : int
        Size of the exact comparison that states the saddlepoint's error.

    Returns
    -------
    LatticeSum or SaddlepointSum
    """
    if lattice_window(one, n_rounds, tail) <= max_points:
        return exact_sum(one, n_rounds, tail=tail, tolerance=tolerance)
    return saddlepoint_sum(one, n_rounds, check_points=min(check_points, max_points), tail=tail)


def default_tables(n_rounds: int) -> int:
    """Simulated tables per horizon in the dealt model: ``10**8`` rounds' worth, from 1,000 to 100,000."""
    return max(1000, min(100_000, TABLE_ROUNDS_BUDGET // n_rounds))


def hold_distribution(slip: Slip, n_rounds: int, *, model: str | None = None, tables: int | None = None,
                      seed: int | None = None, threads: int | None = None, progress=None,
                      **options) -> Distribution:
    """Distribution of the house's result ``S_N`` over ``n_rounds`` rounds of ``slip``.

    Parameters
    ----------
    slip : Slip
    n_rounds : int
    model : {"fresh", "dealt"} or None
        Overrides the slip's shoe model.
    tables, seed, threads, progress
        Dealt model only: simulated tables (default :func:`default_tables`),
        master seed, numba threads and a progress object counting tables.
    **options
        Fresh model: passed to :func:`sum_distribution`.

    Returns
    -------
    LatticeSum, SaddlepointSum or EmpiricalSum

    Examples
    --------
    >>> from baccarat_sim import load_rules
    >>> from baccarat_sim.analysis.slip import build_slip
    >>> hold = hold_distribution(build_slip(load_rules("default"), {"player": 10}), 100)
    >>> hold.method.startswith("exact lattice")
    True
    """
    if (model or slip.model) == "dealt":
        return simulate_tables(slip, n_rounds, tables or default_tables(n_rounds), seed, model="dealt",
                               threads=threads, progress=progress)
    return sum_distribution(house_round(slip.player), n_rounds, **options)


@dataclasses.dataclass(frozen=True, eq=False)
class HoldSummary:
    """What a table does over ``n_rounds`` rounds of a slip, from the house's side.

    Attributes
    ----------
    n_rounds : int
    handle : Fraction
        ``N`` times the slip's total stake.
    mean : Fraction or float
        Expected house result: exact (fresh shoe) or the sample mean (dealt).
    mean_ci95 : (float, float) or None
        The sample mean's 95% interval (Monte Carlo only).
    sd : float
        SD of the house's result (exact, or the sample SD).
    quantiles : tuple of Quantile
        The house's result at :data:`QUANTILE_LEVELS`, each with its bracket.
    central_95, central_99 : (Quantile, Quantile)
        ``Q(0.025), Q(0.975)`` and ``Q(0.005), Q(0.995)``.
    p_house_behind : Probability
        ``P(S < 0)``.
    p_behind_by : tuple of (Fraction, Probability)
        ``(k, P(S < -k))`` for each ``k`` asked (chips).
    error_bound : float
        See ``method``: rigorous (exact lattice), measured (saddlepoint) or a
        95% half-width (Monte Carlo).
    method : str
    kind : str
        ``"exact"``, ``"saddlepoint"`` or ``"monte carlo"``.
    """

    n_rounds: int
    handle: Fraction
    mean: Fraction | float
    mean_ci95: tuple | None
    sd: float
    quantiles: tuple
    central_95: tuple
    central_99: tuple
    p_house_behind: Probability
    p_behind_by: tuple
    error_bound: float
    method: str
    kind: str

    def hold(self, value) -> float | None:
        """``value / handle``: a house result as a fraction of the handle (None stays None)."""
        return None if value is None else float(Fraction(value) / self.handle)

    @property
    def hold_mean(self) -> float:
        """Expected hold (the slip's house edge per unit of handle)."""
        return float(Fraction(self.mean) / self.handle) if isinstance(self.mean, Fraction) \
            else self.mean / float(self.handle)

    @property
    def hold_range_95(self) -> tuple[float, float]:
        """Central 95% range of the hold, fractions of the handle."""
        return self.hold(self.central_95[0].value), self.hold(self.central_95[1].value)

    @property
    def hold_range_99(self) -> tuple[float, float]:
        """Central 99% range of the hold, fractions of the handle."""
        return self.hold(self.central_99[0].value), self.hold(self.central_99[1].value)


def _kind(dist: Distribution) -> str:
    if isinstance(dist, EmpiricalSum):
        return "monte carlo"
    return "saddlepoint" if isinstance(dist, SaddlepointSum) else "exact"


def summarize(dist: Distribution, total_stake, *, behind_by=()) -> HoldSummary:
    """The summary statistics of a distribution of the house's result over ``N`` rounds.

    Parameters
    ----------
    dist : LatticeSum, SaddlepointSum or EmpiricalSum
        From :func:`hold_distribution`.
    total_stake : number
        The slip's total stake (handle per round).
    behind_by : sequence of number
        Amounts ``k`` (chips) for ``P(S < -k)``, the house behind by more than ``k``.

    Returns
    -------
    HoldSummary
    """
    handle = dist.n_rounds * Fraction(total_stake)
    quantiles = tuple(dist.quantile(q) for q in QUANTILE_LEVELS)
    central_95 = (dist.quantile(0.025), dist.quantile(0.975))
    central_99 = (dist.quantile(0.005), dist.quantile(0.995))
    behind = tuple((Fraction(k), dist.as_probability(dist.prob_below(-Fraction(k)))) for k in behind_by)
    empirical = isinstance(dist, EmpiricalSum)
    return HoldSummary(dist.n_rounds, handle, dist.mean, dist.mean_ci95 if empirical else None, dist.sd, quantiles,
                       central_95, central_99, dist.as_probability(dist.prob_below(0)), behind, dist.error_bound,
                       dist.method, _kind(dist))


@dataclasses.dataclass(frozen=True, eq=False)
class ObservedVerdict:
    """Where an observed hold falls among the holds of ``n_rounds`` rounds of the slip.

    Attributes
    ----------
    n_rounds : int
        Rounds played.
    win, handle : Fraction
        The observed win (the house's result) and handle.
    hold : Fraction
        ``win / handle``.
    model_win : Fraction
        The same hold on the slip's handle over ``n_rounds`` rounds (the value of ``S`` compared).
    percentile : float
        ``100 P(hold of N rounds <= observed hold)``.
    p_at_most, p_at_least : Probability
        ``P(S <= model_win)`` and ``P(S >= model_win)``.
    p_two_sided : Probability
        ``min(1, 2 min(P(S <= w), P(S >= w)))``.
    range_95, range_99 : (float, float)
        Central ranges of the hold (fractions of the handle).
    inside_95, inside_99 : bool
        Whether the observed hold lies in the range (ends included).
    method : str
    slip_handle : Fraction or None
        ``n_rounds`` times the slip's total stake: the handle the hold is
        compared at (``model_win = hold * slip_handle``).
    """

    n_rounds: int
    win: Fraction
    handle: Fraction
    hold: Fraction
    model_win: Fraction
    percentile: float
    p_at_most: Probability
    p_at_least: Probability
    p_two_sided: Probability
    range_95: tuple
    range_99: tuple
    inside_95: bool
    inside_99: bool
    method: str
    slip_handle: Fraction | None = None

    @property
    def handle_rescaled(self) -> bool:
        """Whether the observed handle differs from the slip's over the rounds played.

        The observed hold is then compared as if the slip had been staked in
        every round: the win is carried to the slip's handle (``model_win``).
        """
        return self.slip_handle is not None and self.handle != self.slip_handle

    def inside(self, level: int) -> bool:
        """Whether the observed hold lies in the central ``level``% range (95 or 99)."""
        return {95: self.inside_95, 99: self.inside_99}[level]


def check_observed(dist: Distribution, total_stake, win, handle, summary: HoldSummary | None = None) -> ObservedVerdict:
    """Where an observed win ``win`` on ``handle`` falls in the distribution of the hold over ``dist.n_rounds`` rounds.

    Parameters
    ----------
    dist : LatticeSum, SaddlepointSum or EmpiricalSum
        The house's result over the rounds played.
    total_stake : number
        The slip's total stake.
    win : number
        Observed house win (negative when the house lost), chips.
    handle : number
        Observed handle, > 0.
    summary : HoldSummary or None
        ``summarize(dist, total_stake)`` where the caller has it (one distribution checked against many periods).

    Raises
    ------
    InputError
        ``observed_handle``: not > 0.
    """
    win, handle = Fraction(win), Fraction(handle)
    if handle <= 0:
        raise InputError("observed_handle", f"must be > 0, got {handle}")
    summary = summarize(dist, total_stake) if summary is None else summary
    hold = win / handle
    model_win = hold * summary.handle
    at_most, at_least = dist.cdf(model_win), dist.prob_at_least(model_win)
    low95, high95 = summary.central_95
    low99, high99 = summary.central_99
    return ObservedVerdict(
        dist.n_rounds, win, handle, hold, model_win, 100.0 * at_most, dist.as_probability(at_most),
        dist.as_probability(at_least), dist.as_probability(min(1.0, 2.0 * min(at_most, at_least))),
        summary.hold_range_95, summary.hold_range_99, low95.value <= model_win <= high95.value,
        low99.value <= model_win <= high99.value, dist.method, summary.handle)


@dataclasses.dataclass(frozen=True)
class FanChart:
    """Hold quantiles against the number of rounds: the data of a fan chart.

    Attributes
    ----------
    rounds : tuple of int
    levels : tuple of float
        :data:`FAN_LEVELS`.
    holds : tuple of tuple of float
        ``holds[i][j]``: the hold (fraction of handle) at ``levels[j]`` after ``rounds[i]`` rounds.
    mean_hold : float
        The expected hold (the same for every N).
    """

    rounds: tuple
    levels: tuple
    holds: tuple
    mean_hold: float


def fan_chart(slip: Slip, horizons, distributions=(), *, per_decade: int = 4) -> FanChart:
    """Hold quantiles from the shortest horizon to the longest (fresh: exact, ``per_decade`` points a decade).

    In the dealt model (``distributions`` simulated at the horizons) only the
    horizons are shown: every other point would need its own simulation.
    """
    if slip.model == "dealt" or any(isinstance(d, EmpiricalSum) for d in distributions):
        by_rounds = {d.n_rounds: d for d in distributions}
        rounds = sorted(by_rounds)
        dists = [by_rounds[n] for n in rounds]
    else:
        first, top = min(horizons), max(horizons)
        steps = int(per_decade * math.log10(top / first))
        grid = {int(round(first * 10 ** (i / per_decade))) for i in range(steps + 1)}
        rounds = sorted(grid | set(horizons))
        known = {d.n_rounds: d for d in distributions}
        dists = [known.get(n) or hold_distribution(slip, n) for n in rounds]
    stake = slip.total_stake
    holds = tuple(tuple(float(d.quantile(q).value / (d.n_rounds * stake)) for q in FAN_LEVELS) for d in dists)
    return FanChart(tuple(rounds), FAN_LEVELS, holds, float(slip.house_edge))


@dataclasses.dataclass(frozen=True)
class BankrollPoint:
    """Session outcome probabilities at one bankroll (the data of a ruin and goal plot)."""

    bankroll: Fraction
    p_ruin: float
    p_goal: float
    p_stop_loss: float
    exact: bool


@dataclasses.dataclass(frozen=True, eq=False)
class SessionStudy:
    """Player sessions of a slip: Monte Carlo, the exact chain beside it where it is small enough.

    Attributes
    ----------
    rules : SessionRules
    monte_carlo : SessionOutcome
    exact : SessionOutcome or None
        The absorbing Markov chain (fresh shoe, at most :data:`MAX_CHAIN_CELLS`).
    curve : tuple of BankrollPoint
        Ruin and goal probabilities against the bankroll (for the plot; empty when not asked for).
    """

    rules: SessionRules
    monte_carlo: SessionOutcome
    exact: SessionOutcome | None
    curve: tuple = ()

    def z_scores(self) -> dict:
        """Monte Carlo against exact, per figure (empty without the exact chain).

        A probability's standard error is the exact one, ``sqrt(p (1 - p) / n)``
        with the exact ``p`` (so a figure the sessions never hit still gets a
        finite z); a mean's is the sample's.
        """
        if self.exact is None:
            return {}
        n = self.monte_carlo.n_sessions
        scores = {}
        for name in ("p_goal", "p_stop_loss", "p_ruin", "p_limit"):
            p, estimate = getattr(self.exact, name).value, getattr(self.monte_carlo, name).value
            se = math.sqrt(max(p * (1 - p), 0.0) / n)
            scores[name] = (estimate - p) / se if se > 0 else (0.0 if abs(estimate - p) < 1e-12 else math.inf)
        for name in ("mean_final", "mean_length"):
            scores[name] = getattr(self.monte_carlo, name).z(getattr(self.exact, name).value)
        return scores


def study_sessions(slip: Slip, rules: SessionRules, n_sessions: int, seed: int | None = None, *,
                   threads: int | None = None, progress=None) -> SessionStudy:
    """Monte Carlo of player sessions, and the exact chain beside it where the shoe is fresh and the chain small."""
    mc = simulate_sessions(slip, rules, n_sessions, seed, threads=threads, progress=progress)
    exact = None
    if slip.model == "fresh" and chain_cells(slip.player, rules) <= MAX_CHAIN_CELLS:
        exact = session_chain(slip.player, rules)
    return SessionStudy(rules, mc, exact)


def bankroll_curve(slip: Slip, rules: SessionRules, n_sessions: int, seed: int | None = None, *,
                   points: int = 25, threads: int | None = None) -> tuple[BankrollPoint, ...]:
    """P(ruin), P(goal) and P(stop-loss) for bankrolls from the slip's stake to 4 times the chosen one.

    Exact (Markov chain) where the shoe is fresh and the chain small enough,
    otherwise Monte Carlo with ``n_sessions`` sessions per bankroll.
    """
    top = max(4 * rules.bankroll, slip.total_stake)
    low = slip.total_stake
    grid = sorted({low + (top - low) * Fraction(i, points - 1) for i in range(points)} | {rules.bankroll})
    result = []
    for bankroll in grid:
        at = dataclasses.replace(rules, bankroll=bankroll)
        if slip.model == "fresh" and chain_cells(slip.player, at) <= MAX_CHAIN_CELLS:
            outcome = session_chain(slip.player, at)
        else:
            outcome = simulate_sessions(slip, at, n_sessions, seed, threads=threads)
        result.append(BankrollPoint(bankroll, outcome.p_ruin.value, outcome.p_goal.value, outcome.p_stop_loss.value,
                                    outcome.exact))
    return tuple(result)


@dataclasses.dataclass(frozen=True, eq=False)
class HoldAnalysis:
    """Everything ``python -m baccarat_sim.hold`` reports.

    Attributes
    ----------
    slip : Slip
    horizons : tuple of HoldSummary
        One per number of rounds asked, in the order asked.
    distributions : tuple
        The distribution behind each summary (for plots).
    observed : ObservedVerdict or None
    sessions : SessionStudy or None
    fan : FanChart or None
    run : dict
        Seed, threads, tables, timing.
    """

    slip: Slip
    horizons: tuple
    distributions: tuple
    observed: ObservedVerdict | None = None
    sessions: SessionStudy | None = None
    fan: FanChart | None = None
    run: dict = dataclasses.field(default_factory=dict)


def analyze_hold(slip: Slip, horizons, *, behind_by=(), observed=None, tables: int | None = None,
                 seed: int | None = None, threads: int | None = None, progress=None) -> HoldAnalysis:
    """The house's result over each horizon, and an observed hold's verdict.

    Parameters
    ----------
    slip : Slip
    horizons : sequence of int
        Numbers of rounds.
    behind_by : sequence of number
        Amounts ``k`` (chips) for ``P(house behind by more than k)``.
    observed : (win, handle, rounds) or None
        An observed house win on a handle over a number of rounds.
    tables, seed, threads
        Dealt model: simulated tables per horizon, master seed, numba threads.
    progress : callable or None
        ``progress(total, unit)`` returns a context-managed object with
        ``update(n)`` for each simulation (dealt model).

    Returns
    -------
    HoldAnalysis
        Without sessions or fan chart (see `study_sessions`, `fan_chart` in this module).
    """
    cache: dict[int, Distribution] = {}

    def distribution(n: int) -> Distribution:
        if n not in cache:
            if slip.model == "dealt" and progress is not None:
                count = tables or default_tables(n)
                with progress(count, "table") as bar:
                    cache[n] = hold_distribution(slip, n, tables=count, seed=seed, threads=threads, progress=bar)
            else:
                cache[n] = hold_distribution(slip, n, tables=tables, seed=seed, threads=threads)
        return cache[n]

    dists = tuple(distribution(int(n)) for n in horizons)
    summaries = tuple(summarize(d, slip.total_stake, behind_by=behind_by) for d in dists)
    verdict = None
    if observed is not None:
        win, handle, rounds = observed
        verdict = check_observed(distribution(int(rounds)), slip.total_stake, win, handle)
    return HoldAnalysis(slip, summaries, dists, verdict)

