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
    declared range that is consistent with the release (the union over them;
    candidate totals the release cannot tell apart share one rank computation on
    the envelope of their estimates, :func:`dprank.intervals._interval_designs.envelope`).
local (Paper B)
    The release itself (:class:`dprank.data.comparisons.Comparisons` with
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
   of its empirical-Bayes factor, so that its spread matches the prior's;
   the estimate itself under the Thurstone model) on the public design, the
   privacy noise redrawn by the registry's own ``Method.fit``/``Method.run``,
   each turned into ``t*`` by step 1;
   ``t* - theta_ref`` is the error law. ``kind="asymptotic"``: its
   linearisation at ``theta_ref``, the sampling covariance of the win totals
   and the mechanism's noise law mapped through the Hessian (exact up to
   :data:`DENSE_MAX` items, its diagonal above). ``kind="auto"`` takes the
   bootstrap where it is affordable (:data:`AUTO_BOOTSTRAP_ITEMS`) and the
   asymptotic form elsewhere. Where the noise law is measured on simulated
   releases (local DP), the bootstrap's variance alone sets the quantiles.
3. **Scores.** Test inversion on each item's noisy total: the scores ``x`` at
   which ``sum_j N_ij F(x - t_j)`` lies within the quantiles of the noise law
   plus the sampling error (scaled to the error law's variance) of ``W~_i``.
   A total that is, within the noise, as high as winning every comparison (as
   low as losing every one) gives ``score_hi = inf`` (``score_lo = -inf``);
   one item's total never moves another item's bounds. (Thurstone: ``t_i``
   less the error law's quantiles.)
4. **Ranks.** The quantiles of each item's rank among draws from its
   empirical-Bayes posterior under the nonparametric maximum-likelihood prior
   of the scores (:func:`dprank.intervals._interval_ranks.npmle_prior`), extended to place
   1 for an item that none of the items estimated above it beats significantly
   (one-sided, each at ``(1 - level) / 2``) and to place ``n`` symmetrically: the
   posterior gives the width where the data order the items, the extension
   keeps the items at the ends covered (an item unbounded on one side is
   tested by its finite bound). An item whose score is unbounded on one side
   draws from the likelihood of its noisy win total where the design is public
   (edge DP, non-private: :class:`EdgeDesign`), as in step 5. Under individual
   DP (a declared bound, not the design) it may lie anywhere on that side (one
   unbounded above may outrank anyone): in each draw an item's worst rank
   counts every such item that may lie above it and its best rank only those
   surely above it, a censored item itself taken at its finite end (worst) and
   its unbounded end (best)
   (:func:`dprank.intervals._interval_ranks.censored_ranks`); the interval is
   the quantiles of these. Up to :data:`DENSE_MAX` items the draws are coupled
   by the posterior's correlation
   (:func:`dprank.intervals._interval_ranks.posterior_dependence`): positively
   correlated errors order neighbours more surely than independent draws do.
   The posterior's tail probability is calibrated
   (:func:`dprank.intervals._interval_ranks.calibrated_alpha`, up to
   :data:`dprank.intervals._interval_ranks.CALIBRATION_MAX_ITEMS` items): the largest
   multiple of ``1 - level`` whose extended intervals still cover ``level`` on
   worlds simulated at ``theta_ref`` with the items' variances (and correlations).
   With ``kind="bootstrap"`` the score and rank intervals of steps 3 and 4 are each
   widened to hold the plain parametric bootstrap's percentile intervals of the same
   draws moved to the estimate (``t + t* - theta_ref``): they cover at least as often
   as those, with no new draws; the calibration computes its worlds' intervals as this
   union too.
5. **p_top_k**: the posterior probability of being among the top ``k``, under a
   prior of its own (:func:`dprank.intervals._interval_ranks.top_k_prior`: step 4's
   fitted further and smoothed as far as the items' held-out likelihood supports); under a
   Laplace mechanism the posterior's likelihood is the Laplace-normal law of the
   estimate's error (:func:`dprank.intervals._interval_ranks.top_k_probability`), whose tails the
   normal of step 4 understates; an item unbounded on a side enters with the likelihood of
   its noisy win total (:class:`dprank.intervals._interval_likelihood.TotalLikelihood`), and the
   draws are coupled as step 4's.
6. **Simultaneous** (``joint=True``) and **tie classes**: the score band
   ``t +- q`` at the Sidak level ``1 - (1 - level)^(1/n)`` holds for all items
   at once; the ranks it implies hold at once too (Klein, Wright and
   Wieczorek 2020), widened where an item's marginal interval reaches further;
   tie classes are the groups of places the band's ranks
   cannot split (:func:`dprank.intervals._interval_ranks.tie_classes`).

``interval="percentile"`` gives the plain parametric bootstrap of the release
instead (draws at ``t``, their score and rank quantiles, the share of draws in
the top ``k``): the comparator of the coverage study.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import scipy.special

from ..base import _checks
from ..data.comparisons import Comparisons
from ..data.models import get_link
from ..methods import Fit, Method, get_method
from . import _interval_likelihood as _il
from . import _interval_ranks as _ir
from ._interval_attrs import AttrArray as _AttrArray
from ._interval_designs import (  # noqa: F401  (USER_DESIGN_GRID, MERGE_SD: re-exported)
    MERGE_SD,
    USER_DESIGN_GRID,
    EdgeDesign,
    IntervalError,
    LocalDesign,
    UserDesign,
    envelope,
    merged_groups,
)
from ._interval_equation import DENSE_MAX

if TYPE_CHECKING:  # pandas is imported where the frame is built (:func:`_frame`)
    import pandas as pd
from ._interval_problem import (  # noqa: F401  (the constants: re-exported)
    FAMILY,
    NOISE_PILOTS,
    RIDGE,
    VARIANCE_CAP,
    Problem,
    centre_of,
    design_weights,
    invert_totals,
    unbounded_sides,
)

__all__ = [
    "AUTO_BOOTSTRAP_ITEMS",
    "INFORMATIVE_SHARE",
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

#: ``kind="auto"`` takes the bootstrap up to this many items (and
#: :data:`AUTO_BOOTSTRAP_COMPARISONS` comparisons), the asymptotic form above.
AUTO_BOOTSTRAP_ITEMS = 250
AUTO_BOOTSTRAP_COMPARISONS = 200_000

#: Share of the places a rank interval may span and still count as informative.
INFORMATIVE_SHARE = 0.9


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
            "comparisons must be a dprank.data.comparisons.Comparisons, "
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
    ref: np.ndarray | None = None  # the error law's reference point (step 2)
    noise_share: np.ndarray | None = None  # Laplace part of each item's error variance
    solved: tuple | None = None  # the solvers' solutions: warm starts of the next candidate
    cov: np.ndarray | None = None  # the estimates' errors' covariance (up to DENSE_MAX items)
    tau2: float = 1.0  # the working normal prior's variance
    censored: _il.TotalLikelihood | None = None  # the censored items' likelihood (step 5)
    exact_totals: bool = False  # the design is public exactly: ``censored`` ranks them too
    hull: tuple | None = None  # the bootstrap draws' percentile intervals (scores, ranks)
    errors: np.ndarray | None = None  # the bootstrap's errors ``t* - ref`` (one row a draw)


def _binomial_quantile(q: float, n: int, p: float) -> int:
    """The smallest ``k`` with ``P(Binomial(n, p) <= k) >= q``."""
    k = np.arange(n + 1)
    return int(k[np.searchsorted(scipy.special.bdtr(k, n, p), q)])


def _analyse(prob: Problem, s, kind, interval, alpha, n_boot, rng, warm=None) -> _World:
    """Steps 1 to 3 (and the simultaneous band of step 6) on one public design, and what
    steps 4 and 5 need beyond them (the errors' covariance, the censored items' likelihood).

    ``warm``: the :attr:`_World.solved` of a neighbouring design (the previous candidate
    total of individual DP): its solutions start this design's solvers.
    """
    n = prob.n
    law = prob.law(rng)
    t, W = prob.estimate(s, prob.calibration, warm=None if warm is None else warm[0])
    solved = (getattr(prob, "solved", None), None)  # and the inverted totals' (below)
    alpha_n = 1.0 - (1.0 - alpha) ** (1.0 / n)  # Sidak: all items at once
    percentile = interval == "percentile"
    if percentile:  # the plain bootstrap: no bounds from the attainable totals
        up = down = np.zeros(n, dtype=bool)
    else:
        up, down = unbounded_sides(prob, W, law, alpha / 2.0, 1.0 - alpha / 2.0)
    finite = ~(up | down)
    # variances at a point without the unbounded items' extremes, then the reference
    lo_q, hi_q = np.quantile(t[finite], [0.01, 0.99]) if finite.any() else (-1.0, 1.0)
    tc = np.where(finite, np.clip(t, lo_q, hi_q), 0.0)
    v0, _, _ = prob.variances(tc - tc.mean(), law, exact=False)
    w = np.full(n, 1.0 / n) if percentile else design_weights(v0, finite)
    t = centre_of(t, w)
    tau2 = _ir.prior_scale(t, v0, finite, np.full(n, -np.inf), np.full(n, np.inf))
    shrink = np.where(finite, np.sqrt(tau2 / (tau2 + v0)), 0.0)
    # Thurstone: no win totals, and the linearisation of a weighted design (local DP)
    # does not give the estimate's variance: the bootstrap draws at the estimate itself
    plain = percentile or W is None
    ref = t.copy() if plain else centre_of(np.where(finite, shrink * t, 0.0), w)
    if not percentile and W is not None and not finite.all():
        # the censored items' estimates are not finite enough to lean on: their place
        # among all items by win rate, as a quantile of the prior
        rate = W / np.maximum(prob.deg, 1e-300)
        order = np.argsort(np.argsort(rate, kind="stable"), kind="stable")
        scores = math.sqrt(tau2) * _ir.ndtri((order + 0.5) / n)
        ref = centre_of(np.where(finite, ref, scores), w)
    # the others' scores in the inversion of step 3: the estimate itself (where the item's
    # total is exactly the estimate's expected one), the censored items at their places
    at = ref if percentile else centre_of(np.where(finite, t, ref), w)
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
    hull = errors = None
    if kind == "bootstrap":
        T = np.empty((int(n_boot), n))
        for r in range(int(n_boot)):
            fit = prob.run(prob.design.simulate(ref, prob.link, rng))
            T[r] = prob.estimate(fit.scores, fit.details, start=ref)[0]
        T = centre_of(T, w)
        if percentile:
            draws = T
        E = T - ref
        if not percentile:
            hull = _percentile_parts(t + E, alpha)
            errors = E
        q16, q84, qlo, qhi = np.quantile(E, [0.158655, 0.841345, alpha / 2, 1 - alpha / 2], axis=0)
        v = np.maximum(((q84 - q16) / 2.0) ** 2, 1e-300)
        quantiles = (qlo, qhi)
        if n <= DENSE_MAX and not percentile and W is not None and law.sampling:
            # the refits' estimates stop at the totals' attainable range (step 1), which
            # narrows their spread for the extreme items: never below the linearisation's
            v = np.maximum(v, prob.variances(ref, law, exact=True, w=w)[0])
    else:
        v, h, S = prob.variances(ref, law, exact=True, w=w)
        if percentile:
            draws = ref + np.sqrt(v) * rng.standard_normal((int(n_boot), n))
    if kind == "bootstrap":
        h, S = prob.linear_parts(ref, law)
    # the error law's variance beyond the item's own noise and sampling (the other items'
    # uncertainty; the design's under individual DP) widens the quantiles, never narrows
    # them below the noise law's (a bootstrap of clipped estimates spreads less)
    # (a law measured on simulated releases, local DP's, is an approximation at theta = 0:
    # there the bootstrap's variance holds, narrower or wider)
    floor = 1.0 if law.sampling or kind != "bootstrap" else 0.0
    factor = np.maximum(floor, np.sqrt(v / np.maximum((S + law.variance) / h**2, 1e-300)))
    sd_s = np.sqrt(S)
    lap = law.variance if law.kind == "laplace" else 0.0
    share = lap / np.maximum(lap + S, 1e-300) if lap > 0 else None
    levels = (1 - alpha / 2, alpha / 2, 1 - alpha_n / 2, alpha_n / 2, 0.5)
    q = np.array([_ir.mixture_quantile(law.kind, law.scale, sd_s, p) for p in levels]) * factor
    centre = t
    if percentile:
        score_lo, score_hi = np.quantile(draws, [alpha / 2, 1 - alpha / 2], axis=0)
        band_lo, band_hi = t - q[2] / h, t - q[3] / h
    elif W is not None:
        # test inversion on the win totals: robust where the noise reaches the totals' ends
        targets = W[None, :] - q
        inverted = invert_totals(prob, at, targets, None if warm is None else warm[1])
        score_lo, score_hi, band_lo, band_hi, centre = inverted
        solved = (solved[0], inverted)
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
    # the errors' covariance: their correlation couples the posterior draws of steps 4 and 5
    cov = None if percentile else prob.covariance(ref, law, w)
    censored = None
    if not percentile and W is not None and not finite.all():
        # the censored items' noisy totals as their likelihood (p_top_k, step 5), with the
        # noise and sampling variance of their score intervals' quantiles
        lap = law.variance if law.kind == "laplace" else 0.0
        censored = _il.TotalLikelihood(
            W, at, prob.a, prob.b, prob.N, prob.link.cdf, lap * factor**2,
            (S + law.variance - lap) * factor**2,
        )  # fmt: skip
    # edge DP and non-private releases: the comparison graph is public, so the censored
    # items' noisy totals have an exact likelihood (under individual DP only a bound is
    # declared, and a total beyond what the declared design attains may mean fewer
    # comparisons than it says: there step 4 places them at their ends)
    exact = isinstance(prob.design, EdgeDesign)
    return _World(
        t, v, w, score_lo, score_hi, band_lo, band_hi, finite, up, down, consistent, draws,
        centre, ref, share, solved, cov, tau2, censored, exact, hull, errors,
    )  # fmt: skip


def _percentile_parts(draws: np.ndarray, alpha: float) -> tuple:
    """``(score_lo, score_hi, rank_lo, rank_hi)``: the plain parametric bootstrap's
    marginal intervals from ``draws`` (one row per draw): each item's score quantiles and
    the quantiles of its rank among the draws."""
    score_lo, score_hi = np.quantile(draws, [alpha / 2, 1 - alpha / 2], axis=0)
    rank_lo, rank_hi = _ir.quantile_ranks(_ir.ranks_of_rows(draws), alpha)
    return score_lo, score_hi, rank_lo, rank_hi


# --------------------------------------------------------------------------- steps 4 to 6


def _rank_parts(world: _World, alpha: float, top_k, n_boot, rng, calibrate=True):
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
    # the errors' dependence couples the draws (up to DENSE_MAX items): neighbours whose
    # errors are positively correlated are ordered more surely than independent draws say
    dep = _ir.posterior_dependence(world.cov, vf, fin, world.tau2)
    nodes, weights = _ir.npmle_prior(world.t, vf, fin, lower, upper, rng)
    # the censored items' draws from their noisy totals' likelihood where it is exact
    exact = world.censored if world.exact_totals else None
    values = _ir.posterior_values(
        world.t, vf, fin, lower, upper, nodes, weights, draws, rng, 4096, None, dep, exact
    )
    post = alpha
    if calibrate:
        post = _ir.calibrated_alpha(
            world.t, vf, fin, alpha, nodes, weights, rng, world.ref, dep, world.errors
        )  # fmt: skip
    if fin.all() or exact is not None:
        ranks = _ir.ranks_of_rows(values)
        lo, hi = _ir.quantile_ranks(ranks, post)
    else:
        # a censored item whose total has no exact likelihood may lie anywhere on its
        # unbounded side (one unbounded above may outrank anyone): each item's interval
        # counts every item that may lie above it
        best, worst = _ir.censored_ranks(values, fin, lower, upper)
        lo = _ir.quantile_ranks(best, post)[0]
        hi = _ir.quantile_ranks(worst, post)[1]
    lo, hi = _ir.extend_to_ends(world.t, vf, fin, alpha, lo, hi, world.up, world.down, lower, upper)
    p = None
    # step 5: its own prior; the errors' dependence, the noise's own law, the censored
    # items' totals
    if top_k is not None:
        p = _ir.top_k_probability(
            world.t, vf, fin, lower, upper, world.noise_share, int(top_k), draws,
            rng.spawn(1)[0], dep, world.censored,
        )  # fmt: skip
    return lo, hi, p


#: The methods of comparisons with ties: their intervals are a bootstrap of their release
#: (:func:`dprank.privacy.private_ties.ties_intervals`, which :meth:`dprank.api.Ranking.intervals`
# calls).
TIES_METHODS = ("edge_ties", "individual_ties", "local_ties")


def supports(method: str | Method) -> bool:
    """Whether ``method`` (a registry name or Method) has intervals: :func:`intervals`, or for
    the ties methods (:data:`TIES_METHODS`) the bootstrap of their release."""
    if not isinstance(method, (str, Method)):
        raise TypeError(
            f"method must be a registry name (str) or a Method, got {type(method).__name__}"
        )
    name = method.name if isinstance(method, Method) else method
    return name in FAMILY or name in TIES_METHODS


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
            "Ranking.intervals() or dprank.privacy.private_ties.ties_intervals(fit.release, items)"
        )
    if meth.name not in FAMILY:
        raise IntervalError(
            f"method {meth.name} has no intervals: they invert the release of the registry's "
            f"scoring methods ({', '.join(FAMILY)})"
        )
    return meth


def _design_for(meth: Method, design, n: int):
    if meth.trust_model == "local":
        if not isinstance(design, Comparisons) or design.user_epsilon is None:
            raise IntervalError(
                f"method {meth.name} is local: pass its release (the Comparisons with users and "
                "user_epsilon) as design"
            )
        return LocalDesign(design)
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
    if FAMILY[meth.name] != "counts" or calibration.get("noise") != "laplace":
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
    elif isinstance(des, LocalDesign):
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
        ``attrs`` also holds ``kind`` (the form used), ``level``, ``joint``,
        ``located_per_design`` (how many items each candidate design alone would
        locate; the same number for candidates merged by
        :func:`dprank.intervals._interval_designs.merged_groups`) and, under
        individual DP, ``totals`` (the totals of comparisons the intervals hold for: the
        declared range as far as the release is consistent with it, one per candidate
        design).

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
    # the asymptotic form under individual DP: each candidate's solvers start from the
    # previous candidate's solutions (neighbouring totals: a few steps instead of a solve)
    warm = kind == "asymptotic" and isinstance(des, UserDesign)
    found = []
    for world in worlds:
        prob = Problem(meth, link, world, eps, calibration, run)
        prev = found[-1].solved if warm and found else None
        found.append(_analyse(prob, s, kind, interval, alpha, int(n_boot), rng, prev))
    # individual DP: the designs the release is consistent with (always the largest)
    keep = [w.consistent for w in found[:-1]] + [True]
    kept = [w for w, k in zip(found, keep, strict=True) if k]
    frame = _frame(kept, alpha, top_k, int(n_boot), joint, rng, items)
    frame.attrs.update(
        kind=kind,
        level=float(level),
        joint=bool(joint),
        interval=interval,
        designs=len(kept),
    )
    if isinstance(des, UserDesign):
        # the totals of comparisons the intervals hold for (the declared range, as far as
        # the release is consistent with it): where they span several, the items the
        # largest alone would locate say what declaring min_per_user could gain
        frame.attrs["totals"] = [float(w.total) for w, k in zip(worlds, keep, strict=True) if k]
    return frame


def _frame(worlds, alpha, top_k, n_boot, joint, rng, items) -> pd.DataFrame:
    """Steps 4 to 6 on each design, and their union (one design but for individual DP)."""
    import pandas as pd

    main = worlds[-1]
    n = main.t.size
    parts, located, sizes = [], [], []
    for group in merged_groups(worlds, alpha):
        w = group[0] if len(group) == 1 else envelope(group, alpha)
        part = _rank_parts(w, alpha, top_k, n_boot, rng)
        parts.append(part)
        sizes.append(len(group))
        found = int(np.sum(_informative(w.score_lo, w.score_hi, part[0], part[1], n)))
        located += [found] * len(group)
    rank_lo = np.min([p[0] for p in parts], axis=0)
    rank_hi = np.max([p[1] for p in parts], axis=0)
    score_lo = np.min([w.score_lo for w in worlds], axis=0)
    score_hi = np.max([w.score_hi for w in worlds], axis=0)
    band_lo = np.min([w.band_lo for w in worlds], axis=0)
    band_hi = np.max([w.band_hi for w in worlds], axis=0)
    joint_lo, joint_hi = _ir.band_ranks(band_lo, band_hi)
    hulls = [w.hull for w in worlds if w.hull is not None]
    if hulls:  # the bootstrap's draws: the union with their percentile intervals
        score_lo = np.min([score_lo] + [h[0] for h in hulls], axis=0)
        score_hi = np.max([score_hi] + [h[1] for h in hulls], axis=0)
        rank_lo = np.min([rank_lo] + [h[2] for h in hulls], axis=0)
        rank_hi = np.max([rank_hi] + [h[3] for h in hulls], axis=0)
    if joint:  # the simultaneous band, holding each item's marginal interval
        score_lo, score_hi = np.minimum(band_lo, score_lo), np.maximum(band_hi, score_hi)
        rank_lo, rank_hi = np.minimum(joint_lo, rank_lo), np.maximum(joint_hi, rank_hi)
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
    if top_k is not None:  # each candidate design's share (a merged group's for each of it)
        frame["p_top_k"] = np.average([p[2] for p in parts], axis=0, weights=sizes)
    frame["tie_class"] = _ir.tie_classes(joint_lo, joint_hi).astype(np.int64)
    frame["informative"] = _informative(score_lo, score_hi, rank_lo, rank_hi, n)
    frame.attrs["weights"] = _AttrArray(main.w)
    # items each design alone locates (marginal intervals; one design but for individual DP)
    frame.attrs["located_per_design"] = located
    return frame


def _informative(score_lo, score_hi, rank_lo, rank_hi, n: int) -> np.ndarray:
    """Finite score bounds and a rank interval over less than :data:`INFORMATIVE_SHARE` of
    the places."""
    width = rank_hi - rank_lo + 1
    return np.isfinite(score_lo) & np.isfinite(score_hi) & (width < INFORMATIVE_SHARE * n)
