"""Dense or sparse solver for edge-list input: time ratio by density (`DENSE_MIN_DENSITY`).

For Erdos-Renyi comparison graphs (``sample_er_comparisons_sparse``, Paper A's scores and
ridge ``gamma = 2 sqrt(n p log n)``, a Laplace linear term), fits the same ``Comparisons``
with :func:`dprank.fit.mle.fit_penalized_mle` once through the dense solver and once through
the sparse Newton-CG (the threshold forced to 0 and to 2), best of at least 3 rounds (up to
50, a second's worth) that time both in turn, and prints the time of the dense path over the
sparse one (above 1: sparse faster)::

    python benchmarks/density_threshold.py [--n 200 700 2000] [--p 0.05 0.1 0.2 0.4 0.7 1]
        [--markdown docs/includes]

``--markdown DIR`` also writes the table as ``DIR/sparse_density_threshold.md`` (the include of
docs/sparse.md), its first line the command; its last column is the machine's load average
(1 minute) as each row was done.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import numpy as np
from bench_scale import theta_paper_a_edge

import dprank.fit.mle as mle
from dprank.data.comparisons import Comparisons
from dprank.data.simulate import sample_er_comparisons_sparse
from dprank.objective import edge_ridge


def fit_time(comp, gamma, b, threshold):
    """Time of one fit from a fresh ``Comparisons`` with the given threshold."""
    saved = mle.DENSE_MIN_DENSITY
    mle.DENSE_MIN_DENSITY = threshold
    try:
        fresh = Comparisons(n_items=comp.n_items, i=comp.i, j=comp.j, y=comp.y, count=comp.count)
        t0 = time.perf_counter()
        mle.fit_penalized_mle(fresh, gamma, b)
        return time.perf_counter() - t0
    finally:
        mle.DENSE_MIN_DENSITY = saved


def dense_over_sparse(comp, gamma, b, rounds=3, seconds=1.0) -> float:
    """Best dense time over best sparse time, the two fits timed in turn in each round (the
    machine's load moves: each round times both): at least ``rounds`` rounds, more (up to
    50) until the rounds took ``seconds``, so that a fit of a millisecond is timed often."""
    dense, sparse = np.inf, np.inf
    start = time.perf_counter()
    for k in range(50):
        if k >= rounds and time.perf_counter() - start > seconds:
            break
        dense = min(dense, fit_time(comp, gamma, b, 0.0))  # never below: dense
        sparse = min(sparse, fit_time(comp, gamma, b, 2.0))  # always below: sparse
    return dense / sparse


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, nargs="+", default=[200, 700, 2000], help="items")
    parser.add_argument(
        "--p", type=float, nargs="+", default=[0.05, 0.1, 0.2, 0.4, 0.7, 1.0], help="densities"
    )
    parser.add_argument(
        "--markdown",
        type=Path,
        metavar="DIR",
        help="also write the table as DIR/sparse_density_threshold.md (docs/includes)",
    )
    args = parser.parse_args(argv)
    load_start = os.getloadavg()[0]
    table = []
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
            fit_time(comp, gamma, b, 2.0)  # loads the compiled loops
            ratios.append(dense_over_sparse(comp, gamma, b))
        print(f"{n:<5d} " + " ".join(f"{r:<7.2f}" for r in ratios), flush=True)
        table.append([str(n), *(f"{r:.2f}" for r in ratios), f"{os.getloadavg()[0]:.1f}"])
    if args.markdown:
        write_include(args, table, load_start)


def write_include(args, table, load_start: float) -> None:
    """The ratios as ``docs/includes/sparse_density_threshold.md`` (first line: the command)."""
    from dprank_papers.docs_includes import benchmark_header, markdown_table

    threads = os.environ.get("OMP_NUM_THREADS")
    command = (
        f"OMP_NUM_THREADS={threads} " if threads else ""
    ) + "python benchmarks/density_threshold.py"
    command += " --n " + " ".join(map(str, args.n)) + " --p " + " ".join(f"{p:g}" for p in args.p)
    command += f" --markdown {args.markdown.as_posix()}"
    note = f"best of 3 to 50 rounds; the load {load_start:.1f} at the start"
    header = ["n", *(f"p = {p:g}" for p in args.p), "load"]
    align = "l" + "r" * (len(args.p) + 1)
    path = args.markdown / "sparse_density_threshold.md"
    path.write_text(benchmark_header(command, note) + markdown_table(header, table, align))
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
