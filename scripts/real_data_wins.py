"""Rule ``real_data_wins``: the win matrix of a Figure 8 real data set (CEMS or immig).

Writes ``wins.csv`` with the items as header and index: row item beat column item that often.
"""

from dprank.base.io import write_csv
from dprank.data.realdata import load_real_dataset, win_frame
from dprank_papers.workflow import job_logger

with job_logger(snakemake) as log:
    data = load_real_dataset(snakemake.wildcards.dataset, snakemake.input.data)
    log.info(
        "%s: %d items, %d comparisons, L = %d, m = %d",
        data.name,
        data.n,
        data.wins.sum(),
        data.L,
        data.m,
    )
    write_csv(snakemake.output.wins, win_frame(data.items, data.wins).reset_index())
