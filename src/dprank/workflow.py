"""Helpers for the workflow: canonical rule parameters, logging to the rule's log file."""

from __future__ import annotations

import fnmatch
import hashlib
import logging
import sys
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

__all__ = ["MACHINE_DEPENDENT", "canonical", "job_logger", "results_manifest"]

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
    """
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
        yield logger
    except Exception:
        logger.exception("failed after %.2f s", time.perf_counter() - t0)
        raise
    else:
        logger.info("done in %.2f s", time.perf_counter() - t0)
    finally:
        for h in handlers:
            logger.removeHandler(h)
            h.close()


def results_manifest(
    results: str | Path, exclude: tuple[str, ...] = MACHINE_DEPENDENT
) -> dict[str, str]:
    """SHA-256 of every file under ``results`` that a seeded run must reproduce exactly.

    Parameters
    ----------
    results : path
        A ``results/`` directory.
    exclude : tuple of str
        ``fnmatch`` patterns on the paths relative to ``results`` to leave out;
        default :data:`MACHINE_DEPENDENT`.

    Returns
    -------
    dict
        Relative POSIX path -> hex digest, sorted by path. Two runs of the same
        configuration (any ``--cores``, executor or order) must give equal
        manifests; ``tests/cluster/run_slurm.sh`` compares a Slurm run with a
        local one this way.
    """
    root = Path(results)
    out = {}
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        rel = path.relative_to(root).as_posix()
        if any(fnmatch.fnmatchcase(rel, pattern) for pattern in exclude):
            continue
        out[rel] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out
