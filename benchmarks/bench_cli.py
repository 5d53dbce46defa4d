"""Benchmark: ``dprank rank`` end to end against the fastest reader of the same file.

Writes (once, then reuses) files of ``--rows`` comparisons ``winner,loser`` among
``--items`` items, scores spread over 4 logits, winners drawn from BTL: integer
labels (``--labels int``) or text labels ``item-0012345`` (``--labels str``), each
row a uniformly random pair or, with ``--edges E``, one of ``E`` fixed pairs (a
league). Then, on one core (``taskset -c 0``, one thread each) and interleaved
round by round, it runs in fresh processes:

* the peers: reading the file with pandas (``read_csv``), pyarrow
  (``pyarrow.csv.read_csv``) and polars (``read_csv``), import included;
* the whole command as a user runs it (start-up, reading and validation, the
  fit, writing the ranking and its record), from the installed ``dprank``;
* with ``--intervals LEVEL``, the same command with ``--intervals LEVEL`` (the fast
  form is chosen automatically at this scale): its CPU time against the run without and
  the target of issue 46, at most twice the run without intervals plus 20 s (``--privacy
  edge``: Algorithm 1, a Laplace mechanism; ``--top-k K``: both runs with it, the intervals'
  with ``p_top_k``);
* with ``--baseline SRC``, the same command with another source tree first on
  the path (``git archive main src | tar -x -C /tmp/old``), and with ``--intervals``
  that run too; the rankings must be byte-identical (``--privacy none``), and with
  ``--seed S`` (every run with ``--insecure-seed S``) the whole outputs, ranking.csv
  and ranking.json, the intervals' included.

``--privacy individual`` writes a ``user`` column (``--max-per-user L`` consecutive
rows each, declared as ``--max-per-user L``; the items declared with ``--items-from-data``).

dprank's bytecode (and the baseline's) is compiled first, as ``pip install`` compiles an
installed package's and as the peers have theirs. For each file it prints the CPU
seconds (user + system, the least noisy measure on a shared machine; best of
``--repeats``) and wall seconds of each, the peak resident memory, the ratio of the
command to the fastest peer and its peak to the file's size. ``--slope
250000,2500000,25000000,50000000`` also times the command alone at those row counts and
prints the least-squares slope of log(time) on log(rows) (1: linear). ``--markdown
FILE`` writes the results as the Markdown table the documentation includes
(``docs/includes/``). ``--quick`` is the profile CI runs against the installed wheel (a
small file, one repeat, no files kept; under a minute): it checks that the compiled part
is loaded from the installed package. Run::

    python benchmarks/bench_cli.py --rows 2500000 --labels int --repeats 3
    python benchmarks/bench_cli.py --rows 25000000 --labels str --repeats 2
    python benchmarks/bench_cli.py --slope 250000,2500000,25000000,50000000 --no-peers
    python benchmarks/bench_cli.py --quick
    python benchmarks/bench_cli.py --rows 2500000 --items 100000 --no-peers --intervals 0.95
    python benchmarks/bench_cli.py --rows 2500000 --items 100000 --no-peers --privacy edge \
        --intervals 0.95 --top-k 10
    python benchmarks/bench_cli.py --rows 2500000 --items 100000 --no-peers --privacy edge \
        --intervals 0.95 --top-k 10 --seed 7 --baseline /tmp/old/src --repeats 2
    python benchmarks/bench_cli.py --rows 2500000 --items 100000 --no-peers \
        --privacy individual --max-per-user 10 --intervals 0.95 --top-k 10

Timings depend on the machine and its load (it prints ``uptime``'s load); only
ratios from one run mean much. Nothing here is asserted in the tests.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ONE_CORE = {
    "OMP_NUM_THREADS": "1",
    "OPENBLAS_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "POLARS_MAX_THREADS": "1",
    "RAYON_NUM_THREADS": "1",
}
_CHUNK = 5_000_000
PEERS = {
    "pandas": "import pandas as pd; pd.read_csv({path!r})",
    "pyarrow": "import pyarrow.csv as c; c.read_csv({path!r})",
    "polars": "import polars as pl; pl.read_csv({path!r})",
}


def make_file(
    path: Path, rows: int, items: int, labels: str = "int", edges: int = 0, per_user: int = 0
) -> None:
    """A BTL comparison file (random pairs, or rows over ``edges`` fixed pairs), CSV; with
    ``per_user`` L a ``user`` column too (L consecutive rows each)."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.csv as pcsv

    rng = np.random.default_rng(2026)
    theta = np.linspace(2.0, -2.0, items)[rng.permutation(items)]
    names = np.array([f"item-{k:07d}" for k in range(items)]) if labels == "str" else None
    if edges:
        ea = rng.integers(0, items, edges)
        eb = (ea + rng.integers(1, items, edges)) % items
    tmp = path.with_suffix(".tmp")
    with open(tmp, "wb") as fh:
        fh.write(b"winner,loser,user\n" if per_user else b"winner,loser\n")
        for start in range(0, rows, _CHUNK):
            k = min(_CHUNK, rows - start)
            if edges:
                e = rng.integers(0, edges, k)
                a, b = ea[e], eb[e]
            else:
                a = rng.integers(0, items, k)
                b = (a + rng.integers(1, items, k)) % items  # b != a
            first = rng.random(k) < 1.0 / (1.0 + np.exp(-(theta[a] - theta[b])))
            win, lose = np.where(first, a, b), np.where(first, b, a)
            if names is not None:
                win, lose = names[win], names[lose]
            columns = {"winner": win, "loser": lose}
            if per_user:
                columns["user"] = (start + np.arange(k)) // per_user
            table = pa.table(columns)
            options = pcsv.WriteOptions(include_header=False, quoting_style="none")
            pcsv.write_csv(table, fh, options)
    os.replace(tmp, path)


def run_child(cmd: list[str], env: dict) -> tuple[float, float, float]:
    """CPU seconds (user + system), wall seconds and peak resident memory (MB) of a child."""
    if shutil.which("taskset"):
        cmd = ["taskset", "-c", "0", *cmd]
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    if os.waitstatus_to_exitcode(status):
        raise SystemExit(
            f"{' '.join(cmd)} failed with exit code {os.waitstatus_to_exitcode(status)}"
        )
    return usage.ru_utime + usage.ru_stime, wall, usage.ru_maxrss / 1024.0


def _env(pythonpath: str | None = None) -> dict:
    env = {**os.environ, **ONE_CORE}
    if pythonpath is not None:
        env["PYTHONPATH"] = pythonpath
    return env


def compile_bytecode(baseline: str | None = None) -> None:
    """The bytecode of dprank (and of ``--baseline``'s) written once before any timing, as
    ``pip install`` writes it for an installed package and as the peers have theirs: with
    ``PYTHONDONTWRITEBYTECODE`` set, an editable install would compile its sources again in
    every run (about 0.15 s)."""
    import compileall
    import importlib.util

    folders = list(importlib.util.find_spec("dprank").submodule_search_locations or [])
    if baseline is not None:
        folders.append(os.path.join(baseline, "dprank"))
    for folder in folders:
        compileall.compile_dir(folder, quiet=1)


def _command(
    path: Path,
    out: Path,
    privacy: str,
    intervals: str | None = None,
    top_k: int | None = None,
    per_user: int = 0,
    seed: int | None = None,
) -> list[str]:
    cmd = [sys.executable, "-m", "dprank", "rank", str(path), "--privacy", privacy]
    if privacy in ("edge", "individual"):
        cmd += ["--epsilon", "1"]
    if privacy == "individual":
        cmd += ["--max-per-user", str(per_user), "--items-from-data"]
    if seed is not None:
        cmd += ["--insecure-seed", str(seed)]
    if top_k is not None:
        cmd += ["--top-k", str(top_k)]
    if intervals is not None:
        cmd += ["--intervals", intervals]
    return [*cmd, "--out", str(out), "--quiet"]


def _available_peers() -> list[str]:
    import importlib.util

    return [name for name in PEERS if importlib.util.find_spec(name) is not None]  # no import


def measure(path: Path, args, peers: list[str]) -> dict:
    """Interleaved rounds of the peers and the command on one file: the best of each."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        contenders = {name: ([sys.executable, "-c", PEERS[name].format(path=str(path))], _env())
                      for name in peers}  # fmt: skip
        top_k = getattr(args, "top_k", None)
        seed = getattr(args, "seed", None)
        extra = {"per_user": _per_user(args), "seed": seed}

        def target(name: str) -> Path:  # one folder each: the same file name in every record
            (out / name).mkdir()
            return out / name / "ranking.csv"

        contenders["dprank rank"] = (
            _command(path, target("new"), args.privacy, top_k=top_k, **extra),
            _env(),
        )
        intervals = getattr(args, "intervals", None)
        if intervals:
            contenders["--intervals"] = (
                _command(path, target("iv"), args.privacy, intervals, top_k, **extra),
                _env(),
            )
        if args.baseline:
            contenders["baseline"] = (
                _command(path, target("old"), args.privacy, top_k=top_k, **extra),
                _env(args.baseline),
            )
            if intervals:
                contenders["baseline --intervals"] = (
                    _command(path, target("old_iv"), args.privacy, intervals, top_k, **extra),
                    _env(args.baseline),
                )
        runs: dict[str, list] = {name: [] for name in contenders}
        for _ in range(args.repeats):
            for name, (cmd, env) in contenders.items():
                runs[name].append(run_child(cmd, env))
        same = None
        if args.baseline and (args.privacy == "none" or seed is not None):
            pairs = [("new", "old")] + ([("iv", "old_iv")] if intervals else [])
            files = ("ranking.csv", "ranking.json") if seed is not None else ("ranking.csv",)
            same = all(
                (out / a / f).read_bytes() == (out / b / f).read_bytes()
                for a, b in pairs
                for f in files
            )
    size = path.stat().st_size / 2**20
    best = {
        name: {
            "cpu": min(r[0] for r in rs),
            "wall": min(r[1] for r in rs),
            "peak": max(r[2] for r in rs),
            "cpu_all": [round(r[0], 2) for r in rs],
        }
        for name, rs in runs.items()
    }
    result = {"file": path.name, "size_mib": size, "runs": best, "baseline_same": same}
    result["compared"] = "outputs (csv and json)" if seed is not None else "rankings"
    if peers:
        fastest = min(peers, key=lambda name: best[name]["cpu"])
        result["fastest"] = fastest
        result["ratio"] = best["dprank rank"]["cpu"] / best[fastest]["cpu"]
    result["memory_ratio"] = best["dprank rank"]["peak"] / size
    if intervals:
        plain, iv = best["dprank rank"]["cpu"], best["--intervals"]["cpu"]
        result["intervals"] = {
            "level": intervals,
            "ratio": iv / plain,
            "target": 2 * plain + 20,
            "met": iv <= 2 * plain + 20,
            "share_of_target": iv / (2 * plain + 20),
        }
        if "baseline --intervals" in best:
            result["intervals"]["baseline_share_of_target"] = best["baseline --intervals"][
                "cpu"
            ] / (2 * plain + 20)
    return result


def report(result: dict, rows: int, labels: str) -> None:
    print(f"{result['file']}: {rows} rows, {labels} labels, {result['size_mib']:.1f} MiB")
    for name, r in result["runs"].items():
        print(
            f"  {name:<12} cpu {r['cpu']:6.2f} s (all {', '.join(map(str, r['cpu_all']))}), "
            f"wall {r['wall']:6.2f} s, peak {r['peak']:6.0f} MB"
        )
    if "ratio" in result:
        print(f"  dprank rank / fastest reader ({result['fastest']}): {result['ratio']:.2f}x CPU")
    print(f"  peak memory / file size: {result['memory_ratio']:.1f}x")
    if "intervals" in result:
        iv = result["intervals"]
        print(
            f"  with --intervals {iv['level']}: {iv['ratio']:.2f}x the CPU of the run without; "
            f"target 2 x without + 20 s = {iv['target']:.2f} s: "
            f"{'met' if iv['met'] else 'NOT met'} ({iv['share_of_target']:.2f} of it"
            + (
                f"; the baseline's {iv['baseline_share_of_target']:.2f})"
                if "baseline_share_of_target" in iv
                else ")"
            )
        )
    if result["baseline_same"] is not None:
        print(f"  {result['compared']} byte-identical to the baseline's: {result['baseline_same']}")


def slope(sizes: list[int], args, folder: Path) -> dict:
    """The command's CPU time at each row count, less its start-up (the time on a file of
    1 000 rows), and the slope of log(time) on log(rows) of what is left (1: linear)."""

    def cpu(rows: int) -> float:
        path = _data(folder, rows, args)
        with tempfile.TemporaryDirectory() as tmp:
            cmd = _command(path, Path(tmp) / "r.csv", args.privacy)
            return min(run_child(cmd, _env())[0] for _ in range(args.repeats))

    start_up = cpu(1_000)
    print(f"  start-up (a file of 1000 rows): {start_up:.2f} s CPU", flush=True)
    times = []
    for rows in sizes:
        times.append(cpu(rows))
        work = times[-1] - start_up
        print(
            f"  {rows:>10} rows: {times[-1]:7.2f} s CPU, {work:7.2f} s beyond start-up, "
            f"{1e6 * work / rows:6.3f} us a row",
            flush=True,
        )
    x = [math.log(n) for n in sizes]
    y = [math.log(max(t - start_up, 1e-6)) for t in times]
    mx, my = sum(x) / len(x), sum(y) / len(y)
    fit = sum((a - mx) * (b - my) for a, b in zip(x, y, strict=True)) / sum(
        (a - mx) ** 2 for a in x
    )
    span = f"{sizes[0]} to {sizes[-1]} rows"
    print(f"  slope of log(time beyond start-up) on log(rows), {span}: {fit:.2f}", flush=True)
    return {"rows": sizes, "cpu": times, "start_up": start_up, "slope": fit}


def _per_user(args) -> int:
    """Comparisons per user of an ``--privacy individual`` file (0: no user column)."""
    return int(getattr(args, "max_per_user", 0) or 0) if args.privacy == "individual" else 0


def _data(folder: Path, rows: int, args) -> Path:
    stem = f"bench_cli_{rows}x{args.items}_{args.labels}" + (f"e{args.edges}" if args.edges else "")
    stem += f"u{_per_user(args)}" if _per_user(args) else ""
    path = folder / f"{stem}.csv"
    if not path.exists():  # written by a child: this process stays small (its children's
        t0 = time.perf_counter()  # peak memory counts the parent's until they exec)
        spec = [str(path), str(rows), str(args.items), args.labels, str(args.edges)]
        spec.append(str(_per_user(args)))
        subprocess.run([sys.executable, __file__, "--write", *spec], check=True)
        print(f"wrote {path} in {time.perf_counter() - t0:.1f} s", flush=True)
    return path


def write_includes(folder: Path, saved: dict, command: str) -> list[Path]:
    """The saved results as the tables of ``docs/includes/`` (first line: the command)."""
    from dprank_papers.docs_includes import benchmark_header, markdown_table

    written = []
    files = sorted(saved.get("files", []), key=lambda r: (r["labels"], r["rows"]))
    if files:
        rows = []
        for r in files:
            dp = r["runs"]["dprank rank"]
            fastest = r.get("fastest")
            peer = r["runs"][fastest]["cpu"] if fastest else float("nan")
            rows.append([
                f"{r['rows'] / 1e6:g} M", r["labels"], f"{r['size_mib']:.1f} MiB",
                f"{dp['cpu']:.2f} s", f"{fastest}: {peer:.2f} s", f"{r.get('ratio', 0):.2f}x",
                f"{dp['peak']:.0f} MB", f"{r['memory_ratio']:.1f}x", f"{r['load']:.1f}",
            ])  # fmt: skip
        header = ["rows", "labels", "file", "`dprank rank` CPU", "fastest reader CPU",
                  "ratio", "peak memory", "peak / file", "load"]  # fmt: skip
        path = folder / "performance_reading.md"
        note = "one core, best of the rounds; the commands: docs/performance.md"
        path.write_text(benchmark_header(command, note) + markdown_table(header, rows, "llrrrrrrr"))
        written.append(path)
    if saved.get("slope"):
        sl = saved["slope"]
        t0 = sl["start_up"]
        rows = [["1000 (start-up)", f"{t0:.2f} s", "-", "-"]]
        rows += [
            [f"{n / 1e6:g} M", f"{t:.2f} s", f"{t - t0:.2f} s", f"{1e6 * (t - t0) / n:.3f} us"]
            for n, t in zip(sl["rows"], sl["cpu"], strict=True)
        ]
        rows.append(["slope of log(time beyond start-up) on log(rows)", "-", f"{sl['slope']:.2f}",
                     "1 is linear"])  # fmt: skip
        path = folder / "performance_slope.md"
        header = ["rows", "`dprank rank` CPU", "beyond start-up", "per row"]
        note = "one core, best of the rounds"
        path.write_text(benchmark_header(command, note) + markdown_table(header, rows, "lrrr"))
        written.append(path)
    return written


def quick() -> int:
    """CI's profile: a small file, one round, the compiled part of the installed package."""
    check = (
        "from dprank.base import _compiled; lib = _compiled.library_path(); _compiled.lib(); "
        "print(f'compiled part: {lib}')"
    )
    subprocess.run([sys.executable, "-c", check], check=True)  # fails where it is missing
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        args = argparse.Namespace(
            items=10_000, labels="int", edges=0, privacy="none", repeats=1, baseline=None,
            intervals=None, seed=None,
        )  # fmt: skip
        for labels in ("int", "str"):
            args.labels = labels
            path = _data(folder, 250_000, args)
            result = measure(path, args, _available_peers())
            report(result, 250_000, labels)
    return 0


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--write"]:  # a child writing a data file
        path, rows, items, labels, edges, per_user = argv[1:]
        make_file(Path(path), int(rows), int(items), labels, int(edges), int(per_user))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=2_500_000)
    parser.add_argument("--items", type=int, default=100_000)
    parser.add_argument("--labels", choices=("int", "str"), default="int")
    parser.add_argument("--edges", type=int, default=0, help="fixed pairs the rows repeat")
    parser.add_argument("--privacy", choices=("none", "edge", "individual"), default="none")
    parser.add_argument(
        "--max-per-user",
        type=int,
        default=10,
        metavar="L",
        help="--privacy individual: a user column of L consecutive rows each, declared as "
        "--max-per-user L (the items declared public with --items-from-data)",
    )
    parser.add_argument(
        "--seed",
        type=int,
        metavar="S",
        help="every run with --insecure-seed S: with --baseline, the outputs (csv and json, "
        "with --intervals too) must be byte-identical",
    )
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--data", type=Path, help="where to keep the generated files")
    parser.add_argument("--keep", action="store_true", help="keep files of 10 M rows and more")
    parser.add_argument("--baseline", help="another dprank source tree (its src folder)")
    parser.add_argument("--no-peers", action="store_true", help="time the command alone")
    parser.add_argument(
        "--intervals", metavar="LEVEL", help="also the command with --intervals LEVEL"
    )
    parser.add_argument(
        "--top-k", type=int, metavar="K", help="both runs with --top-k K (p_top_k with intervals)"
    )
    parser.add_argument("--slope", help="row counts for the slope, e.g. 250000,2500000,25000000")
    parser.add_argument("--quick", action="store_true", help="CI's short profile")
    parser.add_argument("--json", type=Path, help="add the results to this JSON file")
    parser.add_argument(
        "--markdown",
        type=Path,
        help="write the --json file's results as the docs' tables into this folder",
    )
    args = parser.parse_args(argv)
    os.environ.update(ONE_CORE)
    compile_bytecode(args.baseline)
    if args.quick:
        return quick()
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"# one core (taskset -c 0), best of {args.repeats}, interleaved; load {load:.2f}")
    folder = args.data or Path(tempfile.gettempdir())
    results, slopes = [], None
    if args.slope:
        slopes = slope([int(x) for x in args.slope.split(",")], args, folder)
    else:
        path = _data(folder, args.rows, args)
        result = measure(path, args, [] if args.no_peers else _available_peers())
        result.update(rows=args.rows, labels=args.labels, load=load)
        report(result, args.rows, args.labels)
        results.append(result)
    if args.json:
        saved = json.loads(args.json.read_text()) if args.json.exists() else {"files": []}
        saved["files"] = [
            r for r in saved["files"] if (r["rows"], r["labels"]) not in
            {(x["rows"], x["labels"]) for x in results}
        ] + results  # fmt: skip
        if slopes:
            saved["slope"] = slopes
        args.json.write_text(json.dumps(saved, indent=1) + "\n")
    if args.markdown:
        saved = json.loads(args.json.read_text()) if args.json else {"files": results}
        if slopes and not args.json:
            saved["slope"] = slopes
        command = "python benchmarks/bench_cli.py --json benchmarks/results/bench_cli.json"
        command += f" --markdown {args.markdown}"
        for path in write_includes(args.markdown, saved, command):
            print(f"wrote {path}")
    if slopes is not None and not math.isfinite(slopes["slope"]):
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
