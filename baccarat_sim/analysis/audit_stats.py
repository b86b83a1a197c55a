"""The audit's tests: chi-square tail probabilities, Benjamini-Hochberg, and a runs test.

numpy and the standard library only: the chi-square tail is the regularised upper incomplete gamma function
(series below ``a + 1``, Lentz's continued fraction above), accurate to about 1e-12.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["benjamini_hochberg", "chi_square_sf", "runs_test"]

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


def runs_test(outcomes: np.ndarray, group_start: np.ndarray) -> tuple[int, float, float]:
    """Wald-Wolfowitz runs of a two-valued sequence split into groups (shoes): runs, expected runs, z.

    Parameters
    ----------
    outcomes : ndarray(bool)
        The sequence (e.g. Banker won), groups consecutive.
    group_start : ndarray(bool)
        True where a group starts.

    Returns
    -------
    (int, float, float)
        The runs counted within groups, their expectation and the z-score (summed over groups: expectations and
        variances of independent groups add).
    """
    x = np.asarray(outcomes, bool)
    start = np.asarray(group_start, bool)
    runs = int(np.count_nonzero(start | np.r_[True, x[1:] != x[:-1]]))
    group = np.cumsum(start) - 1
    n = np.bincount(group).astype(float)
    n1 = np.bincount(group, weights=x.astype(float))
    n2 = n - n1
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(n > 0, 2 * n1 * n2 / n + 1, 0)
        var = np.where(n > 1, 2 * n1 * n2 * (2 * n1 * n2 - n) / (n * n * (n - 1)), 0)
    expected, variance = float(mean.sum()), float(var.sum())
    return runs, expected, (runs - expected) / math.sqrt(variance) if variance > 0 else 0.0
