"""The ledger file: :class:`Ledger`, its chained records and its budgets.

Re-exported by :mod:`dprank.ledger`.
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
from collections.abc import Iterator
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path

from ..base import _checks
from ._content import comparisons_of, fingerprint, legacy_fingerprint
from ._keys import KEY_BYTES, KeyEntry, KeyFile, write_durably
from ._receipts import DataSetSummary, Receipt
from ._releases import (
    FORMAT,
    PRIVACY_UNITS,
    VERSION,
    BudgetExceeded,
    LedgerError,
    LedgerWriteError,
    Release,
    check_number,
    compose,
    compose_exact,
    exact,
)

_RELEASE_FIELDS = ("time", "command", "mechanism", "privacy_unit", "epsilon", "delta", "bounds")
LEGACY = "v1:"  # data sets of a migrated version-1 ledger: their v1 fingerprint, prefixed


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def _mac(key: bytes, record: dict) -> str:
    """HMAC-SHA256 of a record's canonical JSON (every field but ``mac``)."""
    body = {k: v for k, v in record.items() if k != "mac"}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hmac.new(key, text.encode("ascii"), hashlib.sha256).hexdigest()


# --------------------------------------------------------------------------- the state


@dataclass
class _State:
    """A ledger as read and verified: its id, key and records (none yet for a new ledger)."""

    ledger_id: str
    key: bytes
    records: list
    legacy_key: bytes | None = None

    def releases(self, fp: str, legacy_fp: str | None) -> list[Release]:
        wanted = {fp} if legacy_fp is None else {fp, LEGACY + legacy_fp}
        return [
            _release_of(r)
            for r in self.records
            if r["type"] == "release" and r["dataset"] in wanted
        ]

    def budgets(self) -> dict[str, float]:
        out: dict[str, float] = {}
        for r in self.records:
            if r["type"] == "budget":
                out[r["privacy_unit"]] = float(r["epsilon"])
        return out


def _release_of(record: dict) -> Release:
    return Release.from_json({k: record[k] for k in _RELEASE_FIELDS})


def _check_record(record) -> None:
    """A record's fields by type (ValueError naming what is wrong)."""
    kind = record.get("type")
    if kind == "release":
        if not isinstance(record.get("dataset"), str):
            raise ValueError("no data set")
        name = record.get("name")
        if name is not None and not isinstance(name, str):
            raise ValueError("a name that is not text")
        _release_of(record)
    elif kind == "budget":
        if record.get("privacy_unit") not in PRIVACY_UNITS:
            raise ValueError("a budget without a privacy unit")
        check_number("budget", record.get("epsilon"), low=0.0, low_open=True)
    elif kind not in ("created", "migrated"):
        raise ValueError(f"unknown type {kind!r}")


class Ledger:
    """A privacy-budget ledger in a JSON file (the module docstring describes it).

    Parameters
    ----------
    path : path-like
        The ledger file; created, with a fresh key in the key file, by the first
        release (or budget) recorded in it. Its folder must exist.
    key_file : path-like, optional
        The key file (default :func:`dprank.ledger.default_key_file`).
    """

    def __init__(self, path: str | os.PathLike, key_file: str | os.PathLike | None = None):
        self.path = Path(path)
        self.keys = KeyFile(key_file)

    def __repr__(self) -> str:
        return f"Ledger({os.fspath(self.path)!r})"

    @property
    def _lock_path(self) -> Path:
        return self.path.with_name(self.path.name + ".lock")

    @property
    def _where(self) -> str:
        """The ledger's path as the key file records it (links resolved)."""
        return os.path.realpath(self.path)

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

    def _read_json(self) -> dict | None:
        """The ledger file's JSON object (None where there is no file)."""
        try:
            text = self.path.read_bytes()
        except FileNotFoundError:
            return None
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
        if not isinstance(state, dict) or state.get("format") != FORMAT:
            raise self._error(
                f'not a dprank ledger (no "format": "{FORMAT}" field); give another ledger file'
            )
        return state

    def _load(self, missing_ok: bool) -> _State | None:
        """The ledger, read and verified against the key file (None: no ledger yet)."""
        with self.keys.locked():
            entries = self.keys.read()
        state = self._read_json()
        if state is None:
            self._check_not_deleted(entries)
            if missing_ok:
                return None
            raise self._error(
                "no such file (a ledger is created by the first release recorded in it)"
            )
        version = state.get("version")
        if version == 1:
            raise self._error(
                "a version-1 ledger (its key inside the file, its records neither MAC'ed nor "
                "chained), which this dprank no longer trusts for a budget. Migrate it, keeping "
                f"its records: `dprank ledger {os.fspath(self.path)} --migrate`; or start a new "
                "ledger under another file name"
            )
        if version != VERSION:
            raise self._error(
                f"ledger format version {version!r}; this dprank reads version {VERSION} "
                "(and migrates version 1)"
            )
        ledger_id, records = state.get("ledger_id"), state.get("records")
        if not isinstance(ledger_id, str) or not isinstance(records, list) or not records:
            raise self._error('corrupted: no "ledger_id" or no "records"')
        entry = entries.get(ledger_id)
        if entry is None:
            raise self._error(
                f"its key is not in the key file {os.fspath(self.keys.path)} (deleted, or "
                "another key file in use: set DPRANK_LEDGER_KEYS to the one it was made "
                "with); without its key no record can be verified, so it is refused"
            )
        self._verify(ledger_id, records, entry)
        state = _State(ledger_id, entry.key, records, entry.legacy_key)
        if entry.path != self._where:  # a moved ledger: the key file follows it
            self._store_key(state, entry.records, entry.head)
        return state

    def _check_not_deleted(self, entries: dict[str, KeyEntry]) -> None:
        for entry in entries.values():
            if entry.path == self._where and entry.records > 0:
                raise self._error(
                    f"no such file, but the key file {os.fspath(self.keys.path)} records a "
                    f"ledger of {entry.records} records here: it was deleted or moved. "
                    "Restore it from a backup; to give up its records and start a new "
                    f"ledger here, say so: `dprank ledger {os.fspath(self.path)} --forget`"
                )

    def _verify(self, ledger_id: str, records: list, entry: KeyEntry) -> None:
        prev = ledger_id
        for k, record in enumerate(records):
            where = f"record {k + 1}"
            if not isinstance(record, dict) or not isinstance(record.get("mac"), str):
                raise self._error(f"corrupted: {where} is not a sealed record")
            if record.get("seq") != k or record.get("prev") != prev:
                raise self._error(
                    f"tampered with: {where} does not follow the record before it (a record "
                    "was deleted, inserted or reordered); the ledger is refused"
                )
            if not hmac.compare_digest(record["mac"], _mac(entry.key, record)):
                raise self._error(
                    f"tampered with: {where} was edited (its MAC does not match); the ledger "
                    "is refused"
                )
            try:
                _check_record(record)
            except (TypeError, ValueError) as exc:
                raise self._error(f"corrupted: {where}: {exc}") from None
            prev = record["mac"]
        if len(records) < entry.records:
            raise self._error(
                f"tampered with: it has {len(records)} records, the key file "
                f"{os.fspath(self.keys.path)} says {entry.records} (records were removed from "
                "its end, or an older copy was put back); the ledger is refused"
            )
        if entry.records and records[entry.records - 1]["mac"] != entry.head:
            raise self._error(
                f"tampered with: its record {entry.records} is not the one the key file "
                "remembers (the ledger was replaced); the ledger is refused"
            )

    def _append(self, state: _State, bodies: list[dict]) -> None:
        """Seal ``bodies`` onto the chain, write the ledger durably, then its head to the key file.

        A new ledger's key goes into the key file first (with no records), so a
        crash never leaves a ledger whose key is nowhere; the ledger is written
        before its new head, so a crash in between leaves a ledger one record
        longer than the key file says, which the next reading accepts (the
        record verifies under the key).
        """
        records = list(state.records)
        prev = records[-1]["mac"] if records else state.ledger_id
        for body in bodies:
            record = {"seq": len(records), "prev": prev, **body}
            record["mac"] = prev = _mac(state.key, record)
            records.append(record)
        document = {"format": FORMAT, "version": VERSION, "ledger_id": state.ledger_id}
        document["records"] = records
        if not state.records:
            self._store_key(state, 0, state.ledger_id)
        try:
            write_durably(self.path, json.dumps(document, indent=1) + "\n")
        except OSError as exc:
            raise LedgerWriteError(
                f"ledger {os.fspath(self.path)}: cannot be written ({exc.strerror or exc}): "
                "the release was not recorded, so nothing was released"
            ) from None
        self._store_key(state, len(records), prev)
        state.records = records

    def _store_key(self, state: _State, n_records: int, head: str) -> None:
        with self.keys.locked():
            entries = self.keys.read()
            entries[state.ledger_id] = KeyEntry(
                state.key, self._where, n_records, head, state.legacy_key
            )
            self.keys.write(entries)

    def _new_state(self) -> _State:
        return _State(secrets.token_hex(16), secrets.token_bytes(KEY_BYTES), [])

    @staticmethod
    def _created() -> dict:
        from .._version import __version__

        return {"type": "created", "time": _now(), "dprank_version": __version__}

    # ------------------------------------------------------------------ API
    @property
    def exists(self) -> bool:
        """Whether the ledger file exists."""
        return self.path.exists()

    @property
    def key(self) -> bytes:
        """The ledger's HMAC key, from the key file (:class:`LedgerError` if there is no ledger)."""
        with self._locked():
            return self._load(missing_ok=False).key

    def fingerprint(self, data) -> str:
        """The keyed fingerprint of ``data`` in this ledger (:func:`fingerprint`)."""
        return fingerprint(data, self.key)

    def budgets(self) -> dict[str, float]:
        """The ledger's budgets by privacy unit (empty where none is set)."""
        with self._locked():
            state = self._load(missing_ok=True)
        return {} if state is None else state.budgets()

    @contextlib.contextmanager
    def release(
        self,
        data,
        entry: Release,
        *,
        budget: float | None = None,
        budget_unit: str | None = None,
        name: str | None = None,
    ) -> Iterator[Receipt]:
        """Check a release against the ledger's budgets, and record it before it is visible.

        Under the ledger's exclusive lock, held for the whole ``with`` block:
        reads and verifies the ledger (or starts a new one), fingerprints
        ``data`` and checks that, with this release, the data set's total at
        every privacy unit that has a budget stays within it (:func:`compose`).
        The block computes the release and calls :meth:`Receipt.commit` before
        making anything visible; the record is then appended and fsync'ed. A
        block that ends without committing commits on leaving; one that raises
        before committing records nothing (and a new ledger is not created).

        Parameters
        ----------
        data : Comparisons or ComparisonTable
            The release's input (:func:`canonical_content`).
        entry : Release
            What is released (its ``time`` is set on recording).
        budget : float, optional
            Sets the ledger's budget at ``budget_unit`` where it has none, or
            lowers it; a budget above the stored one is refused (raising it
            takes :meth:`set_budget`, ``dprank ledger FILE --set-budget``).
            Positive and finite. The stored budgets apply whether or not a
            budget is given.
        budget_unit : {"comparison", "user"}, optional
            The privacy unit of ``budget`` (default: the release's).
        name : str, optional
            A label of the data set (e.g. the input file's name).

        Yields
        ------
        Receipt

        Raises
        ------
        BudgetExceeded
            Before the block runs: the release would take a total past its
            budget (the message names the total so far, the request and the
            budget), or a user-level budget meets an unbounded user-level total.
        LedgerError
            A ledger that cannot be read or verified (edited, truncated,
            deleted, a version-1 file), a budget above the stored one, or a
            record that cannot be written.
        """
        if not isinstance(entry, Release):
            raise TypeError(f"entry must be a dprank.ledger.Release, got {type(entry).__name__}")
        if budget is not None:
            budget = check_number("budget", budget, low=0.0, low_open=True)
        unit = entry.privacy_unit if budget_unit is None else budget_unit
        if unit not in PRIVACY_UNITS:
            raise ValueError(f"budget_unit must be one of {PRIVACY_UNITS}, got {budget_unit!r}")
        if name is not None and not isinstance(name, str):
            raise ValueError(f"name must be a string, got {name!r}")
        with self._locked():
            state = self._load(missing_ok=True) or self._new_state()
            fp = fingerprint(data, state.key)
            legacy = (
                None if state.legacy_key is None else legacy_fingerprint(data, state.legacy_key)
            )
            releases = state.releases(fp, legacy)
            budgets = state.budgets()
            bodies = self._budget_change(budgets, budget, unit)
            receipt = self._receipt(fp, releases, entry, budgets)

            def commit() -> None:
                stamped = _stamped(receipt.entry, entry)
                body = {"type": "release", "dataset": fp, "name": name, **stamped.to_json()}
                created = [] if state.records else [self._created()]
                self._append(state, [*created, *bodies, body])

            receipt._commit = commit
            yield receipt
            receipt.commit()

    def _budget_change(self, budgets: dict, budget: float | None, unit: str) -> list[dict]:
        """The budget record that ``budget`` makes (none, a first one, a lower one), or refuse."""
        if budget is None:
            return []
        current = budgets.get(unit)
        if current is not None and exact(budget) > exact(current):
            raise self._error(
                f"its budget at the {unit} level is {current!r}; a release cannot raise it to "
                f"{budget!r}. Raising a budget is a decision of its own: `dprank ledger "
                f"{os.fspath(self.path)} --set-budget {budget!r} --unit {unit}`. Nothing was "
                "released or recorded"
            )
        if current is not None and exact(budget) == exact(current):
            return []
        budgets[unit] = budget
        return [
            {
                "type": "budget",
                "time": _now(),
                "privacy_unit": unit,
                "epsilon": budget,
                "set_by": "a release's budget",
            }
        ]

    def _receipt(self, fp: str, releases: list[Release], entry: Release, budgets) -> Receipt:
        """The receipt of ``entry`` on data set ``fp``; :class:`BudgetExceeded` past a budget."""
        totals = {}
        for unit in (entry.privacy_unit, *[u for u in PRIVACY_UNITS if u != entry.privacy_unit]):
            before, _, note = compose_exact(releases, unit)
            charge, _, charge_note = compose_exact([entry], unit)
            after = None if before is None or charge is None else before + charge
            budget = budgets.get(unit)
            if budget is not None:
                self._check_budget(fp, unit, before, charge, after, budget, note or charge_note)
                totals[unit] = (float(after), budget)
            if unit == entry.privacy_unit:
                own = (before, after)
        before, after = own
        return Receipt(
            fp,
            entry.privacy_unit,
            math.inf if before is None else float(before),
            math.inf if after is None else float(after),
            budgets.get(entry.privacy_unit),
            entry,
            totals,
        )

    def _check_budget(self, fp, unit, before, charge, after, budget, note) -> None:
        if after is None:
            what = "this data set's" if before is None else "this release's"
            raise BudgetExceeded(
                f"ledger {os.fspath(self.path)}: {what} user-level privacy loss is unbounded "
                f"({note}); the ledger's user-level budget ({budget!r}) cannot be met. Declare "
                "the most comparisons of one user (--max-per-user) to charge it L * epsilon. "
                "Nothing was released or recorded.",
                fingerprint=fp,
                privacy_unit=unit,
                spent=None if before is None else float(before),
                requested=None if charge is None else float(charge),
                budget=budget,
            )
        if after > exact(budget):
            raise BudgetExceeded(
                f"privacy budget exceeded (ledger {os.fspath(self.path)}): this data set has "
                f"spent epsilon {float(before)!r} at the {unit} level; this release asks for "
                f"{float(charge)!r} there, which would make {float(after)!r}, past the budget "
                f"{budget!r}. Nothing was released or recorded (`dprank ledger FILE` lists "
                "what was spent).",
                fingerprint=fp,
                privacy_unit=unit,
                spent=float(before),
                requested=float(charge),
                budget=budget,
            )

    def record(self, data, entry: Release, **options) -> Receipt:
        """Check and record a release at once (:meth:`release` with an empty block)."""
        with self.release(data, entry, **options) as receipt:
            pass
        return receipt

    def set_budget(self, epsilon: float, privacy_unit: str) -> None:
        """Set the budget at ``privacy_unit`` to ``epsilon``, raising it if need be.

        The one way to raise a budget (``dprank ledger FILE --set-budget EPS
        --unit UNIT``); a release's ``budget`` can only set a first one or lower it.
        """
        epsilon = check_number("budget", epsilon, low=0.0, low_open=True)
        if privacy_unit not in PRIVACY_UNITS:
            raise ValueError(f"privacy_unit must be one of {PRIVACY_UNITS}, got {privacy_unit!r}")
        body = {
            "type": "budget",
            "time": _now(),
            "privacy_unit": privacy_unit,
            "epsilon": epsilon,
            "set_by": "dprank ledger --set-budget",
        }
        with self._locked():
            state = self._load(missing_ok=True)
            if state is None:
                state = self._new_state()
                self._append(state, [self._created(), body])
            else:
                self._append(state, [body])

    def forget(self) -> int:
        """Give up the records of a deleted ledger: drop its key-file entries; how many.

        Refused where the ledger file exists (delete a ledger, then forget it).
        """
        with self._locked():
            if self.path.exists():
                raise self._error(
                    "exists: --forget gives up the records of a deleted ledger only (to "
                    "start over, delete the file first, knowing that its budget is spent)"
                )
            with self.keys.locked():
                entries = self.keys.read()
                gone = [k for k, e in entries.items() if e.path == self._where]
                for k in gone:
                    del entries[k]
                if gone:
                    self.keys.write(entries)
        return len(gone)

    def migrate(self) -> int:
        """Turn a version-1 ledger into a version-2 one in place; the number of records kept.

        The version-1 file is kept beside it as ``FILE.v1`` (mode 0600). Its
        releases stay charged to their data sets: their fingerprints were made
        with the old key, which the key file keeps as the ledger's legacy key,
        so a later release of the same data (with the same users) finds them.
        """
        with self._locked():
            old = self._read_json()
            if old is None:
                raise self._error("no such file: nothing to migrate")
            if old.get("version") != 1:
                raise self._error(f"format version {old.get('version')!r}: only version 1 migrates")
            bodies = self._legacy_bodies(old)
            state = self._new_state()
            state.legacy_key = bytes.fromhex(old["key"])
            backup = self.path.with_name(self.path.name + ".v1")
            write_durably(backup, self.path.read_text(encoding="utf-8"))
            head = [self._created(), {"type": "migrated", "time": _now(), "from_version": 1}]
            self._append(state, [*head, *bodies])
        return len(bodies)

    def _legacy_bodies(self, old: dict) -> list[dict]:
        try:
            key = bytes.fromhex(old["key"])
            if len(key) != KEY_BYTES:
                raise ValueError("the key is not 32 bytes")
            bodies = []
            for fp, ds in old["datasets"].items():
                for r in ds["releases"]:
                    release = Release.from_json(r)
                    body = {"type": "release", "dataset": LEGACY + fp, "name": ds.get("name")}
                    bodies.append({**body, **release.to_json()})
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise self._error(f"corrupted version-1 ledger ({exc}); nothing migrated") from None
        return bodies

    def summary(self) -> list[DataSetSummary]:
        """The data sets of the ledger, in the order first recorded, with their totals.

        Raises
        ------
        LedgerError
            No such file, or a file that is not a (valid, verified) ledger.
        """
        with self._locked():
            state = self._load(missing_ok=False)
        groups: dict[str, list] = {}
        names: dict[str, str | None] = {}
        for r in state.records:
            if r["type"] != "release":
                continue
            groups.setdefault(r["dataset"], []).append(_release_of(r))
            if names.get(r["dataset"]) is None:
                names[r["dataset"]] = r.get("name")
        return [
            DataSetSummary(
                fingerprint=fp,
                name=names.get(fp),
                releases=tuple(releases),
                comparison=compose(releases, "comparison"),
                user=compose(releases, "user"),
            )
            for fp, releases in groups.items()
        ]


def _stamped(final, entry: Release) -> Release:
    """``final`` with the current UTC time, after checking it changed only ``delta``/``bounds``."""
    fixed = ("command", "mechanism", "privacy_unit", "epsilon")
    if not isinstance(final, Release) or any(getattr(final, f) != getattr(entry, f) for f in fixed):
        raise ValueError(
            "the release to record may change only its delta or bounds after the "
            f"budget check; got {final!r} for {entry!r} (nothing was recorded)"
        )
    if compose_exact([final], "user")[0] != compose_exact([entry], "user")[0]:
        raise ValueError(
            "the release to record may not change its user-level charge (max_per_user) after "
            "the budget check (nothing was recorded)"
        )
    return replace(final, time=_now())


def release_to(
    ledger,
    data,
    entry: Release,
    *,
    budget: float | None = None,
    name=None,
    budget_unit: str | None = None,
):
    """:meth:`Ledger.release` where there is a ledger; otherwise a context that yields None.

    The one call of the command line and of :func:`dprank.rank`.

    Parameters
    ----------
    ledger : Ledger, path-like or None
        The ledger (a path is opened as :class:`Ledger`); None: no ledger.
    data, entry, budget, name, budget_unit
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
    comparisons_of(data)  # checked on the call, not only on entering the context
    if not isinstance(entry, Release):
        raise TypeError(f"entry must be a dprank.ledger.Release, got {type(entry).__name__}")
    if name is not None:
        _checks.text(name, "name")
    return ledger.release(data, entry, budget=budget, budget_unit=budget_unit, name=name)
