"""Rule ``privacy_audit_full_table``: the privacy harness's games, one row each (CSV, Markdown)."""

import pandas as pd

from dprank.audit.harness import summary_markdown
from dprank.base.io import atomic_path, read_csv, write_csv
from dprank_papers.workflow import job_logger

with job_logger(snakemake) as log:
    summary = pd.concat([read_csv(f) for f in snakemake.input.rows], ignore_index=True)
    bad = summary[summary["verdict"] != "holds"]
    log.info("%d games, %d violations", len(summary), len(bad))
    for _, r in bad.iterrows():
        log.warning(
            "VIOLATION: %s via %s at eps %g (%s)",
            r["path"],
            r["via"],
            r["epsilon"],
            r["neighbours"],
        )
    write_csv(snakemake.output.csv, summary)
    with atomic_path(snakemake.output.md) as tmp:
        tmp.write_text(summary_markdown(summary, snakemake.params.profile))
