"""Which library files a workflow stage runs: the transitive imports of a module.

Snakemake does not track imported modules, so each rule lists the library
files its script uses under ``input:``. The list is computed here from the
import statements (static analysis, nothing is imported), so it cannot go
stale: editing ``dprank/fit/mle.py`` reruns estimation and what follows it, but
not data generation, whose modules do not import it. Each file's imports are kept
between Snakemake starts (:func:`use_import_cache`), so a start parses only the files
that changed.
"""

from __future__ import annotations

import ast
import functools
import json
import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path

from dprank.base import checks as _checks

__all__ = ["module_files", "script_files", "use_import_cache"]

#: the packages whose files a stage runs: the library and the papers' reproduction
_PACKAGES = ("dprank", "dprank_papers")


def _ours(module: str) -> bool:
    return any(module == p or module.startswith(p + ".") for p in _PACKAGES)


def _module_path(module: str, src: str) -> str | None:
    """The file of ``module`` under ``src`` (a normalised path), or None.

    Plain strings and :mod:`os.path`, not :class:`pathlib.Path`: the workflow resolves
    thousands of names when it starts (some 8,000), and Path objects cost a fifth of the scan.
    """
    base = os.path.join(src, *module.split("."))
    init = os.path.join(base, "__init__.py")
    if os.path.isfile(init):
        return init
    if os.path.isfile(base + ".py"):
        return base + ".py"
    return None


#: The fields of a statement that hold statements (or the handlers and match cases that do).
_BLOCKS = ("body", "orelse", "finalbody", "handlers", "cases")


def _import_statements(tree: ast.Module) -> Iterator[ast.Import | ast.ImportFrom]:
    """Every ``import`` and ``from ... import`` statement of ``tree``, at any depth.

    The same statements as filtering :func:`ast.walk`, in another order: an import is a
    statement, so only the blocks of statements are visited (the bodies of functions,
    classes, ``if``, loops, ``with``, ``try`` and ``match``), not the expressions, which
    are most of a module's nodes (the workflow scans every library file it runs when it
    starts).
    """
    todo = list(tree.body)
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        else:
            for field in _BLOCKS:
                todo.extend(getattr(node, field, None) or ())


def _imports(module: str, path: str) -> frozenset[str]:
    st = os.stat(path)  # the key changes when the file does
    store = _STORE
    if store is None:
        return _parsed_imports(module, path, st.st_mtime_ns, st.st_size)
    return store.imports(module, path, st)


#: Format of the file of :func:`use_import_cache` (a file of another format is not read).
_CACHE_FORMAT = 1
#: A file changed less than this long ago (nanoseconds) is not written to the cache file: a
#: second edit within the file system's clock tick could keep its size and times.
_SETTLED_NS = 2_000_000_000


class _ImportStore:
    """The imports of each file, kept in a JSON file between processes.

    An entry is ``"<module> <absolute path>": [size, mtime_ns, ctime_ns, [imports]]``; it is
    used only while the file has that size and those times, and a file whose times are
    within :data:`_SETTLED_NS` of the scan is not written to it. The file is read at the
    first look-up and rewritten (atomically) after a scan that added entries; a file that
    cannot be read, of another format or Python version, or of the wrong shape, counts
    as empty (everything is scanned again), and one that cannot be written is left alone.
    """

    def __init__(self, path: str):
        self.path = path
        self.entries: dict[str, list] | None = None  # read at the first look-up
        self.dirty = False

    def _header(self) -> dict:
        return {"format": _CACHE_FORMAT, "python": list(sys.version_info[:2])}

    def _load(self) -> dict[str, list]:
        try:
            with open(self.path, encoding="utf-8") as fh:
                data = json.load(fh)
        except (OSError, ValueError):
            return {}
        if not isinstance(data, dict) or data.get("header") != self._header():
            return {}
        entries = data.get("files")
        if not isinstance(entries, dict) or not all(map(_valid_entry, entries.values())):
            return {}
        return entries

    def imports(self, module: str, path: str, st: os.stat_result) -> frozenset[str]:
        if self.entries is None:
            self.entries = self._load()
        key = f"{module} {os.path.abspath(path)}"
        stamp = [st.st_size, st.st_mtime_ns, st.st_ctime_ns]
        hit = self.entries.get(key)
        if hit is not None and hit[:3] == stamp:
            return frozenset(hit[3])
        found = _parsed_imports(module, path, st.st_mtime_ns, st.st_size)
        if time.time_ns() - max(st.st_mtime_ns, st.st_ctime_ns) >= _SETTLED_NS:
            self.entries[key] = [*stamp, sorted(found)]
            self.dirty = True
        elif hit is not None:  # an older version's entry: not to be written again
            del self.entries[key]
            self.dirty = True
        return found

    def save(self) -> None:
        """Write the entries if a scan changed them (those of files that still exist)."""
        if not self.dirty:
            return
        self.dirty = False
        files = {k: e for k, e in self.entries.items() if os.path.isfile(k.partition(" ")[2])}
        from dprank.base.io import atomic_path

        try:
            with atomic_path(self.path) as tmp:
                tmp.write_text(json.dumps({"header": self._header(), "files": files}))
        except OSError:
            pass  # a cache only: the next process scans again


def _valid_entry(e) -> bool:
    return (
        isinstance(e, list)
        and len(e) == 4
        and all(type(x) is int for x in e[:3])
        and isinstance(e[3], list)
        and all(isinstance(m, str) for m in e[3])
    )


#: The file of :func:`use_import_cache`, or None (every process scans every file).
_STORE: _ImportStore | None = None


def use_import_cache(path: str | Path | None) -> None:
    """Keep each library file's imports in ``path`` (a JSON file) between processes.

    The workflow scans the imports of every library file its rules run whenever it is
    parsed (each Snakemake start); with the cache, a file is parsed again only when its
    size or times change. The file lists :func:`module_files` and :func:`script_files`
    return are the same with and without it. None: no cache file (the default).

    Parameters
    ----------
    path : path-like or None
        The cache file, e.g. ``.snakemake/dprank-imports.json`` (its folder is created
        when it is first written).
    """
    global _STORE
    if path is not None:
        _checks.path(path, "path")
    _STORE = None if path is None else _ImportStore(os.fspath(path))


@functools.lru_cache(maxsize=4096)
def _parsed_imports(module: str, path: str, _mtime_ns: int, _size: int) -> frozenset[str]:
    """``dprank`` and ``dprank_papers`` modules imported by one file, parsed once per version.

    The workflow asks for the same modules many times (every rule lists its
    script's library files), and Snakemake parses the workflow again in every
    cluster job; the cache keeps that to one parse per file.
    """
    path = Path(path)
    tree = ast.parse(path.read_text(), filename=str(path))
    is_package = path.name == "__init__.py"
    package = module if is_package else module.rpartition(".")[0]
    found: set[str] = set()
    for node in _import_statements(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1])
                target = f"{base}.{node.module}" if node.module else base
            else:
                target = node.module or ""
            found.add(target)
            found.update(f"{target}.{alias.name}" for alias in node.names)
    return frozenset(m for m in found if _ours(m))


#: Process-wide results of :func:`module_files` and :func:`script_files`, each with the
#: (path, mtime, size) of every file and package folder it read: a hit re-checks those only.
_RESULTS: dict[tuple, tuple[tuple, list[str]]] = {}


def _stamp(paths) -> tuple:
    out = []
    for p in paths:
        try:
            st = os.stat(p)
        except FileNotFoundError:
            out.append((p, None, None))
        else:
            out.append((p, st.st_mtime_ns, st.st_size))
    return tuple(out)


#: How many computations of :func:`_cached` are under way (a script's holds its modules').
_DEPTH = 0


def _cached(key: tuple, compute):
    """``compute()`` -> (result, files read); reused while none of those files changes.

    The cache file of :func:`use_import_cache` is written when the outermost computation
    ends, if a scan added to it.
    """
    global _DEPTH
    hit = _RESULTS.get(key)
    if hit is not None and _stamp(p for p, _, _ in hit[0]) == hit[0]:
        return list(hit[1])
    _DEPTH += 1
    try:
        result, read = compute()
    finally:
        _DEPTH -= 1
    _RESULTS[key] = (_stamp(sorted(read)), result)
    if _STORE is not None and _DEPTH == 0:
        _STORE.save()
    return list(result)


def module_files(module: str, src: str | Path) -> list[str]:
    """Source files of ``module`` and every ``dprank`` module it imports, transitively.

    Parameters
    ----------
    module : str
        Dotted module name, e.g. ``"dprank_papers.studies.paper_a_edge.estimate"``.
    src : path
        The directory holding the ``dprank`` and ``dprank_papers`` packages.

    Returns
    -------
    list of str
        Sorted file paths (as ``src / relative path``), including the
        ``__init__.py`` of every package on the way.
    """
    _checks.text(module, "module")
    _checks.path(src, "src")
    return _cached(("module", module, str(src)), lambda: _module_closure(module, str(Path(src))))


def _module_closure(module: str, src: str) -> tuple[list[str], set[str]]:
    """``module``'s files and the files and folders read; ``src`` normalised (as ``Path``)."""
    seen: set[str] = set()
    files: set[str] = set()
    read: set[str] = set()
    todo = [module]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        path = _module_path(name, src)
        # the folder that holds (or would hold) the module: a new file there changes it
        parent = name.rpartition(".")[0]
        read.add(os.path.join(src, *parent.split(".")) if parent else src)
        if path is None:
            continue  # a name imported from a module, not a module itself
        files.add(path)
        if parent:
            todo.append(parent)
        todo.extend(_imports(name, path) - seen)
    read.update(files)
    return sorted(files), read


def script_files(
    script: str | Path, src: str | Path, extra_modules: tuple[str, ...] = ()
) -> list[str]:
    """Library files a workflow script uses: its own ``dprank`` imports plus ``extra_modules``.

    ``extra_modules`` names modules the script imports dynamically (a study's
    stage module chosen from a wildcard).
    """
    _checks.path(script, "script")
    _checks.path(src, "src")
    if not isinstance(extra_modules, (tuple, list)) or not all(
        isinstance(m, str) for m in extra_modules
    ):
        raise TypeError(f"extra_modules must be a tuple of module names, got {extra_modules!r}")
    key = ("script", str(script), str(src), tuple(extra_modules))
    return _cached(key, lambda: _script_closure(script, src, extra_modules))


def _script_closure(script, src, extra_modules) -> tuple[list[str], set[str]]:
    tree = ast.parse(Path(script).read_text(), filename=str(script))
    modules = set(extra_modules)
    for node in _import_statements(tree):
        if isinstance(node, ast.Import):
            modules.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            modules.add(node.module)
            modules.update(f"{node.module}.{a.name}" for a in node.names)
    files: set[str] = set()
    read = {str(script)}
    for m in modules:
        if _ours(m):
            found = module_files(m, src)
            files.update(found)
            read.update(p for p, _, _ in _RESULTS[("module", m, str(src))][0])
    return sorted(files), read
