"""Beyond the papers: the errors of Paper A's Figure 1 at 10^3 to 10^5 items.

Paper A's Figure 1 stops at n = 700 items with a dense complete-ish graph.
This study keeps the average degree ``n p`` fixed (rating-like data: every
item meets a few dozen others) and lets ``n`` grow to 10^5, using the sparse
comparison type (:class:`dprank.data.comparisons.Comparisons`), the large-n
Erdos-Renyi simulator (:func:`dprank.data.simulate.sample_er_comparisons_sparse`)
and the sparse Newton-CG solver behind :func:`dprank.fit.mle.fit_penalized_mle`.
Only the ``paper`` protocol: Algorithm 1 (perturbed MLE, Laplace(8 kappa1 /
eps) linear term, ridge ``max(c0 sqrt(n p log n), 4 kappa2 / eps)``,
Propositions 2.1-2.2) and Algorithm 2 (noisy counts, Laplace(2 / eps)), ties
broken by uniform keys. The true scores are those of Paper A, section 4.1
(:func:`dprank.data.simulate.theta_paper_a_edge`), drawn once per ``n`` as in
Figure 1.

The measured ``l_inf`` error is compared with the rate of Paper A's
Theorem 2.1,

    ||theta~ - theta*||_inf <~ sqrt(log n / (n p)) + log n / (n p eps),

up to one constant per ``eps`` fitted by least squares on the log scale
(:func:`fit_rate`).

Random streams: :func:`dprank.base.seeding.generator` with the experiment
``"beyond_scale"``; theta keyed by ``n`` (shared by all replicates), the data
by ``(n, degree)`` and replicate, the noise and tie keys by ``(n, degree,
eps)`` and replicate, so results do not depend on the chunking.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from dprank.base import checks as _checks
from dprank.base.seeding import SHARED, Stream, cell_key, generator
from dprank.data.simulate import sample_er_comparisons_sparse, theta_paper_a_edge, top_k_size
from dprank.fit.metrics import log_rel_l2, log_rel_linf, rel_hamming, true_top_k
from dprank.fit.mle import fit_penalized_mle
from dprank.fit.ranking import copeland_counts, top_k
from dprank.privacy.mechanisms import edge_count_noise_scale, edge_mle_noise_scale, standard_laplace

from .paper_a_edge import edge_gamma

__all__ = [
    "EXPERIMENT",
    "chunk_count",
    "chunk_replicates",
    "edge_probability",
    "fit_rate",
    "rate",
    "reps_for",
    "run_chunk",
    "summarise",
]

EXPERIMENT = "beyond_scale"


def edge_probability(n: int, degree: float) -> float:
    """Edge probability ``p = degree / n`` of the Erdos-Renyi graph (average degree ``n p``)."""
    _checks.count(n, "n", 2)
    _checks.positive_finite(degree, "degree")
    if not 0 < degree < n:
        raise ValueError(f"the average degree must be in (0, n) = (0, {n}), got {degree}")
    return float(degree) / n


def rate(n, p, eps):
    """The rate of Paper A, Theorem 2.1: ``sqrt(log n / (n p)) + log n / (n p eps)``.

    ``eps = inf`` gives the non-private term alone. Broadcasts over arrays.
    """
    n, p, eps = (np.asarray(x, dtype=float) for x in (n, p, eps))
    if np.any(n < 2) or np.any(p <= 0) or np.any(eps <= 0):
        raise ValueError("rate needs n >= 2, p > 0 and eps > 0")
    npl = n * p
    return np.sqrt(np.log(n) / npl) + np.log(n) / (npl * eps)


def reps_for(section: Mapping, n: int) -> int:
    """Replicates of ``n``: the section's ``reps``, one number or one per ``n`` (same order)."""
    reps = section["reps"]
    if isinstance(reps, int):
        return reps
    return int(reps[list(section["n"]).index(n)])


def chunk_count(reps: int, chunk_size: int) -> int:
    """Number of replicate chunks of one ``n``."""
    _checks.count(reps, "reps")
    _checks.count(chunk_size, "chunk_size", 1)
    return -(-int(reps) // int(chunk_size))


def chunk_replicates(reps: int, chunk_size: int, chunk: int) -> range:
    """Replicate indices of chunk ``chunk``."""
    _checks.count(reps, "reps")
    _checks.count(chunk_size, "chunk_size", 1)
    _checks.count(chunk, "chunk")
    if not 0 <= chunk < chunk_count(reps, chunk_size):
        raise ValueError(f"chunk {chunk} out of range for {reps} replicates of {chunk_size}")
    return range(chunk * chunk_size, min(reps, (chunk + 1) * chunk_size))


def _theta(seed: int, n: int) -> np.ndarray:
    return theta_paper_a_edge(
        n, generator(seed, EXPERIMENT, cell_key({"n": n}), SHARED, Stream.THETA)
    )


def run_chunk(
    n: int,
    degree: float,
    epsilons: Sequence[float],
    replicates: Sequence[int],
    seed: int,
    *,
    c0: float = 2.0,
    kappa1: float = 1.0,
    kappa2: float = 0.25,
    xtol: float = 1e-10,
    max_iter: int = 100,
) -> pd.DataFrame:
    """Errors of Algorithms 1 and 2 on the given replicates of one ``n``.

    Every replicate draws one sparse Erdos-Renyi data set; the perturbed MLE is
    fitted at every ``eps`` from the largest down, each fit warm-started at
    the previous one (same data).

    Returns
    -------
    pandas.DataFrame
        Columns ``n, p, epsilon, replicate, method, metric, value``. The
        perturbed MLE gets ``log_rel_l2``, ``log_rel_linf`` (Figure 1's
        metrics), ``log_linf`` (the log of the absolute error
        ``||theta~ - theta*||_inf``, compared with :func:`rate`),
        ``rel_hamming``, ``converged`` and ``n_iter``; noisy counting gets
        ``rel_hamming``.
    """
    p = edge_probability(n, degree)
    epsilons = [_checks.positive(e, "epsilons") for e in _checks.sequence(epsilons, "epsilons")]
    replicates = _checks.indices(replicates)
    _checks.count(seed, "seed")
    for value, name in ((c0, "c0"), (kappa1, "kappa1"), (kappa2, "kappa2"), (xtol, "xtol")):
        _checks.positive_finite(value, name)
    _checks.count(max_iter, "max_iter", 1)
    n = int(n)
    k = top_k_size(n)
    theta = _theta(seed, n)
    truth = true_top_k(theta, k)
    data_key = cell_key({"n": n, "degree": float(degree)})
    eps_list = [float(e) for e in epsilons]
    order = sorted(range(len(eps_list)), key=lambda e: -eps_list[e])  # inf first: warm starts
    rows: list[tuple] = []
    for r in replicates:
        data = sample_er_comparisons_sparse(
            theta, p, generator(seed, EXPERIMENT, data_key, r, Stream.DATA)
        )
        counts = copeland_counts(data)
        start = None
        for e in order:
            eps = eps_list[e]
            key = cell_key({"n": n, "degree": float(degree), "eps": eps})
            b = edge_mle_noise_scale(eps, kappa1) * standard_laplace(
                generator(seed, EXPERIMENT, key, r, Stream.NOISE_MLE), n
            )
            noise = edge_count_noise_scale(eps) * standard_laplace(
                generator(seed, EXPERIMENT, key, r, Stream.NOISE_COUNT), n
            )
            ties = generator(seed, EXPERIMENT, key, r, Stream.TIEBREAK).random(n)
            gamma = edge_gamma(n, p, eps, "paper", c0, kappa2)
            fit = fit_penalized_mle(data, gamma, b, theta0=start, xtol=xtol, max_iter=max_iter)
            start = fit.theta
            linf = float(np.max(np.abs(fit.theta - theta)))
            mle = {
                "log_rel_l2": float(log_rel_l2(fit.theta, theta)),
                "log_rel_linf": float(log_rel_linf(fit.theta, theta)),
                "log_linf": math.log(linf),
                "rel_hamming": float(rel_hamming(top_k(fit.theta, k, ties), truth)),
                "converged": float(fit.converged),
                "n_iter": float(fit.n_iter),
            }
            for metric, value in mle.items():
                rows.append((n, p, eps, r, "edge_mle", metric, value))
            counting = float(rel_hamming(top_k(counts + noise, k, ties), truth))
            rows.append((n, p, eps, r, "edge_counts", "rel_hamming", counting))
    frame = pd.DataFrame(
        rows, columns=["n", "p", "epsilon", "replicate", "method", "metric", "value"]
    )
    return frame.sort_values(
        ["method", "metric", "epsilon", "replicate"], kind="stable"
    ).reset_index(drop=True)


def summarise(frame: pd.DataFrame) -> pd.DataFrame:
    """Mean, standard error and replicate count per ``(n, epsilon, method, metric)``."""
    keys = ["n", "p", "epsilon", "method", "metric"]
    _checks.columns(frame, "frame", [*keys, "value"])
    grouped = frame.groupby(keys, sort=True)["value"]
    out = grouped.agg(mean="mean", sd="std", reps="count").reset_index()
    out["se"] = out["sd"] / np.sqrt(out["reps"])
    return out[[*keys, "mean", "se", "reps"]]


def _slope(x: np.ndarray, y: np.ndarray) -> float:
    """Least-squares slope of ``y`` on ``x`` (NaN with fewer than two points)."""
    return float(np.polyfit(x, y, 1)[0]) if len(x) > 1 else float("nan")


def fit_rate(summary: pd.DataFrame) -> pd.DataFrame:
    """One constant per ``eps`` for the rate of Theorem 2.1, by least squares on the log scale.

    With ``y_n`` the mean log ``l_inf`` error at ``n`` and ``x_n = log rate(n,
    p, eps)``, the model ``y_n = log C + x_n`` has the least-squares solution
    ``log C = mean(y - x)``.

    Returns
    -------
    pandas.DataFrame
        Per ``epsilon``: ``constant`` (``C``), ``r2`` (share of the variance
        of ``y`` over ``n`` that ``log C + x`` explains: 1 is a perfect shape,
        0 no better than a constant), ``rms_log_residual`` and
        ``max_abs_log_residual`` (log-scale misfit), ``slope_measured`` and
        ``slope_rate`` (least-squares slopes of ``y`` and of ``x`` against
        ``log n``), and the number of ``n`` values.
    """
    _checks.columns(summary, "summary", ["n", "p", "epsilon", "method", "metric", "mean"])
    sel = summary[(summary["method"] == "edge_mle") & (summary["metric"] == "log_linf")]
    if sel.empty:
        raise ValueError("the summary holds no edge_mle log_linf rows to fit the rate to")
    rows = []
    for eps, part in sel.groupby("epsilon", sort=True):
        part = part.sort_values("n")
        y = part["mean"].to_numpy(float)
        x = np.log(rate(part["n"].to_numpy(float), part["p"].to_numpy(float), eps))
        log_c = float(np.mean(y - x))
        resid = y - (log_c + x)
        ss_tot = float(np.sum((y - y.mean()) ** 2))
        logn = np.log(part["n"].to_numpy(float))
        rows.append(
            {
                "epsilon": float(eps),
                "constant": math.exp(log_c),
                "r2": 1.0 - float(np.sum(resid**2)) / ss_tot if ss_tot > 0 else np.nan,
                "rms_log_residual": float(np.sqrt(np.mean(resid**2))),
                "max_abs_log_residual": float(np.max(np.abs(resid))),
                "slope_measured": _slope(logn, y),
                "slope_rate": _slope(logn, x),
                "n_values": len(part),
            }
        )
    return pd.DataFrame(rows)


def check_section(section: Mapping) -> list[str]:
    """Problems of the config section ``beyond_scale`` that the schema cannot see."""
    problems = []
    reps = section["reps"]
    if not isinstance(reps, int) and len(reps) != len(section["n"]):
        problems.append(
            f"beyond_scale.reps: {len(reps)} values for {len(section['n'])} values of n "
            "(give one number, or one per n)"
        )
    degree = float(section["degree"])
    for n in section["n"]:
        if not degree < n:
            problems.append(
                f"beyond_scale: n = {n} must exceed the average degree {degree:g} (p = degree / n)"
            )
    return problems
