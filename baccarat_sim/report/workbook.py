"""The math report as an Excel workbook whose arithmetic is live formulas (XlsxWriter).

Sheets: ``Summary`` (every bet, its figures read from its own sheet), one
sheet per bet (its combinations table), ``Decks`` (the exact house edge by
deck count) and ``Manifest``. On a bet's sheet the net win of each line is a
plain number (the pay cell a reviewer may change), and everything else is a
formula: the combinations of a line, its probability ``= combinations /
total``, its return ``= probability x net``, the totals by ``SUM``, the RTP,
house edge, hit and push frequencies, SD and volatility index from those
cells. A jackpot bet's net is ``net at meter 0 + per unit of meter x meter``,
the meter a cell too. Every formula is written with its value, so that a
reader that does not recalculate shows the figures as well.

Exact integers and Excel. A cell holds an IEEE double: integers are exact up to
2^53 (about 9.007e15), but Excel shows at most 15 significant digits and keeps
only 15 of a number typed in, so a 16-digit count loses its last digit on
screen and on entry (Wizard of Odds' Lucky Match prints its Loser row as
4,351,974,838,370,300 for 4,351,974,838,370,304). Each count is therefore
written three ways: as text (exact, every digit), and as two whole numbers
below 10^9, ``high`` and ``low``, which the formula ``= high x 10^9 + low``
recombines (exact below 2^53, within one part in 10^16 above it); the text is
what a reviewer reads, the formula what the arithmetic uses. The check that
the column sums to the stated total adds the two parts separately, so that it
is exact at any size.
"""

from __future__ import annotations

from fractions import Fraction

from ..analysis.math_report_parts import VOLATILITY_Z
from .math_report import math_report_dict

__all__ = ["SPLIT", "bet_sheet_names", "write_workbook"]

#: The base of the two numeric parts of a count: ``count = high x SPLIT + low``.
SPLIT = 10**9
#: The first row (0-based) of a bet sheet's combinations table (below its header lines).
TABLE_ROW = 8
COLUMNS = ("Event", "Pays (as written)", "Net win at meter 0 (edit me)", "Net per unit of meter", "Net win",
           "Combinations (exact)", "Combinations / 10^9", "Combinations mod 10^9", "Combinations", "Probability",
           "Return", "1 in N")


def _col(index: int) -> str:
    return chr(ord("A") + index)


def bet_sheet_names(bet_ids) -> list[str]:
    r"""Excel sheet names for the bets: the id, at most 31 characters, unique, without ``[]:*?/\\``."""
    names, seen = [], set()
    for i, bet_id in enumerate(bet_ids):
        base = "".join(c for c in bet_id if c not in "[]:*?/\\'")[:28] or f"bet{i + 1}"
        name, n = base, 2
        while name.lower() in seen or name.lower() in ("summary", "decks", "manifest"):
            name, n = f"{base[:26]}_{n}", n + 1
        seen.add(name.lower())
        names.append(name)
    return names


def write_workbook(path, submission) -> None:
    """Write the workbook of a :class:`~baccarat_sim.report.math_report.Submission` to ``path``."""
    import xlsxwriter

    data = math_report_dict(submission)
    book = xlsxwriter.Workbook(str(path), {"strings_to_numbers": False, "strings_to_formulas": False,
                                          "strings_to_urls": False})
    book.set_calc_mode("auto")
    book.set_properties({"title": f"Math report: {data['rules']['name']}", "author": "baccarat_sim",
                         "comments": f"rule file SHA-256 {data['rules']['sha256']}"})
    styles = {
        "title": book.add_format({"bold": True, "font_size": 14}),
        "head": book.add_format({"bold": True, "bg_color": "#DDE5F0", "text_wrap": True, "valign": "top",
                                 "border": 1}),
        "int": book.add_format({"num_format": "#,##0"}),
        "text": book.add_format({"num_format": "@"}),
        "prob": book.add_format({"num_format": "0.000000000000"}),
        "pct": book.add_format({"num_format": "0.0000%"}),
        "num": book.add_format({"num_format": "0.000000"}),
        "edit": book.add_format({"bg_color": "#FFF2CC", "num_format": "0.######"}),
        "bold": book.add_format({"bold": True}),
        "wrap": book.add_format({"text_wrap": True, "valign": "top"}),
    }
    names = bet_sheet_names([bet["id"] for bet in data["bets"]])
    summary = book.add_worksheet("Summary")
    cells = [_bet_sheet(book, name, bet, section, styles)
             for name, bet, section in zip(names, data["bets"], submission.result.sections)]
    _summary(summary, data, names, cells, styles)
    _decks(book.add_worksheet("Decks"), data, submission, styles)
    _manifest(book.add_worksheet("Manifest"), data, styles)
    book.close()


def _bet_sheet(book, name: str, bet: dict, section, styles) -> dict:
    """One bet's combinations table with live formulas; returns the addresses of its figures."""
    sheet = book.add_worksheet(name)
    sheet.set_column(0, 0, 34)
    sheet.set_column(1, 1, 22)
    sheet.set_column(2, 4, 14)
    sheet.set_column(5, 5, 22)
    sheet.set_column(6, 8, 18)
    sheet.set_column(9, 11, 18)
    sheet.write(0, 0, f"{bet['name']} ({bet['id']})", styles["title"])
    sheet.write(1, 0, bet["description"])
    sheet.write(2, 0, f"Payouts: {bet['notation']}. Combinations: ordered deals of the round's six cards.")
    combos = bet["combinations"]
    sheet.write(3, 0, "Stated total combinations (exact)")
    sheet.write_string(3, 1, str(combos["total"]), styles["text"])
    sheet.write(3, 2, combos["total"] // SPLIT, styles["int"])
    sheet.write(3, 3, combos["total"] % SPLIT, styles["int"])
    sheet.write_formula(3, 4, f"=C4*{SPLIT}+D4", styles["int"], float(combos["total"]))
    meter = bet["jackpot"]["meter"] if bet["jackpot"] is not None else 0
    sheet.write(4, 0, "Jackpot meter" + (f" ({bet['jackpot']['unit']})" if bet["jackpot"] else " (no jackpot)"))
    sheet.write_number(4, 1, meter, styles["edit"] if bet["jackpot"] else None)
    sheet.write(5, 0, "Yellow cells are inputs: change a net win (or the meter) and every figure below follows.")
    for c, title in enumerate(COLUMNS):
        sheet.write(TABLE_ROW - 1, c, title, styles["head"])
    first = TABLE_ROW + 1  # Excel's row number of the first line
    last = first + len(combos["lines"]) - 1
    total_row = last + 1
    rng = {c: f"${c}${first}:${c}${last}" for c in "EGHIJK"}
    for i, (line, row) in enumerate(zip(combos["lines"], section.lines)):
        r = TABLE_ROW + i
        excel_row = r + 1
        at_zero = row.net - row.per_meter * Fraction(section.bet.meter or 0)
        sheet.write_string(r, 0, line["event"])
        sheet.write_string(r, 1, line["pays"])
        sheet.write_number(r, 2, float(at_zero), styles["edit"])
        sheet.write_number(r, 3, float(row.per_meter))
        sheet.write_formula(r, 4, f"=C{excel_row}+D{excel_row}*$B$5", styles["num"], float(row.net))
        sheet.write_string(r, 5, str(row.combinations), styles["text"])
        sheet.write_number(r, 6, row.combinations // SPLIT, styles["int"])
        sheet.write_number(r, 7, row.combinations % SPLIT, styles["int"])
        sheet.write_formula(r, 8, f"=G{excel_row}*{SPLIT}+H{excel_row}", styles["int"], float(row.combinations))
        sheet.write_formula(r, 9, f"=I{excel_row}/$I${total_row + 1}", styles["prob"], float(row.probability))
        sheet.write_formula(r, 10, f"=J{excel_row}*E{excel_row}", styles["prob"], float(row.contribution))
        one_in = line["one_in"]
        sheet.write_formula(r, 11, f'=IF(J{excel_row}>0,1/J{excel_row},"never")', styles["num"],
                            one_in if one_in is not None else "never")
    t = total_row  # 0-based row of the totals
    tr = t + 1
    sheet.write(t, 0, "Total", styles["bold"])
    sheet.write_string(t, 5, str(combos["total"]), styles["text"])
    sheet.write_formula(t, 8, f"=SUM({rng['I']})", styles["int"], float(combos["total"]))
    sheet.write_formula(t, 9, f"=SUM({rng['J']})", styles["prob"], 1.0)
    sheet.write_formula(t, 10, f"=SUM({rng['K']})", styles["prob"], -bet["house_edge"])
    figures = [
        # Part by part, each sum below 2^53: exact at any size (the recombined counts are rounded above 2^53).
        ("Total equals the stated total (difference)",
         f"=(SUM({rng['G']})-C4)*{SPLIT}+(SUM({rng['H']})-D4)", 0, styles["int"]),
        ("RTP", f"=1+K{tr}", bet["rtp"], styles["pct"]),
        ("House edge", f"=-K{tr}", bet["house_edge"], styles["pct"]),
        ("Hit frequency", f'=SUMIF({rng["E"]},">0",{rng["J"]})', bet["hit_frequency"], styles["pct"]),
        ("Push frequency", f'=SUMIF({rng["E"]},"=0",{rng["J"]})', bet["push_frequency"], styles["pct"]),
        ("Standard deviation", f"=SQRT(SUMPRODUCT({rng['J']},{rng['E']},{rng['E']})-K{tr}^2)", bet["sd"],
         styles["num"]),
    ]
    addresses = {}
    base = t + 2
    for i, (label, formula, value, style) in enumerate(figures):
        sheet.write(base + i, 0, label, styles["bold"])
        sheet.write_formula(base + i, 1, formula, style, value)
        addresses[label] = f"'{name}'!$B${base + i + 1}"
    sd_cell = f"B{base + len(figures)}"
    for j, (level, z) in enumerate(VOLATILITY_Z.items()):
        row = base + len(figures) + j
        sheet.write(row, 0, f"Volatility index {level}% (z x SD)", styles["bold"])
        sheet.write_formula(row, 1, f"={z!r}*{sd_cell}", styles["num"], z * bet["sd"])
        addresses[f"VI{level}"] = f"'{name}'!$B${row + 1}"
    return addresses


def _summary(sheet, data: dict, names, cells, styles) -> None:
    rules = data["rules"]
    sheet.set_column(0, 0, 28)
    sheet.set_column(1, 1, 36)
    sheet.set_column(2, 12, 15)
    sheet.write(0, 0, f"Math report: {rules['name']}", styles["title"])
    sheet.write(1, 0, "Rule set")
    sheet.write(1, 1, f"{rules['id']} ({rules['path']})")
    sheet.write(2, 0, "Rule file SHA-256")
    sheet.write(2, 1, rules["sha256"])
    sheet.write(3, 0, "Dealing")
    sheet.write(3, 1, " ".join(data["dealing"]["statements"]))
    mc = data["monte_carlo"]
    sheet.write(4, 0, "Monte Carlo")
    sheet.write(4, 1, f"{mc['rounds']:,} rounds, seed {mc['seed']}, pass when |z| < {mc['fail_z']}")
    head = ("Bet", "Name", "RTP", "House edge", "Hit frequency", "Push frequency", "SD", "VI 90%", "VI 95%",
            "VI 99%", "Monte Carlo RTP", "z", "Pass")
    row0 = 6
    for c, title in enumerate(head):
        sheet.write(row0, c, title, styles["head"])
    for i, (bet, name, addr) in enumerate(zip(data["bets"], names, cells)):
        r = row0 + 1 + i
        sheet.write_url(r, 0, f"internal:'{name}'!A1", string=bet["id"])
        sheet.write_string(r, 1, bet["name"])
        for c, (key, value, style) in enumerate((
                ("RTP", bet["rtp"], "pct"), ("House edge", bet["house_edge"], "pct"),
                ("Hit frequency", bet["hit_frequency"], "pct"), ("Push frequency", bet["push_frequency"], "pct"),
                ("Standard deviation", bet["sd"], "num"), ("VI90", bet["volatility_index"]["90"], "num"),
                ("VI95", bet["volatility_index"]["95"], "num"), ("VI99", bet["volatility_index"]["99"], "num")), 2):
            sheet.write_formula(r, c, f"={addr[key]}", styles[style], value)
        check = bet["monte_carlo"]
        if check["rtp"] is not None:
            sheet.write_number(r, 10, check["rtp"], styles["pct"])
        if check["z"] is not None:
            sheet.write_number(r, 11, check["z"], styles["num"])
        sheet.write(r, 12, "n/a" if check["passed"] is None else "pass" if check["passed"] else "FAIL")


def _decks(sheet, data: dict, submission, styles) -> None:
    sheet.set_column(0, 0, 22)
    sheet.set_column(1, len(data["bets"]), 20)
    sheet.write(0, 0, "Exact house edge by shoe (each column a separate exact enumeration)", styles["title"])
    table = submission.result.decks
    if table is None:
        sheet.write(2, 0, "Left out of this report (--skip decks).")
        return
    sheet.write(2, 0, "Shoe", styles["head"])
    for c, bet in enumerate(data["bets"], 1):
        sheet.write(2, c, bet["id"], styles["head"])
    for r, label in enumerate(table.shoes, 3):
        sheet.write(r, 0, label + (" (reported)" if label == table.own else ""))
        for c, bet in enumerate(data["bets"], 1):
            sheet.write_number(r, c, float(table.house_edge[bet["id"]][r - 3]), styles["pct"])


def _manifest(sheet, data: dict, styles) -> None:
    sheet.set_column(0, 0, 24)
    sheet.set_column(1, 1, 120)
    sheet.write(0, 0, "Reproducibility manifest", styles["title"])
    r = 2
    for key, value in data["manifest"].items():
        items = value.items() if isinstance(value, dict) else [(None, value)]
        for sub, item in items:
            sheet.write_string(r, 0, key if sub is None else f"{key}: {sub}")
            sheet.write_string(r, 1, "" if item is None else str(item))
            r += 1
