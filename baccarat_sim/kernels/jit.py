"""numba options, set in one place, and an on-disk cache keyed on what the kernels are, not where they are.

``cache=True`` keeps compiled kernels on disk so the CLI starts fast after the
first run; ``error_model="numpy"`` drops Python's division-by-zero checks from
integer loops (the kernels never divide by zero, and the checks cost speed);
``nogil=True`` lets the Dask backend run kernels from worker threads.

numba, left to itself, caches a kernel in ``__pycache__`` beside its source
file, under a folder or file name derived from that file's path, and checks
only that one file's contents. Both fall short here:

- the kernels inline helpers and constant tables from other files (the random
  streams, the dealing procedure, the tableau, the card points), so a cached
  kernel must depend on every file it imports, directly or through others;
- a fresh checkout, a second worktree or a copy of the package at another
  path would compile every kernel again (minutes of a test run), although
  the code is the same.

This package's kernels are therefore cached in :func:`kernel_cache_dir`, one
folder per numba and Python version, in the user's cache folder (under
``$NUMBA_CACHE_DIR`` when that is set), each kernel stamped with the digest of
every source it can read (:func:`closure_digest`): its own file and every
package file that file imports, directly or through others. numba keys each
compiled kernel on that stamp (in the index file's name too, so that two
versions of a kernel are kept side by side), its signature, the CPU it was
compiled for and the function's bytecode. Editing a kernel source compiles
afresh exactly the kernels whose files import it, with no file to touch by
hand (an edit to ``kernels/mc.py`` keeps the exact, counting and leak kernels);
two checkouts with the same kernels share one cache, and checkouts with
different kernels keep theirs side by side. The folder can be deleted at any
time.

A cache never stops a command: a folder that cannot be written (read-only,
full, not a folder) is still read, and what is missing compiles in memory,
said once in a line naming the folder; an entry that cannot be loaded (a
truncated or garbled file) is compiled again and replaced.
"""

from __future__ import annotations

import ast
import contextlib
import functools
import hashlib
import os
import re
import sys
from pathlib import Path

import numba as nb

# GNU OpenMP (numba's threading layer wherever libgomp is installed) lets an idle thread spin for a while after
# every parallel region. The engines open a region per chunk, and where busy threads outnumber the cores (two test
# workers on two cores, several Dask processes, a shared machine) the spinning threads take the cores the working
# ones need: a 250,000-round dealt run on 2 threads took 0.5-0.9 s instead of 0.09 s on 2 busy cores. Passive
# waiting costs one wake-up per region (microseconds beside a chunk's work). libgomp reads the setting when it
# loads, at the first parallel region, after this import; a value the user has set is kept.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

__all__ = ["KERNEL_SOURCES", "cache_by_content", "closure_digest", "inline_where_typed", "jit", "jit_parallel",
           "kernel_cache_dir", "kernel_sources_digest"]

_PACKAGE = Path(__file__).resolve().parent.parent
_KERNELS = _PACKAGE / "kernels"
#: Sources, relative to the package, that compiled kernels read: their helpers and constant tables (the stamp of
#: compiled code outside the package that calls the kernels, and of a kernel whose imports cannot be resolved).
KERNEL_SOURCES = ("kernels/*.py", "model/cards.py", "model/codes.py", "model/poker.py", "model/poker_states.py",
                  "model/tableau.py")


@functools.lru_cache(maxsize=4)
def kernel_sources_digest(patterns: tuple[str, ...] = KERNEL_SOURCES) -> str:
    """SHA-256 of every file matching ``patterns`` (relative to the package; names and contents), hex."""
    digest = hashlib.sha256()
    files = sorted({path for pattern in patterns for path in _PACKAGE.glob(pattern)})
    for path in files:
        digest.update(path.relative_to(_PACKAGE).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


_IMPORT_LINE = re.compile(r"\s*(from\s+\S+\s+import\b|import\s)")
_IMPORTS = (ast.Import, ast.ImportFrom)


def _import_nodes(text: str) -> list:
    """The import statements of a module's source, wherever they are, as ``ast`` nodes.

    Only the lines that read like imports are parsed (``ast.parse`` of whole
    modules made a kernel's first load 40 ms slower). One that reads like an
    import but does not parse is prose (a docstring's), unless it starts like
    an import of this package (``from .``, ``from baccarat_sim``): then the
    whole source is parsed instead.
    """
    lines = text.splitlines()
    nodes, at = [], 0
    while at < len(lines):
        first = at
        if _IMPORT_LINE.match(lines[at]):
            statement = lines[at].strip()
            while (statement.endswith("\\") or statement.count("(") > statement.count(")")) and at + 1 < len(lines):
                at += 1
                statement = statement.rstrip("\\") + " " + lines[at].strip()
            try:
                nodes.extend(node for node in ast.parse(statement).body if isinstance(node, _IMPORTS))
            except SyntaxError:
                if statement.startswith(("from .", f"from {_PACKAGE.name}")):
                    return [node for node in ast.walk(ast.parse(text)) if isinstance(node, _IMPORTS)]
                at = first  # prose: the lines it took in are read again
        at += 1
    return nodes


@functools.cache
def _imported_files(path: Path) -> frozenset[Path] | None:
    """The package's files that the module at ``path`` imports (a package imported as a whole: its ``__init__``).

    None if an import of the package cannot be resolved to a file: the
    caller then keys on every kernel source instead.
    """
    parts = path.relative_to(_PACKAGE).parent.parts
    found: set[Path] = set()
    for node in _import_nodes(path.read_text()):
        if isinstance(node, ast.Import):
            targets = [(alias.name.split(".")[1:], ()) for alias in node.names
                       if alias.name.split(".")[0] == _PACKAGE.name]
        elif isinstance(node, ast.ImportFrom):
            if node.level == 0:
                if (node.module or "").split(".")[0] != _PACKAGE.name:
                    continue
                base = node.module.split(".")[1:]
            elif node.level - 1 > len(parts):
                return None
            else:
                base = [*parts[:len(parts) - (node.level - 1)], *(node.module.split(".") if node.module else ())]
            targets = [(base, tuple(alias.name for alias in node.names))]
        else:
            continue
        for base, names in targets:
            module = _PACKAGE.joinpath(*base)
            for candidate in (module.with_suffix(".py"), module / "__init__.py"):
                if candidate.is_file():
                    found.add(candidate)
                    break
            else:
                return None
            found.update(module / f"{name}.py" for name in names if (module / f"{name}.py").is_file())
    return frozenset(found)


@functools.cache
def closure_digest(py_file: str) -> str:
    """SHA-256 (hex) of a kernel's file and every package file it imports, directly or through others.

    What a compiled kernel can read: the helpers it inlines and calls and the
    constant tables it folds in all come from modules its file imports. An
    import that cannot be resolved to a file keys on every kernel source
    (:func:`kernel_sources_digest`) as well.
    """
    start = Path(py_file).resolve()
    seen, todo = {start}, [start]
    while todo:
        imported = _imported_files(todo.pop())
        if imported is None:
            names = "".join(sorted(path.relative_to(_PACKAGE).as_posix() for path in seen))
            return hashlib.sha256((kernel_sources_digest() + names).encode()).hexdigest()
        for path in imported - seen:
            seen.add(path)
            todo.append(path)
    digest = hashlib.sha256()
    for path in sorted(seen):
        digest.update(path.relative_to(_PACKAGE).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def kernel_cache_dir() -> Path:
    """The folder this package's compiled kernels are cached in.

    ``$NUMBA_CACHE_DIR/baccarat_sim`` when numba's cache folder is set, else
    ``baccarat_sim/numba`` in the user's cache folder (``$XDG_CACHE_HOME``,
    else ``~/.cache``, where the run checkpoints go too); then one folder per
    numba and Python version. Nothing in the name depends on where the
    package is, nor on its sources: each kernel carries its own stamp
    (:func:`closure_digest`).
    """
    chosen = nb.config.CACHE_DIR
    if chosen:
        root = Path(chosen) / "baccarat_sim"
    else:
        root = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "baccarat_sim" / "numba"
    version = f"numba{nb.__version__}-py{sys.version_info.major}{sys.version_info.minor}"
    return root / f"kernels-{version}"


#: Folders whose numba functions are cached by content: the package's kernels, and those :func:`cache_by_content` adds.
_FOLDERS = {_KERNELS}


def cache_by_content(folder) -> None:
    """Cache the numba functions (``cache=True``) defined in ``folder``'s files the way the kernels are cached.

    For compiled code outside the package that calls or inlines its kernels
    (the tests' own compiled helpers): numba's own cache would check only that
    code's file, and serve a stale helper after a kernel changed, and it would
    compile again in every checkout. Here a function is cached in a
    subfolder of :func:`kernel_cache_dir` named after ``folder``, stamped with
    the kernel sources' digest and its own file's contents.
    """
    _FOLDERS.add(Path(folder).resolve())


def _cache_place(py_file) -> tuple[str, str] | None:
    """Where and how a numba function defined in ``py_file`` is cached by content: (subfolder, stamp), or None.

    A kernel: :func:`kernel_cache_dir` itself, stamped with :func:`closure_digest`.
    Another file of the package (the model's rules, which the kernels compile
    with ``jit``): the subfolder of its own folder (``model``), stamped the
    same way. A file of a folder :func:`cache_by_content` added: the subfolder
    named after that folder, stamped with every kernel source and its own
    contents. None for any other file (numba's own cache).
    """
    try:
        path = Path(py_file).resolve()
    except (OSError, TypeError, ValueError):
        return None
    if path.parent in _FOLDERS and path.parent != _KERNELS:  # code that calls the kernels
        return path.parent.name, hashlib.sha256((kernel_sources_digest() + hashlib.sha256(
            path.read_bytes()).hexdigest()).encode()).hexdigest()
    if path.suffix != ".py" or not path.is_relative_to(_PACKAGE) or not path.is_file():
        return None
    return path.parent.relative_to(_PACKAGE).as_posix() if path.parent != _KERNELS else "", closure_digest(str(path))


def _cache_by_content() -> None:
    """Put a locator in front of numba's that caches this package's kernels in :func:`kernel_cache_dir`.

    numba picks the first cache locator class that accepts a function. The
    one put in front accepts every function of the package (the kernels, and
    the model's functions they compile) and of the folders
    :func:`cache_by_content` adds (:func:`_cache_place`), whether or not its
    folder can be written: a complete cache that cannot be written is read all
    the same, and a folder that cannot be made is no reason to stop. The cache
    numba builds for such a function (``BaccaratSimKernelCache``, below) turns
    what fails in the folder into a kernel compiled in memory. If numba's
    caching internals ever change shape, caching falls back to numba's own
    behaviour.
    """
    try:
        from numba.core import caching, dispatcher

        impl = getattr(caching, "CacheImpl", None) or caching._CacheImpl  # renamed in numba 0.60
        locators = impl._locator_classes
        base = caching._CacheLocator
        function_cache = dispatcher.FunctionCache
    except (ImportError, AttributeError):
        return
    if not all(callable(getattr(function_cache, name, None)) for name in ("load_overload", "save_overload")):
        return
    if any(getattr(cls, "_baccarat_sim", False) for cls in locators):
        return

    class ContentCacheLocator(base):
        """Caches a kernel of this package in :func:`kernel_cache_dir`, stamped with what its file imports."""

        _baccarat_sim = True

        def __init__(self, py_func, py_file, place: tuple[str, str]):
            self._py_file = py_file
            self._lineno = py_func.__code__.co_firstlineno
            subfolder, self._stamp = place
            self._cache_path = str(kernel_cache_dir() / subfolder)

        def get_cache_path(self):
            return self._cache_path

        def get_source_stamp(self):
            return self._stamp

        def get_disambiguator(self):
            # The stamp in the index file's name: another version of the kernel keeps its own entry.
            return f"{self._lineno}-{self._stamp[:16]}"

        @classmethod
        def from_function(cls, py_func, py_file):
            # Whether the folder can be written is found out when a kernel is saved (KernelCache.save_overload).
            place = _cache_place(py_file)
            return None if place is None else cls(py_func, py_file, place)

    class KernelCache(function_cache):
        """numba's cache of one function, where a kernel's cache that fails never stops what called the kernel.

        A folder that cannot be read or written (read-only, not a folder,
        full): the kernel compiles in memory, which is said once per folder. An
        entry that cannot be loaded (a truncated or garbled index or data file):
        the kernel compiles again and the entry is replaced.
        """

        def _ours(self) -> bool:
            return getattr(getattr(getattr(self, "_impl", None), "locator", None), "_baccarat_sim", False)

        def load_overload(self, sig, target_context):
            if not self._ours():
                return super().load_overload(sig, target_context)
            try:
                return super().load_overload(sig, target_context)
            except OSError as error:  # the folder or a file cannot be read
                _cache_unusable(self._cache_path, "read", error)
            except Exception as error:  # a damaged entry (pickle's errors, EOFError, ...): compiled again
                _set_aside_damaged(self._cache_file, error)
            return None

        def save_overload(self, sig, data):
            if not self._ours():
                return super().save_overload(sig, data)
            if self._cache_path in _UNUSABLE:
                return  # said once; no file to try again in this process
            try:
                super().save_overload(sig, data)
            except Exception as error:  # not writable, a full disk, not a folder: compiled in memory all the same
                _cache_unusable(self._cache_path, "written", error)

    KernelCache.__name__ = KernelCache.__qualname__ = "BaccaratSimKernelCache"
    locators.insert(0, ContentCacheLocator)
    dispatcher.FunctionCache = KernelCache  # what a dispatcher made with cache=True builds from now on


#: Cache folders that could not be read or written in this process (each said once).
_UNUSABLE: set[str] = set()


def _cache_unusable(folder: str, what: str, error: Exception) -> None:
    """Say once per folder, in one line on stderr, that the kernel cache there cannot be used and why."""
    if folder in _UNUSABLE:
        return
    _UNUSABLE.add(folder)
    reason = getattr(error, "strerror", None) or type(error).__name__
    print(f"baccarat_sim: note: the kernel cache {folder} cannot be {what} ({reason}): kernels are compiled in memory "
          "for this run (set NUMBA_CACHE_DIR to a writable folder to keep them)", file=sys.stderr, flush=True)


def _set_aside_damaged(cache_file, error: Exception) -> None:
    """A cache entry that failed to load: a damaged index file is removed (a damaged data file is overwritten).

    numba writes each file whole under a temporary name (a crash or a full disk leaves no half file), so a
    damaged one was cut short or changed by something else; once the kernel compiles, its entry is written anew.
    """
    index = Path(cache_file._index_path)
    try:
        cache_file._load_index()
        damaged = index.name + " (or a data file it names)"
    except Exception:
        damaged = index.name
        with contextlib.suppress(OSError):
            index.unlink()
    print(f"baccarat_sim: note: the kernel cache entry {damaged} in {index.parent} is damaged ({type(error).__name__}):"
          " compiling the kernel again and replacing it", file=sys.stderr, flush=True)


_cache_by_content()

jit = functools.partial(nb.njit, cache=True, error_model="numpy", nogil=True)
#: The same, with ``prange`` loops run in parallel (the block drivers).
jit_parallel = functools.partial(nb.njit, cache=True, error_model="numpy", nogil=True, parallel=True)


def inline_where_typed(function):
    """``function`` for kernels, inlined into a kernel only where numba types a call to it.

    ``jit(inline="always")`` inlines numba's untyped IR of a helper, and of
    every helper it calls, into each caller before the branches that a
    ``None`` argument rules out are pruned: a plain kernel with a branch for
    card detail (``if detail is not None``) paid to inline the whole card-detail
    evaluation, poker values included, and then threw it away (the plain fresh
    kernel compiled in 14 s instead of 5). An ``overload`` with
    ``inline="always"`` is inlined after typing, so only the kernels that do
    call ``function`` compile it, and those get it inlined as before.

    Returns ``function`` itself: from Python (and with ``NUMBA_DISABLE_JIT``)
    it runs as plain Python.
    """
    import inspect

    from numba.extending import overload

    def typed(*args):
        return function

    typed.__signature__ = inspect.signature(function)  # numba matches the typing function's parameters to these
    overload(function, inline="always")(typed)
    return function
