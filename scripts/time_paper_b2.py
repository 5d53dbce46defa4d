"""Rule ``time_paper_b2``: B2 Figure 10 timings, taken while no other job runs.

Writes the per-replicate timings (tidy, like the other experiments'
``replicates.csv``), the fitted scaling exponents and the machine they were
measured on.
"""

import json
import os

# One BLAS thread, whatever threads Snakemake gives the job (it takes every core so that
# nothing else runs beside the measurements; its threads generate the untimed data between
# them): set before numpy is imported.
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import pandas as pd  # noqa: E402

from dprank.base.io import atomic_path, write_csv  # noqa: E402
from dprank_papers.studies.paper_b2 import timing  # noqa: E402
from dprank_papers.studies.paper_b2.scenarios import Chunk  # noqa: E402
from dprank_papers.workflow import job_logger  # noqa: E402

with job_logger(snakemake) as log:
    frames = []
    for job in snakemake.params.cells:
        options = dict(job)
        chunk = Chunk(**options.pop("chunk"))
        frame = timing.time_cell(chunk, **options, workers=snakemake.threads)
        total = frame[frame["metric"] == "seconds_total"]["value"]
        cell = chunk.cell
        log.info(
            "m=%d L=%d: median %.4f s over %d", cell["m"], cell["L"], total.median(), len(total)
        )
        frames.append(frame)
    replicates = pd.concat(frames, ignore_index=True)
    replicates.insert(0, "experiment", snakemake.wildcards.experiment)
    scaling = timing.scaling_exponents(replicates)
    for _, r in scaling.iterrows():
        log.info(
            "%s: slope in log L %.2f, in log m %.2f",
            r["metric"],
            r["slope_log_L"],
            r["slope_log_m"],
        )
    write_csv(snakemake.output.replicates, replicates)
    write_csv(snakemake.output.scaling, scaling)
    with atomic_path(snakemake.output.machine) as tmp:
        tmp.write_text(json.dumps(timing.machine_info(snakemake.threads), indent=2) + "\n")
