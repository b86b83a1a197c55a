"""The report of a run: per-bet tables (pandas) and their JSON, CSV, Markdown and text forms.

It renders a :class:`~baccarat_sim.analysis.run.RunResult` (computed by
:func:`~baccarat_sim.analysis.run.analyze_run`); :func:`build_report` does both.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import shutil
import textwrap

import pandas as pd

from ..analysis.run import MIN_ROUNDS_FOR_INTERVAL, STAKE_MARK, RunResult, analyze_run, main_bet_probabilities
from ..limits import MAX_PLOTTED_BETS
from ..model.amounts import amount_text
from ..model.histogram import OutcomeHistogram
from ..model.rules import Rules
from . import eor as eor_report
from . import jackpot as jackpot_report
from . import positions as positions_report
from .render import clean_json, csv_text, markdown_table, terminal_text, text_table

__all__ = ["MIN_ROUNDS_FOR_INTERVAL", "NOT_AVAILABLE", "STAKE_MARK", "Report", "build_report",
           "main_bet_probabilities"]

#: What a text, Markdown or CSV report shows for a figure that cannot be given yet (JSON: null).
NOT_AVAILABLE = "n/a"


@dataclasses.dataclass(frozen=True, eq=False)
class Report:
    """A run's result as the tables, text, Markdown, JSON and CSV people read.

    Attributes
    ----------
    result : RunResult
        What the run found (:func:`baccarat_sim.analysis.run.analyze_run`); its
        fields read through: ``rules``, ``exact``, ``mc``, ``run``, ``claims``,
        ``positions``, ``eor`` and ``by_stake``.
    table : DataFrame
        One row per bet (index: bet id), the result's figures as columns.
    """

    result: RunResult

    @property
    def rules(self) -> Rules:
        """The rule set."""
        return self.result.rules

    @property
    def exact(self) -> OutcomeHistogram:
        """Exact histogram of the same shoe (fresh shuffle)."""
        return self.result.exact

    @property
    def mc(self) -> OutcomeHistogram | None:
        """The Monte Carlo histogram, or None for an exact-only report."""
        return self.result.mc

    @property
    def run(self) -> dict:
        """Header: rule set, model, decks, rounds, shoes, seed, threads, timing, notes."""
        return self.result.run

    @property
    def claims(self) -> list:
        """The stated-RTP checks."""
        return self.result.claims

    @property
    def positions(self):
        """Dealt-model runs: the :class:`~baccarat_sim.analysis.positions.PositionAnalysis` (else None)."""
        return self.result.positions

    @property
    def eor(self):
        """``--eor``: the :class:`~baccarat_sim.analysis.eor.EffectOfRemoval` (else None)."""
        return self.result.eor

    @property
    def by_stake(self) -> dict:
        """The bets whose RTP depends on the stake (a rounded commission): bet id to its ``StakeDependence``."""
        return self.result.by_stake

    @functools.cached_property
    def table(self) -> pd.DataFrame:
        """One row per bet (index: bet id): every :class:`~baccarat_sim.analysis.run.BetFigures` field a column."""
        table = pd.DataFrame([dataclasses.asdict(figures) for figures in self.result.bets]).set_index("id")
        if self.positions is not None:  # dealt model: the capped RTP and its CI
            table = table.join(positions_report.table_columns(self.positions))
        return table

    def bets_json(self) -> list[dict]:
        """Per-bet records of the JSON contract."""
        records = []
        stated_holds = {c.claim.bet: c.holds for c in self.claims if c.claim.what == "bet"}
        for bet_id, row in self.table.iterrows():
            record = {
                "id": bet_id,
                "name": row["name"],
                "rtp": row["rtp"],
                "house_edge": row["house_edge"],
                "hit_frequency": row["hit_frequency"],
                "sd": row["sd"],
                "ci95": None if pd.isna(row["ci95_low"]) else [row["ci95_low"], row["ci95_high"]],
                "exact_rtp": row["exact_rtp"],
                "stated_rtp": None if pd.isna(row["stated_rtp"]) else row["stated_rtp"],
                "z": None if pd.isna(row["z"]) else row["z"],
                "se": None if pd.isna(row["se"]) else row["se"],
                "push_frequency": row["push_frequency"],
                "rounds_for_0_01pct_ci": row["rounds_for_0_01pct_ci"],
                "max_round": None if pd.isna(row["max_round"]) else int(row["max_round"]),
                "exact_house_edge": -row["exact_ev"],
                "stated_holds": stated_holds.get(bet_id),
                "se_method": None if pd.isna(row["se"]) else row["se_method"],
                "pays_more_than_staked": bet_id in self.result.paying_more_than_staked,
            }
            record.update(self._stake_fields(bet_id, row))
            if self.positions is not None:
                record.update(positions_report.bet_fields(self.positions, bet_id))
            if self.eor is not None:
                record.update(eor_report.bet_fields(self.eor, bet_id))
            if bet_id in self.result.jackpots:  # only a bet that pays a jackpot has the object
                record["jackpot"] = jackpot_report.bet_fields(self.result.jackpots[bet_id],
                                                              self.result.mc_jackpots.get(bet_id))
            records.append(record)
        return records

    def _stake_fields(self, bet_id: str, row) -> dict:
        """A bet's JSON fields on its RTP by stake (a rounded commission): amounts in the table's money."""
        found = self.by_stake.get(bet_id)
        return {
            "rtp_depends_on_stake": found is not None,
            "min_stake": float(row["min_stake"]),
            "rtp_at_min_stake": row["rtp_at_min_stake"],
            # The nominal figures (rtp, exact_rtp) hold at stakes that are multiples of this, and at no other.
            "rtp_holds_at_stake_multiples_of": None if found is None else float(found.holds_at_multiples_of),
            "lowest_chip": None if found is None else float(found.lowest_chip),
            "rtp_by_stake": None if found is None else [{"stake": float(r.stake), "rtp": r.rtp}
                                                        for r in found.by_stake],
        }

    def plotted_bets(self, limit: int = MAX_PLOTTED_BETS) -> list[str]:
        """Ids of the bets the per-bet figures show, in the rule file's order: all, or the ``limit`` most worth a look.

        Figures stay bounded in time and memory whatever the number of bets.
        First come the bets whose stated RTP the exact one contradicts, then
        (Monte Carlo) those furthest from exact, by ``|z|``; ties, and an
        exact-only report, keep the rule file's order.
        """
        ids = list(self.table.index)
        if len(ids) <= limit:
            return ids
        failed = {c.claim.bet for c in self.claims if c.claim.what == "bet" and not c.holds}
        distance = self.table["z"].abs().fillna(-1.0).to_numpy()  # n/a last
        ranked = sorted(range(len(ids)), key=lambda i: (ids[i] not in failed, -distance[i], i))
        keep = set(ranked[:limit])
        return [bet_id for i, bet_id in enumerate(ids) if i in keep]

    def to_dict(self) -> dict:
        """The ``--format json`` object: ``{"run": {...}, "bets": [...], "claims": [...]}``."""
        return clean_json(
            {
                "run": self.run,
                "bets": self.bets_json(),
                "claims": [
                    {"claim": c.claim.text or c.subject, "subject": c.subject, "stated": c.stated,
                     "computed": c.computed, "holds": c.holds}
                    for c in self.claims
                ],
            }
        )

    def to_json(self) -> str:
        """JSON text of :meth:`to_dict`."""
        return json.dumps(self.to_dict(), indent=2)

    def display_table(self) -> pd.DataFrame:
        """The table people read: strings, percentages, rounded (index: bet id).

        Monte Carlo RTP and house edge carry their 95% CI as ``± half-width``
        (the interval is symmetric); exact-only reports show more digits.
        """
        t = self.table
        shown = pd.DataFrame(index=t.index)
        shown["bet"] = t["name"]

        def pct(col, digits=4):
            return t[col].map(lambda v: "" if pd.isna(v) else f"{100 * v:.{digits}f}")

        if self.mc is not None:
            half = 100 * (t["ci95_high"] - t["ci95_low"]) / 2
            ci = half.map(lambda v: f" ± {NOT_AVAILABLE}" if pd.isna(v) else f" ± {v:.4f}")
            shown["RTP % (95% CI)"] = pct("rtp") + ci
            shown["edge %"] = pct("house_edge")
            shown["exact %"] = pct("exact_rtp")
        else:
            shown["RTP %"] = pct("rtp", 6)
            shown["edge %"] = pct("house_edge", 6)
        failed = {c.claim.bet for c in self.claims if c.claim.what == "bet" and not c.holds}
        shown["stated"] = [("" if text is None or pd.isna(text) else text) + (" *" if bet_id in failed else "")
                           for bet_id, text in zip(t.index, t["stated_text"])]
        if self.by_stake:
            # An RTP that depends on the stake is marked, with the stakes it holds at and the minimum stake's.
            rtp_column = shown.columns[1]
            shown[rtp_column] = [text + (f" {STAKE_MARK}" if bet_id in self.by_stake else "")
                                 for bet_id, text in zip(t.index, shown[rtp_column])]
            multiples = {bet_id: found.holds_at_multiples_of for bet_id, found in self.by_stake.items()}
            shown["RTP at stakes"] = [f"{amount_text(multiples[bet_id])}, {amount_text(2 * multiples[bet_id])}, …"
                                      if bet_id in multiples else "all" for bet_id in t.index]
            shown[f"RTP % at min {amount_text(self.rules.limits.min_bet)}"] = pct("rtp_at_min_stake",
                                                                             6 if self.mc is None else 4)
        if self.mc is not None:
            shown["z"] = t["z"].map(lambda v: NOT_AVAILABLE if pd.isna(v) else f"{v:+.2f}")
        shown["hit %"] = pct("hit_frequency")
        if self.mc is None:
            shown["push %"] = pct("push_frequency")
        shown["SD"] = t["sd"].map(lambda v: f"{v:.4f}")
        shown["rounds ±0.01%"] = t["rounds_for_0_01pct_ci"].map(_sci)
        return shown

    def header_lines(self) -> list[str]:
        """Human-readable header of the run: rule set, shoe, rounds, seed, threads, timing."""
        r = self.run
        lines = [f"rule set  {r['rules']}: {self.rules.name}  (sha256 {str(r.get('rules_sha256', ''))[:12]})"]
        model = {"fresh": "shuffled before every round", "dealt": "dealt through to the cut card",
                 "exact": "exact, every ordering of a freshly shuffled shoe"}.get(r["model"], r["model"])
        lines.append(f"shoe      {r['decks_text']}, {model}")
        if r.get("removed"):
            lines.append(f"removed   {r['removed']} (--remove: the shoe above is what is left)")
        if r.get("from_histogram"):
            lines.append(f"settled   the saved histogram {r['from_histogram']}")
        if self.mc is not None:
            rounds = f"{r['rounds']:,}"
            if r.get("complete") is False:
                requested = r.get("rounds_requested")
                rounds += (f" of {requested:,} requested" if isinstance(requested, int) and requested else "") + \
                    " (stopped early: a partial result)"
            if r["model"] == "dealt":
                rounds += f" in {r['shoes']:,} shoes"
            if r.get("resumed_from_rounds"):
                rounds += f", resumed at {r['resumed_from_rounds']:,}"
            lines.append(f"rounds    {rounds}")
            cluster = (f"   dask: {r.get('workers')} workers via {r.get('scheduler')}" if r.get("backend") == "dask"
                       else "")
            threads = f"   threads {r['threads']}" if r.get("threads") else ""
            lines.append(f"seed      {r['seed']}{threads}{cluster}")
            timing = f"time      {_seconds(r.get('seconds'))} wall"
            if r.get("wall_rounds_per_second"):
                timing += f", {r['wall_rounds_per_second'] / 1e6:,.1f} M rounds/s"
            if r.get("rounds_per_second"):
                timing += f" (kernel {r['rounds_per_second'] / 1e6:,.1f} M rounds/s)"
            lines.append(timing)
        lines.append(
            f"exact     P(Banker) {r['banker_win']:.6f}  P(Player) {r['player_win']:.6f}  P(Tie) {r['tie']:.6f}"
        )
        if self.mc is not None and r["model"] == "dealt":
            every = r.get("rounds_in_every_shoe")
            lines.append("note      exact % and z refer to a freshly shuffled shoe; the cut card moves a dealt shoe's "
                         "figures away from it" + (f" (--check tests rounds 1-{every}, which every shoe deals and "
                                                   "whose exact figures these are)" if every else ""))
        return lines

    def caveats(self) -> list[tuple[str, list[str]]]:
        """The report's caveats as (title, items): stated-RTP checks, notes, assumptions; the same in every format."""
        sections = [("stated RTP checks:", [c.reason for c in self.claims]),
                    ("jackpots (exact):", [jackpot_report.jackpot_line(figures)
                                           for figures in self.result.jackpots.values()]),
                    ("notes:", list(self.run.get("notes") or [])),
                    ("assumed where the rule sheet is silent:", list(self.run.get("assumptions") or []))]
        return [(title, items) for title, items in sections if items]

    def to_text(self, width: int | None = None) -> str:
        """Header, table and caveats as plain text, at most ``width`` columns wide.

        ``width`` defaults to the terminal's (``COLUMNS`` or the window, else
        120); long header lines, bet names and notes wrap at word boundaries.
        """
        width = max(60, shutil.get_terminal_size((120, 24)).columns) if width is None else width
        shown = self.display_table()
        header = [wrapped for line in self.header_lines()
                  for wrapped in textwrap.wrap(line, width, subsequent_indent=" " * 10, break_on_hyphens=False)]
        lines = header + [""] + text_table(shown, width)
        if any(" *" in v for v in shown["stated"]):
            lines.append("* the exact RTP contradicts the stated one at the sheet's precision")
        for title, items in self.caveats():
            lines += ["", title] + [textwrap.fill(item, width, initial_indent="  ", subsequent_indent="    ")
                                    for item in items]
        if self.positions is not None:
            lines += ["", positions_report.positions_text(self.positions, width)]
        if self.eor is not None:
            lines += ["", eor_report.eor_text(self.eor)]
        return terminal_text("\n".join(lines))  # names and notes come from the rule file

    def to_markdown(self) -> str:
        """Header and table as Markdown."""
        shown = self.display_table()
        header = "\n".join(f"- {line}" for line in self.header_lines())
        caveats = "".join(f"\n### {title[0].upper()}{title[1:-1]}\n\n" + "".join(f"- {item}\n" for item in items)
                          for title, items in self.caveats())
        text = f"## {self.rules.name}\n\n{header}\n\n{markdown_table(shown)}" + caveats + (
            "\n" + positions_report.positions_markdown(self.positions) if self.positions is not None else "")
        if self.eor is not None:
            text += "\n" + eor_report.eor_markdown(self.eor)
        return terminal_text(text)  # names and notes come from the rule file

    def to_csv(self) -> str:
        """The per-bet table as CSV, with run metadata in each row."""
        frame = self.table.drop(columns=["stated_text"]).copy()
        if self.result.jackpots:  # the columns only where a bet pays a jackpot; empty for the other bets
            rows = {bet_id: jackpot_report.csv_row(figures) for bet_id, figures in self.result.jackpots.items()}
            for column in jackpot_report.CSV_COLUMNS:
                frame[column] = [rows[bet_id][column] if bet_id in rows else None for bet_id in frame.index]
        for key in ("rules", "model", "decks", "rounds", "shoes", "seed", "threads", "version", "rules_sha256"):
            frame[key] = self.run.get(key)
        if self.mc is not None:  # a Monte Carlo figure that cannot be given yet says so (read back as NaN)
            for column in ("ci95_low", "ci95_high", "z", "se", "rounds_for_0_01pct_ci"):
                frame[column] = frame[column].astype(object).where(frame[column].notna(), NOT_AVAILABLE)
        return csv_text(frame, index_label="id")


def _sci(value) -> str:
    """3.48e8 rather than 3.48e+08: short, and still read by float()."""
    if pd.isna(value):
        return NOT_AVAILABLE
    mantissa, exponent = f"{value:.2e}".split("e")
    return f"{mantissa}e{int(exponent)}"


def _seconds(value) -> str:
    if value is None:
        return "-"
    return f"{value:.2f} s" if value < 120 else f"{value / 60:.1f} min" if value < 7200 else f"{value / 3600:.2f} h"


def build_report(rules: Rules, exact: OutcomeHistogram, mc: OutcomeHistogram | None = None,
                 run: dict | None = None, unpriced: dict[str, str] | None = None) -> Report:
    """Settle every bet of ``rules`` exactly (and by Monte Carlo) and report it: :func:`analyze_run`, rendered."""
    return Report(analyze_run(rules, exact, mc, run, unpriced))
