"""The fast kernels of dprank.intervals give the numbers of their plain forms, bit for bit.

The intervals at 10^5 items take quicker routes (an unstable sort where no entry is tied,
the top ``k`` without a full ranking, per-row parameters of the error density, Newton lists
that drop settled items late, the distinct pairs of the users' expected design by a sort):
each is checked here against the plain computation it
replaces, ties and the limits included, so that no interval, ``p_top_k`` or draw moves.
One is exact to rounding rather than to the bit: the censored items' win totals under the
logistic link, by one exponential per item and per node (compiled) instead of one per pair
and node, agree with the link's cdf at every pair and node to 1e-12.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import scipy.special
from hypothesis import given
from hypothesis import strategies as st

from dprank.base import _compiled
from dprank.data.models import get_link
from dprank.intervals import _interval_likelihood as il
from dprank.intervals import _interval_problem as ip
from dprank.intervals import _interval_ranks as ir
from dprank.intervals._interval_designs import _sorted_distinct


def _stable_ranks(x):
    n = x.shape[1]
    order = np.argsort(-x, axis=1, kind="stable")
    out = np.empty(x.shape, dtype=np.int32)
    np.put_along_axis(out, order, np.arange(1, n + 1, dtype=np.int32)[None, :], axis=1)
    return out


@st.composite
def _rows(draw):
    rows = draw(st.integers(1, 6))
    n = draw(st.integers(1, 40))
    levels = draw(st.integers(1, 6))  # few distinct values: many ties
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    x = rng.integers(0, levels, (rows, n)).astype(np.float64) - levels / 2
    if draw(st.booleans()):
        x = np.where(x == 0, -0.0, x)  # -0.0 ties with 0.0
    if draw(st.booleans()):
        x[draw(st.integers(0, rows - 1))] = rng.random(n)  # a row without ties
    if draw(st.booleans()):
        x[rng.random(x.shape) < 0.2] = np.nan  # NaNs rank last, in order of position
    return x


@given(_rows(), st.integers(1, 40))
def test_ranks_and_top_k_equal_the_stable_sorts(x, k):
    ranks = _stable_ranks(x)
    assert np.array_equal(ir.ranks_of_rows(x), ranks)
    k = min(k, x.shape[1])
    assert np.array_equal(ir.in_top_k(x, k), ranks <= k)


def test_ranks_of_a_large_untied_sample_equal_the_stable_sort():
    x = np.random.default_rng(3).random((5, 20_000))
    x[2, 7] = x[2, 9_000]  # one tie in one row
    assert np.array_equal(ir.ranks_of_rows(x), _stable_ranks(x))
    assert np.array_equal(ir.in_top_k(x, 10), _stable_ranks(x) <= 10)


def test_error_density_by_row_is_the_elementwise_one():
    rng = np.random.default_rng(4)
    x = rng.normal(0, 3, (300, 50))
    v = rng.uniform(0.1, 4.0, (300, 1))
    share = rng.choice([0.0, 1e-9, 1e-4, 0.3, 0.999, 1.0], (300, 1))
    fast = il.error_density(x, v, share)
    full = [np.broadcast_to(a, x.shape).copy() for a in (v, share)]
    plain = il.error_density(x.ravel(), full[0].ravel(), full[1].ravel()).reshape(x.shape)
    assert np.array_equal(fast, plain)


def _reference_newton_row(prob, ref, y, x, active, lo, hi):
    """The plain safeguarded Newton row: every step over all pairs of the items still moving,
    the state of all items kept."""
    n, a, b, N, link = prob.n, prob.a, prob.b, prob.N, prob.link
    lo, hi = lo.copy(), hi.copy()
    before_last = np.abs(hi - lo)
    last_step = before_last.copy()
    for step in range(ip._INVERT_STEPS + ip._BISECTIONS):
        if not active.any():
            break
        g, dg = np.zeros(n), np.zeros(n)
        for own, other in ((a, b), (b, a)):
            sel = np.nonzero(active[own])[0]
            i, j = own[sel], other[sel]
            F, f = ip.cdf_pdf(link, x[i] - ref[j])
            g += np.bincount(i, N[sel] * F, n)
            dg += np.bincount(i, N[sel] * f, n)
        low = g < y
        lo = np.where(active & low, x, lo)
        hi = np.where(active & ~low, x, hi)
        newton = x + (y - g) / np.maximum(dg, 1e-300)
        take = (newton > lo) & (newton < hi) & (2.0 * np.abs(newton - x) <= before_last)
        take &= step < ip._INVERT_STEPS
        new = np.where(g == y, x, np.where(take, newton, 0.5 * (lo + hi)))
        before_last, last_step = last_step, np.where(active, np.abs(new - x), last_step)
        moved = np.abs(new - x) > 1e-7
        x = np.where(active, new, x)
        active = active & moved
    return x


def _problem(n, m, seed, sd):
    """A Problem on ``m`` random comparisons among ``n`` items, the others' scores ``ref``
    spread with ``sd``."""
    rng = np.random.default_rng(seed)
    a = rng.integers(0, n, m)
    b = (a + rng.integers(1, n, m)) % n
    key, count = np.unique(np.minimum(a, b) * n + np.maximum(a, b), return_counts=True)
    prob = ip.Problem.__new__(ip.Problem)
    prob.n, prob.link = n, get_link("btl")
    prob.a, prob.b, prob.N = key // n, key % n, count.astype(np.float64)
    prob.deg = np.bincount(prob.a, prob.N, n) + np.bincount(prob.b, prob.N, n)
    return prob, rng.normal(0, sd, n), rng


def test_newton_rows_equal_the_plain_iteration():
    prob, ref, rng = _problem(400, 6000, 5, 1.5)
    n = prob.n
    targets = prob.deg * rng.uniform(-0.05, 1.05, (3, n))
    x = ip.invert_totals(prob, ref, targets)
    sides = ((prob.a, ref[prob.b]), (prob.b, ref[prob.a]))
    for r in range(3):
        start = rng.normal(0, 1, n)
        active = (targets[r] > 0) & (targets[r] < prob.deg)
        lo, hi = np.full(n, ref.min() - 8.0), np.full(n, ref.max() + 8.0)
        assert np.array_equal(
            ip._newton_row(prob, sides, targets[r], start, active, lo, hi),
            _reference_newton_row(prob, ref, targets[r], start, active, lo, hi),
        )
    assert np.isneginf(x[targets <= 0]).all() and np.isposinf(x[targets >= prob.deg]).all()


def test_compiled_newton_rows_agree_with_the_plain_iteration():
    """The logistic link's rows by the compiled pass (the design's pairs, sorted by their
    first item) against the plain iteration: the same sums in the same order, each pair's
    F by another formula (rounding), so the same solutions to the solver's tolerance."""
    prob, ref, rng = _problem(400, 6000, 5, 1.5)
    assert prob.sorted_pairs
    n = prob.n
    targets = prob.deg * rng.uniform(-0.05, 1.05, (3, n))
    for r in range(3):
        start = rng.normal(0, 1, n)
        active = (targets[r] > 0) & (targets[r] < prob.deg)
        lo, hi = np.full(n, ref.min() - 8.0), np.full(n, ref.max() + 8.0)
        fast = ip._newton_row(prob, ip._AtRef(ref), targets[r], start, active, lo, hi)
        plain = _reference_newton_row(prob, ref, targets[r], start, active, lo, hi)
        np.testing.assert_allclose(fast, plain, rtol=0, atol=2e-7)


@pytest.mark.parametrize("sd", [1.5, 200.0])
def test_compiled_totals_are_the_listed_ones(sd):
    """Each listed item's total and slope by the compiled pass equal numpy's sums (to
    rounding), for all items and after narrowing to some of them."""
    prob, ref, rng = _problem(300, 5000, 8, sd)
    n = prob.n
    sides = ((prob.a, ref[prob.b]), (prob.b, ref[prob.a]))
    items = np.arange(n)
    fast, plain = ip._CompiledTotals(prob, ref), ip._ListedTotals(prob, sides, items >= 0)
    for _ in range(3):
        xs = rng.normal(0, sd, items.size)
        (g1, d1), (g0, d0) = fast(items, xs), plain(items, xs)
        np.testing.assert_allclose(g1, g0, rtol=1e-12, atol=1e-300)
        # the slopes to rounding of the largest: numpy's F (1 - F) is 0 where F rounds to 1,
        # the compiled pass's e^-|d| / (1 + e^-|d|)^2 is not
        np.testing.assert_allclose(d1, d0, rtol=1e-12, atol=1e-15 * float(np.max(d0)))
        act = rng.random(items.size) < 0.5
        items = items[act]
        fast, plain = fast.keep(items, act), plain.keep(items, act)
    # a few items left: fewer pairs than items, numpy's sums from the compiled layout
    assert isinstance(fast, ip._CompiledTotals)
    act = np.zeros(items.size, dtype=bool)
    act[:2] = True
    items = items[act]
    fast, plain = fast.keep(items, act), plain.keep(items, act)
    assert isinstance(fast, ip._ListedTotals)
    xs = rng.normal(0, sd, items.size)
    np.testing.assert_array_equal(fast(items, xs)[0], plain(items, xs)[0])
    np.testing.assert_array_equal(fast(items, xs)[1], plain(items, xs)[1])


def _total(prob, ref, x):
    """Each row's expected win totals at the scores ``x``, the others at ``ref``."""
    n, a, b, N = prob.n, prob.a, prob.b, prob.N
    out = np.zeros(x.shape)
    for r in range(x.shape[0]):
        out[r] = np.bincount(a, N * ip.cdf_pdf(prob.link, x[r, a] - ref[b])[0], n)
        out[r] += np.bincount(b, N * ip.cdf_pdf(prob.link, x[r, b] - ref[a])[0], n)
    return out


@pytest.mark.parametrize(("seed", "sd"), [(1, 12.0), (9, 12.0), (0, 25.0)])
def test_inverted_totals_solve_every_entry_on_wide_scores(seed, sd):
    """Every finite solution lies within 1e-6 of the root: the total at ``x - 1e-6`` is below
    the target and at ``x + 1e-6`` above it. On scores spread this widely the plain Newton
    steps inside a fixed bracket of +-60 left entries unsolved: roots beyond 60, a Newton
    cycle between the two sides of a steep stretch, an exact solution then left."""
    prob, ref, rng = _problem(300, 6000, seed, sd)
    share = rng.uniform(0.0, 1.0, (5, prob.n)) ** rng.choice([0.02, 0.2, 1, 5, 50], (5, prob.n))
    targets = prob.deg * share
    x = ip.invert_totals(prob, ref, targets)
    fin = np.isfinite(x)
    assert fin.mean() > 0.8
    xf = np.where(fin, x, 0.0)
    below, above = _total(prob, ref, xf - 1e-6), _total(prob, ref, xf + 1e-6)
    assert np.all((below <= targets)[fin]) and np.all((above >= targets)[fin])


@given(st.lists(st.integers(-(2**62), 2**62), max_size=60), st.integers(0, 2**32 - 1))
def test_sorted_distinct_is_numpy_unique(values, seed):
    rng = np.random.default_rng(seed)
    k = np.array(values + values[: len(values) // 2], dtype=np.int64)  # duplicates
    k = k[rng.permutation(k.size)]
    out = _sorted_distinct(k)
    assert out.dtype == np.unique(k).dtype and np.array_equal(out, np.unique(k))


def test_inverted_totals_from_a_neighbouring_solution_are_the_same_solutions():
    rng = np.random.default_rng(6)
    n, m = 300, 5000
    a = rng.integers(0, n, m)
    b = (a + rng.integers(1, n, m)) % n
    key, count = np.unique(np.minimum(a, b) * n + np.maximum(a, b), return_counts=True)
    prob = ip.Problem.__new__(ip.Problem)
    prob.n, prob.link = n, get_link("btl")
    prob.a, prob.b, prob.N = key // n, key % n, count.astype(np.float64)
    prob.deg = np.bincount(prob.a, prob.N, n) + np.bincount(prob.b, prob.N, n)
    ref = rng.normal(0, 1.0, n)
    targets = prob.deg * rng.uniform(-0.05, 1.05, (3, n))
    cold = ip.invert_totals(prob, ref, targets)
    near = np.where(np.isfinite(cold), cold + rng.normal(0, 0.05, cold.shape), cold)
    warm = ip.invert_totals(prob, ref, targets, warm=near)
    assert np.array_equal(np.isfinite(warm), np.isfinite(cold))
    assert np.array_equal(warm[~np.isfinite(cold)], cold[~np.isfinite(cold)])
    np.testing.assert_allclose(warm[np.isfinite(cold)], cold[np.isfinite(cold)], atol=1e-6)


def _likelihood(n, m, seed, sd, cdf=scipy.special.expit):
    """A censored-item likelihood on ``m`` random pairs (some repeated, some items
    without pairs) among ``n`` items, the others' scores spread with ``sd``."""
    rng = np.random.default_rng(seed)
    a = rng.integers(0, n, m)
    b = (a + rng.integers(1, n, m)) % n
    keep = (a >= 2) & (b >= 2)  # items 0 and 1 compared with no one
    a, b = a[keep], b[keep]
    N = rng.integers(1, 6, a.size).astype(np.float64)
    at = rng.normal(0, sd, n)
    W = rng.uniform(0, 1, n) * (np.bincount(a, N, n) + np.bincount(b, N, n))
    lap = rng.uniform(0.5, 8.0, n)
    return il.TotalLikelihood(W, at, a, b, N, cdf, lap, rng.uniform(0.0, 3.0, n)), rng


@given(st.integers(2, 60), st.integers(0, 400), st.integers(0, 2**32 - 1),
       st.sampled_from([0.0, 0.5, 3.0, 20.0]), st.integers(1, 60))  # fmt: skip
def test_logistic_totals_are_the_links_cdf_at_every_pair_and_node(n, m, seed, sd, k):
    like, rng = _likelihood(n, m, seed, sd)
    nodes = np.linspace(*np.sort(rng.normal(0, sd + 1.0, 2)), k)
    items = rng.integers(0, n, rng.integers(0, 2 * n))  # any order, repeats
    ref = like._logistic_ref(nodes)
    assert ref is not None
    start, opponent, count = like._pairs
    fast = _compiled.logistic_totals(items, start, opponent, count, like.at, nodes, ref)
    plain = like._totals(items, nodes) if items.size else np.empty((0, k))
    np.testing.assert_allclose(fast, plain, rtol=1e-12, atol=1e-12 * max(1.0, plain.max(initial=0)))
    assert np.all(fast[np.isin(items, [0, 1])] == 0.0)  # no pairs: no wins


def test_censored_likelihoods_by_the_compiled_totals_are_the_plain_ones():
    """The likelihoods themselves, the compiled totals against every pair's cdf: the same to
    1e-12; far-spread scores (beyond the exponentials' range) and the probit link take every
    pair's cdf."""
    like, _ = _likelihood(400, 6000, 3, 1.5)
    nodes = np.linspace(-6.0, 7.0, 200)
    items = np.arange(400)
    plain = dataclasses.replace(like, cdf=lambda x: scipy.special.expit(x))  # not recognised
    assert like._logistic_ref(nodes) == 0.5 and plain._logistic_ref(nodes) is None
    np.testing.assert_allclose(like(items, nodes), plain(items, nodes), rtol=0, atol=1e-12)
    wide, _ = _likelihood(50, 600, 4, 200.0)
    assert wide._logistic_ref(np.linspace(-5.0, 5.0, 20)) is None
    probit = dataclasses.replace(like, cdf=get_link("tm").cdf)
    assert probit._logistic_ref(nodes) is None
    assert dataclasses.replace(like, cdf=get_link("btl").cdf)._logistic_ref(nodes) == 0.5
    start, opponent, count = like._pairs
    with pytest.raises(ValueError, match="item number"):
        _compiled.logistic_totals(np.array([400]), start, opponent, count, like.at, nodes, 0.5)


@pytest.mark.parametrize("laplace", [False, True])
def test_likelihoods_with_censored_rows_are_those_of_all_rows_overwritten(laplace):
    """The censored rows' likelihoods from their totals, the other rows' computed alone:
    the same bits as the likelihoods of all rows with the censored rows then replaced."""
    like, rng = _likelihood(300, 3000, 8, 1.5)
    n = 300
    t, v = rng.normal(0, 1.5, n), rng.uniform(0.1, 2.0, n)
    finite = rng.random(n) < 0.6
    finite[:2] = False, True
    lower = np.where(~finite & (rng.random(n) < 0.5), t - 1.0, -np.inf)
    upper = np.where(~finite & np.isneginf(lower), t + 1.0, np.inf)
    share = rng.uniform(0.0, 1.0, n) if laplace else None
    nodes = np.linspace(-6.0, 6.0, 200)
    index = rng.permutation(n)
    got = il.likelihoods(t, v, finite, lower, upper, nodes, share, like, index)
    want = il.likelihoods(t, v, finite, lower, upper, nodes, share)
    want[~finite] = like(index[~finite], nodes)
    assert np.array_equal(got, want)
    none = np.zeros(n, dtype=bool)
    got = il.likelihoods(t, v, none, lower, upper, nodes, share, like, index)
    assert np.array_equal(got, like(index, nodes))
