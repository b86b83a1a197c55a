"""A synthetic month of play: round logs, bet logs and table results from the dealing kernels, anomalies on request.

``N`` tables deal ``D`` gaming days each, whole shoes of their rule set dealt by the Monte Carlo engine's dealing
procedure (:mod:`baccarat_sim.kernels.audit_deal`, seeded: the same seed gives the same month). Seats are taken
at random per shoe; a seated player bets Banker or Player most rounds, the Tie now and then, a side bet now and
then, stakes from the table's minimum up. Every net result is the pay table's (:mod:`.audit_settle`). Table
results are each table's gaming day: handle the stakes, win the house's result, drop the handle over the table's
chip churn (how many times a chip is bet before it is lost or cashed).

The month is made a chunk at a time (:func:`month_chunks`: a table's run of gaming days, at most
:data:`CHUNK_ROUNDS` rounds), so that a year of 25 tables is written in bounded memory. Nothing depends on where
the chunks end: shoe ``k`` is dealt from its own generator, and every other random choice is a counter-based
uniform of the seed and what it is drawn for (the shoe and seat, the round), not a draw from a stream that
chunks would share out differently.

Anomalies (:data:`ANOMALIES`) are placed before any round is dealt (a table and a gaming day each, from the
seed), put into the logs in the chunk that holds their day (or the next day that can hold them), and recorded
where they were put, so that the audit's findings can be checked against them.
"""

from __future__ import annotations

import dataclasses
import datetime
from collections.abc import Iterator

import numpy as np

from ..engines.audit_deal import ShoeLogs, deal_shoes
from ..model.cards import N_SUITS, card_name, parse_cards
from ..model.codes import decode
from ..model.rules import Rules
from .audit_counts import best_count, counts_before_rounds
from .audit_rounds import resolve_rounds
from .audit_settle import expected_nets, settles_on_codes

__all__ = ["ANOMALIES", "CHUNK_ROUNDS", "AnomalyRefused", "MonthChunk", "SimulatedMonth", "month_chunks",
           "simulate_month", "sort_anomalies"]

#: The anomalies :func:`simulate_month` can inject, with what each is.
ANOMALIES = {
    "counter": "a player who bets a countable side bet (Dragon 7 where the rule set has it) only at high counts",
    "team": "three seats that bet a countable side bet together at high counts, the wager split among them",
    "misdeal": "a round whose Player takes a third card the tableau does not draw",
    "payout": "a winning bet paid twice what the pay table gives",
    "commission": "a gaming day at one table on which winning Banker bets are paid without their commission",
    "stacked": "a shoe with a stacked slug: rounds dealt from cards the shoe does not hold",
    "late-cut": "a shoe dealt well past its cut card",
    "bad-burn": "a shoe whose burn took more cards than the turned card says",
}
SEATS = 7
#: Chance a seat is taken for a shoe; a taken seat's main bet (Banker, Player, none); a Tie; a side bet.
SEATED, BANKER, PLAYER, TIE, SIDE = 0.45, 0.5, 0.4, 0.08, 0.12
#: Stakes in table minimums, and how often each is bet.
STAKE_MULTIPLES, STAKE_WEIGHTS = (1, 2, 3, 5, 10), (0.4, 0.25, 0.15, 0.12, 0.08)
#: Table minimums, table by table in turn (the stake levels of the month).
TABLE_MINIMUMS = (10, 25, 100)
#: Maximum bet of a counter (and of a team, shared), in table minimums.
COUNTER_MAX = 20
#: Most rounds a chunk holds (a table's whole gaming days, at least one): what bounds the memory.
CHUNK_ROUNDS = 250_000
#: Most rounds a shoe's key leaves room for (a round's key is its shoe's times this, plus its number).
_ROUNDS_PER_SHOE_KEY = 1024
#: The counter-based uniforms' streams: what each random choice is for.
_STREAMS = {"seated": 1, "main": 2, "stake": 3, "tie": 4, "side": 5, "side_pick": 6}
#: The slug of a stacked shoe: its rounds 11 to 26.
_SLUG = (10, 26)


class AnomalyRefused(ValueError):
    """An anomaly asked for that the month's tables or days cannot hold (one line: which and why)."""


@dataclasses.dataclass(frozen=True)
class SimulatedMonth:
    """The logs of a simulated month, column by column, and the anomalies put into them.

    Attributes
    ----------
    rounds, bets, results : dict of str to ndarray
        The columns of each file kind (:mod:`baccarat_sim.audit_store.formats`), cards spelled ``Kh``.
    anomalies : list of dict
        Each injected anomaly: ``kind``, ``table``, ``shoe``, ``round``, ``day``, ``seat``, ``player``, ``bet``
        (those that apply) and ``what``.
    """

    rounds: dict
    bets: dict
    results: dict
    anomalies: list


@dataclasses.dataclass(frozen=True)
class MonthChunk:
    """A chunk of a simulated month: one table's run of gaming days (columns as :class:`SimulatedMonth`'s).

    ``anomalies`` lists those put into this chunk.
    """

    rounds: dict
    bets: dict
    results: dict
    anomalies: list


@dataclasses.dataclass
class _Placement:
    """Where an anomaly goes: a table, its first gaming day, and a uniform that picks among the day's candidates."""

    kind: str
    table: int
    day: int
    pick: float
    span: int = 1
    done: bool = False


def _expected_rounds_per_shoe(rules: Rules) -> float:
    n_cards = rules.shoe.decks * 52
    return max(1.0, (n_cards - rules.shoe.cut_card.mean - rules.shoe.cards_before_first_round()[1]) / 4.94)


def _mix(values: np.ndarray) -> np.ndarray:
    """SplitMix64's finaliser: a bijective scramble of 64-bit integers."""
    z = values + np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def _uniform(seed: int, stream: str, keys: np.ndarray, seat: int = 0) -> np.ndarray:
    """Uniforms in [0, 1), one per key: a function of the seed, the stream, the seat and the key alone."""
    with np.errstate(over="ignore"):
        head = _mix(np.array([seed % 2**64], np.uint64))
        head = _mix(head ^ np.uint64(_STREAMS[stream] * 64 + seat))
        values = _mix(head ^ np.asarray(keys).astype(np.uint64))
    return (values >> np.uint64(11)).astype(np.float64) * 2.0**-53


def _side_bets(rules: Rules) -> list[str]:
    return [b.id for b in rules.bets if b.group != "main" and settles_on_codes(rules, b.id) and b.jackpot is None]


def _counted_bet(rules: Rules) -> str | None:
    sides = _side_bets(rules)
    if "dragon_7" in sides:
        return "dragon_7"
    return next((b for b in sides if best_count(rules, b) is not None), None)


def _place(rng, kinds: set, rules_of_table: list[Rules], days: int) -> list[_Placement]:
    """Each anomaly's table and first day, in :data:`ANOMALIES`'s order, from the seed."""
    tables = range(len(rules_of_table))
    countable = sorted((t for t in tables if _counted_bet(rules_of_table[t])),
                       key=lambda t: _counted_bet(rules_of_table[t]) != "dragon_7")  # a Dragon 7 table first
    commission = [t for t in tables if rules_of_table[t].commission.rate > 0 and any(
        case.commission for bet in rules_of_table[t].bets for case in bet.cases)]
    placements = []
    for kind in ANOMALIES:
        if kind not in kinds:
            continue
        if kind in ("counter", "team"):
            if not countable:
                raise AnomalyRefused("a counter or a team needs a table whose rule set has a countable side bet")
            span = max(1, min(5, days // 2))
            table = countable[(kind == "team") % len(countable)]
            placements.append(_Placement(kind, table, int(rng.integers(0, days - span + 1)), 0.0, span))
            continue
        eligible = commission if kind == "commission" else list(tables)
        if not eligible:
            raise AnomalyRefused("a short-paid commission needs a table whose rule set takes commission")
        placements.append(_Placement(kind, eligible[int(rng.integers(0, len(eligible)))],
                                     int(rng.integers(0, days)), float(rng.random())))
    return placements


def month_chunks(rules_list: list[Rules], tables: int, days: int, rounds_per_day: int, seed: int, anomalies=(),
                 start: datetime.date = datetime.date(2026, 1, 1), churn: float = 2.2,
                 chunk_rounds: int = CHUNK_ROUNDS) -> Iterator[MonthChunk]:
    """Simulate ``tables`` tables over ``days`` gaming days, a chunk at a time (a table's days, in order).

    Parameters as :func:`simulate_month`; ``chunk_rounds``: most rounds a chunk holds (whole gaming days, at
    least one). The chunks do not depend on ``chunk_rounds`` but for where they end.

    Raises
    ------
    AnomalyRefused
        An anomaly that no table of the rule sets can hold (at the first chunk), or no day of its table (after
        the last).
    """
    rng = np.random.default_rng([seed, 40])
    rules_of_table = [rules_list[t % len(rules_list)] for t in range(tables)]
    per_day = [max(1, round(rounds_per_day / _expected_rounds_per_shoe(rules))) for rules in rules_of_table]
    placements = _place(rng, set(anomalies), rules_of_table, days)
    bet_names = sorted({bet for rules in rules_list for bet in rules.bet_ids})
    shoe_base = 0
    for t, rules in enumerate(rules_of_table):
        days_per_chunk = max(1, chunk_rounds // max(1, round(per_day[t] * _expected_rounds_per_shoe(rules))))
        for first_day in range(0, days, days_per_chunk):
            last_day = min(days, first_day + days_per_chunk)
            yield _chunk(t, rules, per_day[t], shoe_base, first_day, last_day, seed, start, churn,
                         [p for p in placements if p.table == t], bet_names)
        shoe_base += per_day[t] * days
    missing = [p for p in placements if not p.done]
    if missing:
        raise AnomalyRefused(f"no gaming day of table T{missing[0].table + 1:02d} from day {missing[0].day + 1} on "
                             f"could hold the {missing[0].kind} anomaly; simulate more rounds per day or more days")


def simulate_month(rules_list: list[Rules], tables: int, days: int, rounds_per_day: int, seed: int,
                   anomalies=(), start: datetime.date = datetime.date(2026, 1, 1), churn: float = 2.2
                   ) -> SimulatedMonth:
    """Simulate ``tables`` tables over ``days`` gaming days, whole (the chunks of :func:`month_chunks` joined).

    Parameters
    ----------
    rules_list : list of Rules
        The rule sets, given to the tables in turn.
    tables, days, rounds_per_day : int
        A table deals whole shoes, as many as come nearest ``rounds_per_day`` (at least one) each day.
    seed : int
    anomalies : iterable of str
        Kinds of :data:`ANOMALIES` to inject, one of each.
    start : date
        The first gaming day.
    churn : float
        Handle over drop at every table.
    """
    chunks = list(month_chunks(rules_list, tables, days, rounds_per_day, seed, anomalies, start, churn))
    joined = {kind: {key: np.concatenate([getattr(c, kind)[key] for c in chunks]) for key in getattr(chunks[0], kind)}
              for kind in ("rounds", "bets", "results")}
    return SimulatedMonth(joined["rounds"], joined["bets"], joined["results"],
                          sort_anomalies([a for c in chunks for a in c.anomalies]))


def sort_anomalies(anomalies: list[dict]) -> list[dict]:
    """The anomalies in :data:`ANOMALIES`'s order (as a month's record lists them)."""
    order = list(ANOMALIES)
    return sorted(anomalies, key=lambda a: order.index(a["kind"]))


def _chunk(t: int, rules: Rules, per_day: int, shoe_base: int, first_day: int, last_day: int, seed: int, start,
           churn: float, placements: list[_Placement], bet_names: list[str]) -> MonthChunk:
    first_shoe = shoe_base + first_day * per_day
    logs = deal_shoes(rules, seed, first_shoe, (last_day - first_day) * per_day)
    rounds = _table_rounds(t, rules, logs, per_day, first_day, first_shoe, start)
    injected: list[dict] = []
    # An anomaly of a round or a day goes into the first day from its own that can hold it; a counter or a team
    # plays every day of its span.
    here = [p for p in placements if not p.done and p.day < last_day]
    players = [p for p in placements if p.kind in ("counter", "team") and p.day < last_day
               and p.day + p.span > first_day]
    _inject_cards(rounds, [p for p in here if p.kind in ("misdeal", "stacked", "late-cut", "bad-burn")], injected)
    bets = _bets(seed, t, rounds, rules, bet_names, players, injected)
    _inject_payouts(rounds, rules, bets, [p for p in here if p.kind in ("payout", "commission")], injected)
    results = _results(rounds, bets, churn)
    i = bets.pop("index")
    bets = {"table": rounds["table"][i], "shoe": rounds["shoe"][i], "round": rounds["round"][i], **bets}
    internal = ("cards", "shoe_index", "shoe_key", "day_index")
    spelled = {key: value for key, value in rounds.items() if key not in internal}
    names = np.array([card_name(c) for c in range(13 * N_SUITS)] + [""], dtype=object)
    for k, column in enumerate(("p1", "b1", "p2", "b2", "p3", "b3")):
        spelled[column] = names[np.where(rounds["cards"][:, k] >= 0, rounds["cards"][:, k], 13 * N_SUITS)]
    spelled["turned"] = names[np.where(rounds["turned"] >= 0, rounds["turned"], 13 * N_SUITS)]
    return MonthChunk(spelled, bets, results, injected)


def _table_rounds(t: int, rules: Rules, logs: ShoeLogs, per_day: int, first_day: int, first_shoe: int,
                  start) -> dict:
    n_shoes, most = logs.cards.shape[:2]
    if most >= _ROUNDS_PER_SHOE_KEY:
        raise ValueError(f"a shoe of {most} rounds is more than the simulation numbers")
    dealt = np.arange(most)[None, :] < logs.rounds[:, None]
    shoe_of = np.broadcast_to(np.arange(n_shoes)[:, None], dealt.shape)[dealt]
    round_no = np.broadcast_to(np.arange(1, most + 1)[None, :], dealt.shape)[dealt]
    first = round_no == 1
    day_index = first_day + shoe_of // per_day
    n = int(dealt.sum())
    return {
        "table": np.full(n, f"T{t + 1:02d}", dtype=object),
        "shoe": np.char.mod("%d", first_day * per_day + shoe_of + 1).astype(object),
        "shoe_index": shoe_of,
        "shoe_key": first_shoe + shoe_of,  # the shoe's number in the month: the uniforms' key
        "round": round_no,
        "day_index": day_index,
        "day": np.datetime64(start) + day_index.astype("timedelta64[D]"),
        "rule_set": np.full(n, rules.id, dtype=object),
        "cards": logs.cards[dealt].astype(np.int64),
        # A card is turned (and seen) only where the burn is set by one.
        "turned": np.where(first & (rules.shoe.burn == "face_value"), logs.turned[shoe_of], -1),
        "burned": np.where(first, logs.burned[shoe_of], -1),
        "cut": np.where(first, logs.cut[shoe_of], -1),
    }


def _where(rounds: dict, i: int) -> dict:
    return {"table": str(rounds["table"][i]), "shoe": str(rounds["shoe"][i]), "round": int(rounds["round"][i]),
            "day": str(rounds["day"][i])}


def _first_day_with(placement: _Placement, day_index: np.ndarray, candidates: np.ndarray) -> int | None:
    """The candidate the placement picks: on its day, or the first later day of the chunk with a candidate."""
    for day in np.unique(day_index[candidates]):
        if day >= placement.day:
            on_day = candidates[day_index[candidates] == day]
            placement.done = True
            return int(on_day[min(len(on_day) - 1, int(placement.pick * len(on_day)))])
    return None


def _inject_cards(rounds: dict, placements: list[_Placement], injected: list) -> None:
    """The anomalies that change the cards or the shoe's record: misdeal, stacked, late-cut, bad-burn."""
    cards = rounds["cards"]
    shoe_rounds = np.bincount(rounds["shoe_index"])[rounds["shoe_index"]]
    for placement in placements:
        kind = placement.kind
        if kind == "misdeal":
            middle = (rounds["round"] > 5) & (rounds["round"] <= shoe_rounds - 5)
            resolved = resolve_rounds(cards)
            stood = middle & ~resolved.player_should_draw & (cards[:, 4] < 0) & (resolved.misdeal == 0)
            fields = decode(resolved.code)  # the Player stood on 6 or 7 and so did the Banker: no natural
            stood &= np.isin(fields["player_score"], (6, 7)) & np.isin(fields["banker_score"], (6, 7))
            i = _first_day_with(placement, rounds["day_index"], np.flatnonzero(stood & (cards[:, 5] < 0)))
            if i is not None:
                cards[i, 4] = int(placement.pick * 2**20) % 52
                injected.append({"kind": "misdeal", **_where(rounds, i), "what": ANOMALIES["misdeal"]})
        elif kind == "stacked":
            starts = np.flatnonzero((rounds["round"] == 1) & (shoe_rounds >= _SLUG[1]))
            first = _first_day_with(placement, rounds["day_index"], starts)
            if first is not None:
                slug = np.arange(first + _SLUG[0], first + _SLUG[1])
                # The same four cards again and again: a Player natural 9 (9s 10s) against a Banker 2 (2h Kh).
                cards[slug, :4] = [card for _, card in parse_cards("9s,2h,10s,Kh")]
                cards[slug, 4:] = -1
                injected.append({"kind": "stacked", **_where(rounds, first), "round": None,
                                 "what": ANOMALIES["stacked"]})
        else:
            column, change = {"late-cut": ("cut", 40), "bad-burn": ("burned", 2)}[kind]
            starts = np.flatnonzero((rounds["round"] == 1) & (rounds["burned"] >= 0))
            i = _first_day_with(placement, rounds["day_index"], starts)
            if i is not None:
                rounds[column][i] += change
                injected.append({"kind": kind, **_where(rounds, i), "round": None, "what": ANOMALIES[kind]})


def _bets(seed: int, t: int, rounds: dict, rules: Rules, bet_names: list[str], players_placed: list[_Placement],
          injected: list) -> dict:
    """Every seat's bets, vectorised over the rounds: bets and players as integer codes until the end."""
    n = len(rounds["round"])
    resolved = resolve_rounds(rounds["cards"])
    start = rounds["round"] == 1
    shoe_key = rounds["shoe_key"]
    round_key = shoe_key * _ROUNDS_PER_SHOE_KEY + rounds["round"]
    code_of = {bet: k for k, bet in enumerate(bet_names)}
    rows = []  # (round index, seat, player code (-1: not known to the table), bet code, stake)
    minimum = np.full(n, float(TABLE_MINIMUMS[t % len(TABLE_MINIMUMS)]))
    sides = _side_bets(rules)
    weights = np.cumsum(STAKE_WEIGHTS) / np.sum(STAKE_WEIGHTS)
    for seat in range(SEATS):
        taken = _uniform(seed, "seated", shoe_key, seat) < SEATED
        u = _uniform(seed, "main", round_key, seat)
        main = np.where(u < BANKER, 0, np.where(u < BANKER + PLAYER, 1, 2))
        multiple = np.asarray(STAKE_MULTIPLES)[np.minimum(np.searchsorted(
            weights, _uniform(seed, "stake", round_key, seat), side="right"), len(STAKE_MULTIPLES) - 1)]
        stakes = minimum * multiple
        for code, bet_id in ((0, "banker"), (1, "player")):
            at = np.flatnonzero(taken & (main == code))
            rows.append((at, seat + 1, -1, code_of[bet_id], stakes[at]))
        tie = np.flatnonzero(taken & (main < 2) & (_uniform(seed, "tie", round_key, seat) < TIE))
        rows.append((tie, seat + 1, -1, code_of["tie"], minimum[tie]))
        if sides:
            side = np.flatnonzero(taken & (main < 2) & (_uniform(seed, "side", round_key, seat) < SIDE))
            choice = np.minimum((_uniform(seed, "side_pick", round_key[side], seat) * len(sides)).astype(np.int64),
                                len(sides) - 1)
            for k, bet_id in enumerate(sides):
                limit = rules.bet(bet_id).max_round or 10**9
                at = side[(choice == k) & (rounds["round"][side] <= limit)]
                rows.append((at, seat + 1, -1, code_of[bet_id], minimum[at]))
    players = _advantage_players(rounds, rules, players_placed, injected, start, rows, minimum, code_of)
    columns = {
        "index": np.concatenate([r[0] for r in rows]),
        "seat": np.concatenate([np.full(len(r[0]), r[1]) for r in rows]),
        "player_code": np.concatenate([np.full(len(r[0]), r[2]) for r in rows]),
        "bet_code": np.concatenate([np.full(len(r[0]), r[3]) for r in rows]),
        "stake": np.concatenate([np.asarray(r[4], float) for r in rows]),
    }
    _drop_repeats(columns)
    net = np.zeros(len(columns["index"]))
    codes = resolved.code[columns["index"]]
    for bet_id in rules.bet_ids:
        chosen = np.flatnonzero(columns["bet_code"] == code_of[bet_id])
        if chosen.size:
            net[chosen] = expected_nets(rules, bet_id, codes[chosen], columns["stake"][chosen])[1]
    columns["net"] = np.round(net, 6)
    columns["bet"] = np.array(bet_names, dtype=object)[columns.pop("bet_code")]
    columns["player"] = np.array([*players, ""], dtype=object)[columns.pop("player_code")]
    return columns


def _drop_repeats(columns: dict) -> None:
    """One bet of a kind per seat and round; a seat an advantage player takes for a round is that player's alone."""
    seat_key = columns["index"] * 1000 + columns["seat"]
    taken = np.isin(seat_key, seat_key[columns["player_code"] >= 0]) & (columns["player_code"] < 0)
    for name in columns:
        columns[name] = columns[name][~taken]
    key = (columns["index"] * 1000 + columns["seat"]) * 100 + columns["bet_code"]
    order = np.argsort(key, kind="stable")  # the advantage players' rows come first and are kept
    key = key[order]
    keep = order[np.r_[True, key[1:] != key[:-1]]]
    for name in columns:
        columns[name] = columns[name][keep]


def _advantage_players(rounds, rules, placements, injected, start, rows, minimum, code_of) -> list[str]:
    """A counter and a team at their tables for their days (those of this chunk).

    Their rows go first (they keep their seats); returns their player ids, by player code.
    """
    players: list[str] = []
    for placement in placements:
        kind = placement.kind
        seats = (7,) if kind == "counter" else (1, 2, 3)
        days = rounds["day_index"]
        here = np.flatnonzero((days >= placement.day) & (days < placement.day + placement.span))
        if not len(here):
            continue
        bet_id = _counted_bet(rules)
        count = best_count(rules, bet_id)
        _, true = counts_before_rounds(rounds["cards"][here], start[here], count.tags, rules.shoe.decks * 52,
                                       rounds["turned"][here])
        hot = here[true >= count.break_even_true_count]
        ids = [f"{kind.upper()}-{s}" for s in seats]
        for seat, player in zip(seats, ids):
            players.append(player)
            rows.insert(0, (here, seat, len(players) - 1, code_of["banker"], minimum[here]))
            rows.insert(0, (hot, seat, len(players) - 1, code_of[bet_id], minimum[hot] * COUNTER_MAX / len(seats)))
        if not placement.done:  # the first chunk of its days records it
            placement.done = True
            first_day = np.datetime64(str(rounds["day"][here[0]])) - np.timedelta64(
                int(days[here[0]]) - placement.day, "D")
            injected.append({"kind": kind, "table": str(rounds["table"][here[0]]), "day": str(first_day),
                             "days": placement.span, "seats": list(seats), "players": ids, "bet": bet_id,
                             "what": ANOMALIES[kind]})
    return players


def _inject_payouts(rounds, rules, columns, placements, injected) -> None:
    rid = columns["index"]
    for placement in placements:
        if placement.kind == "payout":
            j = _first_day_with(placement, rounds["day_index"][rid], np.flatnonzero(columns["net"] > 0))
            if j is not None:
                columns["net"][j] = columns["net"][j] * 2
                injected.append({"kind": "payout", **_where(rounds, rid[j]), "seat": int(columns["seat"][j]),
                                 "bet": str(columns["bet"][j]), "what": ANOMALIES["payout"]})
            continue
        commission_bets = [bet.id for bet in rules.bets if any(case.commission for case in bet.cases)]
        won = np.isin(columns["bet"], commission_bets) & (columns["net"] > 0)
        j = _first_day_with(placement, rounds["day_index"][rid], np.flatnonzero(won))
        if j is not None:
            day = rounds["day_index"][rid[j]]
            chosen = won & (rounds["day_index"][rid] == day)
            columns["net"][chosen] = columns["stake"][chosen]
            injected.append({"kind": "commission", "table": str(rounds["table"][rid[j]]),
                             "day": str(rounds["day"][rid[j]]), "rounds": int(chosen.sum()),
                             "what": ANOMALIES["commission"]})


def _results(rounds: dict, bets: dict, churn: float) -> dict:
    """Each gaming day of the chunk's table: handle (the stakes), win (the house's result), drop (handle / churn)."""
    index = bets["index"]
    key = rounds["day_index"][index]
    pairs, first, where = np.unique(key, return_index=True, return_inverse=True)
    handle = np.bincount(where, weights=bets["stake"])
    win = -np.bincount(where, weights=bets["net"])
    at = index[first]
    return {"table": rounds["table"][at], "day": rounds["day"][at], "drop": np.round(handle / churn, 2),
            "win": np.round(win, 2), "handle": np.round(handle, 2)}
