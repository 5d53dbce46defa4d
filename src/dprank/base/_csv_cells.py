"""Text cells of the CSV files the command writes and reads: spreadsheet-safe and normalised.

A spreadsheet evaluates a cell whose text starts with ``=``, ``+``, ``-`` or ``@``
(and some also one that starts with a tab or a carriage return) as a formula:
an item label ``=HYPERLINK("http://...")`` in ``ranking.csv`` becomes a link, and
``@cmd`` or ``=cmd|...`` can run commands (CSV or "formula" injection, OWASP).
Every text cell that the ``dprank`` command writes goes through
:func:`escape_cell`, which puts a single quote ``'`` before such a cell (the
quote that spreadsheets themselves use to mark text), unless the cell is a plain
number (``-1``, ``+2.5e3``: a spreadsheet reads those as the numbers they are).
A cell that starts with a quote is quoted once more when what follows it would
be, so that the escape is reversible: :func:`unescape_cell` undoes it exactly,
and the readers of the command (:func:`dprank.data.inputs.read_comparisons`, the
``--items`` file) apply it to every label, so a file the command wrote reads back
with the labels it was written from.

:func:`normalize_label` is what a reader does to a label: Unicode NFC, whitespace
around it dropped and the escape undone. The ledger's fingerprint
(:func:`dprank.ledger.canonical_content`) and the declared items
(:mod:`dprank.data.items`) use the same normalisation.
"""

from __future__ import annotations

import re
import unicodedata

import numpy as np

__all__ = [
    "escape_cell",
    "escape_column",
    "escape_table",
    "normalize_label",
    "normalize_labels",
    "unescape_cell",
]

#: The first characters that make a spreadsheet evaluate a cell.
FORMULA_START = frozenset("=+-@\t\r")
_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?\Z")


def _needs_escape(text: str) -> bool:
    if not text:
        return False
    first = text[0]
    if first in FORMULA_START:
        return _NUMBER.match(text) is None
    if first == "'":
        return _needs_escape(text[1:])
    return False


def escape_cell(text: str) -> str:
    """``text`` as a spreadsheet shows it as text: ``'`` put before a formula-like cell.

    >>> escape_cell("=HYPERLINK(1)"), escape_cell("-1.5"), escape_cell("ann")
    ("'=HYPERLINK(1)", '-1.5', 'ann')
    """
    return "'" + text if _needs_escape(text) else text


def unescape_cell(text: str) -> str:
    """The inverse of :func:`escape_cell` (``unescape_cell(escape_cell(s)) == s`` for every s)."""
    if text.startswith("'") and _needs_escape(text[1:]):
        return text[1:]
    return text


def normalize_label(label: str) -> str:
    """The one normal form of an item or user label, as every reader of dprank applies it.

    Unicode NFC (canonical composition: ``"e\u0301"`` and ``"\u00e9"`` are one
    label), then whitespace (Python's :meth:`str.strip`: spaces, tabs, no-break and
    other Unicode spaces) removed from both ends, then the spreadsheet escape of
    the command's outputs undone (:func:`unescape_cell`: ``'=x`` is the label
    ``=x``). Labels equal in this form are one item; a label empty in it is a
    missing value. CSV, TSV, Parquet and JSON lines files and data frames are read
    with this rule (:func:`dprank.data.inputs.normalize_label` is this function),
    applied to the distinct labels (not to every row); so are the declared items
    (:mod:`dprank.data.items`) and a ledger's fingerprint of the data.

    Examples
    --------
    >>> normalize_label("  Zoe ")
    'Zoe'
    >>> normalize_label("Zoe\u0308") == normalize_label("Zo\u00eb")
    True
    >>> normalize_label("'=SUM(1,2)")
    '=SUM(1,2)'
    """
    if not isinstance(label, str):
        raise TypeError(f"label must be a str, got {type(label).__name__}")
    return unescape_cell(unicodedata.normalize("NFC", label).strip())


def _first_characters(values: np.ndarray) -> np.ndarray:
    """The first character of each string of a numpy unicode array (``""`` for empty ones)."""
    if values.dtype.itemsize == 0:
        return np.zeros(values.size, dtype="U1")
    return np.ascontiguousarray(values).view("U1").reshape(values.size, -1)[:, 0]


def escape_column(values) -> np.ndarray:
    """:func:`escape_cell` of each string of ``values`` (only cells that need it are touched).

    Returns ``values`` itself (as an array) where no cell needs escaping.
    """
    arr = values if isinstance(values, np.ndarray) else np.asarray(values)
    if arr.dtype.kind not in "UO" or arr.size == 0:
        return arr
    text = arr.astype(str) if arr.dtype.kind == "O" else arr
    first = _first_characters(text)
    suspect = np.flatnonzero(np.isin(first, [*FORMULA_START, "'"]))
    if suspect.size == 0:
        return arr
    escaped = [escape_cell(s) for s in text[suspect].tolist()]
    change = [
        k
        for k, (old, new) in enumerate(zip(text[suspect].tolist(), escaped, strict=True))
        if old != new
    ]
    if not change:
        return arr
    out = text.astype(object)
    out[suspect[change]] = [escaped[k] for k in change]
    return out


def escape_table(table):
    """A data frame or dict of column arrays with every text column escaped (:func:`escape_column`).

    Numeric and boolean columns are left as they are; a data frame is copied
    only where a cell changes.
    """
    if isinstance(table, dict):
        return {name: escape_column(values) for name, values in table.items()}
    out = table
    for name in table.columns:
        column = table[name]
        if column.dtype.kind not in "OU" and str(column.dtype) != "string":
            continue
        values = column.to_numpy(dtype=object)
        escaped = escape_column(values)
        if escaped is values:
            continue
        if out is table:
            out = table.copy()
        out[name] = escaped
    return out


def normalize_labels(labels) -> np.ndarray:
    """:func:`normalize_label` of each label of ``labels`` (an array of str; object dtype out)."""
    arr = np.asarray(labels).astype(str)
    out = arr.astype(object)
    if arr.size == 0 or arr.dtype.itemsize == 0:
        return out
    # only labels with a character beyond ASCII, a quote first, or whitespace at an end change
    codes = np.ascontiguousarray(arr).view(np.uint32).reshape(arr.size, -1)
    last = np.maximum(np.char.str_len(arr) - 1, 0)
    first, end = codes[:, 0], codes[np.arange(arr.size), last]
    space = ((first >= 9) & (first <= 13)) | ((first >= 28) & (first <= 32))
    space |= ((end >= 9) & (end <= 13)) | ((end >= 28) & (end <= 32))
    suspect = np.flatnonzero(space | (first == 39) | (codes > 127).any(axis=1))
    if suspect.size:
        out[suspect] = [normalize_label(s) for s in arr[suspect].tolist()]
    return out
