"""The likelihoods of :mod:`dprank.intervals`' rank part: the density of an estimate's error
(a Laplace variable plus a normal one, :func:`error_density`) and of a released noisy win
total (:class:`TotalLikelihood`), on a grid of candidate scores (:func:`likelihoods`).

Private: used by :mod:`dprank.intervals._interval_ranks` (the nonparametric prior and the
posterior draws) and :mod:`dprank.intervals`.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np
import scipy.special

from ..base import _compiled
from ..data.models import BTL

ndtr = scipy.special.ndtr


def laplace_normal_cdf(x, r):
    """CDF at ``x`` of ``Laplace(0, 1) + N(0, r^2)`` (``r > 0``), in log space where it matters."""
    a = scipy.special.ndtr(x / r)
    # 1/2 e^{r^2/2 - x} Phi((x - r^2)/r) and 1/2 e^{r^2/2 + x} Phi(-(x + r^2)/r)
    b = np.exp(0.5 * r * r - x + scipy.special.log_ndtr((x - r * r) / r) - math.log(2.0))
    c = np.exp(0.5 * r * r + x + scipy.special.log_ndtr(-(x + r * r) / r) - math.log(2.0))
    return a - b + c


def laplace_normal_pdf(x, r):
    """Density at ``x`` of ``Laplace(0, 1) + N(0, r^2)`` (``r > 0``)."""
    b = np.exp(0.5 * r * r - x + scipy.special.log_ndtr((x - r * r) / r) - math.log(2.0))
    c = np.exp(0.5 * r * r + x + scipy.special.log_ndtr(-(x + r * r) / r) - math.log(2.0))
    return b + c


#: Below this share of an item's error variance, the Laplace part is left out of its
#: likelihood (:func:`error_density`).
MIN_LAPLACE_SHARE = 1e-6


def error_density(x, v, share) -> np.ndarray:
    """Density (up to a constant factor) at ``x`` of an error of variance ``v`` that is a
    Laplace variable plus an independent normal one, the Laplace part ``share`` of ``v``.

    ``share = 0``: normal; ``share = 1``: Laplace. The DP noise of a Laplace mechanism
    passes through the estimate linearly, so the estimate's error is such a sum (the
    sampling error the normal part): its tails are the Laplace's, heavier than a normal
    of the same variance (:func:`mixture_quantile` gives its quantiles).
    """
    x, v, share = (np.asarray(a, dtype=np.float64) for a in (x, v, share))
    if x.ndim == 2 and v.shape in ((x.shape[0], 1), (1, 1)) and share.shape == v.shape:
        return _error_density_rows(x, v, share)
    x, v, share = np.broadcast_arrays(x, v, share)
    out = np.empty(x.shape)
    normal = share < MIN_LAPLACE_SHARE
    if normal.any():
        out[normal] = _normal_pdf(x[normal], v[normal])
    lap = ~normal
    if lap.any():
        xb, r, b = _laplace_normal_scaled(x[lap], v[lap], share[lap])
        pure = r < 1e-3
        dens = 0.5 * np.exp(-np.abs(xb))
        if (~pure).any():
            dens[~pure] = laplace_normal_pdf(xb[~pure], r[~pure])
        out[lap] = dens / b
    return out


def _error_density_rows(x, v, share) -> np.ndarray:
    """:func:`error_density` of ``(items, nodes)`` points with one ``v`` and ``share`` per
    row (``(items, 1)``): the same numbers, each row's parameters computed once."""
    v = np.broadcast_to(v, (x.shape[0], 1))
    share = np.broadcast_to(share, (x.shape[0], 1))
    normal = share[:, 0] < MIN_LAPLACE_SHARE
    if not normal.any():  # every row Laplace-normal (a Laplace mechanism): no copies
        xb, r, b = _laplace_normal_scaled(x, v, share)
        if not np.any(r < 1e-3):
            return laplace_normal_pdf(xb, r) / b
    out = np.empty(x.shape)
    if normal.any():
        out[normal] = _normal_pdf(x[normal], v[normal])
    lap = ~normal
    if lap.any():
        xb, r, b = _laplace_normal_scaled(x[lap], v[lap], share[lap])
        pure = r[:, 0] < 1e-3
        dens = np.empty(xb.shape)
        if pure.any():
            dens[pure] = 0.5 * np.exp(-np.abs(xb[pure]))
        if (~pure).any():
            dens[~pure] = laplace_normal_pdf(xb[~pure], r[~pure])
        out[lap] = dens / b
    return out


def _normal_pdf(x, v) -> np.ndarray:
    """The normal density of variance ``v`` at ``x`` (arrays that broadcast)."""
    sd = np.sqrt(v)
    z = x / sd
    return np.exp(-0.5 * z * z) / (sd * math.sqrt(2.0 * math.pi))


def _laplace_normal_scaled(x, v, share):
    """``(x / b, r, b)`` of a Laplace-normal error of variance ``v``, Laplace share ``share``:
    ``b`` the Laplace scale, ``r`` the normal part's sd in units of ``b``."""
    b = np.sqrt(0.5 * share * v)
    r = np.sqrt(np.maximum(1.0 - share, 0.0) * v) / b
    return x / b, r, b


@dataclass(frozen=True)
class TotalLikelihood:
    """The likelihood of an item's score ``x`` given its released (noisy) win total.

    ``W~_i = sum_j N_ij F(x - at_j) + noise``: the total it would win at ``x`` against
    the others at ``at`` (their estimates), plus the mechanism's noise (a Laplace part
    ``lap`` of the variance, :func:`error_density`) and the sampling error (variance
    ``sampling``). For an item whose total lies at an end of the attainable range it
    rises (falls) towards a plateau: the data cannot say how far beyond its bound the
    score lies, but they say how sure the bound is, which the indicator of the score
    interval's finite side (:func:`likelihoods`) does not. Calling it with item numbers
    and the prior's nodes gives the ``(items, nodes)`` likelihoods, scaled to at most 1
    per item.
    """

    W: np.ndarray
    at: np.ndarray
    a: np.ndarray
    b: np.ndarray
    N: np.ndarray
    cdf: object
    lap: float | np.ndarray
    sampling: np.ndarray

    @functools.cached_property
    def _pairs(self):
        """Every pair from each of its ends, grouped by item (each item's pairs in their
        order): ``(start, opponent, count)``, item ``i``'s pairs at ``start[i]:start[i+1]``.
        Built once: one item's pairs are then a slice, not a pass over all pairs."""
        own = np.concatenate([self.a, self.b]).astype(np.int64)
        size = self.a.size
        n = self.W.size
        start = np.concatenate([[0], np.cumsum(np.bincount(own, minlength=n))])
        # by item, then by pair: one sort of the keys item * pairs + pair (each unique: a pair
        # joins two different items), the order numpy.lexsort((pair, item)) gives
        key = own * size
        key[:size] += np.arange(size)
        key[size:] += np.arange(size)
        key.sort()
        pair = key % size
        item = key // size
        # the other end of each pair (int64: no int32 overflow of a + b)
        opponent = _compiled.partners(self.a[pair] + (self.b[pair] - item))
        count = self.N[pair].astype(np.float64)
        return start.astype(np.int64), opponent, count

    def _logistic_ref(self, nodes):
        """The reference point of the compiled logistic totals
        (:func:`dprank.base._compiled.logistic_totals`) at ``nodes``: the middle of the
        nodes, where the link is the logistic and the nodes and the others' scores lie
        within ``NODE_EXP_SPREAD / 2`` of it; else None (the link's cdf at every pair and
        node)."""
        logistic = self.cdf is scipy.special.expit or self.cdf == BTL.cdf
        if not logistic or nodes.size == 0:
            return None
        ref = 0.5 * (float(nodes.min()) + float(nodes.max()))
        reach = max(float(np.max(np.abs(nodes - ref))), float(np.max(np.abs(self.at - ref))))
        return ref if reach <= 0.5 * _compiled.NODE_EXP_SPREAD else None

    def _totals(self, block, nodes):
        """``(len(block), nodes)``: the totals ``sum_j N_ij F(x - at_j)`` of the items
        ``block`` at ``nodes``, each pair's ``F`` evaluated by the link's cdf (any link)."""
        start, opponent, count = self._pairs
        lo, lens = start[block], start[block + 1] - start[block]
        ends = np.cumsum(lens)
        flat = np.repeat(lo - (ends - lens), lens) + np.arange(int(ends[-1]))
        terms = self.cdf(nodes[None, :] - self.at[opponent[flat]][:, None])
        terms *= count[flat][:, None]
        mu = np.zeros((block.size, nodes.size))
        some = lens > 0
        if some.any():
            mu[some] = np.add.reduceat(terms, (ends - lens)[some], axis=0)
        return mu

    def __call__(self, items, nodes) -> np.ndarray:
        items = np.asarray(items, dtype=np.int64)
        nodes = np.asarray(nodes, dtype=np.float64)
        out = np.empty((items.size, nodes.size))
        start, opponent, count = self._pairs
        lap = np.broadcast_to(np.asarray(self.lap, dtype=np.float64), self.W.shape)
        var = np.maximum(lap + self.sampling, 1e-12)
        share = lap / var
        ref = self._logistic_ref(nodes)
        if ref is None:
            # items in blocks of about LIKELIHOOD_CELLS (pair, node) terms: each block's
            # pairs in one array, their totals at every node summed per item
            pairs = max(1, opponent.size // self.W.size)
            per = max(1, LIKELIHOOD_CELLS // (nodes.size * pairs))
        else:  # the logistic link: the compiled loop, no (pair, node) array
            per = max(1, LIKELIHOOD_CELLS // max(1, nodes.size))
        for first in range(0, items.size, per):
            block = items[first : first + per]
            if ref is None:
                mu = self._totals(block, nodes)
            else:
                mu = _compiled.logistic_totals(block, start, opponent, count, self.at, nodes, ref)
            dens = error_density(
                self.W[block][:, None] - mu, var[block][:, None], share[block][:, None]
            )
            out[first : first + block.size] = dens / np.maximum(dens.max(axis=1), 1e-300)[:, None]
        return out


#: (pair, node) terms :class:`TotalLikelihood` evaluates at once.
LIKELIHOOD_CELLS = 1_000_000


def likelihoods(
    t, v, finite, lower, upper, nodes, share=None, censored=None, index=None
) -> np.ndarray:
    """``(items, nodes)``: each item's likelihood at each node of the prior's grid.

    Normal ``N(t_i, v_i)`` for the items with finite bounds (with ``share``, the
    Laplace-normal error of :func:`error_density`); for a censored item the
    indicator of its finite side (``theta >= lower_i``, ``theta <= upper_i``), smoothed
    over half a grid step; 1 for an item censored on both sides. ``censored``: a
    function ``(items, nodes) -> (len(items), nodes)`` giving the censored items'
    likelihoods instead (:class:`TotalLikelihood`), ``index`` the rows' item numbers.
    """
    if censored is not None and not np.all(finite):
        # the other rows alone (each row's likelihood is its own): none for the censored
        f = np.asarray(finite, dtype=bool)
        out = np.empty((t.size, nodes.size))
        if f.any():
            sh = None if share is None else np.broadcast_to(share, t.shape)[f]
            out[f] = likelihoods(t[f], v[f], f[f], lower[f], upper[f], nodes, sh)
        out[~f] = censored(np.asarray(index)[~f], nodes)
        return out
    step = float(nodes[1] - nodes[0]) if nodes.size > 1 else 1.0
    f = finite
    if f.all():  # no censored item: the densities themselves
        if share is not None:
            x = t[:, None] - nodes[None, :]
            return error_density(x, v[:, None], np.asarray(share)[:, None])
        sd = np.sqrt(v)[:, None]
        z = (nodes[None, :] - t[:, None]) / sd
        return np.exp(-0.5 * z * z) / sd
    out = np.ones((t.size, nodes.size))
    if f.any() and share is not None:
        out[f] = error_density(
            t[f][:, None] - nodes[None, :], v[f][:, None], np.asarray(share)[f][:, None]
        )
    elif f.any():
        sd = np.sqrt(v[f])[:, None]
        z = (nodes[None, :] - t[f][:, None]) / sd
        out[f] = np.exp(-0.5 * z * z) / sd
    lo = ~f & np.isfinite(lower)
    if lo.any():
        out[lo] *= ndtr((nodes[None, :] - lower[lo][:, None]) / (0.5 * step))
    hi = ~f & np.isfinite(upper)
    if hi.any():
        out[hi] *= ndtr((upper[hi][:, None] - nodes[None, :]) / (0.5 * step))
    return out
