"""Latent scores and comparison data, generated vectorised.

Comparison data are kept as their sufficient statistic, the win matrix
``wins`` with ``wins[i, j]`` = number of comparisons item ``i`` won against
item ``j``; ``wins + wins.T`` counts the comparisons of each pair.
"""

from __future__ import annotations

import numpy as np

from ..base import _checks
from ..base._checks import count
from .models import BTL, Link

__all__ = [
    "pair_from_index",
    "sample_er_comparisons",
    "sample_er_comparisons_sparse",
    "sample_user_comparisons",
    "theta_paper_a_edge",
    "theta_paper_a_individual",
    "top_k_size",
    "top_k_size_individual",
]


def _finite_theta(theta, ndim=1) -> np.ndarray:
    theta = _checks.finite(theta, "theta", ndim=ndim)
    return np.asarray(theta, dtype=float)


def top_k_size(n: int) -> int:
    """``k = round(n/4)`` with round-half-even, as R and Python round (Paper A, section 4.1)."""
    return round(count(n, "n", 1) / 4)


def theta_paper_a_edge(n: int, rng: np.random.Generator) -> np.ndarray:
    """Latent scores of Paper A, section 4.1 (edge DP), centred.

    ``exp(theta_i) ~ Unif(0.2, 0.7)`` for the first ``n - k`` items and
    ``exp(theta_i) = 1`` for the last ``k = round(n/4)`` items (the authors'
    code puts the top items last; docs/papers/paper-a.md#s1), then centred to
    sum zero. The true top-k set is therefore ``{n-k, ..., n-1}``.
    """
    k = top_k_size(count(n, "n", 1))
    _checks.rng(rng)
    raw = np.log(np.concatenate([rng.uniform(0.2, 0.7, size=n - k), np.ones(k)]))
    return raw - raw.mean()


def sample_er_comparisons(
    theta: np.ndarray, p: float, rng: np.random.Generator, link: Link = BTL
) -> np.ndarray:
    """One comparison per pair of an Erdos-Renyi graph G(n, p).

    Each pair ``i < j`` is compared with probability ``p``; if compared,
    ``i`` beats ``j`` with probability ``F(theta_i - theta_j)`` (Paper A,
    section 2.1). Two uniform vectors over the upper triangle, in row-major
    pair order, decide inclusion and outcome.

    Returns
    -------
    numpy.ndarray
        ``(n, n)`` uint8 win matrix (0/1 entries, zero diagonal).
    """
    theta = _finite_theta(theta)
    if not 0 <= _checks.real(p, "p") <= 1:
        raise ValueError(f"the edge probability p must be in [0, 1], got {p!r}")
    _checks.rng(rng)
    _checks.link(link)
    n = theta.size
    iu, ju = np.triu_indices(n, k=1)
    included = rng.random(iu.size) < p
    i_wins = rng.random(iu.size) < link.cdf(theta[iu] - theta[ju])
    wins = np.zeros((n, n), dtype=np.uint8)
    wins[iu, ju] = included & i_wins
    wins[ju, iu] = included & ~i_wins
    return wins


def pair_from_index(k, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Pairs ``(i, j)``, ``i < j``, at positions ``k`` of ``numpy.triu_indices(n, 1)``.

    Exact integer arithmetic after a floating-point guess of the row.
    """
    n = count(n, "n")
    k = _checks.array(k, "k")
    n_pairs = n * (n - 1) // 2
    if k.size and (k.dtype.kind == "f" and not np.all(k == np.round(k))):
        raise ValueError("k must hold integer pair positions")
    if k.size and (k.min() < 0 or k.max() >= n_pairs):
        raise ValueError(f"k must hold pair positions in 0..{n_pairs - 1} for n = {n} items")
    k = np.asarray(k, dtype=np.int64)
    # rows start at s(i) = i (2n - i - 1) / 2
    disc = (2.0 * n - 1.0) ** 2 - 8.0 * k.astype(np.float64)
    i = np.floor(((2.0 * n - 1.0) - np.sqrt(np.maximum(disc, 0.0))) / 2.0).astype(np.int64)
    i = np.clip(i, 0, n - 2)

    def start(r):
        return r * (2 * n - r - 1) // 2

    for _ in range(2):  # correct the rare off-by-one of the float guess
        i = np.where(start(i) > k, i - 1, i)
        i = np.where(start(i + 1) <= k, i + 1, i)
    j = k - start(i) + i + 1
    return i, j


def sample_er_comparisons_sparse(
    theta: np.ndarray, p: float, rng: np.random.Generator, link: Link = BTL
):
    """One comparison per pair of an Erdos-Renyi graph G(n, p), as an edge list.

    Same law as :func:`sample_er_comparisons` (each pair ``i < j`` compared
    independently with probability ``p``; ``i`` beats ``j`` with probability
    ``F(theta_i - theta_j)``, Paper A section 2.1), drawn in memory
    ``O(n + m)``: the number of observed pairs ``M ~ Binomial(n(n-1)/2, p)``,
    then ``M`` distinct pairs uniformly without replacement, then the
    outcomes. Different draws from :func:`sample_er_comparisons` for the same
    generator: the papers' workflow keeps that one; this one is for large ``n``.

    Returns
    -------
    dprank.data.comparisons.Comparisons
        Records ``(i, j, y)`` with ``i < j`` sorted by pair, ``y = 1`` when ``i`` won.
    """
    from .comparisons import Comparisons

    theta = _finite_theta(theta)
    _checks.probability(p, "p")
    _checks.rng(rng)
    _checks.link(link)
    n = theta.size
    n_pairs = n * (n - 1) // 2
    m = int(rng.binomial(n_pairs, p)) if n_pairs else 0
    k = np.sort(rng.choice(n_pairs, size=m, replace=False)) if m else np.zeros(0, np.int64)
    i, j = pair_from_index(k, n)
    y = (rng.random(m) < link.cdf(theta[i] - theta[j])).astype(np.float64)
    return Comparisons(n_items=n, i=i, j=j, y=y, count=np.ones(m))


def top_k_size_individual(n: int) -> int:
    """``k = n // 4`` of the individual-DP experiments (the authors' Python code)."""
    return count(n, "n", 1) // 4


def theta_paper_a_individual(n: int, rng: np.random.Generator) -> np.ndarray:
    """Latent scores of Paper A's individual-DP experiments (section 4.2), not centred.

    ``theta = (0, ..., 0, log U_1, ..., log U_{n-k})`` with ``k = n // 4`` and
    ``U_i ~ Unif(0.2, 0.7)``: the top-k items are the first ``k``
    (docs/papers/paper-a.md#s2-1; the authors' code does not centre it).
    """
    k = top_k_size_individual(count(n, "n", 1))
    _checks.rng(rng)
    return np.concatenate([np.zeros(k), np.log(rng.uniform(0.2, 0.7, size=n - k))])


def sample_user_comparisons(
    theta: np.ndarray, m: int, L: int, rng: np.random.Generator, link: Link = BTL
) -> np.ndarray:
    """Aggregated win counts of ``m`` users who each compare ``L`` random pairs.

    Every user draws ``L`` pairs uniformly, with replacement, from the
    ``n (n - 1) / 2`` unordered pairs, and item ``i`` beats ``j`` with
    probability ``F(theta_i - theta_j)`` (Paper A section 3, docs/papers/paper-a.md#s2-1).
    The estimators only see the aggregated counts ``W[i, j]``, whose law is
    sampled directly: the ``m L`` pair draws are one multinomial vector and the
    wins of each pair a binomial given its count (no per-comparison loop).

    Parameters
    ----------
    theta : (n,) or (R, n) array_like
        True scores; a 2-D array gives ``R`` independent data sets.

    Returns
    -------
    numpy.ndarray
        ``(n, n)`` (or ``(R, n, n)``) int64 win counts.
    """
    theta = _finite_theta(theta, ndim=(1, 2))
    _checks.rng(rng)
    _checks.link(link)
    single = theta.ndim == 1
    theta = np.atleast_2d(theta)
    n_rep, n = theta.shape
    if n < 2:
        raise ValueError(f"users compare pairs: theta needs at least 2 items, got {n}")
    m, L = count(m, "m"), count(L, "L")
    iu, ju = np.triu_indices(n, k=1)
    counts = rng.multinomial(m * L, np.full(iu.size, 1.0 / iu.size), size=n_rep)
    i_wins = rng.binomial(counts, link.cdf(theta[:, iu] - theta[:, ju]))
    wins = np.zeros((n_rep, n, n), dtype=np.int64)
    wins[:, iu, ju] = i_wins
    wins[:, ju, iu] = counts - i_wins
    return wins[0] if single else wins
