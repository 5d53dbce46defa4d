"""The line between the two packages: the ranking library and the papers' reproduction.

``dprank`` (the library and its command) never imports ``dprank_papers`` (the studies,
figures, tables, docs generation and workflow glue of the two papers), not even inside a
function; each package uses only the public names of the other (no module or attribute whose
name starts with an underscore). The imports are read from the source with :mod:`ast`, so a
deferred import or an ``importlib.import_module("dprank_papers...")`` counts like any other.
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
        "x = m._fit_result\ny = dprank.realdata._SPECS\nz = checks.count\n"
        "from .. import _papers\n"
    )
    assert violations(papers_source, "dprank_papers.studies.x") == [
        "dprank_papers.studies.x:1 imports the private _checks of dprank (_checks)",
        "dprank_papers.studies.x:2 imports the private _simulated_local_release of "
        "dprank.methods (_simulated_local_release)",
        "dprank_papers.studies.x:3 imports the private _core of dprank.audit._core",
        "dprank_papers.studies.x:5 imports the private _FORMAT of dprank.cli (_FORMAT)",
        "dprank_papers.studies.x:7 uses the private attribute m._fit_result",
        "dprank_papers.studies.x:8 uses the private attribute dprank.realdata._SPECS",
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
    source = (SRC / LIBRARY / "exports.py").read_text()
    targets = {t for _, t, _ in imports(source, "dprank.exports")}
    assert "dprank.realdata" in targets
    assert all(package_of(t) != PAPERS for t in targets)
