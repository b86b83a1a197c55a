"""``python -m baccarat_sim.findings``: write the findings page of every shipped rule set."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .common import HelpFormatter, Parser, guarded_main

PROG = "python -m baccarat_sim.findings"


def build_parser() -> argparse.ArgumentParser:
    """The argument parser (no heavy imports)."""
    parser = Parser(prog=PROG, formatter_class=HelpFormatter,
                    description="The findings page: exact figures of every shipped rule set, in one command.")
    parser.add_argument("--out", default="results/findings", help="directory for the page, tables and plots")
    parser.add_argument("--rules", nargs="*", metavar="NAME", help="shipped rule sets (default: all)")
    parser.add_argument("--debug", action="store_true", help="on an internal error, print the traceback")
    return parser


def run(args) -> int:
    """Write the page; returns the exit status."""
    from ..analysis.findings import build_findings
    from ..report.findings import write_findings

    try:
        paths = write_findings(build_findings(args.rules), args.out)
    except OSError as error:
        print(f"{PROG}: error: --out: {error.strerror or error}", file=sys.stderr)
        return 2
    print(f"wrote {len(paths)} files to {args.out}; open {Path(args.out) / 'README.md'}")
    return 0


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the exit status."""
    def interrupted(args) -> int:
        print(f"{PROG}: interrupted; nothing was written", file=sys.stderr)
        return 130

    return guarded_main(PROG, build_parser(), run, argv, lambda param, args: {"rules": "--rules"}.get(param, ""),
                        interrupted)
