"""The generated reference pages are what docs/generate.py writes from their sources (issue 24)."""

from __future__ import annotations

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
