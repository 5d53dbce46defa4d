"""The bytes of a comparison file, read once, and its blocks (private to :mod:`dprank.data.inputs`).

Every input is read in one pass from one open file: a regular file, standard
input, a pipe, ``/dev/stdin``, a process substitution ``<(...)`` or a FIFO read
the same way (a stream cannot be opened twice). :class:`InputSource` hashes the
bytes as they go (the sha256 of the record), drops a UTF-8 byte-order mark,
and lets the format be sniffed from the first bytes. The block generators give
``(first row, {column: array})``:

* CSV and TSV (:func:`csv_blocks`): blocks of simple text (no quotes, ``\\n`` or
  ``\\r\\n`` line ends) are parsed by the compiled reader (``parse_csv`` of
  :mod:`dprank.base._compiled`) straight to label ids and numbers; from the first line
  it does not take, pyarrow's streaming reader reads the rest as text, checked
  field by field. Blank lines at the end of the input are dropped. A regular file is
  parsed where the system maps it (:func:`_map`; no copy into a buffer), cut into the
  same blocks as a stream read into a buffer. Its pages are guarded
  (:class:`dprank.base._compiled.MappedPages`): where the file shrinks while it is read,
  a page past its new end reads as zeros instead of ending the process with SIGBUS, and
  the reading stops (:class:`FileChanged`).
* Parquet (:func:`parquet_blocks`): pyarrow's batches (a stream is read into
  memory first: Parquet keeps its index at the end of the file).
* JSON lines (:func:`jsonl_blocks`): one object per line, read with :mod:`json`.

A regular file is read as it was when it was opened: :meth:`InputSource.change` says
whether it changed since (its size or modification time), which the reader checks
once it has read it (and where reading it failed), so a file written to while it is
read gives one message, not a partial or torn read.
"""

from __future__ import annotations

import io
import json
import mmap
import os
import stat
from pathlib import Path
from typing import NamedTuple

BOM = b"\xef\xbb\xbf"
_SPACE = b" \t\r\n\v\f"
FORMATS = ("csv", "tsv", "parquet", "jsonl")
#: Whether CSV and TSV blocks go to the compiled parser first (tests turn it off to
#: compare with the text reader alone).
COMPILED_CSV = True
_SUFFIXES = {
    ".parquet": "parquet",
    ".pq": "parquet",
    ".parq": "parquet",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".tsv": "tsv",
    ".tab": "tsv",
    ".csv": "csv",
}


class _NoDigest:
    """Stands for the sha256 of an input read without one (nothing is computed)."""

    def update(self, data) -> None:
        pass


class InputSource:
    """One read of a file's bytes (or a binary stream's), hashed as they go.

    ``read`` returns up to ``n`` bytes (fewer only at the end), ``unread`` pushes
    bytes back (they are hashed once). ``regular`` says whether the input is a
    regular file (which pyarrow may then open again by its path); :meth:`change`,
    whether a regular file changed since it was opened.
    """

    def __init__(self, fh, path: Path | None, regular: bool, digest: bool = True):
        self.fh, self.path, self.regular = fh, path, regular
        # the sha256 only where it is asked for (an audit record, a release record's check);
        # hashlib (OpenSSL's library: about 5 ms to load) only then
        if digest:
            import hashlib

            self.sha = hashlib.sha256()
        else:
            self.sha = _NoDigest()
        self.pending = b""
        self.size = self._stamp = None
        if regular:
            st = os.fstat(fh.fileno())
            self.size, self._stamp = st.st_size, (st.st_size, st.st_mtime_ns)
        #: the guard of the file's mapping (:func:`_map`), where it is mapped
        self.mapped = None

    @classmethod
    def open(cls, path, source: str, opening_error, digest: bool = True):
        """Open ``path`` (or take a binary file object) for one read (hashed if ``digest``)."""
        if hasattr(path, "read"):
            return cls(path, None, False, digest)
        try:
            fh = open(path, "rb")
        except OSError as exc:
            raise opening_error(exc, source) from None
        try:
            regular = stat.S_ISREG(os.fstat(fh.fileno()).st_mode)
        except OSError:
            regular = False
        return cls(fh, Path(path), regular, digest)

    def read(self, n: int) -> bytes:
        if self.pending:
            data, self.pending = self.pending[:n], self.pending[n:]
            if len(data) < n:
                more = self.fh.read(n - len(data))
                self.sha.update(more)
                data += more
            return data
        data = self.fh.read(n)
        if data is None:  # a non-blocking stream with nothing yet: block until it has
            data = b""
        self.sha.update(data)
        return data

    def readinto(self, view) -> int:
        """Read into a writable buffer: the bytes read (0 only at the end)."""
        if self.pending:
            n = min(len(view), len(self.pending))
            view[:n] = self.pending[:n]
            self.pending = self.pending[n:]
            return n
        n = self.fh.readinto(view) or 0
        self.sha.update(view[:n])
        return n

    def unread(self, data: bytes) -> None:
        self.pending = data + self.pending

    def read_all(self) -> bytes:
        chunks = [self.pending]
        self.pending = b""
        while chunk := self.fh.read(1 << 24):
            self.sha.update(chunk)
            chunks.append(chunk)
        return b"".join(chunks)

    def hexdigest(self) -> str | None:
        """The sha256 of every byte, once the input has been read to its end (None where
        it was opened without ``digest``)."""
        if isinstance(self.sha, _NoDigest):
            return None
        while chunk := self.fh.read(1 << 22):  # what a reader left unread (Parquet by path)
            self.sha.update(chunk)
        return self.sha.hexdigest()

    def change(self) -> str | None:
        """What happened to a regular file since it was opened (None: nothing seen).

        Its size and modification time now against those at the opening, and whether
        its mapping lost pages; the words name no byte of it. A stream has nothing to
        compare (None).
        """
        if self._stamp is None:
            return None
        try:
            st = os.fstat(self.fh.fileno())
            now = (st.st_size, st.st_mtime_ns)
        except (OSError, ValueError):  # closed: as read
            now = self._stamp
        if now[0] < self._stamp[0]:
            return "the file became shorter while it was read"
        if now[0] > self._stamp[0]:
            return "the file grew while it was read"
        if now[1] != self._stamp[1]:
            return "the file was written to while it was read"
        if self.mapped is not None and self.mapped.lost:
            return "part of the file could not be read (an input/output error)"
        return None

    def close(self) -> None:
        if self.path is not None:
            self.fh.close()


class FileChanged(Exception):
    """The mapped reading of a file stopped: pages of it were lost, or the file changed
    before its rest was read as text (:meth:`InputSource.change` says what happened)."""


def sniff(inp: InputSource, name: str, given: str | None) -> tuple[str, bytes]:
    """``(format, first line)``: the format (``given`` or sniffed) and, for text, the header.

    The first line is returned without its line end and byte-order mark (b"" where
    the input is empty); for Parquet it is b"". Sniffed: the Parquet magic bytes,
    else the name's suffix, else JSON lines where the first character is ``{``,
    else CSV; CSV (by name or content) is TSV where the first line has a tab and no
    comma.
    """
    head = inp.read(4)
    if head.startswith(BOM[: len(head)]) and len(head) >= 3:  # a UTF-8 byte-order mark
        inp.unread(head[3:])
        head = inp.read(4)
    fmt = given
    if fmt is None and head == b"PAR1":
        fmt = "parquet"
    if fmt is None:
        fmt = _SUFFIXES.get(Path(name).suffix.lower())
    if fmt == "parquet":
        inp.unread(head)
        return fmt, b""
    inp.unread(head)
    line = _first_line(inp)
    if fmt is None:
        fmt = "jsonl" if line.lstrip().startswith(b"{") else "csv"
    if given is None and fmt == "csv" and b"\t" in line and b"," not in line:
        fmt = "tsv"  # a header of tabs and no commas, whatever the name says
    return fmt, line


def _first_line(inp: InputSource) -> bytes:
    """The first line (its end and the rest pushed back)."""
    got = b""
    while True:
        chunk = inp.read(1 << 16)
        got += chunk
        nl = got.find(b"\n")
        if nl >= 0 or not chunk:
            break
    if nl < 0:
        line, rest = got, b""
    else:
        line, rest = got[:nl], got[nl + 1 :]
    inp.unread(rest)
    return line.rstrip(b"\r")


def keep_length(block, size: int | None = None) -> int:
    """The length of ``block[:size]`` without the blank lines at its end (it ends the input).

    The last line that holds anything but whitespace is kept whole, with its line
    end; the whitespace-only lines after it are dropped.
    """
    size = len(block) if size is None else size
    k = size
    while k and block[k - 1] in _SPACE:
        k -= 1
    if k == 0:
        return 0
    nl = block.find(b"\n", k, size)
    return size if nl < 0 else nl + 1


# --------------------------------------------------------------------------- CSV and TSV


def with_last(blocks):
    """``(start, columns, last)``: each block of ``blocks`` with whether it is the last."""
    pending = None
    for block in blocks:
        if pending is not None:
            yield (*pending, False)
        pending = block
    if pending is not None:
        yield (*pending, True)


class _Layout(NamedTuple):
    """What the compiled parser takes from each field of a CSV line (:func:`csv_blocks`).

    ``kinds[k]``, ``slots[k]``: field ``k`` skipped, or a label or number and its row in
    the parser's outputs; ``handles``: the label tables of ``label_cols``; ``used``: the
    columns a block gives, in order.
    """

    kinds: list
    slots: list
    sep: str
    handles: list
    label_cols: list
    number_cols: list
    used: list

    def blocks(self, data, cut: int, outputs: list, start: int, last: bool):
        """Yield ``(start, {column: array}, last)`` of the lines in ``data[:cut]`` where
        the parser takes any, and return ``(rows, stop, reason)`` of
        :func:`dprank.base._compiled.parse_csv` (``outputs``: its buffers, written again
        by the next block; the consumer copies what it keeps)."""
        from ..base import _compiled as nc
        from ._input_blocks import Coded

        # a line taken has a character in each field read, its delimiters and its end
        cap = cut // (len(self.used) + len(self.kinds)) + 1
        rows, ids, nums, stop, reason = nc.parse_csv(
            data, cut, self.kinds, self.slots, self.sep, self.handles, cap, out=outputs
        )
        if rows:
            labels, numbers = self.label_cols, self.number_cols
            columns = {c: Coded(ids[labels.index(c), :rows]) for c in labels}
            columns.update({c: nums[numbers.index(c), :rows] for c in numbers})
            yield start, {c: columns[c] for c in self.used}, last
        return rows, stop, reason


def csv_blocks(inp: InputSource, sep: str, names, used, tables, block_size: int, text_reader):
    """``(first row, {column: array}, last)`` per block of CSV or TSV text after the header.

    ``tables[c]``: the label table (:class:`dprank.base._compiled.LabelTable`) of a label
    column ``c`` of ``used``. The compiled parser gives label columns as int32 ids
    (:class:`dprank.data._input_blocks.Coded`) and number columns as float64, in
    buffers written again by the next block (a consumer copies what it keeps);
    from the first line it does not take, ``text_reader(stream, start)``
    (pyarrow) gives the rest as text arrays.
    """
    from ..base import _compiled as nc

    label_cols = [c for c in used if c in tables]
    kinds = [nc.SKIP] * len(names)
    slots = [-1] * len(names)
    for c in used:
        k = names.index(c)
        if c in tables:
            kinds[k], slots[k] = nc.LABEL, label_cols.index(c)
        else:
            number_cols = [u for u in used if u not in tables]
            kinds[k], slots[k] = nc.NUMBER, number_cols.index(c)
    number_cols = [u for u in used if u not in tables]
    layout = _Layout(
        kinds, slots, sep, [tables[c] for c in label_cols], label_cols, number_cols, used
    )
    if COMPILED_CSV:
        mapped = _map(inp)
        if mapped is not None:  # a regular file: parsed where the system maps it, no copy
            yield from _mapped_blocks(inp, *mapped, layout, block_size, text_reader)
            return
    # one buffer, read into block after block; the unfinished last line moves to its front
    buf = bytearray(block_size)
    start, have, outputs = 0, 0, []
    while True:
        if have == len(buf):  # a line longer than the buffer
            buf.extend(bytes(len(buf)))
        got = inp.readinto(memoryview(buf)[have:])
        at_end = got == 0
        have += got
        if at_end:
            cut = keep_length(buf, have)
        else:
            cut = buf.rfind(b"\n", 0, have) + 1
            if cut == 0:
                continue  # no line end yet: read on
        if not cut:
            return
        if not COMPILED_CSV:
            inp.unread(bytes(buf[:have]))
            yield from with_last(text_reader(_Rest(inp), start))
            return
        # whether a block is the last is known only for the input's final block (a block
        # ending where the file ends is called not last: only a message's wording)
        rows, stop, reason = yield from layout.blocks(buf, cut, outputs, start, at_end)
        start += rows
        if reason == nc.DONE:
            if at_end:
                return
            buf[: have - cut] = buf[cut:have]
            have -= cut
            continue
        if reason == nc.BLANK_LINE and not at_end and not buf[stop:cut].strip(_SPACE):
            buf[: have - stop] = buf[stop:have]  # blank lines at the block's end: the input's?
            have -= stop
            continue
        # the first line the compiled parser does not take: the rest as text
        inp.unread(bytes(buf[stop:have]))
        del buf
        yield from with_last(text_reader(_Rest(inp), start))
        return


def _map(inp: InputSource):
    """``(mapping, offset, guard)``: a regular file mapped for reading, the offset of the
    input's next byte (the bytes pushed back included) and the mapping's guard
    (:class:`dprank.base._compiled.MappedPages`), or None where the input is no regular file,
    has nothing left, or the system refuses to map or guard it (it is then read into a
    buffer)."""
    from ..base import _compiled as nc

    if not inp.regular:
        return None
    try:
        at = inp.fh.tell() - len(inp.pending)
        if os.fstat(inp.fh.fileno()).st_size <= at:
            return None
        mm = mmap.mmap(inp.fh.fileno(), 0, access=mmap.ACCESS_READ)
    except (OSError, ValueError):
        return None
    guard = nc.MappedPages(mm)  # before any page is read
    if (
        not guard.guarded
        or at < 0
        or mm[at : at + len(inp.pending)] != inp.pending  # not the file's own bytes
    ):
        guard.close()
        mm.close()
        return None
    inp.mapped = guard
    return mm, at, guard


def _mapped_blocks(inp: InputSource, mm, at: int, guard, layout, block_size: int, text_reader):
    """:func:`csv_blocks` of a mapped regular file (:func:`_map`), from offset ``at``.

    The same blocks, cut at the same places, as the buffered reading of
    :func:`csv_blocks` (a window of the mapping stands for its buffer: from the first
    line not taken, ``block_size`` bytes on, twice that where a line is longer), and the
    same bytes hashed; the parser reads the system's pages of the file, which are not
    copied into a buffer first. The pages of the lines parsed are handed back as the
    reading goes (only a window's pages are held at a time). Where the file shrinks
    meanwhile, the pages past its new end read as zeros (``guard``): no block parsed from
    them is given, :class:`FileChanged` is raised instead.
    """
    from ..base import _compiled as nc

    size = len(mm)
    view = memoryview(mm)
    hashed = inp.fh.tell()  # the bytes before it were hashed as they were read
    dropped = 0  # the pages before it are handed back
    drop = getattr(mm, "madvise", None) if hasattr(mmap, "MADV_DONTNEED") else None
    pos, filled, span, start, outputs = at, at, block_size, 0, []

    def settle(upto: int) -> None:
        """Hash the bytes up to ``upto`` and leave the file there (for what reads on)."""
        nonlocal hashed
        if upto > hashed:
            inp.sha.update(view[hashed:upto])
            hashed = upto
        inp.pending = b""
        inp.fh.seek(hashed)

    try:
        while True:
            if filled - pos == span:  # a line longer than the window
                span *= 2
            new = min(size, pos + span)
            at_end = new == filled
            filled = new
            if at_end:
                k = filled
                while k > pos and mm[k - 1] in _SPACE:
                    k -= 1
                nl = mm.find(b"\n", k, filled) if k > pos else -1
                cut = 0 if k == pos else (filled if nl < 0 else nl + 1) - pos
            else:
                cut = mm.rfind(b"\n", pos, filled) + 1 - pos
                if cut <= 0:
                    continue  # no line end yet: a longer window
            if not cut:
                settle(size)
                return
            # the window's view is not kept (the mapping closes only with no view held)
            rows, stop, reason = yield from _whole(
                layout.blocks(view[pos : pos + cut], cut, outputs, start, at_end), guard
            )
            start += rows
            if reason == nc.DONE:
                if at_end:
                    settle(size)
                    return
                pos += cut
            elif (
                reason == nc.BLANK_LINE
                and not at_end
                and not mm[pos + stop : pos + cut].strip(_SPACE)
            ):
                pos += stop  # blank lines at the window's end: the input's?
            else:  # the first line the compiled parser does not take: the rest as text
                settle(max(filled, hashed))
                inp.unread(bytes(view[pos + stop : hashed]))
                break
            if drop is not None and pos - dropped >= 1 << 20:
                upto = pos - pos % mmap.PAGESIZE
                drop(mmap.MADV_DONTNEED, dropped, upto - dropped)
                dropped = upto
    finally:
        try:
            view.release()
        except BufferError:  # a view still held: the mapping goes with it
            pass
        guard.close()  # no page is read after this
        try:
            mm.close()
        except BufferError:
            pass
    if guard.lost:  # the pages hashed or handed on were read after the file shrank
        raise FileChanged
    if inp.change() is not None:
        # changed meanwhile (a line cut where the file now ends, in a page still mapped):
        # its rest is no one version's, and is not handed to pyarrow's text reader, whose
        # threads, still reading ahead as the process exits, can abort it
        raise FileChanged
    yield from with_last(text_reader(_Rest(inp), start))


def _whole(blocks, guard):
    """The blocks of ``blocks`` and its return value, each once the pages it was read from
    are known to be the file's (:class:`FileChanged` where ``guard`` lost any)."""
    while True:
        try:
            block = next(blocks)
        except StopIteration as done:
            if guard.lost:
                raise FileChanged from None
            return done.value
        if guard.lost:
            raise FileChanged
        yield block


class _Rest(io.RawIOBase):
    """The rest of an input as a file for pyarrow, without the blank lines at its end."""

    def __init__(self, inp: InputSource):
        self.inp = inp
        self.held = b""  # whitespace read but not given yet (the end of the input?)
        self.out = b""

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        n = len(buffer)
        while len(self.out) < n:
            chunk = self.inp.read(max(n, 1 << 20))
            if not chunk:
                if self.held:
                    self.out += self.held[: keep_length(self.held)]
                    self.held = b""
                break
            data = self.held + chunk
            k = len(data)
            while k and data[k - 1] in _SPACE:
                k -= 1
            if k == 0:
                self.held = data
                continue
            nl = data.find(b"\n", k)
            cut = len(data) if nl < 0 else nl + 1
            self.out += data[:cut]
            self.held = data[cut:]
        got, self.out = self.out[:n], self.out[n:]
        buffer[: len(got)] = got
        return len(got)


# --------------------------------------------------------------------------- Parquet


def open_parquet(inp: InputSource, source: str, error):
    """A pyarrow ParquetFile of the input (a stream read into memory) and its column names."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        if inp.regular:
            pf = pq.ParquetFile(inp.path)
        else:
            pf = pq.ParquetFile(pa.BufferReader(inp.read_all()))
    except (pa.ArrowException, OSError) as exc:
        raise error(f"is not a readable Parquet file ({exc})") from None
    return pf, list(pf.schema_arrow.names)


def parquet_blocks(pf, source: str, original, names, used, batch_rows: int, error):
    import pyarrow as pa

    columns = [original[names.index(c)] for c in used]
    start = 0
    try:
        for batch in pf.iter_batches(batch_size=int(batch_rows), columns=columns):
            if batch.num_rows:
                yield start, dict(zip(used, batch.columns, strict=True))
                start += batch.num_rows
    except (pa.ArrowException, OSError) as exc:
        raise error(f"cannot be read as Parquet ({exc})") from None


# --------------------------------------------------------------------------- JSON lines


def jsonl_header(line: bytes, error) -> list[str]:
    """The column names of a JSON lines input: the keys of its first object."""
    try:
        first = json.loads(line.decode("utf-8"))
    except UnicodeDecodeError:
        raise error("is not a UTF-8 text file", 1) from None
    except json.JSONDecodeError as exc:
        raise error(f"is not a JSON object ({exc.msg})", 1) from None
    if not isinstance(first, dict):
        raise error(f"is not a JSON object (a {type(first).__name__})", 1)
    return [str(k) for k in first]


def jsonl_blocks(inp: InputSource, first: bytes, original, names, used, block_size: int, error):
    """Blocks of a JSON lines input (first line ``first``): one object per line.

    Every column comes as pyarrow text, as from a CSV file: a JSON number as Python
    writes it, ``true`` and ``false`` as 1 and 0, null or a missing key as a
    missing value, any other value as its JSON.
    """
    keys = [original[names.index(c)] for c in used]
    start, rest = 0, first + b"\n"
    line_no = 0
    while True:
        chunk = inp.read(block_size)
        data = rest + chunk
        if chunk:
            cut = data.rfind(b"\n") + 1
            rest = data[cut:]
            data = data[:cut]
        else:
            rest = b""
            data = data[: keep_length(data)]
        lines = data.split(b"\n")
        if lines and lines[-1] == b"":
            lines.pop()
        values: list[list] = [[] for _ in used]
        for raw in lines:
            line_no += 1
            try:
                obj = json.loads(raw)
            except UnicodeDecodeError:
                raise error("is not a UTF-8 text file", line_no) from None
            except json.JSONDecodeError as exc:
                raise error(f"is not a JSON object ({exc.msg})", line_no) from None
            if not isinstance(obj, dict):
                raise error(f"is not a JSON object (a {type(obj).__name__})", line_no)
            for k, key in enumerate(keys):
                values[k].append(obj.get(key))
        if lines:
            yield start, {c: _json_column(v) for c, v in zip(used, values, strict=True)}
            start += len(lines)
        if not chunk:
            return


def _json_column(values: list):
    """A column of JSON values as pyarrow text (None where missing or null), as CSV gives it."""
    import pyarrow as pa

    return pa.array(
        [v if v is None or isinstance(v, str) else _json_text(v) for v in values], type=pa.string()
    )


def _json_text(v) -> str:
    if isinstance(v, bool):
        return "1" if v else "0"
    if isinstance(v, (int, float)):
        return repr(v)
    return json.dumps(v)
