"""Rule ``docs_includes``: the documentation's tables (docs/includes/*.md) from this run."""

from dprank.base.io import read_csv
from dprank_papers.docs_includes import write_includes
from dprank_papers.report import load_deviations
from dprank_papers.workflow import job_logger

with job_logger(snakemake) as log:
    summaries = {
        name: read_csv(path)
        for name, path in zip(snakemake.params.names, snakemake.input.summaries, strict=True)
    }
    written = write_includes(
        snakemake.params.outdir,
        papers=snakemake.params.papers,
        sections=snakemake.params.sections,
        protocols=snakemake.config["protocols"],
        chunk_size=snakemake.config["chunk_size"],
        bench=snakemake.params.bench,
        summaries=summaries,
        audit=read_csv(snakemake.input.audit),
        deviations=load_deviations(snakemake.input.deviations),
    )
    log.info("wrote %s", ", ".join(str(p) for p in written))
