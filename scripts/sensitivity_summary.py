"""Rule ``sensitivity_summary``: every Scenario V setting against Tables 10-11; the findings."""

import html

import pandas as pd

from dprank.base.io import atomic_path, read_csv, write_csv
from dprank_papers.studies.paper_b2.sensitivity import findings, scenario5_agreement
from dprank_papers.tables import read_published_table
from dprank_papers.workflow import job_logger

with job_logger(snakemake) as log:
    job = snakemake.params.job
    summary = pd.concat([read_csv(f) for f in snakemake.input.scenario5], ignore_index=True)
    published = {
        label: read_published_table(p)
        for label, p in zip(job["labels"], snakemake.input.published, strict=True)
    }
    cells, settings = scenario5_agreement(summary, published, job["z"])
    fit3 = read_csv(snakemake.input.fit)
    check3 = read_csv(snakemake.input.check)
    text = findings(cells, settings, job["default5"], fit3, check3, job["default3"], summary)
    write_csv(snakemake.output.cells, cells)
    write_csv(snakemake.output.settings, settings)
    with atomic_path(snakemake.output.findings) as tmp:
        tmp.write_text("\n\n".join(text) + "\n")
    with atomic_path(snakemake.output.html) as tmp:
        body = "".join(f"<p>{html.escape(p)}</p>\n" for p in text)
        tmp.write_text(
            f"<html><body><h2>Sensitivity of B2's unstated settings</h2>\n{body}</body></html>\n"
        )
    log.info("%d settings, %d findings", len(settings), len(text))
