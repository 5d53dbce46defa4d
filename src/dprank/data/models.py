"""Pairwise comparison models ``P(i beats j) = F(theta_i - theta_j)``.

A model is defined by its link ``F`` (a symmetric CDF, condition (A0) of
Paper A). Estimators use the per-comparison loss ``l(x) = -log F(x)`` and its
first two derivatives; the logistic link (Bradley-Terry-Luce) has a fast path
in the estimators because ``l'`` and ``l''`` are rational in ``exp(theta)``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..base._lazy_scipy import scipy  # imported on first use (dprank rank never uses it)

__all__ = ["BTL", "LINKS", "THURSTONE", "Link", "get_link"]

#: log sqrt(2 pi), the standard normal log-density's constant, computed as
#: ``scipy.stats.norm.logpdf`` does (so the probit loss is bit-identical to it
#: without importing ``scipy.stats``, half a second at every workflow start).
_NORM_LOG_C = np.log(np.sqrt(2 * np.pi))


@dataclass(frozen=True)
class Link:
    """A symmetric link function F with the constants of Paper A, (2.3)-(2.4).

    Attributes
    ----------
    name : str
        Short name used in configs and outputs.
    kappa1 : float
        Bound on ``F'/(F(1-F))`` (condition (A1)); 1 for the logistic link.
    kappa2 : float
        Bound on ``(-log F)''`` (condition (A2)); the authors' code uses 1/4
        for the logistic link (docs/papers/paper-a.md#a11).
    """

    name: str
    kappa1: float
    kappa2: float

    def cdf(self, x: np.ndarray) -> np.ndarray:
        """``F(x)``, the probability that the first item wins."""
        raise NotImplementedError

    def loss_derivatives(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(l'(x), l''(x))`` for ``l(x) = -log F(x)``."""
        raise NotImplementedError

    def loss(self, x: np.ndarray) -> np.ndarray:
        """``l(x) = -log F(x)``."""
        raise NotImplementedError


@dataclass(frozen=True)
class _Logistic(Link):
    def cdf(self, x):
        return scipy.special.expit(x)

    def loss(self, x):
        return np.logaddexp(0.0, -np.asarray(x, dtype=float))

    def loss_derivatives(self, x):
        s = scipy.special.expit(x)
        return s - 1.0, s * (1.0 - s)


@dataclass(frozen=True)
class _Probit(Link):
    def cdf(self, x):
        return scipy.special.ndtr(x)

    def loss(self, x):
        return -scipy.special.log_ndtr(x)

    def loss_derivatives(self, x):
        x = np.asarray(x, dtype=float)
        # inverse Mills ratio phi(x)/Phi(x), stable for very negative x
        mills = np.exp((-(x**2) / 2.0 - _NORM_LOG_C) - scipy.special.log_ndtr(x))
        return -mills, mills * (x + mills)


#: Bradley-Terry-Luce: logistic link.
BTL = _Logistic(name="btl", kappa1=1.0, kappa2=0.25)
#: Thurstone-Mosteller: probit link. ``F'/(F(1-F))`` grows like ``|x|``, so
#: condition (A1) has no finite kappa1; ``(-log Phi)''`` is bounded by 1.
THURSTONE = _Probit(name="tm", kappa1=float("inf"), kappa2=1.0)

LINKS: dict[str, Link] = {BTL.name: BTL, THURSTONE.name: THURSTONE}


def get_link(name: str | Link) -> Link:
    """The link registered under ``name`` (``'btl'`` or ``'tm'``)."""
    if isinstance(name, Link):
        return name
    if not isinstance(name, str):
        raise TypeError(f"name must be a model name {sorted(LINKS)} or a Link, got {name!r}")
    try:
        return LINKS[name]
    except KeyError:
        raise ValueError(
            f"unknown comparison model name {name!r}; known: {sorted(LINKS)}"
        ) from None
