"""The registry is plain code (issue 45).

The papers' studies, the benchmark, the privacy audit and the command import the public
library functions they use (``from dprank.fit.mle import fit_penalized_mle``); the registry
(:mod:`dprank.methods`) finds a method by name (``get_method``: the command's
``--method``, a config's list of methods) and runs it (``Method.fit``), and no caller looks
up a method's parts by a string role. What a method's ``fit`` calls is its code.
"""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path

from dprank.methods import Method

SRC = Path(__file__).resolve().parents[1] / "src"


def _calls(tree: ast.AST, attr: str):
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == attr
        ):
            yield node


def test_no_part_look_ups_remain():
    """The studies, the benchmark, the audit and the command import the functions they use:
    no ``Method.part("...")`` look-up and no ``get_method("...").noise_scale`` anywhere."""
    found = []
    for path in sorted(SRC.rglob("*.py")):
        tree = ast.parse(path.read_text())
        found += [f"{path.relative_to(SRC)}:{n.lineno}" for n in _calls(tree, "part")]
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and node.attr in ("noise_scale", "parts")
                and isinstance(node.value, ast.Call)
                and getattr(node.value.func, "id", None) == "get_method"
            ):
                found.append(f"{path.relative_to(SRC)}:{node.lineno}")
    assert found == []
    assert not hasattr(Method, "part") and "parts" not in {
        f.name for f in dataclasses.fields(Method)
    }
