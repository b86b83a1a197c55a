"""The audit's data, read from its database into arrays: rounds by table, shoe and round; bets by round.

One query per table of the database (:mod:`baccarat_sim.audit_store.database`); everything after is numpy.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from ..model.rules import Rules
from .audit_rounds import CARD_COLUMNS, ResolvedRounds, resolve_rounds

__all__ = ["AuditData", "read_audit_data", "unique_inverse"]


def unique_inverse(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The sorted distinct integer keys and where each key is among them (``np.unique(..., return_inverse=True)``).

    By one sort: numpy's hash-based unique took seconds on a few million int64 keys.

    >>> unique_inverse(np.array([5, 3, 5, 9]))
    (array([3, 5, 9]), array([1, 0, 1, 2]))
    """
    keys = np.asarray(keys)
    order = np.argsort(keys, kind="stable")
    ordered = keys[order]
    new = np.r_[True, ordered[1:] != ordered[:-1]] if len(keys) else np.zeros(0, bool)
    inverse = np.empty(len(keys), np.int64)
    inverse[order] = np.cumsum(new) - 1
    return ordered[new], inverse


@dataclasses.dataclass(frozen=True, eq=False)
class AuditData:
    """Rounds (sorted by table, shoe, round), their resolution, bets and table results.

    ``rounds`` columns: ``rid table shoe round day rule_set turned burned cut`` and ``cards`` (n, 6), -1 for no
    card; ``shoe_start`` marks each shoe's first row. ``bets``: ``row`` (the round's row in ``rounds``), ``seat
    bet stake net``, ``bet_code`` and ``player_code`` (indexes into ``bet_names`` and ``player_names``; a player
    is the logged id, else the table and seat). ``results``: ``table day shift drop win handle`` (handle nan
    where not known).
    ``rules``: every rule set the rounds name, by id.
    """

    rounds: dict
    resolved: ResolvedRounds
    shoe_start: np.ndarray
    bets: dict
    results: dict
    rules: dict

    @property
    def n_rounds(self) -> int:
        """Rounds stored."""
        return len(self.rounds["rid"])

    def bets_on(self, rule_id: str, bet_id: str) -> np.ndarray:
        """The indexes of the bets on ``bet_id`` in rounds of rule set ``rule_id``, in the bets' order."""
        if "_by_bet" not in self.bets:
            rule_names, bet_names = list(self.rounds["rule_names"]), list(self.bets["bet_names"])
            key = self.rounds["rule_code"][self.bets["row"]] * max(1, len(bet_names)) + self.bets["bet_code"]
            order = np.argsort(key, kind="stable")
            starts = np.searchsorted(key[order], np.arange(len(rule_names) * max(1, len(bet_names)) + 1))
            self.bets["_by_bet"] = {(r, b): order[starts[i * len(bet_names) + j]:starts[i * len(bet_names) + j + 1]]
                                    for i, r in enumerate(rule_names) for j, b in enumerate(bet_names)}
        return self.bets["_by_bet"].get((rule_id, bet_id), np.zeros(0, np.int64))


def _fetch(connection, sql: str) -> dict:
    return {key: np.asarray(value) for key, value in connection.execute(sql).fetchnumpy().items()}


def _filled(values, fill) -> np.ndarray:
    if isinstance(values, np.ma.MaskedArray):
        return values.filled(fill)
    return np.asarray(values)


def read_audit_data(connection, rules_of: dict[str, Rules], since=None, until=None) -> AuditData:
    """Read the database (days ``since`` to ``until`` inclusive, None: all) into :class:`AuditData`."""
    where, params = [], []
    if since is not None:
        where.append("day >= ?")
        params.append(since)
    if until is not None:
        where.append("day <= ?")
        params.append(until)
    clause = (" WHERE " + " AND ".join(where)) if where else ""
    # Text columns come as codes into their distinct values, turned into fixed-width text by numpy (no Python
    # object per row): comparing millions of them is then one C loop.
    text = ("table_id", "shoe", "rule_set")
    raw = connection.execute(
        f"SELECT rid, {', '.join(f'dense_rank() OVER (ORDER BY {c}) - 1 AS {c}' for c in text)}, round, day, "
        f"{', '.join(CARD_COLUMNS)}, turned, burned, cut FROM rounds{clause} ORDER BY table_id, shoe, round",
        params).fetchnumpy()
    rounds = {key: _filled(raw[key], -1) for key in ("rid", "round", "turned", "burned", "cut")}
    for column in text:
        names = [r[0] for r in connection.execute(f"SELECT DISTINCT {column} FROM rounds{clause} ORDER BY 1",
                                                  params).fetchall()]
        rounds[column] = np.array(names, dtype=str)[np.asarray(raw[column], np.int64)] if names else \
            np.zeros(0, str)
        if column == "rule_set":
            rounds["rule_code"], rounds["rule_names"] = np.asarray(raw[column], np.int64), np.array(names, str)
    rounds["table"] = rounds.pop("table_id")
    rounds["day"] = np.asarray(raw["day"]).astype("datetime64[D]")
    rounds["cards"] = np.stack([_filled(raw[c], -1).astype(np.int64) for c in CARD_COLUMNS], axis=1) if len(
        rounds["rid"]) else np.zeros((0, 6), np.int64)
    n = len(rounds["rid"])
    shoe_start = np.ones(n, bool)
    if n:
        shoe_start[1:] = (rounds["table"][1:] != rounds["table"][:-1]) | (rounds["shoe"][1:] != rounds["shoe"][:-1])
    resolved = resolve_rounds(rounds["cards"])
    # Bets and players come as integer codes (sorting millions of strings in numpy took most of an audit's time):
    # bet_code indexes bet_names; player_code indexes player_names, a player being the logged id or else the
    # table and seat.
    player = "coalesce(nullif(b.player, ''), r.table_id || ' seat ' || b.seat)"
    source = f"FROM bets b JOIN rounds r ON r.rid = b.rid{clause.replace('day', 'r.day')}"
    bet_raw = connection.execute(
        f"SELECT b.rid, b.seat, b.stake, b.net, dense_rank() OVER (ORDER BY b.bet) - 1 AS bet_code, "
        f"dense_rank() OVER (ORDER BY {player}) - 1 AS player_code {source}", params).fetchnumpy() if n else {}
    bets = {key: np.asarray(bet_raw.get(key, [])) for key in ("rid", "seat", "stake", "net", "bet_code",
                                                                "player_code")}
    names = [row[0] for row in connection.execute(f"SELECT DISTINCT b.bet {source} ORDER BY 1", params).fetchall()] \
        if n else []
    players = [row[0] for row in connection.execute(f"SELECT DISTINCT {player} {source} ORDER BY 1",
                                                    params).fetchall()] if n else []
    bets["bet_names"] = np.array(names, dtype=str)
    bets["player_names"] = np.array(players, dtype=object)
    bets["bet"] = bets["bet_names"][bets["bet_code"]] if len(bets["bet_code"]) else np.zeros(0, str)
    if n:
        position = np.argsort(rounds["rid"])
        bets["row"] = position[np.searchsorted(rounds["rid"][position], bets["rid"])]
    else:
        bets["row"] = np.zeros(0, np.int64)
    results_raw = connection.execute(
        f"SELECT table_id, day, shift, drop_amount, win, coalesce(handle, 'nan'::DOUBLE) AS handle FROM results"
        f"{clause} ORDER BY day, table_id, shift", params).fetchnumpy()
    results = {"table": np.asarray(results_raw["table_id"]), "day": np.asarray(results_raw["day"]).astype(
        "datetime64[D]"), "shift": np.asarray(results_raw["shift"]), "drop": np.asarray(results_raw["drop_amount"],
                                                                                          float),
               "win": np.asarray(results_raw["win"], float), "handle": np.asarray(results_raw["handle"], float)}
    named = {str(r) for r in np.unique(rounds["rule_set"])} if n else set()
    return AuditData(rounds, resolved, shoe_start, bets, results, {r: rules_of[r] for r in named})
