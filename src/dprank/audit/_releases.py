"""Audits of additive-noise releases: local DP (Paper B2 section 3) and noisy counts.

Paper A, Algorithms 2 and 3. Re-exported by :mod:`dprank.audit`.
"""

from __future__ import annotations

import numpy as np

from ..base import _checks
from ..fit.ranking import copeland_counts, noisy_counts
from ..privacy.ldp import debias, laplace_release, randomized_response
from ..privacy.mechanisms import (
    edge_count_noise_scale,
    individual_count_noise_scale,
    standard_laplace,
)
from ._core import (
    AuditResult,
    checked_audit,
    complete_wins,
    exact_rr_epsilon,
    laplace_llr,
    round_llr,
)

# ---------------------------------------------------------------------------
# local DP (Paper B2)


def _rr_audit(audit_pair, name, eps, release):
    """Audit a release of one comparison's RR bit (``release`` maps the bits to outputs)."""

    def sampler(y):
        return lambda g, size: release(randomized_response(np.full(size, y, np.uint8), eps, g))

    return audit_pair(name, sampler(0), sampler(1), exact_eps=exact_rr_epsilon(eps))


def audit_randomized_response(
    eps: float, trials: int, rng: np.random.Generator, alpha: float = 0.05
) -> AuditResult:
    """Audit classic RR (B2 section 3.1): one comparison ``y = 0`` vs ``y = 1``.

    The statistic is the released bit; the exact loss is :func:`exact_rr_epsilon`.
    """
    audit_pair = checked_audit(eps, trials, rng, alpha)
    return _rr_audit(audit_pair, "randomized_response", eps, lambda bits: bits)


def audit_debiased_rr(
    eps: float, trials: int, rng: np.random.Generator, weight: float = 1.0, alpha: float = 0.05
) -> AuditResult:
    """Audit the debiased (ADRR) release ``w_l z~`` of one comparison (B2 eq. (3)-(4)).

    ``z~`` is an affine, increasing function of the RR bit and the ADRR weight
    ``w_l > 0`` (:func:`dprank.privacy.ldp.adrr_weights`) depends only on the budgets,
    so the release is post-processing of RR: same exact loss ``eps``.
    """
    audit_pair = checked_audit(eps, trials, rng, alpha)
    _checks.positive_finite(weight, "weight")
    return _rr_audit(audit_pair, "debiased_rr", eps, lambda bits: weight * debias(bits, eps))


def _laplace_audit(audit_pair, name, release_eps):
    def sampler(y):
        return lambda g, size: laplace_release(np.full(size, float(y)), release_eps, g)

    # y + Laplace(1/release_eps), sensitivity 1: exact loss release_eps
    return audit_pair(name, sampler(0), sampler(1), exact_eps=release_eps)


def audit_laplace_ldp(
    eps: float, trials: int, rng: np.random.Generator, alpha: float = 0.05
) -> AuditResult:
    """Audit B2's Laplace LDP baseline ``y + Laplace(1/eps)``, ``y in {0, 1}``.

    Sensitivity 1, so the exact loss is ``eps`` (attained for outputs ``>= 1``).
    """
    audit_pair = checked_audit(eps, trials, rng, alpha)
    return _laplace_audit(audit_pair, "laplace_ldp", eps)


def broken_laplace_ldp(
    eps: float, trials: int, rng: np.random.Generator, alpha: float = 0.05
) -> AuditResult:
    """Audit a deliberately broken Laplace release claiming ``eps``: noise ``Laplace(1/(2 eps))``.

    Half the required scale: the true loss is ``2 eps``, so a correct audit
    flags a VIOLATION with enough trials.
    """
    audit_pair = checked_audit(eps, trials, rng, alpha)
    return _laplace_audit(audit_pair, "broken_laplace_ldp", 2.0 * eps)


# ---------------------------------------------------------------------------
# noisy counts (Paper A, Algorithms 2 and 3)


def _count_audit(audit_pair, name, wins0, wins1, scale, statistic, item):
    n = wins0.shape[0]
    # Algorithms 2 and 3 release the same statistic
    c0, c1 = copeland_counts(wins0), copeland_counts(wins1)
    changed = np.flatnonzero(c0 != c1)
    if statistic == "llr":
        exact = float(np.abs(c0 - c1).sum() / scale)
    elif statistic == "item":
        exact = float(abs(c0[item] - c1[item]) / scale)
    elif statistic == "difference":
        exact = None
    else:
        raise ValueError(f"unknown statistic {statistic!r}")

    def sampler(wins):
        def draw(g, size):
            out = noisy_counts(wins, scale * standard_laplace(g, (size, n)))
            if statistic == "llr":
                llr = laplace_llr(out[:, changed], c0[changed], c1[changed], scale)
                return round_llr(llr)
            if statistic == "item":
                return out[:, item]
            return out[:, changed[0]] - out[:, changed[-1]]

        return draw

    return audit_pair(name, sampler(wins0), sampler(wins1), exact_eps=exact)


def audit_noisy_counts_edge(
    eps: float,
    n: int,
    trials: int,
    rng: np.random.Generator,
    statistic: str = "llr",
    alpha: float = 0.05,
) -> AuditResult:
    """Audit Algorithm 2 (Paper A): win counts plus ``Laplace(2/eps)`` under edge DP.

    Neighbours: a complete tournament on ``n`` items (one comparison per pair)
    and the same with the outcome of comparison ``(0, 1)`` flipped, so ``N_0``
    drops and ``N_1`` rises by one (``l1`` change 2, the sensitivity).

    Parameters
    ----------
    statistic : {"llr", "difference", "item"}
        ``"llr"``: log-likelihood ratio of the released count vector
        (Neyman-Pearson; exact loss ``eps``); ``"difference"``:
        ``N~_0 - N~_1``; ``"item"``: ``N~_0`` alone (loss ``eps / 2``).
    """
    audit_pair = checked_audit(eps, trials, rng, alpha, n=n)
    _checks.count(n, "n", 2)
    wins0 = complete_wins(n)
    wins1 = wins0.copy()
    wins1[0, 1], wins1[1, 0] = 0.0, 1.0
    scale = edge_count_noise_scale(eps)
    return _count_audit(audit_pair, "noisy_counts_edge", wins0, wins1, scale, statistic, 0)


def audit_noisy_counts_individual(
    eps: float,
    n: int,
    L: int,
    trials: int,
    rng: np.random.Generator,
    statistic: str = "item",
    alpha: float = 0.05,
) -> AuditResult:
    """Audit Algorithm 3's noisy counts (Paper A, individual DP): ``Laplace(L/eps)`` noise.

    Neighbours: a complete tournament plus one user's ``L`` comparisons, all
    between items 0 and 1; in ``D0`` item 0 wins all ``L``, in ``D1`` item 1
    does (the user's comparisons replaced). ``N_0`` falls and ``N_1`` rises by
    ``L``. The noise scale is :func:`dprank.privacy.mechanisms.individual_count_noise_scale`
    (``L/eps``, from "each ``N_i`` changes by at most ``L``").

    Parameters
    ----------
    statistic : {"item", "llr", "difference"}
        ``"item"``: ``N~_0`` alone, the coordinate-wise view behind the
        ``L/eps`` scale (exact loss ``eps``). ``"llr"``: log-likelihood ratio
        of the whole released vector; its ``l1`` sensitivity is ``2L``, so
        the exact loss of the vector release is ``2 eps`` and this audit
        reports a VIOLATION of the claim ``eps`` for the noisy counts
        (the top-k set of Algorithm 3, a post-processing, may lose less).
    """
    audit_pair = checked_audit(eps, trials, rng, alpha, n=n, L=L)
    if L < 1 or n < 2:
        raise ValueError("need L >= 1 and n >= 2")
    wins0 = complete_wins(n)
    wins1 = wins0.copy()
    wins0[0, 1] += L
    wins1[1, 0] += L
    scale = individual_count_noise_scale(eps, L)
    return _count_audit(audit_pair, "noisy_counts_individual", wins0, wins1, scale, statistic, 0)
