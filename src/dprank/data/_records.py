"""The checks of comparison records (:class:`dprank.data.comparisons.Comparisons`).

Each check names the first bad entry of its field; :func:`checked_records` runs them all in
one compiled pass (``records.c``) with the copies, where the records are arrays as the
constructor keeps them.
"""

from __future__ import annotations

import numpy as np

__all__ = ["as_count", "as_float", "as_index", "as_labels", "as_user_epsilon", "checked_records"]


def as_index(name, x, n_items=None):
    """``x`` as a 1-d int64 copy of indices (below ``n_items`` where given)."""
    arr = np.asarray(x)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be a 1-d array, got shape {arr.shape}")
    if arr.size and arr.dtype.kind == "f":
        if not np.all(np.isfinite(arr)):
            raise ValueError(f"{name} holds NaN or infinite values")
        if not np.all(arr == np.round(arr)):
            raise ValueError(f"{name} must hold integer item indices")
    elif arr.size and arr.dtype.kind not in "iub":
        raise ValueError(f"{name} must hold integer indices, got dtype {arr.dtype}")
    arr = arr.astype(np.int64, copy=True)
    if arr.size and arr.min() < 0:
        k = int(np.flatnonzero(arr < 0)[0])
        raise ValueError(f"{name}[{k}] = {arr[k]} is negative: indices start at 0")
    if n_items is not None and arr.size and arr.max() >= n_items:
        k = int(np.flatnonzero(arr >= n_items)[0])
        raise ValueError(f"{name}[{k}] = {arr[k]} is out of range for n_items = {n_items}")
    return arr


def as_float(name, x, m):
    """``x`` as a finite float64 copy of shape ``(m,)`` (a scalar repeated)."""
    arr = np.asarray(x, dtype=np.float64)
    if arr.ndim == 0:
        arr = np.full(m, float(arr))
    if arr.shape != (m,):
        raise ValueError(f"{name} must have shape ({m},), got {arr.shape}")
    if not np.all(np.isfinite(arr)):
        k = int(np.flatnonzero(~np.isfinite(arr))[0])
        raise ValueError(f"{name}[{k}] = {arr[k]} is not finite")
    return arr.copy()


def as_count(count, m: int, weighted: bool) -> np.ndarray:
    """``count`` as float64: positive, and whole numbers unless ``weighted``."""
    count = as_float("count", count, m)
    if np.any(count <= 0):
        k = int(np.flatnonzero(count <= 0)[0])
        raise ValueError(f"count[{k}] = {count[k]} must be positive")
    if not weighted and m and not np.array_equal(count, np.rint(count)):
        k = int(np.flatnonzero(count != np.rint(count))[0])
        raise ValueError(
            f"count[{k}] = {count[k]} must be a positive whole number (how many times "
            "the comparison was made); real weights need Comparisons(..., weighted=True)"
        )
    return count


def as_labels(labels, n_items: int) -> np.ndarray:
    """``labels`` as an array of ``n_items`` distinct labels."""
    labels = np.asarray(labels)
    if labels.shape != (n_items,):
        raise ValueError(f"labels must have shape ({n_items},), got {labels.shape}")
    seen: dict = {}
    for k, label in enumerate(labels.tolist()):
        if seen.setdefault(label, k) != k:
            raise ValueError(
                f"labels[{k}] = {label!r} repeats labels[{seen[label]}]: "
                "each item needs its own label"
            )
    return labels


def as_user_epsilon(eps, user: np.ndarray | None) -> np.ndarray:
    """``eps`` as float64: a positive budget for every user index in ``user``."""
    eps = np.asarray(eps, dtype=np.float64)
    if eps.ndim != 1 or np.any(np.isnan(eps)) or np.any(eps <= 0):
        raise ValueError("user_epsilon must be a 1-d array of positive budgets")
    if user is not None and user.size and user.max() >= eps.size:
        raise ValueError(
            f"user index {int(user.max())} has no budget in user_epsilon (length {eps.size})"
        )
    if user is not None and eps.size != (int(user.max()) + 1 if user.size else 0):
        users = int(user.max()) + 1 if user.size else 0
        raise ValueError(
            f"user_epsilon holds {eps.size} budgets for {users} users (user indices "
            f"0..{users - 1}): give exactly one budget per user"
        )
    return eps


def checked_records(n_items: int, i, j, y, count, flags_of):
    """The records checked and copied in one compiled pass (``records.c``), where they are
    arrays as the constructor keeps them (1-d, C-contiguous, int64 indices and float64
    outcomes and counts of one length; ``ties`` and ``weighted`` of ``flags_of`` bools).

    Returns ``(flags, (i, j, y, count))``, the copies and what every record is
    (:data:`dprank.base._compiled.RECORDS_BINARY` etc.), or None: other arrays, or a bad
    record (then the checks one at a time name it; the copies are those of
    :func:`as_index` and :func:`as_float`, the same bits).
    """
    arrays = (i, j, y, count)
    if not all(type(x) is np.ndarray and x.ndim == 1 and x.flags.c_contiguous for x in arrays):
        return None
    if not (i.dtype == j.dtype == np.int64 and y.dtype == count.dtype == np.float64):
        return None
    if not i.shape == j.shape == y.shape == count.shape:
        return None
    weighted, ties = flags_of.weighted, flags_of.ties
    if type(weighted) is not bool or type(ties) is not bool:
        return None
    from ..base._compiled import check_records

    return check_records(n_items, i, j, y, count, weighted, ties)
