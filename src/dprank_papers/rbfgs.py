"""R's ``optim(method = "BFGS")`` (the C routine ``vmmin``), ported step for step.

The authors of Paper A fit the perturbed MLE with ``optim(theta_star, f, g,
method = "BFGS")`` started at the true scores (docs/papers/paper-a.md#s1-1).
R's BFGS stops on a relative change of the objective (``reltol``), so its
result sits 1e-4 to 1e-3 away from the exact minimiser; where the exact
estimates tie (equal win counts on a complete graph at epsilon = inf), that
residue decides the published top-k. :func:`vmmin` reproduces R's iterates:
the same inverse-Hessian update, the same backtracking line search
(``stepredn = 0.2``, ``acctol = 1e-4``, ``reltest = 10``), the same restarts
and stopping rules, with ``optim``'s defaults (``maxit = 100``,
``reltol = sqrt(.Machine$double.eps)``, ``abstol = -Inf``, no parameter or
function scaling).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from dprank.base import checks as _checks

__all__ = ["vmmin"]

_STEPREDN, _ACCTOL, _RELTEST = 0.2, 1e-4, 10.0


def vmmin(
    x0: np.ndarray,
    fn: Callable[[np.ndarray], float],
    gr: Callable[[np.ndarray], np.ndarray],
    maxit: int = 100,
    reltol: float = float(np.sqrt(np.finfo(float).eps)),
    abstol: float = -np.inf,
) -> tuple[np.ndarray, int]:
    """Minimise ``fn`` from ``x0`` exactly as R's ``optim(method = "BFGS")``.

    Parameters
    ----------
    x0 : (n,) array_like
        Start point.
    fn, gr : callable
        Objective and its gradient.
    maxit, reltol, abstol
        R's ``control`` settings (defaults as ``optim``).

    Returns
    -------
    x : (n,) numpy.ndarray
        The last accepted point (R's ``par``).
    n_iter : int
        R's iteration count (gradient evaluations).
    """
    b = _checked_start(x0, fn, gr, maxit, reltol, abstol)
    n = b.size
    f = float(fn(b))
    if not np.isfinite(f):
        raise ValueError("initial value in 'vmmin' is not finite")
    fmin = f
    g = np.asarray(gr(b), dtype=np.float64)
    n_iter = gradcount = ilast = 1
    inv_h = np.eye(n)
    while True:
        if ilast == gradcount:
            inv_h = np.eye(n)
        x, c = b.copy(), g.copy()
        t = -(inv_h @ g)
        gradproj = float(t @ g)
        if gradproj < 0:
            b, f, count, steplength = _line_search(fn, x, t, f, fmin, gradproj)
            if not (f > abstol and abs(f - fmin) > reltol * (abs(fmin) + reltol)):
                count, fmin = n, f
            if count < n:
                fmin = f
                g = np.asarray(gr(b), dtype=np.float64)
                gradcount += 1
                n_iter += 1
                t *= steplength
                c = g - c
                if not _bfgs_update(inv_h, t, c):
                    ilast = gradcount
            elif ilast < gradcount:
                count, ilast = 0, gradcount
        else:
            count = 0
            if ilast == gradcount:
                count = n
            else:
                ilast = gradcount
        if n_iter >= maxit:
            break
        if gradcount - ilast > 2 * n:
            ilast = gradcount
        if count == n and ilast == gradcount:
            break
    return b, n_iter


def _checked_start(x0, fn, gr, maxit, reltol, abstol) -> np.ndarray:
    """:func:`vmmin`'s arguments checked; the start point as a new float64 vector."""
    b = np.array(_checks.finite(x0, "x0"), dtype=np.float64)
    if b.ndim != 1 or b.size == 0:
        raise ValueError(f"x0 must be a non-empty vector, got shape {b.shape}")
    for name, f in (("fn", fn), ("gr", gr)):
        if not callable(f):
            raise TypeError(f"{name} must be callable, got {f!r}")
    _checks.count(maxit, "maxit")
    _checks.non_negative(reltol, "reltol")
    if math.isnan(_checks.real(abstol, "abstol")):
        raise ValueError("abstol must be a number (-inf: no absolute tolerance), got nan")
    return b


def _line_search(fn, x, t, f, fmin, gradproj):
    """R's backtracking from ``x`` along ``t``: steps 1, 0.2, 0.04, ... until the Armijo
    condition (``acctol``) holds or the step no longer moves any coordinate (``reltest``).

    Returns the last point ``b``, its objective ``f`` (the given ``f`` if none was
    evaluated), the number of coordinates that did not move and the step length.
    """
    n = x.size
    steplength, accpoint = 1.0, False
    while True:
        b = x + steplength * t
        count = int(np.count_nonzero(_RELTEST + x == _RELTEST + b))
        if count < n:
            f = float(fn(b))
            accpoint = bool(np.isfinite(f)) and f <= fmin + gradproj * steplength * _ACCTOL
            if not accpoint:
                steplength *= _STEPREDN
        if count == n or accpoint:
            return b, f, count, steplength


def _bfgs_update(inv_h: np.ndarray, t: np.ndarray, c: np.ndarray) -> bool:
    """R's BFGS update of the inverse Hessian ``inv_h`` in place, for the step ``t`` and the
    change ``c`` of the gradient; False (no update, R restarts) where ``t . c <= 0``."""
    d1 = float(t @ c)
    if d1 <= 0:
        return False
    hc = inv_h @ c
    d2 = 1.0 + float(hc @ c) / d1
    inv_h += (d2 * np.outer(t, t) - np.outer(hc, t) - np.outer(t, hc)) / d1
    return True
