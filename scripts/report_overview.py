"""Rule ``report_overview``: the report's landing page, the agreement with each paper."""

from dprank.base.io import atomic_path, read_csv
from dprank_papers.report import overview_html
from dprank_papers.workflow import job_logger

with job_logger(snakemake) as log:
    summaries = {part: read_csv(f) for part, f in snakemake.params.parts.items()}
    with atomic_path(snakemake.output[0]) as tmp:
        tmp.write_text(overview_html(summaries))
    for part, frame in summaries.items():
        log.info("%s: %d / %d within", part, frame["within"].sum(), frame["compared"].sum())
