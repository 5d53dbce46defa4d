"""Ties in the model: Davidson and Rao-Kupper (dprank.objective, dprank.fit.ties), against peers."""

import importlib
import math
import os
import sys
import types
from pathlib import Path

import numpy as np
import pytest

from dprank.data.arena import read_arena
from dprank.data.comparisons import Comparisons
from dprank.fit.mle import fit_penalized_mle
from dprank.fit.ties import TieCounts, fit_ties_mle
from dprank.objective import DAVIDSON, RAO_KUPPER, TiesObjective

MIRROR = Path(os.environ.get("DPRANK_DATA_MIRROR", "/nonexistent"))
SNAPSHOT = MIRROR / "chatbot_arena" / "chatbotarena_20240814.json"
needs_snapshot = pytest.mark.skipif(
    not SNAPSHOT.is_file(), reason="the arena snapshot needs DPRANK_DATA_MIRROR"
)

# a hand-made case: 5 models, 8 pairs, counts [a won, b won, ties]
HAND_MODELS = ["ann", "bob", "cy", "dee", "eve"]
HAND_X = [[0, 1], [0, 2], [1, 2], [1, 3], [2, 3], [3, 4], [0, 4], [2, 4]]
HAND_Y = [[10, 4, 3], [6, 6, 5], [3, 9, 2], [7, 2, 1], [5, 5, 6], [8, 3, 2], [12, 2, 1], [4, 7, 3]]


def _hand_counts() -> TieCounts:
    X, Y = np.array(HAND_X), np.array(HAND_Y, dtype=float)
    return TieCounts.from_arrays(5, X[:, 0], X[:, 1], Y[:, 0], Y[:, 1], Y[:, 2])


def _random_counts(n, pairs_per_item, seed, theta_sd=1.0):
    rng = np.random.default_rng(seed)
    m = n * pairs_per_item // 2
    a = rng.integers(0, n, m)
    b = (a + 1 + rng.integers(0, n - 1, m)) % n
    theta = rng.normal(0, theta_sd, n)
    p_a, p_t, p_b = DAVIDSON.probabilities(theta[a] - theta[b], math.log(0.6))
    votes = rng.integers(1, 8, m)
    draws = rng.multinomial(votes, np.column_stack([p_a, p_t, p_b]))
    ring = np.arange(n)  # a ring keeps the graph connected
    a = np.concatenate([a, ring])
    b = np.concatenate([b, (ring + 1) % n])
    draws = np.vstack([draws, np.ones((n, 3), dtype=np.int64)])
    return TieCounts.from_arrays(n, a, b, draws[:, 0], draws[:, 2], draws[:, 1])


@pytest.mark.parametrize("model", [DAVIDSON, RAO_KUPPER], ids=lambda m: m.name)
def test_pair_derivatives_match_finite_differences(model):
    rng = np.random.default_rng(0)
    d = rng.normal(0, 1.5, 7)
    W, L, T = (rng.integers(0, 9, 7).astype(float) for _ in range(3))
    mu = 0.4
    _, g_d, g_mu, h_dd, h_dmu, h_mumu = model.pair_terms(d, mu, W, L, T)
    h = 1e-6

    def value(dd, mm):
        return model.pair_terms(dd, mm, W, L, T, derivatives=False)

    def grads(dd, mm):
        return model.pair_terms(dd, mm, W, L, T)[1:3]

    np.testing.assert_allclose(g_d, (value(d + h, mu) - value(d - h, mu)) / (2 * h), rtol=1e-6)
    np.testing.assert_allclose(g_mu, (value(d, mu + h) - value(d, mu - h)) / (2 * h), rtol=1e-6)
    gp, gm = grads(d + h, mu), grads(d - h, mu)
    np.testing.assert_allclose(h_dd, (gp[0] - gm[0]) / (2 * h), rtol=1e-5, atol=1e-8)
    np.testing.assert_allclose(h_dmu, (gp[1] - gm[1]) / (2 * h), rtol=1e-5, atol=1e-8)
    gp, gm = grads(d, mu + h), grads(d, mu - h)
    np.testing.assert_allclose(h_mumu, (gp[1] - gm[1]) / (2 * h), rtol=1e-5, atol=1e-8)
    # probabilities sum to one and the loss is minus the log-likelihood
    p_a, p_t, p_b = model.probabilities(d, mu)
    np.testing.assert_allclose(p_a + p_t + p_b, 1.0, rtol=1e-12)
    expected = -(W * np.log(p_a) + L * np.log(p_b) + T * np.log(p_t))
    np.testing.assert_allclose(value(d, mu), expected, rtol=1e-10)


def test_objective_gradient_matches_the_pair_terms():
    counts = _random_counts(30, 6, 1)
    beta = np.random.default_rng(2).normal(size=30)
    obj = TiesObjective(
        30, counts.a, counts.b, counts.W, counts.L, counts.T, DAVIDSON, 0.7, beta, False
    )
    theta = np.random.default_rng(3).normal(size=30)
    _, g, g_mu, *_ = obj.derivatives(theta, -0.3)
    h = 1e-6
    num = [(obj.value(theta + h * e, -0.3) - obj.value(theta - h * e, -0.3)) / (2 * h)
           for e in np.eye(30)]  # fmt: skip
    np.testing.assert_allclose(g, num, rtol=1e-5, atol=1e-6)
    num_mu = (obj.value(theta, -0.3 + h) - obj.value(theta, -0.3 - h)) / (2 * h)
    assert g_mu == pytest.approx(num_mu, rel=1e-6)


def test_davidson_without_ties_is_bradley_terry():
    counts = _random_counts(40, 8, 4)
    no_ties = TieCounts(counts.n_items, counts.a, counts.b, counts.W, counts.L, 0 * counts.T)
    fit = fit_ties_mle(no_ties, "davidson")
    assert fit.converged and fit.mu == -math.inf and fit.tie_parameter == 0.0
    c = Comparisons.from_tie_counts(40, counts.a, counts.b, counts.W, counts.L, 0 * counts.T)
    bt = fit_penalized_mle(c, 0.0, sum_zero=True, xtol=1e-12)
    np.testing.assert_allclose(fit.theta, bt.theta, atol=1e-9)


@pytest.mark.parametrize("model", ["davidson", "raokupper"])
def test_dense_and_sparse_solvers_reach_one_minimiser(model):
    counts = _random_counts(400, 6, 5)
    beta = np.random.default_rng(6).normal(size=400)
    for gamma, b in ((0.0, None), (2.5, beta)):
        dense = fit_ties_mle(counts, model, gamma, b, solver="dense")
        sparse = fit_ties_mle(counts, model, gamma, b, solver="sparse")
        assert dense.converged and sparse.converged
        np.testing.assert_allclose(dense.theta, sparse.theta, atol=1e-8)
        assert dense.mu == pytest.approx(sparse.mu, abs=1e-9)


def test_the_sparse_solver_fits_1e5_items():
    counts = _random_counts(100_000, 4, 7, theta_sd=0.5)
    fit = fit_ties_mle(counts, "davidson", 1.0)  # auto: the compiled conjugate gradients
    assert fit.converged and fit.n_iter <= 20
    obj = TiesObjective(
        counts.n_items, counts.a, counts.b, counts.W, counts.L, counts.T, DAVIDSON, 1.0, None,
        False,
    )  # fmt: skip
    _, g, g_mu, *_ = obj.derivatives(fit.theta, fit.mu)
    assert np.max(np.abs(g)) < 1e-6 and abs(g_mu) < 1e-6


def test_the_fit_recovers_the_simulated_tie_parameter_and_order():
    counts = _random_counts(60, 400, 8)
    fit = fit_ties_mle(counts, "davidson")
    assert fit.tie_parameter == pytest.approx(0.6, rel=0.05)


def test_ties_need_a_connected_graph_and_a_finite_maximum_likelihood():
    from dprank.fit.sparse import DisconnectedGraphError

    c = TieCounts.from_arrays(4, [0, 2], [1, 3], [2, 2], [1, 1], [1, 1])
    with pytest.raises(DisconnectedGraphError):
        fit_ties_mle(c, "davidson")
    never_loses = TieCounts.from_arrays(3, [0, 0, 1], [1, 2, 2], [3, 4, 2], [0, 0, 2], [0, 0, 1])
    assert not fit_ties_mle(never_loses, "davidson", max_iter=50).converged
    assert fit_ties_mle(never_loses, "davidson", 1.0).converged  # a ridge makes it finite
    with pytest.raises(ValueError, match="non-negative"):
        fit_ties_mle(TieCounts.from_arrays(2, [0], [1], [-1.0], [2.0], [1.0]), "raokupper")


def test_comparisons_with_ties_count_them_per_pair():
    c = Comparisons(
        n_items=3,
        i=[0, 1, 0, 2, 2],
        j=[1, 0, 2, 0, 1],
        y=[1.0, 0.5, 0.5, 0.0, 1.0],
        count=[2, 3, 1, 4, 1],
        ties=True,
    )
    ps = c.pair_statistics()
    assert ps.a.tolist() == [0, 0, 1] and ps.b.tolist() == [1, 2, 2]
    np.testing.assert_array_equal(ps.t, [3.0, 1.0, 0.0])
    np.testing.assert_array_equal(ps.n, [5.0, 5.0, 1.0])
    np.testing.assert_array_equal(ps.w, [2 + 1.5, 0.5 + 4, 0.0])  # ties count half
    tc = TieCounts.from_pair_statistics(ps)
    np.testing.assert_array_equal(tc.W, [2.0, 4.0, 0.0])
    np.testing.assert_array_equal(tc.L, [0.0, 0.0, 1.0])
    with pytest.raises(ValueError, match="no outcome of comparisons with ties"):
        Comparisons(n_items=2, i=[0], j=[1], y=[0.25], count=[1], ties=True)
    assert Comparisons(n_items=2, i=[0], j=[1], y=[0.5], count=[1]).pair_statistics().t is None


@pytest.mark.parametrize("name", ["edge_ties", "individual_ties", "local_ties", "nonprivate_mle"])
def test_the_ties_releases_intervals_cover_the_truth(name):
    """Ranking.intervals of each ties release: finite, ordered, and the true ranks mostly
    inside (a parametric bootstrap of the release,
    :func:`dprank.privacy.private_ties.ties_intervals`)."""
    from dprank import rank
    from dprank.methods import get_method

    rng = np.random.default_rng(31)
    theta = np.linspace(1.2, -1.2, 8)
    a, b = np.triu_indices(8, 1)
    a, b = np.repeat(a, 60), np.repeat(b, 60)
    p_a, p_t, _ = DAVIDSON.probabilities(theta[a] - theta[b], -0.7)
    u = rng.random(a.size)
    y = np.where(u < p_a, 1.0, np.where(u < p_a + p_t, 0.5, 0.0))
    users = rng.integers(0, 400, a.size)
    c = Comparisons(n_items=8, i=a, j=b, y=y, count=np.ones(a.size), user=users, ties=True)
    meth = get_method(name)
    kwargs = {"privacy": name.split("_")[0].replace("nonprivate", "none"), "model": "davidson"}
    if meth.trust_model == "local":
        from dprank.methods import release_local

        c = release_local(c, np.full(c.n_users, 2.0), rng, "rr3")
    elif meth.private:
        kwargs["epsilon"] = 2.0
    if meth.privacy_unit == "user" and meth.trust_model == "central":
        kwargs["max_per_user"] = 30
    if kwargs["privacy"] in ("individual", "local"):
        kwargs["items"] = [str(k) for k in range(8)]  # declared: the items are public
    result = rank(c, rng=5, **kwargs)
    assert result.method.name == name
    f = result.intervals(0.9, n_boot=60, rng=2)
    assert np.all(np.isfinite(f[["score_lo", "score_hi"]].to_numpy()))
    assert np.all(f.score_lo <= f.score_hi) and np.all(f.rank_lo <= f.rank_hi)
    true_rank = np.arange(1, 9)
    covered = (f.rank_lo <= true_rank) & (true_rank <= f.rank_hi)
    assert covered.mean() >= 0.75


# --------------------------------------------------------------------------- peers


def _leaderbot_data(counts: TieCounts, models):
    return {
        "models": list(models),
        "X": np.column_stack([counts.a, counts.b]).tolist(),
        "Y": np.column_stack([counts.W, counts.L, counts.T]).astype(int).tolist(),
    }


@pytest.fixture
def leaderbot(monkeypatch):
    """``import_module`` for leaderbot's modules (skips where leaderbot is not installed).

    leaderbot compiles its per-pair loops with ``numba.jit``, and numba is no dependency of
    this project (``make setup`` installs leaderbot without its dependency list): where numba
    is missing, a stand-in whose ``jit`` returns the function unchanged is put in its place
    for the test, so leaderbot's own loops run as plain Python (the same arithmetic).
    """
    try:
        import numba  # noqa: F401
    except ImportError:
        stand_in = types.ModuleType("numba")

        def jit(*args, **kwargs):
            return args[0] if args and callable(args[0]) else (lambda f: f)

        stand_in.jit = jit
        monkeypatch.setitem(sys.modules, "numba", stand_in)
    pytest.importorskip("leaderbot")
    return importlib.import_module


def _as_the_page_says(name: str, measured: float) -> None:
    """docs/leaderboard.md's number ``name`` (docs/includes/values.yaml, quoted from this
    test) is the measured one to within a factor of 10 (round-off moves the last digits)."""
    from dprank_papers.docs_values import load_values

    values = load_values(Path(__file__).resolve().parents[1] / "docs/includes/values.yaml")
    page = float(values[name]["value"])
    assert page / 10 <= measured <= page * 10, (name, measured, page)


def test_hand_made_case_matches_leaderbot(leaderbot):
    lb = leaderbot("leaderbot.models")
    counts = _hand_counts()
    data = _leaderbot_data(counts, HAND_MODELS)
    largest = 0.0
    for cls, model in ((lb.Davidson, "davidson"), (lb.RaoKupper, "raokupper")):
        peer = cls(data, k_cov=None, k_tie=0)
        peer.train()
        fit = fit_ties_mle(counts, model)
        np.testing.assert_allclose(fit.theta, peer.param[:-1], atol=1e-6)
        assert fit.mu == pytest.approx(peer.param[-1], abs=1e-6)
        largest = max(largest, float(np.max(np.abs(fit.theta - peer.param[:-1]))))
    print("leaderbot_hand_scores", largest)
    _as_the_page_says("leaderbot_hand_scores", largest)


def _polished(peer, w, steps=2, h=1e-6):
    """Newton steps on the peer's own loss and gradient (its Hessian by central differences
    of its analytic gradient): the peer's objective minimised to full precision."""

    def jac(p):
        return peer.loss(p, return_jac=True, constraint=True)[1]

    hess = np.empty((w.size, w.size))
    for k in range(w.size):
        e = np.zeros(w.size)
        e[k] = h
        hess[:, k] = (jac(w + e) - jac(w - e)) / (2 * h)
    hess = 0.5 * (hess + hess.T)
    for _ in range(steps):
        w = w - np.linalg.solve(hess, jac(w))
    return w


@needs_snapshot
def test_snapshot_davidson_fit_matches_leaderbot(leaderbot):
    """leaderbot's default BFGS stops 6e-5 from the optimum of its own objective (gradient
    9e-9 of its vote-normalised loss); its loss and gradient minimised to full precision
    (Newton steps) give our fit to 1e-6, and its BFGS fit has no lower loss."""
    lb_data = leaderbot("leaderbot.data")
    lb = leaderbot("leaderbot.models")
    data = lb_data.load()  # tie='tie': both-bad votes dropped, as --both-bad drop
    votes = read_arena(SNAPSHOT)
    fit = fit_ties_mle(votes.comparisons("drop"), "davidson")
    index = {m: k for k, m in enumerate(votes.models)}
    ours = np.array([fit.theta[index[m]] for m in data["models"]] + [fit.mu])
    peer = lb.Davidson(data, k_cov=None, k_tie=0)
    peer.train()
    bfgs = peer.param.copy()
    assert np.max(np.abs(bfgs - ours)) < 1e-4
    assert peer.loss(ours, constraint=True) <= peer.loss(bfgs, constraint=True) + 1e-13
    polished = _polished(peer, bfgs)
    np.testing.assert_allclose(polished, ours, atol=1e-6)
    measured = {
        "leaderbot_bfgs_distance": np.max(np.abs(bfgs - ours)),
        "leaderbot_bfgs_gradient": np.max(
            np.abs(peer.loss(bfgs, return_jac=True, constraint=True)[1])
        ),
        "leaderbot_our_gradient": np.max(
            np.abs(peer.loss(ours, return_jac=True, constraint=True)[1])
        ),
        "leaderbot_polished_distance": np.max(np.abs(polished - ours)),
    }
    print(measured)
    for name, value in measured.items():
        _as_the_page_says(name, float(value))


@needs_snapshot
def test_snapshot_half_wins_match_arena_rank():
    """Bradley-Terry with ties and both-bad ties as half wins (arena-rank's outcome map),
    against arena-rank with its tolerances tightened (its defaults stop 2e-3 away)."""
    pytest.importorskip("jax")
    jnp = pytest.importorskip("jax.numpy")
    from arena_rank.models.bradley_terry import BradleyTerry
    from arena_rank.utils.data_utils import PairDataset

    votes = read_arena(SNAPSHOT)
    c = votes.comparisons("tie")
    ours = fit_penalized_mle(c, 0.0, sum_zero=True, xtol=1e-12)
    table = zip(
        votes.a, votes.b, votes.wins_a, votes.wins_b, votes.ties + votes.both_bad, strict=True
    )
    rows = [
        (a, b, y, k) for a, b, W, L, T in table for y, k in ((1.0, W), (0.0, L), (0.5, T)) if k > 0
    ]
    arr = np.array(rows, dtype=float)
    counts = jnp.array(arr[:, 3])
    dataset = PairDataset(
        competitors=list(votes.models),
        pairs=jnp.array(arr[:, :2].astype(np.int32)),
        outcomes=jnp.array(arr[:, 2]),
        counts=counts,
        weights=jnp.ones_like(counts),
        opt_weights=counts,
    )
    peer = BradleyTerry(votes.n_models, gtol=1e-14, ftol=1e-16, max_iter=10000)
    peer.fit(dataset)
    ratings = np.asarray(peer.params["ratings"])
    np.testing.assert_allclose(ours.theta, ratings - ratings.mean(), atol=1e-6)
    tight = float(np.max(np.abs(ours.theta - (ratings - ratings.mean()))))
    default = BradleyTerry(votes.n_models)
    default.fit(dataset)
    loose = np.asarray(default.params["ratings"])
    loose = float(np.max(np.abs(ours.theta - (loose - loose.mean()))))
    print("arena", tight, loose)
    _as_the_page_says("arena_rank_tight_distance", tight)
    _as_the_page_says("arena_rank_default_distance", loose)
