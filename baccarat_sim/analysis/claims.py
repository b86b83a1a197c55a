"""Checks of the RTP figures a rule sheet states against the exact figures."""

from __future__ import annotations

import dataclasses

from ..model.rules import Claim, Rules
from .settlement import BetResult

__all__ = ["ClaimCheck", "check_claims"]


@dataclasses.dataclass(frozen=True)
class ClaimCheck:
    """One stated figure, the exact figure it refers to, and whether it holds.

    A claim holds when the exact figure rounds to the stated one at the precision
    the sheet writes (``98.94%`` holds for exact values in [98.935%, 98.945%]).
    """

    claim: Claim
    computed: float
    subject: str

    @property
    def stated(self) -> float:
        """The stated figure as a fraction."""
        return self.claim.fraction

    @property
    def holds(self) -> bool:
        """Whether the exact figure matches the statement at its precision."""
        return abs(self.computed - self.stated) <= self.claim.tolerance + 1e-12

    @property
    def reason(self) -> str:
        """One line saying what was checked and the verdict."""
        verdict = "holds" if self.holds else "does NOT hold"
        return (f"{self.subject}: stated {self.claim.value}, exact {self.computed * 100:.4f}% -> {verdict} "
                f"at the sheet's precision (+/-{self.claim.tolerance * 100:.4g}%)")


def check_claims(rules: Rules, exact_results: list[BetResult]) -> list[ClaimCheck]:
    """Check every claim of ``rules`` against exact per-bet results.

    A claim about one bet is checked when that bet was settled. A game-wide
    claim (the maximum or minimum RTP of the game) is checked only when every
    bet it is about was settled: over a subset of the bets it would be judged
    on the wrong figures.

    Examples
    --------
    >>> from baccarat_sim import exact_histogram, load_rules, settle
    >>> rules = load_rules("rng-6deck-single-hand")
    >>> for check in check_claims(rules, settle(exact_histogram(6), rules)):
    ...     print(check.reason)
    player RTP: stated 98.76%, exact 98.7626% -> holds at the sheet's precision (+/-0.005%)
    banker RTP: stated 98.94%, exact 98.9442% -> holds at the sheet's precision (+/-0.005%)
    tie RTP: stated 85.56%, exact 85.5618% -> holds at the sheet's precision (+/-0.005%)
    """
    by_id = {result.id: result for result in exact_results}
    checks = []
    for claim in rules.claims:
        if claim.what == "bet":
            if claim.bet not in by_id:
                continue  # the bet is not in this (filtered) report
            checks.append(ClaimCheck(claim, by_id[claim.bet].rtp, f"{claim.bet} RTP"))
        elif by_id and all(bet_id in by_id for bet_id in (claim.scope or by_id)):
            scope = [by_id[bet_id] for bet_id in (claim.scope or by_id)]
            pick = max if claim.what == "max_rtp" else min
            best = pick(scope, key=lambda r: r.rtp)
            label = "maximum" if claim.what == "max_rtp" else "minimum"
            checks.append(ClaimCheck(claim, best.rtp, f"{label} RTP of the game ({best.id})"))
    return checks
