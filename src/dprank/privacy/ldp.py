"""Local differential privacy releases of Paper B (Xu, Sun, Cheng), version B2.

Data model (B2 section 4, docs/papers/paper-b.md#s1-1): users ``l = 1..L``
each compare every pair ``i < j`` of ``m`` items; the comparison is observed
with probability ``p`` (``a_ij^(l) ~ Bern(p)``) and ``y_ij^(l) ~
Bern(F(theta_i - theta_j))``, independently over pairs and users.

Layout: per-user data are ``(L, P)`` arrays over the ``P = m (m - 1) / 2``
pairs in ``numpy.triu_indices(m, 1)`` order (``y`` as uint8, ``a`` as bool).
Large cells (B2-Fig10: ``m = 160``, ``L = 3200``, 40.7M comparisons) are
processed in chunks of users: draw a chunk with
:func:`sample_user_comparisons_b` (or iterate :func:`iter_user_comparisons_b`),
release it, and add its contribution to running per-pair totals with
:func:`add_sufficient_statistics` (any per-user values ``z``) or the fused
ADRR version :func:`add_rr_statistics`::

    w = adrr_weights(eps)                       # over all L users
    S, N = np.zeros(P), np.zeros(P)
    for users, y, a in iter_user_comparisons_b(theta, L, p, rng):
        y_tilde = randomized_response(y, eps[users], rng)
        add_rr_statistics(S, N, y_tilde, a, eps[users], w[users])
        # = add_sufficient_statistics(S, N, debias(y_tilde, eps[users]), a, w[users])

:func:`simulate_ldp_statistics` does exactly this for several releases of the
same raw data at once (ADRR, classic RR, Laplace, raw counts, count scores).

Mechanisms (docs/papers/paper-b.md#s1-2, #s1-4)
-----------------------------------------------
* classic randomized response with budget ``eps``: flip ``y`` with
  probability ``1 / (e^eps + 1)`` (:func:`randomized_response`);
* debiasing, B2 eq. (3) (:func:`debias`), mean and variance B2 Lemma 2
  (:func:`debiased_variance`);
* ADRR weights, B2 eq. (4): ``w_l = tanh^2(eps_l / 2) / sum_k tanh^2(eps_k / 2)``
  (:func:`adrr_weights`) and the privacy constant ``B(eps)``;
* the Laplace mechanism ``y + Laplace(1 / eps_l)`` (:func:`laplace_release`);
* the count method (Yan et al. 2020; Alabi et al. 2022): wins per item of the
  classic-RR outputs (:func:`count_scores`, :func:`count_ranking`).

Per-user budgets: an ``eps`` array is matched to the *leading* axes of the data
(``eps`` of shape ``(L,)`` applies to the rows of an ``(L, P)`` array); a
scalar applies to everything. ``eps = inf`` means no privacy (no flips,
``debias`` is the identity, no Laplace noise).

All randomness comes from an explicit :class:`numpy.random.Generator` ``rng``.
The draws of a chunked run depend on the chunk size: keep it fixed for
reproducible streams.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from ..base import _checks
from ..base._checks import binary, no_nan
from ..base._lazy_scipy import scipy  # imported on first use (dprank rank never uses it)
from ..data.models import BTL, Link

__all__ = [
    "DEFAULT_CHUNK_USERS",
    "LDPStatistics",
    "RRPairCounts",
    "add_rr_statistics",
    "add_sufficient_statistics",
    "adrr_weights",
    "count_ranking",
    "count_scores",
    "count_scores_from_pair_counts",
    "debias",
    "debiased_variance",
    "iter_user_comparisons_b",
    "laplace_release",
    "n_items_from_pairs",
    "privacy_constant",
    "randomized_response",
    "rr_flip_probability",
    "sample_rr_statistics_equal_eps",
    "sample_user_comparisons_b",
    "simulate_ldp_statistics",
    "sufficient_statistics",
]

#: Users per chunk in :func:`iter_user_comparisons_b` / :func:`simulate_ldp_statistics`.
#: At ``m = 160`` (12,720 pairs) a chunk's float64 temporaries take ~26 MB each.
DEFAULT_CHUNK_USERS = 256


# ---------------------------------------------------------------------------
# helpers


def _eps_array(eps) -> np.ndarray:
    if eps is None or isinstance(eps, (str, bytes, bool, np.bool_)):
        raise TypeError(f"privacy budgets eps must be positive numbers, got {eps!r}")
    e = np.asarray(_checks.array(eps, "eps"), dtype=np.float64)
    if np.any(np.isnan(e)) or np.any(e <= 0):
        raise ValueError("privacy budgets eps must be positive (inf = no privacy)")
    return e


def _mask(a, name: str = "a") -> np.ndarray:
    """An observation mask as bool, after checking that it holds only 0/1 (True/False)."""
    return np.asarray(binary(_checks.array(a, name), name), dtype=bool)


def _weights(weights, rows: int) -> None:
    w = _checks.array(weights, "weights", ndim=(0, 1))
    if w.ndim == 1 and w.shape != (rows,):
        raise ValueError(f"weights must be one number or one per user ({rows},), got {w.shape}")
    if np.any(np.isnan(w)) or np.any(w < 0) or np.any(np.isinf(w)):
        raise ValueError("weights must be finite and non-negative")


def _running_totals(S, N, P: int, data: str) -> None:
    for name, x in (("S", S), ("N", N)):
        if not isinstance(x, np.ndarray) or x.dtype.kind != "f":
            raise TypeError(
                f"{name} must be a float numpy array (a running total updated in place)"
            )
        if x.shape != (P,):
            raise ValueError(
                f"{name} must have shape ({P},), one entry per pair (column) of {data}, "
                f"got {x.shape}"
            )


def _leading(eps: np.ndarray, ndim: int, shape: tuple[int, ...] | None = None) -> np.ndarray:
    """Reshape a per-user array so that it broadcasts along the leading axes.

    With the data's ``shape``, ``eps`` must match its leading axes (one budget per user
    row) or hold one budget (size 1) for all.
    """
    if eps.ndim > ndim:
        raise ValueError(f"eps has {eps.ndim} dimensions, the data only {ndim}")
    if shape is not None and eps.size != 1 and eps.shape != tuple(shape[: eps.ndim]):
        raise ValueError(
            f"eps has shape {eps.shape} for data of shape {tuple(shape)}: give one budget "
            f"per user (shape {tuple(shape[: max(eps.ndim, 1)])}) or one for all"
        )
    return eps.reshape(eps.shape + (1,) * (ndim - eps.ndim))


def n_items_from_pairs(n_pairs: int) -> int:
    """The number of items ``m`` with ``m (m - 1) / 2 = n_pairs``."""
    n_pairs = _checks.count(n_pairs, "n_pairs")
    m = (1 + math.isqrt(1 + 8 * int(n_pairs))) // 2
    if m * (m - 1) // 2 != n_pairs:
        raise ValueError(f"n_pairs = {n_pairs} is not a number of pairs m(m-1)/2")
    return m


# ---------------------------------------------------------------------------
# mechanisms


def rr_flip_probability(eps) -> np.ndarray | float:
    """Flip probability ``p_eps = 1 / (e^eps + 1)`` of classic RR (docs/papers/paper-b.md#s1-2).

    Returns a float for scalar input; ``eps = inf`` gives 0.
    """
    p = scipy.special.expit(-_eps_array(eps))
    return float(p) if np.ndim(p) == 0 else p


def randomized_response(y, eps, rng: np.random.Generator) -> np.ndarray:
    """Classic randomized response: each comparison flipped w.p. ``1/(e^eps+1)``.

    ``eps``-LDP per comparison (B2 section 3.1, Lemma 1).

    Parameters
    ----------
    y : array_like of {0, 1}
        Raw comparisons, e.g. ``(L, P)`` (users by pairs).
    eps : float or array_like
        Budget(s); an array is matched to the leading axes of ``y`` (shape
        ``(L,)`` = one budget per user row).
    rng : numpy.random.Generator

    Returns
    -------
    numpy.ndarray
        ``y_tilde`` as uint8, same shape as ``y``.
    """
    y = binary(_checks.array(y, "y"), "y")
    _checks.rng(rng)
    p = _leading(np.asarray(rr_flip_probability(eps), dtype=np.float64), y.ndim, y.shape)
    flips = rng.random(y.shape) < p
    out = y.astype(np.uint8)
    np.bitwise_xor(out, flips, out=out, casting="unsafe")
    return out


def debias(y_tilde, eps) -> np.ndarray:
    """Debiased RR output ``z~ = ((e^eps + 1) y~ - 1) / (e^eps - 1)`` (B2 eq. (3)).

    Computed as ``(y~ - p_eps) / (1 - 2 p_eps)``, the same number, which is
    finite at ``eps = inf`` (identity). ``E z~ = F(theta_i - theta_j)`` and
    ``Var z~`` is :func:`debiased_variance` (B2 Lemma 2).

    ``eps`` follows the leading-axis convention of :func:`randomized_response`.
    """
    yt = binary(y_tilde, "y_tilde").astype(np.float64)
    p = _leading(np.asarray(rr_flip_probability(eps), dtype=np.float64), yt.ndim, yt.shape)
    return (yt - p) / (1.0 - 2.0 * p)


def debiased_variance(f, eps) -> np.ndarray:
    """``Var z~ = ((e^eps+1)/(e^eps-1))^2 / 4 - (2F - 1)^2 / 4`` (B2 Lemma 2).

    ``f`` is ``F(theta_i - theta_j)``; broadcasting is plain numpy here.
    """
    f = _checks.array(f, "f")
    if np.any(np.isnan(f)) or np.any(f < 0) or np.any(f > 1):
        raise ValueError("f must hold probabilities F(theta_i - theta_j) in [0, 1]")
    coth = 1.0 / np.tanh(_eps_array(eps) / 2.0)  # (e^eps+1)/(e^eps-1)
    return 0.25 * (coth**2 - (2.0 * np.asarray(f, dtype=np.float64) - 1.0) ** 2)


def adrr_weights(eps) -> np.ndarray:
    """ADRR weights ``w_l = b_l / sum_k b_k`` with ``b_l = tanh^2(eps_l / 2)`` (B2 eq. (4)).

    ``b_l = ((e^eps_l - 1)/(e^eps_l + 1))^2``. The weights are normalised over
    all ``L`` users and sum to one (docs/papers/paper-b.md#s1-2); equal budgets give ``1/L``.
    """
    e = np.atleast_1d(_eps_array(eps))
    if e.size == 0:
        raise ValueError("eps holds no budget (one per user is needed)")
    b = np.tanh(e / 2.0) ** 2
    return b / b.sum()


def privacy_constant(eps) -> float:
    """``B(eps) = (1/L) sum_l tanh^2(eps_l / 2)`` (B2 section 4; docs/papers/paper-b.md#s1-2).

    The supplement's ``G(eps) = sum_l b_l = L B(eps)``.
    """
    e = np.atleast_1d(_eps_array(eps))
    if e.size == 0:
        raise ValueError("eps holds no budget (one per user is needed)")
    return float(np.mean(np.tanh(e / 2.0) ** 2))


def laplace_release(y, eps, rng: np.random.Generator) -> np.ndarray:
    """Laplace mechanism ``y~ = y + xi``, ``xi ~ Laplace(0, 1/eps)`` per comparison.

    ``eps``-LDP for ``y in {0, 1}`` (sensitivity 1; B2 section 5.1 Scenario V,
    docs/papers/paper-b.md#s1-4). ``eps`` follows the leading-axis convention of
    :func:`randomized_response`; the variance of the noise is ``2 / eps^2``.

    Returns
    -------
    numpy.ndarray
        float64, same shape as ``y``.
    """
    y = binary(_checks.array(y, "y"), "y").astype(np.float64)
    _checks.rng(rng)
    e = _leading(_eps_array(eps), y.ndim, y.shape)
    scale = np.broadcast_to(np.where(np.isinf(e), 0.0, 1.0 / e), y.shape)
    return y + rng.laplace(0.0, 1.0, size=y.shape) * scale


# ---------------------------------------------------------------------------
# data generation


def sample_user_comparisons_b(
    theta, L: int, p: float, rng: np.random.Generator, link: Link = BTL
) -> tuple[np.ndarray, np.ndarray]:
    """Raw comparisons of ``L`` users in the B2 design (docs/papers/paper-b.md#s1-1).

    Every user compares every pair ``i < j``; the comparison is observed with
    probability ``p`` (``a ~ Bern(p)``, Erdős–Rényi) and ``y ~ Bern(F(theta_i -
    theta_j))``, all independent. Users are i.i.d., so calling this repeatedly
    with chunk sizes that add up to ``L`` gives the law of ``L`` users (see
    :func:`iter_user_comparisons_b`).

    Parameters
    ----------
    theta : (m,) array_like
        True scores.
    L : int
        Number of users to draw.
    p : float
        Observation probability in (0, 1]; ``p = 1`` draws no mask.
    rng : numpy.random.Generator
    link : Link
        Comparison model ``F`` (BTL or THURSTONE).

    Returns
    -------
    y : (L, P) uint8
        Comparisons (``y`` is drawn for unobserved pairs too; mask with ``a``).
    a : (L, P) bool
        Observation mask.
    """
    theta = _check_users_b(theta, L, p, rng, link)
    iu, ju = np.triu_indices(theta.size, k=1)
    f = link.cdf(theta[iu] - theta[ju])
    y = (rng.random((int(L), iu.size)) < f).view(np.uint8)
    a = np.ones((int(L), iu.size), dtype=bool) if p == 1 else rng.random((int(L), iu.size)) < p
    return y, a


def _check_users_b(theta, L, p, rng, link) -> np.ndarray:
    """The argument checks of :func:`sample_user_comparisons_b`; ``theta`` as float64."""
    theta = np.asarray(_checks.finite(theta, "theta", ndim=1), dtype=np.float64)
    if not 0 < _checks.real(p, "p") <= 1:
        raise ValueError(f"observation probability p must be in (0, 1], got {p}")
    if not isinstance(L, (int, np.integer, float, np.floating)) or isinstance(L, bool):
        raise TypeError(f"L (users) must be an integer >= 0, got {L!r}")
    if not np.isfinite(L) or int(L) != L or L < 0:
        raise ValueError(f"L (users) must be an integer >= 0, got {L!r}")
    _checks.rng(rng)
    _checks.link(link)
    return theta


def iter_user_comparisons_b(
    theta,
    L: int,
    p: float,
    rng: np.random.Generator,
    link: Link = BTL,
    chunk_size: int = DEFAULT_CHUNK_USERS,
) -> Iterator[tuple[slice, np.ndarray, np.ndarray]]:
    """Yield ``(users, y, a)`` for consecutive chunks of at most ``chunk_size`` users.

    ``users`` is the slice of user indices of the chunk (index per-user arrays
    such as ``eps`` and the ADRR weights with it); ``y, a`` are as in
    :func:`sample_user_comparisons_b`. Memory is ``O(chunk_size * P)``.
    """
    _checks.count(chunk_size, "chunk_size", 1)
    _check_users_b(theta, L, p, rng, link)  # at the call, not at the first chunk
    return _iter_user_comparisons_b(theta, L, p, rng, link, chunk_size)


def _iter_user_comparisons_b(theta, L, p, rng, link, chunk_size):
    for start in range(0, int(L), chunk_size):
        stop = min(int(L), start + chunk_size)
        y, a = sample_user_comparisons_b(theta, stop - start, p, rng, link)
        yield slice(start, stop), y, a


# ---------------------------------------------------------------------------
# sufficient statistics


def add_sufficient_statistics(S: np.ndarray, N: np.ndarray, z, a, weights) -> None:
    """Add one chunk of users to the running totals ``S`` and ``N`` (in place).

    ``S_ij += sum_l a_ij^(l) w_l z_ij^(l)`` and ``N_ij += sum_l a_ij^(l) w_l``
    (docs/papers/paper-b.md#s1-3), the sufficient statistics of B2 objective (5).

    Parameters
    ----------
    S, N : (P,) float64 arrays
        Running totals, updated in place.
    z : (n, P) array_like
        Per-user values: debiased ``z~`` (ADRR), raw ``y~`` (classic RR /
        Laplace plug-in) or raw ``y`` (non-private, NoisyObj counts).
    a : (n, P) bool array_like
        Observation mask.
    weights : float or (n,) array_like
        Per-user weights ``w_l`` of this chunk (ADRR: the slice of the weights
        normalised over *all* users; plug-ins: ``1/L``; counts: 1).
    """
    z = _checks.array(z, "z", ndim=(1, 2))
    a = _mask(a)
    if z.shape != a.shape:
        raise ValueError(f"z and a must have the same shape, got {z.shape} and {a.shape}")
    if z.dtype.kind == "f":
        bad = ~np.isfinite(z)  # one byte per entry; unobserved entries may hold anything
        if bad.any() and (bad & a).any():
            raise ValueError("z must be finite where observed (it holds NaN or inf)")
    _running_totals(S, N, z.shape[-1], "z")
    _weights(weights, 1 if z.ndim == 1 else z.shape[0])
    if z.ndim == 1:
        z, a = z[None, :], a[None, :]
    if z.shape != a.shape or z.shape[1:] != S.shape or N.shape != S.shape:
        raise ValueError(f"shape mismatch: z {z.shape}, a {a.shape}, S {S.shape}, N {N.shape}")
    w = np.broadcast_to(np.asarray(weights, dtype=np.float64), (z.shape[0],))
    a8 = a.view(np.uint8)
    if z.dtype in (np.bool_, np.uint8):
        # RR outputs, raw comparisons: no float temporaries
        S += np.einsum("l,lp->p", w, np.multiply(z.view(np.uint8), a8))
    else:
        S += np.einsum("l,lp->p", w, np.where(a, z, 0.0))
    N += np.einsum("l,lp->p", w, a8)


def add_rr_statistics(S: np.ndarray, N: np.ndarray, y_tilde, a, eps, weights) -> None:
    """Add one chunk's debiased, weighted RR outputs to ``S`` and ``N`` (in place).

    Same result as ``add_sufficient_statistics(S, N, debias(y_tilde, eps), a,
    weights)`` (ADRR, B2 eq. (3)-(4)) without the float ``(n, P)`` temporary:
    ``z~ = (y~ - p_l) / (1 - 2 p_l)`` is linear in ``y~``, so
    ``S += sum_l c_l a y~ - sum_l c_l p_l a`` with ``c_l = w_l / (1 - 2 p_l)``.

    Parameters
    ----------
    S, N : (P,) float64 arrays
    y_tilde : (n, P) uint8 or bool
        RR outputs of the chunk.
    a : (n, P) bool
    eps : float or (n,) array_like
        Budgets of the chunk's users.
    weights : float or (n,) array_like
        ADRR weights of the chunk's users (normalised over all users).
    """
    yt = np.atleast_2d(binary(_checks.array(y_tilde, "y_tilde", ndim=(1, 2)), "y_tilde"))
    a = np.atleast_2d(_mask(a))
    if yt.shape != a.shape:
        raise ValueError(f"y_tilde and a must have the same shape, got {yt.shape} and {a.shape}")
    _running_totals(S, N, yt.shape[-1], "y_tilde")
    _eps_array(eps)
    _weights(weights, yt.shape[0])
    if yt.shape != a.shape or yt.shape[1:] != S.shape or N.shape != S.shape:
        raise ValueError(f"shape mismatch: y {yt.shape}, a {a.shape}, S {S.shape}, N {N.shape}")
    n = yt.shape[0]
    pe = np.broadcast_to(np.asarray(rr_flip_probability(eps), dtype=np.float64), (n,))
    w = np.broadcast_to(np.asarray(weights, dtype=np.float64), (n,))
    a8 = a.view(np.uint8)
    ones = np.multiply(yt.astype(np.uint8, copy=False), a8)
    _rr_sums(S, N, _sum_over_users, ones, a8, pe, w)


def _sum_over_users(coef: np.ndarray, values: np.ndarray) -> np.ndarray:
    """``sum_l coef_l values_lp`` per pair ``p`` (the dense ``(users, pairs)`` layout)."""
    return np.einsum("l,lp->p", coef, values)


def _rr_sums(S, N, reduce, ones, observed, pe, w) -> None:
    """The ADRR statistics, B2 eq. (3)-(5): the one formula of both layouts (in place).

    The debiased output ``z~ = (y~ - p) / (1 - 2 p)`` is linear in ``y~``, so
    ``S += sum c y~ a - sum c p a`` and ``N += sum w a`` with ``c = w / (1 - 2 p)``;
    ``reduce(coef, values)`` sums ``coef * values`` into the pairs: over the users
    of a dense chunk (:func:`add_rr_statistics`) or over the records of an edge
    list (:func:`add_rr_records`, the registry's ``local_adrr`` and
    ``local_debiased_rr``). ``ones`` counts the outputs 1 (``y~ a``),
    ``observed`` the comparisons (``a``), ``pe`` and ``w`` are the flip
    probabilities and weights of the rows.
    """
    c = w / (1.0 - 2.0 * pe)
    S += reduce(c, ones)
    S -= reduce(c * pe, observed)
    N += reduce(w, observed)


def add_rr_records(S, N, pairs, y_tilde, count, eps, weights) -> None:
    """:func:`add_rr_statistics` on records: row ``r`` is pair ``pairs[r]`` seen ``count[r]`` times.

    ``y_tilde[r]`` is the (mean) released outcome for the pair's first item,
    ``eps[r]`` and ``weights[r]`` its user's budget and weight; ``S`` and ``N``
    hold one entry per pair index. Same formula (:func:`_rr_sums`), summed by
    ``numpy.bincount`` in record order.
    """
    P = S.shape[0]
    count = np.asarray(count, dtype=np.float64)

    def reduce(coef: np.ndarray, values: np.ndarray) -> np.ndarray:
        return np.bincount(pairs, coef * values, minlength=P)

    pe = np.asarray(rr_flip_probability(eps), dtype=np.float64)
    w = np.asarray(weights, dtype=np.float64)
    _rr_sums(S, N, reduce, np.asarray(y_tilde, dtype=np.float64) * count, count, pe, w)


def sufficient_statistics(z, a, weights) -> tuple[np.ndarray, np.ndarray]:
    """``(S, N)`` per pair from one block of users; see :func:`add_sufficient_statistics`."""
    P = _checks.array(z, "z", ndim=(1, 2), min_size=1).shape[-1]
    S, N = np.zeros(P), np.zeros(P)
    add_sufficient_statistics(S, N, z, a, weights)
    return S, N


# ---------------------------------------------------------------------------
# count method


def count_scores_from_pair_counts(ones, n_obs, m: int | None = None) -> np.ndarray:
    """Wins per item from per-pair counts (docs/papers/paper-b.md#s1-4).

    ``ones[k]`` = number of observed outputs equal to 1 for pair ``k = (i, j)``,
    ``i < j`` (item ``i`` won), ``n_obs[k]`` = number observed. Item ``i``
    collects ``ones`` for ``j > i`` and ``n_obs - ones`` for ``j < i``.
    """
    ones = np.asarray(_checks.finite(ones, "ones", ndim=1), dtype=np.float64)
    n_obs = np.asarray(_checks.finite(n_obs, "n_obs", ndim=1), dtype=np.float64)
    if n_obs.shape != ones.shape:
        raise ValueError(
            f"ones and n_obs must have the same shape, got {ones.shape}, {n_obs.shape}"
        )
    if np.any(n_obs < 0) or np.any(ones < 0) or np.any(ones > n_obs):
        raise ValueError("ones and n_obs must be counts with 0 <= ones <= n_obs")
    m = n_items_from_pairs(ones.size) if m is None else _pairs_of(m, ones.size)
    iu, ju = np.triu_indices(m, k=1)
    return np.bincount(iu, ones, m) + np.bincount(ju, n_obs - ones, m)


def _pairs_of(m, n_pairs: int) -> int:
    """``m`` after checking that ``m`` items have ``n_pairs`` pairs."""
    m = _checks.count(m, "m", 1)
    if m * (m - 1) // 2 != n_pairs:
        raise ValueError(f"m = {m} items have {m * (m - 1) // 2} pairs, the data hold {n_pairs}")
    return m


def count_scores(y_tilde, a, m: int | None = None) -> np.ndarray:
    """Count-method scores ``S~_i = sum_{j != i} sum_l a_ij^(l) y~_ij^(l)`` (B2 section 5.1).

    Classic-RR outputs, no debiasing. For ``j > i`` the stored ``y~_ij`` counts;
    for ``j < i`` item ``i`` wins when ``y~_ji = 0``, so ``1 - y~_ji`` counts
    (docs/papers/paper-b.md#s1-4). ``y_tilde`` and ``a`` are ``(L, P)`` (or ``(P,)``) arrays; for
    chunked data accumulate ``ones``/``n_obs`` and use
    :func:`count_scores_from_pair_counts`.
    """
    yt = _checks.array(y_tilde, "y_tilde", min_size=1)
    a = _mask(a)
    if a.shape != yt.shape:
        raise ValueError(f"y_tilde and a must have the same shape, got {yt.shape} and {a.shape}")
    observed = binary(np.where(a, yt, 0), "y_tilde (observed entries)")
    ones = observed.reshape(-1, yt.shape[-1]).sum(axis=0)
    n_obs = a.reshape(-1, a.shape[-1]).sum(axis=0)
    return count_scores_from_pair_counts(ones, n_obs, m)


def count_ranking(scores, rng: np.random.Generator) -> np.ndarray:
    """Ranks by decreasing score, ties broken uniformly at random (paper-b.md#s1-4, #a12).

    Returns
    -------
    numpy.ndarray
        ``sigma`` with ``sigma[i]`` the rank of item ``i`` (1 = best), int64.
    """
    scores = no_nan(np.asarray(_checks.array(scores, "scores", ndim=1), np.float64), "scores")
    _checks.rng(rng, noise_source=True)
    order = np.lexsort((rng.random(scores.size), -scores))
    ranks = np.empty(scores.size, dtype=np.int64)
    ranks[order] = np.arange(1, scores.size + 1)
    return ranks


# ---------------------------------------------------------------------------
# equal budgets: sample the per-pair counts directly


@dataclass(frozen=True)
class RRPairCounts:
    """Per-pair counts of ``L`` users sharing one budget ``eps`` (classic RR).

    Attributes
    ----------
    L : int
    eps : float
    n_obs : (P,) int64
        ``sum_l a_ij^(l)``, observed comparisons.
    wins : (P,) int64
        ``sum_l a_ij^(l) y_ij^(l)``, raw wins of the first item.
    released_wins : (P,) int64
        ``sum_l a_ij^(l) y~_ij^(l)``, ones among the RR outputs.
    """

    L: int
    eps: float
    n_obs: np.ndarray
    wins: np.ndarray
    released_wins: np.ndarray

    def adrr_statistics(self) -> tuple[np.ndarray, np.ndarray]:
        """``(S, N)`` of ADRR; with one budget ``w_l = 1/L`` (= B1's debiased RR mean).

        ``S = (1/L) sum_l a z~ = ((e^eps+1) k~ - n) / ((e^eps-1) L)`` with ``k~`` the
        released ones and ``n`` the observed count (B2 eq. (3)-(4)).
        """
        pe = rr_flip_probability(self.eps)
        S = (self.released_wins - pe * self.n_obs) / ((1.0 - 2.0 * pe) * self.L)
        return S, self.n_obs / self.L

    def classic_rr_statistics(self) -> tuple[np.ndarray, np.ndarray]:
        """``(S, N)`` of the classic-RR plug-in (raw ``y~``, ``w_l = 1/L``; paper-b.md#s1-4)."""
        return self.released_wins / self.L, self.n_obs / self.L

    def nonprivate_statistics(self) -> tuple[np.ndarray, np.ndarray]:
        """``(S, N)`` of the raw comparisons with ``w_l = 1/L``."""
        return self.wins / self.L, self.n_obs / self.L

    def count_scores(self, m: int | None = None) -> np.ndarray:
        """Count-method scores of the RR outputs (:func:`count_scores`)."""
        return count_scores_from_pair_counts(self.released_wins, self.n_obs, m)


def sample_rr_statistics_equal_eps(
    theta, L: int, p: float, eps: float, rng: np.random.Generator, link: Link = BTL
) -> RRPairCounts:
    """Per-pair counts of ``L`` users with one common budget, without per-comparison draws.

    Same law as :func:`sample_user_comparisons_b` followed by
    :func:`randomized_response` with a scalar ``eps`` and summation over users.
    Reason: for a fixed pair the users' triples ``(a, y, y~)`` are i.i.d. and
    the pairs are independent, so (multinomial thinning)

    * ``n = sum_l a ~ Bin(L, p)``;
    * given ``n``, the raw wins ``k = sum_l a y ~ Bin(n, F(theta_i - theta_j))``;
    * given ``(n, k)``, the RR outputs keep each 1 w.p. ``1 - p_eps`` and turn
      each 0 into 1 w.p. ``p_eps``: ``k~ = Bin(k, 1 - p_eps) + Bin(n - k, p_eps)``.

    With equal weights ``w_l = 1/L`` the ADRR, classic-RR, non-private and count
    statistics are functions of ``(n, k, k~)`` (see :class:`RRPairCounts`), so
    this is exact, at ``O(m^2)`` cost instead of ``O(m^2 L)``. (The Laplace
    release is not a function of these counts and needs per-comparison draws.)

    Parameters
    ----------
    theta : (m,) array_like
    L : int
    p : float
        Observation probability in (0, 1].
    eps : float
        Common budget (``inf`` = no flips).
    rng : numpy.random.Generator
    link : Link

    Returns
    -------
    RRPairCounts
    """
    theta = np.asarray(_checks.finite(theta, "theta", ndim=1), dtype=np.float64)
    if not 0 < _checks.real(p, "p") <= 1:
        raise ValueError(f"observation probability p must be in (0, 1], got {p}")
    if np.ndim(eps) != 0:
        raise ValueError("sample_rr_statistics_equal_eps needs one scalar eps")
    _checks.count(L, "L")
    _checks.rng(rng)
    _checks.link(link)
    pe = rr_flip_probability(eps)
    iu, ju = np.triu_indices(theta.size, k=1)
    f = link.cdf(theta[iu] - theta[ju])
    n = np.full(iu.size, int(L), dtype=np.int64) if p == 1 else rng.binomial(int(L), p, iu.size)
    k = rng.binomial(n, f)
    k_rel = rng.binomial(k, 1.0 - pe) + rng.binomial(n - k, pe)
    return RRPairCounts(
        L=int(L), eps=float(eps), n_obs=n, wins=k.astype(np.int64), released_wins=k_rel
    )


# ---------------------------------------------------------------------------
# several releases of one simulated data set


@dataclass(frozen=True)
class LDPStatistics:
    """Per-pair statistics of several releases of the same raw data (paper-b.md#s1-3, #s1-4).

    Every ``(S, N)`` pair is ready for :func:`dprank.fit.weighted_mle.fit_weighted_mle`;
    entries not requested are ``None``.

    Attributes
    ----------
    adrr : (S, N)
        ADRR (debias + weights normalised over all users; B2 eq. (3)-(5)).
    classic_rr : (S, N)
        Raw RR outputs, ``w_l = 1/L`` (docs/papers/paper-b.md#s1-4).
    laplace : (S, N)
        Laplace outputs, ``w_l = 1/L`` (docs/papers/paper-b.md#s1-4).
    raw : (S, N)
        Raw comparisons, ``w_l = 1``: integer win and observation counts per
        pair (NoisyObj's input, non-private fits after division by ``L``).
    count_scores : (m,)
        Count-method scores of the same RR outputs.
    """

    adrr: tuple[np.ndarray, np.ndarray] | None
    classic_rr: tuple[np.ndarray, np.ndarray] | None
    laplace: tuple[np.ndarray, np.ndarray] | None
    raw: tuple[np.ndarray, np.ndarray] | None
    count_scores: np.ndarray | None


_RELEASES = ("adrr", "classic_rr", "laplace", "raw", "count")


def simulate_ldp_statistics(
    theta,
    eps,
    p: float,
    rng: np.random.Generator,
    *,
    link: Link = BTL,
    releases: tuple[str, ...] = ("adrr",),
    chunk_size: int = DEFAULT_CHUNK_USERS,
) -> LDPStatistics:
    """Simulate ``L = len(eps)`` users and release their data, chunk by chunk.

    Per chunk: draw ``(y, a)`` (:func:`sample_user_comparisons_b`); if any RR
    release is requested draw one RR output per comparison (shared by ADRR,
    classic RR and the count method, so the methods are paired); if
    ``"laplace"`` is requested draw the Laplace noise. Memory is
    ``O(chunk_size * P)``; the random stream depends on ``releases`` and
    ``chunk_size``.

    Parameters
    ----------
    theta : (m,) array_like
    eps : (L,) array_like
        Per-user budgets.
    p : float
        Observation probability.
    rng : numpy.random.Generator
    link : Link
    releases : tuple of str
        Any of ``"adrr"``, ``"classic_rr"``, ``"laplace"``, ``"raw"``, ``"count"``.
    chunk_size : int

    Returns
    -------
    LDPStatistics
    """
    if isinstance(releases, str) or not isinstance(releases, (tuple, list, set, frozenset)):
        raise TypeError(f"releases must be a tuple of names from {_RELEASES}, got {releases!r}")
    bad = set(releases) - set(_RELEASES)
    if bad:
        raise ValueError(f"unknown releases {sorted(bad)}; known: {_RELEASES}")
    eps = np.atleast_1d(_eps_array(eps))
    _checks.count(chunk_size, "chunk_size", 1)
    _check_users_b(theta, 0, p, rng, link)
    L = eps.size
    P = np.asarray(theta).size * (np.asarray(theta).size - 1) // 2
    want = set(releases)
    use_rr = bool(want & {"adrr", "classic_rr", "count"})
    w_adrr = adrr_weights(eps)
    acc = {r: (np.zeros(P), np.zeros(P)) for r in want}
    for users, y, a in iter_user_comparisons_b(theta, L, p, rng, link, chunk_size):
        if use_rr:
            yt = randomized_response(y, eps[users], rng)
            if "adrr" in want:
                add_rr_statistics(*acc["adrr"], yt, a, eps[users], w_adrr[users])
            if "classic_rr" in want:
                add_sufficient_statistics(*acc["classic_rr"], yt, a, 1.0 / L)
            if "count" in want:
                add_sufficient_statistics(*acc["count"], yt, a, 1.0)
        if "laplace" in want:
            add_sufficient_statistics(
                *acc["laplace"], laplace_release(y, eps[users], rng), a, 1.0 / L
            )
        if "raw" in want:
            add_sufficient_statistics(*acc["raw"], y, a, 1.0)
    scores = None
    if "count" in want:
        ones, n_obs = acc["count"]
        scores = count_scores_from_pair_counts(np.rint(ones), np.rint(n_obs))
    return LDPStatistics(
        adrr=acc.get("adrr"),
        classic_rr=acc.get("classic_rr"),
        laplace=acc.get("laplace"),
        raw=acc.get("raw"),
        count_scores=scores,
    )
