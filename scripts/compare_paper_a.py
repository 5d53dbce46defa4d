"""Rule ``compare_paper_a``: Paper A's comparison in one table (edge and individual DP).

The published numbers are compared with our ``authors`` protocol (the authors' code
behaviour, which produced them); the ``paper`` protocol's mean of the same cell is added
beside it (column ``ours_paper_protocol_mean``, not judged) so both protocols can be read
against the paper.
"""

import pandas as pd

from dprank.base.io import read_csv, write_csv
from dprank_papers.workflow import job_logger

KEYS = ["experiment", "n", "p", "m", "epsilon", "method", "metric"]

with job_logger(snakemake) as log:
    tables = [
        read_csv(f).assign(part=part)
        for f, part in zip(snakemake.input.tables, ("edge", "individual"), strict=True)
    ]
    table = pd.concat(tables, ignore_index=True)
    if snakemake.input.paper_summaries:
        frames = []
        for f in snakemake.input.paper_summaries:
            s = read_csv(f)
            if "dataset" in s:  # real data: the data set plays the experiment's part
                s = s.rename(columns={"dataset": "experiment"})
            frames.append(s)
        paper = pd.concat(frames, ignore_index=True)
        keys = [k for k in KEYS if k in table and k in paper]
        for k in keys:  # comparable key types (floats; text as is)
            for frame in (table, paper):
                if k not in ("experiment", "method", "metric"):
                    frame[k] = pd.to_numeric(frame[k], errors="coerce").round(6)
        paper = paper[[*keys, "mean"]].rename(columns={"mean": "ours_paper_protocol_mean"})
        paper = paper.drop_duplicates(keys)
        table = table.merge(paper, on=keys, how="left")
        log.info(
            "paper protocol means for %d of %d cells",
            int(table["ours_paper_protocol_mean"].notna().sum()),
            len(table),
        )
    summaries = [read_csv(f) for f in snakemake.input.summaries]
    write_csv(snakemake.output.table, table)
    summary = pd.concat(summaries, ignore_index=True)
    log.info("%d cells, %d summary lines", len(table), len(summary))
    write_csv(snakemake.output.summary, summary)
