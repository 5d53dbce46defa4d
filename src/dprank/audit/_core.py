"""The audit machinery: Clopper-Pearson bounds on epsilon and the generic audit.

Re-exported by :mod:`dprank.audit`, whose docstring describes the method.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import scipy  # submodules load on first use; scipy.stats (about 0.35 s) is not needed

from ..base import _checks
from ..privacy.ldp import rr_flip_probability

#: Slack added to the claimed epsilon before a bound counts as a violation.
VERDICT_SLACK = 1e-9

Sampler = Callable[[np.random.Generator, int], np.ndarray]


# ---------------------------------------------------------------------------
# statistics


def clopper_pearson(k: int, n: int, alpha: float) -> tuple[float, float]:
    """Two-sided ``(1 - alpha)`` Clopper-Pearson interval for a binomial proportion.

    ``[B(alpha/2; k, n-k+1), B(1-alpha/2; k+1, n-k)]`` with ``B`` the beta
    quantile function, ``0`` for the lower end at ``k = 0`` and ``1`` for the
    upper end at ``k = n``. Each end is also a one-sided ``1 - alpha/2``
    bound, which is how :func:`epsilon_lower_bound` uses it.

    Parameters
    ----------
    k : int
        Number of successes, ``0 <= k <= n``.
    n : int
        Number of trials, ``n >= 1``.
    alpha : float
        Error probability in (0, 1).

    Returns
    -------
    (float, float)
        Lower and upper confidence limits.
    """
    n = _checks.count(n, "n", 1)
    k = _checks.count(k, "k")
    _checks.probability(alpha, "alpha", low_open=True, high_open=True)
    lo, hi = cp_arrays(np.asarray(k), np.asarray(n), alpha)
    return float(lo), float(hi)


def _beta_ppf(q, a, b):
    """Quantile ``q`` of Beta(a, b): ``scipy.special.betaincinv``, the function behind
    ``scipy.stats.beta.ppf`` (bit-identical values; ``scipy.stats`` itself takes about 0.35 s
    to import)."""
    return scipy.special.betaincinv(a, b, q)


def cp_arrays(k, n, alpha):
    k = np.asarray(k, dtype=np.float64)
    n = np.asarray(n, dtype=np.float64)
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1), got {alpha}")
    if np.any(n < 1) or np.any(k < 0) or np.any(k > n):
        raise ValueError("need 0 <= k <= n and n >= 1")
    with np.errstate(invalid="ignore", divide="ignore"):
        lo = np.where(k > 0, _beta_ppf(alpha / 2, np.maximum(k, 1), n - k + 1), 0.0)
        hi = np.where(k < n, _beta_ppf(1 - alpha / 2, k + 1, np.maximum(n - k, 1)), 1.0)
    return lo, hi


def eps_bound_arrays(k0, n0, k1, n1, delta, alpha):
    """Vectorised :func:`epsilon_lower_bound` (event oriented towards ``D1``)."""
    # one-sided 1 - alpha/2 bounds: the lower end of the two-sided (1 - alpha) interval
    # for p1 and the upper end for p0; Bonferroni over the two gives 1 - alpha overall
    p1_low, _ = cp_arrays(k1, n1, alpha)
    _, p0_high = cp_arrays(k0, n0, alpha)
    with np.errstate(divide="ignore", invalid="ignore"):
        direct = np.log(np.maximum(p1_low - delta, 0.0) / p0_high)
        compl = np.log(np.maximum(1.0 - p0_high - delta, 0.0) / (1.0 - p1_low))
    best = np.fmax(direct, compl)
    return np.maximum(np.nan_to_num(best, nan=0.0, neginf=0.0), 0.0)


def epsilon_lower_bound(
    k0: int, n0: int, k1: int, n1: int, delta: float = 0.0, alpha: float = 0.05
) -> float:
    """Lower confidence bound on epsilon from event counts under two neighbours.

    The event ``E`` happened ``k0`` times in ``n0`` independent runs on ``D0``
    and ``k1`` times in ``n1`` runs on ``D1``; ``E`` is meant to be more likely
    under ``D1`` (swap the arguments otherwise; a wrongly oriented event just
    gives 0).

    Reasoning. Write ``p_b = P(E | D_b)``. ``(eps, delta)``-DP requires

    * ``p1 <= e^eps p0 + delta``, i.e. ``eps >= log((p1 - delta) / p0)``, and
    * for the complement, ``1 - p0 <= e^eps (1 - p1) + delta``, i.e.
      ``eps >= log((1 - p0 - delta) / (1 - p1))``.

    Both right-hand sides increase in ``p1`` and decrease in ``p0``. With
    ``p1_low`` a one-sided ``1 - alpha/2`` Clopper-Pearson lower bound on
    ``p1`` and ``p0_high`` a one-sided ``1 - alpha/2`` upper bound on ``p0``
    (the ends of the two-sided ``1 - alpha`` intervals), both hold together
    with probability at least ``1 - alpha`` (Bonferroni; the two samples are
    independent), and then the true epsilon is at least

        max(log((p1_low - delta) / p0_high), log((1 - p0_high - delta) / (1 - p1_low)), 0).

    Both candidates use the same two one-sided bounds, so taking their maximum
    costs no further confidence.

    Parameters
    ----------
    k0, n0 : int
        Event count and number of runs on ``D0``.
    k1, n1 : int
        Event count and number of runs on ``D1``.
    delta : float
        The ``delta`` of the claim (0 for pure DP).
    alpha : float
        Error probability: the bound is valid with probability ``>= 1 - alpha``.

    Returns
    -------
    float
        The lower bound (``>= 0``).
    """
    for name, value in (("n0", n0), ("n1", n1)):
        _checks.count(value, name, 1)
    for name, value, n in (("k0", k0, n0), ("k1", k1, n1)):
        if _checks.count(value, name) > n:
            raise ValueError(f"{name} = {value} exceeds its number of runs {n}")
    _checks.probability(alpha, "alpha", low_open=True, high_open=True)
    if not 0 <= _checks.real(delta, "delta") < 1:
        raise ValueError(f"delta must be in [0, 1), got {delta}")
    return float(eps_bound_arrays(k0, n0, k1, n1, delta, alpha))


def exact_rr_epsilon(eps: float) -> float:
    """Exact privacy loss of classic randomized response with budget ``eps``.

    The output law is Bernoulli: ``P(y~ = y) = 1 - p`` with ``p = 1/(e^eps+1)``
    (:func:`dprank.privacy.ldp.rr_flip_probability`), so the largest log-likelihood
    ratio over outputs and neighbours ``y = 0, 1`` is ``log((1 - p) / p)``,
    which equals ``eps``.
    """
    _checks.positive_finite(eps, "eps")
    p = rr_flip_probability(eps)
    return float(math.log1p(-p) - math.log(p))


# ---------------------------------------------------------------------------
# the generic audit


@dataclass(frozen=True)
class AuditResult:
    """Outcome of one audit.

    Attributes
    ----------
    mechanism : str
    claimed_eps, claimed_delta : float
        The privacy claim under test.
    lower_bound : float
        Lower bound on the true epsilon, valid with probability ``confidence``.
    confidence : float
        ``1 - alpha``.
    trials : int
        Runs of the mechanism per neighbouring input (half chose the event,
        half counted it).
    event : str
        The event that was counted, and which input it favours.
    exact_eps : float or None
        The exact worst-case privacy loss where it is known in closed form.
    verdict : str
        ``"consistent"`` if ``lower_bound <= claimed_eps + 1e-9``, else
        ``"VIOLATION"``.
    """

    mechanism: str
    claimed_eps: float
    claimed_delta: float
    lower_bound: float
    confidence: float
    trials: int
    event: str
    exact_eps: float | None
    verdict: str


def _counts_above(sorted_x: np.ndarray, t: np.ndarray) -> np.ndarray:
    return sorted_x.size - np.searchsorted(sorted_x, t, side="right")


_ABSENT = object()  # an argument the audit does not take


def check_audit(eps, trials, rng, alpha, *, n=_ABSENT, min_n=2, L=_ABSENT) -> None:
    """The arguments every audit takes, each checked by name before any run."""
    _checks.positive_finite(eps, "eps")
    _checks.count(trials, "trials", 4)
    _checks.rng(rng)
    _checks.probability(alpha, "alpha", low_open=True, high_open=True)
    if n is not _ABSENT:
        _checks.count(n, "n", min_n)
    if L is not _ABSENT:
        _checks.count(L, "L", 1)


def checked_audit(eps, trials, rng, alpha, **bounds) -> Callable[..., AuditResult]:
    """Check the arguments every audit takes; the audit of a neighbouring pair under them.

    Parameters
    ----------
    eps, trials, rng, alpha
        The claimed budget, runs per input, generator and level, checked by
        :func:`check_audit` (with ``bounds``: ``n``, ``min_n``, ``L``) before any run.

    Returns
    -------
    callable
        ``audit(name, sample_d0, sample_d1, **claims) -> AuditResult``:
        :func:`audit_mechanism` with these ``trials``, ``rng``, ``claimed_eps = eps``
        and ``alpha``; ``claims`` are its ``claimed_delta`` and ``exact_eps``.
    """
    check_audit(eps, trials, rng, alpha, **bounds)

    def audit(name: str, sample_d0: Sampler, sample_d1: Sampler, **claims) -> AuditResult:
        return audit_mechanism(name, sample_d0, sample_d1, trials, rng, eps, alpha=alpha, **claims)

    return audit


def audit_mechanism(
    name: str,
    sample_d0: Sampler,
    sample_d1: Sampler,
    trials: int,
    rng: np.random.Generator,
    claimed_eps: float,
    claimed_delta: float = 0.0,
    alpha: float = 0.05,
    exact_eps: float | None = None,
    n_thresholds: int = 50,
) -> AuditResult:
    """Audit a mechanism on one neighbouring pair from samples of a scalar statistic.

    Parameters
    ----------
    name : str
        Label of the mechanism.
    sample_d0, sample_d1 : callable ``(rng, size) -> (size,) array``
        Scalar statistics of ``size`` independent runs of the mechanism on the
        neighbouring inputs ``D0`` and ``D1``.
    trials : int
        Runs per input (``>= 4``). The first ``trials // 2`` of each choose the
        event; the remaining runs (fresh draws) count it.
    rng : numpy.random.Generator
    claimed_eps, claimed_delta : float
        The claim under test.
    alpha : float
        The bound holds with probability ``>= 1 - alpha``.
    exact_eps : float, optional
        Known exact privacy loss, reported alongside.
    n_thresholds : int
        Thresholds ``t`` tried: this many quantiles of the pooled selection
        samples (duplicates dropped).

    Returns
    -------
    AuditResult

    Notes
    -----
    Candidate events are ``{stat > t}`` oriented towards ``D1`` or ``D0``; the
    complement ``{stat <= t}`` is covered by :func:`epsilon_lower_bound`. The
    selection score of a candidate is its lower bound on the selection half
    (which prefers events that are both lopsided and not too rare). The final
    bound uses only the second half, on which the chosen event is fixed, so
    the Clopper-Pearson intervals are valid.
    """
    _checks.positive_finite(claimed_eps, "claimed_eps")
    _checks.count(trials, "trials", 4)
    _checks.rng(rng, noise_source=True)
    _checks.probability(alpha, "alpha", low_open=True, high_open=True)
    for arg, sampler in (("sample_d0", sample_d0), ("sample_d1", sample_d1)):
        if not callable(sampler):
            raise TypeError(f"{arg} must be a function (rng, size) -> samples, got {sampler!r}")
    if not 0 <= _checks.real(claimed_delta, "claimed_delta") < 1:
        raise ValueError(f"claimed_delta must be in [0, 1), got {claimed_delta!r}")
    trials = int(trials)
    n_sel = trials // 2
    n_test = trials - n_sel
    s0 = np.sort(np.asarray(sample_d0(rng, n_sel), dtype=np.float64))
    s1 = np.sort(np.asarray(sample_d1(rng, n_sel), dtype=np.float64))
    if s0.shape != (n_sel,) or s1.shape != (n_sel,):
        raise ValueError("samplers must return 1-d arrays of the requested size")
    pooled = np.concatenate([s0, s1])
    levels = np.linspace(0.0, 1.0, int(n_thresholds) + 2)[1:-1]
    thresholds = np.unique(np.quantile(pooled, levels, method="inverted_cdf"))
    k0 = _counts_above(s0, thresholds)
    k1 = _counts_above(s1, thresholds)
    toward1 = eps_bound_arrays(k0, n_sel, k1, n_sel, claimed_delta, alpha)
    toward0 = eps_bound_arrays(k1, n_sel, k0, n_sel, claimed_delta, alpha)
    i1, i0 = int(np.argmax(toward1)), int(np.argmax(toward0))
    favour1 = toward1[i1] >= toward0[i0]
    t = float(thresholds[i1] if favour1 else thresholds[i0])

    # fresh runs: count the single chosen event
    t0 = np.asarray(sample_d0(rng, n_test), dtype=np.float64)
    t1 = np.asarray(sample_d1(rng, n_test), dtype=np.float64)
    c0, c1 = int(np.sum(t0 > t)), int(np.sum(t1 > t))
    if favour1:
        bound = epsilon_lower_bound(c0, n_test, c1, n_test, claimed_delta, alpha)
    else:
        bound = epsilon_lower_bound(c1, n_test, c0, n_test, claimed_delta, alpha)
    event = (
        f"{{stat > {t:.6g}}} favouring {'D1' if favour1 else 'D0'} "
        f"(counts {c0}/{n_test} on D0, {c1}/{n_test} on D1)"
    )
    verdict = "consistent" if bound <= claimed_eps + VERDICT_SLACK else "VIOLATION"
    return AuditResult(
        mechanism=name,
        claimed_eps=float(claimed_eps),
        claimed_delta=float(claimed_delta),
        lower_bound=float(bound),
        confidence=1.0 - alpha,
        trials=trials,
        event=event,
        exact_eps=None if exact_eps is None else float(exact_eps),
        verdict=verdict,
    )


# ---------------------------------------------------------------------------
# helpers shared by the mechanism audits


def round_llr(llr: np.ndarray) -> np.ndarray:
    """Round log-likelihood ratios to 9 decimals.

    The ratio saturates at its maximum on sets of positive probability; there
    the computed values differ from the maximum only by round-off, whose sign
    may depend on the input (``D0`` or ``D1``). An event ``{llr > max}`` would
    then separate the inputs through floating-point error alone, an artefact
    of the statistic, not of the mechanism.
    """
    return np.round(llr, 9)


def laplace_llr(x: np.ndarray, mean0: np.ndarray, mean1: np.ndarray, scale: float):
    """``log f1(x) - log f0(x)`` for iid Laplace(scale) noise around ``mean0``/``mean1``."""
    return (np.abs(x - mean0) - np.abs(x - mean1)).sum(axis=-1) / scale


def complete_wins(n: int) -> np.ndarray:
    """One comparison per pair, the lower index winning: the tournament the audits start from."""
    return np.triu(np.ones((n, n)), k=1)
