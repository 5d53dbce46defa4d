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
by what :mod:`dprank.inputs` sniffs (:func:`arena_input`): a header, Parquet schema or
first JSON object naming ``model_a``, ``model_b`` and ``winner``, a JSON array, or a
JSON object with ``models``. :func:`dprank.inputs.read_comparisons` (``dprank rank``,
``dprank privatize``) hands such inputs to this module. Model and voter names are read
in the readers' one normal form (:func:`dprank.inputs.normalize_label`: Unicode NFC,
whitespace stripped, the spreadsheet escape of the command's outputs undone; a name
empty in it is missing), and numbered in the order of their names (numeric order when
every name is a whole number), as :mod:`dprank.inputs` numbers items and users.
Every problem stops the reading with one :class:`dprank.inputs.InputError` that
names the file, the line (header = line 1; the 1-based record of a JSON array, the
row of a Parquet file) and the field.
"""

from __future__ import annotations

import csv
import json
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from . import _checks
from ._csv_cells import normalize_label
from .comparisons import Comparisons
from .inputs import ComparisonTable, InputError, _label_order, _opening_error

__all__ = [
    "BOTH_BAD_RULES",
    "OUTCOMES",
    "ArenaVotes",
    "arena_frame",
    "is_arena_file",
    "read_arena",
    "read_arena_table",
]
# arena_input and read_arena_input are the hooks of dprank.inputs.read_comparisons (an
# opened, sniffed stream), not an interface of their own: read_comparisons is.

#: The outcome codes of a battle file's ``winner`` field, in the order of :class:`ArenaVotes`.
OUTCOMES = ("model_a", "model_b", "tie", "tie (bothbad)")
#: Spellings accepted for each outcome (lower case, spaces and underscores as written).
_SPELLINGS = {
    "model_a": 0,
    "model_b": 1,
    "tie": 2,
    "tie (bothbad)": 3,
    "tie(bothbad)": 3,
    "both_bad": 3,
    "bothbad": 3,
    "both bad": 3,
}
#: How a "both bad" vote enters the comparisons: as a tie, or not at all.
BOTH_BAD_RULES = ("tie", "drop")
_BATTLE_COLUMNS = ("model_a", "model_b", "winner")


@dataclass(frozen=True, eq=False)
class ArenaVotes:
    """Votes summed per (pair, voter): the four outcomes kept apart.

    Attributes
    ----------
    models : (n,) numpy.ndarray of str
        Model names in index order.
    a, b : (R,) int64 arrays
        The pair of each row, ``a < b``.
    wins_a, wins_b, ties, both_bad : (R,) float64 arrays
        Votes for ``a``, for ``b``, ties and both-bad ties.
    user : (R,) int64 array or None
        The voter (``judge``) of each row; rows are then per pair and voter.
    user_labels : numpy.ndarray or None
    user_epsilon : (n_users,) float64 array or None
        Each voter's budget, in a released (local-DP) file.
    n_rows : int
        Rows (votes, or table rows) read.
    layout : str
        ``"model_a,model_b,winner"`` (battles) or ``"count table"``.
    """

    models: np.ndarray
    a: np.ndarray
    b: np.ndarray
    wins_a: np.ndarray
    wins_b: np.ndarray
    ties: np.ndarray
    both_bad: np.ndarray
    user: np.ndarray | None = None
    user_labels: np.ndarray | None = None
    user_epsilon: np.ndarray | None = None
    n_rows: int = 0
    layout: str = "model_a,model_b,winner"

    @property
    def n_models(self) -> int:
        return int(self.models.size)

    def totals(self) -> dict[str, float]:
        """Votes per outcome over the whole table."""
        return {
            name: float(x.sum())
            for name, x in zip(
                OUTCOMES, (self.wins_a, self.wins_b, self.ties, self.both_bad), strict=True
            )
        }

    def comparisons(self, both_bad: str = "tie") -> Comparisons:
        """The votes as comparisons with three outcomes (``Comparisons(..., ties=True)``).

        Parameters
        ----------
        both_bad : {"tie", "drop"}
            A "both bad" vote counts as a tie (default; LMArena, ``arena-rank``) or is
            left out (``leaderbot``'s default).
        """
        if not isinstance(both_bad, str) or both_bad not in BOTH_BAD_RULES:
            raise ValueError(f"both_bad must be one of {list(BOTH_BAD_RULES)}, got {both_bad!r}")
        ties = self.ties + self.both_bad if both_bad == "tie" else self.ties
        return Comparisons.from_tie_counts(
            self.n_models,
            self.a,
            self.b,
            self.wins_a,
            self.wins_b,
            ties,
            user=self.user,
            labels=self.models,
            user_epsilon=self.user_epsilon,
        )


# --------------------------------------------------------------------------- detection


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

    ``fmt`` and ``first`` are what :func:`dprank._input_stream.sniff` found (the format
    and the first line), ``parquet_names`` a Parquet file's columns, ``name`` the
    input's name and ``given`` the ``format`` the caller stated. Battles: a CSV, TSV or
    Parquet header, or the first object of JSON lines, that names ``model_a``,
    ``model_b`` and ``winner``. A document: a JSON array (first character ``[``) or a
    JSON object that is a per-pair count table (``models``), on one line or several
    (a first line ``{`` alone, or a ``.json`` name). Anything else is not an arena
    input (None): the comparison reader of :mod:`dprank.inputs` reads it.
    """
    battle = set(_BATTLE_COLUMNS)
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
    from . import _input_stream as stream

    path = Path(_checks.path(path, "path"))
    if not path.is_file():
        return False
    try:
        inp = stream._Input.open(path, os.fspath(path), _opening_error)
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


# --------------------------------------------------------------------------- reading


def _open(path, name, format):
    """``(input, source, kind, fmt, first, pf)`` of an arena input (a path or binary stream)."""
    from . import _input_stream as stream

    stream_given = hasattr(path, "read")
    if not stream_given:
        _checks.path(path, "path")
    if format is not None and format not in stream.FORMATS:
        raise ValueError(f"format must be one of {', '.join(stream.FORMATS)}, got {format!r}")
    source = name if name is not None else "standard input" if stream_given else os.fspath(path)
    inp = stream._Input.open(path, source, _opening_error)
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
            missing = [c for c in _BATTLE_COLUMNS if c not in header]
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
    dprank.inputs.InputError
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
    """:func:`read_arena` as the :class:`dprank.inputs.ComparisonTable` of ``dprank rank``.

    The comparisons have three outcomes, "both bad" mapped by ``both_bad``
    (:meth:`ArenaVotes.comparisons`); ``sha256`` is that of the bytes read.
    """
    _checks.flag(need_users, "need_users")
    _checks.flag(need_epsilon, "need_epsilon")
    _check_both_bad(both_bad)
    if name is not None:
        _checks.text(name, "name")
    inp, source, kind, fmt, first, pf = _open(path, name, format)
    try:
        return read_arena_input(
            inp,
            source,
            kind,
            fmt,
            first,
            pf,
            need_users=need_users,
            need_epsilon=need_epsilon,
            both_bad=both_bad,
        )
    finally:
        inp.close()


def _check_both_bad(both_bad) -> None:
    if not isinstance(both_bad, str) or both_bad not in BOTH_BAD_RULES:
        raise ValueError(f"both_bad must be one of {list(BOTH_BAD_RULES)}, got {both_bad!r}")


def read_arena_input(
    inp, source: str, kind: str, fmt: str, first: bytes, pf, *, need_users, need_epsilon, both_bad
) -> ComparisonTable:
    """The :class:`dprank.inputs.ComparisonTable` of an opened, sniffed arena input (the
    reader of :func:`dprank.inputs.read_comparisons` calls this for arena inputs)."""
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
        read = _array_columns(doc, source)
    elif fmt == "parquet":
        read = _parquet_columns(pf, source)
    elif fmt == "jsonl":
        read = _jsonl_columns(_arrow_input(inp, first), source)
    else:
        read = _csv_columns(_arrow_input(inp, first), source, fmt, first)
    columns, row_word, first_row, positions = read
    return _battles(columns, source, row_word, first_row, need_users, need_epsilon, positions)


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
    order = _label_order(labels)
    rank = np.empty(n, dtype=np.int64)
    rank[order] = np.arange(n)
    return _summed(
        labels[order].astype(str),
        rank[X[:, 0]],
        rank[X[:, 1]],
        Y,
        None,
        n_rows=len(X),
        layout="count table",
    )


def _summed(models, first, second, counts, user, *, n_rows, layout, **extra) -> ArenaVotes:
    """Votes of rows ``(first, second)`` with outcome counts ``counts`` (R x 4), summed per
    pair ``a < b`` (and user)."""
    swap = first > second
    a, b = np.where(swap, second, first), np.where(swap, first, second)
    counts = np.where(swap[:, None], counts[:, [1, 0, 2, 3]], counts)
    n = np.int64(len(models))
    key = a * n + b
    if user is not None:
        key = key * np.int64(int(user.max(initial=0)) + 1) + user
    uniq, inv = np.unique(key, return_inverse=True)
    sums = [np.bincount(inv, counts[:, k], uniq.size) for k in range(4)]
    if user is not None:
        n_users = np.int64(int(user.max(initial=0)) + 1)
        user, uniq = uniq % n_users, uniq // n_users
    return ArenaVotes(
        models,
        (uniq // n).astype(np.int64),
        (uniq % n).astype(np.int64),
        *sums,
        user=user,
        n_rows=n_rows,
        layout=layout,
        **extra,
    )


#: Bytes of CSV text per block of pyarrow's reader (few blocks: few dictionaries to unify).
_CSV_BLOCK = 1 << 24
#: Pairs times outcomes up to which votes are summed by one ``bincount`` (no sort).
_DENSE_CELLS = 1 << 26


def _summed_votes(models, first, second, outcome, count, *, n_rows, **extra) -> ArenaVotes:
    """:func:`_summed` of one vote (or ``count`` votes) per row without users: a pair's
    outcome cell counted by one ``bincount`` where the cells of all pairs fit."""
    n = len(models)
    if n * n * 4 > _DENSE_CELLS:
        counts = np.zeros((first.size, 4))
        counts[np.arange(first.size), outcome] = 1.0 if count is None else count
        return _summed(models, first, second, counts, None, n_rows=n_rows, **extra)
    # the key of (pair lo < hi, outcome for lo): a swapped row's win of model_a is a win of
    # the pair's second item (outcome 0 <-> 1); int32 arithmetic (the cells fit)
    swap = first > second
    key = np.minimum(first, second).astype(np.int32)
    key *= n
    key += np.maximum(first, second)
    key *= 4
    key += outcome
    key ^= swap & (outcome < 2)
    cells = np.bincount(key, weights=count, minlength=n * n * 4).reshape(n * n, 4)
    pairs = np.flatnonzero(cells.sum(axis=1))
    cells = cells[pairs].astype(np.float64)
    return ArenaVotes(
        models,
        (pairs // n).astype(np.int64),
        (pairs % n).astype(np.int64),
        *(cells[:, k].copy() for k in range(4)),
        user=None,
        n_rows=n_rows,
        **extra,
    )


class _Field:
    """One text field of every vote, dictionary-coded: ``values[codes]`` is the text
    (``codes`` -1 where missing)."""

    def __init__(self, col):
        import pyarrow as pa
        import pyarrow.compute as pc

        if isinstance(col, pa.ChunkedArray):
            chunks = col.chunks
        else:
            chunks = [col]
        if not chunks or not all(pa.types.is_dictionary(c.type) for c in chunks):
            arr = pa.chunked_array(chunks, type=col.type) if chunks else pa.array([], pa.string())
            arr = arr.combine_chunks() if isinstance(arr, pa.ChunkedArray) else arr
            if not pa.types.is_string(arr.type) and not pa.types.is_large_string(arr.type):
                arr = arr.cast(pa.string())
            chunks = [pc.dictionary_encode(arr)]
        elif len(chunks) > 1:
            chunks = pa.chunked_array(chunks).unify_dictionaries().chunks
        self.values = np.asarray(
            ["" if v is None else str(v) for v in chunks[0].dictionary.to_pylist()], dtype=object
        )
        parts = [
            (c.indices.fill_null(-1) if c.null_count else c.indices).to_numpy(zero_copy_only=False)
            for c in chunks
        ]
        self.codes = np.concatenate(parts) if parts else np.zeros(0, np.int32)

    def __len__(self) -> int:
        return self.codes.size

    def normalized(self) -> _Field:
        """The field with its distinct texts in the readers' label normal form
        (:func:`dprank.inputs.normalize_label`; a text empty in it is missing)."""
        self.values = np.asarray([normalize_label(v) for v in self.values], dtype=object)
        return self

    def missing(self) -> np.ndarray:
        """Rows without a value (missing or empty)."""
        empty = np.flatnonzero(self.values == "")
        bad = self.codes < 0
        if empty.size:
            bad |= np.isin(self.codes, empty)
        return np.flatnonzero(bad)

    def text(self, row: int) -> str:
        return str(self.values[self.codes[row]])


#: The fields a battle file's reader takes, in this order.
_FIELDS = (*_BATTLE_COLUMNS, "judge", "count", "epsilon")


def _csv_columns(src, source: str, fmt: str, first: bytes):
    """The battle file's fields, dictionary-coded by pyarrow while it parses (``src``: a
    path or a pyarrow buffer reader; ``first`` the header line)."""
    import pyarrow as pa
    import pyarrow.csv as pcsv

    sep = "\t" if fmt == "tsv" else ","
    try:
        header = first.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError("is not a UTF-8 text file", source, 1) from None
    names = [normalize_label(c).lower() for c in next(csv.reader([header], delimiter=sep), [])]
    missing = [c for c in _BATTLE_COLUMNS if c not in names]
    if missing:
        raise InputError(
            f"the header {names} lacks {missing}: a battle file needs model_a, model_b, winner "
            "(optional: judge, count, epsilon)",
            source,
            1,
        )
    dup = sorted({c for c in names if names.count(c) > 1 and c in _FIELDS})
    if dup:
        raise InputError(f"the header repeats the column(s) {dup}", source, 1)
    wanted = [c for c in _FIELDS if c in names]
    fields = [f"f{k}" for k in range(len(names))]
    coded = pa.dictionary(pa.int32(), pa.string())
    try:
        table = pcsv.read_csv(
            src,
            read_options=pcsv.ReadOptions(
                skip_rows=1, column_names=fields, use_threads=False, block_size=_CSV_BLOCK
            ),
            parse_options=pcsv.ParseOptions(delimiter=sep),
            convert_options=pcsv.ConvertOptions(
                include_columns=[fields[names.index(c)] for c in wanted],
                column_types={fields[names.index(c)]: coded for c in wanted},
                strings_can_be_null=False,
            ),
        )
    except pa.ArrowInvalid as exc:
        if "UTF8" in str(exc):
            raise InputError("is not a UTF-8 text file", source) from None
        kind = "TSV" if sep == "\t" else "CSV"
        raise InputError(f"cannot be parsed as {kind}: {exc}", source) from None
    columns = {c: _Field(table.column(fields[names.index(c)])) for c in wanted}
    return columns, "line", 2, {c: names.index(c) + 1 for c in wanted}


def _array_columns(doc, source: str):
    """The fields of a JSON array of vote objects."""
    import pyarrow as pa

    if not isinstance(doc, list) or not all(isinstance(r, dict) for r in doc):
        raise InputError("a JSON array must hold one object per vote", source)
    keys = {normalize_label(str(k)).lower(): k for r in doc[:1] for k in r}
    columns = {}
    for c in _FIELDS:
        if c in keys:
            k = keys[c]
            columns[c] = _Field(pa.array([_json_text(r.get(k)) for r in doc], type=pa.string()))
    _check_fields(columns, source)
    return columns, "record", 1, None


def _jsonl_columns(src, source: str):
    """The fields of JSON lines, read by pyarrow (``src``: a path or a buffer reader)."""
    import pyarrow as pa
    import pyarrow.json as pjson

    try:
        table = pjson.read_json(src, read_options=pjson.ReadOptions(use_threads=False))
    except pa.ArrowInvalid as exc:
        raise InputError(f"cannot be parsed as JSON lines: {exc}", source) from None
    return _table_columns(table, source), "line", 1, None


def _parquet_columns(pf, source: str):
    """The fields of a Parquet file of battles (``pf``: a pyarrow ParquetFile)."""
    import pyarrow as pa

    lower = {normalize_label(str(n)).lower(): n for n in pf.schema_arrow.names}
    try:
        table = pf.read(columns=[lower[c] for c in _FIELDS if c in lower])
    except (pa.ArrowException, OSError) as exc:
        raise InputError(f"cannot be read as Parquet ({exc})", source) from None
    return _table_columns(table, source), "row", 1, None


def _table_columns(table, source: str) -> dict:
    lower = {normalize_label(str(n)).lower(): n for n in table.column_names}
    columns = {c: _Field(table.column(lower[c])) for c in _FIELDS if c in lower}
    _check_fields(columns, source)
    return columns


def _check_fields(columns: dict, source: str) -> None:
    missing = [c for c in _BATTLE_COLUMNS if c not in columns]
    if missing:
        raise InputError(
            f"the votes lack the field(s) {missing}: each needs model_a, model_b, winner "
            "(optional: judge, count, epsilon)",
            source,
        )


def _json_text(value):
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float) and value == int(value):
        return str(int(value))
    return str(value)


def _ordered(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(labels, index)``: the distinct texts of ``values`` in label order, and each value's
    index among them."""
    distinct, inverse = np.unique(np.asarray(values).astype(str), return_inverse=True)
    order = _label_order(distinct) if distinct.size else np.zeros(0, np.int64)
    rank = np.empty(distinct.size, dtype=np.int64)
    rank[order] = np.arange(distinct.size)
    return distinct[order], rank[inverse.reshape(-1)]


def _battles(
    columns, source, row_word, first_row, need_users, need_epsilon, positions=None
) -> ArenaVotes:
    """The votes of a battle file's coded fields (:class:`_Field`), checked and summed.

    ``positions`` gives each field's 1-based column in a CSV or TSV header (messages
    name the column by number there, by name elsewhere).
    """
    names = list(columns)
    positions = positions or {}

    def error(problem, rows, name):
        rows = np.asarray(rows)
        extra = ""
        if rows.size > 1:
            shown = ", ".join(str(int(r) + first_row) for r in rows[1:3])
            more = ", ..." if rows.size > 3 else ""
            extra = f" ({rows.size - 1} more such rows, {row_word}s {shown}{more})"
        column = positions.get(name)
        return InputError(problem + extra, source, int(rows[0]) + first_row, column, name, row_word)

    n_rows = len(columns["model_a"])
    if n_rows == 0:
        raise InputError("no votes after the header", source, first_row, row_word=row_word)
    for c in ("model_a", "model_b", "judge"):  # names in the readers' one normal form
        if c in columns:
            columns[c].normalized()
    for c in names:
        bad = columns[c].missing()
        if bad.size:
            raise error(f"missing value in field '{c}'", bad, c)
    if need_users and "judge" not in columns:
        raise InputError(
            "no 'judge' field: voter-level and local privacy protect voters, so every vote "
            "must say who cast it",
            source,
        )
    if need_epsilon and "epsilon" not in columns:
        raise InputError(
            "no 'epsilon' field: a local-DP release must state each voter's budget", source
        )
    winner = columns["winner"]
    lookup = np.array(
        [_SPELLINGS.get(normalize_label(str(v)).lower(), -1) for v in winner.values],
        dtype=np.int32,
    )
    outcome = lookup[winner.codes]
    bad = np.flatnonzero(outcome < 0)
    if bad.size:
        raw = winner.text(int(bad[0]))
        raise error(
            f"winner must be model_a, model_b, tie or tie (bothbad), got {raw!r}", bad, "winner"
        )
    fa, fb = columns["model_a"], columns["model_b"]
    distinct = np.unique(np.concatenate([fa.values, fb.values]).astype(str))
    models, rank = _ordered(distinct)
    rank = rank.astype(np.int32)  # model indices of the rows: int32 (fewer bytes to move)
    first = rank[np.searchsorted(distinct, fa.values.astype(str))][fa.codes]
    second = rank[np.searchsorted(distinct, fb.values.astype(str))][fb.codes]
    same = np.flatnonzero(first == second)
    if same.size:
        raise error(
            f"self-comparison: model {models[first[same[0]]]!r} on both sides", same, "model_a"
        )
    count = None
    if "count" in columns:
        count = _numbers(columns["count"], "count", error)
        bad = np.flatnonzero((count <= 0) | (count != np.round(count)) | (count >= 2.0**53))
        if bad.size:
            problem = f"count must be a positive whole number below 2^53, got {count[bad[0]]!r}"
            raise error(problem, bad, "count")
    if "judge" not in columns:
        return _summed_votes(
            models, first, second, outcome, count, n_rows=n_rows, layout="model_a,model_b,winner"
        )
    judge = columns["judge"]
    user_labels, urank = _ordered(judge.values)
    user = urank[judge.codes]
    user_eps = None
    if "epsilon" in columns and need_epsilon:
        user_eps = _user_budgets(columns["epsilon"], user, user_labels, error)
    counts = np.zeros((n_rows, 4))
    counts[np.arange(n_rows), outcome] = 1.0 if count is None else count
    return _summed(
        models,
        first,
        second,
        counts,
        user,
        n_rows=n_rows,
        layout="model_a,model_b,winner",
        user_labels=user_labels,
        user_epsilon=user_eps,
    )


def _numbers(field: _Field, name, error) -> np.ndarray:
    """A coded field as float64 (its distinct texts parsed once); the first field that is
    no number raises ``error``."""
    values = np.empty(field.values.size)
    for k, v in enumerate(field.values):
        try:
            values[k] = float(v)
        except ValueError:
            rows = np.flatnonzero(field.codes == k)
            raise error(f"'{name}' must be a number, got {v!r}", rows, name) from None
    return values[field.codes]


def _user_budgets(field: _Field, user, user_labels, error) -> np.ndarray:
    eps = _numbers(field, "epsilon", error)
    bad = np.flatnonzero(~(eps > 0) | ~np.isfinite(eps))
    if bad.size:
        raise error(f"the budget 'epsilon' must be positive, got {eps[bad[0]]!r}", bad, "epsilon")
    budgets = np.full(user_labels.size, np.nan)
    budgets[user[::-1]] = eps[::-1]
    bad = np.flatnonzero(budgets[user] != eps)
    if bad.size:
        raise error(
            f"voter {str(user_labels[user[bad[0]]])!r} has different budgets on different rows "
            "(one release budget per voter)",
            bad,
            "epsilon",
        )
    return budgets


# --------------------------------------------------------------------------- writing


def arena_frame(votes: ArenaVotes, *, counts: bool = True):
    """A battle table of ``votes`` (``model_a, model_b, winner[, judge], count``), one row per
    pair, voter and outcome with a vote; ``counts=False`` writes one row per vote instead.

    The rows are sorted by pair (model index order), voter and outcome: nothing in their
    order depends on when a vote was cast. Read back by :func:`read_arena`.
    """
    import pandas as pd

    _checks.instance(votes, "votes", ArenaVotes, "a dprank.arena.ArenaVotes (read_arena)")
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
