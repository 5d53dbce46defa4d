"""Tables in the layout of Paper B (Xu, Sun & Cheng), and a reader for its published numbers.

The paper prints each cell as ``mean (dispersion)`` with a fixed number of decimals: 4 in
B2 Tables 2, 3 and 5-11, 3 in Table 4 (proportions, no parenthetical); Table 2's p-values
have two significant digits (``5.5 × 10^-5``). The parenthetical is a sample SD over the
replicates in Tables 3 and 5-9 and a standard error of the mean in Tables 2, 10 and 11,
although the paper calls all of them "standard errors" (docs/papers/paper-b.md#s1-5 and
#a31); captions written here say which.

A *tidy* frame (one row per cell: row keys, column keys, ``mean``, ``dispersion``,
``dispersion_kind`` ``'sd'`` or ``'se'``) goes through :func:`pivot_table` to a frame of
formatted strings, which :func:`to_csv`, :func:`to_markdown` and :func:`to_latex` (booktabs)
write out. The writers are self-contained: no ``tabulate``, no jinja2.

:func:`read_published_table` turns any CSV of ``reference/paper-b/`` into a tidy frame with
the same column names, so published cells can be set beside reproduced ones.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from dprank.base import checks as _checks
from dprank.methods import get_method

from ._published_tables import (  # noqa: F401 (TIDY: the tidy frame's columns)
    KEY_COLUMNS,
    TIDY,
    car_ranking,
    scheme_behaviour,
    standard_rows,
    text_numbers,
)

__all__ = [
    "CODE_NAMES",
    "KEY_COLUMNS",
    "MISSING",
    "PAPER_LABELS",
    "PAPER_LAYOUTS",
    "PUBLISHED_DIGITS",
    "format_cell",
    "format_pvalue",
    "latex_escape",
    "order_rows",
    "paper_label",
    "paper_table",
    "pivot_table",
    "pvalue_text",
    "read_published_table",
    "to_csv",
    "to_html",
    "to_latex",
    "to_markdown",
]

#: What an empty or not-applicable cell shows (B2 Table 10 prints "–" for NoisyObj under TM).
MISSING = "–"

#: Decimals of the means and parentheticals as printed in each published table.
PUBLISHED_DIGITS: dict[str, int] = {
    "B2-Table1": 0,  # ranks
    "B2-Table2": 4,  # also the t statistics; p-values: see format_pvalue
    "B2-Table3": 4,
    "B2-Table4": 3,
    "B2-Table5": 4,
    "B2-Table6": 4,
    "B2-Table7": 4,
    "B2-Table8": 4,
    "B2-Table9": 4,
    "B2-Table10": 4,
    "B2-Table11": 4,
}

_KIND_NOTE = {"sd": "sample SD over replicates", "se": "standard error of the mean"}


def _is_missing(value: object) -> bool:
    if value is None or value is pd.NA:
        return True
    try:
        return math.isnan(value)  # type: ignore[arg-type]
    except TypeError:
        return False


def _fixed(value: float, digits: int) -> str:
    text = f"{float(value):.{digits}f}"
    if text.startswith("-") and float(text) == 0.0:  # no "-0.0000"
        text = text[1:]
    return text


def format_cell(mean: float, disp: float | None, digits: int, missing: str = MISSING) -> str:
    """One table cell as the paper prints it: ``"0.0757 (0.0030)"``.

    Parameters
    ----------
    mean : float
        The cell's mean; NaN or None gives ``missing``.
    disp : float or None
        The parenthetical (SD or SE); NaN or None prints the mean alone (``"0.630"``).
    digits : int
        Decimals of both numbers (4 in most B2 tables, 3 in Table 4).
    missing : str, default "–"
        Text of an empty cell.
    """
    _checks.count(digits, "digits")
    _checks.text(missing, "missing")
    for _name, _value in (("mean", mean), ("disp", disp)):
        if not _is_missing(_value):
            _checks.real(_value, _name)
    if _is_missing(mean):
        return missing
    if _is_missing(disp):
        return _fixed(mean, digits)
    return f"{_fixed(mean, digits)} ({_fixed(disp, digits)})"


def format_pvalue(p: float, sig: int = 2, missing: str = MISSING) -> str:
    """A p-value with ``sig`` significant digits, as in B2 Table 2: ``5.5e-5``.

    Values from 0.001 on are printed in fixed notation (``"0.012"``).
    """
    _checks.count(sig, "sig", 1)
    if not _is_missing(p):
        _checks.non_negative(p, "p")
    if _is_missing(p):
        return missing
    p = float(p)
    if p == 0.0:
        return "0"
    if p >= 1e-3:
        return f"{p:.{sig}g}"
    mantissa, exponent = f"{p:.{sig - 1}e}".split("e")
    return f"{mantissa}e{int(exponent)}"


def _label(keys: Mapping[str, object]) -> str:
    """Default column label: numeric keys as ``name = value``, others bare (``"L = 100, BTL"``)."""
    parts = []
    for name, value in keys.items():
        if value is None:
            parts.append(f"{name} = {MISSING}")
        elif isinstance(value, int | float | np.integer | np.floating) and not isinstance(
            value, bool
        ):
            shown = f"{value:g}" if isinstance(value, float | np.floating) else str(value)
            parts.append(f"{name} = {shown}")
        else:
            parts.append(str(value))
    return ", ".join(parts)


def _key(record: Mapping[str, object], keys: Sequence[str]) -> tuple:
    """A record's key tuple, with NaN/NA written as None so that equal keys compare equal."""
    return tuple(None if _is_missing(record[k]) else record[k] for k in keys)


def _check_spec(summary, spec) -> None:
    """Argument checks of :func:`order_rows` and :func:`paper_table`."""
    _checks.mapping(spec, "spec")
    missing = [k for k in ("metrics", "index", "columns") if k not in spec]
    if missing:
        raise ValueError(f"spec lacks the keys {missing} (a table of config.yaml)")
    keys = ["metric", *spec["index"], *spec["columns"]] + (
        ["method"] if spec.get("methods") else []
    )
    _checks.columns(summary, "summary", list(dict.fromkeys(keys)))


def order_rows(summary: pd.DataFrame, spec: Mapping) -> pd.DataFrame:
    """The summary rows a table shows, in the order it shows them.

    Keeps the ``spec["metrics"]`` (and, if given, ``spec["methods"]``) rows,
    upper-cases model names as the papers print them (``BTL``, ``TM``) and
    sorts by the table's row keys, then column keys: metrics and methods in
    the order the spec lists them, other keys by value.
    """
    _check_spec(summary, spec)
    rows = summary[summary["metric"].isin(spec["metrics"])].copy()
    order = {"metric": list(spec["metrics"])}
    if spec.get("methods"):
        rows = rows[rows["method"].isin(spec["methods"])]
        order["method"] = list(spec["methods"])
    if "model" in rows:
        rows["model"] = rows["model"].str.upper()
    keys = [*spec["index"], *spec["columns"]]

    def sort_key(column: pd.Series) -> pd.Series:
        if column.name in order:
            return column.map({v: i for i, v in enumerate(order[column.name])})
        return column

    return rows.sort_values(keys, key=sort_key, kind="stable").reset_index(drop=True)


def pivot_table(
    frame: pd.DataFrame,
    index: str | Sequence[str],
    columns: str | Sequence[str],
    digits: int,
    *,
    mean: str = "mean",
    dispersion: str | None = "dispersion",
    kind: str = "dispersion_kind",
    label: Callable[[Mapping[str, object]], str] | None = None,
    missing: str = MISSING,
) -> pd.DataFrame:
    """Lay a tidy frame out as a paper table of ``mean (dispersion)`` strings.

    Parameters
    ----------
    frame : pandas.DataFrame
        One row per cell: the ``index`` and ``columns`` keys, ``mean`` and (optionally) the
        dispersion; each (row, column) key pair at most once.
    index, columns : str or sequence of str
        Keys of the table's rows and columns. Rows and columns keep the order of first
        appearance in ``frame`` (sort it beforehand for another order).
    digits : int
        Decimals, see :data:`PUBLISHED_DIGITS`.
    mean, dispersion : str
        Column names of the numbers; ``dispersion=None`` prints means only.
    kind : str
        Column naming each dispersion ``'sd'`` or ``'se'`` (or empty); if absent and
        ``dispersion`` is ``'sd'`` or ``'se'``, that name is the kind (so an output of
        :func:`dprank_papers.aggregate.summarise` can be passed with ``dispersion="sd"``).
    label : callable, optional
        Maps a dict ``{column key: value}`` to the column header. The default writes
        numeric keys as ``name = value`` and others bare, e.g. ``"L = 100, BTL"``.
    missing : str, default "–"
        Text of empty cells (cells absent from ``frame`` or with a NaN mean).

    Returns
    -------
    pandas.DataFrame
        Strings; the row keys form the (Multi)Index, columns are flat header strings.
        ``attrs["dispersion_kinds"]`` is the sorted tuple of kinds shown in parentheses,
        which the writers turn into a caption note.
    """
    _checks.frame(frame, "frame")
    index = [index] if isinstance(index, str) else _checks.strings(index, "index")
    columns = [columns] if isinstance(columns, str) else _checks.strings(columns, "columns")
    _checks.count(digits, "digits")
    _checks.text(mean, "mean")
    if dispersion is not None:
        _checks.text(dispersion, "dispersion")
    _checks.text(kind, "kind")
    if label is not None and not callable(label):
        raise TypeError(f"label must be a function of the column keys, got {label!r}")
    _checks.text(missing, "missing")
    if set(index) & set(columns):
        raise ValueError(
            f"index and columns: keys used for both rows and columns: {set(index) & set(columns)}"
        )
    needed = [*index, *columns, mean] + ([dispersion] if dispersion else [])
    absent = [c for c in needed if c not in frame.columns]
    if absent:
        raise ValueError(
            f"frame lacks columns {absent} (named by index, columns, mean or dispersion)"
        )
    if frame.duplicated([*index, *columns]).any():
        raise ValueError("frame has several rows for one (row, column) cell")
    label = label or _label
    records = frame.to_dict("records")
    row_keys = list(dict.fromkeys(_key(r, index) for r in records))
    col_keys = list(dict.fromkeys(_key(r, columns) for r in records))
    headers = [label(dict(zip(columns, key, strict=True))) for key in col_keys]
    if len(set(headers)) != len(headers):
        raise ValueError(f"column labels are not unique: {headers}")

    kinds: set[str] = set()
    cells = {}
    for row in records:
        m = row[mean]
        d = row[dispersion] if dispersion else None
        if dispersion and not _is_missing(m) and not _is_missing(d):
            k = row.get(kind, dispersion if dispersion in _KIND_NOTE else None)
            if not _is_missing(k) and k:
                if k not in _KIND_NOTE:
                    raise ValueError(f"dispersion kind must be 'sd' or 'se', got {k!r}")
                kinds.add(k)
        cells[_key(row, index), _key(row, columns)] = format_cell(m, d, digits, missing)

    data = [[cells.get((r, c), missing) for c in col_keys] for r in row_keys]
    if len(index) == 1:
        idx = pd.Index([r[0] for r in row_keys], name=index[0])
    else:
        idx = pd.MultiIndex.from_tuples(row_keys, names=index)
    table = pd.DataFrame(data, index=idx, columns=headers, dtype=object)
    table.attrs["dispersion_kinds"] = tuple(sorted(kinds))
    return table


def _caption_text(table: pd.DataFrame, caption: str | None, note: bool) -> str | None:
    kinds = table.attrs.get("dispersion_kinds", ())
    if not note or not kinds:
        return caption
    text = "In parentheses: " + " or ".join(_KIND_NOTE[k] for k in kinds) + "."
    if not caption:
        return text
    caption = caption.rstrip()
    return f"{caption} {text}" if caption.endswith((".", "!", "?")) else f"{caption}. {text}"


def _rows(table: pd.DataFrame, sparsify: bool) -> tuple[list[str], list[list[str]]]:
    """Header and body cells, the index levels first."""
    names = [("" if n is None else str(n)) for n in table.index.names]
    header = [*names, *(str(c) for c in table.columns)]
    body = []
    previous: tuple = ()
    for key, values in zip(table.index, table.itertuples(index=False, name=None), strict=True):
        key = key if isinstance(key, tuple) else (key,)
        shown = ["" if _is_missing(k) else str(k) for k in key]
        if sparsify:
            # blank leading index values repeated from the row above
            for level in range(len(key) - 1):
                if key[: level + 1] == previous[: level + 1]:
                    shown[level] = ""
                else:
                    break
        previous = key
        body.append([*shown, *(str(v) for v in values)])
    return header, body


def to_csv(table: pd.DataFrame) -> str:
    """The formatted table as CSV text (index levels as leading columns, ``\\n`` endings)."""
    _checks.frame(table, "table")
    return table.reset_index().to_csv(index=False, lineterminator="\n")


def _md_escape(text: str) -> str:
    return text.replace("|", "\\|")


def to_markdown(
    table: pd.DataFrame, caption: str | None = None, *, note: bool = True, sparsify: bool = False
) -> str:
    """A GitHub/pandoc pipe table, optionally preceded by a caption paragraph.

    Parameters
    ----------
    table : pandas.DataFrame
        Output of :func:`pivot_table` (any frame of strings works).
    caption : str, optional
        Caption line; with ``note`` it ends with what the parentheses hold.
    note : bool, default True
        Append the dispersion note from ``table.attrs["dispersion_kinds"]``.
    sparsify : bool, default False
        Blank repeated values of the outer index levels.

    Returns
    -------
    str
        Ends with a newline. Index columns are left-aligned, value columns right-aligned.
    """
    _checks.frame(table, "table")
    header, body = _rows(table, sparsify)
    n_index = table.index.nlevels
    lines = []
    text = _caption_text(table, caption, note)
    if text:
        lines += [text, ""]
    lines.append("| " + " | ".join(_md_escape(h) for h in header) + " |")
    lines.append("|" + "|".join([":---"] * n_index + ["---:"] * table.shape[1]) + "|")
    for row in body:
        lines.append("| " + " | ".join(_md_escape(c) for c in row) + " |")
    return "\n".join(lines) + "\n"


_LATEX_SPECIAL = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "–": "--",
}
_LATEX_RE = re.compile("|".join(re.escape(c) for c in _LATEX_SPECIAL))


def latex_escape(text: str) -> str:
    """Escape LaTeX's special characters ``\\ & % $ # _ { } ~ ^`` (and write "–" as ``--``)."""
    _checks.text(text, "text")
    return _LATEX_RE.sub(lambda match: _LATEX_SPECIAL[match.group(0)], str(text))


def to_latex(
    table: pd.DataFrame,
    caption: str | None = None,
    label: str | None = None,
    *,
    note: bool = True,
    sparsify: bool = False,
    escape_caption: bool = True,
    escape: bool = True,
) -> str:
    """A ``table`` environment with a booktabs ``tabular`` (needs ``\\usepackage{booktabs}``).

    Parameters
    ----------
    table : pandas.DataFrame
        Output of :func:`pivot_table`.
    caption : str, optional
        Escaped unless ``escape_caption=False`` (to pass LaTeX math through).
    label : str, optional
        ``\\label`` key, written verbatim.
    note, sparsify : bool
        As in :func:`to_markdown`.
    escape_caption : bool, default True
        Escape special characters in the caption.
    escape : bool, default True
        Escape headers and cells; ``False`` for a table whose labels are LaTeX already
        (:func:`paper_table` with ``tex=True``).

    Returns
    -------
    str
        Ends with a newline. A table wider than the text is scaled down to its width
        (``\\resizebox``, needs ``\\usepackage{graphicx}``).
    """
    _checks.frame(table, "table")
    header, body = _rows(table, sparsify)
    n_index = table.index.nlevels
    spec = "l" * n_index + "r" * table.shape[1]
    lines = [r"\begin{table}[htbp]", r"\centering"]
    text = _caption_text(table, caption, note)
    if text:
        lines.append(r"\caption{" + (latex_escape(text) if escape_caption else text) + "}")
    if label:
        lines.append(r"\label{" + label + "}")
    cell = latex_escape if escape else str
    # many columns or long rows (B1 Table 1's sentences): scale to the text width
    wide = table.shape[1] + n_index > 6 or max(len(" ".join(r)) for r in [header, *body]) > 100
    if wide:
        lines.append(r"\resizebox{\textwidth}{!}{%")
    lines += [r"\begin{tabular}{" + spec + "}", r"\toprule"]
    lines.append(" & ".join(cell(h) for h in header) + r" \\")
    lines.append(r"\midrule")
    for row in body:
        lines.append(" & ".join(cell(c) for c in row) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}"]
    if wide:
        lines.append("}")
    lines.append(r"\end{table}")
    return "\n".join(lines) + "\n"


_HTML_STYLE = (
    "body{font-family:sans-serif;font-size:14px;margin:12px}"
    "table{border-collapse:collapse;margin-top:8px}"
    "th,td{border:1px solid #bbb;padding:3px 6px;vertical-align:top}th.row{text-align:left}"
    "th{background:#f2f2f2}td.num{text-align:right;white-space:nowrap}"
    "td.label{text-align:left}"
    "td.text{text-align:left;min-width:8em;max-width:40em;overflow-wrap:anywhere}"
    "p.caption{max-width:60em}"
)
#: a column with a cell longer than this is text (a reason, a verdict in words): left-aligned
#: and wrapped (anywhere: a long code name too), so that it does not push the table past the
#: window and squeeze the others
_TEXT_CELL = 40
#: a number, possibly with its standard error or interval: ``0.12``, ``-3e-05``, ``0.5 (0.01)``,
#: ``2 [1, 5]``, ``12%``
_NUMBER = re.compile(r"\s*[-+−]?(\d[\d,]*\.?\d*|\.\d+)([eE][-+]?\d+)?%?(\s*[(\[][^)\]]*[)\]])?\s*")
#: a cell that says nothing of its column's kind: empty, a dash, or one short word without
#: digits (``inf``, ``> grid``, ``consistent``)
_NEUTRAL_CELL = 12


def _column_class(cells: Sequence[str]) -> str:
    """``num`` (right-aligned, never wrapped), ``label`` (words: left-aligned, wrapped at
    spaces) or ``text`` (a long cell: left-aligned, wrapped anywhere) for one column."""
    if any(len(c) > _TEXT_CELL for c in cells):
        return "text"
    words = [
        c
        for c in cells
        if not _NUMBER.fullmatch(c) and (any(ch.isdigit() for ch in c) or len(c) > _NEUTRAL_CELL)
    ]
    return "label" if words else "num"


def to_html(
    table: pd.DataFrame,
    caption: str | None = None,
    *,
    note: bool = True,
    sparsify: bool = True,
    title: str | None = None,
    notes: Sequence[str] = (),
) -> str:
    """A standalone HTML page holding the table (what the report shows inline).

    Parameters
    ----------
    table : pandas.DataFrame
        Output of :func:`pivot_table` or :func:`paper_table` (any frame of strings works).
    caption : str, optional
        Paragraph above the table; with ``note`` it ends with what the parentheses hold.
    note, sparsify : bool
        As in :func:`to_markdown` (here ``sparsify`` defaults to True).
    title : str, optional
        The page title (default: the caption's first sentence).
    notes : sequence of str
        Paragraphs below the table.

    Returns
    -------
    str
        A complete HTML document; every text is escaped.
    """
    _checks.frame(table, "table")
    import html

    header, body = _rows(table, sparsify)
    n_index = table.index.nlevels
    text = _caption_text(table, caption, note)
    title = title or (text or "Table").split(". ")[0]
    out = [
        "<!DOCTYPE html>",
        f"<html><head><meta charset='utf-8'><title>{html.escape(title)}</title>",
        f"<style>{_HTML_STYLE}</style></head><body>",
    ]
    if text:
        out.append(f"<p class='caption'>{html.escape(text)}</p>")
    out.append("<table>")
    out.append("<tr>" + "".join(f"<th>{html.escape(h)}</th>" for h in header) + "</tr>")
    # one class, hence one alignment, per column (_column_class)
    width = max((len(row) for row in body), default=0)
    kinds = [_column_class([row[i] for row in body if i < len(row)]) for i in range(width)]
    for row in body:
        cells = [
            f"<th class='row'>{html.escape(c)}</th>"
            if i < n_index
            else f"<td class='{kinds[i]}'>{html.escape(c)}</td>"
            for i, c in enumerate(row)
        ]
        out.append("<tr>" + "".join(cells) + "</tr>")
    out.append("</table>")
    out += [f"<p>{html.escape(n)}</p>" for n in notes]
    out.append("</body></html>")
    return "\n".join(out) + "\n"


# --------------------------------------------------------------------------- the papers' labels

#: Names the papers print alike in plain text and LaTeX, by code name.
_PLAIN_LABELS = {
    "kendall_tau_K": "Full ranking error",
    "prop_correct_model_selected": "Share of correct models",
    "btl": "BTL",
    "tm": "TM",
    "BTL": "BTL",
    "TM": "TM",
    # row and column keys
    "model": "Model",
    "metric": "Error",
    "scheme": "Scheme",
    "method": "Method",
    # the methods: their registered label (dprank.methods.Method.label)
    **{
        name: get_method(name).label
        for name in (
            "local_adrr",
            "edge_noisy_obj",
            "local_laplace",
            "local_classic_rr",
            "local_count",
            "local_debiased_rr",
        )
    },
}

#: How the papers print the code's names: (plain text for Markdown and HTML, LaTeX).
PAPER_LABELS: dict[str, tuple[str, str]] = {
    "l2_over_sqrt_m": ("m^(-1/2) ‖θ̂ − θ*‖₂", r"$m^{-1/2}\|\hat{\theta} - \theta^*\|_2$"),
    "l2_over_sqrt_m_theta": ("m^(-1/2) ‖θ̂ − θ*‖₂", r"$m^{-1/2}\|\hat{\theta} - \theta^*\|_2$"),
    "linf": ("‖θ̂ − θ*‖∞", r"$\|\hat{\theta} - \theta^*\|_\infty$"),
    "abs_sigma_hat_minus_sigma": ("|σ̂ − σ|", r"$|\hat{\sigma} - \sigma|$"),
    "topK_hamming_HK_K=m/2": ("Top-K ranking error", "Top-$K$ ranking error"),
    # row and column keys
    "delta": ("Δ", r"$\Delta$"),
    "m": ("m", "$m$"),
    "L": ("L", "$L$"),
    "epsilon_order": ("ε", r"$\epsilon$"),
    # the plain labels, in both
    **{name: (label, label) for name, label in _PLAIN_LABELS.items()},
}

#: Code names that must not appear as labels in a table file (Markdown, LaTeX, HTML).
CODE_NAMES = (
    "l2_over_sqrt_m",
    "abs_sigma_hat_minus_sigma",
    "kendall_tau_K",
    "topK_hamming",
    "prop_correct_model_selected",
    "epsilon_order",
    "local_classic_rr",
    "local_count",
    "linf",
    "delta",
)


def paper_label(name: object, tex: bool = False) -> str:
    """The papers' label of a code name (``"linf"`` -> ``"‖θ̂ − θ*‖∞"``); others unchanged.

    With ``tex`` the label is LaTeX (math in ``$...$``) and other names are escaped.
    """
    if isinstance(name, str) and name in PAPER_LABELS:
        return PAPER_LABELS[name][1 if tex else 0]
    return latex_escape(str(name)) if tex else str(name)


#: The papers' layout of each B2 simulation table (row keys, column keys), where it differs
#: from the machine-readable CSV's (the config's ``index`` and ``columns``).
PAPER_LAYOUTS: dict[str, dict[str, list[str]]] = {
    "table5": {"index": ["metric", "model", "m"], "columns": ["L"]},  # BTL, TM per error
    "table8": {"index": ["m", "delta"], "columns": ["model", "L"]},  # BTL block, TM block
    "table9": {"index": ["m", "delta"], "columns": ["model", "L"]},
    "table11": {"index": ["model", "metric"], "columns": ["method"]},  # rows BTL, TM
}


def _value_label(key: str, value: object, tex: bool) -> object:
    if _is_missing(value):
        return value
    if key == "scheme":
        return f"Scheme {value}"
    if key in ("metric", "method", "model"):
        return paper_label(value, tex)
    return value


def paper_table(
    summary: pd.DataFrame, spec: Mapping, name: str | None = None, *, tex: bool = False
) -> pd.DataFrame:
    """A simulation table in the paper's layout with the paper's labels (Markdown, LaTeX, HTML).

    Parameters
    ----------
    summary : pandas.DataFrame
        The experiment's summary (as for :func:`order_rows`).
    spec : mapping
        The table's config (``metrics``, ``methods``, ``index``, ``columns``, ``digits``,
        ``dispersion``).
    name : str, optional
        The table (``"table8"``): its :data:`PAPER_LAYOUTS` entry, if any, replaces the
        config's ``index`` and ``columns``.
    tex : bool, default False
        LaTeX labels (pass the result to :func:`to_latex` with ``escape=False``); the
        cells are escaped here.

    Returns
    -------
    pandas.DataFrame
        As :func:`pivot_table`; the same cells as the CSV's table, laid out and
        labelled as the paper prints them (``"L = 100, BTL"``, ``"Scheme 1"``, ``Δ``).
    """
    _check_spec(summary, spec)
    if name is not None:
        _checks.text(name, "name")
    _checks.flag(tex, "tex")
    layout = {**{k: list(spec[k]) for k in ("index", "columns")}, **PAPER_LAYOUTS.get(name, {})}
    rows = order_rows(summary, {**spec, **layout})
    keys = [*layout["index"], *layout["columns"]]
    for key in keys:
        if key in ("scheme", "metric", "method", "model"):
            rows[key] = [_value_label(key, v, tex) for v in rows[key]]

    def label(keys: Mapping[str, object]) -> str:
        parts = []
        for k in ("L", "m", "delta"):
            if k in keys:
                v = keys[k]
                parts.append(f"{paper_label(k, tex)} = {v:g}" if not _is_missing(v) else MISSING)
        parts += [str(v) for k, v in keys.items() if k not in ("L", "m", "delta")]
        return ", ".join(parts)

    dispersion = spec.get("dispersion", "sd")
    table = pivot_table(
        rows,
        layout["index"],
        layout["columns"],
        int(spec.get("digits", 4)),
        dispersion=None if dispersion == "none" else dispersion,
        label=label,
    )
    names = [paper_label(n, tex) for n in table.index.names]
    if "metric" in layout["index"] and "method" in layout["columns"]:
        names = [
            ("Estimation error" if len(spec["metrics"]) > 1 else "Error")
            if n == paper_label("metric", tex)
            else n
            for n in names
        ]
    table.index = table.index.set_names(names)
    if tex:
        table = table.map(latex_escape)
        table.index = _map_index(
            table.index, lambda v: v if isinstance(v, str) and "$" in v else latex_escape(str(v))
        )
    return table


def _map_index(index: pd.Index, func) -> pd.Index:
    if isinstance(index, pd.MultiIndex):
        return pd.MultiIndex.from_tuples(
            [tuple(func(v) for v in key) for key in index], names=index.names
        )
    return pd.Index([func(v) for v in index], name=index.name)


def pvalue_text(p: float, tex: bool = False, sig: int = 2) -> str:
    """A p-value as B2 Table 2 prints it: ``5.5 × 10⁻⁵`` (LaTeX ``$5.5 \\times 10^{-5}$``)."""
    _checks.flag(tex, "tex")
    text = format_pvalue(p, sig)
    if "e" not in text:
        return text
    mantissa, exponent = text.split("e")
    if tex:
        return rf"${mantissa} \times 10^{{{int(exponent)}}}$"
    return f"{mantissa} × 10{str(int(exponent)).translate(_SUPERSCRIPT)}"


_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


# --------------------------------------------------------------------------- published tables


def read_published_table(path: str | Path) -> pd.DataFrame:
    """Read one CSV of ``reference/paper-b/`` into a tidy frame.

    Columns, in this order: the keys ``table, model, metric, scheme, m, L, Delta, method``
    (``m``, ``L`` nullable integers, ``Delta`` float), ``mean`` (float; NaN for cells the
    source lacks), ``dispersion`` (the printed parenthetical, float), ``se_kind`` (as in the
    CSV: ``sd_over_replicates``, ``se_of_mean`` or ``none``), ``dispersion_kind`` (``'sd'``,
    ``'se'`` or NA, ready for :func:`pivot_table`), ``digits`` (decimals of the printed
    mean, NA where not in fixed notation) and ``flag``. B2 Table 2's t statistics and
    p-values are rows of their own (``metric`` ``paired_t_statistic_vs_ADRR`` /
    ``paired_t_pvalue_vs_ADRR``, value in ``mean``), as in the CSV. The paper's method
    names (``ADRR``, ``ClassicRR``, ...) are read as registry names
    (:data:`dprank_papers.compare.PAPER_B_METHODS`).

    Three files have their own schema and are mapped onto the same columns:

    * ``B2-Table1`` (car attributes): ``mean`` is the aggregate rank; the attribute
      columns follow.
    * ``B1-Table1`` (qualitative): one row per (scheme, metric); ``mean`` is the expected
      direction of the error as L grows, +1 (increase), 0 (remain stable), -1 (decrease);
      ``text`` and ``epsilon_order`` follow.
    * ``B2-text_numbers``: ``model`` holds the version, ``scheme`` the location, ``metric``
      the quantity; ``mean`` is the number where the text is numeric (``5/9``, ``~19``,
      ``42 of 60 (70%)``, ``6.98%``), NaN otherwise; ``text`` and ``qualifier`` follow.

    Parameters
    ----------
    path : str or pathlib.Path
        A CSV file.

    Returns
    -------
    pandas.DataFrame
    """
    _checks.path(path, "path")
    path = Path(path)
    raw = pd.read_csv(path, dtype=str, keep_default_na=False, na_values=["", "NA"], comment="#")
    columns = set(raw.columns)
    if {"mean", "se", "se_kind"} <= columns:
        from .compare import PAPER_B_METHODS

        out = standard_rows(raw)
        out["method"] = out["method"].map(lambda m: PAPER_B_METHODS.get(m, m)).astype("string")
        return out
    if "aggregate_rank" in columns:
        return car_ranking(raw)
    if "expected_linf" in columns:
        return scheme_behaviour(raw)
    if {"quantity", "value"} <= columns:
        return text_numbers(raw, path.stem)
    raise ValueError(f"{path}: unrecognised published-table layout, columns {sorted(columns)}")
