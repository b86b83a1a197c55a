"""Shared by the CLI tests: in-process runs and a small rule file written by the test itself.

The rule text is kept here rather than read from the shipped ``default.toml``,
so that editing the shipped set never changes what these tests check.
"""

from __future__ import annotations

from baccarat_sim.cli.rtp import main


def cli(capsys, *args):
    """Run the command in-process: (exit status, stdout, stderr)."""
    status = main([str(a) for a in args])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def rules_text(rules_id: str = "test-table", *, tie_name: str = "Tie", tie_pays: str = "8:1", decks: int = 8,
               extra: str = "") -> str:
    """A punto banco rule set with the three main bets (the common payouts unless told otherwise)."""
    return f'''schema_version = 1
id = "{rules_id}"
name = "Test table, {decks} decks"
source = "tests/cli_helpers.py"

[shoe]
decks = {decks}
shuffle = "fresh"

[commission]
rate = 0.05

[[bets]]
id = "player"
name = "Player"
pays = [
  {{ when = "winner == player", pays = "1:1" }},
  {{ when = "winner == tie", pays = "push" }},
]
otherwise = "lose"

[[bets]]
id = "banker"
name = "Banker"
pays = [
  {{ when = "winner == banker", pays = "1:1", commission = true }},
  {{ when = "winner == tie", pays = "push" }},
]
otherwise = "lose"

[[bets]]
id = "tie"
name = "{tie_name}"
pays = [{{ when = "winner == tie", pays = "{tie_pays}" }}]
otherwise = "lose"
{extra}'''


def run_name(*options, seed=None, model=None) -> str:
    """The name the command gives a run's files and checkpoint, for these options (``"--decks", 6``) and seed.

    Read from the package's one naming rule (:func:`baccarat_sim.analysis.naming.run_file_name`), as the command
    applies it: the rule set, shoe, dealing and bets the options describe.
    """
    from baccarat_sim.analysis.naming import run_file_name
    from baccarat_sim.cli.options import load_table
    from baccarat_sim.cli.rtp import build_parser

    args = build_parser().parse_args([str(option) for option in options])
    rules, shoe = load_table(args)
    return run_file_name(rules, shoe, model or rules.shoe.model, seed)
