"""One-shot private top-k selection from a rank-centrality walk (Qiao, Su, Zhang 2021).

Reimplements the authors' R functions ``top_k_one_shot_spectral``,
``top_k_one_shot`` and ``ergodicity_coef`` (Paper A, Experiment 4;
docs/papers/paper-a.md#s1-3) without their O(n^3) memory: the stationary distribution comes
from one linear solve and the Dobrushin coefficient from one matrix product.
"""

from __future__ import annotations

import math

import numpy as np
import scipy  # scipy.linalg etc. load on first use, so jobs that never call them start faster

from . import _checks
from ._checks import positive

__all__ = [
    "dobrushin_coefficient",
    "one_shot_noise_scale",
    "one_shot_scores",
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
    d = n * p_design
    p = rank_centrality_matrix(wins, d)
    pi = stationary_distribution(p)
    rho = dobrushin_coefficient(p, 1.0 / d)
    return pi + one_shot_noise_scale(n, k, d, rho, eps) * np.asarray(unit_noise)
