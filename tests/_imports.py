"""Reading a module's import statements (shared by the import-graph tests)."""

from __future__ import annotations

import ast


def imported(node: ast.AST, package: str) -> list[tuple[str, str | None]]:
    """``(module, name)`` pairs an import statement brings in; ``[]`` for other nodes.

    Relative imports are resolved against ``package`` (the importing module's
    package); ``name`` is ``None`` for ``import mod`` and the imported name for
    ``from mod import name``.
    """
    if isinstance(node, ast.Import):
        return [(a.name, None) for a in node.names]
    if not isinstance(node, ast.ImportFrom):
        return []
    if node.level:
        base = package.split(".")
        base = base[: len(base) - (node.level - 1)]
        mod = ".".join(base + ([node.module] if node.module else []))
    else:
        mod = node.module or ""
    return [(mod, a.name) for a in node.names]
