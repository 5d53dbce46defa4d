"""The text of ``dprank ledger FILE``: budgets, data sets, releases, what each unit spent.

Private to :mod:`dprank.ledger`, which re-exports :func:`format_summary` and :func:`main_ledger`.
"""

from __future__ import annotations

import os

from ..base import _checks
from ._receipts import DataSetSummary
from ._releases import Composition
from ._store import LEGACY, Ledger


def _num(x: float | None) -> str:
    return "unbounded" if x is None else repr(float(x))


def _total_line(level: str, c: Composition) -> str:
    if not c.bounded:
        return f"  spent at the {level} level: {c.note}"
    return (
        f"  spent at the {level} level: epsilon {_num(c.epsilon)}, delta {_num(c.delta)} ({c.note})"
    )


def format_summary(
    summaries: list[DataSetSummary], path: str | os.PathLike, budgets: dict | None = None
) -> str:
    """The text of ``dprank ledger FILE``: budgets, data sets, releases, what each unit spent.

    Parameters
    ----------
    summaries : list of DataSetSummary
        From :meth:`Ledger.summary`.
    path : path-like
        The ledger file, named in the heading.
    budgets : dict, optional
        The ledger's budgets by privacy unit (:meth:`Ledger.budgets`).

    Returns
    -------
    str
        Ends with a newline.
    """
    if not isinstance(summaries, (list, tuple)) or not all(
        isinstance(s, DataSetSummary) for s in summaries
    ):
        raise TypeError(
            f"summaries must be a list of DataSetSummary (Ledger.summary()), got {summaries!r}"
        )
    _checks.path(path, "path")
    n = len(summaries)
    lines = [f"ledger {os.fspath(path)}: {n} data set{'' if n == 1 else 's'}"]
    for unit, eps in (budgets or {}).items():
        lines.append(f"budget at the {unit} level: epsilon {eps!r} per data set")
    for s in summaries:
        k = len(s.releases)
        name = f" ({s.name})" if s.name else ""
        shown = (
            s.fingerprint[: len(LEGACY) + 12]
            if s.fingerprint.startswith(LEGACY)
            else (s.fingerprint[:12])
        )
        lines += ["", f"data set {shown}{name}: {k} release{'' if k == 1 else 's'}"]
        rows = [("time (UTC)", "command", "mechanism", "unit", "epsilon", "delta", "bounds")]
        for r in s.releases:
            bounds = " ".join(f"{key}={value}" for key, value in r.bounds.items())
            rows.append(
                (
                    r.time or "-",
                    r.command,
                    r.mechanism,
                    r.privacy_unit,
                    repr(r.epsilon),
                    repr(r.delta),
                    bounds or "-",
                )
            )
        widths = [max(len(row[col]) for row in rows) for col in range(len(rows[0]))]
        for row in rows:
            lines.append(
                "  " + "  ".join(v.ljust(w) for v, w in zip(row, widths, strict=True)).rstrip()
            )
        lines.append(_total_line("comparison", s.comparison))
        lines.append(_total_line("user", s.user))
    return "\n".join(lines) + "\n"


def main_ledger(path: str | os.PathLike, key_file: str | os.PathLike | None = None) -> str:
    """What ``dprank ledger FILE`` prints (:class:`LedgerError` for a missing or bad file)."""
    _checks.path(path, "path")
    ledger = Ledger(path, key_file)
    return format_summary(ledger.summary(), path, ledger.budgets())
