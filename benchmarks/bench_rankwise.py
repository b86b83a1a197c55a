"""Exact pricing of hard card-level bets on 8 decks (issue 39): time and peak memory, each in a fresh process.

    python benchmarks/bench_rankwise.py                # every case
    python benchmarks/bench_rankwise.py --only flush   # the cases whose name holds "flush"

Each case is one rule file priced exactly (``settle(exact_histogram(rules), rules)``: which combinations of the
bets' card-only conditions can happen, the 8-deck enumeration, the settlement), in a fresh interpreter whose
address space is capped (``ulimit -v``, :data:`MEMORY_LIMIT_BYTES`) and whose kernels are loaded first by pricing
a small card-level rule file (so the time is the pricing's, not numba's loading from its cache). Recorded: the
wall time of the pricing, the process's peak resident memory, the threads, and the load average (the machine is
shared: a figure taken under load is slower than the machine). The issue's targets: one condition at most 10 s
and 1 GB on 2 cores; a file of 40 such bets at most 60 s.

Writes ``results/bench_rankwise.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import time
from pathlib import Path

RESULTS = Path(__file__).resolve().parent.parent / "results"
#: The address-space cap of each case's process (``ulimit -v``): the issue's 1 GB.
MEMORY_LIMIT_BYTES = 1 << 30
TARGET_ONE_S = 10.0
TARGET_FORTY_S = 60.0

#: Poker categories that a hand of six cards can make, highest first (high card is what the ladder lets lose).
LADDER = ("six_of_a_kind", "five_of_a_kind", "royal", "straight_flush", "four_of_a_kind", "double_three_of_a_kind",
          "full_house", "three_of_a_kind", "flush", "straight", "three_pair", "two_pair", "pair")


def bet(bet_id: str, lines) -> str:
    """One bet of ``(condition, pays)`` lines, losing otherwise."""
    pays = ",\n".join(f'  {{ when = "{when}", pays = "{pays}:1" }}' for when, pays in lines)
    return f'[[bets]]\nid = "{bet_id}"\npays = [\n{pays},\n]\notherwise = "lose"\n'


def rule_file(rules_id: str, bets) -> str:
    """An 8-deck fresh-shuffle rule file offering ``bets`` (texts of :func:`bet`)."""
    return "\n".join([f'schema_version = 1\nid = "{rules_id}"\nname = "{rules_id}"\n\n[shoe]\ndecks = 8\n'
                      'shuffle = "fresh"\n', *bets])


def forty_bets() -> list[str]:
    """Forty card-level bets a designer might write: poker values of every hand, compared and on the ladder."""
    bets = []
    hands = ("player", "banker", "all", "first_four", "[P1, P2]", "[P3, B3]")
    for hand in hands:
        three = "three_of_a_kind" if hand in ("player", "banker", "all", "first_four") else "pair"
        for category in ("flush", "straight", three, "straight_flush"):
            bets.append((f"poker({hand}) == {category}", "10"))
    for left, right in (("banker", "player"), ("player", "banker"), ("all", "first_four"), ("[P1, B1]", "[P2, B2]")):
        bets.append((f"poker({left}) > poker({right})", "1"))
        bets.append((f"poker({left}) == poker({right})", "8"))
    bets += [("flush(player) == 1 and flush(banker) == 1", "30"), ("kind(all) >= 4", "50"),
             ("straight(all) == 1", "40"), ("flush(all) == 1", "100"), ("pairs(all) >= 2", "3"),
             ("poker(banker) >= flush and poker(player) >= flush", "200"),
             ("count(colour in [red], P1, B1, P2, B2, P3, B3) == 6", "25"),
             ("P3.suit == B3.suit and poker(all) >= pair", "5")]
    return [bet(f"bet{i}", [line]) for i, line in enumerate(bets)]


def cases() -> dict[str, str]:
    return {
        "banker_poker_beats_player": rule_file("banker-beats", [bet("b", [("poker(banker) > poker(player)", "1")])]),
        "all_six_flush": rule_file("all-flush", [bet("f", [("poker(all) == flush", "20")])]),
        "all_six_ladder": rule_file("all-ladder", [bet("ladder", [(f"poker(all) == {c}", str(len(LADDER) - i))
                                                                  for i, c in enumerate(LADDER)])]),
        "all_six_four_of_a_kind_readme": rule_file("readme", [bet("q", [("poker(all) == four_of_a_kind", "100")])]),
        "forty_bets": rule_file("forty", forty_bets()),
    }


_CASE = r"""
import json, resource, sys, time
import numba
from baccarat_sim.analysis.settlement import settle
from baccarat_sim.engines.exact import exact_histogram
from baccarat_sim.model.rules import parse_rules
warm = parse_rules(sys.argv[2], "warm.toml")
settle(exact_histogram(warm), warm)  # the kernels loaded (or compiled) before the clock starts
rules = parse_rules(sys.argv[1], "case.toml")
started = time.perf_counter()
results = settle(exact_histogram(rules), rules)
seconds = time.perf_counter() - started
print(json.dumps({"seconds": seconds, "peak_rss_bytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
                  "threads": numba.get_num_threads(), "bets": len(rules.bets),
                  "rtp": {r.id: float(1 + r.ev) for r in results}}))
"""
#: A small rule file that loads every card-detail kernel (by card, by rank) before the clock starts.
_WARM = rule_file("warm", [bet("w", [("P1.suit == B1.suit", "1")]),
                           bet("v", [("poker([P1, B3]) > poker([B1, P3])", "1")])])


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT_BYTES, MEMORY_LIMIT_BYTES))


def run_case(text: str) -> dict:
    done = subprocess.run([sys.executable, "-c", _CASE, text, _WARM], capture_output=True, text=True,
                          preexec_fn=_limit_memory, check=False)
    if done.returncode != 0:
        return {"error": done.stderr.strip().splitlines()[-1] if done.stderr.strip() else f"exit {done.returncode}"}
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default="", help="run only the cases whose name holds this text")
    args = parser.parse_args()
    measured = {}
    for name, text in cases().items():
        if args.only not in name:
            continue
        load_before = os.getloadavg()
        measured[name] = {**run_case(text), "load_average_before": load_before, "load_average_after": os.getloadavg(),
                          "target_s": TARGET_FORTY_S if name == "forty_bets" else TARGET_ONE_S,
                          "target_bytes": MEMORY_LIMIT_BYTES}
        case = measured[name]
        print(f"{name}: {case.get('seconds', float('nan')):.2f} s, peak "
              f"{case.get('peak_rss_bytes', 0) / 2**20:.0f} MiB {case.get('error', '')} (load "
              f"{load_before[0]:.1f})", flush=True)
    RESULTS.mkdir(exist_ok=True)
    result = {"command": " ".join(["python", "benchmarks/bench_rankwise.py", *sys.argv[1:]]),
              "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
              "machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "platform": platform.platform()},
              "memory_limit_bytes": MEMORY_LIMIT_BYTES, "cases": measured}
    (RESULTS / "bench_rankwise.json").write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()
