"""The audit of stored real play: integrity, actual against theoretical, hold on drop, advantage play.

:func:`run_audit` reads the audit database (:mod:`baccarat_sim.audit_store`) and returns one plain
:class:`AuditReport`; the report layer renders it (:mod:`baccarat_sim.report.audit_report`).
"""

from __future__ import annotations

import contextlib
import dataclasses
import time

from .audit_actual import ActualSums
from .audit_advantage import AdvantageSums
from .audit_data import BATCH_ROUNDS, plan_batches, read_audit_data, read_results
from .audit_hold import HoldSums
from .audit_integrity import integrity_findings, sort_findings
from .audit_parallel import SecondProcess

__all__ = ["AuditReport", "run_audit"]


@dataclasses.dataclass(frozen=True)
class AuditReport:
    """Everything the audit found: the data's extent, and each part's rows (plain dicts, fractions not percents)."""

    scope: dict
    integrity: list
    actual: dict
    hold: dict
    advantage: dict
    seconds: float

    def flags(self) -> list[dict]:
        """One line per flag of every part: what, where, p-value or amount."""
        out = [{"part": "integrity", "what": f["check"], "where": _where(f), "detail": f["what"]} for f in
               self.integrity]
        out += [{"part": "actual", "what": f"{r['bet']} RTP/hit", "where": f"{r['rule_set']} {r['by']} {r['group']}",
                 "detail": f"actual RTP {r['actual_rtp']:.4f} vs {r['theoretical_rtp']:.4f}, "
                           f"p {min(r['p_rtp'], r['p_hit']):.2g}"}
                for r in self.actual["bets"] if r["flag"]]
        out += [{"part": "actual", "what": f"{r['test']} test", "where": f"{r['rule_set']} {r['by']} {r['group']}",
                 "detail": f"p {r['p']:.2g}"} for r in self.actual["tests"] if r["flag"]]
        out += [{"part": "actual", "what": "shoe ranks", "where": _where(r), "detail": f"p {r['p']:.2g}"}
                for r in self.actual["shoes"]]
        out += [{"part": "hold", "what": f"hold {p['period']}", "where": f"{p['table']} {p['label']}",
                 "detail": f"hold {p['hold']:.4f}, 95% range {p['range_95'][0]:.4f}..{p['range_95'][1]:.4f}, "
                           f"p {p['p']:.2g}"} for p in self.hold["periods"] if p["flag"]]
        for family in ("count", "late_max_bets"):
            out += [{"part": "advantage", "what": family, "where": _player_where(t),
                     "detail": f"p {t['p']:.2g}" + (f", money at stake {t['money_at_stake']:.2f}"
                                                    if t.get("money_at_stake") is not None else "")}
                    for t in self.advantage[family] if t["flag"]]
        out += [{"part": "advantage", "what": "group", "where": f"{g['table']} {g['day']} seats "
                 f"{','.join(map(str, g['seats']))}", "detail": f"{g['bet']} together, p {g['p']:.2g}, money at "
                 f"stake {g['money_at_stake']:.2f}"}
                for g in self.advantage["groups"]]
        return out


def _player_where(test: dict) -> str:
    """Where a player's flag is: the table of their first round, then the player.

    A player without a logged id is named by table and seat (``"T01 seat 5"``): the table is not said twice.
    """
    player, table = test["player"], test["table"]
    return player if player.startswith(f"{table} seat ") else f"{table} {player}"


def _where(finding: dict) -> str:
    text = f"table {finding['table']} shoe {finding['shoe']}"
    return text + (f" round {finding['round']}" if finding.get("round") is not None else "")


def run_audit(connection, rules_of: dict, *, since=None, until=None, mix=None, churn=None,
              batch_rounds: int = BATCH_ROUNDS) -> AuditReport:
    """Audit the database's rounds, bets and table results (days ``since`` to ``until``, None: all).

    Whole tables at a time, about ``batch_rounds`` rounds a batch (:func:`~.audit_data.plan_batches`): each part
    adds a batch to its sums, and the report is made of the sums; the batches change nothing in it (beyond the
    round-off of sums added in another order). With more than one batch, the hold and
    advantage parts run in a second process (:class:`~.audit_parallel.SecondProcess`) while this one reads the
    batches and adds them to the integrity and actual parts: the same figures, on two cores.
    """
    started = time.perf_counter()
    results = read_results(connection, since, until)
    batches = plan_batches(connection, since, until, batch_rounds)
    integrity: list = []
    actual = ActualSums()
    two = len(batches) > 1
    hold, advantage = (None, None) if two else (HoldSums(results), AdvantageSums())
    scope = {"rounds": 0, "bets": 0, "results": int(len(results["day"])), "tables": [], "rule_sets": set(),
             "first_day": None, "last_day": None}
    with SecondProcess(results, mix, churn) if two else contextlib.nullcontext() as second:
        for tables in batches:
            data = read_audit_data(connection, rules_of, since, until, tables, results)
            if not data.n_rounds:
                continue
            if second is not None:
                second.add(data)
            scope["rounds"] += data.n_rounds
            scope["bets"] += int(len(data.bets["row"]))
            scope["tables"] += [str(t) for t in data.rounds["table_names"]]
            scope["rule_sets"] |= set(data.rules)
            days = [str(data.rounds["day"].min()), str(data.rounds["day"].max())]
            scope["first_day"] = min(filter(None, (scope["first_day"], days[0])))
            scope["last_day"] = max(filter(None, (scope["last_day"], days[1])))
            integrity += integrity_findings(data)
            actual.add(data)
            if second is None:
                hold.add(data)
                advantage.add(data)
            del data
        actual_part = actual.finish()
        hold_part, advantage_part = second.finish() if second is not None else (hold.finish(mix, churn),
                                                                                 advantage.finish())
    scope["tables"], scope["rule_sets"] = sorted(scope["tables"]), sorted(scope["rule_sets"])
    return AuditReport(scope, sort_findings(integrity), actual_part, hold_part, advantage_part,
                       time.perf_counter() - started)
