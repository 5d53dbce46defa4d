"""Figures 1-8 of Paper A from the aggregated summaries.

Each paper figure is one file with all its panels, labelled (a)-(d) in the
paper's order (docs/papers/paper-a.md#a1: (a) log relative l2, (b) log
relative l_inf, (c) Hamming via estimation, (d) Hamming via counting), in the
authors' plot style (section 2.8): errorbar lines with zero-height caps,
markers o/s/D/^, x ticks at the plotted values, no error bars. The panels of each figure
are declared in ``workflow/papers/paper_a.yaml``; the rule passes a figure's settings to
:func:`figure_data` and :func:`draw_figure` (:func:`figure_panels` reads them).
"""

from __future__ import annotations

import string
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from dprank.base import checks as _checks

from .style import COLORS, MARKERS, authors_style, method_label, overlay_published, panel_grid

__all__ = ["PANEL_KEYS", "Panel", "draw_figure", "figure_data", "figure_panels", "protocols_agree"]


@dataclass(frozen=True)
class Panel:
    """One panel: which summary rows it plots and how.

    ``series`` is a column (``epsilon``, ``p``) or ``"method"``; ``methods``
    lists the methods (one unless ``series == "method"``).
    """

    letter: str
    experiment: int  # index into the figure's experiments
    methods: tuple[str, ...]
    metric: str
    x: str
    series: str
    xlabel: str
    ylabel: str
    ylim: tuple[float | None, float | None] | None = None
    at_epsilon: bool = False  # restrict to the figure's configured epsilon
    series_format: str = "float"  # legend values: "float" (1.0, inf) or "g" (1, inf)
    xtick_format: str = "g"  # format spec of the x tick labels
    method_labels: tuple[tuple[str, str], ...] = ()  # legend labels overriding Method.label
    capsize: float = 2.0
    title: str = ""  # after the panel letter (Figure 8: the data set)


#: Keys of a declared panel that a figure's settings may also give beside ``panels`` (for
#: every panel that does not set its own); a panel alone adds ``experiment`` and ``title``.
PANEL_KEYS = (
    "metric",
    "methods",
    "x",
    "series",
    "xlabel",
    "ylabel",
    "ylim",
    "series_format",
    "xtick_format",
    "labels",
    "capsize",
    "at_epsilon",
)
_REQUIRED = ("metric", "methods", "x", "series", "ylabel")


def figure_panels(settings: Mapping) -> tuple[Panel, ...]:
    """The panels of a figure from its declared settings (``workflow/papers/paper_a.yaml``).

    Parameters
    ----------
    settings : mapping
        The figure's settings as the rule passes them: ``experiments`` (panel order) and
        ``panels``, a list of mappings with the keys of :data:`PANEL_KEYS` (``metric``,
        ``methods``, ``x``, ``series``, ``ylabel`` required; ``xlabel`` defaults to ``x``),
        ``experiment`` (one of ``experiments``, default the first) and ``title``. A key of
        :data:`PANEL_KEYS` given in ``settings`` beside ``panels`` holds for every panel that
        does not set its own.

    Returns
    -------
    tuple of Panel
        Lettered (a), (b), ... in order.
    """
    return _panels(settings, "settings")


def _panels(settings, name: str) -> tuple[Panel, ...]:
    _checks.mapping(settings, name, ("experiments", "panels"))
    experiments = _checks.strings(settings["experiments"], f"{name}['experiments']")
    specs = settings["panels"]
    if isinstance(specs, (str, bytes, Mapping)) or not isinstance(specs, Sequence) or not specs:
        raise ValueError(f"{name}['panels'] must be a non-empty list of panels, got {specs!r}")
    shared = {k: settings[k] for k in PANEL_KEYS if k in settings}
    panels = []
    for i, spec in enumerate(specs):
        where = f"{name}['panels'][{i}]"
        keys = {**shared, **_checks.mapping(spec, where)}
        missing = [k for k in _REQUIRED if k not in keys]
        if missing:
            raise ValueError(f"{where} lacks the key(s) {missing}, its own or the figure's")
        experiment = keys.get("experiment", experiments[0] if experiments else None)
        if experiment not in experiments:
            raise ValueError(
                f"{where}['experiment'] must be one of {name}['experiments'] {experiments}, "
                f"got {experiment!r}"
            )
        ylim = keys.get("ylim")
        panels.append(
            Panel(
                letter=string.ascii_lowercase[i],
                experiment=experiments.index(experiment),
                methods=tuple(_checks.strings(keys["methods"], f"{where}['methods']")),
                metric=_checks.text(keys["metric"], f"{where}['metric']"),
                x=_checks.text(keys["x"], f"{where}['x']"),
                series=_checks.text(keys["series"], f"{where}['series']"),
                xlabel=_checks.text(keys.get("xlabel", keys["x"]), f"{where}['xlabel']"),
                ylabel=_checks.text(keys["ylabel"], f"{where}['ylabel']"),
                ylim=None if ylim is None else tuple(ylim),
                at_epsilon=bool(keys.get("at_epsilon", False)),
                series_format=keys.get("series_format", "float"),
                xtick_format=keys.get("xtick_format", "g"),
                method_labels=tuple(dict(keys.get("labels") or {}).items()),
                capsize=keys.get("capsize", 2.0),
                title=keys.get("title", ""),
            )
        )
    return tuple(panels)


def _series_label(series: str, value, series_format: str = "float", labels=()) -> str:
    if series == "method":
        return dict(labels).get(value) or method_label(value)
    symbol = {"epsilon": "ε", "p": "p", "n": "n", "m": "m"}.get(series, series)
    if series in ("n", "m"):
        return f"{symbol}={int(float(value))}"
    text = f"{float(value):g}" if series_format == "g" else f"{float(value)}"
    return f"{symbol}={text}"


def figure_data(
    figure: str, summaries: Sequence[pd.DataFrame], fig_cfg: Mapping, protocol: str
) -> pd.DataFrame:
    """The rows a figure plots, as a tidy table (also written beside the figure).

    Parameters
    ----------
    figure : str
        The figure's name (``"fig1"`` ...), written into the table.
    summaries : list of DataFrame
        Aggregated summaries of the figure's experiments, in config order.
    fig_cfg : mapping
        The figure's declared settings (``workflow/papers/paper_a.yaml``, as the rule passes
        them): ``experiments`` and ``panels`` (:func:`figure_panels`), the ``x_values`` subset
        and the ``epsilon`` of the panels drawn at one epsilon (Figure 4 (a)).
    protocol : str
        Protocol label written into the table.
    """
    _checks.text(figure, "figure")
    panels = _panels(fig_cfg, "fig_cfg")
    needed = 1 + max(p.experiment for p in panels)
    if isinstance(summaries, (str, bytes, Mapping)) or not isinstance(summaries, Sequence):
        raise TypeError(f"summaries must be a list of DataFrames, got {type(summaries).__name__}")
    if len(summaries) < needed:
        raise ValueError(
            f"summaries must hold {needed} summaries for {figure}, got {len(summaries)}"
        )
    for p in panels:
        cols = ["method", "metric", p.x, "mean", "sd", "se", "reps"]
        cols += [] if p.series == "method" else [p.series]
        cols += ["epsilon"] if p.at_epsilon or p.x == "epsilon" else []
        _checks.columns(summaries[p.experiment], f"summaries[{p.experiment}]", cols)
    _checks.text(protocol, "protocol")
    rows = []
    x_values = fig_cfg.get("x_values")
    for panel in panels:
        s = summaries[panel.experiment]
        s = s[s["method"].isin(panel.methods) & (s["metric"] == panel.metric)]
        if panel.at_epsilon and fig_cfg.get("epsilon") is not None:
            s = s[np.isclose(s["epsilon"], float(fig_cfg["epsilon"]))]
        if x_values:
            keep = np.isclose(
                s[panel.x].to_numpy(float)[:, None], np.asarray(x_values, float)[None, :]
            ).any(axis=1)
            if keep.any():  # a smoke grid may hold none of the paper's subset: then plot all
                s = s[keep]
        if panel.x == "epsilon":
            s = s[
                np.isfinite(s["epsilon"])
            ]  # the authors plotted no epsilon = inf point against epsilon
        s = s.assign(
            figure=figure,
            panel=panel.letter,
            protocol=protocol,
            x_var=panel.x,
            x=s[panel.x].astype(float),
            series_var=panel.series,
            series=s[panel.series].astype(str)
            if panel.series == "method"
            else s[panel.series].astype(float),
        )
        rows.append(s)
    cols = ["figure", "panel", "protocol", "x_var", "x", "series_var", "series", "method", "metric"]
    cols += ["mean", "sd", "se", "reps"]
    return pd.concat(rows, ignore_index=True)[cols]


def _crowded(ticks, min_gap: float = 0.1) -> bool:
    """Whether neighbouring tick labels would overlap (gap below ``min_gap`` of the range)."""
    if len(ticks) < 2:
        return False
    gaps = np.diff(ticks) / (ticks[-1] - ticks[0])
    return bool(gaps.min() < min_gap)


def _tick_labels(ticks, fmt: str, min_gap: float = 0.1) -> list[str]:
    """Tick labels; a label too close to the one before it moves one line down (staggered),
    so that e.g. epsilon = 0.5 and 1 on a 0-10 axis do not overlap."""
    labels = [format(t, fmt) for t in ticks]
    if not _crowded(ticks, min_gap):
        return labels
    span = ticks[-1] - ticks[0]
    lowered = False
    for i in range(1, len(ticks)):
        lowered = (ticks[i] - ticks[i - 1]) / span < min_gap and not lowered
        if lowered:
            labels[i] = "\n" + labels[i]
    return labels


def protocols_agree(figure: str, datas: Mapping[str, pd.DataFrame]) -> None:
    """Check that every protocol plots the same numbers (a figure drawn once for all).

    Raises
    ------
    ValueError
        Naming the first panel, series and x where two protocols' means differ.
    """
    _checks.text(figure, "figure")
    _checks.mapping(datas, "datas")
    if not datas:
        raise ValueError("datas must hold at least one protocol's figure data, got none")
    columns = ["panel", "x_var", "x", "series_var", "series", "method", "metric", "mean"]
    for protocol, data in datas.items():
        _checks.columns(data, f"datas[{protocol!r}]", columns)
    columns = ["panel", "x_var", "x", "series_var", "series", "method", "metric", "mean"]
    (first, base), *others = datas.items()
    for protocol, other in others:
        a = base[columns].reset_index(drop=True)
        b = other[columns].reset_index(drop=True)
        if a.shape == b.shape and a.equals(b):
            continue
        diff = a.merge(b, how="outer", indicator=True).query("_merge != 'both'")
        where = diff.iloc[0].to_dict() if len(diff) else {}
        raise ValueError(
            f"{figure}: protocols {first!r} and {protocol!r} plot different means "
            f"(first difference: {where}); draw one figure per protocol (single: false for "
            f"{figure} in workflow/papers/paper_a.yaml)"
        )


def _figure_legend(fig, axes, published: bool) -> None:
    """One legend beside the panels (every panel plots the same series), off the data.

    A label a panel spells its own way (Figure 8's capitalisation) keeps the first spelling.
    """
    entries: dict[str, object] = {}
    for ax in axes:
        for handle, label in zip(*ax.get_legend_handles_labels(), strict=True):
            entries.setdefault(label.lower(), (handle, label))
    handles = [h for h, _ in entries.values()]
    labels = [lab for _, lab in entries.values()]
    if published:
        from .style import hollow_marker

        handles.append(hollow_marker())
        labels.append("published (hollow)")
    fig.legend(handles, labels, loc="outside right upper", frameon=False)


def _grid(settings: Mapping, count: int) -> tuple[int, int]:
    """(rows, columns) of ``count`` panels, ``settings['ncols']`` (default 2) per row."""
    ncols = min(_checks.count(settings.get("ncols", 2), "settings['ncols']", 1), count)
    return -(-count // ncols), ncols


def _dress(ax, panel: Panel, ticks: list) -> None:
    """A panel's x ticks at the plotted values, its axis labels, y limits and lettered title."""
    ax.set_xticks(ticks, _tick_labels(ticks, panel.xtick_format))
    ax.set_xlabel(panel.xlabel)
    ax.set_ylabel(panel.ylabel)
    if panel.ylim is not None:
        ax.set_ylim(*panel.ylim)
        bottom, top = ax.get_ylim()
        if bottom == 0.0:  # the authors' floor: leave room for markers at 0
            ax.set_ylim(-0.03 * top, top)
    title = f"({panel.letter}) {panel.title}".strip()
    ax.set_title(title, loc="left", fontsize=18, fontweight="bold")


def draw_figure(
    figure: str,
    data: pd.DataFrame,
    settings: Mapping,
    published: pd.DataFrame | None = None,
    protocols: str | None = None,
):
    """Draw the figure from :func:`figure_data`'s table; returns the matplotlib Figure.

    ``settings`` are the figure's declared settings (its ``panels``, :func:`figure_panels`,
    and ``ncols``, the panels per row, default 2: ceil(panels / ncols) rows).
    ``published`` (columns ``panel, series, x, value``) adds the published points as
    hollow markers in each series' colour (the overlay version of the figure).
    ``protocols`` (e.g. ``"paper = authors"``) says below the panels that one figure
    stands for these protocols, whose means are equal.
    """
    _checks.text(figure, "figure")
    _checks.columns(data, "data", ("panel", "series", "x", "mean"))
    panels = _panels(settings, "settings")
    nrows, ncols = _grid(settings, len(panels))
    if published is not None:
        _checks.columns(published, "published", ("panel", "series", "x", "value"))
    if protocols is not None:
        _checks.text(protocols, "protocols")
    with authors_style():
        fig, axes = panel_grid(nrows, ncols)
        for ax, panel in zip(axes.ravel(), panels, strict=False):
            d = data[data["panel"] == panel.letter]
            if panel.series == "method":
                series_values = [m for m in panel.methods if m in set(d["series"])]
            else:
                series_values = sorted(set(d["series"]))
            for i, value in enumerate(series_values):
                sd = d[d["series"] == value].sort_values("x")
                ax.errorbar(
                    sd["x"],
                    sd["mean"],
                    yerr=np.zeros(len(sd)),
                    marker=MARKERS[i % len(MARKERS)],
                    markersize=10,
                    capsize=panel.capsize,
                    linestyle="-",
                    color=COLORS[i % len(COLORS)],
                    label=_series_label(
                        panel.series, value, panel.series_format, panel.method_labels
                    ),
                )
                if published is not None:
                    pp = published[
                        (published["panel"] == panel.letter)
                        & np.isclose(published["series"].astype(float), float(value))
                        if panel.series != "method"
                        else (published["panel"] == panel.letter) & (published["series"] == value)
                    ]
                    overlay_published(
                        ax, pp["x"], pp["value"], COLORS[i % len(COLORS)], MARKERS[i % len(MARKERS)]
                    )
            _dress(ax, panel, sorted(set(d["x"])))
        for ax in axes.ravel()[len(panels) :]:
            ax.set_visible(False)
        _figure_legend(fig, axes.ravel()[: len(panels)], published is not None)
        if protocols:
            fig.supxlabel(
                f"Protocols {protocols}: equal means (their one difference, the ridge of the "
                "non-private reference fit, does not change its ranking here)",
                fontsize=11,
            )
    return fig
