"""Monte Carlo kernel speed of this tree against another checkout of the project, in one sitting (issue 12).

    git worktree add /tmp/before 22f85f3        # the tree before the layered restructuring
    python3 -m venv /tmp/before/.venv && /tmp/before/.venv/bin/pip install -q -e /tmp/before
    python benchmarks/bench_refactor.py --before /tmp/before

Each repeat runs the same measurement in a fresh interpreter of each tree, one after the other, the tree that goes
first alternating (so that a noisy neighbour hurts both alike): kernel rounds/s, compile excluded, of the plain
8-deck rule set on a freshly shuffled shoe and of live-8deck-side-bets dealt through the shoe (per-position rows),
and with ``--cases`` also catalogue-colour-and-suits' card-level bets on either shoe (``cards-fresh``,
``cards-dealt``), on 1 and 2 threads (``--threads``). Only the public API both trees share is used
(``load_rules``, ``simulate`` and the histogram's ``meta["kernel_seconds"]``). Writes ``results/bench_refactor.json``
and ``.md``; the ratio is after / before of the best of the repeats, and the median of the repeats' paired ratios
beside it.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
from pathlib import Path

RESULTS = Path(__file__).resolve().parent.parent / "results"
HERE = Path(__file__).resolve().parent.parent
#: What each tree runs: the rounds/s of each case, as one JSON line.
MEASURE = """
import json, sys
from baccarat_sim import load_rules, simulate
threads, rounds, names = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3].split(",")
CASES = {"fresh": ("default", "fresh"), "dealt": ("live-8deck-side-bets", "dealt"),
         "cards-fresh": ("catalogue-colour-and-suits", "fresh"), "cards-dealt": ("catalogue-colour-and-suits", "dealt")}
out = {}
for name in names:
    rules_id, model = CASES[name]
    rules = load_rules(rules_id)
    simulate(rules, 200_000, seed=1, threads=threads, model=model)  # compile, or load the cached kernels
    hist = simulate(rules, rounds, seed=2, threads=threads, model=model)
    out[name] = hist.rounds / hist.meta["kernel_seconds"]
print(json.dumps(out))
"""


def measure(tree: Path, threads: int, rounds: int, cases: list[str]) -> dict:
    """Rounds/s of each case in a fresh interpreter of ``tree`` (its own .venv if it has one)."""
    python = tree / ".venv" / "bin" / "python"
    python = python if python.exists() else Path(sys.executable)
    done = subprocess.run([str(python), "-c", MEASURE, str(threads), str(rounds), ",".join(cases)], cwd=tree,
                          check=True,
                          capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(tree)})
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, required=True, help="the other checkout (with its own .venv)")
    parser.add_argument("--rounds", type=int, default=100_000_000, help="rounds per case and run")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--cases", default="fresh,dealt",
                        help="comma-separated: fresh, dealt, cards-fresh, cards-dealt (default: fresh,dealt)")
    parser.add_argument("--threads", default="1,2", help="comma-separated thread counts (default: 1,2)")
    args = parser.parse_args()
    cases = args.cases.split(",")
    thread_counts = [int(t) for t in args.threads.split(",")]
    runs = {(tree, threads): [] for tree in ("before", "after") for threads in thread_counts}
    trees = [("before", args.before.resolve()), ("after", HERE)]
    for repeat in range(args.repeats):
        for threads in thread_counts:
            for tree, path in (trees if repeat % 2 == 0 else trees[::-1]):
                runs[(tree, threads)].append(measure(path, threads, args.rounds, cases))
    rows = []
    for threads in thread_counts:
        for case in cases:
            before_all = [r[case] for r in runs[("before", threads)]]
            after_all = [r[case] for r in runs[("after", threads)]]
            before, after = max(before_all), max(after_all)
            rows.append({"case": case, "threads": threads, "before": before, "after": after, "ratio": after / before,
                         "paired_median": statistics.median(a / b for a, b in zip(after_all, before_all)),
                         "before_all": before_all, "after_all": after_all})
    document = {"before": str(args.before), "rounds": args.rounds, "repeats": args.repeats, "rows": rows,
                "machine": f"{platform.platform()}, Python {platform.python_version()}, {os.cpu_count()} CPUs",
                "load_average": os.getloadavg()}
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "bench_refactor.json").write_text(json.dumps(document, indent=2) + "\n")
    lines = ["# Monte Carlo kernel before and after the layered restructuring (issue 12)", "",
             f"`python benchmarks/bench_refactor.py --before {args.before}`: {args.rounds:,} rounds per run, best of "
             f"{args.repeats}, the two trees alternating; {document['machine']}.", "",
             "| case | threads | before (M rounds/s) | after (M rounds/s) | after / before | paired median |",
             "|---|---:|---:|---:|---:|---:|"]
    lines += [f"| {r['case']} | {r['threads']} | {r['before'] / 1e6:.1f} | {r['after'] / 1e6:.1f} | "
              f"{r['ratio']:.3f} | {r['paired_median']:.3f} |" for r in rows]
    (RESULTS / "bench_refactor.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
