"""B2 Scenarios I-IV and the curvature study (Figures 3-7, 11, 12; Tables 5-9).

Each replicate draws the true scores (``theta* ~ U(-1, 1)`` centred, evenly
spaced with gap ``delta``: Scenario IV, or ``(i - 1)/(m - 1)``: Figure 3), the
users' budgets (``eps_l ~ U(a, b)`` per user: Scenarios I and IV; ``A ~ U(a, b)``
then ``eps_l ~ U(A, A + width)``: Scenario II; one budget for all users: a
privacy *scheme* of Scenario III, or Figure 3's ``eps = 2``), every user's
comparisons of every pair (observed with probability ``p``) and their
randomized-response releases; the third party debiases them, weights them by
the ADRR weights and fits objective (5) with ``lambda = c / (L B(eps))``
(docs/papers/paper-b.md#s1-2, #s1-3, #s2).

Only the per-pair sufficient statistics of the releases are stored. Where all
users share one budget, every comparison of a pair has the same law, and the
statistics are sampled directly, binomially per pair
(:func:`dprank.privacy.ldp.sample_rr_statistics_equal_eps`, exact, ``O(m^2)`` per data
set); otherwise users are simulated chunk by chunk
(:func:`dprank.privacy.ldp.simulate_ldp_statistics`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from dprank.base import checks as _checks
from dprank.base.seeding import Stream, cell_key, generator
from dprank.data.models import get_link
from dprank.fit.metrics_b import kendall_distance, max_error, rms_error, top_k_hamming
from dprank.fit.weighted_mle import default_lambda, fit_weighted_mle, hessian_min_nonzero_eigenvalue
from dprank.privacy.ldp import (
    privacy_constant,
    sample_rr_statistics_equal_eps,
    simulate_ldp_statistics,
)

from ._frames import Frame, frame

__all__ = [
    "METRICS",
    "Chunk",
    "FitSettings",
    "estimate_chunk",
    "hessian_chunk",
    "scheme_epsilon",
    "shifted_budgets",
    "simulate_chunk",
    "true_scores",
    "user_budgets",
]


def scheme_epsilon(
    scheme: int,
    m: int,
    L: int,
    eps0: float,
    anchor: int = 1000,
    log_power: int = 2,
    anchor_L: int | None = None,
) -> float:
    """Budget of a privacy scheme: B2 Scenario III (spec B2-Fig6) or B1 (spec B1-Fig3).

    ``eps_s(m, L) = eps0 f_s(mL) / f_s(a)`` with ``f_1(x) = log^k x / sqrt x``,
    ``f_2(x) = 1 / sqrt x``, ``f_3(x) = 1 / (log^k x sqrt x)``.

    * B2 (``log_power = 2``, ``a = anchor = 1000``): the three schemes coincide at
      (m, L) = (10, 100), as the published tables do.
    * B1 (``log_power = 1``, ``anchor_L = 100``): ``a = 100 m``, so
      ``eps_s(m, 100) = eps0 = 1`` for every m (B1 section 5.2).
    """
    if isinstance(scheme, (bool, str)) or scheme not in (1, 2, 3):
        raise ValueError(f"scheme must be 1, 2 or 3 (B2 section 5.1), got {scheme!r}")
    _checks.positive_finite(eps0, "eps0")
    k = int(log_power)
    f = {
        1: lambda x: np.log(x) ** k / np.sqrt(x),
        2: lambda x: 1.0 / np.sqrt(x),
        3: lambda x: 1.0 / (np.log(x) ** k * np.sqrt(x)),
    }[int(scheme)]
    a = anchor if anchor_L is None else int(m) * int(anchor_L)
    return float(eps0 * f(m * L) / f(a))


def true_scores(cell: Mapping, rng: np.random.Generator, law: str = "uniform") -> np.ndarray:
    """``theta*`` of one replicate (docs/papers/paper-b.md#s1-6, B2-Fig3).

    Evenly spaced with gap ``delta`` (item 1 best) if the cell has one; else
    ``law = "uniform"``: ``U(-1, 1)`` centred (B2), ``"uniform2"``: ``U(-2, 2)``
    centred (B1 section 5.1), ``"uniform:<h>"``: ``U(-h, h)`` centred (the
    sensitivity study; ``"uniform:1"`` draws exactly as ``"uniform"``), or
    ``"unit_spaced"``: ``theta_i = (i - 1)/(m - 1)`` (B2 Figure 3; the Hessian
    is shift-invariant).
    """
    m = int(cell["m"])
    if "delta" in cell:
        return float(cell["delta"]) * ((m + 1) / 2 - np.arange(1, m + 1))
    if law == "unit_spaced":
        return np.arange(m) / (m - 1.0)
    half = {"uniform": 1.0, "uniform2": 2.0}.get(law)
    if half is None and law.startswith("uniform:"):
        try:
            half = float(law.removeprefix("uniform:"))
        except ValueError:
            half = None
        if half is not None and not (np.isfinite(half) and half > 0):
            half = None
    if half is None:
        raise ValueError(
            f"unknown score law {law!r}; known: uniform, uniform2, uniform:<h> (h > 0), unit_spaced"
        )
    theta = rng.uniform(-half, half, m)
    return theta - theta.mean()


def user_budgets(cell: Mapping, eps: Mapping, rng: np.random.Generator) -> np.ndarray:
    """Per-user budgets ``(L,)`` of one replicate.

    ``eps`` holds one of: ``range: [a, b]`` (``eps_l ~ U(a, b)``, Scenarios I,
    IV), ``shifted: [a, b]`` with ``width`` (``A ~ U(a, b)``, then
    ``eps_l ~ U(A, A + width)``, Scenario II), ``eps0`` (the cell's scheme
    budget for every user, Scenario III; with ``log_power`` and ``anchor_L``, B1's
    schemes) or ``value`` (one budget, Figure 3). An ``eps`` grid key of the cell
    (B1 Scenario I) gives every user that budget.
    """
    L = int(cell["L"])
    if "eps" in cell:
        return np.full(L, float(cell["eps"]))
    if "scheme" in cell:
        options = {k: eps[k] for k in ("log_power", "anchor_L") if k in eps}
        return np.full(L, scheme_epsilon(cell["scheme"], int(cell["m"]), L, eps["eps0"], **options))
    if "value" in eps:
        return np.full(L, float(eps["value"]))
    if "shifted" in eps:
        return shifted_budgets(eps["shifted"], eps["width"], L, rng)[1]
    return rng.uniform(*eps["range"], L)


def shifted_budgets(
    a_range: Sequence[float], width: float, L: int, rng: np.random.Generator
) -> tuple[float, np.ndarray]:
    """``A ~ U(a, b)``, then ``eps_l ~ U(A, A + width)`` for ``L`` users (B2 Scenario II, car data).

    Returns
    -------
    (float, numpy.ndarray)
        ``A`` and the ``(L,)`` budgets, both drawn from ``rng`` in that order.
    """
    A = float(rng.uniform(a_range[0], a_range[1]))
    return A, rng.uniform(A, A + float(width), int(L))


@dataclass(frozen=True)
class Chunk:
    """One simulate job of B2: some replicates of one cell, and where their draws come from.

    Every draw of replicate ``r`` comes from the stream ``(seed, experiment, the cell's
    data key, r, stream)`` (:meth:`rng`), so a replicate's data do not depend on the chunk
    it is simulated in, nor on the stage that draws it. The arguments are checked when the
    chunk is made.

    Attributes
    ----------
    seed : int
        The root seed.
    experiment : str
        The experiment's name.
    cell : Mapping
        The cell's parameters (grid keys among ``model, eps, scheme, delta, p, m, L``).
    p : float
        Probability that a user compares a pair.
    replicates : list of int
        The chunk's replicates.
    eps : Mapping, optional
        The privacy scheme (:func:`user_budgets`); ``None`` for the non-private
        studies, whose stages do not read it (:meth:`scheme` refuses it).
    """

    seed: int
    experiment: str
    cell: Mapping
    p: float
    replicates: Sequence[int]
    eps: Mapping | None = None

    def __post_init__(self) -> None:
        _checks.count(self.seed, "seed")
        _checks.text(self.experiment, "experiment")
        _checks.mapping(self.cell, "cell")
        _checks.probability(self.p, "p")
        if self.eps is not None:
            _checks.mapping(self.eps, "eps")
        object.__setattr__(self, "replicates", _checks.indices(self.replicates))

    def scheme(self) -> Mapping:
        """The privacy scheme ``eps``, for the stages that take one (``None`` is refused)."""
        return _checks.mapping(self.eps, "eps")

    @cached_property
    def _key(self) -> str:
        return cell_key({"role": "data", **self.cell})

    def rng(self, r: int, stream: Stream) -> np.random.Generator:
        """The generator of replicate ``r``'s ``stream`` (:func:`dprank.base.seeding.generator`)."""
        return generator(self.seed, self.experiment, self._key, r, stream)


def check_chunk(chunk) -> Chunk:
    if not isinstance(chunk, Chunk):
        raise TypeError(
            f"chunk must be a Chunk (the job's seed, cell and replicates), got {chunk!r}"
        )
    return chunk


@dataclass(frozen=True)
class FitSettings:
    """The settings of a B2 estimate stage's weighted fits, checked on construction.

    They travel together from the config (``paper_b2.lambda_c`` and ``paper_b2.solver``)
    to every fit of objective (5) (:func:`dprank.fit.weighted_mle.fit_weighted_mle`).

    Attributes
    ----------
    lambda_c : float
        ``c`` of the ridge ``lambda = c / (L B(eps))`` (non-negative).
    gtol : float
        The solver's gradient tolerance (positive).
    max_iter : int
        The solver's most iterations (at least 1).
    """

    lambda_c: float
    gtol: float
    max_iter: int

    def __post_init__(self) -> None:
        _checks.non_negative(self.lambda_c, "lambda_c")
        _checks.positive_finite(self.gtol, "gtol")
        _checks.count(self.max_iter, "max_iter", 1)


def check_fit_args(data: Mapping, cell: Mapping, settings: FitSettings) -> FitSettings:
    """The checks of the arguments of an estimate stage that fits objective (5)."""
    _checks.mapping(data, "data")
    _checks.mapping(cell, "cell")
    if not isinstance(settings, FitSettings):
        raise TypeError(
            f"settings must be a FitSettings (lambda_c, gtol, max_iter), got {settings!r}"
        )
    return settings


def check_estimate_args(
    data: Mapping, cell: Mapping, gtol: float, max_iter: int, **non_negative: float
) -> None:
    """The checks of an estimate stage's arguments that takes no :class:`FitSettings`.

    The chunk's arrays ``data``, its ``cell``, the solver's ``gtol`` and ``max_iter`` and
    the stage's non-negative constants, by name (``sigma``, ``lam`` and ``ridge`` of the
    mixed-effects fit, :func:`.extensions.estimate_mixed_chunk`).
    """
    _checks.mapping(data, "data")
    _checks.mapping(cell, "cell")
    for name, value in non_negative.items():
        _checks.non_negative(value, name)
    _checks.positive_finite(gtol, "gtol")
    _checks.count(max_iter, "max_iter", 1)


def simulate_chunk(chunk: Chunk, theta_law: str = "uniform") -> dict[str, np.ndarray]:
    """True scores, budgets and the ADRR sufficient statistics of a chunk's replicates.

    A ``p`` in the cell (a grid key, Figure 3) overrides the chunk's.

    Returns
    -------
    dict
        ``theta`` (R, m), ``B`` (R,) privacy constants ``B(eps)``,
        ``S`` and ``N`` (R, P) per-pair statistics (B2 objective (5)),
        ``replicate`` (R,).
    """
    cell, eps = check_chunk(chunk).cell, chunk.scheme()
    link = get_link(cell["model"])
    p = float(cell.get("p", chunk.p))
    thetas, budgets, stats_s, stats_n = [], [], [], []
    for r in chunk.replicates:
        theta = true_scores(cell, chunk.rng(r, Stream.THETA), theta_law)
        budget = user_budgets(cell, eps, chunk.rng(r, Stream.EPSILON))
        rng = chunk.rng(r, Stream.RELEASE)
        if np.all(budget == budget[0]):  # one law per pair: binomial counts, exact
            counts = sample_rr_statistics_equal_eps(theta, budget.size, p, budget[0], rng, link)
            S, N = counts.adrr_statistics()
        else:
            released = simulate_ldp_statistics(theta, budget, p, rng, link=link)
            S, N = released.adrr
        thetas.append(theta)
        budgets.append(privacy_constant(budget))
        stats_s.append(S)
        stats_n.append(N)
    return {
        "theta": np.array(thetas),
        "B": np.array(budgets),
        "S": np.array(stats_s),
        "N": np.array(stats_n),
        "replicate": np.asarray(chunk.replicates, dtype=np.int64),
    }


#: metric name (as in the published tables) -> function of (theta_hat, theta, m)
METRICS = {
    "l2_over_sqrt_m": lambda est, theta, m: rms_error(est, theta),
    "linf": lambda est, theta, m: max_error(est, theta),
    "kendall_tau_K": lambda est, theta, m: kendall_distance(est, theta),
    "topK_hamming_HK_K=m/2": lambda est, theta, m: top_k_hamming(est, theta, m // 2),
}


def estimate_chunk(
    data: Mapping[str, np.ndarray],
    cell: Mapping,
    settings: FitSettings,
    metrics: Sequence[str] = ("l2_over_sqrt_m", "linf"),
) -> Frame:
    """ADRR estimates of every replicate and their errors (tidy rows).

    Columns: the cell's grid keys, ``replicate, method, metric, value``; the
    requested ``metrics`` (names of :data:`METRICS`, as in the published
    tables; estimates are continuous, so ranks have no ties; ``"B"`` is the
    replicate's privacy constant ``B(eps)``, the x of Figure 5) and
    ``converged`` (1 or 0; a fit that did not converge is kept and counted).
    """
    check_fit_args(data, cell, settings)
    _checks.names(metrics, "metrics", {*METRICS, "B"})
    m, L = int(cell["m"]), int(cell["L"])
    link = get_link(cell["model"])
    rows = []
    for i, r in enumerate(data["replicate"]):
        B = float(data["B"][i])
        fit = fit_weighted_mle(
            data["S"][i],
            data["N"][i],
            m,
            default_lambda(L, B, settings.lambda_c),
            link,
            gtol=settings.gtol,
            max_iter=settings.max_iter,
        )
        theta = data["theta"][i]
        values = [
            (name, B if name == "B" else float(METRICS[name](fit.theta, theta, m)))
            for name in metrics
        ]
        for metric, value in [*values, ("converged", float(fit.converged))]:
            row = {**cell, "replicate": int(r), "method": "local_adrr", "metric": metric}
            rows.append({**row, "value": value})
    return frame(rows)


def hessian_chunk(data: Mapping[str, np.ndarray], cell: Mapping) -> Frame:
    """``Lambda_min,perp`` of the unpenalised loss's Hessian at ``theta*`` (B2 Figure 3).

    The Hessian of ``L_0`` (objective (5) without the ridge) built from the
    replicate's ADRR statistics, evaluated at the true scores (docs/papers/paper-b.md#a13);
    metric ``hessian_min_eig``, method ``local_adrr``.
    """
    _checks.mapping(data, "data")
    _checks.mapping(cell, "cell")
    link = get_link(cell["model"])
    rows = []
    for i, r in enumerate(data["replicate"]):
        value = hessian_min_nonzero_eigenvalue(
            data["S"][i], data["N"][i], data["theta"][i], link=link
        )
        row = {**cell, "replicate": int(r), "method": "local_adrr", "metric": "hessian_min_eig"}
        rows.append({**row, "value": float(value)})
    return frame(rows)
