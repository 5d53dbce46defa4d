"""How far apart two faithful runs of the authors' edge-DP code can land.

The authors drew theta once per n, without a seed, and shared it across all
replicates (docs/papers/paper-a.md#s0, item 4); with the fixed perturbation
vector of their code, the replicate mean of a cell then depends on that one
theta draw far more than its standard error says. This script measures the
spread: for several independent theta draws it runs a cell exactly as the
``authors`` protocol does (120 data sets, fixed seed-13 Laplace vector,
gamma = 2 sqrt(n p log n)) and prints, per metric, the standard deviation of
the cell mean across theta draws next to the within-run standard error::

    python benchmarks/edge_theta_spread.py             # a few cells of Figures 1-2
    python benchmarks/edge_theta_spread.py --draws 20

``--vary w`` instead keeps theta and changes the fixed perturbation vector (as
if the authors' runs had used another fixed vector than R's seed-13 one).

A published-versus-reproduced difference of a few such standard deviations
is what an unlucky theta draw does, not a defect of either run.
"""

from __future__ import annotations

import argparse

import numpy as np

from dprank.base.seeding import SHARED, Stream, cell_key, generator
from dprank.data.simulate import sample_er_comparisons, theta_paper_a_edge, top_k_size
from dprank.fit.metrics import log_rel_l2, log_rel_linf, rel_hamming, true_top_k
from dprank.fit.mle import PairwiseData, fit_penalized_mle
from dprank.fit.ranking import top_k
from dprank.objective import edge_ridge
from dprank.privacy.mechanisms import edge_mle_noise_scale
from dprank_papers.rrng import r_fixed_laplace

CELLS = [(100, 1.0, 0.5), (100, 1.0, 1.0), (400, 1.0, 1.0), (300, 0.1, 0.5), (300, 0.4, 0.5)]


def cell_means(n, p, eps, draw, reps, seed, vary="theta"):
    """Cell means and standard errors of one run; ``vary`` says what the draw changes."""
    key = cell_key({"n": n, "p": p, "draw": draw if vary != "w" else 0})
    theta = theta_paper_a_edge(n, generator(seed, "theta_spread", key, SHARED, Stream.THETA))
    k = top_k_size(n)
    truth = true_top_k(theta, k)
    gamma = edge_ridge(n, p)
    if vary == "theta":
        w = r_fixed_laplace(n, 13)
    else:  # another fixed vector, as if R's generator had been seeded differently
        w = generator(seed, "theta_spread", cell_key({"w": draw}), SHARED, Stream.NOISE_MLE)
        w = w.laplace(size=700)[:n]
    b = edge_mle_noise_scale(eps) * w
    rows = []
    for r in range(reps):
        wins = sample_er_comparisons(theta, p, generator(seed, "theta_spread", key, r, Stream.DATA))
        fit = fit_penalized_mle(PairwiseData(wins), gamma, b)
        rows.append(
            (
                log_rel_l2(fit.theta, theta),
                log_rel_linf(fit.theta, theta),
                rel_hamming(top_k(fit.theta, k), truth),
            )
        )
    values = np.array(rows)
    return values.mean(axis=0), values.std(axis=0, ddof=1) / np.sqrt(reps)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--draws", type=int, default=10, help="independent theta draws per cell")
    parser.add_argument("--reps", type=int, default=120, help="data sets per run (authors: 120)")
    parser.add_argument("--seed", type=int, default=20251122)
    parser.add_argument(
        "--vary",
        choices=["theta", "w", "both"],
        default="theta",
        help="what differs between runs: the theta draw (default), the fixed noise vector, both",
    )
    args = parser.parse_args(argv)
    print(f"# {args.draws} runs x {args.reps} data sets, authors protocol, perturbed MLE")
    print(f"# varied between runs: {args.vary}")
    print(f"{'n':>4} {'p':>5} {'eps':>4}  metric        sd(mean) across draws   mean within-run se")
    for n, p, eps in CELLS:
        means, ses = zip(
            *(cell_means(n, p, eps, d, args.reps, args.seed, args.vary) for d in range(args.draws)),
            strict=True,
        )
        means, ses = np.array(means), np.array(ses)
        for j, metric in enumerate(("log_rel_l2", "log_rel_linf", "rel_hamming")):
            print(
                f"{n:>4} {p:>5} {eps:>4}  {metric:<13} {means[:, j].std(ddof=1):>10.4f}"
                f"            {ses[:, j].mean():>10.4f}"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
