"""Timing a command and writing times and sizes as the documentation quotes them.

``python -m dprank_papers.docs_values time NAME -- COMMAND ...`` runs a command through
:func:`time_command`, which records its wall time, CPU time and peak memory in
``results/measured/NAME.json``; the values of kind ``timed`` (:mod:`dprank_papers.docs_measures`)
are read back from there (:func:`timed_record`) and written with :func:`format_duration` and
:func:`format_bytes`.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import time
from collections.abc import Sequence
from pathlib import Path

from dprank.base import checks as _checks

__all__ = ["format_bytes", "format_duration", "time_command", "timed_record"]


def format_duration(seconds: float) -> str:
    """``"8.4 s"`` below a minute, ``"3 min 55 s"`` above."""
    seconds = _checks.real(seconds, "seconds")
    if not 0 <= seconds < float("inf"):
        raise ValueError(f"seconds must be finite and >= 0, got {seconds}")
    if seconds < 60:
        return f"{seconds:.1f} s" if seconds < 10 else f"{seconds:.0f} s"
    minutes, rest = divmod(round(seconds), 60)
    return f"{minutes} min {rest} s"


def format_bytes(size: float, unit: str = "MB") -> str:
    """``size`` bytes in decimal megabytes (``"14.9 MB"``, ``"161 MB"``)."""
    size = _checks.real(size, "size")
    if not 0 <= size < float("inf"):
        raise ValueError(f"size must be finite and >= 0, got {size}")
    if unit != "MB":
        raise ValueError(f"unit must be 'MB', got {unit!r}")
    mb = size / 1e6
    return f"{mb:.1f} MB" if mb < 100 else f"{mb:.0f} MB"


def timed_record(results: str | Path, name: str) -> dict | None:
    """``results/measured/<name>.json`` as :func:`time_command` wrote it, or None."""
    _checks.path(results, "results")
    _checks.text(name, "name")
    path = Path(results) / "measured" / f"{name}.json"
    return json.loads(path.read_text()) if path.is_file() else None


def time_command(name: str, command: Sequence[str], results: str | Path = "results") -> dict:
    """Run ``command``; record its wall time, CPU time and peak memory as ``name``.

    The record, ``results/measured/<name>.json``, holds ``wall_seconds``, ``user_seconds``,
    ``system_seconds`` (of the command and every process it waited for) and ``peak_rss_bytes``
    (the largest resident set of any one of them, as ``/usr/bin/time -v`` reports it), the
    command, its exit status, the machine's CPU count and load average at start and end.
    The record is written only when the command succeeds.

    Returns
    -------
    dict
        The record.
    """
    _checks.text(name, "name")
    command = _checks.strings(command, "command")
    if not command:
        raise ValueError("command must name a program")
    _checks.path(results, "results")
    load_start = os.getloadavg()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    code = subprocess.call(list(command))
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    record = {
        "command": list(command),
        "returncode": code,
        "wall_seconds": round(wall, 2),
        "user_seconds": round(after.ru_utime - before.ru_utime, 2),
        "system_seconds": round(after.ru_stime - before.ru_stime, 2),
        "peak_rss_bytes": after.ru_maxrss * 1024,  # Linux: kilobytes
        "cpus": os.cpu_count(),
        "load_average_start": round(load_start[0], 2),
        "load_average_end": round(os.getloadavg()[0], 2),
    }
    if code == 0:
        path = Path(results) / "measured" / f"{name}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(record, indent=1) + "\n")
    return record
