"""The price of privacy for a leaderboard (target ``arena``, docs/leaderboard.md).

On real votes with ties (the 2024-08-14 Chatbot Arena snapshot, 129 models; CEMS, 6
universities compared by 303 students with 487 ties), every private release of
:mod:`dprank.privacy.private_ties` is compared with the non-private leaderboard (Davidson's
maximum likelihood, :func:`dprank.privacy.private_ties.nonprivate_release`) at each budget:

* ``kendall``: Kendall's tau between the private and the non-private scores;
* ``top_overlap``: the share of the non-private top ``k`` in the private top ``k``
  (``k = min(top, n // 2)``: 10 of the arena's models, 3 of CEMS's universities);
* ``rank_coverage``: the share of items whose private rank interval (level ``level``,
  :func:`dprank.privacy.private_ties.ties_intervals`) holds the item's non-private rank;
* ``tie_classes``: the number of tie classes of the private leaderboard
  (:func:`dprank.leaderboard.tie_classes`), the groups it cannot order.

``epsilon = inf`` is the non-private leaderboard itself with its bootstrap intervals (the
statistical uncertainty alone). The privacy noise is drawn with numpy on streams seeded
from the root seed and keyed by data set, privacy, budget and replicate (simulations of
the releases, not releases). Local DP on the arena snapshot, which has no voter ids,
treats every vote as its own voter, all at the same budget: the ADRR fit then depends on
the released counts only.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pandas as pd

from dprank.base import checks as _checks
from dprank.base.seeding import Stream, cell_key, generator
from dprank.data.comparisons import Comparisons
from dprank.leaderboard import tie_classes
from dprank.privacy.private_ties import (
    TiesRelease,
    edge_release,
    individual_release,
    local_release,
    nonprivate_release,
    ties_intervals,
)

__all__ = [
    "METRICS",
    "PRIVACY",
    "cell_job",
    "cells",
    "cems_votes",
    "load_votes",
    "price_markdown",
    "run_cell",
    "summarise",
]

#: The releases compared (``none`` is the reference at ``epsilon = inf``).
PRIVACY = ("edge", "individual", "local")
METRICS = ("kendall", "top_overlap", "rank_coverage", "tie_classes")


def cems_votes(preferences: pd.DataFrame) -> Comparisons:
    """CEMS's comparisons with their ties (``Comparisons(..., ties=True)``), students as users.

    The 4454 answered comparisons of ``CEMS$preferences`` (91 missing dropped): 3967
    decided and 487 ties; schools numbered in name order, students in number order.
    """
    _checks.columns(
        preferences, "preferences", ("student", "school1", "school2", "win1", "win2", "tied")
    )
    answered = preferences[["win1", "win2", "tied"]].notna().all(axis=1).to_numpy()
    frame = preferences[answered]
    s1 = frame["school1"].astype(str).to_numpy()
    s2 = frame["school2"].astype(str).to_numpy()
    schools = np.unique(np.concatenate([s1, s2]))
    y = np.where(frame["tied"].to_numpy() == 1, 0.5, (frame["win1"] > frame["win2"]).to_numpy())
    _, user = np.unique(frame["student"].to_numpy(), return_inverse=True)
    return Comparisons(
        n_items=schools.size,
        i=np.searchsorted(schools, s1),
        j=np.searchsorted(schools, s2),
        y=y.astype(np.float64),
        count=np.ones(s1.size),
        user=user,
        labels=schools,
        ties=True,
    )


def load_votes(name: str, path: str | Path, both_bad: str = "tie") -> Comparisons:
    """The votes of data set ``name`` (``chatbot_arena`` or ``cems``) from its registered file."""
    _checks.path(path, "path")
    if not isinstance(both_bad, str) or both_bad not in ("tie", "drop"):
        raise ValueError(f"both_bad must be 'tie' or 'drop', got {both_bad!r}")
    if name == "chatbot_arena":
        from dprank.data.arena import read_arena

        return read_arena(path).comparisons(both_bad)
    if name == "cems":
        from dprank.data.realdata import read_cems

        return cems_votes(read_cems(path))
    raise ValueError(
        f"name must be a data set of votes with ties, chatbot_arena or cems, got {name!r}"
    )


def _local_simulation(c: Comparisons, eps: float, rng) -> Comparisons:
    """The votes released by three-outcome randomized response at budget ``eps`` (numpy).

    With voters (CEMS) each vote of each voter is released; without (the arena), each
    pair's votes of each outcome are released together (the same law, one multinomial
    per pair and outcome) and each released (pair, outcome) record is its own voter.
    """
    if c.user is not None:
        from dprank.methods import release_local

        return release_local(c, np.full(c.n_users, eps), rng, "rr3")
    ps = c.pair_statistics()
    t = ps.t
    W, L = ps.w - 0.5 * t, ps.n - ps.w - 0.5 * t
    beta = 1.0 / (math.exp(eps) + 2.0)
    keep = 1.0 - 2.0 * beta
    released = np.zeros((ps.a.size, 3))  # columns: a won, tie, b won
    for k, count in enumerate((W, t, L)):
        probs = np.full(3, beta)
        probs[k] = keep
        released += rng.multinomial(np.rint(count).astype(np.int64), probs)
    out = Comparisons.from_tie_counts(
        c.n_items, ps.a, ps.b, released[:, 0], released[:, 2], released[:, 1], labels=c.labels
    )
    return Comparisons(
        n_items=out.n_items,
        i=out.i,
        j=out.j,
        y=out.y,
        count=out.count,
        user=np.arange(out.i.size),
        labels=out.labels,
        user_epsilon=np.full(out.i.size, eps),
        ties=True,
    )


def _release(c: Comparisons, privacy: str, eps: float, rng, max_per_user) -> TiesRelease:
    if math.isinf(eps) or privacy == "none":
        return nonprivate_release(c, "davidson")
    if privacy == "edge":
        return edge_release(c, eps, rng)
    if privacy == "individual":
        L = int(max_per_user)
        if float(np.max(c.per_user_counts())) > L:
            raise ValueError(f"a voter has more than max_per_user = {L} votes")
        return individual_release(c, eps, rng, L)
    if privacy == "local":
        return local_release(_local_simulation(c, eps, rng))
    raise ValueError(f"privacy must be one of {PRIVACY}, got {privacy!r}")


def _ranks(scores: np.ndarray) -> np.ndarray:
    return 1 + np.argsort(np.argsort(-scores, kind="stable"), kind="stable")


def run_cell(
    c: Comparisons,
    dataset: str,
    privacy: str,
    eps: float,
    reps: range,
    seed: int,
    settings: Mapping,
) -> pd.DataFrame:
    """One (data set, privacy, budget): the metrics of each replicate (module docstring).

    ``settings``: ``level``, ``n_boot``, ``top`` and, for voter-level DP, ``max_per_user``.
    """
    from scipy.stats import kendalltau

    _checks.instance(c, "c", Comparisons, "a dprank.data.comparisons.Comparisons (load_votes)")
    _checks.text(dataset, "dataset")
    if not isinstance(privacy, str) or privacy not in (*PRIVACY, "none"):
        raise ValueError(f"privacy must be one of {[*PRIVACY, 'none']}, got {privacy!r}")
    eps = _checks.positive(eps, "eps")
    reps = _checks.indices(reps, "reps")
    seed = _checks.count(seed, "seed")
    _checks.mapping(settings, "settings", ("level", "n_boot", "top"))
    if privacy == "individual":
        _checks.mapping(settings, "settings", ("max_per_user",))
    ref = nonprivate_release(c, "davidson").fit.theta
    ref_rank = _ranks(ref)
    n = ref.size
    k = min(int(settings["top"]), n // 2)
    top_ref = set(np.argsort(-ref, kind="stable")[:k].tolist())
    key = cell_key({"dataset": dataset, "privacy": privacy, "epsilon": eps})
    rows = []
    for rep in reps:
        noise = generator(seed, "arena", key, rep, Stream.RELEASE)
        boot = generator(seed, "arena", key, rep, Stream.BOOTSTRAP)
        release = _release(c, privacy, eps, noise, settings.get("max_per_user"))
        theta = release.fit.theta
        iv = ties_intervals(
            release,
            np.arange(n).astype(str),
            level=float(settings["level"]),
            n_boot=int(settings["n_boot"]),
            rng=boot,
        )
        covered = (iv["rank_lo"].to_numpy() <= ref_rank) & (ref_rank <= iv["rank_hi"].to_numpy())
        classes = tie_classes(iv["estimate"], iv["score_lo"], iv["score_hi"])
        top = set(np.argsort(-theta, kind="stable")[:k].tolist())
        rows.append(
            {
                "dataset": dataset,
                "privacy": privacy if math.isfinite(eps) else "none",
                "epsilon": eps,
                "replicate": rep,
                "n_items": n,
                "k": k,
                "kendall": float(kendalltau(theta, ref).statistic),
                "top_overlap": len(top & top_ref) / k,
                "rank_coverage": float(np.mean(covered)),
                "tie_classes": int(classes.max()),
                "converged": bool(release.fit.converged),
            }
        )
    return pd.DataFrame(rows)


def cells(section: Mapping) -> list[tuple[str, str, float]]:
    """``(dataset, privacy, epsilon)`` of every job of the config section ``arena`` (the data
    sets in ``selected``, else all); ``(dataset, "none", inf)`` is each one's reference."""
    _checks.mapping(section, "section")
    data = section.get("data") or {}
    chosen = [name for name in data if name in section.get("selected", list(data))]
    out = [
        (name, privacy, float(eps))
        for name in chosen
        for privacy in data[name]["privacy"]
        for eps in section.get("epsilon", [])
        if math.isfinite(eps)
    ]
    return out + [(name, "none", math.inf) for name in chosen]


def cell_job(section: Mapping, seed: int, dataset: str, privacy: str, epsilon) -> dict:
    """The job of one cell (rule ``arena_cell``): its data set, privacy, budget, settings."""
    _checks.mapping(section, "section", ("data", "reps"))
    seed = _checks.count(seed, "seed")
    if not isinstance(dataset, str) or dataset not in section["data"]:
        raise ValueError(f"dataset must be one of {list(section['data'])}, got {dataset!r}")
    if not isinstance(privacy, str) or privacy not in (*PRIVACY, "none"):
        raise ValueError(f"privacy must be one of {[*PRIVACY, 'none']}, got {privacy!r}")
    try:
        epsilon = float(epsilon)
    except (TypeError, ValueError):
        raise TypeError(f"epsilon must be a number, got {epsilon!r}") from None
    if not epsilon > 0:
        raise ValueError(f"epsilon must be positive, got {epsilon!r}")
    spec = section["data"][dataset]
    settings = {k: section[k] for k in ("level", "n_boot", "top") if k in section}
    if "max_per_user" in spec:
        settings["max_per_user"] = spec["max_per_user"]
    return {
        "dataset": dataset,
        "privacy": privacy,
        "epsilon": float(epsilon),
        "both_bad": spec.get("both_bad", "tie"),
        "settings": settings,
        "reps": section["reps"],
        "seed": seed,
    }


def summarise(frame: pd.DataFrame) -> pd.DataFrame:
    """Mean and standard error of each metric per data set, privacy and budget."""
    _checks.columns(frame, "frame", ("dataset", "privacy", "epsilon", "n_items", "k", *METRICS))
    groups = frame.groupby(["dataset", "privacy", "epsilon"], sort=False)
    out = groups[list(METRICS)].mean().add_suffix("").reset_index()
    se = groups[list(METRICS)].sem(ddof=1).add_suffix("_se").reset_index(drop=True)
    out = pd.concat([out, se], axis=1)
    out["n_items"] = groups["n_items"].first().to_numpy()
    out["k"] = groups["k"].first().to_numpy()
    out["reps"] = groups.size().to_numpy()
    order = {"edge": 0, "individual": 1, "local": 2, "none": 3}
    out = out.assign(_o=out["privacy"].map(order)).sort_values(
        ["dataset", "_o", "epsilon"], kind="stable"
    )
    return out.drop(columns="_o").reset_index(drop=True)


def price_markdown(summary: pd.DataFrame, level: float) -> str:
    """The table as Markdown: one row per data set, privacy and budget."""
    _checks.columns(summary, "summary", ("dataset", "privacy", "epsilon", "n_items", "k", *METRICS))
    level = _checks.probability(level, "level", low_open=True, high_open=True)
    names = {"chatbot_arena": "Chatbot Arena", "cems": "CEMS"}
    lines = [
        f"| data | privacy | eps | Kendall tau | top-k overlap | rank intervals ({level:g}) "
        "holding the non-private rank | tie classes |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for r in summary.itertuples():
        eps = "inf" if math.isinf(r.epsilon) else f"{r.epsilon:g}"
        privacy = "voter" if r.privacy == "individual" else r.privacy
        lines.append(
            f"| {names.get(r.dataset, r.dataset)} ({r.n_items}) | {privacy} | {eps} | "
            f"{r.kendall:.3f} | {r.top_overlap:.2f} (k = {r.k}) | {r.rank_coverage:.2f} | "
            f"{r.tie_classes:.1f} |"
        )
    return "\n".join(lines) + "\n"
