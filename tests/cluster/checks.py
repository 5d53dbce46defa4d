"""Checks for tests/cluster/run_slurm.sh: result manifests and the resume plan.

    python tests/cluster/checks.py manifest RESULTS OUT.json
    python tests/cluster/checks.py compare REFERENCE.json RESULTS
    python tests/cluster/checks.py plan DRY_RUN.txt RULEGRAPH.dot FAILED_RULE

``manifest`` writes the SHA-256 of every seeded result
(:func:`dprank_papers.workflow.results_manifest`); ``compare`` fails unless a results
directory reproduces a manifest exactly; ``plan`` fails unless a dry run after a
failure plans the failed rule and nothing but rules downstream of it (a rerun
must not redo finished jobs).
"""

from __future__ import annotations

import json
import re
import sys
from collections import defaultdict
from pathlib import Path

from dprank_papers.workflow import results_manifest


def job_stats(text: str) -> dict[str, int]:
    """Rule -> job count from the "Job stats" table of ``snakemake -n``."""
    m = re.search(r"Job stats:\n(.*?)\n\s*total\s+\d+", text, re.S)
    if not m:
        return {}
    counts = {}
    for line in m.group(1).splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[1].isdigit():
            counts[parts[0]] = int(parts[1])
    return counts


def downstream(dot: str, rule: str) -> set[str]:
    """Rules reachable from ``rule`` in a ``snakemake --rulegraph`` (DOT) graph."""
    label = dict(re.findall(r"^\s*(\d+)\[label = \"(\w+)\"", dot, re.M))
    edges = defaultdict(set)
    for a, b in re.findall(r"^\s*(\d+) -> (\d+)", dot, re.M):
        edges[label[a]].add(label[b])
    seen, todo = set(), [rule]
    while todo:
        for nxt in edges[todo.pop()] - seen:
            seen.add(nxt)
            todo.append(nxt)
    return seen


def main(argv: list[str]) -> int:
    cmd, *args = argv
    if cmd == "manifest":
        results, out = args
        manifest = results_manifest(results)
        Path(out).write_text(json.dumps(manifest, indent=0, sort_keys=True))
        print(f"manifest: {len(manifest)} files of {results}")
        return 0
    if cmd == "compare":
        ref, results = args
        expected = json.loads(Path(ref).read_text())
        got = results_manifest(results)
        missing = sorted(set(expected) - set(got))
        extra = sorted(set(got) - set(expected))
        differ = sorted(k for k in set(expected) & set(got) if expected[k] != got[k])
        for name, paths in (("missing", missing), ("unexpected", extra), ("different", differ)):
            for p in paths[:20]:
                print(f"{name}: {results}/{p}")
        if missing or extra or differ:
            print(
                f"FAIL: {len(differ)} different, {len(missing)} missing, "
                f"{len(extra)} unexpected of {len(expected)} files"
            )
            return 1
        print(f"bit-identical: {len(got)} files (sha256) equal the local run's")
        return 0
    if cmd == "plan":
        dry, dot, failed = args
        planned = job_stats(Path(dry).read_text())
        allowed = {failed} | downstream(Path(dot).read_text(), failed)
        print(f"planned after the fix: {planned}")
        if failed not in planned:
            print(f"FAIL: the failed rule {failed} is not planned again")
            return 1
        redo = sorted(set(planned) - allowed)
        if redo:
            print(f"FAIL: rules not downstream of {failed} would run again: {redo}")
            return 1
        print(f"resume plan: only {failed} and rules downstream of it")
        return 0
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
