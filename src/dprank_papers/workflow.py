"""Helpers for the workflow: canonical rule parameters, logging to the rule's log file,
the results manifest, and the release of a killed run's stale Snakemake lock."""

from __future__ import annotations

import fnmatch
import hashlib
import logging
import os
import shutil
import socket
import sys
import threading
import time
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from dprank.base import checks as _checks

__all__ = [
    "CONFIGFILES_ENV",
    "LOCK_OWNERS",
    "MACHINE_DEPENDENT",
    "MALLOC_TUNING",
    "NESTED_RESULTS",
    "canonical",
    "coalesce_scheduler_timers",
    "job_logger",
    "record_lock_owner",
    "release_stale_lock",
    "remove_stale_temporaries",
    "results_manifest",
]

#: File in Snakemake's lock folder (``.snakemake/locks``) listing ``host pid`` of every
#: Snakemake process that took a lock there. Snakemake reads only ``<n>.input.lock`` and
#: ``<n>.output.lock`` and removes the whole folder when a run ends, so the file lives
#: exactly as long as the locks do.
LOCK_OWNERS = "owners"

#: glibc malloc settings the workflow gives its jobs (``common.smk``; see mallopt(3)). By
#: default glibc serves every allocation above a moving threshold (at most 32 MB) by a new
#: ``mmap`` and returns freed memory at the top of the heap to the system; a solver that
#: creates ``n x n`` temporaries at every iteration then pays a page fault per 4 KiB page of
#: each (measured: 5.9 million faults and 3-5x the time of the same arithmetic on reused
#: memory at n = 300-700). A fixed 32 MB mmap threshold and a 1 GiB trim threshold let
#: freed blocks be reused. Numbers do not change; only glibc reads these variables.
MALLOC_TUNING = {"MALLOC_MMAP_THRESHOLD_": "33554432", "MALLOC_TRIM_THRESHOLD_": "1073741824"}

#: Results that depend on the machine, the clock or the scheduler rather than on the
#: seed (patterns on paths relative to ``results/``; ``*`` also matches ``/``):
#: benchmark files and logs, the timing experiment of Paper B2 (Figure 10) and what
#: reads it, the run-time report, and rendered images and HTML (their bytes embed
#: dates and font caches). Everything else must be bit-identical between runs.
MACHINE_DEPENDENT = (
    "benchmarks/*",
    "logs/*",
    "*.log",
    "*.pdf",
    "*.png",
    "*.svg",
    "*.html",
    "paper_b2/timing/*",
    "figures/paper_b2/fig10.*",
    "report/runtime.csv",
)


#: Results folders of other configurations that lie inside ``results/`` (the smoke run's
#: ``results/smoke``, the ``results_dir`` of .test/config.yaml): not part of the manifest of
#: ``results/`` (patterns relative to it, as :data:`MACHINE_DEPENDENT`).
NESTED_RESULTS = ("smoke/*",)


def canonical(value: Any) -> Any:
    """``value`` with every mapping's keys sorted, recursively.

    Snakemake compares a job's ``params`` with those of its last run to decide
    whether to rerun it; mappings compare by their text, so the order of keys
    in ``config.yaml`` would otherwise matter. Rule params go through this
    function so that reordering (or re-dumping) a config reruns nothing.
    """
    if isinstance(value, Mapping):
        return {str(k): canonical(value[k]) for k in sorted(value, key=str)}
    if isinstance(value, (list, tuple)):
        return [canonical(v) for v in value]
    return value


@contextmanager
def job_logger(snakemake, name: str | None = None) -> Iterator[logging.Logger]:
    """A logger writing to the job's ``log:`` file (and stderr); logs failures with traceback.

    Usage in a script::

        with job_logger(snakemake) as log:
            log.info("...")

    Every input file of the data folder (``resources/data``) is first checked against
    its sha256 in the data set registry (:func:`dprank.data.datasets.verify_local`): a local
    copy edited or damaged since its fetch fails the job with both hashes. Every input
    under the results folder (config ``results_dir``) is checked against the manifest its
    producing job wrote (:func:`dprank_papers.stage_manifests.check_stage_input`): a truncated,
    edited or swapped intermediate fails the job with both values and the command that
    rebuilds it. When the job succeeds, each of its outputs under the results folder gets
    its manifest (:func:`dprank_papers.stage_manifests.write_stage_manifest`). A ``snakemake``
    without ``config`` (a test's stand-in) skips both.
    """
    missing = [a for a in ("input", "log", "wildcards") if not hasattr(snakemake, a)]
    if missing:
        raise TypeError(
            f"snakemake must be the snakemake object of a job (input, log, wildcards), got "
            f"{type(snakemake).__name__} {snakemake!r} without {missing}"
        )
    if name is not None:
        _checks.text(name, "name")
    name = name or getattr(snakemake, "rule", "dprank")
    logger = logging.getLogger(f"dprank.{name}")
    logger.setLevel(logging.INFO)
    logger.propagate = False
    fmt = logging.Formatter("%(asctime)s %(levelname)s %(message)s")
    handlers: list[logging.Handler] = [logging.StreamHandler(sys.stderr)]
    if getattr(snakemake, "log", None):
        Path(snakemake.log[0]).parent.mkdir(parents=True, exist_ok=True)
        handlers.append(logging.FileHandler(snakemake.log[0], mode="w"))
    for h in handlers:
        h.setFormatter(fmt)
        logger.addHandler(h)
    wildcards = dict(getattr(snakemake, "wildcards", {}).items())
    logger.info("start %s %s", name, wildcards)
    t0 = time.perf_counter()
    try:
        # a data set file the job reads: checked against its registered sha256 first (the
        # checking module is imported only by the jobs that read such files)
        inputs = [os.fspath(f) for f in getattr(snakemake, "input", [])]
        if any("resources/data/" in Path(f).as_posix() for f in inputs):
            from dprank.data.datasets import verify_local

            for path in verify_local(inputs):
                logger.info("verified %s (sha256 as registered)", path)
        results = _results_dir(snakemake)
        if results is not None:
            _check_stage_inputs(inputs, results, logger)
        yield logger
        if results is not None:
            _write_stage_manifests(snakemake, results, getattr(snakemake, "rule", None) or name)
    except Exception:
        logger.exception("failed after %.2f s", time.perf_counter() - t0)
        raise
    else:
        logger.info("done in %.2f s", time.perf_counter() - t0)
    finally:
        for h in handlers:
            logger.removeHandler(h)
            h.close()


#: Environment variable holding the run's ``--configfile`` files (set by the workflow's
#: common.smk), named in the rebuild command of a damaged intermediate's message.
CONFIGFILES_ENV = "DPRANK_CONFIGFILES"


def _results_dir(snakemake) -> str | None:
    config = getattr(snakemake, "config", None)
    if not isinstance(config, Mapping):
        return None
    results = config.get("results_dir")
    return results if isinstance(results, str) and results else None


def _inside(path: str, results: str) -> bool:
    root = os.path.abspath(results)
    return os.path.abspath(path).startswith(root + os.sep)


def _check_stage_inputs(inputs: list[str], results: str, logger: logging.Logger) -> None:
    from dprank_papers.stage_manifests import check_stage_input

    configfiles = [c for c in os.environ.get(CONFIGFILES_ENV, "").split(os.pathsep) if c]
    checked = 0
    for path in inputs:
        if _inside(path, results) and os.path.isfile(path):
            check_stage_input(path, results, configfiles)
            checked += 1
    if checked:
        logger.info("verified %d input(s) against their producers' manifests", checked)


def _write_stage_manifests(snakemake, results: str, rule: str) -> None:
    from dprank_papers.stage_manifests import write_stage_manifest

    for path in (os.fspath(f) for f in getattr(snakemake, "output", [])):
        if _inside(path, results) and os.path.isfile(path):
            write_stage_manifest(path, results, rule)


def results_manifest(
    results: str | Path, exclude: tuple[str, ...] = MACHINE_DEPENDENT + NESTED_RESULTS
) -> dict[str, str]:
    """SHA-256 of every file under ``results`` that a seeded run must reproduce exactly.

    Parameters
    ----------
    results : path
        A ``results/`` directory.
    exclude : tuple of str
        ``fnmatch`` patterns on the paths relative to ``results`` to leave out;
        default :data:`MACHINE_DEPENDENT` and :data:`NESTED_RESULTS` (the smoke run's
        ``results/smoke`` is not part of the paper-scale ``results``).

    Returns
    -------
    dict
        Relative POSIX path -> hex digest, sorted by path. Two runs of the same
        configuration (any ``--cores``, executor or order) must give equal
        manifests; ``tests/cluster/run_slurm.sh`` compares a Slurm run with a
        local one this way. Temporaries of :func:`dprank.base.io.atomic_path` (a killed
        job's leftovers) and the stages' manifests (:mod:`dprank_papers.stage_manifests`, which
        hold the hashes of the results beside them) are never counted.
    """
    _checks.path(results, "results")
    from dprank.base.io import atomic_target
    from dprank_papers.stage_manifests import is_stage_manifest

    root = Path(results)
    out = {}
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        rel = path.relative_to(root).as_posix()
        if atomic_target(path) is not None or is_stage_manifest(path):
            continue
        if any(fnmatch.fnmatchcase(rel, pattern) for pattern in exclude):
            continue
        out[rel] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def remove_stale_temporaries(
    root: str | os.PathLike, targets: Iterable[str | os.PathLike] | None = None
) -> list[Path]:
    """Remove the temporaries of :func:`dprank.base.io.atomic_path` under ``root`` left by killed
    jobs.

    A job killed with SIGKILL (or a power loss) cannot remove the temporary it was
    writing (``.<name>.XXXXXXXX.tmp`` next to its output ``<name>``). The workflow calls
    this when a run starts, with the outputs that run will write: it holds their lock,
    so no other process can be writing their temporaries. Other files, and temporaries
    of other targets (another Snakemake run may be writing those), are left alone.

    Parameters
    ----------
    root : path-like
        Folder searched recursively (the workflow's ``results_dir``); may be missing.
    targets : iterable of path-like, optional
        Outputs whose temporaries are removed (relative to the working directory or
        absolute); None removes every temporary under ``root``.

    Returns
    -------
    list of Path
        The removed files.
    """
    _checks.path(root, "root")
    from dprank.base.io import atomic_target
    from dprank_papers.stage_manifests import remove_stale_files

    wanted = None if targets is None else {os.path.abspath(t) for t in targets}

    def stale(path: Path) -> bool:
        target = atomic_target(path)
        if target is None or not path.is_file():
            return False
        return wanted is None or os.path.abspath(target) in wanted

    return remove_stale_files(root, ".*.tmp", stale)


def _lock_dir(workdir: str | os.PathLike) -> Path:
    return Path(workdir, ".snakemake", "locks")


def record_lock_owner(workdir: str | os.PathLike = ".") -> None:
    """Note this process (host and pid) as an owner of the Snakemake lock in ``workdir``.

    Called by the workflow's ``onstart`` handler, which Snakemake runs in the main
    process of a real (not dry) run after it has taken the lock.
    """
    _checks.path(workdir, "workdir")
    locks = _lock_dir(workdir)
    if locks.is_dir():
        with open(locks / LOCK_OWNERS, "a") as fh:
            fh.write(f"{socket.gethostname()} {os.getpid()}\n")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process: alive
        return True
    return True


def release_stale_lock(workdir: str | os.PathLike = ".") -> list[int]:
    """Remove the Snakemake lock in ``workdir`` if every process that took it is dead.

    A Snakemake killed with SIGKILL (or a power loss) leaves its lock behind, and the
    next run then stops with "Directory cannot be locked". The lock is released here
    only when it is certainly stale: every owner :func:`record_lock_owner` noted ran
    on this host and none of those processes exists any more. A lock without a
    record (taken by a Snakemake outside this workflow, or killed before its
    ``onstart``), or with an owner on another host or still running, is left alone
    (Snakemake's own message and ``--unlock`` then apply).

    Returns
    -------
    list of int
        The dead owners' process ids (empty when nothing was removed).
    """
    _checks.path(workdir, "workdir")
    locks = _lock_dir(workdir)
    record = locks / LOCK_OWNERS
    if not record.is_file():
        return []
    owners = [line.split() for line in record.read_text().splitlines() if line.strip()]
    host = socket.gethostname()
    if not owners or any(len(o) != 2 or o[0] != host or not o[1].isdigit() for o in owners):
        return []
    pids = [int(o[1]) for o in owners]
    if any(_alive(pid) for pid in pids):
        return []
    shutil.rmtree(locks, ignore_errors=True)
    return pids


def coalesce_scheduler_timers(scheduler_class=None) -> bool:
    """Keep at most one of Snakemake's scheduler re-evaluation timers pending.

    Snakemake 9 (up to 9.27.1, the newest release) ends every pass of its scheduling loop
    by starting a ``threading.Timer`` that runs the loop again after the job rate
    limiter's timespan (``--max-jobs-per-timespan``, default 100 per second), even when one
    is pending: every job that finishes starts one more chain of timers, so after N jobs the
    loop runs about N times per second, and each pass stats every input of every ready job
    (the open pull request snakemake/snakemake#3744 reports the loop re-running too often).
    On this workflow's smoke run that was tens of thousands of passes and millions of ``stat``
    calls in the main process, CPU the jobs on a 2-core machine did not get
    (``benchmarks/scheduler_profile.py`` counts them; docs/performance.md).

    This replaces ``JobScheduler._schedule_reevalutation`` by a version that starts a timer
    only when none is pending, as a daemon thread (so that no timer holds up the exit). The
    pending flag is cleared before the timer wakes the loop, so the pass it triggers arms
    the next one: the loop still runs at least once per timespan, as the rate limiter
    needs. Scheduling decisions do not change, only how often the loop re-runs them.

    Parameters
    ----------
    scheduler_class : type, optional
        The class to patch (default Snakemake's ``JobScheduler``); for tests.

    Returns
    -------
    bool
        Whether the patch is in place (``False`` where this Snakemake has no such method).
    """
    if scheduler_class is not None and not isinstance(scheduler_class, type):
        raise TypeError(
            f"scheduler_class must be a class, got {type(scheduler_class).__name__} "
            f"{scheduler_class!r}"
        )
    if scheduler_class is None:
        try:
            from snakemake.scheduling.job_scheduler import JobScheduler as scheduler_class
        except ImportError:
            return False
    original = getattr(scheduler_class, "_schedule_reevalutation", None)
    if original is None:
        return False
    if getattr(original, "_dprank_coalesced", False):
        return True

    def schedule_reevaluation(self, delay) -> None:
        if getattr(self, "_dprank_timer_pending", False):
            return
        self._dprank_timer_pending = True

        def wake() -> None:
            self._dprank_timer_pending = False
            self._open_jobs.release()

        timer = threading.Timer(delay, wake)
        timer.daemon = True
        timer.start()

    schedule_reevaluation._dprank_coalesced = True
    scheduler_class._schedule_reevalutation = schedule_reevaluation
    return True
