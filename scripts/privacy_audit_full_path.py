"""Rule ``privacy_audit_full_path``: one release path's games of the privacy harness's profile."""

import time

from dprank.audit.harness import audit_table
from dprank.base.io import write_csv
from dprank_papers.workflow import job_logger

with job_logger(snakemake) as log:
    job = snakemake.params.job
    start = time.perf_counter()
    summary, detail = audit_table(job["profile"], int(job["seed"]), paths=[job["path"]])
    for _, r in summary.iterrows():
        level = log.info if r["verdict"] == "holds" else log.warning
        level(
            "%s via %s, eps %g (%s): best success %.3f (bound %.3f + 3 se %.3f, %s), "
            "eps >= %.3f (claim %g, %s): %s",
            r["path"],
            r["via"],
            r["epsilon"],
            r["neighbours"],
            r["best_accuracy"],
            r["accuracy_bound"],
            r["three_se"],
            r["best_distinguisher"],
            r["eps_lower_bound"],
            r["claimed_eps"],
            r["eps_distinguisher"],
            r["verdict"],
        )
    log.info("%d games in %.0f s", len(summary), time.perf_counter() - start)
    write_csv(snakemake.output.summary, summary)
    write_csv(snakemake.output.detail, detail)
