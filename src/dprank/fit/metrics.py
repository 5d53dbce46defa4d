"""Accuracy metrics of Paper A, section 4.1 (natural logarithms).

All functions broadcast over leading axes, so one call scores a whole chunk
of replicates and epsilons.
"""

from __future__ import annotations

import numpy as np

from ..base import _checks
from ..base._checks import no_nan

__all__ = ["log_rel_l2", "log_rel_linf", "mean_rank_difference", "rel_hamming", "true_top_k"]


def _nonzero_truth(norm, which: str) -> np.ndarray:
    """The truth's norms, after checking that none is zero (a relative error needs one)."""
    norm = np.asarray(norm)
    if np.any(norm == 0):
        raise ValueError(
            f"the true theta is all zeros ({which} norm 0): the relative error is undefined"
        )
    return norm


def log_rel_l2(theta_hat: np.ndarray, theta: np.ndarray) -> np.ndarray:
    """``log(||theta_hat - theta||_2 / ||theta||_2)`` along the last axis.

    ``theta_hat`` and ``theta`` broadcast against each other; their last axes (the
    items) have the same length. A NaN estimate gives NaN; the truth must be finite.
    """
    theta_hat, theta = _checks.estimate_and_truth(theta_hat, theta)
    scale = _nonzero_truth(np.linalg.norm(theta, axis=-1), "l2")
    err = np.linalg.norm(np.asarray(theta_hat) - theta, axis=-1)
    return np.log(err / scale)


def log_rel_linf(theta_hat: np.ndarray, theta: np.ndarray) -> np.ndarray:
    """``log(||theta_hat - theta||_inf / ||theta||_inf)`` along the last axis.

    Arguments as in :func:`log_rel_l2`.
    """
    theta_hat, theta = _checks.estimate_and_truth(theta_hat, theta)
    scale = _nonzero_truth(np.max(np.abs(theta), axis=-1), "l_inf")
    err = np.max(np.abs(np.asarray(theta_hat) - theta), axis=-1)
    return np.log(err / scale)


def rel_hamming(selected: np.ndarray, truth: np.ndarray) -> np.ndarray:
    """``1 - |S_hat intersect S| / k`` for index sets along the last axis.

    Parameters
    ----------
    selected : (..., k) integer array
        Estimated top-k sets.
    truth : (..., k) integer array
        True top-k sets, broadcastable against ``selected``. Both hold distinct
        item indices ``>= 0`` and have the same set size ``k``.
    """
    selected = _index_sets(selected, "selected")
    truth = _index_sets(truth, "truth")
    k = selected.shape[-1]
    if truth.shape[-1] != k:
        raise ValueError(
            f"selected and truth must be sets of the same size k (last axis), "
            f"got shapes {selected.shape} and {truth.shape}"
        )
    if selected.ndim == 1 and truth.ndim == 1:  # one set: O(k log k) memory-light path
        return 1.0 - np.isin(selected, truth).sum() / k
    hits = (selected[..., :, None] == truth[..., None, :]).any(axis=-1).sum(axis=-1)
    return 1.0 - hits / k


def _index_sets(x, name: str) -> np.ndarray:
    """``x`` as an array of index sets along the last axis: integers >= 0, no repeats."""
    x = _checks.array(x, name)
    if x.ndim == 0 or x.shape[-1] == 0:
        raise ValueError(
            f"{name} must hold non-empty top-k sets (k >= 1), got shape {x.shape}: "
            "the relative Hamming error is undefined for k = 0"
        )
    if x.dtype.kind == "f" and not np.all(x == np.round(x)):
        raise ValueError(f"{name} must hold integer item indices")
    if x.dtype.kind == "b" or x.min() < 0:
        raise ValueError(f"{name} must hold item indices >= 0, got {x.min()!r}")
    if x.shape[-1] > 1:
        s = np.sort(x, axis=-1)
        if np.any(s[..., 1:] == s[..., :-1]):
            raise ValueError(f"{name} repeats an item: a top-k set holds k distinct items")
    return x


def true_top_k(theta: np.ndarray, k: int) -> np.ndarray:
    """Indices of the ``k`` largest true scores (ties to the higher index, so
    Paper A's tied top block ``{n-k, ..., n-1}`` is returned), sorted."""
    theta = no_nan(np.asarray(_checks.array(theta, "theta", ndim=1), dtype=float), "theta")
    if (
        isinstance(k, (bool, np.bool_))
        or not isinstance(k, (int, np.integer, float, np.floating))
        or int(k) != k
        or not 0 < k <= theta.size
    ):
        raise ValueError(f"k must be an integer in 1..{theta.size}, got {k!r}")
    k = int(k)
    order = np.argsort(theta, kind="stable")
    return np.sort(order[theta.size - k :])


def mean_rank_difference(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``mean_i |r(x)_i - r(y)_i|`` along the last axis, ``r`` the 0-based ascending rank.

    The real-data metric of Paper A, Figure 8 (the authors'
    ``avg_rank_diff``: ``r(x) = argsort(argsort(x))``; ties, which do not occur
    with continuous noise, go to the lower index).
    """
    x = no_nan(_checks.array(x, "x", min_size=1), "x")  # ranks of NaN are undefined
    y = no_nan(_checks.array(y, "y", min_size=1), "y")
    _checks.same_last_axis(x, y, "x and y")
    rx = np.argsort(np.argsort(np.asarray(x), axis=-1, kind="stable"), axis=-1, kind="stable")
    ry = np.argsort(np.argsort(np.asarray(y), axis=-1, kind="stable"), axis=-1, kind="stable")
    return np.abs(rx - ry).mean(axis=-1)
