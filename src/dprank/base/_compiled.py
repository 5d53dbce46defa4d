"""dprank's compiled part, the extension ``dprank._native``, loaded with ctypes.

The package build (``setup.py``, a setuptools extension) compiles the C sources
of ``src/native/`` into ``dprank._native`` and ships it in the wheel, so an
installed dprank has it with no compiler at install time, and nothing is
compiled at run time. It holds

* the sparse Newton-CG's per-pair loops (``loops.c``: :func:`btl_pass`,
  :func:`btl_value`, :func:`scatter_pairs`, :func:`zero_pass`,
  :func:`laplacian_mv`, :func:`pcg`), reached through
  :func:`dprank.objective.kernels`, and :func:`logistic_totals`, the win totals of the
  censored items of :mod:`dprank.intervals` at the prior's nodes (``loops.c`` too);
* :func:`format_floats`, floats written as ``repr`` writes them (``shortest.c``), and
  :func:`csv_rows`, the ranking's rows as CSV text (``module.c``);
* the comparison reader (``reader.c``): :func:`parse_csv` of CSV and TSV
  blocks, :class:`LabelTable` (provisional ids of labels) and
  :class:`PairRows` (comparisons summed by item pair with a radix sort), used by
  :mod:`dprank.data.inputs`, and :class:`MappedPages` (``mapguard.c``), a mapped
  input file's pages kept readable where the file shrinks while it is read;
* the comparison records' checks (``records.c``): :func:`check_records`, the checks of
  :class:`dprank.data.comparisons.Comparisons` with the copies in one pass, and
  :func:`sorted_pairs`, the pair statistics of records whose pairs come sorted and distinct.

The library is plain C (no numpy or Python API beyond an empty module), so it
is called through ctypes with the arrays' pointers: a call costs microseconds
and each is a whole pass over the data. The loops are compiled without
fast-math and without contraction (``_native_build.FLAGS``): IEEE arithmetic in
the order written, the same bits on every machine.

In a source checkout the build compiled in a hash of the sources
(``native_source_digest``); where the sources beside it differ (edited after
the last build), loading stops with a message saying how to rebuild, instead
of running stale code. The hash is computed at a start only where the sources'
sizes and modification times differ from those the build saw
(``native_source_stamp``): the very files it compiled need no second look.
"""

from __future__ import annotations

import ctypes
import importlib.util
from pathlib import Path

import numpy as np

__all__: list[str] = []

#: Largest score spread for which the node-wise exponentials of ``btl_pass`` are exact.
NODE_EXP_SPREAD = 600.0

_LIB = None


class NativeMissingError(ImportError):
    """The extension ``dprank._native`` is not built (or is older than its sources)."""


def library_path() -> Path | None:
    """The built extension's file, or None where it is missing."""
    spec = importlib.util.find_spec("dprank._native")
    if spec is None or not spec.origin or not Path(spec.origin).is_file():
        return None
    return Path(spec.origin)


def source_folder() -> Path:
    """Where the C sources lie in a source checkout (``src/native``; absent in an install)."""
    return Path(__file__).resolve().parents[2] / "native"


def _check_fresh(lib, sources: Path | None = None) -> None:
    """In a source checkout, refuse a build older than the C sources beside it."""
    sources = source_folder() if sources is None else sources
    if not (sources / "reader.c").is_file():
        return  # an installed package: its sources are not beside it
    from ._native_build import source_digest, source_stamp

    if lib.native_source_stamp().decode() == source_stamp(sources):
        return  # the very files the build compiled, untouched since: no digest to compute
    built = lib.native_source_digest().decode()
    if built != source_digest(sources):
        raise NativeMissingError(
            f"dprank's compiled part ({library_path()}) was built from other C sources than "
            f"those in {sources}: rebuild it with `make setup` (or `pip install -e .`)"
        )


_VP, _I64, _F64 = ctypes.c_void_p, ctypes.c_int64, ctypes.c_double
_SIGNATURES = {
    # loops.c
    "btl_pass": (ctypes.c_int, [_I64] + [_VP] * 8),
    "btl_value": (_F64, [_I64] + [_VP] * 5),
    "btl_pass_whole": (ctypes.c_int, [_I64] + [_VP] * 8),
    "btl_value_whole": (_F64, [_I64] + [_VP] * 5),
    "zero_pass_whole": (None, [_I64] + [_VP] * 7),
    "scatter_pairs": (None, [_I64] + [_VP] * 6),
    "zero_pass": (None, [_I64] + [_VP] * 7),
    "laplacian_mv": (ctypes.c_int, [_I64] + [_VP] * 6),
    "pcg": (_I64, [_I64] + [_VP] * 5 + [_F64] * 4 + [_I64, _VP, _VP]),
    "components": (_I64, [_I64, _I64, _VP, _VP, _VP, _VP]),
    "row_starts": (None, [_I64, _I64, _VP, _VP]),
    "row_starts_wide": (None, [_I64, _I64, _VP, _VP]),
    "logistic_totals": (ctypes.c_int, [_I64] + [_VP] * 4 + [_I64, _VP, _I64, _VP, _F64, _VP]),
    # reader.c
    "labels_new": (_VP, []),
    "labels_free": (None, [_VP]),
    "labels_count": (_I64, [_VP]),
    "labels_text_bytes": (_I64, [_VP, _I64, _I64]),
    "labels_export": (None, [_VP, _I64, _I64, _VP, _VP, _VP]),
    "labels_encode_texts": (_I64, [_VP, _VP, _VP, _VP, _I64, _VP]),
    "labels_encode_ints": (_I64, [_VP, _VP, _I64, _VP]),
    "ints_to_text": (None, [_I64, _VP, _I64, _VP]),
    "parse_csv": (_I64, [_VP, _I64, _I64, _VP, _VP, _I64, _VP, _VP, _VP, _I64, _VP]),
    "rows_pack": (None, [_I64, _VP, _VP, _VP, _VP]),
    "rows_sum": (_I64, [_I64, _VP, _VP, _VP, _VP, _VP, _I64, _VP, _VP, _I64]),
    "pairs_new": (_VP, []),
    "pairs_free": (None, [_VP]),
    "pairs_count": (_I64, [_VP]),
    "pairs_add": (_I64, [_VP, _I64, _VP, _VP, _VP]),
    "pairs_export": (None, [_VP, _I64, _VP, _VP]),
    # records.c
    "records_check": (_I64, [_I64, _I64, _VP, _VP, _VP, _VP, _I64, _I64, _VP, _VP, _VP, _VP]),
    "sorted_pairs": (_I64, [_I64] + [_VP] * 8),
    # mapguard.c
    "map_guard_add": (_I64, [_VP, _I64]),
    "map_guard_lost": (ctypes.c_int, [_I64]),
    "map_guard_remove": (ctypes.c_int, [_I64]),
    "map_guard_installed": (ctypes.c_int, []),
    # module.c
    "native_source_digest": (ctypes.c_char_p, []),
    "native_source_stamp": (ctypes.c_char_p, []),
}


def lib():
    """The loaded library (ctypes), loaded on first use.

    Raises
    ------
    NativeMissingError
        The extension is not built, or (in a source checkout) is older than its sources.
    """
    global _LIB
    if _LIB is not None:
        return _LIB
    path = library_path()
    if path is None:
        raise NativeMissingError(
            "dprank's compiled part (the extension dprank._native) is not built: install the "
            "package (`pip install .`, or `make setup` in a source checkout)"
        )
    loaded = ctypes.CDLL(str(path))
    _bind(loaded, path)
    _check_fresh(loaded)
    _LIB = loaded
    return loaded


def _bind(loaded, path) -> None:
    """Give each function of ``loaded`` its C signature; a build that lacks one is stale.

    A build older than the sources may lack a function the sources have since gained; that
    is the same stale build :func:`_check_fresh` refuses, so it gets the same message rather
    than ctypes' ``undefined symbol`` (which :func:`_check_fresh` could not reach).
    """
    for name, (res, args) in _SIGNATURES.items():
        try:
            fn = getattr(loaded, name)
        except AttributeError:
            raise NativeMissingError(
                f"dprank's compiled part ({path}) lacks the function {name!r} of its C sources: "
                "it is older than this version; rebuild it with `make setup` "
                "(or `pip install -e .`)"
            ) from None
        fn.restype, fn.argtypes = res, args


# --------------------------------------------------------------------------- solver loops

_F, _I32 = np.float64, np.int32


def _run(fn, *args):
    """Call ``fn`` with pointers for its array arguments, the arrays kept alive through it.

    An argument ``(array, dtype)`` is an input (a C-contiguous view, copied only
    if it is not one); ``(array, None)`` an output, which must already be a
    writeable C-contiguous float64 array; anything else is passed as it is.
    """
    keep, cargs = [], []
    for arg in args:
        if isinstance(arg, tuple):
            arr, dtype = arg
            if dtype is None:
                if arr.dtype != _F or not arr.flags.c_contiguous or not arr.flags.writeable:
                    raise TypeError("outputs must be writeable C-contiguous float64 arrays")
            else:
                arr = np.ascontiguousarray(arr, dtype=dtype)
            keep.append(arr)
            cargs.append(arr.ctypes.data)
        else:
            cargs.append(arg)
    result = fn(*cargs)
    del keep
    return result


def partners(b: np.ndarray) -> np.ndarray:
    """The partners as int32 (the loops' index type; items are numbered below 2^31)."""
    if b.dtype != _I32:
        if b.size and int(b.max()) >= 2**31:
            raise ValueError("the compiled loops take at most 2^31 - 1 items")
        b = b.astype(_I32)
    return b


def _counts(name: str, cnt, w):
    """The loop ``name`` for these counts and wins, and their arguments: the int32 loop
    (``name_whole``) where both are int32 (whole numbers below 2^31, as the reader's pair
    sums keep them: the same doubles, half the memory read), else the float64 one."""
    if cnt.dtype == _I32 and w.dtype == _I32:
        return getattr(lib(), name + "_whole"), ((cnt, _I32), (w, _I32))
    return getattr(lib(), name), ((cnt, _F), (w, _F))


def btl_pass(theta, ptr, b, cnt, w, grad, diag, h):
    """Logistic link, one pass over the pairs in rows: add the gradient to ``grad``
    and the Hessian's diagonal to ``diag``, store the pair weights in ``h``. ``cnt``
    and ``w``: float64, or both int32 (whole numbers; the same results)."""
    fn, counts = _counts("btl_pass", cnt, w)
    args = (theta, _F), (ptr, np.int64), (partners(b), _I32), *counts
    if _run(fn, theta.size, *args, (grad, None), (diag, None), (h, None)):
        raise MemoryError("btl_pass: out of memory")


def btl_value(theta, ptr, b, cnt, w) -> float:
    """The logistic pairs' loss ``sum n l(d) - w d`` at ``theta`` (``cnt``, ``w`` as in
    :func:`btl_pass`)."""
    fn, counts = _counts("btl_value", cnt, w)
    args = (theta, _F), (ptr, np.int64), (partners(b), _I32), *counts
    return _run(fn, theta.size, *args)


def scatter_pairs(ptr, b, g, h, grad, diag):
    """Add per-pair derivatives ``g``, ``h`` to ``grad`` and ``diag`` (any link)."""
    args = (ptr, np.int64), (partners(b), _I32), (g, _F), (h, _F), (grad, None), (diag, None)
    _run(lib().scatter_pairs, ptr.size - 1, *args)


def zero_pass(ptr, b, cnt, w, grad, diag, h):
    """:func:`btl_pass` at ``theta = 0`` (every ``F(0) = 1/2``: no exponentials)."""
    fn, counts = _counts("zero_pass", cnt, w)
    args = (ptr, np.int64), (partners(b), _I32), *counts
    _run(fn, ptr.size - 1, *args, (grad, None), (diag, None), (h, None))


def laplacian_mv(x, ptr, b, h, diag, out):
    """``out = diag * x - U x - U^T x`` (the Hessian's Laplacian part times ``x``)."""
    args = (x, _F), (ptr, np.int64), (partners(b), _I32), (h, _F), (diag, _F), (out, None)
    if _run(lib().laplacian_mv, x.size, *args):
        raise MemoryError("laplacian_mv: out of memory")


def pcg(ptr, b, h, diag, rhs, c, ones_eig, rtol, atol_update, max_iter):
    """Preconditioned CG on ``(L(h) + c 11^T + gamma I) x = rhs``: ``(x, iterations, positive)``."""
    x = np.empty(rhs.size)
    positive = np.zeros(1, dtype=np.int32)
    it = _run(
        lib().pcg, rhs.size, (ptr, np.int64), (partners(b), _I32), (h, _F), (diag, _F),
        (rhs, _F), float(c), float(ones_eig), float(rtol), float(atol_update), int(max_iter),
        (x, None), (positive, _I32),
    )  # fmt: skip
    if it < 0:
        raise MemoryError("pcg: out of memory")
    return x, int(it), bool(positive[0])


def row_starts(n: int, a: np.ndarray) -> np.ndarray:
    """``np.searchsorted(a, np.arange(n + 1))`` (int64) of int32 or int64 ``a`` sorted, each
    entry in ``0 .. n - 1``: where each of the ``n`` rows of CSR form starts, in one pass
    over ``a``."""
    ptr = np.empty(n + 1, dtype=np.int64)
    if a.dtype == np.int64:
        a = np.ascontiguousarray(a)
        lib().row_starts_wide(n, a.size, _ptr(a), _ptr(ptr))
        return ptr
    a = np.ascontiguousarray(a, dtype=_I32)
    lib().row_starts(n, a.size, _ptr(a), _ptr(ptr))
    return ptr


def components(n: int, a: np.ndarray, b: np.ndarray) -> tuple[int, np.ndarray]:
    """Connected components of the graph with edges ``(a[k], b[k])`` on ``n`` nodes:
    their number and a label per node, numbered by each component's smallest node."""
    a = np.ascontiguousarray(a, dtype=_I32)
    b = np.ascontiguousarray(b, dtype=_I32)
    label = np.empty(n, dtype=np.int64)
    parent = np.empty(n, dtype=np.int64)
    count = lib().components(n, a.size, _ptr(a), _ptr(b), _ptr(label), _ptr(parent))
    return int(count), label


def logistic_totals(rows, start, opponent, count, at, nodes, ref) -> np.ndarray:
    """``(rows, nodes)``: each item's win total at each node under the logistic link,
    ``sum_p count[p] F(node - at[opponent[p]])`` over its pairs ``start[i]:start[i + 1]``
    (summed in their order), computed as ``1 / (1 + e^(a - ref) e^(ref - node))``: one
    exponential per item and per node. ``at`` and ``nodes`` must lie within
    ``NODE_EXP_SPREAD / 2`` of ``ref`` (no factor overflows)."""
    rows = np.ascontiguousarray(rows, dtype=np.int64)
    at, nodes = (np.ascontiguousarray(x, dtype=_F) for x in (at, nodes))
    if rows.size and (rows.min() < 0 or rows.max() >= start.size - 1):
        raise ValueError("logistic_totals: an item number outside the pair index")
    mu = np.empty((rows.size, nodes.size))
    code = _run(
        lib().logistic_totals, rows.size, (rows, np.int64), (start, np.int64),
        (partners(opponent), _I32), (count, _F), at.size, (at, _F), nodes.size, (nodes, _F),
        float(ref), (mu, None),
    )  # fmt: skip
    if code:
        raise MemoryError("logistic_totals: out of memory")
    return mu


# --------------------------------------------------------------------------- output


def format_floats(values: np.ndarray) -> list[str]:
    """``list(map(repr, values.tolist()))`` of a float array, written by the extension.

    The extension writes each double as ``float.__repr__`` does (``shortest.c``: the
    shortest spelling that reads back to the same double, the nearest of those, ``1.0``,
    ``1e-05``, ``inf``, ``nan``), to the byte, without a Python float per value and
    without Python's big-number dtoa (the ranking's scores).
    """
    lib()  # loaded and checked fresh (a source checkout's build matches its sources)
    from .._native import format_floats as write

    return write(np.ascontiguousarray(values, dtype=np.float64))


def _csv_column(values: np.ndarray):
    """A column as the extension's ``format_csv`` takes it: a native buffer, or str."""
    kind = values.dtype.kind
    if kind == "f":
        return np.ascontiguousarray(values, dtype=np.float64)
    if kind == "b":
        return np.ascontiguousarray(values, dtype=np.bool_)
    if kind == "i" or (kind == "u" and values.dtype.itemsize < 8):
        return np.ascontiguousarray(values, dtype=np.int64)
    if kind == "u":
        return np.ascontiguousarray(values, dtype=np.uint64)
    if kind == "U":
        return values.tolist()
    return values.astype(str).tolist()


def csv_rows(columns) -> bytes:
    """The rows of equally long ``columns`` (arrays) as CSV text, UTF-8, nothing quoted.

    Each field is ``str`` of its Python value (``repr`` of a float: :func:`format_floats`'
    text; ``True``/``False``; a text column as it is), the fields joined by ``,`` and
    each row ended by ``\\n``: the bytes of ``"".join(",".join(row) + "\\n" ...)`` over
    the rows' texts, written by the extension (``module.c``) without a Python object
    per field. The caller checks that no field needs quoting.
    """
    lib()
    from .._native import format_csv

    return format_csv(tuple(_csv_column(np.asarray(values)) for values in columns))


# --------------------------------------------------------------------------- records

#: What :func:`check_records` found every record to be (``records.c``): an outcome 0 or 1,
#: a count of 1, a whole count below 2^53, and the pairs ``(min(i, j), max(i, j))``
#: strictly increasing (distinct, in the order of the pair statistics).
RECORDS_BINARY, RECORDS_UNIT, RECORDS_WHOLE, RECORDS_SORTED = 1, 2, 4, 8


def check_records(n_items, i, j, y, count, weighted, ties, copy=True):
    """Check comparison records (``records.c``) and copy them in the same pass.

    ``i``, ``j``: C-contiguous int64, ``y``, ``count``: C-contiguous float64, all of one
    length. Returns ``None`` where a record is not valid (``0 <= i, j < n_items``, ``i !=
    j``, ``y`` finite, and with ``ties`` 0, 1 or 1/2, ``count`` finite and positive, and
    unless ``weighted`` whole), else ``(flags, arrays)``: the ``RECORDS_*`` flags that hold
    for every record and the copies ``(i, j, y, count)`` (the inputs where ``copy`` is
    False).
    """
    m = i.size
    out = (np.empty(m, np.int64), np.empty(m, np.int64), np.empty(m), np.empty(m)) if copy else (
        None, None, None, None)  # fmt: skip
    flags = lib().records_check(
        m, int(n_items), _ptr(i), _ptr(j), _ptr(y), _ptr(count), int(bool(weighted)),
        int(bool(ties)), *(_ptr(x) for x in out),
    )  # fmt: skip
    if flags < 0:
        return None
    return int(flags), (out if copy else (i, j, y, count))


def sorted_pairs(i, j, y, count):
    """The pair statistics ``(a, b, n, w, finite)`` of checked records (:func:`check_records`)
    whose pairs strictly increase (``RECORDS_SORTED``): ``a = min(i, j)``, ``b = max(i, j)``
    (int64), ``n = count`` (a copy) and ``w = where(i < j, y, 1 - y) * count``, the bits of
    numpy's elementwise operations; ``finite``: whether every ``w`` is finite."""
    m = i.size
    a, b = np.empty(m, np.int64), np.empty(m, np.int64)
    n, w = np.empty(m), np.empty(m)
    finite = lib().sorted_pairs(
        m, _ptr(i), _ptr(j), _ptr(y), _ptr(count), _ptr(a), _ptr(b), _ptr(n), _ptr(w)
    )
    return a, b, n, w, bool(finite)


# --------------------------------------------------------------------------- reader


def _ptr(arr: np.ndarray | None):
    return None if arr is None else arr.ctypes.data


class LabelTable:
    """Provisional ids of labels, numbered as they first appear (``reader.c``).

    A label is a field with ASCII whitespace stripped from both ends; one spelled
    as Python prints an int (``12``, ``-3``; not ``007``, ``+3``) is kept as that
    integer, any other as its UTF-8 bytes. :meth:`export` gives the labels of a
    range of ids.
    """

    def __init__(self):
        self._lib = lib()
        self._ptr = self._lib.labels_new()
        if not self._ptr:
            raise MemoryError("out of memory for a label table")

    def __del__(self):
        ptr, self._ptr = getattr(self, "_ptr", None), None
        if ptr:
            self._lib.labels_free(ptr)

    @property
    def handle(self) -> int:
        return self._ptr

    def __len__(self) -> int:
        return int(self._lib.labels_count(self._ptr))

    def encode_ints(self, values: np.ndarray) -> np.ndarray:
        """Ids of integer labels (int64)."""
        values = np.ascontiguousarray(values, dtype=np.int64)
        out = np.empty(values.size, dtype=np.int64)
        if self._lib.labels_encode_ints(self._ptr, _ptr(values), values.size, _ptr(out)) < 0:
            raise MemoryError("out of memory for the labels")
        return out

    def encode_texts(self, data, offsets: np.ndarray, nulls: np.ndarray | None) -> np.ndarray:
        """Ids of texts ``data[offsets[k]:offsets[k + 1]]``; -2 where null or blank."""
        offsets = np.ascontiguousarray(offsets, dtype=np.int64)
        data = np.ascontiguousarray(data, dtype=np.uint8)
        if nulls is not None:
            nulls = np.ascontiguousarray(nulls, dtype=np.uint8)
        n = offsets.size - 1
        out = np.empty(n, dtype=np.int64)
        got = self._lib.labels_encode_texts(
            self._ptr, _ptr(data), _ptr(offsets), _ptr(nulls), n, _ptr(out)
        )
        if got < 0:
            raise MemoryError("out of memory for the labels")
        return out

    def encode_text(self, text: str) -> int:
        """The id of one label (added if new); -2 if it is blank."""
        raw = np.frombuffer(text.encode("utf-8"), dtype=np.uint8)
        return int(self.encode_texts(raw, np.array([0, raw.size]), None)[0])

    def export(self, lo: int, hi: int) -> tuple[np.ndarray, np.ndarray, bytes]:
        """``(values, lengths, text)`` of ids ``lo .. hi - 1``: integer labels have their
        value and length -1, text labels value -1 and their bytes one after the other."""
        n = max(0, hi - lo)
        values = np.empty(n, dtype=np.int64)
        lengths = np.empty(n, dtype=np.int64)
        size = int(self._lib.labels_text_bytes(self._ptr, lo, hi)) if n else 0
        text = ctypes.create_string_buffer(max(size, 1))
        if n:
            self._lib.labels_export(self._ptr, lo, hi, _ptr(values), _ptr(lengths), text)
        return values, lengths, text.raw[:size]


def ints_to_text(values: np.ndarray) -> np.ndarray:
    """``values.astype(f"U{width}")`` of integers, ``width`` their longest text: numpy
    text as ``str`` writes each integer, written by the extension (``reader.c``) without a
    Python str per value (numpy's cast makes one: about 0.3 us a value)."""
    values = np.ascontiguousarray(values, dtype=np.int64)
    width = max(len(str(int(values.min()))), len(str(int(values.max())))) if values.size else 1
    out = np.empty(values.size, dtype=f"U{width}")
    lib().ints_to_text(values.size, _ptr(values), width, _ptr(out))
    return out


#: field kinds of :func:`parse_csv`
SKIP, LABEL, NUMBER = 0, 1, 2
#: why :func:`parse_csv` stopped
DONE, BLANK_LINE, NOT_SIMPLE, OUT_OF_MEMORY, FULL = 0, 1, 2, 3, 4


def parse_csv(block, end: int, kinds, slots, sep: str, tables, cap: int, out=None):
    """Lines of ``block[:end]`` into label ids and numbers (``reader.c``'s ``parse_csv``).

    ``kinds[c]``, ``slots[c]``: what field ``c`` is (:data:`SKIP`, :data:`LABEL`
    into ``tables[slots[c]]``, :data:`NUMBER`) and its output row. Returns
    ``(rows, ids, numbers, stop, reason)``: the first ``rows`` lines parsed (at
    most ``cap``), the ids ``(label columns, cap)`` and numbers ``(number
    columns, cap)`` (their first ``rows`` columns valid), the offset of the first
    line not taken and why. ``out``: a list that keeps the buffers from call to call
    (a reader's block after block: the ids and the numbers, written again where they
    have room, so their pages are taken once); a new list is filled by the first call.
    """
    kinds = np.ascontiguousarray(kinds, dtype=np.int64)
    slots = np.ascontiguousarray(slots, dtype=np.int64)
    n_labels = int(slots[kinds == LABEL].max()) + 1 if np.any(kinds == LABEL) else 0
    n_numbers = int(slots[kinds == NUMBER].max()) + 1 if np.any(kinds == NUMBER) else 0
    if out and out[0].shape[1] >= cap:
        ids, nums = out
        cap = ids.shape[1]
    else:
        ids = np.empty((n_labels, cap), dtype=np.int32)
        nums = np.empty((n_numbers, cap), dtype=np.float64)
        if out is not None:
            out[:] = [ids, nums]
    handles = (ctypes.c_void_p * max(1, len(tables)))(*[t.handle for t in tables])
    stop = np.zeros(2, dtype=np.int64)
    data = np.frombuffer(block, dtype=np.uint8, count=end) if end else np.empty(0, np.uint8)
    rows = lib().parse_csv(
        data.ctypes.data, end, kinds.size, _ptr(kinds), _ptr(slots), ord(sep),
        handles, _ptr(ids), _ptr(nums), cap, _ptr(stop),
    )  # fmt: skip
    if stop[1] == OUT_OF_MEMORY:
        raise MemoryError("out of memory while reading the labels")
    return int(rows), ids, nums, int(stop[0]), int(stop[1])


class PairRows:
    """Comparisons summed over unordered pairs: counted by pair in a hash table while that
    pays, else kept as 64-bit rows and sorted at the end (``reader.c``).

    A row is ``lo << 32 | hi << 1 | won``. Rows without counts are first counted by
    that key in a compiled hash table (``pairs_add``): where they repeat few pairs (a
    league, many votes on few pairs) it stays small, memory follows the distinct
    pairs and no row is kept or sorted. Once it holds more than ``_HASH_ROOM`` keys
    and more than one for every four rows counted (16-byte slots, half to three
    quarters of them empty: 8 to 16 bytes a row there, beyond it more than the
    rows' 8 bytes and looked up at random where the rows stream), its keys go back
    into rows (each key as many times as counted) and the rest are packed as rows
    too. :meth:`result` renumbers the keys in label order, sorts them by pair with a radix sort (two
    streaming passes into a few thousand buckets by the pair's leading bits, then each
    bucket sorted while the caches hold it: time linear in the keys, no comparison
    sort) and sums each pair's run. Counts and wins are sums of whole numbers, exact in
    any order: the same sums either way. Rows with counts (``weighted``) are packed
    from the start, 8 bytes of count beside each. The pairs' ``n`` and ``w`` are
    written into the rows' own buffers, so the peak is about 16 bytes a row (or key)
    plus 8 a pair; without counts they are whole numbers below 2^31, written as int32
    into the first buffer (its rest handed back), and the second is kept, 8 bytes a pair,
    as :attr:`spare`: the sparse fit's pair weights go there (its pages are in memory
    already; fresh ones would cost the system's page faults): 24 bytes a pair in all, as
    during the fit before.
    """

    #: distinct keys a hash table may hold before it must halve the rows to stay
    _HASH_ROOM = 1 << 15

    def __init__(self, weighted: bool, expected: int = 0):
        self._lib = lib()
        self.weighted = bool(weighted)
        self._expected = int(expected)
        self._rows = self._counts = self._hash = None
        if self.weighted:
            self._make_rows()
        else:
            self._hash = self._lib.pairs_new()
            if not self._hash:
                raise MemoryError("out of memory for the pairs")
        self._m = 0
        self._used = False
        #: after :meth:`result` of rows without counts, a float64 array of one entry per
        #: pair whose pages are already in memory (the sort's second buffer): room for the
        #: sparse fit's pair weights (:meth:`dprank.data.comparisons.PairStatistics.take_spare`)
        self.spare = None

    def __del__(self):
        self._drop_hash()

    def _drop_hash(self) -> None:
        table, self._hash = getattr(self, "_hash", None), None
        if table:
            self._lib.pairs_free(table)

    def _make_rows(self) -> None:
        # one buffer of rows (and counts), grown in place (realloc) as the blocks come; room
        # for ``expected`` rows at once where the system grants it (pages are taken as they
        # are written, so a generous guess costs address space, not memory)
        try:
            self._rows = np.empty(max(self._expected, 1 << 16), dtype=np.uint64)
        except MemoryError:
            self._rows = np.empty(1 << 16, dtype=np.uint64)
        self._counts = np.empty(self._rows.size) if self.weighted else None

    def __len__(self) -> int:
        return self._m

    def unit_rows_total(self) -> int | None:
        """Rows without counts: how many were added (each counts one, so this is the sum of
        the pairs' counts); None for rows with counts."""
        return None if self.weighted else self._m

    def add(self, i: np.ndarray, j: np.ndarray, y=None, count=None) -> None:
        """Add comparisons ``i`` against ``j`` (ids below 2^31, ``i != j``), outcome ``y``
        for ``i`` (0/1; None: all 1) and ``count`` (None: all 1; only with ``weighted``)."""
        if self._used:
            raise ValueError("the rows were summed by an earlier result()")
        if count is not None and not self.weighted:
            raise ValueError("counts need weighted rows")
        i = np.ascontiguousarray(i, dtype=np.int32)
        j = np.ascontiguousarray(j, dtype=np.int32)
        y = None if y is None else np.ascontiguousarray(y, dtype=np.float64)
        step, k = 2 * self._HASH_ROOM, 0
        while self._hash is not None and k < i.size:  # counted a slice at a time: where the
            # rows are mostly distinct pairs, the table is left after a slice or two
            part = slice(k, k + step)
            self._count(i[part], j[part], None if y is None else y[part])
            k += step
        if k < i.size:
            self._pack(i[k:], j[k:], None if y is None else y[k:], count)  # count: k = 0

    def _count(self, i, j, y) -> bool:
        """Count rows in the hash table; False where it has stopped paying (then the
        rows counted are rows again, the table gone)."""
        distinct = self._lib.pairs_add(self._hash, i.size, _ptr(i), _ptr(j), _ptr(y))
        if distinct < 0:
            raise MemoryError("out of memory for the pairs")
        self._m += i.size
        if distinct <= self._HASH_ROOM or 4 * distinct <= self._m:
            return True
        m, self._m = self._m, 0
        self._expected = max(self._expected, m)
        self._make_rows()
        self._lib.pairs_export(self._hash, 1, self._rows.ctypes.data, None)
        self._m = m
        self._drop_hash()
        return False

    def _pack(self, i, j, y, count) -> None:
        m, k = self._m, i.size
        if not k:
            return
        if m + k > self._rows.size:
            size = max(m + k, self._rows.size + self._rows.size // 2)
            self._rows.resize(size, refcheck=False)
            if self._counts is not None:
                self._counts.resize(size, refcheck=False)
        self._lib.rows_pack(k, _ptr(i), _ptr(j), _ptr(y), self._rows.ctypes.data + 8 * m)
        if self._counts is not None:
            self._counts[m : m + k] = 1.0 if count is None else count
        self._m = m + k

    def result(self, rank: np.ndarray | None, n_items: int):
        """``(a, b, n, w)`` of the distinct pairs sorted by ``(a, b)``, ``a < b`` int32;
        ``n`` and ``w`` float64, or int32 for rows without counts (whole numbers below 2^31:
        half the memory, and the solver's loops read them as they are).

        ``rank[id]``: the final index of each id (None: the ids are the indices); ids
        with one index are one item (their pairs are added). The rows are dropped.
        """
        if self._used:
            raise ValueError("the rows were summed by an earlier result()")
        self._used = True
        if self._hash is not None:  # the distinct keys and their counts
            m = self._lib.pairs_count(self._hash)
            x, cx = np.empty(m, dtype=np.uint64), np.empty(m)
            self._lib.pairs_export(self._hash, 0, x.ctypes.data, cx.ctypes.data)
            self._drop_hash()
        else:
            m = self._m
            x, cx, self._rows, self._counts = self._rows, self._counts, None, None
            x.resize(m, refcheck=False)  # the unused room back to the system
            if cx is not None:
                cx.resize(m, refcheck=False)
        rank_arr = None
        if rank is not None:
            rank = np.asarray(rank)
            if rank.size and (int(rank.min()) < 0 or int(rank.max()) >= 2**31):
                raise ValueError(f"an item id is not below n_items = {n_items}")
            rank_arr = np.ascontiguousarray(rank, dtype=np.int32)  # half the cache of int64
        y = np.empty_like(x)
        cy = None if cx is None else np.empty_like(cx)
        # room for a pair per row: only the pages the pairs take are ever touched
        a = np.empty(m, dtype=np.int32)
        b = np.empty(m, dtype=np.int32)
        # rows without counts: every count and win a whole number below 2^31 (no more rows
        # than that were counted), written as int32
        whole = not self.weighted and max(m, self._m) < 2**31
        p = self._lib.rows_sum(
            m, _ptr(x), _ptr(y), _ptr(cx), _ptr(cy), _ptr(rank_arr), int(n_items), _ptr(a),
            _ptr(b), int(whole),
        )  # fmt: skip
        del cx, cy
        if p == -1:
            raise ValueError("a pair joins an item with itself once the labels are merged")
        if p == -2:
            raise ValueError(f"an item id is not below n_items = {n_items}")
        if p < 0:
            raise MemoryError("out of memory for the pairs")
        a.resize(p, refcheck=False)
        b.resize(p, refcheck=False)
        # the counts were written over the rows' first buffer, the wins over the other
        if whole:
            # both into the first buffer (the counts where they are, the wins after them);
            # the other, its pages already in memory, kept as room for the fit's pair weights
            x.view(np.int32)[p : 2 * p] = y.view(np.int32)[:p]
            x.resize(p, refcheck=False)  # the rest back to the system
            y.resize(p, refcheck=False)
            self.spare = y.view(np.float64)
            counts = x.view(np.int32)
            return a, b, counts[:p], counts[p:]
        n = x.view(np.float64)[:p]
        w = y.view(np.float64)[:p]
        if p < m - m // 4:  # many rows per pair: keep the pairs, not the rows' buffers
            n, w = n.copy(), w.copy()
        return a, b, n, w


class MappedPages:
    """The pages of a read-only mapping of a file (an :class:`mmap.mmap`), kept readable
    where the file shrinks while they are read (``mapguard.c``).

    A page past a truncated file's new end reads as zeros instead of raising SIGBUS (which
    ends the process), and :attr:`lost` says so. Make it after mapping, :meth:`close` it
    before the mapping closes. ``guarded`` is False where no guard could be registered
    (too many mappings at once): the caller then reads the file unmapped.
    """

    def __init__(self, mapping):
        self._lib = lib()
        view = np.frombuffer(mapping, dtype=np.uint8)  # the mapping's address (the view goes)
        address = view.ctypes.data
        del view
        self._slot = int(self._lib.map_guard_add(address, len(mapping)))
        self.guarded = self._slot >= 0
        self._lost = False

    @property
    def lost(self) -> bool:
        """Whether a page of the mapping could not be read (and reads as zeros)."""
        if not self._lost and self._slot >= 0:
            self._lost = bool(self._lib.map_guard_lost(self._slot))
        return self._lost

    def close(self) -> bool:
        """Stop guarding (before the mapping closes); whether a page was lost."""
        if self._slot >= 0:
            self._lost = bool(self._lib.map_guard_remove(self._slot)) or self._lost
            self._slot = -1
        return self._lost


def sigbus_guarded() -> bool:
    """Whether the SIGBUS action in place is ``mapguard.c``'s (while a mapping is guarded)."""
    return bool(lib().map_guard_installed())
