"""Audit of the one-shot top-1 release (Paper A, Experiment 4): its exact law by quadrature.

Re-exported by :mod:`dprank.audit`.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from .. import _checks
from ..mechanisms import (
    standard_laplace,
)
from ..methods import get_method
from ._core import AuditResult, _check_audit, audit_mechanism

# ---------------------------------------------------------------------------
# one-shot top-k (Paper A, Experiment 4; dprank.oneshot)

#: Largest ``n`` for which :func:`one_shot_worst_neighbours` enumerates all tournaments.
_MAX_TOURNAMENT_N = 6

_GAUSS_NODES = 16


def _one_shot_location_scale(wins, eps: float, p: float = 1.0, k: int = 1):
    """``pi`` and the Laplace scale that :func:`dprank.oneshot.one_shot_scores` uses."""
    wins = np.asarray(wins, dtype=np.float64)
    n = wins.shape[0]
    d = n * p
    one_shot = get_method("edge_one_shot")
    chain = one_shot.part("walk")(wins, d)
    pi = one_shot.part("stationary")(chain)
    rho = one_shot.part("dobrushin")(chain, 1.0 / d)
    return pi, float(one_shot.part("noise_scale")(n, k, d, rho, eps))


def _gauss_legendre_01(m: int) -> tuple[np.ndarray, np.ndarray]:
    x, w = np.polynomial.legendre.leggauss(m)
    return 0.5 * (x + 1.0), 0.5 * w


def _laplace_log_cdf(z: np.ndarray) -> np.ndarray:
    """``log F(z)`` of the standard Laplace law, accurate in both tails."""
    neg = np.minimum(z, 0.0)
    return np.where(z < 0, neg - math.log(2.0), np.log1p(-0.5 * np.exp(-np.maximum(z, 0.0))))


def _top1_probabilities(mu: np.ndarray, scale: np.ndarray) -> np.ndarray:
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
    (:func:`dprank.oneshot.one_shot_scores` with ``k = 1``, ``W`` iid standard
    Laplace), where ``pi`` is the rank-centrality stationary distribution and
    ``s = 8 (2 / (d (1 - rho))) sqrt(log(n^3)) / eps`` depends on the data
    through the Dobrushin coefficient ``rho`` (``d = n p``). Hence

        P_i = int f(x - pi_i) prod_{j != i} F(x - pi_j) dx

    with ``f``, ``F`` the Laplace(0, s) density and CDF, computed by piecewise
    Gauss-Legendre quadrature, exact on the tails (:func:`_top1_probabilities`;
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
    pi, scale = _one_shot_location_scale(wins, eps, p)
    return _top1_probabilities(pi[None, :], np.array([scale]))[0]


def _all_tournaments(n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every tournament on ``n`` items: bit ``e`` of the index says pair ``e``'s upper item won."""
    iu, ju = np.triu_indices(n, k=1)
    codes = np.arange(2**iu.size)
    upset = ((codes[:, None] >> np.arange(iu.size)) & 1).astype(np.float64)
    wins = np.zeros((codes.size, n, n))
    wins[:, iu, ju] = 1.0 - upset
    wins[:, ju, iu] = upset
    return wins, iu, ju


@functools.lru_cache(maxsize=8)
def _worst_one_shot_pair(n: int, eps: float) -> tuple[int, int, float]:
    wins, iu, _ = _all_tournaments(n)
    mu = np.full((wins.shape[0], n), np.nan)
    scale = np.full(wins.shape[0], np.nan)
    for r in range(wins.shape[0]):
        try:
            pi, sc = _one_shot_location_scale(wins[r], eps)
        except (np.linalg.LinAlgError, ValueError):
            continue
        if np.all(np.isfinite(pi)) and math.isfinite(sc) and sc > 0:
            mu[r], scale[r] = pi, sc
    ok = np.isfinite(scale)
    log_p = np.full(mu.shape, np.nan)
    rows = np.flatnonzero(ok)
    for start in range(0, rows.size, 2048):
        chunk = rows[start : start + 2048]
        log_p[chunk] = np.log(_top1_probabilities(mu[chunk], scale[chunk]))
    best = (-1, -1, -np.inf)
    codes = np.arange(wins.shape[0])
    for e in range(iu.size):
        partner = codes ^ (1 << e)
        keep = (codes < partner) & ok & ok[partner]
        loss = np.full(codes.size, -np.inf)
        loss[keep] = np.abs(log_p[keep] - log_p[partner[keep]]).max(axis=1)
        r = int(np.argmax(loss))
        if loss[r] > best[2]:
            best = (r, int(partner[r]), float(loss[r]))
    return best


def one_shot_worst_neighbours(n: int, eps: float) -> tuple[np.ndarray, np.ndarray, float]:
    """The edge-adjacent tournaments on which the one-shot top-1 release loses the most privacy.

    Enumerates all ``2^(n(n-1)/2)`` tournaments on ``n <= 6`` items (one
    comparison per pair, ``p = 1``, ``d = n``) and every single flipped
    outcome, computes both releases' exact laws
    (:func:`one_shot_top1_probabilities`) and keeps the pair maximising
    ``max_i |log P1_i - log P0_i|``, the exact pure-DP loss of the top-1
    release on that pair. Tournaments whose chain gives a non-finite noise
    scale or a failed stationary solve are skipped. Results are cached per
    ``(n, eps)``; for ``n = 5`` (1024 tournaments, 10 flips each) the search
    takes well under a second.

    Parameters
    ----------
    n : int
        Items, ``2 <= n <= 6``.
    eps : float
        Budget (positive, finite).

    Returns
    -------
    wins0, wins1 : (n, n) numpy.ndarray
        Win matrices differing in one comparison's outcome.
    loss : float
        Their exact loss.
    """
    n = _checks.count(n, "n", 2)
    if not 2 <= n <= _MAX_TOURNAMENT_N:
        raise ValueError(f"need 2 <= n <= {_MAX_TOURNAMENT_N} (exhaustive search)")
    _checks.positive_finite(eps, "eps")
    r0, r1, loss = _worst_one_shot_pair(n, float(eps))
    if r0 < 0:
        raise ValueError("no tournament pair with a finite noise scale")
    wins, _, _ = _all_tournaments(n)
    return wins[r0].copy(), wins[r1].copy(), loss


def audit_one_shot(
    eps: float,
    n: int,
    trials: int,
    rng: np.random.Generator,
    k: int = 1,
    p: float = 1.0,
    neighbours: tuple[np.ndarray, np.ndarray] | None = None,
    alpha: float = 0.05,
) -> AuditResult:
    """Audit the one-shot top-k method (Paper A, Experiment 4) under edge DP, for ``k = 1``.

    Each run releases the index of the largest of
    :func:`dprank.oneshot.one_shot_scores` (``pi + s W``, fresh standard
    Laplace ``W``), as the library does (ties, of probability zero, to the
    lower index). The claim is ``(eps, 1/n^2)``, the ``delta`` coded in
    :func:`dprank.oneshot.one_shot_noise_scale`. The statistic is the exact
    log-ratio ``log P1_i - log P0_i`` of the released item ``i``
    (:func:`one_shot_top1_probabilities`), a fixed function of the output;
    ``exact_eps`` is its largest absolute value, the exact pure-DP loss of
    the release on this pair.

    Parameters
    ----------
    eps : float
        Claimed budget (positive, finite).
    n : int
        Items.
    trials : int
        Runs per neighbour.
    rng : numpy.random.Generator
    k : int
        Size of the released set; only ``1`` is supported (the paper's
        ``k = n // 4`` is 1 for ``n = 5``).
    p : float
        Design probability (``d = n p``).
    neighbours : (wins0, wins1), optional
        Edge-adjacent win matrices; default :func:`one_shot_worst_neighbours`
        (requires ``p = 1``, i.e. tournaments).
    alpha : float

    Notes
    -----
    The noise scale depends on the data through the Dobrushin coefficient
    ``rho`` of the chain, so flipping one comparison changes the scale as
    well as the location ``pi``; the exact laws account for both.
    """
    _check_audit(eps, trials, rng, alpha, n=n)
    if k != 1:
        raise ValueError("only k = 1 is supported")
    if neighbours is None:
        if p != 1.0:
            raise ValueError("the worst-neighbour search needs p = 1 (tournaments)")
        wins0, wins1, _ = one_shot_worst_neighbours(n, eps)
    else:
        wins0, wins1 = (np.asarray(w, dtype=np.float64) for w in neighbours)
        if wins0.shape != (n, n) or wins1.shape != (n, n):
            raise ValueError(f"neighbours must be two ({n}, {n}) win matrices")
    log_ratio = np.log(one_shot_top1_probabilities(wins1, eps, p)) - np.log(
        one_shot_top1_probabilities(wins0, eps, p)
    )
    exact = float(np.abs(log_ratio).max())

    one_shot_scores = get_method("edge_one_shot").part("scores")

    def sampler(wins):
        def draw(g, size):
            scores = one_shot_scores(wins, p, 1, eps, standard_laplace(g, (size, n)))
            return log_ratio[np.argmax(scores, axis=1)]

        return draw

    return audit_mechanism(
        f"one_shot_top1[n={n}]",
        sampler(wins0),
        sampler(wins1),
        trials,
        rng,
        eps,
        claimed_delta=1.0 / n**2,
        alpha=alpha,
        exact_eps=exact,
    )
