"""The math report a test lab receives: every figure of a rule set's bets, gathered from the existing analyses.

:func:`build_math_report` computes nothing a second way: each figure is the one
another command gives for the same settings and seeds.

* the combinations table of each bet: :func:`~baccarat_sim.analysis.settlement.bet_breakdown`
  over the exact histogram (``rtp --exact``), its RTP, SD, hit and push
  frequencies from :func:`~baccarat_sim.analysis.settlement.settle_bet`, the
  jackpot's ``base + slope x meter`` from
  :func:`~baccarat_sim.analysis.settlement_jackpot.jackpot_figures`;
* the house edge by deck count: the same settlement over the exact histogram of
  1 to 8 decks and the rule set's own shoe (``rtp --exact --decks N``);
* the hold confidence table: :func:`~baccarat_sim.analysis.hold.analyze_hold`
  of a one-bet slip on its exact lattice (``hold --slip BET=STAKE --model fresh``);
* countability: :func:`~baccarat_sim.analysis.eor.effect_of_removal` and
  :func:`~baccarat_sim.analysis.eor.derive_tags` (``rtp --eor``), and
  :func:`~baccarat_sim.analysis.counting.count_simulation` of the derived
  counts written as a strategy file (``rtp --count FILE``);
* the Monte Carlo verification, and for a dealt shoe the RTP by round position:
  :func:`~baccarat_sim.analysis.run.analyze_run` of a run of the one run flow
  (``rtp --rounds N --seed S``); the cut-card effect:
  :func:`~baccarat_sim.analysis.positions.cut_card_sweep` (``rtp --sweep``).

The figures this module adds are plain arithmetic on those: the volatility
index (``z x SD``), the odds of a line as "1 in N", the Desirability Index of
a count (:data:`DESIRABILITY_INDEX_DEFINITION`).
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
import time
from fractions import Fraction

from ..model.rules import Bet, Rules
from .math_report_parts import (
    ONE_IN_LIMIT,
    VOLATILITY_LEVELS,
    CountSection,
    DeckTable,
    HoldRow,
    LineRow,
    four_card_divisor,
    volatility_index,
)

__all__ = ["DESIRABILITY_INDEX_DEFINITION", "HOLD_HORIZONS", "PARTS", "ONE_IN_LIMIT", "VOLATILITY_LEVELS", "BetSection",
           "MathReport", "ReportSizes", "build_math_report"]

#: The parts of the report that may be left out (``--skip``): each is then said to be left out.
PARTS = ("decks", "hold", "countability", "sweep")
#: The numbers of rounds of the hold confidence table.
HOLD_HORIZONS = (10**3, 10**4, 10**5, 10**6, 10**7)
#: How the report defines the Desirability Index, with its source.
DESIRABILITY_INDEX_DEFINITION = (
    "Desirability Index DI = 1000 x (win per round) / (SD per round) = 1000 / sqrt(N0), N0 = (SD / win)^2 the rounds "
    "after which the expected win equals one standard deviation: D. Schlesinger, Blackjack Attack, 3rd ed., p. 186, "
    "as E. Jacobson applies it to side bets (\"DI and N0 in Advanced AP Circumstance\"). Rounds of one shoe are not "
    "independent, so win and SD are taken per shoe: DI = 1000 x mean / (SD x sqrt(rounds per shoe)), shoe totals.")


@dataclasses.dataclass(frozen=True)
class ReportSizes:
    """How big each simulated part is (each has its own default; the report states them).

    Attributes
    ----------
    rounds : int
        Monte Carlo verification rounds (``--rounds``).
    count_shoes : int
        Shoes of the counting study (every bet counted in one pass through them).
    sweep_rounds : int
        Rounds per cut-card position of the sweep (a dealt shoe only).
    """

    rounds: int = 10**9
    count_shoes: int = 10**5
    sweep_rounds: int = 10**8


@dataclasses.dataclass(frozen=True, eq=False)
class BetSection:
    """Everything the report says about one bet.

    Attributes
    ----------
    bet : Bet
    lines : tuple of LineRow
        The combinations table, pay-table order, ``otherwise`` last.
    total : int
        The combinations of every line together (what the column sums to).
    result : BetResult
        Exact settlement: EV (Fraction), SD, hit and push frequencies.
    four_card_divisor : int or None
        Six-card orderings per unordered set of the first four cards, where the
        bet reads those cards alone (the publishers' count), else None.
    jackpot : JackpotFigures or None
    hold : tuple of HoldRow
    eor_by_rank : tuple of Fraction or None
        Effect of removal of one card of each rank, A..K (None: not computed).
    count : CountSection or None
    figures : BetFigures
        The run's figures: exact, and the Monte Carlo estimate with its interval and z.
    """

    bet: Bet
    lines: tuple[LineRow, ...]
    total: int
    result: object
    four_card_divisor: int | None
    jackpot: object | None
    hold: tuple[HoldRow, ...]
    eor_by_rank: tuple | None
    count: CountSection | None
    figures: object

    @property
    def volatility(self) -> dict[int, float]:
        """Volatility index at 90/95/99%: ``z x SD`` of one round (per unit staked)."""
        return {level: volatility_index(self.result.sd, level) for level in VOLATILITY_LEVELS}


@dataclasses.dataclass(frozen=True, eq=False)
class MathReport:
    """A rule set's math report (:func:`build_math_report`); the report layer renders it.

    Attributes
    ----------
    rules : Rules
    sections : tuple of BetSection
    decks : DeckTable or None
        None: left out (``skip``).
    run : RunResult
        The exact histogram, the Monte Carlo run and its analysis (positions for a dealt shoe).
    eor : EffectOfRemoval or None
    counting : CountResult or None
    count_strategy : str or None
        The strategy file (TOML) the counting study played: ``rtp --count`` of it gives the same figures.
    sweep : CutSweep or None
    sizes : ReportSizes
    seed : int
    threads : int or None
    timings : dict of str to float
        Seconds per part.
    notes : tuple of str
        What a part left out, and why.
    skipped : tuple of str
        The parts of :data:`PARTS` left out.
    stream_version : int
        The random stream's version (:data:`~baccarat_sim.engines.fingerprint.STREAM_VERSION`): a seed means
        the same deals within one.
    """

    rules: Rules
    sections: tuple[BetSection, ...]
    decks: DeckTable | None
    run: object
    eor: object | None
    counting: object | None
    count_strategy: str | None
    sweep: object | None
    sizes: ReportSizes
    seed: int
    threads: int | None
    timings: dict
    notes: tuple[str, ...] = ()
    stream_version: int = 0
    skipped: tuple[str, ...] = ()


class _Silent:
    """A progress bar that shows nothing (no ``progress`` given)."""

    def update(self, n: int = 1) -> None:
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


class _Timer:
    """Seconds spent per part, and the progress of each (``progress(total, unit)`` or None)."""

    def __init__(self, progress, note):
        self.timings: dict[str, float] = {}
        self.progress = progress
        self.note = note or (lambda text: None)

    def bar(self, total: int, unit: str):
        return self.progress(total, unit) if self.progress is not None else _Silent()

    @contextlib.contextmanager
    def part(self, name: str):
        """Time the block as part ``name`` (the note says it starts)."""
        started = time.perf_counter()
        self.note(f"{name} ...")
        try:
            yield
        finally:
            self.timings[name] = time.perf_counter() - started


def build_math_report(rules: Rules, *, sizes: ReportSizes = ReportSizes(), seed: int | None = None,
                      threads: int | None = None, shoe=None, progress=None, note=None,
                      skip=()) -> MathReport:
    """Every figure of the math report of ``rules``.

    Parameters
    ----------
    rules : Rules
        The rule set, with the bets to report (``rules.with_bets``) and meters set.
    sizes : ReportSizes
        Rounds and shoes of the simulated parts.
    seed : int or None
        One master seed for every simulated part (drawn when None).
    threads : int or None
        Kernel threads (the figures do not depend on it).
    shoe : int or ndarray(int64, shape=(13, 4)) or None
        The shoe (default: the rule set's decks).
    progress : callable or None
        ``progress(total, unit)``: a context-managed bar with ``update(n)``.
    note : callable or None
        ``note(text)``: told as each part starts.
    skip : iterable of str
        Parts of :data:`PARTS` to leave out (the report says so).

    Returns
    -------
    MathReport
    """
    from ..engines.detail import rules_detail
    from ..engines.exact import exact_histogram
    from ..engines.plan import normalize_seed
    from ..engines.simulation import simulate
    from ..model.shoe import as_shoe
    from .run import analyze_run
    from .settlement import bet_breakdown, settle_bet
    from .settlement_jackpot import jackpot_figures

    seed = normalize_seed(seed)
    timer = _Timer(progress, note)
    composition = as_shoe(rules.shoe.decks if shoe is None else shoe)
    skip = frozenset(skip)
    unknown = skip - set(PARTS)
    if unknown:
        from ..errors import InputError

        raise InputError("skip", f"no part {sorted(unknown)[0]!r}; parts: {', '.join(PARTS)}")
    notes: list[str] = [f"{part}: left out of this report (skip)" for part in PARTS if part in skip]
    with timer.part("exact combinations"):
        detail = rules_detail(rules)
        exact = exact_histogram(composition, detail)
        breakdowns = {bet.id: bet_breakdown(exact, bet, rules) for bet in rules.bets}
        results = {bet.id: settle_bet(exact, bet, rules) for bet in rules.bets}
        jackpots = {bet.id: jackpot_figures(exact, bet, rules) for bet in rules.bets if bet.jackpot is not None}
    decks, holds, eor, counting, strategy_text, counts = None, {}, None, None, None, {}
    if "decks" not in skip:
        with timer.part("house edge by deck count"):
            decks = _deck_table(rules, detail, composition)
    if "hold" not in skip:
        with timer.part("hold confidence table"):
            holds = {bet.id: _hold_rows(rules, bet, composition, breakdowns[bet.id]) for bet in rules.bets}
    if "countability" not in skip:
        with timer.part("effect of removal"):
            eor = _effect_of_removal(rules, composition, notes)
        with timer.part("counting study"):
            counting, strategy_text, counts = _counting(rules, eor, composition, sizes.count_shoes, seed, threads,
                                                        timer, notes)
    with timer.part("Monte Carlo verification"):
        with timer.bar(sizes.rounds, "round") as bar:
            mc = simulate(rules, sizes.rounds, seed, threads=threads, shoe=composition, progress=bar)
        _stop_unless(mc.meta.get("complete", True), "the Monte Carlo verification")
        run = analyze_run(rules, exact, mc, {"rules_path": rules.path, "threads": threads})
    sweep = None
    if rules.shoe.model == "dealt" and "sweep" not in skip:
        with timer.part("cut-card sweep"):
            sweep = _sweep(rules, composition, sizes.sweep_rounds, seed, threads, timer)
        _stop_unless(sweep.complete, "the cut-card sweep")
    sections = []
    for bet, figures in zip(rules.bets, run.bets):
        breakdown = breakdowns[bet.id]
        sections.append(BetSection(
            bet=bet,
            lines=tuple(LineRow.of(line, case, breakdown.total, bet) for line, case in
                        zip(breakdown.lines, (*bet.cases, bet.otherwise))),
            total=breakdown.total,
            result=results[bet.id],
            four_card_divisor=four_card_divisor(bet, composition, breakdown),
            jackpot=jackpots.get(bet.id),
            hold=holds.get(bet.id, ()),
            eor_by_rank=None if eor is None or bet.id not in eor.bet_ids else eor.by_rank[bet.id],
            count=counts.get(bet.id),
            figures=figures,
        ))
    from ..engines.fingerprint import STREAM_VERSION

    return MathReport(rules, tuple(sections), decks, run, eor, counting, strategy_text, sweep, sizes, seed, threads,
                      timer.timings, tuple(notes), STREAM_VERSION, tuple(p for p in PARTS if p in skip))


def _stop_unless(complete: bool, what: str) -> None:
    """A simulated part stopped before its end (a stop signal, caught by the run driver): the report stops too.

    A report is written whole or not at all, so a part cut short is not reported: the command line turns this
    into its "interrupted" line and the exit status of the signal.
    """
    if not complete:
        raise KeyboardInterrupt(f"{what} was stopped before its end")


def _deck_table(rules: Rules, detail, composition) -> DeckTable:
    """Exact house edge of every bet over 1 to 8 decks, and over the shoe reported (when it is another)."""
    from ..engines.exact import exact_histogram
    from ..model.shoe import as_shoe, deck_count, describe_shoe
    from .settlement import settle_bet

    shoes = [(f"{d} deck{'s' if d > 1 else ''}", as_shoe(d)) for d in range(1, 9)]
    own = deck_count(composition)
    if own is None or own > 8:
        shoes.append((describe_shoe(composition), composition))
    own_label = next((label for label, s in shoes if (s == composition).all()), shoes[-1][0])
    edges = {bet.id: [] for bet in rules.bets}
    for _, cards in shoes:
        hist = exact_histogram(cards, detail)
        for bet in rules.bets:
            edges[bet.id].append(-settle_bet(hist, bet, rules).ev_exact)
    return DeckTable(tuple(label for label, _ in shoes), own_label,
                     {bet_id: tuple(values) for bet_id, values in edges.items()})


def _hold_rows(rules: Rules, bet: Bet, composition, breakdown) -> tuple[HoldRow, ...]:
    """The central 90/95/99% hold of ``bet`` over :data:`HOLD_HORIZONS`, on the exact lattice (``hold --model fresh``).

    The one-round law of a one-bet slip is the bet's combinations table grouped by net result, times the stake:
    it is taken from the table already enumerated. Where the commission is rounded for the stake, the slip's
    nets differ from the table's, and the hold command's slip is built (one more enumeration).
    """
    from .hold import analyze_hold, sum_distribution, summarize
    from .one_round import house_round, one_round
    from .slip import build_slip

    stake = hold_stake(rules, bet)
    if rules.commission.rounded and any(case.commission for case in bet.cases):
        slip = build_slip(rules.with_shoe(model="fresh"), {bet.id: stake}, composition)
        return tuple(HoldRow.of(summary) for summary in analyze_hold(slip, HOLD_HORIZONS).horizons)
    player = one_round([line.net * stake for line in breakdown.lines],
                       [line.combinations for line in breakdown.lines], cost=stake)
    house = house_round(player)
    return tuple(HoldRow.of(summarize(sum_distribution(house, n), stake)) for n in HOLD_HORIZONS)


def hold_stake(rules: Rules, bet: Bet) -> Fraction:
    """The stake of the one-bet slip the hold table is of: the bet's priced stake, else the table minimum, else 1."""
    if bet.stake is not None:
        return Fraction(bet.stake)
    minimum = Fraction(rules.limits.min_bet) if rules.limits.min_bet else Fraction(0)
    return minimum if minimum > 0 else Fraction(1)


def _effect_of_removal(rules: Rules, composition, notes: list[str]):
    from ..errors import BaccaratSimError
    from .eor import effect_of_removal

    try:
        return effect_of_removal(rules, composition)
    except BaccaratSimError as error:
        notes.append(f"effect of removal: not computed ({getattr(error, 'message', error)})")
        return None


def _counting(rules: Rules, eor, composition, shoes: int, seed: int, threads, timer: _Timer, notes: list[str]):
    """The derived count of each bet (level 2), played together through dealt shoes; (result, strategy, rows)."""
    from ..errors import BaccaratSimError
    from ..model.strategy import parse_strategy
    from .counting import count_simulation
    from .eor import derive_tags
    from .math_report_parts import strategy_toml

    if eor is None:
        return None, None, {}
    derived, skipped = {}, {}
    for bet in rules.bets:
        try:
            tags = derive_tags(eor, bet.id, level=2)
        except BaccaratSimError as error:
            skipped[bet.id] = getattr(error, "message", str(error))
            continue
        if not math.isfinite(tags.break_even_true_count):
            skipped[bet.id] = "its derived count does not track it (no break-even true count)"
            continue
        derived[bet.id] = tags
    counts = {bet_id: CountSection(None, None, reason) for bet_id, reason in skipped.items()}
    if not derived:
        return None, None, counts
    text = strategy_toml(rules, derived)
    dealt = rules.with_shoe(model="dealt")
    try:
        with timer.bar(shoes, "shoe") as bar:
            result = count_simulation(dealt, parse_strategy(text, "derived-counts.toml"), shoes, seed,
                                      threads=threads, shoe=composition, progress=bar)
    except BaccaratSimError as error:
        notes.append(f"counting study: not run ({getattr(error, 'message', error)})")
        return None, text, counts
    _stop_unless(result.run["complete"], "the counting study")
    for bet_id, tags in derived.items():
        # A bet offered only up to a round of the shoe is played as the table offers it: its capped variant.
        max_round = rules.bet(bet_id).max_round
        variant = "all rounds" if max_round is None else f"rounds 1-{max_round}"
        rows = [row for row in result.rows if row["bet"] == bet_id and row["variant"] == variant]
        counts[bet_id] = CountSection(tags, rows[0] if rows else None,
                                      None if rows else "the counting study did not play it")
    return result, text, counts


def _sweep(rules: Rules, composition, rounds: int, seed: int, threads, timer: _Timer):
    from ..model.cutcard import parse_cut_sweep
    from .math_report_parts import sweep_positions
    from .positions import cut_card_sweep

    cuts = parse_cut_sweep(sweep_positions(rules), rules, int(composition.sum()))
    with timer.bar(rounds * len(cuts), "round") as bar:
        return cut_card_sweep(rules, cuts, rounds, seed, shoe=composition, threads=threads, progress=bar)
