"""Noise scales of the central DP mechanisms of Paper A.

``eps = inf`` (non-private) gives scale 0 everywhere. The authors coded
``eps = inf`` as ``eps = 1000`` with the scales set to 0 for ``eps > 500``;
representing it as ``inf`` here is equivalent.
"""

from __future__ import annotations

import math

import numpy as np

from . import _checks
from ._checks import count, positive, positive_finite

__all__ = [
    "edge_count_noise_scale",
    "edge_mle_noise_scale",
    "individual_count_noise_scale",
    "individual_gamma",
    "individual_mle_noise_scale",
    "standard_laplace",
]


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
