"""Published points for the overlay versions of the figures (issue: published versus reproduced).

The comparison tables (``results/comparison/*.csv``) hold every published
number beside ours; these helpers pick the ones a figure plots and give them
the figure's own coordinates: Paper A's panel, x and series (from the figure's
CSV, which names each panel's x and series variables), Paper B's panel, series
keys and L (from the figure spec's panels and series).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from dprank.base import checks as _checks

__all__ = [
    "PAPER_PROTOCOL_NOTE",
    "draw_overlay",
    "paper_a_published",
    "paper_b_box_published",
    "paper_b_published",
]


#: Under every overlay of Paper A's ``paper`` protocol: why its gaps are expected.
PAPER_PROTOCOL_NOTE = (
    "Protocol 'paper' (the algorithms as stated): the published points come from the authors' "
    "code (protocol 'authors'), so gaps where the two differ are expected by design "
    "(docs/protocols.md)"
)


def paper_a_published(
    figure: str,
    data: pd.DataFrame,
    comparison: pd.DataFrame,
    settings: Mapping | None = None,
) -> pd.DataFrame:
    """Published points of Paper A figure ``figN`` in the figure's coordinates.

    A published number is shown only where the panel plots it: the paper plotted it
    (``in_paper_figure``), it is at the panel's fixed settings (Figure 4 (a): the
    figure's ``epsilon``), and its (x, series) is one of the panel's plotted points.
    So no hollow marker stands at an epsilon, p or n its panel does not show.

    Parameters
    ----------
    figure : str
        ``figN``.
    data : DataFrame
        The figure's CSV (:func:`dprank_papers.plotting.paper_a.figure_data`).
    comparison : DataFrame
        The comparison table of the figure's paper part.
    settings : mapping, optional
        The figure's declared settings: its ``panels`` (see
        :func:`dprank_papers.plotting.paper_a.figure_panels`) and the ``epsilon`` of the panels
        drawn at one epsilon; without them no panel is restricted to one epsilon.

    Returns
    -------
    DataFrame
        ``panel, x, series, value``: one row per published number shown (digitised
        points where the source is a figure).
    """
    _checks.text(figure, "figure")
    _checks.columns(data, "data", ("panel", "x_var", "series_var", "x", "series"))
    _checks.columns(comparison, "comparison", ("figure", "published_mean", "panel"))
    if settings is not None:
        _checks.mapping(settings, "settings")
    from dprank_papers.plotting.paper_a import figure_panels

    label = f"Figure {figure.removeprefix('fig')}"
    rows = comparison[(comparison["figure"] == label) & comparison["published_mean"].notna()]
    if "source" in rows:
        rows = rows[rows["source"].fillna("").str.startswith("digitised")]
    if "in_paper_figure" in rows:
        rows = rows[rows["in_paper_figure"].astype(str).str.lower().isin(("true", "1", "1.0"))]
    fixed_epsilon = (settings or {}).get("epsilon")
    panels = figure_panels(settings) if settings is not None else ()
    at_epsilon = {p.letter for p in panels if p.at_epsilon}
    out = []
    for letter, d in data.groupby("panel"):
        x_var, s_var = d["x_var"].iloc[0], d["series_var"].iloc[0]
        p = rows[rows["panel"].astype(str).str.split().str[0] == letter]  # "a (CEMS)" -> a
        if "method" in d and d["method"].nunique() == 1 and s_var != "method":
            p = p[p["method"] == d["method"].iloc[0]]
        if "metric" in d and d["metric"].nunique() == 1:
            p = p[p["metric"] == d["metric"].iloc[0]]
        if p.empty or x_var not in p or s_var not in p:
            continue
        if letter in at_epsilon and fixed_epsilon is not None and "epsilon" in p:
            p = p[np.isclose(p["epsilon"].astype(float), float(fixed_epsilon))]
        p = p[[_plotted(d, x, s, s_var) for x, s in zip(p[x_var], p[s_var], strict=True)]]
        out.append(
            pd.DataFrame(
                {"panel": letter, "x": p[x_var], "series": p[s_var], "value": p["published_mean"]}
            )
        )
    columns = ["panel", "x", "series", "value"]
    return pd.concat(out, ignore_index=True) if out else pd.DataFrame(columns=columns)


def _plotted(panel: pd.DataFrame, x, series, series_var: str) -> bool:
    """Whether ``(x, series)`` is one of a panel's plotted points."""
    at_x = np.isclose(panel["x"].astype(float), float(x))
    if series_var == "method":
        return bool((at_x & (panel["series"].astype(str) == str(series))).any())
    return bool((at_x & np.isclose(panel["series"].astype(float), float(series))).any())


def _key(value):
    """A comparable form of a cell key: numbers rounded, ``scheme2`` -> 2, names lower-case."""
    if value is None or value is pd.NA or (isinstance(value, float) and np.isnan(value)):
        return None
    if isinstance(value, str):
        text = value.lower().removeprefix("scheme")
        try:
            return round(float(text), 6)
        except ValueError:
            return text
    return round(float(value), 6)


def paper_b_published(
    data: pd.DataFrame, spec: Mapping, comparison: pd.DataFrame, tables: list[str]
) -> pd.DataFrame:
    """Published points of a Paper B line figure, in the rows of its plotted ``data``.

    ``data`` is :func:`dprank_papers.plotting.paper_b.figure_data`'s output; ``tables``
    the comparison labels of the tables holding the figure's numbers (e.g.
    ``["B2 Table 7"]``). Returns ``data``'s rows with a ``published`` column
    (NaN where the paper prints nothing).
    """
    _checks.frame(data, "data")
    _checks.mapping(spec, "spec")
    _checks.columns(comparison, "comparison", ("figure", "published_mean"))
    _checks.strings(tables, "tables")
    rows = comparison[comparison["figure"].isin(tables) & comparison["published_mean"].notna()]
    keys = ("model", "metric", "m", "L", "scheme", "Delta")
    ours = {"Delta": "delta"}
    index = {}
    for _, r in rows.iterrows():
        # the scheme column names a privacy scheme ("scheme2") or describes the budgets
        scheme = r.get("scheme")
        values = {k: r.get(k) for k in keys}
        values["scheme"] = scheme if str(scheme).startswith("scheme") else None
        index[tuple(_key(values[k]) for k in keys)] = float(r["published_mean"])
    values = []
    for _, r in data.iterrows():
        key = tuple(_key(r[ours.get(k, k)]) if ours.get(k, k) in r else None for k in keys)
        values.append(index.get(key, np.nan))
    return data.assign(published=values)


def paper_b_box_published(
    spec: Mapping, comparison: pd.DataFrame, tables: list[str]
) -> pd.DataFrame:
    """Published means of a Paper B box figure (B2 Figures 8, 9, 13: Tables 10, 11).

    Returns ``panel, x, value``: per panel (its ``metric`` and ``model``) the
    published mean of each method (the figure's x).
    """
    _checks.figure_spec(spec, "spec")
    model = ("model",) if any("model" in panel for panel in spec["panels"]) else ()
    _checks.columns(
        comparison, "comparison", ("figure", "published_mean", "metric", "method", *model)
    )
    _checks.strings(tables, "tables")
    rows = comparison[comparison["figure"].isin(tables) & comparison["published_mean"].notna()]
    out = []
    for letter, panel in zip("abcdefgh", spec["panels"], strict=False):
        p = rows[rows["metric"] == panel["metric"]]
        if "model" in panel:
            p = p[p["model"].str.lower() == panel["model"]]
        out += [
            {"panel": letter, "x": r["method"], "value": float(r["published_mean"])}
            for _, r in p.iterrows()
        ]
    return pd.DataFrame(out, columns=["panel", "x", "value"])


def draw_overlay(
    figure: str,
    data: pd.DataFrame,
    comparison: pd.DataFrame,
    spec: Mapping | None = None,
    tables: list[str] | None = None,
    settings: Mapping | None = None,
    protocols: str | None = None,
):
    """The overlay version of a figure: the published points as hollow markers over ours.

    Parameters
    ----------
    figure : str
        The figure's name (``figN``).
    data : DataFrame
        The figure's CSV as written (the plotted numbers), so that the overlay shows exactly
        the numbers the comparison table sets against the published ones.
    comparison : DataFrame
        The paper's comparison table (``results/comparison/<paper>.csv``).
    spec : mapping, optional
        A Paper B figure's spec (its entry in the ``figures`` of the paper's config
        section); ``None`` for Paper A.
    tables : list of str, optional
        Paper B: the comparison labels of the tables holding the figure's numbers.
    settings : mapping, optional
        Paper A (required there): the figure's declared settings (its panels, the epsilon of
        Figure 4 (a)).
    protocols : str, optional
        Paper A: the protocols one figure stands for (Figure 8, ``"paper = authors"``),
        said below the panels as on the figure without the published points.

    Returns
    -------
    (Figure, int)
        The figure and the number of published points it shows.
    """
    from dprank_papers.plotting import paper_a, paper_b
    from dprank_papers.plotting.paper_b_dist import draw_boxplots

    _checks.text(figure, "figure")
    _checks.frame(data, "data")
    _checks.frame(comparison, "comparison")
    if spec is not None:
        _checks.mapping(spec, "spec")
    if tables is not None:
        _checks.strings(tables, "tables")
    if settings is not None:
        _checks.mapping(settings, "settings")
    if spec is None:
        if settings is None:
            raise ValueError("settings must be a Paper A figure's settings (no spec), got None")
        published = paper_a_published(figure, data, comparison, settings)
        fig = paper_a.draw_figure(figure, data, settings, published=published, protocols=protocols)
        if "protocol" in data and set(data["protocol"]) == {"paper"}:
            fig.supxlabel(PAPER_PROTOCOL_NOTE, fontsize=11)
        return fig, len(published)
    if spec.get("type", "lines") == "boxplot":
        spec = dict(spec)
        if spec.get("methods"):
            spec["order"] = {"method": list(spec["methods"])}
        published = paper_b_box_published(spec, comparison, tables or [])
        return draw_boxplots(data, spec, published=published), len(published)
    data = paper_b_published(data, spec, comparison, tables or [])
    return paper_b.draw_b2_figure(data, spec), int(data["published"].notna().sum())
