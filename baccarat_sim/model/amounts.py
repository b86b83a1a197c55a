"""Amounts and percentages as text: how every message, note, table and report writes money and fractions.

Three ways, each written once:

* :func:`amount_text`: an amount as a rule file writes it (``5``, ``0.25``): the
  table limits, stakes and commission steps in error messages and notes;
* :func:`chips_text`: an amount for people reading a table of results
  (``12,500``, ``37.50``): thousands separators, no decimals when whole;
* :func:`percent_text`: a fraction as a percentage (``98.9421%``, ``+6.765%``).

Plain Python (no numpy), so that the model's validation messages use it.
"""

from __future__ import annotations

import math
from decimal import Decimal
from fractions import Fraction

__all__ = ["FLOAT_DIGITS", "amount_text", "chips_text", "percent_text"]


def amount_text(amount) -> str:
    """An amount as a rule file writes it: the digits of a whole amount, else the shortest float text.

    Parameters
    ----------
    amount : int, float or Fraction

    Examples
    --------
    >>> amount_text(Fraction(5)), amount_text(Fraction(1, 4)), amount_text(2 * 0.5), amount_text(1_000_000)
    ('5', '0.25', '1', '1000000')
    """
    amount = Fraction(amount)
    return str(amount.numerator) if amount.denominator == 1 else f"{float(amount):g}"


#: Significant digits of an amount computed in floating point (beyond them its digits are noise, not chips).
FLOAT_DIGITS = 15


def chips_text(value, digits: int = 2) -> str:
    """Chips for people: thousands separators, no decimals when whole or beyond a thousand ("n/a" for None).

    An exact amount (a stake, a lattice value: a Fraction) prints every digit
    it has; one computed in floating point (an SD) prints at most
    :data:`FLOAT_DIGITS` significant digits, the rest as zeros: beyond them a
    float's digits (``1e20`` chips times an edge) are noise that would read as exact.

    Examples
    --------
    >>> chips_text(Fraction(12500)), chips_text(37.5), chips_text(-1234.5), chips_text(None)
    ('12,500', '37.50', '-1,234', 'n/a')
    """
    if value is None:
        return "n/a"
    if not isinstance(value, float):
        value = Fraction(value)
        if value.denominator == 1:
            return f"{value.numerator:,}"
    if abs(value) < 10**FLOAT_DIGITS or (isinstance(value, float) and not math.isfinite(value)):
        return f"{float(value):,.{0 if abs(value) >= 1000 else digits}f}"
    if isinstance(value, float):
        value = Fraction(Decimal(f"{value:.{FLOAT_DIGITS}g}"))
    return f"{round(value):,}"  # exact (half to even, as a float prints)


def percent_text(fraction, digits: int = 4, *, sign: bool = False, missing: str = "n/a") -> str:
    """A fraction as a percentage with ``digits`` decimals (a ``+`` on gains with ``sign``).

    Parameters
    ----------
    fraction : float, Fraction or None
    digits : int
    sign : bool
        Write the sign of a positive figure too (an edge, a change).
    missing : str
        What stands for a figure that is not available (None or NaN).

    Examples
    --------
    >>> percent_text(0.989421), percent_text(Fraction(6765, 100000), 3, sign=True), percent_text(None)
    ('98.9421%', '+6.765%', 'n/a')
    """
    if fraction is None or fraction != fraction:
        return missing
    return f"{100 * float(fraction):{'+' if sign else ''}.{digits}f}%"
