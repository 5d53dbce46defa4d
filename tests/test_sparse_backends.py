"""The sparse solver's two backends, C (ctypes) and numba, give the same bits."""

from __future__ import annotations

import shutil
import subprocess

import numpy as np
import pytest

from dprank import _sparse_c as csrc
from dprank import _sparse_kernels as nb
from dprank.comparisons import Comparisons
from dprank.models import THURSTONE
from dprank.sparse import SparseData, sparse_newton


@pytest.fixture(scope="module")
def c_lib():
    """The C library of the current source, built here where a compiler exists."""
    if not csrc.library_path().exists():
        if shutil.which("cc") is None:
            pytest.skip("no C compiler: the numba kernels are the only backend")
        try:
            csrc.build()
        except subprocess.CalledProcessError as exc:  # pragma: no cover - machine dependent
            pytest.skip(f"the C library does not build here: {exc.stderr}")
    csrc._TRIED = False
    if not csrc.available():
        pytest.skip("the C library is switched off (DPRANK_SPARSE_BACKEND=numba)")
    return csrc


def _rows(rng, n, m):
    i = rng.integers(0, n, m)
    j = (i + rng.integers(1, n, m)) % n
    comp = Comparisons(n_items=n, i=i, j=j, y=rng.random(m), count=rng.choice([1.0, 3.0], m))
    sd = SparseData(comp)
    ptr, b = sd.rows()
    return sd, ptr, b


@pytest.mark.parametrize("spread", [6.0, 650.0])
def test_passes_are_bit_identical(c_lib, spread):
    """btl_pass (both exponential branches), btl_value, zero_pass and scatter_pairs."""
    rng = np.random.default_rng(11)
    n = 60
    sd, ptr, b = _rows(rng, n, 900)
    theta = rng.uniform(-spread / 2, spread / 2, n)
    theta[:2] = -spread / 2, spread / 2
    out = {}
    for name, mod in (("c", c_lib), ("numba", nb)):
        grad, diag, h = np.linspace(-1, 1, n), np.full(n, 0.3), np.empty(sd.n_pairs)
        mod.btl_pass(theta, ptr, b, sd.cnt, sd.w, grad, diag, h)
        g0, d0, h0 = np.zeros(n), np.zeros(n), np.empty(sd.n_pairs)
        mod.zero_pass(ptr, b, sd.cnt, sd.w, g0, d0, h0)
        g1, d1 = np.zeros(n), np.zeros(n)
        mod.scatter_pairs(ptr, b, sd.w - 0.3 * sd.cnt, h, g1, d1)
        value = mod.btl_value(theta, ptr, b, sd.cnt, sd.w)
        out[name] = (grad, diag, h, g0, d0, h0, g1, d1, np.array([value]))
    for got, want in zip(out["c"], out["numba"], strict=True):
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("c", [0.0, 1.0])
def test_hessian_product_and_cg_are_bit_identical(c_lib, c):
    rng = np.random.default_rng(12)
    n = 80
    sd, ptr, b = _rows(rng, n, 1500)
    h = rng.random(sd.n_pairs)
    diag = np.full(n, 0.01)
    np.add.at(diag, sd.a, h)
    np.add.at(diag, sd.b, h)
    x = rng.normal(size=n)
    o1, o2 = np.empty(n), np.empty(n)
    c_lib.laplacian_mv(x, ptr, b, h, diag, o1)
    nb.laplacian_mv(x, ptr, b, h, diag, o2)
    np.testing.assert_array_equal(o1, o2)
    for rtol, atol, max_iter in ((1e-8, 0.0, 2000), (0.1, 0.0, 2000), (1e-12, 0.0, 3)):
        xc, itc, pc = c_lib.pcg(ptr, b, h, diag, x, c, 0.01 + c * n, rtol, atol, max_iter)
        xn, itn, pn = nb.pcg(ptr, b, h, diag, x, c, 0.01 + c * n, rtol, atol, max_iter)
        assert (itc, pc) == (itn, pn)
        np.testing.assert_array_equal(xc, xn)
    # a direction of non-positive curvature is reported by both
    neg = -np.abs(h)
    assert c_lib.pcg(ptr, b, neg, -diag, x, 0.0, 1.0, 1e-8, 0.0, 50)[2] is False
    assert nb.pcg(ptr, b, neg, -diag, x, 0.0, 1.0, 1e-8, 0.0, 50)[2] is False


def test_fits_are_bit_identical(c_lib, monkeypatch):
    """Whole sparse fits (BTL with ridge, sum-to-zero, Thurstone) agree bit for bit."""
    from dprank import objective

    rng = np.random.default_rng(13)
    n, m = 300, 6000
    a = rng.integers(0, n, m)
    b = (a + rng.integers(1, n, m)) % n
    comp = Comparisons.from_winner_loser(a, b, n_items=n)
    fits = {}
    for name, mod in (("c", c_lib), ("numba", nb)):
        monkeypatch.setattr(objective, "kernels", lambda mod=mod: mod)
        fits[name] = [
            sparse_newton(SparseData(comp), 2.0)["theta"],
            sparse_newton(SparseData(comp), 0.0, sum_zero=True)["theta"],
            sparse_newton(SparseData(comp, THURSTONE), 1.0)["theta"],
        ]
    for got, want in zip(fits["c"], fits["numba"], strict=True):
        np.testing.assert_array_equal(got, want)


def test_int64_partners_take_the_numba_kernels(c_lib):
    """Indices that are not int32 (beyond 2^31 items) go to the numba loops, same result."""
    rng = np.random.default_rng(14)
    n = 30
    sd, ptr, b = _rows(rng, n, 200)
    x = rng.normal(size=n)
    diag = np.full(n, 5.0)
    h = rng.random(sd.n_pairs)
    o1, o2 = np.empty(n), np.empty(n)
    c_lib.laplacian_mv(x, ptr, b.astype(np.int64), h, diag, o1)
    c_lib.laplacian_mv(x, ptr, b, h, diag, o2)
    np.testing.assert_array_equal(o1, o2)


def test_outputs_must_be_writeable_float64(c_lib):
    rng = np.random.default_rng(15)
    n = 10
    sd, ptr, b = _rows(rng, n, 50)
    with pytest.raises(TypeError, match="outputs must be writeable C-contiguous float64"):
        c_lib.laplacian_mv(np.ones(n), ptr, b, np.ones(sd.n_pairs), np.ones(n), np.empty(n, "f4"))


def test_switched_off_by_the_environment(monkeypatch):
    monkeypatch.setenv("DPRANK_SPARSE_BACKEND", "numba")
    monkeypatch.setattr(csrc, "_TRIED", False)
    monkeypatch.setattr(csrc, "_LIB", None)
    from dprank.objective import kernels

    assert not csrc.available()
    assert kernels() is nb
