"""Rule ``audit_privacy``: claimed versus measured privacy loss of every mechanism."""

from dprank.base.io import write_csv
from dprank_papers.studies.privacy_audit import EXPECTED_VIOLATIONS, run_audits
from dprank_papers.workflow import job_logger

with job_logger(snakemake) as log:
    table = run_audits(snakemake.params.settings, int(snakemake.params.seed))
    for _, r in table.iterrows():
        level = log.warning if r["verdict"] != "consistent" else log.info
        known = r["verdict"] != "consistent" and r["audit"] in EXPECTED_VIOLATIONS
        level(
            "%s: claimed eps %.3g, lower bound %.3f (%s%s)",
            r["audit"],
            r["claimed_eps"],
            r["lower_bound"],
            r["verdict"],
            f"; expected, an intended finding: {EXPECTED_VIOLATIONS[r['audit']]}, see docs/audit.md"
            if known
            else "",
        )
    write_csv(snakemake.output[0], table)
