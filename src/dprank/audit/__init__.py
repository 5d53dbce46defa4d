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

The code is split by topic into private submodules, all re-exported here:
``_core`` (the bounds and :func:`audit_mechanism`), ``_releases`` (additive-noise
releases: local DP and noisy counts), ``_perturbed_mle`` (objective-perturbed MLEs
and their densities, NoisyObj) and ``_oneshot`` (the one-shot top-1 law).
"""

from __future__ import annotations

from ._core import VERDICT_SLACK as VERDICT_SLACK
from ._core import (
    AuditResult,
    audit_mechanism,
    clopper_pearson,
    epsilon_lower_bound,
    exact_rr_epsilon,
)
from ._core import Sampler as Sampler
from ._core import check_audit as check_audit
from ._core import checked_audit as checked_audit
from ._core import complete_wins as complete_wins
from ._core import cp_arrays as cp_arrays
from ._core import laplace_llr as laplace_llr
from ._core import round_llr as round_llr
from ._oneshot import audit_one_shot, one_shot_top1_probabilities, one_shot_worst_neighbours
from ._perturbed_mle import (
    audit_noisy_obj,
    audit_perturbed_mle_edge,
    audit_perturbed_mle_individual,
    coded_edge_gamma,
    constrained_perturbed_mle_log_density,
    individual_mle_neighbours,
    perturbed_mle_log_density,
    perturbed_mle_neighbours,
    private_edge_gamma,
)
from ._perturbed_mle import fit_perturbed as fit_perturbed
from ._perturbed_mle import grad_hess_btl as grad_hess_btl
from ._perturbed_mle import log_line_integral as log_line_integral
from ._perturbed_mle import sum_zero_basis as sum_zero_basis
from ._releases import (
    audit_debiased_rr,
    audit_laplace_ldp,
    audit_noisy_counts_edge,
    audit_noisy_counts_individual,
    audit_randomized_response,
    broken_laplace_ldp,
)

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
    "complete_wins",
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
