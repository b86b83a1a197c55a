"""Dealt-shoe analysis: RTP by round position, Max Round Availability, rounds per shoe, cut-card sweeps.

In the dealt model a shoe is shuffled once, a card is turned for the burn, and
rounds are dealt from the top until the round in which the cut card comes out
(plus the rule set's ``after_cut`` rounds). The kernel keeps one histogram row
per round position (:attr:`baccarat_sim.outcomes.OutcomeHistogram.by_position`,
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
the all-rounds estimate, :func:`baccarat_sim.stats.estimate`), and never below
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
import re
from fractions import Fraction

import numpy as np
import pandas as pd

from ._format import clean_json, markdown_table, text_table
from .outcomes import OutcomeHistogram
from .rules import Bet, CutCard, Rules, Shoe
from .settle import net_vector
from .stats import Z95, estimate

__all__ = [
    "MIN_LINE_HITS",
    "MIN_ROUNDS",
    "BetPositions",
    "CutSweep",
    "PositionAnalysis",
    "Pooled",
    "RoundsPerShoe",
    "analyze_positions",
    "cut_card_sweep",
    "parse_cut_sweep",
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

    Round ``k + 1`` is dealt when, after ``k`` rounds, the cut card is still in
    and six cards are left. In the worst case the burn takes its most cards and
    every round takes six, so rounds up to ``K0 = 1 + floor((min(N - high, N -
    6) - burned) / 6)`` always come; ``after_cut`` extra rounds follow the cut
    card's round whenever six cards are left.

    Parameters
    ----------
    shoe : Shoe
        Burn, cut card and last-round rule (``rules.shoe``).
    n_cards : int or None
        Cards in the shoe (default ``52 * shoe.decks``).

    Examples
    --------
    >>> from baccarat_sim.rules import load_rules
    >>> rounds_in_every_shoe(load_rules("live-8deck-side-bets").shoe)  # 416 cards, burn up to 11, cut card at 14
    66
    """
    n = shoe.n_cards if n_cards is None else int(n_cards)
    _, burned = shoe.cards_before_first_round()
    if burned + 6 > n:
        return 0
    cut_index = n - min(shoe.cut_card.high, n)
    room = min(cut_index, n - 6) - burned
    always = 1 + (room // 6 if room >= 0 else 0)
    extra = 0
    while extra < shoe.rounds_after_cut and burned + 6 * (always + extra) <= n - 6:
        extra += 1
    return always + extra


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

    def to_frame(self) -> pd.DataFrame:
        """One row per round count: ``rounds``, ``shoes_reaching``, ``shoes`` (exactly), ``probability``."""
        k = np.arange(1, len(self.reaching) + 1)
        probability = self.probability
        return pd.DataFrame({"rounds": k, "shoes_reaching": self.reaching,
                             "shoes": np.rint(probability * self.shoes).astype(np.int64),
                             "probability": probability})

    def text(self) -> str:
        """One line: mean, central 90%, extremes."""
        if not self.shoes:
            return "no shoes dealt"
        return (f"mean {self.mean:.2f} (sd {self.sd:.2f}); 5%-95%: {self.quantile(0.05)}-{self.quantile(0.95)}, "
                f"median {self.quantile(0.5)}, seen {self.least}-{self.most}" + ("+" if self.open_tail else "")
                + f" in {self.shoes:,} shoes")


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
    always = rounds_in_every_shoe(shoe, int(hist.shoe.sum())) if shoe is not None else 0
    return RoundsPerShoe(shoes, reaching.astype(np.int64), rounds, open_tail, always)


# --------------------------------------------------------------------------- RTP by position


def _min_rounds(bet: Bet, net: np.ndarray, reference: OutcomeHistogram) -> int:
    """Rounds a position needs before its RTP is reported (module docstring, "Too few rounds")."""
    line = bet.case_index()
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
    net = net_vector(bet, rules)
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


def _pm(pooled: Pooled | None, digits: int = 4) -> str:
    if pooled is None or pooled.rounds == 0 or math.isnan(pooled.rtp):
        return ""
    return f"{100 * pooled.rtp:.{digits}f} ± {100 * Z95 * pooled.se:.{digits}f}"


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

    # -- tables

    def by_round_frame(self) -> pd.DataFrame:
        """Long table: one row per (bet, round) with rounds, RTP, SE, 95% CI, exact RTP where known, z."""
        frames = []
        for b in self.bets.values():
            k = np.arange(1, len(b.rounds) + 1)
            exact = np.where(k <= b.always, b.exact_rtp, np.nan)
            with np.errstate(invalid="ignore", divide="ignore"):
                z = (b.rtp - b.exact_rtp) / b.se
            frames.append(pd.DataFrame({
                "bet": b.bet_id, "round": k, "rounds": b.rounds, "rtp": b.rtp, "se": b.se,
                "ci95_low": b.rtp - Z95 * b.se, "ci95_high": b.rtp + Z95 * b.se,
                "exact_rtp": exact, "fresh_exact_rtp": b.exact_rtp, "z_vs_fresh": z,
            }))
        return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()

    def capped_frame(self) -> pd.DataFrame:
        """One row per bet with a Max Round Availability: RTP under the cap, over all rounds, fresh exact."""
        rows = []
        for b in self.bets.values():
            if b.capped is None:
                continue
            gap, gap_se = b.capped_minus_all
            rows.append({
                "bet": b.bet_id, "name": b.name, "max_round": b.max_round,
                "share_of_rounds_offered": b.capped.rounds / b.all_rounds.rounds,
                "rtp_capped": b.capped.rtp, "rtp_capped_se": b.capped.se,
                "rtp_all_rounds": b.all_rounds.rtp, "rtp_all_rounds_se": b.all_rounds.se,
                "rtp_after_cap": b.late.rtp, "rtp_after_cap_se": b.late.se,
                "capped_minus_all": gap, "capped_minus_all_se": gap_se,
                "fresh_exact_rtp": b.exact_rtp, "exact_rtp_capped": b.exact_rtp_capped,
            })
        return pd.DataFrame(rows)

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

    def band_frame(self) -> pd.DataFrame:
        """RTP per bet over each band of :meth:`bands`, pooled (design-effect SE for bands of several rounds)."""
        rows, _ = _position_rows(self.hist)
        bands = self.bands()
        counts = np.stack([rows[lo - 1: hi].sum(axis=0) for lo, hi in bands])
        records = []
        for bet in self.rules.bets:
            b = self.bets[bet.id]
            inflation = math.sqrt(max(1.0, b.design_effect))
            net = net_vector(bet, self.rules)
            for (lo, hi), band in zip(bands, counts):
                pooled = _pool(band, net, 1.0 if lo == hi else inflation)
                enough = pooled.rounds >= b.min_rounds
                records.append({"bet": bet.id, "from_round": lo, "to_round": hi, "rounds": pooled.rounds,
                                "rtp": pooled.rtp if enough else math.nan, "se": pooled.se if enough else math.nan})
        return pd.DataFrame(records)

    # -- JSON / text

    def bet_fields(self, bet_id: str) -> dict:
        """Fields this analysis adds to a bet's JSON record."""
        b = self.bets[bet_id]
        fields = {"rtp_by_round": b.rtp_list(), "se_by_round": b.se_list(), "min_rounds_by_round": b.min_rounds}
        if b.capped is not None:
            gap = b.capped_minus_all
            fields.update(
                max_round=b.max_round,
                rtp_capped=b.capped.rtp,
                rtp_capped_se=b.capped.se,
                rtp_capped_ci95=list(b.capped.ci95),
                exact_rtp_capped=b.exact_rtp_capped,
                rtp_capped_minus_all=gap[0],
                rtp_capped_minus_all_se=gap[1],
            )
        return fields

    def run_fields(self) -> dict:
        """Fields this analysis adds to the JSON ``run`` header."""
        summary = self.rounds_per_shoe.summary()
        return {
            "rounds_per_shoe": summary["mean"],
            "rounds_per_shoe_summary": summary,
            "rounds_in_every_shoe": self.always,
        }

    def table_columns(self) -> pd.DataFrame:
        """Per-bet columns for the report's table (index: bet id): the capped RTP and its CI."""
        records = {}
        for bet_id, b in self.bets.items():
            capped = b.capped
            records[bet_id] = {
                "rtp_capped": math.nan if capped is None else capped.rtp,
                "rtp_capped_se": math.nan if capped is None else capped.se,
                "rtp_capped_ci95_low": math.nan if capped is None else capped.ci95[0],
                "rtp_capped_ci95_high": math.nan if capped is None else capped.ci95[1],
            }
        return pd.DataFrame.from_dict(records, orient="index")

    def _display_bands(self, ci: bool = False) -> pd.DataFrame:
        bands = self.band_frame()
        shown = pd.DataFrame(index=[bet.id for bet in self.rules.bets])
        shown["bet"] = [bet.name for bet in self.rules.bets]
        for (lo, hi), group in bands.groupby(["from_round", "to_round"], sort=True):
            label = f"{lo}" if lo == hi else f"{lo}-{hi}"
            group = group.set_index("bet")
            shown[label] = [
                "" if math.isnan(group.loc[i, "rtp"]) else f"{100 * group.loc[i, 'rtp']:.3f}"
                + (f" ± {100 * Z95 * group.loc[i, 'se']:.3f}" if ci else "")
                for i in shown.index
            ]
        shown["fresh exact"] = [f"{100 * self.bets[i].exact_rtp:.3f}" for i in shown.index]
        return shown

    def _display_capped(self, names: bool = True) -> pd.DataFrame:
        rows = []
        for b in self.bets.values():
            if b.capped is None:
                continue
            gap, gap_se = b.capped_minus_all
            rows.append({
                "bet": b.name if names else b.bet_id,
                "max round": b.max_round,
                "offered": f"{100 * b.capped.rounds / b.all_rounds.rounds:.1f}%",
                "capped RTP %": _pm(b.capped),
                "all rounds %": _pm(b.all_rounds),
                "capped - all (pp)": f"{100 * gap:+.4f} ± {100 * Z95 * gap_se:.4f}",
                "fresh exact %": f"{100 * b.exact_rtp:.4f}",
            })
            if names:
                rows[-1]["exact capped %"] = "" if b.exact_rtp_capped is None else f"{100 * b.exact_rtp_capped:.4f}"
        return pd.DataFrame(rows)

    def notes(self) -> list[str]:
        """Lines that say how to read the tables."""
        lines = [f"rounds per shoe: {self.rounds_per_shoe.text()}"]
        lines.append(f"rounds 1-{self.always} are dealt in every shoe, so their exact RTP is the fresh-shoe RTP "
                     "(optional stopping); later rounds are dealt only in shoes whose earlier rounds were short")
        lines.append("RTP by band: pooled rounds of the band, percent; empty where a band saw too few rounds "
                     f"(fewer than max({MIN_ROUNDS}, {MIN_LINE_HITS} / p of the rarest winning line))")
        return lines

    def to_text(self, width: int = 120) -> str:
        """Rounds per shoe, RTP by band of rounds and the Max Round Availability comparison, as plain text.

        At most ``width`` columns wide, like :meth:`baccarat_sim.report.Report.to_text`.
        """
        import textwrap

        def wrap(text, indent=""):
            return textwrap.wrap(text, width, initial_indent=indent, subsequent_indent=indent + "  ")

        lines = ["RTP by round position (dealt shoe)"]
        for note in self.notes():
            lines += wrap(note, "  ")
        lines += [""] + text_table(self._display_bands(), width)
        capped = self._display_capped(names=False)
        if len(capped):
            lines += [""] + wrap("Max Round Availability: the RTP a player faces when the bet is offered only up to "
                                 "its max round (± 95% CI half-width; offered: share of all rounds)")
            if all(b.exact_rtp_capped is not None for b in self.bets.values() if b.capped is not None):
                lines += wrap(f"every cap is within rounds 1-{self.always}: the exact capped RTP is the fresh exact",
                              "  ")
            lines += [""] + text_table(capped, width)
        return "\n".join(lines)

    def to_markdown(self) -> str:
        """The same as :meth:`to_text`, as Markdown sections."""
        text = "### RTP by round position\n\n" + "".join(f"- {line}\n" for line in self.notes()) + "\n"
        text += markdown_table(self._display_bands(ci=True))
        capped = self._display_capped()
        if len(capped):
            text += "\n### Max Round Availability\n\nThe RTP a player faces when the bet is offered only up to its " \
                    "max round, against all rounds and the fresh-shoe exact RTP (95% CI).\n\n" + markdown_table(capped)
        return text


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
        from .exact import exact_histogram

        exact = exact_histogram(hist.shoe)
    rows, _ = _position_rows(hist)
    per_shoe = rounds_per_shoe(hist, rules.shoe)
    bets = {bet.id: _bet_positions(hist, rows, bet, rules, exact, per_shoe.always) for bet in rules.bets}
    return PositionAnalysis(rules, hist, bets, per_shoe)


# --------------------------------------------------------------------------- cut-card sweep


_CUT_TOKEN = re.compile(r"^\s*(\d+(?:\.\d*)?|\.\d+)\s*(?::\s*(\d+(?:\.\d*)?|\.\d+)\s*)?$")


def parse_cut_sweep(text: str, rules: Rules, n_cards: int | None = None) -> list[CutCard]:
    """Cut-card positions of ``--sweep cut=...``.

    Each comma-separated item is a number of cards from the end of the shoe
    (``14``: a whole number) or a fraction of the shoe (``0.25``: a number with
    a decimal point, rounded to whole cards as the rule files do), or a range
    ``low:high`` of either kind, from which the cut card is placed uniformly in
    every shoe.

    Parameters
    ----------
    text : str
        ``"cut=14,0.25,0.5"`` (the ``cut=`` prefix is optional).
    rules : Rules
        Burn and last-round rule, which limit how deep the cut card may sit.
    n_cards : int or None
        Cards in the shoe (default: the rule set's decks).

    Raises
    ------
    ValueError
        One line naming the bad item and what is allowed.

    Examples
    --------
    >>> from baccarat_sim.rules import load_rules
    >>> [(c.low, c.high) for c in parse_cut_sweep("cut=14,0.25,0.45:0.55", load_rules("live-8deck-side-bets"))]
    [(14, 14), (104, 104), (187, 229)]
    """
    body = text.strip()
    kind, sep, rest = body.partition("=")
    if sep:
        if kind.strip() != "cut":
            raise ValueError(f"only cut=... can be swept, got {kind.strip()!r} (e.g. cut=14,0.25,0.5)")
        body = rest
    n = rules.shoe.n_cards if n_cards is None else int(n_cards)
    _, burned = rules.shoe.cards_before_first_round()
    deepest = n - burned - 6 * (1 + rules.shoe.rounds_after_cut)
    items = [item for item in body.split(",")]
    if not body.strip() or any(not item.strip() for item in items):
        raise ValueError(f"give a comma-separated list of cut-card positions, e.g. cut=14,0.25,0.5; got {text!r}")
    cuts = []
    for item in items:
        match = _CUT_TOKEN.match(item)
        if not match:
            raise ValueError(f"{item.strip()!r}: a cut-card position is a card count (14), a fraction of the shoe "
                             "(0.25) or a range low:high of either")
        bounds = [match.group(1)] + ([match.group(2)] if match.group(2) else [])
        fractional = ["." in b for b in bounds]
        if len(set(fractional)) > 1:
            raise ValueError(f"{item.strip()!r}: both ends of a range must be card counts or both fractions")
        if fractional[0]:
            values = [Fraction(b) for b in bounds]
            if any(v > 1 for v in values):
                raise ValueError(f"{item.strip()!r}: a fraction of the shoe must be from 0 to 1")
            cards = [round(v * n) for v in values]
        else:
            cards = [int(b) for b in bounds]
        low, high = cards[0], cards[-1]
        if low > high:
            raise ValueError(f"{item.strip()!r}: low must not exceed high")
        if high > deepest:
            raise ValueError(f"{item.strip()!r}: a cut card {high} cards from the end of a {n}-card shoe leaves no "
                             f"room for a round after burning up to {burned} cards (at most {deepest})")
        cuts.append(CutCard(int(low), int(high)))
    return cuts


def _cut_label(cut: CutCard) -> str:
    return f"{cut.low}" if cut.low == cut.high else f"{cut.low}-{cut.high}"


@dataclasses.dataclass
class CutSweep:
    """Each bet's RTP as the cut card moves: one dealt run per cut-card position.

    Build it with :func:`cut_card_sweep`.

    Attributes
    ----------
    rules : Rules
    cuts : list of CutCard
    analyses : list of PositionAnalysis
        One per cut-card position, in the order given.
    seed : int
        The master seed every run used.
    """

    rules: Rules
    cuts: list[CutCard]
    analyses: list[PositionAnalysis]
    seed: int

    def frame(self) -> pd.DataFrame:
        """Long table: one row per (cut position, bet)."""
        records = []
        for cut, analysis in zip(self.cuts, self.analyses):
            hist = analysis.hist
            per_shoe = analysis.rounds_per_shoe
            for bet in self.rules.bets:
                b = analysis.bets[bet.id]
                low, high = b.all_rounds.ci95
                records.append({
                    "cut_from_end_low": cut.low, "cut_from_end_high": cut.high, "cut": _cut_label(cut),
                    "cut_fraction": cut.mean / int(hist.shoe.sum()),
                    "bet": bet.id, "name": bet.name, "rtp": b.all_rounds.rtp, "se": b.all_rounds.se,
                    "ci95_low": low, "ci95_high": high, "fresh_exact_rtp": b.exact_rtp,
                    "rtp_minus_fresh": b.all_rounds.rtp - b.exact_rtp,
                    "z_vs_fresh": (b.all_rounds.rtp - b.exact_rtp) / b.all_rounds.se if b.all_rounds.se else math.nan,
                    "max_round": b.max_round, "rtp_capped": b.capped.rtp if b.capped else math.nan,
                    "rtp_capped_se": b.capped.se if b.capped else math.nan,
                    "rounds_per_shoe": per_shoe.mean, "rounds_in_every_shoe": per_shoe.always,
                    "rounds": hist.rounds, "shoes": hist.shoes, "seed": self.seed,
                })
        return pd.DataFrame(records)

    def display_table(self) -> pd.DataFrame:
        """Bets down, cut-card positions across: RTP % ± 95% half-width, then the fresh exact RTP."""
        frame = self.frame()
        shown = pd.DataFrame(index=[bet.id for bet in self.rules.bets])
        shown["bet"] = [bet.name for bet in self.rules.bets]
        for cut in self.cuts:
            part = frame[frame["cut"] == _cut_label(cut)].set_index("bet")
            shown[f"cut {_cut_label(cut)}"] = [
                f"{100 * part.loc[i, 'rtp']:.4f} ± {100 * Z95 * part.loc[i, 'se']:.4f}" for i in shown.index]
        shown["fresh exact"] = [f"{100 * self.analyses[0].bets[i].exact_rtp:.4f}" for i in shown.index]
        return shown

    def header_lines(self) -> list[str]:
        """What was swept, and rounds per shoe at each position."""
        n = int(self.analyses[0].hist.shoe.sum()) if self.analyses else 0
        per_shoe = ", ".join(f"cut {_cut_label(c)}: {a.rounds_per_shoe.mean:.1f} (all of 1-{a.always})"
                             for c, a in zip(self.cuts, self.analyses))
        rounds = ", ".join(f"{a.hist.rounds:,}" for a in self.analyses)
        return [
            f"rule set  {self.rules.id}: {self.rules.name}",
            f"sweep     cut card at {', '.join(_cut_label(c) for c in self.cuts)} cards from the end of a {n}-card "
            f"shoe (burn {self.rules.shoe.burn}, {self.rules.shoe.rounds_after_cut} round(s) after the cut card's)",
            f"rounds    {rounds} (seed {self.seed} for every position)",
            f"per shoe  {per_shoe}",
            "RTP % over all rounds of the shoe, ± the 95% CI half-width (batch means over whole shoes)",
        ]

    def to_text(self) -> str:
        """Header and table as plain text."""
        return "\n".join(self.header_lines() + [""] + text_table(self.display_table(), 160))

    def to_markdown(self) -> str:
        """Header and table as Markdown."""
        shown = self.display_table()
        return (f"## Cut-card sweep: {self.rules.name}\n\n" + "".join(f"- {line}\n" for line in self.header_lines())
                + "\n" + markdown_table(shown))

    def to_csv(self) -> str:
        """The long table as CSV."""
        return self.frame().to_csv(index=False)

    def to_dict(self) -> dict:
        """JSON-ready: ``{"run": {...}, "cuts": [{"cut_from_end": [lo, hi], "rounds_per_shoe", "bets": [...]}]}``."""
        cuts = []
        for cut, analysis in zip(self.cuts, self.analyses):
            bets = []
            for bet in self.rules.bets:
                b = analysis.bets[bet.id]
                record = {"id": bet.id, "rtp": b.all_rounds.rtp, "se": b.all_rounds.se,
                          "ci95": list(b.all_rounds.ci95), "exact_rtp": b.exact_rtp}
                record.update(analysis.bet_fields(bet.id))
                bets.append(record)
            cuts.append({"cut_from_end": [cut.low, cut.high], "rounds": analysis.hist.rounds,
                         "shoes": analysis.hist.shoes, **analysis.run_fields(), "bets": bets})
        return clean_json({"run": {"rules": self.rules.id, "rules_sha256": self.rules.sha256, "seed": self.seed,
                               "sweep": "cut", "decks": self.rules.shoe.decks, "burn": self.rules.shoe.burn,
                               "rounds_after_cut": self.rules.shoe.rounds_after_cut},
                       "cuts": cuts})

    def stem(self) -> str:
        """Shared stem of the sweep's files, e.g. ``live-8deck-side-bets-cut-sweep-seed1``."""
        return f"{self.rules.id}-cut-sweep-seed{self.seed}"

    def write(self, out_dir, plots: bool = True, dpi: int = 120) -> list:
        """Write ``.csv``, ``.json``, ``.md`` and (with ``plots``) a ``.png`` into ``out_dir``; returns the paths."""
        import json
        from pathlib import Path

        from .outputs import _write_atomic

        out_dir = Path(out_dir)
        out_dir.mkdir(parents=True, exist_ok=True)
        stem = self.stem()
        written = []

        def add(name, write):
            path = out_dir / name
            _write_atomic(path, write)
            written.append(path)

        add(f"{stem}.csv", lambda tmp: tmp.write_text(self.to_csv()))
        add(f"{stem}.json", lambda tmp: tmp.write_text(json.dumps(self.to_dict(), indent=2) + "\n"))
        image = ""
        if plots:
            from .plots import cut_sweep_figure

            figure = cut_sweep_figure(self)
            add(f"{stem}.png", lambda tmp: figure.savefig(tmp, dpi=dpi, format="png"))
            image = f"\n![{stem}]({stem}.png)\n"
        add(f"{stem}.md", lambda tmp: tmp.write_text(self.to_markdown() + image))
        return written


def cut_card_sweep(rules: Rules, cuts: list[CutCard], rounds: int, seed: int | None = None, *, shoe=None,
                   threads: int | None = None, progress: bool | None = False, on_run=None) -> CutSweep:
    """Deal ``rounds`` dealt-shoe rounds at each cut-card position and analyse each run.

    Parameters
    ----------
    rules : Rules
        Rule set; its cut card is replaced by each of ``cuts`` in turn
        (``rules.with_shoe(cut_card=...)``), the model is the dealt one.
    cuts : list of CutCard
        Cut-card positions (see :func:`parse_cut_sweep`).
    rounds : int
        Rounds per position (whole shoes, about this many).
    seed : int or None
        One master seed for every position (drawn once when None).
    shoe : int or ndarray(int64, shape=(13, 4)) or None
        Overrides the rule set's decks.
    threads, progress
        As for :func:`baccarat_sim.simulate.simulate`.
    on_run : callable or None
        Called as ``on_run(cut, analysis)`` after each position.

    Returns
    -------
    CutSweep
    """
    from .exact import as_shoe, exact_histogram
    from .simulate import normalize_seed, simulate

    seed = normalize_seed(seed)
    composition = as_shoe(rules.shoe.decks if shoe is None else shoe)
    exact = exact_histogram(composition)
    analyses = []
    for cut in cuts:
        variant = rules.with_shoe(model="dealt", cut_card=cut)
        hist = simulate(variant, rounds, seed, threads=threads, shoe=composition, by_position=True,
                        progress=progress)
        analysis = analyze_positions(hist, variant, exact)
        analyses.append(analysis)
        if on_run is not None:
            on_run(cut, analysis)
    return CutSweep(rules.with_shoe(model="dealt"), list(cuts), analyses, seed)
