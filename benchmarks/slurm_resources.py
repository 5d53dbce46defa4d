"""Per-rule Slurm resources of profiles/slurm from the benchmark files of a full run.

Loads the workflow through Snakemake's API to learn each rule's ``benchmark:``
pattern, assigns every file under ``results/benchmarks`` to its rule, writes the
per-rule summary (``resources/cluster/benchmarks.csv``: jobs, slowest and total
wall seconds, peak RSS, measured parallelism) and rewrites the generated block
of ``profiles/slurm/config.yaml`` from it (:mod:`dprank_papers.cluster`)::

    snakemake --cores 16                       # a full run writes results/benchmarks/
    python benchmarks/slurm_resources.py       # summary + profile block
    python benchmarks/slurm_resources.py --from-summary   # profile block from the CSV only

Run it after a full (paper-scale) run on the machine whose timings should set the
requests; the committed summary came from a full run on a 2-core AMD EPYC machine
(2026-11-25).
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pandas as pd

from dprank_papers.cluster import render_resources_block, replace_block, summarise_benchmarks

ROOT = Path(__file__).resolve().parents[1]
SUMMARY = ROOT / "resources/cluster/benchmarks.csv"
PROFILE = ROOT / "profiles/slurm/config.yaml"


def benchmark_patterns(configfile: Path | None) -> dict[str, re.Pattern | None]:
    """Rule name -> compiled regex of its benchmark path, for every rule Slurm runs.

    Rules Slurm runs: those with a script, not marked ``localrule`` (the data
    fetches stay on the submitting host, which has the network). ``None`` for
    a rule without a ``benchmark:``.
    """
    from snakemake.api import SnakemakeApi
    from snakemake.settings.types import ConfigSettings, OutputSettings, ResourceSettings

    with SnakemakeApi(OutputSettings(quiet={"all"})) as api:
        wf = api.workflow(
            resource_settings=ResourceSettings(cores=1),
            config_settings=ConfigSettings(
                configfiles=[configfile.resolve()] if configfile else []
            ),
            snakefile=ROOT / "Snakefile",
            workdir=ROOT,
        )
        w = wf._workflow
        return {
            rule.name: None
            if rule.benchmark is None
            else re.compile(rule.benchmark.regex().pattern)
            for rule in w.rules
            if rule.script is not None and rule.name not in w._localrules
        }


def files_by_rule(bench_dir: Path, patterns: dict[str, re.Pattern]) -> dict[str, list[Path]]:
    out: dict[str, list[Path]] = {name: [] for name in patterns}
    unmatched = []
    for f in sorted(bench_dir.rglob("*.tsv")):
        rel = f.relative_to(ROOT).as_posix()
        hits = [name for name, rx in patterns.items() if rx is not None and rx.fullmatch(rel)]
        if len(hits) == 1:
            out[hits[0]].append(f)
        else:
            unmatched.append((rel, hits))
    for rel, hits in unmatched:
        print(f"warning: {rel} matches {hits or 'no rule'}; skipped")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--benchmarks", type=Path, default=ROOT / "results/benchmarks")
    parser.add_argument("--configfile", type=Path, help="default: the Snakefile's config.yaml")
    parser.add_argument(
        "--from-summary", action="store_true", help="only rewrite the profile from the CSV"
    )
    args = parser.parse_args()
    if not args.from_summary:
        if not args.benchmarks.is_dir():
            raise SystemExit(f"{args.benchmarks} not found: run the workflow first")
        summary = summarise_benchmarks(
            files_by_rule(args.benchmarks, benchmark_patterns(args.configfile))
        )
        SUMMARY.parent.mkdir(parents=True, exist_ok=True)
        summary.to_csv(SUMMARY, index=False)
        print(f"wrote {SUMMARY.relative_to(ROOT)} ({len(summary)} rules)")
    summary = pd.read_csv(SUMMARY)
    PROFILE.write_text(replace_block(PROFILE.read_text(), render_resources_block(summary)))
    print(f"updated {PROFILE.relative_to(ROOT)}")
    print(summary.to_string(index=False))


if __name__ == "__main__":
    main()
