"""Rule ``compare_paper_b2``: our B2 tables beside the published ones (Tables 1-11)."""

import json

import pandas as pd

from dprank.base.io import read_csv, write_csv
from dprank_papers.compare import compare_b2_table, compare_car, summary_lines
from dprank_papers.tables import read_published_table
from dprank_papers.workflow import job_logger

with job_logger(snakemake) as log:
    tables = []
    for name, path, summary in zip(
        snakemake.params.names, snakemake.input.published, snakemake.input.summaries, strict=True
    ):
        published = read_published_table(path)
        tables.append(compare_b2_table(published, read_csv(summary), name, z=snakemake.params.z))
    table1, table2 = (read_published_table(p) for p in snakemake.input.car_published)
    ranks = json.loads(open(snakemake.input.car_ranks).read())["ranks"]
    ours2 = read_csv(snakemake.input.car_table2)
    tables.insert(0, compare_car(table1, table2, ranks, ours2, z=snakemake.params.z))
    table = pd.concat(tables, ignore_index=True)
    summary = summary_lines(table)
    for _, r in summary.iterrows():
        log.info("%s: %d/%d cells within tolerance", r["figure"], r["within"], r["compared"])
    write_csv(snakemake.output.table, table)
    write_csv(snakemake.output.summary, summary)
