"""Dense or sparse solver for edge-list input: time ratio by density (`DENSE_MIN_DENSITY`).

For Erdos-Renyi comparison graphs (``sample_er_comparisons_sparse``, Paper A's scores and
ridge ``gamma = 2 sqrt(n p log n)``, a Laplace linear term), fits the same ``Comparisons``
with :func:`dprank.mle.fit_penalized_mle` once through the dense solver and once through
the sparse Newton-CG (the threshold forced to 0 and to 2), best of 3, and prints the time
of the dense path over the sparse one (above 1: sparse faster)::

    python benchmarks/density_threshold.py [--n 200 700 2000] [--p 0.05 0.1 0.2 0.4 0.7 1]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from bench_scale import theta_paper_a_edge

import dprank.mle as mle
from dprank.comparisons import Comparisons
from dprank.objective import edge_ridge
from dprank.simulate import sample_er_comparisons_sparse


def fit_time(comp, gamma, b, threshold, repeat=3):
    """Best time of ``repeat`` fits from a fresh ``Comparisons`` with the given threshold."""
    saved = mle.DENSE_MIN_DENSITY
    mle.DENSE_MIN_DENSITY = threshold
    try:
        best = np.inf
        for _ in range(repeat):
            fresh = Comparisons(
                n_items=comp.n_items, i=comp.i, j=comp.j, y=comp.y, count=comp.count
            )
            t0 = time.perf_counter()
            mle.fit_penalized_mle(fresh, gamma, b)
            best = min(best, time.perf_counter() - t0)
        return best
    finally:
        mle.DENSE_MIN_DENSITY = saved


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, nargs="+", default=[200, 700, 2000], help="items")
    parser.add_argument(
        "--p", type=float, nargs="+", default=[0.05, 0.1, 0.2, 0.4, 0.7, 1.0], help="densities"
    )
    args = parser.parse_args(argv)
    print("time of the dense path over the sparse one (above 1: sparse faster)")
    print("n     " + " ".join(f"p={p:<5g}" for p in args.p))
    for n in args.n:
        ratios = []
        for p in args.p:
            rng = np.random.default_rng(1)
            theta = theta_paper_a_edge(n, rng)
            comp = sample_er_comparisons_sparse(theta, p, rng)
            gamma = edge_ridge(n, p)
            b = rng.laplace(size=n)
            fit_time(comp, gamma, b, 2.0, repeat=1)  # loads the compiled loops
            ratios.append(fit_time(comp, gamma, b, 0.0) / fit_time(comp, gamma, b, 2.0))
        print(f"{n:<5d} " + " ".join(f"{r:<7.2f}" for r in ratios), flush=True)


if __name__ == "__main__":
    main()
