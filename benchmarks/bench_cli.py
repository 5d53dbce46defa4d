"""Benchmark: ``dprank rank`` end to end on a 2.5-million-row file of 10^5 items.

Writes (once, then reuses) a CSV of ``--rows`` comparisons ``winner,loser`` among
``--items`` items: each row a uniformly random pair, the winner drawn from BTL
with scores spread over 4 logits (mean degree 50 distinct opponents). Then it
times, on one core, the whole command as a user runs it (a new process: start-up,
reading and validating the file, the fit, writing the ranking and its sidecar)
and, in this process, the reading and the fit separately. Run::

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python benchmarks/bench_cli.py \
        [--rows 2500000] [--items 100000] [--privacy edge] [--method mle] \
        [--baseline OTHER_CHECKOUT/src]

``--baseline`` times the same command with another source tree first on
``PYTHONPATH`` (for example a ``git worktree`` of an older commit), the two
interleaved repeat by repeat, and prints the ratio of the best times.

The target (issue 18) is under 10 s for the whole command on one core. Timings
depend on the machine and its load (run ``uptime`` beside it); nothing here is
asserted in the tests.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ONE_CORE = {
    "OMP_NUM_THREADS": "1",
    "OPENBLAS_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
}


def make_file(path: Path, rows: int, items: int, seed: int = 2026) -> None:
    """A BTL comparison file (uniform random pairs, scores over 4 logits)."""
    rng = np.random.default_rng(seed)
    theta = np.linspace(2.0, -2.0, items)[rng.permutation(items)]
    a = rng.integers(0, items, rows)
    b = (a + rng.integers(1, items, rows)) % items  # b != a
    first = rng.random(rows) < 1.0 / (1.0 + np.exp(-(theta[a] - theta[b])))
    winner, loser = np.where(first, a, b), np.where(first, b, a)
    tmp = path.with_suffix(".tmp")
    with open(tmp, "w") as fh:
        fh.write("winner,loser\n")
        np.savetxt(fh, np.column_stack([winner, loser]), fmt="%d", delimiter=",")
    os.replace(tmp, path)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=2_500_000)
    parser.add_argument("--items", type=int, default=100_000)
    parser.add_argument("--privacy", default="edge")
    parser.add_argument("--method", default="mle")
    parser.add_argument("--epsilon", default="1")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--data", type=Path, help="where to keep the generated file")
    parser.add_argument(
        "--baseline", type=Path, help="a src/ folder of another checkout to time side by side"
    )
    args = parser.parse_args()
    os.environ.update(ONE_CORE)

    folder = args.data or Path(tempfile.gettempdir())
    data = folder / f"bench_cli_{args.rows}x{args.items}.csv"
    if not data.exists():
        t0 = time.perf_counter()
        make_file(data, args.rows, args.items)
        print(
            f"wrote {data} ({data.stat().st_size / 1e6:.0f} MB) in {time.perf_counter() - t0:.1f} s"
        )
    cmd = [sys.executable, "-m", "dprank", "rank", str(data), "--privacy", args.privacy]
    cmd += ["--method", args.method, "--quiet"]
    if args.privacy in ("edge", "individual"):
        cmd += ["--epsilon", args.epsilon]
    if args.privacy == "individual":
        cmd += ["--max-per-user", "1000000"]
    trees = {"this checkout": None}
    if args.baseline is not None:
        trees["baseline " + str(args.baseline)] = args.baseline.resolve()
    walls: dict[str, list[float]] = {name: [] for name in trees}
    with tempfile.TemporaryDirectory() as out:
        cmd += ["--out", str(Path(out) / "ranking.csv")]
        for _ in range(args.repeats):
            for name, src in trees.items():
                env = {**os.environ, **ONE_CORE}
                if src is not None:
                    env["PYTHONPATH"] = str(src)
                t0 = time.perf_counter()
                subprocess.run(
                    ["taskset", "-c", "0", *cmd] if _has_taskset() else cmd, check=True, env=env
                )
                walls[name].append(time.perf_counter() - t0)
    print(f"dprank rank ({args.privacy}, {args.method}), {args.rows} rows, {args.items} items:")
    for name, w in walls.items():
        times = ", ".join(f"{x:.2f}" for x in w)
        print(f"  whole command, {name}: best {min(w):.2f} s, all {times}")
    if args.baseline is not None:
        best = [min(w) for w in walls.values()]
        print(f"  ratio this / baseline (best times): {best[0] / best[1]:.2f}")

    from dprank.api import rank
    from dprank.inputs import read_comparisons

    t0 = time.perf_counter()
    table = read_comparisons(data)
    t_read = time.perf_counter() - t0
    t0 = time.perf_counter()
    eps = float(args.epsilon) if args.privacy in ("edge", "individual") else None
    bound = {"max_per_user": 1_000_000} if args.privacy == "individual" else {}
    rank(table.comparisons, privacy=args.privacy, epsilon=eps, method=args.method, **bound)
    t_fit = time.perf_counter() - t0
    print(f"  in process: reading and validation {t_read:.2f} s, fit {t_fit:.2f} s")


def _has_taskset() -> bool:
    from shutil import which

    return which("taskset") is not None


if __name__ == "__main__":
    main()
