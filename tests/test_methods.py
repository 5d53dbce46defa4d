"""The method registry: every method runs on one small input; declarations; calibration."""

from __future__ import annotations

import dataclasses
import doctest

import numpy as np
import pytest

import dprank.methods
from dprank.data.comparisons import Comparisons
from dprank.methods import (
    PRIVACY_UNITS,
    TRUST_MODELS,
    Fit,
    Method,
    MethodInputError,
    all_methods,
    get_method,
    register,
    unregister,
)
from dprank.privacy.ldp import add_rr_statistics, adrr_weights, randomized_response

N_ITEMS = 6


def _small_input(seed: int = 0) -> tuple[Comparisons, Comparisons]:
    """(users' comparisons with budgets, a complete tournament) on the same items."""
    rng = np.random.default_rng(seed)
    theta = np.linspace(1.0, -1.0, N_ITEMS)
    iu, ju = np.triu_indices(N_ITEMS, k=1)
    winners, losers, users = [], [], []
    for u in range(8):
        first = rng.random(iu.size) < 1 / (1 + np.exp(-(theta[iu] - theta[ju])))
        winners.append(np.where(first, iu, ju))
        losers.append(np.where(first, ju, iu))
        users.append(np.full(iu.size, u))
    data = Comparisons.from_winner_loser(
        np.concatenate(winners),
        np.concatenate(losers),
        user=np.concatenate(users),
        n_items=N_ITEMS,
    )
    data = dataclasses.replace(data, user_epsilon=np.linspace(0.5, 2.0, 8))
    tournament = Comparisons.from_winner_loser(winners[0], losers[0], n_items=N_ITEMS)
    return data, tournament


def test_registry_holds_every_mechanism_of_both_papers():
    names = {m.name for m in all_methods()}
    assert {
        "edge_mle",
        "edge_counts",
        "edge_one_shot",
        "edge_noisy_obj",
        "individual_mle",
        "individual_counts",
        "individual_counts_as_published",
        "local_adrr",
        "local_debiased_rr",
        "local_classic_rr",
        "local_laplace",
        "local_count",
        "nonprivate_mle",
        "nonprivate_counts",
    } <= names


@pytest.mark.parametrize("method", all_methods(), ids=lambda m: m.name)
def test_every_registered_method_runs_on_one_small_input(method):
    data, tournament = _small_input()
    assert method.privacy_unit in PRIVACY_UNITS and method.trust_model in TRUST_MODELS
    assert method.paper in ("A", "B", "-") and method.algorithm and method.description
    comparisons = tournament if method.needs_complete_graph else data
    method.check(comparisons)
    fits = [method.fit(comparisons, 1.0, np.random.default_rng(5), top_k=2) for _ in range(2)]
    assert isinstance(fits[0], Fit)
    assert fits[0].scores.shape == (N_ITEMS,)
    assert np.all(np.isfinite(fits[0].scores))
    assert fits[0].converged in (True, None)
    np.testing.assert_array_equal(fits[0].scores, fits[1].scores)  # same generator state
    if fits[0].ranks is not None:
        assert sorted(fits[0].ranks.tolist()) == list(range(1, N_ITEMS + 1))


def test_methods_declare_what_they_need():
    data, tournament = _small_input()
    bare = dataclasses.replace(data, user=None, user_epsilon=None)
    for name in ("individual_mle", "individual_counts", "local_adrr"):
        with pytest.raises(MethodInputError, match="user"):
            get_method(name).check(bare)
    no_budget = dataclasses.replace(data, user_epsilon=None)
    with pytest.raises(MethodInputError, match="budget"):
        get_method("local_adrr").check(no_budget)
    with pytest.raises(MethodInputError, match="complete tournament"):
        get_method("edge_one_shot").check(data)
    get_method("edge_one_shot").check(tournament)


def test_individual_counts_are_calibrated_to_twice_the_published_scale():
    data, _ = _small_input()
    L = int(data.per_user_counts().max())
    real = get_method("individual_counts").fit(data, 0.5, np.random.default_rng(1))
    printed = get_method("individual_counts_as_published").fit(data, 0.5, np.random.default_rng(1))
    assert real.details["L"] == printed.details["L"] == L
    assert real.details["noise_scale"] == pytest.approx(2 * L / 0.5)
    assert printed.details["noise_scale"] == pytest.approx(L / 0.5)
    # the same unit draws, scaled: the differences from the true counts are in ratio 2
    counts = get_method("nonprivate_counts").fit(data, np.inf, None).scores
    np.testing.assert_allclose(real.scores - counts, 2 * (printed.scores - counts))


def test_local_adrr_statistics_are_the_study_formula_on_records():
    """The registry's ADRR statistics (records) equal ldp.add_rr_statistics (dense layout).

    Both run ldp's one formula; the record layout also takes pairs written the
    other way round and records with a count.
    """
    rng = np.random.default_rng(3)
    L, m = 7, 5
    iu, ju = np.triu_indices(m, k=1)
    y = (rng.random((L, iu.size)) < 0.6).astype(np.uint8)
    eps = np.linspace(0.3, 3.0, L)
    released = randomized_response(y, eps, rng)
    a = rng.random(released.shape) < 0.8
    S, N = np.zeros(iu.size), np.zeros(iu.size)
    add_rr_statistics(S, N, released, a, eps, adrr_weights(eps))
    # the same release as records, half of them written the other way round
    users, pairs = np.nonzero(a)
    flip = rng.random(users.size) < 0.5
    out = released[users, pairs].astype(float)
    c = Comparisons(
        n_items=m,
        i=np.where(flip, ju[pairs], iu[pairs]),
        j=np.where(flip, iu[pairs], ju[pairs]),
        y=np.where(flip, 1.0 - out, out),
        count=np.ones(users.size),
        user=users.astype(np.int64),
        user_epsilon=eps,
    )
    ps = dprank.methods.debiased_statistics(c, adrr_weights(eps))
    k = ps.a * m - ps.a * (ps.a + 1) // 2 + (ps.b - ps.a - 1)
    np.testing.assert_allclose(ps.w, S[k], atol=1e-12)
    np.testing.assert_allclose(ps.n, N[k], atol=1e-12)
    assert set(k.tolist()) == set(np.flatnonzero(a.any(0)).tolist())
    # a record with count 2 is two records of count 1
    doubled = dataclasses.replace(c, count=np.full(users.size, 2.0))
    twice = dprank.methods.debiased_statistics(doubled, adrr_weights(eps))
    np.testing.assert_allclose(twice.w, 2 * ps.w, atol=1e-12)
    np.testing.assert_allclose(twice.n, 2 * ps.n, atol=1e-12)
    # and the statistics are the debiased outputs, weighted (B2 eq. (3)-(5))
    z = dprank.methods.debias(c.y, eps[c.user])
    z_first = np.where(c.i < c.j, z, 1.0 - z)
    w_rec = adrr_weights(eps)[c.user]
    key = np.minimum(c.i, c.j) * m + np.maximum(c.i, c.j)
    expect = {kk: np.sum((w_rec * z_first)[key == kk]) for kk in np.unique(key)}
    np.testing.assert_allclose(ps.w, [expect[kk] for kk in ps.a * m + ps.b], atol=1e-12)


def test_register_and_unregister_a_method():
    def borda(comparisons, eps, rng, **_):
        return Fit(scores=np.zeros(comparisons.n_items))

    method = Method("test_borda", borda, "-", "example", "comparison", "central", models=())
    register(method)
    try:
        assert get_method("test_borda") is method
        with pytest.raises(ValueError, match="already registered"):
            register(method)
    finally:
        unregister("test_borda")
    with pytest.raises(KeyError, match="edge_mle"):
        get_method("test_borda")
    with pytest.raises(ValueError, match="privacy_unit"):
        Method("bad", borda, "-", "x", "pair", "central")


def test_module_example_runs():
    result = doctest.testmod(dprank.methods)
    assert result.attempted > 0 and result.failed == 0


def test_run_releases_raw_data_for_local_methods():
    data, _ = _small_input()
    raw = dataclasses.replace(data, user_epsilon=None)
    for name in ("local_adrr", "local_laplace", "local_count", "edge_mle"):
        fit = get_method(name).run(raw, 2.0, np.random.default_rng(0))
        assert fit.scores.shape == (N_ITEMS,) and np.all(np.isfinite(fit.scores))


def test_release_local_keeps_counts_and_budgets():
    c = Comparisons(
        n_items=3,
        i=np.array([0, 1]),
        j=np.array([1, 2]),
        y=np.array([1.0, 0.0]),
        count=np.array([50.0, 1.0]),
        user=np.array([0, 1]),
    )
    rel = dprank.methods.release_local(c, np.array([0.5, 1.0]), np.random.default_rng(1))
    assert rel.count.sum() == 51 and set(rel.y) <= {0.0, 1.0}
    np.testing.assert_array_equal(rel.user_epsilon, [0.5, 1.0])
    assert 0 < rel.count[(rel.i == 0) & (rel.y == 0)].sum() < 50  # some of the 50 flipped
    lap = dprank.methods.release_local(c, np.array([0.5, 1.0]), np.random.default_rng(1), "laplace")
    assert lap.y.size == 51 and np.all(lap.count == 1)


def test_method_from_path():
    method = dprank.methods.method_from_path(
        "numpy:zeros_like", "zeros", "comparison", "central", paper="-"
    )
    assert method.algorithm == "numpy:zeros_like" and method.models == ()
    with pytest.raises(ValueError, match=r"package\.module:function"):
        dprank.methods.method_from_path("numpy.zeros", "z", "comparison", "central")


def test_every_registered_method_has_its_own_readable_label():
    """Legends and tables call a method by its label: one per method, no code name."""
    labels = {m.name: m.label for m in all_methods()}
    assert len(set(labels.values())) == len(labels), labels
    for name, label in labels.items():
        assert label and label != name and "_" not in label, (name, label)
    assert labels["edge_mle"] == "Perturbed MLE (Alg. 1)"
    assert labels["edge_counts"] == "Noisy counts (Alg. 2)"
    assert labels["local_adrr"] == "ADRR" and labels["local_classic_rr"] == "Classic RR"


def test_a_method_without_a_label_is_called_by_its_name():
    fit = get_method("nonprivate_counts").fit
    plain = Method("my_method", fit, "-", "mine", "none", "none")
    assert plain.label == "my_method"
    named = Method("my_method", fit, "-", "mine", "none", "none", label="Mine")
    assert named.label == "Mine"
    with pytest.raises(TypeError, match="label must be a str"):
        Method("my_method", fit, "-", "mine", "none", "none", label=3)


def test_registry_noise_scales_are_the_papers_and_calibrate_the_fits():
    """The studies take their Laplace scales from the registry (``Method.noise_scale``)."""
    from dprank.privacy import mechanisms

    assert get_method("edge_mle").noise_scale(0.5, 1.0) == 8.0 / 0.5
    assert get_method("edge_counts").noise_scale(0.5) == mechanisms.edge_count_noise_scale(0.5)
    assert get_method("individual_mle").noise_scale(2.0, 5, 1.0) == 8.0 * 5 / 2.0
    assert get_method("individual_counts_as_published").noise_scale(2.0, 5) == 5 / 2.0
    # the scale a fit records is the registry's
    data = Comparisons.from_winner_loser([0, 0, 1, 2], [1, 2, 2, 0], n_items=3)
    rng = np.random.default_rng(0)
    fit = get_method("edge_counts").fit(data, 0.7, rng)
    assert fit.details["noise_scale"] == get_method("edge_counts").noise_scale(0.7)
    with pytest.raises(TypeError, match="noise_scale must be callable"):
        Method("x", get_method("edge_counts").fit, "-", "-", "none", "none", noise_scale=1.0)
