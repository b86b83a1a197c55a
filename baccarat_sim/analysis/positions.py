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
totals). :func:`rounds_in_every_shoe` gives the last round every shoe reaches;
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
from ..engines.plan import normalize_seed, shoe_params
from ..engines.simulation import simulate
from ..kernels.dealing import N_SHOE_PARAMS
from ..kernels.dealing import rounds_in_every_shoe as _worst_shoe_rounds
from ..model.histogram import OutcomeHistogram
from ..model.rules import Bet, CutCard, Rules, Shoe
from ..model.shoe import as_shoe
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
#: Quantiles of the rounds-per-shoe distribution that are reported.
QUANTILES = (0.01, 0.05, 0.25, 0.5, 0.75, 0.95, 0.99)


# --------------------------------------------------------------------------- rounds per shoe


def rounds_in_every_shoe(shoe: Shoe, n_cards: int | None = None) -> int:
    """The last round position that every shoe deals, whatever its cards.

    The dealing procedure (:mod:`baccarat_sim.kernels.dealing`) run on the
    worst shoe: the burn takes its most cards, the cut card sits at its
    deepest, and every round takes six cards.

    Parameters
    ----------
    shoe : Shoe
        Burn, cut card and last-round rule (``rules.shoe``).
    n_cards : int or None
        Cards in the shoe (default ``52 * shoe.decks``).

    Examples
    --------
    >>> from baccarat_sim import load_rules
    >>> rounds_in_every_shoe(load_rules("live-8deck-side-bets").shoe)  # 416 cards, burn up to 11, cut card at 14
    66
    """
    n = shoe.n_cards if n_cards is None else int(n_cards)
    return int(_worst_shoe_rounds(n, shoe_params(shoe, n)))


@dataclasses.dataclass(frozen=True)
class RoundsPerShoe:
    """Distribution of the number of rounds a shoe deals.

    Attributes
    ----------
    shoes : int
        Shoes dealt.
    reaching : ndarray(int64)
        ``reaching[k - 1]``: shoes that dealt a round ``k`` (at least ``k`` rounds).
    rounds : int
        Rounds dealt in all.
    open_tail : bool
        True when the histogram's last position row pooled later rounds, so the
        last entry of :attr:`probability` is P(at least that many rounds).
    always : int
        Rounds every shoe deals under the rule set (:func:`rounds_in_every_shoe`).
    """

    shoes: int
    reaching: np.ndarray
    rounds: int
    open_tail: bool = False
    always: int = 0

    @property
    def mean(self) -> float:
        """Mean rounds per shoe (exact: rounds / shoes, whatever the tail)."""
        return self.rounds / self.shoes if self.shoes else math.nan

    @property
    def probability(self) -> np.ndarray:
        """``probability[k - 1]`` = P(a shoe deals exactly ``k`` rounds)."""
        if not self.shoes:
            return np.zeros(0)
        exactly = self.reaching - np.append(self.reaching[1:], 0)
        return exactly / self.shoes

    @property
    def sd(self) -> float:
        """Standard deviation of rounds per shoe (NaN with an open tail)."""
        if self.open_tail or not self.shoes:
            return math.nan
        k = np.arange(1, len(self.reaching) + 1)
        return float(math.sqrt(max(self.probability @ (k * k) - self.mean**2, 0.0)))

    def quantile(self, q: float) -> int:
        """Smallest ``k`` with P(rounds <= k) >= q."""
        cdf = np.cumsum(self.probability)
        return int(np.searchsorted(cdf, q - 1e-12) + 1)

    @property
    def least(self) -> int:
        """Fewest rounds seen in a shoe."""
        return int(np.flatnonzero(self.reaching == self.shoes)[-1] + 1) if self.shoes else 0

    @property
    def most(self) -> int:
        """Most rounds seen in a shoe (a lower bound with an open tail)."""
        return int(len(self.reaching))

    def summary(self) -> dict:
        """Mean, SD, extremes and quantiles, JSON-ready (keys ``p5``, ``p50``, ...)."""
        out = {"mean": self.mean, "sd": self.sd, "min": self.least, "max": self.most, "shoes": self.shoes,
               "in_every_shoe": self.always}
        out.update({f"p{100 * q:g}": self.quantile(q) for q in QUANTILES})
        return out



def _position_rows(hist: OutcomeHistogram) -> tuple[np.ndarray, bool]:
    """Per-position rows with trailing empty rows dropped, and whether the last one pools later rounds."""
    if hist.model != "dealt" or hist.by_position is None:
        raise ValueError("position analysis needs a dealt-model Monte Carlo histogram with by_position rows "
                         "(simulate(..., model='dealt', by_position=True))")
    rows = hist.by_position
    totals = rows.sum(axis=1)
    # The kernel's last row also takes every later round; it holds data only
    # when the plan had fewer rows than a shoe can have rounds.
    open_tail = bool(totals[-1] > 0)
    used = np.flatnonzero(totals)
    return rows[: used[-1] + 1 if len(used) else 0], open_tail


def rounds_per_shoe(hist: OutcomeHistogram, shoe: Shoe | None = None) -> RoundsPerShoe:
    """Rounds per shoe of a dealt run, from its per-position row totals.

    Every shoe deals at most one round at each position, so the rounds at
    position ``k`` are the shoes that reached round ``k``.

    Parameters
    ----------
    hist : OutcomeHistogram
        Dealt model, with ``by_position``.
    shoe : Shoe or None
        The rule set's shoe, for :attr:`RoundsPerShoe.always`.
    """
    rows, open_tail = _position_rows(hist)
    reaching = rows.sum(axis=1)
    shoes = int(hist.shoes) if hist.shoes else int(reaching[0]) if len(reaching) else 0
    rounds = int(reaching.sum())
    if open_tail:  # the last row counts rounds, not shoes: keep P(at least n - 1 rounds) only
        reaching = reaching[:-1]
    always = histogram_dealt_in_every_shoe(hist)
    if always is None:
        always = rounds_in_every_shoe(shoe, int(hist.shoe.sum())) if shoe is not None else 0
    return RoundsPerShoe(shoes, reaching.astype(np.int64), rounds, open_tail, always)


def histogram_dealt_in_every_shoe(hist: OutcomeHistogram) -> int | None:
    """The last round position every shoe of the histogram's own dealing reaches, or None where it is not recorded.

    A dealt run records how its shoe was dealt (``meta["shoe_params"]``: burn,
    cut card, rounds after it); a histogram of an earlier version recorded the
    figure itself (``meta["rounds_in_every_shoe"]``). Either describes the
    rounds the histogram holds, whatever rule set later settles them.
    """
    params, n_cards = hist.meta.get("shoe_params"), int(hist.shoe.sum())
    if isinstance(params, list) and len(params) == N_SHOE_PARAMS and all(
            type(x) is int and 0 <= x <= n_cards for x in params):
        return int(_worst_shoe_rounds(n_cards, np.array(params, np.int64)))
    recorded = hist.meta.get("rounds_in_every_shoe")
    return recorded if type(recorded) is int and recorded >= 0 else None


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
    )




@dataclasses.dataclass
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
        rows, _ = _position_rows(self.hist)
        bands = self.bands()
        counts = np.stack([rows[lo - 1: hi].sum(axis=0) for lo, hi in bands])
        estimates = []
        for bet in self.rules.bets:
            b = self.bets[bet.id]
            inflation = math.sqrt(max(1.0, b.design_effect))
            net = net_vector(bet, self.rules, self.hist.detail)
            for (lo, hi), band in zip(bands, counts):
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
    rows, _ = _position_rows(hist)
    per_shoe = rounds_per_shoe(hist, rules.shoe)
    bets = {bet.id: _bet_positions(hist, rows, bet, rules, exact, per_shoe.always) for bet in rules.bets}
    return PositionAnalysis(rules, hist, bets, per_shoe)


# --------------------------------------------------------------------------- cut-card sweep


@dataclasses.dataclass
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
