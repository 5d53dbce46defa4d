"""Property-based tests of the public library, part six: the figures (``dprank_papers.plotting``).

Each drawing function gets tiny summary frames of the shape its study writes (two to four
rows per line), drawn by Hypothesis, and the figure it returns is checked against them:
the number of panels, the lines or boxes drawn in each and the values they plot (or the
numbers it returns beside the figure). The functions that pick rows (``figure_data``,
``box_data``, ``scatter_data``, the published points of the overlays) return exactly the
frame's values. The same two kinds of test as :mod:`test_properties`: a bad value of one
argument raises ``ValueError`` or ``TypeError`` naming it. Drawing is slow, so each
function runs on few examples; every figure is closed after its check.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from hypothesis import strategies as st
from matplotlib.figure import Figure
from test_properties import NAN, property_tests, registry

from dprank.base.yamlfile import read_yaml
from dprank_papers._papers import item_settings
from dprank_papers.plotting import (
    benchmark,
    beyond_scale,
    intervals,
    overlay,
    paper_a,
    paper_b,
    paper_b_dist,
    sensitivity,
    style,
)
from dprank_papers.studies.beyond_scale import rate

_TMP = tempfile.TemporaryDirectory(prefix="dprank-properties-plotting-")
TMP = Path(_TMP.name)

case, CASES, BUILDERS, CHECKS = registry()


@pytest.fixture(autouse=True, scope="module")
def _close_figures():
    """Close what a failed check left open (each check closes its own figure)."""
    yield
    plt.close("all")


NOT_A_FRAME = ["x", None, pd.DataFrame({"a": [1]})]
NOT_A_SPEC = [None, "x", {"series": ["m"]}, {"panels": [], "series": ["m"]}]
MEANS = st.floats(0.05, 3.0)


def _means(draw, n: int) -> list[float]:
    return draw(st.lists(MEANS, min_size=n, max_size=n))


def _closed(check):
    """``check(fig, ...)`` that closes the figure (the first item of a tuple result)."""

    def inner(r, kw):
        fig = r[0] if isinstance(r, tuple) else r
        try:
            return check(r, kw)
        finally:
            plt.close(fig)

    return inner


def _ydata(lines) -> list[float]:
    return sorted(float(y) for line in lines for y in line.get_ydata())


# ---- style
def _axes(draw):
    return Figure().add_subplot()


def _points(draw):
    n = draw(st.integers(0, 4))
    return {
        "ax": _axes(draw),
        "x": draw(st.lists(MEANS, min_size=n, max_size=n)),
        "y": draw(st.lists(MEANS, min_size=n, max_size=n)),
        "color": draw(st.sampled_from(style.COLORS)),
        "marker": draw(st.sampled_from(style.MARKERS)),
    }


def _check_points(r, kw):
    lines = kw["ax"].lines
    if not kw["x"]:
        return r is None and not lines
    (line,) = lines
    return (
        list(line.get_xdata()) == kw["x"]
        and list(line.get_ydata()) == kw["y"]
        and line.get_marker() == kw["marker"]
        and line.get_markerfacecolor() == "none"
    )


case(
    style.overlay_published,
    _points,
    _check_points,
    ax=[None, "ax"],
    x=[["a", "b"], object()],
    y=[lambda kw: [*kw["x"], 1.0]],
    color=["not a colour", 3],
    marker=["bogus", 3],
)


def _legend(draw):
    ax = _axes(draw)
    k = draw(st.integers(0, 8))
    for i in range(k):
        ax.plot([0, 1], [i, i], label=f"line {i}")
    return {"ax": ax}


def _check_legend(r, kw):
    ax = kw["ax"]
    texts = [t.get_text() for t in ax.get_legend().get_texts()]
    return texts == [*ax.get_legend_handles_labels()[1], "published (hollow)"]


case(style.published_legend, _legend, _check_legend, ax=[None, "ax", Figure()])


def _saved(draw):
    fig = Figure(figsize=(1.5, 1))
    fig.add_subplot().plot(draw(st.lists(MEANS, min_size=2, max_size=3)))
    name = draw(st.sampled_from(["a", "b"]))
    return {
        "fig": fig,
        "pdf_path": TMP / f"{name}.pdf",
        "png_path": str(TMP / f"{name}.png"),
        "dpi": draw(st.integers(10, 30)),
    }


def _check_saved(r, kw):
    pdf, png = Path(kw["pdf_path"]).read_bytes(), Path(kw["png_path"]).read_bytes()
    return pdf.startswith(b"%PDF") and png.startswith(b"\x89PNG") and len(pdf) > 100


# dprank_papers.plotting.benchmark.save_figure is this function
assert benchmark.save_figure is style.save_figure
case(
    style.save_figure,
    _saved,
    _check_saved,
    fig=[None, "fig"],
    pdf_path=[None, 3, ""],
    png_path=[None, ["a.png"]],
    dpi=[0, 0.5, "100"],
)


# ---- Paper A
#: the settings of each Paper A figure, as the rule passes them (workflow/papers/paper_a.yaml)
_A_SETTINGS = {
    name: item_settings(item)
    for name, item in read_yaml(
        Path(__file__).resolve().parents[1] / "workflow" / "papers" / "paper_a.yaml"
    )["items"].items()
}
_A_VALUES = {"n": [10, 20, 40], "p": [0.2, 0.5, 1.0], "epsilon": [0.5, 1.0, 2.0]}
_A_METRICS = ("log_rel_l2", "log_rel_linf", "rel_hamming")


def _a_summary(draw, figure: str) -> pd.DataFrame:
    """A summary of Figure 1, 2 or 3: two x values, two series, both methods, three metrics."""
    panel = paper_a.figure_panels(_A_SETTINGS[figure])[0]
    xs = draw(st.lists(st.sampled_from(_A_VALUES[panel.x]), min_size=2, max_size=2, unique=True))
    ss = draw(
        st.lists(st.sampled_from(_A_VALUES[panel.series]), min_size=2, max_size=2, unique=True)
    )
    rows = [
        {"n": 300, "p": 1.0, "epsilon": 1.0, panel.x: x, panel.series: s, "method": m, "metric": k}
        for m in ("edge_mle", "edge_counts")
        for k in _A_METRICS
        for x in xs
        for s in ss
    ]
    frame = pd.DataFrame(rows)
    return frame.assign(mean=_means(draw, len(frame)), sd=0.1, se=0.01, reps=5)


FIG_A = st.sampled_from(["fig1", "fig2", "fig3"])


def _all_x(figure: str) -> dict:
    """A figure's settings without the plotted subset (every x of a summary is plotted)."""
    return {k: v for k, v in _A_SETTINGS[figure].items() if k not in ("x_values", "epsilon")}


#: a figure's settings whose one panel lacks its y label (its own and the figure's)
_BAD_PANELS = {"experiments": ["exp1"], "panels": [{"metric": "m", "methods": ["a"], "x": "n"}]}


def _a_panels(draw):
    return {"settings": _A_SETTINGS[draw(st.sampled_from(sorted(_A_SETTINGS)))]}


def _check_a_panels(r, kw):
    settings = kw["settings"]
    return (
        [p.letter for p in r] == list("abcd"[: len(settings["panels"])])
        and all(0 <= p.experiment < len(settings["experiments"]) for p in r)
        and all(p.methods and p.metric and p.x and p.series and p.ylabel for p in r)
    )


case(
    paper_a.figure_panels,
    _a_panels,
    _check_a_panels,
    settings=[
        None,
        "x",
        {"panels": []},
        {**_A_SETTINGS["fig1"], "panels": "a"},
        {**_A_SETTINGS["fig4"], "panels": [{"experiment": "nope"}]},
        _BAD_PANELS,
    ],
)


def _a_figure_data(draw):
    figure = draw(FIG_A)
    return {
        "figure": figure,
        "summaries": [_a_summary(draw, figure)],
        "fig_cfg": _all_x(figure),
        "protocol": draw(st.sampled_from(["paper", "authors"])),
    }


def _check_a_figure_data(r, kw):
    s = kw["summaries"][0]
    x_var = paper_a.figure_panels(kw["fig_cfg"])[0].x
    plotted = (s["method"] == "edge_mle") | (s["metric"] == "rel_hamming")
    series = paper_a.figure_panels(kw["fig_cfg"])[0].series
    want = s[plotted].assign(x=s[x_var].astype(float), series=s[series].astype(float))
    joined = r.merge(want, on=["method", "metric", "x", "series"])
    return (
        len(r) == len(want) == len(joined)
        and (joined["mean_x"] == joined["mean_y"]).all()
        and set(r["panel"]) == set("abcd")
        and (r["protocol"] == kw["protocol"]).all()
    )


case(
    paper_a.figure_data,
    _a_figure_data,
    _check_a_figure_data,
    figure=[3, None],
    summaries=["x", [], [pd.DataFrame({"a": [1]})]],
    fig_cfg=[None, "x", {}, {"experiments": ["exp1"], "panels": []}, _BAD_PANELS],
    protocol=[None, 3],
)


def _a_data(draw, figure=None):
    figure = figure or draw(FIG_A)
    data = paper_a.figure_data(figure, [_a_summary(draw, figure)], _all_x(figure), "authors")
    return figure, data


def _a_draw(draw):
    figure, data = _a_data(draw)
    return {
        "figure": figure,
        "data": data,
        "settings": _A_SETTINGS[figure],
        "protocols": draw(st.none() | st.just("paper = authors")),
    }


def _check_a_draw(fig, kw):
    data = kw["data"]
    axes = [ax for ax in fig.axes if ax.get_visible()]
    assert len(axes) == 4
    for ax, letter in zip(axes, "abcd", strict=True):
        d = data[data["panel"] == letter]
        lines = [c.lines[0] for c in ax.containers]
        assert len(lines) == d["series"].nunique()
        assert _ydata(lines) == sorted(d["mean"])
    note = fig.get_supxlabel()
    return (kw["protocols"] or "") in note and (kw["protocols"] is not None) == bool(note)


case(
    paper_a.draw_figure,
    _a_draw,
    _closed(_check_a_draw),
    figure=[3, None],
    data=["x", pd.DataFrame({"a": [1]})],
    settings=[None, "x", {"panels": []}, _BAD_PANELS, {**_A_SETTINGS["fig1"], "ncols": 0}],
    published=["x", pd.DataFrame({"a": [1]})],
    protocols=[3],
)


def _agree(draw):
    figure, data = _a_data(draw)
    return {"figure": figure, "datas": {"paper": data, "authors": data.copy()}}


def _check_agree(r, kw):
    first = kw["datas"]["paper"]
    shifted = first.assign(mean=first["mean"] + 1.0)
    with pytest.raises(ValueError, match="plot different means"):
        paper_a.protocols_agree(kw["figure"], {"paper": first, "authors": shifted})
    return r is None


case(
    paper_a.protocols_agree,
    _agree,
    _check_agree,
    figure=[3, None],
    datas=["x", {}, {"paper": "x"}, {"paper": pd.DataFrame({"a": [1]})}],
)


# ---- Paper B lines
_B_PANELS = (
    {"metric": "linf", "model": "btl"},
    {"metric": "linf", "model": "tm"},
    {"metric": "l2_over_sqrt_m", "model": "btl"},
)


def _b_summary(draw) -> pd.DataFrame:
    Ls = draw(st.lists(st.sampled_from([50, 100, 200, 400]), min_size=2, max_size=3, unique=True))
    rows = [
        {"metric": k, "model": model, "method": "local_adrr", "m": m, "L": L}
        for k in ("linf", "l2_over_sqrt_m")
        for model in ("btl", "tm")
        for m in (10, 20)
        for L in Ls
    ]
    frame = pd.DataFrame(rows)
    return frame.assign(mean=_means(draw, len(frame)), se=0.01)


def _b_spec(draw) -> dict:
    panels = draw(st.lists(st.sampled_from(_B_PANELS), min_size=1, max_size=3, unique_by=str))
    spec = {"panels": panels, "series": ["m"]}
    ncols = draw(st.sampled_from([None, 1, 2]))
    if ncols is not None:
        spec["ncols"] = ncols
    if draw(st.booleans()):
        spec["ci"] = True
    return spec


def _b_rows(summary: pd.DataFrame, panel: dict) -> pd.DataFrame:
    return summary[
        (summary["metric"] == panel["metric"])
        & (summary["model"] == panel["model"])
        & (summary["method"] == "local_adrr")
    ]


def _check_b_figure_data(r, kw):
    for letter, panel in zip("abc", kw["spec"]["panels"], strict=False):
        want = _b_rows(kw["summary"], panel)
        got = r[r["panel"] == letter]
        assert len(got) == len(want) and sorted(got["mean"]) == sorted(want["mean"])
    return len(r) == sum(len(_b_rows(kw["summary"], p)) for p in kw["spec"]["panels"])


case(
    paper_b.figure_data,
    lambda draw: {"summary": _b_summary(draw), "spec": _b_spec(draw)},
    _check_b_figure_data,
    summary=NOT_A_FRAME,
    spec=[
        *NOT_A_SPEC,
        {"panels": [{"model": "btl"}], "series": ["m"]},
        lambda kw: {**kw["spec"], "series": "m"},
    ],
)


def _b_draw(draw):
    spec = _b_spec(draw)
    return {"data": paper_b.figure_data(_b_summary(draw), spec), "spec": spec}


def _check_b_draw(fig, kw):
    spec, data = kw["spec"], kw["data"]
    assert len(fig.axes) == len(spec["panels"])
    for ax, letter in zip(fig.axes, "abc", strict=False):
        d = data[data["panel"] == letter]
        lines = [c.lines[0] for c in ax.containers] if spec.get("ci") else ax.lines
        assert len(lines) == d["m"].nunique()
        assert _ydata(lines) == sorted(d["mean"])
    return True


case(
    paper_b.draw_b2_figure,
    _b_draw,
    _closed(_check_b_draw),
    data=[*NOT_A_FRAME, lambda kw: kw["data"].iloc[:0]],
    spec=[*NOT_A_SPEC[:2], lambda kw: {**kw["spec"], "ncols": 0}],
)

_NAMED = [("paper_b2", "fig14"), ("paper_b1", "fig7"), ("paper_b2", "fig5"), ("paper_b2", "fig4")]


def _named(draw):
    bpaper, figure = draw(st.sampled_from(_NAMED))
    return {"fig": Figure(), "bpaper": bpaper, "figure": figure}


def _check_named(r, kw):
    key = (kw["bpaper"], kw["figure"])
    fig = kw["fig"]
    return fig.get_suptitle() == paper_b.DATA_SETS.get(key, "") and (
        fig.get_supxlabel() == paper_b.NOTES.get(key, "")
    )


case(
    paper_b.name_data_set,
    _named,
    _check_named,
    fig=[None, "fig"],
    bpaper=[3, None],
    figure=[3, None],
)


# ---- Paper B distributions
def _replicates(draw) -> pd.DataFrame:
    """Per-replicate rows of two methods, two models and two m, with each cell's B."""
    reps = draw(st.integers(2, 3))
    cells = [(r, model, m) for r in range(reps) for model in ("btl", "tm") for m in (10, 20)]
    rows = [
        {"replicate": r, "model": model, "m": m, "method": method, "metric": metric}
        for r, model, m in cells
        for method in ("local_adrr", "local_count")
        for metric in ("linf", "kendall_tau_K")
    ]
    values = draw(st.lists(st.integers(1, 10**4), min_size=len(rows), max_size=len(rows)))
    frame = pd.DataFrame(rows).assign(value=np.asarray(values) / 100)
    budgets = draw(
        st.lists(st.integers(1, 10**4), min_size=len(cells), max_size=len(cells), unique=True)
    )
    budget = pd.DataFrame(
        [
            {
                "replicate": r,
                "model": model,
                "m": m,
                "method": "local_adrr",
                "metric": "B",
                "value": b,
            }
            for (r, model, m), b in zip(cells, budgets, strict=True)
        ]
    )
    return pd.concat([frame, budget.astype({"value": float})], ignore_index=True)


_DIST_PANELS = ({"metric": "linf", "model": "btl"}, {"metric": "kendall_tau_K", "model": "tm"})


def _box_spec(draw) -> dict:
    panels = draw(st.lists(st.sampled_from(_DIST_PANELS), min_size=1, max_size=2, unique_by=str))
    x, hue = draw(st.sampled_from([("method", None), ("m", None), ("m", "method")]))
    return {"panels": panels, "x": x, **({"hue": hue} if hue else {})}


def _dist_rows(replicates: pd.DataFrame, panel: dict) -> pd.DataFrame:
    return replicates[
        (replicates["metric"] == panel["metric"]) & (replicates["model"] == panel["model"])
    ]


def _check_box_data(r, kw):
    for letter, panel in zip("ab", kw["spec"]["panels"], strict=False):
        want = _dist_rows(kw["replicates"], panel)
        got = r[r["panel"] == letter]
        assert len(got) == len(want) and sorted(got["value"]) == sorted(want["value"])
    return len(r) == sum(len(_dist_rows(kw["replicates"], p)) for p in kw["spec"]["panels"])


case(
    paper_b_dist.box_data,
    lambda draw: {"replicates": _replicates(draw), "spec": _box_spec(draw)},
    _check_box_data,
    replicates=NOT_A_FRAME,
    spec=[*NOT_A_SPEC, {"panels": [{"model": "btl"}], "x": "m"}],
)


def _boxes(draw):
    spec = _box_spec(draw)
    return {"data": paper_b_dist.box_data(_replicates(draw), spec), "spec": spec}


def _check_boxes(fig, kw):
    spec, data = kw["spec"], kw["data"]
    assert len(fig.axes) == len(spec["panels"])
    keys = [spec["x"], *([spec["hue"]] if "hue" in spec else [])]
    for ax, letter in zip(fig.axes, "ab", strict=False):
        d = data[data["panel"] == letter]
        assert len(ax.get_xticks()) == d[spec["x"]].nunique()
        diamonds = [line for line in ax.lines if line.get_marker() == "D"]
        means = d.groupby(keys)["value"].mean()
        assert np.allclose(_ydata(diamonds), sorted(means))
    return True


case(
    paper_b_dist.draw_boxplots,
    _boxes,
    _closed(_check_boxes),
    data=NOT_A_FRAME,
    spec=NOT_A_SPEC[:2],
    published=["x", pd.DataFrame({"a": [1]})],
)


def _scatter_spec(draw) -> dict:
    panels = draw(st.lists(st.sampled_from(_DIST_PANELS), min_size=1, max_size=2, unique_by=str))
    return {"panels": panels, "x_metric": "B"}


def _check_scatter_data(r, kw):
    reps = kw["replicates"]
    budget = reps[reps["metric"] == "B"].set_index(["replicate", "model", "m"])["value"]
    for letter, panel in zip("ab", kw["spec"]["panels"], strict=False):
        want = _dist_rows(reps, panel)
        cells = list(zip(want["replicate"], want["model"], want["m"], strict=True))
        want = want.assign(x=budget.loc[cells].to_numpy() ** -0.5)
        got = r[r["panel"] == letter]
        pairs = sorted(zip(got["x"], got["value"], strict=False))
        assert np.allclose(pairs, sorted(zip(want["x"], want["value"], strict=False)))
    return True


case(
    paper_b_dist.scatter_data,
    lambda draw: {"replicates": _replicates(draw), "spec": _scatter_spec(draw)},
    _check_scatter_data,
    replicates=NOT_A_FRAME,
    spec=NOT_A_SPEC,
)


def _bands(draw):
    spec = _scatter_spec(draw)
    return {"data": paper_b_dist.scatter_data(_replicates(draw), spec), "spec": spec}


def _check_bands(r, kw):
    fig, fits = r
    data = kw["data"]
    assert len(fig.axes) == len(kw["spec"]["panels"]) == len(fits)
    for _, fit in fits.iterrows():
        d = data[data["panel"] == fit["panel"]]
        slope, intercept = np.polyfit(d["x"], d["value"], 1)
        assert fit["n"] == len(d)
        assert np.isclose(fit["slope"], slope) and np.isclose(fit["intercept"], intercept)
    return True


case(
    paper_b_dist.draw_scatter_bands,
    _bands,
    _closed(_check_bands),
    data=NOT_A_FRAME,
    spec=[*NOT_A_SPEC[:2], lambda kw: {**kw["spec"], "level": 1.5}],
)


# ---- overlays: the published points
def _a_comparison(draw, figure: str, data: pd.DataFrame) -> pd.DataFrame:
    """Published numbers of some of the plotted points (and one of another figure)."""
    x_var, s_var = data["x_var"].iloc[0], data["series_var"].iloc[0]
    chosen = draw(st.lists(st.integers(0, len(data) - 1), min_size=1, max_size=4, unique=True))
    rows = [
        {
            "figure": f"Figure {figure.removeprefix('fig')}",
            "panel": r["panel"],
            "source": "digitised figure",
            "in_paper_figure": True,
            "method": r["method"],
            "metric": r["metric"],
            x_var: r["x"],
            s_var: r["series"],
            "published_mean": r["mean"] + 1.0,
        }
        for _, r in data.iloc[sorted(chosen)].iterrows()
    ]
    other = {**rows[0], "figure": "Figure 9", "published_mean": -1.0}
    return pd.DataFrame([*rows, other])


def _a_published(draw):
    figure, data = _a_data(draw)
    comparison = _a_comparison(draw, figure, data)
    settings = draw(st.none() | st.just(_A_SETTINGS[figure]))
    return {"figure": figure, "data": data, "comparison": comparison, "settings": settings}


def _check_a_published(r, kw):
    want = kw["comparison"].iloc[:-1]
    return sorted(r["value"]) == sorted(want["published_mean"]) and list(r.columns) == [
        "panel",
        "x",
        "series",
        "value",
    ]


case(
    overlay.paper_a_published,
    _a_published,
    _check_a_published,
    figure=[3, None],
    data=NOT_A_FRAME,
    comparison=NOT_A_FRAME,
    settings=["x", 3, {"epsilon": 2.0}],
)


def _b_comparison(draw, data: pd.DataFrame) -> pd.DataFrame:
    chosen = draw(st.lists(st.integers(0, len(data) - 1), min_size=1, max_size=4, unique=True))
    rows = [
        {
            "figure": "B2 Table 7",
            "model": r["model"].upper(),
            "metric": r["metric"],
            "m": r["m"],
            "L": r["L"],
            "published_mean": r["mean"] + 1.0,
        }
        for _, r in data.iloc[sorted(chosen)].iterrows()
    ]
    return pd.DataFrame([*rows, {**rows[0], "figure": "B2 Table 8", "published_mean": -1.0}])


def _b_published(draw):
    spec = _b_spec(draw)
    data = paper_b.figure_data(_b_summary(draw), spec)
    return {
        "data": data,
        "spec": spec,
        "comparison": _b_comparison(draw, data),
        "tables": ["B2 Table 7"],
    }


def _check_b_published(r, kw):
    want = {
        (c["model"].lower(), c["metric"], c["m"], c["L"]): c["published_mean"]
        for _, c in kw["comparison"].iloc[:-1].iterrows()
    }
    expected = [
        want.get((d["model"], d["metric"], d["m"], d["L"]), NAN) for _, d in kw["data"].iterrows()
    ]
    return len(r) == len(kw["data"]) and np.allclose(r["published"], expected, equal_nan=True)


case(
    overlay.paper_b_published,
    _b_published,
    _check_b_published,
    data=["x", None],
    spec=["x", None],
    comparison=NOT_A_FRAME,
    tables=["B2 Table 7", [3]],
)


def _box_published(draw):
    spec = _box_spec(draw)
    rows = [
        {
            "figure": table,
            "model": model,
            "metric": metric,
            "method": method,
            "published_mean": draw(MEANS),
        }
        for table in ("B2 Table 10", "B2 Table 11")
        for model in ("BTL", "TM")
        for metric in ("linf", "kendall_tau_K")
        for method in ("local_adrr", "local_count")
    ]
    return {"spec": spec, "comparison": pd.DataFrame(rows), "tables": ["B2 Table 10"]}


def _check_box_published(r, kw):
    c = kw["comparison"]
    for letter, panel in zip("ab", kw["spec"]["panels"], strict=False):
        want = c[
            (c["figure"] == "B2 Table 10")
            & (c["metric"] == panel["metric"])
            & (c["model"].str.lower() == panel["model"])
        ]
        got = r[r["panel"] == letter]
        assert list(got["x"]) == list(want["method"])
        assert list(got["value"]) == list(want["published_mean"])
    return True


case(
    overlay.paper_b_box_published,
    _box_published,
    _check_box_published,
    spec=NOT_A_SPEC,
    comparison=NOT_A_FRAME,
    tables=["B2 Table 10", None, [3]],
)


def _overlay(draw):
    if draw(st.booleans()):
        figure, data = _a_data(draw, "fig1")
        return {
            "figure": figure,
            "data": data,
            "comparison": _a_comparison(draw, figure, data),
            "settings": _A_SETTINGS[figure],
        }
    kwargs = _b_published(draw)
    kwargs["spec"] = {k: v for k, v in kwargs["spec"].items() if k != "ci"}
    return {"figure": "fig4", **kwargs}


def _check_overlay(r, kw):
    fig, shown = r
    if kw.get("spec") is None:
        want = overlay.paper_a_published(kw["figure"], kw["data"], kw["comparison"])
        return isinstance(fig, Figure) and shown == len(want)
    want = overlay.paper_b_published(kw["data"], kw["spec"], kw["comparison"], kw["tables"])
    return isinstance(fig, Figure) and shown == want["published"].notna().sum()


case(
    overlay.draw_overlay,
    _overlay,
    _closed(_check_overlay),
    figure=[3, None],
    data=["x", None],
    comparison=["x", None],
    spec=["x", 3],
    tables=["B2 Table 7", [3]],
    settings=["x", 3],
)


# ---- the studies beyond the papers
_BENCH_METRICS = ("kendall", "top_k", "l2")
_BENCH_METHODS = (("edge_mle", "central"), ("local_rr", "local"), ("mle", "none"))


def _bench(draw):
    metrics = draw(st.lists(st.sampled_from(_BENCH_METRICS), min_size=1, max_size=2, unique=True))
    rows = []
    for metric in metrics:
        for name, trust in _BENCH_METHODS:
            if trust == "none":
                rows.append({"metric": metric, "method": name, "trust_model": trust})
                continue
            rows += [
                {
                    "metric": metric,
                    "method": name,
                    "trust_model": trust,
                    "accounting": acc,
                    "eps": e,
                }
                for acc in ("user", "comparison")
                for e in (0.5, 1.0, 2.0)
            ]
    frame = pd.DataFrame(rows).assign(mean=_means(draw, len(rows)), se=0.01)
    return {
        "summary": frame,
        "title": "data set",
        "note": "accounting",
        "labels": draw(st.none() | st.just({"edge_mle": "Edge MLE"})),
    }


def _check_bench(fig, kw):
    s = kw["summary"]
    metrics = [m for m in _BENCH_METRICS if m in set(s["metric"])]
    assert len(fig.axes) == len(metrics)
    for ax, metric in zip(fig.axes, metrics, strict=True):
        private = s[(s["metric"] == metric) & (s["trust_model"] != "none")]
        curves = [line for line in ax.lines if len(line.get_xdata()) == 3]
        assert len(curves) == 4 and _ydata(curves) == sorted(private["mean"])
        (reference,) = s[(s["metric"] == metric) & (s["trust_model"] == "none")]["mean"]
        assert any(list(line.get_ydata()) == [reference] * 2 for line in ax.lines)
    return True


case(
    benchmark.plot_benchmark,
    _bench,
    _closed(_check_bench),
    summary=[*NOT_A_FRAME, lambda kw: kw["summary"].assign(metric="other")],
    title=[None, 3],
    note=[None, 3],
    labels=["x", 3],
)


def _scale(draw):
    epsilons = draw(st.lists(st.sampled_from([0.5, 2.0, 8.0]), min_size=1, max_size=2, unique=True))
    ns = draw(st.lists(st.sampled_from([100, 200, 400]), min_size=2, max_size=3, unique=True))
    rows = [
        {"method": method, "metric": metric, "epsilon": e, "n": n, "p": 10 / n}
        for method in ("edge_mle", "edge_counts")
        for metric in (*_A_METRICS, "log_linf")
        for e in epsilons
        for n in ns
        if metric != "log_linf" or method == "edge_mle"
    ]
    summary = pd.DataFrame(rows).assign(mean=_means(draw, len(rows)), se=0.01)
    fit = pd.DataFrame({"epsilon": epsilons, "constant": _means(draw, len(epsilons)), "r2": 0.9})
    return {"summary": summary, "fit": fit, "degree": 10.0}


def _check_scale(r, kw):
    fig, numbers = r
    s, fit = kw["summary"], kw["fit"].set_index("epsilon")
    assert len(fig.axes) == 4
    assert len(numbers) == len(s) and sorted(numbers["mean"]) == sorted(s["mean"])
    rated = numbers[numbers["panel"] == "linf_vs_rate"]
    constant = fit.loc[rated["epsilon"], "constant"].to_numpy()
    want = constant * rate(rated["n"], rated["p"], rated["epsilon"])
    return np.allclose(rated["fitted"], want) and np.allclose(
        rated["measured"], np.exp(rated["mean"])
    )


case(
    beyond_scale.plot_scale,
    _scale,
    _closed(_check_scale),
    summary=NOT_A_FRAME,
    fit=[*NOT_A_FRAME, lambda kw: kw["fit"].iloc[:0]],
    degree=["x", 0.0, NAN],
)


def _coverage(draw):
    k = draw(st.integers(2, 4))
    summary = pd.DataFrame(
        {
            "design": [f"design {i}" for i in range(k)],
            **{
                f"{w}_{c}": draw(st.lists(st.floats(lo, 1.0), min_size=k, max_size=k))
                for w in ("score", "rank")
                for c, lo in (("cover", 0.5), ("cover_min", 0.3), ("width_median", 0.1))
            },
        }
    )
    if draw(st.booleans()):  # with the comparator's coverage
        for w in ("score", "rank"):
            summary[f"boot_{w}_cover"] = draw(st.lists(st.floats(0.5, 1.0), min_size=k, max_size=k))
    return {
        "summary": summary,
        "level": 0.95,
        "target": draw(st.floats(0.8, 0.95)),
        "item_target": draw(st.floats(0.5, 0.9)),
    }


def _check_coverage(r, kw):
    fig, numbers = r
    s = kw["summary"]
    assert len(fig.axes) == 2
    for ax, what in zip(fig.axes, ("score", "rank"), strict=True):
        heights = [p.get_height() for p in ax.patches]
        assert np.allclose(heights, s[f"{what}_cover"])
        part = numbers[numbers["panel"] == what]
        assert list(part["coverage"]) == list(s[f"{what}_cover"])
    return True


case(
    intervals.plot_coverage,
    _coverage,
    _closed(_check_coverage),
    summary=NOT_A_FRAME,
    level=[1.5, "x", NAN],
    target=[-0.1, None],
    item_target=[1.5, None],
)

_DEFAULT5 = {"theta_half": 1.0, "p": 0.5, "lambda_c": 1.0}
_OTHER5 = {"theta_half": 2.0, "p": 0.8, "lambda_c": 10.0}


def _sensitivity(draw):
    ps = draw(st.lists(st.sampled_from([0.5, 0.8, 1.0]), min_size=1, max_size=2, unique=True))
    curve = pd.DataFrame([{"p": p, "eps0": e} for p in ps for e in (1.0, 2.0, 3.0)])
    curve = curve.assign(rms_log_ratio=_means(draw, len(curve)))
    fit = pd.DataFrame({"p": ps, "eps0": 2.0, "best": [True] + [False] * (len(ps) - 1)})
    cells = pd.DataFrame(
        [
            {**_DEFAULT5, key: value, "figure": "B2 Table 11", "metric": "kendall_tau_K"}
            | {"method": "local_adrr", "model": model}
            for key in _DEFAULT5
            for value in (_DEFAULT5[key], _OTHER5[key])
            for model in ("btl", "tm")
        ]
    )
    cells = cells.assign(
        ours_mean=_means(draw, len(cells)), ours_se=0.01, published_mean=_means(draw, len(cells))
    )
    return {"curve": curve, "fit": fit, "cells": cells, "default5": dict(_DEFAULT5)}


def _check_sensitivity(r, kw):
    fig, numbers = r
    assert len(fig.axes) == 4
    s3 = numbers[numbers["panel"] == "scenario3"]
    assert sorted(s3["y"]) == sorted(kw["curve"]["rms_log_ratio"])
    cells = kw["cells"]
    for key in _DEFAULT5:
        fixed = np.ones(len(cells), dtype=bool)
        for other in set(_DEFAULT5) - {key}:
            fixed &= np.isclose(cells[other], _DEFAULT5[other])
        want = cells[fixed]
        got = numbers[numbers["panel"] == key]
        assert np.allclose(sorted(got["y"]), sorted(want["ours_mean"] / want["published_mean"]))
    return True


case(
    sensitivity.plot_sensitivity,
    _sensitivity,
    _closed(_check_sensitivity),
    curve=NOT_A_FRAME,
    fit=[*NOT_A_FRAME, lambda kw: kw["fit"].iloc[:0]],
    cells=NOT_A_FRAME,
    default5=["x", {"p": 0.5}, lambda kw: {**kw["default5"], "p": "x"}],
)


# ------------------------------------------------------------------------ the tests


# One test per bad value, each on one drawn example: every bad value is tried on every run
# (few examples of a case that samples among its bad values would leave some untried).
CASES[:] = [(fn, build, arg, [value]) for fn, build, arg, values in CASES for value in values]
test_rejects_bad_argument, test_accepts_valid_arguments = property_tests(
    CASES, BUILDERS, CHECKS, bad_examples=1, valid_examples=2
)
