"""Card-counting simulations: a strategy played through shoes dealt to the cut card.

The strategy is data (:mod:`baccarat_sim.model.strategy`): counts tag every
card (by rank, suit, colour or card by card), so a red/black count for Colour
Match is as much a count as a point count for Lucky 6.

Each bet is reported for every cut-card scenario (the rule set's cut card and
any moved one, sharing the same shuffles) and, for bets with a "Max Round
Availability", also withdrawn after that round. The figures: share of rounds
bet, average advantage per bet placed (measured, with a 95% CI, and the exact
mean edge of the bets placed), units won per shoe with a 95% CI (shoes are
independent), units per 100 rounds.

A run is fixed by its seed: block ``b`` of 16 shoes is dealt from the stream
``(seed, b)`` exactly as the Monte Carlo engine deals it, through the one run
driver (:mod:`baccarat_sim.engines.counting`), so results do not depend on the
number of threads.

Card-level bets (suits, colours, third cards: a rule set with a card detail,
:mod:`baccarat_sim.model.detail`) are settled on each round's cell
``detail * N_CODES + code``, worked out from the dealt cards as the Monte Carlo
engine works it out. Perfect play and the exact edge of the bets placed rest on
the composition solver (:class:`baccarat_sim.engines.composition.FastSolver`),
which prices every bet on the unseen cards: bets on scores, pairs or first
cards and card-level bets that read only classes of the first four cards
(Colour Match) in closed form, every other card-level bet by the exact
card-detail enumeration of its group, its tables built once per run
(:class:`baccarat_sim.engines.card_solver.CardSolver`). Such a bet is priced
every round it is played perfectly, or, with ``exact_edge = true``, every round
it is bet; before dealing, the cost model predicts that work (rounds times the
pricing of one round, :func:`baccarat_sim.model.cost.round_pricing_cost`), and
a run predicted beyond :data:`~baccarat_sim.limits.MAX_PLAN_SECONDS` is refused
in one line naming the bet, the prediction and the shoes that fit. Only a pay
table mixing scores with pairs (the solver's ``general`` kind) is refused
perfect play and an exact edge.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import time

import numpy as np

from ..engines.card_solver import no_card_pricing
from ..engines.composition import FastSolver
from ..engines.counting import (
    PLAY_ALWAYS,
    PLAY_PERFECT,
    PLAY_RUNNING_COUNT,
    PLAY_RUNNING_COUNT_TWO_SIDED,
    PLAY_TRUE_COUNT,
    PLAY_TRUE_COUNT_TWO_SIDED,
    VARIANTS,
    CountingJob,
    CountPlan,
    CountStatistics,
)
from ..engines.detail import GroupError, factored_counts, joint_detail, rules_detail
from ..engines.driver import RunControl, run
from ..engines.exact import exact_histogram
from ..engines.local import LocalBackend
from ..engines.packer import kernel_tables
from ..engines.plan import normalize_seed, shoe_params, whole_number
from ..engines.value_basis import value_basis
from ..errors import InputError, InvalidStrategy, ShoeError
from ..limits import MAX_PLAN_SECONDS
from ..model.cards import N_CARD_IDS, N_SUITS
from ..model.codes import N_CODES
from ..model.cost import rounds_per_shoe_bound
from ..model.detail import CardDetail, FactoredDetail
from ..model.rules import Rules
from ..model.shoe import as_shoe, canonical_cards
from ..model.strategy import BetPlay, Strategy
from .eor import derive_tags, effect_of_removal, reads_suits
from .settlement import settle_bet
from .stats import Z95

__all__ = ["MAX_SHOES", "CountResult", "count_simulation"]

#: Most shoes a counting run deals.
MAX_SHOES = 10**12


@dataclasses.dataclass(frozen=True)
class _Resolved:
    """A strategy bound to a rule set and shoe: everything the kernel reads."""

    bet_ids: tuple[str, ...]
    plays: tuple[BetPlay, ...]
    count_names: tuple[str, ...]
    tags: np.ndarray  # (n_counts, 52) float64: tag of every card id
    derived: dict  # count name -> CountTags
    count_of_bet: np.ndarray
    mode: np.ndarray
    threshold: np.ndarray
    min_edge: np.ndarray
    max_round: np.ndarray
    track_exact: np.ndarray
    net: np.ndarray  # (n_bets, n_cells) int64, scaled: cells detail * N_CODES + code
    scale: np.ndarray  # (n_bets,) int64
    solver: object  # FastSolver of the played bets it prices (card-level ones only where they are priced)
    packed: dict  # the solver's packed arrays, bet indices into bet_ids
    screen: tuple  # the value rows' basis (float32), combinations and reach: the kernel's float32 screen
    detail: CardDetail | None  # the card detail the kernel counts (None: outcome codes)
    card_level: tuple[str, ...]  # played bets that read cards
    skipped: tuple[str, ...]  # bets "*" left out (perfect play of a pay table with no closed form)
    priced: tuple[str, ...]  # card-level bets priced by their group's enumeration every round they are needed
    card_solver: tuple | None  # (FirstFourTables, GroupTables or None): kernels.card_solver; None: no card detail


def _kinds(rules: Rules) -> dict[str, str]:
    """What prices each bet exactly per round: its FastSolver kind."""
    return FastSolver(rules).kinds


def _exact_refusal(label: str, bet_id: str, what: str) -> InvalidStrategy:
    """The one line refusing perfect play or an exact edge of a bet the composition solver cannot price."""
    return InvalidStrategy("", f"{label}: bets.{bet_id}: {what} needs a bet settled on scores only, pairs only, "
                               "first cards only or the cards alone; this pay table mixes them")


def _packed_for(solver: FastSolver, bet_ids: tuple[str, ...]) -> dict:
    """The solver's packed arrays with their bet indices moved into ``bet_ids`` (the kernel's bet order)."""
    packed = dict(solver.packed_arrays())
    where = np.array([bet_ids.index(b) for b in solver.bet_ids], np.int64)
    for key in ("v_bet", "p_bet", "f_bet"):
        packed[key] = where[packed[key]] if len(packed[key]) else packed[key]
    return packed


@functools.lru_cache(maxsize=8)
def _derived_tags(rules: Rules, composition: bytes, bet_id: str, level: int, by: str):
    """A derived count's tags (exact effects of removal: seconds to a minute), kept for the next study of the shoe.

    A command deals one shoe first, to load the kernel apart from the timed
    study: the study then finds its counts derived.
    """
    shoe = np.frombuffer(composition, np.int64).reshape(-1, N_SUITS)
    return derive_tags(effect_of_removal(rules, shoe, [bet_id]), bet_id, level, by)


def _resolve(strategy: Strategy, rules: Rules, composition: np.ndarray, record_codes: bool = False) -> _Resolved:
    label = strategy.path
    explicit = [p for p in strategy.bets if p.bet != "*"]
    for play in explicit:
        if play.bet not in rules.bet_ids:
            raise InvalidStrategy("", f"{label}: bets.{play.bet}: no such bet in rule set {rules.id!r}; bets: "
                                  f"{', '.join(rules.bet_ids)}")
    wildcard = next((p for p in strategy.bets if p.bet == "*"), None)
    by_id = {p.bet: p for p in explicit}
    kinds = _kinds(rules)
    plays = []
    skipped = []
    for bet_id in rules.bet_ids:
        if bet_id in by_id:
            plays.append(by_id[bet_id])
        elif wildcard is not None:
            if wildcard.play == "perfect" and kinds[bet_id] in ("general", "card"):
                # "*" means every bet that can be played this way cheaply: in closed form (a bet priced by its
                # group's enumeration every round is played perfectly where the strategy names it).
                skipped.append(bet_id)
                continue
            plays.append(dataclasses.replace(wildcard, bet=bet_id))
    bet_ids = tuple(p.bet for p in plays)
    card_level = tuple(b for b in bet_ids if rules.bet(b).card_level)
    derived = {}
    tag_rows = []
    count_names = tuple(c.name for c in strategy.counts)
    for system in strategy.counts:
        if system.derive is None:
            tag_rows.append(system.tags)
            continue
        bet_id, level, by = system.derive
        if bet_id not in rules.bet_ids:
            raise InvalidStrategy("", f"{label}: counts.{system.name}.derive.bet: no such bet {bet_id!r} in rule set "
                                  f"{rules.id!r}; bets: {', '.join(rules.bet_ids)}")
        try:
            tags = _derived_tags(rules, composition.tobytes(), bet_id, level, by)
        except InputError as error:
            hint = ""
            if reads_suits(rules.bet(bet_id).atoms):  # a rank count cannot see what such a bet depends on
                hint = "; the bet reads suits or colours: give tags by suit or colour (tags = { red = 1, black = -1 })"
            raise InvalidStrategy("", f"{label}: counts.{system.name}.derive: {error}{hint}") from None
        derived[system.name] = tags
        tag_rows.append(tuple(float(t) for t in tags.tags for _ in range(N_SUITS)))  # every suit of a rank
    n = len(plays)
    mode = np.zeros(n, np.int64)
    threshold = np.zeros(n)
    count_of_bet = np.zeros(n, np.int64)
    for i, play in enumerate(plays):
        if play.play == "always":
            mode[i] = PLAY_ALWAYS
        elif play.play == "perfect":
            if kinds[play.bet] == "general":
                raise _exact_refusal(label, play.bet, "perfect play")
            mode[i] = PLAY_PERFECT
        else:
            count_of_bet[i] = count_names.index(play.count)
            if play.running_count is not None:
                mode[i] = PLAY_RUNNING_COUNT_TWO_SIDED if play.two_sided else PLAY_RUNNING_COUNT
                threshold[i] = play.running_count
            else:
                mode[i] = PLAY_TRUE_COUNT_TWO_SIDED if play.two_sided else PLAY_TRUE_COUNT
                if play.true_count == "auto":
                    if play.count not in derived:
                        raise InvalidStrategy("", f"{label}: bets.{play.bet}.true_count: \"auto\" needs a derived "
                                                  f"count (derive = {{...}}), not the given tags of {play.count!r}")
                    threshold[i] = derived[play.count].break_even_true_count
                else:
                    threshold[i] = play.true_count
        if play.exact_edge and kinds[play.bet] == "general":
            raise _exact_refusal(label, play.bet, "exact_edge")
    # The exact edge is kept where the strategy asks for it, and by default where the EV is worked out anyway
    # (perfect play) or a closed form gives it (a bet priced by its group's enumeration is not priced unasked).
    # Refused before the rule set's card detail is worked out: the cost model's prediction alone.
    track = np.array([kinds[p.bet] != "general" and (p.exact_edge or (p.exact_edge is None and (
        kinds[p.bet] != "card" or p.play == "perfect"))) for p in plays], np.int64)
    exact = tuple(b for i, b in enumerate(bet_ids) if track[i] or mode[i] == PLAY_PERFECT)
    solver = FastSolver(rules, tuple(b for b in bet_ids if not rules.bet(b).card_level or b in exact))
    priced = tuple(b for b in exact if kinds[b] == "card")
    card_solver = None
    if solver.cards is not None:
        why = solver.cards.refusal(priced)
        if why:
            raise InvalidStrategy("", f"{label}: {', '.join(f'bets.{b}' for b in priced)}: {why}")
        try:
            card_solver = solver.cards.tables({b: bet_ids.index(b) for b in solver.cards.bet_ids})
        except ValueError as error:  # a pay table beyond the kernel's integers
            raise InvalidStrategy("", f"{label}: {error}") from None
    # The kernel counts the card detail when a played bet reads cards, or when the histogram it keeps must be the
    # one the Monte Carlo engine counts for this rule set; otherwise it runs the outcome-code path unchanged.
    # One joint card detail (every outcome code): the kernel settles every played bet on each round's cell; the kept
    # histogram is turned into the Monte Carlo engine's groups at the end (factored_counts).
    if card_level or record_codes:
        rules_detail(rules)  # checks the rule set's card-level pay tables
    joint = [b for b in rules.bet_ids if rules.bet(b).card_level] if record_codes else card_level
    detail = joint_detail(rules, joint) if card_level or record_codes else None
    if detail is not None and card_solver is None:
        card_solver = no_card_pricing()
    n_cells = detail.n_cells if detail is not None else N_CODES
    net = np.zeros((n, n_cells), np.int64)
    scale = np.zeros(n, np.int64)
    for i, bet_id in enumerate(bet_ids):
        bet = rules.bet(bet_id)
        # One net per pay-table line: scale the lines, then spread them over the cells (up to 64 x 14,400).
        cases, first, where = np.unique(bet.case_index(detail), return_index=True, return_inverse=True)
        nets = bet.net_results(rules.commission.rate, detail)[first]
        factor = 1
        for value in nets:
            factor = math.lcm(factor, value.denominator)
        scale[i] = factor
        net[i] = np.array([int(v * factor) for v in nets], np.int64)[where.ravel()]
    max_round = np.array([rules.bet(b).max_round or 10**9 for b in bet_ids], np.int64)
    packed = _packed_for(solver, bet_ids)
    basis, coefficients, reach = value_basis(packed["v_rows"])
    return _Resolved(bet_ids, tuple(plays), count_names,
                     np.array(tag_rows, np.float64).reshape(len(tag_rows), N_CARD_IDS), derived, count_of_bet, mode,
                     threshold, np.array([p.min_edge for p in plays]), max_round, track, net, scale, solver,
                     packed, (basis.astype(np.float32), coefficients, reach), detail, card_level, tuple(skipped),
                     priced, card_solver)


@dataclasses.dataclass(frozen=True, eq=False)
class CountResult:
    """Per bet, per cut-card scenario and per variant: how the strategy did.

    Attributes
    ----------
    run : dict
        Rule set, strategy, seed, shoes, threads, timing, scenarios.
    rows : list of dict
        One record per (scenario, bet, variant); see :func:`count_simulation`
        (as a table: :func:`baccarat_sim.report.counting.count_frame`).
    derived : dict
        Count name to :class:`baccarat_sim.analysis.eor.CountTags` for derived counts.
    tags : dict
        Count name to the tag of every card id ``rank * 4 + suit`` (52 floats;
        :func:`baccarat_sim.model.strategy.describe_tags` names them as a strategy file would).
    codes : ndarray(int64, shape=(n_cells,)) or None
        Histogram of the rule set's cut-card scenario (``record_codes``): per
        outcome code, or the cells of the rule set's factored card detail (the
        Monte Carlo engine's) when the rule set has card-level bets.
    detail : FactoredDetail or None
        The card detail of ``codes`` (None: outcome codes).
    composition : ndarray(int64, shape=(13, 4)) or None
        The shoe before shuffling (what names the study's files with its rule set and strategy).
    """

    run: dict
    rows: list
    derived: dict
    tags: dict
    codes: np.ndarray | None = None
    detail: FactoredDetail | None = None
    composition: np.ndarray | None = None


def _scenarios(rules: Rules, strategy: Strategy, cut_cards, n_cards: int, params: np.ndarray) -> np.ndarray:
    """Cut-card (low, high) of every scenario; row 0 is the rule set's own."""
    rows = [(int(params[14]), int(params[15]))]
    extra = strategy.cut_cards if cut_cards is None else tuple(
        (c, c) if isinstance(c, (int, np.integer)) else tuple(c) for c in cut_cards)
    _, most_burned = rules.shoe.cards_before_first_round()
    for low, high in extra:
        if not 0 <= low <= high or n_cards - high - most_burned < 6:
            problem = (f"[{low}, {high}] cards from the end leaves no room for a round in a {n_cards}-card shoe after "
                       f"burning up to {most_burned}")
            if cut_cards is None:  # the strategy file's own positions
                raise InvalidStrategy("", f"{strategy.path}: cut_cards: {problem}")
            raise ShoeError("cut_cards", problem)  # the caller's (--cut-cards)
        if (low, high) not in rows:
            rows.append((int(low), int(high)))
    return np.array(rows, np.int64)


def _describe_play(play: BetPlay, threshold: float) -> str:
    if play.play == "count":
        if play.running_count is not None:
            return f"count {play.count}, {'|RC|' if play.two_sided else 'RC'} >= {threshold:g}"
        return f"count {play.count}, {'|TC|' if play.two_sided else 'TC'} >= {threshold:.4g}"
    if play.play == "perfect":
        return "perfect play" + (f" (edge > {play.min_edge:g})" if play.min_edge else "")
    return "always"


def count_simulation(rules: Rules, strategy: Strategy, shoes: int, seed: int | None = None, *,
                     threads: int | None = None, shoe=None, cut_cards=None, progress=None,
                     record_codes: bool = False, max_chunks: int | None = None) -> CountResult:
    """Deal ``shoes`` shoes to the cut card, playing each bet by the strategy.

    Parameters
    ----------
    rules : Rules
        The rule set: decks, burn, cut card, rounds after the cut, bets and their
        "Max Round Availability".
    strategy : Strategy
    shoes : int
        Shoes to deal (a float that is a whole number is accepted).
    seed : int or None
        Master seed (None draws one; it is in ``result.run``).
    threads : int or None
        Kernel threads (None: numba's current setting, restored afterwards); the
        result does not depend on it.
    shoe : int or ndarray(int64, shape=(13, 4)) or None
        Shoe composition before shuffling (default: the rule set's decks).
    cut_cards : iterable or None
        Extra cut-card positions (cards from the end, or (low, high)); None: the strategy's.
    progress : object or None
        Anything with ``update(n)``: told of every shoe dealt.
    record_codes : bool
        Keep the outcome histogram of the rule set's cut-card scenario.
    max_chunks : int or None
        Stop after this many chunks (as a signal would); ``run["complete"]`` says whether it finished.

    Returns
    -------
    CountResult
        ``rows`` have ``scenario``, ``cut_card_from_end``, ``bet``, ``variant``,
        ``play``, ``shoes``, ``rounds``, ``rounds_per_shoe``, ``offered``, ``bets``,
        ``bet_share`` (bets per round dealt), ``advantage_per_bet`` and
        ``advantage_se`` / ``advantage_ci95_low`` / ``advantage_ci95_high``
        (measured net per unit bet), ``exact_advantage_per_bet`` (mean exact EV of
        the bets placed), ``units_per_shoe``, ``units_per_shoe_se`` and its 95% CI,
        ``units_per_100_rounds``, ``advantage_per_round``, ``ev_off_the_top``.

    Examples
    --------
    >>> from baccarat_sim import load_rules
    >>> from baccarat_sim.model.strategy import parse_strategy
    >>> rules = load_rules("default").with_shoe(model="dealt")
    >>> flat = parse_strategy('''
    ... schema_version = 1
    ... id = "flat"
    ... [[bets]]
    ... id = "tie"
    ... play = "always"
    ... ''')
    >>> result = count_simulation(rules, flat, shoes=32, seed=1)
    >>> result.rows[0]["shoes"]
    32
    """
    shoes = whole_number(shoes, "shoes", 1, MAX_SHOES)
    composition = as_shoe(rules.shoe.decks if shoe is None else shoe)
    n_cards = int(composition.sum())
    problem = rules.shoe.room_problem(n_cards)
    if problem:
        raise ShoeError("shoe", problem)
    params = shoe_params(rules.shoe, n_cards)
    seed = normalize_seed(seed)
    started = time.perf_counter()
    resolved = _resolve(strategy, rules, composition, record_codes)
    prepare_seconds = time.perf_counter() - started
    if not resolved.bet_ids and resolved.skipped:
        raise InvalidStrategy("", f"{strategy.path}: bets: none of the strategy's bets can be played in rule set "
                                  f"{rules.id!r}: \"*\" plays perfectly the bets the exact solver prices in closed "
                                  f"form, and {', '.join(resolved.skipped)} have none (a bet on the cards that reads "
                                  "more than the first four cards' classes, or a pay table mixing scores with "
                                  "pairs); name a card-level bet to play it perfectly, or play them by a count or "
                                  "always")
    if not resolved.bet_ids:
        raise InvalidStrategy("", f"{strategy.path}: bets: none of the strategy's bets is in rule set {rules.id!r}")
    scenarios = _scenarios(rules, strategy, cut_cards, n_cards, params)
    _check_pricing(resolved, strategy, rules, shoes, n_cards, scenarios)
    packed = resolved.packed
    turned_seen = rules.shoe.burn == "face_value" and strategy.count_turned_card  # the turned card is face up
    strategy_args = (
        int(turned_seen), scenarios, resolved.tags, resolved.count_of_bet, resolved.mode, resolved.threshold,
        resolved.min_edge, resolved.max_round, resolved.track_exact, resolved.net,
        (packed["v_rows"], packed["p_rows"], packed["f_rows"]),
        (packed["v_scale"], packed["p_scale"], packed["f_scale"]), packed["v_max"],
        (packed["v_bet"], packed["p_bet"], packed["f_bet"]),
        resolved.screen,
    )
    detail = resolved.detail
    job = CountingJob(CountPlan.for_shoes(shoes), canonical_cards(composition), seed, params,
                      strategy_args, len(scenarios), len(resolved.bet_ids), record_codes,
                      None if detail is None else kernel_tables(detail),
                      N_CODES if detail is None else detail.n_cells, resolved.card_solver)
    state = job.new_state()
    outcome = run(job, state, LocalBackend(threads), RunControl(progress=progress, max_chunks=max_chunks))
    stats = CountStatistics(state.stats_int, state.stats_float, len(scenarios), len(resolved.bet_ids))
    rows = _rows(resolved, rules, composition, scenarios, stats)
    _, rounds = stats.scenario(0)
    run_info = {
        "rules": rules.id,
        "rules_sha256": rules.sha256,
        "strategy": strategy.id,
        "strategy_name": strategy.name,
        "strategy_source": strategy.source,
        "strategy_sha256": strategy.sha256,
        "cards": n_cards,
        "burn": rules.shoe.burn,
        "count_turned_card": bool(turned_seen),
        "rounds_after_cut": rules.shoe.rounds_after_cut,
        "shoes": state.shoes,
        "shoes_requested": shoes,
        "complete": state.shoes == shoes,
        "rounds": rounds,
        "seed": seed,
        "threads": outcome.backend["threads"],
        "seconds": outcome.wall_seconds,
        "kernel_seconds": state.kernel_seconds,
        "prepare_seconds": prepare_seconds,
        "rounds_per_second": rounds / state.kernel_seconds if state.kernel_seconds else None,
        "scenarios": [{"cut_card_from_end": [int(lo), int(hi)]} for lo, hi in scenarios],
        "skipped_bets": list(resolved.skipped),
        "card_level_bets": list(resolved.card_level),
        "stopped_by": outcome.stopped_by,
    }
    tags = {name: tuple(float(t) for t in row) for name, row in zip(resolved.count_names, resolved.tags)}
    codes, kept = state.codes, None
    if record_codes and detail is not None:  # the Monte Carlo engine's layout: the outcome codes, then each group
        kept = rules_detail(rules)
        codes = factored_counts(codes, detail, kept)
    return CountResult(run_info, rows, resolved.derived, tags, codes, kept, composition)


def _check_pricing(resolved: _Resolved, strategy: Strategy, rules: Rules, shoes: int, n_cards: int,
                   scenarios: np.ndarray) -> None:
    """Refuse, before dealing, a run whose card-level pricing the cost model puts beyond the limit.

    Each round of the deepest cut card prices the bets of :attr:`_Resolved.priced` (at most: a bet whose exact
    edge is kept is priced only in the rounds it is bet), each round the cost model's
    (:meth:`~baccarat_sim.engines.card_solver.CardSolver.round_cost`).
    """
    if not resolved.priced:
        return
    per_round = resolved.solver.cards.round_cost(resolved.priced).seconds
    per_shoe = rounds_per_shoe_bound(n_cards, int(scenarios[:, 0].min()), rules.shoe.rounds_after_cut)
    predicted = shoes * per_shoe * per_round
    if predicted <= MAX_PLAN_SECONDS:
        return
    fit = int(MAX_PLAN_SECONDS // (per_shoe * per_round))
    bets = ", ".join(f"bets.{b}" for b in resolved.priced)
    raise InvalidStrategy("", f"{strategy.path}: {bets}: pricing the card-level bet exactly every round is predicted "
                              f"to take about {per_round * 1e3:.2g} ms a round, about {predicted:,.0f} s for "
                              f"{shoes:,} shoes of up to {per_shoe:.0f} rounds, more than the limit of "
                              f"{MAX_PLAN_SECONDS:,.0f} s; at most {fit:,} shoes fit (--shoes), or play it by a "
                              "count" + (" with exact_edge = false" if any(
                                  p.play != "perfect" for p in resolved.plays if p.bet in resolved.priced) else ""))


def _ratio(total_x: float, total_y: float, sum_x2: float, sum_xy: float, sum_y2: float, shoes: int):
    """Ratio estimate ``sum x / sum y`` over independent shoes and its standard error (delta method)."""
    ratio = total_x / total_y
    if shoes < 2:
        return ratio, math.nan
    residual = max(sum_x2 - 2 * ratio * sum_xy + ratio * ratio * sum_y2, 0.0)
    return ratio, math.sqrt(shoes / (shoes - 1) * residual) / total_y


def _off_the_top(resolved: _Resolved, rules: Rules, composition: np.ndarray) -> dict:
    """Exact EV of every played bet on the full shoe: the solver's, and the exact engine's for card-level bets."""
    evs = resolved.solver.ev(composition)
    if any(b not in evs for b in resolved.card_level):
        try:
            hist = exact_histogram(composition, resolved.detail)
        except GroupError as error:  # refused before its work: one line naming the bets
            raise error.naming(rules) from None
        evs.update({b: settle_bet(hist, rules.bet(b), rules).ev_exact for b in resolved.card_level if b not in evs})
    return evs


def _rows(resolved: _Resolved, rules: Rules, composition: np.ndarray, scenarios: np.ndarray,
          stats: CountStatistics) -> list[dict]:
    off_the_top = _off_the_top(resolved, rules, composition)
    rows = []
    for s, (low, high) in enumerate(scenarios):
        shoes, rounds = stats.scenario(s)
        cut_text = f"{low}" if low == high else f"{low}-{high}"
        label = f"cut card {cut_text} from end" + (" (rule set)" if s == 0 else "")
        for b, bet_id in enumerate(resolved.bet_ids):
            max_round = int(resolved.max_round[b])
            for v in range(VARIANTS):
                if v == 1 and max_round >= 10**9:
                    continue
                ints, floats = stats.bet(s, b, v)
                offered, bets, net_scaled = (int(x) for x in ints)
                scale = float(resolved.scale[b])
                net = net_scaled / scale
                sum_x2, sum_y2, sum_xy, sum_ev, sum_e2, sum_ey = floats
                sum_x2 /= scale * scale
                sum_xy /= scale
                mean = net / shoes
                var_shoe = max(sum_x2 - shoes * mean * mean, 0.0) / (shoes - 1) if shoes > 1 else math.nan
                se_shoe = math.sqrt(var_shoe / shoes) if shoes > 1 else math.nan
                bets_per_shoe = bets / shoes
                var_bets = max(sum_y2 - shoes * bets_per_shoe ** 2, 0.0) / (shoes - 1) if shoes > 1 else math.nan
                share_se = math.sqrt(var_bets / shoes) / (rounds / shoes) if rounds and shoes > 1 else math.nan
                ratio = se_ratio = exact = exact_se = math.nan
                if bets:
                    ratio, se_ratio = _ratio(net, bets, sum_x2, sum_xy, sum_y2, shoes)
                    if resolved.track_exact[b]:
                        exact, exact_se = _ratio(sum_ev, bets, sum_e2, sum_ey, sum_y2, shoes)
                rows.append({
                    "scenario": label,
                    "cut_card_from_end": cut_text,
                    "bet": bet_id,
                    "variant": "all rounds" if v == 0 else f"rounds 1-{max_round}",
                    "max_round": max_round if v == 1 else None,
                    "play": _describe_play(resolved.plays[b], resolved.threshold[b]),
                    "shoes": shoes,
                    "rounds": rounds,
                    "rounds_per_shoe": rounds / shoes,
                    "offered": offered,
                    "bets": bets,
                    "bet_share": bets / rounds if rounds else math.nan,
                    "bet_share_se": share_se,
                    "advantage_per_bet": ratio,
                    "advantage_se": se_ratio,
                    "advantage_ci95_low": ratio - Z95 * se_ratio,
                    "advantage_ci95_high": ratio + Z95 * se_ratio,
                    "exact_advantage_per_bet": exact,
                    "exact_advantage_se": exact_se,
                    "units_per_shoe": mean,
                    "units_per_shoe_se": se_shoe,
                    "units_per_shoe_ci95_low": mean - Z95 * se_shoe,
                    "units_per_shoe_ci95_high": mean + Z95 * se_shoe,
                    "units_per_100_rounds": 100 * net / rounds if rounds else math.nan,
                    "advantage_per_round": net / rounds if rounds else math.nan,
                    "ev_off_the_top": float(off_the_top[bet_id]),
                })
    return rows
