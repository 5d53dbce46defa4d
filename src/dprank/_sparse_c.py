"""The sparse solver's loops in C (``_sparse_c.c``), loaded with ctypes: no numba import.

The same library parses plain integer CSV text for :mod:`dprank.inputs`
(:func:`parse_plain_integers`; where it is missing, pyarrow reads the text).

The same loops as :mod:`dprank._sparse_kernels`, operation for operation and
in the same order, compiled without fast-math and without contraction (no
fused multiply-add), so both backends give the same bits
(``tests/test_sparse_backends.py``). A process that loads them skips numba's
import and machine-code loading (about 0.7 s and 110 MB of memory on the
development machine), which is most of ``dprank rank``'s start-up cost.

``python -m dprank._sparse_c`` (run by ``make setup``) compiles the library
with the C compiler ``$CC`` (default ``cc``) next to this module; its name
holds the platform and a hash of the C source and flags, so a stale library is
never loaded. Where it is
missing (no compiler, a read-only install) :func:`dprank.objective.kernels`
falls back to the numba kernels; ``DPRANK_SPARSE_BACKEND=numba`` forces them.
Indices above 2^31 items (``b`` int64) also take the numba kernels.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import subprocess
import sys
import sysconfig
from pathlib import Path

import numpy as np

__all__: list[str] = []

#: Largest score spread for which the node-wise exponentials are exact (as the numba kernels).
NODE_EXP_SPREAD = 600.0

_SOURCE = Path(__file__).with_name("_sparse_c.c")
_FLAGS = ["-O2", "-fPIC", "-shared", "-fno-fast-math", "-ffp-contract=off"]
_LIB = None
_TRIED = False


def library_path() -> Path:
    """Where the compiled library of the current C source lives (its name holds the hash)."""
    digest = hashlib.sha256(_SOURCE.read_bytes() + " ".join(_FLAGS).encode()).hexdigest()[:12]
    return _SOURCE.with_name(f"_sparse_c-{sysconfig.get_platform()}-{digest}.so")


def build(cc: str | None = None) -> Path:
    """Compile ``_sparse_c.c`` into :func:`library_path` and return it.

    Raises ``subprocess.CalledProcessError`` (or ``OSError``: no compiler) on failure.
    """
    target = library_path()
    tmp = target.with_suffix(f".{os.getpid()}.tmp")
    cmd = [cc or os.environ.get("CC", "cc"), *_FLAGS, "-o", str(tmp), str(_SOURCE), "-lm"]
    subprocess.run(cmd, check=True, capture_output=True, text=True)
    os.replace(tmp, target)
    return target


def _load():
    global _LIB, _TRIED
    if _TRIED:
        return _LIB
    _TRIED = True
    if os.environ.get("DPRANK_SPARSE_BACKEND", "") == "numba":
        return None
    if not _SOURCE.exists():
        return None
    path = library_path()
    if not path.exists():
        return None
    try:
        lib = ctypes.CDLL(str(path))
    except OSError:
        return None
    i64, f64, ptr = ctypes.c_int64, ctypes.c_double, ctypes.c_void_p
    signatures = {
        "btl_pass": (ctypes.c_int, [i64] + [ptr] * 8),
        "btl_value": (f64, [i64] + [ptr] * 5),
        "scatter_pairs": (None, [i64] + [ptr] * 6),
        "zero_pass": (None, [i64] + [ptr] * 7),
        "laplacian_mv": (ctypes.c_int, [i64] + [ptr] * 6),
        "pcg": (i64, [i64] + [ptr] * 5 + [f64] * 4 + [i64, ptr, ptr]),
        "parse_plain_integers": (i64, [ptr, i64, i64, ptr, i64, ptr, i64]),
    }
    for name, (res, args) in signatures.items():
        fn = getattr(lib, name)
        fn.restype, fn.argtypes = res, args
    _LIB = lib
    return lib


def available() -> bool:
    """True where the compiled library of the current source loads (and is not switched off)."""
    return _load() is not None


_F, _I64, _I32 = np.float64, np.int64, np.int32


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


def _numba():
    from . import _sparse_kernels

    return _sparse_kernels


def btl_pass(theta, ptr, b, cnt, w, grad, diag, h):
    """:func:`dprank._sparse_kernels.btl_pass` in C."""
    if b.dtype != _I32:
        return _numba().btl_pass(theta, ptr, b, cnt, w, grad, diag, h)
    args = (theta, _F), (ptr, _I64), (b, _I32), (cnt, _F), (w, _F)
    if _run(_LIB.btl_pass, theta.size, *args, (grad, None), (diag, None), (h, None)):
        raise MemoryError("btl_pass: out of memory")


def btl_value(theta, ptr, b, cnt, w) -> float:
    """:func:`dprank._sparse_kernels.btl_value` in C."""
    if b.dtype != _I32:
        return _numba().btl_value(theta, ptr, b, cnt, w)
    args = (theta, _F), (ptr, _I64), (b, _I32), (cnt, _F), (w, _F)
    return _run(_LIB.btl_value, theta.size, *args)


def scatter_pairs(ptr, b, g, h, grad, diag):
    """:func:`dprank._sparse_kernels.scatter_pairs` in C."""
    if b.dtype != _I32:
        return _numba().scatter_pairs(ptr, b, g, h, grad, diag)
    args = (ptr, _I64), (b, _I32), (g, _F), (h, _F), (grad, None), (diag, None)
    _run(_LIB.scatter_pairs, ptr.size - 1, *args)


def zero_pass(ptr, b, cnt, w, grad, diag, h):
    """:func:`dprank._sparse_kernels.zero_pass` in C."""
    if b.dtype != _I32:
        return _numba().zero_pass(ptr, b, cnt, w, grad, diag, h)
    args = (ptr, _I64), (b, _I32), (cnt, _F), (w, _F), (grad, None), (diag, None), (h, None)
    _run(_LIB.zero_pass, ptr.size - 1, *args)


def laplacian_mv(x, ptr, b, h, diag, out):
    """:func:`dprank._sparse_kernels.laplacian_mv` in C."""
    if b.dtype != _I32:
        return _numba().laplacian_mv(x, ptr, b, h, diag, out)
    args = (x, _F), (ptr, _I64), (b, _I32), (h, _F), (diag, _F), (out, None)
    if _run(_LIB.laplacian_mv, x.size, *args):
        raise MemoryError("laplacian_mv: out of memory")


def pcg(ptr, b, h, diag, rhs, c, ones_eig, rtol, atol_update, max_iter):
    """:func:`dprank._sparse_kernels.pcg` in C: ``(x, iterations, positive)``."""
    if b.dtype != _I32:
        return _numba().pcg(ptr, b, h, diag, rhs, c, ones_eig, rtol, atol_update, max_iter)
    x = np.empty(rhs.size)
    positive = np.zeros(1, dtype=np.int32)
    it = _run(
        _LIB.pcg, rhs.size, (ptr, _I64), (b, _I32), (h, _F), (diag, _F), (rhs, _F),
        float(c), float(ones_eig), float(rtol), float(atol_update), int(max_iter),
        (x, None), (positive, _I32),
    )  # fmt: skip
    if it < 0:
        raise MemoryError("pcg: out of memory")
    return x, int(it), bool(positive[0])


if __name__ == "__main__":
    try:
        built = build()
    except (OSError, subprocess.CalledProcessError) as exc:
        detail = getattr(exc, "stderr", "") or str(exc)
        print(f"the sparse loops' C library was not built ({detail.strip()}): numba will be used")
        sys.exit(0)
    print(f"built {built.name}")


def parse_plain_integers(text: bytes, end: int, n_fields: int, slots, sep: str):
    """The columns of plain integer CSV text ``text[:end]``, or None where it is not plain.

    ``slots[c]``: the output column of field ``c`` (-1: not read). Returns an int64
    array of shape ``(columns, rows)``; None also where the library is missing
    (the caller reads the text with pyarrow). See ``parse_plain_integers`` in
    ``_sparse_c.c`` for what plain means.
    """
    lib = _load()
    if lib is None:
        return None
    cap = text.count(b"\n", 0, end) + 1  # the last line may lack its end
    slot = np.asarray(slots, dtype=np.int64)
    out = np.empty((int(slot.max()) + 1, cap), dtype=np.int64)
    data = np.frombuffer(text, dtype=np.uint8, count=end)
    rows = lib.parse_plain_integers(
        data.ctypes.data, end, n_fields, slot.ctypes.data, ord(sep), out.ctypes.data, cap
    )
    if rows < 0:
        return None
    return out[:, :rows]
