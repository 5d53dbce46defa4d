"""The perturbed-MLE releases, private as computed (dprank.privacy._release_mle, issue 44).

Edge DP and NoisyObj: post-processing of exact noisy win totals, the same estimator as
the objective perturbation it replaces. Individual DP: approximate minima perturbation
with a certified fit, whose certificate must bound the true gradient and whose decimal
fallback certifies what float64 cannot. The studies' seeded path is unchanged.
"""

from __future__ import annotations

import math
from decimal import Decimal, localcontext

import numpy as np
import pytest

import dprank
from dprank.data.comparisons import Comparisons
from dprank.fit.mle import fit_penalized_mle
from dprank.fit.ranking import copeland_counts
from dprank.methods import MethodInputError, all_methods, get_method
from dprank.privacy import _release_mle as R
from dprank.privacy.mechanisms import individual_gamma, individual_mle_noise_scale
from dprank.privacy.noise import NoiseSource


def _data(n=6, per_user=3, users=12, seed=0):
    rng = np.random.default_rng(seed)
    m = per_user * users
    i = rng.integers(0, n, m)
    j = (i + rng.integers(1, n, m)) % n
    y = (rng.random(m) < 0.6).astype(float)
    return Comparisons(
        n_items=n, i=i, j=j, y=y, count=np.ones(m), user=np.repeat(np.arange(users), per_user)
    )


def _exact_projected_gradient(theta, c, gamma, b_exact):
    """``||P (grad L(theta) + gamma theta + b)||_2`` in 60-digit decimal arithmetic."""
    with localcontext() as ctx:
        ctx.prec = 60
        th = [Decimal(float(t)) for t in theta]
        g = [Decimal(float(gamma)) * t + bi for t, bi in zip(th, b_exact, strict=True)]
        for r in range(c.n_records):
            i, j = int(c.i[r]), int(c.j[r])
            d = th[i] - th[j]
            s = 1 / (1 + (-d).exp()) if d > 0 else d.exp() / (1 + d.exp())  # sigma(d)
            term = Decimal(float(c.count[r])) * (s - Decimal(float(c.y[r])))
            g[i] += term
            g[j] -= term
        mean = sum(g) / len(g)
        return float(sum((x - mean) ** 2 for x in g).sqrt())


@pytest.mark.parametrize("noise_factor", [1.0, 1e6])
def test_certificate_bounds_the_exact_gradient(noise_factor):
    c = _data()
    gamma, lam = individual_gamma(1.0, 3), individual_mle_noise_scale(1.0, 3) * noise_factor
    z, k = NoiseSource.from_seed(7).laplace_grid(lam, c.n_items, 50)
    b = np.ldexp(z.astype(np.float64), k)
    with localcontext() as ctx:
        ctx.prec = 60
        b_exact = [Decimal(int(x)) * Decimal(2) ** k for x in z]
    fit = fit_penalized_mle(c, gamma, b, sum_zero=True)
    theta = fit.theta - math.fsum(fit.theta) / c.n_items
    cert = R.certify(theta, c, gamma, b, k, tau=1.0)
    exact = _exact_projected_gradient(theta, c, gamma, b_exact)
    # the bound covers the exact gradient (and the analysis' uniform U, sqrt(n) 2^k)
    assert exact <= cert.gradient_bound
    assert cert.gradient_bound < 1e-9 * noise_factor * lam
    # a point far from the minimiser is not certified below its true gradient
    far = theta + 0.1 * np.arange(c.n_items)
    far -= far.mean()
    assert R.certify(far, c, gamma, b, k, 1.0).gradient_bound >= _exact_projected_gradient(
        far, c, gamma, b_exact
    )


def test_decimal_refinement_certifies_what_float64_cannot():
    c = _data(seed=1)
    gamma, lam = individual_gamma(1.0, 3), individual_mle_noise_scale(1.0, 3)
    z, k = NoiseSource.from_seed(3).laplace_grid(lam, c.n_items, 50)
    b = np.ldexp(z.astype(np.float64), k)
    fit = fit_penalized_mle(c, gamma, b, sum_zero=True)
    tau = R.certified_tolerance(c.n_items, c.n_users, 3, lam)
    theta, cert, _ = R._certified_fit(c, gamma, b, z, k, tau, fit.theta, R.BTL)
    assert cert.passed and isinstance(theta, np.ndarray)
    # a tolerance below float64's rounding of the gradient: only decimal arithmetic certifies
    floor = math.sqrt(c.n_items) * 2.0**k
    tight = max(cert.gradient_bound / 4, 2 * floor)
    assert tight < cert.gradient_bound
    dec, dcert, _ = R._certified_fit(c, gamma, b, z, k, tight, fit.theta, R.BTL, polish_rounds=0)
    assert isinstance(dec[0], Decimal) and dcert.passed and dcert.gradient_bound <= tight
    assert np.allclose([float(t) for t in dec], theta, rtol=0, atol=1e-12)
    with pytest.raises(R.CertificationError):  # below the analysis' own floor: nothing released
        R._certified_fit(c, gamma, b, z, k, floor / 2, fit.theta, R.BTL, polish_rounds=0)


def test_individual_release_output_noise_is_calibrated_to_the_certificate():
    c = _data(seed=2)
    r = dprank.rank(
        c,
        privacy="individual",
        method="mle",
        epsilon=1.0,
        max_per_user=3,
        rng=5,
        items_from_data=True,
    )
    d = r.fit.details
    cert = d["certificate"]
    assert cert["gradient_bound"] <= cert["tolerance"]
    n, gamma = c.n_items, d["gamma"]
    radius = math.sqrt(n) * 2 * cert["tolerance"] / gamma
    assert d["output_noise_scale"] == pytest.approx(2 * radius / (1.0 / 8), rel=1e-12)
    assert d["output_noise_scale"] < 1e-6  # negligible beside the objective's noise
    assert d["grid_exponent"] == math.frexp(d["noise_scale"])[1] - 1 - 50
    # the public record names the output noise but not its data-dependent scale
    assert r.record()["noise"]["output_noise"] == "laplace"
    assert "output_noise_scale" not in r.record()["noise"]
    # the gradient residue attack of issue 44: the true data's gradient is off the grid
    g = (
        np.bincount(c.i, c.count * (1 / (1 + np.exp(-(r.scores[c.i] - r.scores[c.j]))) - c.y), n)
        - np.bincount(c.j, c.count * (1 / (1 + np.exp(-(r.scores[c.i] - r.scores[c.j]))) - c.y), n)
        + gamma * r.scores
    )
    for k in (d["grid_exponent"], math.frexp(d["noise_scale"])[1] - 1 - 30):
        z = np.ldexp(g - g[0], -k)
        assert np.abs(z - np.rint(z)).max() > 1e-3


def test_individual_release_refuses_only_on_public_parameters():
    c = _data(seed=3)
    gamma, lam = individual_gamma(1e-14, 3), individual_mle_noise_scale(1e-14, 3)
    with pytest.raises(ValueError, match="too small for 6 items"):
        R.individual_mle_release(c, 1e-14, 3, NoiseSource.from_seed(1), R.PenalizedFit(gamma), lam)


def test_edge_release_is_algorithm_1_on_noisy_win_totals():
    c = _data(seed=4)
    n, gamma = c.n_items, 2.5
    b = np.random.default_rng(0).laplace(0.0, 8.0, n)
    direct = fit_penalized_mle(c, gamma, b, xtol=1e-14).theta
    wins = copeland_counts(c)
    n_per = np.bincount(c.i, c.count, n) + np.bincount(c.j, c.count, n)
    noisy = wins - b  # W~ = W - b: the objective's data term plus b is G + (N/2 - W~)^T theta
    post = fit_penalized_mle(R.outcome_free(c), gamma, 0.5 * n_per - noisy, xtol=1e-14).theta
    assert np.allclose(direct, post, rtol=0, atol=1e-9)


def test_edge_releases_depend_on_the_data_only_through_the_win_totals():
    # two data sets with the same graph and the same wins per item, different outcomes
    pairs = [(0, 1), (1, 2), (2, 0), (0, 1), (1, 2), (2, 0)]
    c0 = Comparisons.from_winner_loser([p[0] for p in pairs], [p[1] for p in pairs], n_items=3)
    c1 = Comparisons.from_winner_loser([1, 2, 0, 0, 1, 2], [0, 1, 2, 1, 2, 0], n_items=3)
    assert np.array_equal(copeland_counts(c0), copeland_counts(c1))
    for method in ("mle", "noisy_obj"):
        a = dprank.rank(c0, privacy="edge", epsilon=1.0, method=method, rng=9).scores
        b = dprank.rank(c1, privacy="edge", epsilon=1.0, method=method, rng=9).scores
        assert np.array_equal(a, b), method


@pytest.mark.parametrize("eps", [0.01, 0.1, 1.0, 8.0, 50.0])
def test_noisy_obj_guarantee_computed_by_opendp_is_within_the_claim(eps):
    from dprank.fit.weighted_mle import noisy_obj_calibration

    _, sigma = noisy_obj_calibration(eps, 1e-6)
    assert R.noisy_obj_guarantee(sigma, 1e-6) <= eps


def test_noisy_obj_release_uses_opendp_on_the_win_totals():
    c = _data(seed=5)
    r = dprank.rank(c, privacy="edge", epsilon=1.0, method="noisy_obj")
    assert r.private and r.record()["noise"]["released_statistic"] == "wins per item"
    assert r.record()["noise"]["epsilon_computed"] <= 1.0
    assert abs(r.scores.sum()) < 1e-9


def test_seeded_simulation_path_is_unchanged():
    """The studies' numpy path: the objective perturbation exactly as before."""
    c = _data(seed=6)
    fit = get_method("edge_mle").fit(c, 1.0, np.random.default_rng(3))
    gamma = fit.details["gamma"]
    b = 8.0 * np.random.default_rng(3).laplace(0.0, 1.0, c.n_items)
    assert np.array_equal(fit.scores, fit_penalized_mle(c, gamma, b).theta)
    fit = get_method("individual_mle").fit(c, 1.0, np.random.default_rng(4), max_per_user=3)
    b = individual_mle_noise_scale(1.0, 3) * np.random.default_rng(4).laplace(0.0, 1.0, c.n_items)
    assert np.array_equal(
        fit.scores, fit_penalized_mle(c, individual_gamma(1.0, 3), b, sum_zero=True).theta
    )


def test_release_ok_marks_the_methods_a_default_may_pick():
    flags = {m.name: m.release_ok for m in all_methods()}
    assert flags["individual_counts_as_published"] is False
    assert all(v for k, v in flags.items() if k != "individual_counts_as_published")
    with pytest.raises(TypeError, match="release_ok"):
        get_method("edge_mle").__class__(**{**get_method("edge_mle").__dict__, "release_ok": 1})


def test_individual_method_names_the_refusal(monkeypatch):
    c = _data(seed=7)
    with pytest.raises(MethodInputError, match="too small"):
        get_method("individual_mle").fit(c, 1e-14, NoiseSource.from_seed(1), max_per_user=3)


def test_fine_grid_laplace_is_exact_laplace_and_matches_opendp():
    from scipy import stats

    dp = pytest.importorskip("opendp.prelude")
    dp.enable_features("contrib")
    z, k = NoiseSource.from_seed(11).laplace_grid(1.7, 20_000, 50)
    assert z.dtype == np.int64 and k == -50
    ours = np.ldexp(z.astype(np.float64), k)
    meas = dp.m.make_laplace(
        dp.vector_domain(dp.atom_domain(T=float, nan=False)), dp.l1_distance(T=float), scale=1.7
    )
    theirs = np.asarray(meas([0.0] * 8000))
    assert stats.ks_2samp(ours, theirs).pvalue > 1e-3
    assert stats.kstest(ours, stats.laplace(scale=1.7).cdf).pvalue > 1e-3
    # the low bits are used: the draws are not on the default 2^-30 grid
    assert np.mean(z % (1 << 20) != 0) > 0.99
    with pytest.raises(ValueError, match="at most 50"):
        NoiseSource.from_seed(1).laplace_grid(1.0, 3, 51)


def test_gaussian_mechanism_is_opendp_on_the_values():
    from scipy import stats

    values = np.array([3.0, 10.0, 0.0])
    draws = NoiseSource.system().gaussian_mechanism(np.tile(values, (600, 1)), 2.0)
    for k in range(3):
        assert stats.kstest(draws[:, k], stats.norm(values[k], 2.0).cdf).pvalue > 1e-3
    a = NoiseSource.from_seed(4).gaussian_mechanism(values, 2.0)
    assert np.array_equal(a, NoiseSource.from_seed(4).gaussian_mechanism(values, 2.0))


def test_edge_release_never_refuses_on_the_parity_of_the_wins():
    """At the smallest budgets the noise grid stays at most 1: integer wins always lie on it."""
    odd = Comparisons.from_winner_loser([0, 0, 1], [1, 2, 2], n_items=3)  # wins 2, 1, 0
    even = Comparisons.from_winner_loser([0, 1, 1], [1, 2, 0], n_items=3)  # wins 1, 2, 0
    for data in (odd, even):
        r = dprank.rank(data, privacy="edge", epsilon=1e-9, rng=2)
        assert r.record()["noise"]["grid_exponent"] == 0
    assert np.array_equal(R.exact_noisy_sum(np.array([3.0]), np.array([5]), -2), [4.25])
    with pytest.raises(ValueError, match="not on the noise grid"):
        R.exact_noisy_sum(np.array([0.5]), np.array([1]), 0)
