"""Rules ``collect_paper_b`` and ``collect_movielens_paper_b1``: every chunk's per-replicate
metric rows of one experiment, and their summary.

One tidy CSV (``experiment``, cell keys, ``replicate, method, metric, value``),
sorted by its keys, so it does not depend on the order the chunks ran in; then the mean,
sd, se and replicate count per cell, method and metric, computed from that CSV as written.
"""

import pandas as pd

from dprank.base.io import read_csv, write_csv
from dprank_papers.aggregate import summarise
from dprank_papers.workflow import job_logger

with job_logger(snakemake) as log:
    out = snakemake.output
    frame = pd.concat([read_csv(f) for f in snakemake.input.metrics], ignore_index=True)
    keys = [c for c in frame.columns if c != "value"]
    if frame.duplicated(keys).any():
        raise ValueError("duplicate (cell, replicate, method, metric) rows: a chunk counted twice")
    frame = frame.sort_values(keys, kind="stable").reset_index(drop=True)
    log.info("%d chunks -> %d rows", len(snakemake.input.metrics), len(frame))
    write_csv(out.replicates, frame)
    summary = summarise(read_csv(out.replicates))
    log.info("%d summary rows", len(summary))
    write_csv(out.summary, summary)
