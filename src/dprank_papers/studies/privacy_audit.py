"""The privacy audit stage: every mechanism's claimed (eps, delta) against a measured lower bound.

Each audit (:mod:`dprank.audit`) runs the mechanism many times on two
worst-case neighbouring inputs under the paper's own adjacency and turns the
frequencies of one output event (chosen on an independent half of the runs)
into a Clopper-Pearson lower bound on epsilon. A bound above the claim is a
finding. Every audit draws from its own stream, keyed by the audit's label; its
row names, in the ``method`` column, the registered method (:mod:`dprank.methods`)
whose mechanism it audits (empty for the control).

Audited:

* Paper B (local DP, one comparison's value): classic RR, the debiased (ADRR)
  release, the Laplace release; B2's NoisyObj with the assumed
  calibration (docs/papers/paper-b.md#a10).
* Paper A: Algorithm 2's noisy counts (edge DP: one comparison changed),
  Algorithm 3's noisy counts (individual DP: one individual's L comparisons
  replaced), as an item count and as the whole released vector; Algorithm 1's
  perturbed MLE (edge DP) with the privacy-meeting ridge ``gamma = 1/eps`` and
  with the authors' coded ``gamma = 2 sqrt(n p log n)`` (docs/papers/paper-a.md#a11), for a changed
  and a moved comparison; the ``authors`` protocol's reuse of one fixed noise
  vector for every release; the individual-DP perturbed MLE (Proposition 3.1,
  Algorithm 3's MLE step: sum-to-zero, ``gamma = 2L/eps``, ``Laplace(8L/eps)``)
  for one individual's ``L`` comparisons flipped and moved to another pair; the
  one-shot top-1 selection of Experiment 4 (edge DP, claim ``(eps, 1/n^2)``) on
  the worst flipped comparison over all tournaments on ``n`` items.
* A control: the Laplace release with half the required noise, which must be
  flagged.
* The command line's releases as shipped (:mod:`dprank.audit.command_release`): the
  exact randomized response and Laplace of ``dprank privatize``, and ``dprank
  rank``'s edge counts, individual counts with a declared bound and one heavy
  user, and Algorithm 1 as released (the last two run one fit per
  trial, so they take at most 2,000 and 1,000 trials).
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial

import numpy as np
import pandas as pd

from dprank import audit
from dprank.audit import command_release as audit_release
from dprank.base import checks as _checks
from dprank.base.seeding import Stream, cell_key, generator
from dprank.fit.ranking import copeland_counts
from dprank.methods import get_method
from dprank.privacy.mechanisms import edge_count_noise_scale

__all__ = ["EXPECTED_VIOLATIONS", "fixed_noise_counts_audit", "run_audits"]

#: The audits whose VIOLATION is an intended finding (docs/audit.md), with the reason; the
#: workflow's log says so beside the verdict. A violation of any other audit is news.
EXPECTED_VIOLATIONS = {
    "Alg. 2 counts (edge), fixed noise": "the authors protocol reuses one noise vector",
    "Alg. 3 counts (individual), vector": "Algorithm 3's counts are 2 eps-private",
    "Laplace LDP, half the noise (broken)": "the control, which must be flagged",
}


def fixed_noise_counts_audit(eps: float, n: int, trials: int, rng, alpha: float):
    """Algorithm 2 with one noise vector reused for every release (the ``authors`` protocol).

    The authors drew the Laplace vector once (R's ``set.seed(13)``) and reused it
    for every replicate; any two releases of neighbouring data then differ by
    the data alone. Here each trial's output uses the same vector, so the
    neighbours' outputs never overlap and the bound grows with the trials.
    """
    wins0 = audit.complete_wins(n)
    wins1 = wins0.copy()
    wins1[0, 1], wins1[1, 0] = wins0[1, 0], wins0[0, 1]
    w = edge_count_noise_scale(eps) * rng.laplace(size=n)
    c0 = (copeland_counts(wins0) + w)[0]
    c1 = (copeland_counts(wins1) + w)[0]
    return audit.audit_mechanism(
        "Paper A Alg. 2, edge DP, one fixed noise vector (authors protocol)",
        lambda r, size: np.full(size, c0),
        lambda r, size: np.full(size, c1),
        trials,
        rng,
        claimed_eps=eps,
        alpha=alpha,
    )


#: The keys of ``run_audits``'s settings, in the order their absence is reported.
_SETTINGS = ("eps", "alpha", "trials", "fit_trials", "n", "L", "delta")


def _check_settings(settings: Mapping, seed: int) -> None:
    """The argument checks of :func:`run_audits`."""
    _checks.mapping(settings, "settings")
    missing = [k for k in _SETTINGS if k not in settings]
    if missing:
        raise ValueError(f"settings lacks {missing}")
    _checks.positive_finite(settings["eps"], "settings['eps']")
    _checks.probability(settings["alpha"], "settings['alpha']", low_open=True, high_open=True)
    for k, low in (("trials", 1), ("fit_trials", 1), ("n", 2), ("L", 1)):
        _checks.count(settings[k], f"settings['{k}']", low)
    _checks.probability(settings["delta"], "settings['delta']", low_open=True, high_open=True)
    _checks.count(seed, "seed")


def _jobs(paper: str, alpha: float, *rows: tuple) -> list:
    """``(paper, label, method, run(rng))`` per row ``(label, method, audit, *args)``.

    Every audit takes the generator after its own arguments and the confidence
    level as ``alpha``: ``run(rng)`` is ``audit(*args, rng, alpha=alpha)``.
    """
    return [
        (paper, label, method, partial(audit_fn, *args, alpha=alpha))
        for label, method, audit_fn, *args in rows
    ]


def _paper_b_audits(eps: float, alpha: float, t: int, tf: int, delta: float) -> list:
    """Paper B's local releases: ``(paper, label, method, run(rng))`` per audit."""
    return _jobs(
        "paper_b",
        alpha,
        ("classic RR", "local_classic_rr", audit.audit_randomized_response, eps, t),
        ("debiased RR (ADRR)", "local_adrr", audit.audit_debiased_rr, eps, t),
        ("Laplace LDP", "local_laplace", audit.audit_laplace_ldp, eps, t),
        ("NoisyObj", "edge_noisy_obj", audit.audit_noisy_obj, eps, delta, tf),
    )


def _paper_a_count_audits(eps: float, alpha: float, n: int, L: int, t: int) -> list:
    """Paper A's noisy counts (Algorithms 2 and 3), as ``(paper, label, method, run(rng))``."""
    item = partial(audit.audit_noisy_counts_individual, statistic="item")
    vector = partial(audit.audit_noisy_counts_individual, statistic="llr")
    return _jobs(
        "paper_a",
        alpha,
        ("Alg. 2 counts (edge)", "edge_counts", audit.audit_noisy_counts_edge, eps, n, t),
        ("Alg. 2 counts (edge), fixed noise", "edge_counts", fixed_noise_counts_audit, eps, n, t),
        ("Alg. 3 counts (individual), one item", "individual_counts", item, eps, n, L, t),
        ("Alg. 3 counts (individual), vector", "individual_counts", vector, eps, n, L, t),
    )


def _paper_a_fit_audits(eps: float, alpha: float, n: int, L: int, t: int, tf: int) -> list:
    """Paper A's perturbed MLEs and one-shot top-1, as ``(paper, label, method, run(rng))``."""
    edge, individual = audit.audit_perturbed_mle_edge, audit.audit_perturbed_mle_individual
    ridge = partial(edge, gamma=1.0 / eps)  # the privacy-meeting ridge
    coded = partial(edge, gamma=audit.coded_edge_gamma(n))  # the authors' coded ridge
    moved = partial(coded, adjacency="replace")
    flip, replace = (partial(individual, adjacency=a) for a in ("flip", "replace"))
    return _jobs(
        "paper_a",
        alpha,
        ("Alg. 1 MLE (edge), gamma = 1/eps", "edge_mle", ridge, eps, n, tf),
        ("Alg. 1 MLE (edge), coded gamma", "edge_mle", coded, eps, n, tf),
        ("Alg. 1 MLE (edge), coded gamma, moved comparison", "edge_mle", moved, eps, n, tf),
        ("Alg. 3 MLE (individual), flip", "individual_mle", flip, eps, n, L, tf),
        ("Alg. 3 MLE (individual), replaced", "individual_mle", replace, eps, n, L, tf),
        ("One-shot top-1 (edge)", "edge_one_shot", audit.audit_one_shot, eps, n, t),
    )


def _control_and_release_audits(eps: float, alpha: float, n: int, L: int, t: int, tf: int):
    """The broken control and the command line's releases: ``(paper, label, method, run(rng))``.

    The releases that fit an estimator, or simulate one heavy user's many
    comparisons, take fewer trials.
    """
    rel = audit_release
    heavy_user = partial(rel.audit_release_counts_individual, eps, n, L, min(tf, 2000))
    heavy_voter = partial(rel.audit_release_ties_individual, eps, n, L, min(t, 50000))
    return [
        *_jobs(
            "control",
            alpha,
            ("Laplace LDP, half the noise (broken)", "", audit.broken_laplace_ldp, eps, t),
        ),
        *_jobs(
            "release",
            alpha,
            ("privatize: randomized response", "local_classic_rr", rel.audit_release_rr, eps, t),
            ("privatize: Laplace", "local_laplace", rel.audit_release_laplace_ldp, eps, t),
            ("rank: edge counts", "edge_counts", rel.audit_release_counts_edge, eps, n, t),
            ("rank: individual counts, heavy user", "individual_counts", heavy_user),
            ("rank: edge MLE", "edge_mle", rel.audit_release_mle_edge, eps, n, min(tf, 1000)),
            # votes with ties (dprank.privacy.private_ties): streams keyed by these labels, so the
            # rows above keep their draws
            ("rank: edge ties (Davidson)", "edge_ties", rel.audit_release_ties_edge, eps, n, t),
            ("rank: voter ties, heavy voter", "individual_ties", heavy_voter),
            ("privatize: three-outcome RR", "local_ties", rel.audit_release_rr3, eps, t),
        ),
    ]


def _audit_row(paper: str, label: str, method: str, res) -> dict:
    """One row of :func:`run_audits`'s table from an audit's result."""
    return {
        "paper": paper,
        "audit": label,
        "method": method,
        "mechanism": res.mechanism,
        "claimed_eps": res.claimed_eps,
        "claimed_delta": res.claimed_delta,
        "lower_bound": res.lower_bound,
        "confidence": res.confidence,
        "trials": res.trials,
        "event": res.event,
        "exact_eps": res.exact_eps,
        "verdict": res.verdict,
    }


def run_audits(settings: Mapping, seed: int) -> pd.DataFrame:
    """Every audit with the stage's settings; one row per audit (claim, bound, verdict).

    ``settings``: ``eps``, ``alpha``, ``trials`` (cheap mechanisms, per
    neighbouring input), ``fit_trials`` (mechanisms that fit an estimator), ``n``
    (items), ``L`` (comparisons per individual), ``delta`` (NoisyObj).
    """
    _check_settings(settings, seed)
    eps, alpha = float(settings["eps"]), float(settings["alpha"])
    t, tf, n, L = (int(settings[k]) for k in ("trials", "fit_trials", "n", "L"))
    jobs = [
        *_paper_b_audits(eps, alpha, t, tf, float(settings["delta"])),
        *_paper_a_count_audits(eps, alpha, n, L, t),
        *_paper_a_fit_audits(eps, alpha, n, L, t, tf),
        *_control_and_release_audits(eps, alpha, n, L, t, tf),
    ]
    declared = {"n_items": n, "L": L, "delta": float(settings["delta"])}
    rows = []
    for paper, label, method, run in jobs:
        # keyed by the audit's label (not the method: several audits share one method)
        rng = generator(seed, "audit", cell_key({"mechanism": label}), 0, Stream.AUDIT)
        res = run(rng)
        if method:  # the registry's name of the method whose mechanism is audited
            _check_claim(label, res, get_method(method).privacy_loss(eps, **declared))
        rows.append(_audit_row(paper, label, method, res))
    return pd.DataFrame(rows)


def _check_claim(label: str, res, loss) -> None:
    """The audit tests the method's own guarantee: its privacy map's ``(epsilon, delta)``."""
    if (res.claimed_eps, res.claimed_delta) != (loss.epsilon, loss.delta):
        raise RuntimeError(
            f"audit {label!r} claims ({res.claimed_eps}, {res.claimed_delta}), but its method's "
            f"privacy map gives ({loss.epsilon}, {loss.delta}) at the {loss.unit}"
        )
