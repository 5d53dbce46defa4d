"""Paper B (later version, B2): simulation Scenarios I, III and IV.

Each replicate draws the true scores (``theta* ~ U(-1, 1)`` centred, or evenly
spaced with gap ``delta``: Scenario IV), the users' budgets (``eps_l ~ U(a,
b)`` per user, or one budget of a privacy *scheme* for all users: Scenario
III), every user's comparisons of every pair (observed with probability
``p``) and their randomized-response releases; the third party debiases them,
weights them by the ADRR weights and fits objective (5) with
``lambda = c / (L B(eps))`` (spec/paper-b.md sections 1.2-1.3, 2).

A *cell* is one point of the experiment's ``grid`` (keys among ``model``,
``scheme``, ``delta``, ``m``, ``L``); its replicates are split into chunks
like the other studies. Only the per-pair sufficient statistics of the releases are
stored (the users' raw data never leave the simulate stage, as in the paper's
protocol).
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from ..grid import cell_name, chunk_replicates, experiment_chunks, find_cell
from ..ldp import privacy_constant, simulate_ldp_statistics
from ..metrics_b import kendall_distance, max_error, rms_error, top_k_hamming
from ..models import get_link
from ..seeding import Stream, cell_key, generator
from ..weighted_mle import default_lambda, fit_weighted_mle

__all__ = [
    "METRICS",
    "cell_names",
    "cell_params",
    "cells",
    "chunk_count",
    "estimate_chunk",
    "scheme_epsilon",
    "simulate_chunk",
    "stage_kwargs",
]

_GRID_KEYS = ("model", "scheme", "delta", "m", "L")
_TYPES = {"model": str, "scheme": int, "delta": float, "m": int, "L": int}


def cells(exp: Mapping) -> list[dict]:
    """Parameter dicts of the experiment's cells: the product of its grid."""
    keys = [k for k in _GRID_KEYS if k in exp["grid"]]
    values = [[_TYPES[k](v) for v in exp["grid"][k]] for k in keys]
    return [dict(zip(keys, combo, strict=True)) for combo in itertools.product(*values)]


def cell_names(exp: Mapping) -> list[str]:
    """File-name labels, e.g. ``modelbtl_m10_L100`` or ``modeltm_scheme2_m20_L400``."""
    keys = [k for k in _GRID_KEYS if k in exp["grid"]]
    return [cell_name(c, keys) for c in cells(exp)]


def scheme_epsilon(scheme: int, m: int, L: int, eps0: float, anchor: int = 1000) -> float:
    """Budget of B2 Scenario III's privacy scheme ``scheme`` (spec B2-Fig6).

    ``eps_s(m, L) = eps0 f_s(mL) / f_s(anchor)`` with ``f_1(x) = log^2 x / sqrt x``,
    ``f_2(x) = 1 / sqrt x``, ``f_3(x) = 1 / (log^2 x sqrt x)``: the three schemes
    coincide at ``mL = 1000`` ((m, L) = (10, 100)), as the published tables do.
    """
    f = {
        1: lambda x: np.log(x) ** 2 / np.sqrt(x),
        2: lambda x: 1.0 / np.sqrt(x),
        3: lambda x: 1.0 / (np.log(x) ** 2 * np.sqrt(x)),
    }[int(scheme)]
    return float(eps0 * f(m * L) / f(anchor))


def true_scores(cell: Mapping, rng: np.random.Generator) -> np.ndarray:
    """``theta*``: evenly spaced with gap ``delta`` (item 1 best) if the cell has one,
    else ``U(-1, 1)``; centred either way (spec 1.6)."""
    m = int(cell["m"])
    if "delta" in cell:
        return float(cell["delta"]) * ((m + 1) / 2 - np.arange(1, m + 1))
    theta = rng.uniform(-1.0, 1.0, m)
    return theta - theta.mean()


def user_budgets(cell: Mapping, eps: Mapping, rng: np.random.Generator) -> np.ndarray:
    """Per-user budgets: ``U(low, high)`` each, or the cell's scheme budget for all."""
    L = int(cell["L"])
    if "scheme" in cell:
        return np.full(L, scheme_epsilon(cell["scheme"], int(cell["m"]), L, eps["eps0"]))
    return rng.uniform(*eps["range"], L)


def cell_params(exp: Mapping, name: str) -> dict:
    """The parameters of the cell labelled ``name``."""
    return find_cell(cells(exp), cell_names(exp), name)


def simulate_chunk(
    seed: int,
    experiment: str,
    cell: Mapping,
    p: float,
    eps: Mapping,
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
    link = get_link(cell["model"])
    key = cell_key({"role": "data", **cell})
    thetas, budgets, stats_s, stats_n = [], [], [], []
    for r in replicates:
        theta = true_scores(cell, generator(seed, experiment, key, r, Stream.THETA))
        budget = user_budgets(cell, eps, generator(seed, experiment, key, r, Stream.EPSILON))
        rng = generator(seed, experiment, key, r, Stream.RELEASE)
        released = simulate_ldp_statistics(theta, budget, p, rng, link=link, releases=("adrr",))
        thetas.append(theta)
        budgets.append(privacy_constant(budget))
        stats_s.append(released.adrr[0])
        stats_n.append(released.adrr[1])
    return {
        "theta": np.array(thetas),
        "B": np.array(budgets),
        "S": np.array(stats_s),
        "N": np.array(stats_n),
        "replicate": np.asarray(list(replicates), dtype=np.int64),
    }


#: metric name (as in the published tables) -> function of (theta_hat, theta, m)
METRICS = {
    "l2_over_sqrt_m": lambda est, theta, m: rms_error(est, theta),
    "linf": lambda est, theta, m: max_error(est, theta),
    "kendall_tau_K": lambda est, theta, m: kendall_distance(est, theta),
    "topK_hamming_HK_K=m/2": lambda est, theta, m: top_k_hamming(est, theta, m // 2),
}


def estimate_chunk(
    data: Mapping[str, np.ndarray],
    cell: Mapping,
    lambda_c: float,
    gtol: float,
    max_iter: int,
    metrics: Sequence[str] = ("l2_over_sqrt_m", "linf"),
) -> pd.DataFrame:
    """ADRR estimates of every replicate and their errors (tidy rows).

    Columns: the cell's grid keys, ``replicate, method, metric, value``; the
    requested ``metrics`` (names of :data:`METRICS`, as in the published
    tables; estimates are continuous, so ranks have no ties) and
    ``converged`` (1 or 0; a fit that did not converge is kept and counted).
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
        values = [(name, float(METRICS[name](fit.theta, theta, m))) for name in metrics]
        for metric, value in [*values, ("converged", float(fit.converged))]:
            row = {**cell, "replicate": int(r), "method": "ADRR", "metric": metric}
            rows.append({**row, "value": value})
    return pd.DataFrame(rows)


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
        return {
            "seed": int(config["seed"]),
            "experiment": experiment,
            "cell": params,
            "p": float(exp["p"]),
            "eps": dict(exp["eps"]),
            "replicates": chunk_replicates(config, exp, chunk),
        }
    if stage == "estimate":
        return {
            "cell": params,
            "lambda_c": float(section["lambda_c"]),
            "metrics": list(exp["metrics"]),
            "gtol": float(section["solver"]["gtol"]),
            "max_iter": int(section["solver"]["max_iter"]),
        }
    raise ValueError(f"unknown stage {stage!r}")
