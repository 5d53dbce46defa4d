"""Empirical differential-privacy audits: statistical lower bounds on epsilon.

A mechanism ``M`` is ``(eps, delta)``-DP when for all neighbouring inputs
``D0, D1`` and every output event ``E``::

    P(M(D1) in E) <= e^eps P(M(D0) in E) + delta        (and D0, D1 swapped).

An audit (Ding et al. 2018, "Detecting violations of differential privacy";
Jagielski et al. 2020, "Auditing differentially private machine learning")
turns this around: run ``M`` many times on a worst-case pair ``D0, D1``, count
how often a well-chosen event ``E`` happens under each, and bound the two
probabilities with Clopper-Pearson intervals. Any ``eps`` compatible with the
intervals satisfies ``eps >= log((p1_low - delta) / p0_high)``, so this is a
lower bound on the true privacy loss that holds with confidence ``1 - alpha``
(:func:`epsilon_lower_bound`). A lower bound above the claimed ``eps`` is a
proven violation (up to the ``alpha`` error); a bound below it proves nothing
about privacy, but a bound close to the claim shows the analysis is tight.

:func:`audit_mechanism` runs one audit from two samplers of a scalar
statistic: the first half of the trials chooses the event ``{stat > t}`` (or
its complement, favouring ``D0`` or ``D1``) on a grid of thresholds, the
second half, drawn afresh, counts that single event, so the final bound is
valid although the event was chosen from data.

Mechanism audits (worst-case neighbours under each paper's adjacency):

* local DP (Paper B2 section 3): classic randomized response
  (:func:`audit_randomized_response`; the privacy loss is known exactly,
  :func:`exact_rr_epsilon`), its debiased/ADRR release
  (:func:`audit_debiased_rr`), the Laplace baseline
  (:func:`audit_laplace_ldp`) and a deliberately broken Laplace release with
  half the noise (:func:`broken_laplace_ldp`, true loss ``2 eps``);
* central DP of Paper A: noisy counts under edge DP (Algorithm 2,
  :func:`audit_noisy_counts_edge`) and individual DP (Algorithm 3,
  :func:`audit_noisy_counts_individual`), the objective-perturbed MLE of
  Algorithm 1 (:func:`audit_perturbed_mle_edge`), the sum-to-zero perturbed
  MLE of individual DP (Proposition 3.1, Algorithm 3's MLE step;
  :func:`audit_perturbed_mle_individual`) and the one-shot top-1 selection
  of Experiment 4 under edge DP, on the worst tournament pair found by
  exhaustive search (:func:`audit_one_shot`, :func:`one_shot_worst_neighbours`);
* Paper B2's NoisyObj baseline with the assumed calibration (docs/papers/paper-b.md#a10)
  (:func:`audit_noisy_obj`).

Statistics. Where the output density is known the audits use the
Neyman-Pearson statistic, the log-likelihood ratio ``log f1(x) - log f0(x)``
of the output (a post-processing of the output, hence a legitimate
statistic, and the most powerful one). For Algorithm 1 the density follows
from the change of variables ``w = -grad R(theta; y)`` of the paper's proof of
Proposition 2.1 (appendix A.1)::

    f(theta | y) = (2 lambda)^-n exp(-||grad R(theta; y)||_1 / lambda) det hess R(theta; y)

(the Jacobian of ``theta -> w`` multiplies; the proof prints its inverse, a
slip that does not affect its two-sided bound on the ratio). The individual-DP
MLE is constrained to ``sum(theta) = 0``; its density on that hyperplane
integrates the noise density along the line of perturbations that lead to the
same output (:func:`constrained_perturbed_mle_log_density`). The one-shot
release is discrete (the top item) and its law is computed by quadrature
(:func:`one_shot_top1_probabilities`).

All randomness comes from an explicit :class:`numpy.random.Generator`
(e.g. ``seeding.generator(..., Stream.AUDIT)``).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import scipy  # submodules load on first use; scipy.stats (about 0.35 s) is not needed

from . import _checks
from .ldp import debias, laplace_release, randomized_response, rr_flip_probability
from .mechanisms import (
    edge_count_noise_scale,
    edge_mle_noise_scale,
    individual_count_noise_scale,
    individual_gamma,
    individual_mle_noise_scale,
    standard_laplace,
)
from .mle import ConvergenceError, fit_penalized_mle, fit_penalized_mle_batch
from .models import BTL
from .objective import batch_derivatives, batch_hessian, edge_ridge
from .oneshot import (
    dobrushin_coefficient,
    one_shot_noise_scale,
    one_shot_scores,
    rank_centrality_matrix,
    stationary_distribution,
)
from .ranking import copeland_counts, noisy_counts
from .weighted_mle import noisy_obj_fit

__all__ = [
    "AuditResult",
    "audit_debiased_rr",
    "audit_laplace_ldp",
    "audit_mechanism",
    "audit_noisy_counts_edge",
    "audit_noisy_counts_individual",
    "audit_noisy_obj",
    "audit_one_shot",
    "audit_perturbed_mle_edge",
    "audit_perturbed_mle_individual",
    "audit_randomized_response",
    "broken_laplace_ldp",
    "clopper_pearson",
    "coded_edge_gamma",
    "constrained_perturbed_mle_log_density",
    "epsilon_lower_bound",
    "exact_rr_epsilon",
    "individual_mle_neighbours",
    "one_shot_top1_probabilities",
    "one_shot_worst_neighbours",
    "perturbed_mle_log_density",
    "perturbed_mle_neighbours",
    "private_edge_gamma",
]

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
    lo, hi = _cp_arrays(np.asarray(k), np.asarray(n), alpha)
    return float(lo), float(hi)


def _beta_ppf(q, a, b):
    """Quantile ``q`` of Beta(a, b): ``scipy.special.betaincinv``, the function behind
    ``scipy.stats.beta.ppf`` (bit-identical values; ``scipy.stats`` itself takes about 0.35 s
    to import)."""
    return scipy.special.betaincinv(a, b, q)


def _cp_arrays(k, n, alpha):
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


def _eps_bound_arrays(k0, n0, k1, n1, delta, alpha):
    """Vectorised :func:`epsilon_lower_bound` (event oriented towards ``D1``)."""
    # one-sided 1 - alpha/2 bounds: the lower end of the two-sided (1 - alpha) interval
    # for p1 and the upper end for p0; Bonferroni over the two gives 1 - alpha overall
    p1_low, _ = _cp_arrays(k1, n1, alpha)
    _, p0_high = _cp_arrays(k0, n0, alpha)
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
    return float(_eps_bound_arrays(k0, n0, k1, n1, delta, alpha))


def exact_rr_epsilon(eps: float) -> float:
    """Exact privacy loss of classic randomized response with budget ``eps``.

    The output law is Bernoulli: ``P(y~ = y) = 1 - p`` with ``p = 1/(e^eps+1)``
    (:func:`dprank.ldp.rr_flip_probability`), so the largest log-likelihood
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


def _check_audit(eps, trials, rng, alpha, *, n=_ABSENT, min_n=2, L=_ABSENT) -> None:
    """The arguments every audit takes, each checked by name before any run."""
    _checks.positive_finite(eps, "eps")
    _checks.count(trials, "trials", 4)
    _checks.rng(rng)
    _checks.probability(alpha, "alpha", low_open=True, high_open=True)
    if n is not _ABSENT:
        _checks.count(n, "n", min_n)
    if L is not _ABSENT:
        _checks.count(L, "L", 1)


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
    toward1 = _eps_bound_arrays(k0, n_sel, k1, n_sel, claimed_delta, alpha)
    toward0 = _eps_bound_arrays(k1, n_sel, k0, n_sel, claimed_delta, alpha)
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
# local DP (Paper B2)


def _rr_audit(name, eps, trials, rng, alpha, release):
    """Audit a release of one comparison's RR bit (``release`` maps the bits to outputs)."""

    def sampler(y):
        return lambda g, size: release(randomized_response(np.full(size, y, np.uint8), eps, g))

    return audit_mechanism(
        name,
        sampler(0),
        sampler(1),
        trials,
        rng,
        eps,
        alpha=alpha,
        exact_eps=exact_rr_epsilon(eps),
    )


def audit_randomized_response(
    eps: float, trials: int, rng: np.random.Generator, alpha: float = 0.05
) -> AuditResult:
    """Audit classic RR (B2 section 3.1): one comparison ``y = 0`` vs ``y = 1``.

    The statistic is the released bit; the exact loss is :func:`exact_rr_epsilon`.
    """
    _check_audit(eps, trials, rng, alpha)
    return _rr_audit("randomized_response", eps, trials, rng, alpha, lambda bits: bits)


def audit_debiased_rr(
    eps: float, trials: int, rng: np.random.Generator, weight: float = 1.0, alpha: float = 0.05
) -> AuditResult:
    """Audit the debiased (ADRR) release ``w_l z~`` of one comparison (B2 eq. (3)-(4)).

    ``z~`` is an affine, increasing function of the RR bit and the ADRR weight
    ``w_l > 0`` (:func:`dprank.ldp.adrr_weights`) depends only on the budgets,
    so the release is post-processing of RR: same exact loss ``eps``.
    """
    _check_audit(eps, trials, rng, alpha)
    _checks.positive_finite(weight, "weight")
    return _rr_audit(
        "debiased_rr", eps, trials, rng, alpha, lambda bits: weight * debias(bits, eps)
    )


def _laplace_audit(name, eps, release_eps, trials, rng, alpha):
    def sampler(y):
        return lambda g, size: laplace_release(np.full(size, float(y)), release_eps, g)

    # y + Laplace(1/release_eps), sensitivity 1: exact loss release_eps
    return audit_mechanism(
        name, sampler(0), sampler(1), trials, rng, eps, alpha=alpha, exact_eps=release_eps
    )


def audit_laplace_ldp(
    eps: float, trials: int, rng: np.random.Generator, alpha: float = 0.05
) -> AuditResult:
    """Audit B2's Laplace LDP baseline ``y + Laplace(1/eps)``, ``y in {0, 1}``.

    Sensitivity 1, so the exact loss is ``eps`` (attained for outputs ``>= 1``).
    """
    _check_audit(eps, trials, rng, alpha)
    return _laplace_audit("laplace_ldp", eps, eps, trials, rng, alpha)


def broken_laplace_ldp(
    eps: float, trials: int, rng: np.random.Generator, alpha: float = 0.05
) -> AuditResult:
    """Audit a deliberately broken Laplace release claiming ``eps``: noise ``Laplace(1/(2 eps))``.

    Half the required scale: the true loss is ``2 eps``, so a correct audit
    flags a VIOLATION with enough trials.
    """
    _check_audit(eps, trials, rng, alpha)
    return _laplace_audit("broken_laplace_ldp", eps, 2.0 * eps, trials, rng, alpha)


# ---------------------------------------------------------------------------
# noisy counts (Paper A, Algorithms 2 and 3)


def _round_llr(llr: np.ndarray) -> np.ndarray:
    """Round log-likelihood ratios to 9 decimals.

    The ratio saturates at its maximum on sets of positive probability; there
    the computed values differ from the maximum only by round-off, whose sign
    may depend on the input (``D0`` or ``D1``). An event ``{llr > max}`` would
    then separate the inputs through floating-point error alone, an artefact
    of the statistic, not of the mechanism.
    """
    return np.round(llr, 9)


def _laplace_llr(x: np.ndarray, mean0: np.ndarray, mean1: np.ndarray, scale: float):
    """``log f1(x) - log f0(x)`` for iid Laplace(scale) noise around ``mean0``/``mean1``."""
    return (np.abs(x - mean0) - np.abs(x - mean1)).sum(axis=-1) / scale


def _count_audit(name, eps, wins0, wins1, scale, trials, rng, statistic, item, alpha):
    n = wins0.shape[0]
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
                llr = _laplace_llr(out[:, changed], c0[changed], c1[changed], scale)
                return _round_llr(llr)
            if statistic == "item":
                return out[:, item]
            return out[:, changed[0]] - out[:, changed[-1]]

        return draw

    return audit_mechanism(
        name, sampler(wins0), sampler(wins1), trials, rng, eps, alpha=alpha, exact_eps=exact
    )


def _complete_wins(n: int) -> np.ndarray:
    """One comparison per pair, the lower index winning (a fixed tournament)."""
    return np.triu(np.ones((n, n)), k=1)


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
    _check_audit(eps, trials, rng, alpha, n=n)
    _checks.count(n, "n", 2)
    wins0 = _complete_wins(n)
    wins1 = wins0.copy()
    wins1[0, 1], wins1[1, 0] = 0.0, 1.0
    scale = edge_count_noise_scale(eps)
    return _count_audit(
        "noisy_counts_edge", eps, wins0, wins1, scale, trials, rng, statistic, 0, alpha
    )


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
    ``L``. The noise scale is :func:`dprank.mechanisms.individual_count_noise_scale`
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
    _check_audit(eps, trials, rng, alpha, n=n, L=L)
    if L < 1 or n < 2:
        raise ValueError("need L >= 1 and n >= 2")
    wins0 = _complete_wins(n)
    wins1 = wins0.copy()
    wins0[0, 1] += L
    wins1[1, 0] += L
    scale = individual_count_noise_scale(eps, L)
    return _count_audit(
        "noisy_counts_individual", eps, wins0, wins1, scale, trials, rng, statistic, 0, alpha
    )


# ---------------------------------------------------------------------------
# objective-perturbed MLE (Paper A, Algorithm 1)


def coded_edge_gamma(n: int, p: float = 1.0) -> float:
    """The authors' edge-DP ridge ``gamma = 2 sqrt(n p log n)`` (docs/papers/paper-a.md#s1-1)."""
    n = _checks.count(n, "n", 1)
    _checks.probability(p, "p", low_open=True)
    return edge_ridge(n, p, 2.0)


def private_edge_gamma(eps: float, kappa2: float = BTL.kappa2) -> float:
    """Proposition 2.1's privacy condition at equality: ``gamma = 4 kappa2 / eps``.

    With the logistic link's curvature bound ``kappa2 = 1/4`` (the only
    property of ``kappa2`` the privacy proof uses) this is ``1/eps``; the
    printed condition (A2) would also ask ``min_{|x|<=4} sigma'(x) > 1/kappa2``,
    i.e. ``kappa2 >= 57`` (docs/papers/paper-a.md#a11).
    """
    _checks.positive(eps, "eps")
    _checks.positive_finite(kappa2, "kappa2")
    return 4.0 * kappa2 / eps


def _grad_hess_btl(theta: np.ndarray, wins: np.ndarray, gamma: float):
    """Gradient and Hessian of ``R(theta; y) = sum wins l(d) + gamma/2 |theta|^2`` (batched).

    :func:`dprank.objective.batch_derivatives` and :func:`dprank.objective.batch_hessian`.
    """
    pair_grad, v = batch_derivatives(BTL, wins, theta)
    return pair_grad + gamma * theta, batch_hessian(v, gamma)


def _check_density_args(theta, wins, gamma, lam):
    """``theta`` and ``wins`` as float arrays after checking the density's arguments by name."""
    theta = _checks.finite(theta, "theta", ndim=(1, 2))
    wins = _checks.win_matrix(wins, "wins")
    _checks.same_last_axis(theta, wins, "theta and wins")
    _checks.positive_finite(gamma, "gamma")
    _checks.positive_finite(lam, "lam")
    return np.asarray(theta, dtype=np.float64), np.asarray(wins, dtype=np.float64)


def perturbed_mle_log_density(theta, wins, gamma: float, lam: float) -> np.ndarray:
    """Log density of Algorithm 1's output ``theta`` (BTL), up to the constant ``-n log(2 lam)``.

    The map ``w -> theta`` solves ``grad R(theta; y) + w = 0`` and is a
    bijection (strong convexity), so by change of variables (Paper A,
    appendix A.1, whose ``det^-1`` should read ``det``)
    ``log f(theta) = -||grad R(theta; y)||_1 / lam + log det hess R(theta; y)``.

    Parameters
    ----------
    theta : (R, n) or (n,) array_like
        Outputs.
    wins : (n, n) array_like
        The data (``wins[i, j]`` = times ``i`` beat ``j``).
    gamma : float
        Ridge coefficient.
    lam : float
        Laplace scale of the perturbation ``b`` (:func:`dprank.mechanisms.edge_mle_noise_scale`).

    Returns
    -------
    numpy.ndarray
        ``(R,)`` (or scalar array) log densities.
    """
    theta, wins = _check_density_args(theta, wins, gamma, lam)
    single = theta.ndim == 1
    th = np.atleast_2d(theta)
    grad, hess = _grad_hess_btl(th, wins, float(gamma))
    _, logdet = np.linalg.slogdet(hess)
    out = -np.abs(grad).sum(axis=1) / lam + logdet
    return out[0] if single else out


def _fit_perturbed(wins, gamma, b, sum_zero=False):
    """Perturbed MLE fits for a batch of perturbations ``b`` (R, n), exact to ~1e-10.

    ``sum_zero=False``: Algorithm 1 (edge DP); ``True``: the individual-DP
    estimator of Proposition 3.1, constrained to ``sum(theta) = 0``. Rows the
    batched Newton leaves unconverged are refitted one by one from
    ``-b / gamma``; :class:`ConvergenceError` if that fails too.
    """
    fit = fit_penalized_mle_batch(wins, gamma, b, sum_zero=sum_zero, max_iter=200)
    theta = fit.theta
    for r in np.flatnonzero(~fit.converged):
        # the data terms move theta by at most (degree) / gamma from -b / gamma
        start = -b[r] / gamma
        one = fit_penalized_mle(wins, gamma, b[r], theta0=start, sum_zero=sum_zero, max_iter=1000)
        # with a tiny gamma theta is huge and Newton stalls at round-off level
        if not (one.converged or one.step_norm <= 1e-12 * max(1.0, np.abs(one.theta).max())):
            raise ConvergenceError(f"perturbed MLE fit did not converge (step {one.step_norm:.3g})")
        theta[r] = one.theta
    return theta


def perturbed_mle_neighbours(n: int, adjacency: str = "flip") -> tuple[np.ndarray, np.ndarray]:
    """Worst-case edge-adjacent win matrices ``(wins0, wins1)`` for Algorithm 1.

    ``"flip"``: a complete tournament on ``n`` items, one comparison per pair,
    with the outcome of ``(0, 1)`` flipped. ``"replace"``: items ``0..n-2``
    form a complete tournament and item ``n-1`` has one comparison, with item
    0; in ``D1`` that comparison is replaced by a second comparison of items 0
    and 1, leaving item ``n-1`` isolated (Proposition 2.1's case
    ``(k, l) != (i, j)``, where the Hessian, hence ``gamma``, matters).
    """
    _checks.count(n, "n", 3)
    if adjacency == "flip":
        wins0 = _complete_wins(n)
        wins1 = wins0.copy()
        wins1[0, 1], wins1[1, 0] = 0.0, 1.0
    elif adjacency == "replace":
        wins0 = np.zeros((n, n))
        wins0[: n - 1, : n - 1] = _complete_wins(n - 1)
        wins1 = wins0.copy()
        wins0[n - 1, 0] = 1.0
        wins1[1, 0] += 1.0
    else:
        raise ValueError(f"unknown adjacency {adjacency!r}")
    return wins0, wins1


def _perturbed_mle_sampler(wins0, wins1, gamma, lam, statistic, pair, log_density, sum_zero):
    """``wins -> draw(g, size)``: fit the perturbed MLE on ``wins`` with fresh noise.

    ``draw`` returns the statistic of each fit: the rounded log-likelihood
    ratio ``log_density(theta | wins1) - log_density(theta | wins0)`` for
    ``statistic == "llr"``, else the score difference of ``pair``. Shared by the
    edge-DP and the individual-DP (``sum_zero``) audits.
    """
    n = wins0.shape[0]

    def sampler(wins):
        def draw(g, size):
            b = lam * standard_laplace(g, (size, n))
            theta = np.empty((size, n))
            for s in range(0, size, 4096):
                theta[s : s + 4096] = _fit_perturbed(
                    wins, gamma, b[s : s + 4096], sum_zero=sum_zero
                )
            if statistic == "llr":
                return _round_llr(
                    log_density(theta, wins1, gamma, lam) - log_density(theta, wins0, gamma, lam)
                )
            return theta[:, pair[0]] - theta[:, pair[1]]

        return draw

    return sampler


def audit_perturbed_mle_edge(
    eps: float,
    n: int,
    trials: int,
    rng: np.random.Generator,
    gamma: float | None = None,
    adjacency: str = "flip",
    statistic: str = "llr",
    alpha: float = 0.05,
) -> AuditResult:
    """Audit Algorithm 1 (Paper A): objective-perturbed MLE under edge DP.

    ``theta~ = argmin sum wins l(theta_i - theta_j) + gamma/2 |theta|^2 + b^T theta``
    with ``b ~ Laplace(8 kappa1/eps)`` iid (:func:`dprank.mechanisms.edge_mle_noise_scale`),
    solved by :func:`dprank.mle.fit_penalized_mle_batch` (exact Newton).

    Parameters
    ----------
    eps : float
        Claimed budget.
    n : int
        Items (small, e.g. 5).
    trials : int
        Runs per neighbour.
    rng : numpy.random.Generator
    gamma : float, optional
        Ridge; default :func:`private_edge_gamma` (``1/eps``, Proposition 2.1
        with ``kappa2 = 1/4``). Pass :func:`coded_edge_gamma` for the authors'.
    adjacency : {"flip", "replace"}
        Neighbours, see :func:`perturbed_mle_neighbours`.
    statistic : {"llr", "difference"}
        ``"llr"``: the exact log-likelihood ratio
        ``log f1(theta~) - log f0(theta~)`` (:func:`perturbed_mle_log_density`),
        the most powerful statistic; ``"difference"``: ``theta~_0 - theta~_1``
        (flip) or ``theta~_{n-1} - theta~_0`` (replace).
    alpha : float

    Notes
    -----
    For the logistic link ``l''`` is the same for either outcome, so under
    ``"flip"`` the Hessian does not depend on the data and the privacy loss is
    ``||grad R(t; y1)||_1 - ||grad R(t; y0)||_1`` over ``lambda``, at most
    ``2 / lambda = eps / 4`` whatever ``gamma``; ``exact_eps`` reports it.
    """
    _check_audit(eps, trials, rng, alpha, n=n, min_n=3)
    lam = edge_mle_noise_scale(eps, BTL.kappa1)
    gamma = private_edge_gamma(eps) if gamma is None else float(gamma)
    if not gamma > 0:
        raise ValueError("gamma must be positive")
    wins0, wins1 = perturbed_mle_neighbours(n, adjacency)
    exact = 2.0 / lam if adjacency == "flip" else None
    pair = None  # the llr statistic uses no pair
    if statistic == "difference":
        pair = (0, 1) if adjacency == "flip" else (n - 1, 0)
    elif statistic != "llr":
        raise ValueError(f"unknown statistic {statistic!r}")

    sampler = _perturbed_mle_sampler(
        wins0, wins1, gamma, lam, statistic, pair, perturbed_mle_log_density, sum_zero=False
    )
    return audit_mechanism(
        f"perturbed_mle_edge[{adjacency}, gamma={gamma:.4g}]",
        sampler(wins0),
        sampler(wins1),
        trials,
        rng,
        eps,
        alpha=alpha,
        exact_eps=exact,
    )


# ---------------------------------------------------------------------------
# sum-to-zero perturbed MLE (Paper A, Proposition 3.1: individual DP)


def _sum_zero_basis(n: int) -> np.ndarray:
    """An ``n x (n-1)`` orthonormal basis ``B`` of ``S = {x : sum(x) = 0}``."""
    return scipy.linalg.null_space(np.ones((1, n)))


def _log_line_integral(g: np.ndarray, lam: float) -> np.ndarray:
    """``log I(g)``, ``I(g) = int exp(-sum_i |g_i + nu| / lam) dnu`` over the real line, exactly.

    With ``a = sort(-g)`` and ``h(nu) = sum_i |nu - a_i|`` (convex, piecewise
    linear), ``h`` has slope ``s_k = 2k - n`` on ``(a_(k), a_(k+1))`` and
    slopes ``-n`` / ``n`` on the two tails. Each piece integrates in closed
    form: a tail gives ``exp(-h(a_end)/lam) lam / n``; an inner piece of
    length ``c`` gives ``c exp(-h(a_(k))/lam)`` if ``s_k = 0`` and otherwise
    ``exp(-h_min/lam) lam (1 - exp(-|s_k| c/lam)) / |s_k|`` with ``h_min``
    the smaller of the end values (the left one if ``s_k > 0``, the right one
    if ``s_k < 0``, since ``h(a_(k+1)) = h(a_(k)) + s_k c``), which never
    forms a large exponential. The pieces are added by ``logsumexp``.

    Parameters
    ----------
    g : (..., n) array_like
    lam : float
        Positive scale.

    Returns
    -------
    (...) numpy.ndarray
    """
    a = np.sort(-np.asarray(g, dtype=np.float64), axis=-1)
    n = a.shape[-1]
    h = np.abs(a[..., :, None] - a[..., None, :]).sum(axis=-1)  # h(a_(k))
    gap = np.diff(a, axis=-1)
    slope = 2.0 * np.arange(1, n) - n
    h_min = np.where(slope > 0, h[..., :-1], h[..., 1:])
    with np.errstate(divide="ignore"):  # zero-length pieces give log 0 = -inf
        flat = np.log(gap) - h[..., :-1] / lam
        abs_s = np.where(slope == 0, 1.0, np.abs(slope))
        sloped = (
            -h_min / lam + math.log(lam) + np.log(-np.expm1(-abs_s * gap / lam)) - np.log(abs_s)
        )
    inner = np.where(slope == 0, flat, sloped)
    tails = math.log(lam / n) - h[..., [0, -1]] / lam
    return scipy.special.logsumexp(np.concatenate([inner, tails], axis=-1), axis=-1)


def constrained_perturbed_mle_log_density(theta, wins, gamma: float, lam: float) -> np.ndarray:
    """Log density of the sum-to-zero perturbed MLE's output (BTL) on ``S = {sum(theta) = 0}``.

    The estimator of Proposition 3.1 (individual DP) is
    ``theta~ = argmin_{theta in S} R(theta; y) + b^T theta`` with
    ``R(theta; y) = sum wins l(theta_i - theta_j) + gamma/2 |theta|^2`` and
    ``b`` iid ``Laplace(lam)``. This returns, up to the constant
    ``log sqrt(n) - n log(2 lam)`` (the same for every data set),

        log f(theta | y) = log det(B^T H B) + log I(g),
        I(g) = int exp(-sum_i |g_i + nu| / lam) dnu,

    with ``g = grad R(theta; y)``, ``H = hess R(theta; y)`` and ``B`` an
    ``n x (n-1)`` orthonormal basis of ``S``; the density is with respect to
    the ``(n-1)``-dimensional Lebesgue measure on ``S``.

    Derivation. The KKT conditions of the constrained problem say that
    ``theta in S`` is the output iff ``grad R(theta; y) + b + nu 1 = 0`` for
    some scalar ``nu``, so the perturbations leading to ``theta`` form the
    line ``b = -g - nu 1``. Writing ``theta = B u``, the map
    ``(u, nu) -> b = -grad R(B u; y) - nu 1`` is a bijection of
    ``R^(n-1) x R`` onto ``R^n`` (strong convexity on ``S``) with Jacobian
    ``[-H B, -1]``; with the orthogonal ``Q = [B, 1/sqrt(n)]``,
    ``|det [H B, 1]| = |det Q^T [H B, 1]| = sqrt(n) det(B^T H B)`` (the
    block ``B^T 1`` vanishes). Hence the joint density of ``(u, nu)`` is
    ``sqrt(n) det(B^T H B) (2 lam)^-n exp(-||g + nu 1||_1 / lam)`` and
    integrating out ``nu`` gives the formula. ``I(g)`` is computed exactly
    (the integrand is the exponential of a piecewise linear function; see
    :func:`_log_line_integral`).

    Parameters
    ----------
    theta : (R, n) or (n,) array_like
        Outputs, each summing to zero (not checked).
    wins : (n, n) array_like
        The data (``wins[i, j]`` = times ``i`` beat ``j``).
    gamma : float
        Ridge coefficient (:func:`dprank.mechanisms.individual_gamma`).
    lam : float
        Laplace scale of ``b`` (:func:`dprank.mechanisms.individual_mle_noise_scale`).

    Returns
    -------
    numpy.ndarray
        ``(R,)`` (or scalar array) log densities.
    """
    theta, wins = _check_density_args(theta, wins, gamma, lam)
    single = theta.ndim == 1
    th = np.atleast_2d(theta)
    grad, hess = _grad_hess_btl(th, wins, float(gamma))
    basis = _sum_zero_basis(th.shape[1])
    _, logdet = np.linalg.slogdet(basis.T @ hess @ basis)
    out = logdet + _log_line_integral(grad, float(lam))
    return out[0] if single else out


def individual_mle_neighbours(
    n: int, L: int, adjacency: str = "flip"
) -> tuple[np.ndarray, np.ndarray]:
    """Individual-adjacent win matrices ``(wins0, wins1)``: one user's ``L`` comparisons replaced.

    The other users give a complete tournament on ``n`` items (one comparison
    per pair, the lower index winning). ``"flip"``: the user compares items
    0 and 1 ``L`` times; item 0 wins all ``L`` in ``D0``, item 1 in ``D1``
    (the Hessian is unchanged). ``"replace"``: the user's ``L`` comparisons
    are "``n-1`` beats 0" in ``D0`` and "1 beats 0" in ``D1``, which moves
    curvature from pair ``(0, n-1)`` to pair ``(0, 1)`` (the Hessian changes).
    """
    _checks.count(n, "n", 3)
    _checks.count(L, "L", 1)
    wins0 = _complete_wins(n)
    wins1 = wins0.copy()
    if adjacency == "flip":
        wins0[0, 1] += L
        wins1[1, 0] += L
    elif adjacency == "replace":
        wins0[n - 1, 0] += L
        wins1[1, 0] += L
    else:
        raise ValueError(f"unknown adjacency {adjacency!r}")
    return wins0, wins1


def audit_perturbed_mle_individual(
    eps: float,
    n: int,
    L: int,
    trials: int,
    rng: np.random.Generator,
    adjacency: str = "flip",
    statistic: str = "llr",
    alpha: float = 0.05,
) -> AuditResult:
    """Audit the individual-DP perturbed MLE (Paper A, Proposition 3.1; Algorithm 3's MLE step).

    ``theta~ = argmin_{sum theta = 0} sum wins l(theta_i - theta_j) + gamma/2 |theta|^2
    + b^T theta`` with ``gamma = 2L/eps`` (:func:`dprank.mechanisms.individual_gamma`) and
    ``b ~ Laplace(8L/eps)`` iid (:func:`dprank.mechanisms.individual_mle_noise_scale`),
    solved by :func:`dprank.mle.fit_penalized_mle_batch` with ``sum_zero=True``
    (exact Newton), as the library fits it.

    Parameters
    ----------
    eps : float
        Claimed budget (finite).
    n : int
        Items (small, e.g. 5; ``>= 3``).
    L : int
        Comparisons per individual.
    trials : int
        Runs per neighbour.
    rng : numpy.random.Generator
    adjacency : {"flip", "replace"}
        Neighbours, see :func:`individual_mle_neighbours`.
    statistic : {"llr", "difference"}
        ``"llr"``: the exact log-likelihood ratio of the constrained output
        (:func:`constrained_perturbed_mle_log_density`), rounded as in
        :func:`audit_perturbed_mle_edge`; ``"difference"``:
        ``theta~_0 - theta~_1`` (flip) or ``theta~_{n-1} - theta~_0`` (replace).
    alpha : float

    Notes
    -----
    Under ``"flip"`` the logistic ``l''`` is the same for either outcome, so
    ``B^T H B`` does not depend on the data, and since ``l'(d) + l'(-d) = -1``
    the gradient moves by the constant ``g1 - g0 = L (e_0 - e_1)``. The loss
    is then ``log I(g0 + L (e_0 - e_1)) - log I(g0)``, at most
    ``||L (e_0 - e_1)||_1 / lam = 2L / lam = eps / 4`` in absolute value
    (pointwise in ``nu``). The bound is the exact loss on this pair: as ``b``
    ranges over ``R^n``, ``g0`` ranges over all of ``R^n`` modulo ``1`` (and
    ``I`` is invariant under ``g -> g + c 1``); at ``g0 = (-M, M, 0, ..., 0)``
    the two norms differ by exactly ``2L`` for ``|nu| < M - L``, which carries
    all but ``O(exp(-(n-2)(M-L)/lam))`` of the mass, so the ratio tends to
    ``2L / lam`` as ``M`` grows; it is continuous in ``theta`` and the densities
    are positive, so ``{llr > 2L/lam - eta}`` has positive probability for every
    ``eta > 0`` and the pure-DP loss (the essential supremum of ``|llr|``) is
    ``2L / lam``, which ``exact_eps`` reports. Under ``"replace"`` the Hessian
    changes as well and no closed form is known (``exact_eps`` is ``None``).
    """
    _check_audit(eps, trials, rng, alpha, n=n, min_n=3, L=L)
    if not (eps > 0 and math.isfinite(eps)):
        raise ValueError("eps must be positive and finite")
    lam = individual_mle_noise_scale(eps, L)
    gamma = individual_gamma(eps, L)
    wins0, wins1 = individual_mle_neighbours(n, L, adjacency)
    exact = 2.0 * L / lam if adjacency == "flip" else None
    pair = None  # the llr statistic uses no pair
    if statistic == "difference":
        pair = (0, 1) if adjacency == "flip" else (n - 1, 0)
    elif statistic != "llr":
        raise ValueError(f"unknown statistic {statistic!r}")

    sampler = _perturbed_mle_sampler(
        wins0,
        wins1,
        gamma,
        lam,
        statistic,
        pair,
        constrained_perturbed_mle_log_density,
        sum_zero=True,
    )
    return audit_mechanism(
        f"perturbed_mle_individual[{adjacency}, L={L}]",
        sampler(wins0),
        sampler(wins1),
        trials,
        rng,
        eps,
        alpha=alpha,
        exact_eps=exact,
    )


# ---------------------------------------------------------------------------
# one-shot top-k (Paper A, Experiment 4; dprank.oneshot)

#: Largest ``n`` for which :func:`one_shot_worst_neighbours` enumerates all tournaments.
_MAX_TOURNAMENT_N = 6

_GAUSS_NODES = 16


def _one_shot_location_scale(wins, eps: float, p: float = 1.0, k: int = 1):
    """``pi`` and the Laplace scale that :func:`dprank.oneshot.one_shot_scores` uses."""
    wins = np.asarray(wins, dtype=np.float64)
    n = wins.shape[0]
    d = n * p
    chain = rank_centrality_matrix(wins, d)
    pi = stationary_distribution(chain)
    rho = dobrushin_coefficient(chain, 1.0 / d)
    return pi, float(one_shot_noise_scale(n, k, d, rho, eps))


def _gauss_legendre_01(m: int) -> tuple[np.ndarray, np.ndarray]:
    x, w = np.polynomial.legendre.leggauss(m)
    return 0.5 * (x + 1.0), 0.5 * w


def _laplace_log_cdf(z: np.ndarray) -> np.ndarray:
    """``log F(z)`` of the standard Laplace law, accurate in both tails."""
    neg = np.minimum(z, 0.0)
    return np.where(z < 0, neg - math.log(2.0), np.log1p(-0.5 * np.exp(-np.maximum(z, 0.0))))


def _top1_probabilities(mu: np.ndarray, scale: np.ndarray) -> np.ndarray:
    """``P(argmax_i (mu_i + scale W_i) = i)``, ``W`` iid standard Laplace, for rows of ``mu``.

    ``P_i = int f(x - mu_i) prod_{j != i} F(x - mu_j) dx`` (``f``, ``F`` the
    Laplace(0, scale) density and CDF). Below ``min(mu)`` every factor is an
    exponential and the tail integrates to ``prod_j (c_j / 2) / n`` with
    ``c_j = exp((min(mu) - mu_j) / scale)``. Above ``max(mu)`` the substitution
    ``t = exp(-(x - max(mu)) / scale)`` turns the tail into
    ``int_0^1 (c_i / 2) prod_{j != i} (1 - c_j t / 2) dt`` with
    ``c_j = exp((mu_j - max(mu)) / scale)``, a polynomial of degree ``n - 1``
    that ``n``-point Gauss-Legendre integrates exactly. Between consecutive
    sorted ``mu`` the integrand is smooth (a sum of exponentials in ``x /
    scale``); each such interval is cut into pieces no longer than ``scale``
    and integrated by 16-point Gauss-Legendre (error far below 1e-12).

    Parameters
    ----------
    mu : (T, n) array_like
    scale : (T,) array_like
        Positive, finite.

    Returns
    -------
    (T, n) numpy.ndarray
    """
    mu = np.atleast_2d(np.asarray(mu, dtype=np.float64))
    s = np.asarray(scale, dtype=np.float64).reshape(-1, 1)
    if not np.all((s > 0) & np.isfinite(s)):
        raise ValueError("the noise scale must be positive and finite")
    n = mu.shape[1]
    lo = mu.min(axis=1, keepdims=True)
    hi = mu.max(axis=1, keepdims=True)
    # left tail, the same for every item
    left = np.exp(((lo - mu) / s - math.log(2.0)).sum(axis=1, keepdims=True)) / n
    # right tail: exact polynomial quadrature in t
    t, wt = _gauss_legendre_01(n)
    c = np.exp((mu - hi) / s)  # (T, n)
    log_fac = np.log1p(-0.5 * c[:, None, :] * t[None, :, None])  # (T, Q, n)
    excl = log_fac.sum(axis=2, keepdims=True) - log_fac
    right = 0.5 * c * np.einsum("q,tqn->tn", wt, np.exp(excl))
    # inner intervals between consecutive sorted mu, each in pieces of length <= scale
    srt = np.sort(mu, axis=1)
    gaps = np.diff(srt, axis=1)  # (T, n-1)
    pieces = max(1, int(np.ceil(np.max(gaps / s, initial=0.0))))
    x01, w01 = _gauss_legendre_01(_GAUSS_NODES)
    frac = (np.arange(pieces)[:, None] + x01[None, :]).ravel() / pieces  # (P Q,)
    x = srt[:, :-1, None] + gaps[:, :, None] * frac  # (T, n-1, P Q)
    weight = gaps[:, :, None] * np.tile(w01, pieces) / pieces
    z = (x[..., None] - mu[:, None, None, :]) / s[:, :, None, None]  # (T, n-1, PQ, n)
    log_cdf = _laplace_log_cdf(z)
    log_pdf = -np.abs(z) - np.log(2.0 * s)[:, :, None, None]
    integrand = np.exp(log_pdf + log_cdf.sum(axis=3, keepdims=True) - log_cdf)
    inner = np.einsum("tkq,tkqn->tn", weight, integrand)
    return left + inner + right


def one_shot_top1_probabilities(wins, eps: float, p: float = 1.0) -> np.ndarray:
    """Exact law of the one-shot top-1 release: ``P(item i is selected)`` for each ``i``.

    The release is the index of the largest score ``pi_i + s W_i``
    (:func:`dprank.oneshot.one_shot_scores` with ``k = 1``, ``W`` iid standard
    Laplace), where ``pi`` is the rank-centrality stationary distribution and
    ``s = 8 (2 / (d (1 - rho))) sqrt(log(n^3)) / eps`` depends on the data
    through the Dobrushin coefficient ``rho`` (``d = n p``). Hence

        P_i = int f(x - pi_i) prod_{j != i} F(x - pi_j) dx

    with ``f``, ``F`` the Laplace(0, s) density and CDF, computed by piecewise
    Gauss-Legendre quadrature, exact on the tails (:func:`_top1_probabilities`;
    the probabilities sum to one within ~1e-14).

    Parameters
    ----------
    wins : (n, n) array_like
        The data (``wins[i, j] > 0`` if ``i`` beat ``j``).
    eps : float
        Budget (positive and finite: ``eps = inf`` releases ``argmax pi``).
    p : float
        Design probability (``d = n p``).

    Returns
    -------
    (n,) numpy.ndarray
    """
    _checks.win_matrix(wins, "wins")
    _checks.positive_finite(eps, "eps")
    _checks.probability(p, "p", low_open=True)
    pi, scale = _one_shot_location_scale(wins, eps, p)
    return _top1_probabilities(pi[None, :], np.array([scale]))[0]


def _all_tournaments(n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every tournament on ``n`` items: bit ``e`` of the index says pair ``e``'s upper item won."""
    iu, ju = np.triu_indices(n, k=1)
    codes = np.arange(2**iu.size)
    upset = ((codes[:, None] >> np.arange(iu.size)) & 1).astype(np.float64)
    wins = np.zeros((codes.size, n, n))
    wins[:, iu, ju] = 1.0 - upset
    wins[:, ju, iu] = upset
    return wins, iu, ju


@functools.lru_cache(maxsize=8)
def _worst_one_shot_pair(n: int, eps: float) -> tuple[int, int, float]:
    wins, iu, _ = _all_tournaments(n)
    mu = np.full((wins.shape[0], n), np.nan)
    scale = np.full(wins.shape[0], np.nan)
    for r in range(wins.shape[0]):
        try:
            pi, sc = _one_shot_location_scale(wins[r], eps)
        except (np.linalg.LinAlgError, ValueError):
            continue
        if np.all(np.isfinite(pi)) and math.isfinite(sc) and sc > 0:
            mu[r], scale[r] = pi, sc
    ok = np.isfinite(scale)
    log_p = np.full(mu.shape, np.nan)
    rows = np.flatnonzero(ok)
    for start in range(0, rows.size, 2048):
        chunk = rows[start : start + 2048]
        log_p[chunk] = np.log(_top1_probabilities(mu[chunk], scale[chunk]))
    best = (-1, -1, -np.inf)
    codes = np.arange(wins.shape[0])
    for e in range(iu.size):
        partner = codes ^ (1 << e)
        keep = (codes < partner) & ok & ok[partner]
        loss = np.full(codes.size, -np.inf)
        loss[keep] = np.abs(log_p[keep] - log_p[partner[keep]]).max(axis=1)
        r = int(np.argmax(loss))
        if loss[r] > best[2]:
            best = (r, int(partner[r]), float(loss[r]))
    return best


def one_shot_worst_neighbours(n: int, eps: float) -> tuple[np.ndarray, np.ndarray, float]:
    """The edge-adjacent tournaments on which the one-shot top-1 release loses the most privacy.

    Enumerates all ``2^(n(n-1)/2)`` tournaments on ``n <= 6`` items (one
    comparison per pair, ``p = 1``, ``d = n``) and every single flipped
    outcome, computes both releases' exact laws
    (:func:`one_shot_top1_probabilities`) and keeps the pair maximising
    ``max_i |log P1_i - log P0_i|``, the exact pure-DP loss of the top-1
    release on that pair. Tournaments whose chain gives a non-finite noise
    scale or a failed stationary solve are skipped. Results are cached per
    ``(n, eps)``; for ``n = 5`` (1024 tournaments, 10 flips each) the search
    takes well under a second.

    Parameters
    ----------
    n : int
        Items, ``2 <= n <= 6``.
    eps : float
        Budget (positive, finite).

    Returns
    -------
    wins0, wins1 : (n, n) numpy.ndarray
        Win matrices differing in one comparison's outcome.
    loss : float
        Their exact loss.
    """
    n = _checks.count(n, "n", 2)
    if not 2 <= n <= _MAX_TOURNAMENT_N:
        raise ValueError(f"need 2 <= n <= {_MAX_TOURNAMENT_N} (exhaustive search)")
    _checks.positive_finite(eps, "eps")
    r0, r1, loss = _worst_one_shot_pair(n, float(eps))
    if r0 < 0:
        raise ValueError("no tournament pair with a finite noise scale")
    wins, _, _ = _all_tournaments(n)
    return wins[r0].copy(), wins[r1].copy(), loss


def audit_one_shot(
    eps: float,
    n: int,
    trials: int,
    rng: np.random.Generator,
    k: int = 1,
    p: float = 1.0,
    neighbours: tuple[np.ndarray, np.ndarray] | None = None,
    alpha: float = 0.05,
) -> AuditResult:
    """Audit the one-shot top-k method (Paper A, Experiment 4) under edge DP, for ``k = 1``.

    Each run releases the index of the largest of
    :func:`dprank.oneshot.one_shot_scores` (``pi + s W``, fresh standard
    Laplace ``W``), as the library does (ties, of probability zero, to the
    lower index). The claim is ``(eps, 1/n^2)``, the ``delta`` coded in
    :func:`dprank.oneshot.one_shot_noise_scale`. The statistic is the exact
    log-ratio ``log P1_i - log P0_i`` of the released item ``i``
    (:func:`one_shot_top1_probabilities`), a fixed function of the output;
    ``exact_eps`` is its largest absolute value, the exact pure-DP loss of
    the release on this pair.

    Parameters
    ----------
    eps : float
        Claimed budget (positive, finite).
    n : int
        Items.
    trials : int
        Runs per neighbour.
    rng : numpy.random.Generator
    k : int
        Size of the released set; only ``1`` is supported (the paper's
        ``k = n // 4`` is 1 for ``n = 5``).
    p : float
        Design probability (``d = n p``).
    neighbours : (wins0, wins1), optional
        Edge-adjacent win matrices; default :func:`one_shot_worst_neighbours`
        (requires ``p = 1``, i.e. tournaments).
    alpha : float

    Notes
    -----
    The noise scale depends on the data through the Dobrushin coefficient
    ``rho`` of the chain, so flipping one comparison changes the scale as
    well as the location ``pi``; the exact laws account for both.
    """
    _check_audit(eps, trials, rng, alpha, n=n)
    if k != 1:
        raise ValueError("only k = 1 is supported")
    if neighbours is None:
        if p != 1.0:
            raise ValueError("the worst-neighbour search needs p = 1 (tournaments)")
        wins0, wins1, _ = one_shot_worst_neighbours(n, eps)
    else:
        wins0, wins1 = (np.asarray(w, dtype=np.float64) for w in neighbours)
        if wins0.shape != (n, n) or wins1.shape != (n, n):
            raise ValueError(f"neighbours must be two ({n}, {n}) win matrices")
    log_ratio = np.log(one_shot_top1_probabilities(wins1, eps, p)) - np.log(
        one_shot_top1_probabilities(wins0, eps, p)
    )
    exact = float(np.abs(log_ratio).max())

    def sampler(wins):
        def draw(g, size):
            scores = one_shot_scores(wins, p, 1, eps, standard_laplace(g, (size, n)))
            return log_ratio[np.argmax(scores, axis=1)]

        return draw

    return audit_mechanism(
        f"one_shot_top1[n={n}]",
        sampler(wins0),
        sampler(wins1),
        trials,
        rng,
        eps,
        claimed_delta=1.0 / n**2,
        alpha=alpha,
        exact_eps=exact,
    )


# ---------------------------------------------------------------------------
# NoisyObj (Paper B2 baseline, docs/papers/paper-b.md#s1-4)


def audit_noisy_obj(
    eps: float,
    delta: float,
    trials: int,
    rng: np.random.Generator,
    m: int = 3,
    alpha: float = 0.05,
) -> AuditResult:
    """Audit B2's NoisyObj (:func:`dprank.weighted_mle.noisy_obj_fit`), calibrated per
    docs/papers/paper-b.md#a10.

    Data: one comparison of every pair of ``m`` items (lower index wins); the
    neighbour flips the outcome of ``(0, 1)``. Statistic ``theta~_0 - theta~_1``
    of the centred output. The claim is ``(eps, delta)``.
    """
    _check_audit(eps, trials, rng, alpha)
    _checks.probability(delta, "delta", low_open=True, high_open=True)
    iu, _ = np.triu_indices(m, k=1)
    n_obs = np.ones(iu.size)
    wins0 = np.ones(iu.size)
    wins1 = wins0.copy()
    wins1[0] = 0.0  # pair (0, 1) is first in triu order

    def sampler(wins):
        def draw(g, size):
            out = np.empty(size)
            for r in range(size):
                th = noisy_obj_fit(wins, n_obs, m, eps, g, delta).theta
                out[r] = th[0] - th[1]
            return out

        return draw

    return audit_mechanism(
        "noisy_obj", sampler(wins0), sampler(wins1), trials, rng, eps, delta, alpha=alpha
    )
