"""The package's structure (issue 12): layers, one public API, typed errors, side effects undone."""

from __future__ import annotations

import ast
import importlib
import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numba
import pytest

import baccarat_sim
from baccarat_sim.cli.rtp import main
from baccarat_sim.errors import InputError, InvalidRules

PACKAGE = Path(baccarat_sim.__file__).resolve().parent
#: Each layer may import only the layers before it (and itself).
LAYERS = ["errors", "limits", "_version", "storage", "model", "kernels", "engines", "analysis", "report", "cli"]


def _imports(path: Path) -> set[str]:
    """Package-level names (first component below ``baccarat_sim``) a module imports, at any depth."""
    tree = ast.parse(path.read_text())
    here = path.relative_to(PACKAGE).parts
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level:
            base = list(here[:-1])[: len(here) - node.level]
            target = base + (node.module.split(".") if node.module else [])
            if not target:  # "from . import x" at the top: the names are modules
                found.update(alias.name for alias in node.names)
            else:
                found.add(target[0])
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("baccarat_sim."):
            found.add(node.module.split(".")[1])
    return found


def test_layers_import_only_the_layers_below_them():
    problems = []
    for path in PACKAGE.rglob("*.py"):
        layer = path.relative_to(PACKAGE).parts[0].removesuffix(".py")
        if layer not in LAYERS:
            continue  # the `python -m` shims (rtp.py, findings.py, ...) and __init__/__main__
        for name in _imports(path) - {layer}:
            if name in LAYERS and LAYERS.index(name) > LAYERS.index(layer):
                problems.append(f"{path.relative_to(PACKAGE)} ({layer}) imports {name}")
    assert not problems, "\n".join(problems)


#: Layers a layer may not reach even though they lie below it: the report renders what the analysis computed (it
#: runs no engine or kernel), and the analysis reaches kernels only through the engines.
SKIPPED_LAYERS = {"report": {"engines", "kernels"}, "analysis": {"kernels"}}
#: Settling, estimating, running an engine: the report calls none of them, it renders results. (Its one call into
#: the analysis is ``build_report``, a thin name for ``Report(analyze_run(...))``.)
COMPUTING = {"settle", "settle_bet", "settle_slip", "net_vector", "bet_breakdown", "covariance", "commission_by_stake",
             "stake_dependence", "estimate", "running_estimate", "wilson_interval", "score_distribution",
             "exact_histogram", "simulate", "leak_table"}


def test_the_report_imports_no_engine_or_kernel_and_the_analysis_no_kernel():
    problems = []
    for layer, skipped in SKIPPED_LAYERS.items():
        for path in (PACKAGE / layer).rglob("*.py"):
            for name in _imports(path) & skipped:  # imports inside functions too
                problems.append(f"{path.relative_to(PACKAGE)} ({layer}) imports {name}")
    assert not problems, "\n".join(problems)


def _imported_names(path: Path) -> set[str]:
    """Every name a module imports from the package, at any depth (``from ..x import name``)."""
    return {alias.name for node in ast.walk(ast.parse(path.read_text()))
            if isinstance(node, ast.ImportFrom) and (node.level or (node.module or "").startswith("baccarat_sim"))
            for alias in node.names}


def test_the_report_calls_no_settlement_estimation_or_engine():
    found = {str(path.relative_to(PACKAGE)): sorted(_imported_names(path) & COMPUTING)
             for path in (PACKAGE / "report").rglob("*.py")}
    assert not {path: names for path, names in found.items() if names}
    # The check sees what it looks for: the analysis that builds a run's result imports them.
    assert {"settle", "estimate", "analyze_positions"} <= _imported_names(PACKAGE / "analysis" / "run.py")


def _module_graph() -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    """Package modules each module imports (at any depth), and the outside packages each imports."""
    modules = {".".join(p.relative_to(PACKAGE).with_suffix("").parts).removesuffix(".__init__"): p
               for p in PACKAGE.rglob("*.py")}
    inside, outside = {}, {}
    for name, path in modules.items():
        package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        inside[name], outside[name] = set(), set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                outside[name] |= {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level:
                base = ".".join(package[: len(package) - node.level + 1] + ([node.module] if node.module else []))
                targets = [f"{base}.{a.name}".lstrip(".") for a in node.names]
                inside[name] |= {t if t in modules else base.lstrip(".") for t in targets} & set(modules)
            elif isinstance(node, ast.ImportFrom) and node.module:
                outside[name].add(node.module.split(".")[0])
    return inside, outside


def test_kernels_reach_no_presentation_cli_or_cluster_module_even_transitively():
    banned = {"pandas", "matplotlib", "argparse", "tqdm", "dask", "distributed"}
    inside, outside = _module_graph()
    for kernel in (name for name in inside if name.startswith("kernels.") and name != "kernels"):
        seen, todo = {kernel}, [kernel]
        while todo:
            for module in inside[todo.pop()] - seen:
                seen.add(module)
                todo.append(module)
        reached = {module: outside[module] & banned for module in seen if outside[module] & banned}
        assert not reached, f"{kernel} reaches {reached}"


def test_every_submodule_imports_as_a_module_and_the_public_api_stays():
    for path in PACKAGE.rglob("*.py"):
        name = ".".join(("baccarat_sim", *path.relative_to(PACKAGE).with_suffix("").parts)).removesuffix(".__init__")
        assert isinstance(importlib.import_module(name), type(baccarat_sim)), name
    for name in baccarat_sim.__all__:
        assert getattr(baccarat_sim, name) is not None
    assert callable(baccarat_sim.settle) and callable(baccarat_sim.simulate)
    assert issubclass(baccarat_sim.LimitError, ValueError)
    assert type(importlib.import_module("baccarat_sim.analysis.settlement")).__name__ == "module"


def test_the_library_speaks_of_its_parameters_and_the_cli_of_its_options(capsys):
    with pytest.raises(InvalidRules) as caught:
        baccarat_sim.load_rules("no-such-rule-set")
    assert caught.value.param == "rules" and "--rules" not in str(caught.value)
    with pytest.raises(InputError) as caught:
        baccarat_sim.simulate(baccarat_sim.load_rules("default"), 0)
    assert caught.value.param == "rounds" and str(caught.value).startswith("rounds: ")
    assert main(["--rules", "no-such-rule-set", "--exact"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("python -m baccarat_sim.rtp: error: --rules: unknown rule set") and err.count("\n") == 1


def test_a_bug_is_an_internal_error_not_bad_input(monkeypatch, capsys):
    import baccarat_sim.engines.exact as exact

    def broken(shoe=8):
        raise ValueError("a value error the library did not mean")

    monkeypatch.setattr(exact, "exact_histogram", broken)
    assert main(["--exact"]) == 1
    err = capsys.readouterr().err
    assert "internal error" in err and "--debug" in err and "Traceback" not in err and err.count("\n") == 1
    assert main(["--exact", "--debug"]) == 1
    assert "Traceback" in capsys.readouterr().err


def test_a_run_restores_numbas_thread_count():
    before = numba.get_num_threads()
    baccarat_sim.simulate(baccarat_sim.load_rules("default"), 1e5, seed=1, threads=1)
    assert numba.get_num_threads() == before
    with pytest.raises(InputError, match="threads: must be a whole number from 1 to"):
        baccarat_sim.simulate(baccarat_sim.load_rules("default"), 1e5, seed=1, threads=10_000)
    assert numba.get_num_threads() == before


@pytest.mark.parametrize("set_by_user", [None, "ACTIVE"])
def test_threads_wait_passively_between_parallel_regions_unless_the_user_says(set_by_user):
    # Spinning idle OpenMP threads take the cores of busy ones where threads outnumber cores (kernels/jit.py).
    env = {key: value for key, value in os.environ.items() if key != "OMP_WAIT_POLICY"}
    if set_by_user:
        env["OMP_WAIT_POLICY"] = set_by_user
    code = "import os, baccarat_sim.engines.montecarlo; print(os.environ['OMP_WAIT_POLICY'])"
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120,
                          check=True)
    assert done.stdout.strip() == (set_by_user or "PASSIVE")


_COMPILE = textwrap.dedent("""
    import json, sys
    import numpy as np
    from baccarat_sim.kernels.fresh import FRESH_DRAWS, open_fresh_block
    open_fresh_block(np.uint64(1), 0, 52, np.empty(FRESH_DRAWS, np.uint64))
    stats = open_fresh_block.stats
    print(json.dumps([sum(stats.cache_hits.values()), sum(stats.cache_misses.values())]))
""")


def _compile_in(root: Path, cache: Path | None, code: str = _COMPILE, **env_changes) -> str:
    """Compile one cheap kernel in a fresh interpreter from the copy of the package at ``root``: [hits, misses]."""
    env = dict(os.environ, PYTHONPATH=str(root), **env_changes)
    env.pop("NUMBA_CACHE_DIR", None)
    if cache is not None:
        env["NUMBA_CACHE_DIR"] = str(cache)
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300,
                          cwd=root, check=True)
    return done.stdout.strip()


def test_editing_an_inlined_helper_recompiles_the_kernels(tmp_path):
    # numba caches a kernel by its own file; the package stamps every kernel with all the sources it inlines,
    # so that a change to the tableau (another file) is never served from a stale cache.
    root = tmp_path / "copy"
    shutil.copytree(PACKAGE, root / "baccarat_sim", ignore=shutil.ignore_patterns("__pycache__"))
    cache = tmp_path / "cache"
    first = json.loads(_compile_in(root, cache))  # [cache hits, cache misses]
    again = json.loads(_compile_in(root, cache))
    assert first == [0, 1]  # compiled
    assert again == [1, 0]  # loaded from the cache
    tableau = root / "baccarat_sim" / "model" / "tableau.py"
    tableau.write_text(tableau.read_text() + "\n# an edit that changes no rule\n")
    edited = json.loads(_compile_in(root, cache))
    assert edited == [0, 1], "a kernel was loaded from a cache older than the tableau it inlines"


def test_an_edit_recompiles_the_kernels_whose_files_import_it_and_no_others(tmp_path):
    # Each kernel is stamped with its own file and every package file it imports, directly or through others
    # (kernels/jit.closure_digest): fresh.py imports rng.py, and detail.py through round.py, but not leak.py.
    root = tmp_path / "copy"
    shutil.copytree(PACKAGE, root / "baccarat_sim", ignore=shutil.ignore_patterns("__pycache__"))
    cache = tmp_path / "cache"
    assert json.loads(_compile_in(root, cache)) == [0, 1]
    kernels = root / "baccarat_sim" / "kernels"
    for name, compiled in (("leak.py", [1, 0]), ("exact.py", [1, 0]), ("rng.py", [0, 1]), ("detail.py", [0, 1])):
        source = kernels / name
        source.write_text(source.read_text() + "\n# an edit that changes no rule\n")
        assert json.loads(_compile_in(root, cache)) == compiled, f"after an edit to {name}"
    # The versions before the edits are kept beside the new ones: the first copy still loads its own.
    first = tmp_path / "first"
    shutil.copytree(PACKAGE, first / "baccarat_sim", ignore=shutil.ignore_patterns("__pycache__"))
    assert json.loads(_compile_in(first, cache)) == [1, 0]


def test_the_kernel_cache_reads_every_import_a_full_parse_finds():
    # closure_digest reads only the lines that look like imports (kernels/jit._import_nodes): it must find exactly
    # the imports that parsing the whole module finds, in every module of the package.
    from baccarat_sim.kernels.jit import _import_nodes

    for module in sorted(PACKAGE.rglob("*.py")):
        text = module.read_text()
        everywhere = sorted(ast.dump(node) for node in ast.walk(ast.parse(text))
                            if isinstance(node, (ast.Import, ast.ImportFrom)))
        assert sorted(ast.dump(node) for node in _import_nodes(text)) == everywhere, module.name


def test_every_model_module_a_kernel_imports_keys_the_kernel_cache():
    # A kernel inlines the functions and constants it imports; the cache must change with each file they live in.
    from baccarat_sim.kernels.jit import KERNEL_SOURCES

    covered = {path.resolve() for pattern in KERNEL_SOURCES for path in PACKAGE.glob(pattern)}
    for kernel in sorted((PACKAGE / "kernels").glob("*.py")):
        for node in ast.walk(ast.parse(kernel.read_text())):
            if isinstance(node, ast.ImportFrom) and node.level == 2 and (node.module or "").startswith("model"):
                modules = ([node.module] if node.module != "model" else
                           [f"model.{alias.name}" for alias in node.names])
                for module in modules:
                    source = (PACKAGE / (module.replace(".", "/") + ".py")).resolve()
                    assert source in covered, f"{kernel.name} imports {module}, which KERNEL_SOURCES leaves out"


def test_kernels_are_cached_in_the_users_cache_folder_unless_numba_cache_dir_says(tmp_path):
    root = tmp_path / "copy"
    shutil.copytree(PACKAGE, root / "baccarat_sim", ignore=shutil.ignore_patterns("__pycache__"))
    assert json.loads(_compile_in(root, None, XDG_CACHE_HOME=str(tmp_path / "xdg"))) == [0, 1]
    (folder,) = (tmp_path / "xdg" / "baccarat_sim" / "numba").iterdir()
    assert folder.name.startswith("kernels-") and list(folder.glob("fresh.open_fresh_block-*.nbi"))
    assert json.loads(_compile_in(root, tmp_path / "numba")) == [0, 1]  # NUMBA_CACHE_DIR: numba's folder, ours in it
    assert list((tmp_path / "numba" / "baccarat_sim").glob(f"{folder.name}/fresh.open_fresh_block-*.nbi"))


_HELPER = textwrap.dedent("""
    import numba
    from baccarat_sim.kernels.encoding import encode_shoe

    @numba.njit(cache=True)
    def encoded(cards):
        return encode_shoe(cards)
""")
#: A package kernel and a compiled helper outside the package that calls it: [[hits, misses] of each].
_COMPILE_BOTH = textwrap.dedent("""
    import json, sys
    from pathlib import Path
    import numpy as np
    from baccarat_sim.kernels.encoding import encode_shoe
    from baccarat_sim.kernels.jit import cache_by_content
    cache_by_content(Path("helpers"))
    sys.path.insert(0, "helpers")
    from helper_kernels import encoded
    encode_shoe(np.arange(52, dtype=np.uint8))
    encoded(np.arange(52, dtype=np.uint8))
    print(json.dumps([[sum(f.stats.cache_hits.values()), sum(f.stats.cache_misses.values())]
                      for f in (encode_shoe, encoded)]))
""")


def test_a_copy_of_the_package_at_another_path_loads_the_kernels_the_first_compiled(tmp_path):
    # The kernels' cache is keyed on what they are (the digest of their sources, numba, Python, the CPU), not on
    # where the package is: a fresh clone or a second worktree loads what the first one compiled. The same holds
    # for compiled code outside the package that calls the kernels (tests/conftest.py registers the tests'
    # helpers): numba alone would check only the helper's file, serve it after a kernel it calls changed, and
    # compile it again in every checkout.
    cache = tmp_path / "cache"
    first, second = tmp_path / "first", tmp_path / "elsewhere" / "second"
    for root in (first, second):
        shutil.copytree(PACKAGE, root / "baccarat_sim", ignore=shutil.ignore_patterns("__pycache__"))
        (root / "helpers").mkdir()
        (root / "helpers" / "helper_kernels.py").write_text(_HELPER)
    assert json.loads(_compile_in(first, cache, _COMPILE_BOTH)) == [[0, 1], [0, 1]]  # compiled
    assert json.loads(_compile_in(second, cache, _COMPILE_BOTH)) == [[1, 0], [1, 0]]  # loaded at another path
    assert not list(second.rglob("*.nbi")) and not list(first.rglob("*.nbi"))  # nothing cached beside the sources
    encoding = second / "baccarat_sim" / "kernels" / "encoding.py"
    encoding.write_text(encoding.read_text() + "\n# an edit that changes no rule\n")
    edited = json.loads(_compile_in(second, cache, _COMPILE_BOTH))
    assert edited == [[0, 1], [0, 1]], "a kernel or a helper was loaded from a cache older than a kernel source"


#: The style's limit on a module's length (/work/shared/STYLE.md: small modules with one concept each).
_MAX_MODULE_LINES = 650


def test_no_module_is_longer_than_the_style_allows():
    long = {str(path.relative_to(PACKAGE)): n for path in sorted(PACKAGE.rglob("*.py"))
            if (n := len(path.read_text().splitlines())) > _MAX_MODULE_LINES}
    assert not long, f"modules over {_MAX_MODULE_LINES} lines: {long}"


def _layout_modules() -> set[tuple[str, str]]:
    """``(folder, module file)`` pairs the code layout's tree names (docs/reference/layout.md; '' for the package)."""
    text = (PACKAGE.parent / "docs" / "reference" / "layout.md").read_text()
    tree = text.split("```text\nbaccarat_sim/\n", 1)[1].split("```", 1)[0]
    named, folder = set(), ""
    for line in tree.splitlines():
        indent = len(line) - len(line.lstrip())
        if indent == 2:  # a folder of the package, or modules at its top
            head = line.split()[0]
            folder = head.rstrip("/") if head.endswith("/") else ""
        elif indent > 4:  # a description's second line
            continue
        names = re.findall(r"(?<![\w/.])(\w+\.py)\b", line)
        named.update((folder if indent == 4 else "", name) for name in names)
    return named


def test_the_code_layout_names_every_module_in_its_folder():
    # docs/reference/layout.md is the map of the package: a module moved, split or added is named there, in its folder.
    named = _layout_modules()
    missing = sorted(str(path.relative_to(PACKAGE)) for path in PACKAGE.rglob("*.py")
                     if path.name not in ("__init__.py", "__main__.py")
                     and ("/".join(path.relative_to(PACKAGE).parent.parts), path.name) not in named)
    assert not missing, f"docs/reference/layout.md does not name {missing}"
