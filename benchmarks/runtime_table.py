"""Runtime of each Paper A figure from the Snakemake ``benchmark:`` files.

For every figure of the config, sums the wall seconds of all jobs it needs
(simulate, privatize, estimate, metrics, aggregate for its experiments, both
protocols, and its plot jobs) and reports the largest resident memory of any
of them. Prints a Markdown table (the one in README.md)::

    python benchmarks/runtime_table.py                      # config.yaml
    python benchmarks/runtime_table.py --configfile .test/config.yaml

Job seconds are summed: with ``--cores N`` the wall time of a figure is about
the sum divided by N (every job is single-threaded).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import pandas as pd
import yaml

from dprank.studies import paper_a_edge

STAGES = ("data", "{protocol}/noise", "{protocol}/estimates", "{protocol}/metrics")


def figure_jobs(config: dict, figure: str) -> list[Path]:
    """Benchmark files of every job the figure needs."""
    edge = config["paper_a_edge"]
    bench = Path("results/benchmarks")
    files = []
    for experiment in edge["figures"][figure]["experiments"]:
        exp = edge["experiments"][experiment]
        base = bench / "paper_a_edge" / experiment
        chunks = range(paper_a_edge.chunk_count(config, experiment))
        for protocol in config["protocols"]:
            for stage in STAGES:
                if stage == "data" and protocol != config["protocols"][0]:
                    continue
                for cell in paper_a_edge.cell_names(exp):
                    for chunk in chunks:
                        files.append(
                            base / stage.format(protocol=protocol) / cell / f"chunk{chunk}.tsv"
                        )
            files.append(base / protocol / "summary.tsv")
    for protocol in config["protocols"]:
        files.append(bench / "figures" / "paper_a" / f"{figure}_{protocol}.tsv")
    return files


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--configfile", default="config.yaml")
    args = parser.parse_args(argv)
    config = yaml.safe_load(Path(args.configfile).read_text())
    config.setdefault("protocols", ["paper", "authors"])
    print("| Figure | Target rule | Outputs | Jobs | Job seconds (sum) | Max job RSS (MB) |")
    print("|---|---|---|---:|---:|---:|")
    total = 0.0
    for figure in config["paper_a_edge"]["figures"]:
        files = figure_jobs(config, figure)
        missing = [f for f in files if not f.exists()]
        if missing:
            print(f"| {figure} | missing {len(missing)} benchmark files, e.g. {missing[0]} |")
            continue
        frames = pd.concat([pd.read_csv(f, sep="\t") for f in files])
        seconds = float(frames["s"].sum())
        total += seconds
        outputs = f"results/figures/paper_a/{figure}_{{paper,authors}}.{{pdf,png,csv}}"
        number = figure.removeprefix("fig")
        print(
            f"| Paper A Fig. {number} | `paper_a_{figure}` | `{outputs}` | {len(files)} "
            f"| {seconds:.0f} | {frames['max_rss'].max():.0f} |"
        )
    print(f"\nAll figures: {total:.0f} job seconds.")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
