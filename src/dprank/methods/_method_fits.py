"""The fit functions of the registered methods (Papers A and B, non-private references).

Private: :mod:`dprank.methods` registers them and re-exports their names.

Importing this module is cheap (the registry, hence ``dprank rank``, imports it): each fit
imports the estimator it calls (:mod:`dprank.fit.mle`, :mod:`dprank.fit.weighted_mle`,
:mod:`dprank.privacy._release_mle`, :mod:`dprank.privacy.oneshot`,
:mod:`dprank.privacy.private_ties`, :mod:`dprank.privacy.ldp`) on its first call, so a run
loads the code of the method it runs only.
"""

from __future__ import annotations

import math

import numpy as np

from ..data.comparisons import Comparisons
from ..privacy.mechanisms import (
    PRIVATE_RIDGE,
    edge_count_noise_scale,
    edge_mle_noise_scale,
    individual_count_noise_scale,
    individual_gamma,
    individual_mle_noise_scale,
    standard_laplace,
)
from ..privacy.noise import NoiseSource, value_grid_exponent
from ._method_registry import (
    Fit,
    MethodInputError,
    debiased_statistics,
    finite_eps,
    fit_result,
    laplace_details,
    laplace_vector,
    link_of,
    mle_data,
    noisy_count_vector,
    plugin_records,
    user_bound,
    wins_per_item,
)

# --------------------------------------------------------------------------- Paper A, edge DP


def data_edge_gamma(c: Comparisons, eps: float, c0: float, kappa2: float) -> float:
    """Ridge of Algorithm 1: ``max(c0 sqrt(d log n), 4 kappa2 / eps)`` (Propositions 2.1-2.2).

    ``d`` is the mean number of distinct opponents (``n p`` in the paper's
    Erdos-Renyi design).
    """
    n = c.n_items
    d = float(np.mean(c.degrees())) if n else 0.0
    base = c0 * math.sqrt(max(d, 1.0) * math.log(max(n, 2)))
    return base if math.isinf(eps) else max(base, 4.0 * kappa2 / eps)


def bounded_gradient_link(model, what: str):
    """The link of ``model``; a :class:`MethodInputError` naming ``what`` unless its loss
    gradient is bounded (``kappa1`` finite: the perturbed MLEs' sensitivity needs it)."""
    link = link_of(model)
    if not math.isfinite(link.kappa1):
        raise MethodInputError(
            f"{what} needs a link with a bounded loss gradient; {link.name} has none "
            "(use --model btl)"
        )
    return link


def fit_edge_mle(
    c: Comparisons,
    eps,
    rng: np.random.Generator,
    *,
    model="btl",
    c0: float = 2.0,
    gamma: float | None = None,
    xtol: float = 1e-10,
    max_iter: int = 100,
    **_,
) -> Fit:
    from ..privacy._release_mle import PenalizedFit, edge_mle_release

    eps = finite_eps(eps, "edge_mle")
    link = bounded_gradient_link(model, "Algorithm 1")
    g = data_edge_gamma(c, eps, c0, link.kappa2) if gamma is None else float(gamma)
    mle = PenalizedFit(g, link, xtol, max_iter)
    if isinstance(rng, NoiseSource):
        # a release: exact noisy win totals, then the fit as post-processing (_release_mle)
        fit, calib = edge_mle_release(c, eps, rng, mle)
        details = {"gamma": g, **laplace_details(rng, calib["noise_scale"], 2.0)}
        return fit_result(fit, **{**details, **calib})
    scale = edge_mle_noise_scale(eps, link.kappa1)
    fit = mle.solve(mle_data(c), laplace_vector(rng, scale, c.n_items))
    return fit_result(fit, gamma=g, **laplace_details(rng, scale))


def fit_edge_counts(c: Comparisons, eps, rng: np.random.Generator, **_) -> Fit:
    eps = finite_eps(eps, "edge_counts")
    # one flipped outcome moves two counts by 1 each: l1 sensitivity 2 (Algorithm 2's 2/eps)
    if isinstance(rng, NoiseSource):
        scores, scale = noisy_count_vector(c, rng, 2.0, eps)
    else:
        scale = edge_count_noise_scale(eps)
        scores = wins_per_item(c) + scale * standard_laplace(rng, c.n_items)
    return Fit(scores=scores, details=laplace_details(rng, scale, 2.0))


def fit_one_shot(c: Comparisons, eps, rng: np.random.Generator, *, top_k=None, **_) -> Fit:
    from ..privacy.oneshot import one_shot_scores

    eps = finite_eps(eps, "edge_one_shot")
    k = 1 if top_k is None else int(top_k)
    wins = c.to_wins()
    scores = one_shot_scores(wins, 1.0, k, eps, laplace_vector(rng, 1.0, c.n_items))
    # the mechanism releases the noisy top k (in order), not the noisy scores
    return Fit(
        scores=scores,
        details={"k": k},
        scores_released=not isinstance(rng, NoiseSource),
    )


# --------------------------------------------------------------------------- Paper A, individual DP


def fit_individual_mle(
    c: Comparisons,
    eps,
    rng: np.random.Generator,
    *,
    model="btl",
    max_per_user: int | None = None,
    xtol: float = 1e-10,
    max_iter: int = 100,
    **_,
) -> Fit:
    from ..privacy._release_mle import PenalizedFit, individual_mle_release

    eps = finite_eps(eps, "individual_mle")
    link = bounded_gradient_link(model, "the individual-DP perturbed MLE")
    L = user_bound(c, rng, max_per_user, "individual_mle")
    g = individual_gamma(eps, L, link.kappa2)
    mle = PenalizedFit(g, link, xtol, max_iter)
    scale = individual_mle_noise_scale(eps, L, link.kappa1)
    if isinstance(rng, NoiseSource):
        # a release: approximate minima perturbation with a certified fit (_release_mle)
        try:
            scores, fit, calib = individual_mle_release(c, eps, L, rng, mle, scale)
        except ValueError as exc:
            raise MethodInputError(f"method individual_mle: {exc}") from None
        details = {"L": L, "max_per_user": L, "gamma": g, **laplace_details(rng, scale)}
        details.update(calib, sampler="exact discrete Laplace on a power-of-two grid")
        return Fit(
            scores=scores, converged=bool(fit.converged), n_iter=int(fit.n_iter), details=details
        )
    fit = mle.solve(mle_data(c), laplace_vector(rng, scale, c.n_items), sum_zero=True)
    return fit_result(fit, L=L, max_per_user=L, gamma=g, **laplace_details(rng, scale))


def individual_count_fit(c, eps, rng, max_per_user, factor: float, name: str) -> Fit:
    """Noisy counts with ``Laplace(factor L / eps)``; the real l1 sensitivity is ``2 L``."""
    eps = finite_eps(eps, name)
    L = user_bound(c, rng, max_per_user, name)
    if isinstance(rng, NoiseSource):
        scores, scale = noisy_count_vector(c, rng, factor * L, eps, max_per_user=L)
    else:
        scale = factor * individual_count_noise_scale(eps, L)
        scores = wins_per_item(c) + scale * standard_laplace(rng, c.n_items)
    details = {"L": L, "max_per_user": L, **laplace_details(rng, scale, float(factor * L))}
    # calibrated to factor * L against a sensitivity of 2 L: (2 / factor) eps-DP, which the
    # method's privacy map states (dprank.privacy.mechanisms.counts_as_published_privacy_loss)
    details["sensitivity"] = 2.0 * L
    return Fit(scores=scores, details=details)


def fit_individual_counts(
    c: Comparisons, eps, rng: np.random.Generator, *, max_per_user: int | None = None, **_
) -> Fit:
    # One user's L comparisons can move two counts by L each: l1 sensitivity 2L.
    return individual_count_fit(c, eps, rng, max_per_user, 2.0, "individual_counts")


def fit_individual_counts_as_published(
    c: Comparisons, eps, rng: np.random.Generator, *, max_per_user: int | None = None, **_
) -> Fit:
    # Algorithm 3 as printed: Laplace(L/eps), which is only 2 eps-DP.
    return individual_count_fit(c, eps, rng, max_per_user, 1.0, "individual_counts_as_published")


# --------------------------------------------------------------------------- Paper B, local DP


def local_setup(c: Comparisons, name: str):
    from ..fit.weighted_mle import default_lambda
    from ..privacy.ldp import privacy_constant

    eps_user = np.asarray(c.user_epsilon, dtype=np.float64)
    L = eps_user.size
    lam = default_lambda(L, privacy_constant(eps_user))
    return eps_user, L, lam


def fit_weighted(c, records, lam, model, gtol, max_iter, **details) -> Fit:
    from ..fit.weighted_mle import fit_weighted_mle

    fit = fit_weighted_mle(
        records, None, c.n_items, lam, link_of(model), gtol=gtol, max_iter=max_iter
    )
    theta = fit.theta - fit.theta.mean()
    return Fit(
        scores=theta,
        converged=bool(fit.converged),
        n_iter=int(fit.n_iter),
        details={"lambda": lam, "solver": fit.method, **details},
    )


def local_weighted_fit(name: str, statistics, weights: str):
    """The fit of a weighted local method: its records, B2's ``lambda``, the weighted MLE.

    Parameters
    ----------
    name : str
        The registered method's name.
    statistics : callable
        ``statistics(c, eps_user, L) -> Comparisons``: the records the weighted MLE
        takes (:func:`debiased_statistics` or :func:`plugin_records`).
    weights : str
        The weights, as the fit's details name them (``"adrr"``, ``"equal"``).

    Returns
    -------
    callable
        ``fit(c, eps, rng, *, model="btl", gtol=1e-8, max_iter=100, **_) -> Fit``.
    """

    def fit(
        c: Comparisons,
        eps,
        rng: np.random.Generator,
        *,
        model="btl",
        gtol: float = 1e-8,
        max_iter: int = 100,
        **_,
    ) -> Fit:
        eps_user, L, lam = local_setup(c, name)
        records = statistics(c, eps_user, L)
        return fit_weighted(c, records, lam, model, gtol, max_iter, weights=weights)

    fit.__name__ = fit.__qualname__ = f"fit_{name}"
    return fit


def _adrr_statistics(c: Comparisons, eps_user: np.ndarray, L: int):
    """ADRR's records: debiased, each user weighted by :func:`dprank.privacy.ldp.adrr_weights`."""
    from ..privacy.ldp import adrr_weights

    return debiased_statistics(c, adrr_weights(eps_user))


#: ADRR (B2 eq. (3)-(5)): records debiased and weighted by the users' budgets
fit_local_adrr = local_weighted_fit("local_adrr", _adrr_statistics, "adrr")
#: debiased RR (B1 eq. (1)-(3)): records debiased, equal weights 1/L
fit_local_debiased_rr = local_weighted_fit(
    "local_debiased_rr", lambda c, eps_user, L: debiased_statistics(c, np.full(L, 1.0 / L)), "equal"
)


def fit_local_plugin(name: str):
    """A plug-in method's fit: the released outcomes as they are, equal weights ``1/L``."""
    return local_weighted_fit(
        name, lambda c, eps_user, L: plugin_records(c, c.y, np.full(c.y.size, 1.0 / L)), "equal"
    )


def fit_local_count(c: Comparisons, eps, rng: np.random.Generator, **_) -> Fit:
    from ..privacy.ldp import count_ranking

    scores = wins_per_item(c)
    return Fit(scores=scores, ranks=count_ranking(scores, rng), details={"ties": "random"})


# --------------------------------------------------------------------------- Paper B, central


def fit_noisy_obj(
    c: Comparisons,
    eps,
    rng: np.random.Generator,
    *,
    delta: float = 1e-6,
    gtol: float = 1e-8,
    max_iter: int = 100,
    **_,
) -> Fit:
    from ..fit.weighted_mle import noisy_obj_fit
    from ..privacy._release_mle import noisy_obj_release

    eps = finite_eps(eps, "edge_noisy_obj")
    if math.isinf(eps):
        raise MethodInputError("NoisyObj needs a finite epsilon")
    if isinstance(rng, NoiseSource):
        # a release: OpenDP's exact Gaussian on the win totals, then the fit (_release_mle)
        fit, calib = noisy_obj_release(c, eps, rng, delta, gtol=gtol, max_iter=max_iter)
        return fit_result(fit, delta=delta, **calib)
    # the raw records are the statistics (w_l = 1): fit_weighted_mle's sparse path
    fit = noisy_obj_fit(c, None, c.n_items, eps, rng, delta, gtol=gtol, max_iter=max_iter)
    return fit_result(fit, delta=delta, noise="gaussian")


# --------------------------------------------------------------------------- non-private


def fit_nonprivate_mle(
    c: Comparisons,
    eps,
    rng: np.random.Generator,
    *,
    model="btl",
    gamma: float | None = None,
    xtol: float = 1e-10,
    max_iter: int = 100,
    **_,
) -> Fit:
    from ..objective import TIE_MODELS

    if model in TIE_MODELS:
        # the maximum likelihood of the ties model (sum-zero scores), as its peers fit it
        from ..privacy.private_ties import nonprivate_release

        release = nonprivate_release(c, model, 0.0 if gamma is None else float(gamma))
        return _ties_fit(release, gamma=release.gamma)
    # gamma = 2 in count units is B2's lambda = 1/L with weights 1/L (Table 1's fit).
    from ..fit.mle import fit_penalized_mle

    gamma = 2.0 if gamma is None else gamma
    fit = fit_penalized_mle(
        mle_data(c), float(gamma), link=link_of(model), xtol=xtol, max_iter=max_iter
    )
    theta = fit.theta - fit.theta.mean()
    return Fit(
        scores=theta,
        converged=bool(fit.converged),
        n_iter=int(fit.n_iter),
        details={"gamma": float(gamma)},
    )


def fit_nonprivate_counts(c: Comparisons, eps, rng: np.random.Generator, **_) -> Fit:
    return Fit(scores=wins_per_item(c))


# --------------------------------------------------------------------------- comparisons with ties


def _ties_fit(release, **details) -> Fit:
    """The :class:`Fit` of a ties release (:mod:`dprank.privacy.private_ties`): centred scores."""
    fit = release.fit
    if not fit.converged:
        raise MethodInputError(
            f"the {release.model} fit did not converge in {fit.n_iter} Newton steps: its "
            "maximum likelihood does not exist for these comparisons (an item that never "
            "loses or never wins, or items that never meet the others); rank them with a "
            "ridge (option gamma > 0) or a private method"
        )
    return Fit(
        scores=fit.theta - fit.theta.mean(),
        converged=True,
        n_iter=int(fit.n_iter),
        details={**details, "model": release.model, "tie_parameter": fit.tie_parameter},
        release=release,
    )


def fit_edge_ties(
    c: Comparisons, eps, rng, *, model="davidson", gamma: float = PRIVATE_RIDGE, **_
) -> Fit:
    from ..privacy.private_ties import edge_release

    eps = finite_eps(eps, "edge_ties")
    if math.isinf(eps):
        raise MethodInputError("edge_ties needs a finite epsilon")
    release = edge_release(c, eps, rng, model, float(gamma))
    details = laplace_details(rng, release.scale, 2.0)
    if "grid_exponent" in details:  # drawn on twice the statistic, then halved
        details["grid_exponent"] = value_grid_exponent(2.0 * release.scale) - 1
    details["released_statistic"] = "each item's points (wins + ties / 2) and the ties"
    return _ties_fit(release, gamma=float(gamma), **details)


def fit_individual_ties(
    c: Comparisons,
    eps,
    rng,
    *,
    model="davidson",
    max_per_user: int | None = None,
    gamma: float = PRIVATE_RIDGE,
    **_,
) -> Fit:
    from ..privacy.private_ties import individual_release

    eps = finite_eps(eps, "individual_ties")
    if math.isinf(eps):
        raise MethodInputError("individual_ties needs a finite epsilon")
    L = user_bound(c, rng, max_per_user, "individual_ties")
    release = individual_release(c, eps, rng, L, model, float(gamma))
    details = laplace_details(rng, release.scale, 2.0 * L)
    details["released_statistic"] = "every pair's votes for each side and ties"
    return _ties_fit(release, gamma=float(gamma), L=L, max_per_user=L, **details)


def fit_local_ties(c: Comparisons, eps, rng, *, model="davidson", gamma=None, **_) -> Fit:
    from ..privacy.private_ties import local_release

    release = local_release(c, model, None if gamma is None else float(gamma))
    outcomes = 3 if c.ties else 2
    return _ties_fit(release, gamma=release.gamma, weights=f"adrr, {outcomes} outcomes")
