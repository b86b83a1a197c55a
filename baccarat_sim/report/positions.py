"""Dealt-shoe results as tables, text, Markdown and JSON: RTP by round, Max Round Availability, cut-card sweeps."""

from __future__ import annotations

import math
import textwrap

import numpy as np
import pandas as pd

from ..analysis.naming import run_name, table_definition
from ..analysis.positions import MIN_LINE_HITS, MIN_ROUNDS, CutSweep, Pooled, PositionAnalysis, RoundsPerShoe
from ..analysis.stats import Z95
from ..model.rules import CutCard
from ..model.shoe import as_shoe
from .render import clean_json, csv_text, markdown_table, terminal_text, text_table

__all__ = [
    "bet_fields",
    "by_round_frame",
    "capped_frame",
    "cut_label",
    "positions_markdown",
    "positions_text",
    "rounds_per_shoe_frame",
    "rounds_per_shoe_text",
    "sweep_csv",
    "sweep_dict",
    "sweep_frame",
    "sweep_markdown",
    "sweep_name",
    "sweep_stem",
    "sweep_table",
    "sweep_text",
    "table_columns",
]


def rounds_per_shoe_frame(per_shoe: RoundsPerShoe) -> pd.DataFrame:
    """One row per round count: ``rounds``, ``shoes_reaching``, ``shoes`` (exactly), ``probability``."""
    k = np.arange(1, len(per_shoe.reaching) + 1)
    probability = per_shoe.probability
    return pd.DataFrame({"rounds": k, "shoes_reaching": per_shoe.reaching,
                         "shoes": np.rint(probability * per_shoe.shoes).astype(np.int64),
                         "probability": probability})


def rounds_per_shoe_text(per_shoe: RoundsPerShoe) -> str:
    """One line: mean, central 90%, extremes."""
    if not per_shoe.shoes:
        return "no shoes dealt"
    return (f"mean {per_shoe.mean:.2f} (sd {per_shoe.sd:.2f}); 5%-95%: {per_shoe.quantile(0.05)}-"
            f"{per_shoe.quantile(0.95)}, median {per_shoe.quantile(0.5)}, seen {per_shoe.least}-{per_shoe.most}"
            + ("+" if per_shoe.open_tail else "") + f" in {per_shoe.shoes:,} shoes")


def by_round_frame(analysis: PositionAnalysis) -> pd.DataFrame:
    """Long table: one row per (bet, round) with rounds, RTP, SE, 95% CI, exact RTP where known, z."""
    frames = []
    for b in analysis.bets.values():
        low, high = b.ci95_by_round
        frames.append(pd.DataFrame({
            "bet": b.bet_id, "round": np.arange(1, len(b.rounds) + 1), "rounds": b.rounds, "rtp": b.rtp, "se": b.se,
            "ci95_low": low, "ci95_high": high,
            "exact_rtp": b.exact_rtp_by_round, "fresh_exact_rtp": b.exact_rtp, "z_vs_fresh": b.z_by_round,
        }))
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def capped_frame(analysis: PositionAnalysis) -> pd.DataFrame:
    """One row per bet with a Max Round Availability: RTP under the cap, over all rounds, fresh exact."""
    rows = []
    for b in analysis.bets.values():
        if b.capped is None:
            continue
        gap, gap_se = b.capped_minus_all
        rows.append({
            "bet": b.bet_id, "name": b.name, "max_round": b.max_round,
            "share_of_rounds_offered": b.share_offered,
            "rtp_capped": b.capped.rtp, "rtp_capped_se": b.capped.se,
            "rtp_all_rounds": b.all_rounds.rtp, "rtp_all_rounds_se": b.all_rounds.se,
            "rtp_after_cap": b.late.rtp, "rtp_after_cap_se": b.late.se,
            "capped_minus_all": gap, "capped_minus_all_se": gap_se,
            "fresh_exact_rtp": b.exact_rtp, "exact_rtp_capped": b.exact_rtp_capped,
        })
    return pd.DataFrame(rows)


def bet_fields(analysis: PositionAnalysis, bet_id: str) -> dict:
    """Fields a dealt run adds to a bet's JSON record."""
    b = analysis.bets[bet_id]
    fields = {"rtp_by_round": b.rtp_list(), "se_by_round": b.se_list(), "min_rounds_by_round": b.min_rounds}
    every, z = b.every_shoe, b.z_every_shoe
    # The rounds every shoe deals: the dealt-shoe figure whose exact value is the fresh shoe's (what --check tests).
    fields.update(rtp_rounds_in_every_shoe=None if every is None or z != z else every.rtp,
                  se_rounds_in_every_shoe=None if every is None or z != z else every.se,
                  z_rounds_in_every_shoe=None if z != z else z)
    if b.capped is not None:
        gap = b.capped_minus_all
        fields.update(
            max_round=b.max_round,
            rtp_capped=b.capped.rtp,
            rtp_capped_se=b.capped.se,
            rtp_capped_ci95=list(b.capped.ci95),
            exact_rtp_capped=b.exact_rtp_capped,
            rtp_capped_minus_all=gap[0],
            rtp_capped_minus_all_se=gap[1],
        )
    return fields


def table_columns(analysis: PositionAnalysis) -> pd.DataFrame:
    """Per-bet columns for the report's table (index: bet id): the capped RTP and its CI."""
    records = {}
    for bet_id, b in analysis.bets.items():
        capped = b.capped
        records[bet_id] = {
            "rtp_capped": math.nan if capped is None else capped.rtp,
            "rtp_capped_se": math.nan if capped is None else capped.se,
            "rtp_capped_ci95_low": math.nan if capped is None else capped.ci95[0],
            "rtp_capped_ci95_high": math.nan if capped is None else capped.ci95[1],
        }
    return pd.DataFrame.from_dict(records, orient="index")


def _pm(pooled: Pooled | None, digits: int = 4) -> str:
    if pooled is None or pooled.rounds == 0 or math.isnan(pooled.rtp):
        return ""
    return f"{100 * pooled.rtp:.{digits}f} ± {100 * Z95 * pooled.se:.{digits}f}"


def _display_bands(analysis: PositionAnalysis, ci: bool = False) -> pd.DataFrame:
    """RTP % by band of rounds, one column per band.

    With ``ci`` each figure carries ± its 95% half-width; else a ``*`` marks each
    figure whose 95% interval excludes the fresh-shoe exact RTP, so that noise is
    not read as an effect of the position.
    """
    bets = analysis.rules.bets
    shown = pd.DataFrame(index=[bet.id for bet in bets])
    shown["bet"] = [bet.name for bet in bets]
    by_band: dict[tuple[int, int], dict] = {}
    for estimate in analysis.band_estimates():
        by_band.setdefault((estimate.from_round, estimate.to_round), {})[estimate.bet] = estimate
    for (lo, hi), estimates in sorted(by_band.items()):
        label = f"{lo}" if lo == hi else f"{lo}-{hi}"
        shown[label] = [_band_cell(estimates[i], analysis.bets[i].exact_rtp, ci) for i in shown.index]
    shown["fresh exact"] = [f"{100 * analysis.bets[i].exact_rtp:.3f}" for i in shown.index]
    return shown


def _band_cell(estimate, exact_rtp: float, ci: bool) -> str:
    if math.isnan(estimate.rtp):
        return ""
    if ci:
        return f"{100 * estimate.rtp:.3f} ± {100 * Z95 * estimate.se:.3f}"
    return f"{100 * estimate.rtp:.3f}" + ("*" if estimate.excludes(exact_rtp) else " ")


def _display_capped(analysis: PositionAnalysis, names: bool = True) -> pd.DataFrame:
    rows = []
    for b in analysis.bets.values():
        if b.capped is None:
            continue
        gap, gap_se = b.capped_minus_all
        rows.append({
            "bet": b.name if names else b.bet_id,
            "max round": b.max_round,
            "offered": f"{100 * b.capped.rounds / b.all_rounds.rounds:.1f}%",
            "capped RTP %": _pm(b.capped),
            "all rounds %": _pm(b.all_rounds),
            "capped - all (pp)": f"{100 * gap:+.4f} ± {100 * Z95 * gap_se:.4f}",
            "fresh exact %": f"{100 * b.exact_rtp:.4f}",
        })
        if names:
            rows[-1]["exact capped %"] = "" if b.exact_rtp_capped is None else f"{100 * b.exact_rtp_capped:.4f}"
    return pd.DataFrame(rows)


def notes(analysis: PositionAnalysis) -> list[str]:
    """Lines that say how to read the tables."""
    return [
        f"rounds per shoe: {rounds_per_shoe_text(analysis.rounds_per_shoe)}",
        f"rounds 1-{analysis.always} are dealt in every shoe, so their exact RTP is the fresh-shoe RTP (optional "
        "stopping); later rounds are dealt only in shoes whose earlier rounds were short",
        "RTP by band: pooled rounds of the band, percent; empty where a band saw too few rounds (fewer than "
        f"max({MIN_ROUNDS}, {MIN_LINE_HITS} / p of the rarest winning line))",
    ]


def positions_text(analysis: PositionAnalysis, width: int = 120) -> str:
    """Rounds per shoe, RTP by band of rounds and the Max Round Availability comparison, as plain text.

    At most ``width`` columns wide, like the run report.
    """
    def wrap(text, indent=""):
        return textwrap.wrap(text, width, initial_indent=indent, subsequent_indent=indent + "  ")

    lines = ["RTP by round position (dealt shoe)"]
    for note in notes(analysis):
        lines += wrap(note, "  ")
    table = text_table(_display_bands(analysis, ci=True), width)
    if max(len(line) for line in table) > width:  # no room for ± : mark what the noise cannot explain instead
        table = text_table(_display_bands(analysis), width)
        lines += wrap("* the 95% interval of this figure excludes the fresh exact RTP; an unmarked difference is "
                      "within noise (the Markdown report and CSV give every ±)", "  ")
    lines += [""] + table
    capped = _display_capped(analysis, names=False)
    if len(capped):
        lines += [""] + wrap("Max Round Availability: the RTP a player faces when the bet is offered only up to "
                             "its max round (± 95% CI half-width; offered: share of all rounds)")
        if all(b.exact_rtp_capped is not None for b in analysis.bets.values() if b.capped is not None):
            lines += wrap(f"every cap is within rounds 1-{analysis.always}: the exact capped RTP is the fresh exact",
                          "  ")
        lines += [""] + text_table(capped, width)
    return "\n".join(lines)


def positions_markdown(analysis: PositionAnalysis) -> str:
    """The same as :func:`positions_text`, as Markdown sections."""
    text = "### RTP by round position\n\n" + "".join(f"- {line}\n" for line in notes(analysis)) + "\n"
    text += markdown_table(_display_bands(analysis, ci=True))
    capped = _display_capped(analysis)
    if len(capped):
        text += ("\n### Max Round Availability\n\nThe RTP a player faces when the bet is offered only up to its max "
                 "round, against all rounds and the fresh-shoe exact RTP (95% CI).\n\n" + markdown_table(capped))
    return text


# --------------------------------------------------------------------------- cut-card sweep


def cut_label(cut: CutCard) -> str:
    """A cut-card position as people write it: ``14`` or ``187-229`` (cards from the end)."""
    return f"{cut.low}" if cut.low == cut.high else f"{cut.low}-{cut.high}"


def sweep_frame(sweep: CutSweep) -> pd.DataFrame:
    """Long table: one row per (cut position, bet)."""
    records = []
    for cut, analysis in zip(sweep.cuts, sweep.analyses):
        hist = analysis.hist
        per_shoe = analysis.rounds_per_shoe
        for bet in sweep.rules.bets:
            b = analysis.bets[bet.id]
            low, high = b.all_rounds.ci95
            records.append({
                "cut_from_end_low": cut.low, "cut_from_end_high": cut.high, "cut": cut_label(cut),
                "cut_fraction": cut.mean / int(hist.shoe.sum()),
                "bet": bet.id, "name": bet.name, "rtp": b.all_rounds.rtp, "se": b.all_rounds.se,
                "ci95_low": low, "ci95_high": high, "fresh_exact_rtp": b.exact_rtp,
                "rtp_minus_fresh": b.rtp_minus_fresh, "z_vs_fresh": b.z_vs_fresh,
                "max_round": b.max_round, "rtp_capped": b.capped.rtp if b.capped else math.nan,
                "rtp_capped_se": b.capped.se if b.capped else math.nan,
                "rounds_per_shoe": per_shoe.mean, "rounds_in_every_shoe": per_shoe.always,
                "rounds": hist.rounds, "shoes": hist.shoes, "seed": sweep.seed,
            })
    return pd.DataFrame(records)


def sweep_table(sweep: CutSweep) -> pd.DataFrame:
    """Bets down, cut-card positions across: RTP % ± 95% half-width, then the fresh exact RTP."""
    frame = sweep_frame(sweep)
    shown = pd.DataFrame(index=[bet.id for bet in sweep.rules.bets])
    shown["bet"] = [bet.name for bet in sweep.rules.bets]
    for cut, _ in sweep.done:
        part = frame[frame["cut"] == cut_label(cut)].set_index("bet")
        shown[f"cut {cut_label(cut)}"] = [
            f"{100 * part.loc[i, 'rtp']:.4f} ± {100 * Z95 * part.loc[i, 'se']:.4f}" for i in shown.index]
    shown["fresh exact"] = [f"{100 * sweep.analyses[0].bets[i].exact_rtp:.4f}" for i in shown.index]
    return shown


def _sweep_header(sweep: CutSweep) -> list[str]:
    """What was swept, and rounds per shoe at each position."""
    n = int(sweep.analyses[0].hist.shoe.sum()) if sweep.analyses else 0
    per_shoe = ", ".join(f"cut {cut_label(c)}: {a.rounds_per_shoe.mean:.1f} (all of 1-{a.always})"
                         for c, a in sweep.done)
    rounds = ", ".join(f"{a.hist.rounds:,}" for a in sweep.analyses)
    lines = [
        f"rule set  {sweep.rules.id}: {sweep.rules.name}",
        f"sweep     cut card at {', '.join(cut_label(c) for c in sweep.cuts)} cards from the end of a {n}-card "
        f"shoe (burn {sweep.rules.shoe.burn}, {sweep.rules.shoe.rounds_after_cut} round(s) after the cut card's)",
    ]
    if not sweep.complete:
        lines.append(f"stopped   early: {len(sweep.analyses)} of the {len(sweep.cuts)} positions dealt in full, shown "
                     "below (a partial result)")
    return lines + [
        f"rounds    {rounds} (seed {sweep.seed} for every position)",
        f"per shoe  {per_shoe}",
        "RTP % over all rounds of the shoe, ± the 95% CI half-width (batch means over whole shoes)",
    ]


def sweep_text(sweep: CutSweep, width: int = 160) -> str:
    """Header and table as plain text."""
    return terminal_text("\n".join(_sweep_header(sweep) + [""] + text_table(sweep_table(sweep), width)))


def sweep_markdown(sweep: CutSweep) -> str:
    """Header and table as Markdown."""
    return terminal_text(f"## Cut-card sweep: {sweep.rules.name}\n\n"
                         + "".join(f"- {line}\n" for line in _sweep_header(sweep)) + "\n"
                         + markdown_table(sweep_table(sweep)))


def sweep_csv(sweep: CutSweep) -> str:
    """The long table as CSV."""
    return csv_text(sweep_frame(sweep), index=False)


def sweep_dict(sweep: CutSweep) -> dict:
    """JSON-ready: ``{"run": {...}, "cuts": [{"cut_from_end": [lo, hi], "rounds_per_shoe", "bets": [...]}]}``."""
    cuts = []
    for cut, analysis in sweep.done:
        bets = []
        for bet in sweep.rules.bets:
            b = analysis.bets[bet.id]
            record = {"id": bet.id, "rtp": b.all_rounds.rtp, "se": b.all_rounds.se,
                      "ci95": list(b.all_rounds.ci95), "exact_rtp": b.exact_rtp}
            record.update(bet_fields(analysis, bet.id))
            bets.append(record)
        cuts.append({"cut_from_end": [cut.low, cut.high], "rounds": analysis.hist.rounds,
                     "shoes": analysis.hist.shoes, **analysis.run_fields(), "bets": bets})
    run = {"rules": sweep.rules.id, "rules_sha256": sweep.rules.sha256, "seed": sweep.seed, "sweep": "cut",
           "decks": sweep.rules.shoe.decks, "burn": sweep.rules.shoe.burn,
           "rounds_after_cut": sweep.rules.shoe.rounds_after_cut}
    if not sweep.complete:  # a stopped sweep says so (a finished one's document is as it always was)
        run.update(complete=False, cuts_requested=[[cut.low, cut.high] for cut in sweep.cuts])
    return clean_json({"run": run, "cuts": cuts})


def sweep_name(rules, composition, cuts, seed: int) -> str:
    """The name of a sweep's files and its positions' checkpoints' sweep, e.g. ``default-cut-sweep-1c2d3e4f-seed1``.

    The digest (:mod:`~baccarat_sim.analysis.naming`) covers the rule file, the
    shoe, its dealing (burn, rounds after the cut card), the bets and the cut
    cards swept.
    """
    definition = table_definition(rules, composition, "dealt")
    definition["cuts"] = [[int(cut.low), int(cut.high)] for cut in cuts]
    return run_name([rules.id, "cut-sweep"], definition, seed)


def sweep_stem(sweep: CutSweep) -> str:
    """The name of a sweep's files (:func:`sweep_name`)."""
    composition = sweep.composition if sweep.composition is not None else as_shoe(sweep.rules.shoe.decks)
    return sweep_name(sweep.rules, composition, sweep.cuts, sweep.seed)
