"""Compiled per-pair loops of the sparse Newton-CG (:mod:`dprank.sparse`).

One pass over the aggregated pairs ``(a_k, b_k)`` of the objective of
:mod:`dprank.sparse` does, in a single loop, what numpy needs a dozen
array passes for: the difference ``d_k = theta[a_k] - theta[b_k]``, the
logistic loss and its first two derivatives, and their scatter into the
gradient and the Hessian's diagonal. The Hessian-vector product
``(D - U - U^T) x`` is one loop too. Both are memory-bound, so the indices
are int32 where ``n < 2^31``.

Compiled with numba on first use (``cache=True``: a later process loads the
machine code from ``__pycache__``); imported lazily by :mod:`dprank.sparse`
so that the library's import time does not include numba's. The loops are
serial and ``fastmath`` is off, so results do not depend on the machine's
thread count and follow IEEE arithmetic.
"""

from __future__ import annotations

import math

from numba import njit


@njit(cache=True, nogil=True)
def btl_pass(theta, a, b, cnt, w, grad, diag, h):  # pragma: no cover - compiled
    """Logistic link: accumulate the gradient and Hessian of one pass.

    For each pair, with ``F`` the logistic function and ``d = theta_a - theta_b``,
    adds ``g = n F(d) - w`` to ``grad[a]`` and ``-g`` to ``grad[b]`` (the gradient
    of ``n log(1 + e^d) - w d``), stores ``h_k = n F(d) (1 - F(d))`` and adds it to
    ``diag[a]`` and ``diag[b]``. The value is left to :func:`btl_value`: line
    searches on this convex objective rarely need it.
    """
    for k in range(a.size):
        ia = a[k]
        ib = b[k]
        d = theta[ia] - theta[ib]
        e = math.exp(-abs(d))
        inv = 1.0 / (1.0 + e)
        s = inv if d >= 0.0 else e * inv  # F(d), without a branch
        c = cnt[k]
        g = c * s - w[k]
        hk = c * (e * inv * inv)
        h[k] = hk
        grad[ia] += g
        grad[ib] -= g
        diag[ia] += hk
        diag[ib] += hk


@njit(cache=True, nogil=True)
def btl_value(theta, a, b, cnt, w):  # pragma: no cover - compiled
    """Logistic link: ``sum_k n_k log(1 + e^{d_k}) - w_k d_k`` (no derivatives)."""
    value = 0.0
    for k in range(a.size):
        d = theta[a[k]] - theta[b[k]]
        value += cnt[k] * (max(d, 0.0) + math.log1p(math.exp(-abs(d)))) - w[k] * d
    return value


@njit(cache=True, nogil=True)
def scatter_pairs(a, b, g, h, grad, diag):  # pragma: no cover - compiled
    """Add ``g_k`` to ``grad[a_k]``, ``-g_k`` to ``grad[b_k]`` and ``h_k`` to both diagonals."""
    for k in range(a.size):
        ia = a[k]
        ib = b[k]
        grad[ia] += g[k]
        grad[ib] -= g[k]
        diag[ia] += h[k]
        diag[ib] += h[k]


@njit(cache=True, nogil=True)
def laplacian_mv(x, a, b, h, diag, out):  # pragma: no cover - compiled
    """``out = diag * x - U x - U^T x`` with ``U[a_k, b_k] = h_k`` (pairs ``a < b``)."""
    for i in range(x.size):
        out[i] = diag[i] * x[i]
    for k in range(a.size):
        ia = a[k]
        ib = b[k]
        hk = h[k]
        out[ia] -= hk * x[ib]
        out[ib] -= hk * x[ia]
