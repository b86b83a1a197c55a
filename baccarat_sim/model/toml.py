"""The one TOML loader and validator of the package's data files: rule sets and counting strategies.

Both kinds of file are versioned TOML, read as bounded UTF-8 text and checked
key by key; every problem is one :class:`~baccarat_sim.errors.InputError` line
``file: key.path: what is wrong and what is allowed``. The limits below keep a
hostile file from costing more than a moment: numbers are checked on their
digits before they are converted (``1e1000000000`` would otherwise be computed
in full), nesting is bounded, and only regular files are read. Nesting is
bounded before the text is parsed (:func:`_nesting_problem`): a dotted key or
table header of thousands of parts costs ``tomllib`` time quadratic in its
parts (20,000 parts, 40 KB: 20 s); a linear scan refuses such text first.
"""

from __future__ import annotations

import difflib
import math
import re
import tomllib
from fractions import Fraction
from pathlib import Path

from ..errors import InputError
from ..storage.reading import FileRefused, read_regular_file

__all__ = ["MAX_DIGITS", "MAX_EXPONENT", "MAX_FILE_BYTES", "MAX_NESTING", "Checker", "exact_number", "read_toml",
           "read_toml_file"]

#: Largest data file read, in bytes (the biggest shipped rule set is 15 KB).
MAX_FILE_BYTES = 4 * 1024 * 1024
#: Deepest nesting of arrays and tables accepted in a data file.
MAX_NESTING = 32
#: Most digits a number may have, before and after the decimal point together.
MAX_DIGITS = 40
#: Largest decimal exponent a number may have (``1e30``).
MAX_EXPONENT = 30
#: Longest string value quoted in a message.
EXCERPT = 60

_DECIMAL = re.compile(r"^[+-]?(?P<int>\d*)(?:\.(?P<frac>\d*))?(?:[eE](?P<exp>[+-]?\d+))?$")
_RATIO = re.compile(r"^[+-]?\d+\s*/\s*\d+$")
_BOM = b"\xef\xbb\xbf"


def exact_number(text: str) -> Fraction | None:
    """The exact value of a decimal (``0.05``, ``-6e4``) or ratio (``1/20``) text, or None.

    None also when the text has more than :data:`MAX_DIGITS` digits or an
    exponent beyond :data:`MAX_EXPONENT`: the digits and the exponent are
    checked before anything is converted (``Fraction("1e100000000")`` would
    compute a number of a hundred million digits). The one bounded reader of
    exact numbers: data files and the command lines' amounts alike.

    Examples
    --------
    >>> exact_number("0.05"), exact_number("1/20"), exact_number("1e31")
    (Fraction(1, 20), Fraction(1, 20), None)
    """
    if _RATIO.match(text):
        numerator, denominator = (part.strip() for part in text.split("/"))
        if len(numerator.lstrip("+-")) + len(denominator) > MAX_DIGITS or int(denominator) == 0:
            return None
        return Fraction(int(numerator), int(denominator))
    match = _DECIMAL.match(text)
    if not match or not (match["int"] or match["frac"]):
        return None
    digits = len(match["int"] or "") + len(match["frac"] or "")
    exponent = match["exp"]
    if digits > MAX_DIGITS or (exponent is not None and (len(exponent) > 4 or abs(int(exponent)) > MAX_EXPONENT)):
        return None
    return Fraction(text)


def excerpt(value, limit: int = EXCERPT) -> str:
    """``repr`` of a value, shortened to about ``limit`` characters for a message."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 5] + "…" + text[-4:]


def read_toml(data: bytes | str, label: str, error: type[InputError]) -> tuple[bytes, dict]:
    """Decode TOML text (str or UTF-8 bytes, a leading byte-order mark allowed) into its bytes and document.

    The bytes are returned because callers hash them into their results.

    Raises
    ------
    error
        ``label: not UTF-8 text``, ``label: malformed TOML: ...``, or a limit
        (size, nesting, digits) the text breaks, with the limit named.
    """
    raw = data.encode() if isinstance(data, str) else bytes(data)
    if len(raw) > MAX_FILE_BYTES:
        raise error("", f"{label}: {len(raw):,} bytes, more than the limit of {MAX_FILE_BYTES:,}")
    try:
        text = raw.removeprefix(_BOM).decode("utf-8")
    except UnicodeDecodeError:
        raise error("", f"{label}: not UTF-8 text") from None
    problem = _nesting_problem(text)
    if problem is not None:
        raise error("", f"{label}: {problem}")
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as toml_error:
        problem = f"malformed TOML: {toml_error}"
    except RecursionError:
        problem = f"nested too deeply; at most {MAX_NESTING} levels of arrays and tables are allowed"
    except ValueError:  # an integer of thousands of digits, beyond what Python converts
        problem = f"a number is too long; at most {MAX_DIGITS} digits are allowed"
        longest = max(re.finditer(r"\d[\d_]*", text), key=lambda m: len(m.group()), default=None)
        if longest is not None:
            line = text.count("\n", 0, longest.start()) + 1
            problem = (f"line {line}: a number of {len(longest.group().replace('_', '')):,} digits; at most "
                       f"{MAX_DIGITS} digits are allowed")
    if problem is not None:
        raise error("", f"{label}: {problem}")
    if _depth(document) > MAX_NESTING:
        raise error("", f"{label}: nested too deeply; at most {MAX_NESTING} levels of arrays and tables are allowed")
    return raw, document


#: One part of a dotted key: bare, "basic" or 'literal' (possessive: no backtracking on a long part).
_PART = r"""(?:[A-Za-z0-9_-]++|"(?:[^"\\\n]|\\.)*+"|'[^'\n]*+')"""
#: What the scan steps over whole, so that nothing inside it counts: comments and multi-line strings; then a
#: dotted key of more than MAX_NESTING parts (starting where no part could end before it); then one-line strings
#: and single brackets.
_SCAN = re.compile(
    r"""#[^\n]*+|\"\"\"[^"\\]*+(?:(?:\\.|"(?!""))[^"\\]*+)*+\"\"\"|'''[^']*+(?:'(?!'')[^']*+)*+'''"""
    rf"""|(?P<chain>(?<![A-Za-z0-9_.\-"']){_PART}(?:[ \t]*+\.[ \t]*+{_PART}){{{MAX_NESTING},}})"""
    r"""|"(?:[^"\\\n]|\\.)*+"|'[^'\n]*+'|(?P<open>[\[{])|(?P<close>[\]}])""",
    re.DOTALL)


def _nesting_problem(text: str) -> str | None:
    """Why ``text`` nests deeper than :data:`MAX_NESTING` (a key of too many parts, too many brackets), or None.

    A linear scan, before ``tomllib`` parses anything: a document it lets
    through may still be malformed (``tomllib`` says so), but never costs more
    than its length. A dotted key or header of more than ``MAX_NESTING``
    parts, or more than ``MAX_NESTING`` open brackets, nests tables deeper
    than the parsed document may be (:func:`_depth`), so nothing valid is
    refused here.
    """
    depth = 0
    for match in _SCAN.finditer(text):
        if match["chain"] is not None:
            line = text.count("\n", 0, match.start()) + 1
            return (f"line {line}: nested too deeply: a dotted key or table header of more than {MAX_NESTING} parts; "
                    f"at most {MAX_NESTING} levels of tables are allowed")
        if match["open"] is not None:
            depth += 1
            if depth > MAX_NESTING + 1:  # a table header's own two brackets, on top of the levels
                line = text.count("\n", 0, match.start()) + 1
                return (f"line {line}: nested too deeply; at most {MAX_NESTING} levels of arrays and tables are "
                        "allowed")
        elif match["close"] is not None:
            depth = max(0, depth - 1)
    return None


def read_toml_file(path: str | Path, label: str, what: str, error: type[InputError]) -> tuple[bytes, dict]:
    """:func:`read_toml` of a regular file of at most :data:`MAX_FILE_BYTES` (FIFOs and devices are refused)."""
    try:
        data = read_regular_file(path, MAX_FILE_BYTES, what)
    except FileRefused as refused:
        raise error("", f"{label}: {refused}") from None
    return read_toml(data, label, error)


def shipped_names(folder) -> list[str]:
    """Names of the ``.toml`` files shipped in a package folder (``importlib.resources`` traversable)."""
    return sorted(p.name[: -len(".toml")] for p in folder.iterdir() if p.name.endswith(".toml"))


def read_named_toml(name_or_path, folder, what: str, file_what: str, error: type[InputError],
                    param: str) -> tuple[bytes, dict, str]:
    """A data file by path, or a shipped one by name: ``(raw bytes, document, label)``.

    A text ending in ``.toml``, naming an existing file or holding a path
    separator is a path; anything else names a file shipped in ``folder``.

    Raises
    ------
    InputError
        ``error``: the file cannot be read or parsed (``file_what`` says what
        it is); ``param``: an unknown name, with the nearest shipped one
        (``what`` says what it names).
    """
    text = str(name_or_path)
    path = Path(text)
    if not text.strip():  # Path("") is the working folder: say what is missing, not "'.' is a directory"
        raise error(param, f"an empty name; give a shipped {what} ({', '.join(shipped_names(folder))}) or a .toml path")
    if text.endswith(".toml") or path.exists() or "/" in text or "\\" in text:
        raw, document = read_toml_file(path, text, file_what, error)
        return raw, document, text
    shipped = folder / f"{text}.toml"
    if not shipped.is_file():
        names = shipped_names(folder)
        close = difflib.get_close_matches(text, names, n=1)
        hint = f"did you mean {close[0]!r}? " if close else ""
        raise error(param, f"unknown {what} {text!r}; {hint}shipped: {', '.join(names)} (or a .toml path)")
    raw, document = read_toml(shipped.read_bytes(), f"{text}.toml", error)
    return raw, document, f"{text}.toml"


def _depth(value) -> int:
    """Nesting depth of a parsed document (iterative: a deep document must not exhaust the stack)."""
    deepest, todo = 0, [(value, 0)]
    while todo:
        item, level = todo.pop()
        deepest = max(deepest, level)
        if level > MAX_NESTING:
            break
        if isinstance(item, dict):
            todo.extend((v, level + 1) for v in item.values())
        elif isinstance(item, list):
            todo.extend((v, level + 1) for v in item)
    return deepest


def kind(value) -> str:
    """TOML type name of a parsed value, for messages."""
    return {bool: "boolean", int: "integer", float: "float", str: "string", list: "array",
            dict: "table"}.get(type(value), type(value).__name__)


class Checker:
    """Walks a parsed TOML document; every error is one line ``file: key.path: message``.

    Parameters
    ----------
    label : str
        The file, as the message names it.
    error : type of InputError
        The error raised (``InvalidRules``, ``InvalidStrategy``).
    """

    def __init__(self, label: str, error: type[InputError]):
        self.label = label
        self.error = error

    def fail(self, key: str, message: str):
        """Raise the one-line error for ``key``."""
        raise self.error("", f"{self.label}: {key}: {message}" if key else f"{self.label}: {message}")

    def table(self, value, key) -> dict:
        """A TOML table."""
        if not isinstance(value, dict):
            self.fail(key, f"must be a table, got {kind(value)}")
        return value

    def known(self, table: dict, key: str, allowed: set[str]):
        """Refuse keys outside ``allowed``, suggesting the nearest."""
        self.table(table, key or "document")
        for name in table:
            if name not in allowed:
                close = difflib.get_close_matches(name, allowed, n=1)
                hint = f"did you mean {close[0]!r}? " if close else ""
                self.fail(f"{key}.{name}" if key else name, f"unknown key; {hint}allowed: {', '.join(sorted(allowed))}")

    def integer(self, value, key, low, high) -> int:
        """A whole number in ``[low, high]``."""
        if isinstance(value, bool) or not isinstance(value, int):
            self.fail(key, f"must be a whole number from {low} to {high}, got {kind(value)} {excerpt(value)}")
        if not low <= value <= high:
            self.fail(key, f"must be from {low} to {high}, got {excerpt(value)}")
        return value

    def number(self, value, key, low, high, *, open_low=False) -> Fraction:
        """An exact number in ``[low, high]`` (``(low, high]`` with ``open_low``).

        Strings (``"0.05"``, ``"1/20"``) and floats are read as the decimal they
        write (``0.05`` is exactly 1/20, not the nearest binary double). Digits
        and exponent are checked before anything is converted.
        """
        if isinstance(value, bool) or not isinstance(value, (int, float, str)):
            self.fail(key, f"must be a number, got {kind(value)} {excerpt(value)}")
        if isinstance(value, float) and not math.isfinite(value):
            self.fail(key, f"must be a finite number, got {value}")
        text = str(value).strip()
        number = self._exact(text)
        if number is None:
            self.fail(key, f"must be a number of at most {MAX_DIGITS} digits and exponent {MAX_EXPONENT}, such "
                           f"as 0.05 or \"1/20\", got {excerpt(value)}")
        if number < low or number > high or (open_low and number == low):
            bound = f"> {low}" if open_low else f">= {low}"
            self.fail(key, f"must be {bound} and <= {high}, got {excerpt(value)}")
        return number

    @staticmethod
    def _exact(text: str) -> Fraction | None:
        """The exact value of a decimal or ratio text within the digit limits, or None (:func:`exact_number`)."""
        return exact_number(text)

    def real(self, value, key, low=-1e9, high=1e9) -> float:
        """A finite number in ``[low, high]``, as a float."""
        return float(self.number(value, key, Fraction(low), Fraction(high)))

    def boolean(self, value, key) -> bool:
        """``true`` or ``false``."""
        if not isinstance(value, bool):
            self.fail(key, f"must be true or false, got {kind(value)} {excerpt(value)}")
        return value

    def choice(self, value, key, allowed) -> str:
        """One of ``allowed``."""
        if isinstance(value, (list, dict)) or value not in allowed:
            self.fail(key, f"must be one of {', '.join(map(repr, allowed))}; got {excerpt(value)}")
        return value

    def string(self, value, key) -> str:
        """A string."""
        if not isinstance(value, str):
            self.fail(key, f"must be a string, got {kind(value)} {excerpt(value)}")
        return value

    def identifier(self, value, key, pattern: re.Pattern, allowed: str) -> str:
        """A string that wholly matches ``pattern`` (no trailing newline slips through a ``$``)."""
        text = self.string(value, key)
        if not pattern.fullmatch(text):
            self.fail(key, f"must be {allowed}, got {excerpt(text)}")
        return text

    def list(self, value, key) -> list:
        """An array."""
        if not isinstance(value, list):
            self.fail(key, f"must be an array, got {kind(value)}")
        return value

    def array_of_tables(self, value, key) -> list:
        """A non-empty array written ``[[key]]`` (each element is checked as a table where it is read)."""
        if not isinstance(value, list) or not value:
            self.fail(key, f"must be a non-empty array of tables ([[{key}]])")
        return value

    def identity(self, doc: dict, default_name: str) -> dict[str, str]:
        """What a data file says it is: ``name`` (``default_name`` if absent), ``source`` and ``description``."""
        return {"name": self.string(doc.get("name", default_name), "name"),
                "source": self.string(doc.get("source", ""), "source"),
                "description": self.string(doc.get("description", ""), "description")}
