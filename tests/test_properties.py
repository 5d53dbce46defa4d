"""Property-based tests of the public library: every function, valid and invalid arguments.

Two kinds of test (issue 31, "Library"):

* ``test_rejects_bad_argument``: for each public function and each argument, Hypothesis
  draws valid values for the other arguments and a bad value for that one (wrong shape,
  NaN, a negative count, a probability outside [0, 1], a string where a number belongs,
  ...); the call must raise ``ValueError`` or ``TypeError`` whose message names the
  argument. A silent answer or another exception (``IndexError``, ``AttributeError``,
  ``LinAlgError``) fails the test.
* ``test_accepts_valid_arguments`` and the ``test_*_property`` tests: valid generated
  arguments give an answer, and where the answer has a closed form or a defining
  property (a stationary distribution is stationary, a top-k set holds the k largest
  scores, a relative Hamming error counts a set difference) it is checked.

The cases are tables of ``(function, valid-argument builder, {argument: bad values})``;
the list of functions is compared with the modules' ``__all__`` so a new public
function without a case fails :func:`test_every_public_function_has_a_case`.
"""

from __future__ import annotations

import importlib
import inspect
import math
import re
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import dprank
from dprank import api, audit, methods, objective
from dprank.base import checks as _public_checks
from dprank.base import seeding
from dprank.data import comparisons, models, simulate
from dprank.fit import metrics, metrics_b, mixed_effects, mle, ranking, sparse, weighted_mle
from dprank.privacy import ldp, mechanisms, oneshot
from dprank_papers import aggregate, grid, introselect, numerics, rbfgs, rrng

NAN, INF = float("nan"), float("inf")

# Public functions that cannot sensibly be called with generated arguments, each with the
# reason and where it is tested instead (docs/robustness.md, "The property suite").
# test_every_public_function_has_a_case fails for a public function in neither a case nor
# this table, and for an entry that names no public function any more.
# The argument checks of dprank.base.checks are the guards themselves: every bad-argument case of
# this suite runs them through the public function they guard, and their messages are what
# those cases match.
_CHECKS_REASON = "an argument check: run by every bad-argument case of the functions it guards"
EXCLUDED: dict[str, str] = {
    f"dprank.base.checks.{name}": _CHECKS_REASON for name in _public_checks.__all__
} | {
    "dprank.cli.build_parser": "takes no argument; every option is parsed by tests/test_cli*.py "
    "and the synopses are generated from it (docs/includes/cli_*.md)",
    "dprank_papers.deps.use_import_cache": "sets the process's cache file for the workflow's "
    "import scan (a global): tests/test_workflow_helpers.py (test_the_import_cache_*) checks "
    "its lists against the scan's and its bad argument",
}

# ------------------------------------------------------------------------ strategies


def n_items(lo: int = 2, hi: int = 6):
    return st.integers(lo, hi)


def scores(n: int, lo: float = -2.0, hi: float = 2.0):
    return hnp.arrays(np.float64, n, elements=st.floats(lo, hi, allow_nan=False))


def win_matrix(n: int, hi: int = 3):
    def zero_diagonal(w):
        np.fill_diagonal(w, 0)
        return w

    return hnp.arrays(np.int64, (n, n), elements=st.integers(0, hi)).map(zero_diagonal)


def generator():
    return st.integers(0, 2**32 - 1).map(np.random.default_rng)


def binary(shape):
    return hnp.arrays(np.uint8, shape, elements=st.integers(0, 1))


# Bad values shared by many arguments; a callable is called with the valid arguments.
NOT_A_NUMBER = ["1", None, [1.0, 2.0], object()]
BAD_PROB = [-0.1, 1.5, NAN, "0.5", None]
BAD_POSITIVE = [0.0, -1.0, NAN, "1", None]
BAD_POSITIVE_FINITE = [*BAD_POSITIVE, INF]
BAD_COUNT = [-1, 0.5, NAN, INF, "2", None, True]
BAD_COUNT1 = [0, *BAD_COUNT]
BAD_RNG = ["abc", 7, None, np.random.RandomState(0)]
BAD_LINK = ["btl", None, 1.0]
BAD_WINS = [
    np.zeros((3, 1)),
    np.zeros(3),
    -np.ones((3, 3)),
    np.full((3, 3), NAN),
    np.array([["a", "b"], ["c", "d"]]),
]


def same_length(key: str, transform: Callable[[np.ndarray], np.ndarray]):
    """A bad value built from the valid value of argument ``key``."""
    return lambda kw: transform(np.asarray(kw[key]))


def with_nan(x: np.ndarray) -> np.ndarray:
    """``x`` (as float) with its first entry NaN; ``[nan]`` for an empty ``x``."""
    if x.size == 0:
        return np.array([NAN])
    out = x.astype(np.float64)
    out.flat[0] = NAN
    return out


def longer(x: np.ndarray) -> np.ndarray:
    """``x`` with one more entry along its last axis (a zero)."""
    return np.concatenate([x, np.zeros((*x.shape[:-1], 1), dtype=x.dtype)], axis=-1)


def rand_walk(n: int, rng: np.random.Generator) -> np.ndarray:
    """A random (irreducible) row-stochastic matrix."""
    p = rng.random((n, n)) + 0.1
    return p / p.sum(axis=1, keepdims=True)


# ------------------------------------------------------------------------ the case table


def registry():
    """A test file's tables (cases, builders, checks) and its ``case`` function.

    ``case(fn, build, check, **bad)`` registers ``fn`` with a builder of valid keyword
    arguments, an optional ``check(result, kwargs)`` of what the valid call returns, and
    bad values per argument; :func:`property_tests` turns the tables into tests.
    """
    cases: list[tuple[Callable, Callable, str, list]] = []
    builders: dict[Callable, Callable] = {}
    checks: dict[Callable, Callable] = {}

    def case(_fn, _build, _check=None, /, **bad):
        builders[_fn] = _build
        if _check is not None:
            checks[_fn] = _check
        for arg, values in bad.items():
            cases.append((_fn, _build, arg, values))

    return case, cases, builders, checks


case, CASES, BUILDERS, CHECKS = registry()


def kw(**strategies):
    """A builder: draw each keyword argument from its strategy (callables get the partial dict)."""

    def build(draw):
        out = {}
        for name, s in strategies.items():
            out[name] = draw(s(out) if callable(s) and not isinstance(s, st.SearchStrategy) else s)
        return out

    return build


def theta_for(key="n"):
    return lambda kw: scores(kw[key])


def wins_for(key="n"):
    return lambda kw: win_matrix(kw[key])


def drop(build, *names):
    """The builder without the helper entries ``names`` (sizes drawn for the others)."""

    def inner(draw):
        out = build(draw)
        for n in names:
            out.pop(n, None)
        return out

    return inner


# ---- models
case(
    models.get_link,
    kw(name=st.sampled_from(["btl", "tm", models.BTL, models.THURSTONE])),
    lambda r, kw: isinstance(r, models.Link),
    name=["bogus", "BTL", None, 3],
)

# ---- simulate
_er = drop(kw(n=n_items(), theta=theta_for(), p=st.floats(0, 1), rng=generator()), "n")


def _check_er(w, kw):
    n = len(kw["theta"])
    assert w.shape == (n, n) and np.all(np.diag(w) == 0)
    assert np.all((w + w.T) <= 1)


BAD_THETA = [np.zeros((3, 3)), np.array([0.0, NAN, 1.0]), np.array([0.0, INF]), ["a", "b"]]
case(
    simulate.sample_er_comparisons,
    _er,
    _check_er,
    theta=BAD_THETA,
    p=BAD_PROB,
    rng=BAD_RNG,
    link=BAD_LINK,
)
case(
    simulate.sample_er_comparisons_sparse,
    _er,
    lambda c, kw: c.n_items == len(kw["theta"]) and np.all(c.i < c.j),
    theta=BAD_THETA,
    p=BAD_PROB,
    rng=BAD_RNG,
    link=BAD_LINK,
)
case(
    simulate.pair_from_index,
    kw(
        n=n_items(2, 40),
        k=lambda kw: hnp.arrays(
            np.int64, 5, elements=st.integers(0, kw["n"] * (kw["n"] - 1) // 2 - 1)
        ),
    ),
    lambda r, kw: np.array_equal(
        np.column_stack(r), np.column_stack(np.triu_indices(kw["n"], 1))[kw["k"]]
    ),
    k=[lambda kw: np.array([kw["n"] * (kw["n"] - 1) // 2]), np.array([-1]), np.array([0.5]), "a"],
    n=[-1, 2.5, "4", None],
)
case(
    simulate.sample_user_comparisons,
    drop(
        kw(
            n=n_items(),
            theta=theta_for(),
            m=st.integers(0, 5),
            L=st.integers(0, 3),
            rng=generator(),
        ),
        "n",
    ),
    lambda w, kw: w.sum() == kw["m"] * kw["L"],
    theta=[*BAD_THETA[1:], np.zeros(1), np.zeros((2, 2, 2))],
    m=BAD_COUNT,
    L=BAD_COUNT,
    rng=BAD_RNG,
    link=BAD_LINK,
)
for _f in (simulate.theta_paper_a_edge, simulate.theta_paper_a_individual):
    case(
        _f,
        kw(n=n_items(1, 20), rng=generator()),
        lambda t, kw: t.shape == (kw["n"],) and np.isfinite(t).all(),
        n=BAD_COUNT1,
        rng=BAD_RNG,
    )
case(
    simulate.top_k_size,
    kw(n=st.integers(1, 1000)),
    lambda k, kw: k == round(kw["n"] / 4),
    n=BAD_COUNT1,
)
case(
    simulate.top_k_size_individual,
    kw(n=st.integers(1, 1000)),
    lambda k, kw: k == kw["n"] // 4,
    n=BAD_COUNT1,
)

# ---- seeding
case(
    seeding.cell_key,
    kw(params=st.dictionaries(st.sampled_from("abc"), st.integers(0, 9) | st.floats(0, 1))),
    lambda r, kw: 0 <= r < 2**63,
    params=[{"eps": NAN}, [("a", 1)], None, {"a": object()}],
)
case(
    seeding.generator,
    kw(
        root=st.integers(0, 2**31),
        experiment=st.sampled_from(["exp1", "fig5"]),
        cell=st.integers(0, 2**40),
        replicate=st.integers(0, 100),
        stream=st.sampled_from(list(seeding.Stream)),
    ),
    lambda r, kw: isinstance(r, np.random.Generator),
    root=[-1, 0.5, "1", None],
    cell=[-1, 0.5, "1", None],
    replicate=[-3, 0.5, "1", None],
    stream=[99, "data", None],
    experiment=[None, object()],
)
case(
    seeding.uniforms,
    kw(rng=generator(), shape=st.integers(0, 10) | st.tuples(st.integers(0, 4), st.integers(0, 4))),
    lambda u, kw: u.shape == np.empty(kw["shape"]).shape and ((u >= 0) & (u < 1)).all(),
    rng=BAD_RNG,
    shape=[-1, (2, -1), 0.5, "3"],
    workers=[0, -1, 0.5, "2"],
    min_per_thread=[0, -1, 0.5],
)

# ---- rrng
case(
    rrng.r_mt_state,
    kw(seed=st.integers(-(2**31), 2**31)),
    lambda r, kw: r.shape == (624,),
    seed=[0.5, "1", None, NAN],
)
case(
    rrng.r_runif,
    kw(n=st.integers(0, 20), seed=st.integers(-100, 100)),
    lambda u, kw: u.shape == (kw["n"],) and ((u > 0) & (u < 1)).all(),
    n=BAD_COUNT,
    seed=[0.5, "1", None, NAN],
)
case(
    rrng.r_fixed_laplace,
    kw(n=st.integers(0, 20), seed=st.integers(-100, 100)),
    lambda u, kw: u.shape == (kw["n"],) and np.isfinite(u).all(),
    n=BAD_COUNT,
    seed=[0.5, "1", None, NAN],
)

# ---- numerics
_PINS = ("OPENBLAS_CORETYPE", "NPY_DISABLE_CPU_FEATURES")
case(
    numerics.pinned_env,
    kw(environ=st.dictionaries(st.sampled_from([*_PINS, "PATH", "HOME"]), st.text(max_size=5))),
    lambda r, kw: set(r) <= set(_PINS) and not set(r) & set(kw["environ"]),
    environ=[5, "OPENBLAS_CORETYPE", [("PATH", "x")]],
)

# ---- mechanisms
EPS = st.floats(0.01, 100) | st.just(INF)
case(
    mechanisms.edge_mle_noise_scale,
    kw(eps=EPS, kappa1=st.floats(0.1, 10)),
    lambda s, kw: math.isclose(s, 0 if math.isinf(kw["eps"]) else 8 * kw["kappa1"] / kw["eps"]),
    eps=BAD_POSITIVE,
    kappa1=BAD_POSITIVE_FINITE,
)
case(
    mechanisms.edge_count_noise_scale,
    kw(eps=EPS),
    lambda s, kw: math.isclose(s, 0 if math.isinf(kw["eps"]) else 2 / kw["eps"]),
    eps=BAD_POSITIVE,
)
case(
    mechanisms.individual_mle_noise_scale,
    kw(eps=EPS, L=st.integers(1, 50), kappa1=st.floats(0.1, 10)),
    lambda s, kw: math.isclose(
        s, 0 if math.isinf(kw["eps"]) else 8 * kw["kappa1"] * kw["L"] / kw["eps"]
    ),
    eps=BAD_POSITIVE,
    L=BAD_COUNT1,
    kappa1=BAD_POSITIVE_FINITE,
)
case(
    mechanisms.individual_gamma,
    kw(eps=EPS, L=st.integers(1, 50), kappa2=st.floats(0.1, 10)),
    lambda s, kw: math.isclose(
        s, 0 if math.isinf(kw["eps"]) else 8 * kw["kappa2"] * kw["L"] / kw["eps"]
    ),
    eps=BAD_POSITIVE,
    L=BAD_COUNT1,
    kappa2=BAD_POSITIVE_FINITE,
)
case(
    mechanisms.individual_count_noise_scale,
    kw(eps=EPS, L=st.integers(1, 50)),
    lambda s, kw: math.isclose(s, 0 if math.isinf(kw["eps"]) else kw["L"] / kw["eps"]),
    eps=BAD_POSITIVE,
    L=BAD_COUNT1,
)
FINITE_EPS = st.floats(0.01, 100)
case(
    mechanisms.one_shot_privacy_loss,
    kw(eps=FINITE_EPS, n_items=st.integers(2, 50)),
    lambda r, kw: (r.epsilon, r.delta, r.unit) == (kw["eps"], 1 / kw["n_items"] ** 2, "comparison"),
    eps=BAD_POSITIVE_FINITE,
    n_items=[1, *BAD_COUNT1],
)
case(
    mechanisms.noisy_obj_privacy_loss,
    kw(eps=FINITE_EPS, delta=st.floats(1e-12, 0.5)),
    lambda r, kw: (r.epsilon, r.delta, r.unit) == (kw["eps"], kw["delta"], "comparison"),
    eps=BAD_POSITIVE_FINITE,
    delta=[0.0, 1.0, *BAD_PROB],
)
case(
    mechanisms.counts_as_published_privacy_loss,
    kw(eps=FINITE_EPS),
    lambda r, kw: (r.epsilon, r.delta, r.unit) == (2 * kw["eps"], 0.0, "user"),
    eps=BAD_POSITIVE_FINITE,
)
case(
    mechanisms.standard_laplace,
    kw(rng=generator(), size=st.integers(0, 10)),
    lambda x, kw: x.shape == (kw["size"],),
    rng=BAD_RNG,
    size=[-1, 0.5, "3"],
)

# ---- mle
_mle = drop(kw(n=n_items(), wins=wins_for(), gamma=st.floats(0.1, 5), b=theta_for()), "n")
BAD_GAMMA = [-1.0, NAN, INF, "1", None]
BAD_B = [same_length("b", longer), same_length("b", with_nan), "x"]


def _check_mle(fit, kw):
    assert fit.theta.shape == (len(kw["b"]),) and np.isfinite(fit.theta).all()
    if fit.converged:  # the penalised objective's gradient vanishes at the optimum
        t = fit.theta
        h = 1e-6
        f0 = mle.penalized_objective(t, kw["wins"], kw["gamma"], kw["b"])
        for i in range(t.size):
            e = np.zeros(t.size)
            e[i] = h
            f1 = mle.penalized_objective(t + e, kw["wins"], kw["gamma"], kw["b"])
            assert f1 >= f0 - 1e-7


case(
    mle.fit_penalized_mle,
    _mle,
    _check_mle,
    wins=BAD_WINS,
    gamma=BAD_GAMMA,
    b=BAD_B,
    link=BAD_LINK,
    theta0=[same_length("b", longer), same_length("b", with_nan)],
    sum_zero=["yes", None],
    xtol=[-1.0, NAN, "x"],
    max_iter=[-1, 0.5, "3"],
    raise_on_failure=["yes", None],
)


def _batch(draw):
    n = draw(n_items())
    r = draw(st.integers(1, 3))
    w = draw(hnp.arrays(np.int64, (r, n, n), elements=st.integers(0, 3)))
    w[:, np.arange(n), np.arange(n)] = 0
    return {
        "wins": w,
        "gamma": draw(st.floats(0.1, 5)),
        "b": draw(hnp.arrays(np.float64, (r, n), elements=st.floats(-1, 1))),
    }


case(
    mle.fit_penalized_mle_batch,
    _batch,
    lambda f, kw: f.theta.shape == kw["b"].shape,
    wins=[np.zeros((2, 3, 1)), -np.ones((1, 3, 3)), np.full((1, 3, 3), NAN), "w"],
    gamma=BAD_GAMMA,
    b=[same_length("b", longer), same_length("b", with_nan)],
    link=BAD_LINK,
    xtol=[-1.0, NAN, "x"],
    max_iter=[-1, 0.5, "3"],
)
case(
    mle.penalized_objective,
    drop(
        kw(n=n_items(), theta=theta_for(), wins=wins_for(), gamma=st.floats(0, 5), b=theta_for()),
        "n",
    ),
    lambda v, kw: np.isfinite(v),
    theta=[same_length("theta", longer), same_length("theta", with_nan), "t"],
    wins=BAD_WINS,
    gamma=BAD_GAMMA,
    b=[same_length("b", longer), same_length("b", with_nan)],
    link=BAD_LINK,
)

# ---- objective (the likelihood the estimators share)
_objective_kw = drop(
    kw(n=n_items(), theta=theta_for(), wins=wins_for(), gamma=st.floats(0.1, 5), b=theta_for()),
    "n",
)


def _check_objective_value(v, kw):
    # the same number as the estimator's objective, and the ridge convention (gamma / 2)
    assert v == mle.penalized_objective(kw["theta"], kw["wins"], kw["gamma"], kw["b"])
    t = np.asarray(kw["theta"], dtype=float)
    no_ridge = objective.objective_value(t, kw["wins"], 0.0, kw["b"])
    assert v - no_ridge == pytest.approx(0.5 * kw["gamma"] * (t @ t), rel=1e-9, abs=1e-9)


case(
    objective.objective_value,
    _objective_kw,
    _check_objective_value,
    theta=[same_length("theta", longer), same_length("theta", with_nan), "t"],
    wins=BAD_WINS,
    gamma=BAD_GAMMA,
    b=[same_length("b", longer), same_length("b", with_nan)],
    link=BAD_LINK,
)


def _check_objective_gradient(g, kw):
    # the directional derivative along the all-ones vector: sum(g) = gamma sum(theta) + sum(b)
    t, b = np.asarray(kw["theta"], dtype=float), np.asarray(kw["b"], dtype=float)
    assert g.shape == t.shape
    assert g.sum() == pytest.approx(kw["gamma"] * t.sum() + b.sum(), abs=1e-8)


case(
    objective.objective_gradient,
    _objective_kw,
    _check_objective_gradient,
    theta=[same_length("theta", longer), same_length("theta", with_nan), "t"],
    wins=BAD_WINS,
    gamma=BAD_GAMMA,
    b=[same_length("b", longer), same_length("b", with_nan)],
    link=BAD_LINK,
)


def _check_objective_hessian(h, kw):
    # symmetric, positive definite (gamma > 0), the all-ones vector an eigenvector (gamma)
    n = len(kw["theta"])
    assert h.shape == (n, n) and np.allclose(h, h.T)
    assert np.allclose(h @ np.ones(n), kw["gamma"])
    assert np.linalg.eigvalsh(h).min() >= kw["gamma"] * (1 - 1e-9) - 1e-12


case(
    objective.objective_hessian,
    drop(kw(n=n_items(), theta=theta_for(), wins=wins_for(), gamma=st.floats(0.1, 5)), "n"),
    _check_objective_hessian,
    theta=[same_length("theta", longer), same_length("theta", with_nan), "t"],
    wins=BAD_WINS,
    gamma=BAD_GAMMA,
    link=BAD_LINK,
)
case(
    objective.edge_ridge,
    kw(n=st.integers(1, 10**6), p=st.floats(1e-3, 1.0), c0=st.floats(0.1, 10)),
    lambda g, kw: (
        g >= 0
        and g == pytest.approx(kw["c0"] * np.sqrt(kw["n"] * kw["p"] * np.log(kw["n"])), rel=1e-12)
    ),
    n=BAD_COUNT1,
    p=[0.0, *BAD_PROB],
    c0=BAD_POSITIVE_FINITE,
)
case(
    objective.moment_link,
    kw(link=st.sampled_from([models.BTL, models.THURSTONE])),
    lambda loss, kw: np.allclose(
        loss.loss_derivatives(np.linspace(-4, 4, 9))[0],
        -kw["link"].cdf(-np.linspace(-4, 4, 9)),
        rtol=0,
        atol=1e-12,
    ),
    link=BAD_LINK,
)
case(
    objective.ridge_from_lambda,
    kw(lam=st.floats(0, 1e6)),
    lambda g, kw: objective.lambda_from_ridge(g) == kw["lam"],
    lam=[-1.0, NAN, INF, "1", None],
)
case(
    objective.lambda_from_ridge,
    kw(gamma=st.floats(0, 1e6)),
    lambda lam, kw: objective.ridge_from_lambda(lam) == kw["gamma"],
    gamma=[-1.0, NAN, INF, "1", None],
)

# ---- ranking
case(
    ranking.top_k,
    drop(kw(n=n_items(1, 8), scores=theta_for(), k=lambda kw: st.integers(1, kw["n"])), "n"),
    lambda r, kw: (
        r.shape == (kw["k"],)
        and np.min(kw["scores"][r]) >= np.sort(kw["scores"])[::-1][kw["k"] - 1]
    ),
    scores=[np.zeros((2, 2)), same_length("scores", with_nan), ["a", "b"]],
    k=[0, lambda kw: len(kw["scores"]) + 1, 1.5, "1", None, True],
    tie_keys=[same_length("scores", longer), same_length("scores", with_nan), "x"],
)
case(
    ranking.top_k_batch,
    drop(
        kw(
            n=n_items(1, 6),
            scores=lambda kw: hnp.arrays(np.float64, (3, kw["n"]), elements=st.floats(-2, 2)),
            k=lambda kw: st.integers(1, kw["n"]),
        ),
        "n",
    ),
    lambda r, kw: np.array_equal(r, np.stack([ranking.top_k(s, kw["k"]) for s in kw["scores"]])),
    scores=[np.zeros(()), same_length("scores", with_nan)],
    k=[0, lambda kw: kw["scores"].shape[-1] + 1, 1.5, "1", None],
    tie_keys=[same_length("scores", longer), "x"],
)
case(
    ranking.copeland_counts,
    drop(kw(n=n_items(), wins=wins_for()), "n"),
    lambda c, kw: np.array_equal(c, np.asarray(kw["wins"]).sum(axis=1)),
    wins=[*BAD_WINS, None],
)
case(
    ranking.noisy_counts,
    drop(kw(n=n_items(), wins=wins_for(), noise=theta_for()), "n"),
    lambda c, kw: np.allclose(c, np.asarray(kw["wins"]).sum(axis=1) + kw["noise"]),
    wins=BAD_WINS,
    noise=[
        lambda kw: np.zeros((len(kw["noise"]), 1)),
        same_length("noise", longer),
        same_length("noise", with_nan),
        "x",
    ],
)

# ---- oneshot
case(
    oneshot.rank_centrality_matrix,
    drop(kw(n=n_items(), wins=wins_for(), d=lambda kw: st.floats(kw["n"], 10 * kw["n"])), "n"),
    lambda p, kw: np.allclose(p.sum(axis=1), 1) and (p >= 0).all(),
    wins=BAD_WINS,
    d=BAD_POSITIVE_FINITE,
)
case(
    oneshot.stationary_distribution,
    drop(
        kw(n=n_items(), rng=generator(), p=lambda kw: st.just(rand_walk(kw["n"], kw["rng"]))),
        "n",
        "rng",
    ),
    lambda pi, kw: (
        np.allclose(pi @ kw["p"], pi) and np.isclose(pi.sum(), 1) and (pi > -1e-12).all()
    ),
    p=[np.ones((3, 3)), np.zeros((3, 2)), -np.eye(3), np.full((2, 2), NAN), np.zeros((0, 0)), "p"],
)


def _dob_build(draw):
    n = draw(n_items())
    d = float(draw(st.integers(n, 3 * n)))
    p = oneshot.rank_centrality_matrix(draw(win_matrix(n)), d)
    return {"p": p, "off_diagonal_value": 1.0 / d}


case(
    oneshot.dobrushin_coefficient,
    _dob_build,
    lambda rho, kw: 0 <= rho <= 1,
    p=[np.ones((3, 2)), np.full((2, 2), NAN), "p"],
    off_diagonal_value=[0.0, -1.0, NAN, "x"],
)
case(
    oneshot.one_shot_noise_scale,
    kw(
        n=st.integers(2, 100),
        k=lambda kw: st.integers(1, kw["n"]),
        d=st.floats(1, 50),
        rho=st.floats(0, 0.99),
        eps=EPS,
    ),
    lambda s, kw: s >= 0 and math.isfinite(s),
    n=BAD_COUNT1,
    k=[0, lambda kw: kw["n"] + 1, 1.5, "1"],
    d=BAD_POSITIVE_FINITE,
    rho=[NAN, "x", None],
    eps=BAD_POSITIVE,
)


def _os_build(draw):
    n = draw(n_items(3, 6))
    w = draw(win_matrix(n)) + 1 - np.eye(n, dtype=np.int64)  # every pair both ways: irreducible
    return {
        "wins": w,
        "p_design": draw(st.floats(0.9, 1.0)),
        "k": draw(st.integers(1, n)),
        "eps": draw(EPS),
        "unit_noise": draw(scores(n)),
    }


case(
    oneshot.one_shot_scores,
    _os_build,
    lambda s, kw: s.shape == (kw["wins"].shape[0],),
    wins=BAD_WINS,
    p_design=[0.0, -0.5, 1.5, NAN, "x"],
    k=[0, lambda kw: kw["wins"].shape[0] + 1, 1.5],
    eps=BAD_POSITIVE,
    unit_noise=[
        same_length("unit_noise", longer),
        lambda kw: np.zeros((len(kw["unit_noise"]), 1)),
        same_length("unit_noise", with_nan),
    ],
)

# ---- introselect
case(
    introselect.argpartition_generic,
    drop(kw(n=n_items(1, 8), x=theta_for(), kth=lambda kw: st.integers(0, kw["n"] - 1)), "n"),
    lambda r, kw: (
        np.array_equal(np.sort(kw["x"][r]), np.sort(kw["x"]))
        and (kw["x"][r][: kw["kth"]] <= kw["x"][r][kw["kth"]]).all()
    ),
    x=[np.zeros(()), np.array(["a", "b"])],
    kth=[lambda kw: len(kw["x"]), 0.5, "0", None],
)
case(
    introselect.authors_top_k,
    drop(kw(n=n_items(2, 8), x=theta_for(), k=lambda kw: st.integers(1, kw["n"] - 1)), "n"),
    lambda r, kw: r.shape == (kw["k"],),
    x=[np.zeros((2, 2)), ["a", "b", "c"], None],
    k=[0, lambda kw: len(kw["x"]), 1.5, "1", None],
)

# ---- rbfgs
case(
    rbfgs.vmmin,
    kw(
        x0=scores(3),
        fn=st.just(lambda x: float(np.sum((x - 1.0) ** 2))),
        gr=st.just(lambda x: 2 * (x - 1.0)),
    ),
    lambda r, kw: np.allclose(r[0], 1.0, atol=1e-4),
    x0=[np.zeros((2, 2)), np.zeros(0), np.array([NAN, 0.0])],
    fn=[None, "f"],
    gr=[None, "g"],
    maxit=[-1, 0.5, "3"],
    reltol=[-1.0, NAN, "x"],
)

# ---- metrics
_pair = drop(
    kw(n=n_items(1, 6), theta_hat=theta_for(), theta=lambda kw: scores(kw["n"], 0.5, 2.0)), "n"
)
for _f, _ref in (
    (metrics.log_rel_l2, lambda h, t: np.log(np.linalg.norm(h - t) / np.linalg.norm(t))),
    (metrics.log_rel_linf, lambda h, t: np.log(np.max(np.abs(h - t)) / np.max(np.abs(t)))),
):
    case(
        _f,
        _pair,
        (
            lambda ref: (
                lambda r, kw: np.allclose(r, ref(kw["theta_hat"], kw["theta"]), equal_nan=True)
            )
        )(_ref),
        theta_hat=[same_length("theta_hat", longer), "x"],
        theta=[
            same_length("theta", longer),
            same_length("theta", with_nan),
            lambda kw: np.zeros(len(kw["theta"])),
        ],
    )
case(
    metrics.mean_rank_difference,
    drop(kw(n=n_items(1, 6), x=theta_for(), y=theta_for()), "n"),
    lambda r, kw: 0 <= r <= len(kw["x"]),
    x=[same_length("x", longer), same_length("x", with_nan), "x"],
    y=[same_length("y", longer), same_length("y", with_nan), "y"],
)


def _rh_build(draw):
    n = draw(n_items(2, 10))
    k = draw(st.integers(1, n))
    perm = draw(st.permutations(range(n)))
    perm2 = draw(st.permutations(range(n)))
    return {"selected": np.array(perm[:k]), "truth": np.array(perm2[:k])}


case(
    metrics.rel_hamming,
    _rh_build,
    lambda r, kw: np.isclose(
        r, 1 - len(set(kw["selected"].tolist()) & set(kw["truth"].tolist())) / len(kw["truth"])
    ),
    selected=[
        same_length("selected", longer),
        lambda kw: kw["selected"][:0],  # k = 0
        lambda kw: kw["selected"] + 0.5,  # not indices
        lambda kw: np.append(kw["selected"][1:], -1),  # a negative index
        "x",
    ],
    truth=[
        same_length("truth", longer),
        lambda kw: kw["truth"] + 0.5,
        lambda kw: np.full(len(kw["truth"]), -1),  # negative (and repeated when k > 1)
        lambda kw: np.append(kw["truth"][:1], kw["truth"][:1]),  # an item twice (size k)
        "x",
    ],
)
case(
    metrics.true_top_k,
    drop(kw(n=n_items(1, 8), theta=theta_for(), k=lambda kw: st.integers(1, kw["n"])), "n"),
    lambda r, kw: (
        r.shape == (kw["k"],)
        and np.array_equal(r, np.sort(r))
        and kw["theta"][r].min() >= np.sort(kw["theta"])[::-1][kw["k"] - 1]
    ),
    theta=[np.zeros((2, 2)), same_length("theta", with_nan), "x"],
    k=[0, lambda kw: len(kw["theta"]) + 1, 1.5, "1", None],
)

# ---- comparisons (the constructors)


def _cmp_build(draw):
    n = draw(n_items())
    m = draw(st.integers(0, 8))
    i = draw(hnp.arrays(np.int64, m, elements=st.integers(0, n - 1)))
    j = (i + draw(hnp.arrays(np.int64, m, elements=st.integers(1, n - 1)))) % n
    return {
        "n_items": n,
        "i": i,
        "j": j,
        "y": draw(binary(m)).astype(float),
        "count": draw(hnp.arrays(np.float64, m, elements=st.integers(1, 3).map(float))),
        "labels": np.array([f"item{k}" for k in range(n)]),
    }


case(
    comparisons.Comparisons,
    _cmp_build,
    lambda c, kw: np.isclose(c.to_wins().sum(), kw["count"].sum()),
    n_items=[0, -1, 2.5, "3", None],
    i=[lambda kw: np.append(kw["i"], kw["n_items"]), lambda kw: np.append(kw["i"], -1), "x"],
    j=[
        lambda kw: np.append(kw["j"], kw["n_items"]),
        lambda kw: kw["i"] if len(kw["i"]) else np.array([0, 1]),
    ],
    y=[
        lambda kw: np.zeros(len(kw["y"]) + 1),
        lambda kw: np.full(len(kw["y"]), NAN) if len(kw["y"]) else "y",
    ],
    count=[
        lambda kw: np.zeros(len(kw["count"]) or 1),
        lambda kw: -np.ones(len(kw["count"]) or 1),
        same_length("count", longer),
    ],
    labels=[lambda kw: np.array(["a"] * kw["n_items"]), lambda kw: kw["labels"][:-1]],
    user_epsilon=[np.array([0.0]), np.array([NAN])],
)


def _wl_build(draw):
    d = _cmp_build(draw)
    return {"winner": d["i"], "loser": d["j"], "n_items": d["n_items"]}


case(
    comparisons.Comparisons.from_winner_loser,
    _wl_build,
    lambda c, kw: c.n_records == len(kw["winner"]),
    winner=[lambda kw: np.append(kw["winner"], -1), "x", np.zeros((2, 2))],
    loser=[
        lambda kw: np.zeros(len(kw["loser"]) + 1, dtype=int),
        lambda kw: np.full(len(kw["loser"]) or 1, kw["n_items"]),
    ],
    count=[
        lambda kw: np.full(len(kw["winner"]) or 1, 0.5),
        lambda kw: -np.ones(len(kw["winner"]) or 1),
    ],
    n_items=[0, 2.5, "3"],
    labels=[lambda kw: np.array(["a"] * kw["n_items"])],
)
case(
    comparisons.Comparisons.from_wins,
    drop(kw(n=n_items(), wins=wins_for()), "n"),
    lambda c, kw: np.array_equal(c.to_wins(), kw["wins"]),
    wins=[*BAD_WINS, np.ones((3, 3))],
)


def _edges_build(draw):
    n = draw(n_items())
    m = draw(st.integers(0, 3 * n))
    a = draw(hnp.arrays(np.int64, m, elements=st.integers(0, n - 1)))
    b = draw(hnp.arrays(np.int64, m, elements=st.integers(0, n - 1)))
    return {"n_items": n, "a": a, "b": b}


def _components_agree(result, kw):
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    n = kw["n_items"]
    adj = coo_matrix((np.ones(kw["a"].size), (kw["a"], kw["b"])), shape=(n, n))
    k, labels = connected_components(adj, directed=False)
    return result[0] == k and np.array_equal(result[1], labels)


case(
    comparisons.connected_components,
    _edges_build,
    _components_agree,
    n_items=[0, 2.5, "3"],
    a=[lambda kw: np.append(kw["a"], kw["n_items"]), "x", np.zeros((2, 2))],
    b=[lambda kw: np.append(kw["b"], -1)],
)

# ---- sparse


def _sparse_build(draw):
    n = draw(n_items())
    w = draw(win_matrix(n)) + np.triu(np.ones((n, n), dtype=np.int64), 1)  # connected
    return {
        "data": sparse.SparseData(comparisons.Comparisons.from_wins(w)),
        "gamma": draw(st.floats(0.1, 5)),
        "beta": draw(scores(n)),
    }


case(
    sparse.SparseData,
    lambda draw: {
        "data": comparisons.Comparisons.from_wins(
            draw(win_matrix(3)) + np.eye(3, k=1, dtype=np.int64)
        )
    },
    lambda s, kw: s.n == 3,
    data=[np.ones((3, 3)), None, "x"],
    link=BAD_LINK,
)
case(
    sparse.sparse_newton,
    _sparse_build,
    lambda r, kw: r["theta"].shape == (kw["data"].n,) and np.isfinite(r["theta"]).all(),
    data=[np.ones((3, 3)), None],
    gamma=BAD_GAMMA,
    beta=[lambda kw: np.zeros(kw["data"].n + 1), lambda kw: np.full(kw["data"].n, NAN)],
    theta0=[lambda kw: np.zeros(kw["data"].n + 1), lambda kw: np.full(kw["data"].n, NAN)],
    sum_zero=["yes", None],
    xtol=[-1.0, NAN, "x"],
    max_iter=[-1, 0.5, "3"],
)

# ---- ldp
BAD_EPS = [0.0, -1.0, NAN, "1", None, np.array([1.0, 0.0])]
_y = kw(
    y=hnp.array_shapes(min_dims=1, max_dims=2, max_side=5).flatmap(binary), eps=EPS, rng=generator()
)
BAD_Y = [np.array([0, 2, 1]), np.array([0.3, 1.0]), np.array([-1, 0]), np.array(["a"])]
case(
    ldp.randomized_response,
    _y,
    lambda r, kw: r.shape == kw["y"].shape and set(np.unique(r).tolist()) <= {0, 1},
    y=BAD_Y,
    eps=BAD_EPS,
    rng=BAD_RNG,
)
case(
    ldp.laplace_release,
    _y,
    lambda r, kw: r.shape == kw["y"].shape,
    y=BAD_Y,
    eps=BAD_EPS,
    rng=BAD_RNG,
)
case(
    ldp.debias,
    kw(y_tilde=hnp.array_shapes(min_dims=1, max_dims=2, max_side=5).flatmap(binary), eps=EPS),
    lambda z, kw: np.allclose(
        z,
        kw["y_tilde"]
        if math.isinf(kw["eps"])
        else ((math.exp(min(kw["eps"], 700)) + 1) * kw["y_tilde"] - 1)
        / (math.exp(min(kw["eps"], 700)) - 1),
    ),
    y_tilde=BAD_Y,
    eps=BAD_EPS,
)
case(
    ldp.rr_flip_probability,
    kw(eps=EPS),
    lambda p, kw: np.isclose(p, 1 / (math.exp(min(kw["eps"], 700)) + 1)),
    eps=BAD_EPS,
)
case(
    ldp.debiased_variance,
    kw(f=st.floats(0, 1), eps=st.floats(0.01, 50)),
    lambda v, kw: v >= -1e-12,
    f=[-0.1, 1.5, NAN, "x"],
    eps=BAD_EPS,
)
case(
    ldp.adrr_weights,
    kw(eps=hnp.arrays(np.float64, st.integers(1, 5), elements=st.floats(0.01, 20))),
    lambda w, kw: np.isclose(w.sum(), 1) and (w > 0).all(),
    eps=[*BAD_EPS, np.zeros(0)],
)
case(
    ldp.privacy_constant,
    kw(eps=hnp.arrays(np.float64, st.integers(1, 5), elements=st.floats(0.01, 20))),
    lambda b, kw: 0 < b <= 1,
    eps=[*BAD_EPS, np.zeros(0)],
)
case(
    ldp.n_items_from_pairs,
    kw(n_pairs=st.integers(1, 300).map(lambda m: m * (m - 1) // 2)),
    lambda m, kw: m * (m - 1) // 2 == kw["n_pairs"],
    n_pairs=[2, -1, 1.5, "3", None],
)
_theta_b = kw(
    n=n_items(), theta=theta_for(), L=st.integers(0, 4), p=st.floats(0.01, 1), rng=generator()
)
case(
    ldp.sample_user_comparisons_b,
    drop(_theta_b, "n"),
    lambda r, kw: (
        r[0].shape == r[1].shape == (kw["L"], len(kw["theta"]) * (len(kw["theta"]) - 1) // 2)
    ),
    theta=BAD_THETA,
    L=BAD_COUNT,
    p=[0.0, *BAD_PROB],
    rng=BAD_RNG,
    link=BAD_LINK,
)
case(
    ldp.iter_user_comparisons_b,
    lambda draw: {**drop(_theta_b, "n")(draw), "chunk_size": draw(st.integers(1, 3))},
    None,
    theta=BAD_THETA,
    L=BAD_COUNT,
    p=[0.0, *BAD_PROB],
    rng=BAD_RNG,
    link=BAD_LINK,
    chunk_size=[0, 0.5, "2", None],
)
CHECKS[ldp.iter_user_comparisons_b] = lambda it, kw: sum(y.shape[0] for _, y, _ in it) == kw["L"]


def _ss_build(draw):
    rows, P = draw(st.integers(1, 4)), draw(st.integers(1, 6))
    a = draw(hnp.arrays(np.bool_, (rows, P)))
    a[0, 0] = True  # one observed entry, where a NaN must be seen
    return {
        "z": draw(hnp.arrays(np.float64, (rows, P), elements=st.floats(-2, 2))),
        "a": a,
        "weights": draw(st.floats(0.01, 1)),
    }


def _ss_check(r, kw):
    S, N = r
    a = kw["a"]
    return np.allclose(S, (np.where(a, kw["z"], 0) * kw["weights"]).sum(0)) and np.allclose(
        N, a.sum(0) * kw["weights"]
    )


BAD_Z = [
    lambda kw: kw["z"][:, :-1] if kw["z"].shape[1] > 1 else kw["z"][:, :0],
    lambda kw: np.full_like(kw["z"], NAN),
    "z",
]
BAD_A = [
    lambda kw: kw["a"][:, :-1] if kw["a"].shape[1] > 1 else np.ones((1, 9), bool),
    lambda kw: np.full(kw["a"].shape, 2),
    "a",
]
BAD_WEIGHTS = [-1.0, NAN, "w", lambda kw: np.ones(kw["z"].shape[0] + 1)]
case(ldp.sufficient_statistics, _ss_build, _ss_check, z=BAD_Z, a=BAD_A, weights=BAD_WEIGHTS)


def _add_build(draw):
    d = _ss_build(draw)
    P = d["z"].shape[1]
    return {"S": np.zeros(P), "N": np.zeros(P), **d}


case(
    ldp.add_sufficient_statistics,
    _add_build,
    lambda r, kw: r is None and _ss_check((kw["S"], kw["N"]), kw),
    S=[
        lambda kw: np.zeros(kw["z"].shape[1] + 1),
        lambda kw: np.zeros(kw["z"].shape[1], dtype=np.int64),
        "S",
    ],
    N=[lambda kw: np.zeros(kw["z"].shape[1] + 1), "N"],
    z=BAD_Z,
    a=BAD_A,
    weights=BAD_WEIGHTS,
)


def _rr_add_build(draw):
    d = _add_build(draw)
    d["y_tilde"] = (d.pop("z") > 0).astype(np.uint8)
    d["eps"] = draw(EPS)
    return d


case(
    ldp.add_rr_statistics,
    _rr_add_build,
    lambda r, kw: r is None and np.allclose(kw["N"], kw["a"].sum(0) * kw["weights"]),
    S=[lambda kw: np.zeros(kw["y_tilde"].shape[1] + 1), "S"],
    N=[lambda kw: np.zeros(kw["y_tilde"].shape[1] + 1), "N"],
    y_tilde=[lambda kw: np.full(kw["y_tilde"].shape, 2), lambda kw: kw["y_tilde"][:, :0]],
    a=[lambda kw: np.ones((1, 9), bool), lambda kw: np.full(kw["a"].shape, 2)],
    eps=BAD_EPS,
    weights=[-1.0, NAN, "w"],
)


def _cs_build(draw):
    m = draw(n_items())
    P = m * (m - 1) // 2
    rows = draw(st.integers(1, 4))
    return {"y_tilde": draw(binary((rows, P))), "a": draw(hnp.arrays(np.bool_, (rows, P))), "m": m}


case(
    ldp.count_scores,
    _cs_build,
    lambda s, kw: np.isclose(s.sum(), kw["a"].sum()),
    y_tilde=[lambda kw: kw["y_tilde"][:, :-1], "y"],
    a=[lambda kw: kw["a"][:, :-1], lambda kw: np.full(kw["a"].shape, 2)],
    m=[lambda kw: kw["m"] + 1, 0, 1.5, "3"],
)


def _cspc_build(draw):
    m = draw(n_items())
    P = m * (m - 1) // 2
    n_obs = draw(hnp.arrays(np.int64, P, elements=st.integers(0, 5)))
    ones = np.array([draw(st.integers(0, int(k))) for k in n_obs], dtype=np.int64)
    return {"ones": ones, "n_obs": n_obs, "m": m}


case(
    ldp.count_scores_from_pair_counts,
    _cspc_build,
    lambda s, kw: np.isclose(s.sum(), kw["n_obs"].sum()),
    ones=[
        same_length("ones", longer),
        same_length("ones", with_nan),
        lambda kw: kw["n_obs"] + 1,
        lambda kw: -np.ones(len(kw["ones"])),
    ],
    n_obs=[
        same_length("n_obs", longer),
        lambda kw: -np.ones(len(kw["n_obs"])),
        same_length("n_obs", with_nan),
    ],
    m=[lambda kw: kw["m"] + 1, 0, 1.5, "3"],
)
case(
    ldp.count_ranking,
    drop(kw(n=n_items(1, 6), scores=theta_for(), rng=generator()), "n"),
    lambda r, kw: sorted(r.tolist()) == list(range(1, len(kw["scores"]) + 1)),
    scores=[np.zeros((2, 2)), same_length("scores", with_nan), "x"],
    rng=BAD_RNG,
)
case(
    ldp.sample_rr_statistics_equal_eps,
    drop(
        kw(
            n=n_items(),
            theta=theta_for(),
            L=st.integers(0, 4),
            p=st.floats(0.01, 1),
            eps=EPS,
            rng=generator(),
        ),
        "n",
    ),
    lambda r, kw: (r.released_wins <= r.n_obs).all() and (r.wins <= r.n_obs).all(),
    theta=BAD_THETA,
    L=BAD_COUNT,
    p=[0.0, *BAD_PROB],
    eps=[0.0, -1.0, NAN, "1", np.array([1.0, 2.0])],
    rng=BAD_RNG,
    link=BAD_LINK,
)
case(
    ldp.simulate_ldp_statistics,
    drop(
        kw(
            n=n_items(),
            theta=theta_for(),
            eps=hnp.arrays(np.float64, st.integers(1, 4), elements=st.floats(0.1, 5)),
            p=st.floats(0.1, 1),
            rng=generator(),
            releases=st.sampled_from(
                [("adrr",), ("adrr", "classic_rr", "laplace", "raw", "count")]
            ),
        ),
        "n",
    ),
    lambda r, kw: r.adrr is not None,
    theta=BAD_THETA,
    eps=BAD_EPS,
    p=[0.0, *BAD_PROB],
    rng=BAD_RNG,
    link=BAD_LINK,
    releases=[("bogus",), "adrr", None],
    chunk_size=[0, 0.5, "2"],
)

# ---- weighted_mle


def _wmle_build(draw):
    m = draw(n_items())
    P = m * (m - 1) // 2
    N = draw(hnp.arrays(np.float64, P, elements=st.integers(0, 4).map(float)))
    S = np.array([draw(st.floats(0, float(k))) for k in N])
    return {"S": S, "N": N, "m": m, "lam": draw(st.floats(0.05, 5))}


_WM = {
    "S": [same_length("S", longer), same_length("S", with_nan), "S"],
    "N": [same_length("N", longer), lambda kw: -np.ones(len(kw["N"])), same_length("N", with_nan)],
    "lam": [0.0, -1.0, NAN, INF, "1"],
    "link": BAD_LINK,
    "b": [lambda kw: np.zeros(kw["m"] + 1), lambda kw: np.full(kw["m"], NAN)],
}
case(
    weighted_mle.fit_weighted_mle,
    _wmle_build,
    lambda f, kw: f.theta.shape == (kw["m"],),
    m=[0, lambda kw: kw["m"] + 1, 1.5, "3", None],
    theta0=[lambda kw: np.zeros(kw["m"] + 1), lambda kw: np.full(kw["m"], NAN)],
    gtol=[-1.0, NAN, "x"],
    max_iter=[-1, 0.5, "3"],
    **_WM,
)


def _wobj_build(draw):
    d = _wmle_build(draw)
    d["theta"] = draw(scores(d.pop("m")))
    return d


for _f in (weighted_mle.weighted_objective, weighted_mle.weighted_objective_gradient):
    case(
        _f,
        _wobj_build,
        lambda r, kw: np.isfinite(r).all(),
        theta=[same_length("theta", longer), same_length("theta", with_nan), "t"],
        **{k: v for k, v in _WM.items() if k != "b"},
        b=[lambda kw: np.zeros(len(kw["theta"]) + 1), lambda kw: np.full(len(kw["theta"]), NAN)],
    )


def _hess_build(draw):
    d = _wobj_build(draw)
    del d["lam"]
    return {**d, "m": len(d["theta"])}


case(
    weighted_mle.hessian_min_nonzero_eigenvalue,
    _hess_build,
    lambda v, kw: np.isfinite(v) and v >= -1e-9,
    S=[same_length("S", longer), same_length("S", with_nan)],
    N=[same_length("N", longer), same_length("N", with_nan)],
    theta=[same_length("theta", longer), same_length("theta", with_nan)],
    m=[lambda kw: kw["m"] + 1, 1, 1.5, "3"],
    link=BAD_LINK,
)
case(
    weighted_mle.default_lambda,
    kw(L=st.integers(1, 100), B=st.floats(0.01, 1), c=st.floats(0.1, 5)),
    lambda v, kw: math.isclose(v, kw["c"] / (kw["L"] * kw["B"])),
    L=[0, -1, 1.5, NAN, "2"],
    B=[0.0, -1.0, NAN, INF, "1"],
    c=[0.0, -1.0, NAN, INF, "1"],
)


def _plug_build(draw):
    rows, P = draw(st.integers(1, 4)), draw(st.integers(1, 6))
    return {"a": draw(hnp.arrays(np.bool_, (rows, P))), "L": draw(st.integers(rows, rows + 3))}


case(
    weighted_mle.classic_rr_plugin_statistics,
    lambda draw: {
        "y_tilde": draw(binary((3, 4))),
        "a": draw(hnp.arrays(np.bool_, (3, 4))),
        "L": draw(st.integers(3, 6)),
    },
    lambda r, kw: np.allclose(r[1], kw["a"].sum(0) / kw["L"]),
    y_tilde=[np.full((3, 4), 0.3), np.full((3, 4), 2), np.zeros((3, 5))],
    a=[np.ones((3, 5), bool), np.full((3, 4), 2)],
    L=[0, -1, 1.5, "3", 2],
)
case(
    weighted_mle.laplace_plugin_statistics,
    lambda draw: {
        "y_laplace": draw(hnp.arrays(np.float64, (3, 4), elements=st.floats(-3, 3))),
        "a": draw(hnp.arrays(np.bool_, (3, 4))),
        "L": draw(st.integers(3, 6)),
    },
    lambda r, kw: np.allclose(r[1], kw["a"].sum(0) / kw["L"]),
    y_laplace=[np.full((3, 4), NAN), np.zeros((3, 5)), "y"],
    a=[np.ones((3, 5), bool), np.full((3, 4), 2)],
    L=[0, -1, 1.5, "3", 2],
)
case(
    weighted_mle.noisy_obj_calibration,
    kw(eps=st.floats(0.01, 50), delta=st.floats(1e-9, 0.5)),
    lambda r, kw: r[0] > 0 and r[1] > 0,
    eps=[0.0, -1.0, NAN, INF, "1"],
    delta=[0.0, 1.0, -0.1, NAN, "x"],
    zeta=[0.0, -1.0, NAN, INF],
    beta=[0.0, -1.0, NAN, INF],
)


def _noisy_build(draw):
    d = _wmle_build(draw)
    return {
        "wins": d["S"].round(),
        "n_obs": np.maximum(d["N"], d["S"].round()),
        "m": d["m"],
        "eps": draw(st.floats(0.1, 10)),
        "rng": draw(generator()),
    }


case(
    weighted_mle.noisy_obj_fit,
    _noisy_build,
    lambda f, kw: f.theta.shape == (kw["m"],) and np.isclose(f.theta.sum(), 0, atol=1e-8),
    wins=[same_length("wins", longer), same_length("wins", with_nan)],
    n_obs=[same_length("n_obs", longer), lambda kw: -np.ones(len(kw["n_obs"]))],
    m=[0, lambda kw: kw["m"] + 1, 1.5, "3"],
    eps=[0.0, -1.0, NAN, INF, "1"],
    rng=BAD_RNG,
    delta=[0.0, 1.0, NAN],
)

# ---- mixed effects


def _me_data(draw):
    m = draw(n_items(2, 4))
    L = draw(st.integers(2, 4))
    P = m * (m - 1) // 2
    return {"y": draw(binary((L, P))), "a": draw(hnp.arrays(np.bool_, (L, P))), "m": m}


case(
    mixed_effects.fit_mixed_effects_btl,
    _me_data,
    lambda f, kw: f.theta.shape == (kw["m"],) and np.isfinite(f.theta).all(),
    y=[lambda kw: np.full(kw["y"].shape, 2), lambda kw: kw["y"][:1], lambda kw: kw["y"][:, :-1]],
    a=[lambda kw: kw["a"][:, :-1], lambda kw: np.full(kw["a"].shape, 2)],
    m=[1, lambda kw: kw["m"] + 1, 1.5, "3"],
    lam=[0.0, -1.0, NAN, INF],
    ridge=[-1.0, NAN, INF],
    gtol=[-1.0, NAN, "x"],
    max_iter=[-1, 0.5, "3"],
)


def _meo_build(draw):
    d = _me_data(draw)
    L = d["y"].shape[0]
    return {"theta": draw(scores(d.pop("m"))), "gamma": draw(scores(L)), **d}


case(
    mixed_effects.mixed_effects_objective,
    _meo_build,
    lambda v, kw: np.isfinite(v),
    theta=[same_length("theta", longer), same_length("theta", with_nan)],
    gamma=[same_length("gamma", longer), same_length("gamma", with_nan)],
    y=[lambda kw: np.full(kw["y"].shape, 2), lambda kw: kw["y"][:, :-1]],
    a=[lambda kw: kw["a"][:, :-1]],
    lam=[0.0, -1.0, NAN, INF],
    ridge=[-1.0, NAN, INF],
)
case(
    mixed_effects.simulate_mixed_effects_btl,
    drop(
        kw(
            n=n_items(),
            theta=theta_for(),
            L=st.integers(1, 4),
            sigma=st.floats(0, 2),
            p=st.floats(0, 1),
            rng=generator(),
        ),
        "n",
    ),
    lambda r, kw: (
        r[1].shape == r[2].shape == (kw["L"], len(kw["theta"]) * (len(kw["theta"]) - 1) // 2)
    ),
    theta=BAD_THETA,
    L=BAD_COUNT1,
    sigma=[-1.0, NAN, INF, "1"],
    p=BAD_PROB,
    rng=BAD_RNG,
)

# ---- metrics_b
_mb = drop(kw(n=n_items(2, 6), theta_hat=theta_for(), theta=theta_for()), "n")
BAD_HAT = [same_length("theta_hat", longer), "x", None]
BAD_TRUE = [same_length("theta", longer), same_length("theta", with_nan), "x"]
case(
    metrics_b.rms_error,
    _mb,
    lambda r, kw: np.isclose(r, np.sqrt(np.mean((kw["theta_hat"] - kw["theta"]) ** 2))),
    theta_hat=BAD_HAT,
    theta=BAD_TRUE,
)
case(
    metrics_b.max_error,
    _mb,
    lambda r, kw: np.isclose(r, np.max(np.abs(kw["theta_hat"] - kw["theta"]))),
    theta_hat=BAD_HAT,
    theta=BAD_TRUE,
)
case(
    metrics_b.ranks,
    drop(kw(n=n_items(1, 6), scores=theta_for()), "n"),
    lambda r, kw: sorted(r.tolist()) == list(range(1, len(kw["scores"]) + 1)),
    scores=[np.zeros(()), same_length("scores", with_nan), "x"],
    rng=["abc", 7],
)


def _kendall_ref(h, t):
    rh, rt = metrics_b.ranks(h), metrics_b.ranks(t)
    m = len(h)
    bad = sum((rh[i] - rh[j]) * (rt[i] - rt[j]) < 0 for i in range(m) for j in range(i + 1, m))
    return 2 * bad / (m * (m - 1))


case(
    metrics_b.kendall_distance,
    _mb,
    lambda r, kw: np.isclose(r, _kendall_ref(kw["theta_hat"], kw["theta"])),
    theta_hat=BAD_HAT,
    theta=BAD_TRUE,
    rng=["abc", 7],
)
case(
    metrics_b.spearman_footrule,
    _mb,
    lambda r, kw: 0 <= r,
    theta_hat=BAD_HAT,
    theta=BAD_TRUE,
    rng=["abc", 7],
)
case(
    metrics_b.top_k_hamming,
    lambda draw: {**(d := _mb(draw)), "K": draw(st.integers(1, len(d["theta"])))},
    lambda r, kw: np.isclose(
        r,
        len(
            set(np.argsort(-kw["theta"], kind="stable")[: kw["K"]])
            - set(np.argsort(-kw["theta_hat"], kind="stable")[: kw["K"]])
        )
        / kw["K"],
    ),
    theta_hat=BAD_HAT,
    theta=BAD_TRUE,
    K=[0, lambda kw: len(kw["theta"]) + 1, 1.5, "1", None],
    rng=["abc", 7],
)


def _band_build(draw):
    n = draw(st.integers(3, 10))
    x = np.arange(n, dtype=float) + draw(st.floats(-5, 5))
    return {
        "x": x,
        "y": draw(scores(n)),
        "x0": draw(scores(3)),
        "level": draw(st.floats(0.5, 0.99)),
    }


case(
    metrics_b.prediction_band,
    _band_build,
    lambda b, kw: (b.lower <= b.fit + 1e-12).all() and (b.fit <= b.upper + 1e-12).all(),
    x=[same_length("x", longer), same_length("x", with_nan), lambda kw: np.zeros(len(kw["x"]))],
    y=[same_length("y", longer), same_length("y", with_nan)],
    x0=["x", None],
    level=[0.0, 1.0, NAN, "x"],
)
case(
    metrics_b.paired_t_test,
    lambda draw: {"errors_other": draw(scores(5)), "errors_ref": draw(scores(5))},
    lambda r, kw: r.df == 4,
    errors_other=[np.zeros(6), np.zeros(0), "x"],
    errors_ref=[np.zeros(6), np.zeros((2, 3)), None],
    axis=[3, 0.5, "0"],
)

# ---- grid (experiment grids) and aggregate
_value = st.integers(-(10**6), 10**6) | st.floats(allow_nan=False) | st.booleans()
case(
    grid.fmt_value,
    kw(value=_value),
    lambda t, kw: (
        isinstance(kw["value"], bool)
        or grid.parse_value(t) == kw["value"]
        or (kw["value"] == 0 and grid.parse_value(t) == 0)
    ),
)
case(
    grid.parse_value,
    kw(text=st.integers(-(10**6), 10**6).map(str) | st.floats(allow_nan=False).map(grid.fmt_value)),
    lambda v, kw: grid.fmt_value(v) == kw["text"],
    text=["abc", "", None, 3],
)
_grid_cells = st.lists(
    st.fixed_dictionaries({"n": st.integers(1, 50), "p": st.sampled_from([0.25, 0.5, 1.0])}),
    min_size=1,
    max_size=4,
    unique_by=lambda c: (c["n"], c["p"]),
)
case(
    grid.cell_name,
    kw(params=_grid_cells.map(lambda c: c[0]), order=st.just(["n", "p"])),
    lambda name, kw: name == f"n{kw['params']['n']}_p{grid.fmt_value(kw['params']['p'])}",
    params=[{"n": 3}, {}],
)


def _blocks_build(draw):
    cells = draw(_grid_cells)
    names = [grid.cell_name(c, ["n", "p"]) for c in cells]
    return {
        "names": names,
        "cells": cells,
        "order": ["n", "p"],
        "job_keys": draw(st.sampled_from([None, [], ["n"]])),
    }


case(
    grid.cell_blocks,
    _blocks_build,
    lambda b, kw: sorted(x for v in b.values() for x in v) == sorted(kw["names"]),
    names=[lambda kw: kw["names"] + ["extra"]],
)
case(
    grid.find_cell,
    lambda draw: {
        "cells": (d := _blocks_build(draw))["cells"],
        "names": d["names"],
        "name": d["names"][0],
    },
    lambda c, kw: c is kw["cells"][0],
    names=[lambda kw: kw["names"] + ["extra"]],
)
case(
    grid.chunk_ranges,
    kw(reps=st.integers(1, 50), chunk_size=st.integers(1, 20)),
    lambda r, kw: [i for a, b in r for i in range(a, b)] == list(range(kw["reps"])),
    reps=[0, -1, 2.5, "3", None],
    chunk_size=[0, -1, 2.5, "3", None],
)
case(
    grid.chunk_of,
    kw(reps=st.integers(1, 50), chunk_size=st.integers(1, 20), index=st.just(0)),
    lambda r, kw: r == (0, min(kw["chunk_size"], kw["reps"])),
    reps=[0, -1, 2.5],
    chunk_size=[0, 2.5],
    index=[-1, lambda kw: 10**6, 0.5, "0", None],
)
_cfg = kw(chunk_size=st.just(4), exp=st.builds(lambda r: {"reps": r}, st.integers(1, 20)))
case(
    grid.experiment_chunk_size,
    _cfg,
    lambda c, kw: c == 4,
    chunk_size=[0, -1, 2.5, "3", None],
)
case(
    grid.experiment_chunks,
    _cfg,
    lambda r, kw: r[-1][1] == kw["exp"]["reps"],
    exp=[{"reps": 0}, {"reps": -2}, {"reps": 2, "chunk_size": -1}],
)
case(
    grid.chunk_replicates,
    lambda draw: {**_cfg(draw), "chunk": 0},
    lambda r, kw: r == list(range(min(4, kw["exp"]["reps"]))),
    exp=[{"reps": 0}],
)


def _frame_build(draw):
    import pandas as pd

    reps = draw(st.integers(1, 5))
    values = draw(hnp.arrays(np.float64, (2, reps), elements=st.floats(-5, 5)))
    rows = [
        {"method": m, "replicate": r, "value": values[k, r]}
        for k, m in enumerate(["a", "b"])
        for r in range(reps)
    ]
    return {"frame": pd.DataFrame(rows)}


case(
    aggregate.summarise,
    _frame_build,
    lambda out, kw: np.allclose(out["mean"], kw["frame"].groupby("method")["value"].mean()),
    frame=[lambda kw: pd_concat_twice(kw["frame"]), None, "x"],
    value=["no_such_column"],
    replicate=["no_such_column"],
)


def pd_concat_twice(frame):
    import pandas as pd

    return pd.concat([frame, frame])


# ---- audit (the closed-form helpers; the Monte Carlo audits have their own tests)
case(
    audit.clopper_pearson,
    kw(n=st.integers(1, 200), k=lambda kw: st.integers(0, kw["n"]), alpha=st.floats(0.01, 0.5)),
    lambda r, kw: 0 <= r[0] <= kw["k"] / kw["n"] <= r[1] <= 1,
    k=[-1, lambda kw: kw["n"] + 1, 2.5, "1"],
    n=[0, -1, 2.5, "3"],
    alpha=[0.0, 1.0, NAN, "x"],
)
case(
    audit.epsilon_lower_bound,
    kw(
        n0=st.integers(1, 200),
        n1=st.integers(1, 200),
        k0=lambda kw: st.integers(0, kw["n0"]),
        k1=lambda kw: st.integers(0, kw["n1"]),
        delta=st.floats(0, 0.5),
    ),
    lambda e, kw: e >= 0,
    k0=[-1, lambda kw: kw["n0"] + 1, 0.5],
    k1=[-1, lambda kw: kw["n1"] + 1, "1"],
    n0=[0, 2.5],
    n1=[0, None],
    delta=[1.0, -0.1, NAN, "x"],
    alpha=[0.0, 1.0, NAN],
)
case(
    audit.exact_rr_epsilon,
    kw(eps=st.floats(0.01, 30)),
    lambda e, kw: math.isclose(e, kw["eps"], rel_tol=1e-9),
    eps=[0.0, -1.0, NAN, INF, "1"],
)
case(
    audit.coded_edge_gamma,
    kw(n=st.integers(1, 10**6), p=st.floats(0.01, 1)),
    lambda g, kw: math.isclose(g, 2 * math.sqrt(kw["n"] * kw["p"] * math.log(kw["n"]))),
    n=[0, -1, 2.5, "3"],
    p=[0.0, 1.5, NAN, "x"],
)
case(
    audit.private_edge_gamma,
    kw(eps=EPS, kappa2=st.floats(0.1, 10)),
    lambda g, kw: math.isclose(g, 4 * kw["kappa2"] / kw["eps"]),
    eps=BAD_POSITIVE,
    kappa2=BAD_POSITIVE_FINITE,
)


# ---- api and methods
def lead_case(_fn, _build, _reason, /, **bad):
    """Cases first written against api.py and methods.py before their checks existed."""
    for arg, values in bad.items():
        CASES.append((_fn, _build, arg, values))


_small = comparisons.Comparisons.from_winner_loser(
    [0, 1, 2, 0, 1, 2], [1, 2, 0, 2, 0, 1], n_items=3
)
_rank = kw(
    comparisons=st.just(_small),
    privacy=st.just("edge"),
    epsilon=st.floats(0.5, 5),
    rng=st.integers(0, 100),
)
case(
    api.rank,
    _rank,
    lambda r, kw: sorted(r.ranks.tolist()) == [1, 2, 3],
    comparisons=["x", None, np.ones((3, 2))],
    privacy=["bogus", None],
    epsilon=[0.0, -1.0, NAN],
    method=["bogus"],
    model=["bogus"],
    top_k=[0, 4],
    rng=["abc"],
)
lead_case(
    api.rank,
    _rank,
    "dprank.rank must reject a non-integer top_k and unknown options, naming them (api.py)",
    top_k=[1.5],
    options=[{"bogus": 1}],
)
case(
    api.method_name,
    kw(privacy=st.sampled_from(list(api.PRIVACY))),
    lambda r, kw: isinstance(r, str),
    privacy=["bogus", None],
    method=["bogus", 3],
)
case(
    methods.get_method,
    kw(name=st.sampled_from([m.name for m in methods.all_methods()])),
    lambda r, kw: r.name == kw["name"],
)
lead_case(
    methods.get_method,
    lambda draw: {},
    "get_method raises KeyError (documented); issue 31 asks for a ValueError naming name",
    name=["bogus", None],
)
case(methods.all_methods, lambda draw: {}, lambda r, kw: len(r) > 0)
_register = lambda draw: {"method": methods.get_method("edge_counts"), "replace": True}  # noqa: E731
case(methods.register, _register, lambda r, kw: r is kw["method"])
lead_case(
    methods.register,
    _register,
    "register must check that method is a Method and replace a bool (methods.py)",
    method=["x", None],
    replace=["yes"],
)
case(methods.unregister, lambda draw: {"name": "no_such_method"}, None)
lead_case(
    methods.unregister,
    lambda draw: {},
    "unregister must check that name is a str (methods.py)",
    name=[None, 3],
)
_from_path = lambda draw: {  # noqa: E731
    "spec": "dprank.methods:fit_edge_counts",
    "name": "x_test_counts",
    "privacy_unit": "comparison",
    "trust_model": "central",
}
case(
    methods.method_from_path,
    _from_path,
    lambda r, kw: r.name == "x_test_counts",
    privacy_unit=["bogus"],
    trust_model=["bogus"],
)
lead_case(
    methods.method_from_path,
    _from_path,
    "method_from_path's messages about a bad spec must name spec (methods.py)",
    spec=["nomodule", 3],
)
_users = comparisons.Comparisons(
    n_items=3, i=[0, 1, 2], j=[1, 2, 0], y=[1.0, 0.0, 1.0], count=[1.0, 1.0, 1.0], user=[0, 1, 1]
)
_release = kw(
    comparisons=st.just(_users),
    user_epsilon=hnp.arrays(np.float64, 2, elements=st.floats(0.1, 5)),
    rng=generator(),
    mechanism=st.sampled_from(["rr", "laplace"]),
)
case(
    methods.release_local,
    _release,
    lambda r, kw: r.n_records >= _users.n_records,
    user_epsilon=[np.zeros(2), -np.ones(2), np.full(2, NAN), np.array([1.0, 2.0, 3.0])],
    mechanism=["bogus", None],
    rng=BAD_RNG,
)
lead_case(
    methods.release_local,
    _release,
    "release_local must check that comparisons is a Comparisons (methods.py)",
    comparisons=["x", None],
)
case(
    methods.simulated_local_release,
    _release,
    lambda r, kw: r.n_records >= _users.n_records,
    user_epsilon=[np.zeros(2), -np.ones(2), np.full(2, NAN), np.array([1.0, 2.0, 3.0])],
    mechanism=["bogus", None],
    rng=BAD_RNG,
)
case(
    audit.complete_wins,
    kw(n=st.integers(1, 8)),
    lambda w, kw: w.shape == (kw["n"], kw["n"]) and (w == np.triu(np.ones_like(w), 1)).all(),
)


# ------------------------------------------------------------------------ the tests


def _name(fn) -> str:
    return getattr(fn, "__qualname__", getattr(fn, "__name__", repr(fn)))


def _call(fn, kwargs):
    result = fn(**kwargs)
    if inspect.isgenerator(result):
        result = list(result)
    return result


def property_tests(cases, builders, checks, bad_examples: int, valid_examples: int):
    """The two property tests over one file's registry: every bad value of every argument is
    refused naming the argument, and valid generated arguments give an answer (the right one
    where the file registered a check). A test file binds them to its own names."""

    @pytest.mark.parametrize(
        ("fn", "build", "arg", "bad"),
        [
            pytest.param(fn, build, arg, bad, id=f"{fn.__module__}.{_name(fn)}-{arg}")
            for fn, build, arg, bad in cases
        ],
    )
    @settings(max_examples=bad_examples)
    @given(data=st.data())
    def rejects_bad_argument(fn, build, arg, bad, data):
        """A bad value of ``arg`` raises ValueError or TypeError naming ``arg``."""
        _rejects(fn, build, arg, bad, data)

    @pytest.mark.parametrize("fn", list(builders), ids=lambda f: f"{f.__module__}.{_name(f)}")
    @settings(max_examples=valid_examples)
    @given(data=st.data())
    def accepts_valid_arguments(fn, data):
        """Valid generated arguments give an answer; where a check is given, the right one."""
        kwargs = builders[fn](data.draw)
        result = _call(fn, dict(kwargs))
        check = checks.get(fn)
        if check is not None:
            assert check(result, kwargs) is not False, f"{_name(fn)}{kwargs} gave {result!r}"

    return rejects_bad_argument, accepts_valid_arguments


def _rejects(fn, build, arg, bad, data):
    kwargs = build(data.draw)
    value = data.draw(st.sampled_from(bad), label=arg)
    kwargs[arg] = value(kwargs) if callable(value) and not inspect.isclass(value) else value
    with pytest.raises((ValueError, TypeError)) as info:
        _call(fn, kwargs)
    message = str(info.value)
    assert re.search(rf"(?<![\w]){re.escape(arg)}(?![\w])", message), (
        f"{_name(fn)}({arg}={kwargs[arg]!r}) raised {type(info.value).__name__} "
        f"without naming {arg!r}: {message}"
    )


test_rejects_bad_argument, test_accepts_valid_arguments = property_tests(
    CASES, BUILDERS, CHECKS, bad_examples=8, valid_examples=10
)


def api_modules() -> list[str]:
    """The modules of the API reference: every ``::: name`` line of ``docs/api/*.md``."""
    docs = Path(__file__).resolve().parents[1] / "docs" / "api"
    names = []
    for page in sorted(docs.glob("*.md")):
        names += re.findall(r"^:::\s+([\w.]+)", page.read_text(encoding="utf-8"), re.M)
    return list(dict.fromkeys(names))


def test_every_public_function_has_a_case():
    """Each public function (``__all__``) of each module of the API reference has a case.

    A case in this file, ``test_properties_library.py``, ``test_properties_io.py``,
    ``test_properties_studies.py``, ``test_properties_output.py`` or
    ``test_properties_stages.py``, ``test_properties_plotting.py``,
    ``test_properties_ties.py``, or an entry of
    :data:`EXCLUDED` with the reason it cannot be called with generated arguments.
    """
    import test_properties_io
    import test_properties_library
    import test_properties_output
    import test_properties_plotting
    import test_properties_stages
    import test_properties_studies
    import test_properties_ties

    builders = [
        *BUILDERS,
        *test_properties_library.BUILDERS,
        *test_properties_io.BUILDERS,
        *test_properties_studies.BUILDERS,
        *test_properties_output.BUILDERS,
        *test_properties_stages.ALL_BUILDERS,
        *test_properties_plotting.BUILDERS,
        *test_properties_ties.BUILDERS,
    ]
    covered = {getattr(f, "__wrapped__", f) for f in builders}
    modules = api_modules()
    assert len(modules) > 50 and "dprank.privacy.noise" in modules, modules
    missing, both, stale = [], [], set(EXCLUDED)
    for name in modules:
        mod = importlib.import_module(name)
        for fn_name in getattr(mod, "__all__", ()):
            obj = getattr(mod, fn_name)
            qualified = f"{name}.{fn_name}"
            stale.discard(qualified)
            if qualified in EXCLUDED and obj in covered:
                both.append(qualified)
            if not inspect.isfunction(obj) or obj in covered or qualified in EXCLUDED:
                continue
            if fn_name == "stable_id":  # variadic: test_stable_id_property
                continue
            missing.append(qualified)
    assert not missing, f"public functions without a property test: {missing}"
    assert not stale, f"EXCLUDED names no public function: {sorted(stale)}"
    assert not both, f"EXCLUDED but with a case (remove from EXCLUDED): {both}"
    assert dprank.rank is api.rank


@given(
    parts=st.lists(
        st.integers(-(2**70), 2**70) | st.floats(allow_nan=False) | st.text(max_size=5),
        max_size=4,
    )
)
def test_stable_id_property(parts):
    """stable_id: 63 bits, a function of the canonical text (1 and 1.0 are one key)."""
    key = seeding.stable_id(*parts)
    assert 0 <= key < 2**63
    assert key == seeding.stable_id(*parts)
    floats_as_ints = [int(p) if isinstance(p, float) and p.is_integer() else p for p in parts]
    assert key == seeding.stable_id(*floats_as_ints)


@pytest.mark.parametrize("bad", [NAN, object()])
def test_stable_id_rejects_keys_without_stable_text(bad):
    with pytest.raises(ValueError, match=r"NaN|cannot key random streams"):
        seeding.stable_id("exp", bad)


def test_one_shot_noise_scale_needs_a_contracting_walk():
    """rho = 1 makes the sensitivity infinite (before: ZeroDivisionError)."""
    with pytest.raises(ValueError, match="rho = 1"):
        oneshot.one_shot_noise_scale(10, 2, 5.0, 1.0, 1.0)
    assert oneshot.one_shot_noise_scale(10, 2, 5.0, 1.0, INF) == 0.0


# The examples of issue 31 ("Library"), each once by name: a silent wrong answer or a raw
# crash before, a ValueError or TypeError naming the argument now.
_W = np.array([[0, 1, 1], [0, 0, 1], [0, 0, 0]])  # item 0 beats all, item 2 loses all
ISSUE_31 = {
    "rel_hamming of sets of different sizes": (
        lambda: metrics.rel_hamming([0, 1], [0, 1, 2]),
        "selected and truth",
    ),
    "noisy_counts with noise of another shape": (
        lambda: ranking.noisy_counts(_W, np.zeros((3, 1))),
        "noise",
    ),
    "noisy_counts of a non-square matrix": (
        lambda: ranking.noisy_counts(np.zeros((3, 2)), np.zeros(3)),
        "wins",
    ),
    "copeland_counts of negative counts": (lambda: ranking.copeland_counts(-_W), "wins"),
    "one_shot_scores with k > n": (
        lambda: oneshot.one_shot_scores(_W + _W.T, 1.0, 4, 1.0, np.zeros(3)),
        "k",
    ),
    "stationary_distribution of a matrix that is no Markov matrix": (
        lambda: oneshot.stationary_distribution(np.ones((3, 3))),
        "p",
    ),
    "classic-RR statistics of y = 0.3": (
        lambda: weighted_mle.classic_rr_plugin_statistics(np.full((2, 3), 0.3), np.ones((2, 3))),
        "y_tilde",
    ),
    "Comparisons with two items of one label": (
        lambda: comparisons.Comparisons(
            n_items=2, i=[0], j=[1], y=[1.0], count=[1.0], labels=["a", "a"]
        ),
        "labels",
    ),
    "from_winner_loser with a count of 0.5": (
        lambda: comparisons.Comparisons.from_winner_loser([0], [1], count=[0.5]),
        "count",
    ),
    "sample_er_comparisons of a matrix of scores": (
        lambda: simulate.sample_er_comparisons(np.zeros((3, 3)), 0.5, np.random.default_rng(0)),
        "theta",
    ),
    "fit_penalized_mle where the MLE does not exist": (
        lambda: mle.fit_penalized_mle(_W, 0.0, sum_zero=True),
        "gamma",
    ),
    "fit_penalized_mle_batch where the MLE does not exist": (
        lambda: mle.fit_penalized_mle_batch(_W[None], 0.0),
        "gamma",
    ),
    "dprank.rank with rng='abc'": (lambda: api.rank(_W + _W.T, epsilon=1.0, rng="abc"), "rng"),
}


@pytest.mark.parametrize("name", list(ISSUE_31))
def test_issue_31_example(name):
    call, arg = ISSUE_31[name]
    with pytest.raises((ValueError, TypeError), match=rf"(?<![\w]){re.escape(arg)}(?![\w])"):
        call()
