"""Speed of card-level bets (issue 13): exact pricing, Monte Carlo against the same run without them, compile.

    python benchmarks/bench_cardlevel.py                 # 5 repeats, 5e7 Monte Carlo rounds, cold compile
    python benchmarks/bench_cardlevel.py --quick         # 1 repeat, 2e7 rounds, no cold compile

Cases (compile excluded: every kernel is run once before the timings; each time is the best of the
repeats, the cases of a repeat run one after another so that a noisy neighbour hurts all alike):

* **exact pricing on 8 decks** of a rule set of suit-level bets (Colour Match, 3 Giving 8, a Player flush,
  a heart as the Player's third card, first cards of one suit, Heart of the Winner): the card detail worked
  out afresh (which combinations of the bets' card-only conditions can happen, on a shoe that deals every
  six-card sequence), the 8-deck enumeration with that detail and the settlement, all cores; issue 13's
  target is at most 10 s on 2 cores. Beside it, rule sets without card-level bets (``default``,
  ``live-8deck-side-bets``), which must stay at milliseconds;
* **Monte Carlo rounds/s** (kernel time, on 1 thread and on all cores) of the main bets with and without
  card-level bets beside them, as a ratio measured in this run (each repeat runs the two back to back; the
  ratio is the median over the repeats of the pairs' ratios): the fresh model, the dealt model with
  per-position rows and the dealt model without them (a live 8-deck shoe: burn by the turned card's face
  value, cut card 14 from the end), with four card-level bets (16 card details); and the dealt model with
  position rows with Colour Match alone (2 card details), to show how the position rows' cost grows with the
  cells (details x 14,400). The issue's target: at least 50% of the rounds/s without card-level bets;
* **cold compile** of the card-detail kernels: in a fresh interpreter with an empty numba cache, the first
  exact pricing and the first Monte Carlo run of a card-level rule set, after the plain kernels have been
  compiled in the same process (``--no-compile`` skips it).

Writes ``results/bench_cardlevel.json`` and ``results/bench_cardlevel.md`` with the machine they ran on.
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
from baccarat_sim.analysis.settlement import settle
from baccarat_sim.cli.common import parse_rounds
from baccarat_sim.engines.detail import detail_of_group, rules_detail
from baccarat_sim.engines.driver import run
from baccarat_sim.engines.exact import exact_histogram
from baccarat_sim.engines.local import LocalBackend
from baccarat_sim.engines.montecarlo import HistogramJob
from baccarat_sim.engines.plan import plan_run
from baccarat_sim.engines.state import RunState
from baccarat_sim.model.rules import load_rules, parse_rules

RESULTS = Path(__file__).resolve().parent.parent / "results"
EXACT_TARGET_SECONDS = 10.0
MC_TARGET_RATIO = 0.5

FRESH_SHOE = '[shoe]\ndecks = 8\nshuffle = "fresh"\n'
DEALT_SHOE = ('[shoe]\ndecks = 8\nshuffle = "dealt"\nburn = "face_value"\nten_value = 10\ndiscard_turned = true\n'
              'cut_card = { cards_from_end = 14 }\nafter_cut = "finish_round"\n')
MAIN_BETS = '''
[[bets]]
id = "player"
name = "Player"
pays = [{ when = "winner == player", pays = "1:1" }, { when = "winner == tie", pays = "push" }]
otherwise = "lose"

[[bets]]
id = "banker"
name = "Banker"
pays = [{ when = "winner == banker", pays = "1:1", commission = true }, { when = "winner == tie", pays = "push" }]
otherwise = "lose"

[[bets]]
id = "tie"
name = "Tie"
pays = [{ when = "winner == tie", pays = "8:1" }]
otherwise = "lose"
'''
#: Suit-level bets: (id, name, [(condition, pays)]).
SUIT_BETS = (
    ("colour_match", "Colour Match", [("count(colour == red, first_four) in [0, 4]", "6:1")]),
    ("three_giving_eight", "3 Giving 8", [("banker_two_card_total == 3 and P3.rank == 8", "200:1")]),
    ("player_flush", "Player flush", [("player_flush", "20:1")]),
    ("p3_heart", "The Player draws a heart", [("P3.suit == hearts", "3:1")]),
    ("first_cards_suited", "First cards of one suit", [("P1.suit == B1.suit", "3:1")]),
    ("hearts_winner", "Heart of the Winner", [
        ("winner == banker and banker_flush and B1.suit == hearts", "40:1"),
        ("winner == banker and B1.suit == hearts and not banker_flush", "3:1"),
    ]),
)
#: The Monte Carlo card-level bets: few enough card details (16) that a dealt run keeps its per-position rows.
MC_CARD_BETS = ("colour_match", "three_giving_eight", "player_flush", "p3_heart")
#: Twenty card-level bets (issue 22): a suit at each of the first four positions and the third cards (12), the
#: count of red cards among all six (7), and Jackpot Baccarat's poker value of the first four cards.
TWENTY_BETS = tuple(
    (f"{p.lower()}_{suit}", f"{p} is a {suit[:-1]}", [(f"{p}.suit == {suit}", "3:1")])
    for p in ("P1", "B1", "P2", "B2", "P3", "B3") for suit in ("hearts", "spades")
) + tuple((f"reds_{n}", f"{n} red cards", [(f"count(colour == red, all) == {n}", "5:1")]) for n in range(7)) + (
    ("jackpot", "Jackpot Baccarat", [
        ("poker(first_four) == mini_royal", "250:1"), ("poker(first_four) == four_of_a_kind", "75:1"),
        ("poker(first_four) == straight_flush", "50:1"), ("poker(first_four) == three_of_a_kind", "15:1"),
        ("poker(first_four) == flush", "10:1"), ("poker(first_four) == straight", "5:1"),
        ("poker(first_four) == two_pair", "4:1"),
        ("poker(first_four) == pair and kind_rank(first_four) == A", "2:1"),
        ("poker(first_four) == pair and kind_rank(first_four) in [10, J, Q, K]", "push"),
    ]),
)
#: Poker bets priced exactly (issue 22's targets: Jackpot Baccarat <= 5 s, Dragon Dragon <= 30 s on 2 cores). Dragon
#: Dragon is written by ranks alone, as catalogue-poker writes it (triples(all) == 2 is poker(all) ==
#: double_three_of_a_kind): poker(all) reads the suits of the third cards and takes over a minute.
POKER_BETS = (
    TWENTY_BETS[-1],
    ("dragon_dragon", "Dragon Dragon (jackpot lines at 1000 and 100)", [
        ("kind(all) == 6", "1000:1"), ("kind(all) == 5", "100:1"),
        ("triples(all) == 2", "50:1"), ("kind(all) == 4", "20:1"),
        ("kind(all) == 3 and total_cards == 4", "5:1"),
    ]),
)
POKER_TARGETS = {"jackpot": 5.0, "dragon_dragon": 30.0}
#: Monte Carlo cases: (name, shoe, position rows, card-level bets).
MC_CASES = (
    ("fresh", FRESH_SHOE, None, MC_CARD_BETS),
    ("dealt, position rows", DEALT_SHOE, True, MC_CARD_BETS),
    ("dealt, no position rows", DEALT_SHOE, False, MC_CARD_BETS),
    ("dealt, position rows, Colour Match only", DEALT_SHOE, True, ("colour_match",)),
    ("fresh, 20 card-level bets", FRESH_SHOE, None, tuple(b[0] for b in TWENTY_BETS)),
    ("dealt, no position rows, 20 card-level bets", DEALT_SHOE, False, tuple(b[0] for b in TWENTY_BETS)),
)


def rule_text(rules_id: str, shoe: str, card_bets=()) -> str:
    """The three main bets, and the named suit-level bets."""
    text = f'schema_version = 1\nid = "{rules_id}"\nname = "{rules_id}"\n\n[commission]\nrate = 0.05\n\n{shoe}'
    text += MAIN_BETS
    for bet_id, name, lines in SUIT_BETS + TWENTY_BETS[:-1] + POKER_BETS:
        if bet_id in card_bets:
            pays = ",\n".join(f'  {{ when = "{when}", pays = "{pays}" }}' for when, pays in lines)
            text += f'\n[[bets]]\nid = "{bet_id}"\nname = "{name}"\npays = [\n{pays},\n]\notherwise = "lose"\n'
    return text


def best_of(function, repeats: int) -> tuple[dict, object]:
    """Best and all wall times of ``function()`` in seconds, and its last result."""
    times, result = [], None
    for _ in range(repeats):
        started = time.perf_counter()
        result = function()
        times.append(time.perf_counter() - started)
    return {"best_s": min(times), "times_s": times, "repeats": repeats}, result


def price(rules):
    """Exact pricing from scratch: the card detail (not cached), the 8-deck histogram, every bet settled."""
    detail_of_group.cache_clear()
    return settle(exact_histogram(rules), rules)


def measure_exact(repeats: int) -> dict:
    suit_rules = parse_rules(rule_text("suit-bets", FRESH_SHOE, [b[0] for b in SUIT_BETS]), "suit-bets.toml")
    price(suit_rules)  # compile (or load from the cache)
    cases = {}
    cases["suit_level_rule_set_8_decks"], results = best_of(lambda: price(suit_rules), repeats)
    detail = rules_detail(suit_rules)
    cases["suit_level_rule_set_8_decks"].update({
        "bets": len(suit_rules.bets), "atoms": len(detail.atoms),
        "card_details": sum(group.n_details for group in detail.groups),
        "house_edge": {r.id: -r.ev for r in results},
    })

    def detail_only():
        detail_of_group.cache_clear()
        return rules_detail(suit_rules)

    cases["its_card_detail_only"], _ = best_of(detail_only, repeats)
    cases["its_8_deck_enumeration_only"], _ = best_of(lambda: exact_histogram(8, detail), repeats)
    for bet_id, _, _ in POKER_BETS:
        rules = parse_rules(rule_text(bet_id, FRESH_SHOE, [bet_id]), f"{bet_id}.toml")
        cases[f"{bet_id}_8_decks"], results = best_of(lambda rules=rules: price(rules), repeats)
        cases[f"{bet_id}_8_decks"]["house_edge"] = {r.id: -r.ev for r in results}
    for name in ("default", "live-8deck-side-bets"):
        rules = load_rules(name)
        settle(exact_histogram(rules), rules)
        cases[f"{name}_8_decks_no_card_level_bets"], _ = best_of(
            lambda rules=rules: settle(exact_histogram(rules), rules), max(repeats, 5))
    return cases


def kernel_case(rules, rounds: int, by_position: bool | None, threads: int) -> dict:
    """One run on the real path (the run driver): rounds and kernel seconds."""
    plan = plan_run(rules, rounds, seed=2024, by_position=by_position)
    state = RunState.empty(plan)
    run(HistogramJob(plan), state, LocalBackend(threads))
    return {"rounds": state.rounds, "kernel_seconds": state.kernel_seconds, "positions": plan.n_positions,
            "cells": plan.n_cells}


def measure_mc(rounds: int, repeats: int, thread_counts) -> list[dict]:
    """Rounds/s of each case without and with card-level bets, run as back-to-back pairs.

    The ratio of a case is the median over the repeats of each pair's ratio: on a shared machine the load
    changes between repeats more than within a pair.
    """
    cases = []
    for name, shoe, rows, card_bets in MC_CASES:
        plain = parse_rules(rule_text("main-bets", shoe), "main-bets.toml")
        cards = parse_rules(rule_text("main-and-card-bets", shoe, card_bets), "main-and-card-bets.toml")
        cases.append({"case": name, "plain": plain, "cards": cards, "rows": rows,
                      "card_details": sum(group.n_details for group in rules_detail(cards).groups)})
    for case in cases:  # compile (or load from the cache) both kernels of every case first
        for key in ("plain", "cards"):
            kernel_case(case[key], 200_000, case["rows"], 1)
    pairs: dict = {}
    for _ in range(repeats):
        for case in cases:
            for threads in thread_counts:
                plain = kernel_case(case["plain"], rounds, case["rows"], threads)
                cards = kernel_case(case["cards"], rounds, case["rows"], threads)
                pairs.setdefault((case["case"], threads), []).append((plain, cards))
    out = []
    for case in cases:
        for threads in thread_counts:
            runs = pairs[case["case"], threads]
            plain_rates = [p["rounds"] / p["kernel_seconds"] for p, _ in runs]
            card_rates = [c["rounds"] / c["kernel_seconds"] for _, c in runs]
            ratios = [c / p for p, c in zip(plain_rates, card_rates)]
            ratio = statistics.median(ratios)
            out.append({
                "case": case["case"], "threads": threads, "rounds": runs[0][1]["rounds"],
                "positions": runs[0][1]["positions"], "card_details": case["card_details"],
                "cells": runs[0][1]["cells"], "plain_rounds_per_second": max(plain_rates),
                "card_rounds_per_second": max(card_rates), "pair_ratios": ratios, "ratio": ratio,
                "meets_target": ratio >= MC_TARGET_RATIO,
            })
    return out


_COLD = """
import sys, time
from baccarat_sim.model.rules import parse_rules, load_rules
from baccarat_sim.engines.exact import exact_histogram
from baccarat_sim.engines.simulation import simulate
sys.path.insert(0, sys.argv[1])
from bench_cardlevel import FRESH_SHOE, MC_CARD_BETS, rule_text
t = time.perf_counter()
exact_histogram(8)
simulate(load_rules("default"), 100_000, seed=1)
plain = time.perf_counter() - t
rules = parse_rules(rule_text("cold", FRESH_SHOE, MC_CARD_BETS), "cold.toml")
t = time.perf_counter()
exact_histogram(rules)
exact_s = time.perf_counter() - t
t = time.perf_counter()
simulate(rules, 100_000, seed=1)
print(plain, exact_s, time.perf_counter() - t)
"""


def cold_compile() -> dict:
    """First runs in a fresh process with an empty numba cache: plain kernels, then the card-detail ones."""
    plain, exact_s, mc_s = cold_run(_COLD, str(Path(__file__).resolve().parent))
    return {"plain_kernels_first_run_s": plain, "card_detail_exact_first_run_s": exact_s,
            "card_detail_monte_carlo_first_run_s": mc_s}


def code_state() -> dict:
    """The commit measured, and the package files that differ from it in the working tree (others' work)."""
    repo = Path(__file__).resolve().parent.parent

    def git(*args: str) -> str:
        done = subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True)
        return done.stdout if done.returncode == 0 else ""

    changed = [line[3:] for line in git("status", "--porcelain", "--", "baccarat_sim").splitlines()]
    return {"commit": git("rev-parse", "--short", "HEAD").strip(), "package_files_changed": changed}


def to_markdown(result: dict) -> str:
    machine = result["machine"]
    lines = [
        "# Card-level bets: speed (issues 13 and 22)",
        "",
        f"`{result['command']}` — baccarat_sim {result['version']}, {machine['cpus']} CPUs, numba "
        f"{result['numba']} ({result['threads']} threads), load average at the end "
        f"{' '.join(f'{x:.2f}' for x in machine['load_average'])}",
        "",
        f"Code: commit {result['code']['commit']}"
        + (f", with uncommitted changes to {', '.join(result['code']['package_files_changed'])}"
           if result["code"]["package_files_changed"] else "") + ".",
        "",
        "## Exact pricing, 8 decks (all cores)",
        "",
        "| case | best | all repeats | target |",
        "|---|---:|---|---|",
    ]
    for name, case in result["exact"].items():
        target = ""
        limit = EXACT_TARGET_SECONDS if name == "suit_level_rule_set_8_decks" else POKER_TARGETS.get(
            name.removesuffix("_8_decks"))
        if limit is not None:
            target = f"<= {limit:.0f} s: {'met' if case['best_s'] <= limit else 'MISSED'}"
        times = ", ".join(f"{t:.3f}" for t in case["times_s"])
        lines.append(f"| {name.replace('_', ' ')} | {case['best_s']:.3f} s | {times} | {target} |")
    suit = result["exact"]["suit_level_rule_set_8_decks"]
    lines += ["", f"The suit-level rule set: {suit['bets']} bets, {suit['atoms']} card-only conditions, "
                  f"{suit['card_details']} combinations of them that can happen. House edges: "
              + ", ".join(f"{k} {v:.4%}" for k, v in suit["house_edge"].items()) + ".", ""]
    lines += ["## Monte Carlo, kernel rounds/s (all cores, compile excluded)", "",
              "| case | threads | rounds | card details | main bets only (best) | with card-level bets (best) | "
              "ratio (median of pairs) | pairs | target >= 50% |",
              "|---|---:|---:|---:|---:|---:|---:|---|---|"]
    for case in result["monte_carlo"]:
        pairs = ", ".join(f"{r:.0%}" for r in case["pair_ratios"])
        lines.append(f"| {case['case']} | {case['threads']} | {case['rounds']:,} | {case['card_details']} | "
                     f"{case['plain_rounds_per_second'] / 1e6:.1f} M | "
                     f"{case['card_rounds_per_second'] / 1e6:.1f} M | {case['ratio']:.0%} | {pairs} | "
                     f"{'met' if case['meets_target'] else 'MISSED'} |")
    cold = result["cold_compile"]
    if cold:
        lines += ["", "## Cold compile (empty numba cache, fresh interpreter)", "",
                  f"Plain kernels (exact 8 decks, a default Monte Carlo run): {cold['plain_kernels_first_run_s']:.1f} "
                  f"s; then the first exact pricing with card detail {cold['card_detail_exact_first_run_s']:.1f} s "
                  f"and the first Monte Carlo run with card detail {cold['card_detail_monte_carlo_first_run_s']:.1f} "
                  "s (compile included)."]
    lines += ["", f"Machine: {machine['platform']}, Python {machine['python']}."]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=parse_rounds, default=50_000_000, help="Monte Carlo rounds per case")
    parser.add_argument("--repeats", type=int, default=5,
                        help="repeats of each case (exact pricing: the best counts; Monte Carlo: the median of the "
                             "back-to-back pairs)")
    parser.add_argument("--quick", action="store_true", help="1 repeat, 2e7 rounds, no cold compile")
    parser.add_argument("--no-compile", action="store_true", help="skip the cold-compile measurement")
    args = parser.parse_args()
    rounds, repeats = (20_000_000, 1) if args.quick else (args.rounds, args.repeats)

    result = {
        "benchmark": "bench_cardlevel",
        "version": __version__,
        "command": " ".join(["python benchmarks/bench_cardlevel.py", *sys.argv[1:]]),
        "code": code_state(),
        "numba": numba.__version__,
        "threads": numba.get_num_threads(),
        "exact": measure_exact(repeats),
        "exact_target_seconds": EXACT_TARGET_SECONDS,
        "monte_carlo": measure_mc(rounds, repeats, (1, numba.config.NUMBA_NUM_THREADS) if
                                  numba.config.NUMBA_NUM_THREADS > 1 else (1,)),
        "monte_carlo_target_ratio": MC_TARGET_RATIO,
        "cold_compile": None if (args.quick or args.no_compile) else cold_compile(),
    }
    result["machine"] = {"cpus": os.cpu_count(), "platform": platform.platform(), "python": platform.python_version(),
                         "load_average": os.getloadavg()}
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / "bench_cardlevel.json").write_text(json.dumps(result, indent=2) + "\n")
    markdown = to_markdown(result)
    (RESULTS / "bench_cardlevel.md").write_text(markdown)
    print(markdown)


if __name__ == "__main__":
    main()
