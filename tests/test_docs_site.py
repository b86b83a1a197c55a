"""The documentation site builds with ``mkdocs build --strict``: no broken link, no missing page (issue 24).

The built pages are then read as a reader's browser gets them: no raw Sphinx
role left as text, one title per page, every section in its table of contents
(issue 41, items 10 and 11).
"""

from __future__ import annotations

import html
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: A Sphinx role as mkdocstrings leaves it when a docstring writes one (":func:`x`" shows as ":func:x").
RAW_ROLE = re.compile(r":(?:py:)?(?:func|class|mod|meth|data|attr|obj|exc|const|ref):[`~\w]")


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    pytest.importorskip("mkdocs")
    pytest.importorskip("material")
    pytest.importorskip("mkdocstrings")
    site_dir = tmp_path_factory.mktemp("docs") / "site"
    completed = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "--site-dir",
                                str(site_dir)], cwd=ROOT, capture_output=True, text=True, timeout=300,
                               env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    assert completed.returncode == 0, completed.stdout + completed.stderr
    return site_dir


def _pages(site_dir: Path) -> list[Path]:
    return sorted(p for p in site_dir.rglob("*.html") if p.name != "404.html")


def _visible_text(page: Path) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", page.read_text()))


def test_site_builds_strict(site):
    for page in ("index.html", "guide/design-a-side-bet/index.html", "reference/cli/index.html",
                 "reference/python-api/index.html", "results/findings/index.html", "development/index.html"):
        assert (site / page).is_file(), page


def test_no_page_shows_a_raw_sphinx_role(site):
    # Issue 41, item 10: the Python API page showed ":func:available_rules" as text, 15 times.
    shown = {str(p.relative_to(site)): RAW_ROLE.findall(_visible_text(p)) for p in _pages(site)}
    assert {page: roles for page, roles in shown.items() if roles} == {}
    assert RAW_ROLE.search("see :func:available_rules") and RAW_ROLE.search(":meth:~Run.open")
    assert not RAW_ROLE.search("python -m baccarat_sim.rtp --rules x.toml:2")


def test_every_page_has_one_title_and_every_section_in_its_table_of_contents(site):
    # Issue 41, item 11: the rule-file reference had two top-level headings, so Material's table of contents,
    # which lists the first heading's sections, was empty.
    problems = []
    for page in _pages(site):
        text = page.read_text()
        name = str(page.relative_to(site))
        if len(re.findall(r"<h1[ >]", text)) != 1:
            problems.append(f"{name}: {len(re.findall(r'<h1[ >]', text))} top-level headings")
        sections = re.findall(r'<h2 id="([^"]+)"', text)
        missing = [s for s in sections if f'href="#{s}" class="md-nav__link"' not in text]
        if missing:
            problems.append(f"{name}: sections not in the table of contents: {missing[:3]}")
    assert problems == []


@pytest.mark.parametrize("page", ["reference/rule-files/index.html", "reference/catalogue/index.html",
                                  "results/findings/index.html"])
def test_source_addresses_are_links(site, page):
    # Issue 41, item 11: the rule-file reference printed its sources' URLs as plain text.
    text = (site / page).read_text()
    article = text.split('<article class="md-content__inner md-typeset">', 1)[1].split("</article>", 1)[0]
    prose = re.sub(r"<a [^>]*>.*?</a>|<pre.*?</pre>|<code>.*?</code>", "", article, flags=re.S)
    assert "https://" in article
    assert re.findall(r"https?://\S{0,60}", html.unescape(re.sub(r"<[^>]+>", "", prose))) == []
