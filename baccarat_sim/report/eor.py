"""Effects of removal as tables, text, Markdown, CSV and JSON fields.

Tables and tag lines name the card values one way and in one order: ``A 2 3
4 5 6 7 8 9 T`` by point value (``T`` for the ten-value cards 10, J, Q, K), or
``A 2 .. 10 J Q K`` by rank. The JSON keeps point values as ``"0"``-``"9"``.
Where the bets read suits or colours, the effects of removing one card of each
suit (``spades hearts diamonds clubs``) and of each colour (``black red``) follow
(JSON ``eor_by_suit``, ``eor_by_colour``; CSV rows ``by = suit`` and ``colour``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..analysis.eor import EffectOfRemoval
from ..model.cards import COLOUR_WORDS, N_RANKS, RANK_NAMES, SUIT_WORDS
from .render import csv_text, markdown_table

__all__ = ["VALUE_LABELS", "VALUE_ORDER", "bet_fields", "eor_csv", "eor_dict", "eor_markdown", "eor_table",
           "eor_text", "tag_lines"]

#: Point values in display order (Ace to 9, then the ten-value cards) and their labels.
VALUE_ORDER = (1, 2, 3, 4, 5, 6, 7, 8, 9, 0)
VALUE_LABELS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "T")


def _floats(effects, names):
    return {name: None if e is None else float(e) for name, e in zip(names, effects)}


def _suit_columns(eor: EffectOfRemoval, bet_id: str) -> dict:
    """A bet's EOR by suit then by colour, keyed by name (Fractions or None)."""
    return dict(zip(SUIT_WORDS, eor.by_suit[bet_id])) | dict(zip(COLOUR_WORDS, eor.by_colour[bet_id]))


def eor_table(eor: EffectOfRemoval, by: str = "value") -> pd.DataFrame:
    """EOR per unit staked: one row per point value (A..9, T), rank (A..K), suit or colour, one column per bet.

    Parameters
    ----------
    by : {"value", "rank", "suit", "colour"}
        ``suit`` and ``colour`` only where the bets read suits (``eor.by_suit`` is not None).
    """
    if by in ("suit", "colour"):
        if eor.by_suit is None:
            raise ValueError(f"no effect of removal by {by}: no bet of {eor.rules_id!r} reads suits or colours")
        names, effects = (SUIT_WORDS, eor.by_suit) if by == "suit" else (COLOUR_WORDS, eor.by_colour)
        index = pd.Index(names, name=by)
        columns = {bet_id: [np.nan if e is None else float(e) for e in effects[bet_id]] for bet_id in eor.bet_ids}
    elif by == "value":
        index = pd.Index(VALUE_LABELS, name="value")
        columns = {bet_id: [np.nan if eor.by_value[bet_id][v] is None else float(eor.by_value[bet_id][v])
                            for v in VALUE_ORDER] for bet_id in eor.bet_ids}
    else:
        index = pd.Index(RANK_NAMES, name="card")
        columns = {bet_id: [np.nan if e is None else float(e) for e in eor.by_rank[bet_id]] for bet_id in eor.bet_ids}
    return pd.DataFrame(columns, index=index)


def _suit_fields(eor: EffectOfRemoval, bet_id: str) -> dict:
    """``eor_by_suit`` and ``eor_by_colour`` where the bets read suits; nothing otherwise."""
    if eor.by_suit is None:
        return {}
    return {"eor_by_suit": _floats(eor.by_suit[bet_id], SUIT_WORDS),
            "eor_by_colour": _floats(eor.by_colour[bet_id], COLOUR_WORDS)}


def bet_fields(eor: EffectOfRemoval, bet_id: str) -> dict:
    """The JSON fields a report adds to a bet.

    ``eor`` (by point value), ``eor_by_rank``, ``count_tags``, and where the
    bets read suits or colours ``eor_by_suit`` and ``eor_by_colour``.
    """
    return {
        "eor": _floats(eor.by_value[bet_id], [str(v) for v in range(10)]),
        "eor_by_rank": _floats(eor.by_rank[bet_id], RANK_NAMES),
        **_suit_fields(eor, bet_id),
        "count_tags": [
            {"level": t.level, "by": t.by, "tags": dict(zip(RANK_NAMES, t.tags)),
             "betting_correlation": t.betting_correlation, "break_even_true_count": t.break_even_true_count}
            for t in eor.count_tags(bet_id)
        ],
    }


def _display(eor: EffectOfRemoval, by: str = "value") -> pd.DataFrame:
    """EOR per unit staked as signed decimals, one column per point value (A..9, T) or rank (A..K).

    One row per bet read that way: by rank the bets that tell 10, J, Q and K
    apart (:attr:`~baccarat_sim.analysis.eor.EffectOfRemoval.rank_bets`), by
    point value the others.
    """
    bets = [bet_id for bet_id in eor.bet_ids if (bet_id in eor.rank_bets) == (by == "rank")]
    table = eor_table(eor, by).T.loc[bets]
    shown = table.map(lambda v: "" if pd.isna(v) else f"{v:+.6f}")
    shown.insert(0, "bet", bets)
    return shown


def _rank_note(eor: EffectOfRemoval) -> str:
    return (f"bets that tell 10, J, Q and K apart: {', '.join(eor.rank_bets)}; one card of each rank leaves the "
            f"{int(eor.shoe.sum())}-card shoe")


def _display_suits(eor: EffectOfRemoval) -> pd.DataFrame:
    """EOR per unit staked, one row per bet and one column per suit and colour, as signed decimals."""
    rows = [{"bet": bet_id, **{name: "" if e is None else f"{float(e):+.6f}"
                               for name, e in _suit_columns(eor, bet_id).items()}} for bet_id in eor.bet_ids]
    return pd.DataFrame(rows)


def _suit_note(eor: EffectOfRemoval) -> str:
    """Which bets read suits: the others change only through the ranks a suit's cards have."""
    return (f"bets that read suits or colours: {', '.join(eor.suit_bets)}; suits no bet tells apart give equal "
            "effects")


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
    """EOR table (by suit and colour too where the bets read suits) and derived tags as plain text."""
    lines = []
    if len(eor.rank_bets) < len(eor.bet_ids):
        lines += [f"effect of removal (change in EV per unit staked when one card of each point value leaves the "
                  f"{int(eor.shoe.sum())}-card shoe; T: a ten-value card):", _display(eor).to_string(index=False), ""]
    if eor.rank_bets:
        lines += [f"effect of removal by rank (change in EV per unit staked; {_rank_note(eor)}):",
                  _display(eor, "rank").to_string(index=False), ""]
    if eor.by_suit is not None:
        lines += ["effect of removal by suit and colour (one card of the suit or colour, its ranks weighted by their "
                  f"counts; {_suit_note(eor)}):", _display_suits(eor).to_string(index=False), ""]
    lines += ["derived balanced tags (by point value A..9, T, or by rank A..K), betting correlation (BC) and "
              "break-even true count:"]
    return "\n".join(lines + [f"  {line}" for line in tag_lines(eor)])


def eor_markdown(eor: EffectOfRemoval) -> str:
    """EOR table and derived tags as Markdown."""
    tags = "".join(f"- `{line}`\n" for line in tag_lines(eor))
    suits = ""
    if eor.by_suit is not None:
        suits = ("### Effect of removal by suit and colour\n\nChange in EV per unit staked when one card of each suit "
                 f"or colour leaves the shoe, its ranks weighted by their counts ({_suit_note(eor)}).\n\n"
                 f"{markdown_table(_display_suits(eor))}\n")
    tables = []
    if len(eor.rank_bets) < len(eor.bet_ids):
        tables.append(f"Change in EV per unit staked when one card of each point value leaves the "
                      f"{int(eor.shoe.sum())}-card shoe (T: a ten-value card).\n\n{markdown_table(_display(eor))}\n")
    if eor.rank_bets:
        tables.append(f"By rank ({_rank_note(eor)}).\n\n{markdown_table(_display(eor, 'rank'))}\n")
    return (f"### Effect of removal\n\n{''.join(tables)}{suits}"
            "### Derived counting tags\n\nTags by point value (A..9, T) or by rank (A..K), betting correlation (BC) "
            f"and break-even true count.\n\n{tags}")


def eor_csv(eor: EffectOfRemoval) -> str:
    """Long-form CSV: ``bet, by, card, eor`` and ``ev`` of the shoe.

    By point value (A..9, T), then by rank, then, where the bets read suits,
    by suit (``spades`` .. ``clubs``) and by colour (``black``, ``red``).
    """
    rows = []
    for bet_id in eor.bet_ids:
        by_value = [("value", label, eor.by_value[bet_id][v]) for label, v in zip(VALUE_LABELS, VALUE_ORDER)]
        by_rank = [("rank", name, e) for name, e in zip(RANK_NAMES, eor.by_rank[bet_id])]
        by_suit = [] if eor.by_suit is None else (
            [("suit", name, e) for name, e in zip(SUIT_WORDS, eor.by_suit[bet_id])]
            + [("colour", name, e) for name, e in zip(COLOUR_WORDS, eor.by_colour[bet_id])])
        rows += [{"bet": bet_id, "by": by, "card": name, "eor": None if e is None else float(e),
                  "ev": float(eor.base[bet_id])} for by, name, e in by_value + by_rank + by_suit]
    return csv_text(pd.DataFrame(rows), index=False)


def eor_dict(eor: EffectOfRemoval) -> dict:
    """JSON-ready: per bet, the base EV and the EORs by point value and by rank (and by suit and colour)."""
    return {
        "rules": eor.rules_id,
        "cards": int(eor.shoe.sum()),
        "bets": {
            bet_id: {
                "ev": float(eor.base[bet_id]),
                "eor": _floats(eor.by_value[bet_id], [str(v) for v in range(10)]),
                "eor_by_rank": _floats(eor.by_rank[bet_id], RANK_NAMES),
                **_suit_fields(eor, bet_id),
            }
            for bet_id in eor.bet_ids
        },
        **({"suit_bets": list(eor.suit_bets)} if eor.by_suit is not None else {}),
    }
