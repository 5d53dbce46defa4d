"""Per-rule job start-up: what a job spends outside its own work, from a run's files.

Every rule's benchmark file (``results/benchmarks/X.tsv``, wall seconds ``s`` of the
whole job) has a log file beside it (``results/logs/X.log``) whose last line says how
long the script's own work took (``done in 1.23 s``, :func:`dprank_papers.workflow.job_logger`,
timed from its first line of work). The difference is the job's overhead: the
interpreter, Snakemake's script preamble and the imports::

    python benchmarks/job_startup.py [results]

prints, per rule, the jobs, their median wall time, the median work time and the
median overhead (wall minus work), and the totals.
"""

from __future__ import annotations

import re
import statistics
import sys
from pathlib import Path

DONE = re.compile(r"done in ([0-9.]+) s")


def rows(results: Path) -> list[tuple[str, float, float]]:
    """``(rule directory, wall s, work s)`` for every job with both files."""
    out = []
    bench = results / "benchmarks"
    for tsv in sorted(bench.rglob("*.tsv")):
        log = results / "logs" / tsv.relative_to(bench).with_suffix(".log")
        if not log.is_file():
            continue
        found = DONE.findall(log.read_text(errors="replace"))
        lines = tsv.read_text().splitlines()
        if not found or len(lines) < 2:
            continue
        wall = float(lines[1].split("\t")[0])
        rel = tsv.relative_to(bench).parts
        # the stage folder names the rule (data, noise, estimates, metrics, ...)
        kind = next((p for p in rel if p in STAGES), rel[0])
        out.append((kind, wall, float(found[-1])))
    return out


STAGES = ("data", "noise", "estimates", "metrics", "releases")


def main(argv: list[str]) -> int:
    results = Path(argv[0] if argv else "results")
    table: dict[str, list[tuple[float, float]]] = {}
    for kind, wall, work in rows(results):
        table.setdefault(kind, []).append((wall, work))
    print(f"{'jobs of':<22}{'n':>6}{'wall med':>10}{'work med':>10}{'overhead med':>14}")
    total_wall = total_work = 0.0
    count = 0
    for kind, vals in sorted(table.items()):
        walls = [w for w, _ in vals]
        works = [k for _, k in vals]
        over = [w - k for w, k in vals]
        total_wall += sum(walls)
        total_work += sum(works)
        count += len(vals)
        print(
            f"{kind:<22}{len(vals):>6}{statistics.median(walls):>10.2f}"
            f"{statistics.median(works):>10.2f}{statistics.median(over):>14.2f}"
        )
    print(f"{'all':<22}{count:>6}  wall sum {total_wall:.1f} s, work sum {total_work:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
