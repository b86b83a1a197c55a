"""The report layer: per-bet tables (pandas) and their JSON, CSV, Markdown and text forms."""

from __future__ import annotations

import dataclasses
import json
import math

import numpy as np
import pandas as pd

from .claims import ClaimCheck, check_claims
from .conditions import feature_table
from .outcomes import OutcomeHistogram
from .rules import Rules
from .settle import net_vector, settle
from .stats import estimate

__all__ = ["Report", "build_report", "main_bet_probabilities"]


def main_bet_probabilities(hist: OutcomeHistogram) -> dict[str, float]:
    """P(Banker wins), P(Player wins), P(Tie) of a histogram."""
    winner = feature_table()["winner"]
    total = hist.total
    return {
        "banker_win": float(hist.counts[winner == 1].sum() / total),
        "player_win": float(hist.counts[winner == 0].sum() / total),
        "tie": float(hist.counts[winner == 2].sum() / total),
    }


def _clean(value):
    """JSON-safe: nan/inf become None, numpy scalars become Python numbers."""
    if isinstance(value, (list, tuple)):
        return [_clean(v) for v in value]
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items()}
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        value = float(value)
        return None if math.isnan(value) or math.isinf(value) else value
    return value


@dataclasses.dataclass
class Report:
    """Per-bet results of one run (exact, or Monte Carlo against exact).

    Attributes
    ----------
    rules : Rules
    exact : OutcomeHistogram
        Exact histogram of the same shoe (fresh shuffle).
    mc : OutcomeHistogram or None
    run : dict
        Header: rule set, model, decks, rounds, shoes, seed, threads, timing.
    table : DataFrame
        One row per bet (index: bet id).
    claims : list of ClaimCheck
    """

    rules: Rules
    exact: OutcomeHistogram
    mc: OutcomeHistogram | None
    run: dict
    table: pd.DataFrame
    claims: list[ClaimCheck]

    def bets_json(self) -> list[dict]:
        """Per-bet records of the JSON contract."""
        records = []
        for bet_id, row in self.table.iterrows():
            record = {
                "id": bet_id,
                "name": row["name"],
                "rtp": row["rtp"],
                "house_edge": row["house_edge"],
                "hit_frequency": row["hit_frequency"],
                "sd": row["sd"],
                "ci95": None if pd.isna(row["ci95_low"]) else [row["ci95_low"], row["ci95_high"]],
                "exact_rtp": row["exact_rtp"],
                "stated_rtp": None if pd.isna(row["stated_rtp"]) else row["stated_rtp"],
                "z": None if pd.isna(row["z"]) else row["z"],
                "se": None if pd.isna(row["se"]) else row["se"],
                "push_frequency": row["push_frequency"],
                "rounds_for_0_01pct_ci": row["rounds_for_0_01pct_ci"],
                "max_round": None if pd.isna(row["max_round"]) else int(row["max_round"]),
            }
            records.append(record)
        return records

    def to_dict(self) -> dict:
        """The ``--format json`` object: ``{"run": {...}, "bets": [...], "claims": [...]}``."""
        return _clean(
            {
                "run": self.run,
                "bets": self.bets_json(),
                "claims": [
                    {"claim": c.claim.text or c.subject, "subject": c.subject, "stated": c.stated,
                     "computed": c.computed, "holds": c.holds}
                    for c in self.claims
                ],
            }
        )

    def to_json(self) -> str:
        """JSON text of :meth:`to_dict`."""
        return json.dumps(self.to_dict(), indent=2)

    def display_table(self) -> pd.DataFrame:
        """The table people read: percentages, rounded."""
        t = self.table
        shown = pd.DataFrame(index=t.index)
        shown["bet"] = t["name"]
        pct = lambda col: (100 * t[col]).map(lambda v: "" if pd.isna(v) else f"{v:.4f}%")  # noqa: E731
        if self.mc is not None:
            shown["MC RTP"] = pct("rtp")
            shown["95% CI"] = [
                "" if pd.isna(lo) else f"[{100 * lo:.4f}, {100 * hi:.4f}]" for lo, hi in zip(t["ci95_low"],
                                                                                          t["ci95_high"])
            ]
            shown["house edge"] = pct("house_edge")
            shown["exact RTP"] = pct("exact_rtp")
            shown["z"] = t["z"].map(lambda v: "" if pd.isna(v) else f"{v:+.2f}")
        else:
            shown["RTP"] = pct("rtp")
            shown["house edge"] = pct("house_edge")
        shown["stated"] = t["stated_text"].fillna("")
        shown["hit freq"] = pct("hit_frequency")
        shown["SD"] = t["sd"].map(lambda v: f"{v:.4f}")
        shown["rounds for ±0.01%"] = t["rounds_for_0_01pct_ci"].map(lambda v: f"{v:.3g}")
        return shown

    def header_lines(self) -> list[str]:
        """Human-readable header of the run."""
        r = self.run
        lines = [f"rule set   {r['rules']} ({self.rules.name})", f"shoe       {r['decks_text']}, model {r['model']}"]
        if self.mc is not None:
            lines.append(f"rounds     {r['rounds']:,} in {r['shoes']:,} shoes" if r["model"] == "dealt"
                         else f"rounds     {r['rounds']:,}")
            lines.append(f"seed       {r['seed']}    threads {r['threads']}")
            lines.append(f"time       {r['seconds']:.2f} s wall, {r['rounds_per_second'] / 1e6:.1f} M rounds/s "
                         "(kernel)")
        lines.append(
            f"exact      P(Banker) {r['banker_win']:.6f}  P(Player) {r['player_win']:.6f}  P(Tie) {r['tie']:.6f}"
        )
        return lines

    def to_text(self) -> str:
        """Header, table and claim checks as plain text."""
        lines = self.header_lines() + ["", self.display_table().to_string(index=False)]
        if self.claims:
            lines += ["", "stated RTP checks:"] + [f"  {c.reason}" for c in self.claims]
        return "\n".join(lines)

    def to_markdown(self) -> str:
        """Header and table as Markdown."""
        shown = self.display_table()
        head = "| " + " | ".join(shown.columns) + " |\n|" + "---|" * len(shown.columns) + "\n"
        body = "".join("| " + " | ".join(str(v) for v in row) + " |\n" for row in shown.itertuples(index=False))
        header = "\n".join(f"- {line}" for line in self.header_lines())
        claims = "".join(f"- {c.reason}\n" for c in self.claims)
        return f"## {self.rules.name}\n\n{header}\n\n{head}{body}" + (f"\n### Stated RTP checks\n\n{claims}"
                                                                       if claims else "")

    def to_csv(self) -> str:
        """The per-bet table as CSV, with run metadata in each row."""
        frame = self.table.drop(columns=["stated_text"]).copy()
        for key in ("rules", "model", "decks", "rounds", "shoes", "seed", "threads", "version", "rules_sha256"):
            frame[key] = self.run.get(key)
        return frame.to_csv(index_label="id")


def _decks_text(hist: OutcomeHistogram) -> str:
    decks = hist.meta.get("decks")
    total = int(hist.shoe.sum())
    return f"{decks} decks ({total} cards)" if decks else f"custom shoe of {total} cards"


def build_report(rules: Rules, exact: OutcomeHistogram, mc: OutcomeHistogram | None = None,
                 run: dict | None = None) -> Report:
    """Settle every bet of ``rules`` exactly (and by Monte Carlo) into a :class:`Report`."""
    from ._version import __version__

    exact_results = settle(exact, rules)
    rows = []
    for bet, ex in zip(rules.bets, exact_results):
        stated = next((c for c in rules.claims if c.what == "bet" and c.bet == bet.id), None)
        row = {
            "id": bet.id,
            "name": bet.name,
            "exact_rtp": ex.rtp,
            "stated_rtp": stated.fraction if stated else np.nan,
            "stated_text": stated.value if stated else None,
            "max_round": bet.max_round if bet.max_round is not None else np.nan,
        }
        if mc is None:
            row.update(rtp=ex.rtp, house_edge=ex.house_edge, ci95_low=np.nan, ci95_high=np.nan, z=np.nan,
                       se=np.nan, hit_frequency=ex.hit_frequency, push_frequency=ex.push_frequency, sd=ex.sd,
                       rounds_for_0_01pct_ci=ex.rounds_for_precision)
        else:
            from .settle import settle_bet

            mc_result = settle_bet(mc, bet, rules)
            est = estimate(mc, net_vector(bet, rules))
            low, high = est.ci95
            row.update(rtp=est.rtp, house_edge=-est.ev, ci95_low=low, ci95_high=high, z=est.z(ex.rtp), se=est.se,
                       hit_frequency=mc_result.hit_frequency, push_frequency=mc_result.push_frequency,
                       sd=mc_result.sd, rounds_for_0_01pct_ci=mc_result.rounds_for_precision)
        rows.append(row)
    table = pd.DataFrame(rows).set_index("id")
    probabilities = main_bet_probabilities(exact)
    info = {
        "rules": rules.id,
        "rules_sha256": rules.sha256,
        "model": "exact" if mc is None else mc.model,
        "decks": exact.meta.get("decks"),
        "cards": int(exact.shoe.sum()),
        "decks_text": _decks_text(exact),
        "version": __version__,
        **probabilities,
    }
    if mc is not None:
        info.update(rounds=mc.rounds, shoes=mc.shoes, seed=mc.seed)
    info.update(run or {})
    return Report(rules, exact, mc, info, table, check_claims(rules, exact_results))
