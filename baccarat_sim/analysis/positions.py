"""Dealt-shoe analysis: RTP by round position, Max Round Availability, rounds per shoe, cut-card sweeps.

In the dealt model a shoe is shuffled once, a card is turned for the burn, and
rounds are dealt from the top until the round in which the cut card comes out
(plus the rule set's ``after_cut`` rounds). The kernel keeps one histogram row
per round position (:attr:`baccarat_sim.model.histogram.OutcomeHistogram.by_position`,
row ``k - 1`` is round ``k``); everything here is read from those rows.

One fact organises the analysis: **a round that every shoe reaches has exactly
the outcome distribution of a freshly shuffled shoe.** The start of round
``k`` is a stopping time of the card sequence (it depends only on cards already
seen), and given those cards the rest of a shuffled shoe is in uniformly random
order; the probability that the next six cards form a given sequence is
therefore a martingale in the position, and optional stopping carries its
starting value (the fresh-shoe probability) to the start of round ``k``. The
burn and the depletion by earlier rounds change no bet's RTP at such a round.
What does change it is *selection*: round ``k`` is dealt only in shoes whose
first ``k - 1`` rounds used few enough cards to leave the cut card in, and those
shoes have lost more of the cards that make short rounds (naturals, standing
totals). :func:`~baccarat_sim.engines.plan.rounds_in_every_shoe` gives the last round every shoe reaches;
only later rounds can differ from the fresh-shoe RTP. So when a bet's
``max_round`` ("Max Round Availability") is at most that round, the RTP a
player faces under the cap *is* the exact fresh-shoe RTP.

Standard errors
---------------
*One round position.* A shoe deals at most one round at position ``k`` and
shoes are shuffled independently, so the rounds of row ``k`` are independent
and identically distributed: the plain (iid) standard error is the right one
(batch means would also be valid, only noisier).

*Several positions pooled* (the capped RTP, bands of rounds). Up to
``max_round`` rounds of one shoe are pooled and they are not independent. The
standard error is the iid one times the square root of the bet's *design
effect* measured over whole shoes (batch-means variance over iid variance of
the all-rounds estimate, :func:`baccarat_sim.analysis.stats.estimate`), and never below
the iid one, so that a noisy design effect below 1 cannot make a pooled figure
look more precise than independent rounds would be.

Too few rounds
--------------
A position's RTP is reported (not None/NaN) when the position saw at least
``max(MIN_ROUNDS, MIN_LINE_HITS / p)`` rounds, ``p`` being the fresh-shoe
probability of the bet's least likely winning pay line: each paying line is
then expected at least ten times, so the normal 95% interval is credible even
for long-shot payouts (a 30:1 line with p = 0.2% needs 5,000 rounds).
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from ..engines.detail import rules_detail
from ..engines.exact import exact_histogram
from ..engines.plan import normalize_seed, rounds_in_every_shoe
from ..engines.simulation import simulate
from ..model.histogram import OutcomeHistogram
from ..model.rules import Bet, CutCard, Rules
from ..model.shoe import as_shoe
from .rounds_per_shoe import RoundsPerShoe, histogram_dealt_in_every_shoe, position_rows, rounds_per_shoe
from .settlement import net_vector
from .stats import Z95, estimate

__all__ = [
    "MIN_LINE_HITS",
    "MIN_ROUNDS",
    "BandEstimate",
    "BetPositions",
    "CutSweep",
    "PositionAnalysis",
    "Pooled",
    "RoundsPerShoe",
    "analyze_positions",
    "cut_card_sweep",
    "histogram_dealt_in_every_shoe",
    "rounds_in_every_shoe",
    "rounds_per_shoe",
]

#: Fewest rounds at a position for its RTP to be reported.
MIN_ROUNDS = 1000
#: Each winning pay line of a bet must be expected at least this often at a position.
MIN_LINE_HITS = 10


# --------------------------------------------------------------------------- RTP by position


def _min_rounds(bet: Bet, net: np.ndarray, reference: OutcomeHistogram) -> int:
    """Rounds a position needs before its RTP is reported (module docstring, "Too few rounds")."""
    line = bet.case_index(reference.detail)
    mass = np.bincount(line, weights=reference.counts.astype(float), minlength=len(bet.cases) + 1)
    line_net = np.full(len(mass), -1.0)
    line_net[line] = net  # every code of a line has the line's net result
    winning = mass[(line_net > 0) & (mass > 0)]
    if not len(winning):
        return MIN_ROUNDS
    return max(MIN_ROUNDS, math.ceil(MIN_LINE_HITS * mass.sum() / winning.min()))


@dataclasses.dataclass(frozen=True)
class Pooled:
    """An RTP estimate over several round positions, with its standard error."""

    rtp: float
    se: float
    rounds: int

    @property
    def ci95(self) -> tuple[float, float]:
        """95% confidence interval."""
        return (self.rtp - Z95 * self.se, self.rtp + Z95 * self.se)


@dataclasses.dataclass(frozen=True)
class BetPositions:
    """One bet's RTP by round position, under its Max Round Availability and over all rounds.

    Attributes
    ----------
    bet_id, name : str
    rounds : ndarray(int64)
        Rounds dealt at each position (``rounds[k - 1]`` for round ``k``).
    rtp, se : ndarray(float64)
        RTP and its standard error at each position; NaN where too few rounds.
    min_rounds : int
        Rounds a position needs to be reported.
    exact_rtp : float
        Exact RTP of a freshly shuffled shoe.
    always : int
        Positions ``1..always`` are dealt in every shoe: their exact RTP is ``exact_rtp``.
    all_rounds : Pooled
        Every round of the run (batch-means SE over whole shoes).
    design_effect : float
        Batch-means variance over iid variance of ``all_rounds`` (1 when unknown).
    max_round : int or None
        The bet's Max Round Availability.
    capped : Pooled or None
        Rounds ``1..max_round`` only: the RTP a player faces under the cap.
    late : Pooled or None
        Rounds after ``max_round`` (what the cap takes away).
    every_shoe : Pooled or None
        Rounds ``1..always`` only, which every shoe deals: the dealt-shoe figure
        whose exact value is ``exact_rtp`` (None when no round is dealt in every
        shoe).
    """

    bet_id: str
    name: str
    rounds: np.ndarray
    rtp: np.ndarray
    se: np.ndarray
    min_rounds: int
    exact_rtp: float
    always: int
    all_rounds: Pooled
    design_effect: float
    max_round: int | None = None
    capped: Pooled | None = None
    late: Pooled | None = None
    every_shoe: Pooled | None = None

    @property
    def z_every_shoe(self) -> float:
        """z-score of the RTP over the rounds every shoe deals against the fresh-shoe exact RTP, the one they have.

        What a dealt run can be checked on: over all rounds the cut card moves
        the RTP away from the fresh shoe's (module docstring). NaN without a
        standard error (no such round, or too few rounds to tell).
        """
        every = self.every_shoe
        if every is None or every.rounds < self.min_rounds or not every.se > 0:
            return math.nan
        return (every.rtp - self.exact_rtp) / every.se

    @property
    def exact_rtp_capped(self) -> float | None:
        """Exact RTP under the cap when every capped round is dealt in every shoe (then the fresh RTP)."""
        if self.max_round is None or self.max_round > self.always:
            return None
        return self.exact_rtp

    @property
    def capped_minus_all(self) -> tuple[float, float] | None:
        """RTP under the cap minus over all rounds, and its standard error."""
        if self.capped is None:
            return None
        if self.late is None or self.late.rounds == 0:
            return (0.0, 0.0)
        share_late = self.late.rounds / self.all_rounds.rounds
        gap = self.capped.rtp - self.late.rtp
        se = share_late * math.hypot(self.capped.se, self.late.se)
        return (share_late * gap, se)

    @property
    def ci95_by_round(self) -> tuple[np.ndarray, np.ndarray]:
        """95% confidence interval of the RTP at each position (low, high; NaN where too few rounds)."""
        return self.rtp - Z95 * self.se, self.rtp + Z95 * self.se

    @property
    def exact_rtp_by_round(self) -> np.ndarray:
        """Exact RTP at each position where it is known: the fresh-shoe RTP at rounds every shoe deals, else NaN."""
        k = np.arange(1, len(self.rounds) + 1)
        return np.where(k <= self.always, self.exact_rtp, np.nan)

    @property
    def z_by_round(self) -> np.ndarray:
        """z-score of each position's RTP against the fresh-shoe exact RTP (NaN where too few rounds)."""
        with np.errstate(invalid="ignore", divide="ignore"):
            return (self.rtp - self.exact_rtp) / self.se

    @property
    def rtp_minus_fresh(self) -> float:
        """RTP over all rounds minus the fresh-shoe exact RTP."""
        return self.all_rounds.rtp - self.exact_rtp

    @property
    def z_vs_fresh(self) -> float:
        """z-score of the RTP over all rounds against the fresh-shoe exact RTP (NaN without a standard error)."""
        return (self.all_rounds.rtp - self.exact_rtp) / self.all_rounds.se if self.all_rounds.se else math.nan

    @property
    def share_offered(self) -> float | None:
        """Share of all rounds in which the bet is offered under its Max Round Availability (None: no cap)."""
        return None if self.capped is None else self.capped.rounds / self.all_rounds.rounds

    def rtp_list(self) -> list:
        """RTP at round 1, 2, ... with None where too few rounds were seen."""
        return [None if math.isnan(v) else float(v) for v in self.rtp]

    def se_list(self) -> list:
        """Standard error at round 1, 2, ... with None where too few rounds were seen."""
        return [None if math.isnan(v) else float(v) for v in self.se]


def _pool(rows: np.ndarray, net: np.ndarray, inflation: float) -> Pooled:
    """RTP over the summed rows, iid SE inflated by ``inflation`` (sqrt of the design effect)."""
    counts = rows.sum(axis=0) if rows.ndim == 2 else rows
    n = int(counts.sum())
    if n == 0:
        return Pooled(math.nan, math.nan, 0)
    ev = float(counts @ net) / n
    variance = max(float(counts @ (net * net)) / n - ev * ev, 0.0) / n
    return Pooled(1.0 + ev, math.sqrt(variance) * inflation, n)


def _bet_positions(hist: OutcomeHistogram, rows: np.ndarray, bet: Bet, rules: Rules, reference: OutcomeHistogram,
                   always: int) -> BetPositions:
    rows = rows[..., hist.cell_range([bet])]  # a histogram of card-level groups: the cells of the bet's group
    hist, reference = hist.view([bet]), reference.view([bet])
    net = net_vector(bet, rules, hist.detail)
    n = rows.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        ev = (rows @ net) / n
        variance = np.maximum((rows @ (net * net)) / n - ev * ev, 0.0) / n
    min_rounds = _min_rounds(bet, net, reference)
    few = n < min_rounds
    rtp = np.where(few, np.nan, 1.0 + ev)
    se = np.where(few, np.nan, np.sqrt(variance))
    whole = estimate(hist, net)
    iid = _pool(hist.counts, net, 1.0)
    design_effect = (whole.se / iid.se) ** 2 if whole.method == "batch_means" and iid.se > 0 else 1.0
    inflation = math.sqrt(max(1.0, design_effect))
    exact_rtp = float(reference.counts @ net / reference.total + 1.0)
    capped = late = None
    if bet.max_round is not None:
        capped = _pool(rows[: bet.max_round], net, inflation)
        late = _pool(rows[bet.max_round:], net, inflation) if len(rows) > bet.max_round else Pooled(math.nan,
                                                                                                     math.nan, 0)
    every_shoe = _pool(rows[:always], net, 1.0 if always == 1 else inflation) if always >= 1 else None
    return BetPositions(
        bet_id=bet.id,
        name=bet.name,
        rounds=n.astype(np.int64),
        rtp=rtp,
        se=se,
        min_rounds=min_rounds,
        exact_rtp=exact_rtp,
        always=always,
        all_rounds=Pooled(whole.rtp, whole.se, int(hist.counts.sum())),
        design_effect=float(design_effect),
        max_round=bet.max_round,
        capped=capped,
        late=late,
        every_shoe=every_shoe,
    )




@dataclasses.dataclass(frozen=True, eq=False)
class PositionAnalysis:
    """Per-position results of a dealt run: every bet by round, under its cap, and rounds per shoe.

    Build it with :func:`analyze_positions`.
    """

    rules: Rules
    hist: OutcomeHistogram
    bets: dict[str, BetPositions]
    rounds_per_shoe: RoundsPerShoe

    @property
    def always(self) -> int:
        """Rounds every shoe deals (their exact RTP is the fresh-shoe RTP)."""
        return self.rounds_per_shoe.always

    def run_fields(self) -> dict:
        """The fields a dealt run adds to its header: mean rounds per shoe, their summary, rounds in every shoe."""
        summary = self.rounds_per_shoe.summary()
        return {
            "rounds_per_shoe": summary["mean"],
            "rounds_per_shoe_summary": summary,
            "rounds_in_every_shoe": self.always,
        }

    def bands(self) -> list[tuple[int, int]]:
        """Round bands for compact tables: the rounds every shoe deals, then single rounds or groups of five."""
        last = max((len(b.rounds) for b in self.bets.values()), default=0)
        first = max(1, min(self.always, last))
        out = [(1, first)]
        start = first + 1
        while start <= last:
            # A short tail (a small shoe) is shown round by round; a long one in fives.
            stop = start if last - first <= 10 else min(last, ((start - 1) // 5 + 1) * 5)
            out.append((start, stop))
            start = stop + 1
        return out

    def band_estimates(self) -> list[BandEstimate]:
        """RTP per bet over each band of :meth:`bands`, pooled (design-effect SE for bands of several rounds).

        A band's RTP is NaN where it saw fewer rounds than the bet's ``min_rounds``.
        """
        rows, _ = position_rows(self.hist)
        bands = self.bands()
        counts = np.stack([rows[lo - 1: hi].sum(axis=0) for lo, hi in bands])
        estimates = []
        for bet in self.rules.bets:
            b = self.bets[bet.id]
            inflation = math.sqrt(max(1.0, b.design_effect))
            view = self.hist.view([bet])
            net = net_vector(bet, self.rules, view.detail)
            for (lo, hi), band in zip(bands, counts[..., self.hist.cell_range([bet])]):
                pooled = _pool(band, net, 1.0 if lo == hi else inflation)
                enough = pooled.rounds >= b.min_rounds
                estimates.append(BandEstimate(bet.id, lo, hi, pooled.rounds, pooled.rtp if enough else math.nan,
                                              pooled.se if enough else math.nan))
        return estimates


@dataclasses.dataclass(frozen=True)
class BandEstimate:
    """A bet's RTP pooled over the rounds ``from_round .. to_round`` of a shoe."""

    bet: str
    from_round: int
    to_round: int
    rounds: int
    rtp: float
    se: float

    def excludes(self, rtp: float) -> bool:
        """Whether the 95% interval of this RTP excludes ``rtp`` (a difference the noise does not explain)."""
        return abs(self.rtp - rtp) > Z95 * self.se


def analyze_positions(hist: OutcomeHistogram, rules: Rules, exact: OutcomeHistogram | None = None
                      ) -> PositionAnalysis:
    """RTP by round position, under each bet's Max Round Availability, and rounds per shoe.

    Parameters
    ----------
    hist : OutcomeHistogram
        Dealt-model Monte Carlo histogram with ``by_position`` rows.
    rules : Rules
        The rule set the run dealt (shoe) and the bets to settle.
    exact : OutcomeHistogram or None
        Exact histogram of the same shoe (fresh shuffle); computed when None.

    Returns
    -------
    PositionAnalysis

    Examples
    --------
    >>> from baccarat_sim import load_rules, simulate
    >>> rules = load_rules("default").with_shoe(model="dealt", decks=1)
    >>> analysis = analyze_positions(simulate(rules, 200_000, seed=1), rules)
    >>> analysis.always, round(analysis.rounds_per_shoe.mean, 1)
    (7, 8.3)
    """
    if exact is None:
        exact = exact_histogram(hist.shoe, hist.detail)
    rows, _ = position_rows(hist)
    per_shoe = rounds_per_shoe(hist, rules.shoe)
    bets = {bet.id: _bet_positions(hist, rows, bet, rules, exact, per_shoe.always) for bet in rules.bets}
    return PositionAnalysis(rules, hist, bets, per_shoe)


# --------------------------------------------------------------------------- cut-card sweep


@dataclasses.dataclass(frozen=True, eq=False)
class CutSweep:
    """Each bet's RTP as the cut card moves: one dealt run per cut-card position.

    Build it with :func:`cut_card_sweep`.

    Attributes
    ----------
    rules : Rules
    cuts : list of CutCard
        The positions swept, in the order given.
    analyses : list of PositionAnalysis
        One per finished position, in the order of ``cuts`` (fewer than the
        positions when the sweep was stopped).
    seed : int
        The master seed every run used.
    composition : ndarray(int64, shape=(13, 4)) or None
        The shoe before shuffling.
    complete : bool
        Whether every position was dealt in full.
    """

    rules: Rules
    cuts: list[CutCard]
    analyses: list[PositionAnalysis]
    seed: int
    composition: np.ndarray | None = None
    complete: bool = True

    @property
    def done(self) -> list[tuple[CutCard, PositionAnalysis]]:
        """The finished positions and their analyses."""
        return list(zip(self.cuts, self.analyses))


def cut_card_sweep(rules: Rules, cuts: list[CutCard], rounds: int, seed: int | None = None, *, shoe=None,
                   threads: int | None = None, progress=None, on_run=None, deal=None) -> CutSweep:
    """Deal ``rounds`` dealt-shoe rounds at each cut-card position and analyse each run.

    The sweep stops as a whole when a position's run stops before its end (a
    signal, ``max_chunks``): the positions finished so far are analysed, and
    ``complete`` is False.

    Parameters
    ----------
    rules : Rules
        Rule set; its cut card is replaced by each of ``cuts`` in turn
        (``rules.with_shoe(cut_card=...)``), the model is the dealt one.
    cuts : list of CutCard
        Cut-card positions, in cards from the end (each must leave room for a round).
    rounds : int
        Rounds per position (whole shoes, about this many).
    seed : int or None
        One master seed for every position (drawn once when None).
    shoe : int or ndarray(int64, shape=(13, 4)) or None
        Overrides the rule set's decks.
    threads, progress
        As for :func:`baccarat_sim.engines.simulation.simulate`.
    on_run : callable or None
        Called as ``on_run(cut, analysis)`` after each position.
    deal : callable or None
        ``deal(variant, rounds, seed, composition)``: the histogram of one
        position (with ``by_position`` rows), e.g. from a checkpointed run, or
        None to stop before it; default
        :func:`~baccarat_sim.engines.simulation.simulate` here.

    Returns
    -------
    CutSweep
    """
    seed = normalize_seed(seed)
    composition = as_shoe(rules.shoe.decks if shoe is None else shoe)
    exact = exact_histogram(composition, rules_detail(rules))
    if deal is None:
        def deal(variant, n_rounds, seed_value, cards):
            return simulate(variant, n_rounds, seed_value, threads=threads, shoe=cards, by_position=True,
                            progress=progress)
    analyses = []
    complete = True
    for cut in cuts:
        variant = rules.with_shoe(model="dealt", cut_card=cut)
        hist = deal(variant, rounds, seed, composition)
        if hist is None or not hist.meta.get("complete", True):  # stopped: the sweep stops with it
            complete = False
            break
        analysis = analyze_positions(hist, variant, exact)
        analyses.append(analysis)
        if on_run is not None:
            on_run(cut, analysis)
    return CutSweep(rules.with_shoe(model="dealt"), list(cuts), analyses, seed, composition, complete)
