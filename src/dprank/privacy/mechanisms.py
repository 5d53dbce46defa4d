"""Noise scales of the central DP mechanisms of Paper A, and privacy losses.

:class:`PrivacyLoss` is what a method's privacy map returns
(:meth:`dprank.methods.Method.privacy_loss`); the maps of the methods whose loss is not
their budget at their privacy unit are here (``*_privacy_loss``).

``eps = inf`` (non-private) gives scale 0 everywhere. The authors coded
``eps = inf`` as ``eps = 1000`` with the scales set to 0 for ``eps > 500``;
representing it as ``inf`` here is equivalent.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..base import _checks
from ..base._checks import count, positive, positive_finite

__all__ = [
    "NEIGHBOURS",
    "PRIVACY_UNITS",
    "PrivacyLoss",
    "counts_as_published_privacy_loss",
    "edge_count_noise_scale",
    "edge_mle_noise_scale",
    "individual_count_noise_scale",
    "individual_gamma",
    "individual_mle_noise_scale",
    "noisy_obj_privacy_loss",
    "one_shot_privacy_loss",
    "standard_laplace",
]

#: What one neighbour changes: one comparison (edge DP, and each comparison of a local
#: release), one user's comparisons (individual DP), or nothing protected.
PRIVACY_UNITS = ("comparison", "user", "none")

#: The neighbouring data sets of each privacy unit, in words: what a guarantee at that unit
#: protects (:class:`PrivacyLoss`; the wording of docs/privacy.md).
NEIGHBOURS = {
    "comparison": "one comparison's outcome changed",
    "user": "one user's comparisons (pairs and outcomes) replaced",
    "none": "none: the method is not private",
}

#: Ridge ``(gamma / 2) ||theta||^2`` of the private ties fits (count units): a weak prior,
#: standard deviation 1 on the log-strengths (174 points of the Elo scale), that keeps a
#: noisy statistic outside the attainable range from giving an infinite score. Its public
#: name is :data:`dprank.privacy.private_ties.PRIVATE_RIDGE`; it is defined here, in a module
#: the method registry imports anyway, so that the ties fits' signatures can show it
#: without importing the ties estimator.
PRIVATE_RIDGE = 1.0

#: The models each release of votes with ties can fit (edge, individual, local DP): the
#: releases of :mod:`dprank.privacy.private_ties` check a request against them and the
#: registry declares them as the ties methods' models, one statement for both (defined
#: here for the reason :data:`PRIVATE_RIDGE` is).
EDGE_TIES_MODELS = ("davidson", "btl")
INDIVIDUAL_TIES_MODELS = ("davidson", "raokupper", "btl")
LOCAL_TIES_MODELS = ("davidson", "btl")


@dataclass(frozen=True)
class PrivacyLoss:
    """A method's guarantee: ``(epsilon, delta)``-DP for neighbours at ``unit``.

    What :meth:`Method.privacy_loss` returns: the one statement of a method's privacy
    loss, which a release's record, the ledger, the audit's claims and the privacy
    harness read.

    Attributes
    ----------
    epsilon : float
        Positive; ``inf`` for a method that is not private.
    delta : float
        In ``[0, 1)``; 0 for pure ``epsilon``-DP.
    unit : str
        One of :data:`PRIVACY_UNITS`: what one neighbour changes. A local method's
        guarantee is per comparison (each comparison's outcome is ``epsilon``-LDP at its
        user's budget), whatever the method's ``privacy_unit`` (a user's data).
    neighbour : str
        The neighbouring relation in words (:data:`NEIGHBOURS` of ``unit``).
    """

    epsilon: float
    delta: float
    unit: str
    neighbour: str

    def __post_init__(self):
        for name in ("epsilon", "delta"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float, np.floating)):
                raise TypeError(f"{name} must be a number, got {value!r}")
            object.__setattr__(self, name, float(value))
        if not self.epsilon > 0:
            raise ValueError(f"epsilon must be positive (inf: not private), got {self.epsilon}")
        if not 0.0 <= self.delta < 1.0:
            raise ValueError(f"delta must be in [0, 1), got {self.delta}")
        if self.unit not in PRIVACY_UNITS:
            raise ValueError(f"unit must be one of {PRIVACY_UNITS}, got {self.unit!r}")
        if not isinstance(self.neighbour, str) or not self.neighbour:
            raise TypeError(f"neighbour must be a non-empty str, got {self.neighbour!r}")

    @classmethod
    def at(cls, unit: str, epsilon: float, delta: float = 0.0) -> PrivacyLoss:
        """The loss ``(epsilon, delta)`` at ``unit``, with its neighbours (:data:`NEIGHBOURS`)."""
        if unit not in PRIVACY_UNITS:
            raise ValueError(f"unit must be one of {PRIVACY_UNITS}, got {unit!r}")
        return cls(epsilon, delta, unit, NEIGHBOURS[unit])


def one_shot_privacy_loss(eps: float, *, n_items: int) -> PrivacyLoss:
    """Experiment 4's one-shot top-k (Qiao, Su & Zhang 2021): ``(eps, 1 / n^2)``-DP at the
    comparison, for ``n_items`` items (public under edge DP)."""
    eps = positive_finite(eps, "eps")
    n = count(n_items, "n_items", 2)
    return PrivacyLoss.at("comparison", eps, 1.0 / n**2)


def noisy_obj_privacy_loss(eps: float, *, delta: float = 1e-6) -> PrivacyLoss:
    """NoisyObj's Gaussian objective perturbation: ``(eps, delta)``-DP at the comparison
    (its calibration's ``delta``, B2 section 5.1)."""
    eps = positive_finite(eps, "eps")
    delta = _checks.probability(delta, "delta", low_open=True, high_open=True)
    return PrivacyLoss.at("comparison", eps, delta)


def counts_as_published_privacy_loss(eps: float) -> PrivacyLoss:
    """Algorithm 3's counts as printed, ``Laplace(L / eps)`` against an l1 sensitivity of
    ``2 L``: ``2 eps``-DP at the user."""
    return PrivacyLoss.at("user", 2.0 * positive_finite(eps, "eps"))


def _inv(eps: float) -> float:
    positive(eps, "eps")
    return 0.0 if math.isinf(eps) else 1.0 / eps


def edge_mle_noise_scale(eps: float, kappa1: float = 1.0) -> float:
    """Laplace scale ``lambda = 8 kappa1 / eps`` of Algorithm 1 (Proposition 2.1)."""
    return 8.0 * positive_finite(kappa1, "kappa1") * _inv(eps)


def edge_count_noise_scale(eps: float) -> float:
    """Laplace scale ``2 / eps`` of Algorithm 2 (counts have l1 sensitivity 2)."""
    return 2.0 * _inv(eps)


def individual_mle_noise_scale(eps: float, L: int, kappa1: float = 1.0) -> float:
    """Laplace scale ``8 kappa1 L / eps`` of the individual-DP perturbed MLE (Proposition 3.1).

    One user's ``L`` comparisons move the objective's gradient by at most
    ``L`` times what one comparison does, hence the factor ``L``.
    """
    return 8.0 * positive_finite(kappa1, "kappa1") * count(L, "L", 1) * _inv(eps)


def individual_gamma(eps: float, L: int, kappa2: float = 0.25) -> float:
    """Ridge ``gamma = 8 L kappa2 / eps`` of the individual-DP MLE (Proposition 3.1).

    ``0`` at ``eps = inf`` (the unpenalised, sum-to-zero constrained MLE, as the
    authors coded it; docs/papers/paper-a.md#s2-2 and #a11).
    """
    return 8.0 * positive_finite(kappa2, "kappa2") * count(L, "L", 1) * _inv(eps)


def individual_count_noise_scale(eps: float, L: int) -> float:
    """Laplace scale ``L / eps`` of Algorithm 3's noisy counts (one user changes a count by L)."""
    return count(L, "L", 1) * _inv(eps)


def standard_laplace(rng: np.random.Generator, size) -> np.ndarray:
    """Standard Laplace draws (location 0, scale 1) from ``rng``."""
    _checks.rng(rng)
    _checks.shape(size, "size")
    return rng.laplace(0.0, 1.0, size=size)
