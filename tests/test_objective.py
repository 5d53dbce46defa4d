"""The penalised pairwise likelihood of :mod:`dprank.objective`.

Its derivatives against finite differences, its forms (dense, batched, pair list,
triu statistics) against each other, the ridge conventions, and the library's
import graph (acyclic, the likelihood below the estimators).
"""

from __future__ import annotations

import ast
import pathlib

import numpy as np
import pytest
from _imports import imported

from dprank import objective
from dprank.data.comparisons import Comparisons
from dprank.data.models import BTL, THURSTONE
from dprank.fit import mixed_effects, mle, weighted_mle
from dprank.fit.sparse import SparseData

SRC = pathlib.Path(__file__).resolve().parents[1] / "src" / "dprank"
LINKS = [BTL, THURSTONE]


def _problem(seed: int, n: int = 7):
    rng = np.random.default_rng(seed)
    wins = rng.integers(0, 4, (n, n)).astype(float)
    np.fill_diagonal(wins, 0.0)
    wins[0, 1] = wins[1, 0] = 0.0  # one unobserved pair
    theta = rng.normal(0.0, 1.0, n)
    b = rng.normal(0.0, 0.5, n)
    return wins, theta, b


def _fd_gradient(f, x, h=1e-6):
    g = np.empty_like(x)
    for i in range(x.size):
        e = np.zeros_like(x)
        e[i] = h
        g[i] = (f(x + e) - f(x - e)) / (2 * h)
    return g


@pytest.mark.parametrize("link", LINKS, ids=lambda lk: lk.name)
@pytest.mark.parametrize("seed", [0, 1])
def test_gradient_is_the_finite_difference_of_the_value(link, seed):
    wins, theta, b = _problem(seed)
    gamma = 1.3
    grad = objective.objective_gradient(theta, wins, gamma, b, link)
    fd = _fd_gradient(lambda t: objective.objective_value(t, wins, gamma, b, link), theta)
    np.testing.assert_allclose(grad, fd, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("link", LINKS, ids=lambda lk: lk.name)
def test_hessian_is_the_finite_difference_of_the_gradient(link):
    wins, theta, b = _problem(2)
    gamma = 0.7
    hess = objective.objective_hessian(theta, wins, gamma, link)
    h = 1e-6
    fd = np.empty_like(hess)
    for i in range(theta.size):
        e = np.zeros_like(theta)
        e[i] = h
        up = objective.objective_gradient(theta + e, wins, gamma, b, link)
        down = objective.objective_gradient(theta - e, wins, gamma, b, link)
        fd[:, i] = (up - down) / (2 * h)
    np.testing.assert_allclose(hess, fd, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(hess, hess.T, rtol=1e-13, atol=1e-15)


@pytest.mark.parametrize("link", LINKS, ids=lambda lk: lk.name)
def test_dense_and_sparse_forms_agree(link):
    wins, theta, b = _problem(3)
    gamma = 0.9
    dense = objective.DenseObjective(objective.PairwiseData(wins, link), gamma, b, False)
    sparse = objective.SparseObjective(
        SparseData(Comparisons.from_wins(wins), link), gamma, b, False
    )
    assert sparse.value(theta) == pytest.approx(dense.value(theta), rel=1e-12)
    grad_d, v = dense.gradient_and_weights(theta)
    grad_s, (diag, h), _ = sparse.evaluate(theta)
    np.testing.assert_allclose(grad_s, grad_d, rtol=1e-11, atol=1e-12)
    # the pair weights are the dense weights on the observed pairs
    sd = sparse.data
    np.testing.assert_allclose(h, v[sd.a, sd.b], rtol=1e-11, atol=1e-14)
    np.testing.assert_allclose(diag, np.diag(dense.hessian(v)), rtol=1e-11)


def test_sparse_evaluation_at_zero_needs_no_exponentials_and_agrees():
    wins, _, b = _problem(4)
    sp = objective.SparseObjective(SparseData(Comparisons.from_wins(wins)), 0.5, b, False)
    zero = np.zeros(wins.shape[0])
    g0, (d0, h0), v0 = sp.evaluate(zero, at_zero=True)
    g1, (d1, h1), v1 = sp.evaluate(zero)
    assert v1 is None and v0 == pytest.approx(sp.value(zero), rel=1e-13)
    np.testing.assert_allclose(g0, g1, atol=1e-13)
    np.testing.assert_allclose(h0, h1, rtol=1e-13)
    np.testing.assert_allclose(d0, d1, rtol=1e-13)


@pytest.mark.parametrize("link", LINKS, ids=lambda lk: lk.name)
def test_batched_form_agrees_with_the_dense_one(link):
    problems = [_problem(s, n=5) for s in (5, 6, 7)]
    wins = np.stack([p[0] for p in problems])
    theta = np.stack([p[1] for p in problems])
    b = np.stack([p[2] for p in problems])
    gamma = np.array([0.5, 1.0, 2.0])
    values = objective.batch_value(link, wins, theta, gamma, b)
    pair_grad, v = objective.batch_derivatives(link, wins, theta)
    hess = objective.batch_hessian(v, gamma[:, None])
    for r in range(3):
        args = (theta[r], wins[r], gamma[r])
        assert values[r] == pytest.approx(objective.objective_value(*args, b[r], link), rel=1e-12)
        np.testing.assert_allclose(
            pair_grad[r] + gamma[r] * theta[r] + b[r],
            objective.objective_gradient(*args, b[r], link),
            rtol=1e-11,
            atol=1e-12,
        )
        np.testing.assert_allclose(
            hess[r], objective.objective_hessian(*args, link), rtol=1e-11, atol=1e-12
        )


@pytest.mark.parametrize("link", LINKS, ids=lambda lk: lk.name)
def test_paper_b_lambda_is_the_ridge_gamma_over_two(link):
    """B2's ``lambda ||theta||^2`` is ``(gamma / 2) ||theta||^2`` with ``gamma = 2 lambda``."""
    wins, theta, b = _problem(8)
    m = wins.shape[0]
    iu, ju = np.triu_indices(m, 1)
    S, N = wins[iu, ju], wins[iu, ju] + wins[ju, iu]
    lam = 0.35
    gamma = objective.ridge_from_lambda(lam)
    assert gamma == 2 * lam and objective.lambda_from_ridge(gamma) == lam
    triu = objective.TriuObjective(S, N, m, gamma, link, b)
    # the triu statistics' objective is the win matrix's, ridge and all
    assert triu.value(theta) == pytest.approx(
        objective.objective_value(theta, wins, gamma, b, link), rel=1e-12
    )
    assert weighted_mle.weighted_objective(theta, S, N, lam, link, b) == triu.value(theta)
    grad, hess = triu.grad_hess(theta)
    np.testing.assert_allclose(
        grad, objective.objective_gradient(theta, wins, gamma, b, link), rtol=1e-11, atol=1e-12
    )
    np.testing.assert_allclose(
        hess, objective.objective_hessian(theta, wins, gamma, link), rtol=1e-11, atol=1e-12
    )
    # and lam ||theta||^2 written out
    no_ridge = objective.TriuObjective(S, N, m, 0.0, link, b).value(theta)
    assert triu.value(theta) - no_ridge == pytest.approx(lam * theta @ theta, rel=1e-12)


def test_mixed_effects_ridges_follow_the_convention():
    rng = np.random.default_rng(9)
    m, L = 4, 5
    y = rng.integers(0, 2, (L, m * (m - 1) // 2))
    theta, gamma = rng.normal(size=m), rng.normal(size=L)
    lam, ridge = 0.8, 0.1
    q = mixed_effects.mixed_effects_objective(theta, gamma, y, None, lam, ridge)
    q0 = mixed_effects.mixed_effects_objective(theta, gamma, y, None, 1e-300, 0.0)
    assert q - q0 == pytest.approx(lam * theta @ theta + ridge * gamma @ gamma, rel=1e-10)


def test_user_effect_form_at_zero_effects_is_the_triu_form():
    """With every user effect 0, B2 S.1.2's ``Q`` is objective (5) on the summed answers."""
    rng = np.random.default_rng(4)
    m, L = 5, 7
    P = m * (m - 1) // 2
    y = rng.integers(0, 2, (L, P)).astype(bool)
    a = rng.integers(0, 2, (L, P)).astype(np.float64)
    theta, zero = rng.normal(size=m), np.zeros(L)
    gamma_theta = 0.7
    mixed = objective.UserEffectObjective(y, a, m, gamma_theta, 0.3)
    S, N = (y * a).sum(axis=0), a.sum(axis=0)
    triu = objective.TriuObjective(S, N, m, gamma_theta, BTL, np.zeros(m))
    assert mixed.value(theta, zero) == pytest.approx(triu.value(theta), rel=1e-12)
    g_theta, g_users, w = mixed.derivatives(theta, zero)
    grad, hess = triu.grad_hess(theta)
    np.testing.assert_allclose(g_theta, grad, rtol=1e-11, atol=1e-12)
    # each user's gradient is its residual sum a (F(d) - y); the weights add up to the Hessian
    F = 1.0 / (1.0 + np.exp(-(theta[triu.iu] - theta[triu.ju])))
    np.testing.assert_allclose(g_users, (a * (F - y)).sum(axis=1), rtol=1e-11, atol=1e-12)
    np.testing.assert_allclose(
        triu.laplacian(w.sum(axis=0)) + gamma_theta * np.eye(m), hess, rtol=1e-11, atol=1e-12
    )


def test_edge_ridge_is_the_authors_rule():
    from dprank import audit

    assert objective.edge_ridge(100, 0.5) == 2.0 * np.sqrt(100 * 0.5 * np.log(100))
    assert audit.coded_edge_gamma(100, 0.5) == objective.edge_ridge(100, 0.5, 2.0)
    assert objective.edge_ridge(50, 1.0, 3.0) == pytest.approx(1.5 * objective.edge_ridge(50, 1.0))


def test_estimators_minimise_the_shared_objective():
    wins, _, b = _problem(10)
    gamma = 1.1
    fit = mle.fit_penalized_mle(wins, gamma, b)
    grad = objective.objective_gradient(fit.theta, wins, gamma, b)
    assert np.max(np.abs(grad)) < 1e-8


# ---------------------------------------------------------------------------
# the import graph


def _module_name(path: pathlib.Path) -> str:
    rel = path.relative_to(SRC.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _top_level_imports(path: pathlib.Path, name: str, modules: set[str]) -> set[str]:
    """The dprank modules ``name`` imports at module level (lazy imports in functions excluded)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = set()
    tree = ast.parse(path.read_text())
    for node in tree.body:
        # ``from pkg import sub`` imports the submodule; ``from mod import name``, mod
        targets = [
            mod if leaf is None else (f"{mod}.{leaf}" if f"{mod}.{leaf}" in modules else mod)
            for mod, leaf in imported(node, package)
        ]
        out.update(t for t in targets if t in modules and t != name)
    return out


def _import_graph() -> dict[str, set[str]]:
    paths = {_module_name(p): p for p in SRC.rglob("*.py")}
    modules = set(paths)
    return {name: _top_level_imports(p, name, modules) for name, p in paths.items()}


def test_the_import_graph_is_acyclic():
    """Module-level imports between dprank's modules form a DAG (issue 32 keeps it one)."""
    graph = _import_graph()
    assert "dprank.objective" in graph and "dprank.fit.mle" in graph
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node):
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                cycle = [*stack[stack.index(nxt) :], nxt]
                pytest.fail("import cycle: " + " -> ".join(cycle))
            if nxt not in state:
                visit(nxt)
        stack.pop()
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node)


def test_the_likelihood_sits_below_the_estimators():
    """The estimators and the audit import dprank.objective; it imports none of them."""
    graph = _import_graph()
    for user in (
        "fit.mle",
        "fit.sparse",
        "fit.weighted_mle",
        "fit.mixed_effects",
        "audit._perturbed_mle",
    ):
        assert "dprank.objective" in graph[f"dprank.{user}"], user
    own = {name for name in graph if name.startswith("dprank.objective.")}
    below = {"dprank.base._checks", "dprank.data.models", "dprank.base._lapack"}
    for name in ("dprank.objective", *own):
        assert graph[name] <= below | own, (name, graph[name] - below - own)


#: the likelihood's private backends: its compiled loops (loaded on first use) and its
#: compared-cells form, each reached only through dprank.objective
BACKENDS = ("dprank.objective._pairs", "dprank.base._compiled")


#: the compiled library also holds the comparison reader, which the reader's modules import
NOT_LIKELIHOOD = {
    ("dprank.data._input_stream", "dprank.base", "_compiled"),
    ("dprank.data._input_blocks", "dprank.base._compiled", "LabelTable"),
    ("dprank.data._input_blocks", "dprank.base._compiled", "ints_to_text"),
    ("dprank.data.comparisons", "dprank.base._compiled", "PairRows"),
    ("dprank.data.comparisons", "dprank.base._compiled", "components"),
    # the records' checks and the pairs of sorted records (``records.c``), and what they found
    ("dprank.data._records", "dprank.base._compiled", "check_records"),
    ("dprank.data.comparisons", "dprank.base._compiled", "sorted_pairs"),
    *(
        ("dprank.data.comparisons", "dprank.base._compiled", f"RECORDS_{leaf}")
        for leaf in ("BINARY", "SORTED", "UNIT", "WHOLE")
    ),
    # the ranking's text: the compiled shortest-repr formatter of the float columns and
    # the compiled writer of its rows
    ("dprank.cli._output", "dprank.base._compiled", "format_floats"),
    ("dprank.cli._output", "dprank.base._compiled", "csv_rows"),
    # the intervals' censored win totals at the prior's nodes (``logistic_totals``): an
    # integral of the release's likelihood over candidate scores, not the model's objective
    ("dprank.intervals._interval_likelihood", "dprank.base", "_compiled"),
}


def test_the_likelihoods_backends_are_reached_only_through_it():
    """No module but dprank.objective (and the backends themselves) imports a backend."""
    for path in SRC.rglob("*.py"):
        name = _module_name(path)
        if name == "dprank.objective" or name.startswith("dprank.objective.") or name in BACKENDS:
            continue
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text())):
            for mod, leaf in imported(node, package):
                if (name, mod, leaf) in NOT_LIKELIHOOD:
                    continue
                full = f"{mod}.{leaf}" if leaf else mod
                assert mod not in BACKENDS and full not in BACKENDS, (name, full)


def test_sparse_laplacian_product_solve_and_counts_pass():
    """The compiled Hessian product and solve on a SparseData's pairs against the dense
    Laplacian, and the pass with counts and no wins against the logistic formulas."""
    import scipy.special

    from dprank.data.comparisons import PairStatistics
    from dprank.fit.sparse import SparseData
    from dprank.objective import (
        logistic_counts_pass,
        sparse_laplacian_product,
        sparse_laplacian_solve,
    )

    rng = np.random.default_rng(12)
    n = 60
    a, b = np.triu_indices(n, 1)
    keep = rng.random(a.size) < 0.2
    a, b = a[keep], b[keep]
    cnt = rng.integers(1, 5, a.size).astype(np.float64)
    sd = SparseData(PairStatistics(n, a, b, cnt, np.zeros(a.size)))
    h = rng.uniform(0.0, 0.3, a.size)
    gamma = 0.2
    H = np.zeros((n, n))
    np.add.at(H, (a, b), -h)
    np.add.at(H, (b, a), -h)
    H[np.diag_indices(n)] = np.bincount(a, h, n) + np.bincount(b, h, n) + gamma
    diag = np.diag(H).copy()
    x = rng.normal(size=n)
    np.testing.assert_allclose(sparse_laplacian_product(sd, h, diag, x), H @ x, atol=1e-12)
    rhs = rng.normal(size=n)
    sol, it, positive = sparse_laplacian_solve(sd, h, diag, rhs, gamma, 1e-12, 500)
    assert positive and 0 < it < 500
    np.testing.assert_allclose(sol, np.linalg.solve(H, rhs), rtol=0, atol=1e-9)
    theta = rng.normal(0, 3, n)
    ptr = np.searchsorted(a, np.arange(n + 1))
    grad, hess = logistic_counts_pass(theta, ptr, b.astype(np.int32), cnt)
    F = scipy.special.expit(theta[a] - theta[b])
    want_g = np.bincount(a, cnt * F, n) - np.bincount(b, cnt * F, n)
    want_h = np.bincount(a, cnt * F * (1 - F), n) + np.bincount(b, cnt * F * (1 - F), n)
    np.testing.assert_allclose(grad, want_g, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(hess, want_h, rtol=1e-12, atol=1e-12)
