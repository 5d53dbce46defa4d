"""The real data sets: a registry of their files, and a verified fetch from a mirror or the web.

``resources/datasets.yaml`` lists every file of every real data set with its
sha256, size and download URL (see the comments at its top). :func:`fetch`
puts a data set's files under a destination folder, either by copying them
from a local *data mirror* (a folder with the same layout, ``<mirror>/<path>``)
or, without a mirror, by downloading them with :mod:`pooch`. Every file is
checked against its registered sha256 before it appears at its final path,
and is written through a temporary name, so a destination path holds either
nothing or the verified file.

The mirror is chosen by :func:`resolve_mirror`: the environment variable
``DPRANK_DATA_MIRROR`` overrides the workflow's config key ``data_mirror``.

Every workflow job that reads a file of the data folder checks it again first
(:func:`verify_local`, called by :func:`dprank_papers.workflow.job_logger`): a local
copy edited or damaged after its fetch stops the job with both hashes and how
to restore it.
"""

from __future__ import annotations

import os
import re
import shutil
import tarfile
import tempfile
import zipfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any, NoReturn
from urllib.parse import urlparse

from dprank.base.io import atomic_path, sha256  # sha256: this module's name for it too
from dprank.base.yamlfile import read_yaml

from ..base import _checks

__all__ = [
    "CONFIG_KEY",
    "DATA_DIR",
    "ENV_VAR",
    "REGISTRY",
    "WORKFLOW_MIRROR_HINT",
    "DataError",
    "DataFile",
    "Dataset",
    "fetch",
    "load_registry",
    "resolve_mirror",
    "sha256",
    "verify_local",
]

ENV_VAR = "DPRANK_DATA_MIRROR"
CONFIG_KEY = "data_mirror"
#: The workflow's data folder and registry, relative to its working directory.
DATA_DIR = "resources/data"
REGISTRY = "resources/datasets.yaml"
ARCHIVE_TYPES = ("tar.gz", "zip")

_NAME = re.compile(r"^[a-z][a-z0-9_]*$")
_SHA256 = re.compile(r"^[0-9a-f]{64}$")
_DATASET_KEYS = {"description", "citation", "license", "page", "files"}
_FILE_KEYS = {
    "path",
    "sha256",
    "size",
    "url",
    "fallback_urls",
    "archive",
    "member",
    "archive_sha256",
}


class DataError(RuntimeError):
    """A data file is missing, cannot be downloaded, or does not match its registered sha256."""


@dataclass(frozen=True)
class DataFile:
    """One registered file of a data set.

    Attributes
    ----------
    path : str
        Relative POSIX path in the data folder and in a mirror (``cems/CEMS.rda``).
    sha256 : str
        Expected sha256 (hex) of the file; for an archive member, of the extracted member.
    size : int
        Expected size in bytes.
    urls : tuple of str
        Download URLs, tried in order (the registry's ``url`` then ``fallback_urls``).
    archive : str or None
        ``"tar.gz"`` or ``"zip"`` when the URL is an archive holding the file, else None.
    member : str or None
        The file's path inside the archive.
    archive_sha256 : str or None
        The archive's own sha256, or None when it is unpinned.
    """

    path: str
    sha256: str
    size: int
    urls: tuple[str, ...]
    archive: str | None = None
    member: str | None = None
    archive_sha256: str | None = None


@dataclass(frozen=True)
class Dataset:
    """One registered data set: what it is, where it comes from, and its files."""

    name: str
    description: str
    citation: str
    license: str
    page: str
    files: tuple[DataFile, ...]


# --------------------------------------------------------------------------- registry


def _fail(where: str, problem: str) -> NoReturn:
    raise ValueError(f"malformed data registry entry {where}: {problem}")


def _text(entry: Mapping, key: str, where: str) -> str:
    value = entry.get(key)
    if not isinstance(value, str) or not value.strip():
        _fail(where, f"'{key}' must be a non-empty string, got {value!r}")
    return value.strip()


def _url(value: Any, where: str) -> str:
    if not isinstance(value, str) or urlparse(value).scheme not in ("http", "https"):
        _fail(where, f"URLs must be http(s) strings, got {value!r}")
    return value


def _hash(value: Any, where: str, key: str) -> str:
    if not isinstance(value, str) or not _SHA256.match(value):
        _fail(where, f"'{key}' must be 64 lower-case hex digits, got {value!r}")
    return value


def _relpath(value: Any, dataset: str, where: str) -> str:
    if not isinstance(value, str):
        _fail(where, f"'path' must be a string, got {value!r}")
    parts = PurePosixPath(value).parts
    if value.startswith("/") or "\\" in value or ".." in parts or len(parts) < 2:
        _fail(where, f"'path' must be a relative POSIX path '<data set>/...', got {value!r}")
    if parts[0] != dataset:
        _fail(where, f"'path' must lie in the data set's folder '{dataset}/', got {value!r}")
    return value


def _archive_fields(entry: Mapping, where: str) -> tuple[str | None, str | None, str | None]:
    archive = entry.get("archive")
    if archive is None:
        if entry.get("member") is not None or entry.get("archive_sha256") is not None:
            _fail(where, "'member' and 'archive_sha256' need 'archive'")
        return None, None, None
    if archive not in ARCHIVE_TYPES:
        _fail(where, f"'archive' must be one of {list(ARCHIVE_TYPES)}, got {archive!r}")
    member = _text(entry, "member", where)
    pinned = entry.get("archive_sha256")
    return archive, member, None if pinned is None else _hash(pinned, where, "archive_sha256")


def _parse_file(entry: Any, dataset: str, index: int) -> DataFile:
    where = f"'{dataset}' files[{index}]"
    if not isinstance(entry, Mapping):
        _fail(where, f"expected a mapping, got {type(entry).__name__}")
    unknown = set(entry) - _FILE_KEYS
    if unknown:
        _fail(where, f"unknown keys {sorted(unknown)} (allowed: {sorted(_FILE_KEYS)})")
    size = entry.get("size")
    if not isinstance(size, int) or isinstance(size, bool) or size <= 0:
        _fail(where, f"'size' must be a positive integer, got {size!r}")
    fallbacks = entry.get("fallback_urls", [])
    if not isinstance(fallbacks, list):
        _fail(where, f"'fallback_urls' must be a list, got {fallbacks!r}")
    urls = tuple(_url(u, where) for u in [entry.get("url"), *fallbacks])
    archive, member, archive_sha = _archive_fields(entry, where)
    return DataFile(
        path=_relpath(entry.get("path"), dataset, where),
        sha256=_hash(entry.get("sha256"), where, "sha256"),
        size=size,
        urls=urls,
        archive=archive,
        member=member,
        archive_sha256=archive_sha,
    )


def _parse_dataset(name: Any, entry: Any) -> Dataset:
    if not isinstance(name, str) or not _NAME.match(name):
        _fail(repr(name), "data set names must match [a-z][a-z0-9_]*")
    where = f"'{name}'"
    if not isinstance(entry, Mapping):
        _fail(where, f"expected a mapping, got {type(entry).__name__}")
    missing, unknown = _DATASET_KEYS - set(entry), set(entry) - _DATASET_KEYS
    if missing or unknown:
        _fail(where, f"missing keys {sorted(missing)}, unknown keys {sorted(unknown)}")
    files = entry["files"]
    if not isinstance(files, list) or not files:
        _fail(where, "'files' must be a non-empty list")
    parsed = tuple(_parse_file(f, name, i) for i, f in enumerate(files))
    paths = [f.path for f in parsed]
    if len(set(paths)) != len(paths):
        _fail(where, f"duplicate file paths in {paths}")
    fields = {k: _text(entry, k, where) for k in ("description", "citation", "license", "page")}
    return Dataset(name=name, files=parsed, **fields)


def load_registry(path: str | os.PathLike) -> dict[str, Dataset]:
    """Read and validate a data set registry (``resources/datasets.yaml``).

    Parameters
    ----------
    path : path-like
        The YAML file: a top-level mapping ``datasets`` of data set name to entry.

    Returns
    -------
    dict of str to Dataset
        The data sets, in file order.

    Raises
    ------
    ValueError
        If the file's structure is wrong; the message names the offending entry and key.
    """
    _checks.path(path, "path")
    doc = read_yaml(path)
    if not isinstance(doc, Mapping) or not isinstance(doc.get("datasets"), Mapping):
        raise ValueError(f"{path}: expected a top-level mapping 'datasets: {{name: entry}}'")
    if not doc["datasets"]:
        raise ValueError(f"{path}: 'datasets' is empty")
    return {name: _parse_dataset(name, entry) for name, entry in doc["datasets"].items()}


# --------------------------------------------------------------------------- verification


def _check(path: Path, entry: DataFile, origin: str) -> None:
    actual = sha256(path)
    if actual != entry.sha256:
        size = path.stat().st_size
        raise DataError(
            f"{entry.path} (from {origin}) does not match the registry: expected sha256 "
            f"{entry.sha256} ({entry.size} bytes), got sha256 {actual} ({size} bytes). "
            "The file is corrupted or a different version of the data set."
        )


def _install(source: Path, entry: DataFile, dest: Path, origin: str) -> Path:
    """Copy ``source`` to ``dest`` through a temporary name, verifying it before the rename.

    On failure no unverified file is left at ``dest`` (an invalid older copy is removed too).
    """
    try:
        with atomic_path(dest) as tmp:
            shutil.copyfile(source, tmp)
            _check(tmp, entry, origin)
    except BaseException:
        if dest.is_file() and sha256(dest) != entry.sha256:
            dest.unlink()
        raise
    return dest


def _restore_help(local: Path, dataset: str) -> str:
    return (
        f"To restore it, delete it and run the same command again: the rule fetch_{dataset} "
        f"copies the registered file from the data mirror (environment variable {ENV_VAR} "
        f"or config key '{CONFIG_KEY}') or downloads it (rm {local.as_posix()})."
    )


def verify_local(
    paths: Sequence[str | os.PathLike],
    registry: Mapping[str, Dataset] | str | os.PathLike = REGISTRY,
    data_dir: str | os.PathLike = DATA_DIR,
) -> list[Path]:
    """Check every file of ``paths`` inside ``data_dir`` against its registered sha256.

    The data sets are hash-checked when they are fetched; this checks the local
    copies again where a job reads them (a file edited or damaged since its fetch
    would otherwise be used silently). Paths outside ``data_dir`` are skipped; the
    registry is read only if some path lies inside it. Hashing costs about 1 ms per
    megabyte.

    Parameters
    ----------
    paths : sequence of path-like
        A job's input files.
    registry : mapping of str to Dataset, or path-like
        As returned by :func:`load_registry`, or the registry file
        (default ``resources/datasets.yaml``).
    data_dir : path-like
        The data folder the registry's paths are relative to (default ``resources/data``).

    Returns
    -------
    list of Path
        The files checked.

    Raises
    ------
    DataError
        For a file in ``data_dir`` that is missing, not registered, or whose sha256
        differs from the registry's: the message names the file, both hashes and how
        to restore it.
    """
    if isinstance(paths, (str, os.PathLike)) or not isinstance(paths, (list, tuple)):
        raise TypeError(f"paths must be a list of file paths, got {paths!r}")
    for _p in paths:
        _checks.path(_p, "paths")
    root = Path(os.path.abspath(data_dir))
    inside = []
    for path in map(Path, paths):
        try:
            rel = Path(os.path.abspath(path)).relative_to(root).as_posix()
        except ValueError:
            continue
        inside.append((path, rel))
    if not inside:
        return []
    if not isinstance(registry, Mapping):
        registry = load_registry(registry)
    entries = {f.path: (name, f) for name, ds in registry.items() for f in ds.files}
    for path, rel in inside:
        if rel not in entries:
            raise DataError(
                f"{path} is in the data folder {data_dir} but not a file of the data set "
                f"registry ({', '.join(sorted(entries))}); register it or move it elsewhere"
            )
        name, entry = entries[rel]
        if not path.is_file():
            raise DataError(f"{path} (data set '{name}') is missing. {_restore_help(path, name)}")
        actual = sha256(path)
        if actual != entry.sha256:
            raise DataError(
                f"{path} (data set '{name}') does not match the registry: expected sha256 "
                f"{entry.sha256} ({entry.size} bytes), got sha256 {actual} "
                f"({path.stat().st_size} bytes); it was edited or damaged after its fetch. "
                + _restore_help(path, name)
            )
    return [path for path, _ in inside]


# --------------------------------------------------------------------------- mirror


def resolve_mirror(config_value: str | os.PathLike | None) -> Path | None:
    """The data mirror to use: ``$DPRANK_DATA_MIRROR`` if set, else the config value.

    Parameters
    ----------
    config_value : path-like or None
        The workflow's ``data_mirror`` config value (None or empty: no mirror).

    Returns
    -------
    Path or None
        The mirror folder, or None to download.

    Raises
    ------
    DataError
        If the chosen mirror does not exist or is not a folder.
    """
    if config_value is not None and config_value != "":  # "" leaves the key unset
        _checks.path(config_value, "config_value")
    env = os.environ.get(ENV_VAR, "")
    if env:
        value, source = env, f"environment variable {ENV_VAR}"
    elif config_value not in (None, ""):
        value, source = os.fspath(config_value), f"config key '{CONFIG_KEY}'"
    else:
        return None
    mirror = Path(value).expanduser()
    if not mirror.is_dir():
        raise DataError(f"data mirror {mirror} (from the {source}) does not exist or is no folder")
    return mirror


def _from_mirror(dataset: Dataset, dest_dir: Path, mirror: Path) -> list[Path]:
    missing = [f for f in dataset.files if not (mirror / f.path).is_file()]
    if missing:
        lines = "\n".join(f"  {f.path}: expected at {mirror / f.path}" for f in missing)
        raise DataError(
            f"data set '{dataset.name}': {len(missing)} file(s) missing from the data mirror "
            f"{mirror}:\n{lines}"
        )
    return [
        _install(mirror / f.path, f, dest_dir / f.path, f"mirror {mirror}") for f in dataset.files
    ]


# --------------------------------------------------------------------------- download


def _groups(files: Sequence[DataFile]) -> dict[tuple, list[DataFile]]:
    """Files by download (one archive download serves all its members)."""
    groups: dict[tuple, list[DataFile]] = {}
    for f in files:
        groups.setdefault((f.urls, f.archive, f.archive_sha256), []).append(f)
    return groups


def _retrieve(url: str, files: list[DataFile], staging: Path) -> list[Path]:
    """Download one URL with pooch into ``staging``; the local path of each file in ``files``."""
    import pooch  # only needed without a mirror

    first = files[0]
    fname = PurePosixPath(urlparse(url).path).name or "download"
    if first.archive is None:
        local = pooch.retrieve(
            url, f"sha256:{first.sha256}", fname=fname, path=staging, progressbar=False
        )
        return [Path(local)]
    members = [f.member for f in files]
    extract_dir = f"{fname}.contents"
    kind = pooch.Untar if first.archive == "tar.gz" else pooch.Unzip
    known = f"sha256:{first.archive_sha256}" if first.archive_sha256 else None
    pooch.retrieve(
        url,
        known,
        fname=fname,
        path=staging,
        processor=kind(members=members, extract_dir=extract_dir),
        progressbar=False,
    )
    return [staging / extract_dir / m for m in members]


def _download_group(
    files: list[DataFile], staging: Path
) -> tuple[list[Path] | None, str | None, list[str]]:
    """Try each URL of one download in turn.

    Returns the local files and the URL they came from (both None if every URL
    failed), and the failed attempts.
    """
    failures: list[str] = []
    for url in files[0].urls:
        try:
            local = _retrieve(url, files, staging)
        except ValueError as exc:  # pooch: the download does not match the known hash
            raise DataError(
                f"{', '.join(f.path for f in files)}: the download from {url} failed "
                f"verification ({exc}). The file is corrupted or a different version."
            ) from exc
        except (OSError, tarfile.TarError, zipfile.BadZipFile) as exc:
            failures.append(f"{url}: {_brief(exc)}")
            continue
        if all(p.is_file() for p in local):
            return local, url, failures
        absent = [f.member for f, p in zip(files, local, strict=True) if not p.is_file()]
        failures.append(f"{url}: the archive has no member {absent}")
    return None, None, failures


def _brief(exc: BaseException, limit: int = 200) -> str:
    text = f"{type(exc).__name__}: {exc}"
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _download_help(
    dataset: Dataset, failed: list[tuple[DataFile, list[str]]], mirror_hint: str
) -> str:
    lines = [
        f"cannot download data set '{dataset.name}' and no data mirror is configured.",
        "Missing files (and the URLs tried):",
    ]
    for f, tried in failed:
        lines.append(f"  {f.path}, tried:")
        lines += [f"    {attempt}" for attempt in tried]
    lines += [
        "Get these files by other means and put them in a mirror folder with this layout:",
        *(f"  <mirror>/{f.path}  (sha256 {f.sha256})" for f in dataset.files),
        f"then {mirror_hint}",
    ]
    return "\n".join(lines)


#: How to point the workflow at a mirror (the default hint of :func:`fetch`'s messages).
WORKFLOW_MIRROR_HINT = (
    f"set the config key '{CONFIG_KEY}' to that folder, or the environment "
    f"variable {ENV_VAR} (which overrides the config key)."
)


def _from_web(dataset: Dataset, dest_dir: Path, mirror_hint: str) -> list[Path]:
    installed: dict[str, Path] = {}
    failed: list[tuple[DataFile, list[str]]] = []
    dest_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=".download-", dir=dest_dir) as tmp:
        for files in _groups(dataset.files).values():
            local, url, tried = _download_group(files, Path(tmp))
            if local is None:
                failed += [(f, tried) for f in files]
                continue
            for f, path in zip(files, local, strict=True):
                installed[f.path] = _install(path, f, dest_dir / f.path, url)
    if failed:
        raise DataError(_download_help(dataset, failed, mirror_hint))
    return [installed[f.path] for f in dataset.files]


# --------------------------------------------------------------------------- fetch


def fetch(
    name: str,
    registry: Mapping[str, Dataset],
    dest_dir: str | os.PathLike,
    mirror: str | os.PathLike | None = None,
    *,
    mirror_hint: str = WORKFLOW_MIRROR_HINT,
) -> list[Path]:
    """Put a data set's files at ``dest_dir/<path>``, verified against their sha256.

    Parameters
    ----------
    name : str
        The data set's name in the registry.
    registry : mapping of str to Dataset
        As returned by :func:`load_registry`.
    dest_dir : path-like
        The data folder (``resources/data`` in the workflow); created if needed.
    mirror : path-like or None
        A folder laid out as ``<mirror>/<path>`` to copy the files from; None to
        download them with pooch (archive members are extracted with pooch's
        Untar/Unzip processors, then checked).
    mirror_hint : str
        How to supply a mirror, the end of the message when a download fails (default:
        the workflow's config key and environment variable).

    Returns
    -------
    list of Path
        ``dest_dir/<path>`` of every file of the data set, in registry order.

    Raises
    ------
    ValueError
        If ``name`` is not in the registry.
    DataError
        If a file is missing from the mirror, cannot be downloaded (one message
        naming every missing file, the URLs tried, and how to supply a mirror),
        or does not match its sha256 (the bad file is not left at ``dest_dir``).
    """
    _checks.text(name, "name")
    _checks.mapping(registry, "registry")
    bad = [k for k, v in registry.items() if not isinstance(v, Dataset)]
    if bad:
        raise TypeError(f"registry must map names to Dataset (load_registry), not {bad[0]!r}")
    _checks.path(dest_dir, "dest_dir")
    _checks.optional_path(mirror, "mirror")
    _checks.text(mirror_hint, "mirror_hint")
    if name not in registry:
        raise ValueError(f"name: unknown data set {name!r}; registered: {sorted(registry)}")
    dataset, dest = registry[name], Path(dest_dir)
    if mirror is not None:
        return _from_mirror(dataset, dest, Path(mirror))
    return _from_web(dataset, dest, mirror_hint)
