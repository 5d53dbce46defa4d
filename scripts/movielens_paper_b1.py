"""Rule ``movielens_paper_b1``: B1 Figure 7 replicates of one privacy scheme on MovieLens.

Reads ml-latest-small's ratings (the 40 most-rated movies), fits the
non-private reference theta* on all 610 users, and runs every replicate of
every L for the scheme: L users drawn with replacement, comparisons from their
ratings (coin flips for ties and pairs neither rated), one RR budget for all,
the debiased mean, the BTL fit (docs/papers/paper-b.md#s4-2, B1-Fig7, A28).
"""

import pandas as pd

from dprank.base.io import write_csv
from dprank_papers.studies import paper_b1_movielens as ml
from dprank_papers.workflow import job_logger

with job_logger(snakemake) as log:
    job = snakemake.params.job
    data = ml.read_ratings(snakemake.input.ratings, n_movies=int(job["n_movies"]))
    theta = ml.reference_theta(data.ratings)
    log.info(
        "%d users, %d movies; reference theta in [%.2f, %.2f]",
        data.ratings.shape[0],
        data.ratings.shape[1],
        theta.min(),
        theta.max(),
    )
    frames = []
    for L in job["L"]:
        frame = ml.simulate_cell(
            data.ratings,
            theta,
            int(L),
            int(job["scheme"]),
            int(job["seed"]),
            range(int(job["reps"])),
            anchor_L=int(job["anchor_L"]),
            K=int(job["K"]),
        )
        conv = frame[frame["metric"] == "converged"]["value"]
        log.info("L=%d: %d replicates, %d fits not converged", L, len(conv), int((conv != 1).sum()))
        frames.append(frame)
    out = pd.concat(frames, ignore_index=True)
    out.insert(0, "experiment", "movielens")
    write_csv(snakemake.output[0], out)
