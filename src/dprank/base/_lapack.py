"""Cholesky factor and solve of small float64 systems, straight from LAPACK.

``scipy.linalg.cho_factor`` and ``cho_solve`` call LAPACK's ``dpotrf`` and ``dpotrs``
behind several layers of Python (batch dispatch, array-API conversion, dtype lookup)
that cost more than the factorisation itself when ``m`` is a few dozen: the Newton
fits of the small Paper B problems, the privacy audit's 40,000 NoisyObj fits at
``m = 5``. These helpers make the same two LAPACK calls with the same arguments
(lower triangle, ``clean=0``), so the results are bit-identical to scipy's.
"""

from __future__ import annotations

import numpy as np

# scipy.linalg is imported on first use (as everywhere in dprank), so that importing a
# module that might fit something does not slow the start-up of jobs that never do.


def cholesky_factor(a: np.ndarray, overwrite_a: bool = False) -> np.ndarray:
    """Lower Cholesky factor of a symmetric positive definite float64 matrix.

    Same as ``scipy.linalg.cho_factor(a, lower=True, check_finite=False)[0]``
    (the strict upper triangle holds whatever ``a`` held there).

    Raises
    ------
    scipy.linalg.LinAlgError
        When ``a`` is not positive definite.
    """
    from scipy.linalg import LinAlgError
    from scipy.linalg.lapack import dpotrf

    c, info = dpotrf(a, lower=1, clean=0, overwrite_a=overwrite_a)
    if info > 0:
        raise LinAlgError(f"{info}-th leading minor of the array is not positive definite")
    if info < 0:
        raise ValueError(f"LAPACK reported an illegal value in argument {-info} of dpotrf")
    return c


def cholesky_solve(c: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Solve ``a x = b`` from the factor ``c`` of :func:`cholesky_factor`.

    Same as ``scipy.linalg.cho_solve((c, True), b, check_finite=False)``.
    """
    from scipy.linalg.lapack import dpotrs

    x, info = dpotrs(c, b, lower=1)
    if info != 0:
        raise ValueError(f"LAPACK reported an illegal value in argument {-info} of dpotrs")
    return x


def pcg(matvec, precond, rhs: np.ndarray, tol2: float, max_iter: int):
    """Preconditioned conjugate gradients for ``H x = rhs`` from ``x = 0``.

    ``matvec(p)`` is ``H p``, ``precond(r)`` the preconditioner applied to ``r``; stops
    once ``|r|^2 <= tol2``. Returns ``(x, iterations, converged)`` (at ``max_iter``
    without convergence the last iterate). The Newton solvers of :mod:`dprank.fit.mle`
    and :class:`dprank.objective.PairObjective` share it.
    """
    x = np.zeros(rhs.size)
    r = rhs.copy()
    z = precond(r)
    p = z.copy()
    rz = r @ z
    for it in range(1, max_iter + 1):
        hp = matvec(p)
        alpha = rz / (p @ hp)
        x += alpha * p
        r -= alpha * hp
        if r @ r <= tol2:
            return x, it, True
        z = precond(r)
        rz_new = r @ z
        p *= rz_new / rz
        p += z
        rz = rz_new
    return x, max_iter, False
