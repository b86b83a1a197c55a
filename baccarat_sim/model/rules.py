"""Rule sets: versioned TOML files, validated on load into a frozen :class:`Rules`.

A rule set says how the shoe is dealt, how commission is taken, the table
limits, every bet offered with its pay table (as data, see
:mod:`baccarat_sim.model.conditions`) and the RTP figures the operator's sheet
*states*. The shipped sets live in ``baccarat_sim/rulesets/*.toml``; the file
format is documented in ``baccarat_sim/rulesets/README.md``.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import math
import re
from fractions import Fraction
from importlib import resources
from pathlib import Path

import numpy as np

from ..errors import ConditionError, InputError, InvalidRules
from ..limits import MAX_BETS, MAX_DECKS
from .codes import N_CODES, decode
from .conditions import Condition, compile_condition, covers, evaluate, possible_codes
from .cutcard import LOW_ABOVE_HIGH, CutCard, as_pair, cards_at
from .detail import CardDetail
from .toml import MAX_DIGITS, Checker, excerpt, read_named_toml, read_toml, shipped_names

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


# --------------------------------------------------------------------------- data


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

    @property
    def turned_discarded(self) -> bool:
        """Whether a card is turned to set the burn and discarded with the burned cards."""
        return self.burn == "face_value" and self.discard_turned

    def cards_before_first_round(self) -> tuple[int, int]:
        """Fewest and most cards removed before the first round (turned card included)."""
        by_rank = self.burn_by_rank()
        turned = 1 if self.turned_discarded else 0
        return int(by_rank.min()) + turned, int(by_rank.max()) + turned

    def room_problem(self, n_cards: int | None = None) -> str | None:
        """Why a dealt shoe of ``n_cards`` cannot deal a round under this burn and cut card, or None.

        The one check of every dealt shoe, whether it comes from a rule file, a
        new deck count or a depleted shoe: after the most cards the burn can
        take, the cut card must leave six cards for its round and for each round
        dealt after it.
        """
        n = self.n_cards if n_cards is None else int(n_cards)
        _, burned = self.cards_before_first_round()
        cut = self.cut_card
        deepest = n - burned - 6 * (1 + self.rounds_after_cut)
        if cut.high > deepest:
            if deepest < 0:
                return (f"a {n}-card shoe leaves no room for a round after burning up to {burned} cards"
                        + (" and dealing one more round after the cut card's" if self.rounds_after_cut else ""))
            return (f"the cut card {cut.high} cards from the end leaves no room for a round in a {n}-card shoe "
                    f"after burning up to {burned} cards (at most {deepest} cards from the end)")
        return None


@dataclasses.dataclass(frozen=True)
class Commission:
    """Commission on winning bets marked ``commission = true``.

    Amounts (stakes, wins, the commission) are in the table's money, the unit
    of ``limits.min_bet`` (a currency, or chips). ``lowest_chip`` is the value
    of the table's lowest chip in that unit. With ``rounding`` (``"up"``,
    ``"down"`` or ``"nearest"``; ``"none"`` keeps the exact amount) the
    commission is rounded to a multiple of :attr:`step`, ``unit`` lowest chips:
    online-commission-rounding.txt rounds "up to a quarter of the lowest chip
    denomination" (``unit = 0.25``), so with a lowest chip of 0.10 EUR it is
    rounded up to 0.025 EUR, and a stake is a whole number of lowest chips.
    """

    rate: Fraction = Fraction(5, 100)
    rounding: str = "none"
    unit: Fraction = Fraction(1, 4)
    lowest_chip: Fraction = Fraction(1)

    @property
    def rounded(self) -> bool:
        """Whether the commission is rounded (so a commission bet's RTP depends on the stake)."""
        return self.rounding != "none"

    @property
    def step(self) -> Fraction:
        """The amount the commission is rounded to a multiple of: ``unit`` lowest chips."""
        return self.unit * self.lowest_chip

    def amount(self, win: Fraction) -> Fraction:
        """Commission on a win of ``win`` (in the table's money), rounded to a multiple of :attr:`step`."""
        raw = self.rate * win
        if not self.rounded:
            return raw
        steps = raw / self.step
        whole = {
            "up": -((-steps.numerator) // steps.denominator),
            "down": steps.numerator // steps.denominator,
            "nearest": int(steps + Fraction(1, 2)) if steps >= 0 else -int(-steps + Fraction(1, 2)),
        }[self.rounding]
        return whole * self.step

    def nominal_stake_multiple(self, nets) -> Fraction | None:
        """Smallest stake whose multiples, and only they, pay the unrounded commission on every win.

        A stake is ``k`` lowest chips. On a line paying ``net`` per unit staked
        the commission ``rate * k * lowest_chip * net`` needs no rounding when
        ``k * rate * net / unit`` is whole, that is when ``k`` is a multiple of
        that fraction's denominator; every line at once when ``k`` is a
        multiple of their least common multiple.

        Parameters
        ----------
        nets : iterable of Fraction
            Net win per unit staked of each winning line the commission is taken from.

        Returns
        -------
        Fraction or None
            That stake, in the table's money (online-commission-rounding: 5
            lowest chips); None when the commission is not rounded (every stake
            pays the nominal rate).
        """
        if not self.rounded:
            return None
        chips = 1
        for net in nets:
            chips = math.lcm(chips, (self.rate * Fraction(net) / self.unit).denominator)
        return chips * self.lowest_chip


@dataclasses.dataclass(frozen=True)
class Limits:
    """Table limits.

    Stakes and ``min_bet`` are amounts in the table's money (a currency, or
    chips; the unit of ``commission.lowest_chip`` too); the maxima are
    multiples of ``min_bet``.

    Attributes
    ----------
    min_bet : Fraction
        The minimum bet, an amount.
    max_bet : tuple of (bet id, Fraction)
        Largest stake per bet, as a multiple of the minimum bet.
    equal_player_banker : bool
        False where the same amount may not be staked on Player and Banker.
    player_banker_min_difference : Fraction
        Smallest allowed difference of the Player and Banker stakes when both
        are staked (rng-6deck-single-hand.txt: one minimum bet).
    player_banker_limit : str
        ``"each"``: the Player and Banker maxima cap each stake;
        ``"difference"``: they cap the *difference* of the two stakes
        (live-8deck-side-bets.txt: "a bet on Player will adjust and increase the
        Banker limit by the same amount").
    side_bets_need_main_bet : bool
        Whether a side bet (group ``"side"``) may only be placed with a main bet.
    counts_as : tuple of (bet id, bet id)
        Bets whose stake counts as a stake on another bet for that bet's limits
        (its maximum, the Player/Banker difference, equal and minimum-difference
        rules): live-8deck-side-bets' No Commission Banker is the Banker bet of
        the other betting mode.
    exclusive : tuple of tuple of str
        Groups of alternative bets: a slip may stake at most one bet of each
        group (the Traditional and No Commission Banker bets, one per betting mode).
    """

    min_bet: Fraction = Fraction(1)
    max_bet: tuple[tuple[str, Fraction], ...] = ()
    equal_player_banker: bool = True
    player_banker_min_difference: Fraction = Fraction(0)
    player_banker_limit: str = "each"
    side_bets_need_main_bet: bool = False
    counts_as: tuple[tuple[str, str], ...] = ()
    exclusive: tuple[tuple[str, ...], ...] = ()

    def max_for(self, bet_id: str) -> Fraction | None:
        """Largest stake on ``bet_id`` (in units of the minimum bet), or None."""
        return dict(self.max_bet).get(bet_id)

    def counted_as(self, bet_id: str) -> str:
        """The bet whose limits a stake on ``bet_id`` counts towards (``bet_id`` itself unless ``counts_as`` says)."""
        return dict(self.counts_as).get(bet_id, bet_id)


@dataclasses.dataclass(frozen=True)
class Case:
    """One line of a pay table: where ``when`` holds, the bet's net result is ``net``.

    ``net`` is per unit staked (11 for "11:1", -1 for a loss, 0 for a push,
    -1/2 for half the stake lost); ``pays`` is the payout as the file writes it;
    ``commission`` marks a win from which the rule set's commission is taken.
    """

    when: str
    net: Fraction
    pays: str
    commission: bool = False
    name: str = ""

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
    """

    id: str
    name: str
    cases: tuple[Case, ...]
    otherwise: Case
    max_round: int | None = None
    stated_rtp: str | None = None
    group: str = "side"
    description: str = ""
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
        nets = [self._case_net(case, commission_rate) for case in (*self.cases, self.otherwise)]
        return np.array(nets, dtype=object)[self.case_index(detail)]

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
        outcome codes: every line can happen, no two lines overlap, no outcome
        is left without a line, the bet can win and can lose.

        Raises
        ------
        InvalidRules
            Naming the file, the bet and the line at fault.
        """
        key = f"bets.{self.id}"

        def fail(where: str, message: str):
            raise InvalidRules("", f"{rules.path}: {key}{where}: {message}")

        possible = detail.possible
        covered = np.zeros(detail.n_cells, bool)
        owner = np.full(detail.n_cells, -1)
        for i, case in enumerate(self.cases):
            mask = case.mask(detail)
            if not (mask & possible).any():
                fail(f".pays[{i}].when", f"{excerpt(case.when)} can never happen at the table")
            overlap = covered & mask & possible
            if overlap.any():
                first = int(np.flatnonzero(overlap)[0])
                fail(f".pays[{i}].when", f"{excerpt(case.when)} overlaps pays[{owner[first]}] "
                                         f"({excerpt(self.cases[owner[first]].when)}), e.g. "
                                         f"{_describe_cell(first, detail)}")
            owner[mask & ~covered] = i
            covered |= mask
        missing = possible & ~covered
        if missing.any() and not self._explicit_otherwise:
            fail(".otherwise", "missing cases: some outcomes match no line, e.g. "
                               f"{_describe_cell(int(np.flatnonzero(missing)[0]), detail)}; add otherwise = "
                               "\"lose\" or lines that cover them")
        nets = [float(self._case_net(case, rules.commission.rate)) for case in self.cases]
        if missing.any():
            nets.append(float(self._case_net(self.otherwise, rules.commission.rate)))
        if not any(v > 0 for v in nets):
            fail(".pays", "the bet can never win: no line pays more than the stake back")
        if not any(v < 0 for v in nets):
            fail(".pays", "the bet can never lose: every outcome wins or pushes")

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
    #: Bets a game-wide claim (maximum/minimum RTP) is about: every bet of the
    #: rule set as loaded, so that a report of fewer bets does not check it.
    scope: tuple[str, ...] = ()

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
    """A validated rule set (immutable). Build it with :func:`load_rules`.

    Attributes
    ----------
    id, name, source, description : str
        Identity and provenance; ``source`` names the rule sheet.
    shoe : Shoe
    commission : Commission
    limits : Limits
    notation : str
        ``"to"`` or ``"for"``: how the file's ``"X:Y"`` payouts were read.
    bets : tuple of Bet
    claims : tuple of Claim
        Every RTP the sheet states (per bet and game-wide).
    path, sha256 : str
        Where the file was read from and the hash of its bytes.
    assumptions : tuple of str
        What the file assumes where the sheet is silent.
    """

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
    assumptions: tuple[str, ...] = ()

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

    @property
    def atoms(self) -> tuple:
        """The card-only conditions of every bet, each once, in file order (empty: no bet reads cards)."""
        found: dict = {}
        for bet in self.bets:
            for atom in bet.atoms:
                found.setdefault(atom.text, atom)
        return tuple(found.values())

    def with_bets(self, bet_ids) -> Rules:
        """A copy offering only ``bet_ids`` (in the order given)."""
        return dataclasses.replace(self, bets=tuple(self.bet(bet_id) for bet_id in bet_ids))

    def with_shoe(self, **changes) -> Rules:
        """A copy with shoe fields changed (e.g. ``model="dealt"``, ``decks=6``).

        A cut card given as a fraction of the shoe moves with the deck count.
        """
        shoe = dataclasses.replace(self.shoe, **changes)
        if "decks" in changes and "cut_card" not in changes:
            shoe = dataclasses.replace(shoe, cut_card=shoe.cut_card.for_cards(shoe.n_cards))
        return dataclasses.replace(self, shoe=shoe)


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
                                          "rule set with this bet")
    size = N_CODES if detail is None else detail.n_cells
    index = np.full(size, len(bet.cases), np.int64)
    for i, case in enumerate(bet.cases):
        try:
            index[case.mask(detail)] = i
        except ValueError as error:
            raise InputError("histogram", f"bet {bet.id!r}: {excerpt(case.when)} {error}") from None
    index.setflags(write=False)
    return index


def _describe_cell(cell: int, detail) -> str:
    """A cell in words: the outcome and the card detail."""
    if detail is None or not detail.atoms:
        return _describe_code(cell % N_CODES)
    code = detail.code_of_outcome(cell % detail.n_outcomes)
    text = _describe_code(code) if detail.outcomes == "codes" else _describe_code(code, prefix_only=True)
    return f"{text}, cards: {detail.describe(cell // detail.n_outcomes)}"


# --------------------------------------------------------------------------- loading


def _rulesets_dir():
    return resources.files("baccarat_sim") / "rulesets"


def available_rules() -> list[str]:
    """Names of the shipped rule sets."""
    return shipped_names(_rulesets_dir())


def load_rules(name_or_path: str | Path = DEFAULT_RULES) -> Rules:
    """Load and validate a shipped rule set by name, or a rule file by path.

    Parameters
    ----------
    name_or_path : str or Path
        A shipped name (see :func:`available_rules`) or a path to a ``.toml`` file.

    Raises
    ------
    InvalidRules
        With one line naming the file, the key at fault and what is allowed.

    Examples
    --------
    >>> rules = load_rules("classic-6deck")  # the sheet writes payouts "for one"
    >>> rules.notation, rules.bet("tie").cases[0].pays, rules.bet("tie").cases[0].net
    ('for', '9:1', Fraction(8, 1))
    """
    raw, document, label = read_named_toml(name_or_path, _rulesets_dir(), "rule set", "rule file", InvalidRules,
                                           "rules")
    return _validate(raw, document, label)


def parse_rules(data: bytes | str, label: str = "<rules>") -> Rules:
    """Validate TOML text into :class:`Rules` (see :func:`load_rules`)."""
    raw, document = read_toml(data, label, InvalidRules)
    return _validate(raw, document, label)


def _validate(raw: bytes, document: dict, label: str) -> Rules:
    return _Validator(label).rules(document, hashlib.sha256(raw).hexdigest())


_ID = re.compile(r"[a-z][a-z0-9_]{0,63}")
_RULES_ID = re.compile(r"[a-z0-9][a-z0-9_.-]{0,63}")
_NUMBER = r"(\d+(?:\.\d+)?)"
_PAYS = re.compile(rf"^{_NUMBER}\s*(:|to|for)\s*{_NUMBER}$")
_PERCENT = re.compile(r"^\d{1,3}(\.\d+)?%$")
#: Payout words a pay-table line may use instead of odds, and their net result.
PAYOUT_WORDS = {"lose": Fraction(-1), "push": Fraction(0), "lose half": Fraction(-1, 2),
                "even money": Fraction(1)}
#: Largest net win per unit staked that a pay table may state.
MAX_ODDS = 100_000

_TOP_KEYS = {"schema_version", "id", "name", "source", "description", "assumptions", "payout_notation", "shoe",
             "commission", "limits", "bets", "claims"}
_SHOE_KEYS = {"decks", "shuffle", "burn", "burn_cards", "ten_value", "discard_turned", "cut_card", "after_cut"}
_COMMISSION_KEYS = {"rate", "rounding", "unit", "lowest_chip"}
_LIMIT_KEYS = {"min_bet", "max_bet", "equal_player_banker", "player_banker_min_difference", "player_banker_limit",
               "side_bets_need_main_bet", "counts_as", "exclusive"}
_BET_KEYS = {"id", "name", "description", "group", "pays", "otherwise", "max_round", "stated_rtp"}
_CASE_KEYS = {"when", "pays", "net", "commission", "name"}
_CLAIM_KEYS = {"what", "value", "bet", "text"}


def _amount_text(amount: Fraction) -> str:
    """An amount as a rule file writes it (``1``, ``0.25``): :func:`baccarat_sim.model.amounts.amount_text`."""
    from .amounts import amount_text  # the one home of amounts as text

    return amount_text(amount)


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


class _Validator(Checker):
    """Walks a parsed rule-set document; every error is one line ``file: key.path: message``."""

    def __init__(self, label: str):
        super().__init__(label, InvalidRules)

    def percent(self, value, key) -> str:
        if not isinstance(value, str) or not _PERCENT.match(value) or float(value[:-1]) > 100:
            self.fail(key, f"must be a percentage as the sheet writes it, e.g. \"98.94%\"; got {excerpt(value)}")
        return value

    # -- sections

    def rules(self, doc: dict, sha256: str) -> Rules:
        if "schema_version" not in doc:
            self.fail("schema_version", f"missing; this version reads schema_version = {SCHEMA_VERSION}")
        version = doc["schema_version"]
        if isinstance(version, bool) or not isinstance(version, int) or version != SCHEMA_VERSION:
            newer = isinstance(version, int) and not isinstance(version, bool) and version > SCHEMA_VERSION
            hint = " (written for a newer baccarat_sim)" if newer else ""
            self.fail("schema_version", f"must be {SCHEMA_VERSION}, got {version!r}{hint}")
        self.known(doc, "", _TOP_KEYS)
        if "id" not in doc:
            self.fail("id", "missing; give the rule set a name such as \"my-table\"")
        rules_id = self.identifier(doc["id"], "id", _RULES_ID, "lower-case letters, digits, '-', '_' or '.'")
        notation = self.choice(doc.get("payout_notation", "to"), "payout_notation", ("to", "for"))
        shoe = self.shoe(self.table(doc.get("shoe", {}), "shoe"))
        commission = self.commission(self.table(doc.get("commission", {}), "commission"))
        bets_raw = doc.get("bets")
        if not isinstance(bets_raw, list) or not bets_raw:
            self.fail("bets", "must be a non-empty array of tables ([[bets]])")
        if len(bets_raw) > MAX_BETS:
            self.fail("bets", f"{len(bets_raw)} bets, more than the limit of {MAX_BETS} bets a rule set may offer "
                              "(split them into several rule sets)")
        bets = tuple(self.bet(self.table(b, f"bets[{i}]"), f"bets[{i}]", notation, commission)
                     for i, b in enumerate(bets_raw))
        seen: dict[str, int] = {}
        for i, bet in enumerate(bets):
            if bet.id in seen:
                self.fail(f"bets[{i}].id", f"duplicate bet id {bet.id!r} (also bets[{seen[bet.id]}])")
            seen[bet.id] = i
        limits = self.limits(self.table(doc.get("limits", {}), "limits"), bets)
        if commission.rounded and limits.min_bet % commission.lowest_chip:
            # A rounded commission counts in lowest chips: every stake, the minimum bet first, is made of them.
            self.fail("limits.min_bet", f"must be a whole number of lowest chips (commission.lowest_chip = "
                                        f"{_amount_text(commission.lowest_chip)}), got {_amount_text(limits.min_bet)}")
        bet_ids = tuple(seen)
        claims = tuple(
            self.claim(self.table(c, f"claims[{i}]"), f"claims[{i}]", bet_ids)
            for i, c in enumerate(self.list(doc.get("claims", []), "claims"))
        )
        claims += tuple(Claim("bet", bet.stated_rtp, bet.id, f"{bet.name}: {bet.stated_rtp}") for bet in bets
                        if bet.stated_rtp)
        assumptions = tuple(self.string(a, f"assumptions[{i}]")
                            for i, a in enumerate(self.list(doc.get("assumptions", []), "assumptions")))
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
            assumptions=assumptions,
        )

    def shoe(self, t: dict) -> Shoe:
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
        self.fail(key, f"must be \"X:Y\", \"X to Y\", \"X for Y\" (numbers of at most {MAX_DIGITS} digits) or one "
                       f"of {words}; got {excerpt(value)}")

    def case(self, t: dict, key: str, notation: str, need_when: bool) -> tuple[Case, np.ndarray]:
        self.known(t, key, _CASE_KEYS if need_when else _CASE_KEYS - {"when"})
        if need_when and "when" not in t:
            self.fail(f"{key}.when", "missing: every pay-table line needs a condition")
        when = self.string(t.get("when", "true"), f"{key}.when")
        if "pays" in t and "net" in t:
            self.fail(key, "give either pays or net, not both")
        if "pays" in t:
            net, label = self.pays(t["pays"], f"{key}.pays", notation)
        elif "net" in t:
            net = self.number(t["net"], f"{key}.net", -1, MAX_ODDS)
            label = f"net {t['net']}"
        else:
            self.fail(f"{key}.pays", "missing: say what the line pays (\"X:1\", \"push\", \"lose\") or its net")
        commission = self.boolean(t.get("commission", False), f"{key}.commission")
        if commission and net <= 0:
            self.fail(f"{key}.commission", "commission is only taken from a win; this line does not win")
        name = self.string(t.get("name", ""), f"{key}.name")
        try:
            condition, problem = compile_condition(when), None
        except ConditionError as error:
            condition, problem = None, str(error)
        if condition is None:  # raised outside the handler: one clean error, no chained traceback
            self.fail(f"{key}.when", problem)
        if condition.card_level:  # checked on the card detail, which the engines work out (engines.detail)
            return Case(when, net, label, commission, name or when), None
        mask = evaluate(when)
        if need_when and not (mask & possible_codes()).any():
            self.fail(f"{key}.when", f"{excerpt(when)} can never happen at the table")
        return Case(when, net, label, commission, name or when), mask

    def bet(self, t: dict, key: str, notation: str, commission: Commission) -> Bet:
        self.known(t, key, _BET_KEYS)
        if "id" not in t:
            self.fail(f"{key}.id", "missing")
        bet_id = self.identifier(t["id"], f"{key}.id", _ID, "snake_case (a-z, 0-9, _)")
        key = f"bets.{bet_id}"
        cases_raw = t.get("pays")
        if not isinstance(cases_raw, list) or not cases_raw:
            self.fail(f"{key}.pays", "must be a non-empty array of {when = ..., pays = ...} tables")
        possible = possible_codes()
        covered = np.zeros(N_CODES, bool)
        owner = np.full(N_CODES, -1)
        cases = []
        card_level = False
        for i, raw in enumerate(cases_raw):
            case, mask = self.case(self.table(raw, f"{key}.pays[{i}]"), f"{key}.pays[{i}]", notation, True)
            cases.append(case)
            if mask is None:
                card_level = True
                continue
            overlap = covered & mask & possible
            if overlap.any():
                first = int(np.flatnonzero(overlap)[0])
                self.fail(f"{key}.pays[{i}].when", f"{excerpt(case.when)} overlaps pays[{owner[first]}] "
                                                   f"({excerpt(cases[owner[first]].when)}), e.g. "
                                                   f"{_describe_code(first)}")
            owner[mask & ~covered] = i
            covered |= mask
        if "otherwise" in t:
            raw = t["otherwise"]
            if isinstance(raw, str):
                raw = {"pays": raw}
            otherwise, _ = self.case(self.table(raw, f"{key}.otherwise"), f"{key}.otherwise", notation, False)
            otherwise = dataclasses.replace(otherwise, when="otherwise",
                                            name=otherwise.name if otherwise.name != "true" else "otherwise")
        else:
            missing = possible & ~covered
            if missing.any() and not card_level:  # a card-level bet is checked on its card detail
                self.fail(f"{key}.otherwise", "missing cases: some outcomes match no line, e.g. "
                                              f"{_describe_code(int(np.flatnonzero(missing)[0]))}; add otherwise = "
                                              "\"lose\" or lines that cover them")
            otherwise = Case("otherwise", Fraction(-1), "lose", False, "otherwise")
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
            _explicit_otherwise="otherwise" in t,
        )
        if card_level:
            return bet  # its lines are checked on the card detail (Bet.check_detail)
        # Every line can happen (checked above); otherwise applies where some possible outcome is left.
        nets = [Bet._case_net(case, commission.rate) for case in cases]
        if (possible & ~covered).any():
            nets.append(Bet._case_net(bet.otherwise, commission.rate))
        nets = np.array([float(v) for v in nets])
        if not (nets > 0).any():
            self.fail(f"{key}.pays", "the bet can never win: no line pays more than the stake back")
        if not (nets < 0).any():
            self.fail(f"{key}.pays", "the bet can never lose: every outcome wins or pushes")
        return bet

    def claim(self, t: dict, key: str, bet_ids: tuple[str, ...]) -> Claim:
        self.known(t, key, _CLAIM_KEYS)
        if "what" not in t:
            self.fail(f"{key}.what", "missing: one of 'max_rtp', 'min_rtp', 'bet'")
        what = self.choice(t["what"], f"{key}.what", ("max_rtp", "min_rtp", "bet"))
        if "value" not in t:
            self.fail(f"{key}.value", "missing: the RTP as the sheet writes it, e.g. \"98.94%\"")
        value = self.percent(t["value"], f"{key}.value")
        bet = t.get("bet")
        if what == "bet":
            if bet not in bet_ids:
                self.fail(f"{key}.bet", f"must name a bet of this rule set ({', '.join(bet_ids)}), got {bet!r}")
        elif bet is not None:
            self.fail(f"{key}.bet", f"only goes with what = \"bet\", not {what!r}")
        text = self.string(t.get("text", ""), f"{key}.text")
        return Claim(what, value, bet, text, () if what == "bet" else bet_ids)
