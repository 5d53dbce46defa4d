"""Benchmark: ``dprank rank`` end to end on a large comparison file, against its floor.

Writes (once, then reuses) a file of ``--rows`` comparisons ``winner,loser`` among
``--items`` items, scores spread over 4 logits, winners drawn from BTL. Each row is
a uniformly random pair, or, with ``--edges E``, one of ``E`` fixed random pairs
(a league where the same opponents meet again: the distinct pairs stay at ``E``
however many rows). Then, on one core and interleaved round by round, it runs in
new processes:

* the floor: reading the same file with pandas (``pd.read_csv`` or
  ``pd.read_parquet``) in a fresh interpreter;
* the whole command as a user runs it (start-up, reading and validation, the fit,
  writing the ranking and its sidecar), with the installed ``dprank`` (or the
  one on ``PYTHONPATH``);
* with ``--intervals LEVEL``, the same command with ``--intervals LEVEL`` (the fast form
  is chosen automatically at this scale), its time against the run without and the
  target of issue 46: at most twice the run without intervals plus 20 s;
* with ``--baseline SRC``, the same command with another source tree first on
  the path (e.g. the main branch: ``git archive main src | tar -x -C /tmp/old``,
  then ``--baseline /tmp/old/src``); both outputs must be byte-identical.

It prints the best wall time and the peak memory (``ru_maxrss`` of each child) of
each, their ratios, and the file's size. ``--stages`` adds the command's profile:
one fresh process doing its stages one after the other (imports, reading and
validation, the components, loading the compiled loops (C, or numba), the fit, writing),
with the time, resident memory and peak after each. ``--first-run`` adds the first run after
``make setup`` against a warm run: a fresh numba cache directory filled by
``python -m dprank._sparse_kernels`` (what ``make setup`` runs), then the command
twice; and, for scale, the command on an empty cache (what a first run would cost
without that step). Run::

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python benchmarks/bench_cli.py \\
        [--rows 2500000] [--items 100000] [--edges 0] [--format csv|parquet] \\
        [--privacy none] [--method mle] [--baseline /tmp/old/src] [--first-run] [--stages]
        [--intervals 0.95]

Timings depend on the machine and its load (run ``uptime`` beside it); only
ratios from one run mean much. Nothing here is asserted in the tests.
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
    "NUMBA_NUM_THREADS": "1",
}
_CHUNK = 5_000_000


def make_file(path: Path, rows: int, items: int, edges: int = 0, seed: int = 2026) -> None:
    """A BTL comparison file (random pairs, or rows over ``edges`` fixed pairs), CSV or Parquet."""
    import pyarrow as pa
    import pyarrow.csv as pcsv
    import pyarrow.parquet as pq

    rng = np.random.default_rng(seed)
    theta = np.linspace(2.0, -2.0, items)[rng.permutation(items)]
    if edges:
        ea = rng.integers(0, items, edges)
        eb = (ea + rng.integers(1, items, edges)) % items
    tmp = path.with_suffix(".tmp")
    parquet = path.suffix == ".parquet"
    schema = pa.schema([("winner", pa.int64()), ("loser", pa.int64())])
    writer = pq.ParquetWriter(tmp, schema) if parquet else open(tmp, "wb")
    try:
        if not parquet:
            writer.write(b"winner,loser\n")
        for start in range(0, rows, _CHUNK):
            k = min(_CHUNK, rows - start)
            if edges:
                e = rng.integers(0, edges, k)
                a, b = ea[e], eb[e]
            else:
                a = rng.integers(0, items, k)
                b = (a + rng.integers(1, items, k)) % items  # b != a
            first = rng.random(k) < 1.0 / (1.0 + np.exp(-(theta[a] - theta[b])))
            table = pa.table([np.where(first, a, b), np.where(first, b, a)], schema=schema)
            if parquet:
                writer.write_table(table)
            else:
                pcsv.write_csv(table, writer, pcsv.WriteOptions(include_header=False))
    finally:
        writer.close()
    os.replace(tmp, path)


def run_child(cmd: list[str], env: dict) -> tuple[float, float]:
    """Wall time (s) and peak resident memory (MB) of one child process."""
    if _has_taskset():
        cmd = ["taskset", "-c", "0", *cmd]
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode:
        raise SystemExit(f"{' '.join(cmd)} failed with exit code {proc.returncode}")
    return wall, usage.ru_maxrss / 1024.0


def _has_taskset() -> bool:
    from shutil import which

    return which("taskset") is not None


def _env(pythonpath: str | None = None, **extra) -> dict:
    env = {**os.environ, **ONE_CORE, **extra}
    if pythonpath is not None:
        env["PYTHONPATH"] = pythonpath
    return env


def _summary(name: str, runs: list[tuple[float, float]]) -> tuple[float, float]:
    wall = min(w for w, _ in runs)
    peak = max(m for _, m in runs)
    walls = ", ".join(f"{w:.2f}" for w, _ in runs)
    print(f"  {name:<34} best {wall:6.2f} s (all {walls}), peak {peak:6.0f} MB")
    return wall, peak


_STAGES = r"""
import sys, time
t0 = last = time.perf_counter()
def mark(name):
    global last
    now = time.perf_counter()
    with open("/proc/self/status") as fh:
        kb = {k: v.split()[0] for k, v in (x.split(":", 1) for x in fh) if v.endswith("kB\n")}
    print(f"  {name:<34} {now - last:6.2f} s (at {now - t0:5.2f} s), "
          f"resident {int(kb['VmRSS']) / 1024:5.0f} MB, peak {int(kb['VmHWM']) / 1024:5.0f} MB")
    last = time.perf_counter()
from pathlib import Path
import numpy as np
from dprank import cli
from dprank.api import rank
from dprank.inputs import read_comparisons
mark("imports: numpy, dprank")
c = read_comparisons(sys.argv[1]).comparisons
mark("reading and validation")
c.components()
mark("connected components")
from dprank.comparisons import Comparisons
from dprank.sparse import SparseData, sparse_newton
tiny = Comparisons.from_winner_loser([0, 1, 2, 0], [1, 2, 0, 3])
sparse_newton(SparseData(tiny), 2.0)  # loads the C loops (or numba and its cached kernels)
mark("compiled loops: load (C, or numba)")
ranking = rank(c, privacy=sys.argv[2])
mark("the fit (dprank.rank)")
from dprank._cli_output import _columns_writer
_columns_writer(ranking.columns())(Path(sys.argv[3]))
mark("writing the ranking")
"""


def stages(data: Path, privacy: str, out: str) -> None:
    """The command's stages in one fresh process, with the time and memory after each."""
    print(f"stages of one run (fresh process, --privacy {privacy}):")
    cmd = [sys.executable, "-c", _STAGES, str(data), privacy, out]
    if _has_taskset():
        cmd = ["taskset", "-c", "0", *cmd]
    subprocess.run(cmd, env=_env(), check=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=2_500_000)
    parser.add_argument("--items", type=int, default=100_000)
    parser.add_argument("--edges", type=int, default=0, help="fixed pairs the rows repeat")
    parser.add_argument("--format", choices=("csv", "parquet"), default="csv")
    parser.add_argument("--privacy", default="none")
    parser.add_argument("--method", default="mle")
    parser.add_argument("--epsilon", default="1")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--data", type=Path, help="where to keep the generated file")
    parser.add_argument("--baseline", help="another dprank source tree (its src folder)")
    parser.add_argument("--first-run", action="store_true", help="first run after make setup")
    parser.add_argument("--no-floor", action="store_true", help="skip the pandas reading")
    parser.add_argument("--stages", action="store_true", help="time and memory of each stage")
    parser.add_argument(
        "--intervals", metavar="LEVEL", help="also the command with --intervals LEVEL"
    )
    args = parser.parse_args()
    os.environ.update(ONE_CORE)

    folder = args.data or Path(tempfile.gettempdir())
    stem = f"bench_cli_{args.rows}x{args.items}" + (f"e{args.edges}" if args.edges else "")
    data = folder / f"{stem}.{args.format}"
    if not data.exists():
        t0 = time.perf_counter()
        make_file(data, args.rows, args.items, args.edges)
        print(f"wrote {data} in {time.perf_counter() - t0:.1f} s")
    size_mb = data.stat().st_size / 2**20
    py = sys.executable
    read = "read_parquet" if args.format == "parquet" else "read_csv"
    floor = [py, "-c", f"import pandas as pd; pd.{read}({str(data)!r})"]

    with tempfile.TemporaryDirectory() as out:

        def command(tag: str, seed_option: tuple[str, ...] = ()) -> list[str]:
            cmd = [py, "-m", "dprank", "rank", str(data), "--privacy", args.privacy]
            cmd += ["--method", args.method, *seed_option, "--quiet"]
            if args.privacy in ("edge", "individual"):
                cmd += ["--epsilon", args.epsilon]
            if args.privacy == "individual":
                cmd += ["--max-per-user", "1000000"]
            return [*cmd, "--out", str(Path(out) / f"{tag}.csv")]

        # a release draws fresh noise from the operating system (no seed); a baseline tree
        # older than the secure releases is given the --seed it then took
        old_seed = ("--seed", "1") if args.privacy != "none" else ()
        low = command("low")
        contenders = [
            ("dprank rank", command("new"), _env()),
            ("dprank rank --low-memory", [*low[:-2], "--low-memory", *low[-2:]], _env()),
        ]
        if args.intervals:
            iv = command("iv")
            contenders.append(
                (f"dprank rank --intervals {args.intervals}",
                 [*iv[:-2], "--intervals", args.intervals, *iv[-2:]], _env())
            )  # fmt: skip
        if args.baseline:
            contenders.append(("baseline", command("old", old_seed), _env(args.baseline)))
        if not args.no_floor:
            contenders.insert(0, (f"pandas {read}, fresh process", floor, _env()))
        runs: dict[str, list] = {name: [] for name, _, _ in contenders}
        for _ in range(args.repeats):
            for name, cmd, env in contenders:
                runs[name].append(run_child(cmd, env))
        print(
            f"{data.name}: {args.rows} rows, {args.items} items, {size_mb:.1f} MiB; "
            f"dprank rank --privacy {args.privacy} --method {args.method}; "
            f"one core, best of {args.repeats}, interleaved"
        )
        best = {name: _summary(name, r) for name, r in runs.items()}
        wall, peak = best["dprank rank"]
        if not args.no_floor:
            fw = best[f"pandas {read}, fresh process"][0]
            print(f"  command / pandas floor: {wall / fw:.2f}x")
        print(f"  peak memory / file size: {peak / size_mb:.1f}x")
        low_wall, low_peak = best["dprank rank --low-memory"]
        if args.privacy == "none":
            low_same = (Path(out) / "low.csv").read_bytes() == (Path(out) / "new.csv").read_bytes()
            print(f"  --low-memory ranking byte-identical to the default's: {low_same}")
        if not args.no_floor:
            print(
                f"  with --low-memory: {low_wall / fw:.2f}x the floor, "
                f"{low_peak / size_mb:.1f}x the file in memory"
            )
        if args.intervals:
            iw, ip = best[f"dprank rank --intervals {args.intervals}"]
            print(
                f"  with --intervals {args.intervals}: {iw:.2f} s = {iw / wall:.2f}x the run "
                f"without; target 2 x {wall:.2f} + 20 = {2 * wall + 20:.2f} s: "
                f"{'met' if iw <= 2 * wall + 20 else 'NOT met'}; peak memory {ip / peak:.2f}x"
            )
        if args.baseline:
            bw, bp = best["baseline"]
            print(f"  baseline / command: time {bw / wall:.2f}x, peak memory {bp / peak:.2f}x")
            if args.privacy == "none":  # releases draw fresh noise: nothing to compare
                same = (Path(out) / "new.csv").read_bytes() == (Path(out) / "old.csv").read_bytes()
                print(f"  rankings byte-identical: {same}")
                if not same:
                    raise SystemExit("the rankings differ")

        if args.first_run:
            with tempfile.TemporaryDirectory() as cache:
                env = _env(NUMBA_CACHE_DIR=cache)
                setup = run_child([py, "-m", "dprank._sparse_kernels"], env)
                first = run_child(command("first"), env)
                warm = min(run_child(command("warm"), env) for _ in range(2))
            with tempfile.TemporaryDirectory() as cache:
                cold = run_child(command("cold"), _env(NUMBA_CACHE_DIR=cache))
            print(f"  make setup's kernel compilation: {setup[0]:.2f} s")
            print(
                f"  first run after setup {first[0]:.2f} s, warm run {warm[0]:.2f} s: "
                f"{first[0] / warm[0]:.2f}x (on an empty cache: {cold[0]:.2f} s)"
            )

    if args.stages and args.privacy in ("none", "edge"):
        with tempfile.TemporaryDirectory() as out:
            stages(data, args.privacy, str(Path(out) / "stages.csv"))

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
    c = table.comparisons
    print(
        f"  in process: reading and validation {t_read:.2f} s "
        f"({c.pair_statistics().n_pairs} distinct pairs, summed while reading: "
        f"{table.aggregated}), components and fit {t_fit:.2f} s"
    )


if __name__ == "__main__":
    main()
