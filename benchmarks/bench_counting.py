"""Speed of the composition-aware solver and of counting simulations (issue 7).

    python benchmarks/bench_counting.py                 # 20,000 shoes per counting case, 2 threads and 1
    python benchmarks/bench_counting.py --shoes 2000 --threads 1

Solver (one core, after compilation): the exact EV of packed bets for the
composition left before every round of 8-deck shoes dealt through to a cut card
14 cards from the end, timed in a compiled loop over those compositions (what a
counting simulation pays per round) and through the Python call
``FastSolver.ev_array``. Cases: the main bets; the main bets plus Player and
Banker Pair (issue 7 target: at least 10x faster than 0.4 ms per solve, i.e.
40 us or less); the closed forms alone (pairs, any pair, perfect pair, Dragon
and Tiger: "much faster"); every bet of live-8deck-side-bets. The full exact
engine (``exact_histogram``) is timed on the same compositions for scale.

Counting (``count_simulation`` on live-8deck-side-bets, 8 decks dealt to the
cut card): rounds per second with a linear count only, a linear count that also
records the exact edge of every bet placed, perfect play on a bet with a closed
form (Player Pair), perfect play on a score bet (Lucky Six) and perfect play on
every bet, with every thread and with one.

Figures go to ``results/bench_counting.json`` and ``.md``, with the machine
they ran on; timings from a busy machine are not final.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import time
from pathlib import Path

import numba
import numpy as np

from baccarat_sim._version import __version__
from baccarat_sim.analysis.counting import count_simulation
from baccarat_sim.engines.composition import FastSolver, value_counts
from baccarat_sim.engines.exact import exact_histogram
from baccarat_sim.engines.plan import normalize_seed
from baccarat_sim.kernels.composition import solve_packed
from baccarat_sim.model.rules import load_rules
from baccarat_sim.model.shoe import as_shoe
from baccarat_sim.model.strategy import parse_strategy

RESULTS = Path(__file__).resolve().parent.parent / "results"
PEER_SOLVE_US = 400.0  # 0.4 ms per composition-aware solve, as quoted in issue 7
CUT_CARD = 14


@numba.njit(cache=True)
def _solve_all(shoes, counts, v_rows, v_scale, v_max, v_bet, p_rows, p_scale, p_bet, f_rows, f_scale, f_bet,
               n_bets):
    ev = np.zeros(n_bets)
    sign = np.zeros(n_bets, np.int64)
    total = 0.0
    for i in range(shoes.shape[0]):
        solve_packed(shoes[i], counts[i], v_rows, v_scale, v_max, v_bet, p_rows, p_scale, p_bet, f_rows, f_scale,
                     f_bet, ev, sign)
        total += ev[0]
    return total


def dealt_compositions(shoes: int, seed: int) -> np.ndarray:
    """The (13, 4) composition left before every round of ``shoes`` 8-deck shoes dealt through."""
    from baccarat_sim.model.cards import RANK_POINTS
    from baccarat_sim.model.tableau import banker_draws, player_draws

    rng = np.random.default_rng(seed)
    out = []
    for _ in range(shoes):
        cards = rng.permutation(np.repeat(np.arange(52), 8))
        left = as_shoe(8)
        position = 0
        while len(cards) - position > CUT_CARD:
            out.append(left.copy())
            points = [int(RANK_POINTS[c // 4]) for c in cards[position:position + 6]]
            p, b = (points[0] + points[2]) % 10, (points[1] + points[3]) % 10
            used = 4
            if p < 8 and b < 8:
                third = None
                if player_draws(p):
                    third, used = points[4], 5
                if banker_draws(b, third):
                    used += 1
            for card in cards[position:position + used]:
                left[card // 4, card % 4] -= 1
            position += used
    return np.array(out)


def time_solver(rules, bets, shoes, counts, repeats) -> dict:
    solver = FastSolver(rules, bets)
    a = solver.packed_arrays()
    args = (a["v_rows"], a["v_scale"], a["v_max"], a["v_bet"], a["p_rows"], a["p_scale"], a["p_bet"], a["f_rows"],
            a["f_scale"], a["f_bet"], len(solver.bet_ids))
    _solve_all(shoes[:2], counts[:2], *args)  # compile
    kernel = []
    for _ in range(repeats):
        started = time.perf_counter()
        _solve_all(shoes, counts, *args)
        kernel.append((time.perf_counter() - started) / len(shoes) * 1e6)
    python = []
    sample = shoes[: min(len(shoes), 400)]
    for _ in range(repeats):
        started = time.perf_counter()
        for shoe in sample:
            solver.ev_array(shoe)
        python.append((time.perf_counter() - started) / len(sample) * 1e6)
    kinds = solver.kinds
    return {
        "bets": list(solver.bet_ids),
        "kinds": {kind: sum(1 for k in kinds.values() if k == kind) for kind in set(kinds.values())},
        "kernel_us_per_solve": statistics.median(kernel),
        "kernel_us_per_solve_min": min(kernel),
        "ev_array_us_per_call": statistics.median(python),
        "speed_up_vs_0_4_ms": PEER_SOLVE_US / statistics.median(kernel),
    }


STRATEGIES = {
    "linear count": """
schema_version = 1
id = "linear"
[counts.l6]
tags = { "6" = -3, "7" = 1, "8" = 1, "9" = 1 }
[[bets]]
id = "lucky_six"
play = "count"
count = "l6"
true_count = 8
exact_edge = false
""",
    "linear count + exact edge of each bet": """
schema_version = 1
id = "linear-exact"
[counts.l6]
tags = { "6" = -3, "7" = 1, "8" = 1, "9" = 1 }
[[bets]]
id = "lucky_six"
play = "count"
count = "l6"
true_count = 8
""",
    "perfect play, Player Pair (closed form)": """
schema_version = 1
id = "perfect-pair-bet"
[[bets]]
id = "player_pair"
play = "perfect"
""",
    "perfect play, Lucky Six (score bet)": """
schema_version = 1
id = "perfect-lucky-six"
[[bets]]
id = "lucky_six"
play = "perfect"
""",
    "perfect play, every bet": """
schema_version = 1
id = "perfect-all"
[[bets]]
id = "*"
play = "perfect"
""",
}


def time_counting(rules, shoes: int, threads: int) -> dict:
    out = {}
    for label, text in STRATEGIES.items():
        strategy = parse_strategy(text)
        count_simulation(rules, strategy, 16, seed=1, threads=threads)  # compile and warm up
        scale = 10 if "every bet" in label or "Lucky" in label else 1  # perfect play on score bets is slower
        n = max(16, shoes // scale)
        started = time.perf_counter()
        cpu = time.process_time()
        result = count_simulation(rules, strategy, n, seed=normalize_seed(2024), threads=threads)
        wall = time.perf_counter() - started
        cpu = time.process_time() - cpu
        rounds = result.run["rounds"]
        out[label] = {"shoes": n, "rounds": rounds, "wall_s": wall, "cpu_s": cpu,
                      "rounds_per_second": rounds / result.run["kernel_seconds"],
                      "rounds_per_cpu_second": rounds / cpu if cpu else None}
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shoes", type=int, default=20_000, help="shoes per counting case")
    parser.add_argument("--solver-shoes", type=int, default=30, help="shoes dealt for the solver compositions")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--threads", type=int, default=numba.config.NUMBA_NUM_THREADS)
    parser.add_argument("--out", type=Path, default=RESULTS / "bench_counting.json")
    args = parser.parse_args()

    rules = load_rules("live-8deck-side-bets")
    shoes = dealt_compositions(args.solver_shoes, seed=7)
    counts = np.array([value_counts(s) for s in shoes])
    solver = {
        "main bets": time_solver(rules, ["player", "banker", "tie"], shoes, counts, args.repeats),
        "main bets + Player/Banker Pair": time_solver(rules, ["player", "banker", "tie", "player_pair",
                                                              "banker_pair"], shoes, counts, args.repeats),
        "closed forms only": time_solver(load_rules("live-8deck-dragon-tiger"), ["dragon", "tiger"], shoes, counts,
                                         args.repeats)
        | {"note": "Dragon and Tiger"},
        "pairs only": time_solver(rules, ["player_pair", "banker_pair", "any_pair", "perfect_pair"], shoes, counts,
                                  args.repeats),
        "every bet of live-8deck-side-bets": time_solver(rules, None, shoes, counts, args.repeats),
    }
    sample = shoes[:: max(1, len(shoes) // 50)]
    exact_histogram(sample[0])
    started = time.perf_counter()
    for shoe in sample:
        exact_histogram(shoe)
    solver["full exact engine (exact_histogram)"] = {
        "kernel_us_per_solve": (time.perf_counter() - started) / len(sample) * 1e6}

    counting = {f"{args.threads} threads": time_counting(rules, args.shoes, args.threads)}
    if args.threads != 1:
        counting["1 thread"] = time_counting(rules, args.shoes, 1)

    doc = {
        "benchmark": "bench_counting",
        "version": __version__,
        "machine": {"platform": platform.platform(), "processor": platform.processor() or platform.machine(),
                    "cpus": os.cpu_count(), "numba": numba.__version__,
                    "load_average": os.getloadavg() if hasattr(os, "getloadavg") else None},
        "compositions": int(len(shoes)),
        "solver": solver,
        "counting": counting,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(doc, indent=2) + "\n")
    lines = [f"# bench_counting ({doc['machine']['processor']}, {doc['machine']['cpus']} CPUs, load "
             f"{doc['machine']['load_average']})", "", "| solver case | us per solve (kernel) | us per ev_array call |"
             " speed-up vs 0.4 ms |", "|---|---|---|---|"]
    for name, row in solver.items():
        call = row.get("ev_array_us_per_call", float("nan"))
        speed_up = PEER_SOLVE_US / row["kernel_us_per_solve"]
        lines.append(f"| {name} | {row['kernel_us_per_solve']:.2f} | {call:.1f} | {speed_up:.1f}x |")
    lines += ["", "| counting case | threads | rounds/s | rounds per CPU second |", "|---|---|---|---|"]
    for threads, cases in counting.items():
        for name, row in cases.items():
            cpu = row["rounds_per_cpu_second"]
            lines.append(f"| {name} | {threads} | {row['rounds_per_second']:,.0f} | "
                         f"{'' if cpu is None else f'{cpu:,.0f}'} |")
    args.out.with_suffix(".md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
