"""Speed of the exact engine (issue 2): full shoes and per-round solves in a counting study.

    python benchmarks/bench_exact.py                  # 30 repeats, 3 shoes dealt through
    python benchmarks/bench_exact.py --repeats 100 --shoes 10 --no-compile

Cases (all after compilation; each figure is the median of the repeats, with
the minimum beside it since a noisy neighbour only ever adds time):

- ``exact_histogram(6)`` and ``exact_histogram(8)``: the full 14,400-code exact
  histogram of a fresh shoe (issue 2 target: an 8-deck shoe in under 1 second).
  The kernel alone (``exact_counts``) is timed too, to show what the Python
  wrapper adds.
- **Composition-aware solves**: 8-deck shoes are shuffled (fixed seed) and
  dealt through by the rules of play to a cut card 14 cards from the end; before
  every round the remaining composition is solved, as a counting study or an
  effect-of-removal table needs. Timed per solve: the full histogram; the full
  histogram settled for the three main bets (the EV a counter needs); and, when
  :mod:`baccarat_sim.engines.composition` exists, its :class:`~baccarat_sim.engines.composition.FastSolver` on
  the main bets and on every bet of ``live-8deck-side-bets`` (its ``ev_array``,
  the per-round call a counting simulation makes). Peers take about 0.4 ms per
  composition-aware solve: the ratio to that is reported as it comes out.
- The one-off cold compilation of the exact kernel, in a fresh process with an
  empty numba cache (``--no-compile`` skips it).

The engine is single-threaded: one solve uses one core. Figures go to
``results/bench_exact.json`` and ``results/bench_exact.md``, with the machine
they ran on. Do not read them on a busy machine as final.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import platform
import statistics
import time
from pathlib import Path

import numpy as np
from cold import cold_run

from baccarat_sim._version import __version__
from baccarat_sim.analysis.settlement import settle
from baccarat_sim.engines.exact import exact_histogram
from baccarat_sim.kernels.exact import exact_counts
from baccarat_sim.model.cards import RANK_POINTS
from baccarat_sim.model.codes import N_CODES
from baccarat_sim.model.rules import load_rules
from baccarat_sim.model.shoe import as_shoe
from baccarat_sim.model.tableau import banker_draws, player_draws

RESULTS = Path(__file__).resolve().parent.parent / "results"
PEER_SOLVE_MS = 0.4  # per composition-aware solve, as quoted in issue 2
CUT_CARD = 14  # cards behind the cut card


def timed(function, *args, repeats: int) -> dict:
    """Median and minimum wall time of ``function(*args)`` in milliseconds."""
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        function(*args)
        times.append((time.perf_counter() - started) * 1e3)
    return {"median_ms": statistics.median(times), "min_ms": min(times), "repeats": repeats}


def dealt_compositions(shoes: int, seed: int) -> list[np.ndarray]:
    """The composition left before every round of ``shoes`` 8-deck shoes dealt through."""
    rng = np.random.default_rng(seed)
    compositions = []
    for _ in range(shoes):
        cards = rng.permutation(np.repeat(np.arange(52), 8))
        left = as_shoe(8)
        position = 0
        while len(cards) - position > CUT_CARD:
            compositions.append(left.copy())
            used = cards_in_round(cards, position)
            for card in cards[position : position + used]:
                left[card // 4, card % 4] -= 1
            position += used
    return compositions


def cards_in_round(cards: np.ndarray, position: int) -> int:
    """How many cards the round starting at ``position`` deals (4, 5 or 6)."""
    points = [int(RANK_POINTS[c // 4]) for c in cards[position : position + 6]]
    player, banker = (points[0] + points[2]) % 10, (points[1] + points[3]) % 10
    if player >= 8 or banker >= 8:
        return 4
    used, third = 4, None
    if player_draws(player):
        third, used = points[4], 5
    return used + 1 if banker_draws(banker, third) else used


def per_solve(function, compositions: list[np.ndarray]) -> dict:
    """Wall time per call of ``function(composition)`` over every composition."""
    function(compositions[0])  # compile or load from the cache
    times = []
    for shoe in compositions:
        started = time.perf_counter()
        function(shoe)
        times.append((time.perf_counter() - started) * 1e3)
    median = statistics.median(times)
    return {
        "median_ms": median,
        "mean_ms": statistics.fmean(times),
        "min_ms": min(times),
        "solves": len(times),
        "ratio_to_peers": median / PEER_SOLVE_MS,
    }


def cold_compile_seconds() -> float:
    """First call of the exact engine in a fresh process with an empty numba cache."""
    code = (
        "import time; t = time.perf_counter(); "
        "from baccarat_sim.engines.exact import exact_histogram; exact_histogram(8); "
        "print(time.perf_counter() - t)"
    )
    (seconds,) = cold_run(code)
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=30, help="repeats of each full-shoe case")
    parser.add_argument("--shoes", type=int, default=3, help="8-deck shoes dealt through for per-round solves")
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--no-compile", action="store_true", help="skip the cold-compile measurement")
    args = parser.parse_args()

    exact_histogram(8)  # compile or load from the cache
    full = {}
    for decks in (6, 8):
        shoe = as_shoe(decks)
        out = np.zeros(N_CODES, np.int64)
        full[f"exact_histogram_{decks}_decks"] = timed(exact_histogram, decks, repeats=args.repeats)
        full[f"kernel_{decks}_decks"] = timed(lambda s=shoe, o=out: (o.fill(0), exact_counts(s, o)),
                                              repeats=args.repeats)

    compositions = dealt_compositions(args.shoes, args.seed)
    main_rules = load_rules("default")
    solves = {
        "full_histogram": per_solve(exact_histogram, compositions),
        "full_histogram_and_main_bets": per_solve(lambda s: settle(exact_histogram(s), main_rules), compositions),
    }
    has_fast = importlib.util.find_spec("baccarat_sim.engines.composition") is not None
    if has_fast:
        from baccarat_sim.engines.composition import FastSolver, value_histogram

        solves["fast_value_histogram"] = per_solve(value_histogram, compositions)
        main_solver = FastSolver(main_rules)
        solves["fast_main_bets"] = per_solve(main_solver.ev_array, compositions)
        side_rules = load_rules("live-8deck-side-bets")
        side_solver = FastSolver(side_rules)
        solves["fast_live_8deck_side_bets_all"] = per_solve(side_solver.ev_array, compositions)
        solves["fast_live_8deck_side_bets_all"]["bets"] = len(side_solver.bet_ids)
        solves["fast_live_8deck_side_bets_all"]["general_bets"] = list(side_solver.general)

    result = {
        "benchmark": "bench_exact",
        "version": __version__,
        "full_shoe": full,
        "per_round_solve": solves,
        "per_round_solve_setup": {"shoes": args.shoes, "decks": 8, "cut_card_from_end": CUT_CARD,
                                  "seed": args.seed, "peer_solve_ms": PEER_SOLVE_MS},
        "eight_decks_under_1s": full["exact_histogram_8_decks"]["median_ms"] < 1000,
        "cold_compile_seconds": None if args.no_compile else cold_compile_seconds(),
        "threads": 1,
        "machine": {"cpus": os.cpu_count(), "platform": platform.platform(), "python": platform.python_version(),
                    "processor": platform.processor(), "load_average": os.getloadavg()},
    }
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "bench_exact.json").write_text(json.dumps(result, indent=2) + "\n")
    markdown = to_markdown(result)
    (RESULTS / "bench_exact.md").write_text(markdown)
    print(markdown)
    print(f"wrote {RESULTS / 'bench_exact.json'} and bench_exact.md")


def to_markdown(result: dict) -> str:
    lines = [
        f"# Exact engine speed (baccarat_sim {result['version']})",
        "",
        "| case | median | min |",
        "| --- | ---: | ---: |",
    ]
    for name, figures in result["full_shoe"].items():
        lines.append(f"| {name} | {figures['median_ms']:.3f} ms | {figures['min_ms']:.3f} ms |")
    setup = result["per_round_solve_setup"]
    n_solves = result["per_round_solve"]["full_histogram"]["solves"]
    lines += [
        "",
        f"Per-round composition-aware solves ({n_solves} compositions: {setup['shoes']} shuffled "
        f"{setup['decks']}-deck shoes dealt to a cut card "
        f"{setup['cut_card_from_end']} cards from the end, seed {setup['seed']}); peers take about "
        f"{setup['peer_solve_ms']} ms.",
        "",
        "| solve | median | mean | min | median / peers |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    for name, figures in result["per_round_solve"].items():
        lines.append(f"| {name} | {figures['median_ms']:.3f} ms | {figures['mean_ms']:.3f} ms | "
                     f"{figures['min_ms']:.3f} ms | {figures['ratio_to_peers']:.2f} x |")
    machine = result["machine"]
    compile_s = result["cold_compile_seconds"]
    lines += [
        "",
        "Cold compile of the exact kernel (empty numba cache, once per install): "
        + (f"{compile_s:.1f} s." if compile_s is not None else "not measured."),
        f"Single-threaded. Machine: {machine['cpus']} CPUs, {machine['platform']}, Python {machine['python']}, "
        f"load average {', '.join(f'{x:.2f}' for x in machine['load_average'])}.",
        "",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
