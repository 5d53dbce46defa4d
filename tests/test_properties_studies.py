"""Property-based tests of the public library, part four: the studies' helpers and plot styles.

The studies' functions that take scalars or one experiment of ``config.yaml`` (not a
results folder): the cells and blocks of every experiment of the shipped config, the
ridge of Algorithm 1, B2's budget schemes, the scale study's chunks, and the plot
style's grids. The same two kinds of test as :mod:`test_properties`.
"""

from __future__ import annotations

import math
import tempfile
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from _frames import coverage_summary
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from test_properties import BAD_COUNT, BAD_COUNT1, INF, NAN, generator, kw, property_tests, registry

from dprank import methods
from dprank.base.yamlfile import read_yaml
from dprank_papers import docs_includes, report
from dprank_papers._papers import load_papers, study_items
from dprank_papers.plotting import style
from dprank_papers.studies import (
    benchmark,
    beyond_scale,
    paper_a_edge,
    paper_a_individual,
    paper_b1,
    paper_b2,
    paper_b2_car,
    privacy_audit,
)
from dprank_papers.studies import intervals as study_intervals
from dprank_papers.studies import paper_b1_movielens as movielens
from dprank_papers.studies.paper_b2 import scenarios, sensitivity, timing

ROOT = Path(__file__).resolve().parents[1]
CONFIG = read_yaml(ROOT / "config.yaml")
# the declarations (workflow/papers/), as the workflow loads them; B2's section with its
# declared tables, as the sensitivity study reads it
_PAPERS = load_papers(
    ROOT / "workflow" / "papers", ROOT / "workflow" / "schemas" / "papers.schema.yaml", CONFIG
)
CONFIG["paper_b2"]["tables"] = study_items(_PAPERS, "paper_b2", "paper_b2", "table")

case, CASES, BUILDERS, CHECKS = registry()
_INCLUDES_TMP = tempfile.TemporaryDirectory(prefix="dprank-properties-studies-")
_INCLUDES_DIR = Path(_INCLUDES_TMP.name)


def experiments(section):
    return st.sampled_from(sorted(CONFIG[section]["experiments"]))


def experiment_of(section):
    return experiments(section).map(lambda name: CONFIG[section]["experiments"][name])


# ---- the cells and blocks of every experiment of config.yaml
for _mod, _section in ((paper_a_edge, "paper_a_edge"), (paper_a_individual, "paper_a_individual")):
    _exp = kw(exp=experiment_of(_section))
    case(_mod.cells, _exp, lambda r, kw: len(r) >= 1 and all(isinstance(c, dict) for c in r))
    case(
        _mod.cell_names,
        _exp,
        lambda r, kw, m=_mod: len(r) == len(set(r)) == len(m.cells(kw["exp"])),
    )
    case(
        _mod.cell_params,
        kw(
            exp=experiment_of(_section),
            name=lambda kw, m=_mod: st.sampled_from(m.cell_names(kw["exp"])),
        ),
        lambda r, kw, m=_mod: r in m.cells(kw["exp"]),
    )
    case(
        _mod.blocks,
        _exp,
        lambda r, kw, m=_mod: (
            sorted(c for b in r.values() for c in b) == sorted(m.cell_names(kw["exp"]))
        ),
    )
    case(_mod.block_names, _exp, lambda r, kw, m=_mod: r == list(m.blocks(kw["exp"])))
    case(
        _mod.chunk_count,
        kw(
            section=st.just(CONFIG[_section]),
            experiment=experiments(_section),
            chunk_size=st.just(CONFIG["chunk_size"]),
        ),
        lambda r, kw: isinstance(r, int) and r >= 1,
    )
case(
    paper_a_edge.fit_epsilons,
    kw(
        exp=experiment_of("paper_a_edge"),
        cell=lambda kw: st.sampled_from(paper_a_edge.cells(kw["exp"])),
    ),
    lambda r, kw: len(r) >= 1 and all(e > 0 for e in r),
)
case(
    paper_a_edge.edge_gamma,
    kw(
        n=st.integers(2, 10**6),
        p=st.floats(0.01, 1),
        eps=st.floats(0.1, 10) | st.just(INF),
        protocol=st.sampled_from(["paper", "authors"]),
        c0=st.floats(0.5, 4),
        kappa2=st.floats(0.05, 1),
    ),
    lambda g, kw: (
        g >= kw["c0"] * math.sqrt(kw["n"] * kw["p"] * math.log(kw["n"])) * (1 - 1e-12)
        and (kw["protocol"] == "authors" or g >= 4 * kw["kappa2"] / kw["eps"] * (1 - 1e-12))
    ),
    n=[1, 0, -1, 2.5, "3", None],
    p=[0.0, 1.5, NAN, "1"],
    eps=[0.0, -1.0, NAN, "1"],
    protocol=["bogus", None],
    c0=[0.0, -1.0, NAN, INF],
    kappa2=[0.0, -1.0, NAN, INF],
)
case(
    paper_b2.cells,
    kw(exp=experiment_of("paper_b2")),
    lambda r, kw: len(r) >= 1 and all(isinstance(c, dict) for c in r),
)
case(
    paper_b2.cell_names,
    kw(exp=experiment_of("paper_b2")),
    lambda r, kw: len(r) == len(set(r)) >= 1,
)
case(
    paper_b2.kind,
    kw(exp=experiment_of("paper_b2")),
    lambda r, kw: isinstance(r, str) and r,
)
case(
    paper_b2.chunk_count,
    kw(
        section=st.just(CONFIG["paper_b2"]),
        experiment=experiments("paper_b2"),
        chunk_size=st.just(CONFIG["chunk_size"]),
    ),
    lambda r, kw: isinstance(r, int) and r >= 1,
)
case(
    scenarios.scheme_epsilon,
    kw(
        scheme=st.sampled_from([1, 2, 3]),
        m=st.integers(10, 1000),
        L=st.integers(10, 1000),
        eps0=st.floats(0.1, 5),
    ),
    lambda e, kw: e > 0 and math.isfinite(e),
    scheme=[0, 4, "1", None, True],
    eps0=[0.0, -1.0, NAN, INF, "1"],
)


def _parabola(draw):
    """Three points of ``a (x - v)^2`` around its vertex ``v``."""
    a, v = draw(st.floats(0.5, 3)), draw(st.floats(-2, 2))
    x = [v - 1.0, v + 0.5, v + 2.0]
    return {"x": x, "y": [a * (t - v) ** 2 for t in x], "_v": v}


case(
    sensitivity.parabola_vertex,
    lambda draw: {k: w for k, w in _parabola(draw).items() if k != "_v"},
    lambda r, kw: math.isclose(
        r, kw["x"][0] + 1.0, abs_tol=1e-6
    ),  # the vertex is one unit right of the first point
    x=[[0.0, 1.0], [0.0, NAN, 1.0], "abc"],
    y=[[0.0, 1.0], [0.0, INF, 1.0]],
)
case(
    paper_b1.trend_word,
    kw(slope=st.floats(-5, 5), threshold=st.floats(0, 1)),
    lambda r, kw: isinstance(r, str) and r,
    slope=["x", None, [1.0]],
    threshold=[-0.1, NAN, "0.1"],
)

# ---- the scale study's chunks
case(
    beyond_scale.chunk_count,
    kw(reps=st.integers(0, 500), chunk_size=st.integers(1, 50)),
    lambda r, kw: r == -(-kw["reps"] // kw["chunk_size"]),
    reps=BAD_COUNT,
    chunk_size=BAD_COUNT1,
)
case(
    beyond_scale.chunk_replicates,
    kw(
        reps=st.integers(1, 500),
        chunk_size=st.integers(1, 50),
        chunk=lambda kw: st.integers(0, -(-kw["reps"] // kw["chunk_size"]) - 1),
    ),
    lambda r, kw: (
        len(r) >= 1 and r.start == kw["chunk"] * kw["chunk_size"] and r.stop <= kw["reps"]
    ),
    reps=BAD_COUNT,
    chunk_size=BAD_COUNT1,
    chunk=[-1, 0.5, "1", None, 10**6],
)
case(
    beyond_scale.edge_probability,
    kw(n=st.integers(10, 10**7), degree=st.floats(0.5, 9)),
    lambda p, kw: (
        math.isclose(p * (kw["n"] - 1), kw["degree"], rel_tol=1e-6)
        or math.isclose(p * kw["n"], kw["degree"], rel_tol=1e-6)
    ),
    n=[1, 0, -1, 2.5, "3", None],
    degree=[0.0, -1.0, NAN, INF, "1"],
)
case(
    timing.machine_info,
    kw(threads=st.integers(1, 8)),
    lambda r, kw: r["job_threads"] == kw["threads"] and r["logical_cpus"] >= 1,
    threads=BAD_COUNT1,
)
case(
    paper_b2_car.table1_ranks,
    kw(order=st.permutations(range(1, 11)).map(tuple)),
    lambda r, kw: (
        sorted(r.tolist()) == list(range(1, 11))
        and all(r[item - 1] == rank for rank, item in enumerate(kw["order"], start=1))
    ),
)


# ---- jobs' keyword arguments and the studies' draws
for _mod, _section in ((paper_a_edge, "paper_a_edge"), (paper_a_individual, "paper_a_individual")):
    case(
        _mod.stage_kwargs,
        kw(
            stage=st.sampled_from(["simulate", "privatize"]),
            section=st.just(CONFIG[_section]),
            experiment=experiments(_section),
            cell=lambda kw, m=_mod, sec=_section: st.sampled_from(
                m.cell_names(CONFIG[sec]["experiments"][kw["experiment"]])
            ),
            chunk=st.just(0),
            protocol=st.sampled_from(["paper", "authors"]),
            seed=st.just(CONFIG["seed"]),
            chunk_size=st.just(CONFIG["chunk_size"]),
        ),
        lambda r, kw: r["experiment"] == kw["experiment"] and r["seed"] == CONFIG["seed"],
        stage=["bogus"],
    )
case(
    paper_b2.blocks,
    kw(exp=experiment_of("paper_b2")),
    lambda r, kw: len(r) >= 1,
)
case(
    paper_b2.cell_params,
    kw(
        exp=experiment_of("paper_b2"),
        name=lambda kw: st.sampled_from(paper_b2.cell_names(kw["exp"])),
    ),
    lambda r, kw: len(r) >= 1,
)
_CELL = {"model": "btl", "m": 10, "L": 20}
case(
    scenarios.true_scores,
    kw(cell=st.just(_CELL), rng=generator(), law=st.sampled_from(["uniform", "unit_spaced"])),
    lambda r, kw: r.shape == (10,) and np.isfinite(r).all(),
    law=["bogus"],
)
case(
    scenarios.user_budgets,
    kw(cell=st.just(_CELL), eps=st.just({"range": [1.0, 5.0]}), rng=generator()),
    lambda r, kw: r.shape == (20,) and np.all((r >= 1.0) & (r <= 5.0)),
)
case(
    scenarios.shifted_budgets,
    kw(a_range=st.just((0.2, 2.0)), width=st.floats(0.1, 2), L=st.integers(1, 30), rng=generator()),
    lambda r, kw: 0.2 <= r[0] <= 2.0 and r[1].shape == (kw["L"],) and np.all(r[1] > 0),
)
case(
    sensitivity.theta_law,
    kw(half=st.floats(0.1, 5)),
    lambda r, kw: isinstance(r, str) and r.startswith("uniform"),
    half=[0.0, -1.0, NAN, INF],
)
case(
    study_intervals.design_key,
    kw(spec=st.dictionaries(st.sampled_from("abc"), st.integers(0, 9), max_size=3)),
    lambda r, kw: 0 <= r < 2**63 and r == study_intervals.design_key(dict(kw["spec"])),
)
case(study_intervals.check_section, kw(section=st.just(CONFIG["intervals"])), lambda r, kw: r == [])


def _true_ranks_hold(r, kw):
    lo, hi = r
    theta = np.asarray(kw["theta"])
    n = theta.size
    above = (theta[None, :] > theta[:, None]).sum(axis=1)
    tied = (theta[None, :] == theta[:, None]).sum(axis=1)
    return (lo == 1 + above).all() and (hi == above + tied).all() and (hi <= n).all()


case(
    study_intervals.true_ranks,
    kw(theta=hnp.arrays(np.float64, st.integers(1, 8), elements=st.sampled_from([-1.0, 0.0, 2.5]))),
    _true_ranks_hold,
    theta=[None, "x", np.array([]), np.array([np.nan, 1.0]), np.ones((2, 2))],
)

_COVERAGE_SUMMARY = coverage_summary()
case(
    study_intervals.coverage_table,
    kw(summary=st.integers(1, 2).map(_COVERAGE_SUMMARY.head)),
    lambda r, kw: len(r.splitlines()) == 2 + len(kw["summary"]) and "edge_mle" not in r,
    summary=["x", None, pd.DataFrame({"design": ["a"]})],
)
case(
    docs_includes.write_intervals_include,
    kw(
        path=st.sampled_from(["a.md", "sub/b.md"]).map(lambda name: _INCLUDES_DIR / name),
        summary=st.just(_COVERAGE_SUMMARY),
    ),
    lambda r, kw: (
        r.read_text() == docs_includes.HEADER + study_intervals.coverage_table(kw["summary"])
    ),
    path=[None, 3, ""],
    summary=["x", None, pd.DataFrame({"design": ["a"]})],
)
case(
    study_intervals.selected_designs,
    kw(section=st.just(CONFIG["intervals"])),
    lambda r, kw: set(r) <= set(CONFIG["intervals"]["designs"]) and r,
)
case(
    beyond_scale.rate,
    kw(n=st.integers(10, 10**6), p=st.floats(0.001, 1), eps=st.floats(0.1, 10)),
    lambda r, kw: r > 0 and math.isfinite(r),
)
case(
    beyond_scale.reps_for,
    kw(section=st.just(CONFIG["beyond_scale"]), n=st.sampled_from(CONFIG["beyond_scale"]["n"])),
    lambda r, kw: isinstance(r, int) and r >= 1,
)
case(
    benchmark.accountings,
    kw(method=st.sampled_from(methods.all_methods())),
    lambda r, kw: isinstance(r, tuple) and len(r) >= 1,
)
case(benchmark.plugin_methods, kw(config=st.just(CONFIG)), lambda r, kw: isinstance(r, dict))
case(
    privacy_audit.fixed_noise_counts_audit,
    kw(
        eps=st.floats(0.2, 3),
        n=st.integers(3, 4),
        trials=st.integers(4, 8),
        rng=generator(),
        alpha=st.just(0.05),
    ),
    lambda r, kw: r.claimed_eps == kw["eps"] and r.lower_bound >= 0,
    eps=[0.0, -1.0, NAN],
)
case(
    movielens.sample_released_wins,
    kw(
        L=st.integers(1, 5),
        wins=lambda kw: hnp.arrays(np.int64, (3, 3), elements=st.integers(0, kw["L"])),
        eps=st.floats(0.1, 5) | st.just(INF),
        rng=generator(),
    ),
    lambda r, kw: r.shape == (3, 3) and r.min() >= 0 and r.max() <= kw["L"],
    eps=[0.0, -1.0, NAN],
)
_RATINGS = hnp.arrays(np.float64, (4, 3), elements=st.integers(0, 5).map(float))
case(
    movielens.expected_comparisons,
    kw(ratings=_RATINGS),
    lambda r, kw: r.shape[0] == 4 and np.all((r >= 0) & (r <= 1)),
)
case(
    movielens.user_comparisons,
    kw(ratings=_RATINGS, rng=generator()),
    lambda r, kw: r.shape[0] == 4 and set(np.unique(r)) <= {0, 1},
)
case(
    movielens.reference_theta,
    kw(ratings=st.just(np.array([[5.0, 3.0, 1.0], [4.0, 4.0, 2.0], [1.0, 2.0, 5.0]]))),
    lambda r, kw: r.shape == (3,) and abs(r.sum()) < 1e-8,
)
_Y = hnp.arrays(np.float64, (3, 3), elements=st.integers(0, 1).map(float))
case(
    paper_b2_car.intransitivity,
    kw(y=_Y, m=st.just(3)),
    lambda r, kw: r["n_users"] == 3 and 0 <= r["n_intransitive"] <= 3,
)
case(
    paper_b2_car.nonprivate_fits,
    kw(y=st.just(np.array([[1.0, 1.0, 1.0], [1.0, 0.0, 1.0], [1.0, 1.0, 0.0]])), m=st.just(3)),
    lambda r, kw: (
        all(sorted(v.tolist()) == [1, 2, 3] for v in r["ranks"].values())
        and r["ranks"]["count"][0] == 1
    ),  # item 1 wins all its comparisons
)


case(
    paper_b2.stage_kwargs,
    kw(
        stage=st.just("simulate"),
        section=st.just(CONFIG["paper_b2"]),
        experiment=experiments("paper_b2"),
        cell=lambda kw: st.sampled_from(
            paper_b2.cell_names(CONFIG["paper_b2"]["experiments"][kw["experiment"]])
        ),
        chunk=st.just(0),
        seed=st.just(CONFIG["seed"]),
        chunk_size=st.just(CONFIG["chunk_size"]),
    ),
    lambda r, kw: r["experiment"] == kw["experiment"] and r["seed"] == CONFIG["seed"],
)
_DESIGNS = CONFIG["intervals"]["designs"]
_SMALL_DESIGNS = [k for k, v in _DESIGNS.items() if v["n_items"] <= 60]
case(
    study_intervals.fixed_design,
    kw(spec=st.sampled_from(_SMALL_DESIGNS).map(_DESIGNS.get), seed=st.integers(0, 2**31)),
    lambda r, kw: (
        r["theta"].size == kw["spec"]["n_items"]
        and abs(float(r["theta"].mean())) < 1e-9
        and all(
            np.array_equal(x, y)
            for x, y in zip(
                r.values(),
                study_intervals.fixed_design(kw["spec"], kw["seed"]).values(),
                strict=True,
            )
            if isinstance(x, np.ndarray)
        )
    ),
)
case(
    study_intervals.simulate_replicate,
    kw(
        spec=st.sampled_from(_SMALL_DESIGNS).map(_DESIGNS.get),
        fixed=lambda kw: st.just(study_intervals.fixed_design(kw["spec"], 1)),
        rng=generator(),
    ),
    lambda c, kw: c.n_items == kw["spec"]["n_items"] and c.n_records >= 1,
)
_SYNTH = CONFIG["benchmark"]["synthetic"]
case(
    benchmark.synthetic_replicate,
    kw(
        dataset=st.sampled_from(sorted(_SYNTH)),
        spec=lambda kw: st.just(_SYNTH[kw["dataset"]]),
        seed=st.integers(0, 100),
        replicate=st.integers(0, 3),
    ),
    lambda r, kw: r[0].n_items == kw["spec"]["n"] and r[1].shape == (kw["spec"]["n"],),
)
_BENCH_DATA = benchmark.synthetic_replicate("btl20", _SYNTH["btl20"], 0, 0)[0]
case(
    benchmark.user_budgets,
    kw(
        method=st.sampled_from(methods.all_methods()),
        comparisons=st.just(_BENCH_DATA),
        eps=st.floats(0.1, 5),
        accounting=st.sampled_from(["user", "comparison", "none"]),
    ),
    lambda r, kw: np.all(np.asarray(r) > 0),
    accounting=["bogus", None],
)


# ---- plot style and docs tables
def _grid(nrows, ncols):
    fig, axes = style.panel_grid(nrows, ncols)
    shape = np.shape(axes)
    plt.close(fig)
    return shape


_grid.__wrapped__ = style.panel_grid
case(
    _grid,
    kw(nrows=st.integers(1, 3), ncols=st.integers(1, 3)),
    lambda r, kw: r == (kw["nrows"], kw["ncols"]),
    nrows=BAD_COUNT1,
    ncols=BAD_COUNT1,
)


def _authors_style():
    with style.authors_style():
        return plt.rcParams["font.size"]


_authors_style.__wrapped__ = style.authors_style
case(_authors_style, lambda draw: {}, lambda r, kw: r > 0)
case(style.hollow_marker, lambda draw: {}, lambda r, kw: r.get_markerfacecolor() == "none")
case(
    docs_includes.markdown_table,
    kw(
        header=st.lists(st.text("abc", min_size=1, max_size=3), min_size=1, max_size=3),
        rows=lambda kw: st.lists(
            st.lists(st.integers(0, 9), min_size=len(kw["header"]), max_size=len(kw["header"])),
            min_size=1,
            max_size=3,
        ),
        align=lambda kw: st.text("lr", min_size=len(kw["header"]), max_size=len(kw["header"])),
    ),
    lambda r, kw: r.count("\n") == 2 + len(kw["rows"]),
    align=["x", "", None],
)
case(
    docs_includes.b2_products,
    kw(items=st.just(_PAPERS["paper_b2"]["items"]), experiment=experiments("paper_b2")),
    lambda r, kw: isinstance(r, str),
    items=["x", None, {"fig1": "x"}, {"fig1": {"experiment": "e"}}],
    experiment=[None, 3],
)
case(
    report.csv_page,
    kw(frame=st.just(pd.DataFrame({"a": [1, 2]})), caption=st.text("abc", min_size=1, max_size=5)),
    lambda r, kw: r.startswith("<!DOCTYPE html>") and f"<title>{kw['caption']}</title>" in r,
)
case(
    report.load_deviations,
    kw(path=st.just(ROOT / "resources" / "deviations.yaml")),
    lambda r, kw: isinstance(r, list) and all(isinstance(e, dict) for e in r),
    path=[None, 3, ""],
)
case(
    docs_includes.paper_a_figures,
    kw(items=st.just(_PAPERS["paper_a"]["items"])),
    lambda r, kw: r == [f"fig{i}" for i in range(1, 9)],
    items=["x", None, {"fig1": None}],
)


# ------------------------------------------------------------------------ the tests


test_rejects_bad_argument, test_accepts_valid_arguments = property_tests(
    CASES, BUILDERS, CHECKS, bad_examples=5, valid_examples=5
)
