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
    :class:`UserDesign`: the number of items ``n``, of users ``m`` and the
    declared per-user bound ``L``. Which pairs a user compared is private;
    the design is redrawn as in Paper A section 3 (each user compares ``L``
    pairs drawn uniformly with replacement).
local (Paper B)
    The release itself (:class:`dprank.comparisons.Comparisons` with
    ``user_epsilon``): it *is* what the users published.

Construction (:func:`intervals`)
--------------------------------
1. **Debiasing by inversion.** Every scoring method of the registry is, given
   the public design ``N`` (comparisons per pair, user-weighted for Paper B's
   weighted likelihood), a function of noisy *win totals* ``W~``, the
   sufficient statistic of the Bradley-Terry-Luce model: the perturbed,
   ridge-penalised MLEs (Algorithm 1, Algorithm 3, NoisyObj, the non-private
   fit, Paper B's weighted MLEs) satisfy
   ``sum_j N_ij F(s_i - s_j) + r s_i = W~_i`` at their released scores ``s``
   (``r`` the method's ridge, ``W~`` the win totals minus the objective's
   linear noise), and the count methods release ``W~`` itself. So ``W~`` is
   computed from the release, shifted to sum to the number of comparisons,
   and the model's parameters are estimated from it with a ridge ``rho``:
   ``sum_j N_ij F(t_i - t_j) + rho t_i = W~_i``. The result ``t`` (centred)
   undoes the shrinkage of the methods' ridges (Algorithm 1's
   ``2 sqrt(d log n)`` shrinks scores several-fold on dense designs); the
   count methods are scored by this BTL fit of their noisy counts, which is
   the natural estimator because counts are the BTL sufficient statistic.
2. **Noise-adapted ridge** (``ridge="eb"``, :func:`_eb_ridge`): ``rho`` is the
   posterior mean's ridge of the linearised model under the working prior
   ``theta ~ N(0, tau^2)``, ``tau`` matched to the spread of ``W~`` given the
   noise law's variance on it (for individual and local DP measured on
   :data:`NOISE_PILOTS` releases simulated at ``theta = 0`` from the public
   design). Where the privacy noise dominates it shrinks ``t`` strongly
   instead of letting noisy totals outside the attainable range give extreme
   estimates. A number gives a fixed ridge relative to the mean information.
3. **Parametric bootstrap** (``kind="bootstrap"``). ``n_boot`` times:
   comparisons drawn from the model at ``t`` on the public design (a new
   design for individual DP), the privacy noise redrawn from its law by the
   registry's own ``Method.fit`` (central) or ``Method.run`` (local: the
   users' randomized response, then the fit) with a seeded
   :class:`numpy.random.Generator`, then step 1 on the refit's scores
   (warm-started at ``t``; the registry's refits start from their own
   default, one draw at a time).
4. **Intervals.** ``interval="eb"`` (default): empirical-Bayes draws
   ``t + (t*_b - mean t*) + bias_b``, ``bias_b`` the ridge's shrinkage bias at
   a parameter drawn from the fitted prior plus Morris's (1983) term for the
   estimated ``tau`` (:func:`_shrinkage_draws`); their level holds on average
   over the items. ``"basic"``: draws ``2 t - t*_b``, which correct the
   first-order bias of a small ridge; ``"percentile"``: draws ``t*_b``.
   Score bounds are the ``(1 - level)/2`` and ``(1 + level)/2`` quantiles of the
   draws per item; rank bounds the lower and upper quantiles of each item's
   rank among the draws; ``p_top_k`` the share of draws in which the item is
   among the top ``k``. All are *marginal* (per item), not simultaneous.

``kind="asymptotic"`` (edge DP and non-private methods only) replaces the
refits by their linearisation at ``t``, Gaussian with mean ``t - H^-1 rho t``
and covariance ``H^-1 (S + noise) H^-1``: ``H`` the Hessian of step 1 at ``t``
(the Laplacian of weights ``N f(t_i - t_j)`` plus ``rho``), ``S`` the sampling
covariance of the win totals (the Laplacian of weights ``N F (1 - F)``) and
the noise's variance on ``W~`` from the mechanism's law. Up to
:data:`DENSE_MAX` items the covariance is exact; above, its diagonal
(``O(1 / degree)`` off-diagonal terms dropped, independent draws per item),
which makes it the fast form for large, well-connected designs.

The score bounds refer to the model's parameters ``theta`` centred to mean 0,
for every method, including the count methods, whose released score is a
count; ``estimate`` is ``t``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from . import _checks
from ._interval_equation import (  # noqa: F401 (documented here)
    DENSE_MAX,
    MIN_RELATIVE_RIDGE,
    SATURATION,
    _dense_laplacian,
    _eb_ridge,
    _Equation,
    _pdf,
)
from .comparisons import Comparisons
from .ldp import adrr_weights
from .methods import Fit, Method, get_method
from .models import Link, get_link
from .simulate import pair_from_index
from .weighted_mle import noisy_obj_calibration

__all__ = [
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

#: A fixed ridge of the debiased fit (step 1), relative to the mean information per item
#: (``ridge=RELATIVE_RIDGE``; the default ``ridge="eb"`` adapts it to the noise).
RELATIVE_RIDGE = 0.02

#: Simulated releases at ``theta = 0`` that measure the noise on the win totals where
#: the mechanism's law does not give it in closed form (individual and local DP).
NOISE_PILOTS = 20


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

    Which pairs a user compared is private; the design is redrawn as in Paper
    A section 3: each user compares ``L`` pairs drawn uniformly, with
    replacement, from the ``n (n - 1) / 2`` pairs.
    """

    n_items: int
    n_users: int
    L: int

    def __post_init__(self):
        for name in ("n_items", "n_users", "L"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
                raise IntervalError(f"UserDesign.{name} must be a positive integer, got {v!r}")
        if self.n_items < 2:
            raise IntervalError("UserDesign needs at least 2 items")

    def weights(self, n_items: int):
        """Expected comparisons per pair: ``m L / (n (n - 1) / 2)`` on every pair."""
        n = self.n_items
        a, b = np.triu_indices(n, 1)
        return a, b, np.full(a.size, self.n_users * self.L / a.size)

    def simulate(self, theta, link: Link, rng: np.random.Generator) -> Comparisons:
        """``m`` users, ``L`` uniform random pairs each, outcomes from ``link`` at ``theta``."""
        n, m, L = self.n_items, self.n_users, self.L
        k = rng.integers(0, n * (n - 1) // 2, size=m * L)
        a, b = pair_from_index(k, n)
        user = np.repeat(np.arange(m, dtype=np.int64), L)
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


def public_design(comparisons: Comparisons, method: str | Method, max_per_user: int | None = None):
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

    Returns
    -------
    EdgeDesign, UserDesign or Comparisons
        Edge DP and non-private: the graph (outcomes dropped). Individual DP:
        ``n``, ``m``, ``L``. Local DP: the release itself.
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
        return UserDesign(int(comparisons.n_items), int(comparisons.n_users), int(L))
    return EdgeDesign.from_comparisons(comparisons)


# --------------------------------------------------------------------------- release -> win totals


def _ridge(name: str, details: Mapping[str, Any], eps: float) -> float:
    if name == "edge_noisy_obj":
        return noisy_obj_calibration(eps, float(details.get("delta", 1e-6)))[0]
    if name.startswith("local_"):
        return 2.0 * float(details["lambda"])  # B2 objective (5): lambda ||theta||^2
    return float(details["gamma"])


def _win_totals(name, scores, details, eq_release: _Equation, eps, total):
    """Noisy win totals ``W~`` of a release, shifted to sum to ``total``."""
    s = np.asarray(scores, dtype=np.float64)
    if _FAMILY[name] == "counts":
        w = s.copy()
    else:
        w = eq_release.expected_wins(s) + _ridge(name, details, eps) * s
    return w + (total - w.sum()) / w.size


def _noise_variance(meth: Method, details: Mapping[str, Any], eps: float) -> float | None:
    """Variance the mechanism's law adds to each noisy win total, or None if not closed-form."""
    if not meth.private:
        return 0.0
    if meth.name == "edge_noisy_obj":
        return noisy_obj_calibration(eps, float(details.get("delta", 1e-6)))[1] ** 2
    if details.get("noise") == "laplace":
        return 2.0 * float(details["noise_scale"]) ** 2
    return None


# --------------------------------------------------------------------------- the intervals


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
    meth: Method, scores, model, level, top_k, n_boot, epsilon, rng, kind, interval, ridge
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
    if kind not in ("bootstrap", "asymptotic"):
        raise IntervalError(f"kind must be 'bootstrap' or 'asymptotic', got {kind!r}")
    if interval not in ("eb", "basic", "percentile"):
        raise IntervalError(f"interval must be 'eb', 'basic' or 'percentile', got {interval!r}")
    if isinstance(ridge, str):
        if ridge != "eb":
            raise IntervalError(f"ridge must be 'eb' or a positive number, got {ridge!r}")
    else:
        _checks.real(ridge, "ridge")
        if not 0 < float(ridge) < math.inf:
            raise IntervalError(f"ridge must be 'eb' or a positive number, got {ridge!r}")
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


def _debiased_fit(meth, des, s, calibration, eps, link, ridge, interval, run, rng):
    """Steps 1 and 2 of the construction: the win totals of the release and their fit.

    Returns ``(eq, eq_release, total, t, tau)``: the debiased score equation (with its
    ridge ``rho``) and that without ridge, the number of comparisons, the centred
    estimate ``t`` and the prior's ``tau`` (None where neither ``ridge`` nor
    ``interval`` is ``"eb"``).
    """
    n = s.size
    tau = None
    if isinstance(des, _LocalDesign):
        a, b, N = des.weights(n, calibration)
    else:
        a, b, N = des.weights(n)
    total = float(N.sum())
    eq_release = _Equation(n, a, b, N, link, 0.0)
    w_obs = _win_totals(meth.name, s, calibration, eq_release, eps, total)
    if ridge == "eb" or interval == "eb":
        noise_var = _noise_variance(meth, calibration, eps)
        sampling = True
        if noise_var is None or not isinstance(des, EdgeDesign):
            noise_var, sampling = _measured_noise(
                run, des, meth.name, eq_release, eps, total, link, n, rng
            )
        rho, tau = _eb_ridge(w_obs, noise_var, a, b, N, link, sampling)
    if ridge != "eb":
        rho = float(ridge) * 2.0 * total / n * float(_pdf(link, np.zeros(1))[0])
    eq = _Equation(n, a, b, N, link, rho)
    # start: one Jacobi step from 0 (a Newton step with the Hessian's diagonal)
    h0 = _pdf(link, np.zeros(1))[0] * (np.bincount(a, N, n) + np.bincount(b, N, n)) + rho
    half = 0.5 * (np.bincount(a, N, n) + np.bincount(b, N, n))
    t = eq.solve(w_obs, theta0=(w_obs - half) / h0)
    t -= t.mean()
    return eq, eq_release, total, t, tau


def _score_draws(
    meth, des, eq, eq_release, t, calibration, eps, total, kind, interval, tau, n_boot, run, rng
) -> np.ndarray:
    """Steps 3 and 4: the bootstrap's (or linearised) draws, made into ``interval``'s draws."""
    n, link = t.size, eq.link
    if kind == "asymptotic":
        draws = _linearised_draws(meth, des, eq, t, calibration, eps, int(n_boot), rng)
    else:
        draws = np.empty((int(n_boot), n))
        for r in range(int(n_boot)):
            fit = run(des.simulate(t, link, rng))
            w = _win_totals(meth.name, fit.scores, fit.details, eq_release, eps, total)
            draws[r] = eq.solve(w, theta0=t)
    draws -= draws.mean(axis=1, keepdims=True)
    if interval == "basic":
        draws = 2.0 * t - draws
    elif interval == "eb":
        draws = t + (draws - draws.mean(axis=0)) + _shrinkage_draws(eq, t, tau, draws.shape[0], rng)
        draws -= draws.mean(axis=1, keepdims=True)
    return draws


def _frame(draws: np.ndarray, t: np.ndarray, level, top_k, items) -> pd.DataFrame:
    """Score and rank bounds of each item from the draws (step 4), in item order."""
    n = t.size
    alpha = (1.0 - float(level)) / 2.0
    lo, hi = np.quantile(draws, [alpha, 1.0 - alpha], axis=0)
    ranks = _ranks(draws)
    rlo = np.quantile(ranks, alpha, axis=0, method="lower")
    rhi = np.quantile(ranks, 1.0 - alpha, axis=0, method="higher")
    labels = np.arange(n).astype(str) if items is None else np.asarray(items).astype(str)
    frame = pd.DataFrame(
        {
            "item": labels,
            "estimate": t,
            "score_lo": lo,
            "score_hi": hi,
            "rank_lo": rlo.astype(np.int64),
            "rank_hi": rhi.astype(np.int64),
        }
    )
    if top_k is not None:
        frame["p_top_k"] = np.mean(ranks <= int(top_k), axis=0)
    return frame


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
    kind: str = "bootstrap",
    interval: str = "eb",
    calibration: Mapping[str, Any] | None = None,
    options: Mapping[str, Any] | None = None,
    items=None,
    ridge: float | str = "eb",
) -> pd.DataFrame:
    """Marginal intervals for each item's score and rank, from public inputs only.

    The construction (debiasing by inversion, parametric bootstrap redrawing
    comparisons and privacy noise, basic or percentile intervals) is stated
    in the module docstring, :mod:`dprank.intervals`.

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
        Nominal marginal coverage, in (0, 1).
    top_k : int, optional
        Also return ``p_top_k``, each item's share of draws in the top ``k``.
    n_boot : int
        Bootstrap draws.
    rng : numpy.random.Generator or int, optional
        Source of the bootstrap's comparisons and noise.
    kind : {"bootstrap", "asymptotic"}
        Refits through the registry, or their linearisation (edge DP and
        non-private methods only; fast on large designs).
    interval : {"eb", "basic", "percentile"}
        How the draws make intervals (module docstring, step 4): empirical
        Bayes (level on average over items), basic or percentile.
    calibration : mapping, optional
        The release's ``Fit.details`` (ridge, noise scale, ``lambda``: functions
        of public quantities); default: read from a fit on simulated data.
    options : mapping, optional
        Options of the method (as given to :func:`dprank.rank`).
    items : array_like, optional
        Item labels (default ``0..n-1``).
    ridge : "eb" or float
        Ridge ``rho`` of the debiased fit: ``"eb"``, the noise-adapted
        empirical-Bayes choice (:func:`_eb_ridge`), or a number, fixed relative
        to the design's mean information per item (e.g. :data:`RELATIVE_RIDGE`).

    Returns
    -------
    pandas.DataFrame
        ``item, estimate, score_lo, score_hi, rank_lo, rank_hi`` (and ``p_top_k``),
        in item order. ``estimate`` and the score bounds refer to the model's
        parameters centred to mean 0; ranks: 1 = best.

    Raises
    ------
    IntervalError
        (a ValueError) naming the method, for methods without intervals
        (:data:`NO_INTERVALS`), a design that does not fit the method, or a
        bad ``level``, ``top_k``, ``n_boot``, ``kind``, ``interval`` or ``ridge``.
    """
    meth = _check_method(method)
    s = _check_arguments(
        meth, scores, model, level, top_k, n_boot, epsilon, rng, kind, interval, ridge
    )
    try:
        link = get_link(model)
    except ValueError as err:
        raise IntervalError(f"method {meth.name}: {err}") from None
    des = _design_for(meth, design, s.size)
    eps = _budget(meth, epsilon)
    rng = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)
    opts = {"model": model, **dict(options or {})}
    if top_k is not None:
        opts["top_k"] = int(top_k)

    def run(data: Comparisons) -> Fit:
        if meth.trust_model == "local":
            return meth.run(data, data.user_epsilon, rng, **opts)
        return meth.fit(data, eps, rng, **opts)

    if calibration is None:
        calibration = run(des.simulate(s - s.mean(), link, rng)).details
    eq, eq_release, total, t, tau = _debiased_fit(
        meth, des, s, calibration, eps, link, ridge, interval, run, rng
    )
    draws = _score_draws(
        meth, des, eq, eq_release, t, calibration, eps, total, kind, interval, tau,
        int(n_boot), run, rng,
    )  # fmt: skip
    return _frame(draws, t, level, top_k, items)


def _measured_noise(run, des, name, eq_release, eps, total, link, n, rng) -> float:
    """Variance of the noise on the win totals beyond BTL sampling, from releases at 0.

    :data:`NOISE_PILOTS` releases on data simulated at ``theta = 0`` from the
    public design (redrawn for individual DP) and the mechanism's law; their
    mean spread of the win totals over items, less the sampling part
    ``F(0) (1 - F(0)) tr(L) / (n - 1)``.
    """
    zero = np.zeros(n)
    spread = 0.0
    for _ in range(NOISE_PILOTS):
        fit = run(des.simulate(zero, link, rng))
        w = _win_totals(name, fit.scores, fit.details, eq_release, eps, total)
        spread += float(np.sum((w - w.mean()) ** 2)) / (n - 1) / NOISE_PILOTS
    if isinstance(des, _LocalDesign):
        return spread, False  # weighted totals: sampling and response noise measured together
    f0 = float(link.cdf(np.zeros(1))[0])
    return max(0.0, spread - f0 * (1.0 - f0) * 2.0 * total / (n - 1)), True


def _shrinkage_draws(eq: _Equation, t, tau: float, n_boot: int, rng) -> np.ndarray:
    """Draws of the ridge's shrinkage bias, for the ``eb`` interval.

    Two independent parts. The bias ``-rho (H + rho)^-1 theta`` of the
    linearised fit at a parameter drawn from the fitted prior ``N(0, tau^2 I)``
    (centred), ``H`` the Hessian of the debiased fit at ``t`` without its ridge.
    And Morris's (1983) term for the estimated ``tau``: per item a normal of
    variance ``2 / (n - 3)`` times the square of the shrinkage applied to it,
    ``rho H^+ t`` (the unshrunk linearised estimate less ``t``). Exact up to
    :data:`DENSE_MAX` items, per item (``H_ii``) above.
    """
    n, a, b = eq.n, eq.a, eq.b
    z = tau * rng.standard_normal((n_boot, n))
    z -= z.mean(axis=1, keepdims=True)
    v = eq.hessian_weights(t)
    if n <= DENSE_MAX:
        H = _dense_laplacian(n, a, b, v, eq.rho)
        bias = -eq.rho * np.linalg.solve(H, z.T).T
        shrink = eq.rho * np.linalg.lstsq(H - eq.rho * np.eye(n), t, rcond=None)[0]
    else:
        h = np.bincount(a, v, n) + np.bincount(b, v, n)
        bias = -eq.rho * z / (h + eq.rho)
        shrink = eq.rho * t / np.maximum(h, 1e-12 * eq.rho)
    if n > 3:
        bias += math.sqrt(2.0 / (n - 3)) * shrink * rng.standard_normal((n_boot, n))
    return bias


def _ranks(draws: np.ndarray) -> np.ndarray:
    """Rank (1 = highest) of every item in every row of ``draws`` (continuous: no ties)."""
    ranks = np.empty(draws.shape, dtype=np.int64)
    positions = np.arange(1, draws.shape[1] + 1)
    for r, row in enumerate(draws):
        ranks[r, np.argsort(-row)] = positions
    return ranks


def _linearised_draws(meth, des, eq: _Equation, t, details, eps, n_boot, rng):
    """Gaussian draws of the bootstrap's refits linearised at ``t``.

    A refit is ``t + H^-1 (xi + e - rho t)`` to first order, ``H`` the Hessian of
    the debiased fit at ``t``, ``xi`` the win totals' sampling error (covariance
    ``Laplacian(N F (1 - F))``) and ``e`` the noise on the win totals (variance
    ``2 s^2`` for Laplace(s), ``sigma^2`` for Gaussian, per item). Up to
    :data:`DENSE_MAX` items the draws have the exact covariance
    ``H^-1 (Laplacian + noise) H^-1``; above, its diagonal approximation
    ``(Laplacian_ii + noise) / H_ii^2`` (off-diagonal terms are ``O(1 / degree)``
    on well-connected graphs), with independent draws per item.
    """
    if not isinstance(des, EdgeDesign):
        raise IntervalError(
            f"method {meth.name}: kind='asymptotic' covers edge DP and non-private methods; "
            "use kind='bootstrap'"
        )
    n, a, b = eq.n, eq.a, eq.b
    p = eq.link.cdf(t[a] - t[b])
    vs = eq.N * p * (1.0 - p)  # sampling variance of each pair's wins
    v = eq.hessian_weights(t)
    if meth.name == "edge_noisy_obj":
        noise_var = noisy_obj_calibration(eps, float(details.get("delta", 1e-6)))[1] ** 2
    elif details.get("noise") == "laplace":
        noise_var = 2.0 * float(details["noise_scale"]) ** 2
    else:
        noise_var = 0.0
    if n <= DENSE_MAX:
        H = _dense_laplacian(n, a, b, v, eq.rho)
        M = _dense_laplacian(n, a, b, vs, noise_var)
        Hinv = np.linalg.inv(H)
        mean = t - Hinv @ (eq.rho * t)
        cov = Hinv @ M @ Hinv
        w, U = np.linalg.eigh(0.5 * (cov + cov.T))
        root = U * np.sqrt(np.clip(w, 0.0, None))
        return mean + rng.standard_normal((n_boot, n)) @ root.T
    h = np.bincount(a, v, n) + np.bincount(b, v, n) + eq.rho
    var = (np.bincount(a, vs, n) + np.bincount(b, vs, n) + noise_var) / h**2
    return (t - eq.rho * t / h) + np.sqrt(var) * rng.standard_normal((n_boot, n))
