"""Every example on a documentation page, run and compared with what the page shows.

Read by ``tests/test_docs_examples.py`` (which fails when a page's example no
longer runs or prints something else) and by ``docs/generate.py --examples``
(which writes what the examples print back into the pages). The pages are
README.md, every Markdown file under docs/ and the package references that
docs/reference/ includes (``baccarat_sim/rulesets/README.md``,
``baccarat_sim/strategies/README.md``).

What counts as an example, by the fence's language:

``console``
    Lines starting with ``$ `` are commands; the lines after one, up to the
    next ``$ `` line, are what it prints on stdout.
``bash``
    Commands, one a line (``# ...`` comments allowed); what they print is
    not shown, but each must exit 0 (or the status the note declares).
``python``
    Code, run in one namespace per page (a later block may use an earlier
    block's names). A ``text`` block right after it is what it prints. A
    block of ``>>>`` lines is a doctest: its outputs are inline, compared by
    :mod:`doctest` (``--examples`` does not rewrite those).
``toml``
    With ``file=NAME`` in its note, written to NAME for the page's later
    examples; without, it must at least parse as TOML.

A page's examples run in order, in a fresh temporary folder, empty as a
fresh clone's working folder is to a reader (files a command writes with
``--out`` are there for the next example; ``> FILE`` into a folder that no
example made fails, as in a shell), with ``COLUMNS=120``
unless the note sets ``env``. Commands run in-process through each command's
``main()``: ``python -m baccarat_sim.X``, ``.venv/bin/python -m
baccarat_sim.X`` or the console script ``baccarat-X``, with ``VAR=value``
prefixes and a final ``> FILE`` redirection.

A note is an HTML comment on the line just before the fence (invisible on a
code host and on the site)::

    <!-- example: from="effect of removal" exit=1 env="COLUMNS=60" -->
    <!-- example: skip="installs" -->

``from`` compares the output from the first line that starts with that text;
``exit`` is the expected exit status (default 0; with 2, bad input, the
compared output includes stderr, where the one line that says why goes); ``skip`` leaves a block
unexecuted, only for a reason in :data:`SKIP_REASONS`, each of which the test
holds to the block's text. In a shown output a line ``...`` stands for any
lines (at least one).

Only the fields in :data:`VOLATILE` are masked before comparing, in both the
page and the actual output: wall times and speeds, the thread count (the
machine's cores), and the temporary folder's path.
"""

from __future__ import annotations

import contextlib
import dataclasses
import difflib
import doctest
import importlib
import io
import json
import os
import re
import shlex
import tempfile
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: The languages whose blocks are examples.
EXAMPLE_LANGUAGES = ("console", "bash", "python", "toml")

#: Why a block may go unexecuted, and what its text must contain for that reason to hold.
SKIP_REASONS = {
    "installs": ("pip install", "pip install"),  # installing packages needs the network; the suite runs installed
    "cluster": ("--scheduler", "dask "),  # needs machines of a Dask cluster
    "suite": ("pytest", "pytest"),  # the test command itself: the suite cannot run itself
    "interactive": ("jupyter lab", "jupyter lab"),  # opens a browser session
}

#: (name, pattern, replacement): the only fields masked before an output is compared.
VOLATILE = (
    ("run time and speed", re.compile(r"^(time\s+).*$", re.M), r"\1<time>"),
    ("thread count", re.compile(r"\bthreads(\s+)\d+"), r"threads\1<n>"),
    ("temporary folder", re.compile(r"/tmp/[\w./-]*?docs-example-\w+"), "<tmp>"),
)

#: ``python -m`` module (or console script) -> the module whose ``main(argv)`` runs it.
COMMANDS = {
    "baccarat_sim.rtp": "baccarat_sim.cli.rtp",
    "baccarat_sim.hold": "baccarat_sim.cli.hold",
    "baccarat_sim.leak": "baccarat_sim.cli.leak",
    "baccarat_sim.findings": "baccarat_sim.cli.findings",
    "baccarat_sim.math_report": "baccarat_sim.cli.math_report",
    "baccarat-math-report": "baccarat_sim.cli.math_report",
    "baccarat-rtp": "baccarat_sim.cli.rtp",
    "baccarat-hold": "baccarat_sim.cli.hold",
    "baccarat-leak": "baccarat_sim.cli.leak",
    "baccarat-findings": "baccarat_sim.cli.findings",
}

_FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```[ \t]*$", re.M | re.S)
_NOTE = re.compile(r"<!--\s*example:(.*?)-->\s*\n$", re.S)
_NOTE_FIELD = re.compile(r'(\w+)=("(?:[^"\\]|\\.)*"|\S+)')


@dataclasses.dataclass
class Block:
    """One fenced block of a page: its language, text, where it sits and its note."""

    page: Path
    language: str
    text: str
    start: int  # offset of the block's text in the page
    end: int
    line: int
    note: dict
    output: Block | None = None  # a python block's ``text`` block

    @property
    def where(self) -> str:
        """``page:line``, for messages."""
        try:
            name = self.page.relative_to(ROOT)
        except ValueError:
            name = self.page
        return f"{name}:{self.line}"


#: The package's own references, which docs/reference/ includes: their examples are the site's too.
PACKAGE_PAGES = ("baccarat_sim/rulesets/README.md", "baccarat_sim/strategies/README.md")


def pages() -> list[Path]:
    """README.md, every Markdown page under docs/, and the package references the site includes."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md")), *(ROOT / p for p in PACKAGE_PAGES)]


def blocks(page: Path) -> list[Block]:
    """The example blocks of a page, in order (a python block carries the text block after it)."""
    text = page.read_text()
    found: list[Block] = []
    previous = None
    for match in _FENCE.finditer(text):
        before = text[:match.start()]
        note = {}
        note_match = _NOTE.search(before[-400:])
        if note_match:
            note = {k: _unquote(v) for k, v in _NOTE_FIELD.findall(note_match.group(1))}
        block = Block(page, match.group(1), match.group(2), match.start(2), match.end(2),
                      before.count("\n") + 2, note)
        if (block.language == "text" and previous is not None and previous.language == "python"
                and text[previous.end:match.start()].strip() == "```"):
            previous.output = block
        elif block.language in EXAMPLE_LANGUAGES:
            found.append(block)
        previous = block
    return found


def _unquote(value: str) -> str:
    return json.loads(value) if value.startswith('"') else value


def skip_reason_problem(block: Block) -> str | None:
    """Why a block's ``skip`` does not hold (an unknown reason, or a text without what the reason needs); or None."""
    reason = block.note.get("skip")
    if reason is None:
        return None
    if reason not in SKIP_REASONS:
        return f"{block.where}: skip={reason!r} is not a declared reason ({', '.join(SKIP_REASONS)})"
    if not any(needle in block.text for needle in SKIP_REASONS[reason]):
        return f"{block.where}: skip={reason!r} but the block has none of {SKIP_REASONS[reason]}"
    return None


def mask(text: str) -> str:
    """The text with every declared volatile field replaced by its placeholder."""
    for _, pattern, replacement in VOLATILE:
        text = pattern.sub(replacement, text)
    return text


def matches(shown: str, actual: str) -> bool:
    """Whether an output matches what the page shows (masked; ``...`` lines stand for any lines)."""
    shown, actual = mask(shown), mask(actual)
    if "\n...\n" not in "\n" + shown:
        return shown == actual
    pattern = "".join(r"(?:.*\n)+?" if line == "..." else re.escape(line) + r"\n"
                      for line in shown.splitlines())
    return re.fullmatch(pattern, actual if actual.endswith("\n") else actual + "\n") is not None


def difference(shown: str, actual: str, where: str) -> str:
    """A unified diff of the masked texts, for a failing comparison."""
    return "".join(difflib.unified_diff(mask(shown).splitlines(True), mask(actual).splitlines(True),
                                        f"{where} (page)", "actual"))


def from_line(output: str, start: str | None) -> str | None:
    """The output from the first line that starts with ``start`` (all of it when None; None when no line does)."""
    if start is None:
        return output
    lines = output.splitlines(True)
    for i, line in enumerate(lines):
        if line.startswith(start):
            return "".join(lines[i:])
    return None


def _no_start(block: Block, start: str) -> str:
    return f"{block.where}: from={start!r}, but no line of the output starts with it"


@dataclasses.dataclass
class Result:
    """What one example did: its block, the output shown and the actual one (None when it shows none)."""

    block: Block
    shown: str | None
    actual: str | None
    problem: str | None = None
    part: tuple[int, int] | None = None  # where ``shown`` sits in the page

    @property
    def ok(self) -> bool:
        """Ran as declared and printed what the page shows."""
        return self.problem is None and (self.shown is None or matches(self.shown, self.actual or ""))


@contextlib.contextmanager
def _environment(changes: dict):
    saved = {k: os.environ.get(k) for k in changes}
    os.environ.update(changes)
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def _env_of(note: dict) -> dict:
    env = {"COLUMNS": "120"}
    for item in note.get("env", "").split():
        key, _, value = item.partition("=")
        env[key] = value
    return env


def run_command(line: str) -> tuple[int, str]:
    """Run one shown command line in-process: (exit status, stdout)."""
    words = shlex.split(line, comments=True)
    env = {}
    while words and re.fullmatch(r"[A-Z_][A-Z0-9_]*=.*", words[0]):
        key, _, value = words.pop(0).partition("=")
        env[key] = value
    redirect = None
    if len(words) >= 2 and words[-2] == ">":
        redirect, words = words[-1], words[:-2]
        if not Path(redirect).parent.is_dir():  # as a shell: a redirection creates the file, never its folder
            raise ValueError(f"{line!r}: {redirect}: No such file or directory (a reader's shell would stop here)")
    if words[:2] in (["python", "-m"], ["python3", "-m"], [".venv/bin/python", "-m"]):
        name, args = words[2], words[3:]
    elif words:
        name, args = words[0], words[1:]
    else:
        raise ValueError(f"an empty command: {line!r}")
    if name not in COMMANDS:
        raise ValueError(f"cannot run {line!r}: an example runs only {', '.join(sorted(COMMANDS))}")
    main = importlib.import_module(COMMANDS[name]).main
    out, err = io.StringIO(), io.StringIO()
    with _environment(env), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(args)
    if redirect is not None:
        Path(redirect).write_text(out.getvalue())
        return status, ""
    if status == 2:  # bad input: the one line that says why is on stderr
        out.write(err.getvalue())
    return status or 0, out.getvalue()


def _console_parts(block: Block) -> list[tuple[str, str, int, int]]:
    """(command, shown output, start, end) of every ``$ `` line of a console block."""
    parts, offset = [], block.start
    page_text = block.page.read_text()
    lines = block.text.splitlines(True)
    i = 0
    while i < len(lines):
        line = lines[i]
        offset += len(line)
        i += 1
        if not line.startswith("$ "):
            continue
        command = line[2:].rstrip("\n")
        while command.endswith("\\") and i < len(lines):  # a command continued on the next line
            command = command[:-1].rstrip() + " " + lines[i].strip()
            offset += len(lines[i])
            i += 1
        start = offset
        while i < len(lines) and not lines[i].startswith("$ "):
            offset += len(lines[i])
            i += 1
        parts.append((command, page_text[start:offset], start, offset))
    return parts


def run_page(page: Path) -> list[Result]:
    """Run every example of a page, in order, in a fresh temporary folder."""
    results: list[Result] = []
    namespace: dict = {"__name__": "__docs_example__"}
    with tempfile.TemporaryDirectory(prefix="docs-example-") as tmp, contextlib.chdir(tmp):
        for block in blocks(page):
            if block.note.get("skip"):
                problem = skip_reason_problem(block)
                results.append(Result(block, None, None, problem))
                continue
            with _environment(_env_of(block.note)):
                results.extend(_run_block(block, namespace))
    return results


def _run_block(block: Block, namespace: dict) -> list[Result]:
    expected_exit = int(block.note.get("exit", 0))
    start = block.note.get("from")
    if block.language == "toml":
        try:
            tomllib.loads(block.text)
        except tomllib.TOMLDecodeError as error:
            return [Result(block, None, None, f"{block.where}: not TOML: {error}")]
        if "file" in block.note:
            Path(block.note["file"]).write_text(block.text)
        return [Result(block, None, None)]
    if block.language == "python" and block.text.lstrip().startswith(">>>"):  # a doctest: outputs inline
        report = io.StringIO()
        test = doctest.DocTestParser().get_doctest(block.text, namespace, block.where, str(block.page), block.line)
        outcome = doctest.DocTestRunner().run(test, out=report.write, clear_globs=False)
        return [Result(block, None, None, f"{block.where}: doctest failed:\n{report.getvalue()}" if outcome.failed
                       else None)]
    if block.language == "python":
        out = io.StringIO()
        try:
            with contextlib.redirect_stdout(out):
                exec(compile(block.text, block.where, "exec"), namespace)  # the page's own example, as written
        except Exception as error:  # noqa: BLE001 - reported as the example's failure
            return [Result(block, None, None, f"{block.where}: {type(error).__name__}: {error}")]
        if block.output is None:
            return [Result(block, None, None)]
        shown = from_line(out.getvalue(), start)
        return [Result(block, block.output.text, shown, None if shown is not None else _no_start(block, start),
                       part=(block.output.start, block.output.end))]
    if block.language == "bash":
        commands = [line for line in block.text.splitlines() if line.strip() and not line.lstrip().startswith("#")]
        results = []
        for command in commands:
            try:
                status, _ = run_command(command)
            except ValueError as error:
                results.append(Result(block, None, None, f"{block.where}: {error}"))
                continue
            problem = None if status == expected_exit else f"{block.where}: {command!r} exited {status}"
            results.append(Result(block, None, None, problem))
        return results
    results = []
    for command, shown, part_start, part_end in _console_parts(block):
        try:
            status, output = run_command(command)
        except ValueError as error:
            results.append(Result(block, None, None, f"{block.where}: {error}"))
            continue
        problem = None
        actual = from_line(output, start)
        if status != expected_exit:
            problem = f"{block.where}: {command!r} exited {status}, the page says {expected_exit}:\n{output}"
        elif actual is None:
            problem = _no_start(block, start)
        results.append(Result(block, shown, actual, problem, (part_start, part_end)))
    return results


def rewrite(page: Path, results: list[Result]) -> bool:
    """Write each differing example's actual output into the page (keeping ``...`` elisions); whether it changed.

    An output that matches once masked is left as it is, so that a rerun does
    not rewrite times and speeds alone.
    """
    text = page.read_text()
    for result in sorted((r for r in results if r.part and r.actual is not None and not r.ok),
                         key=lambda r: r.part[0], reverse=True):
        start, end = result.part
        text = text[:start] + _elided_like(result.shown, result.actual) + text[end:]
    changed = text != page.read_text()
    if changed:
        page.write_text(text)
    return changed


def _elided_like(shown: str, actual: str) -> str:
    """The actual output, cut as the shown one is (its lines before and after a ``...`` line)."""
    lines = shown.splitlines()
    if "..." not in lines:
        return actual
    head = lines.index("...")
    tail = len(lines) - head - 1
    got = actual.splitlines()
    kept = got[:head] + ["..."] + (got[-tail:] if tail else [])
    return "\n".join(kept) + "\n"
