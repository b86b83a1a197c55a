"""README.md's Python "Hello world" runs and prints exactly what README shows (issue 9)."""

import contextlib
import io
import re
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def _hello_world_blocks():
    text = README.read_text()
    section = text[text.index("## Hello world"):]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    shown = re.search(r"```text\n(.*?)```", section, re.S).group(1)
    return code, shown


def test_readme_hello_world_output_is_real():
    code, shown = _hello_world_blocks()
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(code, "README.md", "exec"), {})  # the README's own example, run as written
    assert printed.getvalue() == shown
