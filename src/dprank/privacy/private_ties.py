"""Private releases of comparisons with ties: edge, voter-level and local DP, and their refits.

Each release turns comparisons with three outcomes (``Comparisons(..., ties=True)``: a
win of ``a``, a tie, a win of ``b``) into noisy statistics with an exact sampler
(:mod:`dprank.privacy.noise`), then fits a ties model (:mod:`dprank.fit.ties`, Davidson by
default) to them: the fit is post-processing. The privacy maps (the ``epsilon`` a
noise scale buys) are the functions ``*_epsilon`` below.

Edge DP (:func:`edge_release`): one vote's outcome changes among the three
    The comparison graph (which pairs, how often) is public. Davidson's model is an
    exponential family whose sufficient statistics are each item's *points* (wins
    plus half its ties) and the number of ties, so the release is those ``n + 1``
    numbers plus Laplace noise. One vote moving between a win of ``a``, a tie and a
    win of ``b`` changes the points of ``a`` and ``b`` by ``1`` (win to loss) or
    ``1/2`` each and the ties by ``0`` or ``1``: ``l1`` sensitivity ``2``, so the
    noise is ``Laplace(2 / eps)`` (:func:`edge_epsilon`), drawn exactly on twice the
    statistic (whole numbers, sensitivity 4) and halved. Bradley-Terry with ties as
    half wins uses the points alone (Algorithm 2's statistic, then the MLE).
Voter-level DP (:func:`individual_release`): all of one voter's votes change
    Each voter keeps at most ``L`` votes (the declared ``--max-per-user``; a uniform
    random subset, :func:`dprank.privacy.release.bound_user_contributions`); the release is
    the table of outcome counts of *every* pair of the items (``3 n (n - 1) / 2``
    cells, pairs never compared included, so the graph stays private) plus
    ``Laplace(2 L / eps)`` per cell: replacing a voter's at most ``L`` votes
    changes at most ``2 L`` unit cells (:func:`individual_epsilon`). Negative cells
    are set to 0 before the fit (post-processing).
Local DP (:func:`local_release`, the fit of a release made by ``dprank privatize``)
    Each voter releases each vote by three-outcome randomized response
    (:meth:`dprank.privacy.noise.NoiseSource.randomized_response3`): the true outcome kept,
    or moved to each other one with probability ``beta = 1/(e^eps + 2)``. Paper B's
    ADRR debiasing (B2 eq. (3)-(4)) generalised to three outcomes: the released
    indicator vector ``e_r`` has mean ``alpha p + beta 1`` with ``alpha = (e^eps -
    1)/(e^eps + 2)``, so ``z = (e_r - beta 1) / alpha`` is unbiased for the true
    outcome's indicator; voters are weighted ``w_l ~ alpha_l^2`` (the inverse of
    the debiased variance's leading factor; with two outcomes ``alpha`` is
    ``tanh(eps/2)`` and this is B2's eq. (4)), normalised to sum to one, and the
    ridge is B2's ``lambda = 1 / (L B)`` with ``B`` the mean of ``alpha_l^2``.
    Davidson's loss is convex for such real counts (it is ``n`` times a
    log-partition function minus a linear term, and ``n = sum w > 0``).

:class:`TiesRelease` keeps what a release published and its public design, and
redraws it from the fitted model (:meth:`TiesRelease.simulate`) for the parametric
bootstrap of :func:`ties_intervals`: intervals computed from the release and public
inputs only (post-processing, no budget spent).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import numpy as np

from ..base import _checks
from ..data.comparisons import Comparisons
from ..fit.ties import TieCounts, TiesFit, fit_ties_mle
from ..objective import get_tie_model
from .mechanisms import (  # defined there, public here (the registry reads them)
    EDGE_TIES_MODELS,
    INDIVIDUAL_TIES_MODELS,
    LOCAL_TIES_MODELS,
    PRIVATE_RIDGE,
)
from .noise import NoiseSource, laplace_scale, rr3_effective_epsilon

__all__ = [
    "PRIVATE_RIDGE",
    "TiesRelease",
    "adrr3_weights",
    "debias3",
    "edge_epsilon",
    "edge_release",
    "individual_epsilon",
    "individual_release",
    "item_points",
    "local_epsilon",
    "local_release",
    "nonprivate_release",
    "randomized_response3",
    "ties_intervals",
]


# --------------------------------------------------------------------------- privacy maps


def edge_epsilon(scale: float) -> float:
    """``epsilon`` of the edge-DP points-and-ties release with Laplace ``scale``: ``2 / scale``."""
    return 2.0 / _checks.positive_finite(scale, "scale")


def individual_epsilon(scale: float, L: int) -> float:
    """``epsilon`` of the voter-level table release with ``L`` votes per voter: ``2 L / scale``."""
    scale = _checks.positive_finite(scale, "scale")
    return 2.0 * _checks.count(L, "L", 1) / scale


def local_epsilon(epsilon: float) -> float:
    """The exact loss of the shipped three-outcome randomized response at budget ``epsilon``."""
    return rr3_effective_epsilon(epsilon)


# --------------------------------------------------------------------------- three-outcome RR


def _budgets(eps, name: str = "eps") -> np.ndarray:
    """``eps`` as a float array of budgets, each positive (``inf``: no noise)."""
    e = np.asarray(_checks.array(eps, name), dtype=np.float64)
    if e.size and not np.all(e > 0):
        raise ValueError(f"{name} must hold positive budgets, got {eps!r}")
    return e


def _codes(codes, name: str) -> np.ndarray:
    """``codes`` as an int8 array of outcomes 0, 1, 2 (``b`` won, a tie, ``a`` won)."""
    c = _checks.array(codes, name)
    if c.size and not np.all((c == 0) | (c == 1) | (c == 2)):
        raise ValueError(f"{name} must hold the outcome codes 0, 1 and 2, got {codes!r}")
    return c.astype(np.int8)


def rr3_probabilities(eps, k: int = 3) -> tuple[np.ndarray, np.ndarray]:
    """``(alpha, beta)`` of ``k``-outcome randomized response: the released indicator has mean
    ``alpha p + beta``, ``beta = 1 / (e^eps + k - 1)`` and ``alpha = 1 - k beta``
    (``k = 2``: classic randomized response, ``beta`` its flip probability)."""
    e = np.asarray(eps, dtype=np.float64)
    with np.errstate(over="ignore"):
        x = np.exp(e)
    beta = np.where(np.isinf(e), 0.0, 1.0 / (x + (k - 1.0)))
    alpha = 1.0 - k * beta
    return alpha, beta


def randomized_response3(codes, eps, rng: np.random.Generator) -> np.ndarray:
    """Three-outcome randomized response with numpy's generator (simulations, not releases).

    ``codes`` in ``{0, 1, 2}`` (``b`` won, tie, ``a`` won: twice the outcome ``y``);
    each moves to each other code with probability ``1 / (e^eps + 2)``.
    """
    codes = _codes(codes, "codes")
    eps = _budgets(eps)
    _checks.rng(rng)
    try:
        eps = np.broadcast_to(eps, codes.shape)
    except ValueError:
        raise ValueError(f"eps must be one budget or one per code, got shape {eps.shape}") from None
    _, beta = rr3_probabilities(eps)
    u = rng.random(codes.shape)
    shift = (u < beta).astype(np.int8) + (u < 2 * beta).astype(np.int8)
    return ((codes + shift) % 3).astype(np.int8)


def debias3(released_codes, eps) -> np.ndarray:
    """Debiased indicators ``(e_r - beta) / alpha``: ``(m, 3)`` columns for codes 0, 1, 2."""
    r = _codes(released_codes, "released_codes").astype(np.int64).ravel()
    eps = _budgets(eps)
    try:
        eps = np.broadcast_to(eps, r.shape)
    except ValueError:
        raise ValueError(f"eps must be one budget or one per code, got shape {eps.shape}") from None
    alpha, beta = rr3_probabilities(eps)
    z = np.repeat((-beta / alpha)[:, None], 3, axis=1)
    z[np.arange(r.size), r] = (1.0 - beta) / alpha
    return z


def adrr3_weights(eps, k: int = 3) -> np.ndarray:
    """ADRR weights for ``k`` outcomes: ``alpha_l^2 / sum_m alpha_m^2`` (module text; with
    ``k = 2`` B2's eq. (4), :func:`dprank.privacy.ldp.adrr_weights`)."""
    e = np.atleast_1d(_budgets(eps))
    if e.size == 0 or not np.all(np.isfinite(e)):
        raise ValueError(f"eps must hold finite positive budgets, one per user, got {eps!r}")
    if isinstance(k, (bool, np.bool_)) or k not in (2, 3):
        raise ValueError(f"k must be 2 or 3 (outcomes of the randomized response), got {k!r}")
    alpha, _ = rr3_probabilities(e, k)
    b = alpha**2
    return b / b.sum()


# --------------------------------------------------------------------------- statistics


def item_points(counts: TieCounts) -> tuple[np.ndarray, float, np.ndarray]:
    """``(points, ties, votes)``: wins plus half the ties and votes per item, ties in all."""
    _checks.instance(counts, "counts", TieCounts, "a dprank.fit.ties.TieCounts")
    n = counts.n_items
    pa = counts.W + 0.5 * counts.T
    pb = counts.L + 0.5 * counts.T
    points = np.bincount(counts.a, pa, n) + np.bincount(counts.b, pb, n)
    tot = counts.total
    votes = np.bincount(counts.a, tot, n) + np.bincount(counts.b, tot, n)
    return points, float(counts.T.sum()), votes


def _half_wins(counts: TieCounts) -> TieCounts:
    """Ties as half a win for each side, no ties left (Bradley-Terry's counts)."""
    return replace(counts, W=counts.W + 0.5 * counts.T, L=counts.L + 0.5 * counts.T,
                   T=np.zeros_like(counts.T))  # fmt: skip


def _model_counts(counts: TieCounts, model: str) -> TieCounts:
    return _half_wins(counts) if model == "btl" else counts


def _fit_model(counts: TieCounts, model: str, gamma: float, b=None, theta0=None, mu0=None):
    """The ties fit of ``counts`` (``btl``: Davidson without ties, i.e. Bradley-Terry); a
    private fit (``gamma > 0``) puts the same weak ridge on the tie parameter ``mu``."""
    tie = "davidson" if model == "btl" else model
    return fit_ties_mle(
        _model_counts(counts, model), tie, gamma, b, theta0=theta0, mu0=mu0, max_iter=200,
        mu_ridge=gamma,
    )  # fmt: skip


def _edge_statistic(points, ties: float, eps: float, rng, bound: float) -> np.ndarray:
    """``(points, ties) + Laplace(2 / eps)``: exact for a release, numpy for a simulation.

    A release draws twice the statistic, whole numbers (wins count 2, ties 1 for each
    side and 2 in the total), plus exact ``Laplace(4 / eps)`` on the grid of
    :meth:`dprank.privacy.noise.NoiseSource.laplace_mechanism`, and halves it (exact): the law
    of ``Laplace(2 / eps)`` on the statistic, with values always on the grid, so that
    whether a release succeeds never depends on the parity of the points (at extreme
    budgets the grid is the integers). ``bound`` is a public bound on the doubled
    values (twice the number of votes: the comparison graph is public under edge DP).
    """
    values = np.append(np.asarray(points, dtype=np.float64), float(ties))
    if isinstance(rng, NoiseSource):
        return rng.laplace_mechanism(2.0 * values, 4.0, eps, bound=bound) / 2.0
    return values + rng.laplace(0.0, 2.0 / eps, size=values.shape)


def _pair_probabilities(theta, mu, model, a, b):
    """``(P(a), P(tie), P(b))`` of pairs ``(a, b)`` under the fitted model."""
    d = theta[a] - theta[b]
    if model == "btl" or not math.isfinite(mu) or (model == "raokupper" and mu <= 0):
        from scipy.special import expit

        p = expit(d)
        return p, np.zeros_like(p), 1.0 - p
    pa, pt, pb = get_tie_model(model).probabilities(d, mu)
    return pa, pt, pb


def _multinomial(rng, n, pa, pt, pb) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Outcome counts of ``n`` votes per row with probabilities ``(pa, pt, pb)``."""
    probs = np.column_stack([pa, pt, pb])
    probs = np.clip(probs, 0.0, None)
    probs /= probs.sum(axis=1, keepdims=True)
    draws = rng.multinomial(np.rint(np.asarray(n)).astype(np.int64), probs)
    return (
        draws[:, 0].astype(np.float64),
        draws[:, 1].astype(np.float64),
        draws[:, 2].astype(np.float64),
    )


# --------------------------------------------------------------------------- the release


@dataclass(frozen=True, eq=False)
class TiesRelease:
    """A fitted release of comparisons with ties, with what its refits need.

    Attributes
    ----------
    kind : {"none", "edge", "individual", "local"}
    model : str
        ``"davidson"``, ``"raokupper"`` or ``"btl"`` (ties as half wins).
    fit : TiesFit
    gamma : float
        The fit's ridge.
    counts : TieCounts
        The counts fitted (the public design's totals for edge DP, with the points in ``b``).
    b : (n,) array or None
        Linear term of the edge-DP fit (minus the noisy points, centred).
    scale : float or None
        Laplace scale of the noise.
    votes : (n,) numpy.ndarray
        Votes per item as released: public (edge DP, the graph), noisy (voter-level),
        of the release (local) or true (non-private).
    design : dict
        What :meth:`simulate` redraws from: ``pairs`` totals (edge, none), the released
        table (individual), the release's records (local).
    eps : float or None
    statistic : numpy.ndarray or None
        The noisy statistic the mechanism released, before the fit: the items' points
        and then the ties (edge DP), or the table's cells ``W, L, T`` over all pairs in
        ``triu_indices`` order, before negative cells are set to 0 (voter-level DP).
    """

    kind: str
    model: str
    fit: TiesFit
    gamma: float
    counts: TieCounts
    b: np.ndarray | None
    scale: float | None
    votes: np.ndarray
    design: dict = field(default_factory=dict)
    eps: float | None = None
    statistic: np.ndarray | None = field(default=None, repr=False)

    def statistics(self, theta, mu, rng: np.random.Generator):
        """``(counts, b)`` of a redraw of the release at ``(theta, mu)`` (numpy noise)."""
        d = self.design
        if self.kind in ("none", "edge"):
            a, bb, n = d["a"], d["b"], d["n"]
            pa, pt, pb = _pair_probabilities(theta, mu, self.model, a, bb)
            W, T, L = _multinomial(rng, n, pa, pt, pb)
            counts = TieCounts(self.counts.n_items, a, bb, W, L, T)
            if self.kind == "none":
                return counts, None
            return _edge_pseudo(counts, self.eps, rng, d["votes"])[:2]
        if self.kind == "individual":
            a, bb, n = d["a"], d["b"], d["n"]
            pa, pt, pb = _pair_probabilities(theta, mu, self.model, a, bb)
            W, T, L = _multinomial(rng, n, pa, pt, pb)
            counts = TieCounts(self.counts.n_items, a, bb, W, L, T)
            return _noisy_table(counts, self.scale, rng), None
        # local: each record's votes released again by k-outcome RR from the model's law
        a, bb, n, eps_r, w_r, k = d["a"], d["b"], d["n"], d["eps"], d["w"], d["k"]
        pa, pt, pb = _pair_probabilities(theta, mu, self.model, a, bb)
        alpha, beta = rr3_probabilities(eps_r, k)
        tie = alpha * pt + beta if k == 3 else np.zeros_like(pt)
        Ra, Rt, Rb = _multinomial(rng, n, alpha * pa + beta, tie, alpha * pb + beta)
        return _debiased_counts(self.counts.n_items, a, bb, Ra, Rt, Rb, eps_r, w_r, k), None

    def refit(self, counts: TieCounts, b, theta0=None, mu0=None) -> TiesFit:
        """The release's fit of redrawn statistics (warm-started at ``theta0, mu0``)."""
        return _fit_model(counts, self.model, self.gamma, b, theta0, mu0)


def _edge_pseudo(counts: TieCounts, eps, rng, votes):
    """Noisy points and ties of ``counts`` (Laplace(2/eps)) as the fit's ``(counts, b)``.

    The fit sees pseudo-counts with the public pair totals, the noisy ties spread over
    the pairs in proportion to their totals and no wins (``W = L``), and the noisy
    points in the linear term: the same likelihood as the true counts would give
    with the noisy statistics (module text).
    """
    points, ties, _ = item_points(counts)
    noisy = _edge_statistic(points, ties, eps, rng, 2.0 * float(counts.total.sum()))
    return (*_pseudo_counts(counts, noisy[:-1], noisy[-1], votes), noisy)


def _pseudo_counts(counts: TieCounts, points, ties, votes):
    total = counts.total
    N = float(total.sum())
    t = min(max(float(ties), 0.0), N)
    T = total * (t / N) if N > 0 else np.zeros_like(total)
    half = 0.5 * (total - T)
    pseudo = TieCounts(counts.n_items, counts.a, counts.b, half, half.copy(), T)
    b = -(np.asarray(points, dtype=np.float64) - 0.5 * votes)
    return pseudo, b - b.mean()


def _all_pairs(n: int):
    a, b = np.triu_indices(n, 1)
    return a.astype(np.int64), b.astype(np.int64)


def _noisy_table(counts: TieCounts, scale: float, rng) -> TieCounts:
    """Every pair's ``(W, L, T)`` plus Laplace(``scale``) (numpy), negative cells set to 0."""
    n = counts.n_items
    a, b = _all_pairs(n)
    W, L, T = counts.full_table()
    cells = np.concatenate([W, L, T])
    noisy = cells + rng.laplace(0.0, scale, size=cells.size)
    return _table_counts(n, a, b, noisy)


def _table_counts(n, a, b, noisy) -> TieCounts:
    P = a.size
    noisy = np.maximum(noisy, 0.0)
    return TieCounts(n, a, b, noisy[:P], noisy[P : 2 * P], noisy[2 * P :])


def _debiased_counts(n, a, b, Ra, Rt, Rb, eps_r, w_r, k: int = 3) -> TieCounts:
    """ADRR-debiased counts of released outcome counts per record (module text); ``k = 2``:
    a two-outcome release (no tie among the outcomes, ``T = 0``)."""
    alpha, beta = rr3_probabilities(eps_r, k)
    tot = Ra + Rt + Rb
    W = w_r * (Ra - beta * tot) / alpha
    L = w_r * (Rb - beta * tot) / alpha
    T = w_r * (Rt - beta * tot) / alpha if k == 3 else np.zeros_like(W)
    return TieCounts.from_arrays(n, a, b, W, L, T)


def _votes(counts: TieCounts) -> np.ndarray:
    return item_points(counts)[2]


def _check_release(c, model: str, allowed, gamma, *, noisy=False, eps=None, rng=None, name="c"):
    """The arguments every release function takes, checked by name (``noisy``: also the
    budget ``eps`` and the noise ``rng`` of a release that draws noise)."""
    _checks.instance(c, name, Comparisons, "a dprank.data.comparisons.Comparisons")
    if not isinstance(model, str) or model not in allowed:
        raise ValueError(f"model must be one of {list(allowed)}, got {model!r}")
    if gamma is not None:
        _checks.non_negative(gamma, "gamma")
    if noisy:
        _checks.positive_finite(eps, "eps")
        _checks.rng(rng, noise_source=True)  # a release's noise: a NoiseSource or a Generator


def nonprivate_release(c: Comparisons, model: str = "davidson", gamma: float = 0.0):
    """The non-private fit of ``c`` as a :class:`TiesRelease` (kind ``"none"``)."""
    _check_release(c, model, INDIVIDUAL_TIES_MODELS, gamma)
    counts = TieCounts.from_pair_statistics(c.pair_statistics())
    fit = _fit_model(counts, model, gamma)
    design = {"a": counts.a, "b": counts.b, "n": counts.total}
    return TiesRelease("none", model, fit, gamma, counts, None, None, _votes(counts), design)


def edge_release(
    c: Comparisons, eps: float, rng, model: str = "davidson", gamma: float = PRIVATE_RIDGE
) -> TiesRelease:
    """Edge DP: the items' points and the ties plus Laplace(2/eps), then the fit (module text).

    ``rng``: a :class:`dprank.privacy.noise.NoiseSource` (a release: the exact sampler) or a
    :class:`numpy.random.Generator` (a simulation).
    """
    _check_release(c, model, EDGE_TIES_MODELS, gamma, noisy=True, eps=eps, rng=rng)
    counts = TieCounts.from_pair_statistics(c.pair_statistics())
    votes = _votes(counts)  # public: the comparison graph
    pseudo, b, noisy = _edge_pseudo(counts, eps, rng, votes)
    fit = _fit_model(pseudo, model, gamma, b)
    design = {"a": counts.a, "b": counts.b, "n": counts.total, "votes": votes}
    # a release: the doubled statistic's scale, halved (exact)
    scale = laplace_scale(4.0, eps) / 2.0 if isinstance(rng, NoiseSource) else 2.0 / eps
    return TiesRelease(
        "edge", model, fit, gamma, pseudo, b, scale, votes, design, eps, statistic=noisy
    )


def individual_release(
    c: Comparisons,
    eps: float,
    rng,
    L: int,
    model: str = "davidson",
    gamma: float = PRIVATE_RIDGE,
) -> TiesRelease:
    """Voter-level DP: every pair's outcome table plus Laplace(2L/eps), then the fit.

    ``c`` must already hold at most ``L`` votes per voter
    (:func:`dprank.privacy.release.bound_user_contributions`).
    """
    _check_release(c, model, INDIVIDUAL_TIES_MODELS, gamma, noisy=True, eps=eps, rng=rng)
    L = _checks.count(L, "L", 1)
    counts = TieCounts.from_pair_statistics(c.pair_statistics())
    n = counts.n_items
    a, b = _all_pairs(n)
    cells = np.concatenate(counts.full_table())
    if isinstance(rng, NoiseSource):
        # a public bound on a cell: the votes of all voters, at most L each (the number of
        # voters is public under voter-level DP)
        noisy = rng.laplace_mechanism(cells, 2.0 * L, eps, bound=float(L) * float(c.n_users))
        scale = laplace_scale(2.0 * L, eps)
    else:
        scale = 2.0 * L / eps
        noisy = cells + rng.laplace(0.0, scale, size=cells.size)
    table = _table_counts(n, a, b, noisy)
    fit = _fit_model(table, model, gamma)
    design = {"a": a, "b": b, "n": np.rint(table.total)}
    return TiesRelease(
        "individual", model, fit, gamma, table, None, scale, _votes(table), design, eps, noisy
    )


def local_release(c: Comparisons, model: str = "davidson", gamma: float | None = None):
    """Local DP: the ADRR-debiased Davidson fit of a three-outcome RR release (module text).

    ``c`` is the release (``ties=True``, users and their budgets); a release with two
    outcomes (``ties=False``, classic randomized response) is debiased as B2's ADRR
    (``k = 2``). ``gamma`` defaults to B2's ``2 lambda = 2 / (L B)``.
    """
    _check_release(c, model, LOCAL_TIES_MODELS, gamma)
    if c.user is None or c.user_epsilon is None:
        raise ValueError("c must be a local-DP release: the user of every vote and its budget")
    k = 3 if c.ties else 2
    eps_user = np.asarray(c.user_epsilon, dtype=np.float64)
    weights = adrr3_weights(eps_user, k)
    alpha, _ = rr3_probabilities(eps_user, k)
    if gamma is None:
        gamma = 2.0 / (eps_user.size * float(np.mean(alpha**2)))
    i, j = np.asarray(c.i), np.asarray(c.j)
    code = np.rint(2.0 * np.asarray(c.y)).astype(np.int64)  # 2 = i won, 1 tie, 0 = j won
    swap = i > j
    a, b = np.where(swap, j, i), np.where(swap, i, j)
    code = np.where(swap, 2 - code, code)
    cnt = np.asarray(c.count, dtype=np.float64)
    R = [np.where(code == k, cnt, 0.0) for k in (2, 1, 0)]  # a won, tie, b won
    eps_r, w_r = eps_user[c.user], weights[c.user]
    counts = _debiased_counts(c.n_items, a, b, *R, eps_r, w_r, k)
    fit = _fit_model(counts, model, gamma)
    released = TieCounts.from_arrays(c.n_items, a, b, R[0], R[2], R[1])
    design = {"a": a, "b": b, "n": cnt, "eps": eps_r, "w": w_r, "k": k}
    return TiesRelease("local", model, fit, gamma, counts, None, None, _votes(released), design)


# --------------------------------------------------------------------------- intervals


def ties_intervals(
    release: TiesRelease,
    items,
    *,
    level: float = 0.95,
    n_boot: int = 200,
    rng: np.random.Generator | None = None,
    top_k: int | None = None,
):
    """Parametric-bootstrap intervals of a ties release's scores and ranks (post-processing).

    ``n_boot`` times the release is redrawn at the fitted ``(theta, mu)`` from its public
    design with its noise law (:meth:`TiesRelease.statistics`) and refitted, warm-started.
    Basic-bootstrap draws ``2 t - t*_b`` (``t`` the centred release) give the score bounds
    (the ``(1 -+ level) / 2`` quantiles per item) and, ranked within each draw, the rank
    bounds; ``p_top_k`` is the share of draws with the item in the top ``k``. Marginal
    intervals, one item at a time.

    Returns
    -------
    pandas.DataFrame
        ``item, estimate, score_lo, score_hi, rank_lo, rank_hi`` (and ``p_top_k``).
    """
    import pandas as pd

    _checks.instance(release, "release", TiesRelease, "a dprank.privacy.private_ties.TiesRelease")
    fit = release.fit
    theta = fit.theta - fit.theta.mean()
    n = theta.size
    items = np.asarray(items)
    if items.shape != (n,):
        raise ValueError(f"items must hold {n} labels, one per item, got shape {items.shape}")
    level = _checks.probability(level, "level", low_open=True, high_open=True)
    n_boot = _checks.count(n_boot, "n_boot", 2)
    if top_k is not None and not 1 <= _checks.count(top_k, "top_k", 1) <= n:
        raise ValueError(f"top_k must be between 1 and {n}, got {top_k!r}")
    if rng is not None and not isinstance(rng, np.random.Generator):
        if isinstance(rng, (bool, np.bool_)) or not isinstance(rng, (int, np.integer)):
            raise TypeError(f"rng must be None, an int or a numpy.random.Generator, got {rng!r}")
    if not isinstance(rng, np.random.Generator):
        rng = np.random.default_rng(rng)
    draws = np.empty((n_boot, n))
    for k in range(n_boot):
        counts, b = release.statistics(fit.theta, fit.mu, rng)
        mu0 = fit.mu if math.isfinite(fit.mu) else None
        refit = release.refit(counts, b, fit.theta, mu0)
        star = refit.theta - refit.theta.mean()
        draws[k] = 2.0 * theta - star
    lo_q, hi_q = (1.0 - level) / 2.0, (1.0 + level) / 2.0
    ranks = n - np.argsort(np.argsort(draws, axis=1, kind="stable"), axis=1, kind="stable")
    out = {
        "item": np.asarray(items).astype(str),
        "estimate": theta,
        "score_lo": np.quantile(draws, lo_q, axis=0),
        "score_hi": np.quantile(draws, hi_q, axis=0),
        "rank_lo": np.floor(np.quantile(ranks, lo_q, axis=0, method="lower")).astype(np.int64),
        "rank_hi": np.ceil(np.quantile(ranks, hi_q, axis=0, method="higher")).astype(np.int64),
    }
    if top_k is not None:
        out["p_top_k"] = np.mean(ranks <= top_k, axis=0)
    return pd.DataFrame(out)
