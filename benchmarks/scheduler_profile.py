"""The Snakemake process's own work with and without the coalesced scheduler timers.

Snakemake 9 starts a new timer that re-runs its scheduling loop at the end of every pass, even
while one is pending; ``dprank_papers.workflow.coalesce_scheduler_timers`` (called by
``workflow/rules/common.smk``) keeps one pending at most (docs/performance.md, "The Snakemake
process"). This script runs the workflow twice per repeat, in a fresh results folder each
time and with ``--forceall`` (every job of the DAG runs): once as it is, once with the
coalescing kept out, and records for the main Snakemake process (not its jobs):

- ``passes``: passes of the scheduling loop (calls of ``JobScheduler._finish_jobs``, which
  every pass makes once);
- ``size_checks``: input-size checks (calls of ``_IOFile.size``, which the loop asks for
  every input of every ready job);
- ``stat_calls``: calls of ``os.stat`` (directly or through ``os.path`` and ``pathlib``);
- ``jobs``: jobs finished (calls of ``JobScheduler._proceed``);
- ``cpu_seconds``: the process's user and system CPU time (all its threads), and
  ``wall_seconds``.

The counters are plain wrappers (no profiler: the CPU time stays the process's own). The
record, ``results/measured/scheduler_profile.json`` (``--results``), holds every run, the
command, the machine's CPU count and load; ``python -m dprank_papers.docs_generate`` reads it
into the values of docs/performance.md (``scheduler_*``)::

    nice -n 10 python benchmarks/scheduler_profile.py --configfile .test/config.yaml

(the smoke run; without ``--configfile`` the paper-scale run). The data sets must be
reachable (``DPRANK_DATA_MIRROR`` offline): ``--forceall`` fetches them again.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: The two ways the workflow runs: as it is, and with the timers left as Snakemake has them
MODES = ("coalesced", "snakemake")

#: The record's name under ``<results>/measured/``
RECORD = "scheduler_profile.json"


def _count(owner, name: str, counter, asynchronous: bool = False) -> None:
    """Wrap ``owner.name`` so that each call advances ``counter`` (``next``, thread-safe)."""
    original = getattr(owner, name)
    if asynchronous:

        async def counted(*args, **kwargs):
            next(counter)
            return await original(*args, **kwargs)

    else:

        def counted(*args, **kwargs):
            next(counter)
            return original(*args, **kwargs)

    setattr(owner, name, counted)


def child(mode: str, out: Path, snakemake_args: list[str]) -> int:
    """Run Snakemake in this process with the counters in place; write the record to ``out``."""
    from snakemake.io import _IOFile
    from snakemake.scheduling.job_scheduler import JobScheduler

    counters = {key: itertools.count() for key in ("passes", "size_checks", "stat_calls", "jobs")}
    if mode == "snakemake":
        # coalesce_scheduler_timers leaves a method it finds marked as its own in place
        JobScheduler._schedule_reevalutation._dprank_coalesced = True
    original = JobScheduler._schedule_reevalutation
    _count(JobScheduler, "_finish_jobs", counters["passes"])
    _count(JobScheduler, "_proceed", counters["jobs"])
    _count(_IOFile, "size", counters["size_checks"], asynchronous=True)
    _count(os, "stat", counters["stat_calls"])
    from snakemake.cli import main

    start = time.perf_counter()
    try:
        main(snakemake_args)
        code = 0
    except SystemExit as stop:
        code = stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 1)
    wall = time.perf_counter() - start
    usage = resource.getrusage(resource.RUSAGE_SELF)
    record = {key: next(c) for key, c in counters.items()}  # next() gives the calls so far
    record.update(
        mode=mode,
        returncode=code,
        cpu_seconds=round(usage.ru_utime + usage.ru_stime, 2),
        wall_seconds=round(wall, 2),
        coalesced=JobScheduler._schedule_reevalutation is not original,  # the patch applied
    )
    out.write_text(json.dumps(record) + "\n")
    return code


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--configfile", help="Snakemake's --configfile (the smoke run's)")
    parser.add_argument("--cores", type=int, default=2, help="Snakemake's --cores (2)")
    parser.add_argument("--repeats", type=int, default=1, help="runs of each mode, interleaved")
    parser.add_argument("--target", action="append", default=[], help="targets (default all)")
    parser.add_argument("--results", type=Path, default=ROOT / "results", help="results folder")
    parser.add_argument("--child", nargs=2, metavar=("MODE", "OUT"), help=argparse.SUPPRESS)
    args, rest = parser.parse_known_args(argv)
    if args.child:
        mode, out = args.child
        if mode not in MODES:
            parser.error(f"mode must be one of {MODES}")
        return child(mode, Path(out), rest[1:] if rest[:1] == ["--"] else rest)
    if rest:
        parser.error(f"unknown arguments {rest}")
    if args.repeats < 1:
        parser.error("--repeats must be at least 1")
    runs = []
    load_start = os.getloadavg()[0]
    (ROOT / "results").mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="scheduler_profile_", dir=ROOT / "results") as tmp:
        for repeat, mode in itertools.product(range(args.repeats), MODES):
            folder = Path(tmp) / f"{mode}_{repeat}"
            command = [*args.target, "--cores", str(args.cores), "--forceall"]
            command += ["--quiet", "rules"]
            if args.configfile:
                command += ["--configfile", args.configfile]
            # a fresh results folder each run, inside the checkout's results/ (last: --config
            # takes every word after it)
            command += ["--config", f"results_dir={folder.relative_to(ROOT).as_posix()}"]
            out = Path(tmp) / f"{mode}_{repeat}.json"
            load = os.getloadavg()[0]
            code = subprocess.call(
                [sys.executable, __file__, "--child", mode, str(out), "--", *command], cwd=ROOT
            )
            if code != 0 or not out.is_file():
                print(f"snakemake failed ({mode}, exit status {code})", file=sys.stderr)
                return code or 1
            run = json.loads(out.read_text()) | {"load_average_start": round(load, 2)}
            if run["coalesced"] != (mode == "coalesced"):
                print(f"the timers were not as the mode {mode!r} asks: {run}", file=sys.stderr)
                return 1
            runs.append(run)
            print(json.dumps(run), flush=True)
    words = sys.argv[1:] if argv is None else list(argv)
    record = {
        "command": "python benchmarks/scheduler_profile.py " + " ".join(words),
        "configfile": args.configfile,
        "cores": args.cores,
        "cpus": os.cpu_count(),
        "load_average_start": round(load_start, 2),
        "load_average_end": round(os.getloadavg()[0], 2),
        "runs": runs,
    }
    path = args.results / "measured" / RECORD
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(record, indent=1) + "\n")
    print(f"wrote {path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
