"""Rounds per shoe of a dealt run, from the rows it keeps per round position.

A dealt shoe is dealt to the cut card (plus the rule set's ``after_cut``
rounds), so the number of rounds a shoe gives varies. Every shoe deals at
most one round at each position, so the rounds at position ``k`` (row
``k - 1`` of :attr:`baccarat_sim.model.histogram.OutcomeHistogram.by_position`)
are the shoes that reached round ``k``; :func:`rounds_per_shoe` reads the
distribution from there. The analysis by round position
(:mod:`baccarat_sim.analysis.positions`) reads the same rows.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from ..engines.plan import recorded_rounds_in_every_shoe, rounds_in_every_shoe
from ..model.histogram import OutcomeHistogram
from ..model.rules import Shoe

__all__ = ["QUANTILES", "RoundsPerShoe", "histogram_dealt_in_every_shoe", "position_rows", "rounds_per_shoe"]

#: Quantiles of the rounds-per-shoe distribution that are reported.
QUANTILES = (0.01, 0.05, 0.25, 0.5, 0.75, 0.95, 0.99)


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



def position_rows(hist: OutcomeHistogram) -> tuple[np.ndarray, bool]:
    """A dealt run's per-position rows with trailing empty rows dropped, and whether the last one pools later rounds."""
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
    rows, open_tail = position_rows(hist)
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
    always = recorded_rounds_in_every_shoe(hist.meta.get("shoe_params"), int(hist.shoe.sum()))
    if always is not None:
        return always
    recorded = hist.meta.get("rounds_in_every_shoe")
    return recorded if type(recorded) is int and recorded >= 0 else None
