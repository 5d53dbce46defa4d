"""Start-up of every workflow script: the time before its first line of work.

For each ``scripts/*.py`` runs, in a fresh interpreter, Snakemake's script preamble import
(``snakemake.script``) and the script's own module-level imports, exactly as written, and
prints the best wall time and the best CPU time (user + system, the steadier measure on a
shared machine) of ``--repeat`` runs, and their sums over the scripts. With ``--compare SRC``
the same imports are also timed against another copy of the library (``SRC``, e.g. the
``src`` folder of a ``git worktree`` of an older commit), interleaved run by run::

    python benchmarks/script_startup.py [--compare ../old/src] [--repeat 3] [NAME ...]

``--tree DIR`` compares with another checkout as a whole instead: its own ``scripts/``
(each with the imports written there, so that a checkout from before a module moved
compares too), its own ``src`` and the Python of its ``.venv`` (``--tree-python`` for
another). Scripts are matched by name; the sums cover the scripts both checkouts have::

    python benchmarks/script_startup.py --tree ../old --repeat 5

``--floor`` prints instead what the stack costs before any of dprank: an empty interpreter,
Snakemake's preamble import, then numpy, pandas and matplotlib's pyplot added one by one
(the least a job that needs them can start in)::

    python benchmarks/script_startup.py --floor

The job's work (reading inputs, the mathematics, writing outputs) is not included; a
run's ``benchmarks/job_startup.py`` gives the split of whole jobs instead.
"""

from __future__ import annotations

import argparse
import ast
import os
import subprocess
import sys
import time
from pathlib import Path

from dprank_papers.workflow import MALLOC_TUNING

ROOT = Path(__file__).resolve().parents[1]


def import_code(script: Path) -> str:
    """The preamble's import and every module-level import statement of ``script``."""
    lines = ["import snakemake.script"]
    for node in ast.parse(script.read_text()).body:
        if isinstance(node, ast.Import) or (
            isinstance(node, ast.ImportFrom) and node.module != "__future__"
        ):
            lines.append(ast.unparse(node))
    return "\n".join(lines)


def run_timed(code: str, src: Path, python: str = sys.executable) -> tuple[float, float]:
    """Wall and CPU seconds (user + system) of a fresh interpreter ``python`` running ``code``
    with ``src`` first on the path."""
    # the environment the workflow gives its jobs (common.smk): one BLAS thread, malloc reuse
    env = {"PYTHONPATH": str(src), "PATH": "/usr/bin", "OPENBLAS_NUM_THREADS": "1"}
    t0 = time.perf_counter()
    proc = subprocess.Popen([python, "-c", code], env={**env, **MALLOC_TUNING})
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode:
        raise subprocess.CalledProcessError(proc.returncode, [python, "-c", code])
    return wall, usage.ru_utime + usage.ru_stime


def start_up(code: str, src: Path) -> float:
    """Wall seconds of a fresh interpreter running ``code`` with ``src`` first on the path."""
    return run_timed(code, src)[0]


#: cumulative imports timed by ``--floor``
FLOOR = {
    "python": "pass",
    "+ snakemake.script": "import snakemake.script",
    "+ numpy": "import snakemake.script, numpy",
    "+ pandas": "import snakemake.script, numpy, pandas",
    "+ matplotlib.pyplot": "import snakemake.script, numpy, pandas, matplotlib.pyplot",
}


def floor(repeat: int) -> None:
    """Best wall time of each cumulative import of :data:`FLOOR`, runs interleaved."""
    best = dict.fromkeys(FLOOR, float("inf"))
    for _ in range(repeat):
        for name, code in FLOOR.items():
            best[name] = min(best[name], start_up(code, ROOT / "src"))
    print(f"{'imports':<24}{'s':>8}  (best of {repeat})")
    for name, seconds in best.items():
        print(f"{name:<24}{seconds:>8.3f}")


def compare_trees(names: list[str], tree: Path, python: str, repeat: int) -> None:
    """Best wall and CPU seconds of every script's imports in this checkout and in ``tree``
    (its own scripts, ``src`` and ``python``), interleaved run by run; then the sums."""
    contenders = {
        "other": (tree, python),
        "this": (ROOT, sys.executable),
    }
    scripts = {
        name: {n: root / "scripts" / f"{name}.py" for n, (root, _) in contenders.items()}
        for name in names
    }
    header = "".join(f"{n + ' wall':>12}{n + ' cpu':>11}" for n in contenders)
    print(f"{'script':<30}{header}  (s, best of {repeat})")
    sums = {n: [0.0, 0.0] for n in contenders}
    for name, paths in scripts.items():
        if not all(p.is_file() for p in paths.values()):
            where = [n for n, p in paths.items() if p.is_file()]
            print(f"{name:<30}  only in {', '.join(where)}: left out of the sums")
            continue
        best = {n: [float("inf"), float("inf")] for n in contenders}
        for _ in range(repeat):
            for n, (root, exe) in contenders.items():
                wall, cpu = run_timed(import_code(paths[n]), root / "src", exe)
                best[n] = [min(best[n][0], wall), min(best[n][1], cpu)]
        for n in contenders:
            sums[n][0] += best[n][0]
            sums[n][1] += best[n][1]
        print(f"{name:<30}" + "".join(f"{b[0]:>12.3f}{b[1]:>11.3f}" for b in best.values()))
    print(f"{'sum':<30}" + "".join(f"{s[0]:>12.2f}{s[1]:>11.2f}" for s in sums.values()))
    (ow, oc), (tw, tc) = sums["other"], sums["this"]
    print(f"this / other: wall {tw / ow:.3f}, cpu {tc / oc:.3f}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", help="script names (default: all of scripts/)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per script (best kept)")
    parser.add_argument("--compare", type=Path, help="another library source folder")
    parser.add_argument(
        "--floor", action="store_true", help="time the stack's own imports instead (no dprank)"
    )
    parser.add_argument(
        "--tree", type=Path, help="another checkout: its scripts, src and .venv compared"
    )
    parser.add_argument("--tree-python", help="the Python for --tree (default: its .venv's)")
    args = parser.parse_args(argv)
    if args.floor:
        floor(args.repeat)
        return 0
    if args.tree is not None:
        tree = args.tree.resolve()
        python = args.tree_python or str(tree / ".venv" / "bin" / "python")
        if not (tree / "scripts").is_dir() or not Path(python).is_file():
            parser.error(f"--tree {args.tree}: no scripts/ there, or no Python {python}")
        names = args.names or sorted(
            {p.stem for root in (ROOT, tree) for p in (root / "scripts").glob("*.py")}
        )
        compare_trees(names, tree, python, args.repeat)
        return 0
    scripts = sorted((ROOT / "scripts").glob("*.py"))
    if args.names:
        scripts = [s for s in scripts if s.stem in args.names]
        missing = set(args.names) - {s.stem for s in scripts}
        if missing:
            parser.error(f"no such script in scripts/: {', '.join(sorted(missing))}")
    trees = {"this": ROOT / "src"}
    if args.compare is not None:
        if not (args.compare / "dprank").is_dir():
            parser.error(f"--compare {args.compare}: no dprank package there")
        trees = {"compare": args.compare.resolve(), **trees}
    print(f"{'script':<32}" + "".join(f"{name:>10}" for name in trees) + "  (s, best of "
          f"{args.repeat})")  # fmt: skip
    for script in scripts:
        code = import_code(script)
        best = dict.fromkeys(trees, float("inf"))
        for _ in range(args.repeat):
            for name, src in trees.items():
                best[name] = min(best[name], start_up(code, src))
        print(f"{script.stem:<32}" + "".join(f"{best[n]:>10.2f}" for n in trees), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
