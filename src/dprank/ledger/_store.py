"""The ledger file: :class:`Ledger`, its receipts and summaries, and their text.

Re-exported by :mod:`dprank.ledger`.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import math
import os
import secrets
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path

from .. import _checks
from ._content import _comparisons_of, fingerprint
from ._releases import (
    FORMAT,
    VERSION,
    BudgetExceeded,
    Composition,
    LedgerError,
    Release,
    _check_number,
    _compose_exact,
    _exact,
    compose,
)

_KEY_BYTES = 32


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
            receipt = self._receipt(fp, releases, entry, budget)
            yield receipt
            stamped = _stamped(receipt.entry, entry)
            if ds is None:
                ds = state["datasets"][fp] = {"name": name, "releases": []}
            elif ds.get("name") is None:
                ds["name"] = name
            ds["releases"].append(stamped.to_json())
            self._write(state)

    def _receipt(self, fp: str, releases: list[Release], entry: Release, budget) -> Receipt:
        """The receipt of ``entry`` on data set ``fp``; :class:`BudgetExceeded` past ``budget``."""
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
            return Receipt(fp, unit, math.inf, math.inf, budget, entry)
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
        return Receipt(fp, unit, float(before), float(after), budget, entry)

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


def _stamped(final, entry: Release) -> Release:
    """``final`` with the current UTC time, after checking it changed only ``delta``/``bounds``."""
    fixed = ("command", "mechanism", "privacy_unit", "epsilon")
    if not isinstance(final, Release) or any(getattr(final, f) != getattr(entry, f) for f in fixed):
        raise ValueError(
            "the release to record may change only its delta or bounds after the "
            f"budget check; got {final!r} for {entry!r} (nothing was recorded)"
        )
    return replace(
        final, time=datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
    )


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
