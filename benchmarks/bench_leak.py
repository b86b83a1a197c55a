"""Speed of the leak analysis (issue 15): edge sorting and exposed cards on 8 decks.

    python benchmarks/bench_leak.py                 # 5 repeats of each case, cold compile, CLI runs
    python benchmarks/bench_leak.py --repeats 3 --no-compile

Cases (after compilation; each figure is the median of the repeats, with the
minimum beside it since a noisy neighbour only ever adds time):

- **the optimal four-card sort** (issue 15 target: at most 10 s on 8 decks and
  2 cores): all 1023 High groups of the ten point values at P1 B1 P2 B2, with
  the best splits recomputed exactly and the best one analysed in full
  (``optimal_sort``), for the three main bets and for every bet of
  ``live-8deck-side-bets``;
- the kernel run under it: every tuple of point values of the first four cards
  (10^4 patterns) by pay-table line;
- **a single four-card sort**: Jacobson's High = {6, 7, 8, 9} at P1 B1 P2 B2
  (``leak_value``), in exact Fractions;
- rank-level knowledge of the first four cards (13^4 = 28,561 patterns), an
  exactly known first card, and a shown burn card (a card off the round: one
  kernel run per distinct shoe left);
- the command line ``python -m baccarat_sim.leak --positions P1,B1,P2,B2
  --optimize`` end to end (interpreter start, imports, warm numba cache), and its
  ``--help``;
- the one-off cold compilation of the leak kernel in a fresh process with an
  empty numba cache (``--no-compile`` skips it).

The kernel is single-threaded. Figures go to ``results/bench_leak.json`` and
``results/bench_leak.md`` with the machine they ran on.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

from cold import cold_run

from baccarat_sim._version import __version__
from baccarat_sim.analysis.leak import each, exposed_card, high_low, leak_value, optimal_sort
from baccarat_sim.analysis.leak_value import settlement_lines
from baccarat_sim.engines.leak import leak_table
from baccarat_sim.model.rules import load_rules

RESULTS = Path(__file__).resolve().parent.parent / "results"
FIRST_FOUR = ("P1", "B1", "P2", "B2")
TARGET_SECONDS = 10.0


def timed(function, repeats: int) -> tuple[dict, object]:
    """Median and minimum wall time of ``function()`` in seconds, and its last result."""
    times, result = [], None
    for _ in range(repeats):
        started = time.perf_counter()
        result = function()
        times.append(time.perf_counter() - started)
    return {"median_s": statistics.median(times), "min_s": min(times), "repeats": repeats}, result


def kernel_table(rules):
    """The 10^4-pattern table the optimal sort aggregates (what ``optimal_sort`` runs once)."""
    lines = settlement_lines(rules)
    classes = each("value").card_classes()
    return leak_table(8, dict.fromkeys(FIRST_FOUR, classes), lines.line_col, lines.n_columns)


def command_seconds(args: list[str], repeats: int) -> dict:
    """Wall time of ``python -m baccarat_sim.leak ARGS`` in a fresh interpreter (warm numba cache)."""
    command = [sys.executable, "-m", "baccarat_sim.leak", *args]
    subprocess.run(command, check=True, capture_output=True)  # fill the cache
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        subprocess.run(command, check=True, capture_output=True)
        times.append(time.perf_counter() - started)
    return {"median_s": statistics.median(times), "min_s": min(times), "repeats": repeats, "command": " ".join(
        ["python", "-m", "baccarat_sim.leak", *args])}


def cold_compile_seconds() -> float:
    """First leak analysis in a fresh process with an empty numba cache (kernel compile included)."""
    code = (
        "import time; t = time.perf_counter(); "
        "from baccarat_sim.analysis.leak import leak_value; from baccarat_sim.model.rules import load_rules; "
        "leak_value(load_rules('default'), ['P1']); print(time.perf_counter() - t)"
    )
    (seconds,) = cold_run(code)
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5, help="repeats of each case")
    parser.add_argument("--no-compile", action="store_true", help="skip the cold-compile measurement")
    args = parser.parse_args()

    main_rules = load_rules("default")
    side_rules = load_rules("live-8deck-side-bets")
    leak_value(main_rules, ["P1"])  # compile or load from the cache
    cases, figures = {}, {}
    cases["optimal_sort_4_cards_main_bets"], found = timed(lambda: optimal_sort(main_rules, FIRST_FOUR),
                                                           args.repeats)
    figures["optimal_sort"] = {"low": list(found.candidates[0].grouping.groups[0]),
                               "high": list(found.candidates[0].grouping.groups[1]),
                               "player_edge": float(found.candidates[0].player_edge)}
    cases["optimal_sort_4_cards_live_8deck_side_bets"], found_side = timed(
        lambda: optimal_sort(side_rules, FIRST_FOUR), args.repeats)
    cases["optimal_sort_4_cards_live_8deck_side_bets"]["bets"] = len(side_rules.bets)
    figures["optimal_sort_live_8deck_side_bets"] = {"high": list(found_side.candidates[0].grouping.groups[1]),
                                                    "player_edge": float(found_side.candidates[0].player_edge)}
    cases["kernel_value_table_4_cards_main_bets"], _ = timed(lambda: kernel_table(main_rules), args.repeats)
    cases["single_sort_4_cards_high_6789"], single = timed(
        lambda: leak_value(main_rules, FIRST_FOUR, high_low([6, 7, 8, 9])), args.repeats)
    figures["single_sort"] = float(single.player_edge)
    cases["single_sort_1_card_high_6789"], one = timed(lambda: leak_value(main_rules, ["P1"]), args.repeats)
    figures["one_card"] = float(one.player_edge)
    cases["every_rank_4_cards_main_bets"], ranks = timed(
        lambda: leak_value(main_rules, FIRST_FOUR, each("rank")), args.repeats)
    cases["every_rank_4_cards_main_bets"]["patterns"] = len(ranks.rows)
    cases["exposed_card_P1"], _ = timed(lambda: exposed_card(main_rules, "P1"), args.repeats)
    cases["exposed_burn_card_live_8deck_side_bets"], _ = timed(lambda: exposed_card(side_rules, "burn"),
                                                               args.repeats)
    command = {
        "optimize": command_seconds(["--positions", "P1,B1,P2,B2", "--optimize", "--quiet"], args.repeats),
        "help": command_seconds(["--help"], args.repeats),
    }
    optimal = cases["optimal_sort_4_cards_main_bets"]["median_s"]
    result = {
        "benchmark": "bench_leak",
        "version": __version__,
        "cases": cases,
        "command_line": command,
        "figures": figures,
        "target_seconds": TARGET_SECONDS,
        "optimal_sort_within_target": optimal <= TARGET_SECONDS
        and command["optimize"]["median_s"] <= TARGET_SECONDS,
        "cold_compile_seconds": None if args.no_compile else cold_compile_seconds(),
        "threads": 1,
        "machine": {"cpus": os.cpu_count(), "platform": platform.platform(), "python": platform.python_version(),
                    "processor": platform.processor(), "load_average": os.getloadavg()},
    }
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "bench_leak.json").write_text(json.dumps(result, indent=2) + "\n")
    markdown = to_markdown(result)
    (RESULTS / "bench_leak.md").write_text(markdown)
    print(markdown)
    print(f"wrote {RESULTS / 'bench_leak.json'} and bench_leak.md")


def to_markdown(result: dict) -> str:
    figures = result["figures"]
    best = figures["optimal_sort"]
    side = figures["optimal_sort_live_8deck_side_bets"]
    lines = [
        f"# Leak analysis speed (baccarat_sim {result['version']})",
        "",
        f"Target: the optimal four-card sort on 8 decks in at most {result['target_seconds']:.0f} s on 2 cores: "
        + ("met." if result["optimal_sort_within_target"] else "NOT met."),
        "",
        "| case | median | min |",
        "| --- | ---: | ---: |",
    ]
    for name, timing in result["cases"].items():
        lines.append(f"| {name} | {timing['median_s'] * 1e3:.1f} ms | {timing['min_s'] * 1e3:.1f} ms |")
    for timing in result["command_line"].values():
        lines.append(f"| `{timing['command']}` (fresh interpreter) | {timing['median_s'] * 1e3:.0f} ms | "
                     f"{timing['min_s'] * 1e3:.0f} ms |")
    machine = result["machine"]
    compile_s = result["cold_compile_seconds"]
    lines += [
        "",
        f"Figures: one sorted card {100 * figures['one_card']:.3f}%, four sorted cards (High 6 7 8 9) "
        f"{100 * figures['single_sort']:.3f}%, the optimal four-card sort Low {' '.join(map(str, best['low']))} | "
        f"High {' '.join(map(str, best['high']))} {100 * best['player_edge']:.3f}% (main bets); with every bet of "
        f"live-8deck-side-bets the best High group is {' '.join(map(str, side['high']))} "
        f"({100 * side['player_edge']:.3f}%).",
        "",
        "Cold compile of the leak kernel (empty numba cache, once per install): "
        + (f"{compile_s:.1f} s." if compile_s is not None else "not measured."),
        f"Single-threaded. Machine: {machine['cpus']} CPUs, {machine['platform']}, Python {machine['python']}, "
        f"load average {', '.join(f'{x:.2f}' for x in machine['load_average'])}.",
        "",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
