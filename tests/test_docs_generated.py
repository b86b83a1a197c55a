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
    for module_name, _ in generate.CLI_COMMANDS:
        command = __import__(module_name, fromlist=["COMMAND"]).COMMAND
        for action in command.build_parser(command.prog)._actions:
            for option in action.option_strings:
                assert f"`{option}`" in page, option
