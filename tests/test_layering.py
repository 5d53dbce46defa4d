"""The library's layering: only the workflow glue reads the workflow's config.

Library functions take the values they need (a study's config section, the
seed, the chunk size, ...); the rules, the scripts and the glue modules below
read them out of the whole config (issue 32).
"""

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"

#: modules of the workflow glue (in the papers' package), which may index a whole config
GLUE = {f"dprank_papers/{name}" for name in ("config.py", "workflow.py", "cluster.py", "deps.py")}


def config_subscripts(source: str) -> list[int]:
    """Lines where ``source`` subscripts a name or attribute called ``config``."""
    return [
        node.lineno
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Subscript)
        and (
            (isinstance(node.value, ast.Name) and node.value.id == "config")
            or (isinstance(node.value, ast.Attribute) and node.value.attr == "config")
        )
    ]


def test_the_check_finds_config_subscripts():
    source = 'a = config["seed"]\nb = snakemake.config["x"][0]\nc = section["config"]\n'
    assert config_subscripts(source) == [1, 2]


def test_no_library_module_outside_the_glue_indexes_config():
    modules = sorted([*(SRC / "dprank").rglob("*.py"), *(SRC / "dprank_papers").rglob("*.py")])
    assert len(modules) > 20 and all((SRC / name).is_file() for name in GLUE)
    found = [
        f"{path.relative_to(SRC)}:{line}"
        for path in modules
        if path.relative_to(SRC).as_posix() not in GLUE
        for line in config_subscripts(path.read_text(encoding="utf-8"))
    ]
    assert found == [], f"library modules index config (pass the values instead): {found}"
