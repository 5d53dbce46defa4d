"""The fields of a battle file (CSV, TSV, JSON, JSON lines, Parquet), read, checked and
summed into :class:`dprank.data.arena.ArenaVotes`.

Private to :mod:`dprank.data.arena`.
"""

from __future__ import annotations

import csv

import numpy as np

from ...base._csv_cells import normalize_label
from .._input_table import InputError, label_order
from ._votes import BATTLE_COLUMNS, ArenaVotes, summed, summed_votes

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


#: Bytes of CSV text per block of pyarrow's reader (few blocks: few dictionaries to unify).
_CSV_BLOCK = 1 << 24


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
        (:func:`dprank.data.inputs.normalize_label`; a text empty in it is missing)."""
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
_FIELDS = (*BATTLE_COLUMNS, "judge", "count", "epsilon")


def csv_columns(src, source: str, fmt: str, first: bytes):
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
    _require_battle_fields(names, f"the header {names} lacks", "a battle file needs", source, 1)
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


def array_columns(doc, source: str):
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


def jsonl_columns(src, source: str):
    """The fields of JSON lines, read by pyarrow (``src``: a path or a buffer reader)."""
    import pyarrow as pa
    import pyarrow.json as pjson

    try:
        table = pjson.read_json(src, read_options=pjson.ReadOptions(use_threads=False))
    except pa.ArrowInvalid as exc:
        raise InputError(f"cannot be parsed as JSON lines: {exc}", source) from None
    return _table_columns(table, source), "line", 1, None


def parquet_columns(pf, source: str):
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
    _require_battle_fields(columns, "the votes lack the field(s)", "each needs", source)


def _require_battle_fields(present, lacks: str, needs: str, source: str, *line: int) -> None:
    """An :class:`InputError` where ``present`` lacks a field of :data:`BATTLE_COLUMNS`."""
    missing = [c for c in BATTLE_COLUMNS if c not in present]
    if missing:
        raise InputError(
            f"{lacks} {missing}: {needs} model_a, model_b, winner (optional: judge, count, "
            "epsilon)",
            source,
            *line,
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
    order = label_order(distinct) if distinct.size else np.zeros(0, np.int64)
    rank = np.empty(distinct.size, dtype=np.int64)
    rank[order] = np.arange(distinct.size)
    return distinct[order], rank[inverse.reshape(-1)]


def battles(
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
        return summed_votes(
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
    return summed(
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
