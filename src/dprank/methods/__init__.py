"""The registry of private ranking methods: one uniform call for every mechanism of both papers.

Every method takes the comparisons (:class:`dprank.data.comparisons.Comparisons`, the
sparse edge list), a privacy budget ``eps`` and an explicit source of randomness
``rng``, and returns a :class:`Fit` (scores, higher = better, or a ranking).
``rng`` is either a :class:`dprank.privacy.noise.NoiseSource` (a *release*: exact,
floating-point-safe samplers, by default on the operating system's secure
generator; what :func:`dprank.rank` and the command line pass) or a
:class:`numpy.random.Generator` (a *simulation*: numpy's samplers on a seeded
stream, as the papers' studies and the benchmark of methods draw them; not for
releasing anyone's data). Each declares what it protects and whom it trusts, in the
manner of scikit-learn's estimator tags:

``privacy_unit``
    ``"comparison"`` (edge DP: one comparison changes), ``"user"`` (individual
    or local DP: all of one user's comparisons change), or ``"none"``.
``trust_model``
    ``"central"`` (a trusted curator sees the raw comparisons), ``"local"``
    (the users release privatized comparisons; the input *is* that release), or
    ``"none"``.
``needs_users``
    The input must say which user made each comparison.
``needs_complete_graph``
    The method needs a complete tournament (every pair compared exactly once).

Each also carries its privacy map, :meth:`Method.privacy_loss` (a
:class:`PrivacyLoss`: ``epsilon``, ``delta``, the unit and the neighbouring relation as a
function of the budget and the declared parameters), which a release's record, the
ledger, the privacy audit and the privacy harness read: the one statement of its loss.

The registered methods call the library functions that the papers' studies import
(:mod:`dprank.fit.mle`, :mod:`dprank.privacy.mechanisms`, :mod:`dprank.fit.ranking`,
:mod:`dprank.privacy.oneshot`, :mod:`dprank.privacy.ldp`, :mod:`dprank.fit.weighted_mle`); nothing
here re-implements an estimator. :func:`register` adds a method (the benchmark
of methods registers user-supplied ones the same way), :func:`get_method` finds
one by name (the command's ``--method``, a config's method list) and
:func:`all_methods` lists them, in registration order.

Examples
--------
>>> import numpy as np
>>> from dprank.data.comparisons import Comparisons
>>> from dprank.methods import get_method
>>> data = Comparisons.from_winner_loser([0, 0, 1, 2], [1, 2, 2, 0], n_items=3)
>>> fit = get_method("nonprivate_counts").fit(data, np.inf, np.random.default_rng(0))
>>> fit.scores.tolist()
[2.0, 1.0, 1.0]
"""

from __future__ import annotations

from functools import partial

# The machinery (Fit, Method, the registry, shared helpers, local releases) and the
# fit functions live in private modules; every name stays importable from here. The
# estimators themselves (dprank.fit.mle, dprank.privacy.ldp, ...) are imported by each fit on
# its first call, and their names re-exported here on first access (__getattr__ below), so
# importing the registry (dprank rank does) loads no method's implementation.
from ..data.comparisons import Comparisons  # noqa: F401
from ..data.models import Link, get_link  # noqa: F401
from ..privacy.mechanisms import (
    EDGE_TIES_MODELS,
    INDIVIDUAL_TIES_MODELS,
    LOCAL_TIES_MODELS,
    counts_as_published_privacy_loss,
    edge_count_noise_scale,
    edge_mle_noise_scale,
    individual_count_noise_scale,
    individual_mle_noise_scale,
    noisy_obj_privacy_loss,
    one_shot_privacy_loss,
)
from ..privacy.noise import NoiseSource, grid_exponent, laplace_scale  # noqa: F401
from ._method_fits import (  # noqa: F401
    data_edge_gamma,
    fit_edge_counts,
    fit_edge_mle,
    fit_edge_ties,
    fit_individual_counts,
    fit_individual_counts_as_published,
    fit_individual_mle,
    fit_individual_ties,
    fit_local_adrr,
    fit_local_count,
    fit_local_debiased_rr,
    fit_local_plugin,
    fit_local_ties,
    fit_noisy_obj,
    fit_nonprivate_counts,
    fit_nonprivate_mle,
    fit_one_shot,
    fit_weighted,
    individual_count_fit,
    local_setup,
)
from ._method_registry import (  # noqa: F401
    DENSE_MAX_ITEMS,
    METHODS_BY_NAME,
    NEIGHBOURS,
    PRIVACY_UNITS,
    PUBLIC_DETAILS,
    TRUST_MODELS,
    Fit,
    Method,
    MethodInputError,
    PrivacyLoss,
    UnknownMethodError,
    all_methods,
    check_binary,
    check_dense,
    check_tournament,
    debiased_statistics,
    finite_eps,
    fit_result,
    get_method,
    laplace_details,
    laplace_vector,
    link_of,
    max_user_count,
    method_from_path,
    mle_data,
    noisy_count_vector,
    plugin_records,
    register,
    release_local,
    simulated_local_release,
    unregister,
    user_bound,
    wins_per_item,
)

#: names re-exported from the estimators' modules, imported on first access (PEP 562)
_FIT_MLE_NAMES = ("ConvergenceError", "fit_penalized_mle", "fit_penalized_mle_batch")
_LDP_NAMES = (
    "add_rr_statistics",
    "add_sufficient_statistics",
    "adrr_weights",
    "count_ranking",
    "count_scores",
    "debias",
    "laplace_release",
    "privacy_constant",
    "randomized_response",
    "rr_flip_probability",
    "sample_rr_statistics_equal_eps",
    "simulate_ldp_statistics",
)


def __getattr__(name: str):
    """The names this module re-exports from :mod:`dprank.fit.mle` and
    :mod:`dprank.privacy.ldp`, imported on first access (PEP 562): the registry itself
    needs neither module."""
    if name in _FIT_MLE_NAMES:
        from ..fit import mle

        return getattr(mle, name)
    if name in _LDP_NAMES:
        from ..privacy import ldp

        return getattr(ldp, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *_FIT_MLE_NAMES, *_LDP_NAMES})


__all__ = [
    "NEIGHBOURS",
    "PRIVACY_UNITS",
    "PUBLIC_DETAILS",
    "TRUST_MODELS",
    "Fit",
    "Method",
    "MethodInputError",
    "PrivacyLoss",
    "UnknownMethodError",
    "all_methods",
    "get_method",
    "method_from_path",
    "register",
    "release_local",
    "simulated_local_release",
    "unregister",
]

# --------------------------------------------------------------------------- the registry


def _declared(privacy_unit, trust_model, name, fit, paper, algorithm, **tags) -> Method:
    """A :class:`Method` at a privacy level: its unit and trust model, stated once per level.

    A method that protects users needs the user of every comparison (``needs_users``).
    """
    needs_users = privacy_unit == "user"
    return Method(
        name, fit, paper, algorithm, privacy_unit, trust_model, needs_users=needs_users, **tags
    )


# one declaring function per privacy level: (name, fit, paper, algorithm, **tags) -> Method;
# a local method's users release by randomized response and it fits BTL or Thurstone unless
# its registration says otherwise
_edge = partial(_declared, "comparison", "central")
_individual = partial(_declared, "user", "central")
_local = partial(_declared, "user", "local", models=("btl", "tm"), release="rr")
_nonprivate = partial(_declared, "none", "none")

for _m in (
    _edge(
        "edge_mle",
        fit_edge_mle,
        "A",
        "Algorithm 1",
        description="perturbed, ridge-penalised MLE (objective perturbation, Laplace 8/eps)",
        label="Perturbed MLE (Alg. 1)",
        noise_scale=edge_mle_noise_scale,
    ),
    _edge(
        "edge_counts",
        fit_edge_counts,
        "A",
        "Algorithm 2",
        models=(),
        description="noisy Copeland counts, Laplace(2/eps)",
        label="Noisy counts (Alg. 2)",
        noise_scale=edge_count_noise_scale,
    ),
    _edge(
        "edge_one_shot",
        fit_one_shot,
        "A",
        "Experiment 4 (Qiao, Su & Zhang 2021)",
        needs_complete_graph=True,
        models=(),
        description="one-shot top-k from a noisy rank-centrality walk (delta = 1/n^2)",
        label="One-shot top-k (Qiao et al.)",
        privacy_map=one_shot_privacy_loss,
    ),
    _edge(
        "edge_noisy_obj",
        fit_noisy_obj,
        "B",
        "NoisyObj baseline, B2 section 5.1",
        description="Gaussian objective perturbation (Cai, Wang & Zhang 2023), delta = 1e-6",
        delta=1e-6,
        label="NoisyObj",
        privacy_map=noisy_obj_privacy_loss,
    ),
    _individual(
        "individual_mle",
        fit_individual_mle,
        "A",
        "Algorithm 3 (MLE), Proposition 3.1",
        description="perturbed MLE, ridge 2L/eps, Laplace 8L/eps, L = most comparisons per user",
        label="Perturbed MLE (Alg. 3)",
        noise_scale=individual_mle_noise_scale,
    ),
    _individual(
        "individual_counts",
        fit_individual_counts,
        "A",
        "Algorithm 3 (counts), real sensitivity",
        models=(),
        description="noisy counts, Laplace(2L/eps): calibrated to the real l1 sensitivity 2L",
        label="Noisy counts (Alg. 3)",
    ),
    _individual(
        "individual_counts_as_published",
        fit_individual_counts_as_published,
        "A",
        "Algorithm 3 (counts), as published",
        models=(),
        description="noisy counts, Laplace(L/eps) as printed: only 2 eps-DP",
        label="Noisy counts (Alg. 3, as published)",
        noise_scale=individual_count_noise_scale,
        release_ok=False,  # releases 2 eps, not the requested eps: never a default
        privacy_map=counts_as_published_privacy_loss,
    ),
    _local(
        "local_adrr",
        fit_local_adrr,
        "B",
        "ADRR, B2 eq. (3)-(5)",
        description="debiased randomized response with ADRR weights, weighted MLE",
        label="ADRR",
    ),
    _local(
        "local_debiased_rr",
        fit_local_debiased_rr,
        "B",
        "debiased RR, B1 eq. (1)-(3)",
        description="debiased randomized response, equal weights (B1)",
        label="Debiased RR",
    ),
    _local(
        "local_classic_rr",
        fit_local_plugin("local_classic_rr"),
        "B",
        "classic RR plug-in, B2 section 5.1",
        description="raw randomized-response outputs plugged into the MLE (biased)",
        label="Classic RR",
    ),
    _local(
        "local_laplace",
        fit_local_plugin("local_laplace"),
        "B",
        "Laplace plug-in, B2 section 5.1",
        description="outcomes + Laplace(1/eps) plugged into the MLE",
        release="laplace",
        label="Laplace",
    ),
    _local(
        "local_count",
        fit_local_count,
        "B",
        "count method, B2 section 5.1",
        models=(),
        description="wins per item of the randomized-response outputs, ties at random",
        label="Count Method",
    ),
    _nonprivate(
        "nonprivate_mle",
        fit_nonprivate_mle,
        "-",
        "penalised MLE (eq. (2.2) without noise)",
        models=("btl", "tm", "davidson", "raokupper"),
        ties=True,
        description="non-private ridge-penalised MLE (gamma = 2; ties models: the MLE)",
        label="Non-private MLE",
    ),
    _edge(
        "edge_ties",
        fit_edge_ties,
        "-",
        "noisy points and ties, Davidson MLE (dprank.private_ties)",
        models=EDGE_TIES_MODELS,
        ties=True,
        description="items' points (wins + ties/2) and the ties + Laplace(2/eps), then the "
        "ties model's MLE (votes with ties; one vote's outcome among three)",
        label="Noisy points, Davidson (edge)",
        noise_scale=lambda eps: 2.0 / eps,
    ),
    _individual(
        "individual_ties",
        fit_individual_ties,
        "-",
        "noisy outcome table, Davidson MLE (dprank.private_ties)",
        models=INDIVIDUAL_TIES_MODELS,
        ties=True,
        description="every pair's win/tie/loss counts + Laplace(2L/eps), then the ties "
        "model's MLE (a voter's at most L votes)",
        label="Noisy table, Davidson (voter)",
        noise_scale=lambda eps, L: 2.0 * L / eps,
    ),
    _local(
        "local_ties",
        fit_local_ties,
        "-",
        "three-outcome RR, ADRR debiasing, Davidson MLE (dprank.private_ties)",
        models=LOCAL_TIES_MODELS,
        ties=True,
        description="votes released by three-outcome randomized response, debiased and "
        "weighted as ADRR, then the ties model's MLE",
        release="rr3",
        label="3-outcome RR + ADRR, Davidson (local)",
    ),
    _nonprivate(
        "nonprivate_counts",
        fit_nonprivate_counts,
        "-",
        "Copeland counts",
        models=(),
        description="non-private wins per item",
        label="Non-private counts",
    ),
):
    register(_m)
del _m
