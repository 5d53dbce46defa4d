"""Plot style of the Paper A authors' notebooks (docs/papers/paper-a.md#s2-8)."""

from __future__ import annotations

from contextlib import contextmanager

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt

from dprank.base import checks as _checks

__all__ = [
    "COLORS",
    "MARKERS",
    "PANEL_SIZE",
    "authors_style",
    "hollow_marker",
    "overlay_published",
    "panel_grid",
    "published_legend",
    "save_figure",
]

#: seaborn "colorblind" palette, first four colours
COLORS = ("#0173B2", "#DE8F05", "#029E73", "#D55E00", "#CC78BC", "#CA9161")
MARKERS = ("o", "s", "D", "^", "v", "P")
#: matplotlib's default figure size, the size of each of the authors' panels
PANEL_SIZE = (6.4, 4.8)

_RC = {
    "lines.linewidth": 2,
    "axes.linewidth": 3,
    "axes.labelsize": 18,
    "xtick.labelsize": 14,
    "ytick.labelsize": 14,
    "legend.fontsize": 14,
    "axes.prop_cycle": matplotlib.cycler(color=COLORS),
    "pdf.fonttype": 42,
    "svg.hashsalt": "dprank",
    "path.simplify": False,
}


def method_label(name) -> str:
    """The legend text of a method: its registered :attr:`dprank.methods.Method.label`.

    A name the registry does not hold (a plug-in gone from the registry) stays as it is.
    """
    from dprank.methods import UnknownMethodError, get_method

    try:
        return get_method(str(name)).label
    except UnknownMethodError:
        return str(name)


@contextmanager
def authors_style():
    """Temporarily apply the authors' rcParams."""
    with plt.rc_context(_RC):
        yield


def panel_grid(nrows: int, ncols: int):
    """``(fig, axes)``: an ``nrows x ncols`` grid of panels of :data:`PANEL_SIZE` each.

    ``axes`` is always 2-d; call inside :func:`authors_style` for the authors' look.
    """
    _checks.count(nrows, "nrows", 1)
    _checks.count(ncols, "ncols", 1)
    return plt.subplots(
        nrows,
        ncols,
        figsize=(PANEL_SIZE[0] * ncols, PANEL_SIZE[1] * nrows),
        layout="constrained",
        squeeze=False,
    )


def overlay_published(ax, x, y, color, marker: str = "o") -> None:
    """Published points as hollow markers over our curve (the comparison figures)."""
    _axes(ax)
    _checks.same_shape(_checks.reals(x, "x"), _checks.reals(y, "y"), "x and y")
    if not matplotlib.colors.is_color_like(color):
        raise ValueError(f"color must be a matplotlib colour, got {color!r}")
    _marker(marker)
    if len(x):
        ax.plot(
            x,
            y,
            linestyle="none",
            marker=marker,
            markersize=13,
            markerfacecolor="none",
            markeredgecolor=color,
            markeredgewidth=1.8,
            alpha=0.9,
        )


def hollow_marker():
    """The legend handle of the published points (a hollow black circle)."""
    from matplotlib.lines import Line2D

    return Line2D(
        [],
        [],
        linestyle="none",
        marker="o",
        markerfacecolor="none",
        markeredgecolor="black",
        markersize=10,
    )


def published_legend(ax) -> None:
    """Add a legend entry saying what the hollow markers are."""
    _axes(ax)
    handles, labels = ax.get_legend_handles_labels()
    marker = hollow_marker()
    ncol = 2 if len(handles) > 6 else 1
    ax.legend(
        [*handles, marker], [*labels, "published (hollow)"], loc="best", fontsize=9, ncol=ncol
    )


def save_figure(fig, pdf_path, png_path, dpi: int = 100) -> None:
    """Write a figure as PDF (no timestamp, so reruns give identical files) and PNG.

    The PNG is the screen copy the HTML report embeds (100 dpi keeps the report
    small); the PDF is the vector copy for print.
    """
    from matplotlib.figure import Figure

    _checks.instance(fig, "fig", Figure, "a matplotlib Figure")
    _checks.path(pdf_path, "pdf_path")
    _checks.path(png_path, "png_path")
    _checks.count(dpi, "dpi", 1)
    fig.savefig(
        pdf_path,
        format="pdf",
        bbox_inches="tight",
        metadata={"CreationDate": None, "Creator": "dprank"},
    )
    fig.savefig(
        png_path, format="png", bbox_inches="tight", dpi=dpi, metadata={"Software": "dprank"}
    )


def _axes(ax, name: str = "ax"):
    """``ax`` after checking that it is a matplotlib Axes."""
    from matplotlib.axes import Axes

    return _checks.instance(ax, name, Axes, "a matplotlib Axes")


def _marker(marker, name: str = "marker"):
    """``marker`` after checking that it is a matplotlib marker name (``"o"``, ``"s"``, ...)."""
    from matplotlib.lines import Line2D

    if not isinstance(marker, str) or marker not in Line2D.markers:
        raise ValueError(f"{name} must be a matplotlib marker such as 'o', got {marker!r}")
    return marker
