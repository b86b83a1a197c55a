"""A synthetic month of play: round logs, bet logs and table results from the dealing kernels, anomalies on request.

``N`` tables deal ``D`` gaming days each, whole shoes of their rule set dealt by the Monte Carlo engine's dealing
procedure (:mod:`baccarat_sim.kernels.audit_deal`, seeded: the same seed gives the same month). Seats are taken
at random per shoe; a seated player bets Banker or Player most rounds, the Tie now and then, a side bet now and
then, stakes from the table's minimum up. Every net result is the pay table's (:mod:`.audit_settle`). Table
results are each table's gaming day: handle the stakes, win the house's result, drop the handle over the table's
chip churn (how many times a chip is bet before it is lost or cashed).

Anomalies (:data:`ANOMALIES`) are injected into the logs, each recorded where it was put, so that the audit's
findings can be checked against them.
"""

from __future__ import annotations

import dataclasses
import datetime

import numpy as np

from ..engines.audit_deal import ShoeLogs, deal_shoes
from ..model.cards import N_SUITS, card_name, parse_cards
from ..model.codes import decode
from ..model.rules import Rules
from .audit_counts import best_count, counts_before_rounds
from .audit_rounds import resolve_rounds
from .audit_settle import expected_nets, settles_on_codes

__all__ = ["ANOMALIES", "SimulatedMonth", "simulate_month"]

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


def _expected_rounds_per_shoe(rules: Rules) -> float:
    n_cards = rules.shoe.decks * 52
    return max(1.0, (n_cards - rules.shoe.cut_card.mean - rules.shoe.cards_before_first_round()[1]) / 4.94)


def simulate_month(rules_list: list[Rules], tables: int, days: int, rounds_per_day: int, seed: int,
                   anomalies=(), start: datetime.date = datetime.date(2026, 1, 1), churn: float = 2.2
                   ) -> SimulatedMonth:
    """Simulate ``tables`` tables over ``days`` gaming days.

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
    rng = np.random.default_rng([seed, 40])
    parts, shoe_base = [], 0
    for t in range(tables):
        rules = rules_list[t % len(rules_list)]
        per_day = max(1, round(rounds_per_day / _expected_rounds_per_shoe(rules)))
        n_shoes = per_day * days
        logs = deal_shoes(rules, seed, shoe_base, n_shoes)
        shoe_base += n_shoes
        parts.append(_table_rounds(t, rules, logs, per_day, start))
    rounds = {key: np.concatenate([p[key] for p in parts]) for key in parts[0]}
    rounds["rule_index"] = rounds["table_index"] % len(rules_list)
    rule_of = {r.id: r for r in rules_list}
    injected: list[dict] = []
    cards = rounds["cards"]
    _inject_cards(rng, rounds, rule_of, set(anomalies), injected)
    bets = _bets(rng, rounds, rule_of, set(anomalies), injected)
    results = _results(rounds, bets, churn)
    i = bets.pop("index")
    bets = {"table": rounds["table"][i], "shoe": rounds["shoe"][i], "round": rounds["round"][i], **bets}
    internal = ("cards", "table_index", "shoe_index", "rule_index")
    spelled = {key: value for key, value in rounds.items() if key not in internal}
    names = np.array([card_name(c) for c in range(13 * N_SUITS)] + [""], dtype=object)
    for k, column in enumerate(("p1", "b1", "p2", "b2", "p3", "b3")):
        spelled[column] = names[np.where(cards[:, k] >= 0, cards[:, k], 13 * N_SUITS)]
    spelled["turned"] = names[np.where(rounds["turned"] >= 0, rounds["turned"], 13 * N_SUITS)]
    return SimulatedMonth(spelled, bets, results, injected)


def _table_rounds(t: int, rules: Rules, logs: ShoeLogs, per_day: int, start) -> dict:
    n_shoes, most = logs.cards.shape[:2]
    dealt = np.arange(most)[None, :] < logs.rounds[:, None]
    shoe_of = np.broadcast_to(np.arange(n_shoes)[:, None], dealt.shape)[dealt]
    round_no = np.broadcast_to(np.arange(1, most + 1)[None, :], dealt.shape)[dealt]
    first = round_no == 1
    day = np.array([np.datetime64(start) + np.timedelta64(d, "D") for d in range(n_shoes // per_day)])
    n = int(dealt.sum())
    return {
        "table": np.full(n, f"T{t + 1:02d}", dtype=object),
        "table_index": np.full(n, t),
        "shoe": np.char.mod("%d", shoe_of + 1).astype(object),
        "shoe_index": shoe_of,
        "round": round_no,
        "day": day[shoe_of // per_day],
        "rule_set": np.full(n, rules.id, dtype=object),
        "cards": logs.cards[dealt].astype(np.int64),
        # A card is turned (and seen) only where the burn is set by one.
        "turned": np.where(first & (rules.shoe.burn == "face_value"), logs.turned[shoe_of], -1),
        "burned": np.where(first, logs.burned[shoe_of], -1),
        "cut": np.where(first, logs.cut[shoe_of], -1),
    }


def _pick_round(rng, mask: np.ndarray) -> int:
    candidates = np.flatnonzero(mask)
    return int(rng.choice(candidates))


def _where(rounds: dict, i: int) -> dict:
    return {"table": str(rounds["table"][i]), "shoe": str(rounds["shoe"][i]), "round": int(rounds["round"][i]),
            "day": str(rounds["day"][i])}


def _inject_cards(rng, rounds: dict, rule_of: dict, wanted: set, injected: list) -> None:
    """The anomalies that change the cards or the shoe's record: misdeal, stacked, late-cut, bad-burn."""
    cards = rounds["cards"]
    middle = (rounds["round"] > 5) & np.roll(rounds["round"] > 5, -5)
    if "misdeal" in wanted:
        resolved = resolve_rounds(cards)
        stood = middle & ~resolved.player_should_draw & (cards[:, 4] < 0) & (resolved.misdeal == 0)
        fields = decode(resolved.code)  # the Player stood on 6 or 7 and so did the Banker: no natural
        stood &= np.isin(fields["player_score"], (6, 7)) & np.isin(fields["banker_score"], (6, 7)) & (cards[:, 5] < 0)
        i = _pick_round(rng, stood)
        cards[i, 4] = int(rng.integers(0, 52))
        injected.append({"kind": "misdeal", **_where(rounds, i), "what": ANOMALIES["misdeal"]})
    if "stacked" in wanted:
        starts = np.flatnonzero(rounds["round"] == 1)
        k = int(rng.integers(0, len(starts)))
        first = starts[k]
        slug = np.arange(first + 10, first + 26)
        # The same four cards again and again: a Player natural 9 (9s 10s) against a Banker 2 (2h Kh).
        cards[slug, :4] = [card for _, card in parse_cards("9s,2h,10s,Kh")]
        cards[slug, 4:] = -1
        injected.append({"kind": "stacked", **_where(rounds, first), "round": None, "what": ANOMALIES["stacked"]})
    for kind, column, change in (("late-cut", "cut", 40), ("bad-burn", "burned", 2)):
        if kind in wanted:
            starts = np.flatnonzero((rounds["round"] == 1) & (rounds["burned"] >= 0))
            i = int(rng.choice(starts))
            rounds[column][i] += change
            injected.append({"kind": kind, **_where(rounds, i), "round": None, "what": ANOMALIES[kind]})


def _side_bets(rules: Rules) -> list[str]:
    return [b.id for b in rules.bets if b.group != "main" and settles_on_codes(rules, b.id) and b.jackpot is None]


def _counted_bet(rules: Rules) -> str | None:
    sides = _side_bets(rules)
    if "dragon_7" in sides:
        return "dragon_7"
    return next((b for b in sides if best_count(rules, b) is not None), None)


def _bets(rng, rounds: dict, rule_of: dict, wanted: set, injected: list) -> dict:
    """Every seat's bets, vectorised over the rounds: bets and players as integer codes until the end."""
    n = len(rounds["round"])
    resolved = resolve_rounds(rounds["cards"])
    shoe_key = rounds["table_index"] * 10**7 + rounds["shoe_index"]
    start = np.r_[True, shoe_key[1:] != shoe_key[:-1]]
    shoe_no = np.cumsum(start) - 1
    seated = rng.random((int(shoe_no[-1]) + 1, SEATS)) < SEATED
    rule_list = list(rule_of.values())
    bet_names = sorted({bet for rules in rule_list for bet in rules.bet_ids})
    code_of = {bet: k for k, bet in enumerate(bet_names)}
    rule_index = rounds["rule_index"]
    rows = []  # (round index, seat, player code (-1: not known to the table), bet code, stake)
    minimum = np.array(TABLE_MINIMUMS)[rounds["table_index"] % len(TABLE_MINIMUMS)].astype(float)
    for seat in range(SEATS):
        taken = seated[shoe_no, seat]
        u = rng.random(n)
        main = np.where(u < BANKER, 0, np.where(u < BANKER + PLAYER, 1, 2))
        stakes = minimum * rng.choice(STAKE_MULTIPLES, size=n, p=STAKE_WEIGHTS)
        for code, bet_id in ((0, "banker"), (1, "player")):
            at = np.flatnonzero(taken & (main == code))
            rows.append((at, seat + 1, -1, code_of[bet_id], stakes[at]))
        tie = np.flatnonzero(taken & (main < 2) & (rng.random(n) < TIE))
        rows.append((tie, seat + 1, -1, code_of["tie"], minimum[tie]))
        side = np.flatnonzero(taken & (main < 2) & (rng.random(n) < SIDE))
        pick = rng.random(len(side))
        for r, rules in enumerate(rule_list):
            sides = _side_bets(rules)
            if not sides:
                continue
            choice = np.minimum((pick * len(sides)).astype(np.int64), len(sides) - 1)
            mine = rule_index[side] == r
            for k, bet_id in enumerate(sides):
                limit = rules.bet(bet_id).max_round or 10**9
                at = side[mine & (choice == k) & (rounds["round"][side] <= limit)]
                rows.append((at, seat + 1, -1, code_of[bet_id], minimum[at]))
    players = _advantage_players(rng, rounds, rule_of, wanted, injected, start, rows, minimum, code_of)
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
    rule_of_bet = rule_index[columns["index"]]
    for r, rules in enumerate(rule_list):
        for bet_id in rules.bet_ids:
            chosen = np.flatnonzero((rule_of_bet == r) & (columns["bet_code"] == code_of[bet_id]))
            if chosen.size:
                net[chosen] = expected_nets(rules, bet_id, codes[chosen], columns["stake"][chosen])[1]
    columns["net"] = np.round(net, 6)
    columns["bet"] = np.array(bet_names, dtype=object)[columns.pop("bet_code")]
    columns["player"] = np.array([*players, ""], dtype=object)[columns.pop("player_code")]
    _inject_payouts(rng, rounds, rule_of, wanted, injected, columns)
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


def _advantage_players(rng, rounds, rule_of, wanted, injected, start, rows, minimum, code_of) -> list[str]:
    """A counter and a team, each on a table whose rule set has a countable side bet, for a few days.

    Their rows go first (they keep their seats); returns their player ids, by player code.
    """
    players: list[str] = []
    if not wanted & {"counter", "team"}:
        return players
    candidates = [t for t in np.unique(rounds["table_index"])
                  if _counted_bet(rule_of[rounds["rule_set"][np.flatnonzero(rounds["table_index"] == t)[0]]])]
    def rules_at(t):
        return rule_of[rounds["rule_set"][np.flatnonzero(rounds["table_index"] == t)[0]]]

    candidates.sort(key=lambda t: _counted_bet(rules_at(t)) != "dragon_7")  # a Dragon 7 table first
    if not candidates:
        raise ValueError("a counter or a team needs a table whose rule set has a countable side bet")
    days = np.unique(rounds["day"])
    span = max(1, min(5, len(days) // 2))
    for k, (kind, seats) in enumerate((("counter", (7,)), ("team", (1, 2, 3)))):
        if kind not in wanted:
            continue
        table = candidates[k % len(candidates)]
        at_table = rounds["table_index"] == table
        rules = rule_of[rounds["rule_set"][np.flatnonzero(at_table)[0]]]
        bet_id = _counted_bet(rules)
        count = best_count(rules, bet_id)
        first_day = days[int(rng.integers(0, len(days) - span + 1))]
        here = np.flatnonzero(at_table & (rounds["day"] >= first_day) & (rounds["day"] < first_day + span))
        _, true = counts_before_rounds(rounds["cards"][here], start[here], count.tags, rules.shoe.decks * 52,
                                       rounds["turned"][here])
        hot = here[true >= count.break_even_true_count]
        ids = [f"{kind.upper()}-{s}" for s in seats]
        for seat, player in zip(seats, ids):
            players.append(player)
            rows.insert(0, (here, seat, len(players) - 1, code_of["banker"], minimum[here]))
            rows.insert(0, (hot, seat, len(players) - 1, code_of[bet_id], minimum[hot] * COUNTER_MAX / len(seats)))
        injected.append({"kind": kind, "table": str(rounds["table"][here[0]]), "day": str(first_day), "days": span,
                         "seats": list(seats), "players": ids, "bet": bet_id, "what": ANOMALIES[kind]})
    return players


def _inject_payouts(rng, rounds, rule_of, wanted, injected, columns) -> None:
    rid = columns["index"]
    if "payout" in wanted:
        won = np.flatnonzero(columns["net"] > 0)
        j = int(rng.choice(won))
        columns["net"][j] = columns["net"][j] * 2
        injected.append({"kind": "payout", **_where(rounds, rid[j]), "seat": int(columns["seat"][j]),
                         "bet": str(columns["bet"][j]), "what": ANOMALIES["payout"]})
    if "commission" in wanted:
        commission_bets = {(rules.id, bet.id) for rules in rule_of.values() for bet in rules.bets
                           if rules.commission.rate > 0 and any(case.commission for case in bet.cases)}
        eligible = np.zeros(len(rid), bool)
        for rules_id, bet_id in commission_bets:
            eligible |= (rounds["rule_set"][rid] == rules_id) & (columns["bet"] == bet_id)
        won = eligible & (columns["net"] > 0)
        if not won.any():
            raise ValueError("a short-paid commission needs a table whose rule set takes commission")
        j = int(rng.choice(np.flatnonzero(won)))
        table, day = rounds["table"][rid[j]], rounds["day"][rid[j]]
        chosen = won & (rounds["table"][rid] == table) & (rounds["day"][rid] == day)
        columns["net"][chosen] = columns["stake"][chosen]
        injected.append({"kind": "commission", "table": str(table), "day": str(day),
                         "rounds": int(chosen.sum()), "what": ANOMALIES["commission"]})


def _results(rounds: dict, bets: dict, churn: float) -> dict:
    """Each table's gaming days: handle (the stakes), win (the house's result), drop (handle over churn)."""
    index = bets["index"]
    day_no = (rounds["day"] - rounds["day"].min()).astype(np.int64)
    key = rounds["table_index"][index] * 100_000 + day_no[index]
    pairs, first, where = np.unique(key, return_index=True, return_inverse=True)
    handle = np.bincount(where, weights=bets["stake"])
    win = -np.bincount(where, weights=bets["net"])
    at = index[first]
    return {"table": rounds["table"][at], "day": rounds["day"][at], "drop": np.round(handle / churn, 2),
            "win": np.round(win, 2), "handle": np.round(handle, 2)}
