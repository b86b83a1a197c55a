"""Speed of the math report (issue 38): its exact parts per rule set, and a 10-bet report at its default sizes.

    python benchmarks/bench_math_report.py                       # every shipped rule set; 10-bet report measured
    python benchmarks/bench_math_report.py --rules default,catalogue-poker --scale 0.01

Issue 38's targets, on 2 cores:

* the **exact parts** of any shipped rule set in at most 20 s: the combinations tables, the house edge by deck
  count (1 to 8 decks) and the hold confidence table (exact lattice, 10^3 to 10^7 rounds), timed part by part as
  the report times them (``MathReport.timings``); the effect of removal (13 exact enumerations after one card is
  removed) is timed beside them, as the countability part;
* the **report of a 10-bet catalogue file at its default sizes** (10^9 Monte Carlo rounds, 10^5 counting shoes,
  10^8 rounds per cut-card position for a dealt shoe) in at most 90 s. The simulated parts are measured at
  ``--scale`` of their default size and extrapolated linearly (their cost is proportional to the rounds dealt;
  compile excluded: a first small report is made before the timed one); the exact parts and the rendering
  (PDF, workbook, Markdown, JSON) are measured in full.

Writes ``results/bench_math_report.json`` with the machine it ran on. Every kernel is compiled before timing.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

import numba

from baccarat_sim._version import __version__
from baccarat_sim.analysis.math_report import ReportSizes, build_math_report
from baccarat_sim.model.rules import available_rules, load_rules
from baccarat_sim.report.math_report import Submission, build_manifest
from baccarat_sim.report.math_report_files import write_math_report_files

RESULTS = Path(__file__).resolve().parent.parent / "results"
EXACT_TARGET_SECONDS = 20.0
REPORT_TARGET_SECONDS = 90.0
EXACT_PARTS = ("exact combinations", "house edge by deck count", "hold confidence table")
SIMULATED_PARTS = ("counting study", "Monte Carlo verification", "cut-card sweep")
TINY = ReportSizes(rounds=10**4, count_shoes=10, sweep_rounds=10**4)


def exact_parts(name: str) -> dict:
    """Seconds of each exact part of one rule set's report (simulated parts at a token size)."""
    rules = load_rules(name)
    started = time.perf_counter()
    report = build_math_report(rules, sizes=TINY, seed=1)
    wall = time.perf_counter() - started
    exact = sum(report.timings.get(part, 0.0) for part in EXACT_PARTS)
    return {"rules": name, "bets": len(rules.bets), "exact_seconds": exact,
            "effect_of_removal_seconds": report.timings.get("effect of removal"),
            "parts": report.timings, "report_seconds": wall, "meets_target": exact <= EXACT_TARGET_SECONDS}


def _sizes(scale: float) -> ReportSizes:
    full = ReportSizes()
    return ReportSizes(rounds=max(int(full.rounds * scale), 10**5), count_shoes=max(int(full.count_shoes * scale), 100),
                       sweep_rounds=max(int(full.sweep_rounds * scale), 10**5))


def ten_bet_report(name: str, n_bets: int, scale: float) -> dict:
    """A report of the first ``n_bets`` bets of ``name`` at the default sizes, its simulated parts extrapolated.

    Each simulated part is measured at ``scale`` and ``2 x scale`` of its default size; a straight line
    through the two (a fixed cost plus a cost per round or shoe) gives its time at the default size.
    """
    rules = load_rules(name)
    rules = rules.with_bets(rules.bet_ids[:n_bets])
    full, small, large = ReportSizes(), _sizes(scale), _sizes(2 * scale)
    build_math_report(rules, sizes=TINY, seed=1)  # compiles every kernel the report uses
    measured = []
    for sizes in (small, large):
        started = time.perf_counter()
        report = build_math_report(rules, sizes=sizes, seed=1)
        measured.append((sizes, report.timings, time.perf_counter() - started))
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as folder:
        write_math_report_files(Submission(report, build_manifest(report, "bench", {})), folder)
    render_seconds = time.perf_counter() - started
    size_of = {"Monte Carlo verification": "rounds", "counting study": "count_shoes", "cut-card sweep": "sweep_rounds"}
    extrapolated = {}
    for part, seconds in measured[1][1].items():
        key = size_of.get(part)
        if key is None:  # an exact part: its time does not depend on the sizes
            extrapolated[part] = seconds
            continue
        (n1, t1), (n2, t2) = ((getattr(m[0], key), m[1][part]) for m in measured)
        per_unit = max((t2 - t1) / (n2 - n1), 0.0)
        extrapolated[part] = t2 + per_unit * (getattr(full, key) - n2)
    total = sum(extrapolated.values()) + render_seconds
    return {"rules": name, "bets": list(rules.bet_ids), "scale": scale,
            "measured": [{"sizes": m[0].__dict__, "parts": m[1], "seconds": m[2]} for m in measured],
            "default_sizes": full.__dict__, "render_seconds": render_seconds, "extrapolated_parts": extrapolated,
            "extrapolated_seconds": total, "meets_target": total <= REPORT_TARGET_SECONDS}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rules", help="comma-separated rule sets for the exact parts (default: every shipped one)")
    parser.add_argument("--ten-bet-rules", default="catalogue-egalite",
                        help="the catalogue file whose first 10 bets the full report is measured on")
    parser.add_argument("--scale", type=float, default=0.05,
                        help="share of the default simulation sizes measured (the rest extrapolated)")
    parser.add_argument("--out", default=str(RESULTS / "bench_math_report.json"))
    args = parser.parse_args(argv)
    names = args.rules.split(",") if args.rules else available_rules()
    exact = []
    for name in names:
        exact.append(exact_parts(name))
        row = exact[-1]
        print(f"{name}: exact parts {row['exact_seconds']:.1f} s, effect of removal "
              f"{row['effect_of_removal_seconds']:.1f} s", file=sys.stderr)
    report = ten_bet_report(args.ten_bet_rules, 10, args.scale)
    print(f"10-bet report of {args.ten_bet_rules}: {report['extrapolated_seconds']:.1f} s at the default sizes "
          f"(extrapolated from {args.scale:g} of them)", file=sys.stderr)
    document = {
        "version": __version__, "machine": platform.machine(), "platform": platform.platform(),
        "cpus": os.cpu_count(), "numba_threads": numba.get_num_threads(),
        "note": "a shared machine: other jobs ran beside these timings; the lead reruns them",
        "exact_target_seconds": EXACT_TARGET_SECONDS, "report_target_seconds": REPORT_TARGET_SECONDS,
        "exact_parts": exact, "ten_bet_report": report,
    }
    Path(args.out).write_text(json.dumps(document, indent=2) + "\n")
    print(f"wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
