"""Canonical content and keyed fingerprints of comparison data sets.

Re-exported by :mod:`dprank.ledger`.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterator
from itertools import pairwise

import numpy as np

from ..base._csv_cells import normalize_labels

_CONTENT_TAG_V1 = b"dprank-comparisons-v1\0"
_CONTENT_TAG = b"dprank-comparisons-v2\0"


# --------------------------------------------------------------------------- fingerprints


def _names(labels, n: int, what: str) -> np.ndarray:
    names = np.arange(n).astype(str) if labels is None else np.asarray(labels).astype(str)
    if names.shape != (n,):
        raise ValueError(f"{what} labels must have shape ({n},), got {names.shape}")
    return names


def _ranks(codes: np.ndarray, names: np.ndarray, what: str) -> tuple[np.ndarray, np.ndarray]:
    """Codes renumbered by their labels' sorted order (observed codes only), and those labels."""
    used = np.unique(codes)
    observed = names[used]
    order = np.argsort(observed, kind="stable")
    observed = observed[order]
    if observed.size > 1 and np.any(observed[1:] == observed[:-1]):
        k = int(np.flatnonzero(observed[1:] == observed[:-1])[0])
        raise ValueError(f"{what} label {str(observed[k])!r} names two different {what}s")
    rank = np.zeros(names.size, dtype=np.int64)
    rank[used[order]] = np.arange(used.size)
    return rank[codes], observed


def _text_block(names: np.ndarray) -> bytes:
    encoded = [s.encode("utf-8") for s in names.tolist()]
    lengths = np.array([len(e) for e in encoded], dtype="<u8")
    return np.uint64(len(encoded)).astype("<u8").tobytes() + lengths.tobytes() + b"".join(encoded)


_RECORD = np.dtype([("a", "<i8"), ("b", "<i8"), ("y", "<f8"), ("count", "<f8")])


def _merged(keys: list[np.ndarray], count: np.ndarray) -> tuple[list[np.ndarray], np.ndarray]:
    """Records sorted by ``keys`` (most significant first), then by count; equal keys merged."""
    order = np.lexsort((count, *reversed(keys)))
    keys, count = [k[order] for k in keys], count[order]
    if not count.size:
        return keys, count
    new = np.zeros(count.size, dtype=bool)
    new[0] = True
    for k in keys:
        new[1:] |= k[1:] != k[:-1]
    starts = np.flatnonzero(new)
    return [k[starts] for k in keys], np.add.reduceat(count, starts)


def comparisons_of(data):
    """The comparisons of ``data`` (a TypeError naming ``data`` if it holds none)."""
    c = getattr(data, "comparisons", data)
    for attr in ("n_items", "i", "j", "y", "count", "user", "labels"):
        if not hasattr(c, attr):
            raise TypeError(
                "data must be what a ledger fingerprints: a dprank.data.comparisons.Comparisons "
                "or the table "
                f"dprank.data.inputs.read_comparisons returns, got {type(data).__name__}"
            )
    return c


def _content_chunks_v1(data) -> Iterator[bytes]:
    """The content of version-1 ledgers (users included), for migrated ledgers' data sets."""
    c = comparisons_of(data)
    a, items = _ranks(np.concatenate([c.i, c.j]), _names(c.labels, c.n_items, "item"), "item")
    a, b = a[: c.i.size], a[c.i.size :]
    flip = a > b
    a, b = np.where(flip, b, a), np.where(flip, a, b)
    y = np.where(flip, 1.0 - c.y, c.y) + 0.0  # + 0.0: -0.0 -> 0.0
    count = np.asarray(c.count, dtype=np.float64)
    yield _CONTENT_TAG_V1
    yield _text_block(items)
    if c.user is None:
        (a, b, y), count = _merged([a, b, y], count)
        yield b"\0" + np.uint64(a.size).astype("<u8").tobytes()
        for arr, dtype in ((a, "<i8"), (b, "<i8"), (y, "<f8"), (count, "<f8")):
            yield np.ascontiguousarray(arr, dtype=dtype).tobytes()
        return
    # Users are numbered by their own records, not by label or index: each user's
    # records (sorted, merged) are hashed and users sorted by that digest. Users
    # with equal digests hold the same records, so their order does not matter.
    (user, a, b, y), count = _merged([np.asarray(c.user), a, b, y], count)
    records = np.empty(a.size, dtype=_RECORD)
    records["a"], records["b"], records["y"], records["count"] = a, b, y, count
    bounds = np.flatnonzero(np.r_[True, user[1:] != user[:-1], True]) if user.size else [0]
    digests = [hashlib.sha256(records[lo:hi].tobytes()).digest() for lo, hi in pairwise(bounds)]
    rank = np.empty(len(digests), dtype=np.int64)
    rank[sorted(range(len(digests)), key=digests.__getitem__)] = np.arange(len(digests))
    group = np.repeat(np.arange(len(digests)), np.diff(bounds))
    order = np.argsort(rank[group], kind="stable")
    yield b"\1" + np.uint64(len(digests)).astype("<u8").tobytes()
    yield np.uint64(a.size).astype("<u8").tobytes()
    yield np.ascontiguousarray(rank[group][order], dtype="<i8").tobytes()
    yield records[order].tobytes()


def _content_chunks(data) -> Iterator[bytes]:
    """The multiset of (pair, outcome) records of ``data``, users left out (module text)."""
    c = comparisons_of(data)
    names = normalize_labels(_names(c.labels, c.n_items, "item"))
    codes = np.concatenate([c.i, c.j])
    used = np.unique(codes)
    items, inverse = np.unique(names[used].astype(str), return_inverse=True)
    rank = np.zeros(c.n_items, dtype=np.int64)
    rank[used] = inverse
    a, b = rank[c.i], rank[c.j]
    flip = a > b
    a, b = np.where(flip, b, a), np.where(flip, a, b)
    y = np.where(flip, 1.0 - c.y, c.y) + 0.0  # + 0.0: -0.0 -> 0.0
    count = np.asarray(c.count, dtype=np.float64)
    (a, b, y), count = _merged([a, b, y], count)
    keep = a != b  # two labels that normalise to one: no comparison of an item with itself
    a, b, y, count = a[keep], b[keep], y[keep], count[keep]
    yield _CONTENT_TAG
    yield _text_block(items)
    yield np.uint64(a.size).astype("<u8").tobytes()
    for arr, dtype in ((a, "<i8"), (b, "<i8"), (y, "<f8"), (count, "<f8")):
        yield np.ascontiguousarray(arr, dtype=dtype).tobytes()


def canonical_content(data) -> bytes:
    """The comparisons as canonical bytes: what the mechanisms protect, in any form the same bytes.

    The content is the multiset of comparisons, each a pair of items and an
    outcome. Items are named by their labels (as text; ``0..n-1`` where there
    are none), normalised as the readers normalise them (surrounding spaces
    dropped, a spreadsheet escape undone: :func:`dprank.base._csv_cells.normalize_label`),
    and numbered in the sorted order of the labels that occur. Each record is
    oriented so that its first item has the smaller label (the outcome ``y``
    becomes ``1 - y``), and equal records are merged with their counts added,
    so ``winner,loser`` rows, ``item_a,item_b,outcome`` rows, a ``count`` column
    and repeated rows all give the same content for the same comparisons.

    Users are left out: the same comparisons with or without a ``user`` column,
    with the users renamed, renumbered or their comparisons reshuffled among
    them are one data set. For edge DP that is exactly what is protected (the
    outcomes of the pairs); for user-level releases it is conservative, since
    every release of the same comparisons is charged to one data set whatever
    the grouping into users. The users' local-DP budgets (``epsilon`` column)
    are not part of it either.

    Parameters
    ----------
    data : Comparisons or ComparisonTable
        The comparisons (a :class:`dprank.data.comparisons.Comparisons`, or the table
        :func:`dprank.data.inputs.read_comparisons` returns).

    Returns
    -------
    bytes
        Never stored: the ledger keeps only its keyed hash (:func:`fingerprint`).

    Raises
    ------
    TypeError
        ``data`` is not comparisons.
    """
    return b"".join(_content_chunks(data))


def legacy_fingerprint(data, key: bytes) -> str:
    """The fingerprint of ``data`` in a version-1 ledger (users included) under its ``key``."""
    mac = hmac.new(bytes(key), digestmod=hashlib.sha256)
    for chunk in _content_chunks_v1(data):
        mac.update(chunk)
    return mac.hexdigest()


def fingerprint(data, key: bytes) -> str:
    """``HMAC-SHA256(key, canonical_content(data))`` as 64 hex digits.

    Parameters
    ----------
    data : Comparisons or ComparisonTable
        As in :func:`canonical_content`.
    key : bytes
        The ledger's key (:attr:`Ledger.key`).
    """
    if not isinstance(key, (bytes, bytearray)):
        raise TypeError(f"key must be bytes (the ledger's key), got {type(key).__name__}")
    mac = hmac.new(bytes(key), digestmod=hashlib.sha256)
    for chunk in _content_chunks(data):
        mac.update(chunk)
    return mac.hexdigest()
