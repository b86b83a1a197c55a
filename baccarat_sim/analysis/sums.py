"""What every distribution of a sum of rounds answers: CDF, tails, quantiles with their error bracket.

The exact lattice (:class:`~baccarat_sim.analysis.lattice.LatticeSum`), the
saddlepoint approximation (:class:`~baccarat_sim.analysis.saddlepoint.SaddlepointSum`)
and Monte Carlo tables (:class:`~baccarat_sim.analysis.empirical.EmpiricalSum`)
answer the same questions with the same objects: a :class:`Probability` with
its error and method, a :class:`Quantile` with the bracket its error allows.
"""

from __future__ import annotations

import dataclasses
import math
from fractions import Fraction

import numpy as np

from ..errors import InputError
from .one_round import as_fraction

__all__ = ["Density", "Probability", "Quantile", "SumQueries", "frame_grid"]


@dataclasses.dataclass(frozen=True, eq=False)
class Probability:
    """A probability with its error and the method that produced it.

    Attributes
    ----------
    value : float
    error : float
        Absolute error bound: rigorous for the exact lattice; measured for an
        approximation; for a Monte Carlo estimate the larger half-width of its
        95% confidence interval (see ``method``).
    method : str
    ci95 : (float, float) or None
        A Monte Carlo estimate's 95% confidence interval.
    """

    value: float
    error: float
    method: str
    ci95: tuple | None = None


@dataclasses.dataclass(frozen=True, eq=False)
class Quantile:
    """The ``q``-quantile: the smallest lattice value ``v`` with ``P(S <= v) >= q``.

    Attributes
    ----------
    q : float
    value : Fraction
        The quantile computed from the distribution as stored.
    low, high : Fraction
        Given the distribution's error bound ``e`` on every probability, the
        true quantile lies in ``[low, high]`` (the quantiles at ``q - e`` and
        ``q + e``); ``low == high == value`` says the error cannot move it.
    method : str
    """

    q: float
    value: Fraction
    low: Fraction
    high: Fraction
    method: str


@dataclasses.dataclass(frozen=True, eq=False)
class Density:
    """Probability per unit of currency of a sum, for a picture of its law.

    Attributes
    ----------
    values : ndarray(float64, shape=(m,))
        Where the density is given (currency): lattice points, or the middles of bins.
    density : ndarray(float64, shape=(m,))
        Probability per unit of currency there.
    binned : bool
        True when each value stands for a bin of a sample (a histogram), False for a curve.
    """

    values: np.ndarray
    density: np.ndarray
    binned: bool = False


def frame_grid(low: float, high: float, points: int) -> np.ndarray:
    """``points`` equally spaced values framing ``[low, high]`` with a tenth of its width on each side."""
    return np.linspace(low - 0.1 * (high - low), high + 0.1 * (high - low), points)


#: A reduced index beyond every sum's support on either side (a query there is clipped to it).
_FAR_INDEX = 1 << 62


class SumQueries:
    """Queries shared by :class:`LatticeSum` and :class:`~baccarat_sim.analysis.saddlepoint.SaddlepointSum`.

    Subclasses provide ``_below_index(i)``: ``(P(T < i), P(T >= i))`` for an
    integer array ``i`` of reduced indices, with ``S = start + stride * T``
    lattice units, and ``_quantile_index(q)``.
    """

    def _index_at_most(self, x) -> int:
        """Largest reduced index ``t`` with value ``<= x``."""
        return math.floor((as_fraction(x) / self.unit - self.start) / self.stride)

    def _index_below(self, x) -> int:
        """Largest reduced index ``t`` with value ``< x``."""
        return math.ceil((as_fraction(x) / self.unit - self.start) / self.stride) - 1

    @staticmethod
    def _at(index: int) -> np.ndarray:
        """One reduced index as the array ``_below_index`` reads, clipped to :data:`_FAR_INDEX`.

        An amount far beyond the support (10^30 chips) lies past one end of
        it, and is clipped there rather than overflow int64.
        """
        return np.array([max(-_FAR_INDEX, min(_FAR_INDEX, index))], dtype=np.int64)

    def cdf(self, x) -> float:
        """``P(S <= x)``, ``x`` in currency."""
        return float(self._below_index(self._at(self._index_at_most(x) + 1))[0][0])

    def prob_below(self, x) -> float:
        """``P(S < x)`` (strict), ``x`` in currency."""
        return float(self._below_index(self._at(self._index_below(x) + 1))[0][0])

    def prob_at_least(self, x) -> float:
        """``P(S >= x)``, computed directly (full relative precision in the upper tail)."""
        return float(self._below_index(self._at(self._index_below(x) + 1))[1][0])

    def prob_above(self, x) -> float:
        """``P(S > x)``."""
        return float(self._below_index(self._at(self._index_at_most(x) + 1))[1][0])

    def split_at(self, t) -> tuple[np.ndarray, np.ndarray]:
        """``(P(T < t), P(T >= t))`` for an array of reduced indices ``t`` (``S = (start + stride T) unit``).

        Each side is computed directly, so a small upper tail keeps its relative precision.
        """
        return self._below_index(np.asarray(t, dtype=np.int64))

    def value_of(self, t) -> Fraction:
        """Currency value of reduced index ``t``."""
        return (self.start + self.stride * int(t)) * self.unit

    def quantile(self, q: float) -> Quantile:
        """The smallest lattice value ``v`` with ``P(S <= v) >= q``, with its error bracket.

        Parameters
        ----------
        q : float
            In ``(0, 1)``.

        Returns
        -------
        Quantile
        """
        if not 0.0 < q < 1.0:
            raise InputError("q", f"must be in (0, 1), got {q}")
        levels = np.array([q, max(q - self.error_bound, 0.0), min(q + self.error_bound, 1.0)])
        t = self._quantile_index(levels)
        low = self.value_of(t[1]) if levels[1] > 0 else self.value_of(self._support_min)
        return Quantile(q, self.value_of(t[0]), low, self.value_of(t[2]), self.method)

    def density(self, low: float, high: float, points: int = 241) -> Density:
        """Probability per unit of currency on a grid framing ``[low, high]``, from differences of the CDF."""
        grid = frame_grid(low, high, points)
        cdf = np.array([self.cdf(x) for x in grid])
        return Density(0.5 * (grid[1:] + grid[:-1]), np.diff(cdf) / np.diff(grid))

    def as_probability(self, p: float) -> Probability:
        """A probability this distribution gave, with its error bound and method."""
        return Probability(float(p), self.error_bound, self.method)

    @property
    def sd(self) -> float:
        """Exact SD, ``sqrt(N var)``."""
        return math.sqrt(self.variance)
