"""Which library files a workflow stage runs: the transitive imports of a module.

Snakemake does not track imported modules, so each rule lists the library
files its script uses under ``input:``. The list is computed here from the
import statements (static analysis, nothing is imported), so it cannot go
stale: editing ``dprank/fit/mle.py`` reruns estimation and what follows it, but
not data generation, whose modules do not import it.
"""

from __future__ import annotations

import ast
import functools
import os
from collections.abc import Iterator
from pathlib import Path

from dprank.base import checks as _checks

__all__ = ["module_files", "script_files"]

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
    return _parsed_imports(module, path, st.st_mtime_ns, st.st_size)


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


def _cached(key: tuple, compute):
    """``compute()`` -> (result, files read); reused while none of those files changes."""
    hit = _RESULTS.get(key)
    if hit is not None and _stamp(p for p, _, _ in hit[0]) == hit[0]:
        return list(hit[1])
    result, read = compute()
    _RESULTS[key] = (_stamp(sorted(read)), result)
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
