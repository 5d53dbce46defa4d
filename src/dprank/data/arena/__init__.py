"""Arena votes: battle files and per-pair count tables with ties, as LLM arenas publish them.

Two forms are read (:func:`read_arena`), each a comparison of two models with four
outcomes: ``model_a`` or ``model_b`` won, a ``tie``, or a tie in which both answers were
bad (``tie (bothbad)``; also spelled ``both_bad``):

* **battle files**, one vote per row, as LMArena releases them: CSV or TSV with a
  header holding ``model_a, model_b, winner`` (optional ``judge``, the voter, read as
  the user; ``count``, a row standing for several identical votes; ``epsilon``, each
  voter's local-DP budget in a released file), or the same fields in Parquet, as JSON
  lines or as a JSON array of objects; other fields are ignored;
* **per-pair count tables** as the 2024-08-14 Chatbot Arena snapshot that the
  ``leaderbot`` package ships (``dprank datasets export chatbot_arena``): a JSON
  object with ``models`` (names), ``X`` (pairs ``[i, j]`` of indices into
  ``models``) and ``Y`` (per pair the votes ``[i won, j won, tie, both bad]``; three
  columns mean no both-bad count).

The four outcomes are kept apart (:class:`ArenaVotes`); a documented, switchable
rule maps "both bad" when the votes become comparisons with three outcomes
(:meth:`ArenaVotes.comparisons`): ``"tie"`` (the default, as LMArena's leaderboard and
``arena-rank`` count it) or ``"drop"`` (the default of ``leaderbot.data.load``). The
outcome space of an arena file is always three outcomes (declared by its form, never
read off the votes), so a file without a single tie is still ranked with a ties model
and privatised with three-outcome randomized response.

An input is a file or a stream (standard input, a pipe, a FIFO), read once, and told
by what :mod:`dprank.data.inputs` sniffs (:func:`arena_input`): a header, Parquet schema or
first JSON object naming ``model_a``, ``model_b`` and ``winner``, a JSON array, or a
JSON object with ``models``. :func:`dprank.data.inputs.read_comparisons` (``dprank rank``,
``dprank privatize``) hands such inputs to this module. Model and voter names are read
in the readers' one normal form (:func:`dprank.data.inputs.normalize_label`: Unicode NFC,
whitespace stripped, the spreadsheet escape of the command's outputs undone; a name
empty in it is missing), and numbered in the order of their names (numeric order when
every name is a whole number), as :mod:`dprank.data.inputs` numbers items and users.
Every problem stops the reading with one :class:`dprank.data.inputs.InputError` that
names the file, the line (header = line 1; the 1-based record of a JSON array, the
row of a Parquet file) and the field.
"""

from __future__ import annotations

import csv
import json
import os
from pathlib import Path

import numpy as np

from ...base import _checks
from ...base._csv_cells import normalize_label
from .._input_table import ComparisonTable, InputError, label_order, opening_error
from ._columns import array_columns, battles, csv_columns, jsonl_columns, parquet_columns
from ._votes import BATTLE_COLUMNS, BOTH_BAD_RULES, OUTCOMES, ArenaVotes, summed

__all__ = [
    "BOTH_BAD_RULES",
    "OUTCOMES",
    "ArenaVotes",
    "arena_frame",
    "is_arena_file",
    "read_arena",
    "read_arena_table",
]
# arena_input and read_arena_input are the hooks of dprank.data.inputs.read_comparisons (an
# opened, sniffed stream), not an interface of their own: read_comparisons is.


def _header_names(fmt: str, first: bytes) -> set[str] | None:
    """The normalised, lower-case names of a CSV or TSV header line (None: not UTF-8)."""
    try:
        line = first.decode("utf-8")
    except UnicodeDecodeError:
        return None
    sep = "\t" if fmt == "tsv" else ","
    return {normalize_label(c).lower() for c in next(csv.reader([line], delimiter=sep), [])}


def arena_input(fmt: str, first: bytes, parquet_names, name: str, given: str | None = None):
    """What kind of arena input a sniffed input is: ``"battles"``, ``"document"`` or None.

    ``fmt`` and ``first`` are what :func:`dprank.data._input_stream.sniff` found (the format
    and the first line), ``parquet_names`` a Parquet file's columns, ``name`` the
    input's name and ``given`` the ``format`` the caller stated. Battles: a CSV, TSV or
    Parquet header, or the first object of JSON lines, that names ``model_a``,
    ``model_b`` and ``winner``. A document: a JSON array (first character ``[``) or a
    JSON object that is a per-pair count table (``models``), on one line or several
    (a first line ``{`` alone, or a ``.json`` name). Anything else is not an arena
    input (None): the comparison reader of :mod:`dprank.data.inputs` reads it.
    """
    battle = set(BATTLE_COLUMNS)
    if fmt == "parquet":
        names = {normalize_label(str(c)).lower() for c in parquet_names or ()}
        return "battles" if battle <= names else None
    text = first.lstrip()
    if given is None and text[:1] == b"[":
        return "document"
    if fmt == "jsonl":
        try:
            obj = json.loads(first)
        except (ValueError, UnicodeDecodeError):  # a JSON document over several lines
            json_name = Path(name).suffix.lower() == ".json"
            return "document" if given is None and (text.strip() == b"{" or json_name) else None
        if not isinstance(obj, dict):
            return None
        keys = {normalize_label(str(k)).lower() for k in obj}
        if "models" in obj:
            return "document"
        return "battles" if battle <= keys else None
    names = _header_names(fmt, first)
    return "battles" if names is not None and battle <= names else None


def is_arena_file(path: str | os.PathLike) -> bool:
    """Whether ``path`` is an arena file (:func:`arena_input`). Only a regular file is looked
    into (a pipe's first bytes would be consumed): anything else is not one."""
    from .. import _input_stream as stream

    path = Path(_checks.path(path, "path"))
    if not path.is_file():
        return False
    try:
        inp = stream.InputSource.open(path, os.fspath(path), opening_error)
    except InputError:
        return False
    try:
        fmt, first = stream.sniff(inp, os.fspath(path), None)
        names = None
        if fmt == "parquet":
            try:
                names = stream.open_parquet(inp, os.fspath(path), InputError)[1]
            except InputError:
                return False
        return arena_input(fmt, first, names, os.fspath(path)) is not None
    finally:
        inp.close()


def _open(path, name, format):
    """``(input, source, kind, fmt, first, pf)`` of an arena input (a path or binary stream)."""
    from .. import _input_stream as stream

    stream_given = hasattr(path, "read")
    if not stream_given:
        _checks.path(path, "path")
    if format is not None and format not in stream.FORMATS:
        raise ValueError(f"format must be one of {', '.join(stream.FORMATS)}, got {format!r}")
    source = name if name is not None else "standard input" if stream_given else os.fspath(path)
    inp = stream.InputSource.open(path, source, opening_error)
    try:
        fmt, first = stream.sniff(inp, source, format)
        pf = names = None
        if fmt == "parquet":
            pf, names = stream.open_parquet(
                inp, source, lambda problem, line=None: InputError(problem, source, line)
            )
        elif not first.strip() and not inp.read(1):
            raise InputError("the file is empty", source, 1)
        kind = arena_input(fmt, first, names, source, format)
        header = _header_names(fmt, first) if fmt in ("csv", "tsv") else None
        if kind is None and header:
            missing = [c for c in BATTLE_COLUMNS if c not in header]
            raise InputError(
                f"the header {sorted(header)} lacks {missing}: a battle file needs model_a, "
                "model_b, winner (optional: judge, count, epsilon)",
                source,
                1,
            )
        if kind is None:
            raise InputError(
                "is not an arena file: battles need the fields model_a, model_b and winner "
                "(CSV, TSV, Parquet, JSON lines or a JSON array); a per-pair count table is a "
                "JSON object with models, X and Y",
                source,
                1,
            )
    except BaseException:
        inp.close()
        raise
    return inp, source, kind, fmt, first, pf


def read_arena(
    path,
    *,
    need_users: bool = False,
    need_epsilon: bool = False,
    format: str | None = None,
    name: str | None = None,
) -> ArenaVotes:
    """Read an arena file (module docstring) into :class:`ArenaVotes`.

    Parameters
    ----------
    path : path-like or binary file object
        A file or a stream (standard input, a pipe, a FIFO), read once.
    need_users : bool
        Require voters (a ``judge`` column): voter-level and local DP.
    need_epsilon : bool
        Require each voter's budget (``epsilon``): a released local-DP file.
    format : {"csv", "tsv", "parquet", "jsonl"}, optional
        The format where it cannot be told from the name or the first bytes.
    name : str, optional
        The input's name in messages.

    Raises
    ------
    dprank.data.inputs.InputError
        Naming the file, line and field of the first problem.
    """
    _checks.flag(need_users, "need_users")
    _checks.flag(need_epsilon, "need_epsilon")
    if name is not None:
        _checks.text(name, "name")
    inp, source, kind, fmt, first, pf = _open(path, name, format)
    try:
        return _read_votes(inp, source, kind, fmt, first, pf, need_users, need_epsilon)
    finally:
        inp.close()


def read_arena_table(
    path,
    *,
    need_users: bool = False,
    need_epsilon: bool = False,
    both_bad: str = "tie",
    format: str | None = None,
    name: str | None = None,
) -> ComparisonTable:
    """:func:`read_arena` as the :class:`dprank.data.inputs.ComparisonTable` of ``dprank rank``.

    The comparisons have three outcomes, "both bad" mapped by ``both_bad``
    (:meth:`ArenaVotes.comparisons`); ``sha256`` is that of the bytes read.
    """
    _checks.flag(need_users, "need_users")
    _checks.flag(need_epsilon, "need_epsilon")
    _check_both_bad(both_bad)
    if name is not None:
        _checks.text(name, "name")
    opened = _open(path, name, format)  # (input, source, kind, format, first line, Parquet file)
    try:
        return read_arena_input(
            *opened, need_users=need_users, need_epsilon=need_epsilon, both_bad=both_bad
        )
    finally:
        opened[0].close()


def _check_both_bad(both_bad) -> None:
    if not isinstance(both_bad, str) or both_bad not in BOTH_BAD_RULES:
        raise ValueError(f"both_bad must be one of {list(BOTH_BAD_RULES)}, got {both_bad!r}")


def read_arena_input(
    inp, source: str, kind: str, fmt: str, first: bytes, pf, *, need_users, need_epsilon, both_bad
) -> ComparisonTable:
    """The :class:`dprank.data.inputs.ComparisonTable` of an opened, sniffed arena input (the
    reader of :func:`dprank.data.inputs.read_comparisons` calls this for arena inputs)."""
    _check_both_bad(both_bad)
    votes = _read_votes(inp, source, kind, fmt, first, pf, need_users, need_epsilon)
    return ComparisonTable(
        comparisons=votes.comparisons(both_bad),
        layout=votes.layout,
        n_rows=votes.n_rows,
        user_labels=votes.user_labels,
        has_count=True,
        sha256=inp.hexdigest(),
        aggregated=votes.user is None,
    )


def _read_votes(inp, source, kind, fmt, first, pf, need_users, need_epsilon) -> ArenaVotes:
    """The votes of an opened, sniffed arena input (:func:`arena_input`'s ``kind``)."""
    if kind == "document":
        doc = _json_document(first + b"\n" + inp.read_all(), source)
        if isinstance(doc, dict):
            if "models" not in doc:
                raise InputError(
                    "a JSON object must be a per-pair count table with 'models', 'X' and 'Y'",
                    source,
                )
            if need_users or need_epsilon:
                raise InputError(
                    "a per-pair count table has no voters: voter-level and local privacy "
                    "need one vote per row with a 'judge' column",
                    source,
                )
            return _count_table(doc, source)
        read = array_columns(doc, source)
    elif fmt == "parquet":
        read = parquet_columns(pf, source)
    elif fmt == "jsonl":
        read = jsonl_columns(_arrow_input(inp, first), source)
    else:
        read = csv_columns(_arrow_input(inp, first), source, fmt, first)
    columns, row_word, first_row, positions = read
    return battles(columns, source, row_word, first_row, need_users, need_epsilon, positions)


def _arrow_input(inp, first: bytes):
    """What pyarrow reads: a regular file by its path (its bytes are hashed as the input is
    closed), else the stream's bytes, the first line put back."""
    import pyarrow as pa

    if inp.regular:
        with open(inp.path, "rb") as fh:
            bom = fh.read(3) == b"\xef\xbb\xbf"
        if not bom:
            return os.fspath(inp.path)
    return pa.BufferReader(first + b"\n" + inp.read_all())


def _json_document(data: bytes, source: str):
    try:
        return json.loads(data.decode("utf-8"))
    except UnicodeDecodeError:
        raise InputError("is not a UTF-8 text file", source) from None
    except json.JSONDecodeError as exc:
        raise InputError(f"is not valid JSON ({exc})", source) from None


def _count_table(doc: dict, source: str) -> ArenaVotes:
    """A per-pair count table (``models``, ``X``, ``Y``), checked."""
    for key in ("models", "X", "Y"):
        if key not in doc:
            raise InputError(f"the count table has no {key!r}", source, name=key)
    models = doc["models"]
    if not isinstance(models, list) or not models or not all(isinstance(m, str) for m in models):
        raise InputError("'models' must be a non-empty list of names", source, name="models")
    models = [normalize_label(m) for m in models]  # the readers' one normal form
    if not all(models):
        raise InputError("'models' holds an empty name", source, name="models")
    if len(set(models)) != len(models):
        raise InputError(
            "'models' repeats a name (names are compared in their normal form: NFC, "
            "surrounding spaces dropped)",
            source,
            name="models",
        )
    try:
        X = np.asarray(doc["X"], dtype=np.int64).reshape(-1, 2)
        Y = np.asarray(doc["Y"], dtype=np.float64)
    except (TypeError, ValueError):
        raise InputError("'X' must hold pairs [i, j] and 'Y' rows of counts", source) from None
    if Y.ndim != 2 or Y.shape[0] != X.shape[0] or Y.shape[1] not in (3, 4):
        raise InputError(
            f"'Y' must have one row of 3 or 4 counts per pair of 'X' ({X.shape[0]} pairs), "
            f"got shape {Y.shape}",
            source,
            name="Y",
        )
    n = len(models)
    bad = np.flatnonzero((X < 0).any(axis=1) | (X >= n).any(axis=1) | (X[:, 0] == X[:, 1]))
    if bad.size:
        raise InputError(
            f"pair {X[bad[0]].tolist()} is not two different indices into 'models' "
            f"({bad.size} such pairs)",
            source,
            int(bad[0]) + 1,
            name="X",
            row_word="pair",
        )
    whole = np.isfinite(Y) & (Y >= 0) & (Y == np.round(Y)) & (Y < 2.0**53)
    bad = np.flatnonzero(~np.all(whole, axis=1))
    if bad.size:
        raise InputError(
            f"counts {Y[bad[0]].tolist()} must be non-negative whole numbers below 2^53",
            source,
            int(bad[0]) + 1,
            name="Y",
            row_word="pair",
        )
    if Y.shape[1] == 3:
        Y = np.column_stack([Y, np.zeros(len(Y))])
    labels = np.asarray(models, dtype=object)
    order = label_order(labels)
    rank = np.empty(n, dtype=np.int64)
    rank[order] = np.arange(n)
    return summed(
        labels[order].astype(str),
        rank[X[:, 0]],
        rank[X[:, 1]],
        Y,
        None,
        n_rows=len(X),
        layout="count table",
    )


def arena_frame(votes: ArenaVotes, *, counts: bool = True):
    """A battle table of ``votes`` (``model_a, model_b, winner[, judge], count``), one row per
    pair, voter and outcome with a vote; ``counts=False`` writes one row per vote instead.

    The rows are sorted by pair (model index order), voter and outcome: nothing in their
    order depends on when a vote was cast. Read back by :func:`read_arena`.
    """
    import pandas as pd

    _checks.instance(votes, "votes", ArenaVotes, "a dprank.data.arena.ArenaVotes (read_arena)")
    _checks.flag(counts, "counts")
    stacked = np.stack([votes.wins_a, votes.wins_b, votes.ties, votes.both_bad], axis=1)
    rows, kinds = np.nonzero(stacked > 0)
    number = stacked[rows, kinds]
    if not counts:
        rep = number.astype(np.int64)
        rows, kinds, number = np.repeat(rows, rep), np.repeat(kinds, rep), None
    models = np.asarray(votes.models).astype(str)
    frame = {
        "model_a": models[votes.a[rows]],
        "model_b": models[votes.b[rows]],
        "winner": np.asarray(OUTCOMES, dtype=object)[kinds],
    }
    if votes.user is not None:
        frame["judge"] = np.asarray(votes.user_labels).astype(str)[votes.user[rows]]
    if number is not None:
        frame["count"] = number.astype(np.int64)
    return pd.DataFrame(frame)
