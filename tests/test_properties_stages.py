"""Property-based tests of the public library, part five: the studies' stage functions.

The functions the Snakemake rules call (a study's config section or one cell, replicate
numbers and a seed in; arrays or tidy frames out) and the functions that summarise their
frames. Each builder gives tiny valid arguments (cells of 3-6 items, a few users, one or
two replicates; files written to a temporary folder in the data's own format), so a valid
call takes milliseconds. The same two kinds of test as :mod:`test_properties`: bad values
of each argument raise ``ValueError``/``TypeError`` naming it, and valid arguments give an
answer with the stated shape, columns and ranges, the same answer under the same seed.
"""

from __future__ import annotations

import functools
import math
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
from hypothesis import strategies as st
from test_properties import (
    BAD_COUNT,
    BAD_COUNT1,
    BAD_POSITIVE_FINITE,
    BAD_PROB,
    INF,
    NAN,
    drop,
    kw,
    property_tests,
    registry,
)

from dprank import methods
from dprank.base.yamlfile import read_yaml
from dprank.data.comparisons import Comparisons
from dprank_papers.studies import (
    benchmark,
    beyond_scale,
    paper_a_real,
    paper_b1,
    paper_b2,
    paper_b2_car,
    privacy_audit,
)
from dprank_papers.studies import intervals as study_intervals
from dprank_papers.studies import paper_b1_movielens as movielens
from dprank_papers.studies.paper_b2 import extensions, scenario5, scenarios, sensitivity, timing
from dprank_papers.tables import read_published_table

ROOT = Path(__file__).resolve().parents[1]
CONFIG = read_yaml(ROOT / "config.yaml")
B2 = CONFIG["paper_b2"]
#: Paper B2's declared figures and tables (workflow/papers/paper_b2.yaml)
B2_ITEMS = read_yaml(ROOT / "workflow" / "papers" / "paper_b2.yaml")["items"]

_case, CASES, BUILDERS, CHECKS = registry()


def case(fn, build, check=None, /, **bad):
    """``registry``'s case, with the check's answer taken as a bool (numpy's too)."""
    strict = None if check is None else (lambda r, kw: bool(check(r, kw)))
    _case(fn, build, strict, **bad)


SEEDS = st.integers(0, 2**31)
BAD_SEED = [-1, 0.5, "1", None]
BAD_TEXT = [None, 3]
BAD_MAPPING = [None, "btl", 3]
BAD_REPLICATES = [None, "01", [-1], [0.5], 3]
BAD_METRICS = ["l2_over_sqrt_m", ["bogus"], [3], None]
BAD_LAMBDA_C = [-1.0, NAN, INF, "1", None]
BAD_GTOL = BAD_POSITIVE_FINITE


def same_frames(fn, kw):
    """``fn`` called twice with ``kw`` gives the same frame (the same seeds, the same draws)."""
    return fn(**kw).equals(fn(**kw))


def reps(hi: int = 2):
    return st.lists(st.integers(0, 50), min_size=1, max_size=hi, unique=True)


# ---- Paper B2: the simulate and estimate stages of one chunk
_CELL = {"model": "btl", "m": 4, "L": 12}
_EPS = {"range": [1.0, 3.0]}
_SIM = {"seed": 3, "experiment": "scenario1", "cell": _CELL, "p": 0.8, "eps": _EPS}
_DATA = scenarios.simulate_chunk(scenarios.Chunk(**_SIM, replicates=[0, 1]))
_sim_b2 = kw(
    seed=SEEDS,
    experiment=st.sampled_from(["scenario1", "x"]),
    cell=st.sampled_from([_CELL, {**_CELL, "model": "tm", "m": 3}]),
    p=st.floats(0.2, 1),
    eps=st.sampled_from([_EPS, {"value": 2.0}, {"shifted": [0.5, 1.5], "width": 0.5}]),
    replicates=reps(),
)
_BAD_SIM = dict(
    seed=BAD_SEED,
    experiment=BAD_TEXT,
    cell=BAD_MAPPING,
    p=BAD_PROB,
    eps=BAD_MAPPING,
    replicates=BAD_REPLICATES,
)


def _check_sim(r, kw):
    R, m = len(kw["replicates"]), kw["cell"]["m"]
    P = m * (m - 1) // 2
    return (
        r["theta"].shape == (R, m)
        and r["S"].shape == r["N"].shape == (R, P)
        and np.all((r["B"] > 0) & (r["B"] <= 1))
        and np.allclose(r["theta"].sum(axis=1), 0)
        and r["replicate"].tolist() == list(kw["replicates"])
        # a replicate's draws do not depend on the chunk it is simulated in
        and np.array_equal(
            paper_b2.simulate_chunk(**{**kw, "replicates": kw["replicates"][-1:]})["S"][0],
            r["S"][-1],
        )
    )


def _flat(chunk: scenarios.Chunk) -> dict:
    """A chunk's fields as the keyword arguments of a flat stage function."""
    names = ("seed", "experiment", "cell", "p", "eps", "replicates")
    return {name: getattr(chunk, name) for name in names}


def chunk_of(build, *extra):
    """A builder of ``chunk`` (a :class:`~scenarios.Chunk` of the flat arguments ``build``
    draws) and of the arguments ``extra`` it draws beside them."""

    def inner(draw):
        flat = build(draw)
        out = {name: flat.pop(name) for name in extra}
        return {"chunk": scenarios.Chunk(**flat), **out}

    return inner


BAD_CHUNK = [None, "x", _SIM]
case(
    scenarios.Chunk,
    _sim_b2,
    lambda r, kw: r.replicates == list(kw["replicates"]) and r.scheme() is kw["eps"],
    **_BAD_SIM | {"eps": ["btl", 3]},
)
case(
    scenarios.simulate_chunk,
    chunk_of(_sim_b2),
    lambda r, kw: _check_sim(r, _flat(kw["chunk"])),
    chunk=BAD_CHUNK,
)
case(paper_b2.simulate_chunk, _sim_b2, _check_sim, **_BAD_SIM, kind=["bogus", None])
_est_b2 = kw(
    data=st.just(_DATA),
    cell=st.just(_CELL),
    lambda_c=st.floats(0.1, 5),
    gtol=st.just(1e-8),
    max_iter=st.integers(20, 100),
    metrics=st.lists(
        st.sampled_from(sorted(scenarios.METRICS)), min_size=1, max_size=2, unique=True
    ),
)
_BAD_EST = dict(
    data=BAD_MAPPING,
    cell=BAD_MAPPING,
    lambda_c=BAD_LAMBDA_C,
    gtol=BAD_GTOL,
    max_iter=BAD_COUNT1,
    metrics=BAD_METRICS,
)


_SETTINGS = ("lambda_c", "gtol", "max_iter")
#: strategies of the settings, where a case checks the answer's layout more than the fit
_FIT = {"lambda_c": st.floats(0.5, 2), "gtol": st.just(1e-8), "max_iter": st.just(100)}


def settings_of(build):
    """A builder of ``settings`` (a :class:`~scenarios.FitSettings` of ``lambda_c, gtol,
    max_iter`` that ``build`` draws) and of the other arguments ``build`` draws."""

    def inner(draw):
        flat = build(draw)
        settings = scenarios.FitSettings(*(flat.pop(name) for name in _SETTINGS))
        return {**flat, "settings": settings}

    return inner


BAD_SETTINGS = [None, (1.0, 1e-8, 100), {"lambda_c": 1.0, "gtol": 1e-8, "max_iter": 100}]
_BAD_FIT_EST = {k: v for k, v in _BAD_EST.items() if k not in _SETTINGS} | {
    "settings": BAD_SETTINGS
}


def _check_est(r, kw):
    metrics = {*kw["metrics"], "converged"}
    settings = kw.get("settings") or scenarios.FitSettings(*(kw[name] for name in _SETTINGS))
    return (
        set(r["metric"]) == metrics
        and len(r) == 2 * len(metrics)
        and set(r["replicate"]) == set(_DATA["replicate"].tolist())
        and bool((r["value"] >= 0).all())
        and r.equals(scenarios.estimate_chunk(_DATA, _CELL, settings, kw["metrics"]))
    )


case(
    scenarios.FitSettings,
    kw(lambda_c=st.floats(0, 5), gtol=st.floats(1e-12, 1e-4), max_iter=st.integers(1, 100)),
    lambda r, kw: (r.lambda_c, r.gtol, r.max_iter) == tuple(kw[name] for name in _SETTINGS),
    **{name: _BAD_EST[name] for name in _SETTINGS},
)
case(scenarios.estimate_chunk, settings_of(_est_b2), _check_est, **_BAD_FIT_EST)
case(paper_b2.estimate_chunk, _est_b2, _check_est, **_BAD_EST, kind=["bogus", None])
case(
    scenarios.hessian_chunk,
    kw(data=st.just(_DATA), cell=st.just(_CELL)),
    lambda r, kw: (
        set(r["metric"]) == {"hessian_min_eig"} and len(r) == 2 and (r["value"] > 0).all()
    ),
    data=BAD_MAPPING,
    cell=BAD_MAPPING,
)
_BLOCK = [_CELL, {**_CELL, "m": 3}]
case(
    paper_b2.simulate_block,
    kw(
        cells=st.just(_BLOCK),
        seed=SEEDS,
        experiment=st.just("e"),
        p=st.floats(0.3, 1),
        eps=st.just(_EPS),
        replicates=reps(),
    ),
    lambda r, kw: (
        set(r) >= {"c0__S", "c1__S"} and r["c1__theta"].shape == (len(kw["replicates"]), 3)
    ),
    cells=[None, "x", [None]],
    seed=BAD_SEED,
    replicates=BAD_REPLICATES,
)
_BLOCK_DATA = paper_b2.simulate_block(
    _BLOCK, seed=3, experiment="e", p=0.8, eps=_EPS, replicates=[0]
)
case(
    paper_b2.estimate_block,
    kw(
        data=st.just(_BLOCK_DATA),
        cells=st.just(_BLOCK),
        **_FIT,
    ),
    lambda r, kw: sorted(set(r["m"])) == [3, 4] and set(r["metric"]) >= {"converged"},
    cells=[None, "x", [None]],
    lambda_c=BAD_LAMBDA_C,
    max_iter=BAD_COUNT1,
)

# ---- Scenario V: sizes drawn per replicate, five methods
_S5_CELL = {"model": "btl"}
_S5_EPS = {"range": [0.5, 2.0]}
_S5_DRAWS = {"m": [3, 5], "L": [8, 14]}
_S5_CHUNK = scenarios.Chunk(1, "scenario5", _S5_CELL, 0.7, [0, 1], _S5_EPS)
_S5_DATA = scenario5.simulate_chunk(_S5_CHUNK, _S5_DRAWS)


def _check_s5(r, kw):
    m = r["m"]
    return (
        r["theta"].size == m.sum()
        and r["S_adrr"].size == (m * (m - 1) // 2).sum()
        and np.all(r["eps_min"] >= _S5_EPS["range"][0])
        and np.array_equal(scenario5.simulate_chunk(**kw)["S_raw"], r["S_raw"])
    )


case(
    scenario5.simulate_chunk,
    chunk_of(
        kw(
            seed=SEEDS,
            experiment=st.just("scenario5"),
            cell=st.sampled_from([_S5_CELL, {"model": "tm"}]),
            p=st.floats(0.3, 1),
            eps=st.just(_S5_EPS),
            replicates=reps(),
            draws=st.just(_S5_DRAWS),
        ),
        "draws",
    ),
    _check_s5,
    chunk=BAD_CHUNK,
    draws=["x", 3],
)
case(
    scenario5.split,
    kw(data=st.just(_S5_DATA), i=st.integers(0, 1)),
    lambda r, kw: (
        r["theta"].size == int(r["m"]) and r["S_adrr"].size == int(r["m"]) * (int(r["m"]) - 1) // 2
    ),
    data=BAD_MAPPING,
    i=[-1, 2, 0.5, "0", None],
)
case(
    scenario5.estimate_chunk,
    settings_of(
        kw(
            data=st.just(_S5_DATA),
            cell=st.just(_S5_CELL),
            seed=st.just(1),
            experiment=st.just("scenario5"),
            **_FIT,
            metrics=st.just(["l2_over_sqrt_m", "kendall_tau_K"]),
            methods=st.lists(
                st.sampled_from(scenario5.METHODS), min_size=1, max_size=3, unique=True
            ),
        )
    ),
    lambda r, kw: set(r["method"]) == set(kw["methods"]) and set(r["replicate"]) == {0, 1},
    **_BAD_FIT_EST,
    seed=BAD_SEED,
    experiment=BAD_TEXT,
    methods=["local_adrr", ["bogus"], None],
    noisy_obj_delta=[0.0, -1.0, NAN, "x"],
)

# ---- supplement: mixed effects and model selection
_MIX_CELL = {"m": 4, "L": 10}
_MIX_DATA = extensions.simulate_mixed_chunk(
    scenarios.Chunk(2, "mixed", _MIX_CELL, 1.0, [0, 1]), 1.0
)
case(
    extensions.simulate_mixed_chunk,
    chunk_of(
        kw(
            seed=SEEDS,
            experiment=st.just("mixed"),
            cell=st.just(_MIX_CELL),
            p=st.floats(0.5, 1),
            replicates=reps(),
            sigma=st.floats(0, 2),
        ),
        "sigma",
    ),
    lambda r, kw: (
        r["y"].shape == (len(kw["chunk"].replicates), 10, 6)
        and r["gamma"].shape == (len(kw["chunk"].replicates), 10)
        and np.array_equal(extensions.simulate_mixed_chunk(**kw)["y"], r["y"])
    ),
    chunk=BAD_CHUNK,
    sigma=[-1.0, NAN, "1", None],
)
case(
    extensions.estimate_mixed_chunk,
    kw(
        data=st.just(_MIX_DATA),
        cell=st.just(_MIX_CELL),
        sigma=st.just(1.0),
        lam=st.just(1.0),
        ridge=st.just(1e-6),
        gtol=st.just(1e-8),
        max_iter=st.just(100),
        metrics=st.just(["l2_over_sqrt_m_theta", "abs_sigma_hat_minus_sigma"]),
    ),
    lambda r, kw: len(r) == 6 and bool((r["value"] >= 0).all()),
    **{k: v for k, v in _BAD_EST.items() if k != "lambda_c"},
    sigma=[-1.0, NAN, "1"],
    lam=[-1.0, NAN, "1"],
    ridge=[-1.0, NAN, "1"],
)
_SEL_CELL = {"m": 4, "L": 30}
_SEL_DATA = extensions.simulate_selection_chunk(scenarios.Chunk(2, "sel", _SEL_CELL, 1.0, [0, 1]))
case(
    extensions.simulate_selection_chunk,
    chunk_of(
        kw(
            seed=SEEDS,
            experiment=st.just("sel"),
            cell=st.just(_SEL_CELL),
            p=st.floats(0.5, 1),
            replicates=reps(),
        )
    ),
    lambda r, kw: set(r["truth"]) <= {0, 1} and r["S"].shape == (len(kw["chunk"].replicates), 6),
    chunk=BAD_CHUNK,
)
case(
    extensions.estimate_selection_chunk,
    settings_of(
        kw(
            data=st.just(_SEL_DATA),
            cell=st.just(_SEL_CELL),
            **_FIT,
        )
    ),
    lambda r, kw: (
        set(r["metric"]) == {"prop_correct_model_selected", "converged"}
        and set(r["value"]) <= {0.0, 1.0}
    ),
    **{k: v for k, v in _BAD_FIT_EST.items() if k != "metrics"},
)

# ---- Figure 10: timings
case(
    timing.time_cell,
    chunk_of(
        kw(
            seed=SEEDS,
            experiment=st.just("timing"),
            cell=st.just({"m": 4, "L": 20}),
            p=st.floats(0.5, 1),
            eps=st.just(_EPS),
            replicates=reps(1),
            chunk_elements=st.integers(10, 1000),
        ),
        "chunk_elements",
    ),
    lambda r, kw: (
        set(r["metric"])
        == {"seconds_aggregate", "seconds_solve", "seconds_total", "l2_over_sqrt_m", "converged"}
        and bool((r["value"] >= 0).all())
    ),
    chunk=BAD_CHUNK,
    lambda_c=BAD_LAMBDA_C,
    gtol=BAD_GTOL,
    max_iter=BAD_COUNT1,
    chunk_elements=BAD_COUNT1,
    workers=BAD_COUNT,
)


def _timing_rows(draw):
    a, b = draw(st.floats(0.5, 1.5)), draw(st.floats(1, 3))
    rows = [
        {"m": m, "L": L, "metric": metric, "value": 1e-6 * L**a * m**b}
        for m in (10, 20, 40)
        for L in (200, 400, 800)
        for metric in ("seconds_aggregate", "seconds_solve", "seconds_total")
    ]
    return {"replicates": pd.DataFrame(rows)}


case(
    timing.scaling_exponents,
    _timing_rows,
    lambda r, kw: (
        len(r) == 3
        and np.allclose(
            r["slope_log_L"],
            np.log(kw["replicates"]["value"].iloc[3] / kw["replicates"]["value"].iloc[0])
            / math.log(2),
        )
    ),
    replicates=[None, "x", pd.DataFrame({"m": [1]})],
)

# ---- the sensitivity study of B2's unstated settings
_S3 = B2["experiments"]["scenario3"]
_S3_GRID = {"scheme": [2], "m": [4], "L": [12]}
_BAD_SENS = dict(
    seed=BAD_SEED,
    experiment=BAD_TEXT,
    exp=BAD_MAPPING,
    replicates=BAD_REPLICATES,
    gtol=BAD_GTOL,
    max_iter=BAD_COUNT1,
)
#: Scenario III takes its fits' settings as one FitSettings, ``fit``
_BAD_S3 = {k: v for k, v in _BAD_SENS.items() if k not in _SETTINGS} | {"fit": BAD_SETTINGS}
_S3_FIT = scenarios.FitSettings(1.0, 1e-8, 100)
case(
    sensitivity.scenario3_grid,
    kw(
        seed=SEEDS,
        experiment=st.just("scenario3"),
        exp=st.just(_S3),
        model=st.sampled_from(["btl", "tm"]),
        p=st.floats(0.3, 1),
        eps0=st.lists(st.floats(1, 4), min_size=1, max_size=2, unique=True),
        replicates=reps(),
        fit=st.just(_S3_FIT),
        grid=st.just(_S3_GRID),
    ),
    lambda r, kw: (
        set(r["eps0"]) == {float(e) for e in kw["eps0"]}
        and set(r["metric"]) >= set(sensitivity.S3_METRICS)
        and (r["reps"] == len(kw["replicates"])).all()
    ),
    **_BAD_S3,
    model=BAD_TEXT,
    p=BAD_PROB,
    eps0=[2.0, [0.0], [NAN], ["x"], None],
    grid=["x", 3],
)
case(
    sensitivity.scenario3_check,
    kw(
        seed=SEEDS,
        experiment=st.just("scenario3"),
        exp=st.just(_S3),
        settings=st.just([{"label": "fit", "p": 0.5, "eps0": 2.0}]),
        replicates=reps(1),
        fit=st.just(_S3_FIT),
        grid=st.just(_S3_GRID),
    ),
    lambda r, kw: set(r["label"]) == {"fit"} and set(r["model"]) == set(_S3["grid"]["model"]),
    **_BAD_S3,
    settings=[None, "x", [None], [{"label": "a"}]],
)
_S5 = {**B2["experiments"]["scenario5"], "draws": _S5_DRAWS}
case(
    sensitivity.scenario5_grid,
    kw(
        seed=SEEDS,
        experiment=st.just("scenario5"),
        exp=st.just(_S5),
        model=st.sampled_from(["btl", "tm"]),
        p=st.floats(0.3, 1),
        theta_half=st.lists(st.floats(0.5, 2), min_size=1, max_size=2, unique=True),
        lambda_c=st.just([1.0]),
        replicates=reps(1),
        gtol=st.just(1e-8),
        max_iter=st.just(100),
        methods=st.just(["local_adrr", "local_count"]),
    ),
    lambda r, kw: (
        set(r["method"]) == {"local_adrr", "local_count"}
        and len(set(r["theta_half"])) == len(kw["theta_half"])
    ),
    **_BAD_SENS,
    model=BAD_TEXT,
    p=BAD_PROB,
    theta_half=[1.0, [0.0], [NAN], None],
    lambda_c=[1.0, [-1.0], [NAN], None],
    methods=["local_adrr", ["bogus"], None],
)


def _comparison(draw):
    n = draw(st.integers(1, 6))
    verdicts = draw(
        st.lists(st.sampled_from(["within", "outside", "not run"]), min_size=n, max_size=n)
    )
    ours = draw(st.lists(st.floats(0, 2), min_size=n, max_size=n))
    printed = draw(st.lists(st.floats(0.01, 2), min_size=n, max_size=n))
    return {
        "comparison": pd.DataFrame(
            {"verdict": verdicts, "ours_mean": ours, "published_mean": printed}
        )
    }


def _check_agreement(r, kw):
    c = kw["comparison"]
    done = c[c["verdict"] != "not run"]
    ok = done[(done["ours_mean"] > 0)]
    ratio = np.log(ok["ours_mean"] / ok["published_mean"])
    return (
        r["compared"] == len(done)
        and r["within"] == int((c["verdict"] == "within").sum())
        and (
            math.isnan(r["rms_log_ratio"])
            if ratio.empty
            else math.isclose(
                r["rms_log_ratio"], float(np.sqrt(np.mean(ratio**2))), rel_tol=1e-9, abs_tol=1e-12
            )
        )
    )


case(
    sensitivity.agreement,
    _comparison,
    _check_agreement,
    comparison=[None, "x", pd.DataFrame({"verdict": ["within"]})],
)
_TABLE6 = read_published_table(ROOT / B2_ITEMS["table6"]["published"])
_TABLE6 = _TABLE6[(_TABLE6["model"] == "BTL") & (_TABLE6["m"] == 10)]


def _grid_summary(draw):
    k, best = draw(st.floats(0.1, 1)), draw(st.sampled_from([2.0, 2.5, 3.0]))
    rows = [
        {
            "p": 0.5,
            "eps0": e0,
            "model": "btl",
            "scheme": int(r["scheme"][6:]),
            "m": 10,
            "L": int(r["L"]),
            "method": "local_adrr",
            "metric": r["metric"],
            "mean": r["mean"] * np.exp(k * abs(e0 - best)),
            "sd": 0.01,
            "se": 0.001,
            "reps": 100,
        }
        for e0 in (1.5, 2.0, 2.5, 3.0, 3.5)
        for _, r in _TABLE6.iterrows()
    ]
    return {
        "grid_summary": pd.DataFrame(rows),
        "published": _TABLE6,
        "label": "B2 Table 6",
        "z": 4.0,
        "_best": best,
    }


case(
    sensitivity.budget_curve,
    drop(_grid_summary, "_best"),
    lambda r, kw: len(r) == 5 and (r["compared"] == len(_TABLE6)).all(),
    grid_summary=[None, "x", pd.DataFrame({"p": [0.5]})],
    published=[None, "x"],
    label=[None, 3],
    z=[0.0, -1.0, NAN, "4"],
)


def _curve(draw):
    return {"curve": sensitivity.budget_curve(**drop(_grid_summary, "_best")(draw))}


case(
    sensitivity.fit_budget,
    _curve,
    lambda r, kw: len(r) == 1 and bool(r["best"].all()),
    curve=[None, "x", pd.DataFrame({"p": [0.5], "eps0": [2.0]})],
)
_TABLE11 = read_published_table(ROOT / B2_ITEMS["table11"]["published"])


def _s5_summary(draw):
    factor = draw(st.floats(0.5, 3))
    rows = [
        {
            "theta_half": h,
            "p": 0.5,
            "lambda_c": 1.0,
            "model": r["model"].lower(),
            "method": r["method"],
            "metric": r["metric"],
            "mean": r["mean"] * (factor if h == 2.0 else 1.0),
            "sd": 0.01,
            "se": 0.0007,
            "reps": 200,
        }
        for h in (1.0, 2.0)
        for _, r in _TABLE11.iterrows()
    ]
    return {"summary": pd.DataFrame(rows), "published": {"B2 Table 11": _TABLE11}, "z": 4.0}


case(
    sensitivity.scenario5_agreement,
    _s5_summary,
    lambda r, kw: (
        len(r[1]) == 2 and r[1]["within"].iloc[0] == r[1]["compared"].iloc[0] == len(_TABLE11)
    ),
    summary=[None, "x", pd.DataFrame({"method": ["local_adrr"]})],
    published=[None, "x"],
    z=[0.0, -1.0, NAN, "4"],
)


def _s5_rows(factor: float) -> pd.DataFrame:
    return _s5_summary(lambda strategy: factor)["summary"]


# the findings' inputs, computed once: Scenario V at two settings (the second's Kendall
# distances 1 or 2.5 times the printed ones), the Scenario III fit and its check
_S5_AGREEMENTS = [
    (summary, *sensitivity.scenario5_agreement(summary, {"B2 Table 11": _TABLE11}, 4.0))
    for summary in (_s5_rows(1.0), _s5_rows(2.5))
]
_K_BEST = iter([0.5, 2.5])  # the draws of _grid_summary: k, then the best eps0
_FIT3 = sensitivity.fit_budget(
    sensitivity.budget_curve(
        _grid_summary(lambda strategy: next(_K_BEST))["grid_summary"],
        _TABLE6,
        "B2 Table 6",
        4.0,
    )
)
_CHECK3 = pd.DataFrame(
    [
        {"label": label, "table": table, "p": 0.5, "eps0": eps0, "within": 3, "compared": 4,
         "rms_log_ratio": 0.1}
        for label, eps0 in (("the fit", 2.5), ("the default", 2.75))
        for table in ("B2 Table 6", "B2 Table 7")
    ]
)  # fmt: skip


def _findings(draw):
    summary, cells5, settings5 = draw(st.sampled_from(_S5_AGREEMENTS))
    return {
        "cells5": cells5,
        "settings5": settings5,
        "default5": {"theta_half": 1.0, "p": 0.5, "lambda_c": 1.0},
        "fit3": _FIT3,
        "check3": _CHECK3,
        "default3": {"p": 0.5, "eps0": 2.75},
        "summary5": draw(st.sampled_from([None, summary])),
    }


case(
    sensitivity.findings,
    _findings,
    lambda r, kw: (
        len(r) >= 5
        and all(isinstance(t, str) and t for t in r)
        and r[0].startswith(f"Scenario V: {len(kw['settings5'])} settings")
        and r[-1].startswith("The main study keeps its defaults (Scenario III p = 0.5, eps0 = 2.75")
        and sum(t.startswith("At the ") for t in r) == 2
    ),
    cells5=[None, "x", pd.DataFrame({"figure": ["B2 Table 11"]})],
    settings5=[None, "x", pd.DataFrame({"within": [1]})],
    default5=[None, "x", {"p": 0.5}],
    fit3=[None, "x", pd.DataFrame({"p": [0.5]})],
    check3=[None, "x", pd.DataFrame({"label": ["a"]})],
    default3=[None, "x", {"p": 0.5}],
    summary5=["x", pd.DataFrame({"metric": ["converged"]})],
)
_SENS = CONFIG["sensitivity"]
case(
    sensitivity.check_section,
    kw(section=st.just(_SENS), paper_b2=st.just(B2)),
    lambda r, kw: r == [],
    section=[None, "x"],
    paper_b2=["x", 3],
)

# ---- B2 section 5.2: the car preference data
_TMP = tempfile.TemporaryDirectory(prefix="dprank-properties-")
_CAR_Y: dict[Path, np.ndarray] = {}


def _folder(name: str) -> Path:
    """A new folder under the module's temporary directory."""
    out = Path(_TMP.name) / f"{name}{len(list(Path(_TMP.name).iterdir()))}"
    out.mkdir()
    return out


def _car_folder(draw):
    """A complete car data set of 3-5 cars and 2-4 users in the shipped files' format."""
    m, L = draw(st.integers(3, 5)), draw(st.integers(2, 4))
    P = m * (m - 1) // 2
    y = np.array(draw(st.lists(st.booleans(), min_size=L * P, max_size=L * P)), np.uint8)
    folder = _folder("car")
    items = ["Item ID, BodyType, Transmission, Engin Capacity, Fuel Consumed"]
    items += [f"{i},{1 + i % 2},{1 + i % 2},{2.5 + i},{1 + i % 2}" for i in range(m, 0, -1)]
    users = ["User ID, Education"] + [f"{u},1" for u in range(1, L + 1)]
    prefs, it = ["User ID, Item1 ID, Item2 ID, Is Control"], iter(y)
    for u in range(1, L + 1):
        for i, j in zip(*np.triu_indices(m, 1), strict=True):
            w, lo = (i + 1, j + 1) if next(it) else (j + 1, i + 1)
            prefs.append(f"{u},{w},{lo},0")
        prefs.append(f"{u},{lo},{w},1")  # a control question, reversed: dropped
    for name, lines in (("items1", items), ("users1", users), ("prefs1", prefs)):
        (folder / f"{name}.csv").write_text("\n".join(lines) + "\n")
    _CAR_Y[folder] = y.reshape(L, P)
    return {"folder": folder, "allow_missing": draw(st.booleans())}


case(
    paper_b2_car.read_car_data,
    _car_folder,
    lambda r, kw: (
        r.complete
        and r.item_ids.tolist() == list(range(1, r.m + 1))
        and np.array_equal(r.y, _CAR_Y[kw["folder"]])
        and r.n_control_rows == len(r.users)
    ),
    folder=[None, 3, ""],
    allow_missing=[None, "yes", 1],
)
_CAR_M = 4
_CAR_RAW = np.random.default_rng(5).integers(0, 2, (6, 6)).astype(np.uint8)
_CAR_REF = paper_b2_car.nonprivate_fits(_CAR_RAW, _CAR_M)
_car_sim = dict(
    y=st.just(_CAR_RAW),
    m=st.just(_CAR_M),
    reference=st.just(_CAR_REF),
    seed=SEEDS,
    a_range=st.just((0.2, 2.0)),
    width=st.floats(0.5, 2),
)
_BAD_CAR = dict(
    y=[np.full((6, 6), 2), np.zeros((6, 5)), "y"],
    m=[1, 5, 0.5, "4", None],
    reference=[None, "x", {"theta": {}}],
    seed=BAD_SEED,
    a_range=[(2.0, 0.2), (0.0, 1.0), (NAN, 1.0), "a", (1.0,)],
    width=[0.0, -1.0, NAN, INF, "1"],
    gtol=BAD_GTOL,
)


def _check_car_rows(rows, R):
    frame = pd.DataFrame(rows)
    k = frame[frame["metric"] == "kendall_tau_K"]
    return (
        len(k) == R * len(paper_b2_car.MODELS) * len(paper_b2_car.METHODS)
        and bool(((k["value"] >= 0) & (k["value"] <= 1)).all())
        and bool((frame["B"] > 0).all())
    )


case(
    paper_b2_car.simulate_replicate,
    kw(**_car_sim, r=st.integers(0, 50)),
    lambda out, kw: (
        out["eps"].shape == (6,)
        and kw["a_range"][0] <= out["A"] <= kw["a_range"][1]
        and np.all((out["eps"] >= out["A"]) & (out["eps"] <= out["A"] + kw["width"]))
        and _check_car_rows(out["rows"], 1)
        and out["rows"] == paper_b2_car.simulate_replicate(**kw)["rows"]
    ),
    **_BAD_CAR,
    r=[-1, 0.5, "1", None],
)
case(
    paper_b2_car.simulate_replicates,
    kw(**_car_sim, replicates=reps()),
    lambda r, kw: (
        _check_car_rows(r, len(kw["replicates"])) and set(r["replicate"]) == set(kw["replicates"])
    ),
    **_BAD_CAR,
    replicates=BAD_REPLICATES,
)
_CAR_ROWS = paper_b2_car.simulate_replicates(_CAR_RAW, _CAR_M, _CAR_REF, 1, range(4))


def _car_rows(draw):
    keep = draw(st.lists(st.integers(0, 3), min_size=3, max_size=4, unique=True))
    return {"rows": _CAR_ROWS[_CAR_ROWS["replicate"].isin(keep)].reset_index(drop=True)}


BAD_ROWS = [None, "x", 3, pd.DataFrame({"replicate": [0]})]
case(
    paper_b2_car.tidy_replicates,
    _car_rows,
    lambda r, kw: (
        list(r.columns) == ["model", "replicate", "method", "metric", "value"]
        and set(r["metric"]) >= {"converged", "B", "kendall_tau_K"}
        and len(r)
        == len(kw["rows"])
        + 2 * kw["rows"]["replicate"].nunique() * 4
        + 2 * kw["rows"]["replicate"].nunique()
    ),
    rows=BAD_ROWS,
)
case(
    paper_b2_car.table2,
    _car_rows,
    lambda r, kw: (
        len(r) == 8
        and (r["R"] == kw["rows"]["replicate"].nunique()).all()
        and r.loc[r["method"] == "local_adrr", "t"].isna().all()
        and bool(((r["mean"] >= 0) & (r["mean"] <= 1)).all())
    ),
    rows=BAD_ROWS,
)
case(
    paper_b2_car.figure14_correlations,
    _car_rows,
    lambda r, kw: (
        len(r) == 4
        and (r["n"] == kw["rows"]["replicate"].nunique()).all()
        and bool((r["r"].abs() <= 1 + 1e-12).all() or r["r"].isna().any())
    ),
    rows=BAD_ROWS,
)


# ---- Paper B1: the budget schemes' trends and MovieLens
def _b1_summary(draw):
    slopes = {s: draw(st.floats(-0.6, 0.6)) for s in (1, 2, 3)}
    rows = [
        {"scheme": s, "m": m, "L": L, "metric": metric, "mean": 0.1 * m * L ** slopes[s]}
        for s in (1, 2, 3)
        for m in (10, 20)
        for L in (100, 400, 1600)
        for metric in ("l2_over_sqrt_m", "linf")
    ]
    return {
        "summary": pd.DataFrame(rows),
        "threshold": draw(st.floats(0.05, 0.3)),
        "_slopes": slopes,
    }


case(
    paper_b1.scheme_trends,
    drop(_b1_summary, "_slopes"),
    lambda r, kw: (
        len(r) == 6
        and np.allclose(r["slope_min"], r["slope_max"])
        and all(
            t == paper_b1.trend_word(s, kw["threshold"])
            for s, t in zip(r["slope"], r["trend"], strict=True)
        )
    ),
    summary=[None, "x", pd.DataFrame({"scheme": [1]})],
    metrics=["linf", None, [3]],
    threshold=[-0.1, NAN, "0.1", None],
)
_B1_PUBLISHED = read_published_table(
    ROOT / "resources/published/paper_b/B1-Table1_scheme_behavior.csv"
)
case(
    paper_b1.scheme_table,
    lambda draw: {
        "trends": paper_b1.scheme_trends(drop(_b1_summary, "_slopes")(draw)["summary"]),
        "published": _B1_PUBLISHED,
    },
    lambda r, kw: sorted(r["scheme"]) == [1, 2, 3] and set(r["linf agrees"]) <= {"yes", "no"},
    trends=[
        None,
        "x",
        pd.DataFrame({"scheme": [1], "metric": ["linf"], "trend": ["x"], "slope": [0.0]}),
    ],
    published=[None, "x", pd.DataFrame({"metric": ["linf"]})],
)


def _ratings_file(draw):
    """A ``ratings.csv`` of 3-5 users and 3-6 movies in MovieLens' format."""
    users, movies = draw(st.integers(3, 5)), draw(st.integers(3, 6))
    rated = draw(st.lists(st.booleans(), min_size=users * movies, max_size=users * movies))
    rows = ["userId,movieId,rating,timestamp"]
    rows += [
        f"{u + 1},{10 * (i + 1)},{1 + (u + i) % 5}.0,0"
        for k, (u, i) in enumerate((u, i) for u in range(users) for i in range(movies))
        if rated[k] or u == 0
    ]
    path = _folder("ml") / "ratings.csv"
    path.write_text("\n".join(rows) + "\n")
    return {"path": path, "n_movies": draw(st.integers(2, movies))}


case(
    movielens.read_ratings,
    _ratings_file,
    lambda r, kw: (
        r.ratings.shape == (len(r.users), kw["n_movies"])
        and np.array_equal(np.isfinite(r.ratings).sum(axis=0), r.counts)
        and bool(np.all(np.diff(r.counts) <= 0))
    ),
    path=[None, 3, ""],
    n_movies=[1, 0.5, "3", None, 99],
)
_ML = np.array(
    [[5.0, 3.0, 1.0, 4.0], [4.0, 4.0, 2.0, np.nan], [1.0, 2.0, 5.0, 3.0], [5.0, 1.0, np.nan, 2.0]]
)
_ML_THETA = movielens.reference_theta(_ML)
_ml = dict(
    ratings=st.just(_ML),
    theta_ref=st.just(_ML_THETA),
    L=st.integers(5, 60),
    scheme=st.sampled_from([1, 2, 3]),
    seed=SEEDS,
    anchor_L=st.just(20),
    K=st.integers(1, 4),
)
_BAD_ML = dict(
    ratings=[np.zeros(4), np.zeros((4, 1)), "x"],
    theta_ref=[np.zeros(3), np.array([0.0, NAN, 0.0, 0.0]), None],
    L=[0, -1, 0.5, "5", None],
    scheme=[0, 4, "1", None],
    seed=BAD_SEED,
    anchor_L=[0, 0.5, "1"],
    K=[0, 5, 0.5, "1"],
)


def _check_ml(rows, kw):
    frame = pd.DataFrame(rows)
    values = frame.set_index(["replicate", "metric"])["value"]
    return (
        set(frame["metric"])
        == {
            "kendall_tau_K",
            f"topK_hamming_HK_K={kw['K']}",
            "l2_over_sqrt_m",
            "linf",
            "eps",
            "converged",
        }
        and bool((frame["L"] == kw["L"]).all())
        and bool(values.xs("kendall_tau_K", level="metric").between(0, 1).all())
    )


case(
    movielens.simulate_replicate,
    kw(**_ml, r=st.integers(0, 9)),
    lambda r, kw: _check_ml(r, kw) and r == movielens.simulate_replicate(**kw),
    **_BAD_ML,
    r=[-1, 0.5, "1", None],
)
case(
    movielens.simulate_cell,
    kw(**_ml, replicates=st.integers(1, 2) | reps()),
    lambda r, kw: (
        _check_ml(r, kw)
        and r["replicate"].nunique()
        == (kw["replicates"] if isinstance(kw["replicates"], int) else len(kw["replicates"]))
    ),
    **_BAD_ML,
    replicates=[-1, 0.5, "3", None, [-1]],
)

# ---- Paper A: the real data sets (Figure 8)
_REAL_WINS = np.random.default_rng(2).integers(1, 6, (5, 5))
np.fill_diagonal(_REAL_WINS, 0)
case(
    paper_a_real.real_data_metrics,
    kw(
        wins=st.just(_REAL_WINS),
        dataset=st.sampled_from(["cems", "x"]),
        L=st.integers(1, 10),
        epsilons=st.lists(st.floats(0.5, 8), min_size=1, max_size=2, unique=True),
        reps=st.integers(1, 3),
        seed=SEEDS,
        protocol=st.sampled_from(["paper", "authors"]),
    ),
    lambda r, kw: (
        len(r) == 3 * kw["reps"] * len(kw["epsilons"])
        and set(r["method"]) == {"individual_mle", "individual_counts_as_published"}
        and bool(r.loc[r["metric"] == "mean_rank_difference", "value"].between(0, 5).all())
        and r.equals(paper_a_real.real_data_metrics(**kw))
    ),
    wins=[np.zeros((3, 1)), -np.ones((3, 3)), np.zeros((1, 1)), "x"],
    dataset=BAD_TEXT,
    L=BAD_COUNT1,
    epsilons=[1.0, [0.0], [NAN], ["x"], None],
    reps=BAD_COUNT1,
    seed=BAD_SEED,
    protocol=["bogus", None],
    kappa1=[0.0, NAN, "1"],
    kappa2=[0.0, NAN, "1"],
    xtol=[0.0, NAN, "1"],
    max_iter=BAD_COUNT1,
)


# ---- the privacy audits: one call runs every audit (about a second), so one valid example
slow_case, SLOW_CASES, SLOW_BUILDERS, SLOW_CHECKS = registry()
_AUDIT = {"eps": 1.0, "alpha": 0.05, "trials": 40, "fit_trials": 4, "n": 3, "L": 2, "delta": 1e-6}
slow_case(
    privacy_audit.run_audits,
    kw(settings=st.just(_AUDIT), seed=SEEDS),
    lambda r, kw: bool(
        len(r) >= 10
        and (r["lower_bound"] >= 0).all()
        and set(r["verdict"]) <= {"consistent", "VIOLATION"}
        and set(r["paper"]) >= {"paper_a", "paper_b"}
        and r.equals(privacy_audit.run_audits(**kw))
    ),
    settings=[
        None,
        "x",
        {k: v for k, v in _AUDIT.items() if k != "n"},
        {**_AUDIT, "eps": 0.0},
        {**_AUDIT, "alpha": 1.5},
        {**_AUDIT, "trials": 0.5},
        {**_AUDIT, "n": 1},
        {**_AUDIT, "delta": NAN},
    ],
    seed=BAD_SEED,
)


# ---- the benchmark of methods
def plugin_fit(comparisons, eps, rng, **options):
    """A plug-in method of the benchmark for :func:`benchmark.load_method`: noisy net wins."""
    c = comparisons
    net = np.bincount(c.i, c.y, c.n_items) + np.bincount(c.j, 1 - c.y, c.n_items)
    return net + rng.laplace(0.0, 1.0 / min(float(np.min(eps)), 1e6), c.n_items)


_PLUGIN = {
    "function": "test_properties_stages:plugin_fit",
    "privacy_unit": "user",
    "trust_model": "central",
}
case(
    benchmark.load_method,
    kw(
        name=st.text("abcxyz_", min_size=1, max_size=6),
        entry=st.sampled_from(["user", "comparison"]).map(lambda u: {**_PLUGIN, "privacy_unit": u}),
    ),
    lambda r, kw: (
        r.name == kw["name"] and r.privacy_unit == kw["entry"]["privacy_unit"] and callable(r.fit)
    ),
    name=[None, 3],
    entry=[None, "x", {"function": _PLUGIN["function"]}],
)


def _tournament(seed: int, n: int = 4) -> benchmark.BenchmarkData:
    """Every pair of ``n`` items compared once by one of 3 users, BTL outcomes."""
    theta = np.linspace(1.0, -1.0, n)
    iu, ju = np.triu_indices(n, k=1)
    rng = np.random.default_rng(seed)
    y = (rng.random(iu.size) < 1 / (1 + np.exp(theta[ju] - theta[iu]))).astype(float)
    c = Comparisons(n_items=n, i=iu, j=ju, y=y, count=np.ones(iu.size), user=np.arange(iu.size) % 3)
    return benchmark.BenchmarkData(c, theta, 2, True)


_METHODS = [methods.get_method(m) for m in ("edge_counts", "local_adrr", "nonprivate_mle")]
_TOURNAMENTS = [_tournament(s) for s in range(2)]
case(
    benchmark.run_method,
    kw(
        method=st.sampled_from(_METHODS),
        dataset=st.just("t"),
        replicates=st.lists(st.sampled_from(_TOURNAMENTS), min_size=1, max_size=2),
        epsilon=st.lists(st.floats(0.5, 10), min_size=1, max_size=2, unique=True),
        seed=SEEDS,
    ),
    lambda r, kw: (
        len(r)
        == len(kw["replicates"])
        * sum(1 if a == "none" else len(kw["epsilon"]) for a in benchmark.accountings(kw["method"]))
        and bool(r["kendall"].between(0, 1).all() and r["top_k"].between(0, 1).all())
        and r.drop(columns="seconds").equals(benchmark.run_method(**kw).drop(columns="seconds"))
    ),
    method=[None, "edge_counts"],
    dataset=BAD_TEXT,
    replicates=[None, "x", [None]],
    epsilon=[1.0, [0.0], [NAN], ["x"], None],
    seed=BAD_SEED,
    data_of=[3, "x"],
)
_BENCH_ROWS = pd.concat(
    [benchmark.run_method(m, "t", _TOURNAMENTS, [0.5, 2.0, 8.0], 1) for m in _METHODS],
    ignore_index=True,
)
_BENCH_SUMMARY = benchmark.summarise(_BENCH_ROWS)


def _bench_rows(draw):
    keep = draw(
        st.lists(st.sampled_from([m.name for m in _METHODS]), min_size=1, max_size=3, unique=True)
    )
    return {"rows": _BENCH_ROWS[_BENCH_ROWS["method"].isin(keep)].reset_index(drop=True)}


def _check_bench_summary(r, kw):
    kendall = r[r["metric"] == "kendall"]
    means = kw["rows"].groupby(["method", "accounting", "eps"])["kendall"].mean()
    got = kendall.set_index(["method", "accounting", "eps"])["mean"]
    return (
        np.allclose(got.sort_index().to_numpy(), means.sort_index().to_numpy())
        and bool((r["se"] >= 0).all())
        and bool((r["reps"] <= len(_TOURNAMENTS)).all())
    )


case(
    benchmark.summarise,
    _bench_rows,
    _check_bench_summary,
    rows=[None, "x", pd.DataFrame({"dataset": ["t"]})],
)
_THRESHOLDS = st.lists(st.floats(0, 0.5), min_size=1, max_size=3, unique=True)
case(
    benchmark.threshold_table,
    kw(summary=st.just(_BENCH_SUMMARY), thresholds=_THRESHOLDS, z=st.floats(0, 3)),
    lambda r, kw: (
        set(r["threshold"]) == {float(t) for t in kw["thresholds"]}
        and bool((r["eps"].isna() | r["eps"].isin([0.5, 2.0, 8.0])).all())
        and bool(((r["eps_low"] <= r["eps"]) | r["eps"].isna() | r["eps_low"].isna()).all())
        and "none" not in set(r["accounting"])
    ),
    summary=[None, "x", pd.DataFrame({"metric": ["kendall"]})],
    thresholds=[0.1, [-0.1], [NAN], ["x"], None],
    z=[-1.0, NAN, "1"],
)
_BENCH_TABLE = benchmark.threshold_table(_BENCH_SUMMARY, [0.1, 0.3])
_LABELS = st.none() | st.just({m.name: m.label for m in _METHODS})
case(
    benchmark.threshold_markdown_frame,
    kw(table=st.just(_BENCH_TABLE), labels=_LABELS),
    lambda r, kw: list(r.columns) == ["K <= 0.1", "K <= 0.3"] and len(r) == len(_BENCH_TABLE) // 2,
    table=[None, "x", pd.DataFrame({"method": ["a"]})],
    labels=["x", 3],
)
case(
    benchmark.finding,
    kw(
        dataset=st.just("t"),
        table=st.just(_BENCH_TABLE),
        summary=st.just(_BENCH_SUMMARY),
        max_eps=st.sampled_from([2.0, 8.0]),
        labels=_LABELS,
    ),
    lambda r, kw: r.startswith("t: ") and r.endswith(".") and "(per-user budgets)" in r,
    dataset=BAD_TEXT,
    table=[None, "x", pd.DataFrame({"dataset": ["t"]})],
    summary=[None, "x", pd.DataFrame({"dataset": ["t"]})],
    max_eps=[0.0, -1.0, NAN, "8"],
    labels=["x", 3],
)
_NOTE = st.fixed_dictionaries(
    {
        "dataset": st.just("t"),
        "method": st.sampled_from(["a", "b", "c"]),
        "trust_model": st.sampled_from(["central", "local"]),
        "privacy_unit": st.just("user"),
        "status": st.sampled_from(["ok", "failed"]),
        "fits": st.integers(0, 9),
        "seconds_per_fit": st.floats(0.001, 10) | st.just(NAN),
        "message": st.just(""),
    },
    optional={"label": st.text("LMN ", min_size=1, max_size=4)},
)
case(
    benchmark.method_labels,
    kw(notes=st.lists(_NOTE, max_size=4)),
    lambda r, kw: (
        list(r) == list(dict.fromkeys(n["method"] for n in kw["notes"]))
        and all(isinstance(v, str) and v for v in r.values())
    ),
    notes=[None, "x", [{"label": "a"}], [3]],
)
case(
    benchmark.timing_frame,
    kw(
        notes=st.lists(_NOTE, min_size=1, max_size=4, unique_by=lambda n: n["method"]).map(
            pd.DataFrame
        )
    ),
    lambda r, kw: len(r) == len(kw["notes"]) and r.index.names == ["Data set", "Method"],
    notes=[None, "x", pd.DataFrame({"dataset": ["t"]})],
)


def _real_files(draw):
    dataset = draw(st.sampled_from(["car_preferences", "movielens"]))
    if dataset == "car_preferences":
        files = [str(_car_folder(draw)["folder"] / "prefs1.csv")]
        spec = {}
    else:
        built = _ratings_file(draw)
        files, spec = [str(built["path"])], {"n_movies": built["n_movies"]}
    return {"dataset": dataset, "files": files, "spec": spec, "seed": draw(SEEDS)}


case(
    benchmark.real_comparisons,
    _real_files,
    lambda r, kw: (
        r.n_items >= 2
        and r.user is not None
        and set(np.unique(r.y)) <= {0.0, 1.0}
        and bool(np.all(r.i < r.j))
        and np.array_equal(benchmark.real_comparisons(**kw).y, r.y)
    ),
    dataset=["bogus", None, 3],
    files=[None, "x", [], [None]],
    spec=[None, "x"],
    seed=BAD_SEED,
)


# ---- beyond the papers: the scale study
case(
    beyond_scale.run_chunk,
    kw(
        n=st.integers(20, 40),
        degree=st.floats(4, 8),
        epsilons=st.lists(st.floats(0.5, 8) | st.just(INF), min_size=1, max_size=2, unique=True),
        replicates=reps(1),
        seed=SEEDS,
    ),
    lambda r, kw: (
        set(r["method"]) == {"edge_mle", "edge_counts"}
        and set(r["epsilon"]) == {float(e) for e in kw["epsilons"]}
        and bool(r.loc[r["metric"] == "rel_hamming", "value"].between(0, 1).all())
        and r.equals(beyond_scale.run_chunk(**kw))
    ),
    n=[1, 0.5, "30", None],
    degree=[0.0, NAN, "5"],
    epsilons=[1.0, [0.0], [NAN], ["x"], None],
    replicates=BAD_REPLICATES,
    seed=BAD_SEED,
    c0=[0.0, NAN, "1"],
    kappa1=[0.0, NAN, "1"],
    kappa2=[0.0, NAN, "1"],
    xtol=[0.0, NAN, "1"],
    max_iter=BAD_COUNT1,
)


def _scale_rows(draw):
    """run_chunk's rows for 3 values of n, log l_inf errors ``C * rate`` plus noise."""
    C, rng = draw(st.floats(0.5, 3)), np.random.default_rng(draw(SEEDS))
    rows = []
    for n in (100, 1000, 10000):
        p = beyond_scale.edge_probability(n, 10.0)
        for eps in (1.0, 4.0):
            for r in range(3):
                value = math.log(C * beyond_scale.rate(n, p, eps)) + rng.uniform(-0.1, 0.1)
                rows.append((n, p, eps, r, "edge_mle", "log_linf", value))
                rows.append((n, p, eps, r, "edge_counts", "rel_hamming", rng.random()))
    columns = ["n", "p", "epsilon", "replicate", "method", "metric", "value"]
    return {"frame": pd.DataFrame(rows, columns=columns), "_C": C}


def _check_scale_summary(r, kw):
    means = kw["frame"].groupby(["n", "epsilon", "method", "metric"])["value"].mean()
    return (
        len(r) == 12
        and np.allclose(
            r.set_index(["n", "epsilon", "method", "metric"])["mean"].sort_index(),
            means.sort_index(),
        )
        and bool((r["reps"] == 3).all())
    )


case(
    beyond_scale.summarise,
    drop(_scale_rows, "_C"),
    _check_scale_summary,
    frame=[None, "x", pd.DataFrame({"n": [1]})],
)


def _scale_summary(draw):
    rows = _scale_rows(draw)
    summary = beyond_scale.summarise(rows["frame"])
    summary.attrs["C"] = rows["_C"]  # the constant the rows were drawn with
    return {"summary": summary}


case(
    beyond_scale.fit_rate,
    _scale_summary,
    lambda r, kw: (
        len(r) == 2
        and bool((r["n_values"] == 3).all())
        and np.allclose(
            r["constant"], kw["summary"].attrs["C"], rtol=0.12
        )  # noise of +-0.1 on the log scale
        and bool((r["rms_log_residual"] <= 0.1 + 1e-12).all())
    ),
    summary=[None, "x", pd.DataFrame({"n": [1]})],
)

# ---- the intervals of the released scores
_IV_SETTINGS = {"level": 0.9, "n_boot": 20}
_IV_DESIGNS = {
    "edge": {
        "method": "edge_mle", "epsilon": 2.0, "n_items": 4,
        "graph": {"kind": "er", "p": 1.0, "per_pair": 3},
    },
    "local": {
        "method": "local_adrr", "epsilon": 2.0, "n_items": 4,
        "users": {"count": 20, "per_user": 3},
    },
}  # fmt: skip
case(
    study_intervals.run_design,
    kw(
        name=st.sampled_from(sorted(_IV_DESIGNS)),
        spec=lambda kw: st.just(_IV_DESIGNS[kw["name"]]),
        settings=st.just(_IV_SETTINGS),
        replicates=reps(),
        seed=SEEDS,
    ),
    lambda r, kw: (
        len(r) == 4 * len(kw["replicates"])
        and bool((r["score_lo"] <= r["score_hi"]).all() and (r["rank_lo"] <= r["rank_hi"]).all())
        and sorted(r["true_rank_lo"][r["replicate"] == kw["replicates"][0]]) == [1, 2, 3, 4]
        # the truth is fixed across replicates (fixed truth and graph per design)
        and r.groupby("item_id")["true_rank_lo"].nunique().max() == 1
        and r.equals(study_intervals.run_design(**kw))
    ),
    name=BAD_TEXT,
    spec=[None, "x", {"method": "edge_mle"}, {**_IV_DESIGNS["edge"], "n_items": 1}],
    settings=[
        None,
        "x",
        {"level": 0.9},
        {**_IV_SETTINGS, "level": 1.5},
        {**_IV_SETTINGS, "n_boot": 5},
    ],
    replicates=BAD_REPLICATES,
    seed=BAD_SEED,
)


@functools.cache
def _iv_frame() -> pd.DataFrame:
    """Both designs' intervals for two replicates, made on first use: the rank intervals'
    calibration takes seconds, which collecting this module (any ``pytest -k``) would pay."""
    return pd.concat(
        [study_intervals.run_design(k, v, _IV_SETTINGS, [0, 1], 1) for k, v in _IV_DESIGNS.items()],
        ignore_index=True,
    )


@functools.cache
def _iv_summary() -> pd.DataFrame:
    return study_intervals.summarise(_iv_frame(), _IV_DESIGNS, 0.9, 0.85)


def _check_coverage(r, kw):
    f = kw["frame"]
    inside = (f["score_lo"] <= f["theta"]) & (f["theta"] <= f["score_hi"])
    per_item = inside.groupby([f["design"], f["item_id"]], sort=False).mean()
    return (
        list(r["design"]) == list(dict.fromkeys(f["design"]))
        and np.allclose(r["score_cover"], inside.groupby(f["design"], sort=False).mean())
        and np.allclose(r["score_cover_min"], per_item.groupby(level=0, sort=False).min())
        and all(
            not m or (a >= kw["target"] and b >= kw["item_target"])
            for m, a, b in zip(r["meets"], r["rank_cover"], r["rank_cover_min"], strict=True)
        )
    )


case(
    study_intervals.summarise,
    kw(
        frame=lambda kw: st.just(_iv_frame()),
        designs=st.just(_IV_DESIGNS),
        target=st.floats(0, 1),
        item_target=st.floats(0, 1),
    ),
    _check_coverage,
    frame=[None, "x", pd.DataFrame({"design": ["edge"]})],
    designs=[None, "x", {"edge": _IV_DESIGNS["edge"]}],
    target=[-0.1, 1.5, NAN, "0.9"],
    item_target=[-0.1, 1.5, NAN, "0.9"],
)
case(
    study_intervals.coverage_markdown,
    kw(
        summary=lambda kw: st.just(_iv_summary()),
        level=st.floats(0.5, 0.99),
        target=st.floats(0, 1),
        item_target=st.floats(0, 1),
    ),
    lambda r, kw: (
        r.count("\n| edge |") + r.count("\n| local |") == 2
        and r.endswith("\n")
        and r.count("Falls short:") == int((~_iv_summary()["meets"]).sum())
    ),
    summary=[None, "x", pd.DataFrame({"design": ["edge"]})],
    level=[0.0, 1.0, NAN, "0.9"],
    target=[-0.1, 1.5, NAN, "0.9"],
    item_target=[-0.1, 1.5, NAN, "0.9"],
)


# ------------------------------------------------------------------------ the tests

test_rejects_bad_argument, test_accepts_valid_arguments = property_tests(
    CASES, BUILDERS, CHECKS, bad_examples=4, valid_examples=3
)
test_slow_rejects_bad_argument, test_slow_accepts_valid_arguments = property_tests(
    SLOW_CASES, SLOW_BUILDERS, SLOW_CHECKS, bad_examples=4, valid_examples=1
)
#: every function with a case (test_properties.test_every_public_function_has_a_case)
ALL_BUILDERS = {**BUILDERS, **SLOW_BUILDERS}
