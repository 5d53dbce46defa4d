"""A privacy-budget ledger: the releases of each data set and the budget they have spent together.

Every private release of the same data spends privacy on the same people: three
``epsilon = 1`` rankings of one file are, together, a ``3``-DP release (their
average removes much of the noise). A :class:`Ledger` is a JSON file that records
each release against a keyed fingerprint of its input data and refuses one that
would take the data set's total past a budget, in the manner of Tumult Analytics'
sessions and OpenDP's odometers.

The file
    A JSON object ``{"format": "dprank-ledger", "version": 1, "key": ...,
    "datasets": {FINGERPRINT: {"name": ..., "releases": [...]}}}``. ``key`` is a
    random 32-byte HMAC key (hex) made with the ledger; a data set's
    ``FINGERPRINT`` is ``HMAC-SHA256(key, canonical content)``
    (:func:`canonical_content`), so the ledger holds no raw data, no plain hash
    of the data or its file and no seed. Each release records its UTC time,
    command, mechanism, privacy unit, ``epsilon``, ``delta`` and declared bounds
    (:class:`Release`). ``name`` is an optional label the caller gives (the
    command line records the input file's name).
Permissions and concurrency
    The file is written with mode ``0600`` (owner only) and updated atomically:
    under an exclusive :func:`fcntl.flock` on a lock file beside it
    (``FILE.lock``), the new content goes to a temporary file in the same folder
    that then replaces the ledger (:func:`os.replace`). A reader sees the old or
    the new ledger, never a mix, and two concurrent releases never lose a record
    nor both pass a budget check that only one of them fits.

Composition rules (:func:`compose`)
    Releases compose by *basic composition*: ``k`` releases that are
    ``(epsilon_r, delta_r)``-DP are together ``(sum epsilon_r, sum delta_r)``-DP
    for the same privacy unit. Totals are kept per privacy unit:

    * **comparison level** (edge DP: one comparison changes): every release
      counts at its face value, user-level ones included (a change of one
      comparison is a change of one user's data, so ``epsilon`` user-level DP
      implies ``epsilon`` comparison-level DP);
    * **user level** (individual or local DP: all of one user's comparisons
      change): user-level releases count at face value; a comparison-level
      release counts through group privacy when it declares a per-user bound
      ``L`` (``bounds["max_per_user"]``: no user made more than ``L``
      comparisons): ``(L epsilon, L exp((L - 1) epsilon) delta)``, which is
      ``L epsilon`` for pure DP. Without a declared bound a comparison-level
      release gives no user-level guarantee at all, and the user-level total is
      *unbounded*; it is reported as such and a user-level budget cannot be met.

    A budget (:meth:`Ledger.release`) bounds the total ``epsilon`` at the
    privacy unit of the release asked for; ``delta`` totals are reported, not
    budgeted. Sums are exact for decimal inputs (``0.1 + 0.2`` is ``0.3``).

What the ledger protects against, and what not
    A data owner's accidental overspend: re-running a release on the same data
    (in another row order, layout or file format: the fingerprint is of the
    comparisons, not of the file's bytes). It does not follow data across
    changes: a copy with one row more, fewer or altered is a new data set to
    it, and it is no defence against someone who can run releases without the
    ledger. Whoever holds the ledger file holds its key and can test whether a
    candidate data set is in it, hence the owner-only mode.

Examples
--------
>>> import tempfile, os
>>> from dprank.comparisons import Comparisons
>>> from dprank.ledger import Ledger, Release
>>> games = Comparisons.from_winner_loser([0, 0, 1], [1, 2, 2], labels=["a", "b", "c"])
>>> ledger = Ledger(os.path.join(tempfile.mkdtemp(), "ledger.json"))
>>> entry = Release("rank", "edge_mle", "comparison", epsilon=1.0)
>>> with ledger.release(games, entry, budget=2.5) as receipt:
...     pass  # compute and write the release here; an exception records nothing
>>> receipt.spent_after
1.0
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import hmac
import json
import math
import os
import secrets
import tempfile
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from fractions import Fraction
from itertools import pairwise
from pathlib import Path

import numpy as np

from . import _checks

__all__ = [
    "FORMAT",
    "PRIVACY_UNITS",
    "VERSION",
    "BudgetExceeded",
    "Composition",
    "DataSetSummary",
    "Ledger",
    "LedgerError",
    "Receipt",
    "Release",
    "canonical_content",
    "compose",
    "fingerprint",
    "format_summary",
    "main_ledger",
    "release_to",
]

FORMAT = "dprank-ledger"
VERSION = 1
#: Privacy units a release can protect (those of :data:`dprank.methods.PRIVACY_UNITS`
#: that spend a budget).
PRIVACY_UNITS = ("comparison", "user")
_KEY_BYTES = 32
_CONTENT_TAG = b"dprank-comparisons-v1\0"


class LedgerError(ValueError):
    """A ledger file that cannot be used: the message names the file and the problem."""


class BudgetExceeded(ValueError):
    """A release refused: it would take its data set's total past the budget.

    Attributes
    ----------
    fingerprint : str
        The data set.
    privacy_unit : str
        The level at which the budget was checked.
    spent : float or None
        Total ``epsilon`` before the release (``None``: unbounded).
    requested : float
        The release's ``epsilon``.
    budget : float
    """

    def __init__(self, message, *, fingerprint, privacy_unit, spent, requested, budget):
        super().__init__(message)
        self.fingerprint = fingerprint
        self.privacy_unit = privacy_unit
        self.spent = spent
        self.requested = requested
        self.budget = budget


# --------------------------------------------------------------------------- releases


def _check_number(name, value, *, low, high=math.inf, low_open=False) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise ValueError(f"{name} must be a number, got {value!r}")
    x = float(value)
    if not math.isfinite(x) or x < low or (low_open and x == low) or x >= high:
        lo = "(" if low_open else "["
        raise ValueError(f"{name} must be finite and in {lo}{low}, {high}), got {value!r}")
    return x


@dataclass(frozen=True)
class Release:
    """One release of a data set, as the ledger records it.

    Parameters
    ----------
    command : str
        What made it (``"rank"``, ``"privatize"``).
    mechanism : str
        The registered method or release mechanism (``"edge_mle"``, ``"rr"``).
    privacy_unit : {"comparison", "user"}
        What the guarantee protects.
    epsilon : float
        Positive and finite (for local DP with budgets that differ between
        users: the largest).
    delta : float
        In ``[0, 1)``; 0 for pure DP.
    bounds : mapping of str to number
        Declared bounds the guarantee rests on; ``max_per_user`` (a positive
        integer ``L``: no user made more than ``L`` comparisons) turns a
        comparison-level release into a user-level one (:func:`compose`).
    time : str or None
        UTC time (ISO 8601) the release was recorded; set by the ledger.

    Raises
    ------
    ValueError
        An unknown privacy unit, an empty command or mechanism, an ``epsilon``
        or ``delta`` out of range, or a bound that is not a number (or a
        ``max_per_user`` that is not a positive integer).
    """

    command: str
    mechanism: str
    privacy_unit: str
    epsilon: float
    delta: float = 0.0
    bounds: Mapping[str, float] = field(default_factory=dict)
    time: str | None = None

    def __post_init__(self):
        for name in ("command", "mechanism"):
            value = getattr(self, name)
            if not isinstance(value, str) or not value.strip():
                raise ValueError(f"{name} must be a non-empty string, got {value!r}")
        if self.privacy_unit not in PRIVACY_UNITS:
            raise ValueError(
                f"privacy_unit must be one of {PRIVACY_UNITS}, got {self.privacy_unit!r} "
                "(a non-private release spends an unbounded budget and is not recorded)"
            )
        epsilon = _check_number("epsilon", self.epsilon, low=0.0, low_open=True)
        delta = _check_number("delta", self.delta, low=0.0, high=1.0)
        if not isinstance(self.bounds, Mapping):
            raise ValueError(f"bounds must be a mapping of names to numbers, got {self.bounds!r}")
        bounds = {}
        for key, value in self.bounds.items():
            if not isinstance(key, str) or not key:
                raise ValueError(f"bound names must be non-empty strings, got {key!r}")
            bounds[key] = _check_number(f"bound {key}", value, low=-math.inf)
            if bounds[key] == int(bounds[key]):
                bounds[key] = int(bounds[key])
        L = bounds.get("max_per_user")
        if L is not None and not (isinstance(L, int) and L >= 1):
            raise ValueError(f"bound max_per_user must be a positive integer, got {L!r}")
        if self.time is not None and not isinstance(self.time, str):
            raise ValueError(f"time must be an ISO 8601 string, got {self.time!r}")
        object.__setattr__(self, "epsilon", epsilon)
        object.__setattr__(self, "delta", delta)
        object.__setattr__(self, "bounds", bounds)

    @property
    def max_per_user(self) -> int | None:
        """The declared per-user bound ``L``, or None."""
        return self.bounds.get("max_per_user")

    def to_json(self) -> dict:
        """The record as the ledger file stores it."""
        return {
            "time": self.time,
            "command": self.command,
            "mechanism": self.mechanism,
            "privacy_unit": self.privacy_unit,
            "epsilon": self.epsilon,
            "delta": self.delta,
            "bounds": dict(self.bounds),
        }

    @classmethod
    def from_json(cls, record) -> Release:
        """A record of the ledger file (:class:`ValueError` if malformed)."""
        keys = {"time", "command", "mechanism", "privacy_unit", "epsilon", "delta", "bounds"}
        if not isinstance(record, dict) or set(record) != keys:
            raise ValueError(f"a release must have exactly the fields {sorted(keys)}")
        return cls(**record)


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


def _comparisons_of(data):
    """The comparisons of ``data`` (a TypeError naming ``data`` if it holds none)."""
    c = getattr(data, "comparisons", data)
    for attr in ("n_items", "i", "j", "y", "count", "user", "labels"):
        if not hasattr(c, attr):
            raise TypeError(
                "data must be what a ledger fingerprints: a dprank.comparisons.Comparisons "
                "or the table "
                f"dprank.inputs.read_comparisons returns, got {type(data).__name__}"
            )
    return c


def _content_chunks(data) -> Iterator[bytes]:
    c = _comparisons_of(data)
    a, items = _ranks(np.concatenate([c.i, c.j]), _names(c.labels, c.n_items, "item"), "item")
    a, b = a[: c.i.size], a[c.i.size :]
    flip = a > b
    a, b = np.where(flip, b, a), np.where(flip, a, b)
    y = np.where(flip, 1.0 - c.y, c.y) + 0.0  # + 0.0: -0.0 -> 0.0
    count = np.asarray(c.count, dtype=np.float64)
    yield _CONTENT_TAG
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


def canonical_content(data) -> bytes:
    """The comparisons as canonical bytes: the same data in any row order or layout, the same bytes.

    Items are named by their labels (as text; ``0..n-1`` where there are none)
    and numbered in the sorted order of the labels that occur. Each record is
    oriented so that its first item has the smaller label (the outcome ``y``
    becomes ``1 - y``), and records equal in (user, first item, second item,
    outcome) are merged with their counts added, so ``winner,loser`` rows,
    ``item_a,item_b,outcome`` rows, a ``count`` column and repeated rows all give
    the same content for the same comparisons. Users are identified by the
    comparisons they made, not by their labels or indices: each user's records
    are sorted and the users are numbered in the order of a hash of their
    records, so a renaming or renumbering of the users (the command line's
    labels, an API caller's indices) leaves the content unchanged while moving a
    comparison from one user to another changes it. The users' local-DP budgets
    (``epsilon`` column) are not part of it.

    Parameters
    ----------
    data : Comparisons or ComparisonTable
        The comparisons (a :class:`dprank.comparisons.Comparisons`, or the table
        :func:`dprank.inputs.read_comparisons` returns).

    Returns
    -------
    bytes
        Never stored: the ledger keeps only its keyed hash (:func:`fingerprint`).

    Raises
    ------
    ValueError
        Two items with the same label.
    TypeError
        ``data`` is not comparisons.
    """
    return b"".join(_content_chunks(data))


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


# --------------------------------------------------------------------------- composition


def _exact(x: float) -> Fraction:
    return Fraction(repr(float(x)))


@dataclass(frozen=True)
class Composition:
    """The privacy a data set has spent at one privacy unit (:func:`compose`).

    Attributes
    ----------
    privacy_unit : str
    epsilon, delta : float or None
        The totals; ``None`` when unbounded.
    n_releases : int
        Releases composed (every release counts at both units).
    note : str
        How the totals were reached (or why they are unbounded).
    """

    privacy_unit: str
    epsilon: float | None
    delta: float | None
    n_releases: int
    note: str

    @property
    def bounded(self) -> bool:
        """Whether the totals are finite."""
        return self.epsilon is not None


def _plural(n: int, what: str) -> str:
    return f"{n} {what}" + ("" if n == 1 else "s")


def _compose_exact(releases, unit) -> tuple[Fraction | None, float | None, str]:
    if unit not in PRIVACY_UNITS:
        raise ValueError(f"privacy_unit must be one of {PRIVACY_UNITS}, got {unit!r}")
    eps, deltas = Fraction(0), []
    same = [r for r in releases if r.privacy_unit == unit]
    other = [r for r in releases if r.privacy_unit != unit]
    for r in same:
        eps += _exact(r.epsilon)
        deltas.append(r.delta)
    if unit == "comparison":
        for r in other:  # user-level DP implies comparison-level DP at the same (eps, delta)
            eps += _exact(r.epsilon)
            deltas.append(r.delta)
        parts = [_plural(len(same), "comparison-level release")] if same else []
        if other:
            parts.append(_plural(len(other), "user-level release") + " at face value")
        note = "basic composition of " + " and ".join(parts) if parts else "no releases"
        return eps, math.fsum(deltas), note
    unbounded = [r for r in other if r.max_per_user is None]
    if unbounded:
        note = (
            f"unbounded: {_plural(len(unbounded), 'comparison-level release')} without a "
            "declared per-user bound (max_per_user), which cannot be converted to a user-level "
            "guarantee"
        )
        return None, None, note
    for r in other:  # group privacy for groups of L comparisons
        L = r.max_per_user
        eps += L * _exact(r.epsilon)
        deltas.append(L * math.exp((L - 1) * r.epsilon) * r.delta if r.delta else 0.0)
    parts = [_plural(len(same), "user-level release")] if same else []
    if other:
        parts.append(
            _plural(len(other), "comparison-level release") + " at L * epsilon (group privacy)"
        )
    note = "basic composition of " + " and ".join(parts) if parts else "no releases"
    return eps, math.fsum(deltas), note


def compose(releases, privacy_unit: str) -> Composition:
    """The total privacy loss of ``releases`` at ``privacy_unit`` (the rules of the module).

    Parameters
    ----------
    releases : iterable of Release
        The releases of one data set.
    privacy_unit : {"comparison", "user"}

    Returns
    -------
    Composition
        Comparison level: the sums of every release's ``epsilon`` and ``delta``
        (basic composition; a user-level guarantee is also a comparison-level
        one). User level: the sums over user-level releases plus, for each
        comparison-level release with a declared ``max_per_user`` ``L``,
        ``L epsilon`` and ``L exp((L - 1) epsilon) delta`` (group privacy);
        unbounded (``None``) when a comparison-level release declares no ``L``.
    """
    try:
        releases = list(releases)
    except TypeError:
        raise TypeError(
            f"releases must be an iterable of Release, got {type(releases).__name__}"
        ) from None
    bad = [r for r in releases if not isinstance(r, Release)]
    if bad:
        raise TypeError(f"releases must hold Release entries, got {type(bad[0]).__name__}")
    eps, delta, note = _compose_exact(releases, privacy_unit)
    return Composition(
        privacy_unit=privacy_unit,
        epsilon=None if eps is None else float(eps),
        delta=delta,
        n_releases=len(releases),
        note=note,
    )


# --------------------------------------------------------------------------- the ledger


@dataclass
class Receipt:
    """What :meth:`Ledger.release` found: the data set and its budget before and after.

    Attributes
    ----------
    fingerprint : str
    privacy_unit : str
        The unit of the release (and of the totals and budget).
    spent_before, spent_after : float
        Total ``epsilon`` at that unit without and with this release
        (``math.inf`` where the user-level total is unbounded).
    budget : float or None
    entry : Release
        What will be recorded. The ``with`` block may replace it by one that
        differs only in ``delta`` or ``bounds`` (a ``delta`` known only after the
        fit); a change of anything else, ``epsilon`` above all, is refused.
    """

    fingerprint: str
    privacy_unit: str
    spent_before: float
    spent_after: float
    budget: float | None
    entry: Release

    def describe(self) -> str:
        """One line for the user: the data set's total at the release's unit, and the budget."""
        name = f"data set {self.fingerprint[:12]}"
        if math.isinf(self.spent_after):
            return (
                f"{name} has an unbounded total at the {self.privacy_unit} level (a "
                "comparison-level release declares no max_per_user)"
            )
        budget = "" if self.budget is None else f" of the budget {self.budget!r}"
        unit = self.privacy_unit
        return f"{name} has spent epsilon {self.spent_after!r}{budget} at the {unit} level"


@dataclass(frozen=True)
class DataSetSummary:
    """A data set of the ledger: its releases and what they spent (:meth:`Ledger.summary`).

    Attributes
    ----------
    fingerprint : str
    name : str or None
    releases : tuple of Release
        In the order they were recorded.
    comparison, user : Composition
        Totals at the comparison and the user level.
    """

    fingerprint: str
    name: str | None
    releases: tuple[Release, ...]
    comparison: Composition
    user: Composition

    def spent(self, privacy_unit: str) -> Composition:
        """The totals at ``privacy_unit``."""
        return compose(self.releases, privacy_unit)


class Ledger:
    """A privacy-budget ledger in a JSON file (the module docstring describes it).

    Parameters
    ----------
    path : path-like
        The ledger file; created, with a fresh key, by the first release
        recorded in it. Its folder must exist.
    """

    def __init__(self, path: str | os.PathLike):
        self.path = Path(path)

    def __repr__(self) -> str:
        return f"Ledger({os.fspath(self.path)!r})"

    @property
    def _lock_path(self) -> Path:
        return self.path.with_name(self.path.name + ".lock")

    def _error(self, problem: str) -> LedgerError:
        return LedgerError(f"ledger {os.fspath(self.path)}: {problem}")

    # ------------------------------------------------------------------ file
    @contextlib.contextmanager
    def _locked(self):
        if not self.path.parent.is_dir():
            raise self._error(f"the folder {os.fspath(self.path.parent)} does not exist")
        try:
            fd = os.open(self._lock_path, os.O_RDWR | os.O_CREAT, 0o600)
        except OSError as exc:
            raise self._error(
                f"cannot open its lock file {os.fspath(self._lock_path)} ({exc.strerror or exc})"
            ) from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)  # closing releases the lock

    def _read(self, missing_ok: bool) -> dict | None:
        try:
            text = self.path.read_bytes()
        except FileNotFoundError:
            if missing_ok:
                return None
            raise self._error(
                "no such file (a ledger is created by the first release recorded in it)"
            ) from None
        except IsADirectoryError:
            raise self._error("is a directory, not a ledger file") from None
        except OSError as exc:
            raise self._error(f"cannot be read ({exc.strerror or exc})") from None
        try:
            state = json.loads(text)
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise self._error(
                f"not a dprank ledger (not valid JSON: {exc}); restore it from a backup or "
                "give another ledger file"
            ) from None
        self._validate(state)
        return state

    def _validate(self, state) -> None:
        if not isinstance(state, dict) or state.get("format") != FORMAT:
            raise self._error(
                f'not a dprank ledger (no "format": "{FORMAT}" field); give another ledger file'
            )
        if state.get("version") != VERSION:
            raise self._error(
                f"ledger format version {state.get('version')!r}; this dprank reads version "
                f"{VERSION}"
            )
        key = state.get("key")
        if not (isinstance(key, str) and len(key) == 2 * _KEY_BYTES):
            raise self._error("corrupted: its key is not 64 hex digits")
        try:
            bytes.fromhex(key)
        except ValueError:
            raise self._error("corrupted: its key is not 64 hex digits") from None
        datasets = state.get("datasets")
        if not isinstance(datasets, dict):
            raise self._error('corrupted: "datasets" is not an object')
        for fp, ds in datasets.items():
            if not (isinstance(ds, dict) and isinstance(ds.get("releases"), list)):
                raise self._error(f'corrupted: data set {fp[:12]} has no "releases" list')
            name = ds.get("name")
            if name is not None and not isinstance(name, str):
                raise self._error(f"corrupted: data set {fp[:12]} has a name that is not text")
            for k, record in enumerate(ds["releases"]):
                try:
                    Release.from_json(record)
                except (TypeError, ValueError) as exc:
                    raise self._error(
                        f"corrupted: release {k + 1} of data set {fp[:12]}: {exc}"
                    ) from None

    def _write(self, state: dict) -> None:
        text = json.dumps(state, indent=1) + "\n"
        fd, tmp = tempfile.mkstemp(
            prefix=f".{self.path.name}.", suffix=".tmp", dir=self.path.parent
        )
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                os.fchmod(fh.fileno(), 0o600)
                fh.write(text)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, self.path)
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)
            raise
        with contextlib.suppress(OSError):  # make the rename durable
            dir_fd = os.open(self.path.parent, os.O_RDONLY)
            try:
                os.fsync(dir_fd)
            finally:
                os.close(dir_fd)

    @staticmethod
    def _new_state() -> dict:
        return {
            "format": FORMAT,
            "version": VERSION,
            "key": secrets.token_bytes(_KEY_BYTES).hex(),
            "datasets": {},
        }

    # ------------------------------------------------------------------ API
    @property
    def exists(self) -> bool:
        """Whether the ledger file exists."""
        return self.path.exists()

    @property
    def key(self) -> bytes:
        """The ledger's HMAC key (:class:`LedgerError` if there is no ledger yet)."""
        return bytes.fromhex(self._read(missing_ok=False)["key"])

    def fingerprint(self, data) -> str:
        """The keyed fingerprint of ``data`` in this ledger (:func:`fingerprint`)."""
        return fingerprint(data, self.key)

    @contextlib.contextmanager
    def release(
        self,
        data,
        entry: Release,
        *,
        budget: float | None = None,
        name: str | None = None,
    ) -> Iterator[Receipt]:
        """Check a release against the budget, and record it if the ``with`` block succeeds.

        Under the ledger's exclusive lock, held for the whole ``with`` block:
        reads the ledger (or starts a new one with a fresh key), fingerprints
        ``data``, and checks that the data set's total ``epsilon`` at the
        release's privacy unit (:func:`compose`), with this release, stays
        within ``budget``. The block then computes and writes the release; when
        it ends without an exception the record is appended (with the current
        UTC time) and the ledger replaced atomically. When it raises, nothing is
        recorded (and a new ledger is not created).

        Parameters
        ----------
        data : Comparisons or ComparisonTable
            The release's input (:func:`canonical_content`).
        entry : Release
            What is released (its ``time`` is set on recording).
        budget : float, optional
            The most total ``epsilon`` the data set may spend at the release's
            privacy unit; positive and finite. None: record without a check.
        name : str, optional
            A label of the data set (e.g. the input file's name), recorded with
            its first release.

        Yields
        ------
        Receipt
            The fingerprint and the totals before and after the release; its
            ``entry`` (what is recorded) may be given another ``delta`` or
            ``bounds`` in the block.

        Raises
        ------
        BudgetExceeded
            Before the block runs: the release would take the total past
            ``budget`` (the message names the total so far, the request and the
            budget), or a user-level budget meets an unbounded user-level total.
        LedgerError
            A ledger file that cannot be read, is not a ledger or is corrupted.
        """
        if not isinstance(entry, Release):
            raise TypeError(f"entry must be a dprank.ledger.Release, got {type(entry).__name__}")
        if budget is not None:
            budget = _check_number("budget", budget, low=0.0, low_open=True)
        if name is not None and not isinstance(name, str):
            raise ValueError(f"name must be a string, got {name!r}")
        with self._locked():
            state = self._read(missing_ok=True) or self._new_state()
            fp = fingerprint(data, bytes.fromhex(state["key"]))
            ds = state["datasets"].get(fp)
            releases = [Release.from_json(r) for r in ds["releases"]] if ds else []
            unit = entry.privacy_unit
            before, _, note = _compose_exact(releases, unit)
            request = _exact(entry.epsilon)
            if before is None:
                if budget is not None:
                    raise BudgetExceeded(
                        f"ledger {os.fspath(self.path)}: data set {fp[:12]} has a user-level "
                        f"privacy loss that is {note}; no user-level budget ({budget!r}) can be "
                        "met. Nothing was released or recorded.",
                        fingerprint=fp,
                        privacy_unit=unit,
                        spent=None,
                        requested=entry.epsilon,
                        budget=budget,
                    )
                receipt = Receipt(fp, unit, math.inf, math.inf, budget, entry)
            else:
                after = before + request
                if budget is not None and after > _exact(budget):
                    raise BudgetExceeded(
                        f"privacy budget exceeded (ledger {os.fspath(self.path)}): data set "
                        f"{fp[:12]} has spent epsilon {float(before)!r} at the {unit} level; "
                        f"this release asks for {entry.epsilon!r}, which would make "
                        f"{float(after)!r}, past the budget {budget!r}. Nothing was released or "
                        "recorded (`dprank ledger FILE` lists what was spent).",
                        fingerprint=fp,
                        privacy_unit=unit,
                        spent=float(before),
                        requested=entry.epsilon,
                        budget=budget,
                    )
                receipt = Receipt(fp, unit, float(before), float(after), budget, entry)
            yield receipt
            final = receipt.entry
            fixed = ("command", "mechanism", "privacy_unit", "epsilon")
            if not isinstance(final, Release) or any(
                getattr(final, f) != getattr(entry, f) for f in fixed
            ):
                raise ValueError(
                    "the release to record may change only its delta or bounds after the "
                    f"budget check; got {final!r} for {entry!r} (nothing was recorded)"
                )
            stamped = replace(
                final, time=datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
            )
            if ds is None:
                ds = state["datasets"][fp] = {"name": name, "releases": []}
            elif ds.get("name") is None:
                ds["name"] = name
            ds["releases"].append(stamped.to_json())
            self._write(state)

    def record(self, data, entry: Release, **options) -> Receipt:
        """Check and record a release at once (:meth:`release` with an empty block)."""
        with self.release(data, entry, **options) as receipt:
            pass
        return receipt

    def summary(self) -> list[DataSetSummary]:
        """The data sets of the ledger, in the order first recorded, with their totals.

        Raises
        ------
        LedgerError
            No such file, or a file that is not a (valid) ledger.
        """
        state = self._read(missing_ok=False)
        out = []
        for fp, ds in state["datasets"].items():
            releases = tuple(Release.from_json(r) for r in ds["releases"])
            out.append(
                DataSetSummary(
                    fingerprint=fp,
                    name=ds.get("name"),
                    releases=releases,
                    comparison=compose(releases, "comparison"),
                    user=compose(releases, "user"),
                )
            )
        return out


def release_to(ledger, data, entry: Release, *, budget: float | None = None, name=None):
    """:meth:`Ledger.release` where there is a ledger; otherwise a context that yields None.

    The one call of the command line and of :func:`dprank.rank`.

    Parameters
    ----------
    ledger : Ledger, path-like or None
        The ledger (a path is opened as :class:`Ledger`); None: no ledger.
    data, entry, budget, name
        As in :meth:`Ledger.release`.

    Raises
    ------
    ValueError
        A ``budget`` without a ledger (there is nothing to check it against).
    """
    if ledger is None:
        if budget is not None:
            raise ValueError("a budget needs a ledger to check it against (give a ledger file)")
        return contextlib.nullcontext()
    if not isinstance(ledger, Ledger):
        ledger = Ledger(_checks.path(ledger, "ledger"))
    _comparisons_of(data)  # checked on the call, not only on entering the context
    if not isinstance(entry, Release):
        raise TypeError(f"entry must be a dprank.ledger.Release, got {type(entry).__name__}")
    if name is not None:
        _checks.text(name, "name")
    return ledger.release(data, entry, budget=budget, name=name)


# --------------------------------------------------------------------------- text


def _num(x: float | None) -> str:
    return "unbounded" if x is None else repr(float(x))


def _total_line(level: str, c: Composition) -> str:
    if not c.bounded:
        return f"  spent at the {level} level: {c.note}"
    return (
        f"  spent at the {level} level: epsilon {_num(c.epsilon)}, delta {_num(c.delta)} ({c.note})"
    )


def format_summary(summaries: list[DataSetSummary], path: str | os.PathLike) -> str:
    """The text of ``dprank ledger FILE``: data sets, their releases, the budget spent per unit.

    Parameters
    ----------
    summaries : list of DataSetSummary
        From :meth:`Ledger.summary`.
    path : path-like
        The ledger file, named in the heading.

    Returns
    -------
    str
        Ends with a newline.
    """
    if not isinstance(summaries, (list, tuple)) or not all(
        isinstance(s, DataSetSummary) for s in summaries
    ):
        raise TypeError(
            f"summaries must be a list of DataSetSummary (Ledger.summary()), got {summaries!r}"
        )
    _checks.path(path, "path")
    n = len(summaries)
    lines = [f"ledger {os.fspath(path)}: {n} data set{'' if n == 1 else 's'}"]
    for s in summaries:
        k = len(s.releases)
        name = f" ({s.name})" if s.name else ""
        lines += ["", f"data set {s.fingerprint[:12]}{name}: {k} release{'' if k == 1 else 's'}"]
        rows = [("time (UTC)", "command", "mechanism", "unit", "epsilon", "delta", "bounds")]
        for r in s.releases:
            bounds = " ".join(f"{key}={value}" for key, value in r.bounds.items())
            rows.append(
                (
                    r.time or "-",
                    r.command,
                    r.mechanism,
                    r.privacy_unit,
                    repr(r.epsilon),
                    repr(r.delta),
                    bounds or "-",
                )
            )
        widths = [max(len(row[col]) for row in rows) for col in range(len(rows[0]))]
        for row in rows:
            lines.append(
                "  " + "  ".join(v.ljust(w) for v, w in zip(row, widths, strict=True)).rstrip()
            )
        lines.append(_total_line("comparison", s.comparison))
        lines.append(_total_line("user", s.user))
    return "\n".join(lines) + "\n"


def main_ledger(path: str | os.PathLike) -> str:
    """What ``dprank ledger FILE`` prints (:class:`LedgerError` for a missing or bad file)."""
    _checks.path(path, "path")
    return format_summary(Ledger(path).summary(), path)
