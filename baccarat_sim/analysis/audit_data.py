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

    ``rounds`` columns: ``rid round day turned burned cut``, ``cards`` (n, 6), -1 for no card, and the text
    columns as codes into their distinct values: ``table_code``/``table_names``, ``shoe_code``/``shoe_names``,
    ``rule_code``/``rule_names`` (:meth:`table`, :meth:`shoe`, :meth:`rule_set` of a row; :meth:`of_rule`);
    ``shoe_start`` marks each shoe's first row. ``bets``: ``row`` (the round's row in ``rounds``), ``seat
    stake net``, ``bet_code`` and ``player_code`` (indexes into ``bet_names`` and ``player_names``; a player
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

    def table(self, row) -> str:
        """The table of a round (by its row)."""
        return str(self.rounds["table_names"][self.rounds["table_code"][row]])

    def shoe(self, row) -> str:
        """The shoe of a round."""
        return str(self.rounds["shoe_names"][self.rounds["shoe_code"][row]])

    def rule_set(self, row) -> str:
        """The rule set of a round."""
        return str(self.rounds["rule_names"][self.rounds["rule_code"][row]])

    def of_rule(self, rule_id: str) -> np.ndarray:
        """Which rounds are of rule set ``rule_id`` (a bool per round)."""
        names = list(self.rounds["rule_names"])
        return self.rounds["rule_code"] == (names.index(rule_id) if rule_id in names else -1)

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


def _integers(column, fill: int, dtype=np.int64) -> np.ndarray:
    """An Arrow integer column as ``dtype``, nulls as ``fill``."""
    import pyarrow.compute as pc

    return np.asarray(pc.fill_null(column, fill).to_numpy(), dtype)


def _encoded(column) -> tuple[np.ndarray, np.ndarray]:
    """An Arrow text column as (codes, distinct values as fixed-width text)."""
    import pyarrow.compute as pc

    encoded = pc.dictionary_encode(column.combine_chunks())
    names = encoded.dictionary.to_pylist()
    return np.asarray(encoded.indices.to_numpy(), np.int64), np.array(names if names else [], dtype=str)


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
    # Read through Arrow: a text column is dictionary-encoded there (codes into its distinct values), and numpy
    # gets the codes and fixed-width text, never a Python object per row.
    reader = connection.cursor()  # a fresh cursor: no earlier result of the connection is left unfinished
    raw = reader.sql(
        f"SELECT rid, table_id, shoe, rule_set, round, day, {', '.join(CARD_COLUMNS)}, turned, burned, cut "
        f"FROM rounds{clause} ORDER BY table_id, shoe, round", params=params).to_arrow_table()
    n = raw.num_rows
    # Small integer types: a year of rounds and bets must fit in memory beside the analyses' temporaries.
    rounds = {key: _integers(raw.column(key), -1, dtype) for key, dtype in (
        ("rid", np.int64), ("round", np.int32), ("turned", np.int8), ("burned", np.int16), ("cut", np.int16))}
    for column, key in (("table_id", "table"), ("shoe", "shoe"), ("rule_set", "rule")):
        rounds[f"{key}_code"], rounds[f"{key}_names"] = _encoded(raw.column(column))
    rounds["day"] = raw.column("day").to_numpy().astype("datetime64[D]")
    rounds["cards"] = np.stack([_integers(raw.column(c), -1, np.int8) for c in CARD_COLUMNS], axis=1) if n else \
        np.zeros((0, 6), np.int8)
    del raw
    shoe_start = np.ones(n, bool)
    if n:
        shoe_start[1:] = ((rounds["table_code"][1:] != rounds["table_code"][:-1])
                          | (rounds["shoe_code"][1:] != rounds["shoe_code"][:-1]))
    resolved = resolve_rounds(rounds["cards"])
    # Bets and players as codes: bet_code indexes bet_names; player_code indexes player_names, a player being the
    # logged id or else the table and seat.
    player = "coalesce(nullif(b.player, ''), r.table_id || ' seat ' || b.seat)"
    source = f"FROM bets b JOIN rounds r ON r.rid = b.rid{clause.replace('day', 'r.day')}"
    bets = {"bet_names": np.zeros(0, str), "player_names": np.zeros(0, object)}
    if n:
        bet_raw = reader.sql(f"SELECT b.rid, b.seat, b.stake, b.net, b.bet, {player} AS player {source}",
                                 params=params).to_arrow_table()
        bets["seat"] = _integers(bet_raw.column("seat"), 0, np.int16)
        rids = _integers(bet_raw.column("rid"), 0)
        bets.update({key: bet_raw.column(key).to_numpy() for key in ("stake", "net")})
        bets["bet_code"], bets["bet_names"] = _encoded(bet_raw.column("bet"))
        bets["player_code"], names = _encoded(bet_raw.column("player"))
        bets["player_names"] = names.astype(object)
        position_of_rid = np.full(int(rounds["rid"].max()) + 1, -1, np.int64)
        position_of_rid[rounds["rid"]] = np.arange(n)
        bets["row"] = position_of_rid[rids]
        del rids, position_of_rid, bet_raw
    else:
        bets.update({key: np.zeros(0, np.int64) for key in ("seat", "bet_code", "player_code", "row")})
        bets.update({key: np.zeros(0) for key in ("stake", "net")})
    results_raw = connection.execute(
        f"SELECT table_id, day, shift, drop_amount, win, coalesce(handle, 'nan'::DOUBLE) AS handle FROM results"
        f"{clause} ORDER BY day, table_id, shift", params).fetchnumpy()
    results = {"table": np.asarray(results_raw["table_id"]), "day": np.asarray(results_raw["day"]).astype(
        "datetime64[D]"), "shift": np.asarray(results_raw["shift"]), "drop": np.asarray(results_raw["drop_amount"],
                                                                                          float),
               "win": np.asarray(results_raw["win"], float), "handle": np.asarray(results_raw["handle"], float)}
    named = {str(r) for r in rounds["rule_names"]} if n else set()
    return AuditData(rounds, resolved, shoe_start, bets, results, {r: rules_of[r] for r in sorted(named)})
