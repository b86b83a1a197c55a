"""README.md's effect-of-removal example prints what README shows, one order and naming of card values (issue 16)."""

import re
from pathlib import Path

from .cli_helpers import cli

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_eor_output_is_real(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "120")
    section = README.read_text().split("## Advantage play: effect of removal and card counting", 1)[1]
    shown = re.search(r"```text\n(effect of removal.*?)```", section, re.S).group(1)
    status, out, _ = cli(capsys, "--rules", "live-8deck-side-bets", "--exact", "--eor",
                         "--bets", "banker,tie,lucky_six")
    assert status == 0
    assert out[out.index("effect of removal (change"):] == shown
    # The table's columns and every tag line name the point values alike, in one order.
    columns = shown.splitlines()[1].split()[1:]
    assert columns == ["A", "2", "3", "4", "5", "6", "7", "8", "9", "T"]
    for line in shown.splitlines():
        if " level " in line:
            assert [tag[0] for tag in line.split(":", 1)[1].split("BC")[0].split()] == columns
