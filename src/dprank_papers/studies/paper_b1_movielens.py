"""B1 real-data study: private rank aggregation on MovieLens (B1 section 5.3, Figure 7).

Paper B1 (Xu, Sun & Cheng, the earlier, BTL-only version of "Rate-Optimal Rank
Aggregation with Private Pairwise Rankings") applies its debiased randomized
response to the ratings of the 40 most-rated MovieLens movies and plots, for
the three privacy schemes of B1 Figure 3, the errors of the private estimate
against the non-private fit as the number of users grows (B1 Figure 7; spec
``paper-b.md`` sections 4.2 and B1-Fig7).

* :func:`read_ratings` reads ``ratings.csv`` of ml-latest-small (the release
  whose counts B1 quotes, docs/papers/paper-b.md#s4-2 / A28) into a users-by-movies matrix of the
  ``n_movies`` most-rated movies.
* :func:`user_comparisons` turns ratings into the users' pairwise comparisons
  (higher rating preferred, a rated movie beats an unrated one, coin flips
  otherwise; docs/papers/paper-b.md#s4-2, A28); :func:`expected_comparisons` is their expectation.
* :func:`reference_theta` is the non-private BTL fit on all users, the
  ``theta*`` that Figure 7 measures errors against (docs/papers/paper-b.md#s4-2).
* :func:`simulate_replicate` runs one replicate of B1 Figure 7 for one number
  of users ``L`` and one scheme; :func:`simulate_cell` runs many.

Protocol of one replicate (spec B1-Fig7 defaults, A28)
------------------------------------------------------
1. Draw ``L`` users *with replacement* from the ``U = 610`` users and their
   comparisons of all ``m (m - 1) / 2`` pairs with fresh coin flips.
2. Every user gets the scheme's budget ``eps = eps_s(m, L)``, calibrated so
   that ``eps = 1`` at the smallest ``L`` for all three schemes
   (``scheme_epsilon(s, m, L, 1, log_power=1, anchor_L=L_min)``; B1 section 5.3:
   "the starting point denotes the case eps = 1 for three schemes").
3. Classic randomized response with flip probability ``p_eps = 1/(e^eps + 1)``
   on every comparison, then B1's unweighted debiased mean
   ``z_bar = (1/L) sum_l z~`` (B1 eq. (1); = ADRR with equal budgets).
4. BTL fit of B1 objective (3) (= B2 objective (5) with ``N = 1``) with the
   ridge ``lambda = G(eps)/L = 1/(L B(eps))`` (docs/papers/paper-b.md#s1-3, A2).
5. Errors against the reference: Kendall distance ``K`` (panel a), top-10
   Hamming ``H_10`` (b), ``m^{-1/2} ||.||_2`` (c) and ``||.||_inf`` (d).

All randomness comes from :func:`dprank.base.seeding.generator` keyed by
``(seed, "movielens", cell_key({"L": L, "scheme": scheme}), replicate, stream)``
(users and coin flips: ``Stream.DATA``; RR: ``Stream.RELEASE``), so a
replicate does not depend on which other replicates run.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import pandas as pd

from dprank.base import checks as _checks
from dprank.base.seeding import Stream, cell_key, generator
from dprank.data.models import BTL
from dprank.data.realdata import MovieLensData, read_ratings
from dprank.fit.metrics_b import kendall_distance, max_error, rms_error, top_k_hamming
from dprank.fit.weighted_mle import default_lambda, fit_weighted_mle
from dprank.privacy.ldp import RRPairCounts, privacy_constant, rr_flip_probability

from .paper_b2.scenarios import scheme_epsilon

__all__ = [
    "EXPERIMENT",
    "L_GRID",
    "METHOD",
    "SCHEMES",
    "MovieLensData",
    "expected_comparisons",
    "read_ratings",
    "reference_theta",
    "sample_released_wins",
    "simulate_cell",
    "simulate_replicate",
    "user_comparisons",
]

#: experiment name of the random streams (:func:`dprank.base.seeding.generator`)
EXPERIMENT = "movielens"
#: numbers of users of B1 Figure 7 (spec B1-Fig7 / A28 default: drawn with replacement)
L_GRID = (100, 200, 400, 800, 1600)
#: the three privacy schemes of B1 Figure 3 (formula-based labels, docs/papers/paper-b.md#a26)
SCHEMES = (1, 2, 3)
#: method label of the rows: B1's debiased RR (unweighted mean of the debiased outputs)
METHOD = "local_debiased_rr"

# ---------------------------------------------------------------------------
# comparisons


def _pair_rules(ratings) -> tuple[np.ndarray, np.ndarray]:
    """``(deterministic value, is coin flip)`` per user and pair (docs/papers/paper-b.md#s4-2)."""
    r = np.asarray(ratings, dtype=np.float64)
    if r.ndim != 2 or r.shape[1] < 2:
        raise ValueError(f"ratings must be a (users, movies >= 2) array, got shape {r.shape}")
    iu, ju = np.triu_indices(r.shape[1], k=1)
    ri, rj = r[:, iu], r[:, ju]
    oi, oj = ~np.isnan(ri), ~np.isnan(rj)
    both = oi & oj
    with np.errstate(invalid="ignore"):
        value = np.where(both, ri > rj, oi & ~oj)  # one rated: the rated movie wins
        coin = (both & (ri == rj)) | (~oi & ~oj)  # tie, or neither rated
    return value, coin


def user_comparisons(ratings, rng: np.random.Generator) -> np.ndarray:
    """Pairwise comparisons implied by the users' ratings (B1 5.3; docs/papers/paper-b.md#a28).

    For every user and pair ``i < j`` (``numpy.triu_indices(m, 1)`` order),
    ``y = 1`` iff movie ``i`` is preferred:

    * both rated: the higher rating is preferred; equal ratings ``y ~ Bern(1/2)``;
    * exactly one rated: the rated movie is preferred ("items without ratings
      are considered less preferred");
    * neither rated: ``y ~ Bern(1/2)`` (docs/papers/paper-b.md#a28 default; B1 is silent).

    Parameters
    ----------
    ratings : (U, m) array_like
        Ratings with NaN for "not rated" (e.g. ``MovieLensData.ratings``, or
        its rows for users drawn with replacement).
    rng : numpy.random.Generator
        Source of the coin flips: one uniform per (user, pair), drawn as
        ``rng.random((U, P))`` whether or not it is used.

    Returns
    -------
    (U, P) uint8
    """
    return _apply_rules(*_pair_rules(ratings), rng)


def _apply_rules(value, coin, rng: np.random.Generator) -> np.ndarray:
    """:func:`user_comparisons` from the users' :func:`_pair_rules` (one uniform per entry)."""
    flips = rng.random(value.shape) < 0.5
    return np.where(coin, flips, value).astype(np.uint8)


def expected_comparisons(ratings) -> np.ndarray:
    """Expectation of :func:`user_comparisons`: 1/2 in place of every coin flip.

    Returns
    -------
    (U, P) float64
        0 or 1 where the ratings decide, 1/2 for ties and pairs neither rated.
    """
    value, coin = _pair_rules(ratings)
    return np.where(coin, 0.5, value.astype(np.float64))


def reference_theta(ratings, gtol: float = 1e-10) -> np.ndarray:
    """Non-private BTL scores of all users, ``theta*`` of B1 Figure 7 (docs/papers/paper-b.md#s4-2).

    Minimises B2 objective (5) (= B1 objective (3)) with
    ``S_ij = (1/U) sum_u E y_ij^(u)`` (:func:`expected_comparisons`), ``N_ij = 1``
    and ``lambda = 1/U`` (docs/papers/paper-b.md#s4-2 / A28 default ``lambda = 1/L`` with
    ``L = U`` users), then centres the result.

    Our reading of docs/papers/paper-b.md#s4-2: the coin flips of ties and unrated pairs are
    replaced by their mean 1/2, so the reference is deterministic. Objective
    (5) is linear in ``S``, so this is the minimiser of the objective averaged
    over the coin flips (rather than of one random draw of them).

    Parameters
    ----------
    ratings : (U, m) array_like
        Ratings of all users, NaN = not rated.
    gtol : float
        Gradient tolerance of the Newton solver.

    Returns
    -------
    (m,) float64
        Centred scores (higher = preferred).

    Raises
    ------
    RuntimeError
        If the fit does not converge.
    """
    r = np.asarray(ratings, dtype=np.float64)
    U, m = r.shape
    S = expected_comparisons(r).mean(axis=0)
    fit = fit_weighted_mle(S, np.ones_like(S), m, 1.0 / U, BTL, gtol=gtol)
    if not fit.converged:
        raise RuntimeError(f"reference BTL fit did not converge (grad {fit.grad_norm:.3g})")
    return fit.theta - fit.theta.mean()


# ---------------------------------------------------------------------------
# private replicate


def sample_released_wins(wins, L: int, eps: float, rng: np.random.Generator) -> np.ndarray:
    """Number of ones among the classic-RR outputs of a pair, sampled exactly.

    A pair compared by ``L`` users of which ``k = wins`` said "1": RR keeps each
    1 with probability ``1 - p_eps`` and turns each 0 into a 1 with probability
    ``p_eps = 1/(e^eps + 1)`` (docs/papers/paper-b.md#s1-2). The flips are independent across
    comparisons (users and pairs) and do not depend on anything but the
    comparison's own value, so given the raw comparisons the released count of
    ones is exactly ``Bin(k, 1 - p_eps) + Bin(L - k, p_eps)``, independently over
    pairs (as in :func:`dprank.privacy.ldp.sample_rr_statistics_equal_eps`).

    Parameters
    ----------
    wins : (P,) array_like of int
        Raw ones per pair, ``0 <= k <= L``.
    L : int
        Comparisons per pair (B1: every user compares every pair).
    eps : float
        Common budget (``inf`` = no flips).
    rng : numpy.random.Generator

    Returns
    -------
    (P,) int64
    """
    k = np.asarray(wins, dtype=np.int64)
    if np.any(k < 0) or np.any(k > int(L)):
        raise ValueError(f"wins must lie in 0..L = {int(L)}")
    pe = rr_flip_probability(eps)
    return (rng.binomial(k, 1.0 - pe) + rng.binomial(int(L) - k, pe)).astype(np.int64)


def simulate_replicate(
    ratings,
    theta_ref,
    L: int,
    scheme: int,
    seed: int,
    r: int,
    anchor_L: int = 100,
    K: int = 10,
    rules: tuple[np.ndarray, np.ndarray] | None = None,
) -> list[dict]:
    """One replicate of B1 Figure 7 for ``L`` users and one privacy scheme.

    See the module docstring for the protocol (spec B1-Fig7, A2, A28): ``L``
    users drawn with replacement, fresh coin flips, the common budget
    ``eps = eps_s(m, L)`` of scheme ``s`` with ``eps = 1`` at ``L = anchor_L``
    (B1 Figure 3 schemes, single log), classic RR sampled exactly per pair
    (:func:`sample_released_wins`), B1's debiased mean
    ``S = (k~ - p_eps L) / ((1 - 2 p_eps) L)`` with ``N = 1``
    (:meth:`dprank.privacy.ldp.RRPairCounts.adrr_statistics`; equal budgets make ADRR
    B1's unweighted debiased RR), and the BTL fit with
    ``lambda = 1/(L B(eps)) = G(eps)/L`` (docs/papers/paper-b.md#a2).

    Parameters
    ----------
    ratings : (U, m) array_like
        Ratings of all users (NaN = not rated).
    theta_ref : (m,) array_like
        Reference scores (:func:`reference_theta`).
    L : int
        Number of users drawn (default grid :data:`L_GRID`, docs/papers/paper-b.md#a28).
    scheme : {1, 2, 3}
        ``eps ~ log(mL)/sqrt(mL)``, ``1/sqrt(mL)``, ``1/(log(mL) sqrt(mL))``.
    seed : int
        Root seed.
    r : int
        Replicate index.
    anchor_L : int, default 100
        Number of users at which every scheme has ``eps = 1``; B1 anchors at
        the smallest ``L`` of the grid.
    K : int, default 10
        Size of the top set of the Hamming error (B1 Figure 7(b): ``H_10``).
    rules : tuple of two (U, P) bool arrays, optional
        ``_pair_rules(ratings)`` of all users, computed once by :func:`simulate_cell`
        for all its replicates (the drawn users' rows are taken from it; same result).

    Returns
    -------
    list of dict
        Rows ``scheme, L, replicate, method, metric, value`` for the metrics
        ``kendall_tau_K``, ``topK_hamming_HK_K=<K>``, ``l2_over_sqrt_m``,
        ``linf``, ``eps`` (the budget) and ``converged`` (1 or 0).
    """
    _check_cell_args(ratings, theta_ref, L, scheme, seed, anchor_L, K)
    _checks.count(r, "r")
    r_all = np.asarray(ratings, dtype=np.float64)
    theta_ref = np.asarray(theta_ref, dtype=np.float64)
    U, m = r_all.shape
    L, scheme, r = int(L), int(scheme), int(r)
    key = cell_key({"L": L, "scheme": scheme})

    data_rng = generator(seed, EXPERIMENT, key, r, Stream.DATA)
    users = data_rng.integers(0, U, size=L)
    value, coin = _pair_rules(r_all) if rules is None else rules
    y = _apply_rules(value[users], coin[users], data_rng)
    wins = y.sum(axis=0, dtype=np.int64)

    eps = scheme_epsilon(scheme, m, L, 1.0, log_power=1, anchor_L=anchor_L)
    released = sample_released_wins(
        wins, L, eps, generator(seed, EXPERIMENT, key, r, Stream.RELEASE)
    )
    counts = RRPairCounts(
        L=L,
        eps=eps,
        n_obs=np.full(wins.size, L, dtype=np.int64),
        wins=wins,
        released_wins=released,
    )
    S, N = counts.adrr_statistics()
    fit = fit_weighted_mle(S, N, m, default_lambda(L, privacy_constant(eps)), BTL)

    values = {
        "kendall_tau_K": kendall_distance(fit.theta, theta_ref),
        f"topK_hamming_HK_K={int(K)}": top_k_hamming(fit.theta, theta_ref, int(K)),
        "l2_over_sqrt_m": rms_error(fit.theta, theta_ref),
        "linf": max_error(fit.theta, theta_ref),
        "eps": eps,
        "converged": float(fit.converged),
    }
    base = {"scheme": scheme, "L": L, "replicate": r, "method": METHOD}
    return [{**base, "metric": k, "value": float(v)} for k, v in values.items()]


def _check_cell_args(ratings, theta_ref, L, scheme, seed, anchor_L, K) -> None:
    """The checks of :func:`simulate_replicate`'s and :func:`simulate_cell`'s arguments."""
    r_all = _checks.array(ratings, "ratings", ndim=2)
    m = r_all.shape[1]
    if r_all.shape[0] < 1 or m < 2:
        raise ValueError(f"ratings must have a user and two movies at least, got {r_all.shape}")
    theta_ref = _checks.finite(theta_ref, "theta_ref")
    if theta_ref.shape != (m,):
        raise ValueError(f"theta_ref must have shape ({m},), got {theta_ref.shape}")
    _checks.count(L, "L", 1)
    if _checks.count(scheme, "scheme", 1) > 3:
        raise ValueError(f"scheme must be 1, 2 or 3 (B1 Figure 3), got {scheme!r}")
    _checks.count(seed, "seed")
    _checks.count(anchor_L, "anchor_L", 1)
    if _checks.count(K, "K", 1) > m:
        raise ValueError(f"K must be at most the number of movies {m}, got {K!r}")


def simulate_cell(
    ratings,
    theta_ref,
    L: int,
    scheme: int,
    seed: int,
    replicates: int | Iterable[int],
    anchor_L: int = 100,
    K: int = 10,
) -> pd.DataFrame:
    """Several replicates of :func:`simulate_replicate` as one tidy frame.

    Parameters
    ----------
    ratings, theta_ref, L, scheme, seed, anchor_L, K
        As in :func:`simulate_replicate`.
    replicates : int or iterable of int
        A count ``R`` (replicates ``0..R-1``; B1 Figure 7: 200) or the indices.

    Returns
    -------
    pandas.DataFrame
        Columns ``scheme, L, replicate, method, metric, value``.
    """
    _check_cell_args(ratings, theta_ref, L, scheme, seed, anchor_L, K)
    if isinstance(replicates, int | np.integer) and not isinstance(replicates, bool):
        _checks.count(replicates, "replicates")
        indices = range(replicates)
    else:
        indices = _checks.indices(replicates)
    rules = _pair_rules(ratings)  # per user, shared by every replicate's draw of users
    rows = []
    for r in indices:
        rows.extend(simulate_replicate(ratings, theta_ref, L, scheme, seed, r, anchor_L, K, rules))
    return pd.DataFrame(rows, columns=["scheme", "L", "replicate", "method", "metric", "value"])
