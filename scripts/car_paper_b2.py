"""Rule ``car_paper_b2``: B2's car preference study (Tables 1, 2 and Figure 14).

Reads the fetched data (the 13 users who lack some of their 45 pairs keep those
pairs unobserved), fits the non-private references (Table 1, the Figure 14
truth), and runs every replicate of the Table 2 protocol. Writes the tidy
per-replicate rows (``B`` as a metric row, like the other B2 experiments), the
Table 2 statistics and the non-private fits.
"""

import json
from pathlib import Path

import numpy as np

from dprank.base.io import atomic_path, write_csv
from dprank_papers.studies import paper_b2_car as car
from dprank_papers.workflow import job_logger

with job_logger(snakemake) as log:
    job = snakemake.params.job
    data = car.read_car_data(Path(snakemake.input.data[0]).parent, allow_missing=True)
    log.info(
        "%d users, %d cars, %d observed comparisons (%d pairs missing)",
        data.y.shape[0],
        data.m,
        int(data.observed.sum()),
        int((~data.observed).sum()),
    )
    ref = car.nonprivate_fits(data.y, data.m, data.observed)
    if not ref["agree"]:
        log.warning("the non-private BTL, TM and count rankings differ: %s", ref["orders"])
    intrans = car.intransitivity(data.y, data.m, data.observed)
    log.info("intransitivity: %s", intrans)
    rows = car.simulate_replicates(
        data.y,
        data.m,
        ref,
        int(job["seed"]),
        range(int(job["reps"])),
        tuple(job["eps"]["shifted"]),
        float(job["eps"]["width"]),
        observed=data.observed,
    )
    tidy = car.tidy_replicates(rows)
    conv = tidy[tidy["metric"] == "converged"]["value"]
    log.info(
        "%d replicates, %d fits not converged", rows["replicate"].nunique(), int((conv != 1).sum())
    )
    table = car.table2(rows)
    tidy.insert(0, "experiment", "car")
    write_csv(snakemake.output.replicates, tidy)
    write_csv(snakemake.output.table2, table)
    summary = {
        "items": data.items.to_dict(orient="list"),
        "theta": {k: np.asarray(v).tolist() for k, v in ref["theta"].items()},
        "ranks": {k: np.asarray(v).tolist() for k, v in ref["ranks"].items()},
        "orders": {k: list(v) for k, v in ref["orders"].items()},
        "agree": ref["agree"],
        "intransitivity": {k: float(v) for k, v in intrans.items() if np.ndim(v) == 0},
        "missing_pairs": int((~data.observed).sum()),
    }
    with atomic_path(snakemake.output.nonprivate) as tmp:
        tmp.write_text(json.dumps(summary, indent=2, default=float) + "\n")
