"""Rule ``collect_paper_b2``: every chunk's per-replicate metric rows of one experiment.

One tidy CSV (``experiment``, cell keys, ``replicate, method, metric, value``),
sorted by its keys, so it does not depend on the order the chunks ran in.
"""

import pandas as pd

from dprank.io import read_csv, write_csv
from dprank.workflow import job_logger

with job_logger(snakemake) as log:
    frame = pd.concat([read_csv(f) for f in snakemake.input.metrics], ignore_index=True)
    keys = [c for c in frame.columns if c != "value"]
    if frame.duplicated(keys).any():
        raise ValueError("duplicate (cell, replicate, method, metric) rows: a chunk counted twice")
    frame = frame.sort_values(keys, kind="stable").reset_index(drop=True)
    log.info("%d chunks -> %d rows", len(snakemake.input.metrics), len(frame))
    write_csv(snakemake.output[0], frame)
