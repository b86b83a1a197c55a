"""Rule sets: versioned TOML files, validated on load into a frozen :class:`Rules`.

A rule set says how the shoe is dealt, how commission is taken, the table
limits (:mod:`~baccarat_sim.model.table`), every bet offered with its pay table
(as data, see :mod:`~baccarat_sim.model.paytable` and
:mod:`~baccarat_sim.model.conditions`) and the RTP figures the operator's sheet
*states* (:class:`Claim`). The shipped sets live in
``baccarat_sim/rulesets/*.toml``; the file format is documented in
``baccarat_sim/rulesets/README.md``. This module loads a rule file and checks
it as a whole; :mod:`~baccarat_sim.model.rulefile` checks each section. The
names of the rule set's parts are importable from here, as they always were.
"""

from __future__ import annotations

import dataclasses
import hashlib
import re
from decimal import Decimal
from fractions import Fraction
from importlib import resources
from pathlib import Path

from ..errors import InvalidRules
from ..limits import MAX_BETS
from .cutcard import CutCard
from .paytable import Bet, Case, Jackpot
from .rulefile import RuleFileChecker
from .table import Commission, Limits, Shoe
from .toml import read_named_toml, read_toml, shipped_names

__all__ = [
    "SCHEMA_VERSION",
    "Bet",
    "Case",
    "Claim",
    "Commission",
    "CutCard",
    "InvalidRules",
    "Jackpot",
    "Limits",
    "Rules",
    "Shoe",
    "available_rules",
    "load_rules",
    "parse_rules",
]

SCHEMA_VERSION = 1
DEFAULT_RULES = "default"


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
        """The stated value as a fraction: 0.9894 for "98.94%" (the decimal written: 0.8906, not 0.8906000000000001)."""
        return float(Decimal(self.value.rstrip("%")) / 100)

    @property
    def tolerance(self) -> float:
        """Half a unit of the last digit written, as a fraction."""
        decimals = len(self.value.rstrip("%").partition(".")[2])
        return 0.5 * 10.0 ** (-decimals) / 100


@dataclasses.dataclass(frozen=True)
class Rules:
    """A validated rule set (immutable). Build it with [`load_rules`][baccarat_sim.model.rules.load_rules].

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

    def with_meters(self, meters: dict) -> Rules:
        """A copy with the jackpot meters of some bets set (bet id to the meter, in the jackpot's unit).

        Raises
        ------
        KeyError
            No such bet.
        ValueError
            The bet pays no jackpot, or a meter is negative.
        """
        changed = {bet_id: self.bet(bet_id).with_meter(value) for bet_id, value in meters.items()}
        return dataclasses.replace(self, bets=tuple(changed.get(bet.id, bet) for bet in self.bets))

    def with_shoe(self, **changes) -> Rules:
        """A copy with shoe fields changed (e.g. ``model="dealt"``, ``decks=6``).

        A cut card given as a fraction of the shoe moves with the deck count.
        """
        shoe = dataclasses.replace(self.shoe, **changes)
        if "decks" in changes and "cut_card" not in changes:
            shoe = dataclasses.replace(shoe, cut_card=shoe.cut_card.for_cards(shoe.n_cards))
        return dataclasses.replace(self, shoe=shoe)


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
        A shipped name (see [`available_rules`][baccarat_sim.model.rules.available_rules]) or a path to a
        ``.toml`` file.

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


_RULES_ID = re.compile(r"[a-z0-9][a-z0-9_.-]{0,63}")
_TOP_KEYS = {"schema_version", "id", "name", "source", "description", "assumptions", "payout_notation", "shoe",
             "commission", "limits", "bets", "claims"}
_CLAIM_KEYS = {"what", "value", "bet", "text"}


def _amount_text(amount: Fraction) -> str:
    """An amount as a rule file writes it (``1``, ``0.25``): :func:`baccarat_sim.model.amounts.amount_text`."""
    from .amounts import amount_text  # the one home of amounts as text

    return amount_text(amount)


class _Validator(RuleFileChecker):
    """Walks a parsed rule-set document; every error is one line ``file: key.path: message``."""

    def rules(self, doc: dict, sha256: str) -> Rules:
        """The whole document (its bytes hashed to ``sha256``), with the checks across its sections."""
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
        bets_raw = self.array_of_tables(doc.get("bets"), "bets")
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
            **self.identity(doc, rules_id),
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

    def claim(self, t: dict, key: str, bet_ids: tuple[str, ...]) -> Claim:
        """One ``[[claims]]`` table: an RTP the sheet states about the game or one of ``bet_ids``."""
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
