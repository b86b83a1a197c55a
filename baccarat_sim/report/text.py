r"""Text that is safe to print: what a terminal would obey is shown as an escape instead.

Names in a rule file (rule set, bets, claims, assumptions) are data a stranger
may have written, and so are the paths and values an error message quotes.
Control characters and invisible format characters would be obeyed by a
terminal or a text viewer (``ESC [2J`` clears the screen, ``U+202E`` reverses
the text after it): they are shown as escapes such as ``\x1b``. Plain Python
(no numpy, no pandas), so that the command lines' one-line errors use it
without slowing ``--help``; :mod:`baccarat_sim.report.render` builds every
table and CSV file on it.
"""

from __future__ import annotations

import re

__all__ = ["MAX_LINE", "cell_text", "one_line", "terminal_text"]

#: Characters a terminal or text viewer obeys instead of showing (besides the line break): C0 and C1 controls, DEL,
#: zero-width and bidirectional formatting characters, line and paragraph separators, the byte-order mark.
_FORMAT_CHARACTERS = r"\x7f-\x9f\u061c\u180e\u200b\u200e\u200f\u2028-\u202e\u2060-\u206f\ufeff\ufff9-\ufffb"
_UNSAFE_KEEPING_LINES = re.compile(rf"[\x00-\x09\x0b-\x1f{_FORMAT_CHARACTERS}]")
_UNSAFE = re.compile(rf"[\x00-\x1f{_FORMAT_CHARACTERS}]")
#: Longest one-line message (an error quoting a 200 KB condition keeps its start and end).
MAX_LINE = 1000


_NAMED_ESCAPES = {"\n": "\\n", "\t": "\\t", "\r": "\\r"}


def _escape(match: re.Match) -> str:
    character = match.group()
    if character in _NAMED_ESCAPES:
        return _NAMED_ESCAPES[character]
    code = ord(character)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def terminal_text(text: str) -> str:
    r"""``text`` with every character a terminal would obey shown as an escape; line breaks are kept.

    Examples
    --------
    >>> print(terminal_text("Tie\x1b[2J\u202e\nPays"))
    Tie\x1b[2J\u202e
    Pays
    """
    return _UNSAFE_KEEPING_LINES.sub(_escape, text)


def cell_text(value) -> str:
    r"""A table cell as one line of safe text (line breaks and tabs are escaped too).

    Examples
    --------
    >>> print(cell_text("Bet\nTwo\x07"))
    Bet\nTwo\x07
    """
    return _UNSAFE.sub(_escape, str(value))


def one_line(text: str, limit: int = MAX_LINE) -> str:
    """A message as one safe line of at most ``limit`` characters (its start and end kept).

    Examples
    --------
    >>> line = one_line("unexpected " + "x" * 200_000, limit=100)
    >>> len(line) <= 100, line.endswith("x" * 20), "199,951 characters left out" in line
    (True, True, True)
    """
    line = cell_text(text)
    if len(line) <= limit:
        return line
    return f"{line[: limit - 60]} … ({len(line) - limit + 40:,} characters left out) … {line[-20:]}"
