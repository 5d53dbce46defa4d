"""The line between the two packages: the ranking library and the papers' reproduction.

``dprank`` (the library and its command) never imports ``dprank_papers`` (the studies,
figures, tables, docs generation and workflow glue of the two papers), not even inside a
function; each package uses only the public names of the other (no module or attribute whose
name starts with an underscore). The imports are read from the source with :mod:`ast`, so a
deferred import or an ``importlib.import_module("dprank_papers...")`` counts like any other.

The same reading checks the shape of both packages (docs/architecture.md): no import circle,
no private name used across modules, no module over the ceiling, and the library's layers.
"""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src"
LIBRARY, PAPERS = "dprank", "dprank_papers"


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def module_name(path: Path) -> tuple[str, bool]:
    """Dotted name of a source file below ``src/`` and whether it is a package."""
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    is_package = parts[-1] == "__init__"
    return ".".join(parts[:-1] if is_package else parts), is_package


def package_of(module: str) -> str:
    return module.partition(".")[0]


def imports(source: str, module: str, is_package: bool = False):
    """``(line, imported module, imported name or None)`` of every import in ``source``.

    Relative imports are resolved against ``module``; ``from a import b`` gives
    ``("a", "b")``; ``importlib.import_module("x")`` and ``__import__("x")`` with a
    constant argument give ``("x", None)``.
    """
    package = module if is_package else module.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name, None) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1])
                target = f"{base}.{node.module}" if node.module else base
            else:
                target = node.module or ""
            found.extend((node.lineno, target, alias.name) for alias in node.names)
        elif isinstance(node, ast.Call) and node.args:
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
            arg = node.args[0]
            if (
                name in ("import_module", "__import__")
                and isinstance(arg, ast.Constant)
                and isinstance(arg.value, str)
            ):
                found.append((node.lineno, arg.value, None))
    return found


def private_attributes(source: str, other: str) -> list[tuple[int, str]]:
    """``(line, name.attr)`` where a name bound by an import of package ``other`` is asked for a
    private attribute (``import dprank.methods as m; m._x`` or ``dprank.methods._x``)."""
    tree = ast.parse(source)
    bound: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if package_of(alias.name) == other:
                    bound.add(alias.asname or alias.name.partition(".")[0])
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            if package_of(node.module) == other:
                bound.update(alias.asname or alias.name for alias in node.names)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _private(node.attr):
            root = node.value
            while isinstance(root, ast.Attribute):
                root = root.value
            if isinstance(root, ast.Name) and root.id in bound:
                found.append((node.lineno, f"{ast.unparse(node.value)}.{node.attr}"))
    return found


def violations(source: str, module: str, is_package: bool = False) -> list[str]:
    """What breaks the rule in one module of either package."""
    own = package_of(module)
    other = PAPERS if own == LIBRARY else LIBRARY
    out = []
    for line, target, name in imports(source, module, is_package):
        if package_of(target) != other:
            continue
        if own == LIBRARY:
            out.append(f"{module}:{line} imports {target}" + (f".{name}" if name else ""))
            continue
        private = [p for p in target.split(".") if _private(p)]
        if name is not None and _private(name):
            private.append(name)
        if private:
            what = target + (f" ({name})" if name else "")
            out.append(f"{module}:{line} imports the private {', '.join(private)} of {what}")
    for line, attr in private_attributes(source, other):
        out.append(f"{module}:{line} uses the private attribute {attr}")
    return out


def sources(package: str) -> list[Path]:
    return sorted((SRC / package).rglob("*.py"))


# ------------------------------------------------------------------- the check itself


def test_the_check_finds_every_kind_of_crossing():
    library_source = (
        "import dprank_papers.studies\n"
        "def f():\n    from dprank_papers import workflow\n"
        "from .. import _checks\n"
        "import importlib\nimportlib.import_module('dprank_papers.report')\n"
        "from dprank.methods import get_method\n"
    )
    found = violations(library_source, "dprank.audit.harness")
    assert found == [
        "dprank.audit.harness:1 imports dprank_papers.studies",
        "dprank.audit.harness:3 imports dprank_papers.workflow",
        "dprank.audit.harness:6 imports dprank_papers.report",
    ]
    papers_source = (
        "from dprank import _checks, checks\n"
        "from dprank.methods import _simulated_local_release, get_method\n"
        "import dprank.audit._core\n"
        "def f():\n    from dprank.cli import _FORMAT\n"
        "import dprank.methods as m\n"
        "x = m._fit_result\ny = dprank.data.realdata._SPECS\nz = checks.count\n"
        "from .. import _papers\n"
    )
    assert violations(papers_source, "dprank_papers.studies.x") == [
        "dprank_papers.studies.x:1 imports the private _checks of dprank (_checks)",
        "dprank_papers.studies.x:2 imports the private _simulated_local_release of "
        "dprank.methods (_simulated_local_release)",
        "dprank_papers.studies.x:3 imports the private _core of dprank.audit._core",
        "dprank_papers.studies.x:5 imports the private _FORMAT of dprank.cli (_FORMAT)",
        "dprank_papers.studies.x:7 uses the private attribute m._fit_result",
        "dprank_papers.studies.x:8 uses the private attribute dprank.data.realdata._SPECS",
    ]
    # the papers' own private modules are theirs to use
    assert violations("from . import _papers\n", "dprank_papers.config") == []


def test_relative_imports_are_resolved():
    found = imports("from ..methods import get_method\nfrom . import x\n", "dprank.a.b")
    assert [(t, n) for _, t, n in found] == [("dprank.methods", "get_method"), ("dprank.a", "x")]
    found = imports("from . import _x\n", "dprank.audit", is_package=True)
    assert [(t, n) for _, t, n in found] == [("dprank.audit", "_x")]


# ------------------------------------------------------------------- the two packages


def test_both_packages_exist_and_are_shipped():
    assert len(sources(LIBRARY)) > 40 and len(sources(PAPERS)) > 30
    from setuptools import find_packages

    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    find = config["tool"]["setuptools"]["packages"]["find"]
    shipped = set(find_packages(where=str(ROOT / find["where"][0]), include=find["include"]))
    on_disk = {module_name(p)[0] for p in SRC.rglob("__init__.py") if p.parts[-2] != "__pycache__"}
    assert {LIBRARY, PAPERS} <= shipped and on_disk <= shipped


@pytest.mark.parametrize("package", [LIBRARY, PAPERS])
def test_no_module_crosses_the_line(package):
    found = []
    for path in sources(package):
        name, is_package = module_name(path)
        found.extend(violations(path.read_text(encoding="utf-8"), name, is_package))
    rule = (
        "the library never imports dprank_papers"
        if package == LIBRARY
        else "dprank_papers uses only dprank's public names (make the name public there)"
    )
    assert found == [], f"{rule}: {found}"


def test_the_real_data_readers_the_command_exports_are_the_librarys():
    source = (SRC / LIBRARY / "data" / "exports.py").read_text()
    targets = {t for _, t, _ in imports(source, "dprank.data.exports")}
    assert "dprank.data.realdata" in targets
    assert all(package_of(t) != PAPERS for t in targets)


# ------------------------------------------------------------------- the modules' graph

#: The most lines a module of either package may have: above it, split the module by topic
#: (a package of private modules, as dprank.cli, dprank.objective and dprank.data.arena).
CEILING = 850

#: Modules still above the ceiling, each being split by its owner; an entry leaves the list
#: when its module is split (the test fails on an entry that is no longer needed).
OVER_THE_CEILING: set[str] = set()

#: Private names still imported (or read as an attribute) across modules: ``(importer,
#: module, name)``. Each is to be made public inside a private module, or moved, by the
#: owner of those modules; the test fails on an entry that is no longer needed.
PRIVATE_CROSSINGS_LEFT: set[tuple[str, str, str]] = set()


def all_modules() -> dict[str, tuple[str, bool]]:
    """Every module of both packages: dotted name -> (source, is a package)."""
    found = {}
    for package in (LIBRARY, PAPERS):
        for path in sources(package):
            name, is_package = module_name(path)
            found[name] = (path.read_text(encoding="utf-8"), is_package)
    return found


def import_graph(modules: dict[str, tuple[str, bool]]) -> dict[str, set[str]]:
    """Module -> the modules of both packages it imports, at module level or inside a function
    (``from a import b`` counts as importing ``a.b`` where that is a module, else ``a``)."""
    graph = {}
    for name, (source, is_package) in modules.items():
        targets = set()
        for _, target, imported in imports(source, name, is_package):
            full = f"{target}.{imported}" if imported else target
            module = full if full in modules else target
            if module in modules and module != name:
                targets.add(module)
        graph[name] = targets
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def private_crossings(modules: dict[str, tuple[str, bool]]) -> set[tuple[str, str, str]]:
    """``(importer, module, name)`` for each private name a module of either package imports
    from another module (``from m import _x``) or reads off an imported module (``m._x``)."""
    found = set()
    for name, (source, is_package) in modules.items():
        bound: dict[str, str] = {}
        for _, target, imported in imports(source, name, is_package):
            if imported is None:
                continue
            full = f"{target}.{imported}"
            if full in modules:
                bound[imported] = full
            elif target in modules and target != name and _private(imported):
                found.add((name, target, imported))
        tree = ast.parse(source)
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name in modules:
                        key = alias.asname or alias.name.partition(".")[0]
                        bound[key] = alias.name if alias.asname else key
            elif isinstance(node, ast.ImportFrom):
                for alias in node.names:  # ``from a import b as c``: c may be a module
                    if alias.asname and alias.name in bound:
                        bound[alias.asname] = bound[alias.name]
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Attribute) and _private(node.attr)):
                continue
            chain, root = [], node.value
            while isinstance(root, ast.Attribute):
                chain.append(root.attr)
                root = root.value
            if isinstance(root, ast.Name) and root.id in bound:
                target = ".".join([bound[root.id], *reversed(chain)])
                if target in modules and target != name:
                    found.add((name, target, node.attr))
    return found


def test_the_graph_checks_find_what_they_look_for():
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert circles({"a": {"b"}, "b": set()}) == []
    deferred = {
        "p.a": ("def f():\n    from . import b\n", False),
        "p.b": ("from .a import x\n", False),
    }
    assert circles(import_graph(deferred)) == [["p.a", "p.b"]]
    source = "from ._b import _x, y\nimport p._b as b\nz = b._w\nfrom . import _b\nv = _b._u\n"
    crossings = private_crossings({"p.a": (source, False), "p._b": ("", False), "p": ("", True)})
    assert ("p.a", "p._b", "_x") in crossings
    assert ("p.a", "p._b", "_w") in crossings and ("p.a", "p._b", "_u") in crossings
    assert not any(name == "y" for _, _, name in crossings)


def test_no_import_circle():
    """No two modules of either package import each other, directly or through others, not
    even inside a function (a deferred import hides a circle; it does not remove it)."""
    modules = all_modules()
    graph = import_graph(modules)
    assert "dprank.objective" in graph["dprank.fit.mle"]
    assert circles(graph) == []


def test_no_module_over_the_ceiling():
    over = {
        path.relative_to(SRC).as_posix(): n
        for path in (*sources(LIBRARY), *sources(PAPERS))
        if (n := len(path.read_text(encoding="utf-8").splitlines())) > CEILING
    }
    assert set(over) <= OVER_THE_CEILING, f"split by topic (at most {CEILING} lines): {over}"
    assert OVER_THE_CEILING <= set(over), (
        f"no longer over the ceiling, take off OVER_THE_CEILING: {OVER_THE_CEILING - set(over)}"
    )


def test_no_private_name_crosses_modules():
    """A name a module shares with another is public (inside a private module where it is
    not the package's interface); what is private stays in its module."""
    found = private_crossings(all_modules())
    new = sorted(found - PRIVATE_CROSSINGS_LEFT)
    assert new == [], f"make these public inside a private module, or move them: {new}"
    gone = sorted(PRIVATE_CROSSINGS_LEFT - found)
    assert gone == [], f"no longer crossing, take off PRIVATE_CROSSINGS_LEFT: {gone}"


# ------------------------------------------------------------------- the library's layers

#: The library's layers, lowest first (docs/architecture.md draws them); each is one or a few
#: packages of ``src/dprank/``. A module imports only modules of its own layer or of the layers
#: below, at module level or in a function.
#: ``x*`` stands for every module whose name starts with ``x``; ``x.`` for a package and its
#: modules.
LAYERS = {
    "foundations": "dprank._version dprank.base.",
    "data": "dprank.data.",
    "mathematics": "dprank.objective. dprank.fit. dprank.privacy.",
    "methods": "dprank.methods. dprank.intervals. dprank.audit.",
    "product": "dprank.api dprank.leaderboard dprank.ledger.",
    "command": "dprank.cli. dprank.__main__",
    "privacy harness": (
        "dprank.audit.harness dprank.audit._harness_* dprank.audit.command_channels dprank.testing."
    ),
    "facade": "dprank",
}


def layer_of(module: str) -> int | None:
    """The index in :data:`LAYERS` of ``module`` (the longest pattern that matches wins)."""
    best, where = -1, None
    for i, patterns in enumerate(LAYERS.values()):
        for pattern in patterns.split():
            if pattern.endswith("*"):
                hit = module.startswith(pattern[:-1])
            elif pattern.endswith("."):
                hit = module == pattern[:-1] or module.startswith(pattern)
            else:
                hit = module == pattern
            if hit and len(pattern) > best:
                best, where = len(pattern), i
    return where


def test_every_library_module_has_a_layer_and_imports_only_downwards():
    modules = all_modules()
    graph = import_graph(modules)
    library = [name for name in modules if package_of(name) == LIBRARY]
    placed = {name: layer_of(name) for name in library}
    assert [n for n, layer in placed.items() if layer is None] == [], "add it to LAYERS"
    names = list(LAYERS)
    upwards = [
        f"{a} ({names[placed[a]]}) imports {b} ({names[placed[b]]})"
        for a in library
        for b in sorted(graph[a])
        if package_of(b) == LIBRARY and placed[b] > placed[a]
    ]
    assert upwards == []
    assert layer_of("dprank.audit.harness") == names.index("privacy harness")
    assert layer_of("dprank.audit._core") == names.index("methods")
