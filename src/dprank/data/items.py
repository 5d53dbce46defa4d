"""Declared items: the item universe of a release is public by declaration, not read off the data.

Under individual DP a user's comparisons are private, pairs included, so the set
of items that occur in the data is private too: an item that only one user
compared appears in a ranking exactly when that user took part. Under local DP
the released file reveals the pairs each user compared, and with them the items.
A release therefore ranks a *declared* universe of items:

* ``--items FILE`` (``items=`` in :func:`dprank.rank`): the universe is the
  file's ``item`` column (:func:`read_items`). A ``ranking.csv`` that the
  command wrote is such a file.
* ``--items-from-data`` (``items_from_data=True``): the data owner declares the
  input's own item set public (the record says so). Appropriate where the items
  are public anyway (a catalogue, a league), not where an item's presence can
  reveal a user.
* Under edge DP the comparison graph, and so its items, is public
  (Paper A): the input's items are the default universe, and ``--items``
  may fix another.

:func:`restrict_to_items` puts comparisons on the universe: every item of the
universe gets a score and a rank, compared or not, and a comparison that names
an item outside the universe is *dropped*, by a rule that looks at that
comparison alone (never at other users' data), so the drop is a per-record
transformation that neighbouring data sets share. How many comparisons were
dropped is a fact about the private data: it goes to the private audit record
only.

Labels are compared as the readers normalise them (:func:`dprank.base._csv_cells.normalize_label`:
spaces around a label dropped, the spreadsheet escape of the command's CSV
outputs undone).
"""

from __future__ import annotations

import csv
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..base import _checks
from ..base._csv_cells import normalize_label
from ._input_table import InputError, label_order
from .comparisons import Comparisons

__all__ = ["ItemUniverse", "read_items", "restrict_to_items", "universe_of"]

#: The column of an items file that holds the labels.
ITEM_COLUMN = "item"


@dataclass(frozen=True)
class ItemUniverse:
    """The declared items of a release.

    Attributes
    ----------
    labels : numpy.ndarray of str
        The items, in the readers' label order (numeric order when every label
        is an integer, else text order).
    source : str
        Where the declaration comes from, as the public record states it
        (``"declared: items.csv (12 items)"``, ``"the input's own items,
        declared public (--items-from-data)"``, ...).
    """

    labels: np.ndarray
    source: str

    @property
    def size(self) -> int:
        """The number of declared items."""
        return int(self.labels.size)


def _ordered(labels: list[str]) -> np.ndarray:
    arr = np.asarray(labels, dtype=object)
    return arr[label_order(arr)].astype(str)


def universe_of(items, source: str = "declared by the caller") -> ItemUniverse:
    """An :class:`ItemUniverse` from a sequence of labels (the API's ``items=``).

    Raises
    ------
    ValueError
        No items, an empty label, or a label given twice (after normalisation).
    TypeError
        ``items`` is a string or not a sequence.
    """
    _checks.text(source, "source")
    if isinstance(items, ItemUniverse):
        return items
    if isinstance(items, (str, bytes)) or not hasattr(items, "__iter__"):
        raise TypeError(f"items must be a sequence of item labels, got {type(items).__name__}")
    labels = [normalize_label(str(x)) for x in np.asarray(list(items), dtype=object).tolist()]
    if not labels:
        raise ValueError("items declares no item: give at least one label")
    if any(not x for x in labels):
        raise ValueError("items holds an empty label")
    seen: set[str] = set()
    for x in labels:
        if x in seen:
            raise ValueError(f"items declares {x!r} twice")
        seen.add(x)
    return ItemUniverse(_ordered(labels), source)


def read_items(path: str | os.PathLike) -> ItemUniverse:
    """The declared items of an items file: CSV or TSV with a header that has an ``item`` column.

    Other columns are ignored, so a ``ranking.csv`` written by ``dprank rank``
    declares its items. Labels are normalised as the comparison reader
    normalises them.

    Raises
    ------
    InputError
        A missing or unreadable file, no ``item`` column, an empty label or a
        label given twice (naming the line).
    """
    _checks.path(path, "path")
    source = os.fspath(path)
    try:
        with open(path, newline="", encoding="utf-8") as fh:
            text = fh.read()
    except FileNotFoundError:
        raise InputError("no such file (the --items file declares the items)", source) from None
    except IsADirectoryError:
        raise InputError("is a directory, not a file", source) from None
    except UnicodeDecodeError:
        raise InputError("not a UTF-8 text file", source) from None
    except OSError as exc:
        raise InputError(f"cannot be read ({exc.strerror or exc})", source) from None
    lines = text.splitlines()
    if not lines:
        raise InputError(f"empty: expected a header with an '{ITEM_COLUMN}' column", source)
    sep = (
        "\t"
        if Path(source).suffix.lower() in (".tsv", ".tab")
        or ("\t" in lines[0] and "," not in lines[0])
        else ","
    )
    rows = csv.reader(lines, delimiter=sep)
    header = [c.strip().lower() for c in next(rows)]
    if ITEM_COLUMN not in header:
        raise InputError(
            f"no '{ITEM_COLUMN}' column in the header {header}: an items file is a CSV with "
            f"an '{ITEM_COLUMN}' column (one declared item per row; a ranking.csv is one)",
            source,
            1,
        )
    col = header.index(ITEM_COLUMN)
    labels: list[str] = []
    where: dict[str, int] = {}
    for line, row in enumerate(rows, start=2):
        if not row or (len(row) == 1 and not row[0].strip()):
            continue
        label = normalize_label(row[col]) if col < len(row) else ""
        if not label:
            raise InputError("missing item label", source, line, col + 1, ITEM_COLUMN)
        if label in where:
            raise InputError(
                f"item {label!r} is declared twice (first on line {where[label]})",
                source,
                line,
                col + 1,
                ITEM_COLUMN,
            )
        where[label] = line
        labels.append(label)
    if not labels:
        raise InputError("declares no item (no row after the header)", source)
    n = len(labels)
    return ItemUniverse(
        _ordered(labels), f"declared: {Path(source).name} ({n} item{'' if n == 1 else 's'})"
    )


def restrict_to_items(comparisons: Comparisons, universe: ItemUniverse) -> tuple[Comparisons, int]:
    """The comparisons on the declared items; how many comparisons named an undeclared item.

    Every declared item is an item of the result (in the universe's order),
    compared or not. A record that names an item outside the universe is
    dropped, whatever the other records say.

    Parameters
    ----------
    comparisons : Comparisons
    universe : ItemUniverse

    Returns
    -------
    (Comparisons, int)
        The comparisons with ``labels`` the universe (users and their budgets
        kept), and the count-weighted number of comparisons dropped (private:
        for the audit record only).
    """
    if not isinstance(comparisons, Comparisons):
        kind = type(comparisons).__name__
        raise TypeError(f"comparisons must be a dprank.data.comparisons.Comparisons, got {kind}")
    if not isinstance(universe, ItemUniverse):
        raise TypeError(f"universe must be an ItemUniverse, got {type(universe).__name__}")
    c = comparisons
    names = np.arange(c.n_items).astype(str) if c.labels is None else np.asarray(c.labels)
    names = np.array([normalize_label(str(x)) for x in names.tolist()], dtype=object)
    index = {label: k for k, label in enumerate(universe.labels.tolist())}
    position = np.array([index.get(x, -1) for x in names.tolist()], dtype=np.int64)
    i, j = position[c.i], position[c.j]
    keep = (i >= 0) & (j >= 0)
    dropped = float(np.sum(np.asarray(c.count)[~keep]))
    restricted = Comparisons(
        n_items=universe.size,
        i=i[keep],
        j=j[keep],
        y=np.asarray(c.y)[keep],
        count=np.asarray(c.count)[keep],
        user=None if c.user is None else np.asarray(c.user)[keep],
        labels=universe.labels,
        user_epsilon=c.user_epsilon,
        weighted=c.weighted,
        ties=c.ties,
    )
    return restricted, round(dropped)
