"""Intervals for the scores and ranks of a private ranking, as post-processing of the release.

A private ranking releases one score per item. How sure it is follows from the
released scores and from what the privacy model treats as public: the method
and its noise law, ``epsilon``, the comparison model and the *design* (who
compared which pairs how often), never the outcomes. Intervals computed from
these alone are post-processing of the release and cost no privacy budget.

Public design by privacy unit (:func:`public_design` builds it):

``comparison`` (edge DP, Paper A section 2) and ``none``
    :class:`EdgeDesign`: the compared pairs and how often each was compared.
    Neighbouring data sets differ in one *outcome*, so the graph is public.
``user`` (individual DP at a trusted curator, Paper A section 3)
    :class:`UserDesign`: the number of items ``n`` and of users ``m``, the
    declared bound ``L`` and, optionally, a declared least number of
    comparisons per user (default 1). Which pairs a user compared, and how
    many, is private: the intervals hold for every design with totals in the
    declared range that is consistent with the release (the union over them).
local (Paper B)
    The release itself (:class:`dprank.comparisons.Comparisons` with
    ``user_epsilon``): it *is* what the users published.

Construction (:func:`intervals`; docs/intervals.md states it in full)
----------------------------------------------------------------------
1. **Estimate.** Every scoring method of the registry is, given the public
   design ``N`` (comparisons per pair, user-weighted for Paper B's weighted
   likelihood), a function of noisy *win totals* ``W~``: the perturbed,
   ridge-penalised MLEs satisfy ``sum_j N_ij F(s_i - s_j) + r s_i = W~_i`` at
   their released scores ``s`` and the count methods release ``W~``. The
   estimate ``t`` solves the same equation with the small ridge
   ``rho = RIDGE f(0) d`` (``d`` the mean comparisons per item): it undoes the
   methods' own ridges and exists for every release. Under the Thurstone
   model the win totals are not sufficient; there ``t`` is one Newton step
   from ``s`` that removes the method's ridge (the Fisher information at
   ``s``). ``t`` is centred to weighted mean 0: weight 1 for each item whose
   variance is at most :data:`VARIANCE_CAP` times the median, less in
   proportion above, 0 for items without finite bounds (the returned
   ``DataFrame.attrs["weights"]``).
2. **Error law.** ``kind="bootstrap"``: ``n_boot`` releases simulated from the
   model at a reference ``theta_ref`` (the estimate shrunk by the square root
   of its empirical-Bayes factor, so that its spread matches the prior's) on
   the public design, the privacy noise redrawn by the registry's own
   ``Method.fit``/``Method.run``, each turned into ``t*`` by step 1;
   ``t* - theta_ref`` is the error law. ``kind="asymptotic"``: its
   linearisation at ``theta_ref``, the sampling covariance of the win totals
   and the mechanism's noise law mapped through the Hessian (exact up to
   :data:`DENSE_MAX` items, its diagonal above). ``kind="auto"`` takes the
   bootstrap where it is affordable (:data:`AUTO_BOOTSTRAP_ITEMS`) and the
   asymptotic form elsewhere.
3. **Scores.** Test inversion on each item's noisy total: the scores ``x`` at
   which ``sum_j N_ij F(x - t_j)`` lies within the quantiles of the noise law
   plus the sampling error (scaled to the error law's variance) of ``W~_i``.
   A total that is, within the noise, as high as winning every comparison (as
   low as losing every one) gives ``score_hi = inf`` (``score_lo = -inf``);
   one item's total never moves another item's bounds. (Thurstone: ``t_i``
   less the error law's quantiles.)
4. **Ranks.** The quantiles of each item's rank among draws from its
   empirical-Bayes posterior under the nonparametric maximum-likelihood prior
   of the scores (:func:`dprank._interval_ranks.npmle_prior`), extended to place
   1 for an item that none of the items estimated above it beats significantly
   (one-sided, Bonferroni over them) and to place ``n`` symmetrically: the
   posterior gives the width where the data order the items, the extension
   keeps the items at the ends covered.
5. **p_top_k**: the posterior probability of being among the top ``k``.
6. **Simultaneous** (``joint=True``) and **tie classes**: the score band
   ``t +- q`` at the Sidak level ``1 - (1 - level)^(1/n)`` holds for all items
   at once; the ranks it implies hold at once too (Klein, Wright and
   Wieczorek 2020); tie classes are the groups of places those intervals
   cannot split (:func:`dprank._interval_ranks.tie_classes`).

``interval="percentile"`` gives the plain parametric bootstrap of the release
instead (draws at ``t``, their score and rank quantiles, the share of draws in
the top ``k``): the comparator of the coverage study.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import scipy.special

from . import _checks
from . import _interval_ranks as _ir
from ._interval_equation import DENSE_MAX, _cdf_pdf, _dense_laplacian, _Equation, _pdf
from .comparisons import Comparisons
from .ldp import adrr_weights
from .methods import Fit, Method, get_method
from .models import Link, get_link
from .simulate import pair_from_index
from .weighted_mle import noisy_obj_calibration

__all__ = [
    "AUTO_BOOTSTRAP_ITEMS",
    "NO_INTERVALS",
    "EdgeDesign",
    "IntervalError",
    "UserDesign",
    "intervals",
    "public_design",
    "supports",
]

#: Methods without intervals and why (:func:`intervals` raises naming them).
NO_INTERVALS = {
    "edge_one_shot": (
        "releases a top-k selection from a one-shot noisy random walk; its scores do not "
        "estimate the model's parameters"
    ),
    "local_count": (
        "releases ranks with ties broken at random from counts of flipped outcomes; use "
        "local_adrr for intervals"
    ),
}

# how the release maps to noisy win totals: "ridge" (released scores solve the
# penalised score equation; the ridge is read from the calibration) or "counts"
_FAMILY = {
    "edge_mle": "ridge",
    "edge_noisy_obj": "ridge",
    "individual_mle": "ridge",
    "nonprivate_mle": "ridge",
    "local_adrr": "ridge",
    "local_debiased_rr": "ridge",
    "local_classic_rr": "ridge",
    "local_laplace": "ridge",
    "edge_counts": "counts",
    "individual_counts": "counts",
    "individual_counts_as_published": "counts",
    "nonprivate_counts": "counts",
}

#: Ridge of the estimate (step 1), relative to the mean information per item ``f(0) d``:
#: large enough that the estimate exists for every release and its equation is well
#: conditioned; its first-order bias (a few percent for the extreme items of a wide spread,
#: whose own information is a small share of ``f(0) d``) is removed by one Newton step.
RIDGE = 0.01

#: Items whose variance exceeds this multiple of the median weigh less in the centring.
VARIANCE_CAP = 4.0

#: ``kind="auto"`` takes the bootstrap up to this many items (and
#: :data:`AUTO_BOOTSTRAP_COMPARISONS` comparisons), the asymptotic form above.
AUTO_BOOTSTRAP_ITEMS = 100
AUTO_BOOTSTRAP_COMPARISONS = 200_000

#: Simulated releases at ``theta = 0`` that measure the noise on the win totals where
#: the mechanism's law is not known in closed form (local DP, unknown release details).
NOISE_PILOTS = 20

#: The estimate of step 1 solves for totals within this share of an item's comparisons
#: from its ends (0 and all won).
_EDGE = 0.005

#: Share of the places a rank interval may span and still count as informative.
INFORMATIVE_SHARE = 0.9

#: Candidate designs of individual DP between the declared least and largest totals.
USER_DESIGN_GRID = 3

# release details the closed-form noise laws understand; any other key naming noise
# (an output perturbation, say) makes the intervals measure the noise by simulation
_KNOWN_DETAILS = frozenset(
    "noise noise_scale sensitivity sampler grid_exponent delta k max_per_user L gamma lambda "
    "solver weights epsilon_guaranteed ties".split()
)


class _AttrArray:
    """An array kept in ``DataFrame.attrs``: ``numpy.asarray`` gives it back (read-only).

    pandas deep-copies ``attrs`` after each operation and compares them when it
    concatenates; this wrapper is shared rather than copied (its array is read-only)
    and compares by value, so that a frame of 10^5 items stays as quick to transform
    as one without it (a tuple of 10^5 floats is copied element by element).
    """

    __slots__ = ("_array",)

    def __init__(self, array):
        self._array = np.array(array, dtype=np.float64)
        self._array.flags.writeable = False

    def __array__(self, dtype=None, copy=None):
        out = self._array if dtype is None else self._array.astype(dtype)
        return out.copy() if copy and out is self._array else out

    def __deepcopy__(self, memo):
        return self

    def __eq__(self, other):
        return isinstance(other, _AttrArray) and np.array_equal(self._array, other._array)

    def __hash__(self):
        return hash(self._array.tobytes())

    def __len__(self):
        return self._array.size

    def __repr__(self):
        return f"_AttrArray({self._array!r})"


class IntervalError(ValueError):
    """The method, or the public inputs given, do not allow intervals."""


# --------------------------------------------------------------------------- public designs


@dataclass(frozen=True, eq=False)
class EdgeDesign:
    """The public design of edge DP: which pairs were compared, how often (no outcomes).

    Attributes
    ----------
    n_items : int
    a, b : (P,) int64 arrays
        Compared pairs, ``a < b``.
    count : (P,) float64 array
        Comparisons of each pair.
    """

    n_items: int
    a: np.ndarray
    b: np.ndarray
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
            k = np.unique(np.random.default_rng(0).integers(0, n_pairs, _USER_PAIRS_MAX))
            a, b = pair_from_index(k, n)
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
class _LocalDesign:
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


def public_design(
    comparisons: Comparisons,
    method: str | Method,
    max_per_user: int | None = None,
    min_per_user: int | None = None,
):
    """The public inputs of ``method`` on ``comparisons``: what :func:`intervals` may use.

    Parameters
    ----------
    comparisons : Comparisons
        What the method was run on (raw comparisons for central methods, the
        users' release for local ones).
    method : str or Method
    max_per_user : int, optional
        The declared public bound ``L`` of individual DP; default: the most
        comparisons of one user in ``comparisons`` (Paper A's convention).
    min_per_user : int, optional
        Individual DP: a declared least number of comparisons per user (default
        1); the intervals then hold for totals between ``m min_per_user`` and
        ``m L`` comparisons (:class:`UserDesign`).

    Returns
    -------
    EdgeDesign, UserDesign or Comparisons
        Edge DP and non-private: the graph (outcomes dropped). Individual DP:
        ``n``, ``m``, ``L`` (and ``min_per_user``). Local DP: the release itself.
    """
    if not isinstance(comparisons, Comparisons):
        raise TypeError(
            "comparisons must be a dprank.comparisons.Comparisons, "
            f"got {type(comparisons).__name__}"
        )
    meth = _as_method(method)
    if max_per_user is not None:
        _checks.count(max_per_user, "max_per_user", 1)
    if meth.trust_model == "local":
        return comparisons
    if meth.privacy_unit == "user":
        L = max_per_user
        if L is None:
            L = math.ceil(float(np.max(comparisons.per_user_counts())))
        lo = None if min_per_user is None else int(_checks.count(min_per_user, "min_per_user", 1))
        return UserDesign(int(comparisons.n_items), int(comparisons.n_users), int(L), lo)
    return EdgeDesign.from_comparisons(comparisons)


# --------------------------------------------------------------------------- release -> estimate


def _ridge(name: str, details: Mapping[str, Any], eps: float) -> float:
    if name == "edge_noisy_obj":
        return noisy_obj_calibration(eps, float(details.get("delta", 1e-6)))[0]
    if name.startswith("local_"):
        return 2.0 * float(details["lambda"])  # B2 objective (5): lambda ||theta||^2
    return float(details["gamma"])


def _win_totals(name, scores, details, eq_release: _Equation, eps):
    """Noisy win totals ``W~`` of a release: the true totals plus the mechanism's noise.

    The count methods release them; the ridge-penalised MLEs satisfy
    ``sum_j N_ij F(s_i - s_j) + r s_i = W~_i`` at their released scores. Each item's
    noise is its own (no shift to a common total: Algorithm 1's noise does not sum
    to 0, and spreading its sum over the items would let one item's noise move the
    others'); a release under a sum-to-zero constraint sums to the number of
    comparisons by itself.
    """
    s = np.asarray(scores, dtype=np.float64)
    if _FAMILY[name] == "counts":
        return s.copy()
    return eq_release.expected_wins(s) + _ridge(name, details, eps) * s


@dataclass(frozen=True)
class _NoiseLaw:
    """The noise the mechanism adds to each win total: ``laplace`` or ``gaussian`` of
    ``scale`` (sd for Gaussian), ``none``; ``sampling`` False where a measured variance
    holds the sampling error too."""

    kind: str
    scale: float
    sampling: bool = True

    @property
    def variance(self) -> float:
        return {"laplace": 2.0, "gaussian": 1.0, "none": 0.0}[self.kind] * self.scale**2


def _closed_form_law(meth: Method, details: Mapping[str, Any], eps: float) -> _NoiseLaw | None:
    """The mechanism's noise law on the win totals from its release details, or None."""
    if not meth.private:
        return _NoiseLaw("none", 0.0)
    if meth.trust_model == "local":
        return None  # randomized response: measured on simulated releases
    unknown = [k for k in details if k not in _KNOWN_DETAILS and "nois" in k.lower()]
    if unknown:
        return None
    if meth.name == "edge_noisy_obj":
        sigma = noisy_obj_calibration(eps, float(details.get("delta", 1e-6)))[1]
        return _NoiseLaw("gaussian", float(sigma))
    if details.get("noise") == "laplace" and "noise_scale" in details:
        return _NoiseLaw("laplace", float(details["noise_scale"]))
    return None


@dataclass(eq=False)
class _Problem:
    """What is fixed across draws for one public design: the equation, the law, the map."""

    meth: Method
    link: Link
    design: Any
    eps: float
    calibration: Mapping[str, Any]
    run: Any

    def __post_init__(self):
        n = self.n = self.design.n_items
        if isinstance(self.design, _LocalDesign):
            a, b, N = self.design.weights(n, self.calibration)
        else:
            a, b, N = self.design.weights(n)
        self.a, self.b, self.N = a, b, N
        self.total = float(N.sum())
        self.deg = np.bincount(a, N, n) + np.bincount(b, N, n)
        self.rho = (
            RIDGE * float(_pdf(self.link, np.zeros(1))[0]) * max(float(self.deg.mean()), 1e-12)
        )
        self.eq0 = _Equation(n, a, b, N, self.link, 0.0)
        self.eq = _Equation(n, a, b, N, self.link, self.rho)
        self.btl = self.link.name == "btl"

    def estimate(self, scores, details, start=None):
        """``(t, W~)``: the estimate of step 1 (not centred) and the win totals (None for TM)."""
        s = np.asarray(scores, dtype=np.float64)
        if not self.btl and _FAMILY[self.meth.name] == "ridge":
            # one Newton step from s removing the method's ridge, with the Fisher information
            gamma = _ridge(self.meth.name, details, self.eps)
            eq = self.eq
            x = eq.solve_hessian(eq.information_weights(s), (gamma - self.rho) * s)
            return s + x, None
        W = _win_totals(self.meth.name, s, details, self.eq0, self.eps)
        # totals beyond what an item can win (noise) are solved at the edge of the
        # attainable range: such an item's score is unbounded (step 3) and its estimate is
        # not used, and the equation stays well conditioned for the others
        edge = _EDGE * self.deg
        inside = np.clip(W, edge, self.deg - edge)
        if start is None:  # the probit approximation of each item's win rate
            c = 1.7 if self.btl else 1.0
            rate = np.clip(inside / np.maximum(self.deg, 1e-300), 1e-3, 1.0 - 1e-3)
            start = _ir.ndtri(rate) / c
        t = self.eq.solve(inside, theta0=start)
        # one Newton step to the unpenalised equation: t + (H + rho)^-1 rho t removes the
        # ridge's first-order bias (the items at the totals' ends keep their estimate)
        x = self.eq.solve_hessian(self.eq.hessian_weights(t), self.rho * (t - t.mean()))
        at_edge = (W <= edge) | (W >= self.deg - edge)
        return t + np.where(at_edge, 0.0, x), W

    def law(self, rng) -> _NoiseLaw:
        """The noise law on the win totals: closed form, or measured on simulated releases."""
        if not hasattr(self, "_law"):
            law = _closed_form_law(self.meth, self.calibration, self.eps)
            if law is None and not self.btl:
                # Thurstone: no win totals to measure; the bootstrap carries the noise
                law = _NoiseLaw("none", 0.0)
            if law is None:
                law = self._measured(rng)
            self._law = law
        return self._law

    def _measured(self, rng) -> _NoiseLaw:
        """:data:`NOISE_PILOTS` releases at ``theta = 0``: their spread of the win totals.

        Less the sampling part ``F(0) (1 - F(0)) 2 total / (n - 1)`` where the design
        is unweighted (``sampling`` stays True); the weighted designs of local DP keep
        the sampling error in the measured variance.
        """
        n, zero = self.n, np.zeros(self.n)
        spread = 0.0
        for _ in range(NOISE_PILOTS):
            fit = self.run(self.design.simulate(zero, self.link, rng))
            W = _win_totals(self.meth.name, fit.scores, fit.details, self.eq0, self.eps)
            spread += float(np.sum((W - W.mean()) ** 2)) / (n - 1) / NOISE_PILOTS
        if isinstance(self.design, _LocalDesign):
            return _NoiseLaw("gaussian", math.sqrt(spread), sampling=False)
        f0 = float(self.link.cdf(np.zeros(1))[0])
        var = max(0.0, spread - f0 * (1.0 - f0) * 2.0 * self.total / (n - 1))
        return _NoiseLaw("gaussian", math.sqrt(var))

    def pair_weights(self, theta, law: _NoiseLaw):
        """``(hessian, sampling)`` weights per pair at ``theta``: ``N f`` and ``N F (1 - F)``
        for BTL (the sampling ones 0 where the law holds the sampling error); the Fisher
        information ``N f^2 / (F (1 - F))`` for both under the Thurstone model."""
        if not self.btl:
            info = self.eq.information_weights(theta)
            return info, info if law.sampling else np.zeros(info.size)
        hw = self.eq.hessian_weights(theta)
        if not law.sampling:
            return hw, np.zeros(hw.size)
        p = self.link.cdf(theta[self.a] - theta[self.b])
        return hw, self.N * p * (1.0 - p)

    def linear_parts(self, theta, law: _NoiseLaw):
        """``(h, S)``: per item the Hessian's diagonal at ``theta`` and the win total's
        sampling variance."""
        n, a, b = self.n, self.a, self.b
        hw, sw = self.pair_weights(theta, law)
        h = np.bincount(a, hw, n) + np.bincount(b, hw, n) + self.rho
        return h, np.bincount(a, sw, n) + np.bincount(b, sw, n)

    def variances(self, theta, law: _NoiseLaw, exact: bool, w=None):
        """Asymptotic variance of each item's estimate at ``theta`` (centred parameters).

        Exact (``H^-1 (S + noise) H^-1``, ``H`` the Hessian of step 1) up to
        :data:`DENSE_MAX` items when ``exact``; the diagonal ``(S_ii + noise) / H_ii^2``
        otherwise. For the Thurstone model ``H`` is the Fisher information.
        """
        h, S = self.linear_parts(theta, law)
        diag = (S + law.variance) / h**2
        if not exact or self.n > DENSE_MAX:
            return diag, h, S
        n, a, b = self.n, self.a, self.b
        hw, sw = self.pair_weights(theta, law)
        H = _dense_laplacian(n, a, b, hw, self.rho)
        M = _dense_laplacian(n, a, b, sw, law.variance)
        Hi = np.linalg.inv(H)
        C = Hi @ M @ Hi
        # the parameters centred to weighted mean 0: (I - 1 w^T) C (I - w 1^T)
        w = np.full(n, 1.0 / n) if w is None else w
        Cw = C @ w
        var = np.diag(C) - 2.0 * Cw + float(w @ Cw)
        return np.maximum(var, 1e-300), h, S


def _weights(v, finite) -> np.ndarray:
    """Centring weights: 1 up to :data:`VARIANCE_CAP` times the median variance, less above."""
    if not finite.any():
        return np.full(v.size, 1.0 / v.size)
    vmed = float(np.median(v[finite]))
    w = np.where(finite, np.minimum(1.0, VARIANCE_CAP * vmed / np.where(finite, v, 1.0)), 0.0)
    return w / w.sum()


def _centre(x, w):
    return x - (x @ w if x.ndim == 1 else (x @ w)[:, None])


# --------------------------------------------------------------------------- one design


@dataclass
class _World:
    """Everything steps 1 to 3 give for one public design (a candidate, for individual DP)."""

    t: np.ndarray
    v: np.ndarray
    w: np.ndarray
    score_lo: np.ndarray
    score_hi: np.ndarray
    band_lo: np.ndarray
    band_hi: np.ndarray
    finite: np.ndarray
    up: np.ndarray  # unbounded above (marginal level)
    down: np.ndarray
    consistent: bool
    draws: np.ndarray | None = None  # percentile: t* draws
    centre: np.ndarray | None = None  # the point estimate shown (the intervals' centre)


def _unbounded(prob: _Problem, W, law: _NoiseLaw, p_lo, p_hi):
    """Items whose noisy total is, within the noise's quantiles, at the attainable ends."""
    if W is None:
        z = np.zeros(prob.n, dtype=bool)
        return z, z
    q_lo = _ir.mixture_quantile(law.kind, law.scale, np.zeros(prob.n), p_lo)
    q_hi = _ir.mixture_quantile(law.kind, law.scale, np.zeros(prob.n), p_hi)
    slack = 1e-9 * np.maximum(prob.deg, 1.0)
    up = W - q_lo >= prob.deg - slack
    down = W - q_hi <= slack
    return up, down


def _invert(prob: _Problem, ref, targets) -> np.ndarray:
    """Per item and target ``y``: the ``x`` with ``sum_j N_ij F(x - ref_j) = y``.

    The expected win total of item ``i`` at score ``x``, the others at ``ref``, rises
    from 0 to the item's comparisons ``d_i``: a target at or below 0 gives ``-inf``, at
    or above ``d_i`` gives ``inf``. The start is closed-form (the opponents' scores
    as a normal spread around their mean, the link as a scaled probit), then Newton's
    method inside a bracket that bisection keeps, all targets at once, until every
    step is below ``1e-7``.
    """
    n, a, b, N, link = prob.n, prob.a, prob.b, prob.N, prob.link
    y = np.atleast_2d(np.asarray(targets, dtype=np.float64))
    k = y.shape[0]
    d = np.maximum(prob.deg, 1e-300)
    below = y <= 1e-9 * np.maximum(prob.deg, 1.0)
    above = y >= prob.deg * (1.0 - 1e-9)
    # start: opponents' mean and spread (weights N), F(x - r) ~ Phi(c (x - r)) averaged
    mu = (np.bincount(a, N * ref[b], n) + np.bincount(b, N * ref[a], n)) / d
    sq = (np.bincount(a, N * ref[b] ** 2, n) + np.bincount(b, N * ref[a] ** 2, n)) / d
    spread = np.maximum(sq - mu * mu, 0.0)
    c = 1.7 if link.name == "btl" else 1.0
    frac = np.clip(y / d, 1e-12, 1.0 - 1e-12)
    x = mu + np.sqrt(1.0 + c * c * spread) / c * _ir.ndtri(frac)
    x = np.clip(np.where(below | above, 0.0, x), -59.0, 59.0)
    # the last row first from the closed form; each other row from it, moved by the
    # difference of the targets over the slope there (one or two Newton steps then)
    last = k - 1
    x[last] = _newton_row(prob, ref, y[last], x[last], ~(below[last] | above[last]))
    slope = _slope(prob, ref, x[last])
    for r in range(last):  # one target row at a time: memory O(pairs)
        start = np.where(np.isfinite(x[last]), x[last] + (y[r] - y[last]) / slope, x[r])
        x[r] = _newton_row(prob, ref, y[r], np.clip(start, -59.0, 59.0), ~(below[r] | above[r]))
    x = np.where(below, -np.inf, x)
    return np.where(above, np.inf, x)


def _slope(prob: _Problem, ref, x) -> np.ndarray:
    """``d/dx sum_j N_ij F(x_i - ref_j)`` per item (at least a tiny positive number)."""
    n, a, b, N, link = prob.n, prob.a, prob.b, prob.N, prob.link
    xx = np.clip(np.where(np.isfinite(x), x, 0.0), -59.0, 59.0)
    fa = _pdf(link, xx[a] - ref[b])
    fb = _pdf(link, xx[b] - ref[a])
    return np.maximum(np.bincount(a, N * fa, n) + np.bincount(b, N * fb, n), 1e-12)


def _newton_row(prob: _Problem, ref, y, x, active) -> np.ndarray:
    """Bracketed Newton steps of :func:`_invert` for one row of targets.

    Each step evaluates only the pairs of items still moving.
    """
    n, a, b, N, link = prob.n, prob.a, prob.b, prob.N, prob.link
    lo = np.full(n, -60.0)
    hi = np.full(n, 60.0)
    for _ in range(_INVERT_STEPS):
        if not active.any():
            break
        g = np.zeros(n)
        dg = np.zeros(n)
        for own, other in ((a, b), (b, a)):
            sel = np.nonzero(active[own])[0]
            i, j = own[sel], other[sel]
            F, f = _cdf_pdf(link, x[i] - ref[j])
            g += np.bincount(i, N[sel] * F, n)
            dg += np.bincount(i, N[sel] * f, n)
        low = g < y
        lo = np.where(active & low, x, lo)
        hi = np.where(active & ~low, x, hi)
        step = x + (y - g) / np.maximum(dg, 1e-300)
        inside = (step > lo) & (step < hi)
        new = np.where(inside, step, 0.5 * (lo + hi))
        moved = np.abs(new - x) > 1e-7
        x = np.where(active, new, x)
        active = active & moved
    return x


#: Newton steps of :func:`_invert`.
_INVERT_STEPS = 40


def _binomial_quantile(q: float, n: int, p: float) -> int:
    """The smallest ``k`` with ``P(Binomial(n, p) <= k) >= q``."""
    k = np.arange(n + 1)
    return int(k[np.searchsorted(scipy.special.bdtr(k, n, p), q)])


def _analyse(prob: _Problem, s, kind, interval, alpha, n_boot, rng) -> _World:
    """Steps 1 to 3 (and the simultaneous band of step 6) on one public design."""
    n = prob.n
    law = prob.law(rng)
    t, W = prob.estimate(s, prob.calibration)
    alpha_n = 1.0 - (1.0 - alpha) ** (1.0 / n)  # Sidak: all items at once
    percentile = interval == "percentile"
    if percentile:  # the plain bootstrap: no bounds from the attainable totals
        up = down = np.zeros(n, dtype=bool)
    else:
        up, down = _unbounded(prob, W, law, alpha / 2.0, 1.0 - alpha / 2.0)
    finite = ~(up | down)
    # variances at a point without the unbounded items' extremes, then the reference
    lo_q, hi_q = np.quantile(t[finite], [0.01, 0.99]) if finite.any() else (-1.0, 1.0)
    tc = np.where(finite, np.clip(t, lo_q, hi_q), 0.0)
    v0, _, _ = prob.variances(tc - tc.mean(), law, exact=False)
    w = np.full(n, 1.0 / n) if percentile else _weights(v0, finite)
    t = _centre(t, w)
    tau2 = _ir.prior_scale(t, v0, finite, np.full(n, -np.inf), np.full(n, np.inf))
    shrink = np.where(finite, np.sqrt(tau2 / (tau2 + v0)), 0.0)
    ref = t.copy() if percentile else _centre(np.where(finite, shrink * t, 0.0), w)
    if not percentile and W is not None and not finite.all():
        # the censored items' estimates are not finite enough to lean on: their place
        # among all items by win rate, as a quantile of the prior
        rate = W / np.maximum(prob.deg, 1e-300)
        order = np.argsort(np.argsort(rate, kind="stable"), kind="stable")
        scores = math.sqrt(tau2) * _ir.ndtri((order + 0.5) / n)
        ref = _centre(np.where(finite, ref, scores), w)
    # the others' scores in the inversion of step 3: the estimate itself (where the item's
    # total is exactly the estimate's expected one), the censored items at their places
    at = ref if percentile else _centre(np.where(finite, t, ref), w)
    # a design whose noise alone would spread the win totals more than they are spread
    # (beyond the 0.01 quantile of a chi-square) cannot have made this release
    if W is not None:
        spread = float(np.sum((W - W.mean()) ** 2))
        consistent = spread >= law.variance * float(scipy.special.chdtri(n - 1, 0.99))
    else:
        spread = float(w @ np.where(finite, t * t, 0.0))
        noise = float(w @ np.where(finite, v0, 0.0))
        consistent = spread >= noise * (1.0 - 2.0 * math.sqrt(2.0 / (1.0 / float(w @ w))))
    draws = None
    quantiles = None
    if kind == "bootstrap":
        T = np.empty((int(n_boot), n))
        for r in range(int(n_boot)):
            fit = prob.run(prob.design.simulate(ref, prob.link, rng))
            T[r] = prob.estimate(fit.scores, fit.details, start=ref)[0]
        T = _centre(T, w)
        if percentile:
            draws = T
        E = T - ref
        q16, q84, qlo, qhi = np.quantile(E, [0.158655, 0.841345, alpha / 2, 1 - alpha / 2], axis=0)
        v = np.maximum(((q84 - q16) / 2.0) ** 2, 1e-300)
        quantiles = (qlo, qhi)
        if n <= DENSE_MAX and not percentile:
            # the refits' estimates stop at the totals' attainable range (step 1), which
            # narrows their spread for the extreme items: never below the linearisation's
            v = np.maximum(v, prob.variances(ref, law, exact=True, w=w)[0])
    else:
        v = prob.variances(ref, law, exact=True, w=w)[0]
        if percentile:
            draws = ref + np.sqrt(v) * rng.standard_normal((int(n_boot), n))
    h, S = prob.linear_parts(ref, law)
    # the error law's variance beyond the item's own noise and sampling (the other items'
    # uncertainty; the design's under individual DP) widens the quantiles, never narrows
    # them below the noise law's (a bootstrap of clipped estimates spreads less)
    factor = np.maximum(1.0, np.sqrt(v / np.maximum((S + law.variance) / h**2, 1e-300)))
    sd_s = np.sqrt(S)
    levels = (1 - alpha / 2, alpha / 2, 1 - alpha_n / 2, alpha_n / 2, 0.5)
    q = np.array([_ir.mixture_quantile(law.kind, law.scale, sd_s, p) for p in levels]) * factor
    centre = t
    if percentile:
        score_lo, score_hi = np.quantile(draws, [alpha / 2, 1 - alpha / 2], axis=0)
        band_lo, band_hi = t - q[2] / h, t - q[3] / h
    elif W is not None:
        # test inversion on the win totals: robust where the noise reaches the totals' ends
        targets = W[None, :] - q
        score_lo, score_hi, band_lo, band_hi, centre = _invert(prob, at, targets)
    else:  # Thurstone: the error law around t
        if quantiles is None:
            quantiles = (-q[0] / h, -q[1] / h)
        score_lo, score_hi = t - quantiles[1], t - quantiles[0]
        band_lo, band_hi = t - q[2] / h, t - q[3] / h
    up = up | np.isposinf(score_hi)
    down = down | np.isneginf(score_lo)
    finite = ~(up | down)
    v = np.where(finite, v, np.inf)
    # an empty interval (a total beyond an end even after the noise's quantile) has
    # probability at most (1 - level) / 2 per item under the design: far more of them
    # than a binomial count allows (at 1e-3) and the release did not come from it
    empty = int(np.sum(np.isposinf(score_lo) | np.isneginf(score_hi)))
    if empty > _binomial_quantile(0.999, n, alpha / 2.0):
        consistent = False
    return _World(
        t, v, w, score_lo, score_hi, band_lo, band_hi, finite, up, down, consistent, draws, centre
    )


# --------------------------------------------------------------------------- steps 4 to 6


def _rank_parts(world: _World, alpha: float, top_k, n_boot, rng):
    """Marginal rank intervals and ``p_top_k`` (steps 4 and 5) of one design."""
    n = world.t.size
    if world.draws is not None:  # percentile: the plain parametric bootstrap
        ranks = _ir.ranks_of_rows(world.draws)
        lo, hi = _ir.quantile_ranks(ranks, alpha)
        p = None if top_k is None else np.mean(ranks <= int(top_k), axis=0)
        return lo, hi, p
    vf = np.where(world.finite, world.v, 1.0)
    fin = world.finite
    lower = np.where(~fin & np.isfinite(world.score_lo), world.score_lo, -np.inf)
    upper = np.where(~fin & np.isfinite(world.score_hi), world.score_hi, np.inf)
    draws = _ir.posterior_draws(n)
    nodes, weights = _ir.npmle_prior(world.t, vf, fin, lower, upper, rng)
    ranks = _ir.npmle_ranks(world.t, vf, fin, lower, upper, nodes, weights, draws, rng)
    lo, hi = _ir.quantile_ranks(ranks, alpha)
    lo, hi = _ir.extend_to_ends(world.t, vf, world.finite, alpha, lo, hi, world.up, world.down)
    p = None if top_k is None else np.mean(ranks <= int(top_k), axis=0)
    return lo, hi, p


#: The methods of comparisons with ties: their intervals are a bootstrap of their release
#: (:func:`dprank.private_ties.ties_intervals`, which :meth:`dprank.api.Ranking.intervals` calls).
TIES_METHODS = ("edge_ties", "individual_ties", "local_ties")


def supports(method: str | Method) -> bool:
    """Whether ``method`` (a registry name or Method) has intervals: :func:`intervals`, or for
    the ties methods (:data:`TIES_METHODS`) the bootstrap of their release."""
    if not isinstance(method, (str, Method)):
        raise TypeError(
            f"method must be a registry name (str) or a Method, got {type(method).__name__}"
        )
    name = method.name if isinstance(method, Method) else method
    return name in _FAMILY or name in TIES_METHODS


def _as_method(method) -> Method:
    """``method`` as a registered Method; a ValueError or TypeError naming ``method``."""
    if isinstance(method, Method):
        return method
    if not isinstance(method, str):
        raise TypeError(
            f"method must be a registry name (str) or a Method, got {type(method).__name__}"
        )
    try:
        return get_method(method)
    except KeyError:
        raise IntervalError(
            f"method {method!r} is no registered method (dprank methods lists them)"
        ) from None


def _check_method(method) -> Method:
    meth = _as_method(method)
    if meth.name in NO_INTERVALS:
        raise IntervalError(f"method {meth.name} has no intervals: {NO_INTERVALS[meth.name]}")
    if meth.name in TIES_METHODS:
        raise IntervalError(
            f"method {meth.name}'s intervals are a bootstrap of its release: "
            "Ranking.intervals() or dprank.private_ties.ties_intervals(fit.release, items)"
        )
    if meth.name not in _FAMILY:
        raise IntervalError(
            f"method {meth.name} has no intervals: they invert the release of the registry's "
            f"scoring methods ({', '.join(_FAMILY)})"
        )
    return meth


def _design_for(meth: Method, design, n: int):
    if meth.trust_model == "local":
        if not isinstance(design, Comparisons) or design.user_epsilon is None:
            raise IntervalError(
                f"method {meth.name} is local: pass its release (the Comparisons with users and "
                "user_epsilon) as design"
            )
        return _LocalDesign(design)
    if meth.privacy_unit == "user":
        if not isinstance(design, UserDesign):
            raise IntervalError(
                f"method {meth.name} protects users: pass UserDesign(n_items, n_users, L) as "
                "design (which pairs a user compared is private)"
            )
        out = design
    else:
        if isinstance(design, Comparisons):
            design = EdgeDesign.from_comparisons(design)
        if not isinstance(design, EdgeDesign):
            raise IntervalError(
                f"method {meth.name}: pass the comparison graph as design (EdgeDesign or "
                "Comparisons; outcomes are not used)"
            )
        out = design
    if out.n_items != n:
        raise IntervalError(f"the design has {out.n_items} items but {n} scores were given")
    return out


def _check_arguments(
    meth: Method, scores, model, level, top_k, n_boot, epsilon, rng, kind, interval, joint
) -> np.ndarray:
    """The argument checks of :func:`intervals` (after the method's); returns the scores."""
    try:
        s = np.asarray(scores, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"scores must be an array of numbers, got {scores!r}") from None
    if s.ndim != 1 or s.size < 2 or not np.all(np.isfinite(s)):
        raise IntervalError(f"method {meth.name}: scores must be a finite 1-d array of >= 2 items")
    n = s.size
    _checks.real(level, "level")
    if top_k is not None:
        _checks.count(top_k, "top_k")
    _checks.count(n_boot, "n_boot")
    _checks.text(model, "model")
    if epsilon is not None:
        _checks.real(epsilon, "epsilon")
    if rng is not None and not isinstance(rng, np.random.Generator):
        _checks.count(rng, "rng")
    if not 0 < float(level) < 1:
        raise IntervalError(f"level must be in (0, 1), e.g. 0.95; got {level!r}")
    if top_k is not None and not 1 <= int(top_k) <= n:
        raise IntervalError(f"top_k must be between 1 and {n}, got {top_k!r}")
    if int(n_boot) < 20:
        raise IntervalError(f"n_boot must be at least 20, got {n_boot!r}")
    if kind not in ("auto", "bootstrap", "asymptotic"):
        raise IntervalError(f"kind must be 'auto', 'bootstrap' or 'asymptotic', got {kind!r}")
    if interval not in ("default", "percentile"):
        raise IntervalError(f"interval must be 'default' or 'percentile', got {interval!r}")
    if not isinstance(joint, (bool, np.bool_)):
        raise IntervalError(f"joint must be True or False, got {joint!r}")
    if meth.models and model not in meth.models:
        raise IntervalError(
            f"method {meth.name} supports the model(s) {list(meth.models)}, not {model!r}"
        )
    return s


def _budget(meth: Method, epsilon) -> float:
    """The ``epsilon`` the method's release used (``inf`` for local and non-private ones)."""
    if meth.private and meth.trust_model != "local":
        if epsilon is None or not float(epsilon) > 0 or math.isinf(float(epsilon)):
            raise IntervalError(f"method {meth.name} needs its positive, finite epsilon")
        eps = float(epsilon)
    else:
        eps = np.inf
    return eps


def _released_total(meth: Method, s, calibration):
    """``(lo, hi)``: the number of comparisons that noisy counts give (their sum, +- 3 sd of
    the noise's sum), or None for releases that do not give it."""
    if _FAMILY[meth.name] != "counts" or calibration.get("noise") != "laplace":
        return None
    sd = math.sqrt(2.0 * s.size) * float(calibration["noise_scale"])
    total = float(np.sum(s))
    return total - 3.0 * sd, total + 3.0 * sd


def _resolve_kind(kind: str, meth: Method, des, n: int, model: str) -> str:
    """``auto``: the bootstrap where affordable (:data:`AUTO_BOOTSTRAP_ITEMS`), else asymptotic."""
    local_tm = meth.trust_model == "local" and model != "btl"
    if kind == "asymptotic" and local_tm:
        raise IntervalError(
            f"method {meth.name}: kind='asymptotic' needs the win totals of the Bradley-Terry "
            "model under local DP; use kind='bootstrap' with model='tm'"
        )
    if kind != "auto":
        return kind
    if local_tm:
        return "bootstrap"
    if isinstance(des, UserDesign):
        comparisons = des.n_users * des.L
    elif isinstance(des, _LocalDesign):
        comparisons = float(des.release.n_comparisons)
    else:
        comparisons = float(des.count.sum())
    small = n <= AUTO_BOOTSTRAP_ITEMS and comparisons <= AUTO_BOOTSTRAP_COMPARISONS
    return "bootstrap" if small else "asymptotic"


def intervals(
    scores,
    method: str | Method,
    epsilon: float | None,
    design,
    *,
    model: str = "btl",
    level: float = 0.95,
    top_k: int | None = None,
    n_boot: int = 200,
    rng: np.random.Generator | int | None = None,
    kind: str = "auto",
    joint: bool = False,
    interval: str = "default",
    calibration: Mapping[str, Any] | None = None,
    options: Mapping[str, Any] | None = None,
    items=None,
) -> pd.DataFrame:
    """Intervals for each item's score and rank, and its tie class, from public inputs only.

    The construction is stated in the module docstring (:mod:`dprank.intervals`)
    and in docs/intervals.md.

    Parameters
    ----------
    scores : (n,) array_like
        The released scores.
    method : str or Method
        Registry name (:func:`dprank.methods.get_method`) of the method that
        released them.
    epsilon : float or None
        Its budget (central methods; ``None`` for local and non-private ones).
    design
        The public design (:func:`public_design`): :class:`EdgeDesign` (or a
        Comparisons, whose outcomes are dropped) for edge DP and non-private
        methods, :class:`UserDesign` for individual DP, the release for
        local DP.
    model : {"btl", "tm"}
        Comparison model the bootstrap draws from (and the method fits).
    level : float
        Nominal coverage, in (0, 1): of each item's interval (marginal), or of
        all items' at once with ``joint``.
    top_k : int, optional
        Also return ``p_top_k``, each item's probability of being among the top ``k``.
    n_boot : int
        Bootstrap releases (``kind="bootstrap"``) and at least this many posterior draws.
    rng : numpy.random.Generator or int, optional
        Source of the bootstrap's comparisons and noise and of the posterior draws.
    kind : {"auto", "bootstrap", "asymptotic"}
        The error law from refits through the registry, or its linearisation
        (fast on large designs); ``auto`` picks the bootstrap up to
        :data:`AUTO_BOOTSTRAP_ITEMS` items.
    joint : bool
        Simultaneous intervals: the score and rank intervals of all items hold at
        once at ``level`` (wider than the marginal ones).
    interval : {"default", "percentile"}
        ``percentile``: the plain parametric bootstrap of the release (the
        coverage study's comparator) instead of the construction above.
    calibration : mapping, optional
        The release's ``Fit.details`` (ridge, noise scale, ``lambda``: functions
        of public quantities); default: read from a fit on simulated data.
    options : mapping, optional
        Options of the method (as given to :func:`dprank.rank`).
    items : array_like, optional
        Item labels (default ``0..n-1``).

    Returns
    -------
    pandas.DataFrame
        ``item, estimate, score_lo, score_hi, rank_lo, rank_hi`` (``p_top_k`` with
        ``top_k``), ``tie_class``, ``informative``, in item order. ``estimate`` is
        the centre of the score intervals: the model's parameter estimated from the
        release, centred to weighted mean 0 (weights:
        ``numpy.asarray(attrs["weights"])``); the score bounds refer to the
        parameters centred the same way and are infinite
        where the release does not bound them. Ranks: 1 = best. ``tie_class``: 1 for
        the best group of items whose order the release cannot resolve (from the
        simultaneous intervals at ``level``). ``informative``: finite score bounds
        and a rank interval over less than :data:`INFORMATIVE_SHARE` of the places.
        ``attrs`` also holds ``kind`` (the form used), ``level`` and ``joint``.

    Raises
    ------
    IntervalError
        (a ValueError) naming the method, for methods without intervals
        (:data:`NO_INTERVALS`), a design that does not fit the method, or a
        bad ``level``, ``top_k``, ``n_boot``, ``kind``, ``interval`` or ``joint``.
    """
    meth = _check_method(method)
    s = _check_arguments(
        meth, scores, model, level, top_k, n_boot, epsilon, rng, kind, interval, joint
    )
    try:
        link = get_link(model)
    except ValueError as err:
        raise IntervalError(f"method {meth.name}: {err}") from None
    des = _design_for(meth, design, s.size)
    eps = _budget(meth, epsilon)
    rng = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)
    kind = _resolve_kind(kind, meth, des, s.size, model)
    opts = {"model": model, **dict(options or {})}
    if top_k is not None:
        opts["top_k"] = int(top_k)

    def run(data: Comparisons) -> Fit:
        if meth.trust_model == "local":
            return meth.run(data, data.user_epsilon, rng, **opts)
        return meth.fit(data, eps, rng, **opts)

    if calibration is None:
        calibration = run(des.simulate(s - s.mean(), link, rng)).details
    worlds = [des]
    if isinstance(des, UserDesign):
        worlds = [des.at_total(m) for m in des.totals(_released_total(meth, s, calibration))]
    alpha = 1.0 - float(level)
    found = []
    for world in worlds:
        prob = _Problem(meth, link, world, eps, calibration, run)
        found.append(_analyse(prob, s, kind, interval, alpha, int(n_boot), rng))
    # individual DP: the designs the release is consistent with (always the largest)
    kept = [w for w in found[:-1] if w.consistent] + [found[-1]]
    frame = _frame(kept, alpha, top_k, int(n_boot), joint, rng, items)
    frame.attrs.update(
        kind=kind,
        level=float(level),
        joint=bool(joint),
        interval=interval,
        designs=len(kept),
    )
    return frame


def _frame(worlds, alpha, top_k, n_boot, joint, rng, items) -> pd.DataFrame:
    """Steps 4 to 6 on each design, and their union (one design but for individual DP)."""
    main = worlds[-1]
    n = main.t.size
    parts = [_rank_parts(w, alpha, top_k, n_boot, rng) for w in worlds]
    rank_lo = np.min([p[0] for p in parts], axis=0)
    rank_hi = np.max([p[1] for p in parts], axis=0)
    score_lo = np.min([w.score_lo for w in worlds], axis=0)
    score_hi = np.max([w.score_hi for w in worlds], axis=0)
    band_lo = np.min([w.band_lo for w in worlds], axis=0)
    band_hi = np.max([w.band_hi for w in worlds], axis=0)
    joint_lo, joint_hi = _ir.band_ranks(band_lo, band_hi)
    if joint:
        score_lo, score_hi, rank_lo, rank_hi = band_lo, band_hi, joint_lo, joint_hi
    labels = np.arange(n).astype(str) if items is None else np.asarray(items).astype(str)
    frame = pd.DataFrame(
        {
            "item": labels,
            "estimate": main.t if main.centre is None else main.centre,
            "score_lo": score_lo,
            "score_hi": score_hi,
            "rank_lo": rank_lo.astype(np.int64),
            "rank_hi": rank_hi.astype(np.int64),
        }
    )
    if top_k is not None:
        frame["p_top_k"] = np.mean([p[2] for p in parts], axis=0)
    frame["tie_class"] = _ir.tie_classes(joint_lo, joint_hi).astype(np.int64)
    width = rank_hi - rank_lo + 1
    frame["informative"] = (
        np.isfinite(score_lo) & np.isfinite(score_hi) & (width < INFORMATIVE_SHARE * n)
    )
    frame.attrs["weights"] = _AttrArray(main.w)
    return frame
