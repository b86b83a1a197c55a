"""The findings: exact figures of every shipped rule set, what the ``findings`` command reports.

:func:`build_findings` runs the exact engine on each shipped rule set and
analyses it as a run (:func:`~baccarat_sim.analysis.run.analyze_run`): every
bet's exact RTP, house edge, hit frequency and SD; every RTP the rule sheets
state with its verdict; the commission-rounding table of
``online-commission-rounding``; and the side-bet catalogue (the ``catalogue-*``
rule sets): every catalogue bet's pay table, its exact house edge, the
published figure and whether the two agree at the digits published. The
result, :class:`Findings`, holds plain records (one dict per row, fractions,
not percents); the report renders the page, tables and plots
(:mod:`baccarat_sim.report.findings`).

Everything is exact (combinatorial); nothing is simulated, so the findings are
the same on every machine.
"""

from __future__ import annotations

import dataclasses
from decimal import Decimal

from ..engines.exact import exact_histogram
from ..model.rules import available_rules, load_rules
from .commission import StakeRTP, commission_by_stake
from .run import RunResult, analyze_run

__all__ = ["CATALOGUE_COLUMNS", "CATALOGUE_PREFIX", "COMMISSION_RULES", "Findings", "build_findings"]

#: The rule set whose commission is rounded: its Banker RTP by stake is part of the findings.
COMMISSION_RULES = "online-commission-rounding"
#: Rule sets whose id starts so are the side-bet catalogue: published bets, each with its published figure.
CATALOGUE_PREFIX = "catalogue-"
#: Fields of a catalogue record: house edges as fractions; ``published`` as printed, ``reproduced`` None when the
#: source publishes no figure.
CATALOGUE_COLUMNS = ["rules", "bet", "name", "pays", "decks", "house_edge", "published_house_edge", "published",
                     "reproduced", "source"]


@dataclasses.dataclass(frozen=True, eq=False)
class Findings:
    """Exact figures of shipped rule sets.

    Attributes
    ----------
    bets : list of dict
        One record per bet of every rule set: ``rules``, ``bet``, ``name``,
        ``decks``, ``rtp``, ``house_edge``, ``hit_frequency``, ``sd``,
        ``stated_rtp`` and ``max_round`` (NaN where none).
    claims : list of dict
        The rule sheets' stated RTPs (catalogue rule sets aside): ``rules``,
        ``claim``, ``subject``, ``stated``, ``exact`` and ``holds``.
    catalogue : list of dict
        Catalogue bets against their published house edges (:data:`CATALOGUE_COLUMNS`).
    commission : tuple of StakeRTP or None
        The Banker RTP of :data:`COMMISSION_RULES` at 1 to 100 lowest chips (None when it is left out).
    runs : dict of str to RunResult
        Rule-set id to its exact analysis, in the order given.
    """

    bets: list
    claims: list
    catalogue: list
    commission: tuple[StakeRTP, ...] | None
    runs: dict[str, RunResult]


def build_findings(rule_names: list[str] | None = None) -> Findings:
    """Exact per-bet figures, claim checks, the catalogue against its published figures and the commission table.

    Parameters
    ----------
    rule_names : list of str or None
        Shipped rule sets to include (default: all).

    Returns
    -------
    Findings
    """
    rule_names = available_rules() if rule_names is None else rule_names
    bet_rows, claim_rows, catalogue_rows, runs = [], [], [], {}
    commission = None
    for name in rule_names:
        rules = load_rules(name)
        decks = rules.shoe.decks
        # The rule set's own histogram: it carries the card detail its card-level bets read.
        hist = exact_histogram(rules)
        result = analyze_run(rules, hist)
        runs[rules.id] = result
        for figures in result.bets:
            bet_rows.append(
                {
                    "rules": rules.id,
                    "bet": figures.id,
                    "name": figures.name,
                    "decks": decks,
                    "rtp": figures.rtp,
                    "house_edge": figures.house_edge,
                    "hit_frequency": figures.hit_frequency,
                    "sd": figures.sd,
                    "stated_rtp": figures.stated_rtp,
                    "max_round": figures.max_round,
                }
            )
        if rules.id.startswith(CATALOGUE_PREFIX):
            catalogue_rows += _catalogue_rows(result)
            continue  # a catalogue bet's stated RTP is a published figure, judged in the catalogue table
        for check in result.claims:
            claim_rows.append(
                {
                    "rules": rules.id,
                    "claim": check.claim.text or check.subject,
                    "subject": check.subject,
                    "stated": check.claim.value,
                    "exact": check.computed,
                    "holds": check.holds,
                }
            )
        if rules.id == COMMISSION_RULES:
            commission = tuple(commission_by_stake(hist, rules))
    return Findings(bet_rows, claim_rows, catalogue_rows, commission, runs)


def _pays_summary(bet) -> str:
    """The distinct payouts of a bet's pay table, in file order ("75:1 / 10:1")."""
    return " / ".join(dict.fromkeys(case.pays for case in bet.cases))


def _published_edge_text(stated: str) -> str:
    """A stated RTP as the house edge it was published as, at the same digits ("86.2365%" -> "13.7635%")."""
    return f"{100 - Decimal(stated.rstrip('%'))}%"


def _catalogue_rows(result: RunResult) -> list[dict]:
    """One row per catalogue bet: pay table, exact house edge, the published figure and whether they agree."""
    rules = result.rules
    checks = {check.claim.bet: check for check in result.claims if check.claim.what == "bet"}
    house_edges = {figures.id: figures.house_edge for figures in result.bets}
    rows = []
    for bet in rules.bets:
        check = checks.get(bet.id)
        published = None if check is None else _published_edge_text(check.claim.value)
        rows.append(
            {
                "rules": rules.id,
                "bet": bet.id,
                "name": bet.name,
                "pays": _pays_summary(bet),
                "decks": rules.shoe.decks,
                "house_edge": house_edges[bet.id],
                "published_house_edge": float("nan") if published is None else float(Decimal(published[:-1]) / 100),
                "published": published,
                "reproduced": None if check is None else check.holds,
                "source": rules.source,
            }
        )
    return rows
