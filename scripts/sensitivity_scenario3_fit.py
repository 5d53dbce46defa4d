"""Rule ``sensitivity_scenario3_fit``: eps0 and p fitted on one table, both tables checked."""

import pandas as pd

from dprank.base.io import read_csv, write_csv
from dprank_papers.compare import compare_b2_table
from dprank_papers.studies.paper_b2.scenarios import FitSettings
from dprank_papers.studies.paper_b2.sensitivity import (
    agreement,
    budget_curve,
    fit_budget,
    scenario3_check,
)
from dprank_papers.tables import read_published_table
from dprank_papers.workflow import job_logger

with job_logger(snakemake) as log:
    job = snakemake.params.job
    grid = pd.concat([read_csv(f) for f in snakemake.input.grid], ignore_index=True)
    published = [read_published_table(p) for p in snakemake.input.published]
    labels = job["labels"]
    curve = budget_curve(grid, published[0], labels[0], job["z"])
    fit = fit_budget(curve)
    log.info("fit on %s:\n%s", labels[0], fit.to_string(index=False))
    best = fit[fit["best"]].iloc[0]
    exp = job["exp"]
    settings = [
        {"label": "the default", "p": float(exp["p"]), "eps0": float(exp["eps"]["eps0"])},
        {"label": f"the fit on {labels[0]}", "p": float(best["p"]), "eps0": float(best["eps0"])},
    ]
    ours = scenario3_check(
        job["seed"], job["experiment"], exp, settings, range(job["check_reps"]),
        FitSettings(job["lambda_c"], job["solver"]["gtol"], job["solver"]["max_iter"]),
        job["grid"],
    )  # fmt: skip
    cells, rows = [], []
    for s in settings:
        sub = ours[ours["label"] == s["label"]]
        for label, pub in zip(labels, published, strict=True):
            table = compare_b2_table(pub, sub, label, job["z"])
            table.insert(0, "setting", s["label"])
            cells.append(table)
            rows.append({**s, "table": label, "reps": job["check_reps"], **agreement(table)})
            log.info("%s at %s: %s", label, s["label"], rows[-1])
    write_csv(snakemake.output.curve, curve)
    write_csv(snakemake.output.fit, fit)
    write_csv(snakemake.output.check, pd.concat(cells, ignore_index=True))
    write_csv(snakemake.output.summary, pd.DataFrame(rows))
