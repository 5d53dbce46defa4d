"""Release to estimate, the noise law and the test inversion of :mod:`dprank.intervals`.

Steps 1 to 3 of the construction stated in :mod:`dprank.intervals`, for one
public design: the noisy win totals a release determines (:func:`_win_totals`),
the mechanism's noise law on them (:class:`_NoiseLaw`), the estimate and its
asymptotic variances (:class:`Problem`), and the inversion of each item's
expected win total (:func:`invert_totals`). Private: the public names live in
:mod:`dprank.intervals`.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..data.models import BTL, Link
from ..fit.weighted_mle import noisy_obj_calibration
from ..methods import Method
from . import _interval_ranks as _ir
from ._interval_designs import LocalDesign
from ._interval_equation import DENSE_MAX, Equation, cdf_pdf, dense_laplacian, pdf, quantile

# how the release maps to noisy win totals: "ridge" (released scores solve the
# penalised score equation; the ridge is read from the calibration) or "counts"
FAMILY = {
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

#: Simulated releases at ``theta = 0`` that measure the noise on the win totals where
#: the mechanism's law is not known in closed form (local DP, unknown release details).
NOISE_PILOTS = 20

#: The estimate of step 1 solves for totals within this share of an item's comparisons
#: from its ends (0 and all won).
_EDGE = 0.005

# release details the closed-form noise laws understand; any other key naming noise
# (an output perturbation, say) makes the intervals measure the noise by simulation
_KNOWN_DETAILS = frozenset(
    "noise noise_scale sensitivity sampler grid_exponent delta k max_per_user L gamma lambda "
    "solver weights epsilon_guaranteed ties".split()
)


def _ridge(name: str, details: Mapping[str, Any], eps: float) -> float:
    if name == "edge_noisy_obj":
        return noisy_obj_calibration(eps, float(details.get("delta", 1e-6)))[0]
    if name.startswith("local_"):
        return 2.0 * float(details["lambda"])  # B2 objective (5): lambda ||theta||^2
    return float(details["gamma"])


def _win_totals(name, scores, details, eq_release: Equation, eps):
    """Noisy win totals ``W~`` of a release: the true totals plus the mechanism's noise.

    The count methods release them; the ridge-penalised MLEs satisfy
    ``sum_j N_ij F(s_i - s_j) + r s_i = W~_i`` at their released scores. Each item's
    noise is its own (no shift to a common total: Algorithm 1's noise does not sum
    to 0, and spreading its sum over the items would let one item's noise move the
    others'); a release under a sum-to-zero constraint sums to the number of
    comparisons by itself.
    """
    s = np.asarray(scores, dtype=np.float64)
    if FAMILY[name] == "counts":
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
class Problem:
    """What is fixed across draws for one public design: the equation, the law, the map."""

    meth: Method
    link: Link
    design: Any
    eps: float
    calibration: Mapping[str, Any]
    run: Any

    def __post_init__(self):
        n = self.n = self.design.n_items
        if isinstance(self.design, LocalDesign):
            a, b, N = self.design.weights(n, self.calibration)
        else:
            a, b, N = self.design.weights(n)
        self.a, self.b, self.N = a, b, N
        self.total = float(N.sum())
        self.deg = np.bincount(a, N, n) + np.bincount(b, N, n)
        self.rho = (
            RIDGE * float(pdf(self.link, np.zeros(1))[0]) * max(float(self.deg.mean()), 1e-12)
        )
        self.eq0 = Equation(n, a, b, N, self.link, 0.0)
        self.eq = Equation(n, a, b, N, self.link, self.rho)
        self.btl = self.link.name == "btl"

    @functools.cached_property
    def sorted_pairs(self) -> bool:
        """Whether the pairs are sorted by their first item (the compiled loops of
        :func:`invert_totals` take them as rows; four blocks of ``n`` int32 indices)."""
        a = self.a
        return bool(np.all(a[1:] >= a[:-1])) and 4 * self.n < 2**31

    def estimate(self, scores, details, start=None, warm=None):
        """``(t, W~)``: the estimate of step 1 (not centred) and the win totals (None for TM).

        ``warm``: the :attr:`solved` ``(solution, ridge step)`` of a neighbouring design
        (another candidate total of individual DP) to start the Newton solver and the
        conjugate gradients from: the estimate then agrees with a cold start to the
        solvers' tolerances, not bit for bit. Keeps the solver's solution and the ridge
        step in :attr:`solved` (BTL and the counts' totals).
        """
        s = np.asarray(scores, dtype=np.float64)
        if not self.btl and FAMILY[self.meth.name] == "ridge":
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
        if start is None and warm is not None:
            start = warm[0]
        elif start is None:  # the probit approximation of each item's win rate
            c = 1.7 if self.btl else 1.0
            rate = np.clip(inside / np.maximum(self.deg, 1e-300), 1e-3, 1.0 - 1e-3)
            start = _ir.ndtri(rate) / c
        t = self.eq.solve(inside, theta0=start)
        # one Newton step to the unpenalised equation: t + (H + rho)^-1 rho t removes the
        # ridge's first-order bias (the items at the totals' ends keep their estimate)
        x = self.eq.solve_hessian(
            self.eq.hessian_weights(t), self.rho * (t - t.mean()),
            x0=None if warm is None else warm[1],
        )  # fmt: skip
        self.solved = (t, x)
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
        if isinstance(self.design, LocalDesign):
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
        if not law.sampling:
            hw = self.eq.hessian_weights(theta)
            return hw, np.zeros(hw.size)
        p = self.link.cdf(theta[self.a] - theta[self.b])  # pdf(link, d) = p (1 - p)
        return self.N * (p * (1.0 - p)), self.N * p * (1.0 - p)

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
        H = dense_laplacian(n, a, b, hw, self.rho)
        M = dense_laplacian(n, a, b, sw, law.variance)
        Hi = np.linalg.inv(H)
        C = Hi @ M @ Hi
        # the parameters centred to weighted mean 0: (I - 1 w^T) C (I - w 1^T)
        w = np.full(n, 1.0 / n) if w is None else w
        Cw = C @ w
        var = np.diag(C) - 2.0 * Cw + float(w @ Cw)
        return np.maximum(var, 1e-300), h, S

    def covariance(self, theta, law: _NoiseLaw, w=None):
        """The estimates' asymptotic covariance at ``theta``, centred to weighted mean 0.

        ``(I - 1 w^T) H^-1 (S + noise) H^-1 (I - w 1^T)``: the matrix whose diagonal
        :meth:`variances` gives (exact form). The errors of items that the design compares
        mostly with each other (neighbours on a wide score scale, where far pairs carry
        little information) are positively correlated: their difference varies less than
        the sum of their variances, which is what their order depends on
        (:func:`dprank.intervals._interval_ranks.posterior_dependence`). None above
        :data:`DENSE_MAX` items.
        """
        n = self.n
        if n > DENSE_MAX:
            return None
        a, b = self.a, self.b
        hw, sw = self.pair_weights(theta, law)
        Hi = np.linalg.inv(dense_laplacian(n, a, b, hw, self.rho))
        C = Hi @ dense_laplacian(n, a, b, sw, law.variance) @ Hi
        w = np.full(n, 1.0 / n) if w is None else np.asarray(w, dtype=np.float64)
        Cw = C @ w
        C = C - Cw[None, :] - Cw[:, None] + float(w @ Cw)
        return 0.5 * (C + C.T)


def design_weights(v, finite) -> np.ndarray:
    """Centring weights: 1 up to :data:`VARIANCE_CAP` times the median variance, less above."""
    if not finite.any():
        return np.full(v.size, 1.0 / v.size)
    vmed = float(np.median(v[finite]))
    w = np.where(finite, np.minimum(1.0, VARIANCE_CAP * vmed / np.where(finite, v, 1.0)), 0.0)
    return w / w.sum()


def centre_of(x, w):
    return x - (x @ w if x.ndim == 1 else (x @ w)[:, None])


def unbounded_sides(prob: Problem, W, law: _NoiseLaw, p_lo, p_hi):
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


def invert_totals(prob: Problem, ref, targets, warm=None) -> np.ndarray:
    """Per item and target ``y``: the ``x`` with ``sum_j N_ij F(x - ref_j) = y``.

    The expected win total of item ``i`` at score ``x``, the others at ``ref``, rises
    from 0 to the item's comparisons ``d_i``: a target at or below 0 gives ``-inf``, at
    or above ``d_i`` gives ``inf``. Between, the solution lies in the bracket
    ``[min_j ref_j + q, max_j ref_j + q]``, ``q = F^-1(y / d_i)`` (the total lies between
    ``d_i F(x - max_j ref_j)`` and ``d_i F(x - min_j ref_j)``), however far the scores
    spread. The start is closed-form (the opponents' scores as a
    normal spread around their mean, the link as a scaled probit), then safeguarded
    Newton steps inside the bracket, all targets at once (:func:`_newton_row`): every
    entry is solved to ``1e-7``. ``warm``: the solutions of a neighbouring problem
    (another candidate total of individual DP), a row per target: each row's Newton steps
    start there where it is finite (elsewhere as above; the same solutions to the
    tolerance).
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
    # the bracket (a hair wider than the bound, which rounding could cross); the scores'
    # range stands for each item's opponents' (a wider bracket, as valid)
    q = quantile(link, frac)
    lo = float(np.min(ref)) + q - 1e-6
    hi = float(np.max(ref)) + q + 1e-6
    x = np.clip(np.where(below | above, 0.0, x), lo, hi)
    # each pair from both ends: own item, opponent's ref (listed for numpy where not compiled)
    if link.name == "btl" and prob.sorted_pairs:
        sides = _AtRef(ref, _compiled_layout(prob))  # laid out once for every row
    else:
        sides = ((a, ref[b]), (b, ref[a]))
    if warm is not None:
        near = np.isfinite(warm) & ~(below | above)
        x = np.where(near, np.clip(np.where(near, warm, 0.0), lo, hi), x)
        for r in range(k):
            x[r] = _newton_row(prob, sides, y[r], x[r], ~(below[r] | above[r]), lo[r], hi[r])
        x = np.where(below, -np.inf, x)
        return np.where(above, np.inf, x)
    # the last row first from the closed form; each other row from it, moved by the
    # difference of the targets over the slope there (one or two Newton steps then)
    last = k - 1
    x[last] = _newton_row(
        prob, sides, y[last], x[last], ~(below[last] | above[last]), lo[last], hi[last]
    )
    slope = _slope(prob, ref, x[last])
    for r in range(last):  # one target row at a time: memory O(pairs)
        start = np.where(np.isfinite(x[last]), x[last] + (y[r] - y[last]) / slope, x[r])
        x[r] = _newton_row(
            prob, sides, y[r], np.clip(start, lo[r], hi[r]), ~(below[r] | above[r]), lo[r], hi[r]
        )
    x = np.where(below, -np.inf, x)
    return np.where(above, np.inf, x)


def _slope(prob: Problem, ref, x) -> np.ndarray:
    """``d/dx sum_j N_ij F(x_i - ref_j)`` per item (at least a tiny positive number)."""
    n, a, b, N, link = prob.n, prob.a, prob.b, prob.N, prob.link
    xx = np.where(np.isfinite(x), x, 0.0)
    fa = pdf(link, xx[a] - ref[b])
    fb = pdf(link, xx[b] - ref[a])
    return np.maximum(np.bincount(a, N * fa, n) + np.bincount(b, N * fb, n), 1e-12)


def _newton_row(prob: Problem, sides, y, x, active, lo, hi) -> np.ndarray:
    """Safeguarded Newton steps of :func:`invert_totals` for one row of targets.

    Each entry keeps a bracket ``[lo, hi]`` of its solution (the total is increasing in
    ``x``); a Newton step is taken where it stays inside the bracket and is at most half
    the step before the last, a bisection otherwise (Numerical Recipes' ``rtsafe``): a
    Newton step cannot then cycle between the two sides of a steep stretch of the total,
    nor leave an exact solution (a total equal to its target ends the entry). After
    :data:`_INVERT_STEPS` steps, entries still moving are bisected until their bracket is
    below the tolerance: every entry ends within ``1e-7`` of its solution.

    Each step evaluates the pairs of items still moving: ``sides`` holds every pair from
    each of its ends (the item's index, its opponent's score), summed by numpy
    (:class:`_ListedTotals`), or is an :class:`_AtRef`, the design's pairs in the compiled
    loop (:class:`_CompiledTotals`). The pairs of settled items are dropped, in their order,
    once a share of the items in them have settled (a settled item's total is not used:
    the moving items' sums take the same terms in the same order).
    """
    x = np.array(x, dtype=np.float64)
    # the state of the entries listed (those moving at the last drop), `act` those moving
    idx = np.nonzero(active)[0]
    if isinstance(sides, _AtRef):
        totals = _CompiledTotals(prob, sides.ref, sides.layout)
    else:
        totals = _ListedTotals(prob, sides, active)
    xs, ys, lo, hi = x[idx], y[idx], lo[idx], hi[idx]
    act = np.ones(idx.size, dtype=bool)
    before_last = np.abs(hi - lo)  # the steps' sizes (the bracket's width to start)
    last_step = before_last.copy()
    for step in range(_INVERT_STEPS + _BISECTIONS):
        m = idx.size
        if m == 0 or not act.any():
            break
        g, dg = totals(idx, xs)
        low = g < ys
        lo = np.where(act & low, xs, lo)
        hi = np.where(act & ~low, xs, hi)
        newton = xs + (ys - g) / np.maximum(dg, 1e-300)
        take = (newton > lo) & (newton < hi) & (2.0 * np.abs(newton - xs) <= before_last)
        if step >= _INVERT_STEPS:
            take[:] = False
        new = np.where(take, newton, 0.5 * (lo + hi))
        new = np.where(g == ys, xs, new)  # an exact solution
        moved = np.abs(new - xs)
        before_last, last_step = last_step, np.where(act, moved, last_step)
        xs = np.where(act, new, xs)
        act = act & (moved > 1e-7)
        left = int(np.count_nonzero(act))
        if 0 < left and left <= totals.KEEP_SHARE * m:  # drop the settled and their pairs
            x[idx] = xs
            keep = act.nonzero()[0]
            idx, xs, ys, lo, hi = idx[keep], xs[keep], ys[keep], lo[keep], hi[keep]
            totals = totals.keep(idx, act)
            before_last, last_step = before_last[keep], last_step[keep]
            act = np.ones(keep.size, dtype=bool)
    x[idx] = xs
    return x


@dataclass(frozen=True)
class _AtRef:
    """The pairs of :func:`invert_totals` for the compiled loop (the logistic link, pairs
    sorted by their first item): the design's own, the opponents at ``ref``; ``layout``
    those pairs as the loop takes them (:func:`_compiled_layout`; None: laid out here)."""

    ref: np.ndarray
    layout: tuple | None = None


def _compiled_layout(prob: Problem):
    """The design's pairs for :class:`_CompiledTotals`, every item listed: each pair's row
    (``a`` among the ``x``, ``2 n + a`` among the ``-ref``), partner (``n + b`` among the
    ``ref``, ``3 n + b`` among the ``-x``), count, and room for the pass (its wins, all 0,
    and its pair weights)."""
    n, a, b, N = prob.n, prob.a, prob.b, prob.N
    size = a.size
    rows, partners = np.empty(2 * size, dtype=np.int32), np.empty(2 * size, dtype=np.int32)
    counts = np.empty(2 * size)
    for half, (row_shift, partner_shift) in enumerate(((0, n), (2 * n, 3 * n))):
        part = slice(half * size, (half + 1) * size)  # written in place: no pair-long copies
        np.add(a, row_shift, out=rows[part], casting="unsafe")
        np.add(b, partner_shift, out=partners[part], casting="unsafe")
        counts[part] = N
    return rows, partners, counts, (np.zeros(rows.size), np.empty(rows.size))


class _ListedTotals:
    """Each listed item's total ``sum_j N_ij F(x - ref_j)`` and its slope at ``x`` (any
    link), summed per item by ``numpy.bincount`` over the pairs of each side in their order."""

    #: The listed items are narrowed to those still moving once at most this share of
    #: them moves.
    KEEP_SHARE = 0.75

    def __init__(self, prob: Problem, sides, active):
        self.N, self.link = prob.N, prob.link
        idx = np.nonzero(active)[0]
        pos = np.full(prob.n, -1, dtype=np.int64)
        pos[idx] = np.arange(idx.size)
        self.moving = []
        for own, other in sides:
            sel = np.nonzero(active[own])[0]
            self.moving.append((pos[own[sel]], other[sel], self.N[sel]))
        self.m = idx.size

    @classmethod
    def of_layout(cls, ref, items, rows, partners, counts):
        """The listed ``items`` (sorted) of a :class:`_CompiledTotals` layout: its own side
        (``rows < n``) and partner side (``rows >= 2 n``), each in the pairs' order."""
        n = ref.size
        self = cls.__new__(cls)
        self.link = BTL
        pos = np.full(n, -1, dtype=np.int64)
        pos[items] = np.arange(items.size)
        own = rows < n
        part = ~own
        self.moving = [
            (pos[rows[own]], ref[partners[own] - n], counts[own]),
            (pos[partners[part] - 3 * n], ref[rows[part] - 2 * n], counts[part]),
        ]
        self.m = items.size
        return self

    def __call__(self, items, xs):
        m = self.m
        g = np.zeros(m)
        dg = np.zeros(m)
        for i, r, c in self.moving:
            F, f = cdf_pdf(self.link, xs[i] - r)
            g += np.bincount(i, c * F, m)
            dg += np.bincount(i, c * f, m)
        return g, dg

    def keep(self, items, act):
        """The same for the entries ``act`` of the listed ones, ``items`` (their pairs, in
        order)."""
        renum = np.cumsum(act) - 1
        self.moving = [
            (renum[i[k]], r[k], c[k]) for i, r, c in self.moving for k in [act[i].nonzero()[0]]
        ]
        self.m = int(np.count_nonzero(act))
        return self


class _CompiledTotals:
    """:class:`_ListedTotals` under the logistic link by one compiled pass per step
    (:func:`dprank.objective.logistic_counts_pass`), on the pairs sorted by their first item.

    The pass takes four blocks of ``n`` scores: the listed items' ``x``, ``ref``, ``-ref``
    and ``-x``. The pairs ``(a, b)`` with ``a`` listed are rows of ``x_a`` against ``ref_b``
    (their sum of ``N F(x_a - ref_b)`` is ``a``'s own side); those with ``b`` listed are
    rows of ``-ref_a`` against the partner ``-x_b``, whose difference is ``x_b - ref_a``:
    the pass subtracts their ``N F`` from the partner's sum, so ``b``'s side is that sum
    negated (exactly). Each side sums its pairs in their order, as :class:`_ListedTotals`
    does, and each item's total is its own side plus its partner side.
    """

    #: The listed items are narrowed to those still moving once at most this share of
    #: them moves (a pass over the pairs costs about as much as narrowing them).
    KEEP_SHARE = 0.5

    def __init__(self, prob: Problem, ref, layout=None):
        n = self.n = prob.n
        self.theta = np.concatenate([np.zeros(n), ref, -ref, np.zeros(n)])
        # every item listed to start (:func:`_compiled_layout`): the entries not moving are
        # dropped with the first settled ones
        rows, partners, counts, self.room = layout or _compiled_layout(prob)
        self._lay(rows, partners, counts)

    def _lay(self, rows, partners, counts):
        """The pairs: each pair's row (``a`` among the ``x``, ``2 n + a`` among the ``-ref``),
        partner (``n + b`` among the ``ref``, ``3 n + b`` among the ``-x``) and count, in
        rows' order."""
        self.rows, self.partners, self.counts = rows, partners, counts
        self.ptr = np.searchsorted(rows, np.arange(4 * self.n + 1, dtype=np.int32))
        self.work = (self.room[0][: rows.size], self.room[1][: rows.size])

    def __call__(self, items, xs):
        from ..objective import logistic_counts_pass

        n = self.n
        self.theta[items] = xs
        self.theta[3 * n + items] = -xs
        grad, diag = logistic_counts_pass(
            self.theta, self.ptr, self.partners, self.counts, self.work
        )
        return grad[items] - grad[3 * n + items], diag[items] + diag[3 * n + items]

    def keep(self, items, act):
        """The same for the ``items`` only (their pairs, in order)."""
        n = self.n
        on = np.zeros(4 * n, dtype=bool)
        on[items] = True
        on[3 * n + items] = True
        sel = on[self.rows]
        sel |= on[self.partners]
        rows, partners, counts = self.rows[sel], self.partners[sel], self.counts[sel]
        if rows.size < n:  # a pass costs O(n) whatever the pairs: numpy's sums from here
            return _ListedTotals.of_layout(self.theta[n : 2 * n], items, rows, partners, counts)
        self._lay(rows, partners, counts)
        return self


#: Safeguarded Newton steps of :func:`invert_totals`, then at most this many bisections
#: (a bracket of ``2^10`` halved below ``1e-7`` needs 34; rounding stops them sooner).
_INVERT_STEPS = 40
_BISECTIONS = 64
