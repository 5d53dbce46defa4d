"""Reading and validating a user's file (or data frame) of pairwise comparisons.

The input format of ``dprank rank`` and :func:`dprank.rank`: CSV or TSV with a
header, Parquet, or JSON lines (one object per line), one comparison per row,
from a file or a stream (standard input, a pipe, a FIFO). Two layouts are
accepted:

* ``winner,loser``: the first item won;
* ``item_a,item_b,outcome``: ``outcome`` is 1 if ``item_a`` won, 0 if ``item_b``
  won (a released local-DP file made with the Laplace mechanism holds real
  outcomes; those are accepted only where asked for).

Optional columns: ``user`` (who made the comparison), ``count`` (a row standing
for several identical comparisons, a positive whole number below ``2^53``) and
``epsilon`` (the budget each user's local-DP release was made with, positive,
the same on every row of a user). Item and user labels are arbitrary strings (in
Parquet also integer columns), in one normal form (:func:`normalize_label`:
Unicode NFC, whitespace stripped from both ends, and a label written with the
spreadsheet escape of the command's outputs, ``'=...``, read as the label
itself: :mod:`dprank.base._csv_cells`) whatever the format; other columns are
ignored. Items are numbered in the order of their labels (numeric order when
every label is an integer), users likewise.

The whole input is validated before anything is computed. A problem raises
:class:`InputError`, whose message names the file, the line (the header is line
1; the 1-based row of a Parquet file) and the column of the first offending rows
and says what is wrong.

An input is read once, in blocks (about 4 MiB of text, or a million Parquet
rows; :mod:`dprank.data._input_stream`): simple CSV and TSV text by the package's
compiled parser straight to label ids (hash tables of the distinct labels), the
rest by pyarrow. Each block is validated with array operations, its new distinct
labels normalised, then dropped. Where the table carries no users and outcomes
are 0 or 1 (what ``--privacy none`` and ``edge`` read), the blocks are summed
over item pairs as they stream (:class:`dprank.data.comparisons.PairSums`): counted
by pair in a compiled hash table while the rows repeat few pairs (memory then
follows the distinct pairs), else packed 8 bytes a row and summed by a radix
sort; time follows the number of rows either way.
"""

from __future__ import annotations

import contextlib
import csv
import os
import sys
from typing import Any, NamedTuple

import numpy as np

from ..base import _checks
from ..base._csv_cells import normalize_label
from ..base.io import sha256 as file_sha256
from ._input_blocks import BlockReader
from ._input_frame import check_options, comparisons_from_frame
from ._input_stream import FORMATS as INPUT_FORMATS
from ._input_table import (
    KNOWN_COLUMNS,
    ComparisonTable,
    InputError,
    check_header,
    opening_error,
)

__all__ = [
    "KNOWN_COLUMNS",
    "ComparisonTable",
    "InputError",
    "comparisons_from_frame",
    "file_sha256",
    "normalize_label",
    "read_comparisons",
]


# --------------------------------------------------------------------------- reading


_BLOCK_BYTES = 1 << 22  # text per CSV block
_PARQUET_ROWS = 1 << 20  # rows per Parquet batch


def read_comparisons(
    path,
    *,
    need_users: bool = False,
    need_epsilon: bool = False,
    real_outcomes: bool = False,
    epsilon_column: str = "epsilon",
    aggregate: bool = True,
    block_size: int | None = None,
    format: str | None = None,
    name: str | None = None,
    both_bad: str = "tie",
    sha256: bool = True,
) -> ComparisonTable:
    """Read and validate a comparison file (the input format in the module docstring).

    Arena files (battles ``model_a, model_b, winner`` as CSV, TSV, Parquet, JSON lines
    or a JSON array, and per-pair count tables; :mod:`dprank.data.arena`), from a file or a
    stream alike, are told by their header (or first object, or first character) and
    read as votes with three outcomes, "both bad" mapped by ``both_bad``.

    Parameters
    ----------
    path : path-like or binary file object
        A file, or a stream (a pipe, ``/dev/stdin``, a FIFO, ``sys.stdin.buffer``),
        read once from its start to its end. CSV (``,``), TSV (tab), Parquet or
        JSON lines (one object per line): ``format`` where given, else the
        Parquet magic bytes, the name's suffix (``.csv``, ``.tsv``, ``.tab``,
        ``.parquet``, ``.pq``, ``.parq``, ``.jsonl``, ``.ndjson``), else the first
        line (``{``: JSON lines; a tab and no comma: TSV; else CSV). A UTF-8
        byte-order mark is skipped, and blank lines at the end are ignored.
    need_users : bool
        Require a ``user`` column (individual and local DP).
    need_epsilon : bool
        Require the per-user budget column (released local-DP data).
    real_outcomes : bool
        Accept any finite ``outcome`` (a Laplace release), not only 0 and 1.
    epsilon_column : str
        Name of the budget column.
    aggregate : bool
        Where the file has no ``user`` column and neither users, budgets nor real
        outcomes are asked for, sum the comparisons over item pairs while reading:
        the comparisons then hold one record per pair and winner (exact counts,
        the same pair statistics, so every estimator of ``--privacy none`` and
        ``edge`` gives the same result) and memory follows the distinct pairs.
        ``False`` keeps one record per row.
    block_size : int, optional
        Bytes of text (or rows of Parquet) per block; the default suits files of
        any size.
    format : {"csv", "tsv", "parquet", "jsonl"}, optional
        The format, where it cannot be told from the name or the first bytes.
    name : str, optional
        The input's name in messages (default: the path; ``"standard input"`` for
        a file object without a name).
    both_bad : {"tie", "drop"}
        Arena files: a "both bad" vote counts as a tie (default) or is dropped
        (:meth:`dprank.data.arena.ArenaVotes.comparisons`).
    sha256 : bool
        Compute the sha256 of the bytes read (:attr:`ComparisonTable.sha256`);
        ``False`` leaves it None and saves its time (about a second per GB).

    Returns
    -------
    ComparisonTable

    Raises
    ------
    InputError
        A missing, unreadable or empty file, a file that changed while it was read
        (its size or modification time; a file is read as it was when opened), or any
        problem of :func:`comparisons_from_frame`, with the file's line numbers. Labels
        are normalised by :func:`normalize_label`.
    """
    from . import _input_stream as stream

    stream_given = hasattr(path, "read")
    if not stream_given:
        _checks.path(path, "path")
    check_options(
        epsilon_column, need_users=need_users, need_epsilon=need_epsilon,
        real_outcomes=real_outcomes, aggregate=aggregate, sha256=sha256,
    )  # fmt: skip
    if block_size is not None:
        _checks.count(block_size, "block_size", 1)
    if format is not None and format not in INPUT_FORMATS:
        raise ValueError(f"format must be one of {', '.join(INPUT_FORMATS)}, got {format!r}")
    if name is not None:
        _checks.text(name, "name")
    if not isinstance(both_bad, str) or both_bad not in ("tie", "drop"):
        raise ValueError(f"both_bad must be 'tie' or 'drop', got {both_bad!r}")
    if name is None:
        name = "standard input" if stream_given else os.fspath(path)
    inp = stream.InputSource.open(path, name, opening_error, digest=sha256)
    try:
        try:
            with _small_pages():
                table = _read(
                    inp,
                    name,
                    epsilon_column.strip().lower(),
                    format,
                    block_size,
                    need_users=need_users,
                    need_epsilon=need_epsilon,
                    real_outcomes=real_outcomes,
                    aggregate=aggregate,
                    both_bad=both_bad,
                )
        except Exception:
            _check_unchanged(inp, name)  # what a changed file's bytes caused: the change said
            raise
        _check_unchanged(inp, name)
        return table
    finally:
        inp.close()


def _check_unchanged(inp, source: str) -> None:
    """Raise :class:`InputError` where a regular file changed while it was read
    (:meth:`dprank.data._input_stream.InputSource.change`): its rows would be those of no
    one version of it. The message names the file and what happened, no byte of it."""
    change = inp.change()
    if change is not None:
        raise InputError(
            f"{change}; read it once nothing writes to it any more (or read a copy of it)",
            source,
        ) from None


def _read(
    inp,
    source,
    eps_name,
    format,
    block_size,
    *,
    need_users,
    need_epsilon,
    real_outcomes,
    aggregate,
    both_bad="tie",
) -> ComparisonTable:
    """:func:`read_comparisons` of an opened input (its arguments checked)."""
    from . import _input_stream as stream
    from .arena import arena_input, read_arena_input

    fmt, first = stream.sniff(inp, source, format)
    pf = original = None
    if fmt == "parquet":
        pf, original = stream.open_parquet(
            inp, source, lambda problem, line=None: InputError(problem, source, line, "row")
        )
    kind = arena_input(fmt, first, original, source, format)
    if kind is not None:  # votes with ties (an arena file): their own reader, dprank.data.arena
        if real_outcomes or eps_name != "epsilon":
            raise InputError(
                "an arena file holds votes (model_a, model_b, winner) and its budgets in the "
                "field 'epsilon'",
                source,
            )
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
    head = _read_header(
        inp,
        source,
        eps_name,
        (fmt, first, pf, original),
        need_users=need_users,
        need_epsilon=need_epsilon,
    )
    used = _used_columns(head.layout, head.names, eps_name, need_epsilon)
    names = head.names
    aggregate = bool(aggregate) and "user" not in names and not need_epsilon and not real_outcomes
    reader = BlockReader(
        source,
        names,
        head.layout,
        eps_name=eps_name,
        need_epsilon=need_epsilon,
        real_outcomes=real_outcomes,
        aggregate=aggregate,
        row_word=head.row_word,
        first_row=head.first_row,
        # at most this many rows: room made at once, so the rows' buffer never grows (a
        # guess too large costs nothing: memory is taken as it is written)
        expected_rows=(inp.size or 0) // (len(used) + len(names)),
    )
    _read_blocks(inp, source, head, used, block_size, reader)
    if reader.n_rows == 0:
        raise InputError(
            "no comparisons after the header", source, head.first_row, row_word=head.row_word
        )
    comparisons, user_labels = reader.finish()
    return ComparisonTable(
        comparisons=comparisons,
        layout=head.layout,
        n_rows=reader.n_rows,
        user_labels=user_labels,
        has_count="count" in names,
        sha256=inp.hexdigest(),
        aggregated=aggregate,
    )


@contextlib.contextmanager
def _small_pages():
    """numpy's large arrays on ordinary pages while an input is read (restored after).

    numpy asks the system for 2 MiB pages for arrays of 4 MiB and more. The reader's
    arrays are written once, front to back, so huge pages save it little address
    translation but cost their zeroing (and, where memory is fragmented, compaction)
    at the first touch: on the 25-million-row file of ``benchmarks/bench_cli.py``
    the system time of reading fell from about 1.9 s to 0.6 s without them. Only
    where memory comes from changes, no value.
    """
    core = getattr(np, "_core", None)
    setter = getattr(getattr(core, "multiarray", None), "_set_madvise_hugepage", None)
    if setter is None:  # another numpy: keep its allocation as it is
        yield
        return
    before = setter(False)
    try:
        yield
    finally:
        setter(before)


class _Header(NamedTuple):
    """What a file's header line (CSV), first object (JSON lines) or schema (Parquet) says."""

    original: list[str]  # the column names as written
    names: list[str]  # the same, normalised and in lower case
    layout: str  # "winner,loser" or "item_a,item_b,outcome"
    row_word: str  # "line" (text) or "row" (Parquet)
    first_row: int  # the number of the first data row in messages
    format: str  # "csv", "tsv", "parquet" or "jsonl"
    first: bytes  # the first line (JSON lines: the first row)
    parquet: Any  # the pyarrow ParquetFile (None for text)


def _read_header(
    inp, source: str, eps_name: str, sniffed, *, need_users: bool, need_epsilon: bool
) -> _Header:
    """The input's checked header (:func:`check_header`); ``sniffed`` is ``(format, first
    line, ParquetFile, Parquet column names)`` (:func:`dprank.data._input_stream.sniff`)."""
    from . import _input_stream as stream

    fmt, first, pf, original = sniffed

    def error(problem, line=None):
        return InputError(problem, source, line, row_word=row_word)

    if fmt == "parquet":
        row_word, first_row, header_line = "row", 1, None
    else:
        row_word = "line"
        if not first.strip() and not inp.read(1):
            raise InputError("the file is empty (expected a header line first)", source, 1)
        if not first.strip():
            raise InputError("the first line is blank (expected the header)", source, 1)
        if fmt == "jsonl":
            first_row, header_line = 1, 1
            original = stream.jsonl_header(first, error)
        else:
            first_row, header_line = 2, 1
            try:
                text = first.decode("utf-8")
            except UnicodeDecodeError:
                raise InputError("is not a UTF-8 text file", source, 1) from None
            original = next(csv.reader([text], delimiter="\t" if fmt == "tsv" else ","))
    names = [normalize_label(c).lower() for c in original]
    layout = check_header(
        names, original, eps_name, need_users=need_users, need_epsilon=need_epsilon,
        source=source, line=header_line, row_word=row_word,
    )  # fmt: skip
    return _Header(original, names, layout, row_word, first_row, fmt, first, pf)


def _read_blocks(inp, source: str, head: _Header, used, block_size, reader) -> None:
    """Give every block of the input to ``reader`` (a ``BlockReader``), then free the blocks."""
    from . import _input_stream as stream

    def error(problem, line=None):
        return InputError(problem, source, line, row_word=head.row_word)

    if head.format == "parquet":
        size = block_size or _PARQUET_ROWS
        pf, original = head.parquet, head.original
        blocks = stream.with_last(
            stream.parquet_blocks(pf, source, original, head.names, used, size, error)
        )
    elif head.format == "jsonl":
        size = block_size or _BLOCK_BYTES
        blocks = stream.with_last(
            stream.jsonl_blocks(inp, head.first, head.original, head.names, used, size, error)
        )
    else:
        sep = "\t" if head.format == "tsv" else ","
        size = block_size or _BLOCK_BYTES

        def text_reader(rest, start):
            return _text_blocks(rest, source, sep, head.names, used, size, start)

        blocks = stream.csv_blocks(inp, sep, head.names, used, reader.tables(), size, text_reader)
    columns = None
    for start, columns, last in blocks:  # a block's arrays may be written again by the next
        reader.add(start, columns, last)
    del blocks, columns
    _release_arrow_memory()  # the blocks' buffers, before the pairs are merged


def free_memory_promptly() -> None:
    """Make this process hand large freed buffers back to the system at once.

    ``--low-memory`` of ``dprank rank`` and ``dprank privatize`` (commands that read
    one file and exit): pyarrow's blocks come from the C library's allocator
    instead of pyarrow's caching pool, and (glibc) every allocation above 128 KiB
    is its own mapping, returned when freed, instead of the heap that a
    fragmenting sequence of block-sized temporaries keeps growing. It changes
    where memory comes from, not any value: a lower peak for more time (fresh
    pages for every large temporary). A library caller keeps its own allocator
    settings: only the command line calls this.
    """
    import ctypes
    import ctypes.util

    if "pyarrow" in sys.modules:
        import pyarrow as pa

        pa.set_memory_pool(pa.system_memory_pool())
    else:  # read when pyarrow makes its pool (Parquet, text): plain integers never import it
        os.environ["ARROW_DEFAULT_MEMORY_POOL"] = "system"
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
            libc.mallopt(_M_MMAP_THRESHOLD, 128 * 1024)
        except (OSError, AttributeError):  # not glibc (musl has no mallopt): keep its default
            pass


#: glibc's ``mallopt`` parameter for the size above which allocations are mapped
_M_MMAP_THRESHOLD = -3


def _release_arrow_memory() -> None:
    """Hand pyarrow's freed block buffers back to the system (its pool keeps them)."""
    if "pyarrow" not in sys.modules:  # plain integer text never imports it
        return
    import pyarrow as pa

    pa.default_memory_pool().release_unused()


def _text_blocks(rest, source: str, sep: str, names, used, block_size, start):
    """Blocks of CSV or TSV text read by pyarrow's streaming reader (``rest``: the input
    from a line start on, the header behind it), row numbers from ``start`` on."""
    import pyarrow as pa
    import pyarrow.csv as pcsv

    fields = [f"f{k}" for k in range(len(names))]
    include = [fields[names.index(c)] for c in used]
    kind = "TSV" if sep == "\t" else "CSV"
    # one thread: the rows are numbered (an invalid row's line), and it is one core anyway
    read_options = pcsv.ReadOptions(
        column_names=fields, block_size=int(block_size), use_threads=False
    )
    first_line = start + 2  # the header is line 1
    invalid = []  # the first row with another number of fields

    def invalid_row(row):
        invalid.append(row)
        return "error"

    parse_options = pcsv.ParseOptions(
        delimiter=sep, ignore_empty_lines=False, invalid_row_handler=invalid_row
    )
    convert_options = pcsv.ConvertOptions(
        include_columns=include,
        column_types={f: pa.string() for f in include},
        strings_can_be_null=False,
        quoted_strings_can_be_null=False,
    )
    try:
        reader = pcsv.open_csv(
            rest,
            read_options=read_options,
            parse_options=parse_options,
            convert_options=convert_options,
        )
        for batch in reader:
            if batch.num_rows:
                yield start, dict(zip(used, batch.columns, strict=True))
                start += batch.num_rows
    except pa.ArrowInvalid as exc:
        if invalid:
            row = invalid[0]
            line = None if row.number is None else first_line + row.number - 1
            raise InputError(
                f"{row.actual_columns} fields, but the header has {row.expected_columns}",
                source,
                line,
            ) from None
        if "UTF8" in str(exc):
            raise InputError("is not a UTF-8 text file", source) from None
        raise InputError(f"cannot be parsed as {kind}: {exc}", source) from None


def _used_columns(layout: str, names: list[str], eps_name: str, need_epsilon: bool) -> list[str]:
    """The columns to read, in the order of validation."""
    used = ["winner", "loser"] if layout == "winner,loser" else ["item_a", "item_b", "outcome"]
    used += [c for c in ("count", "user") if c in names]
    if need_epsilon:
        used.append(eps_name)
    return used
