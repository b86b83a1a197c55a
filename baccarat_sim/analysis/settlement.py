"""Settlement: pay tables applied to an outcome histogram.

Works the same on an exact histogram (integer combination weights: results are
exact fractions) and on a Monte Carlo histogram (round counts: estimates with
standard errors, see :mod:`baccarat_sim.analysis.stats`).
"""

from __future__ import annotations

import dataclasses
import functools
import math
import warnings
from fractions import Fraction

import numpy as np

from ..errors import InputError, LimitError, ShoeMismatchWarning
from ..model.histogram import OutcomeHistogram
from ..model.rules import Bet, Rules
from ..model.shoe import deck_count
from .stats import Z95

__all__ = [
    "BetResult",
    "Breakdown",
    "BreakdownLine",
    "Covariance",
    "LimitError",
    "SlipResult",
    "StakeDependence",
    "StakeRTP",
    "bet_breakdown",
    "check_limits",
    "commission_by_stake",
    "covariance",
    "net_vector",
    "settle",
    "settle_bet",
    "settle_slip",
    "stake_dependence",
]


@functools.lru_cache(maxsize=512)
def _net_exact(bet: Bet, commission_rate: Fraction, detail=None) -> tuple[np.ndarray, tuple[Fraction, ...]]:
    """(index of each cell's net value, the distinct net values)."""
    nets = bet.net_results(commission_rate, detail)
    values = tuple(sorted(set(nets)))
    lookup = {value: i for i, value in enumerate(values)}
    index = np.array([lookup[v] for v in nets], dtype=np.int64)
    index.setflags(write=False)
    return index, values


def net_vector(bet: Bet, rules: Rules, detail=None) -> np.ndarray:
    """Net result per unit staked for every cell of a histogram.

    Parameters
    ----------
    detail : CardDetail or None
        The histogram's card detail (``hist.detail``); None: the outcome codes.

    Returns
    -------
    ndarray(float64, shape=(N_CODES,) or (detail.n_cells,))
    """
    index, values = _net_exact(bet, rules.commission.rate, detail)
    return np.array([float(v) for v in values])[index]


@dataclasses.dataclass(frozen=True)
class BetResult:
    """Settlement of one bet over a histogram (per unit staked).

    ``ev`` is exact (a Fraction turned to float) for the exact engine; for Monte
    Carlo it is the sample mean. ``distribution`` maps each net result to its
    probability (exact Fractions for the exact engine).
    """

    id: str
    name: str
    ev: float
    sd: float
    hit_frequency: float
    push_frequency: float
    rounds: int
    distribution: tuple[tuple[Fraction, float], ...]
    ev_exact: Fraction | None = None

    @property
    def rtp(self) -> float:
        """Return to player: ``1 + ev``."""
        return 1.0 + self.ev

    @property
    def house_edge(self) -> float:
        """``-ev``."""
        return -self.ev

    @property
    def rounds_for_precision(self) -> float:
        """Rounds for a 95% CI of +/- 0.01 percentage points (1e-4) at this SD."""
        return math.ceil((Z95 * self.sd / 1e-4) ** 2)


def settle_bet(hist: OutcomeHistogram, bet: Bet | str, rules: Rules, counts: np.ndarray | None = None,
               stake=None) -> BetResult:
    """Settle one bet over ``hist`` (or over ``counts`` from the same code space).

    Parameters
    ----------
    hist : OutcomeHistogram
    bet : Bet or str
        The bet, or its id in ``rules``.
    rules : Rules
    counts : ndarray(int64, shape=(hist.n_cells,)), optional
        Counts to settle instead of ``hist.counts`` (e.g. one round position).
    stake : number, optional
        Stake in lowest chips. Only matters where the rule set rounds the
        commission (``commission.rounding``): the commission on a win is then
        worked out for this stake. Without it the nominal rate applies.

    Returns
    -------
    BetResult
        Per unit staked; exact (``ev_exact`` a Fraction) for the exact engine.
    """
    bet = rules.bet(bet) if isinstance(bet, str) else bet
    counts = hist.counts if counts is None else counts
    nets = _line_nets(bet, rules, stake)
    line_weights = np.zeros(len(nets), np.int64)
    np.add.at(line_weights, bet.case_index(hist.detail), counts)
    by_net: dict[Fraction, int] = {}
    for net, weight in zip(nets, line_weights):
        by_net[net] = by_net.get(net, 0) + int(weight)
    values, weights = sorted(by_net), [by_net[v] for v in sorted(by_net)]
    total = sum(weights)
    if total == 0:
        raise InputError("hist", "cannot settle an empty histogram (no rounds)")
    ev_exact = sum((v * w for v, w in zip(values, weights)), Fraction(0)) / total
    second = sum((v * v * w for v, w in zip(values, weights)), Fraction(0)) / total
    variance = second - ev_exact * ev_exact
    hit = sum(w for v, w in zip(values, weights) if v > 0) / total
    push = sum(w for v, w in zip(values, weights) if v == 0) / total
    return BetResult(
        id=bet.id,
        name=bet.name,
        ev=float(ev_exact),
        sd=math.sqrt(float(variance)),
        hit_frequency=float(hit),
        push_frequency=float(push),
        rounds=total,
        distribution=tuple((v, w / total) for v, w in zip(values, weights) if w),
        ev_exact=ev_exact,
    )


def settle(hist: OutcomeHistogram, rules: Rules) -> list[BetResult]:
    """Settle every bet of ``rules`` over ``hist``.

    Examples
    --------
    >>> from baccarat_sim import exact_histogram, load_rules
    >>> results = settle(exact_histogram(8), load_rules("default"))
    >>> [(r.id, round(r.house_edge, 6)) for r in results]
    [('player', 0.012351), ('banker', 0.010579), ('tie', 0.143596)]
    """
    _warn_other_decks(hist, rules)
    return [settle_bet(hist, bet, rules) for bet in rules.bets]


def _warn_other_decks(hist: OutcomeHistogram, rules: Rules) -> None:
    """Warn when a histogram of whole decks is settled under a rule set that states another deck count."""
    decks = deck_count(hist.shoe)
    if decks is not None and decks != rules.shoe.decks:
        warnings.warn(f"the histogram was dealt from {decks} deck{'s' if decks != 1 else ''}, rule set {rules.id!r} "
                      f"states {rules.shoe.decks}: the figures are those of the histogram's shoe (settle under "
                      f"rules.with_shoe(decks={decks}) to say so)", ShoeMismatchWarning, stacklevel=3)


@dataclasses.dataclass(frozen=True)
class BreakdownLine:
    """One line of a bet's pay table over a histogram: its event, payout and weight."""

    event: str
    pays: str
    net: Fraction
    combinations: int
    probability: Fraction

    @property
    def contribution(self) -> Fraction:
        """Net result times probability: this line's share of the EV."""
        return self.net * self.probability


@dataclasses.dataclass(frozen=True)
class Breakdown:
    """A bet's pay table line by line over a histogram, as casino mathematicians publish it.

    Attributes
    ----------
    bet_id : str
    lines : tuple of BreakdownLine
        In file order, ``otherwise`` last.
    total : int
        Total weight (combinations or rounds).
    """

    bet_id: str
    lines: tuple[BreakdownLine, ...]
    total: int

    @property
    def ev(self) -> Fraction:
        """The bet's EV per unit staked (exact for an exact histogram)."""
        return sum((line.contribution for line in self.lines), Fraction(0))


def bet_breakdown(hist: OutcomeHistogram, bet: Bet | str, rules: Rules) -> Breakdown:
    """A bet's pay table line by line: combinations, probability and return of each line.

    Parameters
    ----------
    hist : OutcomeHistogram
        Exact (combinations are exact integer weights over six-card orderings)
        or Monte Carlo (combinations are rounds).
    bet : Bet or str
        The bet, or its id in ``rules``.
    rules : Rules

    Returns
    -------
    Breakdown
        (as a table: :func:`baccarat_sim.report.tables.breakdown`)

    Examples
    --------
    >>> from baccarat_sim import exact_histogram, load_rules
    >>> tie = bet_breakdown(exact_histogram(8), "tie", load_rules("default"))
    >>> [(line.event, line.net, line.combinations) for line in tie.lines]
    [('Tie', Fraction(8, 1), 475627426473216), ('Player or Banker win', Fraction(-1, 1), 4522770849030144)]
    """
    bet = rules.bet(bet) if isinstance(bet, str) else bet
    combos = np.zeros(len(bet.cases) + 1, np.int64)
    np.add.at(combos, bet.case_index(hist.detail), hist.counts)
    total = int(combos.sum())
    if total == 0:
        raise InputError("hist", "cannot settle an empty histogram (no rounds)")
    lines = tuple(
        BreakdownLine(case.name, case.pays + (" less commission" if case.commission else ""),
                      Bet._case_net(case, rules.commission.rate), int(weight), Fraction(int(weight), total))
        for case, weight in zip((*bet.cases, bet.otherwise), combos)
    )
    return Breakdown(bet.id, lines, total)


def _joint(bets: list[Bet], counts: np.ndarray, detail=None) -> tuple[np.ndarray, np.ndarray]:
    """Joint distribution of the pay-table lines of several bets.

    Returns
    -------
    (ndarray(int64, shape=(n_groups, n_bets)), ndarray(int64, shape=(n_groups,)))
        Each row is one combination of lines (index into ``cases + [otherwise]``
        per bet) that some outcome settles on, and its total weight. Weights are
        summed in int64 (exact: they never exceed the histogram total).
    """
    lines = np.stack([bet.case_index(detail) for bet in bets], axis=1)
    groups, inverse = np.unique(lines, axis=0, return_inverse=True)
    weights = np.zeros(len(groups), np.int64)
    np.add.at(weights, inverse.ravel(), counts)
    keep = weights > 0
    return groups[keep], weights[keep]


def _line_nets(bet: Bet, rules: Rules, stake=None) -> list[Fraction]:
    """Net result per unit staked of each line of a bet (``otherwise`` last).

    With ``stake`` (lowest chips) and a rounded commission, the commission on
    each winning line is the rounded amount on that stake's win.
    """
    commission = rules.commission
    if stake is None or commission.rounding == "none":
        return [Bet._case_net(case, commission.rate) for case in (*bet.cases, bet.otherwise)]
    stake = Fraction(str(stake)) if not isinstance(stake, Fraction) else stake
    if stake <= 0:
        raise InputError("stake", f"must be > 0, got {stake}")
    nets = []
    for case in (*bet.cases, bet.otherwise):
        if case.commission and case.net > 0:
            nets.append(case.net - commission.amount(stake * case.net) / stake)
        else:
            nets.append(case.net)
    return nets


@dataclasses.dataclass(frozen=True)
class Covariance:
    """Covariance of the per-unit results of bets over one round.

    Attributes
    ----------
    bet_ids : tuple of str
    matrix : ndarray(float64, shape=(n, n))
        Square, in ``bet_ids`` order; the diagonal holds the variances.
    """

    bet_ids: tuple[str, ...]
    matrix: np.ndarray

    def __call__(self, first: str, second: str) -> float:
        """The covariance of two bets by id."""
        return float(self.matrix[self.bet_ids.index(first), self.bet_ids.index(second)])


def covariance(hist: OutcomeHistogram, rules: Rules, bet_ids=None, stakes: dict | None = None) -> Covariance:
    """Covariance of the per-unit results of bets over one round.

    Exact (from integer weights) for the exact engine; for a Monte Carlo
    histogram it is the covariance of the rounds counted.

    Parameters
    ----------
    bet_ids : sequence of str, optional
        Default: every bet of ``rules``.
    stakes : dict of str to number, optional
        Stake per bet id: where the rule set rounds the commission, each bet's
        per-unit result is the one at its stake (as :func:`settle_bet` with
        ``stake=``). Default: the nominal rate.

    Examples
    --------
    >>> from baccarat_sim import exact_histogram, load_rules
    >>> cov = covariance(exact_histogram(8), load_rules("default"), ["player", "banker"])
    >>> round(cov("player", "banker"), 3)  # one wins when the other loses
    -0.882
    """
    bet_ids = tuple(rules.bet_ids if bet_ids is None else bet_ids)
    bets = [rules.bet(bet_id) for bet_id in bet_ids]
    groups, weights = _joint(bets, hist.counts, hist.detail)
    total = int(weights.sum())
    if total == 0:
        raise InputError("hist", "cannot settle an empty histogram (no rounds)")
    stakes = stakes or {}
    line_nets = [_line_nets(bet, rules, stakes.get(bet.id)) for bet in bets]
    nets = [[line_nets[i][line] for line in groups[:, i]] for i in range(len(bets))]
    means = [sum((v * int(w) for v, w in zip(column, weights)), Fraction(0)) / total for column in nets]
    matrix = np.zeros((len(bets), len(bets)))
    for i in range(len(bets)):
        for j in range(i, len(bets)):
            second = sum((a * b * int(w) for a, b, w in zip(nets[i], nets[j], weights)), Fraction(0)) / total
            matrix[i, j] = matrix[j, i] = float(second - means[i] * means[j])
    return Covariance(bet_ids, matrix)


@dataclasses.dataclass(frozen=True)
class SlipResult:
    """Settlement of several bets placed together on one round.

    Stakes are amounts in the table's money, the unit of
    ``rules.limits.min_bet`` (a currency, or chips). ``ev``, ``sd`` and
    ``distribution`` are of the slip's net result in that unit, with the
    commission rounded for each stake where the rule set rounds it; the SD
    includes the covariance between the bets (a Player and a Banker stake
    largely cancel).

    Attributes
    ----------
    stakes : dict of str to Fraction
    total_stake : float
    ev : float
        Expected net result of the slip (exact value in ``ev_exact``).
    sd : float
        Standard deviation of the slip's net result.
    hit_frequency, push_frequency : float
        Probability that the slip as a whole wins, or breaks even.
    distribution : tuple of (Fraction, float)
        Every net result of the slip and its probability.
    covariance : Covariance
        Per-unit covariance matrix of the staked bets (at their stakes).
    ev_exact : Fraction
    """

    stakes: dict
    total_stake: float
    ev: float
    sd: float
    hit_frequency: float
    push_frequency: float
    distribution: tuple[tuple[Fraction, float], ...]
    covariance: Covariance
    ev_exact: Fraction

    @property
    def rtp(self) -> float:
        """Expected return per unit staked over the whole slip."""
        return 1.0 + self.ev / self.total_stake

    @property
    def house_edge(self) -> float:
        """Expected loss per unit staked over the whole slip."""
        return -self.ev / self.total_stake


def _amount(value, key: str) -> Fraction:
    if isinstance(value, bool) or not isinstance(value, (int, float, str, Fraction, np.integer, np.floating)):
        raise LimitError("", f"{key}: a stake must be a number, got {value!r}")
    try:
        return Fraction(str(value)) if not isinstance(value, Fraction) else value
    except (ValueError, ZeroDivisionError):
        raise LimitError("", f"{key}: a stake must be a number, got {value!r}") from None


def _fmt(amount: Fraction) -> str:
    return str(amount.numerator) if amount.denominator == 1 else f"{float(amount):g}"


def check_limits(rules: Rules, stakes: dict) -> dict[str, Fraction]:
    """Check a bet slip against the rule set's table limits.

    Parameters
    ----------
    rules : Rules
    stakes : dict of str to number
        Stake per bet id, an amount in the table's money (the unit of
        ``limits.min_bet``); 0 means not staked.

    Returns
    -------
    dict of str to Fraction
        The stakes as exact amounts.

    Raises
    ------
    LimitError
        Naming the limit broken (its rule-file key) and the rule set.

    Notes
    -----
    A stake on a bet that ``limits.counts_as`` another (live-8deck-side-bets:
    the No Commission Banker counts as the Banker) counts towards that bet's
    maximum and the Player/Banker rules; bets of one ``limits.exclusive`` group
    (the Traditional and No Commission Banker bets) may not be staked together.
    Where the commission is rounded to a part of the lowest chip, every stake
    must be a whole number of lowest chips.

    Examples
    --------
    >>> from baccarat_sim import load_rules
    >>> check_limits(load_rules("rng-6deck-single-hand"), {"tie": 20})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    baccarat_sim.errors.LimitError: limits.max_bet.tie: a stake of 20 on tie is over the limit of 15x the minimum ...
    """
    limits = rules.limits
    where = f"in {rules.id}"
    if not isinstance(stakes, dict) or not stakes:
        raise LimitError("stakes", "give at least one bet id and its stake")
    amounts = {}
    chip = rules.commission.lowest_chip if rules.commission.rounded else None
    for bet_id, raw in stakes.items():
        if bet_id not in rules.bet_ids:
            raise LimitError("", f"stakes.{bet_id}: no such bet {where}; bets: {', '.join(rules.bet_ids)}")
        amounts[bet_id] = stake = _amount(raw, f"stakes.{bet_id}")
        if stake < 0:
            raise LimitError("", f"stakes.{bet_id}: a stake must be >= 0, got {_fmt(stake)}")
        if 0 < stake < limits.min_bet:
            raise LimitError("", f"limits.min_bet: a stake of {_fmt(stake)} on {bet_id} is below the minimum bet "
                             f"({_fmt(limits.min_bet)}) {where}")
        if chip is not None and stake % chip:
            raise LimitError("", f"commission.lowest_chip: a stake of {_fmt(stake)} on {bet_id} is not a whole number "
                             f"of lowest chips ({_fmt(chip)}) {where}")
    if not any(amounts.values()):
        raise LimitError("stakes", "every stake is 0")
    for group in limits.exclusive:
        both = [bet_id for bet_id in group if amounts.get(bet_id)]
        if len(both) > 1:
            names = " or ".join(f"{rules.bet(bet_id).name!r}" for bet_id in both)
            raise LimitError("", f"limits.exclusive: {' and '.join(both)} are alternatives ({names}): a slip may "
                             f"stake only one of them {where}")
    # What each bet's limits see: its own stake plus the stakes that count as it.
    counted: dict[str, Fraction] = {}
    for bet_id, stake in amounts.items():
        counted[limits.counted_as(bet_id)] = counted.get(limits.counted_as(bet_id), Fraction(0)) + stake
    player, banker = counted.get("player", Fraction(0)), counted.get("banker", Fraction(0))
    difference_rule = limits.player_banker_limit == "difference"

    def stake_text(bet_id: str) -> str:
        parts = [other for other, stake in amounts.items() if stake and limits.counted_as(other) == bet_id]
        return bet_id if parts in ([bet_id], []) else f"{' + '.join(parts)} (counted as {bet_id})"

    # Each bet's maximum caps its own stake, and the stakes counted as it together.
    capped = [(bet_id, stake, bet_id) for bet_id, stake in amounts.items()]
    capped += [(bet_id, amount, stake_text(bet_id)) for bet_id, amount in counted.items()
               if amount != amounts.get(bet_id)]
    for bet_id, amount, on in capped:
        maximum = limits.max_for(bet_id)
        if maximum is None or (difference_rule and bet_id in ("player", "banker")):
            continue
        if amount > maximum * limits.min_bet:
            raise LimitError("", f"limits.max_bet.{bet_id}: a stake of {_fmt(amount)} on {on} is over the limit of "
                             f"{_fmt(maximum)}x the minimum bet ({_fmt(maximum * limits.min_bet)}) {where}")
    if difference_rule:
        cap = min(limits.max_for("player"), limits.max_for("banker")) * limits.min_bet
        if abs(player - banker) > cap:
            counted_too = any(limits.counted_as(b) != b and limits.counted_as(b) in ("player", "banker") and stake
                              for b, stake in amounts.items())
            both = (f"{_fmt(player)} on {stake_text('player')} and {_fmt(banker)} on {stake_text('banker')}"
                    if counted_too else f"{_fmt(player)} and {_fmt(banker)}")
            raise LimitError("", f"limits.player_banker_limit: the Player and Banker stakes ({both}) differ by "
                             f"{_fmt(abs(player - banker))}, over the limit of {_fmt(cap)} on their difference {where}")
    if player and banker:
        if not limits.equal_player_banker and player == banker:
            raise LimitError("", f"limits.equal_player_banker: the same amount ({_fmt(player)}) may not be staked on "
                             f"Player and Banker {where}")
        gap = limits.player_banker_min_difference * limits.min_bet
        if abs(player - banker) < gap:
            raise LimitError("", f"limits.player_banker_min_difference: the Player and Banker stakes must differ by at "
                             f"least {_fmt(gap)}, got {_fmt(player)} and {_fmt(banker)} {where}")
    if limits.side_bets_need_main_bet:
        main = any(stake and rules.bet(bet_id).group == "main" for bet_id, stake in amounts.items())
        side = [bet_id for bet_id, stake in amounts.items() if stake and rules.bet(bet_id).group == "side"]
        if side and not main:
            raise LimitError("", f"limits.side_bets_need_main_bet: {', '.join(side)} may only be staked with a main "
                             f"bet {where}")
    return amounts


def settle_slip(hist: OutcomeHistogram, rules: Rules, stakes: dict, check: bool = True) -> SlipResult:
    """Settle a bet slip: the distribution of the combined result of several bets.

    Parameters
    ----------
    hist : OutcomeHistogram
        Exact or Monte Carlo.
    rules : Rules
    stakes : dict of str to number
        Stake per bet id, an amount in the table's money (the unit of
        ``rules.limits.min_bet``). Where the rule set rounds the commission
        (``online-commission-rounding``) each commission bet is settled at its
        stake: one chip on the Banker wins 0.75 chips.
    check : bool
        Check the slip against the rule set's table limits first
        (:func:`check_limits`).

    Examples
    --------
    >>> from baccarat_sim import exact_histogram, load_rules
    >>> slip = settle_slip(exact_histogram(8), load_rules("rng-6deck-single-hand"), {"banker": 10, "tie": 1})
    >>> round(slip.ev, 6), round(slip.sd, 4)
    (-0.249387, 9.6518)
    """
    amounts = check_limits(rules, stakes) if check else {k: _amount(v, f"stakes.{k}") for k, v in stakes.items()}
    staked = {bet_id: stake for bet_id, stake in amounts.items() if stake}
    bets = [rules.bet(bet_id) for bet_id in staked]
    groups, weights = _joint(bets, hist.counts, hist.detail)
    total = int(weights.sum())
    if total == 0:
        raise InputError("hist", "cannot settle an empty histogram (no rounds)")
    line_nets = [_line_nets(bet, rules, stake) for bet, stake in zip(bets, staked.values())]
    by_net: dict[Fraction, int] = {}
    for row, weight in zip(groups, weights):
        net = sum((stake * nets[line] for stake, nets, line in zip(staked.values(), line_nets, row)), Fraction(0))
        by_net[net] = by_net.get(net, 0) + int(weight)
    ev = sum((v * w for v, w in by_net.items()), Fraction(0)) / total
    variance = sum((v * v * w for v, w in by_net.items()), Fraction(0)) / total - ev * ev
    return SlipResult(
        stakes=amounts,
        total_stake=float(sum(staked.values())),
        ev=float(ev),
        sd=math.sqrt(float(variance)),
        hit_frequency=sum(w for v, w in by_net.items() if v > 0) / total,
        push_frequency=sum(w for v, w in by_net.items() if v == 0) / total,
        distribution=tuple((v, by_net[v] / total) for v in sorted(by_net)),
        covariance=covariance(hist, rules, list(staked), staked),
        ev_exact=ev,
    )


@dataclasses.dataclass(frozen=True)
class StakeRTP:
    """A commission bet's RTP at one stake, when the commission is rounded (amounts in the table's money)."""

    stake: Fraction
    commission: Fraction
    rtp: float
    rtp_nominal: float

    @property
    def payout(self) -> Fraction:
        """Net win of a winning stake."""
        return self.stake - self.commission

    @property
    def effective_rate(self) -> Fraction:
        """Commission as a share of the win."""
        return self.commission / self.stake

    @property
    def house_edge(self) -> float:
        """``1 - rtp``."""
        return 1.0 - self.rtp


def _stakes_in_chips(rules: Rules, count: int = 100) -> list[Fraction]:
    """The first ``count`` stakes a table takes: 1, 2, ... lowest chips."""
    return [k * rules.commission.lowest_chip for k in range(1, count + 1)]


def commission_by_stake(hist: OutcomeHistogram, rules: Rules, bet_id: str = "banker",
                        stakes=None) -> list[StakeRTP]:
    """RTP of a commission bet by stake, with the commission rounded as the rule set says.

    online-commission-rounding.txt: "Commission is rounded up to a quarter of the
    lowest chip denomination". A one-chip Banker win then pays 1 - 0.25 = 0.75
    chips (an effective 25% commission) and only multiples of 5 chips pay the
    nominal 5%. (As a table: :func:`baccarat_sim.report.tables.commission_table`.)

    Parameters
    ----------
    hist : OutcomeHistogram
    rules : Rules
    bet_id : str
        A bet with a commission line (``commission = true``).
    stakes : iterable of number, optional
        Stakes, amounts in the table's money (the unit of
        ``commission.lowest_chip``). Default: 1 to 100 lowest chips.

    Returns
    -------
    list of StakeRTP
        ``commission`` is the commission on a win of the stake (an even-money line).

    Examples
    --------
    >>> from baccarat_sim import exact_histogram, load_rules
    >>> rows = commission_by_stake(exact_histogram(8), load_rules("online-commission-rounding"), stakes=[1, 2, 5])
    >>> [(str(r.stake), str(r.commission), float(r.effective_rate)) for r in rows]
    [('1', '1/4', 0.25), ('2', '1/4', 0.125), ('5', '1/4', 0.05)]
    """
    bet = rules.bet(bet_id)
    if not any(case.commission for case in bet.cases):
        raise InputError("bet_id", f"{bet_id!r} has no commission line in rule set {rules.id!r}")
    nominal = settle_bet(hist, bet, rules).rtp
    rounded = rules.commission.rounded
    rows = []
    for stake in _stakes_in_chips(rules) if stakes is None else stakes:
        stake = Fraction(str(stake)) if not isinstance(stake, Fraction) else stake
        result = settle_bet(hist, bet, rules, stake=stake if rounded else None)
        fee = rules.commission.amount(stake) if rounded else rules.commission.rate * stake
        rows.append(StakeRTP(stake, fee, result.rtp, nominal))
    return rows


@dataclasses.dataclass(frozen=True)
class StakeDependence:
    """How a bet's RTP depends on its stake, where the rule set rounds the commission.

    Attributes
    ----------
    bet_id : str
    rtp_nominal : float
        RTP at the unrounded rate: the per-bet table's figure.
    holds_at_multiples_of : Fraction
        The nominal RTP holds at stakes that are multiples of this amount, and
        at no other stake (there the commission needs no rounding).
    lowest_chip : Fraction
        Stakes are whole numbers of lowest chips.
    min_stake : Fraction
        The rule set's minimum bet (``limits.min_bet``).
    rtp_at_min_stake : float
    by_stake : tuple of StakeRTP
        The RTP at every stake from the minimum, a lowest chip apart, up to the
        first at which the nominal RTP holds (the rounding repeats with that period).
    """

    bet_id: str
    rtp_nominal: float
    holds_at_multiples_of: Fraction
    lowest_chip: Fraction
    min_stake: Fraction
    rtp_at_min_stake: float
    by_stake: tuple[StakeRTP, ...]


def stake_dependence(hist: OutcomeHistogram, rules: Rules, bet: Bet | str) -> StakeDependence | None:
    """Whether, and how, a bet's RTP depends on the stake (None: the same RTP at every stake).

    It does where the rule set rounds the commission (``commission.rounding``)
    and the bet takes commission from a win whose commission is not a whole
    number of rounding steps at every stake.

    Examples
    --------
    >>> from baccarat_sim import exact_histogram, load_rules
    >>> found = stake_dependence(exact_histogram(8), load_rules("online-commission-rounding"), "banker")
    >>> int(found.holds_at_multiples_of), int(found.min_stake), round(found.rtp_at_min_stake, 4)
    (5, 1, 0.8977)
    """
    bet = rules.bet(bet) if isinstance(bet, str) else bet
    commission = rules.commission
    nets = [case.net for case in bet.cases if case.commission and case.net > 0]
    multiple = commission.nominal_stake_multiple(nets) if nets else None
    if multiple is None or multiple == commission.lowest_chip:
        return None  # no rounding, or every stake (a whole number of chips) pays the exact commission
    min_stake = rules.limits.min_bet
    last = min_stake + (-min_stake) % multiple  # the first stake from the minimum that pays the nominal rate
    stakes = [min_stake + k * commission.lowest_chip
              for k in range(int((last - min_stake) / commission.lowest_chip) + 1)]
    nominal = settle_bet(hist, bet, rules).rtp
    rows = tuple(StakeRTP(stake, commission.amount(stake), settle_bet(hist, bet, rules, stake=stake).rtp, nominal)
                 for stake in stakes)
    return StakeDependence(bet.id, nominal, multiple, commission.lowest_chip, min_stake, rows[0].rtp, rows)
