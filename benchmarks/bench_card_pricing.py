"""Speed of pricing card-level bets every round: the closed forms and the group enumeration (issue 39, item 4).

    python benchmarks/bench_card_pricing.py                 # 20 shoes of compositions, 2,000 shoes counted
    python benchmarks/bench_card_pricing.py --shoes 4 --count-shoes 200

Per round (one core, after compilation): the exact EV of card-level bets on
the cards left before every round of 8-deck shoes dealt to a cut card 14
cards from the end (a round takes five cards here), as a counting run pays it
(:func:`baccarat_sim.kernels.card_solver.solve_cards`, its tables built once),
timed in a compiled loop over those compositions, beside the cost model's
prediction (:meth:`baccarat_sim.engines.card_solver.CardSolver.round_cost`,
two shoes at a time on two cores). Cases: Colour Match (closed form, two
classes); a bet on P1's suit and rank (closed form, more classes); Contrast
Bonus (the group enumeration); every card-level bet of
catalogue-colour-and-suits but Colour Match (one group). The exact engine's
histogram with the rule set's card detail is timed on the same compositions
for scale (what a round would cost without the tables built once).

Counting: perfect play of Colour Match on catalogue-colour-and-suits (dealt),
rounds per second.

Figures go to ``results/bench_card_pricing.json``, with the machine they ran
on; timings from a busy machine are not final.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from pathlib import Path

import numba
import numpy as np

from baccarat_sim._version import __version__
from baccarat_sim.analysis.counting import count_simulation
from baccarat_sim.engines.card_solver import CardSolver
from baccarat_sim.engines.detail import rules_detail
from baccarat_sim.engines.exact import exact_histogram
from baccarat_sim.kernels.card_solver import solve_cards
from baccarat_sim.model.rules import load_rules, parse_rules
from baccarat_sim.model.shoe import as_shoe
from baccarat_sim.model.strategy import parse_strategy

RESULTS = Path(__file__).resolve().parent.parent / "results"
CUT_CARD = 14
CARDS_PER_ROUND = 5

SUIT_AND_RANK = """
schema_version = 1
id = "suit-and-rank"
[shoe]
decks = 8
[[bets]]
id = "heart_picture"
pays = [{ when = "P1.suit == hearts and P1.rank in [J, Q, K] and B1.suit == P1.suit", pays = "150:1" }]
otherwise = "lose"
"""


@numba.njit
def _price_all(first_four, group, shoes, n_bets):
    floor = np.full(n_bets, -np.inf)
    ev = np.zeros(n_bets)
    sign = np.zeros(n_bets, np.int64)
    solved = np.zeros(n_bets, np.bool_)
    total = 0.0
    for i in range(shoes.shape[0]):
        solve_cards(first_four, group, shoes[i], floor, ev, sign, solved)
        total += ev[0]
    return total


def compositions(n_shoes: int, seed: int = 39) -> np.ndarray:
    """The unseen cards before every round of ``n_shoes`` shuffled 8-deck shoes, ``(n, 13, 4)``."""
    rng = np.random.default_rng(seed)
    full = as_shoe(8)
    cards = np.repeat(np.arange(52), full.ravel())
    out = []
    for _ in range(n_shoes):
        order = rng.permutation(cards)
        for dealt in range(0, len(cards) - CUT_CARD - 6, CARDS_PER_ROUND):
            out.append(np.bincount(order[dealt:], minlength=52).reshape(13, 4))
    return np.array(out, np.int64)


def time_case(rules, bets, shoes: np.ndarray) -> dict:
    solver = CardSolver(rules, bets)
    first_four, group = solver.tables({b: i for i, b in enumerate(bets)})
    _price_all(first_four, group, shoes[:2], len(bets))  # compile
    started = time.perf_counter()
    _price_all(first_four, group, shoes, len(bets))
    seconds = time.perf_counter() - started
    return {"bets": list(bets), "kinds": solver.kinds, "rounds": len(shoes),
            "us_per_round": 1e6 * seconds / len(shoes),
            # The cost model's figure is a round's share of a run on two cores (two shoes priced at a time).
            "predicted_us_per_round_two_cores": 1e6 * solver.round_cost().seconds}


def time_exact(rules, shoes: np.ndarray, n: int) -> float:
    detail = rules_detail(rules)
    exact_histogram(shoes[0], detail)
    started = time.perf_counter()
    for shoe in shoes[:n]:
        exact_histogram(shoe, detail)
    return 1e6 * (time.perf_counter() - started) / n


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shoes", type=int, default=20, help="shoes of compositions to price (default 20)")
    parser.add_argument("--count-shoes", type=int, default=2_000, help="shoes of the counting run (default 2,000)")
    args = parser.parse_args()
    numba.set_num_threads(1)
    shoes = compositions(args.shoes)
    catalogue = load_rules("catalogue-colour-and-suits")
    cases = {
        "colour_match (first_four)": time_case(catalogue, ["colour_match"], shoes),
        "heart_picture (first_four)": time_case(parse_rules(SUIT_AND_RANK), ["heart_picture"], shoes),
        "contrast_bonus_35_15_5 (group)": time_case(catalogue, ["contrast_bonus_35_15_5"], shoes[:200]),
        "six card-level bets (one group)": time_case(catalogue, list(catalogue.bet_ids[1:]), shoes[:200]),
    }
    exact_us = time_exact(catalogue, shoes, 20)
    numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
    rules = catalogue.with_shoe(model="dealt")
    perfect = parse_strategy("schema_version = 1\nid = 'cm'\n[[bets]]\nid = 'colour_match'\nplay = 'perfect'")
    count_simulation(rules, perfect, 16, seed=1)  # compile
    result = count_simulation(rules, perfect, args.count_shoes, seed=39)
    report = {
        "benchmark": "bench_card_pricing",
        "version": __version__,
        "machine": {"platform": platform.platform(), "cpus": os.cpu_count(), "python": platform.python_version(),
                    "numba": numba.__version__, "load": os.getloadavg()},
        "per_round": cases,
        "exact_histogram_us_per_round": exact_us,
        "counting_perfect_colour_match": {
            "shoes": result.run["shoes"], "rounds": result.run["rounds"], "threads": result.run["threads"],
            "kernel_seconds": result.run["kernel_seconds"], "rounds_per_second": result.run["rounds_per_second"],
            "bet_share": result.rows[0]["bet_share"],
            "exact_advantage_per_bet": result.rows[0]["exact_advantage_per_bet"]},
    }
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "bench_card_pricing.json").write_text(json.dumps(report, indent=2) + "\n")
    for name, case in cases.items():
        print(f"{name:34} {case['us_per_round']:>10,.1f} us a round on one core (predicted share on two cores: "
              f"{case['predicted_us_per_round_two_cores']:,.0f})")
    print(f"{'exact histogram, rule set detail':34} {exact_us:>10,.1f} us a round")
    run = report["counting_perfect_colour_match"]
    print(f"perfect play on Colour Match: {run['rounds_per_second'] / 1e6:.2f} M rounds/s, "
          f"{run['shoes']:,} shoes, {run['threads']} threads")


if __name__ == "__main__":
    main()
