"""Rank intervals, ``p_top_k``, simultaneous bands and tie classes of :mod:`dprank.intervals`.

Pure functions of an estimate ``t`` (centred), its variances ``v`` and the
noise law: steps 4 to 6 of the construction stated in :mod:`dprank.intervals`.
Private: the public names live in :mod:`dprank.intervals`.

* :func:`mixture_quantile`: quantiles of the privacy noise (Laplace, Gaussian or
  none) plus a normal sampling error, exact for the Laplace-normal convolution.
* :func:`prior_scale`: the scale of a working normal prior (the reference point of
  the bootstrap); :func:`npmle_prior` and :func:`npmle_ranks`: the nonparametric
  maximum-likelihood prior of the scores and the ranks of draws from each item's
  posterior under it.
* :func:`extend_to_ends`: an item that no other item beats significantly (one-sided,
  each at ``alpha / 2``) gets ``rank_lo = 1`` (and symmetrically ``rank_hi = n``):
  the data cannot exclude that it is the best.
* :func:`censored_ranks`: each draw's best and worst rank of every item with the
  items whose score is unbounded on one side at their ends (one unbounded above may
  outrank anyone).
* :func:`band_ranks`: the ranks that a simultaneous score band implies.
* :func:`tie_classes`: groups of places that the simultaneous rank intervals
  cannot split.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import scipy.special

from ._interval_likelihood import laplace_normal_cdf, laplace_normal_pdf, likelihoods

ndtr = scipy.special.ndtr
ndtri = scipy.special.ndtri


#: Posterior draws for the rank intervals and ``p_top_k`` (:func:`posterior_draws`).
POSTERIOR_CELLS = 10_000_000
MAX_POSTERIOR_DRAWS = 2000
MIN_POSTERIOR_DRAWS = 100

#: Geometric buckets of the variances for counting significant differences (ratio per bucket).
BUCKET_RATIO = 1.25


_TABLES: dict[float, tuple[np.ndarray, np.ndarray]] = {}


def _quantile_table(p: float):
    """Quantile ``p`` of ``Laplace(0, 1) + N(0, r^2)`` on 801 nodes of ``log r`` in
    ``[log 1e-3, log 1e3]``, by Newton's method in a bracket (cached per ``p``)."""
    if p not in _TABLES:
        r = np.exp(np.linspace(math.log(1e-3), math.log(1e3), 801))
        z = float(scipy.special.ndtri(p))
        lap = abs(math.log(2.0 * min(p, 1.0 - p)))
        lo = np.full(r.shape, -(lap + 12.0 * r + 1.0))
        hi = -lo
        x = np.sqrt(2.0 + r * r) * z
        for _ in range(100):
            F = laplace_normal_cdf(x, r)
            below = F < p
            lo = np.where(below, x, lo)
            hi = np.where(below, hi, x)
            step = x - (F - p) / np.maximum(laplace_normal_pdf(x, r), 1e-300)
            new = np.where((step > lo) & (step < hi), step, 0.5 * (lo + hi))
            done = np.max(np.abs(new - x)) < 1e-12
            x = new
            if done:
                break
        _TABLES[p] = (np.log(r), x)
    return _TABLES[p]


def mixture_quantile(law: str, scale, sd, p: float) -> np.ndarray:
    """Quantile ``p`` of the noise of ``law`` (``scale``) plus ``N(0, sd^2)``, per item.

    Parameters
    ----------
    law : {"laplace", "gaussian", "none"}
        ``laplace``: Laplace with scale ``scale``; ``gaussian``: normal with
        standard deviation ``scale``; ``none``: no noise.
    scale : float or (n,) array
    sd : float or (n,) array
        Standard deviation of the normal part (sampling error; or all of it).
    p : float
        In (0, 1).
    """
    sd = np.asarray(sd, dtype=np.float64)
    scale = np.broadcast_to(np.asarray(scale, dtype=np.float64), sd.shape)
    z = float(scipy.special.ndtri(p))
    if law == "none":
        return sd * z
    if law == "gaussian":
        return np.sqrt(sd * sd + scale * scale) * z
    out = (
        np.where(p >= 0.5, -np.log(2.0 * (1.0 - p)) * scale, np.log(2.0 * p) * scale) + 0.0 * sd
    )  # Laplace alone
    mixed = (scale > 0) & (sd > 1e-3 * scale)
    if np.any(mixed):
        s, r = scale[mixed], sd[mixed] / scale[mixed]
        # the quantile of Laplace(0, 1) + N(0, r^2) interpolated in log r (exact at the
        # nodes; beyond them the normal part dominates: its own quantile, rescaled)
        grid, table = _quantile_table(float(p))
        lr = np.log(r)
        x = np.interp(lr, grid, table)
        top = lr > grid[-1]
        x = np.where(top, np.sqrt(2.0 + r * r) * z, x)
        out = out.copy() if out.ndim else np.asarray(out)
        out[mixed] = x * s
    pure_normal = scale <= 0
    if np.any(pure_normal):
        out = np.where(pure_normal, sd * z, out)
    return out


def prior_scale(t, v, finite, lower, upper) -> float:
    """The working prior's ``tau^2`` by maximum likelihood, the censored items included.

    ``t_i ~ N(0, tau^2 + v_i)`` for the items with finite bounds; an item whose
    score is unbounded above only contributes ``P(theta_i >= lower_i)``, one
    unbounded below ``P(theta_i <= upper_i)`` (the prior's tail beyond its
    finite bound), one unbounded on both sides nothing. Without the censored
    items the estimate would miss the extreme ones, which are the censored
    ones. At least ``1e-6`` of the median ``v``.
    """
    up_only = ~finite & np.isfinite(lower) & ~np.isfinite(upper)
    down_only = ~finite & ~np.isfinite(lower) & np.isfinite(upper)
    tf, vf = t[finite], v[finite]
    scale = float(np.sqrt(np.mean(tf * tf))) if tf.size else 1.0
    for b in (lower[up_only], upper[down_only]):
        if b.size:
            scale = max(scale, float(np.max(np.abs(b))))
    lo_up, hi_down = lower[up_only], upper[down_only]

    def minus_ll(log_tau):
        g = math.exp(log_tau)
        ll = 0.0
        if tf.size:
            tot = g * g + vf
            ll += float(np.sum(-0.5 * np.log(tot) - 0.5 * tf * tf / tot))
        if lo_up.size:
            ll += float(np.sum(scipy.special.log_ndtr(-lo_up / g)))
        if hi_down.size:
            ll += float(np.sum(scipy.special.log_ndtr(hi_down / g)))
        return -ll

    base = math.log(max(scale, 1e-6))
    from scipy.optimize import minimize_scalar

    res = minimize_scalar(
        minus_ll, bounds=(base + math.log(1e-4), base + math.log(20.0)), method="bounded",
        options={"xatol": 1e-4},
    )  # fmt: skip
    tau2 = math.exp(res.x) ** 2
    floor = 1e-6 * float(np.median(vf)) if vf.size else 1e-12
    return max(tau2, floor)


def posterior_draws(n: int) -> int:
    """Number of posterior draws for ``n`` items: :data:`POSTERIOR_CELLS` numbers in all,
    between :data:`MIN_POSTERIOR_DRAWS` and :data:`MAX_POSTERIOR_DRAWS`."""
    return int(min(MAX_POSTERIOR_DRAWS, max(MIN_POSTERIOR_DRAWS, POSTERIOR_CELLS // max(n, 1))))


def ranks_of_rows(x: np.ndarray) -> np.ndarray:
    """Rank (1 = highest) of every entry in every row of ``x`` (ties by position).

    The order is that of a stable sort of ``-x``; it is taken from the quicker unstable
    sort where a row has no two equal entries (then every sort gives the same order),
    and from the stable sort for the rows that do.
    """
    n = x.shape[1]
    neg = -x
    order = np.argsort(neg, axis=1)
    out = np.empty(x.shape, dtype=np.int32)
    if n <= _SHORT_ROWS:  # many short rows (the calibration's worlds): no loop over rows
        ranked = np.take_along_axis(neg, order, axis=1)
        tied = np.any(ranked[:, 1:] == ranked[:, :-1], axis=1)
        if n:
            tied |= np.isnan(ranked[:, -1])  # NaNs last: one there also takes the stable sort
        rows = np.flatnonzero(tied)
        if rows.size:
            order[rows] = np.argsort(neg[rows], axis=1, kind="stable")
        places = np.broadcast_to(np.arange(1, n + 1, dtype=np.int32), x.shape)
        np.put_along_axis(out, order, places, axis=1)
        return out
    places = np.arange(1, n + 1, dtype=np.int32)
    for row, (values, o) in enumerate(zip(neg, order, strict=True)):
        ranked = values[o]  # NaNs last: one there also takes the stable sort
        if np.any(ranked[1:] == ranked[:-1]) or (n and np.isnan(ranked[-1])):
            o = np.argsort(values, kind="stable")
        out[row, o] = places
    return out


#: Rows up to this long are ranked all at once by :func:`ranks_of_rows`; longer ones a row
#: at a time (where the loop's overhead is small and the whole-array scatter slower).
_SHORT_ROWS = 256


def censored_ranks(values, finite, lower, upper):
    """Per posterior draw, each item's best and worst rank with the censored items at their ends.

    The items with finite bounds take their posterior draws ``values`` (``(draws, n)``); an
    item whose score is unbounded on a side may lie anywhere on it, and its draws there
    follow only the prior (which does not reach beyond the estimates' range): they are not
    used. ``worst`` counts above each item every censored item that may lie above it (its
    ``upper``; ``inf`` for one unbounded above, which may outrank anyone) and places a
    censored item itself at its ``lower`` end; ``best`` counts only the censored items
    whose ``lower`` lies above it and places a censored item at its ``upper`` end. Ties
    among the draws by position (:func:`ranks_of_rows`); against a censored item's end,
    only a strictly higher score counts. Returns ``(best, worst)``, ``(draws, n)`` ranks
    (1 = highest).
    """
    draws, n = values.shape
    cens = ~finite
    lo_c, hi_c = lower[cens], upper[cens]
    lo_sorted, hi_sorted = np.sort(lo_c), np.sort(hi_c)
    c = lo_c.size
    best = np.empty((draws, n), dtype=np.int64)
    worst = np.empty((draws, n), dtype=np.int64)
    # the items with finite bounds: their place among the draws of the others with finite
    # bounds, and the censored items above them (all that may be; those that surely are)
    x = values[:, finite]
    among = ranks_of_rows(x).astype(np.int64)
    worst[:, finite] = among + c - np.searchsorted(hi_sorted, x, side="right")
    best[:, finite] = among + c - np.searchsorted(lo_sorted, x, side="right")
    # a censored item at its lower (upper) end among the draws and the other censored
    # items' upper (lower) ends; an item is never above its own end (upper > lower)
    fs = np.sort(x, axis=1)
    m = fs.shape[1]
    above_lo = np.array([m - np.searchsorted(row, lo_c, side="right") for row in fs])
    above_hi = np.array([m - np.searchsorted(row, hi_c, side="right") for row in fs])
    above_lo = above_lo.reshape(draws, c)
    above_hi = above_hi.reshape(draws, c)
    worst[:, cens] = 1 + above_lo + (c - np.searchsorted(hi_sorted, lo_c, side="right")) - 1
    best[:, cens] = 1 + above_hi + (c - np.searchsorted(lo_sorted, hi_c, side="right"))
    return best, worst


def in_top_k(x: np.ndarray, k: int) -> np.ndarray:
    """``ranks_of_rows(x) <= k`` without ranking every entry: per row the entries above the
    ``k``-th largest, and of those equal to it the first by position."""
    n = x.shape[1]
    if k >= n:
        return np.ones(x.shape, dtype=bool)
    if np.isnan(x).any():
        return ranks_of_rows(x) <= k
    kth = np.partition(x, n - k, axis=1)[:, n - k : n - k + 1]  # the k-th largest
    out = x > kth
    need = k - np.count_nonzero(out, axis=1)
    equal = x == kth
    tied = np.count_nonzero(equal, axis=1) > need  # rows where not every equal entry fits
    if tied.any():  # of those equal to the k-th largest, the first by position
        rows = np.nonzero(tied)[0]
        first = np.cumsum(equal[rows], axis=1) <= need[rows, None]
        equal[rows] &= first
    return out | equal


def quantile_ranks(ranks: np.ndarray, alpha: float):
    """``(lo, hi)``: the lower ``alpha/2`` and upper ``1 - alpha/2`` quantiles of each column
    (``alpha`` an array: a row per entry)."""
    lo = np.quantile(ranks, alpha / 2.0, axis=0, method="lower")
    hi = np.quantile(ranks, 1.0 - alpha / 2.0, axis=0, method="higher")
    return lo.astype(np.int64), hi.astype(np.int64)


def _buckets(v, finite):
    """Geometric buckets of the finite variances: ``(ids, vmax)`` (``ids`` -1 where not finite)."""
    ids = np.full(v.size, -1, dtype=np.int64)
    if not finite.any():
        return ids, np.zeros(0)
    lv = np.log(v[finite])
    k = np.floor((lv - lv.min()) / math.log(BUCKET_RATIO)).astype(np.int64)
    ids[finite] = k
    vmax = np.zeros(int(k.max()) + 1)
    np.maximum.at(vmax, k, v[finite])
    return ids, vmax


def significant_counts(t, v, finite, crit):
    """Per item: how many items are significantly above it, and how many below.

    ``j`` is above ``i`` when ``t_j - t_i > crit_i sqrt(v_i + v_j)`` (``crit`` a number
    or one per item); items
    without finite bounds are never significantly above or below anything.
    Each variance is rounded up to its bucket's largest (:data:`BUCKET_RATIO`),
    which can only make fewer differences significant.
    """
    n = t.size
    ids, vmax = _buckets(v, finite)
    above = np.zeros(n, dtype=np.int64)
    below = np.zeros(n, dtype=np.int64)
    vi = np.where(finite, v, 0.0)
    for k in range(vmax.size):
        sel = np.sort(t[ids == k])
        if sel.size == 0:
            continue
        margin = crit * np.sqrt(vi + vmax[k])
        above += sel.size - np.searchsorted(sel, t + margin, side="right")
        below += np.searchsorted(sel, t - margin, side="left")
    above[~finite] = 0
    below[~finite] = 0
    return above, below


def extend_to_ends(
    t, v, finite, alpha: float, lo, hi, unbounded_hi, unbounded_lo, lower=None, upper=None
):
    """``lo = 1`` for items no other beats significantly; ``hi = n`` for those beating none.

    One-sided tests at level ``alpha / 2`` against each item whose estimate lies above
    the item's (below, for the other end), with no correction for their number: an item
    that none of them exceeds significantly may be the best, so its interval reaches
    place 1 (and symmetrically place ``n``). A Bonferroni correction over the items
    estimated above sent the middle of a tight ranking, where many items lie within the
    noise above, to place 1 as well, although the posterior covers it there; the ends
    are what the extension is for, and the calibrated level (:func:`calibrated_alpha`,
    whose worlds apply the extension too) takes it into account. Items whose score is
    unbounded above (below) reach place 1 (``n``) too. ``lower``, ``upper``: the finite
    bounds of the items unbounded above (below): such an item is significantly above an
    item whose one-sided upper bound at that level lies below its ``lower`` (and
    symmetrically). ``lo``, ``hi``: an interval per item, or rows of them (one per level).
    """
    n = t.size
    if n < 2:
        return lo, hi
    crit = float(ndtri(1.0 - alpha / 2.0))
    above, below = significant_counts(t, v, finite, crit)
    sd = np.sqrt(np.where(finite, v, 0.0))
    if lower is not None:
        b = np.sort(lower[~finite & np.isfinite(lower) & ~np.isfinite(upper)])
        above += np.where(finite, b.size - np.searchsorted(b, t + crit * sd, "right"), 0)
    if upper is not None:
        b = np.sort(upper[~finite & np.isfinite(upper) & ~np.isfinite(lower)])
        below += np.where(finite, np.searchsorted(b, t - crit * sd, "left"), 0)
    # an item unbounded on one side is tested by its finite bound only (it is never
    # significantly above or below anything in significant_counts)
    lo = np.where((finite & (above == 0)) | unbounded_hi, 1, lo)
    hi = np.where((finite & (below == 0)) | unbounded_lo, n, hi)
    return lo, hi


def band_ranks(score_lo, score_hi):
    """Rank intervals implied by a score band: ``1 + #{j: lo_j > hi_i}``, ``n - #{j: hi_j < lo_i}``.

    If every item's score lies in its band, every item's rank lies in its
    interval (Klein, Wright and Wieczorek 2020).
    """
    n = score_lo.size
    slo = np.sort(score_lo)
    shi = np.sort(score_hi)
    rank_lo = 1 + n - np.searchsorted(slo, score_hi, side="right")
    rank_hi = n - np.searchsorted(shi, score_lo, side="left")
    return rank_lo.astype(np.int64), rank_hi.astype(np.int64)


def tie_classes(rank_lo, rank_hi):
    """Tie class of every item (1 = best) from simultaneous rank intervals.

    A boundary lies after place ``r`` when no interval straddles it (every
    item has ``rank_hi <= r`` or ``rank_lo > r``) and exactly ``r`` items lie
    above it: the intervals then order every item above it before every item
    below it. Items between two consecutive boundaries form one class: the
    release does not order them at the intervals' level.
    """
    n = rank_lo.size
    lo = np.clip(np.asarray(rank_lo, dtype=np.int64), 1, n)
    hi = np.clip(np.asarray(rank_hi, dtype=np.int64), 1, n)
    # straddle(r) = #{i: lo_i <= r < hi_i}, r = 1..n-1
    diff = np.zeros(n + 1, dtype=np.int64)
    np.add.at(diff, lo, 1)
    np.add.at(diff, hi, -1)
    straddle = np.cumsum(diff)[1:n]
    ended = np.cumsum(np.bincount(hi, minlength=n + 1))[1:n]  # #{hi <= r}
    r = np.arange(1, n)
    boundary = r[(straddle == 0) & (ended == r)]
    return 1 + np.searchsorted(boundary, lo, side="left")


@dataclass(frozen=True)
class Dependence:
    """How the posterior draws of the items with finite bounds depend on each other.

    ``finite``: the items it covers (those with finite bounds); ``errors`` and
    ``posterior``: ``(m, m)`` factors ``F`` (``R = F F^T``) of the correlation of their
    estimates' errors and of their posterior under a normal working prior
    (:func:`posterior_dependence`), ``m = finite.sum()``.
    """

    finite: np.ndarray
    errors: np.ndarray
    posterior: np.ndarray


def _correlation_factor(R: np.ndarray) -> np.ndarray:
    """A factor ``F`` with ``F F^T = R`` (a correlation matrix, possibly singular: the
    centred errors sum to 0): Cholesky's with a tiny ridge, else the symmetric root."""
    m = R.shape[0]
    try:
        return np.linalg.cholesky(R + 1e-10 * np.eye(m))
    except np.linalg.LinAlgError:
        lam, Q = np.linalg.eigh(R)
        return Q * np.sqrt(np.maximum(lam, 0.0))


def posterior_dependence(cov, v, finite, tau2: float) -> Dependence | None:
    """The dependence of the items' posterior draws, from their errors' covariance ``cov``.

    The estimates ``t = theta + e`` have correlated errors ``e``: under a design that
    compares each item mostly with its neighbours (a wide score scale, where a far pair
    is decided before it is compared), the errors of neighbours are positively
    correlated and their difference, on which their order depends, varies less than
    ``v_i + v_j``. Drawing each item's posterior independently then spreads the
    neighbours' order too much: ``p_top_k`` is pulled towards ``k / n`` and the rank
    intervals widen. Under the normal working prior ``theta ~ N(0, tau2 I)`` and errors
    ``N(0, C)`` (``C``: ``cov``'s correlation scaled to the variances ``v``) the
    posterior's covariance is ``tau2 (C + tau2 I)^-1 C``: the errors' correlation where
    the data dominate, none where the prior does. Its correlation (a Gaussian copula)
    couples the items' NPMLE posterior draws (:func:`posterior_values`), whose marginal
    laws it leaves as they are. Returns None without ``cov`` or with fewer than 2 items
    with finite bounds.
    """
    if cov is None or int(np.sum(finite)) < 2:
        return None
    Cf = np.asarray(cov, dtype=np.float64)[np.ix_(finite, finite)]
    d = np.sqrt(np.maximum(np.diag(Cf), 1e-300))
    Re = np.clip(Cf / np.outer(d, d), -1.0, 1.0)
    np.fill_diagonal(Re, 1.0)
    sv = np.sqrt(v[finite])
    C = Re * np.outer(sv, sv)
    m = sv.size
    post = tau2 * np.linalg.solve(C + tau2 * np.eye(m), C)
    post = 0.5 * (post + post.T)
    dp = np.sqrt(np.maximum(np.diag(post), 1e-300))
    Rp = np.clip(post / np.outer(dp, dp), -1.0, 1.0)
    np.fill_diagonal(Rp, 1.0)
    fin = np.asarray(finite, dtype=bool)
    return Dependence(fin, _correlation_factor(Re), _correlation_factor(Rp))


def _uniforms(draws: int, n: int, rng, dependence: Dependence | None) -> np.ndarray:
    """``(draws, n)`` uniforms for the posterior draws' inverse cdfs: independent, or
    coupled by ``dependence``'s Gaussian copula for the items it covers."""
    u = rng.random((draws, n))
    if dependence is not None:
        F = dependence.posterior
        u[:, dependence.finite] = ndtr(rng.standard_normal((draws, F.shape[0])) @ F.T)
    return u


#: Grid of the nonparametric prior (:func:`npmle_prior`): nodes, EM iterations, and the most
#: items its fit uses (a fixed-seed subsample above).
PRIOR_NODES = 200
PRIOR_ITERATIONS = 100
PRIOR_ITEMS = 5000


def _prior_grid(t, v, finite, lower, upper, rng, share, censored):
    """The prior's nodes and the likelihood rows (each scaled to its largest entry) of the
    items its fit uses (:func:`npmle_prior`)."""
    n = t.size
    vals = [t[finite]] if finite.any() else []
    vals += [lower[np.isfinite(lower)], upper[np.isfinite(upper)]]
    pool = np.concatenate([x for x in vals if x.size] or [np.zeros(1)])
    spread = 3.0 * float(np.sqrt(np.median(v[finite]))) if finite.any() else 1.0
    lo, hi = float(pool.min()) - spread, float(pool.max()) + spread
    if hi - lo < 1e-9:
        lo, hi = lo - 1.0, hi + 1.0
    nodes = np.linspace(lo, hi, PRIOR_NODES)
    use = np.arange(n)
    if n > PRIOR_ITEMS:
        use = np.sort(rng.choice(n, PRIOR_ITEMS, replace=False))
    sh = None if share is None else np.asarray(share)[use]
    L = likelihoods(t[use], v[use], finite[use], lower[use], upper[use], nodes, sh, censored, use)
    L /= np.maximum(L.max(axis=1, keepdims=True), 1e-300)
    return nodes, L


def _em(L: np.ndarray, iterations: int) -> np.ndarray:
    """The mixing weights on the nodes after ``iterations`` EM steps from uniform weights,
    for the likelihood rows ``L`` (one item a row, one node a column)."""
    w = np.full(L.shape[1], 1.0 / L.shape[1])
    for _ in range(iterations):
        mix = np.maximum(L @ w, 1e-300)
        w = w * (L.T @ (1.0 / mix)) / L.shape[0]
        w /= w.sum()
    return w


def npmle_prior(t, v, finite, lower, upper, rng: np.random.Generator, share=None, censored=None):
    """The nonparametric maximum-likelihood prior of the scores (Kiefer and Wolfowitz 1956).

    Weights on :data:`PRIOR_NODES` equally spaced nodes over the estimates' range
    (and the censored items' bounds) widened by three standard errors, fitted by EM
    (:data:`PRIOR_ITERATIONS` steps) to the items' likelihoods (:func:`likelihoods`),
    on at most :data:`PRIOR_ITEMS` items. It adapts to uniform, normal, tied or
    heavy-tailed scores alike, which a normal prior does not (Gu and Koenker 2023 rank
    and select with it). ``share``: the Laplace part of each item's error variance
    (:func:`error_density`; None: normal errors); ``censored``: the censored items'
    likelihoods (:func:`likelihoods`). Returns ``(nodes, weights)``.
    """
    nodes, L = _prior_grid(t, v, finite, lower, upper, rng, share, censored)
    return nodes, _em(L, PRIOR_ITERATIONS)


#: p_top_k's prior (:func:`top_k_prior`): EM iterations, the candidate widths of its
#: smoothing (multiples of the items' median standard error), the folds that choose one, the
#: most items they use (evenly spaced among the prior's) and the standard errors by which a
#: wider smoothing must fit the held-out items better (the one-standard-error rule of
#: cross-validation, read towards the unsmoothed prior).
TOP_K_PRIOR_ITERATIONS = 400
SMOOTHING_WIDTHS = (0.0, 0.25, 0.5, 0.75, 1.0, 1.5)
SMOOTHING_FOLDS = 5
SMOOTHING_ITEMS = 1000
SMOOTHING_SE = 1.0


def smoothed(nodes: np.ndarray, weights: np.ndarray, width: float) -> np.ndarray:
    """``weights`` convolved with a normal kernel of standard deviation ``width`` on the
    grid ``nodes`` (each node's mass spread over the grid, none lost at its ends)."""
    if width <= 0.0:
        return weights
    K = np.exp(-0.5 * ((nodes[:, None] - nodes[None, :]) / width) ** 2)
    K /= K.sum(axis=0, keepdims=True)
    return K @ weights


def smoothing_width(nodes: np.ndarray, L: np.ndarray, scale: float, iterations: int) -> float:
    """The smoothing of the prior that the items' held-out likelihood supports.

    The rows of ``L`` (at most :data:`SMOOTHING_ITEMS`, evenly spaced) are split into
    :data:`SMOOTHING_FOLDS` folds (row ``i`` in fold ``i % SMOOTHING_FOLDS``); on each,
    the prior is fitted (:func:`_em`, ``iterations`` steps) to the other folds
    and every candidate width (:data:`SMOOTHING_WIDTHS` times ``scale``) scored by the
    held-out items' log-likelihood. Returns the least width whose total is within
    :data:`SMOOTHING_SE` standard errors (of the items' paired differences) of the best's:
    the unsmoothed prior unless smoothing fits the held-out items significantly better
    (where no item has finite bounds, :func:`top_k_prior` does not smooth). A prior fitted
    to few noisy items puts its mass on a few clumps, and items in one clump are ordered at
    random in the posterior, which pulls ``p_top_k`` towards the middle where the scores
    spread evenly; where the scores are tied, the clumps are the truth and smoothing them
    would order the tied items by their noise.
    """
    if L.shape[0] > SMOOTHING_ITEMS:
        L = L[np.linspace(0, L.shape[0] - 1, SMOOTHING_ITEMS).astype(np.int64)]
    m = L.shape[0]
    if m < 2 * SMOOTHING_FOLDS:
        return 0.0
    folds = np.arange(m) % SMOOTHING_FOLDS
    widths = [f * scale for f in SMOOTHING_WIDTHS]
    ll = np.empty((m, len(widths)))
    for f in range(SMOOTHING_FOLDS):
        out = folds == f
        w = _em(L[~out], iterations)
        for c, width in enumerate(widths):
            ll[out, c] = np.log(np.maximum(L[out] @ smoothed(nodes, w, width), 1e-300))
    d = ll[:, [int(np.argmax(ll.sum(axis=0)))]] - ll
    se = np.sqrt(m * d.var(axis=0))
    return widths[int(np.flatnonzero(d.sum(axis=0) <= SMOOTHING_SE * se)[0])]


def top_k_prior(t, v, finite, lower, upper, rng: np.random.Generator, share=None, censored=None):
    """The prior of ``p_top_k`` (step 5): :func:`npmle_prior`'s grid and likelihoods,
    :data:`TOP_K_PRIOR_ITERATIONS` EM steps, smoothed by :func:`smoothing_width`'s choice.

    The rank intervals (step 4) are calibrated to their level on simulated worlds
    (:func:`calibrated_alpha`), ``p_top_k`` is a probability read off the posterior as it
    is: its prior is fitted further (sharper where the scores tie) and smoothed where the
    held-out items say the scores spread evenly. Returns ``(nodes, weights)``.
    """
    nodes, L = _prior_grid(t, v, finite, lower, upper, rng, share, censored)
    width = 0.0  # no item with finite bounds: no standard error to scale a kernel by
    if finite.any():
        scale = float(np.sqrt(np.median(v[finite])))
        width = smoothing_width(nodes, L, scale, TOP_K_PRIOR_ITERATIONS)
    return nodes, smoothed(nodes, _em(L, TOP_K_PRIOR_ITERATIONS), width)


def npmle_ranks(
    t, v, finite, lower, upper, nodes, weights, draws, rng, chunk=4096, share=None,
    dependence=None,
):  # fmt: skip
    """Ranks of ``draws`` draws from each item's posterior under the prior ``(nodes, weights)``.

    Each item's posterior is discrete on the nodes; a draw takes a node by its
    posterior probability and a uniform point of its cell (so that items sharing a
    node, tied in the prior, are ordered at random). ``share``: as for
    :func:`npmle_prior`; ``dependence``: the copula coupling the items' draws
    (:func:`posterior_dependence`; None: independent).
    """
    return ranks_of_rows(
        posterior_values(
            t, v, finite, lower, upper, nodes, weights, draws, rng, chunk, share, dependence
        )
    )


def posterior_values(
    t, v, finite, lower, upper, nodes, weights, draws, rng, chunk, share, dependence=None,
    censored=None,
):  # fmt: skip
    """The ``(draws, items)`` posterior draws that :func:`npmle_ranks` ranks (with
    ``dependence``, by the inverse cdfs of its copula's uniforms: one chunk)."""
    n = t.size
    step = float(nodes[1] - nodes[0]) if nodes.size > 1 else 1.0
    values = np.empty((draws, n), dtype=np.float64)
    coupled = None if dependence is None else _uniforms(draws, n, rng, dependence)
    if coupled is not None:
        chunk = max(chunk, n)
    for start in range(0, n, chunk):
        sl = slice(start, min(n, start + chunk))
        sh = None if share is None else np.asarray(share)[sl]
        post = likelihoods(
            t[sl], v[sl], finite[sl], lower[sl], upper[sl], nodes, sh, censored,
            np.arange(sl.start, sl.stop),
        ) * weights  # fmt: skip
        cum = np.cumsum(post, axis=1)
        cum /= np.maximum(cum[:, -1:], 1e-300)
        u = rng.random((draws, cum.shape[0])) if coupled is None else coupled[:, sl]
        # each item's draws by the inverse of its cdf (a row at a time: few nodes, few draws)
        rows = zip(cum, u.T.copy(), strict=True)
        idx = np.array([c.searchsorted(q, "right") for c, q in rows]).T
        idx = np.minimum(idx, nodes.size - 1)
        values[:, sl] = nodes[idx] + (rng.random(u.shape) - 0.5) * step
    return values


def top_k_probability(
    t, v, finite, lower, upper, share, k: int, draws: int, rng, dependence=None, censored=None
) -> np.ndarray:
    """Each item's posterior probability of being among the top ``k`` (step 5).

    The share of posterior draws (as :func:`npmle_ranks`'s, under :func:`top_k_prior`)
    that put the item among the top ``k``; the likelihood of an item with
    finite bounds is the law of its estimate's error: the mechanism's Laplace noise plus
    the normal sampling error, ``share`` the Laplace part of each variance ``v``
    (:func:`error_density`), both in the prior's fit and in the posterior's draws. A normal
    likelihood of the same variance misstates the centre and the tails of that law, and
    the share of draws in the top ``k`` is miscalibrated where the noise dominates
    (tests/test_interval_calibration.py). ``dependence``: the copula of the items' draws
    (:func:`posterior_dependence`): with correlated errors, independent draws pull
    ``p_top_k`` towards ``k / n``. ``censored``: the likelihood of the censored items'
    noisy totals (:class:`TotalLikelihood`): the indicator of their score interval's
    finite side treats its end, a ``1 - alpha / 2`` bound, as certain, and the items
    at the ends of the scale, which decide the top ``k`` where the scores spread widely,
    come out in it too often.
    """
    nodes, weights = top_k_prior(t, v, finite, lower, upper, rng, share=share, censored=censored)
    values = posterior_values(
        t, v, finite, lower, upper, nodes, weights, draws, rng, 4096, share, dependence,
        censored,
    )  # fmt: skip
    return np.mean(in_top_k(values, int(k)), axis=0)


#: Calibration of the posterior's tail probability (:func:`calibrated_alpha`): item-worlds
#: simulated in all (at least :data:`CALIBRATION_MIN_WORLDS` worlds), posterior draws per
#: world, the candidate multiples of ``alpha``, and the most items calibrated (the
#: nominal level above: the fast form at scale).
CALIBRATION_ITEM_WORLDS = 2000
CALIBRATION_MIN_WORLDS = 4
CALIBRATION_DRAWS = 400
CALIBRATION_FACTORS = (1.0, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 4.0, 6.0)
CALIBRATION_MAX_ITEMS = 2000


def _prior_draws(nodes, weights, size, rng):
    """``size`` draws from the prior on the grid: a node by its weight, a uniform point of
    its cell."""
    step = float(nodes[1] - nodes[0]) if nodes.size > 1 else 1.0
    cdf = np.cumsum(weights)
    cdf /= cdf[-1]
    idx = np.minimum(np.searchsorted(cdf, rng.random(size), side="right"), nodes.size - 1)
    return nodes[idx] + (rng.random(size) - 0.5) * step


def calibrated_alpha(
    t, v, finite, alpha: float, nodes, weights, rng, ref=None, dependence=None, errors=None
) -> float:
    """The posterior tail probability whose rank intervals cover ``1 - alpha`` on worlds
    simulated from the fitted prior.

    A posterior interval at level ``1 - alpha`` extended to the ends
    (:func:`extend_to_ends`) covers more than ``1 - alpha`` where the estimates are
    well separated (the posterior's rank spread also counts the other items' draws).
    Each world takes the scores of the items with finite bounds at ``ref`` (the
    error law's reference point: the estimate shrunk to the prior's spread; without
    it, a draw from the prior ``(nodes, weights)``), draws their estimates with the
    items' variances ``v``, refits the prior, and computes the intervals at every
    candidate ``alpha * f`` (:data:`CALIBRATION_FACTORS`) with the extension at
    ``alpha``; with ``dependence`` (:func:`posterior_dependence`) the worlds' errors are
    correlated as the estimates' are and the posterior draws coupled as in the intervals;
    the largest candidate that covers the worlds' true ranks at ``1 - alpha`` is returned
    (``alpha`` itself where none does, or with fewer than 3 such items or more than
    :data:`CALIBRATION_MAX_ITEMS`). With ``errors`` (the bootstrap's errors, one row per
    draw) each world's intervals are, as the intervals are, the union with the plain
    bootstrap's at ``alpha``: the quantiles of the ranks of the world's estimates plus each
    row of errors.
    """
    tf, vf = t[finite], v[finite]
    m = tf.size
    if m < 3 or m > CALIBRATION_MAX_ITEMS:
        return alpha
    cands = [min(alpha * f, 0.5) for f in CALIBRATION_FACTORS]
    worlds = max(CALIBRATION_MIN_WORLDS, -(-CALIBRATION_ITEM_WORLDS // m))
    hits = np.zeros(len(cands))
    fin = np.ones(m, dtype=bool)
    none = np.zeros(m, dtype=bool)
    lower, upper = np.full(m, -np.inf), np.full(m, np.inf)
    sd = np.sqrt(vf)
    dep = None  # the dependence among the items with finite bounds (all of the worlds')
    boot = None if errors is None else np.asarray(errors)[:, finite]
    if dependence is not None and np.array_equal(dependence.finite, finite):
        dep = Dependence(fin, dependence.errors, dependence.posterior)
    for _ in range(worlds):
        if ref is None:
            theta = _prior_draws(nodes, weights, m, rng)
        else:
            theta = ref[finite]
        z = rng.standard_normal(m)
        if dep is not None:
            z = dep.errors @ z
        ts = theta + sd * z
        nd, wt = npmle_prior(ts, vf, fin, lower, upper, rng)
        ranks = npmle_ranks(
            ts, vf, fin, lower, upper, nd, wt, CALIBRATION_DRAWS, rng, dependence=dep
        )
        true = 1 + m - np.searchsorted(np.sort(theta), theta, side="right")
        # every candidate's quantiles at once (a row each), extended at alpha (the same
        # items reach the ends whatever the candidate)
        lo, hi = quantile_ranks(ranks, np.asarray(cands))
        lo, hi = extend_to_ends(ts, vf, fin, alpha, lo, hi, none, none)
        if boot is not None:  # the union with the plain bootstrap's intervals
            plo, phi = quantile_ranks(ranks_of_rows(ts + boot), alpha)
            lo, hi = np.minimum(lo, plo), np.maximum(hi, phi)
        hits += np.sum((lo <= true) & (true <= hi), axis=1)
    cover = hits / (worlds * m)
    ok = [a for a, c in zip(cands, cover, strict=True) if c >= 1.0 - alpha]
    return max(ok) if ok else alpha
