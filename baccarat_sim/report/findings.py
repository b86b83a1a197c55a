"""The findings page: exact figures of every shipped rule set, in one command.

``python -m baccarat_sim.findings [--out results/findings]`` writes (through
:func:`write_findings`)

- ``README.md``: the exact RTP and house edge of every bet of every shipped rule
  set, every RTP the rule sheets state with its verdict, the commission-rounding
  table of ``online-commission-rounding``, links to the plots, and the side-bet
  catalogue (the ``catalogue-*`` rule sets): every catalogue bet's pay table, its
  exact house edge, the published figure and its source, and whether the two agree
  at the digits published;
- ``bets.csv``, ``claims.csv``, ``catalogue.csv``, ``commission.csv`` and ``findings.json``;
- one PNG per rule set (exact RTP per bet against the stated value; none for the
  catalogue, whose figures are in its tables) and ``commission-rounding.png``.

Everything on the page is exact (combinatorial); nothing is simulated, so the
page is the same on every machine.
"""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import pandas as pd

from .._version import __version__
from ..engines.exact import exact_histogram
from ..model.rules import available_rules, load_rules
from ..storage.writing import write_file_set
from .plots import new_figure, plot_bet_rtp
from .render import clean_json, csv_text, markdown_table, terminal_text
from .run_report import STAKE_MARK, build_report
from .tables import commission_table

__all__ = ["build_findings", "write_findings"]

COMMISSION_RULES = "online-commission-rounding"
#: Rule sets whose id starts so are the side-bet catalogue: published bets, each with its published figure.
CATALOGUE_PREFIX = "catalogue-"
#: Columns of ``catalogue.csv``: house edges as fractions; ``published`` as printed, ``reproduced`` empty when the
#: source publishes no figure.
CATALOGUE_COLUMNS = ["rules", "bet", "name", "pays", "decks", "house_edge", "published_house_edge", "published",
                     "reproduced", "source"]


def build_findings(rule_names: list[str] | None = None) -> dict:
    """Exact per-bet figures, claim checks and the commission table.

    Parameters
    ----------
    rule_names : list of str or None
        Shipped rule sets to include (default: all).

    Returns
    -------
    dict
        ``"bets"``, ``"claims"`` (the rule sheets' stated RTPs), ``"catalogue"``
        (catalogue bets against their published house edges) and
        ``"commission"`` as pandas DataFrames, and ``"reports"``: rule-set id to
        :class:`baccarat_sim.report.run_report.Report`.
    """
    rule_names = available_rules() if rule_names is None else rule_names
    bet_rows, claim_rows, catalogue_rows, reports = [], [], [], {}
    commission = None
    for name in rule_names:
        rules = load_rules(name)
        decks = rules.shoe.decks
        # The rule set's own histogram: it carries the card detail its card-level bets read.
        hist = exact_histogram(rules)
        report = build_report(rules, hist)
        reports[rules.id] = report
        for bet_id, row in report.table.iterrows():
            bet_rows.append(
                {
                    "rules": rules.id,
                    "bet": bet_id,
                    "name": row["name"],
                    "decks": decks,
                    "rtp": row["rtp"],
                    "house_edge": row["house_edge"],
                    "hit_frequency": row["hit_frequency"],
                    "sd": row["sd"],
                    "stated_rtp": row["stated_rtp"],
                    "max_round": row["max_round"],
                }
            )
        if rules.id.startswith(CATALOGUE_PREFIX):
            catalogue_rows += _catalogue_rows(report)
            continue  # a catalogue bet's stated RTP is a published figure, judged in the catalogue table
        for check in report.claims:
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
            commission = commission_table(hist, rules)
    return {
        "bets": pd.DataFrame(bet_rows),
        "claims": pd.DataFrame(claim_rows),
        "catalogue": pd.DataFrame(catalogue_rows, columns=CATALOGUE_COLUMNS),
        "commission": commission,
        "reports": reports,
    }


def _pays_summary(bet) -> str:
    """The distinct payouts of a bet's pay table, in file order ("75:1 / 10:1")."""
    return " / ".join(dict.fromkeys(case.pays for case in bet.cases))


def _published_edge_text(stated: str) -> str:
    """A stated RTP as the house edge it was published as, at the same digits ("86.2365%" -> "13.7635%")."""
    return f"{100 - Decimal(stated.rstrip('%'))}%"


def _catalogue_rows(report) -> list[dict]:
    """One row per catalogue bet: pay table, exact house edge, the published figure and whether they agree."""
    rules = report.rules
    checks = {check.claim.bet: check for check in report.claims if check.claim.what == "bet"}
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
                "house_edge": report.table.loc[bet.id, "house_edge"],
                "published_house_edge": float("nan") if published is None else float(Decimal(published[:-1]) / 100),
                "published": published,
                "reproduced": None if check is None else check.holds,
                "source": rules.source,
            }
        )
    return rows


def _pct(value: float, digits: int = 4) -> str:
    return "" if value != value else f"{100 * value:.{digits}f}%"


def _page(findings: dict, plots: dict[str, str]) -> str:
    bets, claims, commission = findings["bets"], findings["claims"], findings["commission"]
    lines = [
        "# Findings: exact RTP of every bet of every shipped rule set",
        "",
        f"Generated by `python -m baccarat_sim.findings` (baccarat_sim {__version__}). Every figure is exact "
        "(combinatorial analysis of a freshly shuffled shoe of the rule set's decks); RTP is per unit staked, "
        "pushes included.",
        "",
        "## Stated RTPs in the rule sheets",
        "",
    ]
    if len(claims):
        shown = pd.DataFrame(
            {
                "rule set": claims["rules"],
                "what the sheet states": claims["subject"],
                "stated": claims["stated"],
                "exact": [_pct(v) for v in claims["exact"]],
                "verdict": ["confirmed" if h else "**not confirmed**" for h in claims["holds"]],
            }
        )
        lines += [markdown_table(shown)]
    for rules_id, group in bets.groupby("rules", sort=False):
        if rules_id.startswith(CATALOGUE_PREFIX):
            continue  # in the catalogue section below
        report = findings["reports"][rules_id]
        lines += [f"## {report.rules.name} (`{rules_id}`)", ""]
        if report.rules.source:
            lines += [f"Source: `{report.rules.source}`; {int(group['decks'].iloc[0])} decks, "
                      f"model `{report.rules.shoe.model}`.", ""]
        shown = pd.DataFrame(
            {
                "bet": [f"`{b}`" for b in group["bet"]],
                "name": group["name"],
                # A bet whose RTP depends on the stake (a rounded commission) is marked; its note says where it holds.
                "RTP": [_pct(v) + (f" {STAKE_MARK}" if b in report.by_stake else "")
                        for b, v in zip(group["bet"], group["rtp"])],
                "house edge": [_pct(v) for v in group["house_edge"]],
                "hit frequency": [_pct(v, 3) for v in group["hit_frequency"]],
                "SD": [f"{v:.4f}" for v in group["sd"]],
                "stated": [_pct(v, 2) for v in group["stated_rtp"]],
                "max round": ["" if v != v else int(v) for v in group["max_round"]],
            }
        )
        lines += [markdown_table(shown)]
        lines += [f"{note}\n" for note in report.run.get("notes") or [] if note.startswith(STAKE_MARK)]
        if rules_id in plots:
            lines += [f"![{rules_id}]({plots[rules_id]})", ""]
    if commission is not None:
        lines += [
            "## Commission rounded up to a quarter of the lowest chip",
            "",
            f"`{COMMISSION_RULES}`: the Banker's 5% commission is rounded *up* to a quarter of the lowest chip, "
            "so small stakes pay a higher effective commission. Banker RTP by stake (in lowest chips):",
            "",
        ]
        picks = commission[commission["stake"].isin([1, 2, 3, 4, 5, 6, 7, 9, 10, 11, 15, 20, 21, 25, 50, 99, 100])]
        shown = pd.DataFrame(
            {
                "stake": picks["stake"].map(lambda v: f"{v:g}"),
                "commission": picks["commission"].map(lambda v: f"{v:g}"),
                "effective rate": [_pct(v, 3) for v in picks["effective_rate"]],
                "Banker RTP": [_pct(v) for v in picks["rtp"]],
            }
        )
        lines += [markdown_table(shown), "Full table: `commission.csv`.", ""]
        if "commission" in plots:
            lines += [f"![commission rounding]({plots['commission']})", ""]
    if len(findings["catalogue"]):
        lines += _catalogue_section(findings)
    return terminal_text("\n".join(lines))


def _catalogue_section(findings: dict) -> list[str]:
    """Markdown lines: every catalogue bet against its published figure, one table per rule set."""
    catalogue = findings["catalogue"]
    verdicts = catalogue["reproduced"]
    differs = catalogue[verdicts.eq(False)]
    lines = [
        "## Side-bet catalogue: published side bets against their published house edges",
        "",
        f"{len(catalogue)} published side bets in {catalogue['rules'].nunique()} rule sets (`catalogue-*`). For "
        "each: its pay table, our exact house edge (a freshly shuffled shoe of the rule set's decks) and the house "
        "edge its source publishes (the rule set's `stated_rtp`, 1 - the published edge), at the digits published. "
        f"{int(verdicts.eq(True).sum())} are reproduced to every digit published, {len(differs)} are not "
        f"({', '.join(f'`{b}`' for b in differs['bet'])}; the notes under each table say why) and "
        f"{int(verdicts.isna().sum())} have no published figure. `python -m baccarat_sim.rtp --exact --rules "
        "catalogue-NAME --check` prices a family and checks it; `tests/test_catalogue.py` pins every figure with "
        "its source.",
        "",
    ]
    for rules_id, group in catalogue.groupby("rules", sort=False):
        rules = findings["reports"][rules_id].rules
        shown = pd.DataFrame(
            {
                "bet": [f"`{b}`" for b in group["bet"]],
                "name": group["name"],
                "pays": group["pays"],
                "house edge (exact)": [_pct(v) for v in group["house_edge"]],
                "published house edge": ["none published" if pd.isna(v) else v for v in group["published"]],
                "verdict": ["-" if pd.isna(v) else "reproduced" if v else "**differs**" for v in group["reproduced"]],
            }
        )
        lines += [f"### {rules.name} (`{rules_id}`)", "", f"Source: {rules.source}.", "", markdown_table(shown)]
        unsettled = [b for b, v in zip(group["bet"], group["reproduced"]) if pd.isna(v) or not v]
        notes = [line for line in rules.assumptions if any(f"`{b}`" in line for b in unsettled)]
        lines += [f"- {line}" for line in notes] + ([""] if notes else [])
    return lines


def write_findings(out_dir: str | Path = "results/findings", rule_names: list[str] | None = None) -> list[Path]:
    """Compute the findings and write the page, tables and plots into ``out_dir`` (as one set of files)."""
    findings = build_findings(rule_names)
    files, plots = {}, {}
    for rules_id, report in findings["reports"].items():
        if rules_id.startswith(CATALOGUE_PREFIX):
            continue  # the catalogue's figures are in its tables, against the published ones
        # One panel: an exact-only report has no Monte Carlo spread to zoom into.
        fig = new_figure(8, 1.2 + 0.35 * len(report.table))
        plot_bet_rtp(report, ax=fig.add_subplot())
        fig.suptitle(f"{report.rules.name}: exact RTP per bet", fontsize="medium")
        files[f"{rules_id}.png"] = lambda path, fig=fig: fig.savefig(path, dpi=90, format="png")
        plots[rules_id] = f"{rules_id}.png"
    commission = findings["commission"]
    if commission is not None:
        fig = new_figure(7, 3.5)
        ax = fig.add_subplot()
        ax.plot(commission["stake"], 100 * commission["rtp"], ".-", lw=0.8)
        ax.axhline(100 * commission["rtp"].iloc[-1], color="0.5", lw=0.6)
        ax.set_xlabel("Banker stake (lowest chips)")
        ax.set_ylabel("Banker RTP (%)")
        ax.set_title("Commission rounded up to a quarter chip", fontsize="medium")
        ax.grid(alpha=0.3)
        files["commission-rounding.png"] = lambda path, fig=fig: fig.savefig(path, dpi=90, format="png")
        plots["commission"] = "commission-rounding.png"
        files["commission.csv"] = lambda path: path.write_text(csv_text(commission, index=False))
    files["bets.csv"] = lambda path: path.write_text(csv_text(findings["bets"], index=False))
    files["claims.csv"] = lambda path: path.write_text(csv_text(findings["claims"], index=False))
    files["catalogue.csv"] = lambda path: path.write_text(csv_text(findings["catalogue"], index=False))
    payload = {
        "bets": findings["bets"].to_dict(orient="records"),
        "claims": findings["claims"].to_dict(orient="records"),
        "catalogue": findings["catalogue"].to_dict(orient="records"),
        "commission": None if commission is None else commission.to_dict(orient="records"),
    }
    files["findings.json"] = lambda path: path.write_text(json.dumps(clean_json(payload), indent=2) + "\n")
    page = _page(findings, plots)
    files["README.md"] = lambda path: path.write_text(page)
    return write_file_set(out_dir, files)
