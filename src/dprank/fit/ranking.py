"""Top-k selection with explicit tie-breaking, and noisy Copeland counts.

Ties matter in the Paper A figures only where scores are integers (counting
without noise at epsilon = infinity). Two rules are provided:

* ``"stable"``: ties go to the lower index, as R's ``order(decreasing=TRUE)``
  in the authors' code (docs/papers/paper-a.md#s1-2 and #a9);
* random keys: ties are broken by independent uniform keys, the noise-free
  limit of Algorithm 2 (used by the ``paper`` protocol).
"""

from __future__ import annotations

import numpy as np

from ..base import _checks
from ..base._checks import no_nan

__all__ = ["copeland_counts", "noisy_counts", "top_k", "top_k_batch"]


def top_k(scores: np.ndarray, k: int, tie_keys: np.ndarray | None = None) -> np.ndarray:
    """Indices of the ``k`` largest scores, sorted ascending.

    Parameters
    ----------
    scores : (n,) array_like
    k : int
    tie_keys : (n,) array_like, optional
        Secondary sort keys for ties (smaller key wins). ``None`` means the
        stable rule: ties go to the lower index.
    """
    scores = np.asarray(_checks.array(scores, "scores", ndim=1), dtype=float)
    _k_in_range(k, scores.size)
    no_nan(scores, "scores")  # NaN has no place in an order
    k = int(k)
    if tie_keys is None:
        order = np.argsort(-scores, kind="stable")
    else:
        tie_keys = no_nan(_checks.array(tie_keys, "tie_keys"), "tie_keys")
        _checks.same_shape(tie_keys, scores, "tie_keys and scores")
        order = np.lexsort((tie_keys, -scores))
    return np.sort(order[:k])


def _k_in_range(k, n: int) -> None:
    if not isinstance(k, (int, np.integer, float, np.floating)):
        raise TypeError(f"k must be an integer in 1..{n}, got {type(k).__name__} {k!r}")
    if isinstance(k, (bool, np.bool_)) or int(k) != k or not 0 < k <= n:
        raise ValueError(f"k must be an integer in 1..{n}, got {k!r}")


def top_k_batch(scores: np.ndarray, k: int, tie_keys: np.ndarray | None = None) -> np.ndarray:
    """:func:`top_k` along the last axis of ``scores`` (any leading shape)."""
    scores = np.asarray(_checks.array(scores, "scores", min_size=1), dtype=float)
    _k_in_range(k, scores.shape[-1])
    k = int(k)
    if tie_keys is not None:
        _checks.same_shape(_checks.array(tie_keys, "tie_keys"), scores, "tie_keys and scores")
    flat = scores.reshape(-1, scores.shape[-1])
    keys = None if tie_keys is None else np.asarray(tie_keys).reshape(flat.shape)
    out = np.empty((flat.shape[0], k), dtype=np.int64)
    for r in range(flat.shape[0]):
        out[r] = top_k(flat[r], k, None if keys is None else keys[r])
    return out.reshape((*scores.shape[:-1], k))


def copeland_counts(wins) -> np.ndarray:
    """Number of comparisons won by each item, ``N_i`` of Algorithm 2.

    ``wins`` is a win matrix (``(..., n, n)``) or a
    :class:`dprank.data.comparisons.Comparisons` (count-weighted outcomes, ``O(m)``).
    """
    from ..data.comparisons import Comparisons

    if isinstance(wins, Comparisons):
        ps = wins.pair_statistics()
        cnt, won = ps.stored_counts()  # int32 where whole: the same doubles as weights
        n = wins.n_items
        return np.bincount(ps.a, won, n) + np.bincount(ps.b, cnt - won, n)
    return _checks.win_matrix(wins, batch=True).sum(axis=-1).astype(np.float64)


def noisy_counts(wins, noise: np.ndarray) -> np.ndarray:
    """The release of Algorithm 2: ``N_i + W_i`` with ``W ~ Laplace(2/eps)`` given as ``noise``.

    ``noise`` must already be scaled (see :func:`dprank.privacy.mechanisms.edge_count_noise_scale`);
    its last axis holds the items (length ``n``), its leading axes broadcast against
    those of ``wins``.
    The ``l1`` sensitivity of ``N`` over edge-adjacent data sets is 2, so
    ``Laplace(2/eps)`` noise makes the release ``eps``-DP (Paper A, section 2.3).
    """
    counts = copeland_counts(wins)
    noise = no_nan(np.asarray(_checks.array(noise, "noise"), dtype=np.float64), "noise")
    _checks.same_items(noise, counts, "noise and the counts of wins")
    return counts + noise
