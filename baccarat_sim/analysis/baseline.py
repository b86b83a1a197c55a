"""Regression checks of exact figures against a saved report (``--baseline``).

A team pins its rule files by saving the JSON report of an exact run
(``python -m baccarat_sim.rtp --exact --format json``) and comparing every
later run with it: each bet's exact RTP, hit frequency and standard deviation
must stay within a tolerance. The comparison reads the saved document as data
and returns a plain result; the command line prints it and sets the exit status.
"""

from __future__ import annotations

import dataclasses
import math

from ..errors import InputError
from ..model.histogram import OutcomeHistogram
from ..model.rules import Rules
from .settlement import settle

__all__ = ["FIELDS", "BaselineComparison", "Drift", "compare_with_baseline", "exact_figures"]

#: The exact figures compared, by their JSON field names (values are fractions, not percents).
FIELDS = ("rtp", "hit_frequency", "sd")


@dataclasses.dataclass(frozen=True)
class Drift:
    """One figure that moved beyond the tolerance (``None``: the bet is missing on that side)."""

    bet: str
    field: str
    baseline: float | None
    current: float | None

    @property
    def difference(self) -> float | None:
        """``current - baseline`` (None when either is missing)."""
        if self.baseline is None or self.current is None:
            return None
        return self.current - self.baseline

    def describe(self) -> str:
        """One line for a person."""
        if self.current is None:
            return f"{self.bet}: in the baseline, not in this run"
        if self.baseline is None:
            return f"{self.bet}: in this run, not in the baseline"
        return (f"{self.bet}.{self.field}: {self.current:.12g} now, {self.baseline:.12g} in the baseline "
                f"(difference {self.difference:+.3g})")


@dataclasses.dataclass(frozen=True)
class BaselineComparison:
    """Every compared figure, and those that drifted."""

    tolerance: float
    compared: int
    drifts: tuple[Drift, ...]

    @property
    def passed(self) -> bool:
        """Whether nothing drifted."""
        return not self.drifts

    @property
    def drifted_figures(self) -> tuple[Drift, ...]:
        """Figures of bets on both sides that moved beyond the tolerance (at most :attr:`compared`)."""
        return tuple(drift for drift in self.drifts if drift.field)

    @property
    def unmatched_bets(self) -> tuple[Drift, ...]:
        """Bets in only one of the two reports."""
        return tuple(drift for drift in self.drifts if not drift.field)

    def summary(self) -> str:
        """One line: how many figures drifted of those compared, and the bets on one side only."""
        text = f"{len(self.drifted_figures)} of {self.compared} figures drifted beyond {self.tolerance:g}"
        unmatched = len(self.unmatched_bets)
        if unmatched:
            text += f"; {unmatched} bet{'s' if unmatched > 1 else ''} in only one of the two reports"
        return text


def exact_figures(exact: OutcomeHistogram, rules: Rules) -> dict[str, dict[str, float]]:
    """Each bet's exact figures (:data:`FIELDS`) on an exact histogram, by bet id."""
    return {result.id: {"rtp": result.rtp, "hit_frequency": result.hit_frequency, "sd": result.sd}
            for result in settle(exact, rules)}


def _baseline_figures(document, source: str) -> dict[str, dict[str, float]]:
    """The exact figures of a saved ``--format json`` report; exact runs give all three, Monte Carlo runs the RTP."""
    try:
        exact_run = document["run"]["model"] == "exact"
        bets = document["bets"]
        figures = {}
        for bet in bets:
            fields = {"rtp": bet["exact_rtp"]}
            if exact_run:
                fields.update(hit_frequency=bet["hit_frequency"], sd=bet["sd"])
            if not all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
                       for v in fields.values()) or not isinstance(bet["id"], str):
                raise TypeError
            if bet["id"] in figures:
                duplicate = bet["id"]
                break
            figures[bet["id"]] = {k: float(v) for k, v in fields.items()}
        else:
            return figures
    except (KeyError, TypeError, IndexError):
        raise InputError("baseline", f"{source}: is not a report of `--format json` (run.model and bets[] with id, "
                                     "exact_rtp, hit_frequency, sd)") from None
    # A second entry of one bet would hide a drift of the first (or the reverse): a report has each bet once.
    raise InputError("baseline", f"{source}: bets[] has bet {duplicate!r} twice; a report lists each bet once")


def compare_with_baseline(current: dict[str, dict[str, float]], document: dict, tolerance: float,
                          source: str = "baseline") -> BaselineComparison:
    """Compare exact figures with a saved report.

    Parameters
    ----------
    current : dict
        :func:`exact_figures` of this run.
    document : dict
        The saved JSON report (parsed).
    tolerance : float
        Largest absolute difference allowed for each figure.
    source : str
        The file's name, for messages.

    Raises
    ------
    InputError
        ``baseline``: the document is not a report; ``tolerance``: negative or not finite.
    """
    if not (isinstance(tolerance, (int, float)) and math.isfinite(tolerance) and tolerance >= 0):
        raise InputError("tolerance", f"must be a number >= 0, got {tolerance!r}")
    saved = _baseline_figures(document, source)
    drifts, compared = [], 0
    for bet_id, fields in saved.items():
        if bet_id not in current:
            drifts.append(Drift(bet_id, "", fields["rtp"], None))
            continue
        for field, value in fields.items():
            compared += 1
            now = current[bet_id][field]
            if not abs(now - value) <= tolerance:
                drifts.append(Drift(bet_id, field, value, now))
    drifts += [Drift(bet_id, "", None, fields["rtp"]) for bet_id, fields in current.items() if bet_id not in saved]
    return BaselineComparison(float(tolerance), compared, tuple(drifts))
