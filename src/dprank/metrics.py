"""Accuracy metrics of Paper A, section 4.1 (natural logarithms).

All functions broadcast over leading axes, so one call scores a whole chunk
of replicates and epsilons.
"""

from __future__ import annotations

import numpy as np

__all__ = ["log_rel_l2", "log_rel_linf", "mean_rank_difference", "rel_hamming", "true_top_k"]


def log_rel_l2(theta_hat: np.ndarray, theta: np.ndarray) -> np.ndarray:
    """``log(||theta_hat - theta||_2 / ||theta||_2)`` along the last axis."""
    err = np.linalg.norm(np.asarray(theta_hat) - theta, axis=-1)
    return np.log(err / np.linalg.norm(theta, axis=-1))


def log_rel_linf(theta_hat: np.ndarray, theta: np.ndarray) -> np.ndarray:
    """``log(||theta_hat - theta||_inf / ||theta||_inf)`` along the last axis."""
    err = np.max(np.abs(np.asarray(theta_hat) - theta), axis=-1)
    return np.log(err / np.max(np.abs(theta), axis=-1))


def rel_hamming(selected: np.ndarray, truth: np.ndarray) -> np.ndarray:
    """``1 - |S_hat intersect S| / k`` for index sets along the last axis.

    Parameters
    ----------
    selected : (..., k) integer array
        Estimated top-k sets.
    truth : (..., k) integer array
        True top-k sets, broadcastable against ``selected``.
    """
    selected = np.asarray(selected)
    truth = np.asarray(truth)
    k = selected.shape[-1]
    hits = (selected[..., :, None] == truth[..., None, :]).any(axis=-1).sum(axis=-1)
    return 1.0 - hits / k


def true_top_k(theta: np.ndarray, k: int) -> np.ndarray:
    """Indices of the ``k`` largest true scores (ties to the higher index, so
    Paper A's tied top block ``{n-k, ..., n-1}`` is returned), sorted."""
    theta = np.asarray(theta, dtype=float)
    order = np.argsort(theta, kind="stable")
    return np.sort(order[theta.size - k :])


def mean_rank_difference(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``mean_i |r(x)_i - r(y)_i|`` along the last axis, ``r`` the 0-based ascending rank.

    The real-data metric of Paper A, Figure 8 (the authors'
    ``avg_rank_diff``: ``r(x) = argsort(argsort(x))``; ties, which do not occur
    with continuous noise, go to the lower index).
    """
    rx = np.argsort(np.argsort(np.asarray(x), axis=-1, kind="stable"), axis=-1, kind="stable")
    ry = np.argsort(np.argsort(np.asarray(y), axis=-1, kind="stable"), axis=-1, kind="stable")
    return np.abs(rx - ry).mean(axis=-1)
