"""The value of a leak: every observation pattern's probability, the EV of every bet given it, the best action.

The analysis behind :func:`baccarat_sim.analysis.leak.leak_value` (see
:mod:`baccarat_sim.analysis.leak` for the positions, groupings and limits):
the kernel's table of exact weights per observation pattern and pay-table
line (:func:`in_round_table`, mixed over a known card off the round; the
card-level bets' lines from the exact card-detail count,
:mod:`baccarat_sim.analysis.leak_cards`), each line's net (:func:`settlement_lines`, from the settlement layer's
:func:`~baccarat_sim.analysis.settlement.line_nets`), and the result objects.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from fractions import Fraction

import numpy as np

from ..engines.leak import IN_ROUND_POSITIONS, leak_table
from ..errors import InputError, InternalError
from ..model.cards import N_CARD_IDS, N_SUITS
from ..model.codes import N_CODES
from ..model.rules import Rules
from ..model.shoe import as_shoe
from .groupings import Grouping, each, high_low
from .leak_cards import CardLevelLeak
from .settlement import line_nets

__all__ = [
    "ALIASES",
    "MAX_PATTERNS",
    "OFF_ROUND_POSITIONS",
    "POSITIONS",
    "SIT_OUT",
    "LeakResult",
    "PatternResult",
    "SettlementLines",
    "exposed_card",
    "in_round_table",
    "leak_value",
    "resolve_positions",
    "settlement_lines",
]

#: Cards the player can see before betting that are not dealt in the round.
OFF_ROUND_POSITIONS = ("burn", "bottom")
#: Every position a leak can be at, canonical names.
POSITIONS = IN_ROUND_POSITIONS + OFF_ROUND_POSITIONS
#: Other names of positions: the next card out of the shoe is the round's first card.
ALIASES = {"next": "P1"}
#: The action of a player who bets nothing.
SIT_OUT = "sit_out"
#: Most observation patterns one analysis counts (classes per position to the power of the positions): a
#: larger table is too large to print or to settle in Fractions. Rank-level knowledge of the first four cards
#: (13^4 = 28,561) fits; exact cards at three positions (52^3) do not.
MAX_PATTERNS = 30_000


# --------------------------------------------------------------------------- positions


def resolve_positions(rules: Rules, positions, grouping: Grouping | None = None) -> tuple[str, ...]:
    """Canonical names of the observed positions, checked against the shoe model and the grouping.

    Raises
    ------
    InputError
        ``positions``: an unknown or repeated position, more than one card off
        the round, a card the shoe model cannot show (a burn card where none is
        burned, a bottom card in a shoe shuffled before every round), or a
        fifth or sixth card classified by rank or card.
    """
    names = [str(p).strip() for p in positions]
    canonical = {p.lower(): p for p in POSITIONS} | {alias: target for alias, target in ALIASES.items()}
    resolved = []
    for name in names:
        position = canonical.get(name.lower())
        if position is None:
            raise InputError("positions", f"unknown position {name!r}; positions: P1, B1, P2, B2 (the first four "
                                          "cards), C5, C6 (the fifth and sixth cards), next (the next card: P1), "
                                          "burn, bottom")
        if position in resolved:
            raise InputError("positions", f"{name!r} names {position} twice")
        resolved.append(position)
    off = [p for p in resolved if p in OFF_ROUND_POSITIONS]
    if len(off) > 1:
        raise InputError("positions", f"{' and '.join(off)}: one card off the round at a time")
    shoe = rules.shoe
    for position in off:
        if shoe.model != "dealt":
            raise InputError("positions", f"{position}: rule set {rules.id!r} shuffles the shoe before every round "
                                          "(shoe.shuffle = \"fresh\"): there is no "
                                          + ("burn card" if position == "burn" else "undealt bottom card")
                                          + " to see; a dealt shoe has one")
        if position == "burn" and shoe.burn == "none":
            raise InputError("positions", f"burn: rule set {rules.id!r} burns no card (shoe.burn = \"none\"); "
                                          "a rule set that burns (face_value or fixed) can show one")
        if position == "bottom" and shoe.cut_card.low == 0:
            raise InputError("positions", f"bottom: the cut card of rule set {rules.id!r} can be the last card, so "
                                          "the bottom card can be dealt")
    if grouping is not None and grouping.by != "value":
        thirds = [p for p in resolved if p in ("C5", "C6")]
        if thirds:
            raise InputError("positions", f"{', '.join(thirds)}: the fifth and sixth cards are classified by point "
                                          f"value only, not by {grouping.by} (the outcome depends on them only "
                                          "through their point values); use a grouping by point value")
    return tuple(resolved)



# --------------------------------------------------------------------------- results


@dataclasses.dataclass(frozen=True)
class PatternResult:
    """One observation pattern: what the player saw, how often, what each bet is then worth.

    Attributes
    ----------
    classes : tuple of int
        The group seen at each observed position (in the result's order).
    label : str
        The group names, e.g. ``"HLLL"`` (one character each) or
        ``"A234 9TJQK"``.
    weight : int
        Ordered card sequences that show it (exact).
    probability : Fraction
    ev : tuple of Fraction
        EV per unit staked of each bet given the pattern (the result's bet order).
    best_action : str
        A bet id, or :data:`SIT_OUT` when no bet has a positive EV.
    edge : Fraction
        EV of the best action (0 when sitting out).
    """

    classes: tuple[int, ...]
    label: str
    weight: int
    probability: Fraction
    ev: tuple[Fraction, ...]
    best_action: str
    edge: Fraction


@dataclasses.dataclass(frozen=True)
class LeakResult:
    """The value of a leak for one rule set and shoe.

    Attributes
    ----------
    rules_id, rules_name : str
    shoe : ndarray(int64, shape=(13, 4))
        The shoe the round is dealt from (before a card off the round leaves it).
    model : str
        The shoe model: ``"fresh"`` or ``"dealt"``.
    positions : tuple of str
        The observed positions, canonical names.
    grouping : Grouping
    bet_ids, bet_names : tuple of str
    rows : tuple of PatternResult
        Every pattern that can be seen, in order of its classes.
    total : int
        Total weight of all patterns.
    player_edge : Fraction
        Average over all rounds of the best action's EV, a sat-out round counting 0.
    action_frequency : dict of str to Fraction
        How often each action is taken: :data:`SIT_OUT` and every bet id.
    ev_without_information : dict of str to Fraction
        Each bet's EV over all rounds (the blind EV: a check on the table).
    """

    rules_id: str
    rules_name: str
    shoe: np.ndarray
    model: str
    positions: tuple[str, ...]
    grouping: Grouping
    bet_ids: tuple[str, ...]
    bet_names: tuple[str, ...]
    rows: tuple[PatternResult, ...]
    total: int
    player_edge: Fraction
    action_frequency: dict
    ev_without_information: dict

    def row(self, label: str) -> PatternResult:
        """The pattern with this label (e.g. ``"HLLL"``)."""
        for row in self.rows:
            if row.label == label:
                return row
        raise KeyError(f"no pattern {label!r}; patterns: {', '.join(r.label for r in self.rows[:20])}")

    def ev(self, label: str, bet_id: str) -> Fraction:
        """EV of one bet given one pattern."""
        return self.row(label).ev[self.bet_ids.index(bet_id)]



# --------------------------------------------------------------------------- settlement lines


@dataclasses.dataclass(frozen=True)
class SettlementLines:
    """Every bet's pay-table lines as columns: which column settles each code, and each column's net."""

    line_col: np.ndarray  # (n_outcome_bets, N_CODES): the bets on the outcome alone, the leak kernel's
    scaled: np.ndarray  # (n_columns, n_bets) object: net * denominator in the bet's own column block
    denominator: int
    first_bet_columns: slice
    starts: tuple = ()  # the first column of every bet's block
    card_level: tuple = ()  # whether each bet reads cards (its lines come from the card-detail count)

    @property
    def n_columns(self) -> int:
        """Pay-table lines of every bet, the columns of the kernel's table."""
        return self.scaled.shape[0]


def settlement_lines(rules: Rules) -> SettlementLines:
    """Columns of every pay-table line; refuses a bet on the outcome whose lines are not over the outcome codes.

    A card-level bet (suits, colours, ranks of given cards, poker values) has its block of columns too; its
    lines are counted by the card-detail count (:class:`~baccarat_sim.analysis.leak_cards.CardLevelLeak`), not by
    the leak kernel, whose ``line_col`` holds the other bets alone.
    """
    blocks, nets, starts, card_level = [], [], [], []
    offset = 0
    for bet in rules.bets:
        reads_cards = bool(getattr(bet, "card_level", False))
        if not reads_cards:
            index = np.asarray(bet.case_index())
            if index.shape != (N_CODES,):
                raise InputError("bets", f"bet {bet.id!r} settles on card details beyond the {N_CODES:,} outcome "
                                         "codes without saying it reads cards; leave it out of the bets")
            blocks.append(index.astype(np.int64) + offset)
        starts.append(offset)
        card_level.append(reads_cards)
        nets.append(line_nets(bet, rules))
        offset += len(bet.cases) + 1
    denominator = math.lcm(*(net.denominator for bet_nets in nets for net in bet_nets))
    scaled = np.zeros((offset, len(nets)), dtype=object)
    scaled[:] = 0
    column = 0
    for b, bet_nets in enumerate(nets):
        for net in bet_nets:
            scaled[column, b] = int(net * denominator)
            column += 1
    line_col = np.stack(blocks) if blocks else np.zeros((0, N_CODES), np.int64)
    return SettlementLines(line_col, scaled, denominator, slice(0, len(nets[0])), tuple(starts), tuple(card_level))



# --------------------------------------------------------------------------- analysis


def in_round_table(composition, positions, classes, lines: SettlementLines, n_classes: int,
                   cards: CardLevelLeak | None = None) -> np.ndarray:
    """Weights of (in-round pattern, column), int64, patterns in the order of ``itertools.product``.

    The bets on the outcome alone from the leak kernel, the card-level bets from ``cards`` (their card-detail
    count).
    """
    if len(lines.line_col):
        table, sizes = leak_table(composition, {p: classes for p in positions}, lines.line_col, lines.n_columns)
        if any(size != n_classes for size in sizes):  # every group has a card, so every class is counted
            raise InternalError(f"a grouping of {n_classes} classes reached the leak kernel with {sizes} classes")
    else:
        table = np.zeros((n_classes ** len(positions), lines.n_columns), np.int64)
    if cards is not None:
        table = table + cards.table(composition)
    return table


def card_level_leak(rules: Rules, positions, classes: np.ndarray, n_classes: int, lines: SettlementLines,
                    shoes, seen=None) -> CardLevelLeak | None:
    """The card-level bets' pricing by observation pattern (None without such bets), its cost checked first.

    ``positions``: the observed positions of the round; ``shoes``: every shoe the round can be dealt from (one,
    or one per card off the round); ``seen``: every observed position, for a refusal's message.

    Raises
    ------
    InvalidRules
        The pricings predicted beyond the limits, before any: one line naming the file, the bet and the cost.
    """
    if not any(lines.card_level):
        return None
    cards = CardLevelLeak(rules, positions, classes, n_classes, lines.starts, lines.n_columns)
    cards.check_cost(rules, shoes, seen)
    return cards


def _canonical_key(composition: np.ndarray) -> bytes:
    """The same bytes for shoes that differ only by a permutation of suits."""
    columns = composition.T[np.lexsort(composition[::-1])]
    return columns.tobytes()


def _shoes_without(composition: np.ndarray):
    """Every card the shoe holds, its count, and the shoe without one of it."""
    for card in range(N_CARD_IDS):
        rank, suit = divmod(card, N_SUITS)
        count = int(composition[rank, suit])
        if count:
            rest = composition.copy()
            rest[rank, suit] -= 1
            yield card, count, rest


def _pattern_weights(rules: Rules, composition, positions, grouping: Grouping,
                     lines: SettlementLines) -> tuple[list, np.ndarray, int]:
    """Every pattern (classes per position, in order), its weights per column (Python ints), and the total."""
    classes = grouping.card_classes()
    n_classes = len(grouping.groups)
    in_round = [p for p in positions if p in IN_ROUND_POSITIONS]
    off = [p for p in positions if p in OFF_ROUND_POSITIONS]
    in_keys = list(itertools.product(range(n_classes), repeat=len(in_round)))  # the kernel's pattern order
    if off and int(composition.sum()) - 1 < 6:
        raise InputError("shoe", "a card off the round leaves fewer than the six cards a round needs")
    shoes = [rest for _, _, rest in _shoes_without(composition)] if off else [composition]
    cards = card_level_leak(rules, in_round, classes, n_classes, lines, shoes, positions)
    if not off:
        table = in_round_table(composition, in_round, classes, lines, n_classes, cards)
        return in_keys, table.astype(object), int(table[:, lines.first_bet_columns].sum())
    # A known card off the round: the round is dealt from the shoe without it. Mix the tables of every card
    # the shoe holds, each weighted by its count (exact Python integers: the sums outgrow 64 bits on big shoes).
    where = positions.index(off[0])
    mixed = np.zeros((n_classes, len(in_keys), lines.n_columns), dtype=object)
    mixed[:] = 0
    cache: dict[bytes, np.ndarray] = {}
    blind_to_suits = not (grouping.suit_aware and in_round)
    for card, count, rest in _shoes_without(composition):
        # Shoes alike to every atom (a suit permutation apart) are priced once.
        key = cards.key(rest) if cards is not None else _canonical_key(rest) if blind_to_suits else rest.tobytes()
        if key not in cache:
            cache[key] = in_round_table(rest, in_round, classes, lines, n_classes, cards).astype(object)
        mixed[classes[card]] += count * cache[key]
    keys = [k[:where] + (seen,) + k[where:] for seen in range(n_classes) for k in in_keys]
    order = sorted(range(len(keys)), key=keys.__getitem__)
    weights = mixed.reshape(len(keys), lines.n_columns)[order]
    total = int(sum(weights[:, lines.first_bet_columns].sum(axis=1)))
    return [keys[i] for i in order], weights, total


def _label(grouping: Grouping, classes: tuple[int, ...]) -> str:
    names = [grouping.names[c] for c in classes]
    return "".join(names) if all(len(n) == 1 for n in names) else " ".join(names)


def _check_size(positions, grouping: Grouping) -> None:
    n_patterns = len(grouping.groups) ** len(positions)
    if n_patterns > MAX_PATTERNS:
        raise InputError("positions", f"{len(grouping.groups)} classes at {len(positions)} positions make "
                                      f"{n_patterns:,} observation patterns, over the limit of {MAX_PATTERNS:,}; "
                                      "observe fewer positions or use coarser groups")


def leak_value(rules: Rules, positions=("P1",), grouping: Grouping | None = None, shoe=None) -> LeakResult:
    """The exact value of seeing the group of the cards at ``positions`` before betting.

    Parameters
    ----------
    rules : Rules
        Its bets (side bets included) are the player's options besides sitting
        out; its shoe model says which positions can be seen.
    positions : sequence of str
        Observed positions (`POSITIONS` or `ALIASES` of this module); empty: no
        information.
    grouping : Grouping, optional
        Default: Jacobson's High = {6, 7, 8, 9} against the rest.
    shoe : int or ndarray(int64, shape=(13, 4)), optional
        The shoe the round is dealt from (a deck count or a depleted
        composition); default the rule set's decks.

    Returns
    -------
    LeakResult

    Raises
    ------
    InvalidRules
        Card-level bets (suits, colours, given ranks, poker values) whose pricings by observation pattern the
        cost model puts beyond the limits, before any: one line naming the file, the bet and the predicted cost.

    Examples
    --------
    With no information the best action is to sit out:

    >>> from baccarat_sim.model.rules import load_rules
    >>> blind = leak_value(load_rules("default"), [])
    >>> blind.player_edge, blind.rows[0].best_action
    (Fraction(0, 1), 'sit_out')
    """
    grouping = grouping if grouping is not None else high_low((6, 7, 8, 9))
    positions = resolve_positions(rules, positions, grouping)
    _check_size(positions, grouping)
    composition = as_shoe(rules.shoe.decks if shoe is None else shoe)
    lines = settlement_lines(rules)
    keys, weights, total = _pattern_weights(rules, composition, positions, grouping, lines)
    bet_ids = tuple(bet.id for bet in rules.bets)
    numerators = weights.dot(lines.scaled)
    denominator = lines.denominator
    rows = []
    edge_numerator = 0
    taken = dict.fromkeys((SIT_OUT, *bet_ids), 0)
    blind = [0] * len(bet_ids)
    for key, row_weights, nums in zip(keys, weights, numerators):
        weight = int(sum(row_weights[lines.first_bet_columns]))
        if weight == 0:
            continue  # this pattern cannot be seen in this shoe
        nums = [int(n) for n in nums]
        best = max(nums)
        action = SIT_OUT if best <= 0 else bet_ids[nums.index(best)]
        for b, n in enumerate(nums):
            blind[b] += n
        edge_numerator += max(best, 0)
        taken[action] += weight
        rows.append(PatternResult(
            classes=key,
            label=_label(grouping, key),
            weight=weight,
            probability=Fraction(weight, total),
            ev=tuple(Fraction(n, denominator * weight) for n in nums),
            best_action=action,
            edge=Fraction(max(best, 0), denominator * weight),
        ))
    return LeakResult(
        rules_id=rules.id,
        rules_name=rules.name,
        shoe=composition,
        model=rules.shoe.model,
        positions=positions,
        grouping=grouping,
        bet_ids=bet_ids,
        bet_names=tuple(bet.name for bet in rules.bets),
        rows=tuple(rows),
        total=total,
        player_edge=Fraction(edge_numerator, denominator * total),
        action_frequency={action: Fraction(w, total) for action, w in taken.items()},
        ev_without_information={bet_id: Fraction(n, denominator * total) for bet_id, n in zip(bet_ids, blind)},
    )


def exposed_card(rules: Rules, position: str = "P1", shoe=None, by: str = "card") -> LeakResult:
    """One card seen by accident: the edge for each card it can be, and on average.

    A flashed Player first card is ``position="P1"``; a card known at another
    of the six positions of a round is ``B1 P2 B2 C5 C6`` (the fifth and sixth
    by point value); a shown burn card or the bottom card of a dealt shoe is
    ``burn`` or ``bottom`` (the round comes from the shoe without it).

    Parameters
    ----------
    by : {"card", "rank", "value"}
        How exactly the card is known (``C5``/``C6``: ``"value"``).

    Examples
    --------
    >>> from baccarat_sim.model.rules import load_rules
    >>> flashed = exposed_card(load_rules("default"), "P1", by="value")
    >>> [(row.label, row.best_action, f"{float(row.edge):.3%}") for row in flashed.rows][8:]
    [('8', 'player', '17.294%'), ('9', 'player', '21.528%')]
    """
    return leak_value(rules, [position], each(by), shoe)
