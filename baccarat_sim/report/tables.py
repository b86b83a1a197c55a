"""Result objects as pandas tables: the per-outcome breakdown of a bet, the commission table, covariances.

Each function lays out what the analysis computed; :mod:`baccarat_sim.tables`
computes and lays out in one call (:func:`baccarat_sim.tables.breakdown`,
:func:`baccarat_sim.tables.commission_table`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..analysis.commission import StakeRTP
from ..analysis.joint import Covariance
from ..analysis.settlement import Breakdown

__all__ = ["breakdown_frame", "commission_frame", "covariance_table"]


def breakdown_frame(lines: Breakdown) -> pd.DataFrame:
    """A bet's pay table line by line (:func:`baccarat_sim.analysis.settlement.bet_breakdown`) as a table.

    Returns
    -------
    DataFrame
        Columns ``event``, ``pays`` (as the rule file writes it), ``net`` (per
        unit staked), ``combinations``, ``probability`` and ``return`` (net x
        probability), one row per line and a ``total`` row whose ``return`` is
        the bet's EV.
    """
    rows = [{"event": line.event, "pays": line.pays, "net": float(line.net), "combinations": line.combinations,
             "probability": float(line.probability), "return": float(line.contribution)} for line in lines.lines]
    rows.append({"event": "total", "pays": "", "net": np.nan, "combinations": lines.total, "probability": 1.0,
                 "return": float(lines.ev)})
    return pd.DataFrame(rows)


def commission_frame(rows: list[StakeRTP] | tuple[StakeRTP, ...]) -> pd.DataFrame:
    """A commission bet's RTP by stake (:func:`baccarat_sim.analysis.commission.commission_by_stake`) as a table.

    Returns
    -------
    DataFrame
        ``stake`` (amounts in the table's money), ``commission`` (on a win of
        the stake), ``payout`` (net win), ``effective_rate`` (commission /
        win), ``rtp``, ``house_edge`` and ``rtp_nominal`` (at the unrounded rate).
    """
    return pd.DataFrame([{"stake": float(row.stake), "commission": float(row.commission),
                          "payout": float(row.payout), "effective_rate": float(row.effective_rate), "rtp": row.rtp,
                          "house_edge": row.house_edge, "rtp_nominal": row.rtp_nominal}
                         for row in rows])


def covariance_table(cov: Covariance) -> pd.DataFrame:
    """A covariance matrix indexed by bet id both ways."""
    return pd.DataFrame(cov.matrix, index=list(cov.bet_ids), columns=list(cov.bet_ids))
