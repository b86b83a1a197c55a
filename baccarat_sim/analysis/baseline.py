"""Regression checks of exact figures against a saved report (``--baseline``).

A team pins its rule files by saving the JSON report of an exact run
(``python -m baccarat_sim.rtp --exact --format json``) and comparing every
later run with it: each bet's exact RTP, hit frequency and standard deviation
must stay within a tolerance, and a progressive's straight line in the meter
too (:data:`JACKPOT_FIELDS`: priced at a meter of 0, an edit of the lines
paying the meter moves neither the RTP nor the hit frequency, only the slope).
The comparison reads the saved document as data and returns a plain result;
the command line prints it and sets the exit status.
"""

from __future__ import annotations

import dataclasses
import math

from ..errors import InputError
from ..model.histogram import OutcomeHistogram
from ..model.rules import Rules
from .settlement import settle

__all__ = ["FIELDS", "JACKPOT_FIELDS", "BaselineComparison", "Drift", "compare_with_baseline", "exact_figures"]

#: The exact figures compared, by their JSON field names (values are fractions, not percents).
FIELDS = ("rtp", "hit_frequency", "sd")
#: A jackpot bet's exact figures compared too, by their names in its JSON ``jackpot`` object (issue 41, item 21).
JACKPOT_FIELDS = ("rtp_base", "rtp_per_meter_unit", "jackpot_probability")


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
        what = f"{self.bet}.{self.field}" if self.field else self.bet
        if self.current is None:
            return f"{what}: in the baseline, not in this run"
        if self.baseline is None:
            return f"{what}: in this run, not in the baseline"
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
        """Figures of bets on both sides that moved beyond the tolerance, or are on one side only."""
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
    """Each bet's exact figures (:data:`FIELDS`, and :data:`JACKPOT_FIELDS` as ``jackpot.<name>``) by bet id."""
    from .settlement_jackpot import jackpot_figures  # only for a rule set with a progressive

    figures = {result.id: {"rtp": result.rtp, "hit_frequency": result.hit_frequency, "sd": result.sd}
               for result in settle(exact, rules)}
    for bet in rules.bets:
        if bet.jackpot is not None:
            line = jackpot_figures(exact, bet, rules)
            figures[bet.id].update({"jackpot.rtp_base": float(line.base),
                                    "jackpot.rtp_per_meter_unit": float(line.slope),
                                    "jackpot.jackpot_probability": float(line.jackpot_probability)})
    return figures


class _NotFinite(TypeError):
    """A figure of a saved report that is not a finite number (``where``: its JSON path)."""

    def __init__(self, where: str):
        super().__init__(where)
        self.where = where


def _finite(value, where: str) -> float:
    """A JSON number as a finite float, or :class:`_NotFinite` (a bool, a string, an integer beyond float: 10**400)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise _NotFinite(where)
    try:
        number = float(value)
    except OverflowError:  # an integer of hundreds of digits
        raise _NotFinite(where) from None
    if not math.isfinite(number):
        raise _NotFinite(where)
    return number


def _baseline_figures(document, source: str) -> dict[str, dict[str, float]]:
    """The exact figures of a saved ``--format json`` report; exact runs give all three, Monte Carlo runs the RTP.

    A bet with a ``jackpot`` object gives :data:`JACKPOT_FIELDS` too (exact figures in either kind of run).
    """
    try:
        exact_run = document["run"]["model"] == "exact"
        bets = document["bets"]
        figures = {}
        for i, bet in enumerate(bets):
            fields = {"rtp": bet["exact_rtp"]}
            if exact_run:
                fields.update(hit_frequency=bet["hit_frequency"], sd=bet["sd"])
            jackpot = bet.get("jackpot")
            if jackpot is not None:
                fields.update({f"jackpot.{name}": jackpot[name] for name in JACKPOT_FIELDS})
            if not isinstance(bet["id"], str):
                raise TypeError
            if bet["id"] in figures:
                duplicate = bet["id"]
                break
            figures[bet["id"]] = {k: _finite(v, f"bets[{i}].{'exact_rtp' if k == 'rtp' else k}")
                                  for k, v in fields.items()}
        else:
            return figures
    except (KeyError, TypeError, IndexError, AttributeError) as error:
        at = f"{error.where}: not a finite number; " if isinstance(error, _NotFinite) else ""
        raise InputError("baseline", f"{source}: {at}is not a report of `--format json` (run.model and bets[] with "
                                     "id, exact_rtp, hit_frequency, sd, each a finite number, and a jackpot bet's "
                                     f"jackpot.{', jackpot.'.join(JACKPOT_FIELDS)})") from None
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
            now = current[bet_id].get(field)
            if now is None or not abs(now - value) <= tolerance:  # None: no longer a progressive
                drifts.append(Drift(bet_id, field, value, now))
        # Now a progressive, not in the baseline: its line in the meter is new.
        drifts += [Drift(bet_id, field, None, value) for field, value in current[bet_id].items() if field not in fields
                   and field.startswith("jackpot.")]
    drifts += [Drift(bet_id, "", None, fields["rtp"]) for bet_id, fields in current.items() if bet_id not in saved]
    return BaselineComparison(float(tolerance), compared, tuple(drifts))
