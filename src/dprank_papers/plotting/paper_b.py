"""Paper B line figures (B2 Figures 4, 6, 7, 11, 12; B1 Figures 2-7) from aggregated summaries.

Every such figure plots average errors against the number of users L, one
line per combination of the figure's ``series`` keys (e.g. model and m in B2
Figure 4, scheme and m in Figures 6 and 11, m and delta in Figures 7 and 12;
m in B1 Figure 2), one panel per configured filter (metric plus any cell keys:
model, eps, m, ...; docs/papers/paper-b.md#s2 and #s5). B1's figures add 95%
confidence intervals, ``mean +- 1.96 se`` (docs/papers/paper-b.md#a29).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from dprank.base import checks as _checks

from .style import (
    COLORS,
    MARKERS,
    authors_style,
    hollow_marker,
    method_label,
    overlay_published,
    panel_grid,
    published_legend,
)

__all__ = ["DATA_SETS", "METRIC_LABELS", "NOTES", "draw_b2_figure", "figure_data", "name_data_set"]

METRIC_LABELS = {
    "l2_over_sqrt_m": r"$m^{-1/2}\|\hat\theta-\theta^*\|_2$",
    "linf": r"$\|\hat\theta-\theta^*\|_\infty$",
    "kendall_tau_K": "Full ranking error K",
    "topK_hamming_HK_K=m/2": r"Top-$K$ error $H_K$ ($K = m/2$)",
    "topK_hamming_HK_K=10": r"Top-$K$ error $H_{10}$",
}
KEY_LABELS = {"model": "", "m": "m", "scheme": "Scheme ", "delta": "Δ", "eps": "ε", "method": ""}
#: the real data set of a Paper B figure, written above its panels
DATA_SETS = {
    ("paper_b2", "fig14"): "Car preference data (60 users, 10 cars)",
    ("paper_b1", "fig7"): "MovieLens latest-small, the 40 most-rated movies",
}


#: what a reader comparing with the paper needs to know, written under the panels
NOTES = {
    ("paper_b2", "fig5"): (
        "The paper's text says every correlation exceeds 0.9; ours (r in each panel) are "
        "lower, also with θ* fixed across replicates: the spread comes from the data "
        "(docs/fidelity.md)"
    ),
}


def name_data_set(fig, bpaper: str, figure: str) -> None:
    """Write the figure's real data set (:data:`DATA_SETS`) above its panels and its note
    (:data:`NOTES`) below them, where it has one."""
    from matplotlib.figure import Figure

    _checks.instance(fig, "fig", Figure, "a matplotlib Figure")
    _checks.text(bpaper, "bpaper")
    _checks.text(figure, "figure")
    name = DATA_SETS.get((bpaper, figure))
    if name:
        fig.suptitle(name, fontsize=18)
    note = NOTES.get((bpaper, figure))
    if note:
        fig.supxlabel(note, fontsize=12)


#: panel keys that are options, not filters
_OPTIONS = ("metric", "title")
#: why two methods' lines coincide, said in the legend (B1 Figure 6 (c), (f))
SAME_LINE_REASONS = {
    frozenset(
        {"local_adrr", "local_classic_rr"}
    ): "one budget for all\nusers, nearly the same ranking",
}


def _label(key: str, value, labels: Mapping | None = None) -> str:
    if labels and str(value) in labels:
        return str(labels[str(value)])
    if key == "model":
        return str(value).upper()
    if key == "method":
        return method_label(value)
    sep = "" if key == "scheme" else "="
    return (
        f"{KEY_LABELS.get(key, key)}{sep}{value:g}"
        if isinstance(value, float)
        else (f"{KEY_LABELS.get(key, key)}{sep}{value}")
    )


def _matches(column: pd.Series, value) -> pd.Series:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return pd.Series(np.isclose(column.astype(float), float(value)), index=column.index)
    return column == value


def figure_data(summary: pd.DataFrame, spec: Mapping) -> pd.DataFrame:
    """The plotted rows (with a ``panel`` letter), in panel, series and L order.

    A panel keeps the rows of its ``metric`` and of every other key it names
    (``model``, ``eps``, ``m``, ...), and of the figure's ``methods`` (default
    ``["local_adrr"]``; B1 Figure 6 compares three).
    """
    _series(spec)
    filters = {k for panel in spec["panels"] for k in panel if k not in _OPTIONS}
    _checks.columns(summary, "summary", ("metric", "method", "L", *spec["series"], *filters))
    methods = spec.get("methods", ["local_adrr"])
    rows = []
    for letter, panel in zip("abcdefgh", spec["panels"], strict=False):
        d = summary[(summary["metric"] == panel["metric"]) & summary["method"].isin(methods)]
        for key, value in panel.items():
            if key not in _OPTIONS:
                d = d[_matches(d[key], value)]
        if d.empty:
            raise ValueError(f"panel ({letter}) {dict(panel)}: no rows match")
        rows.append(d.assign(panel=letter))
    data = pd.concat(rows, ignore_index=True)
    return data.sort_values(["panel", *spec["series"], "L"]).reset_index(drop=True)


def _series(spec) -> list:
    """``spec["series"]`` after checking that ``spec`` is a figure spec and its ``series``
    a non-empty list of column names."""
    _checks.figure_spec(spec, "spec", ("series",))
    series = spec["series"]
    if (
        not isinstance(series, (list, tuple))
        or not series
        or not all(isinstance(k, str) for k in series)
    ):
        raise TypeError(f"spec['series'] must be a non-empty list of column names, got {series!r}")
    return series


def _title(letter: str, panel: Mapping) -> str:
    if "title" in panel:
        return f"({letter}) {panel['title']}"
    parts = [_label(k, v) for k, v in panel.items() if k not in _OPTIONS]
    return f"({letter})" + (f" {', '.join(parts)}" if parts else "")


def _same_line_label(
    label: str, values: tuple, points: tuple, drawn: list, rtol: float = 0.02
) -> str:
    """A line's legend label, saying so where it lies on an earlier line (within ``rtol`` at
    every L: the two cannot be told apart in the figure) and, where known, why."""
    for other_values, other_label, other_points in drawn:
        if other_points[0] != points[0]:
            continue
        mine, theirs = np.asarray(points[1], float), np.asarray(other_points[1], float)
        if np.allclose(mine, theirs, rtol=rtol, atol=0.0):
            sign = "=" if np.array_equal(mine, theirs) else "≈"
            reason = SAME_LINE_REASONS.get(frozenset(map(str, (*values, *other_values))))
            under = other_label.split(" (")[0]
            return f"{label}\n({sign} {under}" + (f": {reason})" if reason else ")")
    return label


def _check_figure_data(data: pd.DataFrame, spec: Mapping) -> None:
    """The argument checks of :func:`draw_b2_figure`."""
    _series(spec)
    _checks.count(spec.get("ncols", 1), "spec['ncols']", 1)
    needed = ("panel", "L", "mean", *spec["series"], *(("se",) if spec.get("ci") else ()))
    _checks.columns(data, "data", needed)
    for letter, panel in zip("abcdefgh", spec["panels"], strict=False):
        if not (data["panel"] == letter).any():
            raise ValueError(f"data has no rows of panel ({letter}) {dict(panel)}")


def _draw_lines(ax, d: pd.DataFrame, spec: Mapping) -> list[tuple[tuple, str, tuple]]:
    """A panel's lines, one per series, with the published numbers where ``d`` has them.

    Returns ``(values, label, (L, mean))`` of each line drawn.
    """
    labels = spec.get("labels")
    groups = list(d[spec["series"]].drop_duplicates().itertuples(index=False))
    drawn: list[tuple[tuple, str, tuple]] = []  # (values, label, (L, mean)) per line
    styles = _series_styles(groups)
    for i, values in enumerate(groups):
        mask = (d[spec["series"]] == pd.Series(values, index=spec["series"])).all(axis=1)
        line = d[mask].sort_values("L")
        label = ", ".join(_label(k, v, labels) for k, v in zip(spec["series"], values, strict=True))
        points = (tuple(line["L"]), tuple(line["mean"]))
        label = _same_line_label(label, values, points, drawn)
        drawn.append((tuple(values), label, points))
        style = {**styles[i], "markersize": 7, "label": label}
        if spec.get("ci"):
            ax.errorbar(line["L"], line["mean"], yerr=1.96 * line["se"], capsize=3, **style)
        else:
            ax.plot(line["L"], line["mean"], **style)
        if "published" in line:  # the overlay version: the paper's numbers, hollow
            pub = line.dropna(subset=["published"])
            overlay_published(ax, pub["L"], pub["published"], style["color"], style["marker"])
    return drawn


def _dress_panel(ax, d: pd.DataFrame, panel: Mapping, letter: str, drawn: list) -> bool:
    """Axes, title and (where it fits) legend of one panel; True where the panel's legend
    must be the figure's instead (many lines or long labels)."""
    ticks = sorted(set(d["L"]))
    if ticks[-1] >= 8 * ticks[0]:  # doubling grids: equal spacing on a log axis
        ax.set_xscale("log", base=2)
        ax.minorticks_off()
    ax.set_xticks(ticks, [f"{v:g}" for v in ticks])
    ax.set_xlabel("L")
    ax.set_ylabel(METRIC_LABELS.get(panel["metric"], panel["metric"]))
    longest = max(len(t) for _, text, _ in drawn for t in text.split("\n"))
    shared = len(drawn) > _SHARED_LEGEND or longest > _LONG_LABEL
    if not shared and "published" in d:
        published_legend(ax)
    elif not shared:
        ax.legend(loc="best", fontsize=9)
    ax.set_title(_title(letter, panel), loc="left", fontsize=18, fontweight="bold")
    return shared


def _figure_legend(fig, shared, data: pd.DataFrame) -> None:
    """The legend of panel ``shared`` as the figure's: in rows of three under the panels
    where a label is long, else beside them."""
    handles, texts = shared.get_legend_handles_labels()
    if "published" in data:
        handles.append(hollow_marker())
        texts.append("published (hollow)")
    if max(len(t) for text in texts for t in text.split("\n")) > _LONG_LABEL:
        fig.legend(  # long labels: in rows of three under the panels
            handles,
            texts,
            loc="outside lower center",
            ncols=min(len(texts), 3),
            fontsize=12,
            frameon=False,
        )
    else:
        fig.legend(handles, texts, loc="outside right upper", fontsize=12, frameon=False)


def draw_b2_figure(data: pd.DataFrame, spec: Mapping):
    """One panel per configured filter: error against L, a line per series.

    ``spec["ci"]`` adds 95% confidence bars (``mean +- 1.96 se``, B1's figures);
    ``spec["ncols"]`` wraps the panels into rows; ``spec["labels"]`` renames
    series values in the legend (e.g. ``local_adrr`` -> ``Debiased RR`` in B1).
    """
    _check_figure_data(data, spec)
    n = len(spec["panels"])
    ncols = int(spec.get("ncols", n))
    nrows = -(-n // ncols)
    with authors_style():
        fig, axes = panel_grid(nrows, ncols)
        for ax in axes.flat[n:]:
            ax.remove()
        shared = None  # the panel whose legend is the figure's
        for ax, letter, panel in zip(axes.flat, "abcdefgh", spec["panels"], strict=False):
            d = data[data["panel"] == letter]
            drawn = _draw_lines(ax, d, spec)
            if _dress_panel(ax, d, panel, letter, drawn):
                shared = ax
        if shared is not None:
            _figure_legend(fig, shared, data)
    return fig


#: more lines than this share one legend beside the panels
_SHARED_LEGEND = 4
#: a legend line longer than this (B1's schemes with their epsilon formulas) covers the data
#: inside a panel: the panels share one legend, in rows under them
_LONG_LABEL = 40


def _series_styles(groups: list) -> list[dict]:
    """Colour, marker and line style of each line.

    With two series keys (scheme and m, m and Delta) the colour follows the first key and
    the marker the second, so that every legend entry differs in colour or shape (a dash
    does not show in a legend); with one key, each line its own colour and marker.
    """
    if groups and len(groups[0]) == 2:
        first = list(dict.fromkeys(g[0] for g in groups))
        second = list(dict.fromkeys(g[1] for g in groups))
        return [
            {
                "color": COLORS[first.index(g[0]) % len(COLORS)],
                "marker": MARKERS[second.index(g[1]) % len(MARKERS)],
                "linestyle": "-",
            }
            for g in groups
        ]
    return [
        {
            "color": COLORS[i % len(COLORS)],
            "marker": MARKERS[i % len(MARKERS)],
            "linestyle": ("-", "--", ":")[(i // len(COLORS)) % 3],
        }
        for i in range(len(groups))
    ]
