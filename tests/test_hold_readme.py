"""README.md's `python -m baccarat_sim.hold` example prints exactly what README shows (issue 14)."""

import re
from pathlib import Path

from baccarat_sim.cli.hold import main

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_hold_output_is_real(capsys):
    section = README.read_text().split("## What a table does over N rounds", 1)[1]
    shown = re.search(r"```text\n(.*?)```", section, re.S).group(1)
    assert main(["--slip", "banker=100,player=50,tie=5", "--rounds", "100,1e4,1e6", "--k", "1000"]) == 0
    assert capsys.readouterr().out == shown
