"""Releases of a user's comparisons: declared contribution bounds and the local-DP release.

Two steps that every release of real data takes before or instead of a fit
(:func:`dprank.rank`, ``dprank rank``, ``dprank privatize``):

* :func:`bound_user_contributions`: individual DP calibrates its noise to a
  *declared* bound ``L`` on the comparisons of one user, never to the most
  comparisons any user made (which would let one heavy user move the noise scale
  and so reveal themselves). A user with more than ``L`` comparisons keeps ``L``
  of them, chosen uniformly at random from the noise source, as OpenDP and
  Tumult Analytics bound contributions.
* :func:`local_release`: each comparison released with local DP (randomized
  response, or the outcome plus exact Laplace noise), every flip independent,
  oriented and ordered canonically (by item index, which follows the sorted item
  labels, then user, then released outcome) so that neither a row's position nor
  its orientation says anything about the true outcome.
"""

from __future__ import annotations

import numpy as np

from ..base import _checks
from ..data.comparisons import Comparisons
from .noise import NoiseSource

__all__ = ["bound_user_contributions", "local_release"]


def _integer_counts(c: Comparisons) -> np.ndarray:
    count = np.rint(c.count)
    if not np.array_equal(count, c.count):
        k = int(np.flatnonzero(count != c.count)[0])
        raise ValueError(
            f"count[{k}] = {c.count[k]} is not a whole number: a release needs integer counts"
        )
    return count.astype(np.int64)


def _check_arguments(comparisons, noise) -> Comparisons:
    """``comparisons`` after checking that it is a Comparisons and ``noise`` a NoiseSource."""
    if not isinstance(comparisons, Comparisons):
        raise TypeError(
            "comparisons must be a dprank.data.comparisons.Comparisons "
            f"(dprank.data.inputs.read_comparisons), got {type(comparisons).__name__}"
        )
    if not isinstance(noise, NoiseSource):
        raise TypeError(
            "noise must be a dprank.privacy.noise.NoiseSource "
            "(dprank.privacy.noise.as_noise_source(seed)), "
            f"got {type(noise).__name__}"
        )
    return comparisons


def bound_user_contributions(
    comparisons: Comparisons, max_per_user: int, noise: NoiseSource
) -> tuple[Comparisons, int]:
    """Keep at most ``max_per_user`` comparisons of each user, a random subset.

    The subset is uniform among the user's comparisons when no record's count
    exceeds ``L``; a record with a larger count enters the draw ``L`` times
    (no more of it can be kept), so the memory stays ``L`` per record whatever
    the counts: a user with a count of ``10^12`` is bounded like any other
    instead of exhausting the memory (a failure that would tell that user apart).
    Any such rule that looks at one user's comparisons alone keeps the release's
    guarantee.

    Parameters
    ----------
    comparisons : Comparisons
        With users and whole-number counts (a record with count ``c`` is ``c``
        comparisons).
    max_per_user : int
        The declared bound ``L`` (a positive integer).
    noise : NoiseSource
        Source of the random subset.

    Returns
    -------
    (Comparisons, int)
        The bounded comparisons (records whose count drops to 0 removed; users
        and labels kept) and the number of comparisons dropped.
    """
    c = _check_arguments(comparisons, noise)
    if isinstance(max_per_user, bool) or not isinstance(max_per_user, (int, np.integer)):
        raise TypeError(f"max_per_user must be a positive integer, got {max_per_user!r}")
    L = int(max_per_user)
    if L < 1:
        raise ValueError(f"max_per_user must be a positive integer, got {max_per_user!r}")
    if c.user is None:
        raise ValueError("bounding contributions needs the user of every comparison")
    count = _integer_counts(c)
    per_user = np.bincount(c.user, weights=count, minlength=c.n_users)
    if per_user.size == 0 or per_user.max() <= L:
        return c, 0
    record = np.repeat(np.arange(c.n_records), np.minimum(count, L))
    user = c.user[record]
    order = np.lexsort((noise.random_keys(record.size), user))
    user_sorted = user[order]
    first = np.searchsorted(user_sorted, user_sorted, side="left")
    kept = order[np.arange(order.size) - first < L]
    new_count = np.bincount(record[kept], minlength=c.n_records)
    keep = new_count > 0
    kept_count = new_count[keep].astype(np.float64)
    bounded = c.with_records(
        c.i[keep], c.j[keep], c.y[keep], kept_count, c.user[keep], c.user_epsilon, ties=c.ties
    )
    return bounded, int(count.sum() - new_count.sum())


def local_release(
    comparisons: Comparisons,
    user_epsilon,
    noise: NoiseSource,
    mechanism: str = "rr",
    *,
    aggregate: bool = False,
) -> Comparisons:
    """Each user's comparisons released with local DP at the user's budget (exact samplers).

    Every comparison (a record with count ``c`` is ``c`` comparisons) is
    oriented so that its first item has the smaller index, then released on its
    own: randomized response flips it independently with probability
    ``~1 / (e^eps_l + 1)`` (:meth:`NoiseSource.randomized_response`), or
    ``"laplace"`` adds exact ``Laplace(1 / eps_l)`` noise
    (:meth:`NoiseSource.laplace_mechanism`, sensitivity 1). Comparisons with ties
    (``c.ties``: three outcomes declared) are released by three-outcome randomized
    response (:meth:`NoiseSource.randomized_response3`; ``"rr"`` and ``"rr3"`` alike).
    Each comparison is ``eps_l``-LDP. The released records are sorted by user, first item, second
    item and released outcome; with ``aggregate`` identical released records are
    merged into one with a count (randomized response only).

    Parameters
    ----------
    comparisons : Comparisons
        Raw comparisons with users, 0/1 outcomes and whole-number counts.
    user_epsilon : (n_users,) array_like
        Each user's budget (positive, finite).
    noise : NoiseSource
    mechanism : {"rr", "rr3", "laplace"}
    aggregate : bool
        Merge identical released records (randomized response).

    Returns
    -------
    Comparisons
        The release, with ``user_epsilon`` set.
    """
    c = _check_arguments(comparisons, noise)
    _checks.flag(aggregate, "aggregate")
    if c.user is None:
        raise ValueError("a local release needs the user of every comparison")
    if mechanism not in ("rr", "rr3", "laplace"):
        raise ValueError(f"mechanism must be 'rr', 'rr3' or 'laplace', got {mechanism!r}")
    ties = c.ties or mechanism == "rr3"
    if ties and mechanism == "laplace":
        raise ValueError(
            "the Laplace release takes two outcomes; comparisons with ties are released "
            "by three-outcome randomized response (mechanism 'rr')"
        )
    eps_user = np.asarray(user_epsilon, dtype=np.float64)
    if eps_user.shape != (c.n_users,) or not np.all((eps_user > 0) & np.isfinite(eps_user)):
        raise ValueError(f"user_epsilon must hold {c.n_users} positive finite budgets")
    y = np.asarray(c.y)
    allowed = (y == 0) | (y == 1)
    if ties:
        allowed |= y == 0.5
    if y.size and not np.all(allowed):
        what = "outcomes 0, 1/2 (a tie) or 1" if ties else "0/1 outcomes"
        raise ValueError(f"a local release needs {what}")
    count = _integer_counts(c)
    record = np.repeat(np.arange(c.n_records), count)
    i, j, user = c.i[record], c.j[record], c.user[record]
    y = y[record]
    swap = i > j
    i, j = np.where(swap, j, i), np.where(swap, i, j)
    y = np.where(swap, 1.0 - y, y)
    eps = eps_user[user]
    if ties:
        code = np.rint(2.0 * y).astype(np.int8)  # 0, 1, 2: j won, a tie, i won
        y_out = noise.randomized_response3(code, eps).astype(np.float64) / 2.0
    elif mechanism == "rr":
        y_out = noise.randomized_response(y.astype(np.uint8), eps).astype(np.float64)
    else:
        y_out = np.empty(y.size)
        values, inverse = np.unique(eps, return_inverse=True)
        for k, e in enumerate(values):
            sel = inverse == k
            y_out[sel] = noise.laplace_mechanism(y[sel], 1.0, float(e))
    merge = aggregate and mechanism != "laplace"
    return canonical_records(
        c, i, j, y_out, np.ones(i.size), user, eps_user, merge=merge, ties=ties
    )


def canonical_records(
    c: Comparisons, i, j, y, count, user, user_epsilon, *, merge: bool, ties: bool = False
):
    """Oriented records in canonical order: sorted by user, pair and outcome (equal ones merged).

    ``i < j`` on every record is the caller's (the orientation turns the
    outcome with it); the records become a :class:`Comparisons` on the items,
    labels and users of ``c``, sorted by user, first item, second item and
    outcome, and with ``merge`` equal records are merged, their counts added.
    The canonical form of every local release (:func:`local_release`,
    :func:`dprank.methods.release_local`): a record's position says nothing
    about the true outcome. ``ties``: the release has three outcomes (votes with ties).
    """
    order = np.lexsort((y, j, i, user))
    i, j, y, count, user = i[order], j[order], y[order], count[order], user[order]
    if merge and i.size:
        new = np.ones(i.size, dtype=bool)
        new[1:] = (i[1:] != i[:-1]) | (j[1:] != j[:-1]) | (user[1:] != user[:-1])
        new[1:] |= y[1:] != y[:-1]
        start = np.flatnonzero(new)
        count = np.add.reduceat(count, start)
        i, j, y, user = i[start], j[start], y[start], user[start]
    return c.with_records(i, j, y, count, user, user_epsilon, ties=ties)
