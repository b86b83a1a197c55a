"""Broken rule files each give one clear error line and no traceback (issue 3, deliverable 3).

Every file in tests/data/bad_rules/ breaks a rule set in one way and says in its first line
(``# expect: ...``) which part of the message it must produce: the file, the key path at fault
(bet and line where there is one) and what is wrong.
"""

import subprocess
import sys
from pathlib import Path

import pytest

from baccarat_sim.cli.rtp import main
from baccarat_sim.errors import InvalidRules
from baccarat_sim.model.rules import load_rules, parse_rules

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
    status = main(["--exact", "--rules", str(path), "--quiet"])
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
    done = subprocess.run([sys.executable, "-m", "baccarat_sim.rtp", "--exact", "--rules", str(path)],
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
    # A condition is parsed by the grammar of baccarat_sim.model.conditions, never evaluated as
    # Python: a would-be payload is only a bad condition and leaves no trace.
    marker = tmp_path / "owned"
    text = (BAD_DIR / "condition_is_code.toml").read_text().replace("echo owned", f"touch {marker}")
    with pytest.raises(InvalidRules, match="unexpected character"):
        parse_rules(text, "payload.toml")
    assert not marker.exists()


VALUES = ['true', '-1', '0', '1e999', '"x"', '[]', '{}', '[1, 2, 3]', '{ a = 1 }', '"9:0"', '"0.5:1"', '0.5',
          '"winner == "', '"lose half"', '"player_pair or"', '""', '"98.94"', '"200%"', '99999999999', '"fresh"',
          '"dealt"', '[0.9, 0.1]', '"not natural"', '-0.0', 'nan', 'inf']


def mutate(text: str, rng) -> str:
    lines = text.splitlines()
    kind = rng.integers(5)
    i = int(rng.integers(len(lines)))
    if kind == 0:  # drop a line
        del lines[i]
    elif kind == 1:  # duplicate a line
        lines.insert(i, lines[i])
    elif kind == 2:  # truncate the file
        return text[: int(rng.integers(len(text)))]
    else:  # replace a value after "=" (in a key line or inside an inline table)
        candidates = [n for n, line in enumerate(lines) if "=" in line and not line.lstrip().startswith("#")]
        n = candidates[int(rng.integers(len(candidates)))]
        spots = [k for k, ch in enumerate(lines[n]) if ch == "=" and lines[n][k - 1:k + 2] != "=="
                 and lines[n][k + 1:k + 2] != "=" and lines[n][k - 1:k] not in "!<>="]
        if spots:
            k = spots[int(rng.integers(len(spots)))]
            rest = lines[n][k + 1:]
            end = min([j for j in (rest.find(","), rest.find(" }")) if j > 0] or [len(rest)])
            lines[n] = lines[n][:k + 1] + " " + VALUES[int(rng.integers(len(VALUES)))] + rest[end:]
    return "\n".join(lines) + "\n"


def test_fuzzed_rule_files_load_or_fail_with_one_line():
    # Hundreds of random corruptions of the shipped files: each either still loads or is refused with one
    # InvalidRules line naming the file - never another exception.
    import numpy as np

    rng = np.random.default_rng(3)
    sources = sorted((REPO / "baccarat_sim" / "rulesets").glob("*.toml"))
    outcomes = {"loaded": 0, "refused": 0}
    for trial in range(400):
        source = sources[trial % len(sources)]
        text = mutate(source.read_text(), rng)
        try:
            parse_rules(text, "fuzz.toml")
            outcomes["loaded"] += 1
        except InvalidRules as error:
            message = str(error)
            assert message.startswith("fuzz.toml: ") and "\n" not in message, message
            outcomes["refused"] += 1
    assert outcomes["refused"] > 100 and outcomes["loaded"] > 10, outcomes
