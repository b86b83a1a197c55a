"""A jackpot bet's figures in a run's report: its JSON object, CSV columns and one line of text each.

Renders :class:`~baccarat_sim.analysis.settlement_jackpot.JackpotFigures`
(exact, and the Monte Carlo estimates of a dealt run). Every field is a
fraction (RTPs, rates, probabilities) or a meter in the unit the rule file
states; the names are documented in ``baccarat_sim/rulesets/README.md``
("Jackpots and flat amounts") and are part of the JSON contract.
"""

from __future__ import annotations

from ..analysis.settlement_jackpot import JackpotFigures
from ..model.amounts import chips_text, percent_text

__all__ = ["CSV_COLUMNS", "bet_fields", "csv_row", "jackpot_line"]

#: The CSV columns of a report with a jackpot bet (empty for the other bets), in order.
CSV_COLUMNS = ("jackpot_unit", "jackpot_meter", "jackpot_reset", "jackpot_contribution_rate", "jackpot_rtp_base",
               "jackpot_rtp_per_meter_unit", "jackpot_break_even_meter", "jackpot_rtp_at_reset",
               "jackpot_probability", "jackpot_long_run_rtp", "jackpot_operator_long_run_return")


def _number(value):
    return None if value is None else float(value)


def _estimates(figures: JackpotFigures) -> dict:
    """The figures that depend on the histogram (exact, or Monte Carlo estimates)."""
    return {
        "rtp_base": float(figures.base),
        "rtp_per_meter_unit": float(figures.slope),
        "break_even_meter": _number(figures.break_even_meter),
        "rtp_at_reset": _number(figures.rtp_at_reset),
        "jackpot_probability": float(figures.jackpot_probability),
        "long_run_rtp": _number(figures.long_run_rtp),
        "operator_long_run_return": _number(figures.operator_long_run_return),
    }


def bet_fields(figures: JackpotFigures, mc: JackpotFigures | None = None) -> dict:
    """The ``jackpot`` object of a bet's JSON record: exact figures, and ``monte_carlo`` estimates (or null)."""
    return {
        "unit": figures.unit,
        "money_per_stake": float(figures.per_stake) if figures.unit == "money" else None,
        "meter": float(figures.meter),
        "reset": _number(figures.reset),
        "contribution_rate": _number(figures.contribution),
        **_estimates(figures),
        "monte_carlo": None if mc is None else _estimates(mc),
    }


def csv_row(figures: JackpotFigures) -> dict:
    """A jackpot bet's exact figures under :data:`CSV_COLUMNS`."""
    fields = bet_fields(figures)
    return {"jackpot_unit": fields["unit"], "jackpot_meter": fields["meter"], "jackpot_reset": fields["reset"],
            "jackpot_contribution_rate": fields["contribution_rate"],
            **{f"jackpot_{name}" if not name.startswith("jackpot") else name: value
               for name, value in _estimates(figures).items()}}


def jackpot_line(figures: JackpotFigures) -> str:
    """One line for the text and Markdown reports: the straight line, break-even, reset and long-run figures."""
    unit = "units of the stake" if figures.unit == "stake" else f"money, {chips_text(figures.per_stake)} a stake"
    even = figures.break_even_meter
    line = (f"{figures.bet_id}: RTP = {percent_text(figures.base)} + {percent_text(figures.slope, 8)} x meter "
            f"(meter in {unit}); breaks even at a meter of {chips_text(even) if even is not None else 'n/a'}; "
            + (f"{percent_text(figures.rtp_at_reset)} at the reset value {chips_text(figures.reset)}; "
               if figures.reset is not None else "no reset value given; ")
            + f"priced at a meter of {chips_text(figures.meter)}")
    if figures.long_run_rtp is not None:
        line += (f"; with {percent_text(figures.contribution, 2)} of every stake to the meter, long-run RTP "
                 f"{percent_text(figures.long_run_rtp)}, operator's long-run return "
                 f"{percent_text(figures.operator_long_run_return)}")
    return line
