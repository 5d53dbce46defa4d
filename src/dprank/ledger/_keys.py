"""The ledgers' key file: each ledger's HMAC key and the head of its record chain.

Re-exported by :mod:`dprank.ledger`, whose docstring describes the ledger.

The key of a ledger lives *outside* the ledger file, in one key file per account
(:func:`default_key_file`: ``$DPRANK_LEDGER_KEYS``, else
``$XDG_CONFIG_HOME/dprank/ledger-keys.json``, else
``~/.config/dprank/ledger-keys.json``), written with mode ``0600`` in a folder of
mode ``0700``. For each ledger it holds, by the ledger's random id: the key, the
ledger's path (resolved), the number of its records and the MAC of the last one
(the *head*). Whoever can edit the ledger but not read the key file cannot forge
a record; and since the key file remembers each ledger's length and head, a
truncated or replaced ledger, and a deleted one where the key file says a
ledger existed, are detected and refused.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

from ._releases import LedgerError

KEYS_FORMAT = "dprank-ledger-keys"
KEYS_VERSION = 1
#: The environment variable that names the key file.
KEY_FILE_ENV = "DPRANK_LEDGER_KEYS"
KEY_BYTES = 32


def default_key_file() -> Path:
    """The key file of the ledgers: ``$DPRANK_LEDGER_KEYS``, else the user's config folder.

    ``$XDG_CONFIG_HOME/dprank/ledger-keys.json`` where ``XDG_CONFIG_HOME`` is set,
    else ``~/.config/dprank/ledger-keys.json``.
    """
    env = os.environ.get(KEY_FILE_ENV)
    if env:
        return Path(env).expanduser()
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(Path.home(), ".config")
    return Path(base) / "dprank" / "ledger-keys.json"


@dataclass
class KeyEntry:
    """One ledger in the key file.

    Attributes
    ----------
    key : bytes
        The ledger's HMAC key (32 random bytes).
    path : str
        The ledger file's resolved path when last written.
    records : int
        The number of records of the ledger when last written (0: a new ledger
        whose key was stored just before its first write).
    head : str
        The MAC (hex) of its last record.
    legacy_key : bytes or None
        The key of the version-1 ledger it was migrated from (its data sets'
        fingerprints were made with it).
    """

    key: bytes
    path: str
    records: int
    head: str
    legacy_key: bytes | None = None

    def to_json(self) -> dict:
        out = {
            "key": self.key.hex(),
            "path": self.path,
            "records": self.records,
            "head": self.head,
        }
        if self.legacy_key is not None:
            out["legacy_key"] = self.legacy_key.hex()
        return out

    @classmethod
    def from_json(cls, value) -> KeyEntry:
        if not isinstance(value, dict):
            raise ValueError("an entry is not an object")
        key = bytes.fromhex(value["key"])
        legacy = value.get("legacy_key")
        if len(key) != KEY_BYTES or not isinstance(value["path"], str):
            raise ValueError("a key is not 32 bytes or a path is not text")
        records = value["records"]
        if isinstance(records, bool) or not isinstance(records, int) or records < 0:
            raise ValueError("a record count is not a non-negative integer")
        if not isinstance(value["head"], str):
            raise ValueError("a head is not text")
        return cls(
            key=key,
            path=value["path"],
            records=records,
            head=value["head"],
            legacy_key=None if legacy is None else bytes.fromhex(legacy),
        )


def fsync_folder(folder: Path) -> None:
    """Make a rename in ``folder`` durable (best effort where folders cannot be opened)."""
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def write_durably(path: Path, text: str) -> None:
    """Replace ``path`` by ``text`` atomically (mode 0600), fsync'ed with its folder."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            os.fchmod(fh.fileno(), 0o600)
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    fsync_folder(path.parent)


class KeyFile:
    """The key file (:func:`default_key_file` unless ``path`` is given)."""

    def __init__(self, path: str | os.PathLike | None = None):
        self.path = default_key_file() if path is None else Path(path)

    def __repr__(self) -> str:
        return f"KeyFile({os.fspath(self.path)!r})"

    def _error(self, problem: str) -> LedgerError:
        return LedgerError(f"ledger key file {os.fspath(self.path)}: {problem}")

    @contextlib.contextmanager
    def locked(self):
        """An exclusive lock on the key file (``FILE.lock`` beside it); its folder made 0700."""
        folder = self.path.parent
        try:
            folder.mkdir(mode=0o700, parents=True, exist_ok=True)
            fd = os.open(
                self.path.with_name(self.path.name + ".lock"), os.O_RDWR | os.O_CREAT, 0o600
            )
        except OSError as exc:
            raise self._error(f"cannot be created or locked ({exc.strerror or exc})") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)

    def read(self) -> dict[str, KeyEntry]:
        """The entries by ledger id (empty where there is no key file yet)."""
        try:
            text = self.path.read_bytes()
        except FileNotFoundError:
            return {}
        except OSError as exc:
            raise self._error(f"cannot be read ({exc.strerror or exc})") from None
        try:
            state = json.loads(text)
            if not isinstance(state, dict) or state.get("format") != KEYS_FORMAT:
                raise ValueError(f'no "format": "{KEYS_FORMAT}" field')
            if state.get("version") != KEYS_VERSION:
                raise ValueError(f"format version {state.get('version')!r}")
            return {str(k): KeyEntry.from_json(v) for k, v in state["ledgers"].items()}
        except (ValueError, KeyError, TypeError, UnicodeDecodeError) as exc:
            raise self._error(
                f"not a valid key file ({exc}); restore it from a backup (without it no "
                "ledger that it keys can be verified)"
            ) from None

    def write(self, entries: dict[str, KeyEntry]) -> None:
        """Replace the key file by ``entries`` (atomically, fsync'ed, mode 0600)."""
        state = {
            "format": KEYS_FORMAT,
            "version": KEYS_VERSION,
            "ledgers": {k: e.to_json() for k, e in entries.items()},
        }
        try:
            write_durably(self.path, json.dumps(state, indent=1) + "\n")
        except OSError as exc:
            raise self._error(f"cannot be written ({exc.strerror or exc})") from None

    def by_path(self, path: str) -> tuple[str, KeyEntry] | None:
        """The entry whose ledger was last written at ``path`` (resolved), or None."""
        for ledger_id, entry in self.read().items():
            if entry.path == path:
                return ledger_id, entry
        return None
