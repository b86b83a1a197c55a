"""The Monte Carlo lanes alone, one thread, alternating in one process: where card-level bets and position rows cost.

    python benchmarks/bench_lanes.py                 # 11 alternations of each pair
    python benchmarks/bench_lanes.py --repeats 21    # steadier medians on a noisy machine

A whole run's rounds/s mixes the lane with the run flow (chunks, batches, threads) and a shared VM's speed
moves by tens of percent within minutes, so two questions are asked of the kernels directly, each case run
back to back with its baseline, many times over, in one process (compile excluded):

* **card-level bets**: nanoseconds a round of the fresh lane with bench_cardlevel's twenty card-level bets
  (``kernels/mc_fresh.lane_fresh_groups``) over those of the plain fresh lane (``lane_fresh``), 2^22 rounds a
  call; the figure is the median of the per-pair ratios (issue 22's target: at most 2, i.e. half the speed);
* **position rows**: the dealt lane with per-position rows (``kernels/mc_dealt.deal_lane_dealt`` with 105 rows,
  and the read of its per-code totals that closes a run's batch) over the same shoes without them (one row), for
  one block of 16 shoes, one chunk of a 2*10^7-round run (2,048 shoes: 128 blocks) and one of a long run (107,200
  shoes: 6,700 blocks).

Writes ``results/bench_lanes.json`` and ``results/bench_lanes.md``.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import time
from pathlib import Path

import numba
import numpy as np
from bench_cardlevel import DEALT_SHOE, FRESH_SHOE, TWENTY_BETS, code_state, rule_text

from baccarat_sim._version import __version__
from baccarat_sim.engines.montecarlo import detail_tables, kernel_args
from baccarat_sim.engines.plan import plan_run
from baccarat_sim.kernels import counters, mc, mc_dealt, mc_fresh
from baccarat_sim.model.rules import parse_rules

RESULTS = Path(__file__).resolve().parent.parent / "results"
FRESH_ROUNDS = 1 << 22
SHOES_PER_BLOCK = 16
ROW_BLOCKS = (1, 128, 6_700)


def fresh_lanes() -> dict:
    """The plain and the 20-bet fresh lanes as calls of 2^22 rounds each."""
    bets = tuple(bet[0] for bet in TWENTY_BETS)
    calls = {}
    for name, rules in (("plain", parse_rules(rule_text("plain", FRESH_SHOE), "plain.toml")),
                        ("cards", parse_rules(rule_text("cards", FRESH_SHOE, bets), "cards.toml"))):
        plan = plan_run(rules, FRESH_ROUNDS, seed=2024)
        canonical, _, seed = kernel_args(plan)
        tables = detail_tables(plan)
        counts = np.zeros((1, plan.n_cells), np.int64)
        totals = np.zeros(2, np.int64)
        if tables is None:
            def call(counts=counts, totals=totals, canonical=canonical, seed=seed):
                mc_fresh.lane_fresh(np.zeros(counts.shape, np.uint32), canonical, seed, 0, 1, np.zeros(1, np.int64),
                                    FRESH_ROUNDS, FRESH_ROUNDS, 1_000, counts, totals, None)
        else:
            def call(counts=counts, totals=totals, canonical=canonical, seed=seed, tables=tables):
                mc_fresh.lane_fresh_groups(canonical, seed, 0, 1, np.zeros(1, np.int64), FRESH_ROUNDS, FRESH_ROUNDS,
                                           1_000, counts, totals, tables)
        calls[name] = call
    return calls


def dealt_lanes(blocks: int) -> dict:
    """The dealt lane of a live 8-deck shoe with and without per-position rows, over ``blocks`` blocks of 16 shoes."""
    rules = parse_rules(rule_text("plain", DEALT_SHOE), "plain.toml")
    calls = {}
    for name, by_position in (("flat", False), ("rows", True)):
        plan = plan_run(rules, 10**7, seed=1, by_position=by_position)
        canonical, _, seed = kernel_args(plan)
        params = np.array(plan.shoe_params, np.int64)
        counts = np.zeros((plan.n_positions, plan.n_cells), np.int64)
        totals = np.zeros(2, np.int64)
        small, carried = (lanes[0] for lanes in mc.small_lanes(counts[None], mc.MODEL_DEALT))
        code_totals = np.zeros(plan.n_cells, np.int64)

        def call(counts=counts, totals=totals, canonical=canonical, seed=seed, params=params, small=small,
                 carried=carried, code_totals=code_totals):
            # As a run's chunk: the rows stay in their small counters; the per-code totals of its batch are read.
            mc_dealt.deal_lane_dealt(canonical, seed, 0, blocks, np.zeros(1, np.int64), SHOES_PER_BLOCK,
                                     SHOES_PER_BLOCK, 10**6, params, counts, totals, None, small, carried)
            counters.add_code_totals(small, code_totals)
        calls[name] = call
    return calls


def alternate(calls: dict, repeats: int) -> dict:
    """Each call's seconds, the calls run in turn ``repeats`` times (after one call each to compile)."""
    for call in calls.values():
        call()
    seconds = {name: [] for name in calls}
    for _ in range(repeats):
        for name, call in calls.items():
            started = time.perf_counter()
            call()
            seconds[name].append(time.perf_counter() - started)
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=11, help="alternations of each pair")
    args = parser.parse_args()
    numba.set_num_threads(1)
    command = "python benchmarks/bench_lanes.py" + (f" --repeats {args.repeats}" if args.repeats != 11 else "")
    result = {"benchmark": "bench_lanes", "version": __version__, "command": command,
              "code": code_state(), "numba": numba.__version__,
              "machine": {"platform": platform.platform(), "python": platform.python_version()}}
    seconds = alternate(fresh_lanes(), args.repeats)
    ratios = [c / p for p, c in zip(seconds["plain"], seconds["cards"])]
    result["card_level"] = {
        "rounds_per_call": FRESH_ROUNDS,
        "plain_ns_per_round": min(seconds["plain"]) / FRESH_ROUNDS * 1e9,
        "cards_ns_per_round": min(seconds["cards"]) / FRESH_ROUNDS * 1e9,
        "time_ratio_median": statistics.median(ratios), "time_ratios": ratios,
        "meets_half_speed": statistics.median(ratios) <= 2.0,
    }
    result["position_rows"] = []
    for blocks in ROW_BLOCKS:
        seconds = alternate(dealt_lanes(blocks), args.repeats if blocks < 1_000 else max(3, args.repeats // 3))
        ratios = [r / f for f, r in zip(seconds["flat"], seconds["rows"])]
        result["position_rows"].append({
            "blocks": blocks, "shoes": blocks * SHOES_PER_BLOCK, "flat_ms": min(seconds["flat"]) * 1e3,
            "rows_ms": min(seconds["rows"]) * 1e3, "time_ratio_median": statistics.median(ratios),
            "time_ratios": ratios})
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "bench_lanes.json").write_text(json.dumps(result, indent=2) + "\n")
    (RESULTS / "bench_lanes.md").write_text(to_markdown(result))
    print(to_markdown(result))


def to_markdown(result: dict) -> str:
    cards = result["card_level"]
    lines = ["# The Monte Carlo lanes alone (1 thread, alternating in one process)", "",
             f"`{result['command']}` — baccarat_sim {result['version']}, numba {result['numba']}, "
             f"commit {result['code']['commit']}", "",
             "## Twenty card-level bets beside the main bets, fresh shoe", "",
             f"Plain lane {cards['plain_ns_per_round']:.2f} ns a round, with the 20 bets "
             f"{cards['cards_ns_per_round']:.2f} ns (best calls of {cards['rounds_per_call']:,} rounds); time ratio, "
             f"the median of {len(cards['time_ratios'])} back-to-back pairs: {cards['time_ratio_median']:.3f} "
             f"(half the speed is 2.0: {'met' if cards['meets_half_speed'] else 'missed'}; pairs "
             + ", ".join(f"{r:.2f}" for r in cards["time_ratios"]) + ").", "",
             "## Per-position rows of a dealt shoe (105 rows against one)", "",
             "| shoes a call | without rows (best) | with rows (best) | time ratio (median of pairs) |",
             "|---:|---:|---:|---:|"]
    for case in result["position_rows"]:
        lines.append(f"| {case['shoes']:,} | {case['flat_ms']:.2f} ms | {case['rows_ms']:.2f} ms | "
                     f"{case['time_ratio_median']:.3f} |")
    lines += ["", f"Machine: {result['machine']['platform']}, Python {result['machine']['python']}."]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
