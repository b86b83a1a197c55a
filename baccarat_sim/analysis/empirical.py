"""The distribution of a sum from Monte Carlo samples, with 95% confidence intervals on what it answers.

Where rounds are not independent (a shoe dealt through to the cut card), the
sum over ``N`` rounds has no lattice formula: whole sessions of ``N`` rounds
are simulated (:func:`baccarat_sim.analysis.sessions.simulate_tables`) and
:class:`EmpiricalSum` answers the same questions as the exact
:class:`~baccarat_sim.analysis.lattice.LatticeSum` from the sample, each with
a confidence interval: Wilson intervals for probabilities, order-statistic
(distribution-free) intervals for quantiles, a normal interval for the mean.
"""

from __future__ import annotations

import dataclasses
import math
from fractions import Fraction

import numpy as np

from ..errors import InputError
from .one_round import as_fraction
from .stats import Z95, wilson_interval
from .sums import Density, Probability, Quantile, frame_grid

__all__ = ["EmpiricalSum"]


@dataclasses.dataclass(frozen=True, eq=False)
class EmpiricalSum:
    """The law of a sum over ``n_rounds`` rounds as sampled: distinct values (lattice units) and counts.

    Attributes
    ----------
    n_rounds : int
    unit : Fraction
        Currency per lattice unit.
    steps : ndarray(int64, shape=(m,))
        Distinct sampled values in lattice units, ascending.
    counts : ndarray(int64, shape=(m,))
        How many samples took each value.
    method : str
    complete : bool
        False when the simulation was stopped early (``max_chunks``).
    mean : float
        Sample mean (currency).
    mean_ci95 : (float, float)
        Normal 95% interval of the mean (the samples are independent).
    sd : float
        Sample SD (currency).
    """

    n_rounds: int
    unit: Fraction
    steps: np.ndarray
    counts: np.ndarray
    method: str
    complete: bool = True
    mean: float = dataclasses.field(init=False)
    mean_ci95: tuple = dataclasses.field(init=False)
    sd: float = dataclasses.field(init=False)

    def __post_init__(self):
        if self.samples < 2:
            raise InputError("tables", f"need at least 2 samples, got {self.samples}")
        values = self.steps.astype(np.float64) * float(self.unit)
        mean = float(self.counts @ values) / self.samples
        sd = math.sqrt(float(self.counts @ (values - mean) ** 2) / (self.samples - 1))
        half = Z95 * sd / math.sqrt(self.samples)
        object.__setattr__(self, "mean", mean)
        object.__setattr__(self, "mean_ci95", (mean - half, mean + half))
        object.__setattr__(self, "sd", sd)
        cumulative = np.concatenate(([0], np.cumsum(self.counts)))
        object.__setattr__(self, "_cumulative", cumulative)

    @property
    def samples(self) -> int:
        """Sessions simulated."""
        return int(self.counts.sum())

    @property
    def error_bound(self) -> float:
        """Not a bound: the sample's largest 95% half-width on a probability (``1.96 * 0.5 / sqrt(n)``)."""
        return Z95 * 0.5 / math.sqrt(self.samples)

    def values(self) -> np.ndarray:
        """Currency value of each distinct sampled value, ``ndarray(float64, (m,))``."""
        return self.steps * float(self.unit)

    def density(self, low: float, high: float, bins: int = 60) -> Density:
        """The sample as a histogram of ``bins`` bins framing ``[low, high]``: probability per unit of currency."""
        edges = frame_grid(low, high, bins + 1)
        counts, edges = np.histogram(self.values(), bins=edges, weights=self.counts)
        return Density(0.5 * (edges[1:] + edges[:-1]), counts / (self.samples * np.diff(edges)), binned=True)

    def _count_at_most(self, x) -> int:
        index = math.floor(as_fraction(x) / self.unit)
        return int(self._cumulative[np.searchsorted(self.steps, index, side="right")])

    def _count_below(self, x) -> int:
        index = math.ceil(as_fraction(x) / self.unit)
        return int(self._cumulative[np.searchsorted(self.steps, index, side="left")])

    def as_probability(self, p: float) -> Probability:
        """A probability this sample estimated, with its Wilson 95% interval (``error``: its larger half-width)."""
        low, high = wilson_interval(round(p * self.samples), self.samples)
        low, high = min(max(low, 0.0), p), max(min(high, 1.0), p)  # round-off at p = 0 or 1
        return Probability(p, max(p - low, high - p), self.method, (low, high))

    def cdf(self, x) -> float:
        """``P(S <= x)`` in the sample (``x`` in currency)."""
        return self._count_at_most(x) / self.samples

    def prob_below(self, x) -> float:
        """``P(S < x)`` in the sample."""
        return self._count_below(x) / self.samples

    def prob_at_least(self, x) -> float:
        """``P(S >= x)`` in the sample."""
        return 1.0 - self._count_below(x) / self.samples

    def prob_above(self, x) -> float:
        """``P(S > x)`` in the sample."""
        return 1.0 - self._count_at_most(x) / self.samples

    def _order_statistic(self, rank: int) -> Fraction | None:
        """The ``rank``-th smallest sample (1-based), or None outside ``1..n``."""
        if not 1 <= rank <= self.samples:
            return None
        return int(self.steps[np.searchsorted(self._cumulative[1:], rank, side="left")]) * self.unit

    def quantile(self, q: float) -> Quantile:
        """The sample ``q``-quantile (smallest sampled value with ``F_n(v) >= q``) and its 95% interval.

        The interval is distribution-free: order statistics whose ranks bracket
        ``n q`` by ``1.96 sqrt(n q (1 - q))`` (the normal approximation of the
        binomial count below the true quantile). An end that falls outside the
        sample is None: too few sessions to bound that quantile.
        """
        if not 0.0 < q < 1.0:
            raise InputError("q", f"must be in (0, 1), got {q}")
        n = self.samples
        spread = Z95 * math.sqrt(n * q * (1 - q))
        value = self._order_statistic(max(1, math.ceil(n * q)))
        low = self._order_statistic(math.floor(n * q - spread))
        high = self._order_statistic(math.ceil(n * q + spread) + 1)
        return Quantile(q, value, low, high, self.method)
