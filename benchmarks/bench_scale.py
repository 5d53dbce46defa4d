"""Benchmark: Algorithm 1 (Paper A, eq. (2.2)) on edge lists at 10^3 to 10^5 items.

Identical data for every solver, one fit each (best of ``--repeat``), three designs:

* (a) Erdos-Renyi graphs (:func:`dprank.data.simulate.sample_er_comparisons_sparse`),
  n in {10^3, 10^4, 10^5} at average degree 50, Algorithm 1 at eps = 1 with
  the paper's ridge ``gamma = 2 sqrt(n p log n)``;
* (b) the same graphs with a weak ridge ``gamma = 0.01`` and no perturbation
  (eps = inf, the near-non-private fit people run on real data);
* (c) heavy-tailed degrees as in rating data: item popularity from a Pareto
  law with shape 1.2, both items of a comparison drawn by popularity,
  n = 10^5, 2.5 million comparisons, weak ridge.

Solvers: ours (:func:`dprank.fit.mle.fit_penalized_mle` on a
:class:`dprank.data.comparisons.Comparisons`, aggregation included in the time;
the one-off start-up of its compiled loops is printed first, not in the times);
scipy L-BFGS-B on the comparison list with the analytic gradient, run until its
objective is within ``1e-9`` (relative) of ours (``scipy-lbfgsb``; stopped at
``--peer-seconds`` if it never gets there: its gradient norm is printed);
scipy's trust-region Newton methods with exact Hessian-vector products
(``trust-ncg``: Steihaug CG; ``trust-krylov``: the GLTR Lanczos method), run to
the same objective (``--trust``, for n >= 10^4, where they are worth their set-up);
choix ``opt_pairwise`` (Newton-CG, ridge ``alpha = gamma / 2``, no linear
term so at eps = inf) and ``ilsr_pairwise`` (its own regularisation
``alpha``; not the same objective, distance printed for reference). choix
builds ``n x n`` dense matrices and loops over comparisons in Python, so it
is run only for ``n <= --choix-max-n``.

Also the checks "where the papers live": n = 700, p = 1 and n = 300, p = 0.25
(dense win matrices, the papers' simulator) against scipy L-BFGS-B, with our
dense solver and our sparse solver on the edge list.

Run::

    nice python benchmarks/bench_scale.py            # full, a few minutes
    nice python benchmarks/bench_scale.py --quick    # n = 10^4 only, under a minute
    python benchmarks/bench_scale.py --designs c --peer-seconds 900   # (c), peer to convergence
    python benchmarks/bench_scale.py --designs ab --sizes 100000 --trust \
        --markdown docs/includes   # the ER fits at 10^5 items of docs/performance.md

Timings depend on the machine and its load; nothing here is asserted in the tests.
"""

from __future__ import annotations

import argparse
import os
import platform
import time
import tracemalloc
from pathlib import Path

import numpy as np
from scipy import optimize

from dprank.data.comparisons import Comparisons
from dprank.data.simulate import (
    sample_er_comparisons,
    sample_er_comparisons_sparse,
    theta_paper_a_edge,
)
from dprank.fit.mle import fit_penalized_mle
from dprank.fit.sparse import SparseData, sparse_newton
from dprank.objective import edge_ridge
from dprank.privacy.mechanisms import edge_mle_noise_scale

DEGREE = 50
WEAK_GAMMA = 0.01
#: the rows of --markdown: each case's times (s) of ours and the peers
FIT_ROWS: list[dict] = []


def best_time(fn, repeat):
    best, out = np.inf, None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def objective(theta, i, j, y, gamma, b):
    """Objective (2.2) on records (i, j, y): value and gradient."""
    d = theta[i] - theta[j]
    # loss for the winner's side: y = 1 -> l(d), y = 0 -> l(-d)
    sgn = 2.0 * y - 1.0
    x = sgn * d
    s = 1.0 / (1.0 + np.exp(x))  # -l'(x)
    gd = -sgn * s
    n = theta.size
    g = np.bincount(i, gd, n) - np.bincount(j, gd, n) + gamma * theta + b
    val = np.logaddexp(0.0, -x).sum() + 0.5 * gamma * theta @ theta + b @ theta
    return float(val), g


class HessianProduct:
    """Exact Hessian-vector products of objective (2.2) on records (i, j, y), weights cached
    for the last point (a trust-region iteration asks for many products at one point)."""

    def __init__(self, i, j, gamma):
        self.i, self.j, self.gamma = i, j, gamma
        self.x, self.h = None, None

    def __call__(self, theta, v, *_):  # scipy passes the objective's args after v
        if self.x is None or not np.array_equal(theta, self.x):
            d = theta[self.i] - theta[self.j]
            s = 1.0 / (1.0 + np.exp(-d))
            self.x, self.h = theta.copy(), s * (1.0 - s)
        t = self.h * (v[self.i] - v[self.j])
        n = theta.size
        return np.bincount(self.i, t, n) - np.bincount(self.j, t, n) + self.gamma * v


def scipy_peer(method, n, i, j, y, gamma, b, seconds, target=None):
    """scipy ``method`` from zero until its objective reaches ``target`` (relative 1e-9),
    converges, or runs ``seconds``. Returns ``(x, evaluations, stopped)``."""
    start = time.perf_counter()
    stopped, best = [], {}

    def cb(intermediate_result):
        fun = float(intermediate_result.fun)
        best["x"] = np.array(intermediate_result.x)
        if target is not None and fun - target <= 1e-9 * abs(target):
            raise StopIteration
        if time.perf_counter() - start > seconds:
            stopped.append(True)
            raise StopIteration

    if method == "L-BFGS-B":
        options = {"ftol": 1e-15, "gtol": 1e-12, "maxiter": 100_000, "maxfun": 100_000,
                   "maxcor": 20}  # fmt: skip
        extra = {}
    else:
        options = {"gtol": 1e-12, "maxiter": 100_000}
        extra = {"hessp": HessianProduct(i, j, gamma)}
    res = optimize.minimize(
        objective, np.zeros(n), args=(i, j, y, gamma, b), jac=True, method=method,
        callback=cb, options=options, **extra,
    )  # fmt: skip
    return res.x, int(res.nfev), bool(stopped)


def scipy_lbfgs(n, i, j, y, gamma, b, seconds, target=None):
    return scipy_peer("L-BFGS-B", n, i, j, y, gamma, b, seconds, target)


def choix_opt(n, i, j, y, gamma):
    import choix

    win = np.where(y > 0.5, i, j)
    lose = np.where(y > 0.5, j, i)
    data = list(zip(win.tolist(), lose.tolist(), strict=True))
    return choix.opt_pairwise(n, data, alpha=gamma / 2, method="Newton-CG", tol=1e-12)


def choix_ilsr(n, i, j, y, alpha):
    import choix

    win = np.where(y > 0.5, i, j)
    lose = np.where(y > 0.5, j, i)
    data = list(zip(win.tolist(), lose.tolist(), strict=True))
    return choix.ilsr_pairwise(n, data, alpha=alpha, tol=1e-10)


def er_design(n, seed):
    rng = np.random.default_rng(seed)
    theta = theta_paper_a_edge(n, rng)
    p = DEGREE / (n - 1)
    comp = sample_er_comparisons_sparse(theta, p, rng)
    return comp, p, rng


def heavy_tailed_design(n, m, seed):
    rng = np.random.default_rng(seed)
    theta = theta_paper_a_edge(n, rng)
    pop = rng.pareto(1.2, n) + 1.0
    pop /= pop.sum()
    i = rng.choice(n, size=m, p=pop)
    j = rng.choice(n, size=m, p=pop)
    while np.any(same := i == j):
        j[same] = rng.choice(n, size=int(same.sum()), p=pop)
    y = (rng.random(m) < 1.0 / (1.0 + np.exp(-(theta[i] - theta[j])))).astype(float)
    return Comparisons(n_items=n, i=i, j=j, y=y, count=np.ones(m))


def ours(comp, gamma, b):
    fresh = Comparisons(n_items=comp.n_items, i=comp.i, j=comp.j, y=comp.y, count=comp.count)
    return fit_penalized_mle(fresh, gamma, b)


def peak_memory(comp, gamma, b):
    tracemalloc.start()
    fit = ours(comp, gamma, b)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak, fit


def row(design, n, m, pairs, gamma, name, t, dist, gap, gnorm, note, t_ours):
    ratio = t / t_ours if np.isfinite(t) else np.nan
    print(
        f"{design:>3} {n:>7} {m:>8} {pairs:>8} {gamma:>8.3g} {name:>12} {t:>9.3f} {ratio:>7.1f} "
        f"{dist:>9.1e} {gap:>9.1e} {gnorm:>9.1e}  {note}",
        flush=True,
    )


def run_case(design, comp, gamma, b, args):
    n = comp.n_items
    i, j, y = comp.i, comp.j, comp.y
    m = comp.n_records
    pairs = comp.pair_statistics().n_pairs
    t_ours, fit = best_time(lambda: ours(comp, gamma, b), args.repeat)
    if not fit.converged:
        print(f"# WARNING: our fit did not converge ({fit.n_iter} iterations)")
    peak, _ = peak_memory(comp, gamma, b)
    f_ours, g_ours = objective(fit.theta, i, j, y, gamma, b)
    sd = SparseData(comp)
    path = "dense" if sd.density >= 0.3 and n <= 4000 else "sparse"
    row(
        design, n, m, pairs, gamma, "ours", t_ours, 0.0, 0.0, float(np.linalg.norm(g_ours)),
        f"{path}, {fit.n_iter} Newton steps, peak {peak / 2**20:.0f} MiB", t_ours,
    )  # fmt: skip
    reps = args.repeat
    peers = [("scipy-lbfgsb", "L-BFGS-B")]
    if args.trust and n >= 10_000:
        peers += [("trust-ncg", "trust-ncg"), ("trust-krylov", "trust-krylov")]
    times = {"ours": t_ours}
    for label, method in peers:
        t0 = time.perf_counter()
        x, nfev, stopped = scipy_peer(method, n, i, j, y, gamma, b, args.peer_seconds, f_ours)
        t1 = time.perf_counter() - t0
        if not stopped and t1 < 20 and reps > 1:
            t_more, (x, nfev, stopped) = best_time(
                lambda method=method: scipy_peer(
                    method, n, i, j, y, gamma, b, args.peer_seconds, f_ours
                ),
                reps - 1,
            )
            t1 = min(t1, t_more)
        f1, g1 = objective(x, i, j, y, gamma, b)
        reached = f1 - f_ours <= 1e-9 * abs(f_ours)
        row(
            design, n, m, pairs, gamma, label, t1, float(np.max(np.abs(x - fit.theta))),
            f1 - f_ours, float(np.linalg.norm(g1)),
            f"{nfev} evaluations" + ("" if reached else ", objective NOT reached")
            + (f", STOPPED at {args.peer_seconds:g} s" if stopped else ""),
            t_ours,
        )  # fmt: skip
        times[label] = t1 if reached else float("nan")
    FIT_ROWS.append({"design": design, "n": n, "pairs": pairs, "gamma": gamma, **times})
    if n > args.choix_max_n:
        print(f"{design:>3} {n:>7} {'':>8} {'':>8} {'':>8} {'choix':>12}  skipped: n x n dense")
        return
    b0 = np.zeros(n)
    fit0 = fit if not np.any(b) else fit_penalized_mle(comp, gamma)
    f0, _ = objective(fit0.theta, i, j, y, gamma, b0)
    t2, x2 = best_time(lambda: choix_opt(n, i, j, y, gamma), 1)
    f2, g2 = objective(x2, i, j, y, gamma, b0)
    row(
        design, n, m, pairs, gamma, "choix-opt", t2, float(np.max(np.abs(x2 - fit0.theta))),
        f2 - f0, float(np.linalg.norm(g2)), "eps = inf (no linear term)", t_ours,
    )  # fmt: skip
    t3, x3 = best_time(lambda: choix_ilsr(n, i, j, y, gamma / 2), 1)
    x3 = x3 - x3.mean() + fit0.theta.mean()
    f3, g3 = objective(x3, i, j, y, gamma, b0)
    row(
        design, n, m, pairs, gamma, "choix-ilsr", t3, float(np.max(np.abs(x3 - fit0.theta))),
        f3 - f0, float(np.linalg.norm(g3)), "eps = inf, its own regulariser alpha", t_ours,
    )  # fmt: skip


def papers_checks(args):
    print("# where the papers live: dense win matrices (papers' simulator), eps = 1")
    print(f"{'n':>5} {'p':>5} {'dense ms':>9} {'sparse ms':>9} {'scipy ms':>9} {'scipy/best':>10}")
    for n, p in [(700, 1.0), (300, 0.25)]:
        rng = np.random.default_rng(20251122 + n)
        theta = theta_paper_a_edge(n, rng)
        wins = sample_er_comparisons(theta, p, rng)
        gamma = edge_ridge(n, p)
        b = edge_mle_noise_scale(1.0) * rng.laplace(size=n)
        comp = Comparisons.from_wins(wins)
        reps = max(args.repeat, 5)
        t_dense, fd = best_time(lambda: fit_penalized_mle(wins, gamma, b), reps)
        sd = SparseData(comp)
        t_sparse, fs = best_time(lambda: fit_penalized_mle(sd, gamma, b), reps)
        t_scipy, (x, _, _) = best_time(
            lambda: scipy_lbfgs(n, comp.i, comp.j, comp.y, gamma, b, 60.0), reps
        )
        diff = max(np.max(np.abs(fd.theta - fs.theta)), np.max(np.abs(fd.theta - x)))
        print(
            f"{n:>5} {p:>5} {1e3 * t_dense:>9.2f} {1e3 * t_sparse:>9.2f} {1e3 * t_scipy:>9.1f} "
            f"{t_scipy / min(t_dense, t_sparse):>10.1f}  max|diff| {diff:.1e}",
            flush=True,
        )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="n = 10^4 only (under a minute)")
    parser.add_argument("--repeat", type=int, default=3, help="timing repetitions (best kept)")
    parser.add_argument(
        "--peer-seconds", type=float, default=120.0, help="stop scipy L-BFGS-B after this"
    )
    parser.add_argument("--choix-max-n", type=int, default=1000, help="largest n given to choix")
    parser.add_argument("--heavy-m", type=int, default=2_500_000, help="comparisons in (c)")
    parser.add_argument(
        "--designs",
        default="abc",
        help="designs to run, e.g. c (default abc; the papers' checks run with a)",
    )
    parser.add_argument("--sizes", help="item counts of (a) and (b), e.g. 100000")
    parser.add_argument(
        "--trust", action="store_true", help="also scipy trust-ncg and trust-krylov (n >= 10^4)"
    )
    parser.add_argument(
        "--markdown", type=Path, help="write the fits' table into this folder (docs/includes)"
    )
    args = parser.parse_args(argv)
    bad = set(args.designs) - set("abc")
    if bad or not args.designs:
        parser.error(f"--designs takes letters of abc, got {args.designs!r}")
    sizes = [10_000] if args.quick else [1_000, 10_000, 100_000]
    if args.sizes:
        sizes = [int(x) for x in args.sizes.split(",")]
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(
        f"# {platform.machine()}, Python {platform.python_version()}, numpy {np.__version__}, "
        f"{os.cpu_count()} cpus, load {load:.2f}; best of {args.repeat}"
    )
    print(
        "# time s = per fit; ratio = peer time / ours; dist = max|theta - ours|; "
        "gap = objective - ours; |grad| = Euclidean gradient norm at the returned point"
    )
    print(
        f"{'des':>3} {'n':>7} {'m':>8} {'pairs':>8} {'gamma':>8} {'solver':>12} {'time s':>9} "
        f"{'ratio':>7} {'dist':>9} {'gap':>9} {'|grad|':>9}  note"
    )
    t0 = time.perf_counter()
    sparse_newton(SparseData(Comparisons.from_winner_loser([0, 1], [1, 2], n_items=3)), 1.0)
    from dprank.objective import kernels

    print(
        f"# one-off start-up of the compiled loops ({kernels().library_path().name}, loaded "
        f"with ctypes): {time.perf_counter() - t0:.2f} s, not in the times below"
    )
    for n in sizes if set("ab") & set(args.designs) else []:
        comp, p, rng = er_design(n, 20251124 + n)
        gamma = edge_ridge(n, p)
        b = edge_mle_noise_scale(1.0) * rng.laplace(size=n)
        if "a" in args.designs:
            run_case("a", comp, gamma, b, args)
        if "b" in args.designs:
            run_case("b", comp, WEAK_GAMMA, np.zeros(n), args)
    if "c" in args.designs:
        n_heavy = 10_000 if args.quick else 100_000
        m_heavy = args.heavy_m // 10 if args.quick else args.heavy_m
        comp = heavy_tailed_design(n_heavy, m_heavy, 20251124)
        run_case("c", comp, WEAK_GAMMA, np.zeros(n_heavy), args)
    if not args.quick and "a" in args.designs and not args.sizes:
        papers_checks(args)
    if args.markdown:
        path = write_include(args.markdown, argv, load)
        print(f"wrote {path}")
    return 0


def write_include(folder: Path, argv, load: float) -> Path:
    """The fits' times and ratios as the table of docs/includes/performance_fit.md."""
    import sys

    from dprank_papers.docs_includes import benchmark_header, markdown_table

    def cell(r, name):
        t = r.get(name, float("nan"))
        if not np.isfinite(t):
            return "not reached" if name in r else "-"
        return f"{t:.2f} s ({t / r['ours']:.1f}x)"

    rows = [
        [r["design"], r["n"], r["pairs"], f"{r['gamma']:.3g}", f"{r['ours']:.2f} s",
         cell(r, "scipy-lbfgsb"), cell(r, "trust-ncg"), cell(r, "trust-krylov")]
        for r in FIT_ROWS
    ]  # fmt: skip
    header = ["design", "n", "pairs", "gamma", "dprank", "L-BFGS-B (ratio)",
              "trust-ncg (ratio)", "trust-krylov (ratio)"]  # fmt: skip
    words = sys.argv[1:] if argv is None else argv
    command = "python benchmarks/bench_scale.py " + " ".join(words)
    note = f"one core, load {load:.1f}"
    text = benchmark_header(command, note) + markdown_table(header, rows, "lrrrrrrr")
    path = Path(folder) / "performance_fit.md"
    path.write_text(text)
    return path


if __name__ == "__main__":
    raise SystemExit(main())
