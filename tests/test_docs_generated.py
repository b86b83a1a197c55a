"""The generated reference pages are what docs/generate.py writes from their sources (issue 24)."""

from __future__ import annotations

import json
import re

import pytest

from .docs_tools import generate


@pytest.mark.parametrize("path", sorted(generate.GENERATED), ids=lambda p: p.name)
def test_committed_generated_page_is_current(path):
    assert path.read_text() == generate.GENERATED[path](), (
        f"{path.relative_to(generate.ROOT)} is stale: run python docs/generate.py")


def test_cli_reference_has_every_option_of_every_command():
    page = (generate.HERE / "reference" / "cli.md").read_text()
    for module_name in generate.cli_modules():
        command = __import__(module_name, fromlist=["COMMAND"]).COMMAND
        for action in command.build_parser(command.prog)._actions:
            for option in action.option_strings:
                assert f"`{option}`" in page, option


def test_cli_reference_states_each_command_once_and_lists_every_console_script():
    # Issue 41, item 12: each command's description appeared twice, in slightly different words.
    page = (generate.HERE / "reference" / "cli.md").read_text()
    for module_name in generate.cli_modules():
        command = __import__(module_name, fromlist=["COMMAND"]).COMMAND
        section = page.split(f"## `{command.prog}`\n", 1)[1].split("\n## ", 1)[0]
        prose = [line for line in section.split("\n### ", 1)[0].splitlines() if line.strip()]
        assert len(prose) == 1 and f"`{command.script}`" in prose[0], prose


def test_json_reference_opens_with_rtp():
    # Issue 41, item 12: rtp, the command used most, was listed last.
    page = (generate.HERE / "reference" / "json.md").read_text()
    titles = [line for line in page.splitlines() if line.startswith("## ")]
    assert titles[0] == "## `python -m baccarat_sim.rtp`"
    assert titles[:3] == ["## `python -m baccarat_sim.rtp`", "## `python -m baccarat_sim.rtp --count`",
                          "## `python -m baccarat_sim.rtp --sweep`"]


PARTED = [page for page in generate.parts.pages() if generate.parts.has_parts(page.read_text())]


@pytest.mark.parametrize("page", PARTED, ids=lambda p: str(p.relative_to(generate.ROOT)))
def test_committed_generated_parts_are_current(page):
    # Issue 41, item 6: counts written by hand drifted ("85 of the 90 published figures" when 111 of 116 held).
    text = page.read_text()
    assert generate.parts.fill(text) == text, f"{page.relative_to(generate.ROOT)} is stale: run python docs/generate.py"


def test_the_pages_hold_the_generated_counts_and_lists():
    used = generate.parts.names_used()
    assert set(used) == set(generate.parts.PARTS), "a part no page holds, or a page holding an unknown part"
    assert "README.md" in used["catalogue-verdicts"] and "docs/findings.md" in used["catalogue-table"]
    assert "docs/benchmarks.md" in used["bench-current"] and "README.md" in used["bench-headline"]


def test_no_page_writes_a_catalogue_count_by_hand():
    # The counts the catalogue's rule files give, written out anywhere outside a generated part, would drift again.
    counts = generate.parts._counts()
    outside = re.compile(r"<!-- generated: ([\w-]+) -->.*?<!-- /generated: \1 -->", re.S)
    for page in (p for p in generate.parts.pages() if p not in generate.GENERATED):  # a generated page is written
        text = outside.sub("", page.read_text())
        for phrase in (f"{counts['bets']} published", f"{counts['bets']} side bets", f"{counts['bets']} bets",
                       f"of the {counts['published']} published", f"{counts['files']} families"):
            assert phrase not in text, f"{page.relative_to(generate.ROOT)}: {phrase!r} written by hand"


def test_every_catalogue_bet_is_in_the_findings_list_with_both_edges():
    page = (generate.HERE / "findings.md").read_text()
    rows = generate.parts.catalogue_rows()
    counts = generate.parts._counts()
    assert counts["bets"] == len(rows) == counts["reproduced"] + counts["differ"] + counts["unpublished"]
    for row in rows:
        line = next(line for line in page.splitlines() if line.startswith(f"| `{row['rules']}` | `{row['bet']}` |"))
        assert f"{100 * row['house_edge']:.6f}%" in line and (row["published"] or "none published") in line


def test_a_part_is_filled_inline_or_as_a_block_and_a_mistake_is_refused():
    parts = generate.parts
    inline = "a catalogue of <!-- generated: catalogue-bets -->9 bets<!-- /generated: catalogue-bets -->, each"
    assert parts.fill(inline) == inline.replace("9 bets", parts.catalogue_bets())
    block = "x\n<!-- generated: catalogue-size -->\nold\n<!-- /generated: catalogue-size -->\ny"
    assert parts.fill(block) == f"x\n<!-- generated: catalogue-size -->\n{parts.catalogue_size()}\n" \
                                "<!-- /generated: catalogue-size -->\ny"
    with pytest.raises(ValueError, match="no generated part 'nothing'"):
        parts.fill("<!-- generated: nothing -->1<!-- /generated: nothing -->")
    with pytest.raises(ValueError, match="not closed"):
        parts.fill("<!-- generated: catalogue-bets -->1")


def test_a_new_benchmark_file_is_listed_before_it_has_an_entry(tmp_path, monkeypatch):
    # Others add benchmark files (bench_audit.json, ...): the table is still written, and names the new file.
    bench = generate.parts._bench_table()
    for path in bench.RESULTS.glob("bench_*.json"):
        (tmp_path / path.name).write_text(path.read_text())
    (tmp_path / "bench_new_command.json").write_text(json.dumps({"seconds": 1.0}))
    monkeypatch.setattr(bench, "RESULTS", tmp_path)
    table = bench.current_figures_table()
    assert "`bench_new_command.json`" in table.splitlines()[-1]
    assert all(f"| {figure.what} |" in table for figure in bench.BENCH_FIGURES)


def test_a_benchmark_entry_that_reads_nothing_says_which(monkeypatch):
    bench = generate.parts._bench_table()
    broken = bench.Figure("a figure", "bench_mc.json", lambda d: d["no such field"], "s")
    monkeypatch.setattr(bench, "BENCH_FIGURES", (broken,))
    with pytest.raises(KeyError, match="bench_mc.json has no figure for 'a figure'"):
        bench.current_figures_table()


def test_the_test_command_time_comes_only_from_a_passing_run_of_the_whole_suite(tmp_path, monkeypatch):
    bench = generate.parts._bench_table()
    figures = json.loads((bench.RESULTS / "bench_suite.json").read_text())
    assert set(figures["runs"]) == {"warm", "empty"}
    figures["runs"]["warm"] = {**figures["runs"]["warm"], "whole_suite": False}  # a trial of the script
    (tmp_path / "bench_suite.json").write_text(json.dumps(figures))
    monkeypatch.setattr(bench, "RESULTS", tmp_path)
    monkeypatch.setattr(bench, "BENCH_FIGURES", tuple(f for f in bench.BENCH_FIGURES if f.file == "bench_suite.json"))
    with pytest.raises(KeyError, match="not a passing run of the whole suite"):
        bench.headline_table()
