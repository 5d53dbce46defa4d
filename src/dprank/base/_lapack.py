"""Cholesky factor and solve of small float64 systems, straight from LAPACK.

``scipy.linalg.cho_factor`` and ``cho_solve`` call LAPACK's ``dpotrf`` and ``dpotrs``
behind several layers of Python (batch dispatch, array-API conversion, dtype lookup)
that cost more than the factorisation itself when ``m`` is a few dozen: the Newton
fits of the small Paper B problems, the privacy audit's 40,000 NoisyObj fits at
``m = 5``. These helpers make the same two LAPACK calls with the same arguments
(lower triangle, ``clean=0``), so the results are bit-identical to scipy's.

The two routines are scipy's own (``scipy.linalg.lapack.dpotrf`` is the function of the
extension module ``scipy.linalg._flapack``), loaded on first use from that extension
alone (:func:`lapack`): importing the ``scipy.linalg`` package (its array-API layer,
``inspect``, ``typing``, ...) costs more than a small ``dprank rank --privacy none`` spends
on everything else; the extension loads in milliseconds. Where it cannot be
loaded on its own (another layout, a platform whose scipy needs its package to set up its
libraries), :func:`lapack` falls back to ``scipy.linalg.lapack``: the same functions.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import os
import sys

import numpy as np

#: scipy's LAPACK extension module (the functions ``scipy.linalg.lapack`` re-exports)
_FLAPACK = "scipy.linalg._flapack"
_loaded = None


def lapack():
    """scipy's LAPACK wrappers (``dpotrf``, ``dpotrs``, ...), loaded on first call.

    The extension module ``scipy.linalg._flapack`` on its own if it is not loaded yet
    (then ``sys.modules`` holds it, and a later ``import scipy.linalg`` uses that same
    module), else ``scipy.linalg.lapack``; either way the functions are scipy's.
    """
    global _loaded
    if _loaded is None:
        _loaded = sys.modules.get(_FLAPACK) or _load_extension() or _scipy_lapack()
    return _loaded


def _load_extension():
    """``scipy.linalg._flapack`` from its file, without importing scipy or scipy.linalg;
    ``None`` where that fails (the caller then imports ``scipy.linalg.lapack``)."""
    try:
        scipy_spec = importlib.util.find_spec("scipy")  # a top-level name: imports nothing
        if scipy_spec is None or not scipy_spec.submodule_search_locations:
            return None
        for folder in scipy_spec.submodule_search_locations:
            for suffix in importlib.machinery.EXTENSION_SUFFIXES:
                path = os.path.join(folder, "linalg", "_flapack" + suffix)
                if os.path.isfile(path):
                    spec = importlib.util.spec_from_file_location(_FLAPACK, path)
                    module = importlib.util.module_from_spec(spec)
                    spec.loader.exec_module(module)
                    return module if hasattr(module, "dpotrs") else None
    except (ImportError, OSError):
        return None
    return None


def _scipy_lapack():
    from scipy.linalg import lapack

    return lapack


def cholesky_factor(a: np.ndarray, overwrite_a: bool = False) -> np.ndarray:
    """Lower Cholesky factor of a symmetric positive definite float64 matrix.

    Same as ``scipy.linalg.cho_factor(a, lower=True, check_finite=False)[0]``
    (the strict upper triangle holds whatever ``a`` held there).

    Raises
    ------
    numpy.linalg.LinAlgError
        When ``a`` is not positive definite (``scipy.linalg.LinAlgError`` is this class).
    """
    c, info = lapack().dpotrf(a, lower=1, clean=0, overwrite_a=overwrite_a)
    if info > 0:
        raise np.linalg.LinAlgError(  # scipy.linalg.LinAlgError is numpy's
            f"{info}-th leading minor of the array is not positive definite"
        )
    if info < 0:
        raise ValueError(f"LAPACK reported an illegal value in argument {-info} of dpotrf")
    return c


def cholesky_solve(c: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Solve ``a x = b`` from the factor ``c`` of :func:`cholesky_factor`.

    Same as ``scipy.linalg.cho_solve((c, True), b, check_finite=False)``.
    """
    x, info = lapack().dpotrs(c, b, lower=1)
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
