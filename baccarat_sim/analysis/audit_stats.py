"""The audit's tests: chi-square tail probabilities, Benjamini-Hochberg, and a runs test.

numpy and the standard library only: the chi-square tail is the regularised upper incomplete gamma function
(series below ``a + 1``, Lentz's continued fraction above), accurate to about 1e-12.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["Runs", "benjamini_hochberg", "chi_square_sf", "runs_test"]

#: The false discovery rate every family of the audit is held to.
FDR = 0.05


def _upper_gamma_regularized(a: float, x: float) -> float:
    if x <= 0:
        return 1.0
    if x < a + 1:
        term = total = 1.0 / a
        k = a
        for _ in range(10_000):
            k += 1
            term *= x / k
            total += term
            if abs(term) < abs(total) * 1e-15:
                break
        return max(0.0, 1.0 - total * math.exp(-x + a * math.log(x) - math.lgamma(a)))
    tiny = 1e-300
    b = x + 1 - a
    c = 1 / tiny
    d = 1 / b
    h = d
    for i in range(1, 10_000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        delta = d * c
        h *= delta
        if abs(delta - 1) < 1e-15:
            break
    return math.exp(-x + a * math.log(x) - math.lgamma(a)) * h


def chi_square_sf(statistic: float, dof: int) -> float:
    """P(a chi-square variable of ``dof`` degrees of freedom >= ``statistic``).

    >>> round(chi_square_sf(3.841458820694124, 1), 6), round(chi_square_sf(18.307038053275146, 10), 6)
    (0.05, 0.05)
    """
    if dof <= 0:
        return 1.0
    return _upper_gamma_regularized(dof / 2.0, statistic / 2.0)


def benjamini_hochberg(p_values, rate: float = FDR) -> np.ndarray:
    """Which hypotheses Benjamini-Hochberg rejects at false discovery rate ``rate`` (a bool per p-value).

    >>> benjamini_hochberg([0.001, 0.02, 0.04, 0.5]).tolist()
    [True, True, False, False]
    """
    p = np.asarray(p_values, float)
    if p.size == 0:
        return np.zeros(0, bool)
    order = np.argsort(p)
    m = p.size
    below = p[order] <= rate * np.arange(1, m + 1) / m
    rejected = np.zeros(m, bool)
    if below.any():
        rejected[order[:np.flatnonzero(below).max() + 1]] = True
    return rejected


class Runs:
    """Wald-Wolfowitz runs of a two-valued sequence split into groups (shoes), added a part at a time.

    The parts come in the sequence's order; a part whose first element does not start a group continues the last
    group of the part before (the sequence's first element always starts one). :meth:`result` gives what
    :func:`runs_test` gives on the whole sequence.
    """

    def __init__(self):
        self.runs = 0
        self.elements = 0
        self.last = None
        self.sizes: list = []  # each closed group's (elements, ones), a part at a time
        self.open = (0.0, 0.0)

    def add(self, outcomes, group_start) -> None:
        """Add the next part of the sequence (``outcomes``, and True where a group starts)."""
        x = np.asarray(outcomes, bool)
        start = np.asarray(group_start, bool)
        if not x.size:
            return
        self.elements += x.size
        if self.last is None:
            start = start.copy()
            start[0] = True
        self.runs += int(np.count_nonzero(start[1:] | (x[1:] != x[:-1]))) + int(bool(start[0])
                                                                                 or x[0] != self.last)
        group = np.cumsum(start)  # 0: the elements that continue the open group
        n = np.bincount(group).astype(float)
        n1 = np.bincount(group, weights=x.astype(float))
        if len(n) > 1:
            closed_n, closed_n1 = n[:-1].copy(), n1[:-1].copy()
            closed_n[0] += self.open[0]
            closed_n1[0] += self.open[1]
            keep = closed_n > 0  # the open group is empty before the sequence's first element
            self.sizes.append((closed_n[keep], closed_n1[keep]))
            self.open = (n[-1], n1[-1])
        else:
            self.open = (self.open[0] + n[0], self.open[1] + n1[0])
        self.last = bool(x[-1])

    def result(self) -> tuple[int, float, float]:
        """The runs counted within groups, their expectation and the z-score (as :func:`runs_test`)."""
        parts = self.sizes + ([(np.array([self.open[0]]), np.array([self.open[1]]))] if self.open[0] else [])
        n = np.concatenate([a for a, _ in parts]) if parts else np.zeros(0)
        n1 = np.concatenate([b for _, b in parts]) if parts else np.zeros(0)
        n2 = n - n1
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = np.where(n > 0, 2 * n1 * n2 / n + 1, 0)
            var = np.where(n > 1, 2 * n1 * n2 * (2 * n1 * n2 - n) / (n * n * (n - 1)), 0)
        expected, variance = float(mean.sum()), float(var.sum())
        return self.runs, expected, (self.runs - expected) / math.sqrt(variance) if variance > 0 else 0.0


def runs_test(outcomes: np.ndarray, group_start: np.ndarray) -> tuple[int, float, float]:
    """Wald-Wolfowitz runs of a two-valued sequence split into groups (shoes): runs, expected runs, z.

    Parameters
    ----------
    outcomes : ndarray(bool)
        The sequence (e.g. Banker won), groups consecutive.
    group_start : ndarray(bool)
        True where a group starts (the first element always starts one).

    Returns
    -------
    (int, float, float)
        The runs counted within groups, their expectation and the z-score (summed over groups: expectations and
        variances of independent groups add).

    >>> runs_test(np.array([1, 1, 0, 1, 0, 0]), np.array([1, 0, 0, 1, 0, 0]))[0]
    4
    """
    runs = Runs()
    runs.add(outcomes, group_start)
    return runs.result()
