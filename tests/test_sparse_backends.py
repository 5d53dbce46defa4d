"""The sparse solver's compiled loops (``src/native/loops.c``) give the bits of their transcription.

``tests/_loops_reference.py`` does the same operations in the same order in
Python (IEEE doubles, the C library's ``exp`` and ``log1p``): every loop and
whole fits must agree bit for bit, so the C is compiled as written (no
fast-math, no fused multiply-add) wherever the package is built.
"""

from __future__ import annotations

import _loops_reference as ref
import numpy as np
import pytest

from dprank.base import _compiled
from dprank.data.comparisons import Comparisons, PairSums
from dprank.data.models import THURSTONE
from dprank.fit.sparse import SparseData, sparse_newton


def _rows(rng, n, m):
    i = rng.integers(0, n, m)
    j = (i + rng.integers(1, n, m)) % n
    comp = Comparisons(n_items=n, i=i, j=j, y=rng.random(m), count=rng.choice([1.0, 3.0], m))
    sd = SparseData(comp)
    ptr, b = sd.rows()
    return sd, ptr, b


@pytest.mark.parametrize("spread", [6.0, 650.0])
def test_passes_are_bit_identical(spread):
    """btl_pass (both exponential branches), btl_value, zero_pass and scatter_pairs."""
    rng = np.random.default_rng(11)
    n = 40
    sd, ptr, b = _rows(rng, n, 300)
    theta = rng.uniform(-spread / 2, spread / 2, n)
    theta[:2] = -spread / 2, spread / 2
    out = {}
    for name, mod in (("c", _compiled), ("reference", ref)):
        grad, diag, h = np.linspace(-1, 1, n), np.full(n, 0.3), np.empty(sd.n_pairs)
        mod.btl_pass(theta, ptr, b, sd.cnt, sd.w, grad, diag, h)
        g0, d0, h0 = np.zeros(n), np.zeros(n), np.empty(sd.n_pairs)
        mod.zero_pass(ptr, b, sd.cnt, sd.w, g0, d0, h0)
        g1, d1 = np.zeros(n), np.zeros(n)
        mod.scatter_pairs(ptr, b, sd.w - 0.3 * sd.cnt, h, g1, d1)
        value = mod.btl_value(theta, ptr, b, sd.cnt, sd.w)
        out[name] = (grad, diag, h, g0, d0, h0, g1, d1, np.array([value]))
    for got, want in zip(out["c"], out["reference"], strict=True):
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize(("spread", "nodes"), [(3.0, 200), (590.0, 7), (0.0, 1)])
def test_logistic_totals_are_bit_identical(spread, nodes):
    """The censored items' totals of dprank.intervals: odd and even node counts (the
    vector's last node alone), items repeated and without pairs, factors up to e^+-295."""
    rng = np.random.default_rng(13)
    n = 30
    _, start, opponent = _rows(rng, n, 200)
    count = rng.choice([1.0, 2.0, 5.0], opponent.size)
    at = rng.uniform(-spread / 2, spread / 2, n)
    grid = np.linspace(-spread / 2, spread / 2, nodes)
    rows = np.concatenate([rng.integers(0, n, 25), [n - 1, n - 1, 0]])
    got = _compiled.logistic_totals(rows, start, opponent, count, at, grid, 0.0)
    want = ref.logistic_totals(rows, start, opponent, count, at, grid, 0.0)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("c", [0.0, 1.0])
def test_hessian_product_and_cg_are_bit_identical(c):
    rng = np.random.default_rng(12)
    n = 40
    sd, ptr, b = _rows(rng, n, 400)
    h = rng.random(sd.n_pairs)
    diag = np.full(n, 0.01)
    np.add.at(diag, sd.a, h)
    np.add.at(diag, sd.b, h)
    x = rng.normal(size=n)
    o1, o2 = np.empty(n), np.empty(n)
    _compiled.laplacian_mv(x, ptr, b, h, diag, o1)
    ref.laplacian_mv(x, ptr, b, h, diag, o2)
    np.testing.assert_array_equal(o1, o2)
    for rtol, atol, max_iter in ((1e-8, 0.0, 2000), (0.1, 0.0, 2000), (1e-12, 0.0, 3)):
        xc, itc, pc = _compiled.pcg(ptr, b, h, diag, x, c, 0.01 + c * n, rtol, atol, max_iter)
        xr, itr, pr = ref.pcg(ptr, b, h, diag, x, c, 0.01 + c * n, rtol, atol, max_iter)
        assert (itc, pc) == (itr, pr)
        np.testing.assert_array_equal(xc, xr)
    # a direction of non-positive curvature is reported by both
    neg = -np.abs(h)
    assert _compiled.pcg(ptr, b, neg, -diag, x, 0.0, 1.0, 1e-8, 0.0, 50)[2] is False
    assert ref.pcg(ptr, b, neg, -diag, x, 0.0, 1.0, 1e-8, 0.0, 50)[2] is False


def test_fits_are_bit_identical(monkeypatch):
    """Whole sparse fits (BTL with ridge, sum-to-zero, Thurstone) agree bit for bit."""
    from dprank import objective

    rng = np.random.default_rng(13)
    n, m = 50, 500
    a = rng.integers(0, n, m)
    b = (a + rng.integers(1, n, m)) % n
    comp = Comparisons.from_winner_loser(a, b, n_items=n)
    fits = {}
    for name, mod in (("c", _compiled), ("reference", ref)):
        monkeypatch.setattr(objective, "kernels", lambda mod=mod: mod)
        fits[name] = [
            sparse_newton(SparseData(comp), 2.0)["theta"],
            sparse_newton(SparseData(comp), 0.0, sum_zero=True)["theta"],
            sparse_newton(SparseData(comp, THURSTONE), 1.0)["theta"],
        ]
    for got, want in zip(fits["c"], fits["reference"], strict=True):
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("spread", [6.0, 650.0])
def test_whole_counts_as_int32_give_the_float64_loops_bits(spread):
    """The int32 loops (counts and wins of the reader's pair sums) read the same doubles."""
    rng = np.random.default_rng(16)
    n = 40
    sd, ptr, b = _rows(rng, n, 300)
    cnt = rng.integers(1, 2**31 - 1, sd.n_pairs, dtype=np.int32)
    cnt[:5] = 1
    w = (cnt * rng.random(sd.n_pairs)).astype(np.int32)
    theta = rng.uniform(-spread / 2, spread / 2, n)
    theta[:2] = -spread / 2, spread / 2
    out = []
    for c, ww in ((cnt, w), (cnt.astype(np.float64), w.astype(np.float64))):
        grad, diag, h = np.linspace(-1, 1, n), np.full(n, 0.3), np.empty(sd.n_pairs)
        _compiled.btl_pass(theta, ptr, b, c, ww, grad, diag, h)
        g0, d0, h0 = np.zeros(n), np.zeros(n), np.empty(sd.n_pairs)
        _compiled.zero_pass(ptr, b, c, ww, g0, d0, h0)
        value = _compiled.btl_value(theta, ptr, b, c, ww)
        out.append((grad, diag, h, g0, d0, h0, np.array([value])))
    for got, want in zip(*out, strict=True):
        np.testing.assert_array_equal(got, want)


def test_reader_pair_sums_keep_int32_and_fit_as_float64():
    """Pair sums of rows without counts keep int32 counts and wins (half the memory): ``n``
    and ``w`` read as float64, the solver's loops take the int32, the fit is the same bits."""
    from dprank.data.comparisons import PairStatistics, PairSums

    rng = np.random.default_rng(17)
    n, m = 60, 3000
    i = rng.integers(0, n, m)
    j = (i + rng.integers(1, n, m)) % n
    sums = PairSums()
    sums.add(i, j, (rng.random(m) < 0.6).astype(float))
    ps = sums.result()
    assert [c.dtype for c in ps.stored_counts()] == [np.int32, np.int32]
    sd = SparseData(ps)
    assert [c.dtype for c in sd.counts()] == [np.int32, np.int32]
    assert sd.cnt.dtype == sd.w.dtype == np.float64
    plain = PairStatistics(ps.n_items, ps.a, ps.b, ps.n, ps.w)  # float64, as read
    assert ps.n.dtype == ps.w.dtype == np.float64
    assert [c.dtype for c in SparseData(plain).counts()] == [np.float64, np.float64]
    for gamma, sum_zero in ((2.0, False), (0.0, True)):
        got = sparse_newton(sd, gamma, sum_zero=sum_zero)
        want = sparse_newton(SparseData(plain), gamma, sum_zero=sum_zero)
        np.testing.assert_array_equal(got["theta"], want["theta"])
        assert got["n_iter"] == want["n_iter"] and got["cg_iter"] == want["cg_iter"]


def test_int64_partners_are_taken_as_int32():
    rng = np.random.default_rng(14)
    n = 30
    sd, ptr, b = _rows(rng, n, 200)
    x = rng.normal(size=n)
    diag = np.full(n, 5.0)
    h = rng.random(sd.n_pairs)
    o1, o2 = np.empty(n), np.empty(n)
    _compiled.laplacian_mv(x, ptr, b.astype(np.int64), h, diag, o1)
    _compiled.laplacian_mv(x, ptr, b, h, diag, o2)
    np.testing.assert_array_equal(o1, o2)


def test_outputs_must_be_writeable_float64():
    rng = np.random.default_rng(15)
    n = 10
    sd, ptr, b = _rows(rng, n, 50)
    with pytest.raises(TypeError, match="outputs must be writeable C-contiguous float64"):
        _compiled.laplacian_mv(
            np.ones(n), ptr, b, np.ones(sd.n_pairs), np.ones(n), np.empty(n, "f4")
        )


def test_a_build_older_than_its_sources_is_named(tmp_path):
    """In a source checkout, a library built from other C sources is refused with the fix."""
    import shutil

    if not (_compiled.source_folder() / "reader.c").is_file():
        pytest.skip("an installed package: its C sources are not beside it")
    sources = tmp_path / "native"
    shutil.copytree(_compiled.source_folder(), sources)
    _compiled._check_fresh(_compiled.lib(), sources)  # the build of these sources: accepted
    (sources / "loops.c").write_text((sources / "loops.c").read_text() + "\n/* edited */\n")
    with pytest.raises(_compiled.NativeMissingError, match=r"rebuild it with `make setup`"):
        _compiled._check_fresh(_compiled.lib(), sources)


def test_the_sources_digest_is_computed_only_where_their_stamp_differs(tmp_path, monkeypatch):
    """The files the build compiled, untouched (their sizes and times the build's stamp), are
    accepted without hashing them again; a file with another time is judged by its digest:
    accepted where its text is the same."""
    import os
    import shutil

    from dprank.base import _native_build

    if not (_compiled.source_folder() / "reader.c").is_file():
        pytest.skip("an installed package: its C sources are not beside it")
    hashed = []
    digest = _native_build.source_digest
    monkeypatch.setattr(_native_build, "source_digest", lambda f: hashed.append(f) or digest(f))
    _compiled._check_fresh(_compiled.lib())
    assert hashed == []
    sources = tmp_path / "native"
    shutil.copytree(_compiled.source_folder(), sources)  # the same times (copystat)
    _compiled._check_fresh(_compiled.lib(), sources)
    assert hashed == []
    st = (sources / "loops.c").stat()
    os.utime(sources / "loops.c", ns=(st.st_atime_ns, st.st_mtime_ns + 1000))  # touched
    _compiled._check_fresh(_compiled.lib(), sources)  # the same text: its digest, accepted
    assert hashed == [sources]


def test_a_build_lacking_a_function_of_the_sources_is_refused_as_stale():
    """A build older than its sources may lack a function they gained since: the same
    "rebuild" message as a changed digest, not ctypes' AttributeError (which came before the
    digest could be read)."""
    from dprank.base import _compiled

    class OldBuild:
        def __getattr__(self, name):
            if name == "pairs_new":
                raise AttributeError(f"undefined symbol: {name}")
            return type("Fn", (), {})()

    with pytest.raises(_compiled.NativeMissingError, match=r"lacks the function 'pairs_new'"):
        _compiled._bind(OldBuild(), "old/_native.abi3.so")


@pytest.mark.parametrize("n", [0, 1, 7, 300])
def test_row_starts_are_searchsorted_of_the_rows(n):
    """The rows of CSR form (``row_starts``, one pass) where numpy's binary searches put
    them: empty rows, items without pairs at either end, every pair in one row."""
    rng = np.random.default_rng(n)
    for m in (0, 1, 5 * n + 3):
        for dtype in (np.int32, np.int64):  # the reader's pairs, and those of records
            a = np.sort(rng.integers(0, max(n, 1), m)).astype(dtype)
            if n == 0:
                a = a[:0]
            expected = np.searchsorted(a, np.arange(n + 1, dtype=dtype)).astype(np.int64)
            np.testing.assert_array_equal(_compiled.row_starts(n, a), expected)
    sums = PairSums()  # the reader's pairs (int32): their rows by row_starts
    sums.add(np.array([0, 2]), np.array([3, 3]))
    ptr, b = SparseData(sums.result(None, 4)).rows()
    assert ptr.tolist() == [0, 1, 1, 2, 2] and b.tolist() == [3, 3]
