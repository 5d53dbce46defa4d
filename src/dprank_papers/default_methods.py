"""The default method of each privacy level: the one that ranks best on the benchmark.

``dprank rank`` and :func:`dprank.rank` use, when no method is named, the default of the
privacy level (``edge``, ``individual``, ``local``, ``none``). The benchmark of methods
(``snakemake benchmark``, ``docs/benchmark.md``) decides it: every registered method of the
level runs on the same data sets at the same per-user budgets; in each cell (data set, eps)
the methods of the level are ranked by their mean Kendall distance to the reference ranking
(1 = best, ties share the mean rank), and a method's score is its mean rank over the cells.
The default is the best-scoring *candidate* (:func:`candidates`, the one place that says
which methods may be a default); ties go to the smaller mean Kendall distance.

The benchmark's job ``benchmark_tables`` writes the ranking of every level to
``results/tables/benchmark/defaults.csv`` (:func:`ranking`); ``python -m
dprank_papers.docs_generate`` turns it into ``src/dprank/methods/_default_methods.py`` (the
constants the
command reads, with the ranking they come from) and ``docs/includes/default_methods.md`` (the
table of ``docs/cli.md``). ``tests/test_default_methods.py`` checks that each default is the
best candidate of the committed ranking.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from dprank.base import checks as _checks

__all__ = [
    "LEVELS",
    "NOT_A_DEFAULT",
    "candidates",
    "choose",
    "ranking",
]

#: privacy level -> the prefix of its methods' registry names (as :data:`dprank.api.PRIVACY`)
LEVELS = {"edge": "edge", "individual": "individual", "local": "local", "none": "nonprivate"}

#: Registered methods that are never a default, and why (beyond :attr:`Method.release_ok
#: <dprank.methods.Method>` false, a release that does not give the privacy it is asked for).
#: :func:`candidates` adds the methods that need a complete tournament (they cannot rank an
#: arbitrary file) and the local methods whose release is not randomized response (what
#: ``dprank privatize`` writes by default).
NOT_A_DEFAULT: dict[str, str] = {}

_COLUMNS = [
    "privacy",
    "method",
    "label",
    "mean_rank",
    "mean_kendall",
    "cells",
    "candidate",
    "default",
]


def _level(privacy: str) -> str:
    _checks.text(privacy, "privacy")
    if privacy not in LEVELS:
        raise ValueError(f"privacy must be one of {list(LEVELS)}, got {privacy!r}")
    return LEVELS[privacy]


def method_label(name: str) -> str:
    """A registered method's label; a plug-in of the benchmark's config keeps its name."""
    from dprank.methods import UnknownMethodError, get_method

    try:
        return get_method(name).label
    except UnknownMethodError:
        return name


def candidates(privacy: str) -> list[str]:
    """The registered methods of ``privacy`` that may be its default (registry names).

    This is the one place that decides eligibility: a method of the level is a candidate
    unless its ``release_ok`` is false (it does not give the privacy asked for: the
    as-published individual counts give 2 eps), :data:`NOT_A_DEFAULT` names it, it needs a
    complete tournament, it releases votes with ties (the default of a ties model,
    :data:`dprank.api.DEFAULT_TIES_METHOD`), or (local) it reads a release other than
    randomized response.
    """
    from dprank.methods import all_methods

    prefix = _level(privacy) + "_"
    out = []
    for m in all_methods():
        if not m.name.startswith(prefix) or m.name in NOT_A_DEFAULT or not m.release_ok:
            continue
        if m.needs_complete_graph or m.name.endswith("_ties"):  # the default of a ties model
            continue
        if m.trust_model == "local" and (m.release or "rr") != "rr":
            continue
        out.append(m.name)
    return out


def ranking(summary: pd.DataFrame) -> pd.DataFrame:
    """Every method's mean rank within its privacy level on the benchmark, best first.

    Parameters
    ----------
    summary : DataFrame
        The benchmark's summaries (``results/figures/benchmark/<dataset>.csv``, concatenated:
        ``dataset, method, accounting, eps, metric, mean``). Only the Kendall distance at
        matched per-user budgets counts (accounting ``user``; ``none`` for the non-private
        references); a method without a row (it did not run, e.g. not applicable) is left
        out, and a cell is ranked only among the methods that ran on every cell of the level.

    Returns
    -------
    DataFrame
        ``privacy, method, label, mean_rank, mean_kendall, cells, candidate, default``, one row
        per method of a registered level, by level (edge, individual, local, none) and then
        best first; ``default`` marks the best candidate of each level.
    """

    _checks.columns(
        summary, "summary", ("dataset", "method", "accounting", "eps", "metric", "mean")
    )
    k = summary[(summary["metric"] == "kendall") & summary["accounting"].isin(["user", "none"])]
    rows = []
    for privacy, prefix in LEVELS.items():
        level = k[k["method"].astype(str).str.startswith(prefix + "_")].copy()
        if level.empty:
            continue
        level["eps"] = level["eps"].fillna(np.inf)
        wide = level.pivot_table(index=["dataset", "eps"], columns="method", values="mean")
        complete = wide.columns[wide.notna().all()]
        if len(complete) == 0:
            continue
        wide = wide[complete]
        ranks = wide.rank(axis=1, method="average")
        eligible = set(candidates(privacy))
        table = pd.DataFrame(
            {
                "privacy": privacy,
                "method": complete,
                "mean_rank": ranks.mean().to_numpy(),
                "mean_kendall": wide.mean().to_numpy(),
                "cells": len(wide),
            }
        )
        table["candidate"] = table["method"].isin(eligible)

        table["label"] = table["method"].map(method_label)
        table = table.sort_values(["mean_rank", "mean_kendall", "method"], ignore_index=True)
        table["default"] = False
        if table["candidate"].any():
            table.loc[table.index[table["candidate"]][0], "default"] = True
        rows.append(table)
    if not rows:
        raise ValueError("summary holds no Kendall distance of a registered privacy level")
    return pd.concat(rows, ignore_index=True)[_COLUMNS]


def choose(table: pd.DataFrame, privacy: str) -> str:
    """The registry name of ``privacy``'s default in a :func:`ranking` table (today's candidates).

    Raises
    ------
    ValueError
        If no candidate of the level is in the table.
    """
    _checks.columns(table, "table", ("privacy", "method", "mean_rank", "mean_kendall"))
    eligible = candidates(privacy)
    rows = table[(table["privacy"] == privacy) & table["method"].isin(eligible)]
    if rows.empty:
        raise ValueError(f"no candidate of privacy {privacy!r} ({eligible}) was ranked")
    return str(rows.sort_values(["mean_rank", "mean_kendall", "method"])["method"].iloc[0])
