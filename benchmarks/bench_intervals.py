"""Benchmark: intervals for scores and ranks (dprank.intervals) at 10^5 items, 2.5 M comparisons.

Design: an Erdos-Renyi graph of average degree 50 on ``n`` items, one
comparison per compared pair (:func:`dprank.data.simulate.sample_er_comparisons_sparse`),
the true scores of Paper A section 4.1; the release is Algorithm 1
(``edge_mle``) at ``eps = 1``. Timed, one core (``OMP_NUM_THREADS=1`` etc. are
set before numpy loads): :func:`dprank.intervals.intervals` with
``kind="asymptotic"`` (the linearised error law, the form ``kind="auto"`` takes at
this scale), given the release's calibration
(``Fit.details``, as ``dprank rank --intervals`` has it) and without it (one
extra fit on simulated data reads it); with ``--bootstrap`` also the full
bootstrap at ``--boot-n`` items for comparison.

Run::

    nice python benchmarks/bench_intervals.py                 # n = 10^5, about a minute
    python benchmarks/bench_intervals.py --n 10000            # quicker

CPU time (``time.process_time``) is printed beside wall time: on a loaded machine it is the
better estimate of the time on one idle core. Timings depend on the machine and its load;
nothing here is asserted in the tests.
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

from dprank.data.simulate import sample_er_comparisons_sparse, theta_paper_a_edge  # noqa: E402
from dprank.intervals import EdgeDesign, intervals  # noqa: E402
from dprank.methods import get_method  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=100_000)
    ap.add_argument("--degree", type=float, default=50.0)
    ap.add_argument("--eps", type=float, default=1.0)
    ap.add_argument("--n-boot", type=int, default=100)
    ap.add_argument("--bootstrap", action="store_true", help="also the full bootstrap")
    ap.add_argument("--boot-n", type=int, default=2000)
    args = ap.parse_args()

    rng = np.random.default_rng(2026)
    theta = theta_paper_a_edge(args.n, rng)
    data = sample_er_comparisons_sparse(theta, args.degree / (args.n - 1), rng)
    print(f"n = {args.n}, comparisons = {data.n_records:,}, eps = {args.eps:g}")
    meth = get_method("edge_mle")
    start = time.perf_counter()
    fit = meth.fit(data, args.eps, rng)
    print(f"release (Algorithm 1): {time.perf_counter() - start:.2f} s")
    design = EdgeDesign.from_comparisons(data)

    runs = (("given the release's calibration", fit.details), ("no calibration", None))
    for label, calib in runs:
        start, cpu = time.perf_counter(), time.process_time()
        frame = intervals(
            fit.scores, meth, args.eps, design, kind="asymptotic", n_boot=args.n_boot,
            rng=1, calibration=calib, top_k=10,
        )  # fmt: skip
        took, took_cpu = time.perf_counter() - start, time.process_time() - cpu
        width = (frame.score_hi - frame.score_lo).median()
        rwidth = (frame.rank_hi - frame.rank_lo).mean()
        print(
            f"asymptotic, {args.n_boot} draws, {label}: {took:.2f} s wall, {took_cpu:.2f} s CPU "
            f"(median score width {width:.3f}, mean rank width {rwidth:.1f}, items located "
            f"{frame.informative.mean():.1%})"
        )
    if args.bootstrap:
        small = sample_er_comparisons_sparse(theta[: args.boot_n], args.degree / args.boot_n, rng)
        sfit = meth.fit(small, args.eps, rng)
        sdes = EdgeDesign.from_comparisons(small)
        for kind in ("bootstrap", "asymptotic"):
            start = time.perf_counter()
            intervals(sfit.scores, meth, args.eps, sdes, kind=kind, n_boot=args.n_boot, rng=1)
            print(f"{kind} at n = {args.boot_n}: {time.perf_counter() - start:.2f} s")


if __name__ == "__main__":
    main()
