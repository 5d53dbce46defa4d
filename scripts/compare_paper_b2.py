"""Rule ``compare_paper_b2``: our B2 tables beside the published ones (Tables 5-9)."""

import pandas as pd

from dprank.compare import compare_b2_table, summary_lines
from dprank.io import read_csv, write_csv
from dprank.tables import read_published_table
from dprank.workflow import job_logger

with job_logger(snakemake) as log:
    tables = []
    for name, path, summary in zip(
        snakemake.params.names, snakemake.input.published, snakemake.input.summaries, strict=True
    ):
        published = read_published_table(path)
        tables.append(compare_b2_table(published, read_csv(summary), name, z=snakemake.params.z))
    table = pd.concat(tables, ignore_index=True)
    summary = summary_lines(table)
    for _, r in summary.iterrows():
        log.info("%s: %d/%d cells within tolerance", r["figure"], r["within"], r["compared"])
    write_csv(snakemake.output.table, table)
    write_csv(snakemake.output.summary, summary)
