"""Broken rule files each give one clear error line and no traceback (issue 3, deliverable 3).

Every file in tests/data/bad_rules/ breaks a rule set in one way and says in its first line
(``# expect: ...``) which part of the message it must produce: the file, the key path at fault
(bet and line where there is one) and what is wrong.
"""

import subprocess
import sys
from pathlib import Path

import pytest

from baccarat_sim.rtp import main
from baccarat_sim.rules import InvalidRules, load_rules, parse_rules

BAD_DIR = Path(__file__).parent / "data" / "bad_rules"
BAD = sorted(BAD_DIR.glob("*.toml"))
REPO = Path(__file__).resolve().parents[1]


def expected(path: Path) -> str:
    first = path.read_bytes().splitlines()[0].decode("ascii")
    assert first.startswith("# expect: "), f"{path.name} must start with '# expect: <message part>'"
    return first[len("# expect: "):]


def test_corpus_has_at_least_20_different_faults():
    assert len(BAD) >= 20
    # Each file is a different fault: no two expect the same message.
    messages = [expected(path) for path in BAD]
    assert len(set(messages)) == len(messages)


@pytest.mark.parametrize("path", BAD, ids=lambda p: p.stem)
def test_load_rules_gives_one_line_naming_file_and_key(path):
    with pytest.raises(InvalidRules) as info:
        load_rules(path)
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith(f"{path}: ")
    assert expected(path) in message, message
    # Nothing chained: printed uncaught it would still be one error, not two tracebacks.
    assert info.value.__cause__ is None
    assert info.value.__context__ is None or info.value.__suppress_context__


@pytest.mark.parametrize("path", BAD, ids=lambda p: p.stem)
def test_cli_prints_one_line_and_exits_2(path, capsys):
    status = main(["--exact", "--rules", str(path), "--no-files", "--quiet"])
    out, err = capsys.readouterr()
    assert status == 2
    assert out == ""
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert "Traceback" not in err
    assert expected(path) in lines[0]


@pytest.mark.parametrize("name", ["unknown_feature", "not_utf8"])
def test_cli_subprocess_has_no_traceback(name):
    # The real command line, as a user runs it (a few files only: each start costs a second).
    path = BAD_DIR / f"{name}.toml"
    done = subprocess.run([sys.executable, "-m", "baccarat_sim.rtp", "--exact", "--rules", str(path), "--no-files"],
                          capture_output=True, text=True, cwd=REPO, timeout=120)
    assert done.returncode == 2
    assert done.stdout == ""
    assert len(done.stderr.splitlines()) == 1, done.stderr
    assert expected(path) in done.stderr


def test_unknown_shipped_name_and_missing_file():
    with pytest.raises(InvalidRules, match=r"unknown rule set 'no-such-table'; shipped: .*classic-6deck"):
        load_rules("no-such-table")
    with pytest.raises(InvalidRules, match=r"missing\.toml: cannot read rule file"):
        load_rules("missing.toml")


def test_rule_text_is_data_never_code(tmp_path):
    # A condition is parsed by the grammar of baccarat_sim.conditions, never evaluated as
    # Python: a would-be payload is only a bad condition and leaves no trace.
    marker = tmp_path / "owned"
    text = (BAD_DIR / "condition_is_code.toml").read_text().replace("echo owned", f"touch {marker}")
    with pytest.raises(InvalidRules, match="unexpected character"):
        parse_rules(text, "payload.toml")
    assert not marker.exists()
