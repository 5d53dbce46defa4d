"""File input/output for the workflow stages: atomic writes, compact win matrices.

pandas is imported only by the CSV functions: the array stages of the workflow
start without it (about 0.5 s of every job's start-up).
"""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from . import _checks

if TYPE_CHECKING:  # pandas is imported where a CSV is read or written (job start-up)
    import pandas as pd

__all__ = [
    "atomic_path",
    "atomic_target",
    "load_arrays",
    "read_csv",
    "save_arrays",
    "sha256",
    "write_csv",
]

#: Name of a temporary of :func:`atomic_path`: ``.<name of the target>.<8 random
#: characters of tempfile.mkstemp>.tmp``, next to the target.
_ATOMIC_TEMPORARY = re.compile(r"\.(?P<target>.+)\.[a-z0-9_]{8}\.tmp")


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def sha256(path: str | os.PathLike) -> str:
    """The sha256 (hex digest) of a file, read in 1 MiB blocks.

    Parameters
    ----------
    path : path-like
        The file.

    Returns
    -------
    str
        64 lower-case hex digits.
    """
    import hashlib  # where a digest is asked for (its OpenSSL library: about 5 ms to load)

    _checks.path(path, "path")
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


@contextmanager
def atomic_path(path: str | os.PathLike, mode: int | None = None) -> Iterator[Path]:
    """Yield a temporary path next to ``path``; rename it onto ``path`` on success.

    A failure leaves no partial file at ``path`` (the temporary is removed).
    ``mode`` (e.g. ``0o600`` for a private record) replaces the usual
    ``0o666 & ~umask``; the temporary is created ``0o600`` either way.
    """
    _checks.path(path, "path")
    if mode is not None:
        _checks.count(mode, "mode")
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    tmp_path = Path(tmp)
    try:
        yield tmp_path
        # mkstemp creates 0600; give the usual mode unless asked otherwise
        os.chmod(tmp_path, (0o666 & ~_umask()) if mode is None else mode)
        os.replace(tmp_path, path)
    finally:
        if tmp_path.exists():
            tmp_path.unlink()


def atomic_target(path: str | os.PathLike) -> Path | None:
    """The file a temporary of :func:`atomic_path` was to become, or None if ``path`` is none.

    Parameters
    ----------
    path : path-like
        Any path.

    Returns
    -------
    Path or None
        ``dir/name`` for ``dir/.name.XXXXXXXX.tmp`` (the pattern :func:`atomic_path`
        creates), else None.
    """
    _checks.path(path, "path")
    path = Path(path)
    match = _ATOMIC_TEMPORARY.fullmatch(path.name)
    return path.with_name(match["target"]) if match else None


def _write_with(path, writer: Callable[[Path], None]) -> None:
    with atomic_path(path) as tmp:
        writer(tmp)


def _is_wins(name: str) -> bool:
    return name == "wins" or name.endswith("__wins")


def save_arrays(path: str | os.PathLike, compress: bool = False, **arrays: np.ndarray) -> None:
    """Save named arrays to an ``.npz`` file atomically.

    Arrays named ``wins`` (or ``<prefix>__wins``, a cell's share of a block file)
    whose entries are all 0 or 1 are bit-packed (a complete-graph chunk of 120
    replicates at n = 700 takes 7 MB, not 59 MB). ``compress`` deflates every
    member (exact; worth it for small integer arrays such as top-k index sets).
    """
    _checks.path(path, "path")
    _checks.flag(compress, "compress")
    out: dict[str, np.ndarray] = {}
    for name, arr in arrays.items():
        arr = np.asarray(arr)
        if _is_wins(name) and arr.size and arr.max(initial=0) <= 1 and arr.min(initial=0) >= 0:
            out[f"{name}__packed"] = np.packbits(arr.astype(bool), axis=-1)
            out[f"{name}__shape"] = np.asarray(arr.shape, dtype=np.int64)
        else:
            out[name] = arr

    def writer(tmp: Path) -> None:
        with open(tmp, "wb") as fh:
            (np.savez_compressed if compress else np.savez)(fh, **out)

    _write_with(path, writer)


def load_arrays(path: str | os.PathLike) -> dict[str, np.ndarray]:
    """Load an ``.npz`` written by :func:`save_arrays` (unpacking win matrices)."""
    _checks.path(path, "path")
    with np.load(path, allow_pickle=False) as npz:
        data = {k: npz[k] for k in npz.files}
    for key in [k for k in data if k.endswith("__packed")]:
        name = key.removesuffix("__packed")
        shape = tuple(int(s) for s in data.pop(f"{name}__shape"))
        packed = data.pop(key)
        data[name] = np.unpackbits(packed, axis=-1, count=shape[-1]).reshape(shape)
    return data


def write_csv(path: str | os.PathLike, frame: pd.DataFrame) -> None:
    """Write a CSV atomically (floats in shortest round-trip form)."""
    _checks.path(path, "path")
    _checks.frame(frame, "frame")

    def writer(tmp: Path) -> None:
        frame.to_csv(tmp, index=False, lineterminator="\n")

    _write_with(path, writer)


def read_csv(path: str | os.PathLike) -> pd.DataFrame:
    """Read a CSV written by :func:`write_csv` (lines starting with ``#`` are comments)."""
    _checks.path(path, "path")
    import pandas as pd

    return pd.read_csv(path, comment="#")
