"""Property-based tests of the public library, the votes with ties: models, releases, arena
files, leaderboards and the price-of-privacy study (the same two kinds of test as
:mod:`test_properties`: bad arguments refused by name, valid ones answered)."""

from __future__ import annotations

import json
import math
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from test_properties import BAD_RNG, INF, NAN, generator, kw, property_tests, registry
from test_properties_library import BAD_ALPHA, BAD_EPS, BAD_TRIALS, EPS, TRIALS

from dprank import audit, leaderboard, objective
from dprank.audit import command_release as audit_release
from dprank.data import arena
from dprank.data.comparisons import Comparisons
from dprank.fit import ties
from dprank.methods import release_local
from dprank.privacy import noise, private_ties
from dprank_papers.plotting import arena as plot_arena
from dprank_papers.studies import arena as study

case, CASES, BUILDERS, CHECKS = registry()


def _votes(n=4, per_pair=6, users=True) -> Comparisons:
    a, b = np.triu_indices(n, 1)
    i, j = np.repeat(a, per_pair), np.repeat(b, per_pair)
    y = np.tile([1.0, 0.5, 0.0, 1.0, 1.0, 0.0], i.size)[: i.size]
    user = np.arange(i.size) % 7 if users else None
    return Comparisons(n_items=n, i=i, j=j, y=y, count=np.ones(i.size), user=user, ties=True)


_VOTES = _votes()
_COUNTS = ties.TieCounts.from_pair_statistics(_VOTES.pair_statistics())
_RELEASED = release_local(_VOTES, np.full(_VOTES.n_users, 2.0), np.random.default_rng(3), "rr3")
_EDGE = private_ties.edge_release(_VOTES, 2.0, np.random.default_rng(4))
_NOISE = generator().map(noise.NoiseSource.from_seed)
_RNG_OR_NOISE = generator() | _NOISE
BAD_BUDGET = [0.0, -1.0, NAN, "1", None]
BAD_POSITIVE_FINITE = [0.0, -1.0, NAN, INF, "1", None]
BAD_FLAG = ["yes", None]
BAD_C = ["x", None, np.ones(3)]
BAD_LEVEL = [0.0, 1.0, 1.5, NAN, "0.9"]

# ---- noise: three-outcome randomized response
case(
    noise.rr3_threshold,
    kw(epsilon=st.floats(0.01, 30)),
    lambda t, kw: 0 < t <= 2**64 // 3 and t / 2**64 >= (1 - 1e-12) / (math.exp(kw["epsilon"]) + 2),
    epsilon=BAD_BUDGET,
)
case(
    noise.rr3_effective_epsilon,
    kw(epsilon=st.floats(0.01, 30)),
    # the threshold rounds 2^64 / (e^eps + 2) up to an integer: ~1e-6 relative at eps = 30
    lambda e, kw: e <= kw["epsilon"] and math.isclose(e, kw["epsilon"], rel_tol=1e-7),
    epsilon=BAD_BUDGET,
)

# ---- the models and their fit
case(
    objective.get_tie_model,
    kw(model=st.sampled_from(["davidson", "raokupper", objective.DAVIDSON])),
    lambda r, kw: isinstance(r, objective.TieModel),
    model=["bogus", None, 3],
)
case(
    ties.fit_ties_mle,
    kw(
        data=st.sampled_from([_COUNTS, _VOTES, _VOTES.pair_statistics()]),
        model=st.sampled_from(["davidson", "raokupper"]),
        gamma=st.floats(0.1, 3.0),
    ),
    lambda f, kw: f.converged and f.theta.shape == (4,) and np.all(np.isfinite(f.theta)),
    data=BAD_C,
    model=["bogus", None],
    gamma=[-1.0, NAN, INF, "1", None],
    b=[np.zeros(5), np.full(4, NAN), "x"],
    theta0=[np.zeros(5), np.full(4, NAN)],
    mu0=[NAN, INF, "1"],
    sum_zero=["yes", 2],
    mu_ridge=[-1.0, NAN, "1"],
    xtol=[-1.0, NAN, "1"],
    max_iter=[-1, 0.5, "2", None, True],
    solver=["bogus", None],
    raise_on_failure=BAD_FLAG,
)

# ---- private releases and their parts
case(
    private_ties.edge_epsilon,
    kw(scale=st.floats(0.01, 100)),
    lambda e, kw: math.isclose(e, 2 / kw["scale"]),
    scale=BAD_POSITIVE_FINITE,
)
case(
    private_ties.individual_epsilon,
    kw(scale=st.floats(0.01, 100), L=st.integers(1, 20)),
    lambda e, kw: math.isclose(e, 2 * kw["L"] / kw["scale"]),
    scale=BAD_POSITIVE_FINITE,
    L=[0, -1, 0.5, "2", None, True],
)
case(
    private_ties.local_epsilon,
    kw(epsilon=st.floats(0.01, 30)),
    lambda e, kw: e <= kw["epsilon"],
    epsilon=BAD_BUDGET,
)
_codes = hnp.arrays(np.int8, 5, elements=st.integers(0, 2))
case(
    private_ties.randomized_response3,
    kw(codes=_codes, eps=st.floats(0.1, 5.0), rng=generator()),
    lambda r, kw: r.shape == (5,) and set(np.unique(r)) <= {0, 1, 2},
    codes=[np.array([3]), np.array([0.5]), "x"],
    eps=[*BAD_BUDGET, np.ones(3)],
    rng=BAD_RNG,
)
case(
    private_ties.debias3,
    kw(released_codes=_codes, eps=st.floats(0.1, 5.0)),
    lambda z, kw: z.shape == (5, 3) and np.allclose(z.sum(axis=1), 1.0),
    released_codes=[np.array([3]), "x"],
    eps=BAD_BUDGET,
)
case(
    private_ties.adrr3_weights,
    kw(
        eps=hnp.arrays(np.float64, st.integers(1, 5), elements=st.floats(0.1, 5.0)),
        k=st.sampled_from([2, 3]),
    ),
    lambda w, kw: np.isclose(w.sum(), 1.0) and np.all(w > 0),
    eps=[np.zeros(2), np.array([]), np.array([NAN]), "x"],
    k=[1, 4, "3", None, True],
)
case(
    private_ties.item_points,
    kw(counts=st.just(_COUNTS)),
    lambda r, kw: math.isclose(r[0].sum(), _COUNTS.total.sum()) and r[1] == _COUNTS.T.sum(),
    counts=BAD_C,
)
_releases = dict(c=BAD_C, gamma=[-1.0, NAN, "1"])
case(
    private_ties.edge_release,
    kw(
        c=st.just(_VOTES),
        eps=st.floats(0.5, 5.0),
        rng=_RNG_OR_NOISE,
        model=st.sampled_from(["davidson", "btl"]),
    ),
    lambda r, kw: r.fit.converged and r.kind == "edge",
    eps=BAD_POSITIVE_FINITE,
    rng=["abc", None],
    model=["bogus", "raokupper", None],
    **_releases,
)
case(
    private_ties.individual_release,
    kw(
        c=st.just(_VOTES),
        eps=st.floats(0.5, 5.0),
        rng=_RNG_OR_NOISE,
        L=st.integers(6, 10),
        model=st.sampled_from(["davidson", "raokupper", "btl"]),
    ),
    lambda r, kw: r.fit.converged and r.kind == "individual",
    eps=BAD_POSITIVE_FINITE,
    rng=["abc", None],
    L=[0, -1, 0.5, "2", None],
    model=["bogus", None],
    **_releases,
)
case(
    private_ties.local_release,
    kw(c=st.just(_RELEASED), model=st.sampled_from(["davidson", "btl"])),
    lambda r, kw: r.fit.converged and r.kind == "local",
    c=[*BAD_C, _VOTES],
    model=["bogus", "raokupper", None],
    gamma=[-1.0, NAN, "1"],
)
case(
    private_ties.nonprivate_release,
    kw(
        c=st.just(_VOTES),
        model=st.sampled_from(["davidson", "raokupper", "btl"]),
        gamma=st.floats(0.1, 2.0),
    ),
    lambda r, kw: r.fit.converged and r.kind == "none",
    model=["bogus", None],
    **_releases,
)
case(
    private_ties.ties_intervals,
    kw(
        release=st.just(_EDGE),
        items=st.just(np.array(list("abcd"))),
        level=st.floats(0.5, 0.99),
        n_boot=st.integers(2, 5),
        rng=generator(),
    ),
    lambda f, kw: len(f) == 4 and bool((f.score_lo <= f.score_hi).all()),
    release=["x", None],
    items=[np.arange(3), "x"],
    level=BAD_LEVEL,
    n_boot=[1, -1, 2.5, "20"],
    top_k=[0, 9, 1.5, "1"],
    rng=["abc", 1.5],
)


# ---- audits of the shipped releases
def _verdict(r, kw):
    assert r.claimed_eps == kw["eps"] and r.trials == kw["trials"]
    tight = r.lower_bound <= kw["eps"] + audit.VERDICT_SLACK
    return r.verdict == ("consistent" if tight else "VIOLATION")


_audit_common = dict(eps=BAD_EPS, trials=BAD_TRIALS, rng=BAD_RNG, alpha=BAD_ALPHA)
case(
    audit_release.audit_release_rr3,
    kw(eps=EPS, trials=TRIALS, rng=generator()),
    _verdict,
    **_audit_common,
)
case(
    audit_release.audit_release_ties_edge,
    kw(eps=EPS, n=st.integers(3, 4), trials=TRIALS, rng=generator()),
    _verdict,
    n=[1, -1, 2.5, "3", None],
    **_audit_common,
)
case(
    audit_release.audit_release_ties_individual,
    kw(eps=EPS, n=st.integers(3, 4), L=st.integers(1, 2), trials=TRIALS, rng=generator()),
    _verdict,
    n=[1, -1, 2.5, "3", None],
    L=[0, -1, 0.5, "2", None, True],
    **_audit_common,
)

# ---- arena files
_DIR = Path(tempfile.mkdtemp(prefix="dprank-properties-ties-"))
_BATTLES = _DIR / "battles.csv"
pd.DataFrame(
    {
        "model_a": ["a", "b", "c", "a", "c"],
        "model_b": ["b", "c", "a", "c", "b"],
        "winner": ["model_a", "tie", "model_b", "tie (bothbad)", "model_a"],
        "judge": ["u1", "u2", "u1", "u3", "u2"],
    }
).to_csv(_BATTLES, index=False)
_TABLE = _DIR / "table.json"
_TABLE.write_text(
    json.dumps(
        {
            "models": ["a", "b", "c"],
            "X": [[0, 1], [1, 2], [0, 2]],
            "Y": [[3, 1, 2, 1], [1, 1, 1, 0], [2, 2, 0, 1]],
        }
    )
)
_PLAIN = _DIR / "plain.csv"
_PLAIN.write_text("winner,loser\na,b\n")
_PATHS = st.sampled_from([_BATTLES, str(_BATTLES), _TABLE])
case(
    arena.is_arena_file,
    kw(path=st.sampled_from([_BATTLES, _TABLE, _PLAIN, _DIR / "absent.csv"])),
    lambda r, kw: r == (Path(kw["path"]) in (_BATTLES, _TABLE)),
    path=[None, 3, ""],
)
case(
    arena.read_arena,
    kw(path=_PATHS),
    lambda v, kw: v.n_models == 3,
    path=[None, 3, ""],
    need_users=BAD_FLAG,
    need_epsilon=BAD_FLAG,
)
case(
    arena.read_arena_table,
    kw(path=_PATHS, both_bad=st.sampled_from(["tie", "drop"])),
    lambda t, kw: t.comparisons.ties and t.comparisons.n_items == 3,
    path=[None, 3, ""],
    need_users=BAD_FLAG,
    need_epsilon=BAD_FLAG,
    both_bad=["half", None, 3],
)
case(
    arena.arena_frame,
    kw(votes=st.just(arena.read_arena(_BATTLES)), counts=st.booleans()),
    lambda f, kw: set(f["winner"]) <= set(arena.OUTCOMES),
    votes=["x", None],
    counts=BAD_FLAG,
)


# ---- leaderboards
def _intervals(n_max=6):
    return kw(
        n=st.integers(1, n_max),
        score_lo=lambda kw: hnp.arrays(np.float64, kw["n"], elements=st.floats(-3, 3)),
        score_hi=lambda kw: hnp.arrays(np.float64, kw["n"], elements=st.floats(0, 2)).map(
            lambda w, lo=kw["score_lo"]: lo + w
        ),
    )


def _without_n(build):
    def inner(draw):
        out = build(draw)
        out.pop("n")
        return out

    return inner


_BAD_BOUND = [np.full(3, NAN), "x", np.zeros((2, 2))]
case(
    leaderboard.rank_upper_bound,
    _without_n(_intervals()),
    lambda r, kw: bool(np.all((1 <= r) & (r <= len(kw["score_lo"])))),
    score_lo=_BAD_BOUND,
    score_hi=[*_BAD_BOUND, lambda kw: np.asarray(kw["score_lo"]) - 1.0],
)


def _with_score(draw):
    out = _without_n(_intervals())(draw)
    out["score"] = (out["score_lo"] + out["score_hi"]) / 2
    return out


case(
    leaderboard.tie_classes,
    _with_score,
    lambda r, kw: r.min(initial=1) == 1 and r.max(initial=1) <= len(kw["score"]),
    score=[np.full(3, NAN), "x", lambda kw: np.append(kw["score"], 0.0)],
    score_lo=_BAD_BOUND,
    score_hi=_BAD_BOUND,
)
_LABELS = np.array(["m0", "m1", "m2"])
case(
    leaderboard.elo_offset,
    kw(
        theta=hnp.arrays(np.float64, 3, elements=st.floats(-2, 2)),
        items=st.just(_LABELS),
        anchor=st.sampled_from([None, ("m1", 1000.0), ["m2", 1200]]),
    ),
    lambda r, kw: math.isfinite(r),
    theta=[np.full(3, NAN), "x"],
    items=[_LABELS[:2], "m0"],
    anchor=[("nobody", 1000.0), ("m0",), "m0=1000", ("m0", NAN)],
)
_COLUMNS = {
    "item": _LABELS,
    "score": np.array([0.5, 0.0, -0.5]),
    "rank": np.array([1, 2, 3]),
    "score_lo": np.array([0.2, -0.3, -0.9]),
    "score_hi": np.array([0.8, 0.3, -0.1]),
    "rank_lo": np.array([1, 1, 2]),
    "rank_hi": np.array([2, 3, 3]),
}
case(
    leaderboard.leaderboard_columns,
    kw(
        columns=st.just(_COLUMNS),
        scale=st.sampled_from(["logit", "elo"]),
        votes=st.sampled_from([None, {"m0": 3, "m1": 4.6, "m2": 5}]),
    ),
    lambda r, kw: r["rank_ub"].tolist() == [1, 1, 2] and r["tie_class"].tolist() == [1, 1, 2],
    columns=["x", None, {"score": np.zeros(3)}, {**_COLUMNS, "rank": np.array([1, 2])}],
    scale=["bogus", None],
    votes=["x", {"m0": 1}],
)
_RECORDS = [
    {"privacy": p, "private": p != "none", "epsilon": 1.0, "delta": 0.0, "max_per_user": 5}
    for p in ("edge", "individual", "local", "none")
] + [{"privacy": "edge", "private": False, "epsilon": 1.0}]
case(
    leaderboard.privacy_statement,
    kw(record=st.sampled_from(_RECORDS)),
    lambda r, kw: isinstance(r, str) and len(r) > 40,
    record=["x", None, {}],
)
case(
    leaderboard.html_page,
    kw(
        columns=st.just(leaderboard.leaderboard_columns(_COLUMNS)),
        record=st.sampled_from(_RECORDS),
        title=st.text(max_size=20),
    ),
    lambda r, kw: r.startswith("<!DOCTYPE html>") and r.count("<tr data-order") == 3,
    columns=["x", {"item": _LABELS}],
    record=["x", {}],
    title=[None, 3],
)

# ---- the price-of-privacy study
_ROWS = pd.DataFrame(
    [
        {
            "dataset": d,
            "privacy": p,
            "epsilon": e,
            "replicate": r,
            "n_items": 4,
            "k": 2,
            "kendall": 0.5 + 0.1 * r,
            "top_overlap": 1.0,
            "rank_coverage": 0.9,
            "tie_classes": 2 + r,
            "converged": True,
        }
        for d in ("cems", "chatbot_arena")
        for p, e in (("edge", 1.0), ("local", 2.0), ("none", INF))
        for r in range(2)
    ]
)
_SUMMARY = study.summarise(_ROWS)
_PREFS = pd.DataFrame(
    {
        "student": [1, 1, 2, 2, 3],
        "school1": ["x", "y", "x", "x", "y"],
        "school2": ["y", "z", "z", "y", "z"],
        "win1": [1, 0, np.nan, 0, 0],
        "win2": [0, 0, np.nan, 1, 1],
        "tied": [0, 1, np.nan, 0, 0],
    }
)
_SECTION = {
    "epsilon": [1.0, INF],
    "level": 0.9,
    "n_boot": 10,
    "top": 2,
    "reps": 2,
    "data": {
        "cems": {"privacy": ["edge", "individual"], "max_per_user": 9},
        "chatbot_arena": {"privacy": ["local"]},
    },
}
case(
    study.cems_votes,
    kw(preferences=st.just(_PREFS)),
    lambda c, kw: c.ties and c.n_items == 3 and c.n_comparisons == 4 and c.n_users == 3,
    preferences=["x", None, pd.DataFrame({"a": [1]})],
)
case(
    study.load_votes,
    kw(
        name=st.just("chatbot_arena"),
        path=st.just(_TABLE),
        both_bad=st.sampled_from(["tie", "drop"]),
    ),
    lambda c, kw: c.ties and c.n_items == 3,
    name=["bogus", None],
    path=[None, 3, ""],
    both_bad=["half", None],
)
case(
    study.cells,
    kw(section=st.just(_SECTION)),
    lambda r, kw: len(r) == 2 * 1 + 1 + 2 and ("cems", "none", INF) in r,
    section=["x", None],
)
case(
    study.cell_job,
    kw(
        section=st.just(_SECTION),
        seed=st.integers(0, 100),
        dataset=st.sampled_from(["cems", "chatbot_arena"]),
        privacy=st.sampled_from(["edge", "local", "none"]),
        epsilon=st.floats(0.1, 8.0),
    ),
    lambda j, kw: j["settings"]["n_boot"] == 10 and j["epsilon"] == kw["epsilon"],
    section=["x", {}],
    seed=[-1, "1", None, 0.5],
    dataset=["bogus", None],
    privacy=["bogus", None],
    epsilon=[0.0, -1.0, "x", None],
)
case(
    study.run_cell,
    kw(
        c=st.just(_VOTES),
        dataset=st.just("toy"),
        privacy=st.sampled_from(["edge", "individual", "local", "none"]),
        eps=st.floats(0.5, 4.0),
        reps=st.just(range(1)),
        seed=st.integers(0, 50),
        settings=st.just({"level": 0.9, "n_boot": 3, "top": 2, "max_per_user": 12}),
    ),
    lambda f, kw: len(f) == 1 and -1 <= f["kendall"].iloc[0] <= 1,
    c=BAD_C,
    dataset=[None, 3],
    privacy=["bogus", None],
    eps=[0.0, -1.0, NAN, "1", None],
    reps=["x", [-1]],
    seed=[-1, "1", None],
    settings=["x", {}],
)
case(
    study.summarise,
    kw(frame=st.just(_ROWS)),
    lambda s, kw: len(s) == 6 and set(s["reps"]) == {2},
    frame=["x", pd.DataFrame({"a": [1]})],
)
case(
    study.price_markdown,
    kw(summary=st.just(_SUMMARY), level=st.floats(0.5, 0.99)),
    lambda t, kw: t.count("\n") == 2 + len(_SUMMARY),
    summary=["x", pd.DataFrame({"a": [1]})],
    level=BAD_LEVEL,
)


def _check_plot(r, kw):
    import matplotlib.pyplot as plt

    fig, numbers = r
    plt.close(fig)
    return len(numbers) > 0


case(
    plot_arena.plot_price_of_privacy,
    kw(summary=st.just(_SUMMARY), level=st.floats(0.5, 0.99)),
    _check_plot,
    summary=["x", pd.DataFrame({"a": [1]})],
    level=BAD_LEVEL,
)


# ------------------------------------------------------------------------ the tests


test_rejects_bad_argument, test_accepts_valid_arguments = property_tests(
    CASES, BUILDERS, CHECKS, bad_examples=4, valid_examples=4
)
