"""Runtime of each Paper A figure and each Paper B (B2) experiment from the ``benchmark:`` files.

For every figure of the config, sums the wall seconds of all jobs it needs
(simulate, privatize, estimate, metrics, aggregate for its experiments, or the
data fetch and real-data releases of Figure 8; both protocols; its plot jobs)
and reports the largest resident memory of any of them; for Paper B (B2), the
same per experiment (simulate and fit jobs, collection, summary, or the timing
job of Figure 10) with the figures and tables it feeds. Prints the Markdown
tables of README.md::

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


def b2_experiment_jobs(config: dict, experiment: str) -> list[Path]:
    """Benchmark files of every job of one B2 experiment (up to its summary)."""
    from dprank.studies import paper_b2

    exp = config["paper_b2"]["experiments"][experiment]
    base = BENCH / "paper_b2" / experiment
    if paper_b2.kind(exp) == "timing":
        return [base / "timing.tsv"]
    files = [
        base / stage / block / f"chunk{chunk}.tsv"
        for stage in ("releases", "metrics")
        for block in paper_b2.cell_names(exp)
        for chunk in range(paper_b2.chunk_count(config, experiment))
    ]
    files.append(base / "replicates.tsv")
    summary = base / "summary.tsv"  # only for experiments with a table or a line figure
    return [*files, summary] if summary.exists() else files


def b2_products(config: dict, experiment: str) -> str:
    """The B2 figures and tables an experiment feeds, e.g. ``Fig. 4, Table 5``."""
    section = config["paper_b2"]
    figs = [
        f[3:]
        for f, spec in section["figures"].items()
        if experiment
        in ([spec["experiment"]] if isinstance(spec["experiment"], str) else spec["experiment"])
    ]
    tables = [t[5:] for t, spec in section["tables"].items() if spec["experiment"] == experiment]
    parts = ([f"Fig. {', '.join(figs)}"] if figs else []) + (
        [f"Table {', '.join(tables)}"] if tables else []
    )
    return "; ".join(parts)


def job_stats(label: str, files: list[Path]) -> pd.DataFrame | None:
    """The benchmark rows of ``files``; ``None`` (and a table row saying so) if any is missing."""
    missing = [f for f in files if not f.exists()]
    if missing:
        print(f"| {label} | missing {len(missing)} benchmark files, e.g. {missing[0]} |")
        return None
    return pd.concat([pd.read_csv(f, sep="\t") for f in files])


def print_b2_table(config: dict) -> None:
    print("| B2 experiment | Feeds | Jobs | Job seconds (sum) | Max job RSS (MB) |")
    print("|---|---|---:|---:|---:|")
    total = 0.0
    for experiment in config["paper_b2"]["experiments"]:
        files = b2_experiment_jobs(config, experiment)
        frames = job_stats(experiment, files)
        if frames is None:
            continue
        seconds = float(frames["s"].sum())
        total += seconds
        print(
            f"| `{experiment}` | {b2_products(config, experiment)} | {len(files)} "
            f"| {seconds:.0f} | {frames['max_rss'].max():.0f} |"
        )
    print(f"\nAll B2 experiments: {total:.0f} job seconds.")


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
        frames = job_stats(figure, files)
        if frames is None:
            continue
        seconds = float(frames["s"].sum())
        total += seconds
        outputs = f"results/figures/paper_a/{figure}_{{paper,authors}}.{{pdf,png,csv}}"
        number = figure.removeprefix("fig")
        print(
            f"| Paper A Fig. {number} | `paper_a_{figure}` | `{outputs}` | {len(files)} "
            f"| {seconds:.0f} | {frames['max_rss'].max():.0f} |"
        )
    print(f"\nAll figures: {total:.0f} job seconds.\n")
    print_b2_table(config)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
