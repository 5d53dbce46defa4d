"""Empirical DP audits (dprank.audit): Clopper-Pearson bounds and mechanism audits.

Statistical checks use fixed seeds; the thresholds follow from the exact
privacy losses (RR, Laplace) and from the confidence level of the bounds.
"""

import itertools
import math

import numpy as np
import pytest
from scipy import integrate, stats

from dprank.audit import (
    AuditResult,
    audit_debiased_rr,
    audit_laplace_ldp,
    audit_mechanism,
    audit_noisy_counts_edge,
    audit_noisy_counts_individual,
    audit_noisy_obj,
    audit_one_shot,
    audit_perturbed_mle_edge,
    audit_perturbed_mle_individual,
    audit_randomized_response,
    broken_laplace_ldp,
    clopper_pearson,
    coded_edge_gamma,
    complete_wins,
    constrained_perturbed_mle_log_density,
    cp_arrays,
    epsilon_lower_bound,
    exact_rr_epsilon,
    fit_perturbed,
    grad_hess_btl,
    individual_mle_neighbours,
    log_line_integral,
    one_shot_top1_probabilities,
    one_shot_worst_neighbours,
    perturbed_mle_log_density,
    perturbed_mle_neighbours,
    private_edge_gamma,
    sum_zero_basis,
)
from dprank.base.seeding import Stream, generator
from dprank.privacy.mechanisms import (
    edge_mle_noise_scale,
    individual_gamma,
    individual_mle_noise_scale,
    standard_laplace,
)
from dprank.privacy.oneshot import one_shot_scores


def _rng(name: str, rep: int = 0) -> np.random.Generator:
    return generator(20240607, f"test_audit_{name}", 0, rep, Stream.AUDIT)


# ---------------------------------------------------------------------------
# Clopper-Pearson and the epsilon bound


def test_clopper_pearson_zero_successes_closed_form():
    # k = 0: the one-sided (1 - a/2) upper limit solves (1 - p)^n = a/2
    lo, hi = clopper_pearson(0, 100, 0.10)
    assert lo == 0.0
    assert hi == pytest.approx(1.0 - 0.05 ** (1.0 / 100), rel=1e-10)
    assert hi == pytest.approx(0.0295, abs=1e-4)
    lo, hi = clopper_pearson(100, 100, 0.10)
    assert hi == 1.0
    assert lo == pytest.approx(0.05 ** (1.0 / 100), rel=1e-10)


@pytest.mark.parametrize(("k", "n"), [(1, 10), (37, 120), (500, 1000), (999, 1000)])
def test_clopper_pearson_matches_scipy_exact_interval(k, n):
    ci = stats.binomtest(k, n).proportion_ci(confidence_level=0.95, method="exact")
    lo, hi = clopper_pearson(k, n, 0.05)
    assert lo == pytest.approx(ci.low, rel=1e-9)
    assert hi == pytest.approx(ci.high, rel=1e-9)
    assert lo <= k / n <= hi


def test_clopper_pearson_uses_the_same_beta_quantiles_as_scipy_stats():
    """The limits are scipy.stats.beta.ppf's values, bit for bit (the audit avoids importing
    scipy.stats for its start-up)."""
    n = np.array([1.0, 10.0, 120.0, 1000.0, 20_000.0])[:, None]
    k = np.floor(np.linspace(0, 1, 41) * n)
    for alpha in (0.001, 0.05, 0.1):
        lo, hi = cp_arrays(k, n, alpha)
        a, b = np.maximum(k, 1), n - k + 1
        expect_lo = np.where(k > 0, stats.beta.ppf(alpha / 2, a, b), 0.0)
        expect_hi = np.where(k < n, stats.beta.ppf(1 - alpha / 2, k + 1, np.maximum(n - k, 1)), 1.0)
        assert lo.tobytes() == expect_lo.tobytes()
        assert hi.tobytes() == expect_hi.tobytes()


def test_clopper_pearson_rejects_bad_input():
    with pytest.raises(ValueError):
        clopper_pearson(5, 4, 0.05)
    with pytest.raises(ValueError):
        clopper_pearson(1, 4, 1.5)


def test_epsilon_bound_zero_for_equal_frequencies_and_grows_with_gap():
    assert epsilon_lower_bound(300, 1000, 300, 1000) == 0.0
    bounds = [epsilon_lower_bound(300, 10_000, k1, 10_000) for k1 in (300, 600, 1200, 2400)]
    assert bounds[0] == 0.0
    assert bool(np.all(np.diff(bounds) > 0))
    assert bounds[-1] < math.log(2400 / 300)
    # a wrongly oriented event gives nothing
    assert epsilon_lower_bound(2400, 10_000, 300, 10_000) == 0.0
    # delta can only lower the bound
    assert epsilon_lower_bound(300, 10_000, 2400, 10_000, delta=0.01) < bounds[-1]


def test_epsilon_bound_uses_the_complementary_event():
    # p0 = 0.99, p1 = 0.999: the event itself says little, the complement a lot
    b = epsilon_lower_bound(99_000, 100_000, 99_900, 100_000)
    assert b > 1.5
    assert b < math.log(0.01 / 0.001)


@pytest.mark.parametrize(("p0", "p1"), [(0.2, 0.2 * math.e**0.5), (0.05, 0.3), (0.6, 0.6)])
def test_epsilon_bound_coverage(p0, p1):
    """The bound exceeds the true loss of the event at most alpha of the time."""
    alpha, reps, n = 0.05, 200, 2000
    true_eps = max(
        math.log(p1 / p0), math.log((1 - p0) / (1 - p1)), 0.0
    )  # the loss this event (or its complement) reveals
    rng = _rng("coverage", int(1000 * p1))
    k0 = rng.binomial(n, p0, size=reps)
    k1 = rng.binomial(n, p1, size=reps)
    bounds = np.array(
        [
            epsilon_lower_bound(int(a), n, int(b), n, alpha=alpha)
            for a, b in zip(k0, k1, strict=True)
        ]
    )
    # binomial(200, 0.05) exceeds 20 with probability < 1e-3
    assert np.sum(bounds > true_eps + 1e-12) <= 20
    if p1 > p0:
        assert np.median(bounds) > 0.5 * true_eps  # and it is informative


def test_exact_rr_epsilon():
    for eps in (0.1, 1.0, 3.0):
        assert exact_rr_epsilon(eps) == pytest.approx(eps, rel=1e-12)


# ---------------------------------------------------------------------------
# the generic audit


def test_audit_mechanism_on_known_bernoulli_pair():
    p0, p1 = 0.2, 0.6

    def s0(g, size):
        return (g.random(size) < p0).astype(float)

    def s1(g, size):
        return (g.random(size) < p1).astype(float)

    res = audit_mechanism("bern", s0, s1, 40_000, _rng("bern"), claimed_eps=2.0)
    assert isinstance(res, AuditResult)
    assert res.verdict == "consistent"
    assert res.confidence == pytest.approx(0.95)
    assert res.trials == 40_000
    assert 0.9 < res.lower_bound <= math.log(p1 / p0)
    # orientation: swapping the inputs finds the same event the other way round
    swapped = audit_mechanism("bern", s1, s0, 40_000, _rng("bern"), claimed_eps=0.5)
    assert swapped.verdict == "VIOLATION"
    assert "favouring D0" in swapped.event


# ---------------------------------------------------------------------------
# randomized response: tight, and the broken mechanism is caught


def test_randomized_response_audit_is_valid_and_tight():
    res = audit_randomized_response(1.0, 200_000, _rng("rr"))
    assert res.verdict == "consistent"
    assert 0.8 < res.lower_bound <= 1.0
    assert res.exact_eps == pytest.approx(1.0)


@pytest.mark.parametrize("rep", range(4))
def test_broken_laplace_mechanism_is_flagged(rep):
    res = broken_laplace_ldp(1.0, 200_000, _rng("broken", rep))
    assert res.verdict == "VIOLATION"
    assert 1.0 < res.lower_bound <= 2.0
    assert res.exact_eps == pytest.approx(2.0)


# ---------------------------------------------------------------------------
# smoke: every correct mechanism passes its audit


@pytest.mark.parametrize(
    "run",
    [
        lambda g: audit_randomized_response(1.0, 4000, g),
        lambda g: audit_debiased_rr(1.0, 4000, g, weight=0.1),
        lambda g: audit_laplace_ldp(1.0, 4000, g),
        lambda g: audit_noisy_counts_edge(1.0, 5, 4000, g),
        lambda g: audit_noisy_counts_edge(1.0, 5, 4000, g, statistic="difference"),
        lambda g: audit_noisy_counts_individual(1.0, 5, 5, 4000, g, statistic="item"),
        lambda g: audit_perturbed_mle_edge(1.0, 5, 2000, g),
        lambda g: audit_perturbed_mle_edge(1.0, 5, 2000, g, gamma=coded_edge_gamma(5)),
        lambda g: audit_perturbed_mle_edge(1.0, 5, 2000, g, adjacency="replace"),
        lambda g: audit_perturbed_mle_edge(1.0, 5, 2000, g, statistic="difference"),
        lambda g: audit_noisy_obj(1.0, 1e-6, 600, g),
        lambda g: audit_perturbed_mle_individual(1.0, 5, 5, 2000, g),
        lambda g: audit_perturbed_mle_individual(1.0, 5, 5, 2000, g, adjacency="replace"),
        lambda g: audit_perturbed_mle_individual(1.0, 5, 5, 2000, g, statistic="difference"),
        lambda g: audit_perturbed_mle_individual(
            1.0, 4, 2, 2000, g, adjacency="replace", statistic="difference"
        ),
        lambda g: audit_one_shot(1.0, 5, 20_000, g),
    ],
)
def test_correct_mechanisms_are_consistent(run):
    res = run(_rng("smoke"))
    assert res.verdict == "consistent", res
    assert 0.0 <= res.lower_bound <= res.claimed_eps
    if res.exact_eps is not None:
        assert res.lower_bound <= res.exact_eps


def test_laplace_count_audits_reach_their_exact_loss():
    """The Neyman-Pearson statistic makes the count audits nearly tight."""
    edge = audit_noisy_counts_edge(1.0, 5, 100_000, _rng("edge_tight"))
    assert edge.exact_eps == pytest.approx(1.0)
    assert 0.85 < edge.lower_bound <= 1.0


def test_individual_noisy_count_vector_loses_two_eps():
    """Finding: Laplace(L/eps) per coordinate calibrates to the l_inf, not the l1, change.

    One user's L comparisons move two counts by L each, so the released
    vector is only 2 eps-DP (Paper A, Algorithm 3's noisy counts).
    """
    res = audit_noisy_counts_individual(1.0, 5, 5, 20_000, _rng("indiv"), statistic="llr")
    assert res.exact_eps == pytest.approx(2.0)
    assert res.verdict == "VIOLATION"
    assert res.lower_bound <= 2.0


# ---------------------------------------------------------------------------
# perturbed MLE specifics


def test_perturbed_mle_density_integrates_to_one():
    """exp(log f) integrates to (2 lambda)^n: the change of variables w = -grad R(theta)."""
    wins = np.array([[0.0, 2.0], [1.0, 0.0]])
    lam, gamma = 2.0, 0.7
    h = 0.1
    grid = np.arange(-40.0, 40.0, h) + h / 2
    t0, t1 = np.meshgrid(grid, grid, indexing="ij")
    theta = np.column_stack([t0.ravel(), t1.ravel()])
    dens = np.exp(perturbed_mle_log_density(theta, wins, gamma, lam))
    assert dens.sum() * h * h == pytest.approx((2 * lam) ** 2, rel=2e-3)


def test_perturbed_mle_flip_changes_only_the_gradient_term():
    wins0, wins1 = perturbed_mle_neighbours(4, "flip")
    lam = edge_mle_noise_scale(1.0)
    theta = _rng("flip").normal(0.0, 3.0, size=(500, 4))
    for gamma in (0.01, 1.0, 10.0):
        diff = perturbed_mle_log_density(theta, wins1, gamma, lam) - perturbed_mle_log_density(
            theta, wins0, gamma, lam
        )
        assert np.all(np.abs(diff) <= 2.0 / lam + 1e-12)  # eps / 4, whatever gamma


def test_private_and_coded_gamma():
    assert private_edge_gamma(0.5) == pytest.approx(2.0)
    assert coded_edge_gamma(5) == pytest.approx(2 * math.sqrt(5 * math.log(5)))


# ---------------------------------------------------------------------------
# individual-DP (sum-to-zero) perturbed MLE


def _line_integral_by_quad(g, lam):
    def f(nu):
        return math.exp(-np.abs(g + nu).sum() / lam)

    knots = np.sort(-g)
    total = integrate.quad(f, -np.inf, knots[0], epsabs=0.0, epsrel=1e-12)[0]
    total += integrate.quad(f, knots[-1], np.inf, epsabs=0.0, epsrel=1e-12)[0]
    for a, b in itertools.pairwise(knots):
        total += integrate.quad(f, a, b, epsabs=0.0, epsrel=1e-12)[0]
    return math.log(total)


@pytest.mark.parametrize("n", [2, 3, 5, 6])
def test_line_integral_matches_quadrature(n):
    rng = _rng("line", n)
    for _ in range(4):
        g = rng.normal(0.0, 5.0, size=n)
        lam = float(rng.uniform(0.3, 10.0))
        got = float(log_line_integral(g, lam))
        assert got == pytest.approx(_line_integral_by_quad(g, lam), abs=1e-9)
    # ties and a zero slope piece (n even) are handled; rows are independent
    g = np.array([[1.0, 1.0, 1.0, -2.0, 0.5, 0.5][:n], rng.normal(size=n)])
    rows = log_line_integral(g, 2.0)
    assert rows.shape == (2,)
    assert rows[0] == pytest.approx(_line_integral_by_quad(g[0], 2.0), abs=1e-9)
    # invariant under g -> g + c 1
    assert float(log_line_integral(g[1] + 3.7, 2.0)) == pytest.approx(rows[1], abs=1e-12)


def test_constrained_density_integrates_to_one():
    """sqrt(n) (2 lam)^-n det(B^T H B) I(g) integrates to 1 over the plane sum(theta) = 0."""
    n, lam, gamma = 3, 1.5, 0.7
    wins = np.array([[0.0, 2.0, 1.0], [1.0, 0.0, 3.0], [0.0, 1.0, 0.0]])
    basis = sum_zero_basis(n)
    h = 0.1
    grid = np.arange(-30.0, 30.0, h) + h / 2
    u0, u1 = np.meshgrid(grid, grid, indexing="ij")
    theta = np.column_stack([u0.ravel(), u1.ravel()]) @ basis.T
    log_f = constrained_perturbed_mle_log_density(theta, wins, gamma, lam)
    log_f += 0.5 * math.log(n) - n * math.log(2 * lam)
    assert np.exp(log_f).sum() * h * h == pytest.approx(1.0, rel=1e-3)


@pytest.mark.parametrize("adjacency", ["flip", "replace"])
def test_constrained_llr_is_a_likelihood_ratio(adjacency):
    """Monte Carlo: E_D0[exp(llr)] = 1, and both KL divergences are nonnegative."""
    eps, n, L, reps = 8.0, 4, 1, 20_000
    lam, gamma = individual_mle_noise_scale(eps, L), individual_gamma(eps, L)
    wins0, wins1 = individual_mle_neighbours(n, L, adjacency)
    rng = _rng("llr_" + adjacency)
    llr = []
    for wins in (wins0, wins1):
        theta = fit_perturbed(wins, gamma, lam * standard_laplace(rng, (reps, n)), sum_zero=True)
        assert np.abs(theta.sum(axis=1)).max() < 1e-9
        llr.append(
            constrained_perturbed_mle_log_density(theta, wins1, gamma, lam)
            - constrained_perturbed_mle_log_density(theta, wins0, gamma, lam)
        )
    l0, l1 = llr
    assert l0.mean() < 0.0 < l1.mean()
    for values in (np.exp(l0), np.exp(-l1)):
        assert values.mean() == pytest.approx(1.0, abs=4 * values.std() / math.sqrt(reps))


def test_individual_flip_loss_is_two_l_over_lambda():
    eps, n, L = 1.0, 5, 5
    lam, gamma = individual_mle_noise_scale(eps, L), individual_gamma(eps, L)
    wins0, wins1 = individual_mle_neighbours(n, L, "flip")
    # data-independent Hessian, gradient shifted by L (e_0 - e_1)
    theta = _rng("iflip").normal(0.0, 3.0, size=(500, n))
    theta -= theta.mean(axis=1, keepdims=True)
    g0, h0 = grad_hess_btl(theta, wins0, gamma)
    g1, h1 = grad_hess_btl(theta, wins1, gamma)
    assert np.allclose(h0, h1, atol=1e-12)
    assert np.allclose(g1 - g0, L * (np.eye(n)[0] - np.eye(n)[1]), atol=1e-12)
    llr = constrained_perturbed_mle_log_density(
        theta, wins1, gamma, lam
    ) - constrained_perturbed_mle_log_density(theta, wins0, gamma, lam)
    assert np.all(np.abs(llr) <= 2 * L / lam + 1e-12)
    # the supremum 2L/lam = eps/4 is approached at g0 = (-M, M, 0, ..., 0)
    g = np.zeros(n)
    g[0], g[1] = -200.0, 200.0
    shift = L * (np.eye(n)[0] - np.eye(n)[1])
    ratio = log_line_integral(g + shift, lam) - log_line_integral(g, lam)
    assert ratio == pytest.approx(2 * L / lam, abs=1e-6)
    res = audit_perturbed_mle_individual(eps, n, L, 2000, _rng("iflip"))
    assert res.exact_eps == pytest.approx(eps / 4)


def test_individual_neighbours_differ_by_one_users_comparisons():
    for adjacency in ("flip", "replace"):
        wins0, wins1 = individual_mle_neighbours(5, 3, adjacency)
        diff = wins1 - wins0
        assert diff.sum() == 0.0
        assert np.abs(diff).sum() == 6.0  # 3 comparisons removed, 3 added
        assert np.all(wins0 >= 0) and np.all(wins1 >= 0)
    with pytest.raises(ValueError):
        individual_mle_neighbours(5, 3, "swap")


# ---------------------------------------------------------------------------
# one-shot top-1


def test_one_shot_probabilities_sum_to_one_and_match_quadrature():
    wins = np.array(
        [
            [0, 1, 0, 1, 1],
            [0, 0, 1, 1, 0],
            [1, 0, 0, 0, 1],
            [0, 0, 1, 0, 1],
            [0, 1, 0, 0, 0],
        ],
        dtype=float,
    )
    for eps in (1.0, 50.0, 500.0):
        probs = one_shot_top1_probabilities(wins, eps)
        assert probs.sum() == pytest.approx(1.0, abs=1e-9)
        pi = one_shot_scores(wins, 1.0, 1, eps, np.zeros(5))
        scale = one_shot_scores(wins, 1.0, 1, eps, np.ones(5))[0] - pi[0]
        lap = stats.laplace(scale=scale)

        def integrand(x, i, pi=pi, lap=lap):
            others = np.delete(pi, i)
            return lap.pdf(x - pi[i]) * np.prod(lap.cdf(x - others))

        for i in range(5):
            knots = np.sort(pi)
            ref = integrate.quad(integrand, -np.inf, knots[0], args=(i,))[0]
            ref += integrate.quad(integrand, knots[-1], np.inf, args=(i,))[0]
            ref += integrate.quad(
                integrand, knots[0], knots[-1], args=(i,), points=knots[1:-1], limit=200
            )[0]
            assert probs[i] == pytest.approx(ref, abs=1e-9)


def test_one_shot_probabilities_match_monte_carlo():
    """At eps = 50 the release is far from uniform; frequencies agree within 4 sigma."""
    wins = complete_wins(5)
    wins[0, 1], wins[1, 0] = 0.0, 1.0
    wins[2, 4], wins[4, 2] = 0.0, 1.0
    eps, reps = 50.0, 200_000
    probs = one_shot_top1_probabilities(wins, eps)
    scores = one_shot_scores(wins, 1.0, 1, eps, standard_laplace(_rng("oneshot_mc"), (reps, 5)))
    freq = np.bincount(np.argmax(scores, axis=1), minlength=5) / reps
    assert probs.max() > 0.3  # informative example
    assert np.all(np.abs(freq - probs) <= 4 * np.sqrt(probs * (1 - probs) / reps))


def test_one_shot_worst_neighbours_is_a_single_flip():
    wins0, wins1, loss = one_shot_worst_neighbours(5, 1.0)
    for wins in (wins0, wins1):
        off = ~np.eye(5, dtype=bool)
        assert np.all((wins + wins.T)[off] == 1.0)  # a tournament
        assert np.all(np.isin(wins, (0.0, 1.0)))
        assert np.all(np.diag(wins) == 0.0)
    changed = np.argwhere(np.triu(wins0 != wins1, k=1))
    assert changed.shape == (1, 2)
    i, j = changed[0]
    assert wins0[i, j] == wins1[j, i] and wins0[j, i] == wins1[i, j]
    exact = np.abs(
        np.log(one_shot_top1_probabilities(wins1, 1.0))
        - np.log(one_shot_top1_probabilities(wins0, 1.0))
    ).max()
    assert loss == pytest.approx(exact, rel=1e-12)
    assert 0.0 < loss < 1.0
    # no other flip of these two tournaments loses more
    for base in (wins0, wins1):
        for a, b in zip(*np.triu_indices(5, k=1), strict=True):
            other = base.copy()
            other[a, b], other[b, a] = base[b, a], base[a, b]
            alt = np.abs(
                np.log(one_shot_top1_probabilities(other, 1.0))
                - np.log(one_shot_top1_probabilities(base, 1.0))
            ).max()
            assert alt <= loss + 1e-12


def test_one_shot_audit_is_consistent():
    res = audit_one_shot(1.0, 5, 40_000, _rng("oneshot"))
    assert res.verdict == "consistent"
    assert res.claimed_delta == pytest.approx(1 / 25)
    assert res.exact_eps == pytest.approx(one_shot_worst_neighbours(5, 1.0)[2])
    assert 0.0 <= res.lower_bound <= res.exact_eps
    with pytest.raises(ValueError):
        audit_one_shot(1.0, 5, 1000, _rng("oneshot"), k=2)
