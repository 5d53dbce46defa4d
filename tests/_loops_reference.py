"""The sparse solver's compiled loops, transcribed line by line in Python (the tests' reference).

``src/native/loops.c`` does these operations in this order, compiled without
fast-math and without contraction, so on the same input it must give the same
bits as these Python loops (Python's floats are IEEE doubles and ``math.exp``
and ``math.log1p`` are the C library's): ``tests/test_sparse_backends.py``
checks every loop and whole fits against them. Slow (pure Python): for small
problems only.
"""

from __future__ import annotations

import math

import numpy as np

# Largest score spread for which the node-wise exponentials of :func:`btl_pass`
# are exact to rounding: every ``e^{theta_i - max}`` stays a normal double
# (``e^-600`` is about 1e-261), so ``F(d) = u_a / (u_a + u_b)`` loses nothing.
NODE_EXP_SPREAD = 600.0


def btl_pass(theta, ptr, b, cnt, w, grad, diag, h):
    """Logistic link: accumulate the gradient and Hessian of one pass.

    For each pair, with ``F`` the logistic function and ``d = theta_a - theta_b``,
    adds ``g = n F(d) - w`` to ``grad[a]`` and ``-g`` to ``grad[b]`` (the gradient
    of ``n log(1 + e^d) - w d``), stores ``h_k = n F(d) (1 - F(d))`` and adds it to
    ``diag[a]`` and ``diag[b]``. The value is left to :func:`btl_value`: line
    searches on this convex objective rarely need it.

    The pairs are in rows (see :func:`laplacian_mv`): ``grad[a]`` and ``diag[a]``
    are carried in registers through row ``a``, and the ``b`` side reads and
    updates one interleaved record ``(u, grad, diag)`` per item (one cache line,
    not three). With ``a < b`` and the pairs sorted, every sum is taken in the
    order of the pairs, as a pair-by-pair loop would.

    The exponentials are taken once per item, not once per pair: with
    ``u_i = e^{theta_i - max theta}``, ``F(d) = u_a / (u_a + u_b)`` and
    ``1 - F(d) = u_b / (u_a + u_b)``, one division per pair. This holds to
    rounding while the spread of ``theta`` is at most :data:`NODE_EXP_SPREAD`;
    beyond it each pair takes its own ``exp(-|d|)``.
    """
    n = theta.size
    hi = -np.inf
    lo = np.inf
    for i in range(n):
        hi = max(hi, theta[i])
        lo = min(lo, theta[i])
    node = np.empty((n, 3))
    for i in range(n):
        node[i, 1] = grad[i]
        node[i, 2] = diag[i]
    if n and hi - lo <= NODE_EXP_SPREAD:
        for i in range(n):
            node[i, 0] = math.exp(theta[i] - hi)
        for i in range(n):
            ua = node[i, 0]
            gi = node[i, 1]
            di = node[i, 2]
            for k in range(ptr[i], ptr[i + 1]):
                ib = b[k]
                ub = node[ib, 0]
                inv = 1.0 / (ua + ub)
                s = ua * inv  # F(d)
                c = cnt[k]
                g = c * s - w[k]
                hk = c * (s * (ub * inv))
                h[k] = hk
                gi += g
                node[ib, 1] -= g
                di += hk
                node[ib, 2] += hk
            node[i, 1] = gi
            node[i, 2] = di
    else:
        for i in range(n):
            node[i, 0] = theta[i]
        for i in range(n):
            ta = node[i, 0]
            gi = node[i, 1]
            di = node[i, 2]
            for k in range(ptr[i], ptr[i + 1]):
                ib = b[k]
                d = ta - node[ib, 0]
                e = math.exp(-abs(d))
                inv = 1.0 / (1.0 + e)
                s = inv if d >= 0.0 else e * inv  # F(d), without a branch
                c = cnt[k]
                g = c * s - w[k]
                hk = c * (e * inv * inv)
                h[k] = hk
                gi += g
                node[ib, 1] -= g
                di += hk
                node[ib, 2] += hk
            node[i, 1] = gi
            node[i, 2] = di
    for i in range(n):
        grad[i] = node[i, 1]
        diag[i] = node[i, 2]


def btl_value(theta, ptr, b, cnt, w):
    """Logistic link: ``sum_k n_k log(1 + e^{d_k}) - w_k d_k`` (no derivatives)."""
    value = 0.0
    for i in range(theta.size):
        ta = theta[i]
        for k in range(ptr[i], ptr[i + 1]):
            d = ta - theta[b[k]]
            value += cnt[k] * (max(d, 0.0) + math.log1p(math.exp(-abs(d)))) - w[k] * d
    return value


def scatter_pairs(ptr, b, g, h, grad, diag):
    """Add ``g_k`` to ``grad[a_k]``, ``-g_k`` to ``grad[b_k]`` and ``h_k`` to both diagonals."""
    for i in range(ptr.size - 1):
        gi = grad[i]
        di = diag[i]
        for k in range(ptr[i], ptr[i + 1]):
            ib = b[k]
            gi += g[k]
            grad[ib] -= g[k]
            di += h[k]
            diag[ib] += h[k]
        grad[i] = gi
        diag[i] = di


def zero_pass(ptr, b, cnt, w, grad, diag, h):
    """Logistic link at ``theta = 0``: :func:`scatter_pairs` of ``g = n / 2 - w``, ``h = n / 4``.

    Every ``F(0) = 1/2``: no exponentials, and no per-pair arrays besides ``h``.
    """
    for i in range(ptr.size - 1):
        gi = grad[i]
        di = diag[i]
        for k in range(ptr[i], ptr[i + 1]):
            ib = b[k]
            c = cnt[k]
            g = 0.5 * c - w[k]
            hk = 0.25 * c
            h[k] = hk
            gi += g
            grad[ib] -= g
            di += hk
            diag[ib] += hk
        grad[i] = gi
        diag[i] = di


def laplacian_mv(x, ptr, b, h, diag, out):
    """``out = diag * x - U x - U^T x`` with ``U[a_k, b_k] = h_k``.

    The pairs are given in rows, as a sparse matrix in CSR form: those of item
    ``a`` are ``k = ptr[a], ..., ptr[a + 1] - 1``, with partners ``b[k]`` (no
    ``a`` array: 12 bytes read per pair). ``out[a]`` and ``x[a]`` stay in
    registers through the row; the partners' ``x`` and ``out`` are interleaved
    (one cache line per partner). Pairs sorted with ``a < b`` give every sum
    in the order of the pairs. No pair may join an item with itself.
    """
    n = x.size
    xo = np.empty((n, 2))
    for i in range(n):
        xo[i, 0] = x[i]
        xo[i, 1] = diag[i] * x[i]
    for i in range(n):
        xi = xo[i, 0]
        oi = xo[i, 1]
        for k in range(ptr[i], ptr[i + 1]):
            ib = b[k]
            hk = h[k]
            oi -= hk * xo[ib, 0]
            xo[ib, 1] -= hk * xi
        xo[i, 1] = oi
    for i in range(n):
        out[i] = xo[i, 1]


def _precondition(r, inv_diag, ones_eig, z):
    """Jacobi on the complement of the all-ones vector, exact on it: ``z = M^-1 r``."""
    n = r.size
    mean = 0.0
    for i in range(n):
        mean += r[i]
    mean /= n
    zmean = 0.0
    for i in range(n):
        z[i] = inv_diag[i] * (r[i] - mean)
        zmean += z[i]
    zmean /= n
    shift = mean / ones_eig - zmean
    for i in range(n):
        z[i] += shift


def pcg(ptr, b, h, diag, rhs, c, ones_eig, rtol, atol_update, max_iter):
    """Preconditioned CG for ``(D - U - U^T + c 11^T) x = rhs`` (see :func:`laplacian_mv`).

    Stops when ``||r|| <= rtol ||rhs||`` or once an update changes ``x`` by at
    most ``atol_update`` in max-norm. Returns ``(x, iterations, positive)``;
    ``positive`` is False when a direction of non-positive curvature was met.
    """
    n = rhs.size
    inv_diag = np.empty(n)
    for i in range(n):
        inv_diag[i] = 1.0 / diag[i] if diag[i] > 0.0 else 1.0
    x = np.zeros(n)
    r = rhs.copy()
    z = np.empty(n)
    hp = np.empty(n)
    _precondition(r, inv_diag, ones_eig, z)
    p = z.copy()
    rz = 0.0
    rr = 0.0
    for i in range(n):
        rz += r[i] * z[i]
        rr += r[i] * r[i]
    tol2 = rtol * rtol * rr
    it = 0
    for it in range(1, max_iter + 1):
        laplacian_mv(p, ptr, b, h, diag, hp)
        if c != 0.0:
            total = 0.0
            for i in range(n):
                total += p[i]
            for i in range(n):
                hp[i] += c * total
        curv = 0.0
        for i in range(n):
            curv += p[i] * hp[i]
        if not curv > 0.0:
            return x, it, False
        alpha = rz / curv
        rr = 0.0
        pmax = 0.0
        for i in range(n):
            x[i] += alpha * p[i]
            r[i] -= alpha * hp[i]
            rr += r[i] * r[i]
            pmax = max(pmax, abs(p[i]))
        if rr <= tol2 or abs(alpha) * pmax <= atol_update:
            break
        _precondition(r, inv_diag, ones_eig, z)
        rz_new = 0.0
        for i in range(n):
            rz_new += r[i] * z[i]
        beta = rz_new / rz
        for i in range(n):
            p[i] = z[i] + beta * p[i]
        rz = rz_new
    return x, it, True


def logistic_totals(rows, start, opponent, count, at, nodes, ref):
    """``(rows, nodes)``: each item's win total at each node under the logistic link.

    ``mu[r, j] = sum_p count[p] F(nodes[j] - at[opponent[p]])`` over item ``rows[r]``'s
    pairs ``p = start[i], ..., start[i + 1] - 1``, in their order, with
    ``F(x - a) = 1 / (1 + e^{a - ref} e^{ref - x})``: one exponential per item and one
    per node (the censored items' likelihood of ``dprank.intervals``). Two nodes at a
    time in a vector (GCC, Clang) do each node's operations in this order.
    """
    ea = [math.exp(float(a) - ref) for a in at]
    eb = [math.exp(ref - float(x)) for x in nodes]
    mu = np.empty((len(rows), len(nodes)))
    for r, i in enumerate(rows):
        row = [0.0] * len(nodes)
        for p in range(start[i], start[i + 1]):
            a, c = ea[opponent[p]], float(count[p])
            for j, e in enumerate(eb):
                row[j] += c * (1.0 / (1.0 + a * e))
        mu[r] = row
    return mu
