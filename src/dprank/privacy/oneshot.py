"""One-shot private top-k selection from a rank-centrality walk (Qiao, Su, Zhang 2021).

Reimplements the authors' R functions ``top_k_one_shot_spectral``,
``top_k_one_shot`` and ``ergodicity_coef`` (Paper A, Experiment 4;
docs/papers/paper-a.md#s1-3) without their O(n^3) memory: the stationary distribution comes
from one linear solve and the Dobrushin coefficient from one matrix product.

The method's one home: the mechanism (:func:`one_shot_scores`) and the exact law of its
top-1 release (:func:`one_shot_top1_probabilities`, which the privacy audit
:func:`dprank.audit.audit_one_shot` compares with its runs; also importable from
:mod:`dprank.audit`). The registry's ``edge_one_shot`` (:mod:`dprank.methods`) calls them
and lends them, by role, to the studies and the audit (``Method.part``).
"""

from __future__ import annotations

import math

import numpy as np

from ..base import _checks
from ..base._checks import positive
from ..base._lazy_scipy import scipy  # imported on first use (dprank rank never uses it)

__all__ = [
    "dobrushin_coefficient",
    "one_shot_noise_scale",
    "one_shot_scores",
    "one_shot_top1_probabilities",
    "rank_centrality_matrix",
    "stationary_distribution",
]


def rank_centrality_matrix(wins: np.ndarray, d: float) -> np.ndarray:
    """Markov matrix of the walk that moves from loser to winner.

    ``P[i, j] = 1/d`` if ``j`` beat ``i`` (``i != j``) and
    ``P[i, i] = 1 - losses_i / d``, with ``d = n p`` the normalising degree.
    """
    wins = _checks.win_matrix(wins)
    _checks.positive_finite(d, "d")
    beaten_by = (wins.T > 0).astype(np.float64)  # [i, j] = 1 if j beat i
    np.fill_diagonal(beaten_by, 0.0)
    p = beaten_by / d
    p[np.diag_indices_from(p)] = 1.0 - beaten_by.sum(axis=1) / d
    return p


def stationary_distribution(p: np.ndarray) -> np.ndarray:
    """``pi`` with ``pi^T P = pi^T`` and ``sum(pi) = 1`` (unique when P is irreducible).

    Solves ``(I - P)^T pi = 0`` with the last equation replaced by the
    normalisation; this equals the eigenvector the authors take from R's
    ``eigen`` for the unit eigenvalue.

    Raises
    ------
    ValueError
        If ``p`` is not a square matrix of finite numbers whose rows sum to one
        (a Markov matrix), or if the walk has no unique stationary distribution
        (a reducible chain: the system is singular).
    """
    p = _checks.finite(p, "p", ndim=2)
    n = p.shape[0]
    if p.shape != (n, n) or n == 0:
        raise ValueError(f"p must be a non-empty square matrix, got shape {p.shape}")
    rows = p.sum(axis=1)
    if not np.allclose(rows, 1.0, rtol=0.0, atol=1e-9 * n):
        i = int(np.argmax(np.abs(rows - 1.0)))
        raise ValueError(
            f"p must be a Markov matrix (rows summing to 1); row {i} sums to {rows[i]!r}"
        )
    a = np.eye(n) - p.T
    a[-1, :] = 1.0
    rhs = np.zeros(n)
    rhs[-1] = 1.0
    try:
        return scipy.linalg.solve(a, rhs, check_finite=False)
    except np.linalg.LinAlgError:
        raise ValueError(
            "p has no unique stationary distribution (the walk is reducible: some items "
            "cannot be reached from others, e.g. a comparison graph in several pieces)"
        ) from None


def dobrushin_coefficient(p: np.ndarray, off_diagonal_value: float) -> float:
    """``rho = (1/2) max_{i,j} sum_l |P[i,l] - P[j,l]|``.

    Off-diagonal entries of the rank-centrality matrix are ``0`` or
    ``off_diagonal_value`` (``1/d``). With rows summing to one,
    ``sum_l |P_il - P_jl| = 2 - 2 sum_l min(P_il, P_jl)``; for ``l`` not in
    ``{i, j}`` the minimum is ``B_il B_jl / d`` (``B`` the 0/1 pattern), so all
    pairs follow from one matrix product ``B B^T``.
    """
    p = _checks.finite(p, "p", ndim=2)
    if p.shape[0] != p.shape[1]:
        raise ValueError(f"p must be a square matrix, got shape {p.shape}")
    _checks.positive_finite(off_diagonal_value, "off_diagonal_value")
    n = p.shape[0]
    diag = np.diag(p).copy()
    b = p.copy()
    np.fill_diagonal(b, 0.0)
    pattern = (b > 0).astype(np.float64)
    if not np.allclose(b[b > 0], off_diagonal_value):
        raise ValueError("off-diagonal entries must all equal off_diagonal_value")
    overlap = (pattern @ pattern.T) * off_diagonal_value  # l outside {i, j}: B_ii = B_jj = 0
    # l = i: min(P_ii, P_ji); l = j: min(P_ij, P_jj)
    overlap += np.minimum(diag[:, None], b.T)
    overlap += np.minimum(b, diag[None, :])
    np.fill_diagonal(overlap, np.inf)  # i = j is not a pair
    return float(1.0 - overlap.min()) if n > 1 else 0.0


def one_shot_noise_scale(n: int, k: int, d: float, rho: float, eps: float) -> float:
    """Laplace scale of the one-shot mechanism as the authors coded it.

    Sensitivity ``s = 2 / (d L (1 - rho))`` with ``L = 1``, ``delta = 1/n^2``,
    scale ``8 s sqrt(k log(n / delta)) / eps`` (docs/papers/paper-a.md#s1-3
    and #a7).
    """
    n = _checks.count(n, "n", 1)
    if n < 2:
        raise ValueError(
            "n must be at least 2: with one item delta = 1/n^2 = 1 and the noise scale is 0 "
            "(no privacy), and there is nothing to rank"
        )
    if not isinstance(k, (bool, np.bool_)) and isinstance(k, (int, np.integer)) and 1 <= k <= n:
        pass
    else:
        raise ValueError(f"k must be an integer in 1..n = 1..{n}, got {k!r}")
    positive(eps, "eps")
    _checks.positive_finite(d, "d")
    if math.isnan(_checks.real(rho, "rho")):
        raise ValueError("rho must be a number, got nan")
    if np.isinf(eps):
        return 0.0
    if rho == 1:
        raise ValueError(
            "rho = 1: the walk does not contract, the sensitivity 2 / (d (1 - rho)) is infinite"
        )
    s = 2.0 / (d * (1.0 - rho))
    delta = 1.0 / n**2
    return 8.0 * s * np.sqrt(k * np.log(n / delta)) / eps


def one_shot_scores(
    wins: np.ndarray, p_design: float, k: int, eps: float, unit_noise: np.ndarray
) -> np.ndarray:
    """Noisy stationary probabilities ``pi + scale * W`` whose top-k is the one-shot estimate.

    ``unit_noise`` holds standard Laplace draws, ``(n,)`` or ``(..., n)`` for several
    releases of the same data; the scale depends on the data through the ergodicity
    coefficient.
    """
    wins = _checks.win_matrix(wins)
    n = wins.shape[0]
    _checks.probability(p_design, "p_design", low_open=True)
    if isinstance(k, (bool, np.bool_)) or not isinstance(k, (int, np.integer)) or not 1 <= k <= n:
        raise ValueError(f"k must be an integer in 1..n = 1..{n}, got {k!r}")
    positive(eps, "eps")
    unit_noise = _checks.finite(unit_noise, "unit_noise")
    if unit_noise.ndim == 0 or unit_noise.shape[-1] != n:
        raise ValueError(
            f"unit_noise must have shape (..., {n}) (one draw per item), got {unit_noise.shape}"
        )
    pi, scale = _walk_location_scale(wins, n * p_design, k, eps)
    return pi + scale * np.asarray(unit_noise)


def _walk_location_scale(wins: np.ndarray, d: float, k: int, eps: float):
    """``pi`` (rank-centrality walk's stationary law) and the one-shot Laplace scale."""
    n = wins.shape[0]
    p = rank_centrality_matrix(wins, d)
    pi = stationary_distribution(p)
    rho = dobrushin_coefficient(p, 1.0 / d)
    return pi, one_shot_noise_scale(n, k, d, rho, eps)


# ---------------------------------------------------------------------------
# the exact law of the top-1 release (the privacy audit, dprank.audit.audit_one_shot)

_GAUSS_NODES = 16


def one_shot_location_scale(wins, eps: float, p: float = 1.0, k: int = 1):
    """``pi`` and the Laplace scale of the one-shot scores (:func:`one_shot_scores`)."""
    wins = np.asarray(wins, dtype=np.float64)
    pi, scale = _walk_location_scale(wins, wins.shape[0] * p, k, eps)
    return pi, float(scale)


def _gauss_legendre_01(m: int) -> tuple[np.ndarray, np.ndarray]:
    x, w = np.polynomial.legendre.leggauss(m)
    return 0.5 * (x + 1.0), 0.5 * w


def _laplace_log_cdf(z: np.ndarray) -> np.ndarray:
    """``log F(z)`` of the standard Laplace law, accurate in both tails."""
    neg = np.minimum(z, 0.0)
    return np.where(z < 0, neg - math.log(2.0), np.log1p(-0.5 * np.exp(-np.maximum(z, 0.0))))


def top1_probabilities(mu: np.ndarray, scale: np.ndarray) -> np.ndarray:
    """``P(argmax_i (mu_i + scale W_i) = i)``, ``W`` iid standard Laplace, for rows of ``mu``.

    ``P_i = int f(x - mu_i) prod_{j != i} F(x - mu_j) dx`` (``f``, ``F`` the
    Laplace(0, scale) density and CDF). Below ``min(mu)`` every factor is an
    exponential and the tail integrates to ``prod_j (c_j / 2) / n`` with
    ``c_j = exp((min(mu) - mu_j) / scale)``. Above ``max(mu)`` the substitution
    ``t = exp(-(x - max(mu)) / scale)`` turns the tail into
    ``int_0^1 (c_i / 2) prod_{j != i} (1 - c_j t / 2) dt`` with
    ``c_j = exp((mu_j - max(mu)) / scale)``, a polynomial of degree ``n - 1``
    that ``n``-point Gauss-Legendre integrates exactly. Between consecutive
    sorted ``mu`` the integrand is smooth (a sum of exponentials in ``x /
    scale``); each such interval is cut into pieces no longer than ``scale``
    and integrated by 16-point Gauss-Legendre (error far below 1e-12).

    Parameters
    ----------
    mu : (T, n) array_like
    scale : (T,) array_like
        Positive, finite.

    Returns
    -------
    (T, n) numpy.ndarray
    """
    mu = np.atleast_2d(np.asarray(mu, dtype=np.float64))
    s = np.asarray(scale, dtype=np.float64).reshape(-1, 1)
    if not np.all((s > 0) & np.isfinite(s)):
        raise ValueError("the noise scale must be positive and finite")
    n = mu.shape[1]
    lo = mu.min(axis=1, keepdims=True)
    hi = mu.max(axis=1, keepdims=True)
    # left tail, the same for every item
    left = np.exp(((lo - mu) / s - math.log(2.0)).sum(axis=1, keepdims=True)) / n
    # right tail: exact polynomial quadrature in t
    t, wt = _gauss_legendre_01(n)
    c = np.exp((mu - hi) / s)  # (T, n)
    log_fac = np.log1p(-0.5 * c[:, None, :] * t[None, :, None])  # (T, Q, n)
    excl = log_fac.sum(axis=2, keepdims=True) - log_fac
    right = 0.5 * c * np.einsum("q,tqn->tn", wt, np.exp(excl))
    # inner intervals between consecutive sorted mu, each in pieces of length <= scale
    srt = np.sort(mu, axis=1)
    gaps = np.diff(srt, axis=1)  # (T, n-1)
    pieces = max(1, int(np.ceil(np.max(gaps / s, initial=0.0))))
    x01, w01 = _gauss_legendre_01(_GAUSS_NODES)
    frac = (np.arange(pieces)[:, None] + x01[None, :]).ravel() / pieces  # (P Q,)
    x = srt[:, :-1, None] + gaps[:, :, None] * frac  # (T, n-1, P Q)
    weight = gaps[:, :, None] * np.tile(w01, pieces) / pieces
    z = (x[..., None] - mu[:, None, None, :]) / s[:, :, None, None]  # (T, n-1, PQ, n)
    log_cdf = _laplace_log_cdf(z)
    log_pdf = -np.abs(z) - np.log(2.0 * s)[:, :, None, None]
    integrand = np.exp(log_pdf + log_cdf.sum(axis=3, keepdims=True) - log_cdf)
    inner = np.einsum("tkq,tkqn->tn", weight, integrand)
    return left + inner + right


def one_shot_top1_probabilities(wins, eps: float, p: float = 1.0) -> np.ndarray:
    """Exact law of the one-shot top-1 release: ``P(item i is selected)`` for each ``i``.

    The release is the index of the largest score ``pi_i + s W_i``
    (:func:`one_shot_scores` with ``k = 1``, ``W`` iid standard
    Laplace), where ``pi`` is the rank-centrality stationary distribution and
    ``s = 8 (2 / (d (1 - rho))) sqrt(log(n^3)) / eps`` depends on the data
    through the Dobrushin coefficient ``rho`` (``d = n p``). Hence

        P_i = int f(x - pi_i) prod_{j != i} F(x - pi_j) dx

    with ``f``, ``F`` the Laplace(0, s) density and CDF, computed by piecewise
    Gauss-Legendre quadrature, exact on the tails (:func:`top1_probabilities`;
    the probabilities sum to one within ~1e-14).

    Parameters
    ----------
    wins : (n, n) array_like
        The data (``wins[i, j] > 0`` if ``i`` beat ``j``).
    eps : float
        Budget (positive and finite: ``eps = inf`` releases ``argmax pi``).
    p : float
        Design probability (``d = n p``).

    Returns
    -------
    (n,) numpy.ndarray
    """
    _checks.win_matrix(wins, "wins")
    _checks.positive_finite(eps, "eps")
    _checks.probability(p, "p", low_open=True)
    pi, scale = one_shot_location_scale(wins, eps, p)
    return top1_probabilities(pi[None, :], np.array([scale]))[0]
