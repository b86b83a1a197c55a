"""A designer's costly bets (issue 39): refused fast, and Monte Carlo dealing at once.

    python benchmarks/bench_design.py            # 3 repeats of each case
    python benchmarks/bench_design.py --quick    # 1 repeat

Cases, each a command in a fresh interpreter (its start, the imports and the kernel cache's load included, as a
designer meets them), its address space capped at 3 GiB so that a refusal that came after the allocation would fail:

Since the exact count by rank, no single condition the grammar accepts is predicted beyond the memory or time limit
of one pricing (``tests/test_cost_model.py`` drives that refusal with a lowered limit); the costliest condition
found, ``P1.suit == B1.suit and P2.suit == B2.suit and poker(all) == flush``, prices in about 11-16 s on 8 decks,
and its effect of removal (about 53 pricings) is beyond the time limit. So:

* **refusal**: ``rtp --exact --eor`` of that condition (8 decks): the seconds to the one-line refusal (exit 2),
  before any pricing, and the seconds the refusal itself takes once the package is imported (the cost model's
  prediction); the issue's target is under a second;
* **first round**: ``rtp`` (Monte Carlo) of a rule set with that bet beside the Banker, 10^7 rounds: its exact
  figure is predicted beyond what a run waits for, so the run deals at once; the seconds from the interpreter's
  start to the first call of the dealing kernel, and the whole command; the issue's target is the first round
  dealt within 5 s of the start;
* **predictions**: the cost model's cells, bytes and seconds for the issue's conditions (no work is done).

Writes ``results/bench_design.json`` with the machine it ran on.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RESULTS = Path(__file__).resolve().parent.parent / "results"
#: The costliest condition found for one exact pricing (tests/test_cost_model.py uses it too).
COSTLY = "P1.suit == B1.suit and P2.suit == B2.suit and poker(all) == flush"
ADDRESS_SPACE = 3 << 30
FIRST_ROUND_TARGET_SECONDS = 5.0
REFUSAL_TARGET_SECONDS = 1.0

RULES = '''schema_version = 1
id = "{id}"
name = "{id}"
payout_notation = "to"

[shoe]
decks = {decks}

[commission]
rate = 0.05

[[bets]]
id = "banker"
name = "Banker"
pays = [{{ when = "winner == banker", pays = "1:1", commission = true }}, {{ when = "winner == tie", pays = "push" }}]
otherwise = "lose"

[[bets]]
id = "{bet}"
name = "{bet}"
pays = [{{ when = "{when}", pays = "{pays}" }}]
otherwise = "lose"
'''

#: Run as ``python -c``: the rtp command, with the time of the first call of the dealing kernel written to stderr.
FIRST_ROUND = '''
import time
started = time.perf_counter()
import runpy, sys
import baccarat_sim.engines.montecarlo as montecarlo
deal = montecarlo.deal_blocks
def first(*args, **kwargs):
    if not getattr(first, "told", False):
        first.told = True
        print(f"FIRST_ROUND {time.perf_counter() - started:.3f}", file=sys.stderr, flush=True)
    return deal(*args, **kwargs)
montecarlo.deal_blocks = first
sys.argv = ["rtp", *sys.argv[1:]]
try:
    runpy.run_module("baccarat_sim.rtp", run_name="__main__")
finally:
    print(f"TOTAL {time.perf_counter() - started:.3f}", file=sys.stderr, flush=True)
'''

#: Run as ``python -c``: the refusal alone, once the package is imported.
REFUSAL = '''
import sys, time
from baccarat_sim.analysis.eor import check_eor_cost
from baccarat_sim.errors import InvalidRules
from baccarat_sim.model.rules import load_rules
started = time.perf_counter()
rules = load_rules(sys.argv[1])
try:
    check_eor_cost(rules)
except InvalidRules:
    print(f"REFUSED {time.perf_counter() - started:.3f}")
'''


def _capped():
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))


def _run(argv: list[str]) -> tuple[float, subprocess.CompletedProcess]:
    started = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, timeout=600, preexec_fn=_capped)
    return time.perf_counter() - started, done


def _marker(text: str, name: str) -> float | None:
    for line in text.splitlines():
        if line.startswith(name + " "):
            return float(line.split()[1])
    return None


def _rules_file(directory: Path, rules_id: str, decks: int, bet: str, when: str, pays: str) -> str:
    path = directory / f"{rules_id}.toml"
    path.write_text(RULES.format(id=rules_id, decks=decks, bet=bet, when=when, pays=pays))
    return str(path)


def _predictions() -> list[dict]:
    from baccarat_sim.model import cost
    from baccarat_sim.model.conditions import compile_condition

    rows = []
    for condition in (COSTLY, "poker(banker) > poker(player)", "poker(all) == flush", "poker(all) == four_of_a_kind",
                      "kind(all) >= 3", "P1.suit == B1.suit"):
        atoms = tuple(compile_condition(condition).atoms)
        started = time.perf_counter()
        exact, reach, kernel = (cost.exact_cost(atoms, "prefixes"), cost.reach_cost(atoms, "prefixes"),
                                cost.kernel_cost(atoms, "prefixes"))
        rows.append({"condition": condition, "prediction_seconds": time.perf_counter() - started,
                     **{f"{name}_{field}": getattr(c, field) for name, c in (("exact", exact), ("reach", reach),
                                                                              ("kernel", kernel))
                        for field in ("cells", "bytes", "seconds")}})
    return rows


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="one repeat of each case")
    parser.add_argument("--rounds", default="1e7", help="Monte Carlo rounds of the first-round case (default 1e7)")
    args = parser.parse_args(argv)
    repeats = 1 if args.quick else 3
    python = sys.executable
    figures: dict = {"refusal": [], "refusal_in_process": [], "first_round": [], "first_round_command": []}
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        costly = _rules_file(directory, "costly", 8, "costly", COSTLY, "100:1")
        for _ in range(repeats):
            seconds, done = _run([python, "-m", "baccarat_sim.rtp", "--exact", "--eor", "--rules", costly])
            assert done.returncode == 2 and "bets.costly" in done.stderr and "effect of removal" in done.stderr, \
                done.stderr
            figures["refusal"].append(seconds)
            _, done = _run([python, "-c", REFUSAL, costly])
            figures["refusal_in_process"].append(_marker(done.stdout, "REFUSED"))
            _, done = _run([python, "-c", FIRST_ROUND, "--rules", costly, "--rounds", args.rounds, "--seed", "1",
                            "--quiet", "--out", str(directory / "out")])
            assert done.returncode == 0, done.stderr
            figures["first_round"].append(_marker(done.stderr, "FIRST_ROUND"))
            figures["first_round_command"].append(_marker(done.stderr, "TOTAL"))
    best = {name: min(values) for name, values in figures.items()}
    result = {
        "machine": {"platform": platform.platform(), "processor": platform.processor(), "cpus": os.cpu_count(),
                    "python": platform.python_version()},
        "command": " ".join(["python", "benchmarks/bench_design.py", *(argv or sys.argv[1:])]),
        "repeats": repeats,
        "rounds": args.rounds,
        "seconds": figures,
        "best_seconds": best,
        "targets": {"first_round_seconds": FIRST_ROUND_TARGET_SECONDS, "refusal_seconds": REFUSAL_TARGET_SECONDS},
        "met": {"first_round": best["first_round"] <= FIRST_ROUND_TARGET_SECONDS,
                "refusal_in_process": best["refusal_in_process"] <= REFUSAL_TARGET_SECONDS},
        "predictions": _predictions(),
    }
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "bench_design.json").write_text(json.dumps(result, indent=2) + "\n")
    for name, value in best.items():
        print(f"{name:24} {value:7.2f} s (best of {repeats})")
    print(f"wrote {RESULTS / 'bench_design.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
