"""Counting results as tables, text, Markdown, CSV and JSON."""

from __future__ import annotations

import math

import pandas as pd

from ..analysis.counting import CountResult
from ..analysis.naming import run_name
from ..analysis.stats import Z95
from ..model.strategy import describe_tags
from .render import clean_json, csv_text, markdown_table, terminal_text

__all__ = ["count_csv", "count_dict", "count_frame", "count_markdown", "count_stem", "count_text"]


def count_frame(result: CountResult) -> pd.DataFrame:
    """One row per (scenario, bet, variant); fractions, not percents."""
    return pd.DataFrame(result.rows)


def count_dict(result: CountResult) -> dict:
    """JSON-ready: ``{"run": ..., "counts": ..., "results": [...]}`` (fractions, not percents).

    Each count has ``by`` (``rank``, ``colour``, ``suit`` or ``card``: the
    coarsest keys that give its tags exactly) and ``tags`` keyed that way
    (``{"A": .., "K": ..}``, ``{"black": .., "red": ..}``, ``{"spades": ..}``,
    ``{"As": .., "Kc": ..}``).
    """
    counts = {}
    for name, tags in result.tags.items():
        by, keyed = describe_tags(tags)
        entry = {"by": by, "tags": keyed}
        if name in result.derived:
            d = result.derived[name]
            entry.update(derived_from=d.bet, level=d.level, betting_correlation=d.betting_correlation,
                         break_even_true_count=d.break_even_true_count)
        counts[name] = entry
    records = []
    for row in result.rows:
        record = {k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in row.items()}
        record["advantage_ci95"] = [record.pop("advantage_ci95_low"), record.pop("advantage_ci95_high")]
        record["units_per_shoe_ci95"] = [record.pop("units_per_shoe_ci95_low"), record.pop("units_per_shoe_ci95_high")]
        records.append(record)
    return clean_json({"run": result.run, "counts": counts, "results": records})


def _pm(value: float, se: float, scale: float, digits: int, sign: bool = True) -> str:
    """``value ±half-width`` of a 95% CI, or ``n/a`` where no interval is available."""
    if math.isnan(value):
        return ""
    shown = f"{scale * value:{'+' if sign else ''}.{digits}f}"
    return shown + (" ±n/a" if math.isnan(se) else f" ±{scale * Z95 * se:.{digits}f}")


def _display(result: CountResult) -> pd.DataFrame:
    """The table people read: percentages, rounded."""
    t = count_frame(result)
    shown = pd.DataFrame(index=t.index)
    shown["scenario"] = t["scenario"]
    shown["bet"] = t["bet"]
    shown["offered in"] = t["variant"]
    shown["play"] = t["play"]
    shown["bet freq"] = [_pm(v, se, 100, 3, sign=False) + "%" for v, se in zip(t["bet_share"], t["bet_share_se"])]
    shown["adv/bet %"] = [_pm(a, se, 100, 2) for a, se in zip(t["advantage_per_bet"], t["advantage_se"])]
    shown["exact adv/bet %"] = [_pm(v, se, 100, 3)
                              for v, se in zip(t["exact_advantage_per_bet"], t["exact_advantage_se"])]
    shown["units/shoe"] = [_pm(u, se, 1, 4) for u, se in zip(t["units_per_shoe"], t["units_per_shoe_se"])]
    shown["units/100 rounds"] = t["units_per_100_rounds"].map(lambda v: f"{v:+.4f}")
    return shown


def _preparing(run: dict) -> str:
    """What the time line adds to the dealing: the strategy's preparation (derived counts), the whole command."""
    prepare, total = run.get("prepare_seconds"), run.get("total_seconds")
    what = "preparing the strategy (deriving its counts, the solver's tables)"
    if total is not None:
        return f"; {total:.2f} s in all, {prepare:.2f} s of them {what}"
    return "" if prepare is None else f"; {prepare:.2f} s {what}"


def _header(result: CountResult) -> list[str]:
    """Human-readable header of the run."""
    r = result.run
    shoes = f"{r['shoes']:,}" + ("" if r.get("complete", True) else f" of {r['shoes_requested']:,} (stopped early)")
    speed = f", {r['rounds_per_second'] / 1e6:.3f} M rounds/s" if r.get("rounds_per_second") else ""
    lines = [
        f"strategy   {r['strategy']} ({r['strategy_name']})",
        f"rule set   {r['rules']}, {r['cards']} cards, dealt to the cut card",
        f"shoes      {shoes}    seed {r['seed']}    threads {r['threads']}",
        f"time       {r['seconds']:.2f} s dealing{speed}" + _preparing(r),
    ]
    for name, tags in result.tags.items():
        by, keyed = describe_tags(tags)
        # Card by card, only the cards with a tag: 52 entries would not fit a line.
        text = " ".join(f"{key}:{tag:+g}" for key, tag in keyed.items() if by != "card" or tag)
        extra = ""
        if name in result.derived:
            d = result.derived[name]
            extra = (f"  (derived from {d.bet}, level {d.level}, betting correlation {d.betting_correlation:.3f}, "
                     f"break-even true count {d.break_even_true_count:+.2f})")
        lines.append(f"count      {name}: {text}{extra}")
    if r.get("skipped_bets"):
        lines.append(f"left out   {', '.join(r['skipped_bets'])} (\"*\" plays perfectly only the bets priced in "
                     "closed form: on scores, pairs, first cards or the first four cards' classes; name another "
                     "card-level bet to play it perfectly)")
    return lines


def count_text(result: CountResult) -> str:
    """Header and table as plain text."""
    return terminal_text("\n".join(_header(result) + ["", _display(result).to_string(index=False)]))


def count_csv(result: CountResult) -> str:
    """The full table as CSV (one row per scenario, bet and variant; fractions, not percents)."""
    frame = count_frame(result)
    for key in ("rules", "strategy", "seed", "cards", "threads"):
        frame[key] = result.run.get(key)
    return csv_text(frame, index=False)


def count_markdown(result: CountResult) -> str:
    """Header and table as Markdown."""
    header = "\n".join(f"- {line}" for line in _header(result))
    return terminal_text(f"## Counting: {result.run['strategy_name']}\n\n{header}\n\n"
                         f"{markdown_table(_display(result))}")


def count_stem(result: CountResult) -> str:
    """The name of a study's files: ``count-{strategy}-{rules}-{digest}-seed{N}``.

    Named as every run is (:mod:`~baccarat_sim.analysis.naming`). The digest
    covers the rule file and the strategy file (their SHA-256), the shoe, its
    dealing (burn, rounds after the cut card, the turned card seen), the cut
    cards compared and the bets played.
    """
    run = result.run
    composition = result.composition
    definition = {
        "rules_sha256": run["rules_sha256"], "strategy_sha256": run["strategy_sha256"],
        "shoe": run["cards"] if composition is None else [int(x) for x in composition.reshape(-1)],
        "dealing": [run["burn"], run["rounds_after_cut"], run["count_turned_card"]],
        "scenarios": run["scenarios"], "bets": sorted({row["bet"] for row in result.rows}),
    }
    return run_name(["count", run["strategy"], run["rules"]], definition, run["seed"])
