"""Benchmark: the n x n Newton path against the pair-list path on the same win matrices.

Algorithm 1 (Paper A, eq. (2.2)) at eps = 1 with the paper's ridge on Erdos-Renyi win
matrices (Paper A's edge-DP scores, one comparison per compared pair), n in {100, 300, 700}
and p in {0.1, 0.25, 0.5, 0.7, 0.85}: :func:`dprank.fit.mle.fit_penalized_mle` with
``solver="dense"`` (Newton on the n x n statistics) and ``solver="pairs"`` (Newton over the
compared pairs, :class:`dprank.objective.PairObjective`), timed in turn in CPU time of the
process (``time.process_time``, one thread: the other work of a shared machine does not
inflate it as it does wall time of millisecond fits; best of ``--repeat``), and the ratio of
the two times. The two solutions
are checked to agree to 1e-6.

Run::

    OMP_NUM_THREADS=1 python benchmarks/bench_pairs.py --markdown docs/includes  # the docs' table

(``--markdown DIR``: the table of docs/performance.md, ``DIR/performance_pairs.md``.)
Timings depend on the machine and its load; nothing here is asserted in the tests.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

from dprank.data.simulate import sample_er_comparisons, theta_paper_a_edge
from dprank.fit.mle import PairwiseData, fit_penalized_mle
from dprank.objective import edge_ridge
from dprank.privacy.mechanisms import edge_mle_noise_scale

SIZES = (100, 300, 700)
DENSITIES = (0.1, 0.25, 0.5, 0.7, 0.85)


def ratio(n: int, p: float, repeat: int, seed: int) -> float:
    """Time of the n x n path over the pair-list path (best of ``repeat`` each, in turn)."""
    rng = np.random.default_rng([seed, n, int(100 * p)])
    wins = sample_er_comparisons(theta_paper_a_edge(n, rng), p, rng)
    gamma, b = edge_ridge(n, p), edge_mle_noise_scale(1.0) * rng.laplace(size=n)
    best = {"dense": np.inf, "pairs": np.inf}
    theta = {}
    for _ in range(repeat):
        for solver in best:
            data = PairwiseData(wins)  # fresh: no cached pair list across the contenders
            t0 = time.process_time()
            theta[solver] = fit_penalized_mle(data, gamma, b, solver=solver).theta
            best[solver] = min(best[solver], time.process_time() - t0)
    diff = float(np.abs(theta["dense"] - theta["pairs"]).max())
    if diff > 1e-6:
        raise RuntimeError(f"n = {n}, p = {p}: the two paths differ by {diff:.1e}")
    return best["dense"] / best["pairs"]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=10, help="timing repetitions (best kept)")
    parser.add_argument("--seed", type=int, default=20251129, help="the data's seed")
    parser.add_argument(
        "--markdown", type=Path, metavar="DIR", help="write the table into DIR (docs/includes)"
    )
    args = parser.parse_args(argv)
    load = os.getloadavg()[0]
    print(f"# n x n CPU time / pair-list CPU time, best of {args.repeat}, load {load:.1f}")
    print(f"{'n':>5} " + " ".join(f"{'p ' + format(p, 'g'):>8}" for p in DENSITIES))
    rows = []
    for n in SIZES:
        row = [ratio(n, p, args.repeat, args.seed) for p in DENSITIES]
        rows.append([str(n), *(f"{r:.2f}" for r in row)])
        print(f"{n:>5} " + " ".join(f"{r:>8.2f}" for r in row), flush=True)
    if args.markdown:
        from dprank_papers.docs_includes import benchmark_header, markdown_table

        words = sys.argv[1:] if argv is None else argv
        threads = os.environ.get("OMP_NUM_THREADS")
        command = (f"OMP_NUM_THREADS={threads} " if threads else "") + "python "
        command += "benchmarks/bench_pairs.py " + " ".join(map(str, words))
        note = f"CPU time, best of {args.repeat}, load {load:.1f} as it started"
        header = ["n", *(f"p = {p:g}" for p in DENSITIES)]
        text = benchmark_header(command, note) + markdown_table(header, rows, "r" * len(header))
        path = args.markdown / "performance_pairs.md"
        path.write_text(text)
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
