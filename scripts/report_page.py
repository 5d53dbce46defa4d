"""Rules ``report_page_<page>``: a CSV output (comparison summary, audit, runtime) as an
HTML table, so that the report shows it inline."""

from dprank.base.io import atomic_path, read_csv
from dprank_papers.report import csv_page
from dprank_papers.workflow import job_logger

with job_logger(snakemake) as log:
    frame = read_csv(snakemake.input.csv)
    with atomic_path(snakemake.output[0]) as tmp:
        tmp.write_text(csv_page(frame, snakemake.params.caption, snakemake.params.notes))
    log.info("%s: %d rows", snakemake.params.page, len(frame))
