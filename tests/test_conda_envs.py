"""Per-rule conda environments (envs/*.yaml): they exist, are pinned, and cover the imports.

The default run uses the one virtual environment of ``make setup``; the env files
serve ``snakemake --sdm conda``. Conda is not installed on the CI machine, so these
tests check the files statically: every rule with a script names an env file that
exists; each file is conda-forge only and pins exact versions; each rule's env pins
every third-party package its script imports, directly or through the ``dprank``
modules it runs (every import statement counts, function-level ones too); and the
pins equal ``requirements/constraints.txt`` and satisfy ``pyproject.toml``.
"""

from __future__ import annotations

import ast
import re
import sys
import tomllib
from collections import defaultdict
from functools import cache
from pathlib import Path

import pytest
import yaml
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name

from dprank_papers.studies import STUDIES

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src"
ENVS = ROOT / "envs"
#: Import name -> conda-forge package name, where they differ.
CONDA_NAME = {"yaml": "pyyaml", "PIL": "pillow"}
#: Imported but provided otherwise: Snakemake injects the ``snakemake`` object into
#: scripts (the script preamble finds Snakemake's own installation).
PROVIDED = {"snakemake"}
PIN = re.compile(r"^([A-Za-z0-9_.-]+)=([0-9][0-9A-Za-z.]*)$")


@pytest.fixture(scope="module")
def rules():
    """(rule name, script path, env file path) of every rule with a script."""
    from snakemake.api import SnakemakeApi
    from snakemake.settings.types import ConfigSettings, OutputSettings, ResourceSettings

    with SnakemakeApi(OutputSettings(quiet={"all"})) as api:
        wf = api.workflow(
            resource_settings=ResourceSettings(cores=1),
            config_settings=ConfigSettings(configfiles=[ROOT / ".test/config.yaml"]),
            snakefile=ROOT / "Snakefile",
            workdir=ROOT,
        )
        out = []
        for rule in wf._workflow.rules:
            if rule.script is None:
                continue
            base = Path(rule.snakefile).parent
            env = (base / rule.conda_env).resolve() if rule.conda_env else None
            out.append((rule.name, (base / rule.script).resolve(), env))
    assert len(out) > 25
    return out


def load_env(path: Path) -> dict:
    env = yaml.safe_load(path.read_text())
    assert isinstance(env, dict) and set(env) <= {"name", "channels", "dependencies"}, path
    return env


def pins(path: Path) -> dict[str, str]:
    """Package -> exact version of an env file (fails on an unpinned dependency)."""
    out = {}
    for dep in load_env(path)["dependencies"]:
        m = PIN.match(str(dep))
        assert m, f"{path.name}: {dep!r} is not pinned as name=version"
        out[canonicalize_name(m.group(1))] = m.group(2)
    return out


@cache
def _imports(path: Path) -> frozenset[str]:
    """Absolute module names imported anywhere in a file (relative ones resolved); each file
    is parsed once, whichever scripts reach it."""
    tree = ast.parse(path.read_text(), filename=str(path))
    rel = path.relative_to(SRC).with_suffix("") if path.is_relative_to(SRC) else None
    # the package a relative import starts from: the directory, for a module and an __init__
    package = ".".join(rel.parts[:-1]) if rel else ""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1])
                mod = f"{base}.{node.module}" if node.module else base
            else:
                mod = node.module
            found.add(mod)
            found.update(f"{mod}.{a.name}" for a in node.names)
    return frozenset(found)


@cache
def _module_file(name: str) -> Path | None:
    base = SRC.joinpath(*name.split("."))
    for p in (base / "__init__.py", base.with_suffix(".py")):
        if p.is_file():
            return p
    return None


@cache
def third_party(script: Path) -> frozenset[str]:
    """Top-level third-party packages a script runs, through every module of ours it uses.

    A script that picks its stage module at run time (``study_module``) may run any
    module of ``dprank_papers.studies``: all of them count.
    """
    todo = [script]
    if "study_module(" in script.read_text():
        for package in STUDIES.values():  # the packages study_module can pick from
            todo += sorted(SRC.joinpath(*package.split(".")).rglob("*.py"))
    seen: set[Path] = set()
    names: set[str] = set()
    while todo:
        path = todo.pop()
        if path in seen:
            continue
        seen.add(path)
        for mod in _imports(path):
            top = mod.split(".")[0]
            if top in ("dprank", "dprank_papers"):  # the library and the reproduction
                parts = mod.split(".")
                for i in range(1, len(parts) + 1):  # the module and every package on the way
                    if (f := _module_file(".".join(parts[:i]))) is not None:
                        todo.append(f)
            elif top not in sys.stdlib_module_names and top != "__future__":
                names.add(top)
    return frozenset(names - PROVIDED)


def test_every_rule_with_a_script_names_an_existing_env(rules):
    for name, script, env in rules:
        assert script.is_file(), f"rule {name}: script {script} missing"
        assert env is not None, f"rule {name} names no conda env"
        assert env.parent == ENVS and env.is_file(), f"rule {name}: {env} is not a file in envs/"


def test_env_files_are_conda_forge_pinned_and_used(rules):
    used = {env for _, _, env in rules}
    files = sorted(ENVS.glob("*.yaml"))
    assert files and set(files) == used, f"unused env files: {sorted(set(files) - used)}"
    for path in files:
        env = load_env(path)
        assert env["channels"] == ["conda-forge"], f"{path.name}: channels {env['channels']}"
        assert "python" in pins(path), f"{path.name} pins no python"


def test_each_rule_env_pins_what_its_code_imports(rules):
    missing = []
    for name, script, env in rules:
        pinned = pins(env)
        for top in sorted(third_party(script)):
            package = canonicalize_name(CONDA_NAME.get(top, top))
            if package not in pinned:
                missing.append(f"rule {name} ({script.name}) imports {top}: not in {env.name}")
    assert not missing, "\n".join(missing)


def test_each_env_pins_only_what_its_rules_import(rules):
    """Small envs: every package a file pins (python aside) is imported by one of its rules."""
    needed = defaultdict(set)
    for _, script, env in rules:
        needed[env] |= {canonicalize_name(CONDA_NAME.get(top, top)) for top in third_party(script)}
    extra = [
        f"{env.name} pins {package}, which none of its rules imports"
        for env in sorted(needed)
        for package in sorted(set(pins(env)) - needed[env] - {"python"})
    ]
    assert not extra, "\n".join(extra)


def test_pins_agree_with_pyproject_and_constraints():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    specs = {}
    for req in map(Requirement, project["dependencies"]):
        specs[canonicalize_name(req.name)] = req.specifier
    constraints = {}
    for line in (ROOT / "requirements/constraints.txt").read_text().splitlines():
        if "==" in line and not line.startswith("#"):
            name, version = line.split("==")
            constraints[canonicalize_name(name)] = version.strip()
    for path in sorted(ENVS.glob("*.yaml")):
        for package, version in pins(path).items():
            if package == "python":
                assert version in SpecifierSet(project["requires-python"]) or (
                    f"{version}.0" in SpecifierSet(project["requires-python"])
                ), f"{path.name}: python={version} vs requires-python"
                continue
            assert package in specs, f"{path.name}: {package} is not a dependency in pyproject"
            assert version in specs[package], (
                f"{path.name}: {package}={version} outside pyproject's {specs[package]}"
            )
            assert constraints.get(package) == version, (
                f"{path.name}: {package}={version}, requirements/constraints.txt has "
                f"{constraints.get(package)}"
            )


def test_import_scan_sees_through_the_library(tmp_path):
    """The scan is not vacuous: a script's direct and transitive imports are found."""
    script = tmp_path / "s.py"
    script.write_text("import numpy as np\nfrom dprank.base.io import save_arrays\n")
    found = third_party(script)
    assert "numpy" in found
    assert found >= third_party(SRC / "dprank/base/io.py") - {"dprank"}
    plot = tmp_path / "p.py"
    plot.write_text("from dprank_papers.plotting import paper_a\n")
    assert "matplotlib" in third_party(plot)
