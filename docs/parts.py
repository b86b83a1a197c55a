"""Generated parts of hand-written pages: counts and lists that come from the code, between markers.

A hand-written page (README.md, a page under docs/, a package reference) may
hold a part that another source owns, a count of catalogue bets or a table of
benchmark figures, between two markers, inline or as a block::

    a catalogue of <!-- generated: catalogue-bets -->148 published side bets<!-- /generated: catalogue-bets -->

``python docs/generate.py`` writes each part from the function :data:`PARTS`
names for it, so that the count cannot drift from the rule files; ``--check``
and ``tests/test_docs_generated.py`` fail when a committed part differs. The
markers are HTML comments: invisible on a code host and on the site.
"""

from __future__ import annotations

import functools
import importlib.util
import re
import sys
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent

_PART = re.compile(r"<!-- generated: ([\w-]+) -->(.*?)<!-- /generated: \1 -->", re.S)
_OPENING = re.compile(r"<!-- generated: ([\w-]+) -->")


def pages() -> list[Path]:
    """The pages that may hold generated parts: README.md, docs/**/*.md and the package's Markdown files."""
    return [ROOT / "README.md", *sorted(HERE.rglob("*.md")), *sorted((ROOT / "baccarat_sim").rglob("*.md"))]


def has_parts(text: str) -> bool:
    """Whether a page holds a generated part."""
    return _OPENING.search(text) is not None


def fill(text: str, where: str = "page") -> str:
    """The text with every generated part written afresh (ValueError for an unknown or unclosed part)."""
    opened = _OPENING.findall(text)
    closed = _PART.findall(text)
    if len(opened) != len(closed):
        unclosed = sorted(set(opened) - {name for name, _ in closed}) or opened
        raise ValueError(f"{where}: a generated part is not closed (<!-- /generated: NAME -->): {unclosed}")

    def write(match: re.Match) -> str:
        name, old = match.group(1), match.group(2)
        if name not in PARTS:
            raise ValueError(f"{where}: no generated part {name!r}; known: {', '.join(sorted(PARTS))}")
        body = PARTS[name]()
        if old.startswith("\n"):  # a block part: its body on lines of its own
            body = f"\n{body.strip()}\n"
        return f"<!-- generated: {name} -->{body}<!-- /generated: {name} -->"

    return _PART.sub(write, text)


def names_used() -> dict[str, list[str]]:
    """Part name -> the pages that hold it."""
    used: dict[str, list[str]] = {}
    for page in pages():
        for name in _OPENING.findall(page.read_text()):
            used.setdefault(name, []).append(str(page.relative_to(ROOT)))
    return used


# --- the side-bet catalogue: counts and the list, from the catalogue rule files -----------------------------------


@functools.cache
def catalogue_rows() -> tuple[dict, ...]:
    """Every catalogue bet against its published figure (the findings' catalogue rows), priced exactly."""
    from baccarat_sim.analysis.findings import CATALOGUE_PREFIX, build_findings
    from baccarat_sim.model.rules import available_rules

    names = [name for name in available_rules() if name.startswith(CATALOGUE_PREFIX)]
    return tuple(build_findings(names).catalogue)


def _counts() -> dict[str, int]:
    rows = catalogue_rows()
    verdicts = [row["reproduced"] for row in rows]
    return {"bets": len(rows), "files": len({row["rules"] for row in rows}),
            "published": sum(v is not None for v in verdicts), "reproduced": sum(v is True for v in verdicts),
            "differ": sum(v is False for v in verdicts), "unpublished": sum(v is None for v in verdicts)}


def _plural(count: int, one: str, many: str) -> str:
    return f"{count:,} {one if count == 1 else many}"


def catalogue_bets() -> str:
    """'148 published side bets'."""
    return _plural(_counts()["bets"], "published side bet", "published side bets")


def catalogue_size() -> str:
    """'148 published side bets in 23 rule files'."""
    counts = _counts()
    return f"{catalogue_bets()} in {_plural(counts['files'], 'rule file', 'rule files')}"


def catalogue_verdicts() -> str:
    """How many published figures hold, how many do not, how many bets have none."""
    counts = _counts()
    return (f"{counts['reproduced']:,} of the {_plural(counts['published'], 'published figure', 'published figures')}"
            f" reproduced to every digit printed, {counts['differ']:,} not, for reasons the rule files give; "
            f"{_plural(counts['unpublished'], 'bet has', 'bets have')} no published figure")


def _percent(fraction: float) -> str:
    return f"{100 * fraction:.6f}%"


def _bet_list(bets) -> str:
    return ", ".join(f"`{bet}`" for bet in bets) or "none"


def catalogue_unsettled() -> str:
    """The bets whose published figure does not hold, with the rule files' reasons, and those with none."""
    from baccarat_sim.model.rules import load_rules

    rows = catalogue_rows()
    differ = [row for row in rows if row["reproduced"] is False]
    lines = [f"Published figures that do not hold ({len(differ)}), with what each rule file says:", ""]
    for rules_id in dict.fromkeys(row["rules"] for row in differ):
        bets = [row["bet"] for row in differ if row["rules"] == rules_id]
        notes = [" ".join(note.split()) for note in load_rules(rules_id).assumptions
                 if any(f"`{bet}`" in note for bet in bets)]
        lines.append(f"- `{rules_id}`: " + (" ".join(notes) or f"{_bet_list(bets)}: the rule file gives no reason."))
    unpublished = [row for row in rows if row["reproduced"] is None]
    lines += ["", f"Bets with no published figure ({len(unpublished)}): {_bet_list(r['bet'] for r in unpublished)}."]
    return "\n".join(lines)


def catalogue_table() -> str:
    """Every catalogue bet: its exact house edge beside the published one, and the verdict (the findings' words)."""
    from baccarat_sim.model.rules import load_rules
    from baccarat_sim.report.findings import VERDICT_WORDS, at_meter

    lines = ["| rule file | bet | name | pays | exact house edge | published house edge | verdict |",
             "|---|---|---|---|---:|---:|---|"]
    sets: dict = {}  # rule set id -> Rules, each loaded once
    for row in catalogue_rows():
        verdict = VERDICT_WORDS.get(row["reproduced"], str(row["reproduced"]))
        if row["rules"] not in sets:
            sets[row["rules"]] = load_rules(row["rules"])
        rules = sets[row["rules"]]
        exact = _percent(row["house_edge"]) + at_meter(rules.bet(row["bet"]))
        cells = [f"`{row['rules']}`", f"`{row['bet']}`", row["name"], row["pays"], exact,
                 row["published"] or "", verdict]
        lines.append("| " + " | ".join(str(c).replace("|", "\\|") for c in cells) + " |")
    return "\n".join(lines)


def rule_sets_table() -> str:
    """Every shipped rule set: its id, its own name for itself and its bets' ids, in the order it lists them."""
    from baccarat_sim.model.rules import available_rules, load_rules

    sets = [load_rules(name) for name in available_rules()]
    # The rule sheets' and the other plain sets first, then the catalogue (the order a reader meets them).
    sets.sort(key=lambda rules: (rules.id.startswith("catalogue-"), rules.id))
    lines = ["| rule set | what it is | bets |", "| --- | --- | --- |"]
    for rules in sets:
        name = " ".join(rules.name.split()).replace("|", "\\|")
        lines.append(f"| `{rules.id}` | {name} | {', '.join(rules.bet_ids)} |")
    return "\n".join(lines)


def card_detail_limits() -> str:
    """The limits of one group of card-level bets, from the constants the code refuses a rule file by."""
    from baccarat_sim.engines.detail import MAX_CELLS
    from baccarat_sim.model.detail import MAX_GROUP_ATOMS
    from baccarat_sim.model.detail_tables import MAX_COMBINATIONS

    return (f"{MAX_CELLS:,} cells (combinations of their values times outcomes), {MAX_COMBINATIONS:,} combinations "
            f"of lookups and {MAX_GROUP_ATOMS:,} card-only conditions (atoms)")


@functools.cache
def _bench_table():
    """docs/bench_table.py, imported by its path (docs/ is not a package)."""
    spec = importlib.util.spec_from_file_location("docs_bench_table", HERE / "bench_table.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def _bench_current() -> str:
    return _bench_table().current_figures_table()


def _bench_headline() -> str:
    return _bench_table().headline_table()


#: Part name -> the function that writes it.
PARTS: dict[str, Callable[[], str]] = {
    "catalogue-bets": catalogue_bets,
    "catalogue-size": catalogue_size,
    "catalogue-verdicts": catalogue_verdicts,
    "catalogue-unsettled": catalogue_unsettled,
    "catalogue-table": catalogue_table,
    "rule-sets-table": rule_sets_table,
    "card-detail-limits": card_detail_limits,
    "bench-current": _bench_current,
    "bench-headline": _bench_headline,
}
