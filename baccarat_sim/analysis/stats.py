"""Statistics of Monte Carlo estimates: standard errors, confidence intervals, z-scores, their course over a run."""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from ..model.histogram import OutcomeHistogram

__all__ = ["Z95", "Estimate", "ScoreDistribution", "estimate", "running_estimate", "score_distribution",
           "wilson_interval"]

#: Two-sided 95% normal quantile.
Z95 = 1.959963984540054


@dataclasses.dataclass(frozen=True)
class Estimate:
    """A Monte Carlo estimate of a bet's EV per unit staked.

    ``method`` is ``"iid"`` (rounds independent: fresh shoe) or
    ``"batch_means"`` (dealt shoe: rounds of one shoe are dependent, so the
    standard error comes from the spread between batches of whole shoes).
    """

    ev: float
    se: float
    method: str
    n_batches: int = 0

    @property
    def rtp(self) -> float:
        """``1 + ev``."""
        return 1.0 + self.ev

    @property
    def ci95(self) -> tuple[float, float]:
        """95% confidence interval of the RTP."""
        return (self.rtp - Z95 * self.se, self.rtp + Z95 * self.se)

    def z(self, reference_rtp: float) -> float:
        """z-score of the estimate against a reference RTP (0 or +/-inf when se is 0)."""
        if self.se == 0:
            gap = self.rtp - reference_rtp
            return 0.0 if abs(gap) < 1e-15 else math.copysign(math.inf, gap)
        return (self.rtp - reference_rtp) / self.se


def estimate(hist: OutcomeHistogram, net: np.ndarray, counts: np.ndarray | None = None,
             batches: np.ndarray | None = None) -> Estimate:
    """EV of a net-result vector over a Monte Carlo histogram, with its standard error.

    Parameters
    ----------
    hist : OutcomeHistogram
        A Monte Carlo histogram.
    net : ndarray(float64, shape=(N_CODES,))
        Net result per unit staked for each outcome code.
    counts, batches : ndarray or None
        Override the histogram's counts (and batches), e.g. one round position.
    """
    counts = hist.counts if counts is None else counts
    n = counts.sum()
    if n == 0:
        return Estimate(math.nan, math.nan, "none")
    ev = float(counts @ net) / n
    batches = hist.batches if (batches is None and counts is hist.counts) else batches
    if hist.model == "dealt" and batches is not None:
        sizes = batches.sum(axis=1).astype(float)
        keep = sizes > 0
        if keep.sum() >= 2:
            sums = batches[keep] @ net
            sizes = sizes[keep]
            n_batches = len(sizes)
            # Ratio estimator over batches of unequal size (whole shoes).
            residual = sums - ev * sizes
            variance = n_batches / (n_batches - 1) * float(residual @ residual) / sizes.sum() ** 2
            return Estimate(ev, math.sqrt(variance), "batch_means", n_batches)
    second = float(counts @ (net * net)) / n
    variance = max(second - ev * ev, 0.0)
    return Estimate(ev, math.sqrt(variance / n), "iid")


def wilson_interval(hits: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of a hit rate."""
    if n == 0:
        return (math.nan, math.nan)
    p = hits / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (centre - half, centre + half)


def running_estimate(hist: OutcomeHistogram, net: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """RTP estimate and standard error after each batch of a Monte Carlo run.

    Batches are consecutive groups of whole chunks in stream order, so the
    k-th point is exactly what the run would have reported had it stopped
    after batch k.

    Parameters
    ----------
    hist : OutcomeHistogram
        A Monte Carlo histogram with ``batches``.
    net : ndarray(float64, shape=(N_CODES,))
        Net result per unit staked of each outcome code
        (:func:`baccarat_sim.analysis.settlement.net_vector`).

    Returns
    -------
    (ndarray(int64), ndarray(float64), ndarray(float64))
        Rounds dealt, RTP and its standard error after each non-empty batch.
    """
    if hist.batches is None or len(hist.batches) == 0:
        raise ValueError("a convergence plot needs a Monte Carlo histogram with batches")
    batches = hist.batches[hist.batches.sum(axis=1) > 0]
    cumulative = np.cumsum(batches, axis=0)
    rounds = cumulative.sum(axis=1)
    rtp = np.empty(len(batches))
    se = np.empty(len(batches))
    for k in range(len(batches)):
        est = estimate(hist, net, counts=cumulative[k], batches=batches[: k + 1])
        rtp[k], se[k] = est.rtp, est.se
    return rounds, rtp, se


#: The two hands whose final scores :func:`score_distribution` gives.
HANDS = ("player", "banker")


@dataclasses.dataclass(frozen=True, eq=False)
class ScoreDistribution:
    """How often each final score (0-9) of the Player and the Banker hand comes up.

    Attributes
    ----------
    counts : dict of str to ndarray(shape=(10,))
        Weight of each final score by hand (``"player"``, ``"banker"``) in the
        histogram the bars show (the exact one when given).
    total : int
        Total weight of that histogram.
    exact : bool
        Whether the bars are exact.
    mc_counts : dict of str to ndarray(shape=(10,)), or None
        A Monte Carlo run's rounds of each final score, beside exact bars.
    mc_total : int
        Its rounds (0 without).
    mc_ci95 : dict of str to ndarray(float64, shape=(2, 10)), or None
        The 95% Wilson interval (low row, high row) of each score's probability.
    """

    counts: dict
    total: int
    exact: bool
    mc_counts: dict | None = None
    mc_total: int = 0
    mc_ci95: dict | None = None


def score_distribution(hist: OutcomeHistogram, exact: OutcomeHistogram | None = None) -> ScoreDistribution:
    """The final-score distribution of ``exact`` (else ``hist``), with ``hist``'s estimate beside exact bars.

    Parameters
    ----------
    hist : OutcomeHistogram
    exact : OutcomeHistogram or None
        Exact histogram of the same shoe; a Monte Carlo ``hist`` is then an
        estimate with 95% Wilson intervals beside it.
    """
    bars = exact if exact is not None else hist
    counts = {hand: bars.marginal(f"{hand}_score") for hand in HANDS}
    if exact is None or hist is exact or hist.engine != "mc":
        return ScoreDistribution(counts, bars.total, bars.engine == "exact")
    mc_counts = {hand: hist.marginal(f"{hand}_score") for hand in HANDS}
    n = hist.total
    intervals = {hand: np.array([wilson_interval(int(c), n) for c in mc_counts[hand]]).T for hand in HANDS}
    return ScoreDistribution(counts, bars.total, bars.engine == "exact", mc_counts, n, intervals)


def chi_square(observed: np.ndarray, probabilities: np.ndarray, min_expected: float = 5.0) -> tuple[float, int]:
    """Pearson chi-square statistic of counts against probabilities.

    Cells with an expected count below ``min_expected`` are pooled into one.

    Returns
    -------
    (float, int)
        The statistic and its degrees of freedom.
    """
    n = observed.sum()
    expected = probabilities * n
    small = expected < min_expected
    obs = np.append(observed[~small], observed[small].sum())
    exp = np.append(expected[~small], expected[small].sum())
    keep = exp > 0
    statistic = float((((obs - exp) ** 2)[keep] / exp[keep]).sum())
    return statistic, int(keep.sum() - 1)
