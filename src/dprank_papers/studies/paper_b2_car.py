"""B2 real-data study: the car preference data (B2 section 5.2, Tables 1-2, Figure 14).

Paper B2 (Xu, Sun & Cheng, "Rate-Optimal Rank Aggregation with Private Pairwise
Rankings", later version) applies its private rank aggregation to experiment 1
of the car preference data of Abbasnejad et al. (2013): 10 cars, 60 Amazon
Mechanical Turk users, every user asked every one of the 45 pairs
(docs/papers/paper-b.md#s4-1).

* :func:`read_car_data` reads ``items1.csv``, ``users1.csv`` and ``prefs1.csv``
  (B2 Table 1 attributes, the ``(L, P)`` comparison array; docs/papers/paper-b.md#a17).
* :func:`intransitivity` computes the two check numbers of B2 section 5.2
  (42 of 60 users intransitive, 6.98% conflicting comparisons; docs/papers/paper-b.md#a18).
* :func:`nonprivate_fits` fits BTL, TM and the count method on the raw data: the
  ranking of B2 Table 1 and the reference ``theta*`` of B2 Figure 14 (docs/papers/paper-b.md#a16).
* :func:`simulate_replicate` runs one replicate of the B2 Table 2 protocol
  (ADRR, classic RR, Laplace under BTL and TM, and the count method, all on the
  same budgets and the same RR outputs); :func:`simulate_replicates` runs many.
* :func:`table2` summarises the replicates as B2 Table 2 (mean (SE) of ``K`` and
  paired t-tests against ADRR); :func:`figure14_correlations` gives the
  Pearson ``r`` of ``B(eps)^{-1/2}`` with the ADRR errors (B2 Figure 14).

Data caveat
-----------
B2 says "45 pairs per user", and the choice of docs/papers/paper-b.md#a17 expects exactly 45
comparisons per user once the control rows are dropped. The shipped copy of
``prefs1.csv`` (``shared/data/PROVENANCE.md`` section 3) has 2675 non-control
rows, not 2700: 13 users miss 1 to 6 pairs (25 in all). :func:`read_car_data`
therefore raises by default and, with ``allow_missing=True``, records the
missing pairs in an observation mask (``a_ij^(l) = 0``, which B2's objective (5)
and every function here support; docs/papers/paper-b.md#s1-1).

All randomness comes from :func:`dprank.base.seeding.generator` keyed by
``(seed, "car", cell, replicate, stream)``, so a replicate does not depend on
which other replicates run.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import numpy as np
import pandas as pd

from dprank.base import checks as _checks
from dprank.base.seeding import Stream, cell_key, generator
from dprank.data.models import get_link
from dprank.data.realdata import BODY_TYPES, FUELS, TRANSMISSIONS, CarData, read_car_data
from dprank.fit.metrics_b import (
    kendall_distance,
    max_error,
    paired_t_test,
    prediction_band,
    ranks,
    rms_error,
)
from dprank.fit.weighted_mle import default_lambda, fit_weighted_mle
from dprank.privacy.ldp import (
    add_rr_statistics,
    add_sufficient_statistics,
    adrr_weights,
    count_ranking,
    count_scores,
    laplace_release,
    privacy_constant,
    randomized_response,
)

from .paper_b2.scenarios import shifted_budgets

__all__ = [
    "BODY_TYPES",
    "EXPERIMENT",
    "FUELS",
    "METHODS",
    "METRICS",
    "MODELS",
    "TABLE1_ORDER",
    "TRANSMISSIONS",
    "CarData",
    "figure14_correlations",
    "intransitivity",
    "nonprivate_fits",
    "read_car_data",
    "simulate_replicate",
    "simulate_replicates",
    "table1_ranks",
    "table2",
    "tidy_replicates",
]

#: experiment name of the random streams (:func:`dprank.base.seeding.generator`)
EXPERIMENT = "car"
#: methods of B2 Table 2, in its column order
METHODS = ("local_adrr", "local_count", "local_classic_rr", "local_laplace")
#: comparison models of B2 Table 2 (the two blocks)
MODELS = ("btl", "tm")
#: metric names of the tidy rows (as in :data:`dprank_papers.studies.paper_b2.scenarios.METRICS`)
METRICS = ("kendall_tau_K", "l2_over_sqrt_m", "linf")
#: B2 Table 1 aggregate ranking, best first (car ids): 6 > 10 > 2 > 8 > 7 > 9 > 5 > 1 > 4 > 3
TABLE1_ORDER = (6, 10, 2, 8, 7, 9, 5, 1, 4, 3)


def _as_data(y, m: int, observed) -> tuple[np.ndarray, np.ndarray, int, int]:
    y = np.asarray(y)
    if y.ndim != 2:
        raise ValueError(f"y must be (L, P), got shape {y.shape}")
    P = m * (m - 1) // 2
    if y.shape[1] != P:
        raise ValueError(f"y has {y.shape[1]} pairs, m = {m} needs {P}")
    if not np.isin(y, (0, 1)).all():
        raise ValueError("y must hold 0/1 comparisons")
    a = np.ones(y.shape, dtype=bool) if observed is None else np.asarray(observed, dtype=bool)
    if a.shape != y.shape:
        raise ValueError(f"observed has shape {a.shape}, y {y.shape}")
    return y.astype(np.uint8), a, y.shape[0], P


def _wins(y: np.ndarray, a: np.ndarray, m: int) -> np.ndarray:
    """``(L, m)`` win counts of every user (observed comparisons only)."""
    iu, ju = np.triu_indices(m, k=1)
    first = (y.astype(np.int64) * a) @ np.eye(m, dtype=np.int64)[iu]
    second = ((1 - y.astype(np.int64)) * a) @ np.eye(m, dtype=np.int64)[ju]
    return first + second


# ---------------------------------------------------------------------------
# B2 section 5.2: intransitivity


def intransitivity(y, m: int, observed=None) -> dict:
    """Intransitive users and conflicting comparisons (B2 5.2; docs/papers/paper-b.md#a18).

    Definitions (docs/papers/paper-b.md#a18; B2 gives the numbers, not the rule):

    * user ``l`` is intransitive iff its ``m`` win counts are not all distinct,
      i.e. they are not the score sequence ``(0, 1, ..., m-1)`` of a transitive
      tournament (for complete data);
    * a comparison ``i > j`` (``i`` chosen) of user ``l`` conflicts with the
      user's own win-count ranking iff ``wins_i < wins_j``; ties are not
      conflicts.

    B2 reports 42 of 60 users (70%) and 6.98% of the comparisons.

    Parameters
    ----------
    y : (L, P) array_like of {0, 1}
        Comparisons in ``triu_indices(m, 1)`` order (:attr:`CarData.y`).
    m : int
        Number of items.
    observed : (L, P) array_like of bool, optional
        Observation mask (default: all observed); wins and conflicts count
        observed comparisons only.

    Returns
    -------
    dict
        ``n_users``, ``n_intransitive``, ``share_intransitive``,
        ``n_comparisons``, ``n_conflicts``, ``conflict_share``, ``n_ties``
        (comparisons between items with equal win counts) and ``wins``
        (``(L, m)`` win counts).
    """
    y, a, L, _ = _as_data(y, m, observed)
    wins = _wins(y, a, m)
    srt = np.sort(wins, axis=1)
    intransitive = np.any(srt[:, 1:] == srt[:, :-1], axis=1)
    iu, ju = np.triu_indices(m, k=1)
    winner = np.where(y == 1, iu, ju)
    loser = np.where(y == 1, ju, iu)
    w_win = np.take_along_axis(wins, winner, axis=1)
    w_lose = np.take_along_axis(wins, loser, axis=1)
    n_comp = int(a.sum())
    n_conf = int(np.sum((w_win < w_lose) & a))
    return {
        "n_users": int(L),
        "n_intransitive": int(intransitive.sum()),
        "share_intransitive": float(intransitive.mean()) if L else float("nan"),
        "n_comparisons": n_comp,
        "n_conflicts": n_conf,
        "conflict_share": n_conf / n_comp if n_comp else float("nan"),
        "n_ties": int(np.sum((w_win == w_lose) & a)),
        "wins": wins,
    }


# ---------------------------------------------------------------------------
# B2 Table 1: non-private fits


def table1_ranks(order=TABLE1_ORDER) -> np.ndarray:
    """Ranks (1 = best) per car of the B2 Table 1 order; ``order`` lists car ids 1..m best first."""
    order = np.asarray(order, dtype=np.int64)
    m = order.size
    if sorted(order.tolist()) != list(range(1, m + 1)):
        raise ValueError("order must be a permutation of 1..m")
    out = np.empty(m, dtype=np.int64)
    out[order - 1] = np.arange(1, m + 1)
    return out


def _order(rank: np.ndarray) -> tuple[int, ...]:
    """Items (1-based positions) best first."""
    return tuple(int(i) + 1 for i in np.argsort(rank, kind="stable"))


def nonprivate_fits(y, m: int, observed=None, *, gtol: float = 1e-8) -> dict:
    """Non-private BTL, TM and count fits of the car data (B2 Table 1; docs/papers/paper-b.md#a16).

    BTL and TM minimise B2 objective (5) with ``z = y`` (no privacy),
    ``w_l = 1/L`` and ``lambda = 1/L`` (:func:`dprank.fit.weighted_mle.default_lambda`
    with ``B = 1``); the estimates are centred (Lemma 3 makes them centred up to
    the solver tolerance). They are the reference ``theta*_F`` of B2 Figure 14
    (docs/papers/paper-b.md#a16). The count method ranks by raw wins
    (docs/papers/paper-b.md#s1-4); ties, if any, are broken by the stable rule (lower index
    first) and reported.

    Parameters
    ----------
    y : (L, P) array_like of {0, 1}
    m : int
    observed : (L, P) array_like of bool, optional
        Observation mask (default: all observed).
    gtol : float
        Solver tolerance (docs/papers/paper-b.md#a3).

    Returns
    -------
    dict
        ``theta`` {"btl", "tm"}: centred estimates; ``count_scores``: wins per
        item; ``ranks`` {"btl", "tm", "count"}: rank per item (1 = best);
        ``orders``: the same as tuples of 1-based items best first (car ids when
        the ids are ``1..m``); ``converged`` {"btl", "tm"}; ``count_ties``:
        whether the count scores tie; ``agree``: the three rankings coincide;
        ``reference_ranks``: the BTL ranking (the ground truth of B2 Table 2
        when ``agree``; B2 Table 1 says all three give
        6 > 10 > 2 > 8 > 7 > 9 > 5 > 1 > 4 > 3).
    """
    y, a, L, P = _as_data(y, m, observed)
    S, N = np.zeros(P), np.zeros(P)
    add_sufficient_statistics(S, N, y, a, 1.0 / L)
    lam = default_lambda(L, 1.0)
    theta, rk, conv = {}, {}, {}
    for model in MODELS:
        fit = fit_weighted_mle(S, N, m, lam, get_link(model), gtol=gtol)
        theta[model] = fit.theta - fit.theta.mean()
        conv[model] = bool(fit.converged)
        rk[model] = ranks(theta[model])
    scores = count_scores(y, a, m)
    rk["count"] = ranks(scores)
    agree = bool(np.array_equal(rk["btl"], rk["tm"]) and np.array_equal(rk["btl"], rk["count"]))
    return {
        "theta": theta,
        "count_scores": scores,
        "ranks": rk,
        "orders": {k: _order(v) for k, v in rk.items()},
        "converged": conv,
        "count_ties": bool(np.unique(scores).size < m),
        "agree": agree,
        "reference_ranks": rk["btl"].copy(),
    }


# ---------------------------------------------------------------------------
# B2 Table 2 / Figure 14: one replicate


def _check_a_range(a_range) -> None:
    lo_hi = _checks.finite(a_range, "a_range", ndim=1)
    if lo_hi.shape != (2,) or not 0 < lo_hi[0] <= lo_hi[1]:
        raise ValueError(f"a_range must be (low, high) with 0 < low <= high, got {a_range!r}")


def _rows_frame(rows, required) -> pd.DataFrame:
    """``rows`` (a frame or dicts) as a frame, after checking it has the ``required`` columns."""
    if isinstance(rows, (str, bytes)) or rows is None or np.isscalar(rows):
        raise TypeError(f"rows must be a DataFrame or a list of dicts, got {rows!r}")
    try:
        df = pd.DataFrame(rows)
    except (ValueError, TypeError) as exc:
        raise TypeError(f"rows must be a DataFrame or a list of dicts ({exc})") from None
    _checks.columns(df, "rows", required)
    return df


def _cell(m: int, L: int, a_range, width: float) -> dict:
    return {
        "study": "paper_b2_car",
        "m": int(m),
        "L": int(L),
        "A_lo": float(a_range[0]),
        "A_hi": float(a_range[1]),
        "width": float(width),
    }


def _check_simulation(m, reference, seed, a_range, width, gtol) -> None:
    """The argument checks :func:`simulate_replicate` and :func:`simulate_replicates` share."""
    _checks.count(m, "m", 2)
    _checks.mapping(reference, "reference")
    for key in ("reference_ranks", "theta"):
        if key not in reference:
            raise ValueError(f"reference lacks {key!r} (nonprivate_fits gives it)")
    _checks.count(seed, "seed")
    _check_a_range(a_range)
    _checks.positive_finite(width, "width")
    _checks.positive_finite(gtol, "gtol")


def _released_statistics(y_rr, y_lap, a, eps, L: int, P: int) -> dict:
    """Sufficient statistics ``(S, N)`` of the ADRR, classic RR and Laplace fits."""
    stats = {
        name: (np.zeros(P), np.zeros(P))
        for name in ("local_adrr", "local_classic_rr", "local_laplace")
    }
    add_rr_statistics(*stats["local_adrr"], y_rr, a, eps, adrr_weights(eps))
    add_sufficient_statistics(*stats["local_classic_rr"], y_rr, a, 1.0 / L)
    add_sufficient_statistics(*stats["local_laplace"], y_lap, a, 1.0 / L)
    return stats


def _method_values(stats, k_count, m, lam, reference, ref_scores, gtol):
    """``(method, model, metric, value, converged)`` of every method under every model.

    The fits run in the order the rows are listed (models outer, methods inner).
    """
    for model in MODELS:
        link = get_link(model)
        for method in METHODS:
            if method == "local_count":
                yield method, model, "kendall_tau_K", k_count, True
                continue
            fit = fit_weighted_mle(*stats[method], m, lam, link, gtol=gtol)
            yield (
                method,
                model,
                "kendall_tau_K",
                kendall_distance(fit.theta, ref_scores),
                fit.converged,
            )
            if method == "local_adrr":
                theta_ref = np.asarray(reference["theta"][model], dtype=np.float64)
                yield (
                    method,
                    model,
                    "l2_over_sqrt_m",
                    rms_error(fit.theta, theta_ref),
                    fit.converged,
                )
                yield method, model, "linf", max_error(fit.theta, theta_ref), fit.converged


def simulate_replicate(
    y,
    m: int,
    reference: Mapping,
    seed: int,
    r: int,
    a_range: tuple[float, float] = (0.2, 2.0),
    width: float = 1.0,
    *,
    observed=None,
    gtol: float = 1e-8,
) -> dict:
    """One replicate of the B2 Table 2 protocol on the car data (B2 section 5.2, Figure 14).

    * Budgets (stream ``EPSILON``): ``A ~ U(a_range)``, then
      ``eps_l ~ U(A, A + width)`` for each of the ``L`` users (B2: ``A ~ U(0.2, 2)``,
      ``eps_l ~ U(A, A + 1)``).
    * Releases (stream ``RELEASE``, in this order): one classic-RR output per
      comparison (:func:`dprank.privacy.ldp.randomized_response`), shared by ADRR,
      classic RR and the count method, then the Laplace release
      ``y + Lap(1/eps_l)`` (:func:`dprank.privacy.ldp.laplace_release`). All methods see
      the same budgets, so the t-tests of Table 2 are paired (spec B2-Table2).
    * Fits of objective (5) with ``lambda = 1/(L B(eps))`` (docs/papers/paper-b.md#a1) under BTL and
      TM: ``local_adrr`` (debiased outputs, ADRR weights; B2 eq. (3)-(4)), ``local_classic_rr``
      (raw RR outputs, ``w_l = 1/L``) and ``local_laplace`` (``w_l = 1/L``;
      docs/papers/paper-b.md#s1-4, #a11).
    * ``local_count``: wins of the RR outputs, ties broken at random (stream
      ``TIEBREAK``; docs/papers/paper-b.md#s1-4, A12).

    Parameters
    ----------
    y : (L, P) array_like of {0, 1}
        Raw comparisons (:attr:`CarData.y`).
    m : int
    reference : Mapping
        ``reference_ranks`` (the ranking ``K`` is measured against: B2 Table 1,
        e.g. :func:`table1_ranks`) and ``theta`` {"btl", "tm"} (the non-private
        fits, the ``theta*_F`` of Figure 14); :func:`nonprivate_fits` returns both.
    seed : int
        Root seed.
    r : int
        Replicate index.
    a_range : (float, float)
        Range of ``A``.
    width : float
        ``eps_l ~ U(A, A + width)``.
    observed : (L, P) array_like of bool, optional
        Observation mask (default: all observed). RR and Laplace noise are drawn
        for every cell of the grid, so the draws do not depend on the mask.
    gtol : float
        Solver tolerance.

    Returns
    -------
    dict
        ``replicate``, ``A``, ``B`` (``B(eps)``), ``eps`` (``(L,)``) and ``rows``: a
        list of tidy dicts ``replicate, A, B, method, model, metric, value,
        converged``. Every (method, model) gives ``kendall_tau_K``; ADRR also gives
        ``l2_over_sqrt_m`` (``m^{-1/2}||theta^ - theta*_F||_2``) and ``linf``
        against ``reference["theta"][model]``. The count method does not use
        ``F``: its single ranking is reported under both ``model="btl"`` and
        ``model="tm"`` (the same value, as B2 Table 2 prints it in both blocks),
        with ``converged=True`` (there is no fit).
    """
    _check_simulation(m, reference, seed, a_range, width, gtol)
    _checks.count(r, "r")
    y, a, L, P = _as_data(y, m, observed)
    key = cell_key(_cell(m, L, a_range, width))
    g_eps = generator(seed, EXPERIMENT, key, r, Stream.EPSILON)
    A, eps = shifted_budgets(a_range, width, L, g_eps)
    g_rel = generator(seed, EXPERIMENT, key, r, Stream.RELEASE)
    y_rr = randomized_response(y, eps, g_rel)
    y_lap = laplace_release(y, eps, g_rel)
    g_tie = generator(seed, EXPERIMENT, key, r, Stream.TIEBREAK)

    B = privacy_constant(eps)
    lam = default_lambda(L, B)
    stats = _released_statistics(y_rr, y_lap, a, eps, L, P)

    ref_scores = -np.asarray(reference["reference_ranks"], dtype=np.float64)
    count_rank = count_ranking(count_scores(y_rr, a, m), g_tie)
    k_count = float(kendall_distance(-count_rank.astype(np.float64), ref_scores))
    rows = [
        {
            "replicate": int(r),
            "A": A,
            "B": B,
            "method": method,
            "model": model,
            "metric": metric,
            "value": float(value),
            "converged": bool(converged),
        }
        for method, model, metric, value, converged in _method_values(
            stats, k_count, m, lam, reference, ref_scores, gtol
        )
    ]
    return {"replicate": int(r), "A": A, "B": B, "eps": eps, "rows": rows}


def simulate_replicates(
    y,
    m: int,
    reference: Mapping,
    seed: int,
    replicates: Iterable[int],
    a_range: tuple[float, float] = (0.2, 2.0),
    width: float = 1.0,
    *,
    observed=None,
    gtol: float = 1e-8,
) -> pd.DataFrame:
    """Tidy rows of several :func:`simulate_replicate` calls (B2 Table 2 uses 200)."""
    _check_simulation(m, reference, seed, a_range, width, gtol)
    replicates = _checks.indices(replicates)
    rows: list[dict] = []
    for r in replicates:
        out = simulate_replicate(
            y, m, reference, seed, r, a_range, width, observed=observed, gtol=gtol
        )
        rows.extend(out["rows"])
    return pd.DataFrame(rows)


# ---------------------------------------------------------------------------
# summaries


def tidy_replicates(rows: pd.DataFrame) -> pd.DataFrame:
    """The rows of :func:`simulate_replicates` in the layout of the other B2 experiments.

    ``model, replicate, method, metric, value``: the errors, one ``converged``
    row per (replicate, model, method) and each replicate's ``B(eps)`` as a
    metric row of method ``local_adrr`` (the x of Figure 14), sorted by their keys.
    """
    keys = ["model", "replicate", "method", "metric", "value"]
    _checks.columns(rows, "rows", [*keys, "B", "converged"])
    conv = rows.drop_duplicates(["replicate", "model", "method"]).assign(
        metric="converged", value=lambda d: d["converged"].astype(float)
    )
    b = rows.drop_duplicates(["replicate", "model"]).assign(
        method="local_adrr", metric="B", value=lambda d: d["B"]
    )
    tidy = pd.concat([rows[keys], conv[keys], b[keys]], ignore_index=True)
    return tidy.sort_values(["model", "method", "metric", "replicate"], kind="stable").reset_index(
        drop=True
    )


def table2(rows) -> pd.DataFrame:
    """B2 Table 2: mean (SE of the mean) of ``K`` and paired t-tests against ADRR.

    For every (model, method) the mean over replicates of ``kendall_tau_K``
    and its standard error ``sd / sqrt(R)`` (B2 Table 2 prints the SE of the
    mean; docs/papers/paper-b.md#s1-5, A31); for every method other than ADRR the paired t-test
    of ``d_r = K_other,r - K_ADRR,r`` within the same model
    (:func:`dprank.fit.metrics_b.paired_t_test`: ``t = mean(d) / (sd(d)/sqrt(R))``,
    ``df = R - 1``, two-sided ``p``; the same as :func:`scipy.stats.ttest_rel`).
    B2 prints the tests for the BTL block only (docs/papers/paper-b.md#a19); the TM ones are
    computed as well.

    Parameters
    ----------
    rows : pandas.DataFrame or iterable of dict
        Tidy rows of :func:`simulate_replicate` (``replicate, method, model,
        metric, value``).

    Returns
    -------
    pandas.DataFrame
        ``model, method, R, mean, se, t, df, p`` (``t, df, p`` NaN for ADRR), in
        the order of B2 Table 2.

    Raises
    ------
    ValueError
        If a method's replicates are not those of ADRR (the test would not be
        paired) or a (replicate, method, model) appears twice.
    """
    df = _rows_frame(rows, ("replicate", "method", "model", "metric", "value"))
    df = df[df["metric"] == "kendall_tau_K"]
    if df.duplicated(["replicate", "method", "model"]).any():
        raise ValueError("a (replicate, method, model) occurs twice")
    out = []
    for model in [mo for mo in MODELS if mo in set(df["model"])]:
        wide = df[df["model"] == model].pivot(index="replicate", columns="method", values="value")
        for method in [me for me in METHODS if me in wide.columns]:
            v = wide[method].dropna()
            R = int(v.size)
            row = {
                "model": model,
                "method": method,
                "R": R,
                "mean": float(v.mean()),
                "se": float(v.std(ddof=1) / np.sqrt(R)) if R > 1 else float("nan"),
                "t": float("nan"),
                "df": float("nan"),
                "p": float("nan"),
            }
            if method != "local_adrr" and "local_adrr" in wide.columns:
                pair = wide[[method, "local_adrr"]]
                if pair.isna().any().any():
                    raise ValueError(f"{method} ({model}) and ADRR have different replicates")
                test = paired_t_test(pair[method].to_numpy(), pair["local_adrr"].to_numpy())
                row.update(t=float(test.t), df=float(test.df), p=float(test.pvalue))
            out.append(row)
    return pd.DataFrame(out, columns=["model", "method", "R", "mean", "se", "t", "df", "p"])


def figure14_correlations(rows) -> pd.DataFrame:
    """B2 Figure 14: Pearson ``r`` and OLS line of ADRR's errors on ``B(eps)^{-1/2}``.

    One line per (model, metric) over the replicates, with ``x = B(eps)^{-1/2}``
    of the replicate's budgets and the error against the non-private fit of the
    same model (spec B2-Fig14, A15-A16), via
    :func:`dprank.fit.metrics_b.prediction_band`.

    Returns
    -------
    pandas.DataFrame
        ``model, metric, n, r, slope, intercept, s`` (``s`` the residual SE).
    """
    df = _rows_frame(rows, ("method", "model", "metric", "value", "B"))
    df = df[(df["method"] == "local_adrr") & df["metric"].isin(("l2_over_sqrt_m", "linf"))]
    out = []
    for (model, metric), grp in df.groupby(["model", "metric"], sort=False):
        x = grp["B"].to_numpy() ** -0.5
        band = prediction_band(x, grp["value"].to_numpy(), x0=np.array([x.mean()]))
        out.append(
            {
                "model": model,
                "metric": metric,
                "n": band.n,
                "r": band.r,
                "slope": band.slope,
                "intercept": band.intercept,
                "s": band.s,
            }
        )
    return pd.DataFrame(out, columns=["model", "metric", "n", "r", "slope", "intercept", "s"])
