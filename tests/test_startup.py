"""Job start-up: what the workflow's scripts import before their first line of work.

docs/performance.md ("Job start-up") gives the times; these tests keep the imports that
make them from coming back: pandas (about 0.2 s) and matplotlib (about 0.3 s) only where a
script's work needs them, ``scipy.stats`` (about 0.35 s) and ``scipy.optimize`` nowhere at
start-up.
"""

import importlib.util
import json
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


def test_the_package_ships_its_compiled_part_and_nothing_compiles_at_run_time(tmp_path):
    """The package build compiles the extension dprank._native (setup.py); a fit and a read
    load it with ctypes, write nothing beside the package and import no JIT compiler."""
    from dprank.base import _compiled

    assert "_native" in (ROOT / "setup.py").read_text()
    assert "python -m dprank._" not in (ROOT / "Makefile").read_text().replace(
        "_snakemake_configfile", ""
    )
    package = Path(_compiled.__file__).parent
    before = sorted(p.name for p in package.iterdir())
    path = tmp_path / "g.csv"
    path.write_text("winner,loser\n1,2\n2,3\n3,1\n1,3\n")
    code = f"""
import sys
import numpy as np
from dprank.data.comparisons import Comparisons
from dprank.data.inputs import read_comparisons
from dprank.fit.sparse import SparseData, sparse_newton
rng = np.random.default_rng(0)
a = rng.integers(0, 300, 3000)
b = (a + rng.integers(1, 300, 3000)) % 300
fit = sparse_newton(SparseData(Comparisons.from_winner_loser(a, b, n_items=300)), 2.0)
assert fit["converged"]
assert read_comparisons({str(path)!r}).n_rows == 4
print("numba" in sys.modules, "llvmlite" in sys.modules)
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False False"
    assert sorted(p.name for p in package.iterdir()) == before


@pytest.mark.parametrize("privacy", [["none"], ["edge", "--epsilon", "1", "--insecure-seed", "7"]])
def test_dprank_rank_imports_neither_scipy_nor_pandas_nor_the_ledger(tmp_path, privacy):
    """``dprank rank`` (no --ledger, no --intervals) loads what its path needs only: scipy
    (10-30 ms) is imported on first use (``dprank.base._lazy_scipy``), the ledger at --ledger or
    ``ledger --help``, pandas where a frame is built, PyYAML where a YAML file is read, the
    data sets' registry (with tarfile and zipfile) by ``dprank datasets`` only."""
    import numpy as np

    rng = np.random.default_rng(0)  # 1000 items: the sparse solver (a small file's dense
    a = rng.integers(0, 1000, 20_000)  # Newton solves with scipy.linalg)
    b = (a + rng.integers(1, 1000, a.size)) % 1000
    path = tmp_path / "g.csv"
    path.write_text("winner,loser\n" + "".join(f"{x},{y}\n" for x, y in zip(a, b, strict=True)))
    argv = ["rank", str(path), "--privacy", *privacy, "--out", str(tmp_path / "r.csv"), "--quiet"]
    code = f"""
import json, sys
from dprank.cli import main
assert main({argv!r}) == 0
print(json.dumps(sorted(m for m in sys.modules
    if m.split(".")[0] in ("scipy", "pandas", "yaml", "tarfile", "zipfile")
    or m.startswith(("dprank.ledger", "dprank.data.datasets")))))
"""
    env = {"PYTHONPATH": str(ROOT / "src"), "PATH": "/usr/bin:/bin"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout.splitlines()[-1]) == []
    assert (tmp_path / "r.csv").read_text().startswith("item,score,rank\n")


def test_a_plain_rank_loads_no_hashlib(tmp_path):
    """``dprank rank`` without a seed or an audit record hashes nothing: hashlib (its OpenSSL
    library, milliseconds to load) is not imported, in a source checkout either (the
    compiled part's sources are checked by their stamp: ``_compiled._check_fresh``)."""
    path = tmp_path / "g.csv"
    path.write_text("winner,loser\n" + "".join(f"{k % 7},{(k + 1) % 7}\n" for k in range(50)))
    argv = ["rank", str(path), "--privacy", "none", "--out", str(tmp_path / "r.csv"), "--quiet"]
    code = f"from dprank.cli import main\nassert main({argv!r}) == 0"
    assert _loaded_after(code, ("hashlib", "_hashlib")) == []


#: the methods' implementations (estimators, releases) and the privacy audit: the registry
#: declares every method without them; a method's fit imports its own on first call
IMPLEMENTATIONS = (
    "dprank.fit.mle",
    "dprank.fit.sparse",
    "dprank.fit.ties",
    "dprank.fit.weighted_mle",
    "dprank.privacy._release_mle",
    "dprank.privacy.ldp",
    "dprank.privacy.oneshot",
    "dprank.privacy.private_ties",
    "dprank.audit",
)


def _loaded_after(code: str, prefixes: tuple[str, ...]) -> list[str]:
    """The modules starting with one of ``prefixes`` a fresh interpreter holds after ``code``."""
    code += (
        "\nimport json, sys\n"
        f"print(json.dumps(sorted(m for m in sys.modules if m.startswith({prefixes!r}))))"
    )
    env = {"PYTHONPATH": str(ROOT / "src"), "PATH": "/usr/bin:/bin"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.splitlines()[-1])


def _implementations_loaded(code: str) -> list[str]:
    """The modules of :data:`IMPLEMENTATIONS` a fresh interpreter holds after ``code``."""
    return _loaded_after(code, IMPLEMENTATIONS)


def test_the_registry_declares_every_method_without_its_implementation():
    """A method's record (name, privacy map, options, docs) is read without importing its
    estimator; its first fit imports the one it calls, and only that one."""
    record = """
import math
from dprank.methods import all_methods
for m in all_methods():
    eps = 1.0 if m.private else math.inf
    m.privacy_loss(eps, n_items=10, L=3, max_per_user=3, delta=1e-6)
    assert m.options is None or isinstance(m.options, tuple)
    assert m.label and m.description
"""
    assert _implementations_loaded(record) == []
    fit = """
import numpy as np
from dprank.data.comparisons import Comparisons
from dprank.methods import get_method
c = Comparisons.from_winner_loser([0, 0, 1, 2, 1], [1, 2, 2, 0, 0], n_items=3)
assert get_method("nonprivate_mle").fit(c, np.inf, np.random.default_rng(0)).converged
"""
    assert _implementations_loaded(fit) == ["dprank.fit.mle", "dprank.fit.sparse"]


@pytest.mark.parametrize(
    "argv",
    [
        ["--help"],
        ["--privacy", "edge", "--epsilon", "1"],
        ["--privacy", "individual", "--epsilon", "1", "--max-per-user", "3", "--items-from-data"],
    ],
    ids=["help", "edge", "individual"],
)
def test_dprank_rank_imports_no_other_methods_code_nor_the_audit(tmp_path, argv):
    """``dprank rank`` (default counts at edge and individual DP, and ``--help``) loads no
    estimator nor release of another method, and no privacy-audit module."""
    path = tmp_path / "g.csv"
    path.write_text("winner,loser,user\n1,2,a\n2,3,b\n3,1,a\n1,3,c\n")
    if argv != ["--help"]:
        out = ["--out", str(tmp_path / "r.csv"), "--quiet"]
        argv = [str(path), *argv, "--insecure-seed", "7", *out]
    code = f"""
import contextlib, io
from dprank.cli import main
with contextlib.redirect_stdout(io.StringIO()):
    try:
        assert main({["rank", *argv]!r}) == 0
    except SystemExit as exc:
        assert exc.code == 0
"""
    assert _implementations_loaded(code) == []
    if argv != ["--help"]:
        assert (tmp_path / "r.csv").read_text().startswith("item,score,rank\n")


def test_the_registrys_re_exports_are_the_implementations_own_names():
    """``dprank.methods`` re-exports the estimators' names on first access (PEP 562): the
    same objects as their modules', listed by ``dir``; an unknown name is an AttributeError."""
    import dprank.fit.mle
    import dprank.methods
    import dprank.privacy.ldp

    for names, module in (
        (dprank.methods._FIT_MLE_NAMES, dprank.fit.mle),
        (dprank.methods._LDP_NAMES, dprank.privacy.ldp),
    ):
        for name in names:
            assert getattr(dprank.methods, name) is getattr(module, name)
            assert name in dir(dprank.methods)
    with pytest.raises(AttributeError, match="no_such_name"):
        dprank.methods.no_such_name  # noqa: B018


@pytest.mark.parametrize(
    ("privacy", "scipy_modules"),
    [
        (["none"], ["scipy.linalg._flapack"]),
        (["edge", "--epsilon", "1"], []),
        (["individual", "--epsilon", "1", "--max-per-user", "5", "--items-from-data"], []),
    ],
    ids=["none", "edge", "individual"],
)
def test_a_small_rank_loads_no_scipy_package_nor_the_audit(tmp_path, privacy, scipy_modules):
    """A small file (30 items: ``--privacy none`` fits by the dense Newton of
    :mod:`dprank.fit.mle`, two LAPACK calls a step) loads scipy's LAPACK extension alone
    (:func:`dprank.base._lapack.lapack`), not the ``scipy.linalg`` package (0.1-0.4 s); the
    default counts of edge and individual DP load no scipy and not the objective's code
    (:mod:`dprank.objective`: the API knows the ties models by name), and no run the audit."""
    import numpy as np

    rng = np.random.default_rng(1)
    a = rng.integers(0, 30, 600)
    b = (a + rng.integers(1, 30, a.size)) % 30
    users = rng.integers(0, 40, a.size)
    path = tmp_path / "g.csv"
    rows = zip(a, b, users, strict=True)
    path.write_text("winner,loser,user\n" + "".join(f"{x},{y},u{u}\n" for x, y, u in rows))
    argv = ["rank", str(path), "--privacy", *privacy, "--insecure-seed", "7", "--quiet"]
    argv += ["--out", str(tmp_path / "r.csv")]
    code = f"from dprank.cli import main\nassert main({argv!r}) == 0"
    loaded = _loaded_after(code, ("scipy", "pandas", "dprank.audit", "dprank.objective"))
    assert [m for m in loaded if not m.startswith("dprank.objective")] == scipy_modules
    assert ("dprank.objective" in loaded) == (privacy[0] == "none")
    assert (tmp_path / "r.csv").read_text().startswith("item,score,rank\n")


def test_the_intervals_options_are_checked_without_pandas(tmp_path):
    """:mod:`dprank.intervals` imports pandas where it builds its frame only: ``dprank rank
    --intervals`` checks its options (``supports``, ``TIES_METHODS``) before any data is
    read without pandas (0.2 s, over a second under load), so a usage error returns at
    once, and a library user importing the module pays for pandas on the first frame."""
    path = tmp_path / "g.csv"
    path.write_text("winner,loser\n0,1\n1,2\n")
    argv = ["rank", str(path), "--privacy", "none", "--intervals", "1.5", "--quiet"]
    argv += ["--out", str(tmp_path / "r.csv")]
    code = f"import dprank.intervals\nfrom dprank.cli import main\nassert main({argv!r}) == 2"
    assert _loaded_after(code, ("pandas",)) == []
    assert not (tmp_path / "r.csv").exists()


def test_the_lapack_routines_are_scipys_own_with_or_without_its_package(monkeypatch):
    """:func:`dprank.base._lapack.lapack` loads ``scipy.linalg._flapack`` without the
    ``scipy.linalg`` package, and a later ``import scipy.linalg`` uses that same module:
    the functions are ``scipy.linalg.lapack``'s. Where the extension cannot be loaded on its
    own it falls back to ``scipy.linalg.lapack``, with the same bits."""
    code = """
import sys
import numpy as np
from dprank.base._lapack import cholesky_factor, cholesky_solve, lapack
rng = np.random.default_rng(0)
x = rng.standard_normal((12, 12))
a = x @ x.T + np.eye(12)
c = cholesky_factor(a)
alone = "scipy.linalg" not in sys.modules and "scipy" not in sys.modules
import scipy.linalg
from scipy.linalg import lapack as scipy_lapack
assert lapack().dpotrf is scipy_lapack.dpotrf and lapack().dpotrs is scipy_lapack.dpotrs
assert np.array_equal(c, scipy.linalg.cho_factor(a, lower=True, check_finite=False)[0])
print(alone)
"""
    env = {"PYTHONPATH": str(ROOT / "src"), "PATH": "/usr/bin:/bin"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["True"]

    import numpy as np
    import scipy.linalg
    from scipy.linalg import lapack as scipy_lapack

    from dprank.base import _lapack

    monkeypatch.setattr(_lapack, "_loaded", None)
    monkeypatch.setitem(sys.modules, _lapack._FLAPACK, None)  # as if never loaded
    monkeypatch.setattr(_lapack, "_load_extension", lambda: None)  # as if it cannot be
    assert _lapack.lapack() is scipy_lapack
    rng = np.random.default_rng(1)
    x = rng.standard_normal((9, 9))
    a = x @ x.T + np.eye(9)
    b = rng.standard_normal(9)
    c = _lapack.cholesky_factor(a)
    assert np.array_equal(c, scipy.linalg.cho_factor(a, lower=True, check_finite=False)[0])
    assert np.array_equal(
        _lapack.cholesky_solve(c, b), scipy.linalg.cho_solve((c, True), b, check_finite=False)
    )
    with pytest.raises(np.linalg.LinAlgError, match="not positive definite"):
        _lapack.cholesky_factor(-a)


@pytest.mark.parametrize(
    "argv",
    [["--help"], ["ledger", "--help"], ["datasets", "--help"], ["privatize", "--help"]],
    ids=["help", "ledger", "datasets", "privatize"],
)
def test_the_other_subcommands_build_no_rank_options_nor_the_registry(argv):
    """``dprank`` builds the options of the subcommand it runs only
    (:func:`dprank.cli._parser.parser_for`): ``rank``'s help names each level's default
    method, from the method registry, which the other subcommands and ``--help`` do not load;
    the ledger is loaded by ``ledger`` only."""
    code = f"""
import contextlib, io
from dprank.cli import main
with contextlib.redirect_stdout(io.StringIO()):
    try:
        main({argv!r})
    except SystemExit as exc:
        assert exc.code == 0
"""
    loaded = _loaded_after(code, ("dprank.methods", "dprank.ledger", "dprank.api"))
    assert ("dprank.ledger" in loaded) == (argv[0] == "ledger")
    assert [m for m in loaded if not m.startswith("dprank.ledger")] == []


@pytest.mark.parametrize(
    "argv",
    [
        ["rank", "f.csv", "--privacy", "edge", "--epsilon", "2", "--top-k", "3"],
        ["rank", "-", "--privacy", "none", "--intervals", "0.9", "--quiet"],
        ["privatize", "f.csv", "--epsilon", "1", "--out", "r.csv", "--items-from-data"],
        ["ledger", "l.json", "--set-budget", "3", "--unit", "user"],
        ["datasets", "export", "cems", "--out", "c.csv"],
        ["methods"],
    ],
)
def test_the_command_parses_as_the_full_parser(argv):
    """The parser of one subcommand (:func:`dprank.cli._parser.parser_for`) parses its
    arguments as :func:`dprank.cli.build_parser` does; what it leaves out (the other
    subcommands' options) changes no help, no message and no value."""
    from dprank.cli import build_parser
    from dprank.cli._parser import parser_for

    assert vars(parser_for(argv).parse_args(argv)) == vars(build_parser().parse_args(argv))


def test_the_api_knows_the_ties_models_by_their_names():
    """:data:`dprank.api.TIE_MODEL_NAMES` (what a rank checks ``model`` against without
    importing the objective) names the ties models of :data:`dprank.objective.TIE_MODELS`."""
    from dprank.api import TIE_MODEL_NAMES
    from dprank.objective import TIE_MODELS

    assert TIE_MODEL_NAMES == tuple(TIE_MODELS)
