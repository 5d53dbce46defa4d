"""B2 supplement S.1.2 and S.1.3: mixed effects (Table 3) and model selection (Table 4).

Both are non-private (docs/papers/paper-b.md#a20, A22: the settings the paper omits were
chosen because they reproduce its numbers; the private Scenario I setting
gives model-selection rates far below Table 4).

* **Mixed effects**: ``gamma*_l ~ N(0, sigma^2)``,
  ``y ~ Bern(F(gamma*_l + theta*_i - theta*_j))`` (BTL), every user compares
  every pair with probability ``p``; the two-step fixed-effects estimator
  (:func:`dprank.fit.mixed_effects.fit_mixed_effects_btl`) gives ``theta^`` and
  ``sigma^``; metrics ``l2_over_sqrt_m_theta`` and ``abs_sigma_hat_minus_sigma``.
* **Model selection**: the generating model is BTL or TM with probability
  1/2; both models are fitted by objective (5) on the raw comparisons
  (``w_l = 1/L``, ``lambda = c / L``) and BTL is chosen iff its unpenalised loss
  ``L_0`` is smaller; metric ``prop_correct_model_selected`` (1 or 0).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from dprank.base import checks as _checks
from dprank.base.seeding import Stream
from dprank.data.models import get_link
from dprank.fit.metrics_b import rms_error
from dprank.fit.mixed_effects import fit_mixed_effects_btl, simulate_mixed_effects_btl
from dprank.fit.weighted_mle import fit_weighted_mle, weighted_objective
from dprank.privacy.ldp import sample_rr_statistics_equal_eps

from ._frames import Frame, frame
from .scenarios import (
    Chunk,
    FitSettings,
    check_chunk,
    check_estimate_args,
    check_fit_args,
    true_scores,
)

__all__ = [
    "MODELS",
    "estimate_mixed_chunk",
    "estimate_selection_chunk",
    "simulate_mixed_chunk",
    "simulate_selection_chunk",
]

#: candidate models of the selection study, by index
MODELS = ("btl", "tm")


def simulate_mixed_chunk(chunk: Chunk, sigma: float) -> dict[str, np.ndarray]:
    """``theta`` (R, m), ``gamma`` (R, L), comparisons ``y`` (R, L, P) and mask ``a``."""
    cell = check_chunk(chunk).cell
    _checks.non_negative(sigma, "sigma")
    out: dict[str, list] = {"theta": [], "gamma": [], "y": [], "a": []}
    for r in chunk.replicates:
        theta = true_scores(cell, chunk.rng(r, Stream.THETA))
        rng = chunk.rng(r, Stream.DATA)
        gamma, y, a = simulate_mixed_effects_btl(theta, int(cell["L"]), sigma, chunk.p, rng)
        for k, v in (("theta", theta), ("gamma", gamma), ("y", y), ("a", a)):
            out[k].append(v)
    arrays = {k: np.asarray(v) for k, v in out.items()}
    arrays["replicate"] = np.asarray(chunk.replicates, dtype=np.int64)
    return arrays


def estimate_mixed_chunk(
    data: Mapping[str, np.ndarray],
    cell: Mapping,
    sigma: float,
    lam: float,
    ridge: float,
    gtol: float,
    max_iter: int,
    metrics: Sequence[str],
) -> Frame:
    """Two-step estimates of every replicate: theta and sigma errors, convergence."""
    check_estimate_args(data, cell, gtol, max_iter, sigma=sigma, lam=lam, ridge=ridge)
    _checks.names(metrics, "metrics", ("l2_over_sqrt_m_theta", "abs_sigma_hat_minus_sigma"))
    m = int(cell["m"])
    rows = []
    for i, r in enumerate(data["replicate"]):
        fit = fit_mixed_effects_btl(
            data["y"][i], data["a"][i], m, lam=lam, ridge=ridge, gtol=gtol, max_iter=max_iter
        )
        values = {
            "l2_over_sqrt_m_theta": float(rms_error(fit.theta, data["theta"][i])),
            "abs_sigma_hat_minus_sigma": abs(fit.sigma_hat - sigma),
        }
        for metric in [*metrics, "converged"]:
            value = float(fit.converged) if metric == "converged" else values[metric]
            row = {**cell, "replicate": int(r), "method": "two_step_fixed_effects"}
            rows.append({**row, "metric": metric, "value": value})
    return frame(rows)


def simulate_selection_chunk(chunk: Chunk) -> dict[str, np.ndarray]:
    """True model index (0 BTL, 1 TM), scores and raw per-pair statistics (``w_l = 1/L``).

    All comparisons of a pair share one law, so the counts are sampled
    binomially per pair (no privacy: ``eps = inf``).
    """
    cell = check_chunk(chunk).cell
    L = int(cell["L"])
    truth, thetas, stats_s, stats_n = [], [], [], []
    for r in chunk.replicates:
        g = chunk.rng(r, Stream.THETA)
        theta = true_scores(cell, g)
        model = int(g.integers(2))
        rng = chunk.rng(r, Stream.DATA)
        link = get_link(MODELS[model])
        counts = sample_rr_statistics_equal_eps(theta, L, chunk.p, np.inf, rng, link)
        S, N = counts.nonprivate_statistics()
        truth.append(model)
        thetas.append(theta)
        stats_s.append(S)
        stats_n.append(N)
    return {
        "truth": np.asarray(truth, dtype=np.int64),
        "theta": np.asarray(thetas),
        "S": np.asarray(stats_s),
        "N": np.asarray(stats_n),
        "replicate": np.asarray(chunk.replicates, dtype=np.int64),
    }


def estimate_selection_chunk(
    data: Mapping[str, np.ndarray],
    cell: Mapping,
    settings: FitSettings,
) -> Frame:
    """Fit BTL and TM, choose the smaller unpenalised loss; 1 if the choice is right."""
    check_fit_args(data, cell, settings)
    m, L = int(cell["m"]), int(cell["L"])
    rows = []
    for i, r in enumerate(data["replicate"]):
        S, N = data["S"][i], data["N"][i]
        losses, converged = [], True
        for model in MODELS:
            link = get_link(model)
            lam = settings.lambda_c / L
            fit = fit_weighted_mle(
                S, N, m, lam, link, gtol=settings.gtol, max_iter=settings.max_iter
            )
            # L_0: objective (5) without the ridge
            penalised = weighted_objective(fit.theta, S, N, lam, link)
            losses.append(penalised - lam * float(fit.theta @ fit.theta))
            converged &= bool(fit.converged)
        chosen = 0 if losses[0] < losses[1] else 1
        for metric, value in (
            ("prop_correct_model_selected", float(chosen == int(data["truth"][i]))),
            ("converged", float(converged)),
        ):
            row = {**cell, "replicate": int(r), "method": "likelihood_selection"}
            rows.append({**row, "metric": metric, "value": value})
    return frame(rows)
