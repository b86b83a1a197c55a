"""Every dotted name ``baccarat_sim.x.y`` a page writes imports or resolves (issue 41, item 7).

A page naming a module that was moved or renamed (``baccarat_sim.conditions``
for ``baccarat_sim.model.conditions``) sends a reader to nothing; this test
reads README.md, every page under docs/ and every Markdown file the package and
results/ carry, and resolves each name: the longest prefix that imports as a
module, then attributes.
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: A dotted name: the package, then identifiers joined by dots (a sentence's final dot is not part of it).
DOTTED = re.compile(r"\bbaccarat_sim(?:\.[A-Za-z_][A-Za-z0-9_]*)+")


def pages() -> list[Path]:
    """README.md, docs/**/*.md and every Markdown file under baccarat_sim/ and results/."""
    found = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    for folder in ("baccarat_sim", "results"):
        found += sorted((ROOT / folder).rglob("*.md"))
    return found


def resolves(name: str) -> bool:
    """Whether ``name`` is a module, or an attribute path below the longest module prefix that imports."""
    parts = name.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            target = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for attribute in parts[cut:]:
            if not hasattr(target, attribute):
                return False
            target = getattr(target, attribute)
        return True
    return False


@pytest.mark.parametrize("page", pages(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_dotted_name_on_the_page_resolves(page):
    text = page.read_text()
    broken = sorted({m.group(0) for m in DOTTED.finditer(text) if not resolves(m.group(0))})
    assert broken == [], f"{page.relative_to(ROOT)} names what does not import: {', '.join(broken)}"


def test_the_check_finds_a_moved_module_and_a_missing_attribute():
    assert resolves("baccarat_sim.model.conditions") and resolves("baccarat_sim.model.rules.load_rules")
    assert resolves("baccarat_sim.commission_table")  # the package's own export
    assert not resolves("baccarat_sim.conditions")
    assert not resolves("baccarat_sim.model.rules.no_such_function")
    assert DOTTED.findall("by `baccarat_sim.model.conditions`. Then baccarat_sim.rtp.") == [
        "baccarat_sim.model.conditions", "baccarat_sim.rtp"]
