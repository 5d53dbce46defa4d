"""Paper B (B2) figures of distributions over replicates: boxplots and scatter bands.

Input frames are tidy per-replicate rows with columns ``replicate``, ``metric``,
``value``, ``method`` and the cell keys (among ``model``, ``m``, ``L``, ``p``).

* Boxplots (docs/papers/paper-b.md#s2): B2 Figure 3 (smallest Hessian
  eigenvalue against m and against p), Figures 8 and 13 (estimation error per
  method in Scenario V), Figure 9 (full ranking error, ADRR against Count) and
  Figure 10 (runtime against L, a box per m, log scale).
* Scatter with prediction bands: B2 Figures 5 and 14 (error of each replicate
  against ``B(ε)^{-1/2}`` with the OLS line, the 95% prediction band and
  Pearson's ``r``; the paper reports "all correlation coefficients > 0.9").

Panel dicts name a ``metric`` and equality filters on same-named columns (e.g.
``"model": "btl"``, ``"method": "local_adrr"``, ``"p": 0.8``; numbers are compared with
a relative tolerance, a list or tuple means "any of"). The keys ``title``, ``x``,
``hue`` and ``logy`` are options, not filters.
"""

from __future__ import annotations

import math
import string
from collections.abc import Mapping, Sequence
from numbers import Number

import numpy as np
import pandas as pd

from dprank.base import checks as _checks
from dprank.fit.metrics_b import prediction_band

from .paper_b import METRIC_LABELS as _B2_METRIC_LABELS
from .style import COLORS, MARKERS, authors_style, overlay_published, panel_grid, published_legend

__all__ = [
    "DEFAULT_ORDER",
    "METRIC_LABELS",
    "box_data",
    "draw_boxplots",
    "draw_scatter_bands",
    "scatter_data",
]

METRIC_LABELS = {
    **_B2_METRIC_LABELS,
    "hessian_min_eig": r"$\Lambda_{\min,\perp}(\nabla^2 L_0)$",
    "kendall_tau_K": "Full ranking error K",
    "seconds": "Runtime (s)",
    "seconds_total": "Runtime (s)",
    "seconds_aggregate": "Aggregation time (s)",
    "seconds_solve": "Solver time (s)",
    "B": r"$B(\varepsilon)$",
}
#: axis / legend names of the keys; methods and models need no axis label
KEY_LABELS = {"m": "m", "p": "p", "L": "L", "method": "", "model": "", "delta": "Δ"}
#: order of string values along an axis (the paper's order); other values follow, sorted
DEFAULT_ORDER = {
    "method": ("local_adrr", "edge_noisy_obj", "local_laplace", "local_classic_rr", "local_count"),
    "model": ("btl", "tm"),
}
#: panel keys that are options rather than row filters
_OPTIONS = frozenset({"metric", "title", "x", "hue", "logy"})
_LETTERS = string.ascii_lowercase
_RTOL, _ATOL = 1e-9, 1e-12
#: the text size of the panel titles (as in paper_b)
_TITLE_SIZE = 18


# ---------------------------------------------------------------- helpers


def _letters(panels: Sequence[Mapping]) -> str:
    if not panels:
        raise ValueError("spec has no panels")
    if len(panels) > len(_LETTERS):
        raise ValueError(f"at most {len(_LETTERS)} panels, got {len(panels)}")
    return _LETTERS[: len(panels)]


def _is_number(value) -> bool:
    return isinstance(value, Number) and not isinstance(value, bool)


def _matches(column: pd.Series, value) -> pd.Series:
    """Rows of ``column`` equal to ``value`` (numbers up to a relative tolerance)."""
    if isinstance(value, list | tuple | set | frozenset):
        mask = pd.Series(False, index=column.index)
        for v in value:
            mask |= _matches(column, v)
        return mask
    if _is_number(value):
        numbers = pd.to_numeric(column, errors="coerce").to_numpy(dtype=float)
        close = np.isclose(numbers, float(value), rtol=_RTOL, atol=_ATOL)
        return pd.Series(close, index=column.index)
    return column == value


def _select(frame: pd.DataFrame, panel: Mapping, letter: str) -> pd.DataFrame:
    """The rows of one panel: its metric and every filter key; empty is an error."""
    if "metric" not in panel:
        raise ValueError(f"panel ({letter}) {dict(panel)} has no 'metric'")
    mask = frame["metric"] == panel["metric"]
    for key, value in panel.items():
        if key in _OPTIONS:
            continue
        if key not in frame.columns:
            raise ValueError(f"panel ({letter}) {dict(panel)} filters on missing column {key!r}")
        mask &= _matches(frame[key], value)
    rows = frame[mask]
    if rows.empty:
        raise ValueError(f"panel ({letter}) {dict(panel)}: no rows match")
    return rows


def _order(values, key: str, spec: Mapping) -> list:
    """Distinct ``values`` in plotting order: numbers ascending; strings in the
    configured (``spec["order"][key]``) or default order, the others after, sorted."""
    distinct = list(pd.unique(pd.Series(list(values))))
    if all(_is_number(v) for v in distinct):
        return sorted(distinct)
    preferred = list(spec.get("order", {}).get(key, DEFAULT_ORDER.get(key, ())))
    first = [v for v in preferred if v in distinct]
    rest = sorted((v for v in distinct if v not in first), key=str)
    return first + rest


def _rank(column: pd.Series, order: list) -> pd.Series:
    position = {v: i for i, v in enumerate(order)}
    return column.map(position)


def _value_text(key: str, value) -> str:
    """A tick or legend text: numbers with ``:g``, models upper case, names as given."""
    if key == "model":
        return str(value).upper()
    if _is_number(value):
        return f"{value:g}"
    if key == "method":  # as the papers name them: "Classic RR", "Count Method"
        from dprank_papers.tables import paper_label

        return paper_label(str(value))
    return str(value)


def _panel_title(letter: str, panel: Mapping) -> str:
    if "title" in panel:
        suffix = f" {panel['title']}"
    elif "model" in panel and isinstance(panel["model"], str):
        suffix = f" {panel['model'].upper()}"
    else:
        suffix = ""
    return f"({letter}){suffix}"


def _panel_rows(data: pd.DataFrame, letter: str, panel: Mapping) -> pd.DataFrame:
    rows = data[data["panel"] == letter]
    if rows.empty:
        raise ValueError(f"panel ({letter}) {dict(panel)}: no rows in the data")
    return rows


# ---------------------------------------------------------------- boxplots


def _axes_keys(spec: Mapping, panel: Mapping, letter: str) -> tuple[str, str | None]:
    x = panel.get("x", spec.get("x"))
    if x is None:
        raise ValueError(f"panel ({letter}) {dict(panel)}: no x key (spec['x'] or panel['x'])")
    return x, panel.get("hue", spec.get("hue"))


def box_data(replicates: pd.DataFrame, spec: Mapping) -> pd.DataFrame:
    """The rows of each boxplot panel (B2 Figures 3, 8, 9, 10 and 13).

    Parameters
    ----------
    replicates : pandas.DataFrame
        Tidy per-replicate rows: ``replicate, metric, value, method`` and cell keys.
    spec : Mapping
        ``{"panels": [{"metric": ..., <filters>, "title"?, "x"?, "hue"?}, ...],
        "x": key, "hue"?: key, "logy"?: bool, "order"?: {key: [values]}}``. Every
        panel key other than ``metric``, ``title``, ``x``, ``hue`` and ``logy`` is an
        equality filter on the same-named column (numbers compared with a relative
        tolerance of 1e-9; a list means any of its values). ``panel["x"]`` and
        ``panel["hue"]`` override ``spec["x"]`` and ``spec["hue"]``.

    Returns
    -------
    pandas.DataFrame
        The selected rows plus a ``panel`` letter (``"a"``, ``"b"``, ...), sorted by
        panel, then by the panel's x and hue (numbers ascending; methods in the order
        local_adrr, edge_noisy_obj, local_laplace, local_classic_rr, local_count unless
        ``spec["order"]`` says otherwise) and replicate.

    Raises
    ------
    ValueError
        If a panel matches no rows, filters on a missing column, or has no x key.
    """
    _checks.figure_spec(spec, "spec")
    _checks.columns(replicates, "replicates", ("replicate", "metric", "value"))
    parts = []
    for letter, panel in zip(_letters(spec["panels"]), spec["panels"], strict=True):
        rows = _select(replicates, panel, letter)
        x, hue = _axes_keys(spec, panel, letter)
        for key in (x, hue):
            if key is not None and key not in rows.columns:
                raise ValueError(f"panel ({letter}) {dict(panel)}: no column {key!r}")
        keys = {"_x": _rank(rows[x], _order(rows[x], x, spec))}
        if hue is not None:
            keys["_hue"] = _rank(rows[hue], _order(rows[hue], hue, spec))
        rows = rows.assign(panel=letter, **keys)
        rows = rows.sort_values([*keys, "replicate"], kind="stable")
        parts.append(rows.drop(columns=list(keys)))
    return pd.concat(parts, ignore_index=True)


def _boxes(ax, groups: list, positions: list, width: float, color: str, marker_size: float) -> None:
    """Boxes at ``positions`` with the mean of each as a white diamond."""
    ax.boxplot(
        groups,
        positions=positions,
        widths=width,
        patch_artist=True,
        showmeans=True,
        manage_ticks=False,
        boxprops={"facecolor": color, "alpha": 0.75, "edgecolor": "black", "linewidth": 1.2},
        medianprops={"color": "black", "linewidth": 1.5},
        whiskerprops={"color": "black", "linewidth": 1.2},
        capprops={"color": "black", "linewidth": 1.2},
        flierprops={"marker": "o", "markersize": 3, "markerfacecolor": color, "alpha": 0.6},
        meanprops={
            "marker": "D",
            "markerfacecolor": "white",
            "markeredgecolor": "black",
            "markersize": marker_size,
        },
    )


def _draw_box_groups(
    ax, rows: pd.DataFrame, spec: Mapping, panel: Mapping, letter: str, legend: dict
) -> tuple[str, list]:
    """The boxes of one panel: per x group, the boxes of the hue values side by side.

    Adds each hue value's ``(colour, label)`` to ``legend``; returns the x key and
    its values in axis order.
    """
    x, hue = _axes_keys(spec, panel, letter)
    xs = _order(rows[x], x, spec)
    hues = [None] if hue is None else _order(rows[hue], hue, spec)
    width = 0.8 / len(hues)
    for j, h in enumerate(hues):
        color = COLORS[j % len(COLORS)]
        groups, positions = [], []
        for i, xv in enumerate(xs):
            mask = _matches(rows[x], xv)
            if h is not None:
                mask &= _matches(rows[hue], h)
            values = rows.loc[mask, "value"].dropna().to_numpy(dtype=float)
            if values.size:
                groups.append(values)
                positions.append(i + (j - (len(hues) - 1) / 2) * width)
        if groups:
            _boxes(ax, groups, positions, width * 0.85, color, 7 if hue is None else 4.5)
        if h is not None:
            name = KEY_LABELS.get(hue, hue)
            text = _value_text(hue, h)
            label = f"{name}={text}" if name else text
            legend.setdefault(label, (color, label))
    return x, xs


def _overlay_published_means(ax, published: pd.DataFrame, letter: str, xs: list) -> None:
    """The overlay version: the paper's mean of each x group, hollow, and its legend."""
    pp = published[published["panel"] == letter]
    for i, xv in enumerate(xs):
        v = pp[pp["x"] == xv]["value"]
        if len(v):
            overlay_published(ax, [i], [float(v.iloc[0])], "black", "o")
    published_legend(ax)


def _dress_box_panel(
    ax, rows: pd.DataFrame, spec: Mapping, panel: Mapping, letter: str, x: str, xs: list
) -> None:
    """Ticks, limits, y scale, labels and title of one boxplot panel."""
    ax.set_xticks(range(len(xs)), [_value_text(x, v) for v in xs])
    ax.set_xlim(-0.6, len(xs) - 0.4)
    if panel.get("logy", spec.get("logy", False)):
        ax.set_yscale("log")
    else:
        _clip_outliers(ax, rows["value"].to_numpy(dtype=float))
    ax.set_xlabel(KEY_LABELS.get(x, x))
    ax.set_ylabel(METRIC_LABELS.get(panel["metric"], panel["metric"]))
    ax.set_title(_panel_title(letter, panel), loc="left", fontsize=_TITLE_SIZE, fontweight="bold")
    if len(xs) > 6 and any(len(_value_text(x, v)) > 4 for v in xs):
        ax.tick_params(axis="x", labelrotation=30)


def _box_legend(fig, legend: dict, n: int) -> None:
    """One legend above the panels: a patch per hue value and the mean's diamond."""
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    handles = [
        Patch(facecolor=c, edgecolor="black", alpha=0.75, label=lab) for c, lab in legend.values()
    ]
    handles.append(
        Line2D(
            [],
            [],
            linestyle="none",
            marker="D",
            markerfacecolor="white",
            markeredgecolor="black",
            markersize=7,
            label="mean over replicates",
        )
    )
    fig.legend(
        handles=handles,
        loc="outside upper center",
        ncol=min(len(handles), 3 * n),
        frameon=False,
    )


def draw_boxplots(data: pd.DataFrame, spec: Mapping, published: pd.DataFrame | None = None):
    """One row of boxplot panels over replicates (B2 Figures 3, 8, 9, 10 and 13).

    Each panel has one box per x value; with a hue key, the boxes of the hue values
    stand side by side within each x group, coloured from :data:`COLORS`, with one
    legend above the panels. The replicate mean is a white diamond on each box.

    Parameters
    ----------
    data : pandas.DataFrame
        Output of :func:`box_data` for the same ``spec``.
    spec : Mapping
        As for :func:`box_data`; ``logy`` (spec level, or per panel) draws a log y axis.

    Returns
    -------
    matplotlib.figure.Figure
    """
    _checks.figure_spec(spec, "spec")
    _checks.columns(data, "data", ("panel", "value"))
    if published is not None:
        _checks.columns(published, "published", ("panel", "x", "value"))
    panels = spec["panels"]
    n = len(panels)
    legend: dict[str, tuple[str, str]] = {}
    with authors_style():
        fig, axes = panel_grid(1, n)
        for ax, letter, panel in zip(axes[0], _letters(panels), panels, strict=True):
            rows = _panel_rows(data, letter, panel)
            x, xs = _draw_box_groups(ax, rows, spec, panel, letter, legend)
            if published is not None:
                _overlay_published_means(ax, published, letter, xs)
            _dress_box_panel(ax, rows, spec, panel, letter, x, xs)
        _box_legend(fig, legend, n)
    return fig


def _clip_outliers(ax, values: np.ndarray, factor: float = 2.0) -> None:
    """Keep a few far replicates from flattening a panel: the y axis ends above the bulk
    (``factor`` times the 99th percentile) and a note says how many points lie above."""
    values = values[np.isfinite(values)]
    if values.size < 20:
        return
    bulk = float(np.quantile(values, 0.99))
    top = float(values.max())
    if bulk <= 0 or top <= factor * bulk:
        return
    limit = 1.15 * float(values[values <= factor * bulk].max())
    above = int((values > limit).sum())
    ax.set_ylim(top=limit)
    ax.text(
        0.98, 0.98, f"{above} replicate{'s' if above > 1 else ''} above, up to {top:.2g}",
        transform=ax.transAxes, ha="right", va="top", fontsize=11,
    )  # fmt: skip


# ---------------------------------------------------------------- scatter bands


def scatter_data(replicates: pd.DataFrame, spec: Mapping) -> pd.DataFrame:
    """Each replicate's error against ``B(ε)^{-1/2}`` (B2 Figures 5 and 14).

    Parameters
    ----------
    replicates : pandas.DataFrame
        Tidy per-replicate rows; besides the error metrics, one row per
        (cell, replicate) with ``metric == spec["x_metric"]`` holds ``B(ε)``.
    spec : Mapping
        ``{"panels": [{"metric": ..., <filters>, "title"?}, ...], "x_metric": "B",
        "ncols"?: int}``; filters as in :func:`box_data`.

    Returns
    -------
    pandas.DataFrame
        Columns ``panel, model, replicate, x, value`` with ``x = B ** -0.5`` of the
        replicate's B row in the same cell, i.e. joined on every column other than
        ``metric, method, value`` (the cell keys present) and ``replicate``. Sorted
        by panel and replicate.

    Raises
    ------
    ValueError
        If a panel matches no rows, a row has no B in its cell and replicate, a cell
        and replicate has two different B values, or a B is not positive.
    """
    _checks.figure_spec(spec, "spec")
    _checks.columns(replicates, "replicates", ("replicate", "metric", "value"))
    x_metric = spec.get("x_metric", "B")
    budget = replicates[replicates["metric"] == x_metric]
    if budget.empty:
        raise ValueError(f"no rows with metric == {x_metric!r} (the x of the scatter)")
    keys = [c for c in replicates.columns if c not in ("metric", "method", "value")]
    budget = budget[[*keys, "value"]].drop_duplicates()
    if budget.duplicated(keys).any():
        raise ValueError(f"different {x_metric!r} values for one cell and replicate")
    if not (budget["value"] > 0).all():
        raise ValueError(f"{x_metric!r} must be positive to take B ** -0.5")
    budget = budget.assign(x=budget["value"] ** -0.5).drop(columns="value")
    parts = []
    for letter, panel in zip(_letters(spec["panels"]), spec["panels"], strict=True):
        rows = _select(replicates, panel, letter)
        joined = rows.merge(budget, on=keys, how="left", validate="many_to_one")
        if joined["x"].isna().any():
            raise ValueError(f"panel ({letter}) {dict(panel)}: rows without {x_metric!r}")
        model = joined["model"] if "model" in joined else panel.get("model")
        parts.append(
            pd.DataFrame(
                {
                    "panel": letter,
                    "model": model,
                    "replicate": joined["replicate"].to_numpy(),
                    "x": joined["x"].to_numpy(dtype=float),
                    "value": joined["value"].to_numpy(dtype=float),
                }
            )
        )
    data = pd.concat(parts, ignore_index=True)
    return data.sort_values(["panel", "replicate"], kind="stable").reset_index(drop=True)


def _draw_scatter_band(ax, rows: pd.DataFrame, level: float):
    """One scatter panel's data: the band, the replicates, the OLS line, Pearson's r and
    the legend; returns the :func:`dprank.fit.metrics_b.prediction_band` result."""
    x = rows["x"].to_numpy(dtype=float)
    y = rows["value"].to_numpy(dtype=float)
    grid = np.linspace(x.min(), x.max(), 200)
    band = prediction_band(x, y, grid, level=level)
    ax.fill_between(
        grid,
        band.lower,
        band.upper,
        color=COLORS[0],
        alpha=0.2,
        lw=0,
        label=f"{level:.0%} prediction band",
    )
    ax.scatter(x, y, s=14, color=COLORS[0], marker=MARKERS[0], alpha=0.7, lw=0, label="replicates")
    ax.plot(grid, band.fit, color=COLORS[3], label="OLS fit")
    # r in the upper corner the line points away from, the legend in the lower one
    rising = band.slope >= 0
    ax.text(
        0.04 if rising else 0.96,
        0.95,
        f"r = {band.r:.2f}",
        transform=ax.transAxes,
        ha="left" if rising else "right",
        va="top",
        fontsize=16,
        bbox={"facecolor": "white", "edgecolor": "none", "alpha": 0.8},
    )
    ax.legend(loc="lower right" if rising else "lower left", fontsize=10)
    return band


def _fit_row(rows: pd.DataFrame, panel: Mapping, letter: str, band) -> dict:
    """The ``fits`` row of one scatter panel."""
    models = pd.unique(rows["model"].dropna()) if "model" in rows else []
    model = panel.get("model", models[0] if len(models) == 1 else None)
    return {
        "panel": letter,
        "metric": panel["metric"],
        "model": model,
        "n": band.n,
        "intercept": band.intercept,
        "slope": band.slope,
        "r": band.r,
    }


def draw_scatter_bands(data: pd.DataFrame, spec: Mapping):
    """Grid of scatters with the OLS line and the 95% prediction band (B2 Figs 5, 14).

    Each panel plots the replicates' errors against ``x = B(ε)^{-1/2}``, the OLS
    line and the shaded prediction band of :func:`dprank.fit.metrics_b.prediction_band`
    on a grid over the x range, and prints Pearson's ``r``.

    Parameters
    ----------
    data : pandas.DataFrame
        Output of :func:`scatter_data` for the same ``spec``.
    spec : Mapping
        As for :func:`scatter_data`; ``ncols`` (default 2) panels per row and
        ``level`` (default 0.95) the coverage of the band.

    Returns
    -------
    fig : matplotlib.figure.Figure
    fits : pandas.DataFrame
        One row per panel: ``panel, metric, model, n, intercept, slope, r``.
    """
    _checks.figure_spec(spec, "spec")
    _checks.count(spec.get("ncols", 2), "spec['ncols']", 1)
    _checks.probability(spec.get("level", 0.95), "spec['level']", low_open=True, high_open=True)
    _checks.columns(data, "data", ("panel", "x", "value"))
    panels = spec["panels"]
    n = len(panels)
    ncols = max(1, min(int(spec.get("ncols", 2)), n))
    nrows = math.ceil(n / ncols)
    level = float(spec.get("level", 0.95))
    fits = []
    with authors_style():
        fig, axes = panel_grid(nrows, ncols)
        for ax in axes.flat[n:]:
            fig.delaxes(ax)
        for ax, letter, panel in zip(axes.flat, _letters(panels), panels, strict=False):
            rows = _panel_rows(data, letter, panel)
            band = _draw_scatter_band(ax, rows, level)
            ax.set_xlabel(r"$B(\varepsilon)^{-1/2}$")
            ax.set_ylabel(METRIC_LABELS.get(panel["metric"], panel["metric"]))
            ax.set_title(
                _panel_title(letter, panel), loc="left", fontsize=_TITLE_SIZE, fontweight="bold"
            )
            fits.append(_fit_row(rows, panel, letter, band))
    return fig, pd.DataFrame(fits)
