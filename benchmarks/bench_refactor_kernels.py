"""The Monte Carlo drivers of this tree and of another checkout, in one process, call by call alternating.

    git worktree add /tmp/before <commit>
    python benchmarks/bench_refactor_kernels.py --before /tmp/before [--rounds 1e7] [--repeats 15] [--threads 1]

``bench_refactor.py`` times each tree in a fresh interpreter, seconds apart: on a shared machine whose speed moves
by tens of percent within minutes, its ratios are noise well beyond a few percent. Here the other checkout's
package is copied under another name (``baccarat_before``: the package imports itself only relatively; a comment
added to its ``kernels/jit.py`` keeps its compiled kernels apart from the real package's) and imported beside
this tree's, and each case's driver (``kernels.mc.deal_blocks``, as the engine calls it: one call deals the
whole run) runs in turn, before then after, then after then before, ``--repeats`` times; the figure is the median
of the per-pair ratios of kernel time (after / before: below 1 is faster), compile excluded. Cases: the plain
8-deck shoe fresh, live-8deck-side-bets dealt through the shoe with per-position rows, and
catalogue-colour-and-suits' card-level bets on either shoe. Writes ``results/bench_refactor_kernels.json`` and
``.md``.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import json
import os
import platform
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numba
import numpy as np

RESULTS = Path(__file__).resolve().parent.parent / "results"
HERE = Path(__file__).resolve().parent.parent
#: (name, rule set, model): what each case deals.
CASES = (("fresh", "default", "fresh"), ("dealt", "live-8deck-side-bets", "dealt"),
         ("cards-fresh", "catalogue-colour-and-suits", "fresh"), ("cards-dealt", "catalogue-colour-and-suits", "dealt"))


def driver_call(package: str, rules_id: str, model: str, rounds: int, lanes: int):
    """A call that deals a whole run of ``rounds`` through ``package``'s driver: ``(rounds, digest of the counts)``."""
    rules = importlib.import_module(f"{package}.model.rules").load_rules(rules_id)
    plan = importlib.import_module(f"{package}.engines.plan").plan_run(rules, rounds, seed=2, model=model)
    montecarlo = importlib.import_module(f"{package}.engines.montecarlo")
    mc = importlib.import_module(f"{package}.kernels.mc")
    args, tables = montecarlo.kernel_args(plan), montecarlo.detail_tables(plan)
    params = np.array(plan.shoe_params, np.int64)

    def call():
        counts = np.zeros((lanes, plan.n_positions, plan.n_cells), np.int64)
        totals = np.zeros((lanes, 2), np.int64)
        mc.deal_blocks(*args, 0, plan.total_blocks, plan.units_per_block, plan.last_units, plan.total_blocks, params,
                       counts, totals, tables)  # the lanes' small counters made and folded in the call
        return int(totals[:, 0].sum()), hashlib.sha256(counts.sum(axis=0).tobytes()).hexdigest()

    return call


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, required=True, help="the other checkout")
    parser.add_argument("--rounds", type=float, default=1e7, help="rounds per call (default 1e7)")
    parser.add_argument("--repeats", type=int, default=15, help="pairs of calls per case (default 15)")
    parser.add_argument("--threads", type=int, default=1, help="threads and lanes (default 1)")
    parser.add_argument("--cases", default=",".join(name for name, _, _ in CASES))
    args = parser.parse_args()
    numba.set_num_threads(args.threads)
    copy = Path(tempfile.mkdtemp(prefix="bench_refactor_kernels-"))
    shutil.copytree(args.before.resolve() / "baccarat_sim", copy / "baccarat_before",
                    ignore=shutil.ignore_patterns("__pycache__"))
    # The kernels are cached by their sources' digest, not their module's name: a copy imported under another name
    # would add entries whose types name `baccarat_before` to the real package's cache index, which every other
    # process then fails to read. A line in the copy's jit.py (which every kernel imports) gives its kernels a
    # digest of their own.
    jit = copy / "baccarat_before" / "kernels" / "jit.py"
    jit.write_text(jit.read_text() + "\n# imported as baccarat_before by benchmarks/bench_refactor_kernels.py\n")
    sys.path.insert(0, str(copy))
    rows = []
    try:
        for name, rules_id, model in CASES:
            if name not in args.cases.split(","):
                continue
            calls = {tree: driver_call(package, rules_id, model, int(args.rounds), args.threads)
                     for tree, package in (("before", "baccarat_before"), ("after", "baccarat_sim"))}
            dealt = {tree: call() for tree, call in calls.items()}  # compile, or load the cached kernels
            if dealt["before"] != dealt["after"]:
                raise SystemExit(f"{name}: the trees dealt different histograms {dealt}")
            seconds = {"before": [], "after": []}
            for repeat in range(args.repeats):
                for tree in (("before", "after") if repeat % 2 == 0 else ("after", "before")):
                    started = time.perf_counter()
                    calls[tree]()
                    seconds[tree].append(time.perf_counter() - started)
            ratios = [a / b for a, b in zip(seconds["after"], seconds["before"])]
            rows.append({"case": name, "rules": rules_id, "model": model, "rounds": dealt["after"][0],
                         "before_best_s": min(seconds["before"]), "after_best_s": min(seconds["after"]),
                         "best_ratio": min(seconds["after"]) / min(seconds["before"]),
                         "paired_median": statistics.median(ratios), "paired_ratios": ratios})
            print(f"{name:12} time after / before: median of pairs {statistics.median(ratios):.3f}, "
                  f"best {rows[-1]['best_ratio']:.3f}", flush=True)
    finally:
        shutil.rmtree(copy, ignore_errors=True)
    document = {"before": str(args.before), "rounds": int(args.rounds), "repeats": args.repeats,
                "threads": args.threads, "rows": rows, "load_average": os.getloadavg(),
                "machine": f"{platform.platform()}, Python {platform.python_version()}, {os.cpu_count()} CPUs"}
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "bench_refactor_kernels.json").write_text(json.dumps(document, indent=2) + "\n")
    lines = ["# Monte Carlo drivers before and after a refactor, in one process", "",
             f"`python benchmarks/bench_refactor_kernels.py --before {args.before}`: {int(args.rounds):,} rounds a "
             f"call, {args.repeats} pairs of calls, {args.threads} thread(s); {document['machine']}; load average "
             f"{document['load_average'][0]:.1f} at the end.", "",
             "| case | best before (s) | best after (s) | best after / before | median of paired ratios |",
             "|---|---:|---:|---:|---:|"]
    lines += [f"| {r['case']} | {r['before_best_s']:.3f} | {r['after_best_s']:.3f} | {r['best_ratio']:.3f} | "
              f"{r['paired_median']:.3f} |" for r in rows]
    (RESULTS / "bench_refactor_kernels.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
