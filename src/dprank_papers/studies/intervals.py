"""Coverage study of the intervals of :mod:`dprank.intervals` (target ``intervals``).

Each *design* (config ``intervals.designs``) names a registered method and how
the data are made: the number of items, the law of the true scores, the
comparison graph (Erdos-Renyi or heavy-tailed) or the users (how many, how
many comparisons each, which pairs, their budgets), the comparison model.
The true scores and the public graph (or the users' plan) are drawn **once per
design**; each replicate redraws the outcomes and the privacy noise. So every
item has a fixed truth and its own coverage over the replicates: the study
reports the average coverage *and the smallest per-item coverage*.

Per replicate: the method's release, its intervals from public inputs only
(:func:`dprank.intervals.public_design`), and on the same release the plain
parametric bootstrap of the release (``interval="percentile"``, ``kind="bootstrap"``:
refits of simulated releases whatever the number of items), the comparator; one row per
item with the truth.

Designs
-------
``scores``
    ``{law: uniform, spread}`` (uniform on ``[-spread/2, spread/2]``),
    ``{law: normal, sd}`` or ``{law: ties, levels, spread}`` (``levels`` equally
    spaced values, the items spread evenly over them); centred.
``graph`` (edge DP and non-private methods)
    ``{kind: er, p, per_pair}``: each pair compared ``per_pair`` times with
    probability ``p``; ``{kind: heavy, comparisons, tail}``: ``comparisons``
    comparisons of pairs drawn with probability proportional to the product of
    the items' Pareto(``tail``) weights (a few items compared hundreds of times,
    most a handful).
``users`` (individual and local DP)
    ``{count, per_user, law, pairs, declared_min}``: ``count`` users;
    ``law: exact`` (each compares ``per_user`` pairs) or ``fewer`` (``1 +
    Geometric`` with mean ``mean``, at most ``per_user``); ``pairs: uniform`` or
    ``zipf`` (pair popularity ``1 / rank^0.8``); ``declared_min``: the least
    comparisons per user declared to the intervals (default: only the bound
    ``per_user`` is known). ``user_epsilon`` (local DP): budgets drawn per user
    from this list (a mixture), else ``epsilon`` for everyone.

Truth for ties: an item's true rank is any place of its tied group (the rank
interval covers when it meets them), and its chance of being in the top ``k``
the share of the group's places within ``1..k``.

Random streams: :func:`dprank.base.seeding.generator` with the experiment
``"intervals"``, the cell keyed by the design's parameters; the fixed truth and
graph on the replicate :data:`dprank.base.seeding.SHARED` (streams ``THETA``, ``DATA``),
each replicate's outcomes ``DATA``, users' budgets ``EPSILON``, release
``NOISE_MLE``, intervals ``BOOTSTRAP`` and the comparator ``TIEBREAK``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from dprank.base import checks as _checks
from dprank.base.seeding import SHARED, Stream, cell_key, generator
from dprank.data.comparisons import Comparisons
from dprank.data.models import get_link
from dprank.intervals import INFORMATIVE_SHARE, intervals, public_design
from dprank.methods import get_method, simulated_local_release

__all__ = [
    "EXPERIMENT",
    "check_section",
    "coverage_markdown",
    "coverage_table",
    "design_key",
    "fixed_design",
    "run_design",
    "selected_designs",
    "simulate_replicate",
    "summarise",
    "true_ranks",
]

EXPERIMENT = "intervals"

#: Zipf exponent of pair popularity (``users.pairs: zipf``).
ZIPF = 0.8


def selected_designs(section: Mapping) -> dict:
    """The designs to run: ``designs``, restricted to ``selected`` when given, in order."""
    designs = dict(section.get("designs") or {})
    names = section.get("selected") or list(designs)
    return {name: designs[name] for name in names if name in designs}


def check_section(section: Mapping) -> list[str]:
    """Problems of the config section ``intervals`` beyond its schema (one line each)."""
    from dprank.intervals import NO_INTERVALS, supports

    problems = []
    designs = section.get("designs") or {}
    for name in section.get("selected") or []:
        if name not in designs:
            problems.append(
                f"intervals.selected: {name!r} is not a design under intervals.designs "
                f"(defined: {', '.join(designs)})"
            )
    for name, spec in designs.items():
        method = spec.get("method")
        try:
            meth = get_method(method)
        except KeyError as err:
            problems.append(f"intervals.designs.{name}.method: {err.args[0]}")
            continue
        if not supports(meth):
            why = NO_INTERVALS.get(meth.name, "not one of the scoring methods")
            problems.append(f"intervals.designs.{name}.method: {method} has no intervals ({why})")
            continue
        by_user = meth.privacy_unit == "user"
        if by_user and "users" not in spec:
            problems.append(
                f"intervals.designs.{name}: {method} protects users; give users instead of graph"
            )
        if not by_user and "graph" not in spec:
            problems.append(
                f"intervals.designs.{name}: {method} works on a comparison graph; give graph "
                "instead of users"
            )
        model = spec.get("model", "btl")
        if meth.models and model not in meth.models:
            problems.append(
                f"intervals.designs.{name}.model: {method} supports {list(meth.models)}, "
                f"not {model!r}"
            )
        if meth.private and meth.trust_model != "local" and "epsilon" not in spec:
            problems.append(f"intervals.designs.{name}: {method} needs epsilon")
        if meth.trust_model == "local" and "epsilon" not in spec and "user_epsilon" not in spec:
            problems.append(f"intervals.designs.{name}: {method} needs epsilon or user_epsilon")
    return problems


def design_key(spec: Mapping) -> int:
    """Stable cell id of a design (its declared parameters, nested ones flattened)."""
    flat = {}
    for k, v in spec.items():
        if isinstance(v, Mapping):
            flat.update({f"{k}.{kk}": vv for kk, vv in v.items()})
        elif isinstance(v, (list, tuple)):
            flat[k] = ",".join(repr(float(x)) for x in v)
        else:
            flat[k] = v
    return cell_key(flat)


def _true_scores(spec: Mapping, n: int, rng: np.random.Generator) -> np.ndarray:
    law = spec.get("scores") or {"law": "uniform", "spread": 3.0}
    kind = law.get("law", "uniform")
    if kind == "uniform":
        theta = rng.uniform(-0.5, 0.5, n) * float(law.get("spread", 3.0))
    elif kind == "normal":
        theta = rng.normal(0.0, float(law.get("sd", 1.0)), n)
    elif kind == "ties":
        levels = int(law.get("levels", 5))
        values = np.linspace(-0.5, 0.5, levels) * float(law.get("spread", 3.0))
        theta = rng.permutation(values[np.arange(n) % levels])
    else:
        raise ValueError(f"scores.law must be uniform, normal or ties, got {kind!r}")
    return theta - theta.mean()


def _heavy_graph(n: int, comparisons: int, tail: float, rng: np.random.Generator):
    """Pairs drawn with probability proportional to the items' Pareto(``tail``) weights."""
    weight = (1.0 - rng.random(n)) ** (-1.0 / tail)
    p = weight / weight.sum()
    a = rng.choice(n, size=3 * comparisons, p=p)
    b = rng.choice(n, size=3 * comparisons, p=p)
    ok = a != b
    a, b = a[ok][:comparisons], b[ok][:comparisons]
    key, count = np.unique(np.minimum(a, b) * n + np.maximum(a, b), return_counts=True)
    return key // n, key % n, count.astype(np.int64)


def fixed_design(spec: Mapping, seed: int) -> dict:
    """The parts of a design fixed across replicates: the truth and the graph or users' plan.

    Returns a dict with ``theta`` and, for a graph, ``a, b, count`` (pairs and
    comparisons per pair); for users, ``per_user`` (comparisons of each user)
    and ``pair_p`` (pair probabilities, or None for uniform pairs).
    """
    n = int(spec["n_items"])
    cell = design_key(spec)
    theta = _true_scores(spec, n, generator(seed, EXPERIMENT, cell, SHARED, Stream.THETA))
    rng = generator(seed, EXPERIMENT, cell, SHARED, Stream.DATA)
    out = {"theta": theta}
    if "graph" in spec:
        g = spec["graph"]
        if g.get("kind", "er") == "heavy":
            out["a"], out["b"], out["count"] = _heavy_graph(
                n, int(g["comparisons"]), float(g.get("tail", 1.1)), rng
            )
        else:
            a, b = np.triu_indices(n, 1)
            keep = rng.random(a.size) < float(g["p"])
            out["a"], out["b"] = a[keep], b[keep]
            out["count"] = np.full(int(keep.sum()), int(g["per_pair"]), dtype=np.int64)
        return out
    u = spec["users"]
    m, L = int(u["count"]), int(u["per_user"])
    if u.get("law", "exact") == "fewer":
        per = np.minimum(L, rng.geometric(1.0 / float(u.get("mean", 3.0)), m))
    else:
        per = np.full(m, L)
    out["per_user"] = per.astype(np.int64)
    if u.get("pairs", "uniform") == "zipf":
        n_pairs = n * (n - 1) // 2
        w = rng.permutation(1.0 / np.arange(1, n_pairs + 1) ** ZIPF)
        out["pair_p"] = w / w.sum()
    else:
        out["pair_p"] = None
    return out


def simulate_replicate(spec: Mapping, fixed: Mapping, rng: np.random.Generator) -> Comparisons:
    """Raw comparisons of one replicate: new outcomes on the fixed graph or users' plan."""
    theta = fixed["theta"]
    n = theta.size
    link = get_link(spec.get("model", "btl"))
    if "a" in fixed:
        a, b, cnt = fixed["a"], fixed["b"], fixed["count"]
        won = rng.binomial(cnt, link.cdf(theta[a] - theta[b]))
        y = np.concatenate([np.ones(a.size), np.zeros(a.size)])
        c = np.concatenate([won, cnt - won]).astype(np.float64)
        ok = c > 0
        return Comparisons(
            n_items=n, i=np.tile(a, 2)[ok], j=np.tile(b, 2)[ok], y=y[ok], count=c[ok]
        )
    per = fixed["per_user"]
    n_pairs = n * (n - 1) // 2
    if fixed["pair_p"] is None:
        k = rng.integers(0, n_pairs, size=int(per.sum()))
    else:
        k = rng.choice(n_pairs, size=int(per.sum()), p=fixed["pair_p"])
    iu, ju = np.triu_indices(n, 1)
    a, b = iu[k], ju[k]
    user = np.repeat(np.arange(per.size, dtype=np.int64), per)
    y = (rng.random(a.size) < link.cdf(theta[a] - theta[b])).astype(np.float64)
    return Comparisons(n_items=n, i=a, j=b, y=y, count=np.ones(a.size), user=user)


def true_ranks(theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(lo, hi)``: the places of each item's tied group (1 = best); equal without ties."""
    theta = _checks.finite(theta, "theta", ndim=1, min_size=1)
    order = np.sort(theta)
    n = theta.size
    lo = 1 + n - np.searchsorted(order, theta, side="right")
    hi = n - np.searchsorted(order, theta, side="left")
    return lo.astype(np.int64), hi.astype(np.int64)


def _top_k(spec: Mapping) -> int:
    return int(spec.get("top_k", max(1, int(spec["n_items"]) // 10)))


def run_design(
    name: str, spec: Mapping, settings: Mapping, replicates: Sequence[int], seed: int
) -> pd.DataFrame:
    """One row per (replicate, item): truth, the intervals, and the comparator's.

    Parameters
    ----------
    name : str
        The design's name (a column of the output).
    spec : mapping
        The design (module docstring).
    settings : mapping
        ``level``, ``n_boot`` and optionally ``comparator`` (default True).
    replicates : sequence of int
    seed : int
        The project's root seed.
    """
    _checks.text(name, "name")
    _checks.mapping(spec, "spec")
    _checks.mapping(settings, "settings")
    missing = [k for k in ("method", "n_items") if k not in spec]
    if missing:
        raise ValueError(f"spec lacks {missing}")
    missing = [k for k in ("level", "n_boot") if k not in settings]
    if missing:
        raise ValueError(f"settings lacks {missing}")
    _checks.count(spec["n_items"], "spec['n_items']", 2)
    _checks.probability(settings["level"], "settings['level']", low_open=True, high_open=True)
    _checks.count(settings["n_boot"], "settings['n_boot']", 20)
    replicates = _checks.indices(replicates)
    _checks.count(seed, "seed")
    meth = get_method(spec["method"])
    model = spec.get("model", "btl")
    eps = float(spec["epsilon"]) if "epsilon" in spec else None
    cell = design_key(spec)
    fixed = fixed_design(spec, seed)
    theta = fixed["theta"]
    n = theta.size
    rank_lo, rank_hi = true_ranks(theta)
    k = _top_k(spec)
    p_top = np.clip((k - (rank_lo - 1)) / (rank_hi - rank_lo + 1), 0.0, 1.0)
    declared = (spec.get("users") or {}).get("declared_min")
    common = {
        "level": float(settings["level"]),
        "n_boot": int(settings["n_boot"]),
        "top_k": k,
        "model": model,
        "kind": spec.get("kind", "auto"),
    }
    rows = []
    for r in replicates:
        raw = simulate_replicate(spec, fixed, generator(seed, EXPERIMENT, cell, r, Stream.DATA))
        g_noise = generator(seed, EXPERIMENT, cell, r, Stream.NOISE_MLE)
        if meth.trust_model == "local":
            budgets = spec.get("user_epsilon") or [eps]
            g_eps = generator(seed, EXPERIMENT, cell, r, Stream.EPSILON)
            budget = np.asarray(budgets, dtype=np.float64)[
                g_eps.integers(0, len(budgets), raw.n_users)
            ]
            raw = Comparisons(
                n_items=n, i=raw.i, j=raw.j, y=raw.y, count=raw.count, user=raw.user,
                user_epsilon=budget,
            )  # fmt: skip
            # a simulation, not a release: the draws of release_local in input order
            data = simulated_local_release(raw, budget, g_noise, meth.release or "rr")
            fit = meth.fit(data, np.inf, g_noise, model=model)
            design = public_design(data, meth)
            eps_arg = None
        else:
            fit = meth.fit(raw, np.inf if eps is None else eps, g_noise, model=model)
            L = (spec.get("users") or {}).get("per_user")
            design = public_design(raw, meth, max_per_user=L, min_per_user=declared)
            eps_arg = eps if meth.private else None
        release = (fit.scores, meth, eps_arg, design)
        opts = {"calibration": fit.details, **common}
        g_boot = generator(seed, EXPERIMENT, cell, r, Stream.BOOTSTRAP)
        frame = intervals(*release, rng=g_boot, **opts)
        w = np.asarray(frame.attrs["weights"])
        frame.attrs = {}
        frame.insert(0, "design", name)
        frame.insert(1, "replicate", r)
        frame.insert(2, "item_id", np.arange(n))
        frame["theta"] = theta - theta @ w  # centred as the intervals centre
        frame["true_rank_lo"] = rank_lo
        frame["true_rank_hi"] = rank_hi
        frame["true_top_k"] = p_top
        frame["released_score"] = fit.scores
        if settings.get("comparator", True):
            g_cmp = generator(seed, EXPERIMENT, cell, r, Stream.TIEBREAK)
            # the refits' bootstrap at every size (kind="auto" would take normal draws
            # from the linearisation above AUTO_BOOTSTRAP_ITEMS items)
            cmp = intervals(
                *release, rng=g_cmp, interval="percentile", **{**opts, "kind": "bootstrap"}
            )
            frame["theta_plain"] = theta  # the comparator centres to the plain mean
            for col in ("score_lo", "score_hi", "rank_lo", "rank_hi", "p_top_k"):
                frame[f"boot_{col}"] = cmp[col].to_numpy()
        rows.append(frame)
    return pd.concat(rows, ignore_index=True)


def _calibration(p: np.ndarray, y: np.ndarray, bins: int = 10) -> dict:
    """Expected calibration error of ``p`` against ``y`` over ``bins`` equal-width bins.

    ``ece``: the bin-weighted ``|mean p - mean y|``, biased up by the outcomes' noise
    in each bin. ``ece_floor``: its expectation for a perfectly calibrated forecaster
    with the same forecasts (each outcome ``Bernoulli(p)``, independent): in each bin
    ``sqrt(2 / pi)`` times the standard deviation ``sqrt(sum p (1 - p)) / n_b`` of its
    mean outcome (the normal approximation). ``ece_debiased``:
    ``sum_b w_b sqrt(max(0, gap_b^2 - var_b))``, each bin's squared gap less that
    variance (the debiased estimator of Kumar, Liang and Ma 2019, per bin), the figure
    held to the target. The study's truth is fixed per design, so the replicates of one
    item share their outcome: the independent variance is the smaller one, and the
    debiased figure removes less than all of the noise (it errs towards reporting
    miscalibration).
    """
    idx = np.minimum((p * bins).astype(np.int64), bins - 1)
    share = np.bincount(idx, minlength=bins) / p.size
    count = np.maximum(np.bincount(idx, minlength=bins), 1)
    gap = (
        np.bincount(idx, weights=p, minlength=bins) - np.bincount(idx, weights=y, minlength=bins)
    ) / count
    var = np.bincount(idx, weights=p * (1.0 - p), minlength=bins) / count**2
    return {
        "ece": float(share @ np.abs(gap)),
        "ece_floor": float(share @ (math.sqrt(2.0 / math.pi) * np.sqrt(var))),
        "ece_debiased": float(share @ np.sqrt(np.maximum(gap * gap - var, 0.0))),
    }


def _items_below(per_item: pd.DataFrame, item_target: float) -> int:
    """Items whose coverage is significantly below ``item_target``.

    One-sided binomial test of each item's count of covering replicates, at level
    0.05 with Bonferroni's correction over the items: with few replicates the
    smallest observed coverage of many items is far below their true one (20
    replicates of 5000 items at 0.95 give about 0.70), the count of items
    significantly below is not.
    """
    import scipy.stats

    p = scipy.stats.binom.cdf(per_item["sum"], per_item["count"], item_target)
    return int(np.sum(p < 0.05 / len(per_item)))


def _coverage(
    frame: pd.DataFrame, item_target: float, prefix: str = "", theta: str = "theta"
) -> dict:
    lo, hi = frame[f"{prefix}score_lo"], frame[f"{prefix}score_hi"]
    s_in = (lo <= frame[theta]) & (frame[theta] <= hi)
    r_in = (frame[f"{prefix}rank_lo"] <= frame.true_rank_hi) & (
        frame.true_rank_lo <= frame[f"{prefix}rank_hi"]
    )
    s_w = hi - lo
    r_w = frame[f"{prefix}rank_hi"] - frame[f"{prefix}rank_lo"]
    per_item = (
        pd.DataFrame({"s": s_in, "r": r_in, "i": frame.item_id})
        .groupby("i")
        .agg(["mean", "sum", "count"])
    )
    out = {
        "score_cover": float(s_in.mean()),
        "score_cover_min": float(per_item["s"]["mean"].min()),
        "score_items_below": _items_below(per_item["s"], item_target),
        "score_width": float(s_w[np.isfinite(s_w)].mean()) if np.isfinite(s_w).any() else np.inf,
        "score_width_median": float(s_w.median()),
        "score_unbounded": float((~np.isfinite(s_w)).mean()),
        "rank_cover": float(r_in.mean()),
        "rank_cover_min": float(per_item["r"]["mean"].min()),
        "rank_items_below": _items_below(per_item["r"], item_target),
        "rank_width": float(r_w.mean()),
        "rank_width_median": float(r_w.median()),
    }
    p = frame[f"{prefix}p_top_k"].to_numpy()
    y = frame.true_top_k.to_numpy()
    out["brier"] = float(np.mean((p - y) ** 2))
    out.update(_calibration(p, y))
    return out


def summarise(
    frame: pd.DataFrame, designs: Mapping[str, Mapping], target: float, item_target: float
) -> pd.DataFrame:
    """Coverage, widths and calibration per design, and the comparator's beside them.

    ``score_cover``, ``rank_cover``: shares of (item, replicate) pairs covered;
    ``*_cover_min``: the smallest coverage of one item over the replicates (fixed
    truth and graph); ``*_items_below``: the items whose coverage is significantly
    below ``item_target`` (:func:`_items_below`); ``*_width`` (mean; for scores over
    the finite intervals) and ``*_width_median``; ``score_unbounded``: share of score
    intervals with an infinite end; ``located``: share of (item, replicate) pairs that the
    intervals locate (``informative``: the command leaves the others' cells empty and says
    why); ``brier``, ``ece``, ``ece_floor`` and ``ece_debiased``
    of ``p_top_k`` against the truth (:func:`_calibration`), ``brier_base`` that of
    predicting ``k / n``; ``boot_*``: the same for the
    parametric bootstrap of the release; ``meets``: both average coverages at
    least ``target``, no item significantly below ``item_target``, the Brier score
    below the baseline and the debiased calibration error at most 0.02.
    """
    _checks.columns(
        frame,
        "frame",
        ["design", "replicate", "item_id", "theta", "true_rank_lo", "true_rank_hi"],
    )
    _checks.mapping(designs, "designs")
    unknown = sorted(set(frame["design"]) - set(designs))
    if unknown:
        raise ValueError(f"designs lacks the designs {unknown} of the frame")
    _checks.probability(target, "target")
    _checks.probability(item_target, "item_target")
    out = []
    for name, g in frame.groupby("design", sort=False):
        spec = designs[name]
        n = int(spec["n_items"])
        k = _top_k(spec)
        row = {
            "design": name,
            "method": spec["method"],
            "epsilon": float(spec.get("epsilon", math.nan)),
            "n_items": n,
            "data": describe(spec),
            "replicates": int(g.replicate.nunique()),
            **_coverage(g, item_target),
            "located": float(g["informative"].mean()) if "informative" in g else math.nan,
        }
        row["brier_base"] = float(np.mean((k / n - g.true_top_k.to_numpy()) ** 2))
        if "boot_score_lo" in g:
            boot = _coverage(g, item_target, "boot_", "theta_plain")
            row.update({f"boot_{key}": value for key, value in boot.items()})
        row["meets"] = bool(
            row["score_cover"] >= target
            and row["rank_cover"] >= target
            and row["score_items_below"] == 0
            and row["rank_items_below"] == 0
            and row["brier"] < row["brier_base"]
            and row["ece_debiased"] <= 0.02
        )
        out.append(row)
    return pd.DataFrame(out)


def describe(spec: Mapping) -> str:
    """A short description of a design's data (the table's ``data`` column)."""
    parts = []
    law = spec.get("scores") or {"law": "uniform", "spread": 3.0}
    if law.get("law") == "normal":
        parts.append(f"normal sd {law.get('sd', 1.0):g}")
    elif law.get("law") == "ties":
        parts.append(f"{law.get('levels', 5)} tied levels")
    else:
        parts.append(f"uniform width {law.get('spread', 3.0):g}")
    if "graph" in spec:
        g = spec["graph"]
        if g.get("kind") == "heavy":
            parts.append(f"heavy-tailed graph, {g['comparisons']} comparisons")
        else:
            parts.append(f"ER p {g['p']:g}, {g['per_pair']} per pair")
    else:
        u = spec["users"]
        how = "1 + geometric" if u.get("law") == "fewer" else "exactly"
        parts.append(f"{u['count']} users, {how} <= {u['per_user']}")
        if u.get("pairs") == "zipf":
            parts.append("popular pairs")
        if u.get("declared_min"):
            parts.append(f"declared >= {u['declared_min']}")
    if spec.get("user_epsilon"):
        parts.append("eps " + "/".join(f"{e:g}" for e in spec["user_epsilon"]))
    if spec.get("model", "btl") != "btl":
        parts.append("Thurstone")
    return ", ".join(parts)


def coverage_table(summary: pd.DataFrame) -> str:
    """The coverage table alone (Markdown; docs/includes/intervals_coverage.md embeds it).

    Methods by their labels (:attr:`dprank.methods.Method.label`); every cell filled.
    """
    _checks.columns(
        summary,
        "summary",
        "design method epsilon data score_cover score_cover_min score_items_below "
        "score_width_median rank_cover rank_cover_min rank_items_below rank_width "
        "rank_width_median brier brier_base ece ece_floor ece_debiased".split(),
    )
    label = {name: get_method(name).label for name in summary["method"].unique()}
    boot = "boot_rank_cover" in summary
    head = (
        "| design | method | eps | data | score cover (min item, items below) "
        "| score width median | rank cover (min item, items below) | rank width mean / median "
        "| Brier (k/n) | ECE (floor) / debiased |"
    )
    align = "|---|---|---:|---|---:|---:|---:|---:|---:|---:|"
    if boot:
        head += " bootstrap: score cover (min item) | bootstrap: rank cover (min item) "
        head += "| rank width ratio |"
        align += "---:|---:|---:|"
    located = "located" in summary
    if located:
        head += " located |"
        align += "---:|"
    lines = [head, align]
    for r in summary.itertuples(index=False):
        eps = "-" if math.isnan(r.epsilon) else f"{r.epsilon:g}"
        line = (
            f"| {r.design} | {label[r.method]} | {eps} | {r.data} "
            f"| {r.score_cover:.3f} ({r.score_cover_min:.2f}, {r.score_items_below}) "
            f"| {r.score_width_median:.3g} "
            f"| {r.rank_cover:.3f} ({r.rank_cover_min:.2f}, {r.rank_items_below}) "
            f"| {r.rank_width:.3g} / {r.rank_width_median:.3g} "
            f"| {r.brier:.4f} ({r.brier_base:.4f}) "
            f"| {r.ece:.3f} ({r.ece_floor:.3f}) / {r.ece_debiased:.3f} |"
        )
        if boot:
            ratio = r.rank_width / r.boot_rank_width if r.boot_rank_width > 0 else math.nan
            line += (
                f" {r.boot_score_cover:.3f} ({r.boot_score_cover_min:.2f}) "
                f"| {r.boot_rank_cover:.3f} ({r.boot_rank_cover_min:.2f}) | {ratio:.2f} |"
            )
        if located:
            line += f" {r.located:.2f} |"
        lines.append(line)
    return "\n".join(lines) + "\n"


def coverage_markdown(
    summary: pd.DataFrame, level: float, target: float, item_target: float
) -> str:
    """The coverage table as Markdown with its caption and one sentence per design that
    falls short (:func:`coverage_table`)."""
    _checks.columns(summary, "summary", ["design", "meets"])
    _checks.probability(level, "level", low_open=True, high_open=True)
    _checks.probability(target, "target")
    _checks.probability(item_target, "item_target")
    boot = "boot_rank_cover" in summary
    lines = [
        f"Coverage of nominal {level:g} intervals, fixed truth and graph per design: the share "
        f"of (item, replicate) pairs covered and, in parentheses, the smallest coverage of one "
        f"item over the replicates and how many items cover significantly less than "
        f"{item_target:g} (binomial test, 5% with Bonferroni over the items); targets "
        f"{target:g} on average and {item_target:g} per item. Widths: median (and mean) "
        "over pairs; Brier score of p_top_k with that of predicting k/n in parentheses; "
        "ECE: expected calibration error of p_top_k over ten equal bins, in parentheses "
        "what a perfectly calibrated forecaster shows on the same fixed truths (its floor), "
        "and debiased (each bin's squared error less its variance under calibration)."
        + (
            " Bootstrap: the parametric bootstrap of the release (percentile intervals) on "
            "the same releases; ratio: mean rank width of these intervals over its."
            if boot
            else ""
        )
        + (
            " Located: the share of (item, replicate) pairs whose intervals locate the item "
            f"(finite score bounds, a rank interval over less than {INFORMATIVE_SHARE:.0%} of "
            "the places); "
            "`dprank rank --intervals` leaves the others' cells empty and says why."
            if "located" in summary
            else ""
        ),
        "",
        coverage_table(summary),
    ]
    short = summary[~summary["meets"].astype(bool)]
    if short.empty:
        lines.append(
            f"Every design reaches {target:g} on average and {item_target:g} per item for "
            "scores and ranks, with p_top_k better than k/n and its debiased calibration "
            "error within 0.02."
        )
    for r in short.itertuples(index=False):
        parts = []
        for what in ("score", "rank"):
            cover, low = getattr(r, f"{what}_cover"), getattr(r, f"{what}_cover_min")
            if cover < target:
                parts.append(f"{what} intervals cover {cover:.3f} on average")
            below = getattr(r, f"{what}_items_below")
            if below:
                parts.append(
                    f"{below} items' {what} coverage is significantly below {item_target:g} "
                    f"(the smallest {low:.2f})"
                )
        if r.brier >= r.brier_base:
            parts.append(f"p_top_k's Brier score {r.brier:.4f} is not below {r.brier_base:.4f}")
        if r.ece_debiased > 0.02:
            parts.append(f"p_top_k's debiased calibration error is {r.ece_debiased:.3f}")
        lines.append(f"Falls short: {r.design}: " + "; ".join(parts) + ".")
    return "\n".join(lines) + "\n"
