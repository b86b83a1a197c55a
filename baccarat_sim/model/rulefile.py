"""Reading a rule file's sections: the shoe, the commission, the table limits and every bet's pay table.

A pay table's lines pay odds, a jackpot (or a share of it) or a flat amount for
the bet's stake level (:meth:`RuleFileChecker.jackpot`,
:meth:`RuleFileChecker.amounts`).

:class:`RuleFileChecker` turns each section of a parsed rule-set document into
its frozen value (:mod:`~baccarat_sim.model.table`,
:mod:`~baccarat_sim.model.paytable`), refusing anything out of range with one
line ``file: key.path: what is wrong and what is allowed``. The document as a
whole (identity, claims, the checks across sections) is walked by
:mod:`baccarat_sim.model.rules`, which builds the :class:`~baccarat_sim.model.rules.Rules`.
"""

from __future__ import annotations

import dataclasses
import re
from fractions import Fraction

import numpy as np

from ..errors import ConditionError, InvalidRules
from ..limits import MAX_DECKS
from .amounts import amount_text
from .conditions import compile_condition, evaluate
from .cutcard import LOW_ABOVE_HIGH, CutCard, as_pair, cards_at
from .paytable import JACKPOT_UNITS, Bet, Case, Jackpot, PayTableCheck
from .table import Commission, Limits, Shoe
from .toml import MAX_DIGITS, Checker, excerpt

__all__ = ["MAX_AMOUNT", "MAX_ODDS", "PAYOUT_WORDS", "RuleFileChecker"]

_ID = re.compile(r"[a-z][a-z0-9_]{0,63}")
_NUMBER = r"(\d+(?:\.\d+)?)"
_PAYS = re.compile(rf"^{_NUMBER}\s*(:|to|for)\s*{_NUMBER}$")
_PERCENT = re.compile(r"^\d{1,3}(\.\d+)?%$")
#: Payout words a pay-table line may use instead of odds, and their net result.
PAYOUT_WORDS = {"lose": Fraction(-1), "push": Fraction(0), "lose half": Fraction(-1, 2),
                "even money": Fraction(1)}
#: Largest net win per unit staked that a pay table may state.
MAX_ODDS = 100_000

_SHOE_KEYS = {"decks", "shuffle", "burn", "burn_cards", "ten_value", "discard_turned", "cut_card", "after_cut"}
_COMMISSION_KEYS = {"rate", "rounding", "unit", "lowest_chip"}
_LIMIT_KEYS = {"min_bet", "max_bet", "equal_player_banker", "player_banker_min_difference", "player_banker_limit",
               "side_bets_need_main_bet", "counts_as", "exclusive"}
_BET_KEYS = {"id", "name", "description", "group", "pays", "otherwise", "max_round", "stated_rtp", "jackpot",
             "stake", "payout_notation"}
_CASE_KEYS = {"when", "pays", "net", "amounts", "commission", "name"}
_JACKPOT_KEYS = {"unit", "reset", "contribution"}
#: A line paying the jackpot: ``"jackpot"`` or a share of it, ``"10% of jackpot"``.
_JACKPOT_PAYS = re.compile(rf"^(?:{_NUMBER}%\s+of\s+)?(?:the\s+)?jackpot$")
#: Largest jackpot reset value, stake or flat amount a rule file may state (in its unit or money).
MAX_AMOUNT = 10**12
_PAYS_ALLOWED = "\"X:Y\", \"X to Y\", \"X for Y\""


@dataclasses.dataclass(frozen=True)
class _Payer:
    """What a bet's lines are paid in: the notation of ``"X:Y"``, its jackpot (or None) and stake in money."""

    notation: str
    jackpot: Jackpot | None = None
    stake: Fraction | None = None
    #: The stake levels the bet's lines' ``amounts`` name, gathered as they are read (:meth:`RuleFileChecker.amounts`).
    amount_stakes: set = dataclasses.field(default_factory=set, compare=False)

    @property
    def returned(self) -> Fraction:
        """What a win "for one" keeps of the stake: 1 for "for" (the stake is not returned), else 0."""
        return Fraction(1) if self.notation == "for" else Fraction(0)


class RuleFileChecker(Checker):
    """Checks the sections of a rule-set document; every error is one line ``file: key.path: message``."""

    def __init__(self, label: str):
        super().__init__(label, InvalidRules)

    def percent(self, value, key) -> str:
        """A percentage as the sheet writes it (``"98.94%"``), kept as text."""
        if not isinstance(value, str) or not _PERCENT.match(value) or float(value[:-1]) > 100:
            self.fail(key, f"must be a percentage as the sheet writes it, e.g. \"98.94%\"; got {excerpt(value)}")
        return value

    # -- sections

    def shoe(self, t: dict) -> Shoe:
        """The ``[shoe]`` table: decks, shuffle, burn and cut card (a dealt shoe must leave room for a round)."""
        self.known(t, "shoe", _SHOE_KEYS)
        decks = self.integer(t.get("decks", 8), "shoe.decks", 1, MAX_DECKS)
        model = self.choice(t.get("shuffle", "fresh"), "shoe.shuffle", ("fresh", "dealt"))
        burn = self.choice(t.get("burn", "none"), "shoe.burn", ("none", "face_value", "fixed"))
        burn_cards = self.integer(t.get("burn_cards", 0), "shoe.burn_cards", 0, 52)
        if burn != "fixed" and "burn_cards" in t:
            self.fail("shoe.burn_cards", "only goes with burn = \"fixed\"")
        if burn != "face_value":
            for name in ("ten_value", "discard_turned"):
                if name in t:
                    self.fail(f"shoe.{name}", "only goes with burn = \"face_value\"")
        ten_value = self.integer(t.get("ten_value", 10), "shoe.ten_value", 0, 52)
        discard = self.boolean(t.get("discard_turned", True), "shoe.discard_turned")
        after = self.choice(t.get("after_cut", "finish_round"), "shoe.after_cut", ("finish_round", "one_more_round"))
        if model == "fresh":
            for name in ("burn", "cut_card", "after_cut"):
                if name in t:
                    self.fail(f"shoe.{name}", "only goes with shuffle = \"dealt\" (a fresh shoe is shuffled before "
                                              "every round)")
        n_cards = 52 * decks
        cut = self.cut_card(t.get("cut_card", {"cards_from_end": 14}), n_cards)
        shoe = Shoe(decks, model, burn, burn_cards, ten_value, discard, cut, 1 if after == "one_more_round" else 0)
        problem = shoe.room_problem()
        if problem:
            self.fail("shoe.cut_card", problem)
        return shoe

    def cut_card(self, value, n_cards) -> CutCard:
        """``shoe.cut_card``: ``cards_from_end`` or ``fraction_from_end``, one position or a ``[low, high]`` pair."""
        key = "shoe.cut_card"
        t = self.table(value, key)
        self.known(t, key, {"cards_from_end", "fraction_from_end"})
        if len(t) != 1:
            self.fail(key, "give exactly one of cards_from_end or fraction_from_end")
        (name, raw), = t.items()
        bounds = as_pair(raw)
        if bounds is None:
            self.fail(f"{key}.{name}", f"must be a number or a [low, high] pair, got {raw!r}")
        if name == "cards_from_end":
            low, high = (self.integer(b, f"{key}.{name}", 0, n_cards - 6) for b in bounds)
            fraction = None
        else:
            fraction = tuple(self.number(b, f"{key}.{name}", 0, 1, open_low=True) for b in bounds)
            if fraction[1] >= 1:
                self.fail(f"{key}.{name}", f"must be below 1 (the cut card cannot come before the first card), "
                                           f"got {raw!r}")
            low, high = (cards_at(f, n_cards) for f in fraction)
        if low > high:
            self.fail(f"{key}.{name}", f"{LOW_ABOVE_HIGH}, got {raw!r}")
        return CutCard(int(low), int(high), fraction)

    def commission(self, t: dict) -> Commission:
        """The ``[commission]`` table: rate, and how it is rounded."""
        self.known(t, "commission", _COMMISSION_KEYS)
        rate = self.number(t.get("rate", "0.05"), "commission.rate", 0, Fraction(1, 2))
        rounding = self.choice(t.get("rounding", "none"), "commission.rounding", ("none", "up", "down", "nearest"))
        if rounding == "none":
            for name in ("unit", "lowest_chip"):
                if name in t:
                    self.fail(f"commission.{name}", "only goes with rounding = \"up\", \"down\" or \"nearest\"")
        unit = self.number(t.get("unit", "0.25"), "commission.unit", 0, 1000, open_low=True)
        chip = self.number(t.get("lowest_chip", 1), "commission.lowest_chip", 0, 10**9, open_low=True)
        return Commission(rate, rounding, unit, chip)

    def limits(self, t: dict, bets: tuple[Bet, ...]) -> Limits:
        """The ``[limits]`` table, its bet ids checked against ``bets``."""
        self.known(t, "limits", _LIMIT_KEYS)
        bet_ids = [bet.id for bet in bets]
        min_bet = self.number(t.get("min_bet", 1), "limits.min_bet", 0, 10**9, open_low=True)
        maxima = self.table(t.get("max_bet", {}), "limits.max_bet")
        for bet_id in maxima:
            if bet_id not in bet_ids:
                self.fail(f"limits.max_bet.{bet_id}", f"no such bet; bets: {', '.join(bet_ids)}")
        max_bet = tuple(
            (bet_id, self.number(v, f"limits.max_bet.{bet_id}", 1, 10**9)) for bet_id, v in maxima.items()
        )
        equal = self.boolean(t.get("equal_player_banker", True), "limits.equal_player_banker")
        difference = self.number(t.get("player_banker_min_difference", 0), "limits.player_banker_min_difference",
                                 0, 10**9)
        pb_limit = self.choice(t.get("player_banker_limit", "each"), "limits.player_banker_limit",
                               ("each", "difference"))
        needs_main = self.boolean(t.get("side_bets_need_main_bet", False), "limits.side_bets_need_main_bet")
        counts_as = self.counts_as(self.table(t.get("counts_as", {}), "limits.counts_as"), bet_ids)
        exclusive = self.exclusive(self.list(t.get("exclusive", []), "limits.exclusive"), bet_ids)
        for name in ("equal_player_banker", "player_banker_min_difference", "player_banker_limit"):
            if name in t and not {"player", "banker"} <= set(bet_ids):
                self.fail(f"limits.{name}", "needs bets with ids 'player' and 'banker'")
        if pb_limit == "difference" and not {"player", "banker"} <= dict(max_bet).keys():
            self.fail("limits.player_banker_limit", "\"difference\" needs max_bet.player and max_bet.banker (the "
                                                    "largest difference allowed)")
        if needs_main and not any(bet.group == "main" for bet in bets):
            self.fail("limits.side_bets_need_main_bet", "no bet has group = \"main\"")
        return Limits(min_bet, max_bet, equal, difference, pb_limit, needs_main, counts_as, exclusive)

    def counts_as(self, t: dict, bet_ids: list[str]) -> tuple[tuple[str, str], ...]:
        """``counts_as = { banker_no_commission = "banker" }``: stakes counted towards another bet's limits."""
        pairs = []
        for bet_id, target in t.items():
            key = f"limits.counts_as.{bet_id}"
            if bet_id not in bet_ids:
                self.fail(key, f"no such bet; bets: {', '.join(bet_ids)}")
            if not isinstance(target, str) or target not in bet_ids:
                self.fail(key, f"must name another bet of the rule set, got {excerpt(target)}; bets: "
                               f"{', '.join(bet_ids)}")
            if target == bet_id:
                self.fail(key, "a bet cannot count as itself")
            if target in t:
                self.fail(key, f"{target!r} counts as {t[target]!r} itself: name the bet whose limits apply")
            pairs.append((bet_id, target))
        return tuple(pairs)

    def exclusive(self, groups: list, bet_ids: list[str]) -> tuple[tuple[str, ...], ...]:
        """``exclusive = [["banker", "banker_no_commission"]]``: groups of bets a slip may stake one of."""
        out = []
        for i, group in enumerate(groups):
            key = f"limits.exclusive[{i}]"
            if not isinstance(group, list) or len(group) < 2:
                self.fail(key, f"must be a list of two or more bet ids, got {excerpt(group)}")
            for bet_id in group:
                if not isinstance(bet_id, str) or bet_id not in bet_ids:
                    self.fail(key, f"no such bet {excerpt(bet_id)}; bets: {', '.join(bet_ids)}")
            if len(set(group)) != len(group):
                self.fail(key, f"names a bet twice: {', '.join(group)}")
            out.append(tuple(group))
        return tuple(out)

    def pays(self, value, key, notation) -> tuple[Fraction, str]:
        """Net result per unit staked of a payout written as the sheet writes it."""
        if isinstance(value, str):
            text = " ".join(value.strip().lower().split())
            if text in PAYOUT_WORDS:
                return PAYOUT_WORDS[text], text
            if _JACKPOT_PAYS.match(text):
                self.fail(key, f"{value!r} pays a jackpot: give the bet a jackpot = {{ unit = \"stake\" or "
                               "\"money\", reset = ... }")
            match = _PAYS.match(text)
            if match and max(len(match.group(1)), len(match.group(3))) <= MAX_DIGITS:  # "10:1", never 5,000 digits
                a, sep, b = Fraction(match.group(1)), match.group(2), Fraction(match.group(3))
                if b == 0:
                    self.fail(key, f"impossible odds {value!r}: division by zero")
                style = notation if sep == ":" else sep
                net = a / b - 1 if style == "for" else a / b
                if net <= 0:
                    self.fail(key, f"impossible odds {value!r}: a win must pay more than the stake back "
                                   f"(payout_notation = {notation!r}); use \"push\", \"lose half\" or net for refunds")
                if net > MAX_ODDS:
                    self.fail(key, f"impossible odds {value!r}: more than {MAX_ODDS} to 1")
                return net, value.strip()
        words = ", ".join(f'"{w}"' for w in PAYOUT_WORDS)
        self.fail(key, f"must be {_PAYS_ALLOWED} (numbers of at most {MAX_DIGITS} digits), \"jackpot\", \"P% of "
                       f"jackpot\" (a bet with a jackpot) or one of {words}; got {excerpt(value)}")

    def jackpot_pays(self, value, key, payer: _Payer) -> tuple[Fraction, str, Fraction] | None:
        """A line paying the jackpot or a share of it: (net at the reset value, label, net per meter unit).

        None when ``value`` is not a jackpot payout. The payout is the share
        of the meter, in stakes; "for one" (``payer.notation``) keeps the stake.
        """
        if not isinstance(value, str) or payer.jackpot is None:
            return None
        match = _JACKPOT_PAYS.match(" ".join(value.strip().lower().split()))
        if match is None:
            return None
        if match.group(1) is not None and len(match.group(1)) > MAX_DIGITS:  # "1.000...0001%", never 5,000 digits
            self.fail(key, f"a share of the jackpot has at most {MAX_DIGITS} digits, got {excerpt(value)}")
        share = Fraction(1) if match.group(1) is None else Fraction(match.group(1)) / 100
        if not 0 < share <= 1:
            self.fail(key, f"a share of the jackpot must be above 0% and at most 100%, got {value!r}")
        jackpot = payer.jackpot
        slope = share / jackpot.per_stake
        label = "jackpot" if share == 1 else f"{amount_text(100 * share)}% of jackpot"
        return slope * jackpot.meter - payer.returned, label, slope

    def amounts(self, value, key, payer: _Payer) -> tuple[Fraction, str]:
        """``amounts = { "1" = 250, "2" = 500, "5" = 1500 }``: the flat amount paid at the bet's stake, as a net."""
        table = self.table(value, key)
        if not table:
            self.fail(key, "must give an amount for at least one stake, e.g. { \"1\" = 250, \"5\" = 1500 }")
        levels = {}
        for stake_text, amount in table.items():
            stake = self.number(stake_text, f"{key}.{stake_text}", 0, MAX_AMOUNT, open_low=True)
            levels[stake] = self.number(amount, f"{key}.{stake_text}", 0, MAX_AMOUNT, open_low=True)
        payer.amount_stakes.update(levels)
        stakes = ", ".join(amount_text(level) for level in levels)
        if payer.stake is None:
            self.fail(key, f"amounts for stakes {stakes} need the bet's stake (stake = one of them) to say which "
                           "one is priced")
        if payer.stake not in levels:
            self.fail(key, f"no amount for the bet's stake {amount_text(payer.stake)}; stakes: {stakes}")
        amount = levels[payer.stake]
        net = amount / payer.stake - payer.returned
        if net <= 0:
            self.fail(key, f"{amount_text(amount)} {payer.notation} {amount_text(payer.stake)} does not pay more than "
                           "the stake back; use \"push\", \"lose half\" or net for refunds")
        if net > MAX_ODDS:
            self.fail(key, f"{amount_text(amount)} {payer.notation} {amount_text(payer.stake)} is more than "
                           f"{MAX_ODDS} to 1")
        return net, f"{amount_text(amount)} {payer.notation} {amount_text(payer.stake)}"

    def jackpot(self, value, key: str, stake: Fraction | None) -> Jackpot:
        """``jackpot = { unit = "stake" | "money", reset = R, contribution = C }``: the bet's meter.

        The bet is priced at the reset value, or at a meter of 0 where the file gives none (the source does not say).
        """
        t = self.table(value, key)
        self.known(t, key, _JACKPOT_KEYS)
        if "unit" not in t:
            self.fail(f"{key}.unit", f"missing: one of {', '.join(map(repr, JACKPOT_UNITS))} (what the meter counts)")
        unit = self.choice(t["unit"], f"{key}.unit", JACKPOT_UNITS)
        reset = None if "reset" not in t else self.number(t["reset"], f"{key}.reset", 0, MAX_AMOUNT, open_low=True)
        contribution = (None if "contribution" not in t else
                        self.number(t["contribution"], f"{key}.contribution", 0, 1, open_low=True))
        if unit == "money" and stake is None:
            self.fail(f"{key}.unit", "a meter in money needs the bet's stake in money (stake = ...)")
        per_stake = stake if unit == "money" else Fraction(1)
        return Jackpot(unit, reset, contribution, Fraction(0) if reset is None else reset, per_stake)

    def case(self, t: dict, key: str, payer: _Payer | str, need_when: bool) -> tuple[Case, np.ndarray | None]:
        """One pay-table line, with its mask over the outcome codes (None for a line that reads cards).

        ``payer`` says what the line is paid in (a bare notation: no jackpot, no stake).
        """
        payer = _Payer(payer) if isinstance(payer, str) else payer
        self.known(t, key, _CASE_KEYS if need_when else _CASE_KEYS - {"when"})
        if need_when and "when" not in t:
            self.fail(f"{key}.when", "missing: every pay-table line needs a condition")
        when = self.string(t.get("when", "true"), f"{key}.when")
        given = [name for name in ("pays", "net", "amounts") if name in t]
        if given == ["pays", "net"]:
            self.fail(key, "give either pays or net, not both")
        if len(given) > 1:
            self.fail(key, f"give one of pays, net or amounts, not {' and '.join(given)}")
        slope, meter = Fraction(0), Fraction(0)
        if "pays" in t:
            found = self.jackpot_pays(t["pays"], f"{key}.pays", payer)
            if found is not None:
                net, label, slope = found
                meter = payer.jackpot.meter
            else:
                net, label = self.pays(t["pays"], f"{key}.pays", payer.notation)
        elif "net" in t:
            net = self.number(t["net"], f"{key}.net", -1, MAX_ODDS)
            label = f"net {t['net']}"
        elif "amounts" in t:
            net, label = self.amounts(t["amounts"], f"{key}.amounts", payer)
        else:
            self.fail(f"{key}.pays", "missing: say what the line pays (\"X:1\", \"push\", \"lose\", \"jackpot\"), "
                                     "its net or its amounts")
        commission = self.boolean(t.get("commission", False), f"{key}.commission")
        if commission and net <= 0:
            self.fail(f"{key}.commission", "commission is only taken from a win; this line does not win")
        if commission and (slope or "amounts" in t):
            self.fail(f"{key}.commission", "commission is only taken from odds, not from a jackpot or a flat amount")
        name = self.string(t.get("name", ""), f"{key}.name")
        try:
            condition, problem = compile_condition(when), None
        except ConditionError as error:
            condition, problem = None, str(error)
        if condition is None:  # raised outside the handler: one clean error, no chained traceback
            self.fail(f"{key}.when", problem)
        case = Case(when, net, label, commission, name or when, slope, meter)
        if condition.card_level:  # checked on the card detail, which the engines work out (engines.detail)
            return case, None
        return case, evaluate(when)

    def bet(self, t: dict, key: str, notation: str, commission: Commission) -> Bet:
        """One ``[[bets]]`` table, its pay table checked on the outcome codes (:class:`PayTableCheck`)."""
        self.known(t, key, _BET_KEYS)
        if "id" not in t:
            self.fail(f"{key}.id", "missing")
        bet_id = self.identifier(t["id"], f"{key}.id", _ID, "snake_case (a-z, 0-9, _)")
        key = f"bets.{bet_id}"
        cases_raw = t.get("pays")
        if not isinstance(cases_raw, list) or not cases_raw:
            self.fail(f"{key}.pays", "must be a non-empty array of {when = ..., pays = ...} tables")
        notation = self.choice(t.get("payout_notation", notation), f"{key}.payout_notation", ("to", "for"))
        stake = None if "stake" not in t else self.number(t["stake"], f"{key}.stake", 0, MAX_AMOUNT, open_low=True)
        jackpot = None if "jackpot" not in t else self.jackpot(t["jackpot"], f"{key}.jackpot", stake)
        payer = _Payer(notation, jackpot, stake)
        check = PayTableCheck(self, key)  # on the outcome codes; a card-level line waits for its card detail
        cases = []
        card_level = False
        for i, raw in enumerate(cases_raw):
            case, mask = self.case(self.table(raw, f"{key}.pays[{i}]"), f"{key}.pays[{i}]", payer, True)
            cases.append(case)
            if mask is None:
                card_level = True
                continue
            check.line(i, case.when, mask)
        if "otherwise" in t:
            raw = t["otherwise"]
            if isinstance(raw, str):
                raw = {"pays": raw}
            otherwise, _ = self.case(self.table(raw, f"{key}.otherwise"), f"{key}.otherwise", payer, False)
            otherwise = dataclasses.replace(otherwise, when="otherwise",
                                            name=otherwise.name if otherwise.name != "true" else "otherwise")
        else:
            if not card_level:  # a card-level bet is checked on its card detail
                check.every_outcome_has_a_line()
            otherwise = Case("otherwise", Fraction(-1), "lose", False, "otherwise")
        if jackpot is not None and not any(case.jackpot for case in (*cases, otherwise)):
            self.fail(f"{key}.jackpot", "no line pays it: give a line pays = \"jackpot\" (or \"P% of jackpot\"), "
                                        "or drop the jackpot")
        if stake is not None and (jackpot is None or jackpot.unit != "money") and not any(
                isinstance(raw, dict) and "amounts" in raw for raw in (*cases_raw, t.get("otherwise"))):
            self.fail(f"{key}.stake", "only goes with lines that pay amounts, or a jackpot in money")
        group = self.choice(t.get("group", "side"), f"{key}.group", ("main", "side"))
        bet = Bet(
            id=bet_id,
            name=self.string(t.get("name", bet_id), f"{key}.name"),
            cases=tuple(cases),
            otherwise=otherwise,
            max_round=None if t.get("max_round") is None else self.integer(t["max_round"], f"{key}.max_round", 1,
                                                                          10000),
            stated_rtp=None if t.get("stated_rtp") is None else self.percent(t["stated_rtp"], f"{key}.stated_rtp"),
            group=group,
            description=self.string(t.get("description", ""), f"{key}.description"),
            jackpot=jackpot,
            stake=stake,
            # A slip may stake only the bet's own stake; its refusal names these (issue 41, item 17).
            amount_stakes=tuple(sorted(payer.amount_stakes)),
            _explicit_otherwise="otherwise" in t,
        )
        if card_level:
            return bet  # its lines are checked on the card detail (Bet.check_detail)
        check.can_win_and_lose(cases, [Bet._case_net(case, commission.rate) for case in cases],
                               bet.otherwise, Bet._case_net(bet.otherwise, commission.rate))
        return bet
