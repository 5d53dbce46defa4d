"""Paper B (later version, B2): simulation Scenario I (Figure 4, Table 5).

Each replicate draws ``theta* ~ U(-1, 1)`` (centred), per-user budgets
``eps_l ~ U(eps_low, eps_high)``, every user's comparisons of every pair
(observed with probability ``p``) and their randomized-response releases; the
third party debiases them, weights them by the ADRR weights and fits objective
(5) with ``lambda = c / (L B(eps))`` (spec/paper-b.md sections 1.2-1.3, 2).

A *cell* is ``(model, m, L)``; its replicates are split into chunks like the
other studies. Only the per-pair sufficient statistics of the releases are
stored (the users' raw data never leave the simulate stage, as in the paper's
protocol).
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from ..grid import cell_name, experiment_chunks, find_cell
from ..ldp import privacy_constant, simulate_ldp_statistics
from ..metrics_b import max_error, rms_error
from ..models import get_link
from ..seeding import Stream, cell_key, generator
from ..weighted_mle import default_lambda, fit_weighted_mle

__all__ = [
    "cell_names",
    "cell_params",
    "cells",
    "chunk_count",
    "estimate_chunk",
    "simulate_chunk",
    "stage_kwargs",
]

_KEYS = ("model", "m", "L")


def cells(exp: Mapping) -> list[dict]:
    """Parameter dicts of the experiment's cells: every (model, m, L)."""
    return [
        {"model": str(model), "m": int(m), "L": int(L)}
        for model, m, L in itertools.product(exp["models"], exp["m"], exp["L"])
    ]


def cell_names(exp: Mapping) -> list[str]:
    """File-name labels, e.g. ``modelbtl_m10_L100``."""
    return [cell_name(c, _KEYS) for c in cells(exp)]


def cell_params(exp: Mapping, name: str) -> dict:
    """The parameters of the cell labelled ``name``."""
    return find_cell(cells(exp), cell_names(exp), name)


def simulate_chunk(
    seed: int,
    experiment: str,
    cell: Mapping,
    p: float,
    eps_range: Sequence[float],
    replicates: Sequence[int],
) -> dict[str, np.ndarray]:
    """True scores, budgets and the ADRR sufficient statistics of some replicates.

    Returns
    -------
    dict
        ``theta`` (R, m) centred, ``B`` (R,) privacy constants ``B(eps)``,
        ``S`` and ``N`` (R, P) per-pair statistics (B2 objective (5)),
        ``replicate`` (R,).
    """
    m, L = int(cell["m"]), int(cell["L"])
    link = get_link(cell["model"])
    key = cell_key({"role": "data", **cell})
    thetas, budgets, stats_s, stats_n = [], [], [], []
    for r in replicates:
        theta = generator(seed, experiment, key, r, Stream.THETA).uniform(-1.0, 1.0, m)
        theta -= theta.mean()
        eps = generator(seed, experiment, key, r, Stream.EPSILON).uniform(*eps_range, L)
        rng = generator(seed, experiment, key, r, Stream.RELEASE)
        released = simulate_ldp_statistics(theta, eps, p, rng, link=link, releases=("adrr",))
        thetas.append(theta)
        budgets.append(privacy_constant(eps))
        stats_s.append(released.adrr[0])
        stats_n.append(released.adrr[1])
    return {
        "theta": np.array(thetas),
        "B": np.array(budgets),
        "S": np.array(stats_s),
        "N": np.array(stats_n),
        "replicate": np.asarray(list(replicates), dtype=np.int64),
    }


def estimate_chunk(
    data: Mapping[str, np.ndarray], cell: Mapping, lambda_c: float, gtol: float, max_iter: int
) -> pd.DataFrame:
    """ADRR estimates of every replicate and their errors (tidy rows).

    Columns ``model, m, L, replicate, method, metric, value``; metrics
    ``l2_over_sqrt_m``, ``linf`` and ``converged`` (1 or 0; a fit that did not
    converge is kept and counted).
    """
    m, L = int(cell["m"]), int(cell["L"])
    link = get_link(cell["model"])
    rows = []
    for i, r in enumerate(data["replicate"]):
        lam = default_lambda(L, float(data["B"][i]), lambda_c)
        fit = fit_weighted_mle(
            data["S"][i], data["N"][i], m, lam, link, gtol=gtol, max_iter=max_iter
        )
        theta = data["theta"][i]
        for metric, value in (
            ("l2_over_sqrt_m", float(rms_error(fit.theta, theta))),
            ("linf", float(max_error(fit.theta, theta))),
            ("converged", float(fit.converged)),
        ):
            rows.append((cell["model"], m, L, int(r), "ADRR", metric, value))
    return pd.DataFrame(rows, columns=["model", "m", "L", "replicate", "method", "metric", "value"])


def chunk_count(config: Mapping, experiment: str) -> int:
    """Number of replicate chunks of every cell of ``experiment``."""
    return len(experiment_chunks(config, config["paper_b2"]["experiments"][experiment]))


def stage_kwargs(
    stage: str, config: Mapping, experiment: str, cell: str, chunk: int | None = None
) -> dict:
    """Keyword arguments of a stage function for one job (the rule's ``params``)."""
    section = config["paper_b2"]
    exp = section["experiments"][experiment]
    params = cell_params(exp, cell)
    if stage == "simulate":
        start, stop = experiment_chunks(config, exp)[int(chunk)]
        return {
            "seed": int(config["seed"]),
            "experiment": experiment,
            "cell": params,
            "p": float(exp["p"]),
            "eps_range": [float(e) for e in exp["eps_range"]],
            "replicates": list(range(start, stop)),
        }
    if stage == "estimate":
        return {
            "cell": params,
            "lambda_c": float(section["lambda_c"]),
            "gtol": float(section["solver"]["gtol"]),
            "max_iter": int(section["solver"]["max_iter"]),
        }
    raise ValueError(f"unknown stage {stage!r}")
