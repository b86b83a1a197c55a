"""Rule sets: versioned TOML files, validated on load into a frozen :class:`Rules`.

A rule set says how the shoe is dealt, how commission is taken, the table
limits, every bet offered with its pay table (as data, see
:mod:`baccarat_sim.conditions`) and the RTP figures the operator's sheet
*states*. The shipped sets live in ``baccarat_sim/rulesets/*.toml``; the file
format is documented in ``baccarat_sim/rulesets/README.md``.
"""

from __future__ import annotations

import dataclasses
import hashlib
import re
import tomllib
from fractions import Fraction
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from .conditions import ConditionError, evaluate
from .outcomes import N_CODES

__all__ = [
    "SCHEMA_VERSION",
    "Bet",
    "Case",
    "Claim",
    "Commission",
    "CutCard",
    "InvalidRules",
    "Limits",
    "Rules",
    "Shoe",
    "available_rules",
    "load_rules",
    "parse_rules",
]

SCHEMA_VERSION = 1
DEFAULT_RULES = "default"


class InvalidRules(ValueError):
    """A rule set that cannot be used; the message names the file and key at fault."""


# --------------------------------------------------------------------------- data


@dataclasses.dataclass(frozen=True)
class CutCard:
    """Where the cut card sits: ``cards_from_end`` drawn uniformly per shoe.

    ``low == high`` for a fixed position.
    """

    low: int
    high: int

    @property
    def mean(self) -> float:
        """Mean distance of the cut card from the end of the shoe, in cards."""
        return (self.low + self.high) / 2


@dataclasses.dataclass(frozen=True)
class Shoe:
    """How cards are dealt.

    Attributes
    ----------
    decks : int
        Standard 52-card decks in the shoe.
    model : str
        ``"fresh"``: shuffled before every round; ``"dealt"``: shuffled once and
        dealt through to the cut card.
    burn : str
        ``"none"``, ``"face_value"`` (a card is turned and that many cards
        burned, ``ten_value`` for a ten or face card) or ``"fixed"``.
    burn_cards : int
        Cards burned for ``burn = "fixed"``.
    ten_value : int
        Cards burned when the turned card is a ten or a face card.
    discard_turned : bool
        Whether the turned card itself is discarded too.
    cut_card : CutCard
        Cut-card position, in cards from the end of the shoe.
    rounds_after_cut : int
        0: the round in which the cut card comes out is the last; 1: one more.
    """

    decks: int = 8
    model: str = "fresh"
    burn: str = "none"
    burn_cards: int = 0
    ten_value: int = 10
    discard_turned: bool = True
    cut_card: CutCard = CutCard(14, 14)
    rounds_after_cut: int = 0

    @property
    def n_cards(self) -> int:
        """Cards in the shoe."""
        return 52 * self.decks

    def burn_by_rank(self) -> np.ndarray:
        """Cards burned (after the turned card) by the rank of the turned card.

        Returns
        -------
        ndarray(int64, shape=(13,))
        """
        if self.burn == "face_value":
            return np.array([1, 2, 3, 4, 5, 6, 7, 8, 9] + [self.ten_value] * 4, np.int64)
        if self.burn == "fixed":
            return np.full(13, self.burn_cards, np.int64)
        return np.zeros(13, np.int64)

    def cards_before_first_round(self) -> tuple[int, int]:
        """Fewest and most cards removed before the first round (turned card included)."""
        by_rank = self.burn_by_rank()
        turned = 1 if (self.burn != "none" and self.discard_turned) else 0
        if self.burn == "fixed":
            turned = 0
        return int(by_rank.min()) + turned, int(by_rank.max()) + turned


@dataclasses.dataclass(frozen=True)
class Commission:
    """Commission on winning bets marked ``commission = true``.

    ``rounding`` of the commission amount to a multiple of ``unit`` lowest chips:
    ``"none"``, ``"up"``, ``"down"`` or ``"nearest"``.
    """

    rate: Fraction = Fraction(5, 100)
    rounding: str = "none"
    unit: Fraction = Fraction(1, 4)
    lowest_chip: Fraction = Fraction(1)

    def amount(self, win: Fraction) -> Fraction:
        """Commission, in lowest chips, on a gross win of ``win`` lowest chips."""
        raw = self.rate * win
        if self.rounding == "none":
            return raw
        steps = raw / self.unit
        whole = {
            "up": -((-steps.numerator) // steps.denominator),
            "down": steps.numerator // steps.denominator,
            "nearest": int(steps + Fraction(1, 2)) if steps >= 0 else -int(-steps + Fraction(1, 2)),
        }[self.rounding]
        return whole * self.unit


@dataclasses.dataclass(frozen=True)
class Limits:
    """Table limits, in units of the minimum bet."""

    min_bet: Fraction = Fraction(1)
    max_bet: tuple[tuple[str, Fraction], ...] = ()
    equal_player_banker: bool = True
    player_banker_min_difference: Fraction = Fraction(0)

    def max_for(self, bet_id: str) -> Fraction | None:
        """Largest stake on ``bet_id`` (in units of the minimum bet), or None."""
        return dict(self.max_bet).get(bet_id)


@dataclasses.dataclass(frozen=True)
class Case:
    """One line of a pay table: where ``when`` holds, the bet's net result is ``net``."""

    when: str
    net: Fraction
    pays: str
    commission: bool = False
    name: str = ""


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
    """

    id: str
    name: str
    cases: tuple[Case, ...]
    otherwise: Case
    max_round: int | None = None
    stated_rtp: str | None = None
    group: str = ""

    def net_results(self, commission_rate: Fraction) -> np.ndarray:
        """Net result per unit staked for every outcome code.

        Returns
        -------
        ndarray(object, shape=(N_CODES,))
            Exact :class:`fractions.Fraction` values.
        """
        net = np.full(N_CODES, self._case_net(self.otherwise, commission_rate), dtype=object)
        for case in self.cases:
            net[evaluate(case.when)] = self._case_net(case, commission_rate)
        return net

    def case_index(self) -> np.ndarray:
        """Which case settles each outcome code (``len(cases)`` for ``otherwise``)."""
        index = np.full(N_CODES, len(self.cases), np.int64)
        for i, case in enumerate(self.cases):
            index[evaluate(case.when)] = i
        return index

    @staticmethod
    def _case_net(case: Case, commission_rate: Fraction) -> Fraction:
        if case.commission and case.net > 0:
            return case.net * (1 - commission_rate)
        return case.net


@dataclasses.dataclass(frozen=True)
class Claim:
    """An RTP figure the rule sheet states about the whole game or one bet."""

    what: str  # "bet" or "max_rtp" or "min_rtp"
    value: str  # as written, e.g. "98.94%"
    bet: str | None = None
    text: str = ""

    @property
    def fraction(self) -> float:
        """The stated value as a fraction (0.9894 for "98.94%")."""
        return float(self.value.rstrip("%")) / 100

    @property
    def tolerance(self) -> float:
        """Half a unit of the last digit written, as a fraction."""
        decimals = len(self.value.rstrip("%").partition(".")[2])
        return 0.5 * 10.0 ** (-decimals) / 100


@dataclasses.dataclass(frozen=True)
class Rules:
    """A validated rule set (immutable). Build it with :func:`load_rules`."""

    id: str
    name: str
    source: str
    shoe: Shoe
    commission: Commission
    limits: Limits
    notation: str
    bets: tuple[Bet, ...]
    claims: tuple[Claim, ...]
    path: str
    sha256: str
    description: str = ""

    def bet(self, bet_id: str) -> Bet:
        """The bet with id ``bet_id``."""
        for bet in self.bets:
            if bet.id == bet_id:
                return bet
        raise KeyError(f"bets: no bet {bet_id!r} in rule set {self.id!r}; bets: {', '.join(self.bet_ids)}")

    @property
    def bet_ids(self) -> tuple[str, ...]:
        """Ids of all bets, in file order."""
        return tuple(bet.id for bet in self.bets)

    def with_bets(self, bet_ids) -> Rules:
        """A copy offering only ``bet_ids`` (in the order given)."""
        return dataclasses.replace(self, bets=tuple(self.bet(bet_id) for bet_id in bet_ids))

    def with_shoe(self, **changes) -> Rules:
        """A copy with shoe fields changed (e.g. ``model="dealt"``, ``decks=6``)."""
        return dataclasses.replace(self, shoe=dataclasses.replace(self.shoe, **changes))


# --------------------------------------------------------------------------- loading


def _rulesets_dir():
    return resources.files("baccarat_sim") / "rulesets"


def available_rules() -> list[str]:
    """Names of the shipped rule sets."""
    return sorted(p.name[: -len(".toml")] for p in _rulesets_dir().iterdir() if p.name.endswith(".toml"))


def load_rules(name_or_path: str | Path = DEFAULT_RULES) -> Rules:
    """Load and validate a shipped rule set by name, or a rule file by path.

    Raises
    ------
    InvalidRules
        With one line naming the file, the key at fault and what is allowed.
    """
    text_path = str(name_or_path)
    candidate = Path(text_path)
    if text_path.endswith(".toml") or candidate.exists() or "/" in text_path or "\\" in text_path:
        label = text_path
        try:
            data = candidate.read_bytes()
        except OSError as error:
            raise InvalidRules(f"{label}: cannot read rule file ({error.strerror or error})") from None
    else:
        shipped = _rulesets_dir() / f"{text_path}.toml"
        if not shipped.is_file():
            raise InvalidRules(
                f"--rules: unknown rule set {text_path!r}; shipped: {', '.join(available_rules())} (or a .toml path)"
            )
        label = f"{text_path}.toml"
        data = shipped.read_bytes()
    return parse_rules(data, label)


def parse_rules(data: bytes | str, label: str = "<rules>") -> Rules:
    """Validate TOML text into :class:`Rules` (see :func:`load_rules`)."""
    raw = data.encode() if isinstance(data, str) else data
    try:
        document = tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise InvalidRules(f"{label}: not UTF-8 text") from None
    except tomllib.TOMLDecodeError as error:
        raise InvalidRules(f"{label}: malformed TOML: {error}") from None
    return _Validator(label).rules(document, hashlib.sha256(raw).hexdigest())


_ID = re.compile(r"^[a-z][a-z0-9_]*$")
_RULES_ID = re.compile(r"^[a-z0-9][a-z0-9_.-]*$")
_PAYS = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(:|to|for)\s*(\d+(?:\.\d+)?)\s*$")
_PERCENT = re.compile(r"^\d{1,3}(\.\d+)?%$")


class _Validator:
    """Walks a parsed TOML document; every error names ``file: key.path``."""

    def __init__(self, label: str):
        self.label = label

    def fail(self, key: str, message: str):
        raise InvalidRules(f"{self.label}: {key}: {message}")

    # -- primitives

    def table(self, value, key) -> dict:
        if not isinstance(value, dict):
            self.fail(key, f"must be a table, got {type(value).__name__}")
        return value

    def known(self, table: dict, key: str, allowed: set[str]):
        for name in table:
            if name not in allowed:
                self.fail(f"{key}.{name}" if key else name, f"unknown key; allowed: {', '.join(sorted(allowed))}")

    def integer(self, value, key, low, high) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            self.fail(key, f"must be a whole number from {low} to {high}, got {value!r}")
        if not low <= value <= high:
            self.fail(key, f"must be from {low} to {high}, got {value}")
        return value

    def number(self, value, key, low, high, *, open_low=False) -> Fraction:
        if isinstance(value, bool) or not isinstance(value, (int, float, str)):
            self.fail(key, f"must be a number, got {value!r}")
        try:
            number = Fraction(str(value))
        except (ValueError, ZeroDivisionError):
            self.fail(key, f"must be a number, got {value!r}")
        if number < low or number > high or (open_low and number == low):
            bound = f"> {low}" if open_low else f">= {low}"
            self.fail(key, f"must be {bound} and <= {high}, got {value}")
        return number

    def choice(self, value, key, allowed) -> str:
        if value not in allowed:
            self.fail(key, f"must be one of {', '.join(map(str, allowed))}; got {value!r}")
        return value

    def string(self, value, key) -> str:
        if not isinstance(value, str):
            self.fail(key, f"must be a string, got {value!r}")
        return value

    def percent(self, value, key) -> str:
        if not isinstance(value, str) or not _PERCENT.match(value) or float(value[:-1]) > 100:
            self.fail(key, f"must be a percentage as the sheet writes it, e.g. \"98.94%\"; got {value!r}")
        return value

    # -- sections

    def rules(self, doc: dict, sha256: str) -> Rules:
        self.known(
            doc,
            "",
            {"schema_version", "id", "name", "source", "description", "payout_notation", "shoe", "commission",
             "limits", "bets", "claims"},
        )
        if "schema_version" not in doc:
            self.fail("schema_version", f"missing; this version reads schema_version = {SCHEMA_VERSION}")
        if doc["schema_version"] != SCHEMA_VERSION:
            self.fail("schema_version", f"must be {SCHEMA_VERSION}, got {doc['schema_version']!r}")
        if "id" not in doc:
            self.fail("id", "missing; give the rule set a name such as \"my-table\"")
        rules_id = self.string(doc["id"], "id")
        if not _RULES_ID.match(rules_id):
            self.fail("id", f"must be lower-case letters, digits, '-', '_' or '.', got {rules_id!r}")
        notation = self.choice(doc.get("payout_notation", "to"), "payout_notation", ("to", "for"))
        shoe = self.shoe(self.table(doc.get("shoe", {}), "shoe"))
        commission = self.commission(self.table(doc.get("commission", {}), "commission"))
        bets_raw = doc.get("bets")
        if not isinstance(bets_raw, list) or not bets_raw:
            self.fail("bets", "must be a non-empty array of tables ([[bets]])")
        bets = tuple(self.bet(self.table(b, f"bets[{i}]"), f"bets[{i}]", notation) for i, b in enumerate(bets_raw))
        seen = set()
        for i, bet in enumerate(bets):
            if bet.id in seen:
                self.fail(f"bets[{i}].id", f"duplicate bet id {bet.id!r}")
            seen.add(bet.id)
        limits = self.limits(self.table(doc.get("limits", {}), "limits"), seen)
        claims = tuple(
            self.claim(self.table(c, f"claims[{i}]"), f"claims[{i}]", seen)
            for i, c in enumerate(self.list(doc.get("claims", []), "claims"))
        )
        claims += tuple(Claim("bet", bet.stated_rtp, bet.id, f"{bet.name}: {bet.stated_rtp}") for bet in bets
                        if bet.stated_rtp)
        return Rules(
            id=rules_id,
            name=self.string(doc.get("name", rules_id), "name"),
            source=self.string(doc.get("source", ""), "source"),
            description=self.string(doc.get("description", ""), "description"),
            shoe=shoe,
            commission=commission,
            limits=limits,
            notation=notation,
            bets=bets,
            claims=claims,
            path=self.label,
            sha256=sha256,
        )

    def list(self, value, key) -> list:
        if not isinstance(value, list):
            self.fail(key, "must be an array")
        return value

    def shoe(self, t: dict) -> Shoe:
        self.known(t, "shoe", {"decks", "shuffle", "burn", "burn_cards", "ten_value", "discard_turned", "cut_card",
                               "after_cut"})
        decks = self.integer(t.get("decks", 8), "shoe.decks", 1, 16)
        model = self.choice(t.get("shuffle", "fresh"), "shoe.shuffle", ("fresh", "dealt"))
        burn = self.choice(t.get("burn", "none"), "shoe.burn", ("none", "face_value", "fixed"))
        burn_cards = self.integer(t.get("burn_cards", 0), "shoe.burn_cards", 0, 52)
        if burn != "fixed" and "burn_cards" in t:
            self.fail("shoe.burn_cards", "only goes with burn = \"fixed\"")
        ten_value = self.integer(t.get("ten_value", 10), "shoe.ten_value", 0, 52)
        discard = t.get("discard_turned", True)
        if not isinstance(discard, bool):
            self.fail("shoe.discard_turned", f"must be true or false, got {discard!r}")
        after = self.choice(t.get("after_cut", "finish_round"), "shoe.after_cut", ("finish_round", "one_more_round"))
        n_cards = 52 * decks
        cut = self.cut_card(t.get("cut_card", {"cards_from_end": 14}), n_cards)
        shoe = Shoe(decks, model, burn, burn_cards, ten_value, discard, cut, 1 if after == "one_more_round" else 0)
        _, most_burned = shoe.cards_before_first_round()
        if n_cards - cut.high - most_burned < 6 * (1 + shoe.rounds_after_cut):
            self.fail("shoe.cut_card", f"leaves no room for a round in a {n_cards}-card shoe after burning "
                                       f"{most_burned} cards")
        return shoe

    def cut_card(self, value, n_cards) -> CutCard:
        key = "shoe.cut_card"
        t = self.table(value, key)
        self.known(t, key, {"cards_from_end", "fraction_from_end"})
        if len(t) != 1:
            self.fail(key, "give exactly one of cards_from_end or fraction_from_end")
        (name, raw), = t.items()
        bounds = raw if isinstance(raw, list) else [raw, raw]
        if len(bounds) != 2:
            self.fail(f"{key}.{name}", "must be a number or a [low, high] pair")
        if name == "cards_from_end":
            low, high = (self.integer(b, f"{key}.{name}", 0, n_cards - 6) for b in bounds)
        else:
            low, high = (round(self.number(b, f"{key}.{name}", 0, 1) * n_cards) for b in bounds)
        if low > high:
            self.fail(f"{key}.{name}", f"low must not exceed high, got {bounds}")
        return CutCard(int(low), int(high))

    def commission(self, t: dict) -> Commission:
        self.known(t, "commission", {"rate", "rounding", "unit", "lowest_chip"})
        rate = self.number(t.get("rate", 0.05), "commission.rate", 0, Fraction(1, 2))
        rounding = self.choice(t.get("rounding", "none"), "commission.rounding", ("none", "up", "down", "nearest"))
        unit = self.number(t.get("unit", 0.25), "commission.unit", 0, 1000, open_low=True)
        chip = self.number(t.get("lowest_chip", 1), "commission.lowest_chip", 0, 10**9, open_low=True)
        return Commission(rate, rounding, unit, chip)

    def limits(self, t: dict, bet_ids: set[str]) -> Limits:
        self.known(t, "limits", {"min_bet", "max_bet", "equal_player_banker", "player_banker_min_difference"})
        min_bet = self.number(t.get("min_bet", 1), "limits.min_bet", 0, 10**9, open_low=True)
        maxima = self.table(t.get("max_bet", {}), "limits.max_bet")
        for bet_id in maxima:
            if bet_id not in bet_ids:
                self.fail(f"limits.max_bet.{bet_id}", f"no such bet; bets: {', '.join(sorted(bet_ids))}")
        max_bet = tuple(
            (bet_id, self.number(v, f"limits.max_bet.{bet_id}", 1, 10**9)) for bet_id, v in maxima.items()
        )
        equal = t.get("equal_player_banker", True)
        if not isinstance(equal, bool):
            self.fail("limits.equal_player_banker", f"must be true or false, got {equal!r}")
        difference = self.number(t.get("player_banker_min_difference", 0), "limits.player_banker_min_difference",
                                 0, 10**9)
        return Limits(min_bet, max_bet, equal, difference)

    def pays(self, value, key, notation) -> tuple[Fraction, str]:
        """Net result per unit staked of a payout written as the sheet writes it."""
        if isinstance(value, str):
            word = value.strip().lower()
            if word == "push":
                return Fraction(0), "push"
            if word == "lose":
                return Fraction(-1), "lose"
            match = _PAYS.match(word)
            if match:
                a, sep, b = Fraction(match.group(1)), match.group(2), Fraction(match.group(3))
                if b == 0:
                    self.fail(key, f"impossible odds {value!r}: division by zero")
                style = notation if sep == ":" else sep
                net = a / b - 1 if style == "for" else a / b
                if net <= 0:
                    self.fail(key, f"impossible odds {value!r}: a win must pay more than the stake back "
                                   f"(payout_notation = {notation!r}); use \"push\" or net for refunds")
                if net > 100000:
                    self.fail(key, f"impossible odds {value!r}: more than 100000 to 1")
                return net, value.strip()
        self.fail(key, f"must be \"X:Y\", \"X to Y\", \"X for Y\", \"push\" or \"lose\"; got {value!r}")

    def case(self, t: dict, key: str, notation: str, need_when: bool) -> Case:
        self.known(t, key, {"when", "pays", "net", "commission", "name"})
        when = t.get("when", "true")
        if need_when and "when" not in t:
            self.fail(f"{key}.when", "missing: every pay-table line needs a condition")
        if "pays" in t and "net" in t:
            self.fail(key, "give either pays or net, not both")
        if "pays" in t:
            net, label = self.pays(t["pays"], f"{key}.pays", notation)
        elif "net" in t:
            net = self.number(t["net"], f"{key}.net", -1, 100000)
            label = f"net {t['net']}"
        else:
            self.fail(f"{key}.pays", "missing: say what the line pays (\"X:1\", \"push\", \"lose\") or its net")
        commission = t.get("commission", False)
        if not isinstance(commission, bool):
            self.fail(f"{key}.commission", f"must be true or false, got {commission!r}")
        name = self.string(t.get("name", ""), f"{key}.name")
        try:
            mask = evaluate(self.string(when, f"{key}.when"))
        except ConditionError as error:
            self.fail(f"{key}.when", str(error))
        if need_when and not mask.any():
            self.fail(f"{key}.when", f"{when!r} can never happen")
        return Case(when, net, label, commission, name or when)

    def bet(self, t: dict, key: str, notation: str) -> Bet:
        self.known(t, key, {"id", "name", "pays", "otherwise", "max_round", "stated_rtp", "group"})
        if "id" not in t:
            self.fail(f"{key}.id", "missing")
        bet_id = self.string(t["id"], f"{key}.id")
        if not _ID.match(bet_id):
            self.fail(f"{key}.id", f"must be snake_case (a-z, 0-9, _), got {bet_id!r}")
        key = f"bets.{bet_id}"
        cases_raw = t.get("pays")
        if not isinstance(cases_raw, list) or not cases_raw:
            self.fail(f"{key}.pays", "must be a non-empty array of {when = ..., pays = ...} tables")
        cases = tuple(
            self.case(self.table(c, f"{key}.pays[{i}]"), f"{key}.pays[{i}]", notation, True)
            for i, c in enumerate(cases_raw)
        )
        covered = np.zeros(N_CODES, bool)
        for i, case in enumerate(cases):
            mask = evaluate(case.when)
            overlap = covered & mask
            if overlap.any():
                self.fail(f"{key}.pays[{i}].when", f"{case.when!r} overlaps an earlier line of the pay table")
            covered |= mask
        if "otherwise" in t:
            otherwise_raw = t["otherwise"]
            if isinstance(otherwise_raw, str):
                otherwise_raw = {"pays": otherwise_raw}
            otherwise = self.case(self.table(otherwise_raw, f"{key}.otherwise"), f"{key}.otherwise", notation, False)
            otherwise = dataclasses.replace(otherwise, when="otherwise", name=otherwise.name if otherwise.name
                                            != "true" else "otherwise")
        else:
            if not covered.all():
                self.fail(f"{key}.otherwise", "missing cases: some outcomes match no line; add otherwise = \"lose\" "
                                              "or lines that cover them")
            otherwise = Case("otherwise", Fraction(-1), "lose", False, "otherwise")
        max_round = t.get("max_round")
        if max_round is not None:
            max_round = self.integer(max_round, f"{key}.max_round", 1, 10000)
        stated = t.get("stated_rtp")
        if stated is not None:
            stated = self.percent(stated, f"{key}.stated_rtp")
        return Bet(
            id=bet_id,
            name=self.string(t.get("name", bet_id), f"{key}.name"),
            cases=cases,
            otherwise=otherwise,
            max_round=max_round,
            stated_rtp=stated,
            group=self.string(t.get("group", ""), f"{key}.group"),
        )

    def claim(self, t: dict, key: str, bet_ids: set[str]) -> Claim:
        self.known(t, key, {"what", "value", "bet", "text"})
        what = self.choice(t.get("what"), f"{key}.what", ("max_rtp", "min_rtp", "bet"))
        value = self.percent(t.get("value"), f"{key}.value")
        bet = t.get("bet")
        if what == "bet":
            if bet not in bet_ids:
                self.fail(f"{key}.bet", f"must name a bet of this rule set: {', '.join(sorted(bet_ids))}")
        elif bet is not None:
            self.fail(f"{key}.bet", f"only goes with what = \"bet\", not {what!r}")
        return Claim(what, value, bet, self.string(t.get("text", ""), f"{key}.text"))


def rules_summary(rules: Rules) -> dict[str, Any]:
    """A JSON-ready description of a rule set's shoe and provenance."""
    shoe = rules.shoe
    return {
        "rules": rules.id,
        "rules_sha256": rules.sha256,
        "decks": shoe.decks,
        "model": shoe.model,
        "burn": shoe.burn,
        "cut_card_from_end": [shoe.cut_card.low, shoe.cut_card.high],
        "rounds_after_cut": shoe.rounds_after_cut,
    }
