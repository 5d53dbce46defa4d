"""Stage ``estimate``: perturbed MLE, noisy counting and one-shot top-k on each data set."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from ...mle import PairwiseData, fit_penalized_mle
from ...oneshot import one_shot_scores
from ...ranking import noisy_counts, top_k
from ...simulate import top_k_size
from . import edge_gamma


def estimate_chunk(
    wins: np.ndarray,
    noise: Mapping[str, np.ndarray],
    cell: Mapping,
    protocol: str,
    methods: Sequence[str],
    c0: float,
    kappa2: float,
    xtol: float,
    max_iter: int,
) -> dict[str, np.ndarray]:
    """Fit every method at every epsilon on each replicate's win matrix.

    The perturbed MLE is solved from the largest epsilon down, each fit warm
    started at the previous one (same data, nearby solution).

    Returns
    -------
    dict
        ``theta_hat`` (R, E, n), ``converged`` and ``n_iter`` (R, E), and the
        top-k index sets ``topk_<method>`` (R, E, k) of the requested methods.
    """
    n, p = int(cell["n"]), float(cell["p"])
    k = top_k_size(n)
    eps = np.asarray(noise["epsilon"], dtype=float)
    n_rep, n_eps = wins.shape[0], eps.size
    tie_keys = noise.get("tie_keys")

    def select(scores, r, e):
        return top_k(scores, k, None if tie_keys is None else tie_keys[r, e])

    out: dict[str, np.ndarray] = {"epsilon": eps}
    if "perturbed_mle" in methods:
        theta_hat = np.zeros((n_rep, n_eps, n))
        converged = np.zeros((n_rep, n_eps), dtype=bool)
        n_iter = np.zeros((n_rep, n_eps), dtype=np.int64)
        topk = np.zeros((n_rep, n_eps, k), dtype=np.int64)
        order = np.argsort(-eps, kind="stable")  # inf first: warm starts
        for r in range(n_rep):
            data = PairwiseData(wins[r])
            start = None
            for e in order:
                gamma = edge_gamma(n, p, eps[e], protocol, c0, kappa2)
                fit = fit_penalized_mle(
                    data,
                    gamma,
                    noise["mle_noise"][r, e],
                    theta0=start,
                    xtol=xtol,
                    max_iter=max_iter,
                )
                theta_hat[r, e], converged[r, e], n_iter[r, e] = (
                    fit.theta,
                    fit.converged,
                    fit.n_iter,
                )
                topk[r, e] = select(fit.theta, r, e)
                start = fit.theta
        out.update(theta_hat=theta_hat, converged=converged, n_iter=n_iter, topk_perturbed_mle=topk)
    if "noisy_counting" in methods:
        release = noisy_counts(wins[:, None, :, :], noise["count_noise"])
        out["topk_noisy_counting"] = np.array(
            [[select(release[r, e], r, e) for e in range(n_eps)] for r in range(n_rep)],
            dtype=np.int64,
        ).reshape(n_rep, n_eps, k)
    if "one_shot" in methods:
        topk = np.zeros((n_rep, n_eps, k), dtype=np.int64)
        for r in range(n_rep):
            for e in range(n_eps):
                scores = one_shot_scores(wins[r], p, k, eps[e], noise["oneshot_noise"][r, e])
                topk[r, e] = select(scores, r, e)
        out["topk_one_shot"] = topk
    return out
