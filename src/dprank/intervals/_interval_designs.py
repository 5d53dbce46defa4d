"""The public designs of :mod:`dprank.intervals`: what each privacy model treats as public.

:class:`EdgeDesign` (edge DP and non-private methods: the comparison graph),
:class:`UserDesign` (individual DP: ``n``, ``m``, ``L`` and a declared least per
user) and the private :class:`LocalDesign` (local DP: the users' release), each
able to list its comparisons per pair (``weights``) and to simulate comparisons
on it at given scores (``simulate``). Private: the public names live in
:mod:`dprank.intervals`.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.special

from ..data.comparisons import Comparisons, PairArrays
from ..data.models import Link
from ..data.simulate import pair_from_index
from ..privacy.ldp import adrr_weights


class IntervalError(ValueError):
    """The method, or the public inputs given, do not allow intervals."""


#: Candidate designs of individual DP between the declared least and largest totals.
USER_DESIGN_GRID = 3


@dataclass(frozen=True, eq=False)
class EdgeDesign(PairArrays):
    """The public design of edge DP: which pairs were compared, how often (no outcomes).

    Attributes
    ----------
    count : (P,) float64 array
        Comparisons of each pair.
    """

    count: np.ndarray

    @classmethod
    def from_comparisons(cls, comparisons: Comparisons) -> EdgeDesign:
        """The graph of ``comparisons``; their outcomes are dropped."""
        ps = comparisons.pair_statistics()
        return cls(comparisons.n_items, ps.a.copy(), ps.b.copy(), ps.n.copy())

    def weights(self, n_items: int):
        """``(a, b, N)``: pairs and comparisons per pair for the score equation."""
        return self.a, self.b, self.count

    def simulate(self, theta, link: Link, rng: np.random.Generator) -> Comparisons:
        """Comparisons on this design with outcomes drawn from ``link`` at ``theta``."""
        return _simulate_records(
            self.n_items, self.a, self.b, self.count, None, theta, link, rng, None
        )


@dataclass(frozen=True)
class UserDesign:
    """The public design of individual DP: ``n`` items, ``m`` users, at most ``L`` each.

    Which pairs a user compared, and how many, is private. ``min_per_user``
    declares the least number of comparisons of one user (default 1: every
    user in the data compared something); the intervals hold for every design
    whose total lies between ``m * min_per_user`` and ``m * L`` comparisons
    on pairs drawn uniformly (Paper A section 3), as far as the release is
    consistent with it (:func:`intervals`).
    """

    n_items: int
    n_users: int
    L: int
    min_per_user: int | None = None

    def __post_init__(self):
        for name in ("n_items", "n_users", "L"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
                raise IntervalError(f"UserDesign.{name} must be a positive integer, got {v!r}")
        if self.n_items < 2:
            raise IntervalError("UserDesign needs at least 2 items")
        lo = self.min_per_user
        if lo is not None and (
            isinstance(lo, bool) or not isinstance(lo, (int, np.integer)) or not 1 <= lo <= self.L
        ):
            raise IntervalError(
                f"UserDesign.min_per_user must be an integer between 1 and L = {self.L}, got {lo!r}"
            )

    def totals(self, released=None) -> np.ndarray:
        """Candidate totals: :data:`USER_DESIGN_GRID` geometric steps from the least to the most.

        ``released``: an interval ``(lo, hi)`` for the total that the release itself
        gives (noisy counts sum to the number of comparisons plus noise); the
        candidates are then the declared range cut to it.
        """
        lo = float(self.n_users * (self.min_per_user or 1))
        hi = float(self.n_users * self.L)
        if released is not None:
            r_lo, r_hi = released
            lo, hi = max(lo, min(r_lo, hi)), min(hi, max(r_hi, lo))
        if lo >= hi:
            return np.array([hi])
        return np.geomspace(lo, hi, USER_DESIGN_GRID)

    def at_total(self, total: float) -> _UniformUsers:
        """The design with ``total`` comparisons on uniform pairs."""
        return _UniformUsers(self.n_items, self.n_users, self.L, float(total))

    def weights(self, n_items: int):
        """Expected comparisons per pair at the largest total (``m L`` comparisons)."""
        return self.at_total(self.n_users * self.L).weights(n_items)

    def simulate(self, theta, link: Link, rng: np.random.Generator) -> Comparisons:
        """``m`` users with ``L`` uniform random pairs each, outcomes from ``link`` at ``theta``."""
        return self.at_total(self.n_users * self.L).simulate(theta, link, rng)


#: Candidate designs of individual DP share one rank computation (steps 4 and 5) where the
#: normal that covers each one's score estimate at the level (:func:`envelope`) is at most
#: this much wider (in standard deviation) than the narrowest of theirs, for every item.
MERGE_SD = 0.05


def envelope(group, alpha: float):
    """One design standing for neighbouring candidate designs in steps 4 and 5 (their
    ``dprank.intervals._World``: estimate ``t``, variances ``v``, censoring and bounds).

    Per item, the normal centred on the last design's (the largest total's) estimate
    whose central interval at ``1 - alpha`` holds each design's: standard deviation
    ``max_c (sd_c + |t_c - t| / z)``, ``z`` the normal's ``1 - alpha / 2`` quantile;
    censored where any of them censors the item (unbounded above where any is), its
    finite bound the union's (the lowest ``score_lo``, the highest ``score_hi``). Every
    design's likelihood of the item's score lies within this one's at the level, so its
    rank intervals are as wide as each design's would be, up to the Monte Carlo error of
    the posterior draws. The rest (the reference point, the noise's share, the censored
    items' likelihood, the covariance) is the last design's.
    """
    last = group[-1]
    z = float(scipy.special.ndtri(1.0 - alpha / 2.0))
    up = np.logical_or.reduce([w.up for w in group])
    down = np.logical_or.reduce([w.down for w in group])
    finite = np.logical_and.reduce([w.finite for w in group]) & ~(up | down)
    sd = np.max(
        [np.sqrt(np.where(finite, w.v, 1.0)) + np.abs(w.t - last.t) / z for w in group], axis=0
    )
    return dataclasses.replace(
        last,
        v=np.where(finite, sd * sd, np.inf),
        finite=finite,
        up=up,
        down=down,
        score_lo=np.min([w.score_lo for w in group], axis=0),
        score_hi=np.max([w.score_hi for w in group], axis=0),
    )


def merged_groups(worlds, alpha: float) -> list[list]:
    """The designs in groups of neighbours that share one rank computation (:data:`MERGE_SD`).

    From the largest total down, a design joins the group of the next larger ones while
    the group's envelope (:func:`envelope`) stays within :data:`MERGE_SD` of the
    narrowest standard deviation of every item with finite bounds in all of them: designs
    whose estimates the release cannot tell apart at that precision. The plain bootstrap
    (``interval="percentile"``) keeps each design's own draws.
    """
    groups: list[list] = []
    for w in reversed(worlds):
        if groups and w.draws is None and groups[0][0].draws is None:
            trial = [w, *groups[0]]
            env = envelope(trial, alpha)
            fin = env.finite
            narrowest = np.min([np.sqrt(np.where(fin, x.v, 1.0)) for x in trial], axis=0)
            if np.all(np.sqrt(env.v[fin]) <= (1.0 + MERGE_SD) * narrowest[fin]):
                groups[0] = trial
                continue
        groups.insert(0, [w])
    return groups


#: Most pairs the expected design of individual DP lists (a fixed sample of pairs above).
_USER_PAIRS_MAX = 2_000_000


@dataclass(frozen=True)
class _UniformUsers:
    """``total`` comparisons of ``m`` users (at most ``L`` each) on uniformly drawn pairs."""

    n_items: int
    n_users: int
    L: int
    total: float

    def weights(self, n_items: int):
        n = self.n_items
        n_pairs = n * (n - 1) // 2
        if n_pairs <= _USER_PAIRS_MAX:
            a, b = np.triu_indices(n, 1)
        else:  # a fixed (public) sample of pairs carries the expected design
            a, b = (x.copy() for x in _pair_sample(n))
        return a, b, np.full(a.size, self.total / a.size)

    def simulate(self, theta, link: Link, rng: np.random.Generator) -> Comparisons:
        n, m = self.n_items, self.n_users
        per = int(self.total) // m
        extra = round(self.total) - per * m
        counts = np.full(m, per, dtype=np.int64)
        counts[:extra] += 1
        counts = np.minimum(counts, self.L)
        k = rng.integers(0, n * (n - 1) // 2, size=int(counts.sum()))
        a, b = pair_from_index(k, n)
        user = np.repeat(np.arange(m, dtype=np.int64), counts)
        y = (rng.random(a.size) < link.cdf(theta[a] - theta[b])).astype(np.float64)
        return Comparisons(n_items=n, i=a, j=b, y=y, count=np.ones(a.size), user=user)


@functools.lru_cache(maxsize=2)
def _pair_sample(n: int):
    """The fixed sample of pairs of :meth:`_UniformUsers.weights` on ``n`` items (the same for
    every total: drawn once per ``n`` for all candidate designs)."""
    k = np.random.default_rng(0).integers(0, n * (n - 1) // 2, _USER_PAIRS_MAX)
    return pair_from_index(_sorted_distinct(k), n)


def _sorted_distinct(k: np.ndarray) -> np.ndarray:
    """``numpy.unique(k)`` of integers by a sort (numpy's hash-based path takes seconds on
    2 M of them, a sort a few hundredths)."""
    k = np.sort(k)
    first = np.ones(k.size, dtype=bool)
    np.not_equal(k[1:], k[:-1], out=first[1:])
    return k[first]


def _simulate_records(n, a, b, count, user, theta, link, rng, user_epsilon) -> Comparisons:
    cnt = np.rint(count).astype(np.int64)
    p = link.cdf(theta[a] - theta[b])
    if np.all(cnt == 1):
        y = (rng.random(a.size) < p).astype(np.float64)
        return Comparisons(
            n_items=n, i=a, j=b, y=y, count=np.ones(a.size), user=user, user_epsilon=user_epsilon
        )
    won = rng.binomial(cnt, p)
    n_rec = np.column_stack([won, cnt - won]).ravel()
    rec = np.repeat(np.arange(a.size), 2)
    keep = n_rec > 0
    y = np.tile([1.0, 0.0], a.size)[keep]
    return Comparisons(
        n_items=n,
        i=a[rec][keep],
        j=b[rec][keep],
        y=y,
        count=n_rec[keep].astype(np.float64),
        user=None if user is None else user[rec][keep],
        user_epsilon=user_epsilon,
    )


@dataclass(frozen=True, eq=False)
class LocalDesign:
    release: Comparisons

    @property
    def n_items(self) -> int:
        return int(self.release.n_items)

    def weights(self, n_items: int, details: Mapping[str, Any]):
        c = self.release
        if details.get("weights") == "adrr":
            w = adrr_weights(c.user_epsilon)[c.user]
        else:
            w = np.full(c.n_records, 1.0 / c.user_epsilon.size)
        pairs = Comparisons(
            n_items=c.n_items,
            i=c.i,
            j=c.j,
            y=np.zeros(c.n_records),
            count=w * c.count,
            weighted=True,
        )
        ps = pairs.pair_statistics()
        return ps.a, ps.b, ps.n

    def simulate(self, theta, link: Link, rng: np.random.Generator) -> Comparisons:
        c = self.release
        return _simulate_records(
            c.n_items, c.i, c.j, c.count, c.user, theta, link, rng, c.user_epsilon
        )
