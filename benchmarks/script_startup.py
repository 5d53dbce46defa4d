"""Start-up of every workflow script: the time before its first line of work.

For each ``scripts/*.py`` runs, in a fresh interpreter, Snakemake's script preamble import
(``snakemake.script``) and the script's own module-level imports, exactly as written, and
prints the best wall time of ``--repeat`` runs. With ``--compare SRC`` the same imports
are also timed against another copy of the library (``SRC``, e.g. the ``src`` folder of a
``git worktree`` of an older commit), interleaved run by run::

    python benchmarks/script_startup.py [--compare ../old/src] [--repeat 3] [NAME ...]

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


def start_up(code: str, src: Path) -> float:
    """Wall seconds of a fresh interpreter running ``code`` with ``src`` first on the path."""
    t0 = time.perf_counter()
    # the environment the workflow gives its jobs (common.smk): one BLAS thread, malloc reuse
    env = {"PYTHONPATH": str(src), "PATH": "/usr/bin", "OPENBLAS_NUM_THREADS": "1"}
    subprocess.run([sys.executable, "-c", code], check=True, env={**env, **MALLOC_TUNING})
    return time.perf_counter() - t0


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


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", help="script names (default: all of scripts/)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per script (best kept)")
    parser.add_argument("--compare", type=Path, help="another library source folder")
    parser.add_argument(
        "--floor", action="store_true", help="time the stack's own imports instead (no dprank)"
    )
    args = parser.parse_args(argv)
    if args.floor:
        floor(args.repeat)
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
