"""Runtime of each Paper A figure from the Snakemake ``benchmark:`` files.

For every figure of the config, sums the wall seconds of all jobs it needs
(simulate, privatize, estimate, metrics, aggregate for its experiments, or the
data fetch and real-data releases of Figure 8; both protocols; its plot jobs)
and reports the largest resident memory of any of them. Prints a Markdown
table (the one in README.md)::

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

from dprank.studies import study_module

STAGES = ("data", "{protocol}/noise", "{protocol}/estimates", "{protocol}/metrics")
SIMULATION_STUDIES = ("paper_a_edge", "paper_a_individual")
BENCH = Path("results/benchmarks")


def _simulation_jobs(config: dict, study: str, figure: str) -> list[Path]:
    section = config[study]
    module = study_module(study)
    files = []
    for experiment in section["figures"][figure]["experiments"]:
        exp = section["experiments"][experiment]
        base = BENCH / study / experiment
        chunks = range(module.chunk_count(config, experiment))
        for protocol in config["protocols"]:
            for stage in STAGES:
                if stage == "data" and protocol != config["protocols"][0]:
                    continue
                folder = base / stage.format(protocol=protocol)
                for cell in module.cell_names(exp):
                    files += [folder / cell / f"chunk{chunk}.tsv" for chunk in chunks]
            files.append(base / protocol / "summary.tsv")
    return files


def _real_data_jobs(config: dict, figure: str) -> list[Path]:
    files = []
    for dataset in config["paper_a_real"]["figures"][figure]["experiments"]:
        files += [BENCH / "data" / f"{dataset}.tsv", BENCH / "paper_a_real" / dataset / "wins.tsv"]
        for protocol in config["protocols"]:
            base = BENCH / "paper_a_real" / dataset / protocol
            files += [base / "metrics.tsv", base / "summary.tsv"]
    return files


def figure_jobs(config: dict, figure: str) -> list[Path]:
    """Benchmark files of every job the figure needs."""
    if figure in config["paper_a_real"]["figures"]:
        files = _real_data_jobs(config, figure)
    else:
        study = next(s for s in SIMULATION_STUDIES if figure in config[s]["figures"])
        files = _simulation_jobs(config, study, figure)
    for protocol in config["protocols"]:
        files.append(BENCH / "figures" / "paper_a" / f"{figure}_{protocol}.tsv")
    return files


def all_figures(config: dict) -> list[str]:
    """Every Paper A figure of the config, in paper order."""
    sections = (*SIMULATION_STUDIES, "paper_a_real")
    return sorted((f for s in sections for f in config[s]["figures"]), key=lambda f: int(f[3:]))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--configfile", default="config.yaml")
    args = parser.parse_args(argv)
    config = yaml.safe_load(Path(args.configfile).read_text())
    config.setdefault("protocols", ["paper", "authors"])
    print("| Figure | Target rule | Outputs | Jobs | Job seconds (sum) | Max job RSS (MB) |")
    print("|---|---|---|---:|---:|---:|")
    total = 0.0
    for figure in all_figures(config):
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
