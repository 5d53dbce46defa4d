"""B2 Scenario V: ADRR against NoisyObj, Laplace, classic RR and the count method.

Figures 8, 9 and 13, Tables 10 and 11 (docs/papers/paper-b.md#b2-fig8). Every
replicate draws its own size, ``m ~ Unif{m_lo..m_hi}`` and
``L ~ Unif{L_lo..L_hi}``, budgets ``eps_l ~ U(a, b)`` and ``theta* ~ U(-1, 1)``
centred, then one raw data set (observation probability ``p``) released in
every way the methods need, from the same raw comparisons and, for the RR
methods, the same RR outputs (so the methods are paired):

* ``local_adrr``: debiased RR outputs with the ADRR weights, objective (5);
* ``local_classic_rr`` and ``local_laplace``: the raw RR or Laplace outputs plugged into
  the same objective, unweighted (``w_l = 1/L``), the same ``lambda`` (docs/papers/paper-b.md#s1-4);
* ``edge_noisy_obj`` (BTL only): Gaussian objective perturbation on the raw
  comparisons with ``(min eps_l, delta)``, the assumed constants
  (:func:`dprank.fit.weighted_mle.noisy_obj_fit`, docs/papers/paper-b.md#a10);
* ``local_count``: ranks by the RR wins, ties broken at random (docs/papers/paper-b.md#s1-4, A12).

Replicates differ in ``m``, so a chunk stores its per-replicate arrays
concatenated: ``m`` and ``L`` give the offsets.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from dprank.base import checks as _checks
from dprank.base.seeding import Stream, cell_key, generator
from dprank.data.models import get_link
from dprank.fit.metrics_b import kendall_distance
from dprank.fit.weighted_mle import default_lambda, fit_weighted_mle, noisy_obj_fit
from dprank.privacy.ldp import privacy_constant, simulate_ldp_statistics

from ._frames import Frame, frame
from .scenarios import (
    METRICS,
    Chunk,
    FitSettings,
    check_chunk,
    check_fit_args,
    true_scores,
    user_budgets,
)

__all__ = ["METHODS", "estimate_chunk", "simulate_chunk", "split"]

#: methods of Scenario V, in the order of B2 Table 10 (plus the count method)
METHODS = ("local_adrr", "edge_noisy_obj", "local_laplace", "local_classic_rr", "local_count")
_STATS = {"local_adrr": "adrr", "local_classic_rr": "classic_rr", "local_laplace": "laplace"}


def simulate_chunk(
    chunk: Chunk, draws: Mapping | None = None, theta_law: str = "uniform"
) -> dict[str, np.ndarray]:
    """Sizes, budgets, true scores and every method's statistics of a chunk's replicates.

    ``m`` and ``L`` come from the chunk's cell if it has them (B1 Scenario V: fixed
    sizes, ``eps = value`` for every user, ``theta* ~ U(-2, 2)``), else from
    ``draws`` per replicate (B2 Scenario V).

    Returns
    -------
    dict
        ``m, L, B, eps_min, replicate`` (R,); ``theta`` and ``count_scores``
        (sum of m,); ``S_adrr, N_adrr, S_classic_rr, N_classic_rr, S_laplace,
        N_laplace, S_raw, N_raw`` (sum of m(m-1)/2,), replicate after replicate.
    """
    cell, eps = check_chunk(chunk).cell, chunk.scheme()
    if draws is not None:
        _checks.mapping(draws, "draws")
    link = get_link(cell["model"])
    out: dict[str, list] = {k: [] for k in ("m", "L", "B", "eps_min", "theta", "count_scores")}
    for name in (*_STATS.values(), "raw"):
        out[f"S_{name}"], out[f"N_{name}"] = [], []
    for r in chunk.replicates:
        g = chunk.rng(r, Stream.EPSILON)
        m = int(cell["m"]) if "m" in cell else int(g.integers(draws["m"][0], draws["m"][1] + 1))
        L = int(cell["L"]) if "L" in cell else int(g.integers(draws["L"][0], draws["L"][1] + 1))
        budget = user_budgets({"L": L, **{k: cell[k] for k in ("eps",) if k in cell}}, eps, g)
        theta = true_scores({"m": m}, chunk.rng(r, Stream.THETA), theta_law)
        released = simulate_ldp_statistics(
            theta,
            budget,
            chunk.p,
            chunk.rng(r, Stream.RELEASE),
            link=link,
            releases=(*_STATS.values(), "raw", "count"),
        )
        out["m"].append(m)
        out["L"].append(L)
        out["B"].append(privacy_constant(budget))
        out["eps_min"].append(float(budget.min()))
        out["theta"].append(theta)
        out["count_scores"].append(released.count_scores)
        for name in (*_STATS.values(), "raw"):
            S, N = getattr(released, name)
            out[f"S_{name}"].append(S)
            out[f"N_{name}"].append(N)
    arrays = {k: np.asarray(v) for k, v in out.items() if k in ("m", "L", "B", "eps_min")}
    for k, v in out.items():
        if k not in arrays:
            arrays[k] = np.concatenate(v) if v else np.zeros(0)
    arrays["replicate"] = np.asarray(chunk.replicates, dtype=np.int64)
    return arrays


def split(data: Mapping[str, np.ndarray], i: int) -> dict:
    """Replicate ``i`` of a chunk: scalars and its slices of the concatenated arrays."""
    _checks.mapping(data, "data")
    i = _checks.count(i, "i")
    if i >= len(data["replicate"]):
        raise ValueError(f"i must be < {len(data['replicate'])} (the replicates in data), got {i}")
    m = np.asarray(data["m"], dtype=np.int64)
    pairs = m * (m - 1) // 2
    a, b = int(m[:i].sum()), int(m[: i + 1].sum())
    c, d = int(pairs[:i].sum()), int(pairs[: i + 1].sum())
    rep = {k: data[k][i] for k in ("m", "L", "B", "eps_min", "replicate")}
    rep.update({k: data[k][a:b] for k in ("theta", "count_scores")})
    rep.update({k: data[k][c:d] for k in data if k.startswith(("S_", "N_"))})
    return rep


def _check_estimate(data, cell, seed, experiment, settings, metrics, methods):
    """The argument checks of :func:`estimate_chunk` (all but ``noisy_obj_delta``)."""
    check_fit_args(data, cell, settings)
    _checks.count(seed, "seed")
    _checks.text(experiment, "experiment")
    _checks.names(metrics, "metrics", METRICS)
    _checks.names(methods, "methods", METHODS)


def _noisy_obj(rep: Mapping, m: int, rng, delta: float, settings: FitSettings):
    """NoisyObj's fit of one replicate (:func:`split`) on its raw statistics."""
    return noisy_obj_fit(
        rep["S_raw"],
        rep["N_raw"],
        m,
        float(rep["eps_min"]),
        rng,
        delta,
        gtol=settings.gtol,
        max_iter=settings.max_iter,
    )


def _weighted_fit(rep: Mapping, method: str, m: int, lam: float, link, settings: FitSettings):
    """An estimator's weighted fit of one replicate (:func:`split`) on its statistics."""
    name = _STATS[method]
    return fit_weighted_mle(
        rep[f"S_{name}"],
        rep[f"N_{name}"],
        m,
        lam,
        link,
        gtol=settings.gtol,
        max_iter=settings.max_iter,
    )


def estimate_chunk(
    data: Mapping[str, np.ndarray],
    cell: Mapping,
    seed: int,
    experiment: str,
    settings: FitSettings,
    metrics: Sequence[str],
    methods: Sequence[str] = METHODS,
    noisy_obj_delta: float = 1e-6,
) -> Frame:
    """Every method's estimate (or ranking) of every replicate and its errors.

    Tidy rows ``(cell keys, replicate, method, metric, value)``. Estimators
    give every requested metric and ``converged``; the count method gives the
    ranking metrics only (``kendall_tau_K``). NoisyObj runs on BTL data only
    (B2 Table 10 has no TM entry). Its noise and the count method's
    tie-breaks come from the replicate's own streams.
    """
    _check_estimate(data, cell, seed, experiment, settings, metrics, methods)
    _checks.positive_finite(noisy_obj_delta, "noisy_obj_delta")
    link = get_link(cell["model"])
    key = cell_key({"role": "data", **cell})
    rows = []

    def emit(r, method, metric, value):
        rows.append(
            {**cell, "replicate": int(r), "method": method, "metric": metric, "value": value}
        )

    for i in range(len(data["replicate"])):
        rep = split(data, i)
        m, L, r, theta = int(rep["m"]), int(rep["L"]), int(rep["replicate"]), rep["theta"]
        lam = default_lambda(L, float(rep["B"]), settings.lambda_c)
        for method in methods:
            if method == "local_count":
                rng = generator(seed, experiment, key, r, Stream.TIEBREAK)
                if "kendall_tau_K" in metrics:
                    emit(
                        r,
                        method,
                        "kendall_tau_K",
                        float(kendall_distance(rep["count_scores"], theta, rng=rng)),
                    )
                continue
            if method == "edge_noisy_obj":
                if cell["model"] != "btl":
                    continue
                rng = generator(seed, experiment, key, r, Stream.NOISE_MLE)
                fit = _noisy_obj(rep, m, rng, noisy_obj_delta, settings)
            else:
                fit = _weighted_fit(rep, method, m, lam, link, settings)
            for metric in metrics:
                emit(r, method, metric, float(METRICS[metric](fit.theta, theta, m)))
            emit(r, method, "converged", float(fit.converged))
    return frame(rows)
