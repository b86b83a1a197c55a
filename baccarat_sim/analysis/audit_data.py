"""The audit's data, read from its database into arrays: rounds by table, shoe and round; bets by round.

One query per table of the database (:mod:`baccarat_sim.audit_store.database`); everything after is numpy.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from ..model.rules import Rules
from .audit_rounds import CARD_COLUMNS, ResolvedRounds, resolve_rounds

__all__ = ["AuditData", "read_audit_data"]


@dataclasses.dataclass(frozen=True, eq=False)
class AuditData:
    """Rounds (sorted by table, shoe, round), their resolution, bets and table results.

    ``rounds`` columns: ``rid table shoe round day rule_set turned burned cut`` and ``cards`` (n, 6), -1 for no
    card; ``shoe_start`` marks each shoe's first row. ``bets``: ``row`` (the round's row in ``rounds``), ``seat
    player bet stake net``. ``results``: ``table day shift drop win handle`` (handle nan where not known).
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
    raw = connection.execute(
        f"SELECT rid, table_id, shoe, round, day, rule_set, {', '.join(CARD_COLUMNS)}, turned, burned, cut "
        f"FROM rounds{clause} ORDER BY table_id, shoe, round", params).fetchnumpy()
    rounds = {key: _filled(raw[key], -1) for key in ("rid", "round", "turned", "burned", "cut")}
    rounds.update({key: np.asarray(raw[key]) for key in ("table_id", "shoe", "rule_set")})
    rounds["table"] = rounds.pop("table_id")
    rounds["day"] = np.asarray(raw["day"]).astype("datetime64[D]")
    rounds["cards"] = np.stack([_filled(raw[c], -1).astype(np.int64) for c in CARD_COLUMNS], axis=1) if len(
        rounds["rid"]) else np.zeros((0, 6), np.int64)
    n = len(rounds["rid"])
    shoe_start = np.ones(n, bool)
    if n:
        shoe_start[1:] = (rounds["table"][1:] != rounds["table"][:-1]) | (rounds["shoe"][1:] != rounds["shoe"][:-1])
    resolved = resolve_rounds(rounds["cards"])
    bet_raw = connection.execute(
        "SELECT b.rid, b.seat, coalesce(b.player, '') AS player, b.bet, b.stake, b.net FROM bets b "
        f"WHERE b.rid IN (SELECT rid FROM rounds{clause})", params).fetchnumpy() if n else {}
    bets = {key: np.asarray(bet_raw.get(key, [])) for key in ("rid", "seat", "player", "bet", "stake", "net")}
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
