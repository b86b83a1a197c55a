"""The exact law of one round's net result, on its payout lattice.

:func:`one_round` keeps a round's distinct net results
(:class:`fractions.Fraction`) with integer weights: every value is an integer
multiple of ``unit``, the gcd of the values (the payout lattice), so sums of
rounds live on the same lattice. (:func:`baccarat_sim.analysis.slip.build_slip`
builds it for a bet slip from the settlement layer.) :func:`house_round` is the
same round from the house's side, and :func:`reduce_round` the round on its
minimal lattice, which the bounds (:mod:`baccarat_sim.analysis.bounds`), the
exact sums (:mod:`baccarat_sim.analysis.lattice`) and the saddlepoint
(:mod:`baccarat_sim.analysis.saddlepoint`) work on.

Conventions: amounts are in the currency of the stakes (e.g. chips) and may be
ints, Fractions or floats (a float is taken at its exact binary value).
"""

from __future__ import annotations

import dataclasses
import math
from fractions import Fraction
from functools import reduce

import numpy as np

from ..errors import InputError
from ..limits import MAX_LATTICE_SPAN

__all__ = ["OneRound", "ReducedRound", "as_fraction", "fraction_gcd", "house_round", "one_round", "reduce_round"]


def as_fraction(x) -> Fraction:
    """Exact Fraction of an int, Fraction, numpy number or float (a float at its binary value)."""
    if isinstance(x, Fraction):
        return x
    if isinstance(x, (np.integer, int)):
        return Fraction(int(x))
    if isinstance(x, (np.floating, float)):
        return Fraction(float(x))
    return Fraction(x)


def fraction_gcd(values) -> Fraction:
    """Largest ``g > 0`` such that every value is an integer multiple of ``g``.

    Parameters
    ----------
    values : iterable of Fraction
        At least one non-zero value.

    Returns
    -------
    Fraction

    Examples
    --------
    >>> fraction_gcd([Fraction(95), Fraction(-100), Fraction(0)])
    Fraction(5, 1)
    >>> fraction_gcd([Fraction(19, 20), Fraction(-1)])
    Fraction(1, 20)
    """
    values = [v for v in map(as_fraction, values) if v != 0]
    if not values:
        raise InputError("values", "need at least one non-zero value to define a lattice unit")
    denominator = reduce(math.lcm, (v.denominator for v in values))
    numerator = reduce(math.gcd, (abs(v.numerator) * (denominator // v.denominator) for v in values))
    return Fraction(numerator, denominator)


@dataclasses.dataclass(frozen=True, eq=False)
class OneRound:
    """Exact distribution of one round's net result, on its payout lattice.

    Build it with :func:`one_round` (or :func:`baccarat_sim.analysis.slip.build_slip` from a rule set).

    Attributes
    ----------
    values : tuple of Fraction
        Distinct net results, ascending.
    weights : tuple of int
        Positive integer weight of each value, reduced by their gcd.
    total : int
        ``sum(weights)``; the probability of ``values[i]`` is ``weights[i] / total``.
    unit : Fraction
        The lattice unit: the gcd of the values, so ``values[i] = steps[i] * unit``.
    steps : ndarray(int64, shape=(n,))
        ``values / unit``.
    probabilities : ndarray(float64, shape=(n,))
        ``weights / total``, each correctly rounded.
    mean, variance : Fraction
        Exact moments of one round.
    cost : Fraction or None
        Amount the player must put on the table to play the round (the slip's
        total stake), when known; used by the session model.
    """

    values: tuple
    weights: tuple
    total: int
    unit: Fraction
    steps: np.ndarray
    probabilities: np.ndarray
    mean: Fraction
    variance: Fraction
    cost: Fraction | None = None

    @property
    def sd(self) -> float:
        """Standard deviation of one round."""
        return math.sqrt(self.variance)

    def __repr__(self) -> str:
        pairs = ", ".join(f"{v}: {w}/{self.total}" for v, w in zip(self.values, self.weights))
        return f"OneRound(unit={self.unit}, {{{pairs}}})"


def one_round(values, weights, cost=None) -> OneRound:
    """The exact distribution of one round from values and integer weights.

    Parameters
    ----------
    values : sequence of number
        Net results (ints, Fractions or floats at their exact binary value).
        Repeated values are merged.
    weights : sequence of int
        Non-negative integer weights (e.g. counts of card orderings); values
        of weight 0 are dropped.
    cost : number, optional
        Total stake of the slip (see :attr:`OneRound.cost`).

    Returns
    -------
    OneRound

    Examples
    --------
    >>> r = one_round([95, -100, 0], [4585, 4462, 953])
    >>> r.unit, r.steps.tolist()
    (Fraction(5, 1), [-20, 0, 19])
    """
    if len(values) != len(weights):
        raise InputError("weights", f"values and weights differ in length ({len(values)} and {len(weights)})")
    merged: dict[Fraction, int] = {}
    for value, weight in zip(values, weights):
        if int(weight) != weight or weight < 0:
            raise InputError("weights", f"must be non-negative integers, got {weight!r}")
        if weight:
            key = as_fraction(value)
            merged[key] = merged.get(key, 0) + int(weight)
    if len(merged) < 2:
        raise InputError("values", "need at least two outcomes of positive weight (a sure result has no spread)")
    ordered = sorted(merged)
    common = reduce(math.gcd, merged.values())
    reduced = tuple(merged[v] // common for v in ordered)
    total = sum(reduced)
    unit = fraction_gcd(ordered)
    mean = sum((v * w for v, w in zip(ordered, reduced)), Fraction(0)) / total
    second = sum((v * v * w for v, w in zip(ordered, reduced)), Fraction(0)) / total
    whole = [int(v / unit) for v in ordered]
    if whole[-1] - whole[0] > MAX_LATTICE_SPAN:
        raise InputError("values", f"the results of a round range over {whole[-1] - whole[0]:,} steps of "
                                   f"{float(unit):g} chips (from {float(ordered[0]):g} to {float(ordered[-1]):g}); at "
                                   f"most {MAX_LATTICE_SPAN:,} steps can be priced: stakes that far apart need "
                                   "separate slips")
    steps = np.array(whole, dtype=np.int64)
    probabilities = np.array([w / total for w in reduced])  # int / int: correctly rounded
    for array in (steps, probabilities):
        array.setflags(write=False)
    return OneRound(tuple(ordered), reduced, total, unit, steps, probabilities, mean, second - mean * mean,
                    None if cost is None else as_fraction(cost))


def house_round(player: OneRound) -> OneRound:
    """The house's side of a round: every value negated (the house wins what the player loses).

    Parameters
    ----------
    player : OneRound

    Returns
    -------
    OneRound
    """
    steps = -player.steps[::-1].copy()
    probabilities = player.probabilities[::-1].copy()
    for array in (steps, probabilities):
        array.setflags(write=False)
    return OneRound(tuple(-v for v in reversed(player.values)), tuple(reversed(player.weights)), player.total,
                    player.unit, steps, probabilities, -player.mean, player.variance, player.cost)



@dataclasses.dataclass(frozen=True, eq=False)
class ReducedRound:
    """One round on its minimal lattice: ``step = base + span * y`` with integer ``y`` in ``[0, r]``.

    The sum of ``n`` rounds is then ``n * base + span * T`` with ``T`` the sum of
    the ``y``: convolving in ``y`` wastes no zeros when the steps share a
    residue (e.g. +-1 only, where sums keep the parity of ``n``).
    """

    base: int
    span: int
    y: np.ndarray  # int64 (a,), ascending, y[0] == 0
    p: np.ndarray  # float64 (a,)
    r: int
    mean: float  # E y, rounded from the exact value
    var: float
    mean_exact: Fraction
    base_error: float  # sum |p_float - p_exact|, rounded up

    @property
    def d(self) -> np.ndarray:
        """Centred values ``y - E y``, float64 (a,)."""
        return self.y - self.mean


def reduce_round(one: OneRound) -> ReducedRound:
    """``one`` on its minimal lattice (see :class:`ReducedRound`), with the float64 rounding of its probabilities."""
    base = int(one.steps[0])
    span = reduce(math.gcd, (int(s) - base for s in one.steps[1:]))
    y = (one.steps - base) // span
    mean_exact = sum((Fraction(int(yi)) * w for yi, w in zip(y, one.weights)), Fraction(0)) / one.total
    var_exact = one.variance / (one.unit * span) ** 2
    error = sum((abs(Fraction(float(p)) - Fraction(w, one.total)) for p, w in zip(one.probabilities, one.weights)),
                Fraction(0))
    return ReducedRound(base, span, y, one.probabilities, int(y[-1]), float(mean_exact), float(var_exact),
                        mean_exact, math.nextafter(float(error), math.inf))
