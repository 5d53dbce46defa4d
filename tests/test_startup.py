"""Job start-up: what the workflow's scripts import before their first line of work.

docs/performance.md ("Job start-up") gives the times; these tests keep the imports that
make them from coming back: pandas (about 0.2 s) and matplotlib (about 0.3 s) only where a
script's work needs them, ``scipy.stats`` (about 0.35 s) and ``scipy.optimize`` nowhere at
start-up.
"""

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = {path.stem: path for path in sorted((ROOT / "scripts").glob("*.py"))}
#: the jobs whose work needs neither pandas nor matplotlib
ARRAY_STAGES = (
    "estimate",
    "fetch_dataset",
    "fit_paper_b",
    "privatize",
    "simulate_comparisons",
    "simulate_releases",
)
FIGURES = tuple(n for n in SCRIPTS if n.startswith("plot_") or n.endswith("_figure"))
WATCHED = ("pandas", "matplotlib", "seaborn", "scipy.stats", "scipy.optimize")


def _import_code():
    """``import_code`` of ``benchmarks/script_startup.py``: the job's preamble import and the
    script's module-level imports, as written (one parser for the benchmark and the tests)."""
    spec = importlib.util.spec_from_file_location(
        "script_startup", ROOT / "benchmarks" / "script_startup.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.import_code


import_code = _import_code()


def loaded_at_startup(names) -> set[str]:
    """Which of :data:`WATCHED` a fresh interpreter has loaded after the start-up imports of
    the scripts ``names`` (Snakemake's preamble included)."""
    code = "\n".join(import_code(SCRIPTS[name]) for name in names)
    code += f"\nimport json, sys\nprint(json.dumps([m for m in {WATCHED!r} if m in sys.modules]))"
    env = {"PYTHONPATH": str(ROOT / "src"), "PATH": "/usr/bin:/bin"}
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    return set(json.loads(out.stdout.splitlines()[-1]))


def test_the_script_lists_are_current():
    assert set(ARRAY_STAGES) <= set(SCRIPTS)
    assert len(FIGURES) >= 4


def test_array_stages_start_without_pandas_matplotlib_or_scipy_stats():
    assert loaded_at_startup(ARRAY_STAGES) == set()


@pytest.mark.parametrize("group", ["tables", "figures"])
def test_no_script_imports_scipy_stats_or_optimize_and_only_figures_matplotlib(group):
    if group == "figures":
        assert loaded_at_startup(FIGURES) & {"scipy.stats", "scipy.optimize"} == set()
    else:
        others = [name for name in SCRIPTS if name not in FIGURES]
        assert loaded_at_startup(others) <= {"pandas"}


def test_setup_compiles_the_sparse_kernels_so_a_first_fit_compiles_nothing(tmp_path):
    """``make setup`` runs ``python -m dprank._sparse_kernels``; a later process's sparse fits
    (ridge and sum-to-zero) must then load every kernel from numba's cache."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path), "DPRANK_SPARSE_BACKEND": "numba"}
    assert "_sparse_kernels" in (ROOT / "Makefile").read_text()
    warm = subprocess.run(
        [sys.executable, "-m", "dprank._sparse_kernels"], env=env, capture_output=True, text=True
    )
    assert warm.returncode == 0 and warm.stdout.startswith("compiled "), warm.stderr
    code = """
import json
import os
import numpy as np
from dprank import _sparse_kernels as k
from dprank.comparisons import Comparisons
from dprank.sparse import SparseData, sparse_newton
rng = np.random.default_rng(0)
a = rng.integers(0, 300, 3000)
b = (a + rng.integers(1, 300, 3000)) % 300
c = Comparisons.from_winner_loser(a, b, n_items=300)
sparse_newton(SparseData(c), 2.0)
sparse_newton(SparseData(c), 0.0, sum_zero=True)
kernels = (k.btl_pass, k.btl_value, k.zero_pass, k.laplacian_mv, k._precondition, k.pcg)
print(json.dumps({f.__name__: [len(f._cache_misses), len(f._cache_hits)] for f in kernels}))
"""
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    counts = json.loads(out.stdout)
    assert all(misses == 0 for misses, _ in counts.values()), counts
    assert counts["btl_pass"][1] > 0 and counts["pcg"][1] > 0


def test_setup_builds_the_c_loops_and_a_sparse_fit_then_skips_numba():
    """``make setup`` builds the C loops (``python -m dprank._sparse_c``); where they are built,
    a sparse fit loads them with ctypes and never imports numba."""
    from dprank import _sparse_c

    assert "dprank._sparse_c" in (ROOT / "Makefile").read_text()
    if not _sparse_c.library_path().exists():
        pytest.skip("the C loops are not built here (no C compiler): numba serves")
    code = """
import sys
import numpy as np
from dprank.comparisons import Comparisons
from dprank.sparse import SparseData, sparse_newton
rng = np.random.default_rng(0)
a = rng.integers(0, 300, 3000)
b = (a + rng.integers(1, 300, 3000)) % 300
fit = sparse_newton(SparseData(Comparisons.from_winner_loser(a, b, n_items=300)), 2.0)
assert fit["converged"]
print("numba" in sys.modules)
"""
    env = {k: v for k, v in os.environ.items() if k != "DPRANK_SPARSE_BACKEND"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"
