"""Accuracy metrics and inference helpers of Paper B (Xu, Sun & Cheng), docs/papers/paper-b.md#s1-5.

Estimation errors (B2 Tables 3, 5-7, 10; B1 Figures 2-3, 5-7), ranking errors (the top-K
Hamming error ``H_K`` of B2 Table 9, the Kendall distance ``K`` that both versions call the
"full ranking error", B2 Tables 2, 8, 11; the Spearman footrule, defined in B2 only), the OLS
line with its 95% prediction band (B2 Figures 5 and 14) and the paired t-test of B2 Table 2.

Every metric works along the last axis (the ``m`` items) and broadcasts over leading axes, so
one call scores a whole batch of replicates. Ranks are 1-based in *decreasing* order of the
scores (rank 1 = best). Ties, which occur only for the count method, are broken uniformly at
random when a :class:`numpy.random.Generator` is passed (docs/papers/paper-b.md#a12) and
otherwise by the stable rule (the lower index wins).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from ..base import _checks

__all__ = [
    "PairedTTest",
    "PredictionBand",
    "kendall_distance",
    "max_error",
    "paired_t_test",
    "prediction_band",
    "ranks",
    "rms_error",
    "spearman_footrule",
    "top_k_hamming",
]


def rms_error(theta_hat: np.ndarray, theta: np.ndarray) -> np.ndarray:
    """Root-mean-square error ``m^{-1/2} ||theta_hat - theta||_2`` along the last axis.

    B2 writes it ``m^{-1/2}||θ̂ − θ*||₂`` (Tables 3, 5, 6, 10), B1 ``||θ̂ − θ*||₂/√m``.

    Parameters
    ----------
    theta_hat, theta : (..., m) array_like
        Estimates and true scores; broadcast against each other.

    Returns
    -------
    numpy.ndarray
        Shape of the broadcast leading axes.
    """
    theta_hat, theta = _checks.estimate_and_truth(theta_hat, theta)
    diff = np.asarray(theta_hat, dtype=float) - np.asarray(theta, dtype=float)
    return np.sqrt(np.mean(diff**2, axis=-1))


def max_error(theta_hat: np.ndarray, theta: np.ndarray) -> np.ndarray:
    """Sup-norm error ``||theta_hat - theta||_inf = max_i |theta_hat_i - theta_i|``.

    The ``ℓ∞`` error of B2 Tables 5, 7 and 10.

    Parameters
    ----------
    theta_hat, theta : (..., m) array_like
        Estimates and true scores; broadcast against each other.
    """
    theta_hat, theta = _checks.estimate_and_truth(theta_hat, theta)
    diff = np.asarray(theta_hat, dtype=float) - np.asarray(theta, dtype=float)
    return np.max(np.abs(diff), axis=-1)


def _descending_order(s: np.ndarray) -> np.ndarray:
    """``np.argsort(-s, axis=-1, kind="stable")``, by numpy's default sort where no two scores
    of a slice are equal: the order is then the only one, and the default sort is several
    times faster than the stable merge sort on 10^5 scores (``dprank rank``'s ranks)."""
    neg = -s
    order = np.argsort(neg, axis=-1)
    ordered = np.take_along_axis(neg, order, axis=-1)
    if np.any(ordered[..., 1:] == ordered[..., :-1]):  # a tie: the lower index first
        return np.argsort(neg, axis=-1, kind="stable")
    return order


def ranks(scores: np.ndarray, rng: np.random.Generator | None = None) -> np.ndarray:
    """Ranks ``σ(θ)_i`` in decreasing order of the scores, 1 = best (docs/papers/paper-b.md#s1-5).

    Parameters
    ----------
    scores : (..., m) array_like
        Scores along the last axis; any leading (replicate) axes.
    rng : numpy.random.Generator, optional
        Breaks ties uniformly at random: every order of a tied block is equally likely
        (one uniform key per entry, drawn as ``rng.random(scores.shape)``). ``None`` uses
        the deterministic stable rule: among tied items the lower index gets the better rank.

    Returns
    -------
    numpy.ndarray of int64
        Same shape as ``scores``; each slice along the last axis is a permutation of
        ``1..m``.

    Raises
    ------
    ValueError
        If a score is NaN (ranks are undefined).
    """
    if rng is not None:
        _checks.rng(rng)
    s = np.asarray(_checks.array(scores, "scores"), dtype=float)
    if s.ndim == 0:
        raise ValueError("scores must have at least one axis (the items)")
    if np.isnan(s).any():
        raise ValueError("scores contain NaN; ranks are undefined")
    if rng is None:
        order = _descending_order(s)
    else:
        order = np.lexsort((rng.random(s.shape), -s), axis=-1)
    out = np.empty(s.shape, dtype=np.int64)
    positions = np.broadcast_to(np.arange(1, s.shape[-1] + 1, dtype=np.int64), s.shape)
    np.put_along_axis(out, order, positions, axis=-1)
    return out


def _rank_pair(
    theta_hat: np.ndarray, theta: np.ndarray, rng: np.random.Generator | None
) -> tuple[np.ndarray, np.ndarray]:
    """Ranks of estimate and truth (estimate first when drawing tie-break keys)."""
    theta_hat, theta = _checks.estimate_and_truth(theta_hat, theta)
    _checks.no_nan(theta_hat, "theta_hat")  # ranks of NaN are undefined
    r_hat = ranks(theta_hat, rng)
    r_true = ranks(theta, rng)
    if r_hat.shape[-1] != r_true.shape[-1]:
        raise ValueError(f"theta_hat has {r_hat.shape[-1]} items but theta has {r_true.shape[-1]}")
    return r_hat, r_true


def top_k_hamming(
    theta_hat: np.ndarray, theta: np.ndarray, K: int, rng: np.random.Generator | None = None
) -> np.ndarray:
    """Normalised top-K Hamming error ``H_K`` (B2 section 5, Table 9; B1 Figures 4, 7).

    ``H_K = (1/(2K)) [#{i: σ̂_i > K, σ*_i ≤ K} + #{i: σ̂_i ≤ K, σ*_i > K}]``, which equals
    ``|topK(θ*) \\ topK(θ̂)| / K`` and takes values in ``{0, 1/K, ..., 1}``.

    Parameters
    ----------
    theta_hat, theta : (..., m) array_like
        Estimated and true scores; broadcast against each other.
    K : int
        Size of the top set, ``1 <= K <= m`` (simulations use ``K = m/2``, B1 MovieLens 10).
    rng : numpy.random.Generator, optional
        Random tie-breaking, see :func:`ranks` (keys for ``theta_hat`` are drawn first).

    Returns
    -------
    numpy.ndarray
        Shape of the broadcast leading axes.
    """
    r_hat, r_true = _rank_pair(theta_hat, theta, rng)
    m = r_hat.shape[-1]
    if isinstance(K, bool) or not isinstance(K, int | np.integer) or not 1 <= K <= m:
        raise ValueError(f"K must be an integer in 1..{m}, got {K!r}")
    in_hat = r_hat <= K
    in_true = r_true <= K
    mismatches = np.sum(in_hat != in_true, axis=-1)
    return mismatches / (2.0 * K)


#: Largest ``batch * m * m`` for which :func:`kendall_distance` forms all pairs at once.
_KENDALL_ALL_PAIRS_MAX = 2**20


def kendall_distance(
    theta_hat: np.ndarray, theta: np.ndarray, rng: np.random.Generator | None = None
) -> np.ndarray:
    """Normalised Kendall tau distance ``K(θ̂, θ*)``, the "full ranking error".

    ``K = (2/(m(m−1))) Σ_{i<j} I[(σ̂_i − σ̂_j)(σ*_i − σ*_j) < 0]`` (B2 section 5, Tables 2,
    8 and 11; B1 Figures 4-7): the share of item pairs that the two rankings order
    differently. 0 for identical rankings, 1 for reversed ones.

    Parameters
    ----------
    theta_hat, theta : (..., m) array_like
        Estimated and true scores; broadcast against each other; ``m >= 2``.
    rng : numpy.random.Generator, optional
        Random tie-breaking, see :func:`ranks`.

    Returns
    -------
    numpy.ndarray
        Shape of the broadcast leading axes.

    Notes
    -----
    ``O(m²)`` work per replicate: all pairs in one array operation while ``batch·m²``
    stays below ``2**20`` entries (a single replicate's call costs no Python loop), else
    vectorised over the batch one item at a time with ``O(batch·m)`` memory. Both count
    the same discordant pairs exactly.
    """
    r_hat, r_true = _rank_pair(theta_hat, theta, rng)
    r_hat, r_true = np.broadcast_arrays(r_hat, r_true)
    m = r_hat.shape[-1]
    if m < 2:
        raise ValueError("the Kendall distance needs at least two items")
    if r_hat.size * m <= _KENDALL_ALL_PAIRS_MAX:
        # the product is symmetric in (i, j) and 0 on the diagonal: every pair counted twice
        prod = (r_hat[..., :, None] - r_hat[..., None, :]) * (
            r_true[..., :, None] - r_true[..., None, :]
        )
        return (np.count_nonzero(prod < 0, axis=(-2, -1)) // 2) / (m * (m - 1) / 2.0)
    discordant = np.zeros(r_hat.shape[:-1], dtype=np.int64)
    for i in range(m - 1):
        d_hat = r_hat[..., i : i + 1] - r_hat[..., i + 1 :]
        d_true = r_true[..., i : i + 1] - r_true[..., i + 1 :]
        discordant += np.sum(d_hat * d_true < 0, axis=-1)
    return discordant / (m * (m - 1) / 2.0)


def spearman_footrule(
    theta_hat: np.ndarray, theta: np.ndarray, rng: np.random.Generator | None = None
) -> np.ndarray:
    """Normalised Spearman footrule ``S = (2/m²) Σ_i |σ̂_i − σ*_i|`` (defined in B2 only).

    By the Diaconis-Graham inequality ``Kc <= Σ|σ̂ − σ*| <= 2 Kc`` (``Kc`` the number of
    discordant pairs), ``K (m−1)/m <= S <= 2 K`` with ``K`` the :func:`kendall_distance`.

    Parameters
    ----------
    theta_hat, theta : (..., m) array_like
        Estimated and true scores; broadcast against each other.
    rng : numpy.random.Generator, optional
        Random tie-breaking, see :func:`ranks`.
    """
    r_hat, r_true = _rank_pair(theta_hat, theta, rng)
    m = r_hat.shape[-1]
    return 2.0 * np.sum(np.abs(r_hat - r_true), axis=-1) / m**2


@dataclass(frozen=True, eq=False)
class PredictionBand:
    """OLS line ``y ≈ intercept + slope·x`` and its prediction band at ``x0``.

    Attributes
    ----------
    intercept, slope : float
        Least-squares coefficients.
    r : float
        Pearson correlation of ``x`` and ``y``.
    s : float
        Residual standard error ``sqrt(RSS/(n−2))``.
    n : int
        Number of points.
    level : float
        Coverage of the band.
    x0, fit, lower, upper : numpy.ndarray
        Evaluation points, fitted values and band limits (same shape as ``x0``).
    """

    intercept: float
    slope: float
    r: float
    s: float
    n: int
    level: float
    x0: np.ndarray
    fit: np.ndarray
    lower: np.ndarray
    upper: np.ndarray


def prediction_band(
    x: np.ndarray, y: np.ndarray, x0: np.ndarray, level: float = 0.95
) -> PredictionBand:
    """OLS fit of ``y`` on ``x``, Pearson ``r`` and the prediction band (B2 Figures 5, 14).

    The band is ``ŷ(x0) ± t_{(1+level)/2, n−2} · s · sqrt(1 + 1/n + (x0 − x̄)²/Σ(x − x̄)²)``
    (docs/papers/paper-b.md#s1-5), where in the paper ``x = B(ε)^{-1/2}`` per replicate and ``y`` is
    that replicate's error.

    Parameters
    ----------
    x, y : (n,) array_like
        Paired observations, ``n >= 3``, ``x`` not constant.
    x0 : array_like
        Points at which to evaluate the line and the band (any shape).
    level : float, default 0.95
        Coverage probability of the band, in (0, 1).

    Returns
    -------
    PredictionBand
    """
    x = np.asarray(_checks.finite(x, "x"), dtype=float)
    y = np.asarray(_checks.finite(y, "y"), dtype=float)
    _checks.array(x0, "x0")
    _checks.real(level, "level")
    if x.ndim != 1 or x.shape != y.shape:
        raise ValueError(f"x and y must be 1-d of equal length, got {x.shape} and {y.shape}")
    n = x.size
    if n < 3:
        raise ValueError(f"need at least 3 points for a prediction band, got {n}")
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must be in (0, 1), got {level}")
    x_bar, y_bar = x.mean(), y.mean()
    sxx = np.sum((x - x_bar) ** 2)
    if sxx == 0.0:
        raise ValueError("x is constant; the regression line is undefined")
    sxy = np.sum((x - x_bar) * (y - y_bar))
    syy = np.sum((y - y_bar) ** 2)
    slope = sxy / sxx
    intercept = y_bar - slope * x_bar
    resid = y - (intercept + slope * x)
    s = np.sqrt(np.sum(resid**2) / (n - 2))
    r = sxy / np.sqrt(sxx * syy) if syy > 0 else np.nan
    x0 = np.asarray(x0, dtype=float)
    fit = intercept + slope * x0
    # Student t quantile: scipy.special.stdtrit is what scipy.stats.t.ppf evaluates (same bits),
    # without importing scipy.stats (about 0.35 s); lazily, as the workflow imports this module
    from scipy import special

    t_quantile = special.stdtrit(n - 2, 0.5 + level / 2.0)
    half = t_quantile * s * np.sqrt(1 + 1 / n + (x0 - x_bar) ** 2 / sxx)
    return PredictionBand(
        intercept=float(intercept),
        slope=float(slope),
        r=float(r),
        s=float(s),
        n=n,
        level=level,
        x0=x0,
        fit=fit,
        lower=fit - half,
        upper=fit + half,
    )


class PairedTTest(NamedTuple):
    """Result of :func:`paired_t_test`."""

    t: np.ndarray | float
    df: int
    pvalue: np.ndarray | float


def paired_t_test(errors_other: np.ndarray, errors_ref: np.ndarray, axis: int = 0) -> PairedTTest:
    """Two-sided paired t-test of B2 Table 2 ("Pairwise T-test" against ADRR).

    With ``d_r = err_other,r − err_ref,r`` over the ``R`` replicates,
    ``t = mean(d) / (sd(d)/√R)`` (``sd`` with ``ddof=1``), ``df = R − 1`` and
    ``p = 2 · t_df.sf(|t|)``. The same as :func:`scipy.stats.ttest_rel`.

    Parameters
    ----------
    errors_other, errors_ref : array_like
        Per-replicate errors of the competing method and of the reference (ADRR), paired
        by replicate along ``axis``; other axes broadcast and give a batch of tests.
    axis : int, default 0
        The replicate axis (as in :func:`scipy.stats.ttest_rel`).

    Returns
    -------
    PairedTTest
        ``t`` (positive when the other method has the larger mean error), ``df`` and the
        two-sided ``pvalue``; arrays over the remaining axes, floats for 1-d input.
        A zero ``sd(d)`` gives ``t = ±inf`` (``p = 0``), or NaN if also ``mean(d) = 0``.
    """
    other = np.asarray(_checks.array(errors_other, "errors_other", min_size=1), dtype=float)
    ref = np.asarray(_checks.array(errors_ref, "errors_ref", min_size=1), dtype=float)
    try:
        shape = np.broadcast_shapes(other.shape, ref.shape)
    except ValueError:
        raise ValueError(
            f"errors_other and errors_ref must be paired (broadcastable shapes), "
            f"got {other.shape} and {ref.shape}"
        ) from None
    if isinstance(axis, (bool, np.bool_)) or not isinstance(axis, (int, np.integer)):
        raise TypeError(f"axis must be an int, got {axis!r}")
    if not -len(shape) <= axis < len(shape):
        raise ValueError(f"axis = {axis} is out of range for {len(shape)}-d errors")
    d = other - ref
    d = np.moveaxis(d, axis, -1)
    n = d.shape[-1]
    if n < 2:
        raise ValueError(f"need at least 2 paired replicates, got {n}")
    with np.errstate(divide="ignore", invalid="ignore"):
        t = d.mean(axis=-1) / (d.std(axis=-1, ddof=1) / np.sqrt(n))
    df = n - 1
    from scipy import special

    # the t survival function, as scipy.stats.t.sf evaluates it (same bits, no scipy.stats)
    p = 2.0 * special.stdtr(df, -np.abs(t))
    if np.ndim(t) == 0:
        return PairedTTest(float(t), df, float(p))
    return PairedTTest(t, df, p)
