"""The benchmark figures that the benchmarks page and README show, read from ``results/bench_*.json``.

Each benchmark script (``benchmarks/bench_NAME.py``) writes its figures to
``results/bench_NAME.json``. :data:`BENCH_FIGURES` picks the figures a reader
needs out of those files, one small entry each (what, which file, how to read
the figure out of its JSON, its unit, its target); ``docs/parts.py`` writes the
tables into the pages between generated markers, so that a rerun benchmark
changes its row with ``python docs/generate.py``. A file no entry reads is
listed under the table, so that a new benchmark is seen before it has an entry.
"""

from __future__ import annotations

import dataclasses
import json
import statistics
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "results"


@dataclasses.dataclass(frozen=True)
class Figure:
    """One row: a figure read out of one benchmark file."""

    what: str  #: what was measured, as a reader asks it
    file: str  #: the file under results/ it is read from
    read: Callable[[dict], float | tuple[float, ...]]  #: the figure (or figures, joined by " / ") out of the JSON
    unit: str  #: a key of UNITS: how the figure is written
    target: str = ""  #: the target it is held to, if any (issue numbers stay on the benchmarks page)
    readme: bool = False  #: also one of README's few figures
    script: str = ""  #: the script that writes the file, where its name is not the file's (an option's output)
    #: The target as numbers: per figure (one pair for all), ``(operator, limit)`` in the figure's unit before it is
    #: written (seconds, MB, rounds/s, a fraction), or None where that figure has no target.
    bounds: tuple = ()


def _rate(value: float) -> str:
    return f"{value / 1e6:,.0f} M rounds/s" if value >= 1e7 else f"{value:,.0f} rounds/s"


def _minutes(value: float) -> str:
    minutes, seconds = divmod(round(value), 60)
    return f"{minutes} min {seconds} s"


def _seconds(value: float) -> str:
    return f"{value * 1e3:.1f} ms" if value < 0.1 else f"{value:.2f} s" if value < 10 else f"{value:.1f} s"


#: Unit -> how one figure is written.
UNITS: dict[str, Callable[[float], str]] = {
    "rounds/s": _rate,
    "s": _seconds,
    "share": lambda value: f"{value:.0%} of the plain speed",
    "fraction": lambda value: f"{value:+.1%}",
    "MB": lambda value: f"{value:,.0f} MB",
    "min": _minutes,
    "us": lambda value: f"{value:,.1f} us",
}


def _case(rows: list[dict], **match) -> dict:
    """The one row of a list of cases whose fields equal ``match``."""
    found = [row for row in rows if all(row.get(k) == v for k, v in match.items())]
    if len(found) != 1:
        raise KeyError(f"{len(found)} cases match {match}")
    return found[0]


def _suite_seconds(run: dict) -> float:
    """The test command's time, only from a run of the whole suite that passed."""
    if not run["whole_suite"] or run["exit_status"] != 0:
        raise KeyError("not a passing run of the whole suite (a trial of the script?)")
    return run["seconds"]


def _threads(rows: list[dict], key: str, **match) -> tuple[float, float]:
    """A figure on 1 and on 2 threads."""
    return tuple(_case(rows, threads=n, **match)[key] for n in (1, 2))


#: The figures, in the order the table shows them. A new benchmark file needs one entry here.
BENCH_FIGURES: tuple[Figure, ...] = (
    Figure("Monte Carlo, fresh shuffle, 8 decks, 1 / 2 threads", "bench_mc.json",
           lambda d: _threads(d["kernel"], "rounds_per_second", case="fresh"), "rounds/s",
           ">= 45 M on 1 thread, >= 80 M on 2", bounds=((">=", 45e6), (">=", 80e6)), readme=True),
    Figure("Monte Carlo, dealt shoe (burn, cut card), 8 decks, 1 / 2 threads", "bench_mc.json",
           lambda d: _threads(d["kernel"], "rounds_per_second", case="dealt"), "rounds/s", ">= 70 M on 2 threads",
           bounds=(None, (">=", 70e6)),
           readme=True),
    Figure("Monte Carlo, dealt shoe with RTP by round position, 1 / 2 threads", "bench_mc.json",
           lambda d: _threads(d["kernel"], "rounds_per_second", case="dealt, position rows"), "rounds/s"),
    Figure("`python -m baccarat_sim.rtp --rounds 1e9`, kernel time, 2 threads", "bench_mc.json",
           lambda d: d["cli"]["kernel_seconds"], "s"),
    Figure("peak memory of a fresh run of 10^7 rounds", "bench_mc.json",
           lambda d: _case(d["memory"], model="fresh", rounds=10_000_000)["peak_rss_mb"], "MB", "bounded"),
    Figure("Monte Carlo with four card-level bets (suits, colours), fresh, 1 / 2 threads", "bench_cardlevel.json",
           lambda d: _threads(d["monte_carlo"], "ratio", case="fresh"), "share", ">= 50%",
           bounds=((">=", 0.5),), readme=True),
    Figure("Monte Carlo with 20 card-level bets, fresh, 1 / 2 threads", "bench_cardlevel.json",
           lambda d: _threads(d["monte_carlo"], "ratio", case="fresh, 20 card-level bets"), "share", ">= 50%",
           bounds=((">=", 0.5),)),
    Figure("exact histogram, 8 decks (every main bet priced)", "bench_exact.json",
           lambda d: d["full_shoe"]["exact_histogram_8_decks"]["median_ms"] / 1e3, "s"),
    Figure("exact pricing of Jackpot Baccarat / Dragon Dragon (poker values), 8 decks", "bench_cardlevel.json",
           lambda d: (d["exact"]["jackpot_8_decks"]["best_s"], d["exact"]["dragon_dragon_8_decks"]["best_s"]), "s",
           "<= 5 s / <= 30 s", bounds=(("<=", 5), ("<=", 30)), readme=True),
    Figure("exact pricing of a rule set with suit-level bets, 8 decks", "bench_cardlevel.json",
           lambda d: d["exact"]["suit_level_rule_set_8_decks"]["best_s"], "s", "<= 10 s", bounds=(("<=", 10),)),
    Figure("perfect play on every bet of a dealt shoe, 2 threads", "bench_speed.json",
           lambda d: max(run["rounds_per_second"] for run in d["runs"]["after"]["counting"]), "rounds/s",
           ">= 150,000 rounds/s", bounds=((">=", 150_000),), readme=True),
    Figure("a card-level bet priced on the unseen cards, one round, one core: Colour Match in closed form / "
           "Contrast Bonus by its group's enumeration", "bench_card_pricing.json",
           lambda d: (d["per_round"]["colour_match (first_four)"]["us_per_round"],
                      d["per_round"]["contrast_bonus_35_15_5 (group)"]["us_per_round"]), "us"),
    Figure("perfect play of Colour Match (a card-level bet, closed form) through dealt shoes, 2 threads",
           "bench_card_pricing.json", lambda d: d["counting_perfect_colour_match"]["rounds_per_second"], "rounds/s"),
    Figure("cold start of `rtp --rounds 1e6` on an empty kernel cache, CPU time", "bench_speed.json",
           lambda d: statistics.median(run["cpu_s"] for run in d["runs"]["after"]["cold"]), "s"),
    Figure("RTP by round position, cost over the plain dealt shoe (live-8deck-side-bets), 1 / 2 threads",
           "bench_positions.json", lambda d: _threads(d["cases"], "slowdown", rules="live-8deck-side-bets"), "fraction",
           "at most +25%", bounds=(("<=", 0.25),)),
    Figure("hold of Banker + Player over 10^6 rounds, exact lattice", "bench_hold.json",
           lambda d: d["seconds"]["main_slip_1e6_rounds"]["median"], "s", "<= 2 s", bounds=(("<=", 2),)),
    Figure("hold of Banker + Perfect Pair over 10^4 rounds", "bench_hold.json",
           lambda d: d["seconds"]["side_bet_slip_1e4_rounds"]["median"], "s", "<= 5 s", bounds=(("<=", 5),)),
    Figure("10^6 player sessions of 1,000 rounds", "bench_hold.json",
           lambda d: d["seconds"]["sessions_1e6_x_1000_rounds"]["median"], "s", "<= 30 s", bounds=(("<=", 30),)),
    Figure("optimal four-card sort (edge sorting), 8 decks", "bench_leak.json",
           lambda d: d["cases"]["optimal_sort_4_cards_main_bets"]["median_s"], "s", "<= 10 s", bounds=(("<=", 10),)),
    Figure("leak with a card-level bet: Lucky Match, four cards sorted High/Low, 8 decks", "bench_leak_cards.json",
           lambda d: d["cases"]["lucky_match_4_cards_high_6789"]["median_s"], "s", "<= 10 s", bounds=(("<=", 10),)),
    Figure("Dask backend against local threads, 10^9 fresh rounds, overhead", "bench_dask.json",
           lambda d: _case(d["cases"], model="fresh")["overhead"], "fraction", "under +10%", bounds=(("<", 0.10),)),
    Figure("exact pricing of `poker(banker) > poker(player)` / `poker(all) == flush`, 8 decks, the whole command",
           "bench_rankwise.json", lambda d: (d["cases"]["banker_poker_beats_player"]["seconds"],
                                             d["cases"]["all_six_flush"]["seconds"]), "s", "<= 10 s and 1 GB each",
           bounds=(("<=", 10),),
           readme=True),
    Figure("peak memory of those two", "bench_rankwise.json",
           lambda d: (d["cases"]["banker_poker_beats_player"]["peak_rss_bytes"] / 1e6,
                      d["cases"]["all_six_flush"]["peak_rss_bytes"] / 1e6), "MB", "<= 1 GB", bounds=(("<=", 1024),)),
    Figure("exact pricing of a file of 40 such bets, 8 decks", "bench_rankwise.json",
           lambda d: d["cases"]["forty_bets"]["seconds"], "s", "<= 60 s", bounds=(("<=", 60),)),
    Figure("a costly effect of removal refused: `rtp --exact --eor`, the whole command", "bench_design.json",
           lambda d: d["best_seconds"]["refusal"], "s", "under 1 s", bounds=(("<", 1),)),
    Figure("Monte Carlo of a costly card-level bet: its first round dealt, from the start", "bench_design.json",
           lambda d: d["best_seconds"]["first_round"], "s", "<= 5 s", bounds=(("<=", 5),)),
    Figure("math report: the exact parts of the slowest rule set measured (combinations, decks, hold)",
           "bench_math_report.json", lambda d: max(part["exact_seconds"] for part in d["exact_parts"]), "s",
           "<= 20 s", bounds=(("<=", 20),)),
    Figure("math report of a 10-bet catalogue file at its default sizes (10^9 rounds; extrapolated)",
           "bench_math_report.json", lambda d: d["ten_bet_report"]["extrapolated_seconds"], "s", "<= 90 s",
           bounds=(("<=", 90),)),
    Figure("audit: import and full audit of 10^7 logged rounds (25 tables, a simulated year, Parquet), wall time",
           "bench_audit.json", lambda d: d["import_and_audit_wall_s"], "s", "<= 60 s", bounds=(("<=", 60),),
           script="bench_audit.py --days 400", readme=True),
    Figure("audit: its report (the full audit) of those 10^7 rounds, on two processes, wall time", "bench_audit.json",
           lambda d: d["stages"]["report"]["wall_s"], "s", "", script="bench_audit.py --days 400"),
    Figure("audit: peak memory of its import and report of 10^7 rounds (the report's two processes summed)",
           "bench_audit.json", lambda d: max(d["stages"][s]["peak_rss_mb"] for s in ("import", "report")), "MB",
           "<= 2 GB", bounds=(("<=", 2048),), script="bench_audit.py --days 400"),
    Figure("`rtp --exact`, the whole command", "bench_cli.json",
           lambda d: d["median_seconds"]["exact"], "s"),
    Figure("README's test command on a clean clone: install, compile, every test; kernel cache warm / empty",
           "bench_suite.json", lambda d: (_suite_seconds(d["runs"]["warm"]), _suite_seconds(d["runs"]["empty"])),
           "min", "<= 6 min", bounds=(("<=", 360),), readme=True),
)


def _load(name: str) -> dict:
    return json.loads((RESULTS / name).read_text())


def _figure_text(figure: Figure) -> str:
    try:
        value = figure.read(_load(figure.file))
    except (KeyError, IndexError, TypeError) as error:
        raise KeyError(f"results/{figure.file} has no figure for {figure.what!r} ({error}): fix its entry in "
                       "docs/bench_table.py") from error
    texts = [UNITS[figure.unit](v) for v in (value if isinstance(value, tuple) else (value,))]
    numbers, units = zip(*(text.partition(" ")[::2] for text in texts))
    if len(set(units)) == 1 and units[0]:  # "144 M / 261 M rounds/s": the unit once
        return " / ".join(numbers) + " " + units[0]
    return " / ".join(texts)


_HOLDS = {"<=": lambda v, limit: v <= limit, "<": lambda v, limit: v < limit,
          ">=": lambda v, limit: v >= limit, ">": lambda v, limit: v > limit}


def target_status(figure: Figure) -> str:
    """Whether the figures hold their target: ``"met"``, ``"missed"``, or each figure's word where they differ.

    ``"met / missed"``: the first figure within its bound, the second not; ``""``: no bounds.
    """
    if not figure.bounds:
        return ""
    value = figure.read(_load(figure.file))
    values = value if isinstance(value, tuple) else (value,)
    bounds = figure.bounds if len(figure.bounds) == len(values) else figure.bounds * len(values)
    words = ["met" if _HOLDS[bound[0]](v, bound[1]) else "missed"
             for v, bound in zip(values, bounds, strict=True) if bound is not None]
    return words[0] if len(set(words)) == 1 else " / ".join(words)  # "met / missed": figure by figure


def _target(figure: Figure) -> str:
    status = target_status(figure)
    return f"{figure.target}: **{status}**" if status else figure.target


def _source(figure: Figure) -> str:
    return f"`{figure.script or Path(figure.file).stem + '.py'}`"


def current_figures_table() -> str:
    """The benchmarks page's table: every entry's current figure, its script and file, its target."""
    lines = ["| what | figure | script (`benchmarks/`) | target |", "|---|---|---|---|"]
    lines += [f"| {f.what} | {_figure_text(f)} | {_source(f)} | {_target(f)} |" for f in BENCH_FIGURES]
    read = {f.file for f in BENCH_FIGURES}
    others = sorted(p.name for p in RESULTS.glob("bench_*.json") if p.name not in read)
    if others:
        lines += ["", "Figure files without a row here (the log below reads them; a new one needs an entry in "
                  "`docs/bench_table.py`): " + ", ".join(f"`{name}`" for name in others) + "."]
    return "\n".join(lines)


def headline_table() -> str:
    """README's few figures: the entries marked ``readme``, each with its target, met or missed."""
    lines = ["| what | figure | target |", "|---|---|---|"]
    lines += [f"| {f.what} | {_figure_text(f)} | {_target(f)} |" for f in BENCH_FIGURES if f.readme]
    return "\n".join(lines)
