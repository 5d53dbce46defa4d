"""Rule ``runtime_report``: runtime and memory of every stage from the benchmark files."""

from pathlib import Path

from dprank.base.io import write_csv
from dprank_papers.report import runtime_by_stage
from dprank_papers.workflow import job_logger

with job_logger(snakemake) as log:
    root = Path(snakemake.params.bench)
    files = sorted(root.rglob("*.tsv"))
    table = runtime_by_stage(files, root)
    log.info(
        "%d benchmark files, %d stages, %.0f job seconds",
        len(files),
        len(table),
        table["seconds_sum"].sum() if len(table) else 0.0,
    )
    write_csv(snakemake.output[0], table)
