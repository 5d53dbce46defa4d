"""Stage ``estimate``: individual-DP perturbed MLE and noisy counts on each data set."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

import numpy as np

from dprank.data.simulate import top_k_size_individual
from dprank.fit.mle import fit_penalized_mle_batch
from dprank.fit.ranking import noisy_counts, top_k
from dprank.privacy.mechanisms import individual_gamma

from ...introselect import authors_top_k

if TYPE_CHECKING:
    from ...grid import NewtonSettings


def select_top_k(scores: np.ndarray, k: int, protocol: str, tie_keys=None) -> np.ndarray:
    """Top-k selection of one score vector under a protocol.

    ``paper``: the ``k`` largest (ties by ``tie_keys``); ``authors``: the last
    ``k`` entries of numpy's generic ``argpartition(scores, k)``
    (docs/papers/paper-a.md#s2-5).
    """
    if protocol == "authors":
        return authors_top_k(scores, k)
    return top_k(scores, k, tie_keys)


def count_top_k(release: np.ndarray, k: int, protocol: str, tie_keys=None) -> np.ndarray:
    """Top-k of noisy counts: ``paper`` ties at random, ``authors`` a stable argsort's last k."""
    if protocol == "authors":
        return np.sort(np.argsort(release, kind="stable")[-k:])
    return top_k(release, k, tie_keys)


def estimate_chunk(
    wins: np.ndarray,
    noise: Mapping[str, np.ndarray],
    cell: Mapping,
    protocol: str,
    L: int,
    kappa2: float,
    solver: NewtonSettings,
    truth: np.ndarray | None = None,
) -> dict[str, np.ndarray]:
    """Fit all replicates of one cell in one batch of Newton steps.

    ``truth`` (the true scores) is accepted so that every study's estimate
    stage has one call, and not used: the authors' individual-DP code solves
    with cvxpy, which has no start point whose order could break ties
    (compare :func:`dprank_papers.studies.paper_a_edge.estimate.authors_tie_keys`).

    Returns
    -------
    dict
        ``theta_hat`` (R, 1, n) centred estimates, ``converged`` and ``n_iter``
        (R, 1), top-k sets ``topk_individual_mle`` and ``topk_individual_counts_as_published``
        (R, 1, k), and ``epsilon`` (1,).
    """
    n, eps = int(cell["n"]), float(cell["eps"])
    k = top_k_size_individual(n)
    fit = fit_penalized_mle_batch(
        wins,
        individual_gamma(eps, L, kappa2),
        noise["mle_noise"],
        sum_zero=True,
        xtol=solver.xtol,
        max_iter=solver.max_iter,
    )
    ties = noise["tie_keys"]
    release = noisy_counts(wins, noise["count_noise"])
    n_rep = wins.shape[0]
    topk_mle = np.array([select_top_k(fit.theta[r], k, protocol, ties[r]) for r in range(n_rep)])
    topk_cnt = np.array([count_top_k(release[r], k, protocol, ties[r]) for r in range(n_rep)])
    return {
        "epsilon": np.array([eps]),
        "theta_hat": fit.theta[:, None, :],
        "converged": fit.converged[:, None],
        "n_iter": fit.n_iter[:, None],
        "topk_individual_mle": topk_mle.reshape(n_rep, 1, k),
        "topk_individual_counts_as_published": topk_cnt.reshape(n_rep, 1, k),
    }
