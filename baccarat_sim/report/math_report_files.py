"""The files of a math report, written as one set by the one writer (:mod:`baccarat_sim.storage.writing`).

``{rules}-math-report.pdf``, ``.xlsx``, ``.md`` and ``.json``, and the counting
study's strategy file ``{rules}-derived-counts.toml``: all appear together
under their final names, or none does.
"""

from __future__ import annotations

from pathlib import Path

from ..storage.writing import write_file_set
from .math_report import math_report_json, math_report_markdown

__all__ = ["REPORT_SUFFIXES", "report_stem", "write_math_report_files"]

#: The files a math report writes, after its stem.
REPORT_SUFFIXES = (".pdf", ".xlsx", ".md", ".json")


def report_stem(rules) -> str:
    """The name every report file starts with: ``{rules id}-math-report``."""
    return f"{rules.id}-math-report"


def write_math_report_files(submission, directory) -> list[Path]:
    """Write the PDF, workbook, Markdown, JSON (and strategy file) of a submission into ``directory``."""
    from .pdf import pdf_bytes
    from .workbook import write_workbook

    stem = report_stem(submission.result.rules)
    pdf = pdf_bytes(submission)  # compiled before anything is staged: a Typst error leaves nothing behind
    json_text, markdown = math_report_json(submission), math_report_markdown(submission)
    files = {
        f"{stem}.pdf": lambda path: path.write_bytes(pdf),
        f"{stem}.xlsx": lambda path: write_workbook(path, submission),
        f"{stem}.md": lambda path: path.write_text(markdown, encoding="utf-8"),
        f"{stem}.json": lambda path: path.write_text(json_text + "\n", encoding="utf-8"),
    }
    if submission.strategy_file is not None:
        strategy = submission.result.count_strategy
        files[submission.strategy_file] = lambda path: path.write_text(strategy, encoding="utf-8")
    return write_file_set(directory, files)
