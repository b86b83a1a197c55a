"""The rows of the math report (:mod:`baccarat_sim.analysis.math_report`) and the arithmetic it adds.

Plain frozen records built from the analyses' own results: a combinations
table line (:class:`LineRow`), a hold horizon (:class:`HoldRow`), a bet's count
(:class:`CountSection`), the house edge by deck count (:class:`DeckTable`).
What is computed here is arithmetic on those figures, each defined where it is
computed: the volatility index, "1 in N", the Desirability Index.
"""

from __future__ import annotations

import dataclasses
import math
from fractions import Fraction

from ..model.cards import RANK_NAMES
from ..model.conditions import covers
from ..model.rules import Bet, Rules

__all__ = ["FIRST_FOUR", "ONE_IN_LIMIT", "VOLATILITY_LEVELS", "VOLATILITY_Z", "CountSection", "DeckTable", "HoldRow",
           "LineRow", "desirability_index", "four_card_divisor", "reads_only", "strategy_toml", "sweep_positions",
           "volatility_index"]

#: The largest "N" of a jackpot's "1 in N" the regulations allow (N.J.A.C. 13:69D-1.52(e)4; GLI-11 section 4.8.2).
ONE_IN_LIMIT = 100_000_000
#: Confidence levels (percent) of the volatility index.
VOLATILITY_LEVELS = (90, 95, 99)
#: Two-sided normal quantiles of :data:`VOLATILITY_LEVELS`.
VOLATILITY_Z = {90: 1.6448536269514722, 95: 1.959963984540054, 99: 2.5758293035489004}
#: The card positions of the Player's and Banker's first two cards.
FIRST_FOUR = ("P1", "B1", "P2", "B2")


def volatility_index(sd: float, level: int) -> float:
    """Volatility index at ``level`` percent: ``z x SD`` of one round, per unit staked.

    Over ``N`` rounds the player's average result lies within ``EV +- VI / sqrt(N)``
    with that confidence (normal approximation), the figure slot-style math
    sheets give.
    """
    return VOLATILITY_Z[level] * sd


def reads_only(bet: Bet, positions) -> bool:
    """Whether every line of ``bet`` is decided by the cards at ``positions`` alone (no outcome feature)."""
    atoms = bet.atoms
    texts = [atom.text for atom in atoms]
    if not atoms or not all(covers(case.when, texts) for case in bet.cases):
        return False
    return all(set(atom.positions) <= set(positions) for atom in atoms)


def four_card_divisor(bet: Bet, composition, breakdown) -> int | None:
    """Six-card orderings per unordered set of the first four cards, for a bet that reads those four alone.

    The exact engine weighs every round as an ordering of six cards of the
    shoe; an event on the first four cards then has ``24 (N - 4) (N - 5)``
    orderings per unordered four-card set, which is how Wizard of Odds counts
    Jackpot Baccarat. None for a bet that reads anything else.
    """
    if not reads_only(bet, FIRST_FOUR):
        return None
    n = int(composition.sum())
    divisor = 24 * (n - 4) * (n - 5)
    if any(line.combinations % divisor for line in breakdown.lines):  # cannot happen for such a bet
        return None
    return divisor


@dataclasses.dataclass(frozen=True)
class LineRow:
    """One line of a combinations table.

    Attributes
    ----------
    event, when, pays : str
        The line's name, its condition and its payout as the rule file writes them.
    net : Fraction
        Net result per unit staked, at the bet's meter.
    per_meter : Fraction
        How much the net grows per unit of jackpot meter (0: not a jackpot line).
    combinations : int
    probability : Fraction
    jackpot : bool
        The line pays the jackpot or a share of it.
    """

    event: str
    when: str
    pays: str
    net: Fraction
    per_meter: Fraction
    combinations: int
    probability: Fraction
    jackpot: bool

    @classmethod
    def of(cls, line, case, total: int, bet: Bet) -> LineRow:
        """From a :class:`~baccarat_sim.analysis.settlement.BreakdownLine` and its pay-table case."""
        return cls(line.event, case.when, line.pays, line.net, case.jackpot, line.combinations, line.probability,
                   bool(case.jackpot))

    @property
    def contribution(self) -> Fraction:
        """Net x probability: the line's return."""
        return self.net * self.probability

    @property
    def one_in(self) -> float | None:
        """The line's odds as "1 in N" (None: it never happens)."""
        return None if not self.combinations else float(1 / self.probability)

    @property
    def meets_one_in_limit(self) -> bool | None:
        """For a jackpot line: whether its probability is at least 1 in :data:`ONE_IN_LIMIT` (else None)."""
        if not self.jackpot:
            return None
        return self.probability >= Fraction(1, ONE_IN_LIMIT)


@dataclasses.dataclass(frozen=True)
class HoldRow:
    """The house's hold on one bet over ``rounds`` rounds: its mean and central ranges (fractions of the handle).

    ``central_90`` is ``[Q(0.05), Q(0.95)]``, ``central_95`` ``[Q(0.025),
    Q(0.975)]``, ``central_99`` ``[Q(0.005), Q(0.995)]`` of the hold command's
    :class:`~baccarat_sim.analysis.hold.HoldSummary`.
    """

    rounds: int
    kind: str
    method: str
    hold_mean: float
    central_90: tuple[float, float]
    central_95: tuple[float, float]
    central_99: tuple[float, float]
    error_bound: float

    @classmethod
    def of(cls, summary) -> HoldRow:
        """From a :class:`~baccarat_sim.analysis.hold.HoldSummary`."""
        from .hold import QUANTILE_LEVELS

        q = dict(zip(QUANTILE_LEVELS, summary.quantiles))
        return cls(summary.n_rounds, summary.kind, summary.method, summary.hold_mean,
                   (summary.hold(q[0.05].value), summary.hold(q[0.95].value)), summary.hold_range_95,
                   summary.hold_range_99, float(summary.error_bound))


@dataclasses.dataclass(frozen=True)
class CountSection:
    """A bet's count: its derived tags and how they did through dealt shoes, or why it was not counted.

    Attributes
    ----------
    tags : CountTags or None
    row : dict or None
        The counting study's row of the bet (:func:`~baccarat_sim.analysis.counting.count_simulation`).
    skipped : str or None
    """

    tags: object | None
    row: dict | None
    skipped: str | None

    @property
    def units_per_100_rounds_se(self) -> float | None:
        """Standard error of the units won per 100 rounds: ``100 x SE(units per shoe) / rounds per shoe``.

        The delta method with the rounds of a shoe taken as fixed (they vary by a few rounds in 80).
        """
        if self.row is None or not self.row["rounds_per_shoe"]:
            return None
        return 100 * self.row["units_per_shoe_se"] / self.row["rounds_per_shoe"]

    @property
    def desirability_index(self) -> float | None:
        """See :func:`desirability_index` (None without a study)."""
        return None if self.row is None else desirability_index(self.row)


def desirability_index(row: dict) -> float | None:
    """``1000 x mean / (SD x sqrt(rounds per shoe))`` of the units won per shoe (None where undefined).

    Schlesinger's ``1000 x win / SD`` per round, equal to ``1000 / sqrt(N0)``;
    with the rounds of a shoe dependent, ``N0`` is measured on shoe totals:
    ``N0 = (SD_shoe / mean_shoe)^2`` shoes of ``r`` rounds each.
    """
    shoes, rounds_per_shoe = row["shoes"], row["rounds_per_shoe"]
    mean, se = row["units_per_shoe"], row["units_per_shoe_se"]
    if shoes < 2 or not rounds_per_shoe or not se or not math.isfinite(se) or not math.isfinite(mean):
        return None
    sd_shoe = se * math.sqrt(shoes)
    return 1000 * mean / (sd_shoe * math.sqrt(rounds_per_shoe))


@dataclasses.dataclass(frozen=True)
class DeckTable:
    """Exact house edge of every bet by shoe.

    Attributes
    ----------
    shoes : tuple of str
        ``"1 deck"`` .. ``"8 decks"``, and the shoe reported when it is another.
    own : str
        The label of the shoe the rule set (or the report) deals.
    house_edge : dict of str to tuple of Fraction
        Per bet id, one per shoe.
    """

    shoes: tuple[str, ...]
    own: str
    house_edge: dict


def _tag_text(value: int) -> str:
    return str(int(value))


def strategy_toml(rules: Rules, derived: dict) -> str:
    """A strategy file that plays each bet by its derived count at its break-even true count.

    The tags and thresholds are written out (not re-derived on load), so that
    ``python -m baccarat_sim.rtp --count`` of this file plays exactly what the
    report's study played. The exact edge of every bet placed is not recorded
    (``exact_edge = false``): solving it after every card costs more than the
    dealing, and the study reports the measured edge with its standard error.
    """
    lines = ["schema_version = 1", f'id = "{rules.id}-derived-counts"',
             f'name = "Derived level-2 counts of {rules.id}"',
             'source = "baccarat_sim math report: eor.derive_tags(level=2), bet at the break-even true count"', ""]
    for bet_id, tags in derived.items():
        keys = ", ".join(f'"{RANK_NAMES[r]}" = {_tag_text(t)}' for r, t in enumerate(tags.tags))
        lines += [f"[counts.{bet_id}]", f"tags = {{ {keys} }}", ""]
    for bet_id, tags in derived.items():
        lines += ["[[bets]]", f'id = "{bet_id}"', 'play = "count"', f'count = "{bet_id}"',
                  f"true_count = {tags.break_even_true_count!r}", "exact_edge = false", ""]
    return "\n".join(lines)


def sweep_positions(rules: Rules) -> str:
    """The cut-card positions the report sweeps: the rule set's own, and 10%, 25% and 50% of the shoe."""
    own = rules.shoe.cut_card
    first = str(own.low) if own.low == own.high else f"{own.low}:{own.high}"
    return f"cut={first},0.1,0.25,0.5"
