"""Pay tables: a bet as data, its lines, and the one check of a pay table.

A :class:`Bet` is a list of :class:`Case` lines, each a condition over the
outcome (see :mod:`baccarat_sim.model.conditions`) and the net result per unit
staked where it holds, with an ``otherwise`` line for the rest. A bet on the
outcome alone settles on the outcome codes; a bet that reads cards settles on
the cells of a card detail (outcome code by combination of its card-only
conditions). :class:`PayTableCheck` checks a pay table on either space the same
way: the rule-file loader on the outcome codes as it reads each line, and
:meth:`Bet.check_detail` on the card detail's cells once the engines have
worked out which cells can happen.

A progressive bet has a :class:`Jackpot`: its lines may pay the meter or a
share of it, so their net results are straight lines in the meter, priced at
the value :meth:`Bet.with_meter` sets (the rule file's reset value by default).
"""

from __future__ import annotations

import dataclasses
import functools
from fractions import Fraction

import numpy as np

from ..errors import InputError, InvalidRules
from .codes import N_CODES, decode
from .conditions import Condition, compile_condition, covers, evaluate, possible_codes
from .detail import CardDetail
from .toml import Checker, excerpt

__all__ = ["JACKPOT_UNITS", "Bet", "Case", "Jackpot", "PayTableCheck", "describe_cell"]

#: What a jackpot meter counts in: units of the bet's stake, or money (the bet's ``stake`` says how much one is).
JACKPOT_UNITS = ("stake", "money")


@dataclasses.dataclass(frozen=True)
class Case:
    """One line of a pay table: where ``when`` holds, the bet's net result is ``net``.

    ``net`` is per unit staked (11 for "11:1", -1 for a loss, 0 for a push,
    -1/2 for half the stake lost); ``pays`` is the payout as the file writes it;
    ``commission`` marks a win from which the rule set's commission is taken.

    A line that pays a jackpot (or a share of it) has a net result linear in
    the meter: ``net`` is its value with the meter at ``meter``, and
    ``jackpot`` is how much it grows per unit of meter (the share paid,
    divided by the stake for a meter in money). :meth:`at_meter` moves it to
    another meter value, exactly.
    """

    when: str
    net: Fraction
    pays: str
    commission: bool = False
    name: str = ""
    jackpot: Fraction = Fraction(0)
    meter: Fraction = Fraction(0)

    def at_meter(self, meter: Fraction) -> Case:
        """The same line with the jackpot meter at ``meter`` (itself when it pays no jackpot)."""
        if not self.jackpot:
            return self
        return dataclasses.replace(self, net=self.net + self.jackpot * (meter - self.meter), meter=meter)

    @property
    def resets_meter(self) -> bool:
        """Whether the line pays the whole jackpot (the meter then goes back to its reset value)."""
        return self.pays == "jackpot"

    @property
    def condition(self) -> Condition:
        """The parsed condition (cached by text)."""
        return compile_condition(self.when) if self.when != "otherwise" else compile_condition("true")

    def mask(self, detail=None) -> np.ndarray:
        """Where the line applies: over the outcome codes, or over a card detail's cells.

        Parameters
        ----------
        detail : CardDetail or None
            The histogram's card detail (None: plain outcome codes).

        Returns
        -------
        ndarray(bool, shape=(N_CODES,) or (detail.n_cells,))
        """
        if detail is None:
            return evaluate(self.when)
        return _cell_mask(self.when, detail)



@dataclasses.dataclass(frozen=True)
class Jackpot:
    """A bet's progressive jackpot: what its meter counts in, where it starts again, what feeds it.

    Attributes
    ----------
    unit : str
        One of :data:`JACKPOT_UNITS`: ``"stake"`` (the meter counts units of
        the bet's stake) or ``"money"`` (the bet's ``stake`` says how much money
        one stake is).
    reset : Fraction or None
        The value the meter starts from again after it is won (in ``unit``;
        None where the source does not say).
    contribution : Fraction or None
        The fraction of every stake added to the meter, where known.
    meter : Fraction
        The meter value the bet's lines are priced at (the reset value, or 0
        without one, unless ``--meter`` or :meth:`Bet.with_meter` says otherwise).
    per_stake : Fraction
        Meter units per stake: the bet's stake in money for a meter in money,
        1 for a meter in units of the stake.
    """

    unit: str
    reset: Fraction | None
    contribution: Fraction | None = None
    meter: Fraction = Fraction(0)
    per_stake: Fraction = Fraction(1)


@dataclasses.dataclass(frozen=True)
class Bet:
    """A bet as data: a pay table over outcome features.

    Attributes
    ----------
    id : str
        snake_case id, kept in every output.
    name : str
        Display name.
    cases : tuple of Case
        Disjoint cases; ``otherwise`` settles every outcome none of them covers.
    otherwise : Case
        Usually a loss (``net = -1``).
    max_round : int or None
        "Max Round Availability": the bet is offered only in rounds 1..max_round of a shoe.
    stated_rtp : str or None
        The RTP the rule sheet states, as written (e.g. ``"98.76%"``).
    group : str
        ``"main"`` (Player, Banker, Tie) or ``"side"``.
    description : str
        The bet's rule in words, as the sheet words it.
    jackpot : Jackpot or None
        Its progressive jackpot, where a line pays the meter or a share of it.
    stake : Fraction or None
        The stake in money the file prices, where a line pays a flat amount
        for each stake level (or the jackpot's meter counts money): the one
        stake a slip may put on the bet.
    amount_stakes : tuple of Fraction
        The stake levels the lines' ``amounts`` name (the bet's ``stake`` is
        one of them), in increasing order.
    """

    id: str
    name: str
    cases: tuple[Case, ...]
    otherwise: Case
    max_round: int | None = None
    stated_rtp: str | None = None
    group: str = "side"
    description: str = ""
    jackpot: Jackpot | None = None
    stake: Fraction | None = None
    amount_stakes: tuple = ()
    #: Whether the file gave an ``otherwise`` line (a card-level bet without one must cover every outcome).
    _explicit_otherwise: bool = dataclasses.field(default=True, repr=False, compare=False)

    @property
    def atoms(self) -> tuple:
        """The card-only conditions of the bet's lines (empty for a bet on the outcome alone)."""
        found: dict = {}
        for case in self.cases:
            for atom in case.condition.atoms:
                found.setdefault(atom.text, atom)
        return tuple(found.values())

    @property
    def meter(self) -> Fraction | None:
        """The jackpot meter value the bet is priced at (None: it pays no jackpot)."""
        return None if self.jackpot is None else self.jackpot.meter

    def with_meter(self, meter) -> Bet:
        """The same bet with its jackpot meter at ``meter`` (in the jackpot's unit): every line's net moves with it.

        Raises
        ------
        ValueError
            The bet pays no jackpot, or the meter is negative.
        """
        if self.jackpot is None:
            raise ValueError(f"bet {self.id!r} pays no jackpot")
        meter = Fraction(meter)
        if meter < 0:
            raise ValueError(f"a jackpot meter cannot be negative, got {meter}")
        return dataclasses.replace(self, cases=tuple(case.at_meter(meter) for case in self.cases),
                                   otherwise=self.otherwise.at_meter(meter),
                                   jackpot=dataclasses.replace(self.jackpot, meter=meter))

    @property
    def card_level(self) -> bool:
        """Whether the bet reads cards, not only the outcome."""
        return any(case.condition.card_level for case in self.cases)

    def net_results(self, commission_rate: Fraction, detail=None) -> np.ndarray:
        """Net result per unit staked for every outcome code (or cell of ``detail``).

        Returns
        -------
        ndarray(object, shape=(N_CODES,) or (detail.n_cells,))
            Exact :class:`fractions.Fraction` values.
        """
        return np.array(self.case_nets(commission_rate), dtype=object)[self.case_index(detail)]

    def case_nets(self, commission_rate: Fraction) -> list[Fraction]:
        """Net result per unit staked of each case (``otherwise`` last), exact."""
        return [self._case_net(case, commission_rate) for case in (*self.cases, self.otherwise)]

    def case_index(self, detail=None) -> np.ndarray:
        """Which case settles each outcome code (``len(cases)`` for ``otherwise``).

        Parameters
        ----------
        detail : CardDetail or None
            A histogram's card detail: the index is then over its cells.
            A bet on the outcome alone is the same in every detail.
        """
        return _case_index(self, detail)

    def check_detail(self, detail, rules) -> None:
        """Check a card-level bet's pay table on the cells that can happen.

        The checks the loader makes of an outcome-only bet on the possible
        outcome codes (:class:`PayTableCheck`): every line can happen, no two
        lines overlap, no outcome is left without a line, the bet can win and
        can lose. On a detail whose cells come from the Monte Carlo tables
        (``detail.reach == "tables"``, more cells than can happen) the overlap
        and the gaps are not checked: they may lie on cells that cannot happen;
        on one whose cells are those a shoe dealt (``"dealt"``, fewer) only
        they are.

        Raises
        ------
        InvalidRules
            Naming the file, the bet and the line at fault.
        """
        check = PayTableCheck(Checker(rules.path, InvalidRules), f"bets.{self.id}", detail)
        for i, case in enumerate(self.cases):
            check.line(i, case.when, case.mask(detail))
        if not self._explicit_otherwise:
            check.every_outcome_has_a_line()
        rate = rules.commission.rate
        check.can_win_and_lose(self.cases, [self._case_net(case, rate) for case in self.cases],
                               self.otherwise, self._case_net(self.otherwise, rate))

    @staticmethod
    def _case_net(case: Case, commission_rate: Fraction) -> Fraction:
        if case.commission and case.net > 0:
            return case.net * (1 - commission_rate)
        return case.net


class PayTableCheck:
    """The checks of one bet's pay table, line by line, over the outcomes that can happen.

    The space is the outcome codes (``detail`` None: :func:`possible_codes`
    says which can happen) or the cells of a card detail (its ``possible``).
    Each failure is one line naming the file, the bet and the line at fault.

    Parameters
    ----------
    checker : Checker
        Raises the error (:meth:`Checker.fail`, naming the rule file).
    key : str
        The bet's key path, ``bets.<id>``.
    detail : CardDetail or None
        The card detail whose cells the lines' masks are over.
    """

    def __init__(self, checker: Checker, key: str, detail=None):
        self.checker = checker
        self.key = key
        self.detail = detail
        self.possible = possible_codes() if detail is None else detail.possible
        # A detail whose possible cells come from the Monte Carlo tables holds cells that cannot happen: a line
        # found on none of them can never happen, but an overlap or a gap there may be on impossible cells only.
        # One whose cells are those a shoe dealt holds only cells that happen, perhaps not all: an overlap or a gap
        # there is one, but a line missing there may happen on another shoe.
        reach = "exact" if detail is None else detail.reach
        self.all_happen, self.all_there = reach in ("exact", "dealt"), reach in ("exact", "tables")
        self.covered = np.zeros(self.possible.shape, bool)
        self.owner = np.full(self.possible.shape, -1)
        self.whens: dict[int, str] = {}

    def line(self, i: int, when: str, mask: np.ndarray) -> None:
        """Line ``pays[i]``, ``when`` holding where ``mask``: it can happen and overlaps no earlier line."""
        key = f"{self.key}.pays[{i}].when"
        if not (mask & self.possible).any() and self.all_there:
            self.checker.fail(key, f"{excerpt(when)} can never happen at the table")
        overlap = self.covered & mask & self.possible
        if overlap.any() and self.all_happen:
            first = int(np.flatnonzero(overlap)[0])
            owner = int(self.owner[first])
            self.checker.fail(key, f"{excerpt(when)} overlaps pays[{owner}] ({excerpt(self.whens[owner])}), e.g. "
                                   f"{describe_cell(first, self.detail)}")
        self.owner[mask & ~self.covered] = i
        self.covered |= mask
        self.whens[i] = when

    @property
    def uncovered(self) -> np.ndarray:
        """Outcomes that can happen and that no line checked so far covers (``otherwise`` settles them)."""
        return self.possible & ~self.covered

    def every_outcome_has_a_line(self) -> None:
        """For a pay table without an ``otherwise`` line: the lines cover every outcome that can happen."""
        missing = self.uncovered
        if missing.any() and self.all_happen:
            self.checker.fail(f"{self.key}.otherwise", "missing cases: some outcomes match no line, e.g. "
                                                       f"{describe_cell(int(np.flatnonzero(missing)[0]), self.detail)}"
                                                       "; add otherwise = \"lose\" or lines that cover them")

    def can_win_and_lose(self, cases, nets, otherwise, otherwise_net) -> None:
        """Some outcome wins and some loses, given every line (``cases``, ``otherwise``) and its net result.

        A line paying the jackpot or a share of it can win whatever the meter
        (at a meter of 0 it pays nothing, at any other it pays): the bet can
        be priced at every meter, the outcome-level and the card-level bet
        alike, so the check does not depend on the meter it is priced at
        (issue 41, item 22). Every other line wins where its net result (after
        commission) is above 0 and loses where it is below.
        """
        if not self.all_there:  # a line that never happened on one shoe may still win or lose on another
            return
        lines = list(zip(cases, nets))
        if self.uncovered.any():
            lines.append((otherwise, otherwise_net))
        if not any(net > 0 or case.jackpot for case, net in lines):
            self.checker.fail(f"{self.key}.pays", "the bet can never win: no line pays more than the stake back "
                                                  "or pays the jackpot")
        if not any(net < 0 and not case.jackpot for case, net in lines):
            self.checker.fail(f"{self.key}.pays", "the bet can never lose: every outcome wins or pushes")


def _cell_mask(when: str, detail) -> np.ndarray:
    """A condition over a card detail's cells (``detail * n_outcomes + outcome``), flattened.

    Raises
    ------
    ValueError
        When the detail counts prefixes and the condition reads a pair or the first-card comparison.
    """
    return detail.project(compile_condition(when).mask(detail.atom_bits() if detail.atoms else None))


@functools.lru_cache(maxsize=256)
def _case_index(bet: Bet, detail) -> np.ndarray:
    """Read-only: settlement asks again for every round position and batch."""
    if detail is not None and not isinstance(detail, CardDetail):
        raise TypeError("a bet settles on one group of a card detail: take the histogram's view of it first")
    if bet.card_level:
        texts = () if detail is None else detail.texts
        missing = [case.when for case in bet.cases if case.condition.card_level and not covers(case.when, texts)]
        if missing:
            held = "none" if detail is None else "; ".join(texts)
            raise InputError("histogram", f"bet {bet.id!r} reads cards ({excerpt(missing[0])}) that the histogram "
                                          f"does not carry (its card detail: {held}); count the histogram from a "
                                          "rule set with this bet: exact_histogram(rules), not exact_histogram(decks), "
                                          "or simulate(rules, ...)")
    size = N_CODES if detail is None else detail.n_cells
    index = np.full(size, len(bet.cases), np.int64)
    for i, case in enumerate(bet.cases):
        try:
            index[case.mask(detail)] = i
        except ValueError as error:
            raise InputError("histogram", f"bet {bet.id!r}: {excerpt(case.when)} {error}") from None
    index.setflags(write=False)
    return index


def describe_cell(cell: int, detail=None) -> str:
    """An outcome code in words, or a card detail's cell (``detail * n_outcomes + outcome``) with its cards."""
    if detail is None or not detail.atoms:
        return _describe_code(cell % N_CODES)
    code = detail.code_of_outcome(cell % detail.n_outcomes)
    text = _describe_code(code, prefix_only=detail.outcomes != "codes")
    return f"{text}, cards: {detail.describe(cell // detail.n_outcomes)}"


def _describe_code(code: int, prefix_only: bool = False) -> str:
    """A short description of one outcome, for error messages (``prefix_only``: its scores and card counts)."""
    fields = decode(code)
    ps, bs = int(fields["player_score"]), int(fields["banker_score"])
    pc, bc = int(fields["player_cards"]) + 2, int(fields["banker_cards"]) + 2
    if prefix_only:
        return f"Player {ps} ({pc} cards) v Banker {bs} ({bc} cards)"
    pairs = {0: "", 1: " pair", 2: " perfect pair"}
    first = ("Player's first card higher", "Banker's first card higher", "first cards of equal rank",
             "first cards identical")[int(fields["first_card"])]
    return (f"Player {ps} ({pc} cards{pairs[int(fields['player_pair'])]}) v Banker {bs} "
            f"({bc} cards{pairs[int(fields['banker_pair'])]}), {first}")

