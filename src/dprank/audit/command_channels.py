"""The output channels of the ``dprank`` command: everything a release shows besides its values.

A release is differentially private only if *everything* an observer sees is a
DP function of the data: the released values, and also the exit status, what
is printed on standard output and standard error, which files appear and what
the public ones hold besides the values. Those other channels should not
depend on the private data at all: on neighbouring data sets they must be
byte-identical. This module runs the command in-process and takes it apart:

* :func:`run_command` runs ``dprank ARGV`` in a folder and returns a
  :class:`CommandRun` (exit status, standard output and error, the public files
  it wrote, the private ones left out);
* :func:`channels` maps a run to its channels with the released values masked:
  a CSV becomes its header and the set of its rows without the value columns
  (a ranking: its item set; the one-shot top ``k``, whose items are the
  release: its number of rows), a JSON record is kept whole (but for the sha256 of
  the released file, a function of the values), an HTML leaderboard (``--html``)
  becomes its page with the table's rows replaced by their set of items, the
  embedded data by its column names and every number masked, standard output is
  masked like a CSV when it is one, elapsed times are masked on standard error, and
  ``rank --intervals``' note on the items the release does not locate (a function of
  the released intervals) is removed from it;
* :func:`channel_differences` names the channels in which two runs differ;
  :func:`channel_signature` is one hash of them all, the statistic of a
  distinguisher ("is the signature that of ``D``?") for an audit harness: on
  neighbours whose channels are identical its advantage is 0.

The private outputs (``--audit-record``, the ledger, the key file) and the plot
(a rendering of the values) are not channels an observer gets; they are left
out by name (:data:`PRIVATE_OPTIONS`).
"""

from __future__ import annotations

import contextlib
import csv
import hashlib
import io
import itertools
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

__all__ = [
    "PRIVATE_OPTIONS",
    "VALUE_COLUMNS",
    "CommandRun",
    "channel_differences",
    "channel_signature",
    "channels",
    "run_command",
]

#: Options whose files are the data owner's or a rendering of the values, not channels.
PRIVATE_OPTIONS = ("--audit-record", "--ledger", "--plot")
#: CSV columns that hold released values (masked); the others are compared as a set of rows.
VALUE_COLUMNS = frozenset(
    {
        "score",
        "estimate",
        "rank",
        "in_top_k",
        "score_lo",
        "score_hi",
        "rank_lo",
        "rank_hi",
        "p_top_k",
        "outcome",
        "count",
        # the leaderboard's (dprank.leaderboard): functions of the released scores and
        # intervals, and the votes as released (noisy, or the public graph's under edge DP)
        "rank_ub",
        "tie_class",
        "votes",
        # a local release of votes with ties (model_a, model_b, winner, judge, ...)
        "winner",
    }
)
#: JSON fields that are functions of the released values: the released file's hash, and
#: the intervals' counts of items the release does not locate and of tie classes.
VALUE_FIELDS = frozenset({"sha256", "items_not_located", "tie_classes"})
_ELAPSED = re.compile(r"\d+(?:\.\d+)?\s*(?:s|ms|seconds?)\b")
#: ``rank --intervals``' note on the items the release does not locate: whether it is
#: printed and what it says are functions of the released intervals (post-processing), so
#: the line is removed like a value.
_INTERVALS_NOTE = re.compile(r"^(?:\S+: )?note: --intervals [^\n]*\n?", re.M)


@dataclass(frozen=True)
class CommandRun:
    """One run of the command.

    Attributes
    ----------
    argv : tuple of str
    exit_status : int
    stdout, stderr : str
    files : dict of str to bytes
        The files the run left in its folder (names relative to it), the
        private ones (:data:`PRIVATE_OPTIONS`) and the inputs excluded.
    """

    argv: tuple[str, ...]
    exit_status: int
    stdout: str
    stderr: str
    files: dict[str, bytes] = field(default_factory=dict)


def _private_names(argv) -> set[str]:
    names = set()
    for k, arg in enumerate(argv[:-1]):
        if arg in PRIVATE_OPTIONS:
            names.add(os.path.normpath(argv[k + 1]))
            names.add(os.path.normpath(argv[k + 1] + ".lock"))
    return names


def run_command(argv, folder: str | os.PathLike, inputs: tuple | list = ()) -> CommandRun:
    """Run ``dprank ARGV`` in-process with ``folder`` as the working folder.

    Parameters
    ----------
    argv : sequence of str
        The arguments after ``dprank`` (paths relative to ``folder``).
    folder : path-like
        The working folder; the files it holds after the run (but ``inputs``
        and the private outputs) are the run's public files.
    inputs : list or tuple of str
        Names of input files in ``folder`` (left out of ``files``).
    """
    from ..base import _checks
    from ..cli import main

    if isinstance(argv, (str, bytes)) or not isinstance(argv, (list, tuple)):
        raise TypeError(f"argv must be a list of arguments, got {type(argv).__name__} {argv!r}")
    argv = [str(a) for a in argv]
    folder = Path(_checks.path(folder, "folder"))
    if not folder.is_dir():
        raise ValueError(f"folder must be an existing folder, got {os.fspath(folder)!r}")
    inputs = _checks.strings(inputs, "inputs")
    before = {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()}
    skip = before | {os.path.normpath(x) for x in inputs} | _private_names(argv)
    out, err = io.StringIO(), io.StringIO()
    cwd = os.getcwd()
    os.chdir(folder)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = main(argv)
    finally:
        os.chdir(cwd)
    files = {
        name: (folder / name).read_bytes()
        for name in sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*"))
        if (folder / name).is_file() and name not in skip
    }
    return CommandRun(tuple(argv), int(status), out.getvalue(), err.getvalue(), files)


def _csv_channel(text: str) -> tuple:
    rows = list(csv.reader(io.StringIO(text)))
    if not rows:
        return ("csv", ())
    header, body = rows[0], rows[1:]
    if header == ["item", "rank"]:  # the one-shot release: which k items is the release
        return ("csv", tuple(header), len(body))
    kept = [k for k, name in enumerate(header) if name not in VALUE_COLUMNS]
    shape = sorted({tuple(row[k] for k in kept if k < len(row)) for row in body})
    return ("csv", tuple(header), tuple(shape))


def _json_channel(text: str) -> tuple:
    def masked(value):
        if isinstance(value, dict):
            return {k: ("<value>" if k in VALUE_FIELDS else masked(v)) for k, v in value.items()}
        if isinstance(value, list):
            return [masked(v) for v in value]
        return value

    return ("json", json.dumps(masked(json.loads(text)), sort_keys=True))


_TBODY = re.compile(r"<tbody>(.*?)</tbody>", re.S)
_ITEM_CELL = re.compile(r'<td class="item" data-value="([^"]*)">')
_PAGE_DATA = re.compile(
    r'(<script type="application/json" id="leaderboard-data">)(.*?)(</script>)', re.S
)
_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")


def _html_channel(text: str) -> tuple:
    """An HTML leaderboard without its values: the set of its rows' items, the columns of its
    embedded data and the rest of the page with every number masked."""
    rows = _TBODY.search(text)
    items = sorted(_ITEM_CELL.findall(rows.group(1))) if rows else []
    data = _PAGE_DATA.search(text)
    columns = []
    if data:
        try:
            columns = sorted(json.loads(data.group(2)))
        except ValueError:
            columns = ["<unreadable>"]
    rest = _PAGE_DATA.sub(r"\1\3", _TBODY.sub("<tbody></tbody>", text))
    return ("html", tuple(items), tuple(columns), _NUMBER.sub("#", rest))


def _file_channel(name: str, data: bytes) -> tuple:
    suffix = Path(name).suffix.lower()
    text = data.decode("utf-8", errors="replace")
    if suffix in (".csv", ".tsv"):
        return _csv_channel(text)
    if suffix == ".json":
        return _json_channel(text)
    if suffix in (".html", ".htm"):
        return _html_channel(text)
    return ("bytes", hashlib.sha256(data).hexdigest())


def _check_run(run, name: str) -> CommandRun:
    if not isinstance(run, CommandRun):
        raise TypeError(f"{name} must be a CommandRun (run_command), got {type(run).__name__}")
    return run


def channels(run: CommandRun) -> dict[str, object]:
    """The channels of ``run`` with the released values masked (module text)."""
    _check_run(run, "run")
    argv = list(run.argv)
    to_stdout = any(a == "--out" and b == "-" for a, b in itertools.pairwise(argv))
    out = {
        "exit_status": run.exit_status,
        "stdout": _csv_channel(run.stdout) if to_stdout else run.stdout,
        "stderr": _INTERVALS_NOTE.sub("", _ELAPSED.sub("<time>", run.stderr)),
        "files": tuple(sorted(run.files)),
    }
    for name, data in run.files.items():
        out[f"file {name}"] = _file_channel(name, data)
    return out


def channel_differences(a: CommandRun, b: CommandRun) -> list[str]:
    """The names of the channels in which ``a`` and ``b`` differ, each with both values."""
    ca, cb = channels(_check_run(a, "a")), channels(_check_run(b, "b"))
    return [
        f"{key}: {ca.get(key)!r} != {cb.get(key)!r}"
        for key in sorted(set(ca) | set(cb))
        if ca.get(key) != cb.get(key)
    ]


def channel_signature(run: CommandRun) -> str:
    """sha256 of every channel of ``run``: equal for runs whose channels are all identical."""
    text = json.dumps(channels(_check_run(run, "run")), sort_keys=True, default=repr)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
