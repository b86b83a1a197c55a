"""The check of a run's figures (``--check``): Monte Carlo against exact, and every stated RTP.

A Monte Carlo RTP fails when it lies :data:`FAIL_Z` or more standard errors
from the exact one: for a correct engine that is about a 1-in-16,000 event
(two-sided, normal), so a failure points at a bug, not at bad luck. A stated
RTP fails when the exact figure contradicts it at the precision the sheet
writes (:class:`~baccarat_sim.analysis.claims.ClaimCheck`).

Plain Python only: the command line reads :data:`FAIL_Z` for its help text
before any heavy module is imported.
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["FAIL_Z", "check_failures", "fails"]

#: |z| from which a Monte Carlo RTP fails the check.
FAIL_Z = 4


def fails(z: float | None) -> bool:
    """Whether a Monte Carlo figure at ``z`` standard errors from exact fails (n/a, NaN or None, never does)."""
    return z is not None and abs(z) >= FAIL_Z  # NaN compares False


def check_failures(bets: Iterable[tuple[str, float, float, float]], claims, over: str = "") -> dict[str, list[str]]:
    """What the check fails on, per bet id (``"game"`` for a game-wide claim).

    Parameters
    ----------
    bets : iterable of (str, float, float, float)
        ``(bet id, Monte Carlo RTP, exact RTP, z)`` of each bet a Monte Carlo
        run settled (none for exact figures alone).
    claims : iterable of ClaimCheck
        The stated figures checked against exact.
    over : str
        Which rounds the Monte Carlo RTPs cover, where not every round (a
        dealt shoe's ``"rounds 1-8 (those every shoe deals)"``): said in each line.

    Returns
    -------
    dict of str to list of str
        One line per failure; empty when everything holds.

    Examples
    --------
    >>> check_failures([("banker", 0.9890, 0.9894, -1.2), ("tie", 0.9, 0.8564, 5.5)], [])
    {'tie': ['Monte Carlo RTP 90.0000% is +5.50 standard errors from exact 85.6400% (|z| >= 4)']}
    """
    failures: dict[str, list[str]] = {}
    for bet_id, rtp, exact_rtp, z in bets:
        if fails(z):
            failures.setdefault(bet_id, []).append(
                f"Monte Carlo RTP {f'over {over} ' if over else ''}{100 * rtp:.4f}% is {z:+.2f} standard errors "
                f"from exact {100 * exact_rtp:.4f}% "
                f"(|z| >= {FAIL_Z})")
    for claim in claims:
        if not claim.holds:
            failures.setdefault(claim.claim.bet or "game", []).append(claim.reason)
    return failures
