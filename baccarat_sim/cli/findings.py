"""``python -m baccarat_sim.findings`` (also installed as ``baccarat-findings``): the findings page."""

from __future__ import annotations

import argparse
from pathlib import Path

from .common import EXIT_OK, Command, HelpFormatter, Parser, check_out_dir, write_files
from .options import add_debug, add_out, add_version
from .options import option_of as shared_option_of

__all__ = ["build_parser", "main", "run", "script"]

PROG = "python -m baccarat_sim.findings"
#: Its console script (pyproject.toml).
SCRIPT = "baccarat-findings"


def build_parser(prog: str = PROG) -> argparse.ArgumentParser:
    """The argument parser (no heavy imports)."""
    parser = Parser(prog=prog, formatter_class=HelpFormatter,
                    description="The findings page: exact figures of every shipped rule set, in one command.")
    add_version(parser)
    add_out(parser, "directory for the page, tables and plots", default="results/findings")
    parser.add_argument("--rules", nargs="+", metavar="NAME", help="shipped rule sets (default: all)")
    add_debug(parser)
    return parser


def option_of(param: str, args: argparse.Namespace) -> str:
    """The option that set a library parameter, for one-line errors."""
    return shared_option_of(param, args)


def run(args: argparse.Namespace) -> int:
    """Write the page; returns the exit status."""
    from ..analysis.findings import build_findings
    from ..report.findings import write_findings

    out_dir = check_out_dir(args.out)  # before the rule sets are computed
    paths, status = write_files(args, out_dir, lambda directory: write_findings(build_findings(args.rules), directory))
    if status == EXIT_OK:
        print(f"wrote {len(paths)} files to {args.out}; open {Path(args.out) / 'README.md'}")
    return status


COMMAND = Command(PROG, SCRIPT, build_parser, run, option_of, "; nothing was written")


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the exit status."""
    return COMMAND.main(argv)


def script() -> int:
    """The ``baccarat-findings`` console script."""
    return COMMAND.console_script()
