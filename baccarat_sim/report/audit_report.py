"""The audit report rendered: text, JSON, CSV, Markdown, PNG control charts and an HTML page.

The JSON is a contract (docs/reference/schemas/audit.schema.json). Text, CSV, Markdown,
PNG control charts and one HTML page a manager opens in a browser. It only renders an
:class:`~baccarat_sim.analysis.audit.AuditReport`.
"""

from __future__ import annotations

import base64
import html
import io
import json

import pandas as pd

from .render import clean_json, csv_text, markdown_table

__all__ = ["JSON_VERSION", "audit_files", "audit_json", "audit_markdown", "audit_text", "hold_chart"]

JSON_VERSION = 1
#: Most flags the HTML page lists (all are in audit-flags.csv).
MAX_HTML_FLAGS = 300


def audit_json(report) -> dict:
    """The report as the JSON contract."""
    return clean_json({"kind": "audit", "version": JSON_VERSION, "scope": report.scope,
                       "integrity": report.integrity, "actual": report.actual, "hold": report.hold,
                       "advantage": report.advantage, "flags": report.flags()})


def _flag_frame(report) -> pd.DataFrame:
    return pd.DataFrame(report.flags(), columns=["part", "what", "where", "detail"])


def audit_text(report) -> str:
    """The report for a terminal: the scope, every flag, and the method lines."""
    s = report.scope
    lines = [f"audit of {s['rounds']:,} rounds, {s['bets']:,} bets, {s['results']:,} table results; "
             f"{len(s['tables'])} tables, {s['first_day']} to {s['last_day']}; rule sets {', '.join(s['rule_sets'])}"]
    flags = report.flags()
    by_part = {part: sum(1 for f in flags if f["part"] == part) for part in ("integrity", "actual", "hold",
                                                                            "advantage")}
    lines.append("flags: " + ", ".join(f"{part} {n}" for part, n in by_part.items()))
    for f in flags:
        lines.append(f"  [{f['part']}] {f['what']}: {f['where']}: {f['detail']}")
    investigate = [p for p in report.hold["periods"] if p["investigate"]]
    lines.append(f"hold: {len(investigate)} of {len(report.hold['periods'])} periods outside their 95% range "
                 "(about 5% of clean periods are)")
    lines.append("multiple testing: " + report.actual["multiple_testing"])
    return "\n".join(lines) + "\n"


def audit_markdown(report) -> str:
    """The report as Markdown: the flags table and the bets' actual against theoretical over all rounds."""
    bets = pd.DataFrame([r for r in report.actual["bets"] if r["by"] == "all"])
    parts = ["# Audit", "", audit_text(report).splitlines()[0], "", "## Flags", "", markdown_table(_flag_frame(report))]
    if not bets.empty:
        parts += ["", "## Actual against theoretical", "",
                  markdown_table(bets[["rule_set", "bet", "bets", "actual_rtp", "theoretical_rtp", "actual_hit",
                                       "theoretical_hit", "p_rtp", "p_hit", "method", "flag"]])]
    return "\n".join(parts) + "\n"


def hold_chart(report, rule_set: str, period: str = "day"):
    """A control chart: the floor's hold per period with the expected hold and the 95% and 99% ranges."""
    from matplotlib.figure import Figure

    rows = [p for p in report.hold["periods"] if p["rule_set"] == rule_set and p["period"] == period
            and p["table"] == "all tables" and p["range_95"] is not None]
    figure = Figure(figsize=(9, 4))
    axes = figure.add_subplot()
    x = list(range(len(rows)))
    axes.fill_between(x, [r["range_99"][0] for r in rows], [r["range_99"][1] for r in rows], color="#dde7f3",
                      label="99% range")
    axes.fill_between(x, [r["range_95"][0] for r in rows], [r["range_95"][1] for r in rows], color="#b7cde8",
                      label="95% range")
    axes.plot(x, [r["expected_hold"] for r in rows], color="#333", lw=1, label="expected hold")
    colours = ["#c0392b" if r["investigate"] else "#1f4e79" for r in rows]
    axes.scatter(x, [r["hold"] for r in rows], c=colours, s=14, zorder=3, label="hold (red: investigate)")
    axes.set_xticks(x[:: max(1, len(x) // 10)], [rows[i]["label"] for i in x[:: max(1, len(x) // 10)]],
                    fontsize=7, rotation=30)
    axes.set_ylabel("hold on drop")
    axes.set_title(f"{rule_set}: hold on drop by {period}, all tables")
    axes.legend(fontsize=7, loc="upper right")
    figure.tight_layout()
    return figure


def _png(figure) -> bytes:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=100)
    return buffer.getvalue()


def _html_table(frame: pd.DataFrame) -> str:
    return frame.to_html(index=False, escape=True, border=0, classes="t", float_format=lambda v: f"{v:.4g}")


def audit_html(report, charts: dict[str, bytes]) -> str:
    """The report as one self-contained HTML page (charts inlined)."""
    flags = _flag_frame(report)
    investigate = pd.DataFrame([{k: p[k] for k in ("rule_set", "table", "period", "label", "hold", "expected_hold",
                                                    "p")} for p in report.hold["periods"] if p["investigate"]])
    bets = pd.DataFrame([{k: r[k] for k in ("rule_set", "bet", "bets", "actual_rtp", "theoretical_rtp", "p_rtp",
                                            "p_hit", "flag")} for r in report.actual["bets"] if r["by"] == "all"])
    images = "".join(f'<h3>{html.escape(name)}</h3><img alt="{html.escape(name)}" src="data:image/png;base64,'
                     f'{base64.b64encode(png).decode()}">' for name, png in charts.items())
    summary = html.escape(audit_text(report).splitlines()[0])
    counts = (flags.groupby(["part", "what"]).size().reset_index(name="flags") if not flags.empty
              else pd.DataFrame(columns=["part", "what", "flags"]))
    # The rarer kinds first: a day of short-paid commission must not push a counter off the page.
    frequency = flags.groupby(["part", "what"])["detail"].transform("size") if not flags.empty else flags.index
    shown = flags.assign(_n=frequency).sort_values("_n", kind="stable").drop(columns="_n").head(MAX_HTML_FLAGS)
    more = (f"<p>{len(flags) - MAX_HTML_FLAGS:,} more in audit-flags.csv</p>" if len(flags) > MAX_HTML_FLAGS
            else "")
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Audit report</title>
<style>body{{font-family:sans-serif;margin:2em;color:#222}} table.t{{border-collapse:collapse;font-size:13px}}
table.t td,table.t th{{border-bottom:1px solid #ccc;padding:3px 8px;text-align:left}} img{{max-width:100%}}</style>
</head><body>
<h1>Audit report</h1>
<p id="summary">{summary}</p>
<h2 id="summary-flags">Flags by kind</h2>
{_html_table(counts) if not counts.empty else "<p>no flag</p>"}
<h2 id="hold">Hold on drop: periods to investigate ({len(investigate)})</h2>
{_html_table(investigate) if not investigate.empty else "<p>none</p>"}
{images}
<h2 id="flags">Flags ({len(flags)})</h2>
{_html_table(shown)}
{more}
<h2 id="actual">Actual against theoretical</h2>
{_html_table(bets) if not bets.empty else "<p>no bets logged</p>"}
<p>{html.escape(report.actual["multiple_testing"])}</p>
</body></html>
"""


def audit_files(report, plots: bool = True) -> dict:
    """The report's files, name to writer (for :func:`baccarat_sim.report.files.write_files`)."""
    charts = {}
    if plots:
        for rule_set in report.hold["rule_sets"]:
            charts[f"hold-{rule_set}-day.png"] = _png(hold_chart(report, rule_set, "day"))
    files = {
        "audit.json": _text(json.dumps(audit_json(report), indent=2) + "\n"),
        "audit.txt": _text(audit_text(report)),
        "audit.md": _text(audit_markdown(report)),
        "audit-flags.csv": _text(csv_text(_flag_frame(report), index=False)),
        "audit-bets.csv": _text(csv_text(pd.DataFrame(report.actual["bets"]), index=False)),
        "audit-hold.csv": _text(csv_text(pd.DataFrame(report.hold["periods"]).drop(
            columns=["range_95", "range_99"], errors="ignore"), index=False)),
        "audit.html": _text(audit_html(report, charts)),
    }
    for name, png in charts.items():
        files[name] = (lambda data: lambda path: path.write_bytes(data))(png)
    return files


def _text(text: str):
    return lambda path: path.write_text(text, encoding="utf-8")
