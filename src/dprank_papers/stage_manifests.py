"""What each workflow stage wrote, declared beside the file and checked where it is read.

A stage's output ``<dir>/<name>`` gets a small manifest ``<dir>/.<name>.manifest.json``
written by :func:`dprank_papers.workflow.job_logger` once the job has succeeded::

    {"format": "dprank-stage-manifest", "version": 1,
     "file": "paper_a_individual/exp5/paper/summary.csv",   # relative to results_dir
     "rule": "aggregate_metrics", "bytes": 2210, "rows": 17, "sha256": "..."}

``rows`` is the number of lines after the header of a CSV or TSV file (absent for other
kinds). Every job checks each input under the results folder against its manifest before
it reads anything (:func:`check_stage_input`): a file truncated, edited or swapped since
its producer wrote it (its bytes, rows or sha256 differ, or the manifest declares another
file) stops the job with both values and the command that rebuilds it, instead of a
figure drawn from half the points. A missing manifest is refused the same way (the file
was not written by the workflow's job).

The manifests are hidden files beside the outputs: they are not results, so
:func:`dprank_papers.workflow.results_manifest` leaves them out, and a manifest whose file has
gone (a temporary intermediate Snakemake removed after its last reader) is removed by
:func:`remove_orphan_manifests` when a run starts and when it succeeds.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from dprank.base import checks as _checks

__all__ = [
    "FORMAT",
    "StageInputError",
    "check_stage_input",
    "describe_file",
    "is_stage_manifest",
    "manifest_path",
    "rebuild_command",
    "remove_orphan_manifests",
    "write_stage_manifest",
]

#: The ``format`` field of a stage manifest.
FORMAT = "dprank-stage-manifest"
VERSION = 1
_SUFFIX = ".manifest.json"
#: Files whose ``rows`` are counted: the text tables the stages write.
_TABLES = (".csv", ".tsv")
_BLOCK = 1 << 20


class StageInputError(RuntimeError):
    """A job's input differs from what its producing stage declared (or has no manifest)."""


def manifest_path(path: str | os.PathLike) -> Path:
    """The manifest of ``path``: ``<dir>/.<name>.manifest.json``."""
    _checks.path(path, "path")
    path = Path(path)
    return path.with_name(f".{path.name}{_SUFFIX}")


def is_stage_manifest(path: str | os.PathLike) -> bool:
    """Whether ``path`` is named as a stage manifest (``.<name>.manifest.json``)."""
    _checks.path(path, "path")
    name = Path(path).name
    return name.startswith(".") and name.endswith(_SUFFIX) and len(name) > len(_SUFFIX) + 1


def _target(manifest: Path) -> Path:
    return manifest.with_name(manifest.name[1 : -len(_SUFFIX)])


def describe_file(path: str | os.PathLike) -> dict:
    """``{"bytes", "rows" (CSV and TSV only), "sha256"}`` of a file, read once in blocks."""
    _checks.path(path, "path")
    path = Path(path)
    digest = hashlib.sha256()
    size = lines = 0
    last = b"\n"
    with open(path, "rb") as fh:
        while block := fh.read(_BLOCK):
            digest.update(block)
            size += len(block)
            lines += block.count(b"\n")
            last = block[-1:]
    out: dict = {"bytes": size}
    if path.suffix.lower() in _TABLES:
        lines += last != b"\n"  # a last line without its newline
        out["rows"] = max(lines - 1, 0)
    out["sha256"] = digest.hexdigest()
    return out


def _relative(path: Path, results: str | os.PathLike) -> str | None:
    """``path`` relative to the results folder (POSIX), or None if it lies outside."""
    try:
        return Path(os.path.abspath(path)).relative_to(os.path.abspath(results)).as_posix()
    except ValueError:
        return None


def write_stage_manifest(path: str | os.PathLike, results: str | os.PathLike, rule: str) -> Path:
    """Write the manifest of the output ``path`` (inside ``results``) that ``rule`` wrote.

    Parameters
    ----------
    path : path-like
        An output file of the job, inside ``results``.
    results : path-like
        The workflow's results folder (config ``results_dir``).
    rule : str
        The rule that wrote it (named in the consumer's message).

    Returns
    -------
    Path
        The manifest written (atomically, beside ``path``).
    """
    from dprank.base.io import atomic_path

    _checks.path(path, "path")
    _checks.path(results, "results")
    if not _checks.text(rule, "rule"):
        raise ValueError("rule must name the rule that wrote the file, got ''")
    path = Path(path)
    rel = _relative(path, results)
    if rel is None:
        raise ValueError(f"path {os.fspath(path)!r} is not inside the results folder {results!r}")
    record = {"format": FORMAT, "version": VERSION, "file": rel, "rule": rule}
    record.update(describe_file(path))
    target = manifest_path(path)
    with atomic_path(target) as tmp:
        tmp.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    return target


def rebuild_command(path: str | os.PathLike, configfiles: Sequence[str] = ()) -> str:
    """The Snakemake command that writes ``path`` again (and, run with a target, what reads it).

    ``configfiles``: the ``--configfile`` files of the run (its ``results_dir`` is theirs).
    """
    _checks.path(path, "path")
    p = os.fspath(path)
    config = "".join(f" --configfile {c}" for c in configfiles)
    return f"snakemake {p} --cores 1{config} --forcerun {p}"


def _show(values: dict) -> str:
    parts = [f"{values['bytes']} bytes"]
    if "rows" in values:
        parts.append(f"{values['rows']} rows")
    parts.append(f"sha256 {values['sha256']}")
    return ", ".join(parts)


def check_stage_input(
    path: str | os.PathLike, results: str | os.PathLike, configfiles: Sequence[str] = ()
) -> dict:
    """Check a job's input against the manifest its producing stage wrote.

    Parameters
    ----------
    path : path-like
        An input file of the job, inside ``results``.
    results : path-like
        The workflow's results folder.
    configfiles : sequence of str
        The run's ``--configfile`` files, for the rebuild command of the message.

    Returns
    -------
    dict
        The manifest's record.

    Raises
    ------
    StageInputError
        No manifest (or an unreadable one), a manifest of another file (a swapped
        intermediate), or bytes, rows or sha256 that differ from the declared ones
        (truncated or edited): the message names the file, both values and the command
        that rebuilds it.
    """
    _checks.path(path, "path")
    _checks.path(results, "results")
    path = Path(path)
    rel = _relative(path, results)
    rebuild = (
        f"Rebuild it (and what reads it): {rebuild_command(path, configfiles)}, then run "
        "your target again."
    )
    manifest = manifest_path(path)
    try:
        record = json.loads(manifest.read_text(encoding="utf-8"))
        if not (isinstance(record, dict) and record.get("format") == FORMAT):
            raise ValueError("not a stage manifest")
        declared = {k: record[k] for k in ("bytes", "rows", "sha256") if k in record}
        if "bytes" not in declared or "sha256" not in declared:
            raise ValueError("no bytes or sha256")
    except FileNotFoundError:
        raise StageInputError(
            f"input {os.fspath(path)} has no manifest {manifest.name} beside it: it was not "
            f"written by this workflow's job (or its manifest was removed). {rebuild}"
        ) from None
    except (OSError, ValueError, KeyError) as exc:
        raise StageInputError(
            f"input {os.fspath(path)}: its manifest {manifest.name} cannot be read ({exc}). "
            f"{rebuild}"
        ) from None
    if record.get("file") != rel:
        raise StageInputError(
            f"input {os.fspath(path)}: its manifest declares another file, "
            f"{record.get('file')!r} (written by rule {record.get('rule')}): the file and "
            f"its manifest were moved or swapped. {rebuild}"
        )
    found = describe_file(path)
    if any(found.get(k) != v for k, v in declared.items()):
        raise StageInputError(
            f"input {os.fspath(path)} is not what rule {record.get('rule')} wrote: declared "
            f"{_show(declared)}; found {_show(found)} (truncated, edited or replaced since). "
            f"{rebuild}"
        )
    return record


def remove_orphan_manifests(
    root: str | os.PathLike, keep: Iterable[str | os.PathLike] = ()
) -> list[Path]:
    """Remove the manifests under ``root`` whose file no longer exists.

    A temporary intermediate is removed by Snakemake once its last reader has run; its
    manifest, which Snakemake does not know, is removed here. Files in ``keep`` (and
    everything else) are left alone.

    Returns
    -------
    list of Path
        The removed manifests.
    """
    kept = {os.path.abspath(k) for k in keep}

    def orphan(manifest: Path) -> bool:
        if not is_stage_manifest(manifest) or os.path.abspath(manifest) in kept:
            return False
        return not _target(manifest).exists()

    return remove_stale_files(root, f".*{_SUFFIX}", orphan)


def remove_stale_files(
    root: str | os.PathLike, pattern: str, stale: Callable[[Path], bool]
) -> list[Path]:
    """Remove the files under ``root`` matching ``pattern`` (recursive glob) that ``stale`` picks.

    ``root`` may be missing (nothing to remove). The paths are visited in sorted order.

    Returns
    -------
    list of Path
        The removed files.
    """
    _checks.path(root, "root")
    root = Path(root)
    if not root.is_dir():
        return []
    removed = []
    for path in sorted(root.rglob(pattern)):
        if stale(path):
            path.unlink(missing_ok=True)
            removed.append(path)
    return removed
