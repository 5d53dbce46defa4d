"""Stage ``estimate``: perturbed MLE, noisy counting and one-shot top-k on each data set."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np

from dprank.data.simulate import top_k_size
from dprank.fit.mle import fit_penalized_mle
from dprank.fit.ranking import noisy_counts, top_k
from dprank.objective import DenseObjective, PairwiseData
from dprank.privacy.oneshot import one_shot_scores

from ...rbfgs import vmmin
from . import edge_gamma

if TYPE_CHECKING:
    from ...grid import NewtonSettings


def boundary_tie(scores: np.ndarray, k: int) -> bool:
    """Whether the ``k``-th and ``(k+1)``-th largest scores are exactly equal."""
    if k >= scores.size:
        return False
    part = np.partition(scores, scores.size - k - 1)
    return bool(part[scores.size - k - 1] == part[scores.size - k :].min())


def authors_tie_keys(
    data: PairwiseData,
    theta_hat: np.ndarray,
    truth: np.ndarray,
    gamma: float,
    b: np.ndarray,
    k: int,
) -> np.ndarray | None:
    """Keys that order exact ties of the perturbed MLE as the authors' R code does.

    The authors minimise (2.2) with R's ``optim(method = "BFGS")`` started at
    the true scores (docs/papers/paper-a.md#s1-1), which stops within about
    1e-3 of the exact minimiser. Where the exact estimate ``theta_hat`` ties
    across the top-k boundary (equal win counts on a complete graph at
    epsilon = inf), that early stop decides which tied items are selected.
    This reruns R's iterations (:func:`dprank_papers.rbfgs.vmmin`) from ``truth`` and
    returns ``-theta_R`` as tie keys (the larger R estimate wins a tie), or
    ``None`` when no tie straddles the boundary (R's order then agrees with
    the exact estimate's, whose gaps exceed R's error).
    """
    if not boundary_tie(theta_hat, k):
        return None
    prob = DenseObjective(data, gamma, b, sum_zero=False)
    theta_r, _ = vmmin(
        np.asarray(truth, dtype=float), prob.value, lambda t: prob.gradient_and_weights(t)[0]
    )
    return np.negative(theta_r)


def estimate_chunk(
    wins: np.ndarray,
    noise: Mapping[str, np.ndarray],
    cell: Mapping,
    protocol: str,
    methods: Sequence[str],
    c0: float,
    kappa2: float,
    solver: NewtonSettings,
    truth: np.ndarray | None = None,
) -> dict[str, np.ndarray]:
    """Fit every method at every epsilon on each replicate's win matrix.

    The perturbed MLE is solved from the largest epsilon down, each fit warm
    started at the previous one (same data, nearby solution).

    Ties of the perturbed MLE's scores: under the ``paper`` protocol they are
    broken by the replicate's uniform keys (as for every method). Under the
    ``authors`` protocol, when ``truth`` is given, exact ties across the top-k
    boundary are ordered as the authors' R BFGS, started at the true scores
    and stopped early, orders them (:func:`authors_tie_keys`); other ties go
    to the lower index (R's stable order), as for counting and one-shot.

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
    emulate_r = protocol == "authors" and truth is not None

    def select(scores, r, e):
        return top_k(scores, k, None if tie_keys is None else tie_keys[r, e])

    out: dict[str, np.ndarray] = {"epsilon": eps}
    if "edge_mle" in methods:
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
                    xtol=solver.xtol,
                    max_iter=solver.max_iter,
                    solver="dense",  # the papers' results: the n x n Newton, whatever the density
                )
                theta_hat[r, e], converged[r, e], n_iter[r, e] = (
                    fit.theta,
                    fit.converged,
                    fit.n_iter,
                )
                if emulate_r:
                    keys = authors_tie_keys(
                        data, fit.theta, truth[r], gamma, noise["mle_noise"][r, e], k
                    )
                    topk[r, e] = top_k(fit.theta, k, keys)
                else:
                    topk[r, e] = select(fit.theta, r, e)
                start = fit.theta
        out.update(theta_hat=theta_hat, converged=converged, n_iter=n_iter, topk_edge_mle=topk)
    if "edge_counts" in methods:
        release = noisy_counts(wins[:, None, :, :], noise["count_noise"])
        out["topk_edge_counts"] = np.array(
            [[select(release[r, e], r, e) for e in range(n_eps)] for r in range(n_rep)],
            dtype=np.int64,
        ).reshape(n_rep, n_eps, k)
    if "edge_one_shot" in methods:
        topk = np.zeros((n_rep, n_eps, k), dtype=np.int64)
        for r in range(n_rep):
            for e in range(n_eps):
                scores = one_shot_scores(wins[r], p, k, eps[e], noise["oneshot_noise"][r, e])
                topk[r, e] = select(scores, r, e)
        out["topk_edge_one_shot"] = topk
    return out
