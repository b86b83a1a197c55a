"""Effects of removal as tables, text, Markdown, CSV and JSON fields.

Tables and tag lines name the card values one way and in one order: ``A 2 3
4 5 6 7 8 9 T`` by point value (``T`` for the ten-value cards 10, J, Q, K), or
``A 2 .. 10 J Q K`` by rank. The JSON keeps point values as ``"0"``-``"9"``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..analysis.eor import EffectOfRemoval
from ..model.cards import N_RANKS, RANK_NAMES
from .render import csv_text, markdown_table

__all__ = ["VALUE_LABELS", "VALUE_ORDER", "bet_fields", "eor_csv", "eor_dict", "eor_markdown", "eor_table",
           "eor_text", "tag_lines"]

#: Point values in display order (Ace to 9, then the ten-value cards) and their labels.
VALUE_ORDER = (1, 2, 3, 4, 5, 6, 7, 8, 9, 0)
VALUE_LABELS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "T")


def _floats(effects, names):
    return {name: None if e is None else float(e) for name, e in zip(names, effects)}


def eor_table(eor: EffectOfRemoval, by: str = "value") -> pd.DataFrame:
    """EOR per unit staked: one row per point value (A..9, T) or rank (A..K), one column per bet.

    Parameters
    ----------
    by : {"value", "rank"}
    """
    if by == "value":
        index = pd.Index(VALUE_LABELS, name="value")
        columns = {bet_id: [np.nan if eor.by_value[bet_id][v] is None else float(eor.by_value[bet_id][v])
                            for v in VALUE_ORDER] for bet_id in eor.bet_ids}
    else:
        index = pd.Index(RANK_NAMES, name="card")
        columns = {bet_id: [np.nan if e is None else float(e) for e in eor.by_rank[bet_id]] for bet_id in eor.bet_ids}
    return pd.DataFrame(columns, index=index)


def bet_fields(eor: EffectOfRemoval, bet_id: str) -> dict:
    """The JSON fields a report adds to a bet: ``eor`` (by point value), ``eor_by_rank``, ``count_tags``."""
    return {
        "eor": _floats(eor.by_value[bet_id], [str(v) for v in range(10)]),
        "eor_by_rank": _floats(eor.by_rank[bet_id], RANK_NAMES),
        "count_tags": [
            {"level": t.level, "by": t.by, "tags": dict(zip(RANK_NAMES, t.tags)),
             "betting_correlation": t.betting_correlation, "break_even_true_count": t.break_even_true_count}
            for t in eor.count_tags(bet_id)
        ],
    }


def _display(eor: EffectOfRemoval) -> pd.DataFrame:
    """EOR per unit staked, one row per bet and one column per point value (A..9, T), as signed decimals."""
    table = eor_table(eor, "value").T
    shown = table.map(lambda v: "" if pd.isna(v) else f"{v:+.6f}")
    shown.insert(0, "bet", list(eor.bet_ids))
    return shown


def tag_lines(eor: EffectOfRemoval) -> list[str]:
    """One line per bet and level: tags (A..9, T or A..K), betting correlation, break-even true count."""
    lines = []
    width = max(len(b) for b in eor.bet_ids)
    for bet_id in eor.bet_ids:
        tags = eor.count_tags(bet_id)
        if not tags:
            lines.append(f"{bet_id:<{width}}  no linear count: every rank has the same effect of removal")
            continue
        for t in tags:
            if t.by == "value":
                # by point value: rank r of A..9 is value r + 1, and rank 9 (10) stands for every ten-value card
                cards = " ".join(f"{label}{t.tags[r]:+d}" for label, r in zip(VALUE_LABELS, range(10)))
            else:
                cards = " ".join(f"{RANK_NAMES[r]}{t.tags[r]:+d}" for r in range(N_RANKS))
            lines.append(f"{bet_id:<{width}}  level {t.level}: {cards}   BC {t.betting_correlation:.3f}   "
                         f"break-even TC {t.break_even_true_count:+.1f}")
    return lines


def eor_text(eor: EffectOfRemoval) -> str:
    """EOR table and derived tags as plain text."""
    lines = [f"effect of removal (change in EV per unit staked when one card of each point value leaves the "
             f"{int(eor.shoe.sum())}-card shoe; T: a ten-value card):", _display(eor).to_string(index=False), "",
             "derived balanced tags (by point value A..9, T, or by rank A..K), betting correlation (BC) and "
             "break-even true count:"]
    return "\n".join(lines + [f"  {line}" for line in tag_lines(eor)])


def eor_markdown(eor: EffectOfRemoval) -> str:
    """EOR table and derived tags as Markdown."""
    tags = "".join(f"- `{line}`\n" for line in tag_lines(eor))
    return (f"### Effect of removal\n\nChange in EV per unit staked when one card of each point value leaves the "
            f"{int(eor.shoe.sum())}-card shoe (T: a ten-value card).\n\n{markdown_table(_display(eor))}\n"
            "### Derived counting tags\n\nTags by point value (A..9, T) or by rank (A..K), betting correlation (BC) "
            f"and break-even true count.\n\n{tags}")


def eor_csv(eor: EffectOfRemoval) -> str:
    """Long-form CSV: ``bet, by, card, eor`` (by point value A..9, T, then by rank) and ``ev`` of the shoe."""
    rows = []
    for bet_id in eor.bet_ids:
        by_value = [("value", label, eor.by_value[bet_id][v]) for label, v in zip(VALUE_LABELS, VALUE_ORDER)]
        by_rank = [("rank", name, e) for name, e in zip(RANK_NAMES, eor.by_rank[bet_id])]
        rows += [{"bet": bet_id, "by": by, "card": name, "eor": None if e is None else float(e),
                  "ev": float(eor.base[bet_id])} for by, name, e in by_value + by_rank]
    return csv_text(pd.DataFrame(rows), index=False)


def eor_dict(eor: EffectOfRemoval) -> dict:
    """JSON-ready: per bet, the base EV and the EORs by point value and by rank."""
    return {
        "rules": eor.rules_id,
        "cards": int(eor.shoe.sum()),
        "bets": {
            bet_id: {
                "ev": float(eor.base[bet_id]),
                "eor": _floats(eor.by_value[bet_id], [str(v) for v in range(10)]),
                "eor_by_rank": _floats(eor.by_rank[bet_id], RANK_NAMES),
            }
            for bet_id in eor.bet_ids
        },
    }
