"""Speed of the hold analysis (issue 14): the house over N rounds, and player sessions.

    python benchmarks/bench_hold.py                 # 3 repeats of each case, the dealt sessions, cold compile, CLI
    python benchmarks/bench_hold.py --repeats 1 --quick

Cases (after compilation; each figure is the median of the repeats, with the
minimum beside it since a noisy neighbour only ever adds time):

- **a main-bet slip over N = 10^6 rounds** (target: at most 2 s on 2 cores):
  Banker 100 + Player 50 on ``default`` (8 decks), the slip built from the rule
  set (exact histogram, settlement), the exact lattice distribution of the
  house's result and its summary (quantiles, ranges, P(house behind));
- **a slip with a 250:1 side bet over N = 10^4** (target: at most 5 s):
  Banker 100 + Perfect Pair 5 (25 and 250 to 1) on ``common-variants``, the same
  steps; and the same slip over 10^6 rounds, for reference;
- **10^6 player sessions of 1,000 rounds** (target: at most 30 s on 2 cores):
  Banker 10 with a bankroll no loss can exhaust, so every session plays all
  1,000 rounds (10^9 rounds); then the same with a bankroll of 1,000, a
  stop-loss of 500 and a stop-win of 300, and the exact Markov chain of that
  case; the dealt model (every round dealt through 8-deck shoes) unless
  ``--quick``;
- the command line ``python -m baccarat_sim.hold --slip banker=100,player=50
  --rounds 1e6`` end to end (interpreter start, imports, warm numba cache);
- the one-off cold compilation of the session kernels in a fresh process with
  an empty numba cache (``--no-compile`` skips it).

Figures go to ``results/bench_hold.json`` and ``results/bench_hold.md`` with
the machine they ran on.
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

import numba
from cold import cold_run

from baccarat_sim._version import __version__
from baccarat_sim.analysis.hold import hold_distribution, summarize
from baccarat_sim.analysis.sessions import SessionRules, session_chain, simulate_sessions
from baccarat_sim.analysis.slip import build_slip
from baccarat_sim.model.rules import load_rules

RESULTS = Path(__file__).resolve().parent.parent / "results"
TARGETS = {"main_slip_1e6_rounds": 2.0, "side_bet_slip_1e4_rounds": 5.0, "sessions_1e6_x_1000_rounds": 30.0}
_COMPILE = """
import time
started = time.perf_counter()
from baccarat_sim.analysis.sessions import SessionRules, simulate_sessions
from baccarat_sim.analysis.slip import build_slip
from baccarat_sim.model.rules import load_rules
for model in ("fresh", "dealt"):
    slip = build_slip(load_rules("default").with_shoe(model=model), {"banker": 10})
    simulate_sessions(slip, SessionRules(bankroll=100, max_rounds=10), 2, seed=1)
print(time.perf_counter() - started)
"""


def timed(function, repeats: int) -> dict:
    """Median and minimum wall time of ``function()`` in seconds, and its last result."""
    times, result = [], None
    for _ in range(repeats):
        started = time.perf_counter()
        result = function()
        times.append(time.perf_counter() - started)
    return {"median": statistics.median(times), "min": min(times), "result": result}


def hold_case(rules: str, stakes: dict, rounds: int):
    """Build the slip from the rule set, the distribution of the house's result, its summary."""
    slip = build_slip(load_rules(rules), stakes)
    dist = hold_distribution(slip, rounds)
    return dist, summarize(dist, slip.total_stake, behind_by=[10_000])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="skip the dealt-model sessions (10^9 dealt rounds)")
    parser.add_argument("--no-compile", action="store_true", help="skip the cold-compile measurement")
    args = parser.parse_args()
    threads = numba.get_num_threads()
    cases, figures = {}, {}

    hold_case("default", {"banker": 100, "player": 50}, 1000)  # warm: imports, the exact kernel's cache
    for name, rules, stakes, rounds in (
            ("main_slip_1e6_rounds", "default", {"banker": 100, "player": 50}, 10**6),
            ("side_bet_slip_1e4_rounds", "common-variants", {"banker": 100, "perfect_pair_250": 5}, 10**4),
            ("side_bet_slip_1e6_rounds", "common-variants", {"banker": 100, "perfect_pair_250": 5}, 10**6)):
        run = timed(lambda r=rules, s=stakes, n=rounds: hold_case(r, s, n), args.repeats)
        dist, summary = run.pop("result")
        cases[name] = run
        figures[name] = {"method": dist.method, "error_bound": dist.error_bound, "lattice_points": int(dist.pmf.size),
                         "p_house_behind": summary.p_house_behind.value,
                         "hold_range_95": list(summary.hold_range_95)}

    banker = build_slip(load_rules("default"), {"banker": 10})
    simulate_sessions(banker, SessionRules(bankroll=100, max_rounds=10), 2, seed=1)  # compile or load the cache
    no_stop = SessionRules(bankroll=10**6, max_rounds=1000)
    stops = SessionRules(bankroll=1000, max_rounds=1000, stop_loss=500, stop_win=300)
    for name, rules, slip in (("sessions_1e6_x_1000_rounds", no_stop, banker),
                              ("sessions_1e6_stop_loss_500_stop_win_300", stops, banker)):
        run = timed(lambda s=slip, r=rules: simulate_sessions(s, r, 10**6, seed=2024), args.repeats)
        mc = run.pop("result")
        cases[name] = run
        figures[name] = {"rounds": mc.rounds, "rounds_per_second": mc.rounds / run["median"],
                         "p_goal": mc.p_goal.value, "p_stop_loss": mc.p_stop_loss.value,
                         "mean_final": mc.mean_final.value}
    run = timed(lambda: session_chain(banker.player, stops), args.repeats)
    chain = run.pop("result")
    cases["exact_chain_stop_loss_500_stop_win_300"] = run
    mc = simulate_sessions(banker, stops, 10**6, seed=2024)
    figures["exact_chain_stop_loss_500_stop_win_300"] = {
        "method": chain.method, "p_goal": chain.p_goal.value, "z_monte_carlo_p_goal": mc.p_goal.z(chain.p_goal.value),
        "z_monte_carlo_mean_final": mc.mean_final.z(chain.mean_final.value)}
    if not args.quick:
        dealt = build_slip(load_rules("default").with_shoe(model="dealt"), {"banker": 10})
        simulate_sessions(dealt, SessionRules(bankroll=100, max_rounds=10), 2, seed=1)
        run = timed(lambda: simulate_sessions(dealt, no_stop, 10**6, seed=2024), 1)
        mc = run.pop("result")
        cases["dealt_sessions_1e6_x_1000_rounds"] = run
        figures["dealt_sessions_1e6_x_1000_rounds"] = {"rounds": mc.rounds,
                                                       "rounds_per_second": mc.rounds / run["median"]}

    command = [sys.executable, "-m", "baccarat_sim.hold", "--slip", "banker=100,player=50", "--rounds", "1e6",
               "--quiet"]
    cli = timed(lambda: subprocess.run(command, check=True, stdout=subprocess.DEVNULL), args.repeats)
    cli.pop("result")
    cases["cli_main_slip_1e6_rounds"] = cli
    compile_seconds = None
    if not args.no_compile:
        (compile_seconds,) = cold_run(_COMPILE)

    result = {
        "benchmark": "bench_hold",
        "version": __version__,
        "threads": threads,
        "repeats": args.repeats,
        "seconds": cases,
        "targets_seconds": TARGETS,
        "targets_met": {name: cases[name]["median"] <= target for name, target in TARGETS.items()},
        "figures": figures,
        "cold_compile_seconds": compile_seconds,
        "machine": {"cpus": os.cpu_count(), "platform": platform.platform(), "python": platform.python_version(),
                    "load_average": list(os.getloadavg())},
    }
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "bench_hold.json").write_text(json.dumps(result, indent=2) + "\n")
    (RESULTS / "bench_hold.md").write_text(markdown(result))
    for name, run in cases.items():
        print(f"{name:45s} {run['median']:8.3f} s (min {run['min']:.3f})")
    print(f"wrote {RESULTS / 'bench_hold.json'} and {RESULTS / 'bench_hold.md'}")


def markdown(result: dict) -> str:
    """The figures as a Markdown page."""
    seconds, figures = result["seconds"], result["figures"]
    met = ", ".join(f"{name} {'met' if ok else 'MISSED'}" for name, ok in result["targets_met"].items())
    lines = [f"# Hold analysis speed (baccarat_sim {result['version']})", "",
             f"Targets (2 cores): {met}.", "", "| case | median | min | target |", "| --- | ---: | ---: | ---: |"]
    for name, run in seconds.items():
        target = result["targets_seconds"].get(name)
        lines.append(f"| {name} | {run['median']:.3f} s | {run['min']:.3f} s | "
                     f"{'' if target is None else f'<= {target:g} s'} |")
    lines += ["", "Figures:", ""]
    for name, values in figures.items():
        shown = ", ".join(f"{key} {value:,.4g}" if isinstance(value, float) else f"{key} {value}"
                          for key, value in values.items())
        lines.append(f"- {name}: {shown}")
    if result["cold_compile_seconds"] is not None:
        lines += ["", f"Cold compile of the session kernels, fresh and dealt (empty numba cache, once per install): "
                      f"{result['cold_compile_seconds']:.1f} s."]
    machine = result["machine"]
    lines += [f"{result['threads']} threads. Machine: {machine['cpus']} CPUs, {machine['platform']}, Python "
              f"{machine['python']}, load average {', '.join(f'{x:.2f}' for x in machine['load_average'])}.", ""]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
