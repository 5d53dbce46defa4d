"""The objective with three outcomes per pair: the ties models (Davidson 1970, Rao and Kupper 1967).

Private to :mod:`dprank.objective`, which re-exports its public names.
"""

from __future__ import annotations

import math

import numpy as np

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
    :mod:`dprank.fit.ties` solves the Newton systems by eliminating ``mu`` (two solves
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
