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
  :class:`DenseObjective` (the objective of :func:`dprank.mle.fit_penalized_mle`);
  batches of small problems: :func:`batch_value`, :func:`batch_derivatives`,
  :func:`batch_hessian`.
* Compared cells of a win matrix (``O(compared pairs)``, numpy, logistic link):
  :class:`PairObjective` (its code in the private :mod:`dprank._objective_pairs`),
  the objective of ``fit_penalized_mle(..., solver="pairs")``.
* Pair list (``O(pairs)``): :class:`SparseObjective` on a
  :class:`dprank.sparse.SparseData`, whose logistic passes are compiled C loops
  (:mod:`dprank._compiled`, built with the package; reached only through
  :func:`kernels`, by this module and the solver's conjugate gradients).
* Pairs in ``numpy.triu_indices(m, 1)`` order (Paper B2's sufficient
  statistics): :class:`TriuObjective`, :func:`triu_scatter`, :func:`triu_laplacian`.
* Three outcomes (win, tie, loss) per pair: :class:`TiesObjective` with a
  :class:`TieModel`, Davidson's (1970) :data:`DAVIDSON` or Rao and Kupper's (1967)
  :data:`RAO_KUPPER`, which adds one tie parameter ``mu`` to ``theta`` (the solver:
  :mod:`dprank.ties`).
* The same pairs answered by users with a per-user offset ``gamma_l`` added to
  every difference (the mixed-effects model of B2 supplement S.1.2, BTL link):
  :class:`UserEffectObjective`.

The public functions :func:`objective_value`, :func:`objective_gradient` and
:func:`objective_hessian` evaluate the dense form on a win matrix, with their
arguments checked; the classes and helpers serve the solvers, which check theirs.

Each form keeps the floating-point operations, in their order, of the solver
it was taken from, so that the papers' results do not change by a bit; the
forms agree to rounding (``tests/test_objective.py``).
"""

from __future__ import annotations

import math

import numpy as np

from . import _checks
from ._objective_pairs import (  # noqa: F401  (the compared-cells form, re-exported)
    PairObjective,
    cached_cells,
    cells_of_pairs,
    cells_of_wins,
    compared_cells,
    compared_mask,
    pair_density,
)
from .models import BTL, Link

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
# dense win matrices


class PairwiseData:
    """Sufficient statistics of one comparison data set, reusable across fits.

    Parameters
    ----------
    wins : (n, n) array_like
        ``wins[i, j]`` = number of comparisons ``i`` won against ``j``.
    link : Link
        Comparison model.
    """

    def __init__(self, wins, link: Link = BTL):
        w = np.asarray(_checks.win_matrix(wins), dtype=np.float64)
        _checks.link(link)
        self.n = w.shape[0]
        self.wins = w
        self.counts = w + w.T
        off_diag = ~np.eye(self.n, dtype=bool)
        self.complete = bool(np.all(self.counts[off_diag] == 1.0))
        self.row_wins = w.sum(axis=1)
        self.link = link


class DenseObjective:
    """Objective (2.2) on one win matrix: value, gradient, Hessian weights.

    ``f(theta) = sum_{i != j} wins[i, j] l(theta_i - theta_j) + (gamma / 2) ||theta||^2
    + b^T theta`` (Paper A, eq. (2.2)); its Hessian is ``L(V) + gamma I`` with
    ``L(V)`` the Laplacian of the symmetric weights of :meth:`gradient_and_weights`.

    Parameters
    ----------
    data : PairwiseData
    gamma : float
        Ridge (``>= 0``; ``0`` only with ``sum_zero``).
    b : (n,) array_like or None
        Linear perturbation.
    sum_zero : bool
        Project the gradient on ``1^perp`` (the constraint ``sum(theta) = 0``).
    """

    def __init__(self, data: PairwiseData, gamma, b, sum_zero):
        self.data = data
        self.n = data.n
        self.wins, self.counts, self.complete = data.wins, data.counts, data.complete
        self.row_wins, self.link = data.row_wins, data.link
        self.gamma, self.b = _checks.ridge_and_perturbation(gamma, b, self.n, sum_zero)
        self.sum_zero = sum_zero
        self.btl = self.link is BTL
        # weight of the 1 1^T term that makes the constrained Hessian invertible
        self.ones_weight = 1.0 if sum_zero else 0.0

    def _btl_probs(self, theta):
        a = np.exp(theta - theta.max())
        # every a_i + a_j > 0 (diagonal included) exactly when every a_i > 0 (a >= 0);
        # fails on exp underflow (scores spread over > 700) or NaN
        if not np.all(a > 0):
            return None, None
        denom = np.add.outer(a, a)
        return np.divide(a[:, None], denom, out=denom), a

    def value(self, theta):
        """Objective value (the loss plus ridge plus linear perturbation)."""
        val = None
        if self.btl:
            # -log P(i beats j) = log(a_i + a_j) - log(a_i), log(a) = theta - max(theta)
            shifted = theta - theta.max()
            a = np.exp(shifted)
            # log(a_i + a_j), a_i <= 1, is finite for every i, j exactly when every a_i > 0
            if np.all(a > 0):
                log_denom = np.log(np.add.outer(a, a))
                if self.complete:
                    pair_sum = 0.5 * (log_denom.sum() - np.trace(log_denom))
                else:
                    pair_sum = 0.5 * float(np.sum(self.counts * log_denom))
                val = float(pair_sum - self.row_wins @ shifted)
        if val is None:
            d = np.subtract.outer(theta, theta)
            val = float(np.sum(self.wins * self.link.loss(d)))
        return val + 0.5 * self.gamma * float(theta @ theta) + float(self.b @ theta)

    def gradient_and_weights(self, theta):
        """Gradient and the symmetric Hessian weights ``V`` (``H = L(V) + gamma I``)."""
        s = None
        if self.btl:
            s, _ = self._btl_probs(theta)
        if s is not None:
            ns = s if self.complete else np.multiply(self.counts, s)
            grad = ns.sum(axis=1)
            if self.complete:
                grad -= 0.5  # the diagonal holds a/(2a) = 1/2 and has no comparisons
            grad -= self.row_wins
            v = np.subtract(1.0, s)
            v *= ns
            if self.complete:
                np.fill_diagonal(v, 0.0)
        else:
            d = np.subtract.outer(theta, theta)
            d1, d2 = self.link.loss_derivatives(d)
            g = self.wins * d1
            grad = g.sum(axis=1) - g.sum(axis=0)
            c = self.wins * d2
            v = c + c.T
        grad += self.gamma * theta
        grad += self.b
        if self.sum_zero:
            grad -= grad.mean()
        return grad, v

    def hessian(self, v):
        """The Hessian ``L(V) + gamma I`` (plus ``11^T`` under ``sum_zero``) as a dense matrix."""
        hess = np.negative(v)
        hess[np.diag_indices(self.n)] = v.sum(axis=1) + self.gamma
        if self.ones_weight:
            hess += self.ones_weight
        return hess


def _dense(theta, wins, gamma, b, link) -> tuple[DenseObjective, np.ndarray]:
    if np.ndim(wins) < 2 or np.shape(wins)[-1] == 0:
        raise ValueError(f"wins must be an (n, n) matrix with n >= 1, got shape {np.shape(wins)}")
    obj = DenseObjective(PairwiseData(wins, link), gamma, b, sum_zero=gamma == 0)
    theta = np.asarray(_checks.finite(theta, "theta"), dtype=np.float64)
    if theta.shape != (obj.n,):
        raise ValueError(f"theta must have shape ({obj.n},), got {theta.shape}")
    return obj, theta


def objective_value(theta, wins, gamma: float, b=None, link: Link = BTL) -> float:
    """Value of objective (2.2) at ``theta`` (Paper A, Algorithm 1).

    Parameters
    ----------
    theta : (n,) array_like
        Scores.
    wins : (n, n) array_like
        ``wins[i, j]`` = number of comparisons ``i`` won against ``j``.
    gamma : float
        Ridge of ``(gamma / 2) ||theta||^2`` (``>= 0``).
    b : (n,) array_like, optional
        Linear perturbation (``None``: zero).
    link : Link
        Comparison model.

    Returns
    -------
    float
    """
    obj, theta = _dense(theta, wins, gamma, b, link)
    return obj.value(theta)


def objective_gradient(theta, wins, gamma: float, b=None, link: Link = BTL) -> np.ndarray:
    """Gradient of objective (2.2).

    ``sum_j (wins_ij l'(d_ij) - wins_ji l'(d_ji)) + gamma theta + b``.

    Parameters are those of :func:`objective_value`; with ``gamma = 0`` the
    gradient is projected on ``1^perp`` (the objective is translation invariant).

    Returns
    -------
    (n,) numpy.ndarray
    """
    obj, theta = _dense(theta, wins, gamma, b, link)
    return obj.gradient_and_weights(theta)[0]


def objective_hessian(theta, wins, gamma: float, link: Link = BTL) -> np.ndarray:
    """Hessian of objective (2.2): ``L(V) + gamma I``.

    ``L(V)`` is the Laplacian of ``V_ij = wins_ij l''(d_ij) + wins_ji l''(d_ji)``.

    Parameters are those of :func:`objective_value` (the Hessian does not depend
    on ``b``); with ``gamma = 0`` it gains ``11^T`` (the constrained problem's).

    Returns
    -------
    (n, n) numpy.ndarray
    """
    obj, theta = _dense(theta, wins, gamma, None, link)
    return obj.hessian(obj.gradient_and_weights(theta)[1])


# ---------------------------------------------------------------------------
# batches of small dense problems (Paper A's individual-DP and audit fits)


def batch_value(link: Link, wins, theta, gamma, b):
    """Objective (2.2) of ``R`` problems: ``wins (R, n, n)``, ``theta, b (R, n)``, ``gamma (R,)``.

    Returns
    -------
    (R,) numpy.ndarray
    """
    d = theta[:, :, None] - theta[:, None, :]
    return (
        np.einsum("rij,rij->r", wins, link.loss(d))
        + 0.5 * gamma * np.einsum("ri,ri->r", theta, theta)
        + np.einsum("ri,ri->r", b, theta)
    )


def batch_derivatives(link: Link, wins, theta):
    """The loss's gradient and Hessian weights for ``R`` problems (no ridge, no ``b``).

    Parameters
    ----------
    link : Link
    wins : (R, n, n) or (n, n) numpy.ndarray
    theta : (R, n) numpy.ndarray

    Returns
    -------
    grad : (R, n) numpy.ndarray
        ``sum_j wins_ij l'(d_ij) - sum_j wins_ji l'(d_ji)``; add ``gamma theta + b``.
    v : (R, n, n) numpy.ndarray
        Symmetric Hessian weights ``wins_ij l''(d_ij) + wins_ji l''(d_ji)``
        (the loss's Hessian is their Laplacian, :func:`batch_hessian`).
    """
    d = theta[:, :, None] - theta[:, None, :]
    d1, d2 = link.loss_derivatives(d)
    g = wins * d1
    grad = g.sum(axis=2) - g.sum(axis=1)
    c = wins * d2
    return grad, c + np.swapaxes(c, 1, 2)


def batch_hessian(v, gamma):
    """Hessians ``L(v_r) + gamma_r I`` of :func:`batch_derivatives`' weights ``v (R, n, n)``.

    ``gamma`` is a float or an ``(R, 1)`` array.
    """
    hess = -v
    idx = np.arange(v.shape[1])
    hess[:, idx, idx] += v.sum(axis=2) + gamma
    return hess


# ---------------------------------------------------------------------------
# pair lists (the sparse solver)


def kernels():
    """The compiled loops (:mod:`dprank._compiled`, the package's C extension), loaded on first use.

    The library reaches them only through this module: the likelihood passes here,
    and the sparse solver's conjugate gradients (:mod:`dprank.sparse`).
    """
    from . import _compiled

    return _compiled


def sparse_pair_value(data, theta) -> float:
    """``sum_k w_k l(d_k) + (n_k - w_k) l(-d_k)`` over the pairs of a ``SparseData``."""
    if data.btl:
        ptr, b = data.rows()
        return float(kernels().btl_value(theta, ptr, b, data.cnt, data.w))
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
        kern.btl_pass(theta, ptr, b, data.cnt, data.w, grad, diag, h)
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
    kernels().zero_pass(ptr, b, data.cnt, data.w, grad, diag, h)
    return h, math.log(2.0) * float(data.cnt.sum())


class SparseObjective:
    """The pair-list objective (``f`` of the module docstring) on a ``SparseData``.

    Parameters
    ----------
    data : dprank.sparse.SparseData
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


# ---------------------------------------------------------------------------
# pairs in triu order (Paper B2's sufficient statistics)


def triu_scatter(iu, ju, g_pair, m: int):
    """``sum_{pairs (i, j)} g_ij (e_i - e_j)``: per-pair derivatives onto the items."""
    return np.bincount(iu, g_pair, m) - np.bincount(ju, g_pair, m)


def triu_laplacian(iu, ju, h, m: int, shift=None):
    """``sum_{i<j} h_ij (e_i - e_j)(e_i - e_j)^T`` (plus ``shift I``) as an ``(m, m)`` matrix."""
    H = np.zeros((m, m))
    H[iu, ju] = -h
    H[ju, iu] = -h
    diag = np.bincount(iu, h, m) + np.bincount(ju, h, m)
    if shift is not None:
        diag += shift
    H[np.diag_indices(m)] = diag
    return H


class TriuObjective:
    """Paper B2's objective (5) on per-pair statistics ``S, N`` in ``triu_indices(m, 1)`` order.

    ``f(theta) = sum_{i<j} [S_ij l(d_ij) + (N_ij - S_ij) l(-d_ij)]
    + (gamma / 2) ||theta||^2 + b^T theta`` with ``gamma = 2 lambda``
    (:func:`ridge_from_lambda`). The arguments are checked by the caller.

    Parameters
    ----------
    S, N : (P,) numpy.ndarray
    m : int
    gamma : float
    link : Link
    b : (m,) numpy.ndarray
    """

    def __init__(self, S, N, m, gamma, link, b):
        self.S, self.N, self.m = S, N, m
        self.gamma = gamma
        self.link = link
        self.btl = link is BTL
        self.b = b
        self.iu, self.ju = np.triu_indices(self.m, k=1)
        self.NmS = self.N - self.S

    def _d(self, theta):
        return theta[self.iu] - theta[self.ju]

    def value(self, theta) -> float:
        """Objective value (the ridge as ``((gamma / 2) theta) . theta``)."""
        d = self._d(theta)
        if self.btl:
            pair = self.N @ np.logaddexp(0.0, d) - self.S @ d
        else:
            pair = self.S @ self.link.loss(d) + self.NmS @ self.link.loss(-d)
        return float(pair + 0.5 * self.gamma * theta @ theta + self.b @ theta)

    def pair_derivatives(self, theta):
        """``(df/dd, d2f/dd2)`` per pair."""
        d = self._d(theta)
        if self.btl:
            f = 1.0 / (1.0 + np.exp(-d))
            return self.N * f - self.S, self.N * f * (1.0 - f)
        d1p, d2p = self.link.loss_derivatives(d)
        d1m, d2m = self.link.loss_derivatives(-d)
        return self.S * d1p - self.NmS * d1m, self.S * d2p + self.NmS * d2m

    def gradient(self, theta):
        """Gradient."""
        g_pair, _ = self.pair_derivatives(theta)
        return triu_scatter(self.iu, self.ju, g_pair, self.m) + self.gamma * theta + self.b

    def laplacian(self, h):
        """``sum_{i<j} h_ij (e_i - e_j)(e_i - e_j)^T``."""
        return triu_laplacian(self.iu, self.ju, h, self.m)

    def grad_hess(self, theta):
        """Gradient and Hessian."""
        g_pair, h = self.pair_derivatives(theta)
        grad = triu_scatter(self.iu, self.ju, g_pair, self.m) + self.gamma * theta + self.b
        return grad, triu_laplacian(self.iu, self.ju, h, self.m, self.gamma)


class UserEffectObjective:
    """The BTL likelihood with a user effect: B2 supplement S.1.2's step-1 objective ``Q``.

    User ``l`` answers pair ``p = (i, j)`` (``numpy.triu_indices(m, 1)`` order) with
    ``y_lp = 1`` ("``i`` preferred") when observed (``a_lp = 1``), and::

        Q(theta, gamma) = sum_l sum_p a_lp { log(1 + exp(eta_lp)) - y_lp eta_lp }
                          + (gamma_theta / 2) ||theta||^2 + (gamma_users / 2) ||gamma||^2,
        eta_lp = gamma_l + theta_i - theta_j,

    the loss of :class:`TriuObjective` (BTL) per answer, with each user's offset
    ``gamma_l`` inside the logistic. The ridges are in this module's convention
    (:func:`ridge_from_lambda` turns B2's ``lam ||theta||^2`` into ``gamma_theta``).
    The arguments are checked by the caller (:mod:`dprank.mixed_effects`).

    Parameters
    ----------
    y1 : (L, P) numpy.ndarray of bool
        The answers.
    af : (L, P) numpy.ndarray of float64 or None
        The observation mask ``a`` as 0.0/1.0; ``None``: every pair observed
        (masking by 1.0 changes no bit, so it is skipped).
    m : int
        Number of items.
    gamma_theta, gamma_users : float
        Ridges on the item scores and on the user effects.
    """

    def __init__(self, y1, af, m: int, gamma_theta: float, gamma_users: float):
        self.y1 = y1
        self.yf = y1.astype(np.float64)
        self.af = af
        self.m = m
        self.gamma_theta, self.gamma_users = gamma_theta, gamma_users
        self.iu, self.ju = np.triu_indices(m, 1)
        self._last_eta = None

    def _mask(self, x):
        return x if self.af is None else x * self.af

    def eta(self, theta, gamma):
        """``gamma_l + theta_i - theta_j``; the fit asks for the same point twice in a row
        (the value at an accepted step, then the derivatives there), so the last is kept."""
        last = self._last_eta
        if last is not None and last[0] is theta and last[1] is gamma:
            return last[2]
        eta = gamma[:, None] + (theta[self.iu] - theta[self.ju])[None, :]
        self._last_eta = (theta, gamma, eta)
        return eta

    def value(self, theta, gamma) -> float:
        """``Q(theta, gamma)``."""
        eta = self.eta(theta, gamma)
        loss = np.logaddexp(0.0, eta) - self.yf * eta
        return float(
            np.sum(self._mask(loss))
            + 0.5 * self.gamma_theta * theta @ theta
            + 0.5 * self.gamma_users * gamma @ gamma
        )

    def derivatives(self, theta, gamma):
        """Gradient ``(dQ/dtheta, dQ/dgamma)`` and Hessian weights ``w = a F (1 - F)``."""
        from scipy.special import expit

        eta = self.eta(theta, gamma)
        F, Fm = expit(eta), expit(-eta)  # F(eta) and 1 - F(eta), both without cancellation
        r = self._mask(np.where(self.y1, -Fm, F))  # a (F(eta) - y)
        g_theta = triu_scatter(self.iu, self.ju, r.sum(axis=0), self.m) + self.gamma_theta * theta
        g_gamma = r.sum(axis=1) + self.gamma_users * gamma
        return g_theta, g_gamma, self._mask(F * Fm)


# ---------------------------------------------------------------------------
# three outcomes: ties models (Davidson 1970, Rao and Kupper 1967)


class TieModel:
    """A model of three outcomes (``a`` wins, a tie, ``b`` wins) of one comparison.

    The probabilities depend on the score difference ``d = theta_a - theta_b`` and one
    tie parameter ``mu`` shared by all pairs. On a pair with ``W`` wins of ``a``, ``L``
    wins of ``b`` and ``T`` ties the loss is ``-W log P(a) - L log P(b) - T log P(tie)``;
    :meth:`pair_terms` gives it with its derivatives in ``(d, mu)``.

    The two models (:data:`DAVIDSON`, :data:`RAO_KUPPER`) are convex in
    ``(theta, mu)`` for non-negative counts; Davidson's stays convex for any real
    ``W, L, T`` with ``W + L + T >= 0`` (its loss is ``n`` times a log-partition
    function minus a linear term), which the debiased counts of a local-DP release
    need.
    """

    name = ""
    #: the value of ``mu`` where a fit starts (no ties: the limit ``mu -> -inf``)
    mu_start = 0.0

    def probabilities(self, d, mu):
        """``(P(a wins), P(tie), P(b wins))`` at differences ``d`` (array) and ``mu``."""
        raise NotImplementedError

    def pair_terms(self, d, mu: float, W, L, T, derivatives: bool = True):
        """Loss per pair and, with ``derivatives``, ``(g_d, g_mu, h_dd, h_dmu, h_mumu)``."""
        raise NotImplementedError

    def tie_parameter(self, mu: float) -> float:
        """The model's own tie parameter (Davidson's ``nu``, Rao-Kupper's ``kappa``)."""
        return math.exp(mu)

    def __repr__(self) -> str:
        return f"TieModel({self.name!r})"


class _Davidson(TieModel):
    """Davidson (1970): ``P(a) : P(tie) : P(b) = pi_a : nu sqrt(pi_a pi_b) : pi_b``.

    With ``pi = exp(theta)`` and ``nu = exp(mu)``::

        P(a wins) = e^(d/2) / D,  P(tie) = e^mu / D,  P(b wins) = e^(-d/2) / D,
        D = e^(d/2) + e^(-d/2) + e^mu,

    so the loss of a pair is ``n log D - (W - L) d / 2 - T mu`` (``n = W + L + T``):
    an exponential family in ``(theta, mu)`` whose sufficient statistics are each
    item's points (wins plus half its ties) and the number of ties.
    """

    name = "davidson"

    @staticmethod
    def _log_partition(d, mu):
        half = 0.5 * d
        m = np.maximum(np.abs(half), mu)
        e_plus, e_minus, e_tie = np.exp(half - m), np.exp(-half - m), np.exp(mu - m)
        total = e_plus + e_minus + e_tie
        return m + np.log(total), e_plus / total, e_tie / total, e_minus / total

    def probabilities(self, d, mu):
        _, p_a, p_tie, p_b = self._log_partition(np.asarray(d, dtype=np.float64), float(mu))
        return p_a, p_tie, p_b

    def pair_terms(self, d, mu: float, W, L, T, derivatives: bool = True):
        logd, p_a, p_tie, p_b = self._log_partition(d, mu)
        n = W + L + T
        diff = W - L
        value = n * logd - 0.5 * diff * d - _times(T, mu)
        if not derivatives:
            return value
        half_gap = 0.5 * (p_a - p_b)
        g_d = n * half_gap - 0.5 * diff
        g_mu = n * p_tie - T
        h_dd = n * (0.25 * (p_a + p_b) - half_gap * half_gap)
        h_dmu = -n * p_tie * half_gap
        h_mumu = n * p_tie * (1.0 - p_tie)
        return value, g_d, g_mu, h_dd, h_dmu, h_mumu


class _RaoKupper(TieModel):
    """Rao and Kupper (1967): ``P(a wins) = pi_a / (pi_a + kappa pi_b)``, ``kappa >= 1``.

    With ``pi = exp(theta)``, ``kappa = exp(mu)`` (``mu >= 0``) and ``F`` the logistic
    function, ``P(a wins) = F(d - mu)``, ``P(b wins) = F(-d - mu)`` and ``P(tie)`` the
    rest, ``(kappa^2 - 1) pi_a pi_b / ((pi_a + kappa pi_b)(kappa pi_a + pi_b))``: a
    tie is a difference within ``mu`` of zero. The loss of a pair is
    ``(W + T) A + (L + T) B - (W - L) d / 2 - T log(e^(2 mu) - 1)`` with
    ``A = log(e^(d/2) + e^(mu - d/2))`` and ``B = log(e^(mu + d/2) + e^(-d/2))``.
    """

    name = "raokupper"
    mu_start = 0.5

    def probabilities(self, d, mu):
        from scipy.special import expit

        d = np.asarray(d, dtype=np.float64)
        p_a, p_b = expit(d - mu), expit(-d - mu)
        return p_a, expit(mu - d) - p_b, p_b

    def pair_terms(self, d, mu: float, W, L, T, derivatives: bool = True):
        from scipy.special import expit

        if mu < 0 or math.isnan(mu):
            nan = np.full_like(d, np.nan)
            return nan if not derivatives else (nan, nan, nan, nan, nan, nan)
        half = 0.5 * d
        A = np.logaddexp(half, mu - half)
        B = np.logaddexp(mu + half, -half)
        # log(e^(2 mu) - 1): -inf at mu = 0 (kappa = 1, no ties possible)
        tie_log = math.log(math.expm1(2.0 * mu)) if mu > 0 else -math.inf
        WT, LT = W + T, L + T
        value = WT * A + LT * B - 0.5 * (W - L) * d - _times(T, tie_log)
        if not derivatives:
            return value
        q_a, q_b = expit(mu - d), expit(mu + d)  # dA/dmu and dB/dmu
        v_a, v_b = q_a * (1.0 - q_a), q_b * (1.0 - q_b)
        with np.errstate(divide="ignore"):  # mu = 0: held there by the fit (no ties)
            dc = 2.0 / -np.expm1(-2.0 * mu)  # d/dmu log(e^(2 mu) - 1)
            d2c = -4.0 * np.exp(-2.0 * mu) / np.expm1(-2.0 * mu) ** 2
        g_d = WT * (0.5 - q_a) + LT * (q_b - 0.5) - 0.5 * (W - L)
        g_mu = WT * q_a + LT * q_b - T * dc
        h_dd = WT * v_a + LT * v_b
        h_dmu = LT * v_b - WT * v_a
        h_mumu = h_dd - T * d2c
        return value, g_d, g_mu, h_dd, h_dmu, h_mumu


def _times(T, x: float):
    """``T * x``; ``0`` where ``x`` is infinite: the tie parameter held at its boundary (the
    data's ties total at most 0), where ``-T mu`` is a constant of ``theta`` and left out."""
    if math.isfinite(x):
        return T * x
    return np.zeros_like(T)


#: Davidson's (1970) ties model.
DAVIDSON = _Davidson()
#: Rao and Kupper's (1967) ties model.
RAO_KUPPER = _RaoKupper()
#: Ties models by name (``--model davidson``, ``--model raokupper``).
TIE_MODELS: dict[str, TieModel] = {DAVIDSON.name: DAVIDSON, RAO_KUPPER.name: RAO_KUPPER}


def get_tie_model(model) -> TieModel:
    """The ties model named ``model`` (or ``model`` itself if it is a :class:`TieModel`)."""
    if isinstance(model, TieModel):
        return model
    try:
        return TIE_MODELS[model]
    except (KeyError, TypeError):
        raise ValueError(
            f"model must be one of the ties models {list(TIE_MODELS)}, got {model!r}"
        ) from None


class TiesObjective:
    """The penalised ties likelihood on pairs ``a < b`` with outcome counts ``W, L, T``.

    ``f(theta, mu) = sum_pairs loss(theta_a - theta_b, mu; W, L, T)
    + (gamma / 2) ||theta||^2 + b^T theta`` (the loss of :class:`TieModel`). Its
    Hessian is ``[[L(h_dd) + gamma I, c], [c^T, h_mumu]]`` with ``L`` the graph
    Laplacian of the pairs' weights ``h_dd`` and ``c = sum_pairs h_dmu (e_a - e_b)``;
    :mod:`dprank.ties` solves the Newton systems by eliminating ``mu`` (two solves
    with the Laplacian block, dense or by the compiled conjugate gradients of
    :func:`kernels`).

    Parameters
    ----------
    n : int
        Number of items.
    a, b : (P,) integer arrays
        The pairs (``a != b``).
    W, L, T : (P,) float arrays
        Wins of ``a``, wins of ``b`` and ties on each pair.
    model : TieModel
    gamma : float
        Ridge (``>= 0``).
    beta : (n,) array or None
        Linear term ``b``.
    sum_zero : bool
        Project the gradient on ``1^perp``.
    mu_ridge : float
        Ridge ``(mu_ridge / 2) mu^2`` on the tie parameter (0: none; the private fits'
        weak prior, which keeps ``mu`` finite when noisy ties exceed the comparisons).
    """

    def __init__(
        self, n, a, b, W, L, T, model: TieModel, gamma: float, beta, sum_zero: bool,
        mu_ridge: float = 0.0,
    ):  # fmt: skip
        self.n, self.a, self.b = int(n), a, b
        self.W, self.L, self.T = W, L, T
        self.model = model
        self.gamma = float(gamma)
        self.beta = np.zeros(self.n) if beta is None else np.asarray(beta, dtype=np.float64)
        self.sum_zero = bool(sum_zero)
        self.mu_ridge = float(mu_ridge)

    def _mu_penalty(self, mu: float) -> float:
        return 0.5 * self.mu_ridge * mu * mu if self.mu_ridge and math.isfinite(mu) else 0.0

    def value(self, theta, mu: float) -> float:
        """Objective value (``inf`` outside the model's domain)."""
        d = theta[self.a] - theta[self.b]
        pair = self.model.pair_terms(d, mu, self.W, self.L, self.T, derivatives=False)
        penalty = 0.5 * self.gamma * (theta @ theta) + self._mu_penalty(mu)
        return float(np.sum(pair) + penalty + self.beta @ theta)

    def derivatives(self, theta, mu: float):
        """``(value, g_theta, g_mu, h_dd, c, h_mumu)``: the Hessian's pieces (class text)."""
        n = self.n
        d = theta[self.a] - theta[self.b]
        value, g_d, g_mu, h_dd, h_dmu, h_mumu = self.model.pair_terms(d, mu, self.W, self.L, self.T)
        g_theta = np.bincount(self.a, g_d, n) - np.bincount(self.b, g_d, n)
        g_theta += self.gamma * theta
        g_theta += self.beta
        if self.sum_zero:
            g_theta -= g_theta.mean()
        c = np.bincount(self.a, h_dmu, n) - np.bincount(self.b, h_dmu, n)
        penalty = 0.5 * self.gamma * (theta @ theta) + self._mu_penalty(mu)
        value = float(np.sum(value) + penalty + self.beta @ theta)
        g_mu, h_mumu = float(np.sum(g_mu)), float(np.sum(h_mumu))
        if self.mu_ridge and math.isfinite(mu):
            g_mu += self.mu_ridge * mu
            h_mumu += self.mu_ridge
        return value, g_theta, g_mu, h_dd, c, h_mumu
