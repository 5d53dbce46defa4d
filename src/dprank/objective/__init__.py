"""The penalised pairwise log-likelihood: value, gradient and Hessian, in one place.

Every estimator of the library minimises (a special case of) one objective
over scores ``theta in R^n``::

    f(theta) = sum_{i != j} wins[i, j] l(theta_i - theta_j)
               + (gamma / 2) ||theta||^2 + b^T theta,          l = -log F,

Paper A's penalised, perturbed MLE (docs/papers/paper-a.md#s1-1; Paper A,
eq. (2.2) and Algorithm 1, with ``b = w ~ Laplace(lambda)``; ``b = 0`` gives
the penalised MLE of Section 2.2). On aggregated pairs ``a < b`` with ``n_ab``
(weighted) comparisons and (weighted) outcomes ``w_ab`` for ``a`` it reads::

    f(theta) = sum_{a<b} [ w_ab l(d_ab) + (n_ab - w_ab) l(-d_ab) ]
               + (gamma / 2) ||theta||^2 + b^T theta,          d_ab = theta_a - theta_b,

which with ``w = S``, ``n = N`` is Paper B2's weighted likelihood, eq. (5)
(docs/papers/paper-b.md#s1-3) -- the ``b`` term serving its NoisyObj baseline.

Ridge convention
----------------
One convention: **the ridge is** ``(gamma / 2) ||theta||^2`` (Paper A), so the
gradient gains ``gamma theta`` and the Hessian ``gamma I``. Paper B2 writes
``lambda ||theta||^2``; its ``lambda`` enters through :func:`ridge_from_lambda`
(``gamma = 2 lambda``, exact in floating point) and :func:`lambda_from_ridge`.
The edge-DP ridge of Paper A (Proposition 2.2, Theorem 2.1) is
:func:`edge_ridge`.

Forms
-----
* Dense win matrix (``O(n^2)`` per evaluation): :class:`PairwiseData` and
  :class:`DenseObjective` (the objective of :func:`dprank.fit.mle.fit_penalized_mle`);
  batches of small problems: :func:`batch_value`, :func:`batch_derivatives`,
  :func:`batch_hessian`.
* Compared cells of a win matrix (``O(compared pairs)``, numpy, logistic link):
  :class:`PairObjective` (its code in the private :mod:`dprank.objective._pairs`),
  the objective of ``fit_penalized_mle(..., solver="pairs")``.
* Pair list (``O(pairs)``): :class:`SparseObjective` on a
  :class:`dprank.fit.sparse.SparseData`, whose logistic passes are compiled C loops
  (:mod:`dprank.base._compiled`, built with the package; reached only through
  :func:`kernels`, by this module and the solver's conjugate gradients).
* Pairs in ``numpy.triu_indices(m, 1)`` order (Paper B2's sufficient
  statistics): :class:`TriuObjective`, :func:`triu_scatter`, :func:`triu_laplacian`.
* Three outcomes (win, tie, loss) per pair: :class:`TiesObjective` with a
  :class:`TieModel`, Davidson's (1970) :data:`DAVIDSON` or Rao and Kupper's (1967)
  :data:`RAO_KUPPER`, which adds one tie parameter ``mu`` to ``theta`` (the solver:
  :mod:`dprank.fit.ties`).
* The same pairs answered by users with a per-user offset ``gamma_l`` added to
  every difference (the mixed-effects model of B2 supplement S.1.2, BTL link):
  :class:`UserEffectObjective`.

Moment equations: ``sum_j n_ij F(theta_i - theta_j) + gamma theta_i = y_i`` (the
interval estimate of :mod:`dprank.intervals`) is the gradient of the pair-list objective
with no outcomes for ``a`` (``w = 0``), ``b = sum_{pairs (a, i)} n - y`` and the loss
:func:`moment_link` (``l(x) = Lambda(-x)``, ``Lambda' = F``): for the logistic link this
is the likelihood's own loss, for the probit link its own convex potential.

The public functions :func:`objective_value`, :func:`objective_gradient` and
:func:`objective_hessian` evaluate the dense form on a win matrix, with their
arguments checked; the classes and helpers serve the solvers, which check theirs.

Each form keeps the floating-point operations, in their order, of the solver
it was taken from, so that the papers' results do not change by a bit; the
forms agree to rounding (``tests/test_objective.py``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..base import _checks
from ..data.models import BTL, THURSTONE, Link
from ._dense import (  # noqa: F401  (the dense forms, re-exported)
    DenseObjective,
    PairwiseData,
    batch_derivatives,
    batch_hessian,
    batch_value,
    objective_gradient,
    objective_hessian,
    objective_value,
)
from ._pairs import (  # noqa: F401  (the compared-cells form, re-exported)
    PairObjective,
    cached_cells,
    cells_of_pairs,
    cells_of_wins,
    compared_cells,
    compared_mask,
    pair_density,
)
from ._ties import DAVIDSON, RAO_KUPPER, TIE_MODELS, TieModel, TiesObjective, get_tie_model
from ._triu import (  # noqa: F401  (the triu forms, re-exported)
    TriuObjective,
    UserEffectObjective,
    triu_laplacian,
    triu_scatter,
)

__all__ = [
    "DAVIDSON",
    "RAO_KUPPER",
    "TIE_MODELS",
    "DenseObjective",
    "PairObjective",
    "PairwiseData",
    "SparseObjective",
    "TieModel",
    "TiesObjective",
    "TriuObjective",
    "UserEffectObjective",
    "edge_ridge",
    "get_tie_model",
    "lambda_from_ridge",
    "moment_link",
    "objective_gradient",
    "objective_hessian",
    "objective_value",
    "ridge_from_lambda",
]


# ---------------------------------------------------------------------------
# the ridge


def ridge_from_lambda(lam: float) -> float:
    """``gamma = 2 lambda``: Paper B2's ridge ``lambda ||theta||^2`` in this module's convention.

    Paper B2, eq. (5), penalises ``lambda ||theta||^2``; this module writes every
    ridge as ``(gamma / 2) ||theta||^2`` (Paper A, eq. (2.2)). Doubling is exact
    in floating point (short of overflow), so ``lambda_from_ridge(ridge_from_lambda(x)) == x``.

    Parameters
    ----------
    lam : float
        Paper B2's ``lambda`` (finite, ``>= 0``).

    Returns
    -------
    float
        ``2.0 * lam``.
    """
    return 2.0 * _checks.non_negative(lam, "lam")


def lambda_from_ridge(gamma: float) -> float:
    """``lambda = gamma / 2``: the inverse of :func:`ridge_from_lambda`.

    Parameters
    ----------
    gamma : float
        The ridge of ``(gamma / 2) ||theta||^2`` (finite, ``>= 0``).

    Returns
    -------
    float
        ``gamma / 2.0``.
    """
    return _checks.non_negative(gamma, "gamma") / 2.0


def edge_ridge(n, p: float = 1.0, c0: float = 2.0) -> float:
    """Paper A's edge-DP ridge ``gamma = c0 sqrt(n p log n)`` (Proposition 2.2, Theorem 2.1).

    The authors' code uses ``c0 = 2`` (docs/papers/paper-a.md#s1-1).

    Parameters
    ----------
    n : int
        Number of items (``>= 1``).
    p : float
        Comparison-graph density, in ``(0, 1]`` (probability that a pair is compared).
    c0 : float
        The absolute constant of Proposition 2.2 (positive, finite).

    Returns
    -------
    float
        ``c0 * math.sqrt(n * p * math.log(n))``.
    """
    _checks.count(n, "n", 1)
    _checks.probability(p, "p", low_open=True)
    _checks.positive_finite(c0, "c0")
    return c0 * math.sqrt(n * p * math.log(n))


# ---------------------------------------------------------------------------
# moment equations


@dataclass(frozen=True)
class _ProbitMoment(Link):
    """Loss ``l(x) = Lambda(-x)`` with ``Lambda(y) = y Phi(y) + phi(y)`` (``Lambda' = Phi``).

    ``l' = -Phi(-x)`` and ``l'' = phi(x)``: on a pair with no outcomes for ``a`` the
    pair-list objective's gradient is ``n Phi(d)`` for ``a`` and ``-n Phi(d)`` for ``b``,
    the probit moment equation's, and its Hessian weights ``n phi(d)``. Convex, so the
    shared Newton-CG (:func:`dprank.fit.sparse.sparse_newton`) minimises it.
    """

    def cdf(self, x):
        return THURSTONE.cdf(x)

    def loss(self, x):
        y = -np.asarray(x, dtype=np.float64)
        return y * THURSTONE.cdf(y) + np.exp(-0.5 * y * y) / math.sqrt(2.0 * math.pi)

    def loss_derivatives(self, x):
        x = np.asarray(x, dtype=np.float64)
        return -THURSTONE.cdf(-x), np.exp(-0.5 * x * x) / math.sqrt(2.0 * math.pi)


_PROBIT_MOMENT = _ProbitMoment(name="tm_moment", kappa1=THURSTONE.kappa1, kappa2=1.0)


def moment_link(link: Link) -> Link:
    """The loss whose pair-list objective with ``w = 0`` has the moment equation as gradient.

    ``sum_j n_ij F(theta_i - theta_j) + gamma theta_i - y_i`` is the gradient of
    :class:`SparseObjective` on the pairs with ``w = 0``, ridge ``gamma``,
    ``b = sum_{pairs (a, i)} n - y`` and the loss ``l(x) = Lambda(-x)`` with
    ``Lambda' = F``. For the logistic link that is its own loss
    (``log(1 + e^x) = -log F(-x)``), so :data:`dprank.data.models.BTL` itself is returned
    (and the compiled logistic loops serve it); for the probit link (Thurstone) it is
    ``Lambda(y) = y Phi(y) + phi(y)``, which is not the likelihood's loss (the moment
    equation is not the probit likelihood's score).

    Parameters
    ----------
    link : dprank.data.models.Link
        :data:`dprank.data.models.BTL` or :data:`dprank.data.models.THURSTONE`.

    Returns
    -------
    dprank.data.models.Link
    """
    _checks.link(link)
    if link.name == BTL.name:
        return BTL
    if link.name == THURSTONE.name:
        return _PROBIT_MOMENT
    raise ValueError(f"no moment loss for the link {link.name!r}")


# ---------------------------------------------------------------------------
# pair lists (the sparse solver)


def kernels():
    """The compiled loops (:mod:`dprank.base._compiled`, the package's C extension), loaded on first
    use.

    The library reaches them only through this module: the likelihood passes here,
    and the sparse solver's conjugate gradients (:mod:`dprank.fit.sparse`).
    """
    from ..base import _compiled

    return _compiled


def sparse_pair_value(data, theta) -> float:
    """``sum_k w_k l(d_k) + (n_k - w_k) l(-d_k)`` over the pairs of a ``SparseData``."""
    if data.btl:
        ptr, b = data.rows()
        return float(kernels().btl_value(theta, ptr, b, *data.counts()))
    d = theta[data.a] - theta[data.b]
    link = data.link
    return float(data.w @ link.loss(d) + (data.cnt - data.w) @ link.loss(-d))


def sparse_accumulate(data, theta, grad, diag, out=None):
    """Add the pairs' gradient to ``grad`` and Hessian diagonal to ``diag``.

    Returns the Laplacian's pair weights ``h`` (``d2f/dd2`` per pair); one
    compiled pass for the logistic link, which writes them into ``out`` where
    given (a float64 array of ``n_pairs``).
    """
    kern = kernels()
    ptr, b = data.rows()
    if data.btl:
        h = np.empty(data.n_pairs) if out is None else out
        kern.btl_pass(theta, ptr, b, *data.counts(), grad, diag, h)
        return h
    d = theta[data.a] - theta[data.b]
    d1p, d2p = data.link.loss_derivatives(d)
    d1m, d2m = data.link.loss_derivatives(-d)
    rest = data.cnt - data.w
    g = data.w * d1p - rest * d1m
    h = data.w * d2p + rest * d2m
    kern.scatter_pairs(ptr, b, g, h, grad, diag)
    return h


def sparse_accumulate_at_zero(data, grad, diag, out=None):
    """Logistic link at ``theta = 0``: as :func:`sparse_accumulate`, without exponentials.

    Every ``d = 0``, so ``F(d) = 1/2``: ``g = n / 2 - w``, ``h = n / 4`` and the
    value is ``log(2) sum(n)`` (a fit from zero skips one pass of exponentials
    and, when its first step is damped, the value pass). ``h`` goes into ``out``
    where given.
    """
    ptr, b = data.rows()
    h = np.empty(data.n_pairs) if out is None else out
    cnt, w = data.counts()  # float64, or int32 (whole numbers: the same sum)
    kernels().zero_pass(ptr, b, cnt, w, grad, diag, h)
    return h, math.log(2.0) * data.count_total()


def logistic_counts_pass(theta, ptr, partners, counts, work=None):
    """Logistic link, pairs in rows with counts and no wins: one compiled pass.

    Row ``i``'s pairs are ``ptr[i]:ptr[i + 1]`` (``ptr``: ``theta.size + 1`` int64
    entries), each with its partner (int32 index into ``theta``) and count. Returns
    ``(grad, diag)``: per entry of ``theta``, ``sum count F(theta_i - theta_partner)`` over
    its pairs as a row less the same sum over its pairs as a partner, and
    ``sum count f(theta_i - theta_partner)`` over both (``f = F (1 - F)``): the gradient and
    Hessian diagonal of the objective with no outcomes for the rows (``w = 0``), each sum in
    the pairs' order. ``work``: ``(zeros, h)``, two float64 arrays of one entry per pair
    (the pass's wins, all 0, and room for its pair weights) to reuse between passes.
    """
    size = theta.size
    grad = np.zeros(size)
    diag = np.zeros(size)
    zeros, h = (np.zeros(counts.size), np.empty(counts.size)) if work is None else work
    kernels().btl_pass(theta, ptr, partners, counts, zeros, grad, diag, h)
    return grad, diag


def sparse_laplacian_product(data, h, diag, x) -> np.ndarray:
    """``diag * x - U x - U^T x``: the Hessian ``L(h) + diag(diag - row sums)`` of the pairs of
    a ``SparseData`` (pair weights ``h`` in its order, ``diag`` the Hessian's diagonal,
    whatever is added to the Laplacian's included) times ``x``, by one compiled pass."""
    ptr, b = data.rows()
    out = np.empty(data.n)
    x = np.ascontiguousarray(x, dtype=np.float64)
    kernels().laplacian_mv(x, ptr, b, h, np.ascontiguousarray(diag, dtype=np.float64), out)
    return out


def sparse_laplacian_solve(data, h, diag, rhs, ones_eig: float, rtol: float, max_iter: int):
    """``H x = rhs`` for the Hessian ``H`` of :func:`sparse_laplacian_product` (``diag`` holding
    a ridge ``gamma > 0``: ``H 1 = gamma 1``) by the compiled preconditioned conjugate
    gradients of the sparse solver, from ``x = 0`` to a residual of ``rtol |rhs|``.

    ``ones_eig``: ``H``'s eigenvalue on the constant vector (the ridge ``gamma``), which
    the preconditioner (Jacobi on the constant vector's complement) uses. Returns
    ``(x, iterations, positive)``: positive False where a direction of non-positive
    curvature was met (``x`` is then not a solution); ``iterations == max_iter`` where the
    residual may not have been reached.
    """
    ptr, b = data.rows()
    rhs = np.ascontiguousarray(rhs, dtype=np.float64)
    diag = np.ascontiguousarray(diag, dtype=np.float64)
    return kernels().pcg(ptr, b, h, diag, rhs, 0.0, ones_eig, rtol, 0.0, max_iter)


class SparseObjective:
    """The pair-list objective (``f`` of the module docstring) on a ``SparseData``.

    Parameters
    ----------
    data : dprank.fit.sparse.SparseData
    gamma : float
        Ridge of ``(gamma / 2) ||theta||^2``.
    beta : (n,) array_like or None
        Linear term ``b``.
    sum_zero : bool
        Project the gradient on ``1^perp``.
    """

    def __init__(self, data, gamma: float, beta, sum_zero: bool):
        self.data = data
        self.n = data.n
        self.gamma = float(gamma)
        self.beta = np.zeros(self.n) if beta is None else np.asarray(beta, dtype=np.float64)
        self.sum_zero = sum_zero
        self.c = 1.0 if sum_zero else 0.0

    def _weights_out(self):
        """Where :meth:`evaluate` writes the pair weights ``h`` (None: a new array each time)."""
        return None

    def penalty(self, theta) -> float:
        """``(gamma / 2) ||theta||^2 + b^T theta``."""
        return 0.5 * self.gamma * float(theta @ theta) + float(self.beta @ theta)

    def value(self, theta):
        """Objective value."""
        return sparse_pair_value(self.data, theta) + self.penalty(theta)

    def evaluate(self, theta, at_zero: bool = False):
        """Gradient, (Hessian diagonal with the ridge, pair weights) and the value or None.

        The value is returned only with ``at_zero`` (``theta`` exactly 0, logistic
        link), where it costs nothing; else :meth:`value` computes it when needed.
        """
        grad = self.gamma * theta
        grad += self.beta
        diag = np.full(self.n, self.gamma)
        value = None
        out = self._weights_out()
        if at_zero:
            h, value = sparse_accumulate_at_zero(self.data, grad, diag, out)
            value += self.penalty(theta)
        else:
            h = sparse_accumulate(self.data, theta, grad, diag, out)
        if self.sum_zero:
            grad -= grad.mean()
        return grad, (diag, h), value
