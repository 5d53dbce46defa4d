"""Rule ``intervals_docs``: docs/includes/intervals_coverage.md from the study's table."""

from dprank.base.io import read_csv
from dprank_papers.docs_includes import write_intervals_include
from dprank_papers.workflow import job_logger

with job_logger(snakemake) as log:
    path = write_intervals_include(snakemake.output[0], read_csv(snakemake.input.table))
    log.info("wrote %s", path)
