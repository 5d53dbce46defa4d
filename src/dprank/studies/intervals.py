"""Coverage study of the intervals of :mod:`dprank.intervals` on synthetic BTL designs.

Each *design* (config ``intervals.designs``) names a registered method, its
``epsilon`` and how the comparisons are made:

* edge DP and non-private methods: an Erdos-Renyi graph on ``n_items`` items
  (each pair compared with probability ``p``), ``per_pair`` comparisons per
  compared pair; the graph is drawn once per replicate and is public;
* individual and local DP: ``users`` users, each comparing ``per_user`` pairs
  drawn uniformly with replacement (Paper A section 3); local users release
  with randomized response at ``epsilon`` (:meth:`dprank.methods.Method.run`).

Per replicate: true scores ``theta ~ Uniform(-spread/2, spread/2)``, centred;
outcomes from BTL; the method's release; its intervals from public inputs only
(:func:`dprank.intervals.public_design`); one row per item with the truth.
:func:`summarise` gives the empirical coverage of score and rank intervals
over (item, replicate) pairs and the mean widths.

Random streams: :func:`dprank.seeding.generator` with the experiment
``"intervals"``, the cell keyed by the design's parameters, the replicate, and
the streams ``THETA``, ``DATA``, ``NOISE_MLE`` (the release) and ``BOOTSTRAP``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from .. import _checks
from ..comparisons import Comparisons
from ..intervals import intervals, public_design
from ..methods import _simulated_local_release, get_method
from ..metrics_b import ranks as rank_scores
from ..models import BTL
from ..seeding import Stream, cell_key, generator
from ..simulate import pair_from_index

__all__ = [
    "EXPERIMENT",
    "check_section",
    "coverage_markdown",
    "design_key",
    "run_design",
    "selected_designs",
    "simulate_design",
    "summarise",
]

EXPERIMENT = "intervals"


def selected_designs(section: Mapping) -> dict:
    """The designs to run: ``designs``, restricted to ``selected`` when given, in order."""
    designs = dict(section.get("designs") or {})
    names = section.get("selected") or list(designs)
    return {name: designs[name] for name in names if name in designs}


def check_section(section: Mapping) -> list[str]:
    """Problems of the config section ``intervals`` beyond its schema (one line each)."""
    from ..intervals import NO_INTERVALS, supports

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
                f"intervals.designs.{name}: {method} protects users; give users and per_user "
                "instead of p and per_pair"
            )
        if not by_user and "p" not in spec:
            problems.append(
                f"intervals.designs.{name}: {method} works on a comparison graph; give p and "
                "per_pair instead of users and per_user"
            )
    return problems


def design_key(spec: Mapping) -> int:
    """Stable cell id of a design (its declared parameters)."""
    return cell_key({k: v for k, v in spec.items() if not isinstance(v, (list, dict))})


def simulate_design(spec: Mapping, theta: np.ndarray, rng: np.random.Generator) -> Comparisons:
    """Raw comparisons of one replicate of ``spec`` at true scores ``theta`` (BTL)."""
    n = theta.size
    meth = get_method(spec["method"])
    if meth.privacy_unit == "user":
        m, L = int(spec["users"]), int(spec["per_user"])
        k = rng.integers(0, n * (n - 1) // 2, size=m * L)
        a, b = pair_from_index(k, n)
        user = np.repeat(np.arange(m, dtype=np.int64), L)
        y = (rng.random(a.size) < BTL.cdf(theta[a] - theta[b])).astype(np.float64)
        return Comparisons(n_items=n, i=a, j=b, y=y, count=np.ones(a.size), user=user)
    a, b = np.triu_indices(n, 1)
    keep = rng.random(a.size) < float(spec["p"])
    a, b = a[keep], b[keep]
    cnt = np.full(a.size, int(spec["per_pair"]), dtype=np.int64)
    won = rng.binomial(cnt, BTL.cdf(theta[a] - theta[b]))
    y = np.concatenate([np.ones(a.size), np.zeros(a.size)])
    c = np.concatenate([won, cnt - won]).astype(np.float64)
    ok = c > 0
    return Comparisons(n_items=n, i=np.tile(a, 2)[ok], j=np.tile(b, 2)[ok], y=y[ok], count=c[ok])


def run_design(
    name: str, spec: Mapping, settings: Mapping, replicates: Sequence[int], seed: int
) -> pd.DataFrame:
    """One row per (replicate, item): truth, release, interval bounds.

    Parameters
    ----------
    name : str
        The design's name (a column of the output).
    spec : mapping
        ``method``, ``epsilon``, and ``p, per_pair`` or ``users, per_user``.
    settings : mapping
        ``n_items``, ``spread``, ``level``, ``n_boot``, ``interval``.
    replicates : sequence of int
    seed : int
        The project's root seed.
    """
    _checks.text(name, "name")
    _checks.mapping(spec, "spec")
    _checks.mapping(settings, "settings")
    for where, value, keys in (
        ("spec", spec, ("method", "epsilon")),
        ("settings", settings, ("n_items", "spread", "level", "n_boot", "interval")),
    ):
        missing = [k for k in keys if k not in value]
        if missing:
            raise ValueError(f"{where} lacks {missing}")
    _checks.positive(spec["epsilon"], "spec['epsilon']")
    _checks.count(settings["n_items"], "settings['n_items']", 2)
    _checks.positive_finite(settings["spread"], "settings['spread']")
    _checks.probability(settings["level"], "settings['level']", low_open=True, high_open=True)
    _checks.count(settings["n_boot"], "settings['n_boot']", 20)
    replicates = _checks.indices(replicates)
    _checks.count(seed, "seed")
    meth = get_method(spec["method"])
    n = int(settings["n_items"])
    eps = float(spec["epsilon"])
    cell = design_key({**spec, "n_items": n, "spread": settings["spread"]})
    rows = []
    for r in replicates:
        g_theta = generator(seed, EXPERIMENT, cell, r, Stream.THETA)
        theta = g_theta.uniform(-0.5, 0.5, n) * float(settings["spread"])
        theta -= theta.mean()
        raw = simulate_design(spec, theta, generator(seed, EXPERIMENT, cell, r, Stream.DATA))
        g_noise = generator(seed, EXPERIMENT, cell, r, Stream.NOISE_MLE)
        if meth.trust_model == "local":
            budget = np.full(raw.n_users, eps)
            raw = Comparisons(
                n_items=n, i=raw.i, j=raw.j, y=raw.y, count=raw.count, user=raw.user,
                user_epsilon=budget,
            )  # fmt: skip
            # a simulation, not a release: the draws of release_local in input order
            data = _simulated_local_release(raw, budget, g_noise, meth.release or "rr")
            fit = meth.fit(data, eps, g_noise)
            design = public_design(data, meth)
            eps_arg = None
        else:
            fit = meth.fit(raw, eps, g_noise)
            design = public_design(raw, meth, max_per_user=spec.get("per_user"))
            eps_arg = eps
        frame = intervals(
            fit.scores,
            meth,
            eps_arg,
            design,
            level=float(settings["level"]),
            n_boot=int(settings["n_boot"]),
            interval=settings["interval"],
            rng=generator(seed, EXPERIMENT, cell, r, Stream.BOOTSTRAP),
            ridge=_ridge_setting(settings.get("ridge", "eb")),
        )
        frame.insert(0, "design", name)
        frame.insert(1, "replicate", r)
        frame["theta"] = theta
        frame["true_rank"] = rank_scores(theta)
        frame["released_score"] = fit.scores
        rows.append(frame)
    return pd.concat(rows, ignore_index=True)


def _ridge_setting(value):
    """The config's ``ridge``: ``"eb"`` (empirical Bayes) or a relative ridge (a number)."""
    return value if isinstance(value, str) else float(value)


def summarise(frame: pd.DataFrame, designs: Mapping[str, Mapping], target: float) -> pd.DataFrame:
    """Coverage and mean widths per design.

    ``score_cover`` and ``rank_cover``: share of (item, replicate) pairs whose
    interval holds the truth; ``*_se``: standard error from the spread of the
    per-replicate coverages (items of one replicate are dependent);
    ``meets``: both coverages at least ``target``.
    """
    _checks.columns(
        frame,
        "frame",
        ["design", "replicate", "theta", "true_rank", "score_lo", "score_hi", "rank_lo", "rank_hi"],
    )
    _checks.mapping(designs, "designs")
    unknown = sorted(set(frame["design"]) - set(designs))
    if unknown:
        raise ValueError(f"designs lacks the designs {unknown} of the frame")
    _checks.probability(target, "target")
    f = frame.assign(
        s_in=(frame.score_lo <= frame.theta) & (frame.theta <= frame.score_hi),
        r_in=(frame.rank_lo <= frame.true_rank) & (frame.true_rank <= frame.rank_hi),
        s_w=frame.score_hi - frame.score_lo,
        r_w=frame.rank_hi - frame.rank_lo,
    )
    out = []
    for name, g in f.groupby("design", sort=False):
        per_rep = g.groupby("replicate")[["s_in", "r_in"]].mean()
        k = len(per_rep)
        spec = designs[name]
        out.append(
            {
                "design": name,
                "method": spec["method"],
                "epsilon": float(spec["epsilon"]),
                "graph": spec.get("graph", ""),
                "replicates": k,
                "pairs": len(g),
                "score_cover": g.s_in.mean(),
                "score_cover_se": per_rep.s_in.std(ddof=1) / np.sqrt(k) if k > 1 else np.nan,
                "score_width": g.s_w.mean(),
                "rank_cover": g.r_in.mean(),
                "rank_cover_se": per_rep.r_in.std(ddof=1) / np.sqrt(k) if k > 1 else np.nan,
                "rank_width": g.r_w.mean(),
                "meets": bool(g.s_in.mean() >= target and g.r_in.mean() >= target),
            }
        )
    return pd.DataFrame(out)


def coverage_markdown(summary: pd.DataFrame, level: float, target: float) -> str:
    """The coverage table as Markdown, with one sentence per design that falls short.

    Methods are named by their labels (:attr:`dprank.methods.Method.label`, as the
    figures and the papers call them); the CSV keeps the registry names.
    """
    _checks.columns(
        summary,
        "summary",
        "design method epsilon graph pairs score_cover score_cover_se score_width rank_cover "
        "rank_cover_se rank_width meets".split(),
    )
    _checks.probability(level, "level", low_open=True, high_open=True)
    _checks.probability(target, "target")
    label = {name: get_method(name).label for name in summary["method"].unique()}
    lines = [
        f"Empirical coverage of nominal {level:g} marginal intervals over (item, replicate) "
        f"pairs (standard error from the per-replicate coverages in parentheses) and mean "
        f"widths; target {target:g}.",
        "",
        "| design | method | epsilon | graph | pairs | score coverage | score width "
        "| rank coverage | rank width | meets target |",
        "|:---|:---|---:|:---|---:|---:|---:|---:|---:|:---|",
    ]
    for r in summary.itertuples(index=False):
        lines.append(
            f"| {r.design} | {label[r.method]} | {r.epsilon:g} | {r.graph} | {r.pairs} "
            f"| {r.score_cover:.3f} ({r.score_cover_se:.3f}) | {r.score_width:.3g} "
            f"| {r.rank_cover:.3f} ({r.rank_cover_se:.3f}) | {r.rank_width:.3g} "
            f"| {'yes' if r.meets else 'no'} |"
        )
    short = summary[~summary["meets"].astype(bool)]
    lines.append("")
    if short.empty:
        lines.append(f"Every design reaches the target {target:g} for scores and ranks.")
    for r in short.itertuples(index=False):
        parts = []
        if r.score_cover < target:
            parts.append(f"score intervals cover {r.score_cover:.3f}")
        if r.rank_cover < target:
            parts.append(f"rank intervals cover {r.rank_cover:.3f}")
        lines.append(
            f"Falls short: {r.design}, {label[r.method]} at epsilon {r.epsilon:g}: "
            + " and ".join(parts)
            + f", below the target {target:g}."
        )
    return "\n".join(lines) + "\n"
