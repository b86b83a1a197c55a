"""The math report as a typeset PDF (Typst, through its Python package ``typst``; no download at run time).

The document is written as Typst source from the report's JSON dictionary
(:func:`~baccarat_sim.report.math_report.math_report_dict`) and the plots the
analysis already draws, then compiled in a temporary folder. Every piece of
text from a rule file is passed to Typst as a string literal, never as markup,
so that a name holding ``#`` or ``*`` prints as written.
"""

from __future__ import annotations

import math
import tempfile
from pathlib import Path

from .math_report import math_report_dict, percent

__all__ = ["pdf_bytes", "typst_source", "write_pdf"]

#: Resolution of the plots embedded in the PDF.
PLOT_DPI = 150


def _s(text) -> str:
    r"""A Typst string literal: quotes and backslashes escaped, control characters as ``\\u{..}``."""
    out = []
    for char in str(text):
        if char in '\\"':
            out.append("\\" + char)
        elif char == "\n":
            out.append("\\n")
        elif ord(char) < 0x20 or ord(char) == 0x7F:
            out.append(f"\\u{{{ord(char):x}}}")
        else:
            out.append(char)
    return '"' + "".join(out) + '"'


def _rich(text) -> str:
    """Plain text as Typst markup; spans between backticks (rule files' ids and conditions) set as code."""
    pieces = str(text).split("`")
    if len(pieces) % 2 == 0:  # an unmatched backtick: the text as written
        pieces = [str(text)]
    # Even pieces are plain text, odd ones were between backticks.
    return "".join(f"#raw({_s(piece)})" if i % 2 else f"#{_s(piece)}" for i, piece in enumerate(pieces) if piece)


def _p(text) -> str:
    """A paragraph of plain text."""
    return _rich(text) + "\n\n"


def _num(value, spec: str = ".4f") -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "n/a"
    return format(value, spec)


def _table(head, rows, align=None, size: str = "8pt") -> str:
    columns = len(head)
    cells = ", ".join(f"[*#{_s(h)}*]" for h in head)
    body = ",\n  ".join(", ".join(_s(c) for c in row) for row in rows)
    aligns = "(" + ", ".join(align) + ",)" if align else "auto"
    return (f"#text(size: {size})[#table(columns: {columns}, align: {aligns}, stroke: 0.4pt + luma(160), "
            f"inset: 3pt,\n  table.header({cells}),\n  {body})]\n\n")


def _heading(level: int, text: str) -> str:
    return f"#heading(level: {level}, {_s(text)})\n\n"


def _summary(data: dict) -> str:
    rows = [[b["id"], percent(b["rtp"]), percent(b["house_edge"]), percent(b["hit_frequency"]),
             _num(b["sd"]), _num(b["monte_carlo"]["z"], "+.2f"),
             "n/a" if b["monte_carlo"]["passed"] is None else "pass" if b["monte_carlo"]["passed"] else "FAIL"]
            for b in data["bets"]]
    return _table(("bet", "RTP", "house edge", "hit frequency", "SD", "Monte Carlo z", "verification"), rows,
                  ("left",) + ("right",) * 6)


def _bet(bet: dict, data: dict, images: dict) -> str:
    combos = bet["combinations"]
    four = combos["four_card_divisor"]
    out = [_heading(1, f"{bet['name']} ({bet['id']})"), _heading(2, "The bet as the rule file states it")]
    out.append(_p(bet["description"]))
    extra = [f"Payouts: {bet['notation']}."]
    if bet["stake"] is not None:
        extra.append(f"Priced for a stake of {bet['stake']:g}.")
    if bet["max_round"] is not None:
        extra.append(f"Max Round Availability: offered in rounds 1 to {bet['max_round']} of a shoe.")
    if bet["stated_rtp"]:
        extra.append(f"The sheet states an RTP of {bet['stated_rtp']}.")
    out.append(_p(" ".join(extra)))
    out.append(_heading(2, "Combinations"))
    head = ["event", "pays", "net", "combinations"] + (["four-card sets"] if four else []) + \
        ["probability", "return", "1 in N"]
    rows = []
    for line in combos["lines"]:
        rows.append([line["event"], line["pays"], line["net_exact"], f"{line['combinations']:,}"]
                    + ([f"{line['four_card_sets']:,}"] if four else [])
                    + [f"{line['probability']:.10f}", f"{line['return']:+.10f}",
                       "never" if line["one_in"] is None else f"{line['one_in']:,.1f}"])
    rows.append(["total", "", "", f"{combos['total']:,}"] + ([f"{combos['four_card_total']:,}"] if four else [])
                + ["1", f"{-bet['house_edge']:+.10f}", ""])
    out.append(_table(head, rows, ("left", "left") + ("right",) * (len(head) - 2), size="7pt"))
    note = (f"The combinations are ordered deals of the six cards a round can use, {combos['total']:,} in all; the "
            "column sums to that total.")
    if four:
        note += (f" This bet reads the first four cards only: each unordered four-card set stands for {four:,} "
                 f"ordered six-card deals (24 orders of the four cards times the orders of the two cards after "
                 f"them), so the four-card sets sum to {combos['four_card_total']:,}, the publishers' count.")
    out.append(_p(note))
    vi = bet["volatility_index"]
    figures = [("RTP", percent(bet["rtp"], 6)), ("house edge", percent(bet["house_edge"], 6)),
               ("exact EV per unit", bet["ev_exact"]), ("hit frequency", percent(bet["hit_frequency"], 6)),
               ("push frequency", percent(bet["push_frequency"], 6)), ("standard deviation", _num(bet["sd"], ".6f")),
               *((f"volatility index {k}%", _num(v, ".4f")) for k, v in vi.items())]
    out.append(_table(("figure", "value"), figures, ("left", "right")))
    for line in combos["lines"]:
        if line["jackpot"]:
            verdict = "meets" if line["meets_1_in_100_million"] else "does NOT meet"
            out.append(_p(f"Jackpot line \"{line['event']}\": 1 in "
                          f"{'never' if line['one_in'] is None else format(line['one_in'], ',.0f')}; it {verdict} "
                          f"the rule that a jackpot's probability be at least 1 in {data['one_in_limit']:,} "
                          "(N.J.A.C. 13:69D-1.52(e)4; GLI-11 4.8.2)."))
    jackpot = bet["jackpot"]
    if jackpot is not None:
        out.append(_p(
            f"Progressive jackpot (meter in {jackpot['unit']}): RTP = {jackpot['base']:.8f} + {jackpot['slope']:.6g} "
            f"x meter (exact: {jackpot['base_exact']} + {jackpot['slope_exact']} x meter). Break-even meter "
            f"{_num(jackpot['break_even_meter'], ',.2f')}; priced at a meter of {jackpot['meter']:g}; RTP at reset "
            f"{percent(jackpot['rtp_at_reset'])}; long-run RTP {percent(jackpot['long_run_rtp'])} (n/a: the rule "
            "file gives no reset or contribution rate)."))
    if bet["hold"]:
        out.append(_hold(bet))
    out.append(_countability(bet, data))
    return _tail(out, bet, data)


def _hold(bet: dict) -> str:
    out = [_heading(2, "Hold confidence")]
    out.append(_p("The house's hold (its win as a fraction of the amount bet) on this bet alone over N rounds from "
                  "freshly shuffled shoes: the mean and the central 90%, 95% and 99% ranges, exact (the payout "
                  "lattice of the hold command, with its error bound)."))
    rows = [[f"{h['rounds']:,}", percent(h["hold_mean"], 3),
             *(f"{percent(h[f'central_{lv}'][0], 2)} to {percent(h[f'central_{lv}'][1], 2)}" for lv in (90, 95, 99)),
             f"{h['error_bound']:.1e}"] for h in bet["hold"]]
    out.append(_table(("rounds", "mean", "central 90%", "central 95%", "central 99%", "error bound"), rows,
                      ("right",) * 6))
    return "".join(out)


def _tail(out: list, bet: dict, data: dict) -> str:
    out.append(_heading(2, "Monte Carlo verification"))
    mc, run = bet["monte_carlo"], data["monte_carlo"]
    verdict = "n/a" if mc["passed"] is None else "PASS" if mc["passed"] else "FAIL"
    threads = "" if run["threads"] is None else f", {run['threads']} threads"
    out.append(_p(f"{run['rounds']:,} rounds, seed {run['seed']}{threads}: RTP {percent(mc['rtp'], 5)}, 95% confidence "
                  f"interval {percent(mc['ci95_low'], 5)} to {percent(mc['ci95_high'], 5)}, z = "
                  f"{_num(mc['z'], '+.3f')} against the exact {percent(bet['rtp'], 5)}: {verdict} "
                  f"(|z| < {run['fail_z']})."))
    if bet["positions"] is not None and bet["positions"].get("rtp_capped") is not None:
        p = bet["positions"]
        out.append(_p(f"Max Round Availability {p['max_round']}: RTP under it {percent(p['rtp_capped'], 4)} (standard "
                      f"error {percent(p['rtp_capped_se'], 4)}); minus the RTP over all rounds "
                      f"{percent(p['rtp_capped_minus_all'], 4)}."))
    return "".join(out)


def _countability(bet: dict, data: dict) -> str:
    out = [_heading(2, "Countability")]
    if "countability" in data["skipped"]:
        out.append(_p("Left out of this report (--skip countability)."))
        return "".join(out)
    eor = bet["eor_by_rank"]
    if eor is not None:
        out.append(_p("Effect of removal: the exact change in the bet's EV per unit when one card of the rank leaves "
                      "the full shoe (x 10^6)."))
        ranks = list(eor)
        out.append(_table(ranks, [[_num(None if v is None else 1e6 * v, "+.2f") for v in eor.values()]],
                          ("right",) * len(ranks), size="7pt"))
    count = bet["count"]
    if count is None:
        return "".join(out)
    if count["skipped"]:
        out.append(_p(f"Not counted: {count['skipped']}."))
        return "".join(out)
    tags = ", ".join(f"{k} {v:+d}" for k, v in count["tags"].items())
    out.append(_p(f"Best balanced level-{count['level']} count found (eor.derive_tags): {tags}; betting correlation "
                  f"{count['betting_correlation']:.3f}; bet at a true count of at least "
                  f"{count['break_even_true_count']:.3f} (its break-even)."))
    if count["bet_share"] is not None:
        rows = [("rounds bet", percent(count["bet_share"], 3)),
                ("average edge when bet", "n/a (never bet)" if count["advantage_per_bet"] is None else
                 f"{percent(count['advantage_per_bet'], 3)} +- {percent(count['advantage_se'], 3)}"),
                ("units per 100 rounds", f"{_num(count['units_per_100_rounds'], '+.4f')} +- "
                                         f"{_num(count['units_per_100_rounds_se'], '.4f')}"),
                ("units per shoe", f"{_num(count['units_per_shoe'], '+.4f')} +- "
                                   f"{_num(count['units_per_shoe_se'], '.4f')}"),
                ("rounds per shoe", _num(count["rounds_per_shoe"], ".2f")),
                ("Desirability Index", _num(count["desirability_index"], ".2f"))]
        out.append(_table((f"simulated through dealt shoes ({count['variant']})", "value"), rows, ("left", "right")))
    return "".join(out)


def _decks(data: dict) -> str:
    if data["decks"] is None:
        return ""
    shoes, own = data["decks"]["shoes"], data["decks"]["own"]
    head = ["shoe", *(b["id"] for b in data["bets"])]
    rows = [[s + (" (reported)" if s == own else ""), *(percent(b["house_edge_by_shoe"][s]) for b in data["bets"])]
            for s in shoes]
    return (_heading(1, "House edge by deck count") +
            _p("Exact house edge of every bet off the top of a freshly shuffled shoe of each size.") +
            _table(head, rows, ("left",) + ("right",) * len(data["bets"]), size="7pt"))


def _dealt(data: dict, images: dict) -> str:
    out = [_heading(1, "Dealt-shoe effects")]
    sweep = data["sweep"]
    if sweep is None and data["dealing"]["model"] == "fresh":
        out.append(_p("The rule set shuffles before every round: no round is dealt from a depleted shoe, so the "
                      "cut card and the round's position have no effect."
                      + ("" if data["counting"] is None else " (The counting study deals shoes through to the cut "
                                                               "card to measure what a counter could gain.)")))
        return "".join(out)
    out.append(_p("The shoe is dealt through to the cut card: a round's position in the shoe changes what it can "
                  "deal. RTP by round position, from the Monte Carlo verification run (its seed):"))
    if "by-round" in images:
        out.append(f"#image({_s(images['by-round'])}, width: 100%)\n\n")
    if sweep is not None:
        out.append(_p(f"RTP by cut-card position, Monte Carlo: {data['sizes']['sweep_rounds']:,} rounds at each "
                      f"position, seed {sweep['run']['seed']}."))
        rows = [[f"{cut['cut_from_end'][0]}" + (f"-{cut['cut_from_end'][1]}" if cut["cut_from_end"][1] !=
                                                 cut["cut_from_end"][0] else ""),
                 _num(cut.get("rounds_per_shoe"), ".2f"),
                 *(f"{percent(b['rtp'], 3)} +- {percent(1.96 * b['se'], 3)}" for b in cut["bets"])]
                for cut in sweep["cuts"]]
        ids = [b["id"] for b in sweep["cuts"][0]["bets"]] if sweep["cuts"] else []
        out.append(_table(("cut card (cards from end)", "rounds per shoe", *ids), rows,
                          ("right",) * (2 + len(ids)), size="7pt"))
        if "sweep" in images:
            out.append(f"#image({_s(images['sweep'])}, width: 100%)\n\n")
    return "".join(out)


def typst_source(data: dict, images: dict) -> str:
    """The Typst document of the report (``images``: plot name -> file name beside the source)."""
    rules = data["rules"]
    manifest = data["manifest"]
    head = (
        '#set page(paper: "a4", margin: (x: 1.6cm, y: 1.8cm), numbering: "1 / 1", '
        f'header: align(right, text(size: 8pt, {_s("Math report: " + rules["id"])})))\n'
        '#set text(size: 9.5pt)\n#set heading(numbering: "1.1")\n#set par(justify: true)\n\n'
        f"#align(center)[#text(size: 20pt, weight: \"bold\", {_s('Math report')})\\ "
        f"#text(size: 13pt, {_s(rules['name'])})]\n\n"
    )
    out = [head]
    out.append(_table(("", ""), [("rule set", rules["id"]), ("rule file", rules["path"]),
                                 ("rule file SHA-256", rules["sha256"]), ("source", rules["source"]),
                                 ("package", f"baccarat_sim {manifest['package_version']} (random stream "
                                             f"{manifest['random_stream_version']})"),
                                 ("date", manifest["date"]), ("seed", str(manifest["seed"]))],
                      ("left", "left"), size="8pt"))
    out.append("#outline(depth: 1, indent: auto)\n\n")
    out.append(_heading(1, "Summary"))
    out.append(_summary(data))
    out.append(_p(f"Every figure is exact (integer combinations, exact fractions) unless it says Monte Carlo. "
                  f"Monte Carlo verification: {data['monte_carlo']['rounds']:,} rounds, seed "
                  f"{data['monte_carlo']['seed']}; "
                  + ("every bet passes." if data["monte_carlo"]["passed"] else "a bet FAILED.")))
    out.append(_heading(1, "Dealing assumptions"))
    out += [f"- {_rich(line)}\n" for line in data["dealing"]["statements"]]
    out += [f"- {_rich(line)}\n" for line in rules["assumptions"]]
    out.append("\n")
    out += [_bet(bet, data, images) for bet in data["bets"]]
    out.append(_decks(data))
    out.append(_dealt(data, images))
    if "countability" not in data["skipped"]:
        out.append(_heading(1, "Countability: method"))
        out.append(_p(data["desirability_index_definition"]))
    if data["counting"] is not None:
        c = data["counting"]
        out.append(_p(f"Counting study: {c['shoes']:,} shoes ({c['rounds']:,} rounds) dealt to the cut card, seed "
                      f"{c['seed']}, every counted bet played at once by the strategy file {c['strategy_file']} "
                      "written beside this report."))
    if "eor" in images:
        out.append(f"#image({_s(images['eor'])}, width: 100%)\n\n")
    out.append(_heading(1, "Monte Carlo convergence"))
    if "convergence" in images:
        out.append(f"#image({_s(images['convergence'])}, width: 100%)\n\n")
    out.append(_heading(1, "Reproducibility manifest"))
    rows = []
    for key, value in manifest.items():
        if isinstance(value, dict):
            rows += [(f"{key}: {k}", "" if v is None else str(v)) for k, v in value.items()]
        else:
            rows.append((key, "" if value is None else str(value)))
    out.append(_table(("item", "value"), rows, ("left", "left"), size="7pt"))
    if data["notes"]:
        out.append(_heading(2, "Notes"))
        out += [f"- {_rich(note)}\n" for note in data["notes"]]
    return "".join(out)


def _plots(submission, folder: Path) -> dict:
    """The plots the analysis already draws, as PNG files in ``folder``: name -> file name."""
    from . import plots
    from .advantage_plots import eor_figure
    from .run_report import Report

    result = submission.result
    report = Report(result.run)
    figures = {"convergence": plots.convergence_figure(report), "by-round": plots.rtp_by_round_figure(report)}
    if result.eor is not None:
        figures["eor"] = eor_figure(result.eor)
    if result.sweep is not None and result.sweep.analyses:
        figures["sweep"] = plots.cut_sweep_figure(result.sweep)
    images = {}
    for name, figure in figures.items():
        if figure is None:
            continue
        title = getattr(figure, "_suptitle", None)  # a long title wraps within the figure, not past its edges
        if title is not None:
            title.set_wrap(True)
        figure.savefig(folder / f"{name}.png", dpi=PLOT_DPI, format="png")
        images[name] = f"{name}.png"
    return images


def pdf_bytes(submission) -> bytes:
    """The PDF of a :class:`~baccarat_sim.report.math_report.Submission`."""
    import typst

    data = math_report_dict(submission)
    with tempfile.TemporaryDirectory(prefix="baccarat-math-report-") as tmp:
        folder = Path(tmp)
        images = _plots(submission, folder)
        source = folder / "report.typ"
        source.write_text(typst_source(data, images), encoding="utf-8")
        return typst.compile(str(source), root=str(folder))


def write_pdf(path, submission) -> None:
    """Write the PDF to ``path``."""
    Path(path).write_bytes(pdf_bytes(submission))
