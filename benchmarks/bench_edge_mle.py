"""Benchmark: one Algorithm 1 fit (Paper A, eq. (2.2)) against scipy and choix.

On identical data (one Erdos-Renyi comparison graph per size, the Paper A
edge-DP design) the script times

* ``dprank``: :func:`dprank.fit.mle.fit_penalized_mle` (damped Newton on the win
  matrix), cold start from zero, and warm-started across the epsilon grid
  0.5, 1, 2.5 on the same data (as the workflow fits them);
* ``scipy``: L-BFGS-B with a vectorised analytic gradient on the list of
  comparisons (the natural per-comparison implementation);
* ``choix``: :func:`choix.opt_pairwise` (Newton-CG), which has no linear term,
  so it is timed on the unperturbed objective (epsilon = inf with the ridge kept,
  the ``authors`` protocol), with ``alpha = gamma / 2``;

checks that every solution agrees with ours to 1e-6 (max-norm) and that our
objective is at least as low as scipy's (the gap summed term by term, exact to
about 1e-15; ``GAP_TOL`` allows for that), and prints the times (best of
``--repeat``; ours, ours warm and scipy run in turn, so that load hits them
alike) and the ratios. ``dprank`` is the default ``solver="auto"``: the
``n x n`` Newton on complete graphs, the pair-list Newton on the sparser ones
(n = 300, p = 0.25). Run::

    python benchmarks/bench_edge_mle.py            # n = 100, 300, 700 (p = 1), n = 300 p = 0.25
    python benchmarks/bench_edge_mle.py --quick    # smaller sizes, seconds
    python benchmarks/bench_edge_mle.py --sizes 300:0.25 700:1 --no-choix   # the Paper A cases
    python benchmarks/bench_edge_mle.py --repeat 10 --markdown docs/includes  # the docs' table

(``--markdown DIR``: the table of docs/performance.md, ``DIR/performance_edge_mle.md``, its first
line the command, the machine's load as the run started.)

Timings depend on the machine; nothing here is asserted in the tests.
"""

from __future__ import annotations

import argparse
import math
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np
from scipy import optimize

from dprank.data.simulate import sample_er_comparisons, theta_paper_a_edge
from dprank.fit.mle import PairwiseData, fit_penalized_mle
from dprank.objective import edge_ridge
from dprank.privacy.mechanisms import edge_mle_noise_scale

TOL = 1e-6
#: objective gaps below this are round-off of the termwise sum (at least as low)
GAP_TOL = 1e-12


def best_time(fn, repeat):
    best, out = np.inf, None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def best_times(fns, repeat):
    """Best time of each of ``fns``, run in turn ``repeat`` times (fair under load)."""
    best, out = [np.inf] * len(fns), [None] * len(fns)
    for _ in range(repeat):
        for k, fn in enumerate(fns):
            t0 = time.perf_counter()
            out[k] = fn()
            best[k] = min(best[k], time.perf_counter() - t0)
    return best, out


def objective_gap(wins, gamma, b, theta_a, theta_b):
    """``f(theta_a) - f(theta_b)`` for objective (2.2), summed term by term with ``math.fsum``.

    Differencing the two objective values would drown the gap (1e-12 and below) in
    their round-off (1e-11 at n = 700); the termwise differences are exact to ~1e-16.
    """
    i, j = np.nonzero(wins)
    c = wins[i, j].astype(float)
    loss_a = np.logaddexp(0.0, -(theta_a[i] - theta_a[j]))
    loss_b = np.logaddexp(0.0, -(theta_b[i] - theta_b[j]))
    diff = theta_a - theta_b
    return (
        math.fsum(c * (loss_a - loss_b))
        + math.fsum(0.5 * gamma * diff * (theta_a + theta_b))
        + math.fsum(b * diff)
    )


def scipy_lbfgs(wins, gamma, b):
    """L-BFGS on the comparison list with the analytic gradient."""
    i, j = np.nonzero(wins)
    n = wins.shape[0]

    def f(theta):
        x = theta[i] - theta[j]
        s = 1.0 / (1.0 + np.exp(x))  # = 1 - F(x): derivative of the loss is -s
        g = gamma * theta + b
        g -= np.bincount(i, s, n)
        g += np.bincount(j, s, n)
        val = np.logaddexp(0.0, -x).sum() + 0.5 * gamma * theta @ theta + b @ theta
        return val, g

    res = optimize.minimize(
        f,
        np.zeros(n),
        jac=True,
        method="L-BFGS-B",
        options={"ftol": 1e-15, "gtol": 1e-9, "maxiter": 10_000, "maxcor": 20},
    )
    return res.x


def choix_fit(wins, gamma):
    import choix

    i, j = np.nonzero(wins)
    data = list(zip(i.tolist(), j.tolist(), strict=True))
    return choix.opt_pairwise(wins.shape[0], data, alpha=gamma / 2, method="Newton-CG", tol=1e-12)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="small sizes only")
    parser.add_argument("--repeat", type=int, default=5, help="timing repetitions (best is kept)")
    parser.add_argument("--no-choix", action="store_true", help="skip choix (slow: Python loops)")
    parser.add_argument(
        "--sizes", nargs="+", metavar="N:P", help="designs to run, e.g. 300:0.25 700:1"
    )
    parser.add_argument(
        "--markdown", type=Path, metavar="DIR", help="write the table into DIR (docs/includes)"
    )
    args = parser.parse_args(argv)
    load = os.getloadavg()[0]
    rows = []
    sizes = (
        [(50, 1.0), (100, 0.25)]
        if args.quick
        else [(100, 1.0), (300, 1.0), (700, 1.0), (300, 0.25)]
    )
    if args.sizes:
        sizes = [(int(n), float(p)) for n, p in (s.split(":") for s in args.sizes)]
    print(
        f"# {platform.processor() or platform.machine()}, Python {platform.python_version()}, "
        f"numpy {np.__version__}"
    )
    print(
        f"# best of {args.repeat}; one fit at epsilon = 1 (ours cold and warm), "
        "choix at epsilon = inf"
    )
    header = (
        f"{'n':>5} {'p':>5} {'ours ms':>8} {'warm ms':>8} {'scipy ms':>9} {'choix ms':>9} "
        f"{'scipy/ours':>10} {'choix/ours':>10} {'max|diff|':>10} {'obj-scipy':>10}"
    )
    print(header)
    failures = 0
    for n, p in sizes:
        rng = np.random.default_rng(20251122 + n)
        theta = theta_paper_a_edge(n, rng)
        wins = sample_er_comparisons(theta, p, rng)
        gamma = edge_ridge(n, p)
        w = rng.laplace(size=n)
        b = edge_mle_noise_scale(1.0) * w

        def warm_grid():
            data = PairwiseData(wins)
            fit = None
            for eps in (2.5, 1.0, 0.5):
                start = None if fit is None else fit.theta
                fit = fit_penalized_mle(data, gamma, edge_mle_noise_scale(eps) * w, theta0=start)
            return fit

        (t_ours, t_warm, t_scipy), (ours, _, ref) = best_times(
            [
                lambda: fit_penalized_mle(wins, gamma, b),
                warm_grid,
                lambda: scipy_lbfgs(wins, gamma, b),
            ],
            args.repeat,
        )
        assert ours.converged
        t_warm /= 3
        diff = float(np.max(np.abs(ref - ours.theta)))
        dobj = objective_gap(wins, gamma, b, ours.theta, ref)
        t_choix = np.nan
        if not args.no_choix:
            t_choix, ch = best_time(lambda: choix_fit(wins, gamma), 1 if n > 300 else args.repeat)
            ours0 = fit_penalized_mle(wins, gamma).theta
            diff = max(diff, float(np.max(np.abs(ch - ours0))))
        ok = diff <= TOL and dobj <= GAP_TOL
        failures += not ok
        print(
            f"{n:>5} {p:>5} {1e3 * t_ours:>8.2f} {1e3 * t_warm:>8.2f} {1e3 * t_scipy:>9.1f} "
            f"{1e3 * t_choix:>9.1f} {t_scipy / t_ours:>10.1f} {t_choix / t_ours:>10.1f} "
            f"{diff:>10.1e} {dobj:>10.1e}{'' if ok else '  DISAGREE'}"
        )
        choix_cells = ["-", "-"] if args.no_choix else [f"{1e3 * t_choix:.0f}"]
        if not args.no_choix:
            choix_cells.append(f"{t_choix / t_ours:.0f}")
        rows.append([
            n, f"{p:g}", f"{1e3 * t_ours:.3g}", f"{1e3 * t_warm:.3g}", f"{1e3 * t_scipy:.4g}",
            choix_cells[0], f"{t_scipy / t_ours:.1f}", choix_cells[1], _sci(diff), f"{dobj:.1e}",
        ])  # fmt: skip
    print(
        "# ratios > 1: dprank faster. 'warm' = per fit, warm-started across epsilon = 2.5, 1, 0.5;"
        "\n# obj-scipy = our objective (2.2) minus scipy's, summed term by term (<= 0: ours at "
        "least as low)."
    )
    if args.markdown and not failures:
        print(f"wrote {write_include(args.markdown, argv, load, args.repeat, rows)}")
    return 1 if failures else 0


def _sci(x: float) -> str:
    """``5e-8`` (one digit, no padded exponent)."""
    mantissa, exponent = f"{x:.0e}".split("e")
    return f"{mantissa}e{int(exponent)}"


def write_include(folder: Path, argv, load: float, repeat: int, rows) -> Path:
    """The table of docs/includes/performance_edge_mle.md (times of one fit)."""
    from dprank_papers.docs_includes import benchmark_header, markdown_table

    header = ["n", "p", "dprank (ms)", "dprank, warm start (ms)", "scipy L-BFGS-B (ms)"]
    header += ["choix (ms)", "scipy / dprank", "choix / dprank", "max abs. diff"]
    header += ["ours - scipy's objective"]
    words = sys.argv[1:] if argv is None else argv
    threads = os.environ.get("OMP_NUM_THREADS")
    command = (f"OMP_NUM_THREADS={threads} " if threads else "") + "python "
    command += "benchmarks/bench_edge_mle.py " + " ".join(map(str, words))
    note = f"best of {repeat}, load {load:.1f} as it started"
    text = benchmark_header(command, note) + markdown_table(header, rows, "r" * len(header))
    path = Path(folder) / "performance_edge_mle.md"
    path.write_text(text)
    return path


if __name__ == "__main__":
    raise SystemExit(main())
