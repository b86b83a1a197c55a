"""Every example on every documentation page runs and prints what the page shows (issue 24).

The pages are README.md and docs/**/*.md; docs/examples.py says what an example
is, how it runs and which volatile fields (times, speeds, thread count, the
temporary folder) are masked. ``python docs/generate.py --examples`` rewrites
the outputs after an intended change.
"""

from __future__ import annotations

import json

import pytest

from .docs_tools import examples

PAGES = examples.pages()
#: Fence languages a page may use: the examples' and the shown-only ones (an unlabelled fence would hide an example).
SHOWN_ONLY = ("text", "json")


def _name(page):
    return str(page.relative_to(examples.ROOT))


@pytest.mark.parametrize("page", PAGES, ids=_name)
def test_page_examples_print_what_the_page_shows(page):
    failures = []
    for result in examples.run_page(page):
        if result.problem:
            failures.append(result.problem)
        elif not result.ok:
            failures.append(examples.difference(result.shown, result.actual, result.block.where))
    assert not failures, "\n".join(failures) + "\n(after an intended change: python docs/generate.py --examples)"


def test_every_fence_is_an_example_or_shown_only():
    for page in PAGES:
        text = page.read_text()
        for match in examples._FENCE.finditer(text):
            language, body = match.group(1), match.group(2)
            where = f"{_name(page)}:{text[:match.start()].count(chr(10)) + 1}"
            assert language in (*examples.EXAMPLE_LANGUAGES, *SHOWN_ONLY), f"{where}: fence language {language!r}"
            if language == "json":
                json.loads(body)  # a shown JSON document is at least JSON


def test_every_skipped_example_has_a_declared_reason_that_holds():
    problems = [examples.skip_reason_problem(block) for page in PAGES for block in examples.blocks(page)]
    assert [p for p in problems if p] == []


def test_only_declared_fields_are_masked():
    # The masks touch times, speeds, the thread count and the temporary folder: never a figure of a table.
    shown = ("seed      2024   threads 2\ntime      0.73 s wall, 137.9 M rounds/s\n"
             "Player                  98.7673 ± 0.0186   1.2327  98.7649\n")
    assert examples.mask(shown) == ("seed      2024   threads <n>\ntime      <time>\n"
                                    "Player                  98.7673 ± 0.0186   1.2327  98.7649\n")
    assert not examples.matches("rtp 98.7673\n", "rtp 98.7674\n")
    assert examples.matches("a\n...\nz\n", "a\nb\nc\nz\n") and not examples.matches("a\n...\nz\n", "a\nz\n")


def test_the_eor_table_and_its_tags_name_the_values_in_one_order():
    # The effect-of-removal example (advantage play) names the point values A..9, T in one order in its table and
    # in every tag line (issue 16).
    page = examples.ROOT / "docs" / "guide" / "advantage-play.md"
    block = next(b for b in examples.blocks(page) if "--eor" in b.text)
    shown = block.text.split("\n", 1)[1]
    columns = shown.splitlines()[1].split()[1:]
    assert columns == ["A", "2", "3", "4", "5", "6", "7", "8", "9", "T"]
    tag_lines = [line for line in shown.splitlines() if " level " in line]
    assert tag_lines
    for line in tag_lines:
        assert [tag[0] for tag in line.split(":", 1)[1].split("BC")[0].split()] == columns


def test_readme_and_ci_run_the_same_test_command():
    readme = (examples.ROOT / "README.md").read_text()
    ci = (examples.ROOT / ".ci" / "run").read_text()
    command = ci.split("# --- README test command (keep identical to README.md) ---\n", 1)[1].split("\n", 1)[0]
    assert f"```bash\n{command}\n```" in readme


def test_a_redirection_into_a_folder_no_example_made_fails_as_in_a_shell(tmp_path, monkeypatch):
    # Issue 41, item 14: the design guide redirected into baselines/, which a fresh clone does not have; the runner
    # created the folder a reader's shell would not, so the page's example passed where the reader's failed.
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ValueError, match="No such file or directory"):
        examples.run_command("python -m baccarat_sim.rtp --exact --format json > baselines/default.json")
    assert not (tmp_path / "baselines").exists()
    assert examples.run_command("python -m baccarat_sim.rtp --exact --format json > default.json") == (0, "")
    assert json.loads((tmp_path / "default.json").read_text())["bets"]


def test_a_page_runs_its_examples_in_an_empty_folder(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("```bash\npython -m baccarat_sim.rtp --exact --format json > README.md\n```\n"
                    "```bash\npython -m baccarat_sim.rtp --exact --baseline pyproject.toml\n```\n")
    # Nothing of the checkout is there: pyproject.toml is not found (bad input, exit 2), README.md is written afresh.
    results = examples.run_page(page)
    assert results[0].problem is None
    assert "exited 2" in results[1].problem
