"""Library helpers of the workflow: grid labels, chunks, dependencies, I/O, aggregation."""

import json
import os
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from dprank.base.io import atomic_path, load_arrays, save_arrays
from dprank_papers import deps
from dprank_papers.aggregate import summarise
from dprank_papers.deps import module_files, script_files, use_import_cache
from dprank_papers.grid import (
    GRID_STUDY_FUNCTIONS,
    cell_blocks,
    cell_name,
    chunk_of,
    chunk_ranges,
    fmt_value,
    parse_value,
)
from dprank_papers.studies import (
    block_kwargs,
    cell_arrays,
    paper_a_edge,
    paper_a_individual,
    with_prefix,
)
from dprank_papers.workflow import (
    LOCK_OWNERS,
    MALLOC_TUNING,
    canonical,
    coalesce_scheduler_timers,
    record_lock_owner,
    release_stale_lock,
)

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src"


def test_grid_labels_round_trip():
    for v in (1.0, 0.25, 1 / 3, float("inf"), 300):
        assert parse_value(fmt_value(v)) == v
    assert cell_name({"n": 350, "p": 1.0, "eps": 0.1}, ["n", "p", "eps"]) == "n350_p1_eps0.1"


def test_chunks_cover_every_replicate_once():
    for reps, size in [(120, 120), (120, 7), (5, 2)]:
        covered = [r for a, b in chunk_ranges(reps, size) for r in range(a, b)]
        assert covered == list(range(reps))
    assert chunk_of(5, 2, 2) == (4, 5)
    with pytest.raises(ValueError, match="out of range"):
        chunk_of(5, 2, 3)


def test_grid_studies_expose_the_grid_study_functions():
    """The studies built on CellGrid and StudyStages export every function the rules call."""
    for study in (paper_a_edge, paper_a_individual):
        assert {"METHODS", "PROTOCOLS", *GRID_STUDY_FUNCTIONS} <= set(study.__all__)
        assert all(callable(getattr(study, name)) for name in GRID_STUDY_FUNCTIONS), study


def test_blocks_group_cells_by_job_keys():
    cells = [{"n": n, "p": p} for n in (20, 32) for p in (0.5, 1.0)]
    names = [cell_name(c, ["n", "p"]) for c in cells]
    assert cell_blocks(names, cells, ["n", "p"], None) == {name: [name] for name in names}
    assert cell_blocks(names, cells, ["n", "p"], []) == {"all": names}
    assert cell_blocks(names, cells, ["n", "p"], ["n"]) == {
        "n20": ["n20_p0.5", "n20_p1"],
        "n32": ["n32_p0.5", "n32_p1"],
    }
    exp = {"n": [20, 32], "p": [1.0], "epsilon": [0.5, 2.0], "reps": 4, "data_per_epsilon": True}
    assert paper_a_edge.block_names({**exp, "job_keys": ["eps"]}) == ["eps0.5", "eps2"]
    assert paper_a_edge.block_names(exp) == paper_a_edge.cell_names(exp)
    ind = {"n": [12], "m": [100, 300], "epsilon": [1.0], "reps": 2, "job_keys": ["m"]}
    assert paper_a_individual.blocks(ind) == {"m100": ["n12_m100_eps1"], "m300": ["n12_m300_eps1"]}


def test_a_block_job_gets_each_cells_own_kwargs():
    exp = {
        "n": [20, 32],
        "p": [1.0],
        "epsilon": [0.5],
        "reps": 4,
        "methods": ["edge_mle"],
        "theta_per": ["n"],
        "job_keys": [],
    }
    section = {
        "constants": {"c0": 2.0, "kappa1": 1.0, "kappa2": 0.25, "r_seed": 13},
        "solver": {"xtol": 1e-10, "max_iter": 100},
        "experiments": {"e": exp},
    }
    job = block_kwargs(
        "paper_a_edge", "privatize", section, "e", "all", 1, "paper", seed=1, chunk_size=2
    )
    cells = [
        paper_a_edge.stage_kwargs("privatize", section, "e", name, 1, "paper", seed=1, chunk_size=2)
        for name in ("n20_p1", "n32_p1")
    ]
    assert job == {"cells": cells} and cells[0]["replicates"] == [2, 3]
    assert cells[0]["seed"] == 1
    with pytest.raises(KeyError, match="no block 'n20'"):
        block_kwargs(
            "paper_a_edge", "privatize", section, "e", "n20", 1, "paper", seed=1, chunk_size=2
        )


def test_canonical_sorts_keys_recursively():
    a = canonical({"b": [1, {"y": 1, "x": 2}], "a": (1, 2)})
    assert list(a) == ["a", "b"] and list(a["b"][1]) == ["x", "y"]
    assert repr(a) == repr(canonical({"a": [1, 2], "b": [1, {"x": 2, "y": 1}]}))


def test_dependencies_follow_imports():
    files = {Path(f).relative_to(SRC).as_posix() for f in module_files("dprank.fit.mle", SRC)}
    assert {"dprank/fit/mle.py", "dprank/data/models.py", "dprank/__init__.py"} <= files
    assert "dprank_papers/plotting/paper_a.py" not in files
    est = {
        Path(f).relative_to(SRC).as_posix()
        for f in script_files(
            ROOT / "scripts/estimate.py", SRC, ("dprank_papers.studies.paper_a_edge.estimate",)
        )
    }
    assert "dprank/fit/mle.py" in est and "dprank_papers/studies/paper_a_edge/estimate.py" in est
    sim = {
        Path(f).relative_to(SRC).as_posix()
        for f in script_files(
            ROOT / "scripts/simulate_comparisons.py",
            SRC,
            ("dprank_papers.studies.paper_a_edge.simulate",),
        )
    }
    assert "dprank/fit/mle.py" not in sim and "dprank/data/simulate.py" in sim


def test_dependencies_are_cached_until_a_file_they_read_changes(tmp_path):
    """Snakemake asks for the same scripts' files hundreds of times per parse: the answer is
    reused, but an edited import or a new module file is seen at once."""
    pkg = tmp_path / "dprank"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("import numpy\n")
    (pkg / "b.py").write_text("")
    script = tmp_path / "run.py"
    script.write_text("from dprank.a import f\nfrom dprank.c import g\n")
    names = lambda: {Path(f).name for f in script_files(script, tmp_path)}  # noqa: E731
    assert names() == {"__init__.py", "a.py"} == names()
    time.sleep(0.01)  # a new modification time
    (pkg / "a.py").write_text("def f():\n    from dprank import b\n")  # a lazy import
    assert names() == {"__init__.py", "a.py", "b.py"}
    time.sleep(0.01)
    (pkg / "c.py").write_text("")  # dprank.c was a missing module: now it exists
    assert names() == {"__init__.py", "a.py", "b.py", "c.py"}
    assert {Path(f).name for f in module_files("dprank.a", tmp_path)} == {
        "__init__.py",
        "a.py",
        "b.py",
    }


def test_dependencies_find_imports_in_every_kind_of_block(tmp_path):
    """Only the blocks of statements are scanned for imports: an import at any depth of
    functions, classes, if/else, loops, with, try/except/else/finally and match is found,
    and a name in an expression is not an import."""
    pkg = tmp_path / "dprank"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    names = [f"m{i}" for i in range(12)]
    for name in [*names, "unused"]:
        (pkg / f"{name}.py").write_text("")
    (pkg / "a.py").write_text(
        "import dprank.m0\n"
        "def f():\n    class C:\n        def g(self):\n            from . import m1\n"
        "if f:\n    pass\nelif f:\n    from dprank import m2\nelse:\n    import dprank.m3\n"
        "for _ in ():\n    pass\nelse:\n    from .m4 import x\n"
        "while False:\n    from dprank.m5 import y\n"
        "with open(__file__):\n    import dprank.m6 as z\n"
        "try:\n    from dprank import m7\nexcept ImportError:\n    from dprank import m8\n"
        "else:\n    from dprank import m9\nfinally:\n    from dprank import m10\n"
        "match f:\n    case 1:\n        from dprank import m11\n"
        "h = lambda: 'import dprank.unused'\n"
    )
    script = tmp_path / "run.py"
    script.write_text("def main():\n    from dprank.a import f\n")
    assert {Path(f).stem for f in script_files(script, tmp_path)} == {"__init__", "a", *names}


def _new_process(cache):
    """As a new Snakemake process sees the scan: nothing remembered but the cache file."""
    deps._RESULTS.clear()
    deps._parsed_imports.cache_clear()
    use_import_cache(cache)


def _parses(monkeypatch) -> list[str]:
    """The files the scan parses from now on (each file's own imports)."""
    parsed = []
    real = deps._parsed_imports

    def counted(module, path, *stamp):
        parsed.append(Path(path).name)
        return real(module, path, *stamp)

    counted.cache_clear = real.cache_clear
    monkeypatch.setattr(deps, "_parsed_imports", counted)
    return parsed


def test_the_import_cache_gives_the_scan_s_lists(tmp_path, monkeypatch):
    """The workflow's cache of each file's imports between Snakemake starts
    (.snakemake/dprank-imports.json): every script's and module's files are the same as
    without it, from a missing cache file and from a complete one, which parses nothing."""
    monkeypatch.setattr(deps, "_STORE", None)  # restored after the test
    monkeypatch.setattr(deps, "_SETTLED_NS", 0)  # every file may be kept, however recent
    scripts = sorted((ROOT / "scripts").glob("*.py"))
    modules = sorted(
        ".".join(p.relative_to(SRC).with_suffix("").parts).removesuffix(".__init__")
        for p in SRC.rglob("*.py")
    )

    def lists():  # the modules first: the scripts' lists reuse theirs
        return [module_files(m, SRC) for m in modules], [script_files(s, SRC) for s in scripts]

    with pytest.raises(TypeError, match=r"^path"):
        use_import_cache(3)
    cache = tmp_path / ".snakemake" / "dprank-imports.json"
    _new_process(None)
    plain = lists()
    # a missing cache file: filled (the parses of the files, remembered in this process, are
    # the same with or without it)
    deps._RESULTS.clear()
    use_import_cache(cache)
    assert lists() == plain
    assert cache.is_file()
    _new_process(cache)
    parsed = _parses(monkeypatch)
    assert lists() == plain
    assert parsed == []


def test_the_import_cache_rescans_what_changed_and_survives_a_bad_file(tmp_path, monkeypatch):
    """An entry counts only while its file has the size and times it was scanned with: an
    edited file (also one restored to its size and modification time) is parsed again, a
    new one is scanned; a missing, corrupt or foreign cache file means a full scan, and the
    answer is always the scan's."""
    monkeypatch.setattr(deps, "_STORE", None)
    monkeypatch.setattr(deps, "_SETTLED_NS", 0)
    pkg = tmp_path / "dprank"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from dprank import b\n")
    (pkg / "b.py").write_text("")
    (pkg / "c.py").write_text("")
    script = tmp_path / "run.py"
    script.write_text("from dprank.a import f\n")
    cache = tmp_path / "imports.json"

    def names():
        return {Path(f).name for f in script_files(script, tmp_path)}

    _new_process(cache)
    assert names() == {"__init__.py", "a.py", "b.py"}
    # the cache is read: a (made-up) entry with the file's stamp is believed
    data = json.loads(cache.read_text())
    key = next(k for k in data["files"] if k.endswith("a.py"))
    data["files"][key][3] = ["dprank.c"]
    cache.write_text(json.dumps(data))
    _new_process(cache)
    assert names() == {"__init__.py", "a.py", "c.py"}
    # a stale entry (another size or time) is not
    data["files"][key][1] -= 1
    cache.write_text(json.dumps(data))
    _new_process(cache)
    parsed = _parses(monkeypatch)
    assert names() == {"__init__.py", "a.py", "b.py"}
    assert parsed == ["a.py"]
    # an edit of the same size whose modification time is set back: the change time tells
    time.sleep(0.05)  # a new change time (the file system's clock ticks)
    a = pkg / "a.py"
    before = a.stat()
    a.write_text("from dprank import c\n")
    os.utime(a, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert a.stat().st_size == before.st_size
    _new_process(cache)
    parsed = _parses(monkeypatch)
    assert names() == {"__init__.py", "a.py", "c.py"}
    assert parsed == ["a.py", "c.py"]  # c.py: new to the cache file
    # a missing file, bytes that are no JSON, JSON of another shape, format or Python, an
    # entry of the wrong shape: everything is scanned, and the file is written anew
    for bad in (
        None,
        b"\x00\xff not json",
        b'{"header": {"format": 1',
        b"[]",
        json.dumps({**data, "header": {"format": 0, "python": [3, 0]}}).encode(),
        json.dumps({"header": data["header"], "files": {key: [1, 2, "3", []]}}).encode(),
        json.dumps({"header": data["header"], "files": {key: [1, 2, 3, [4]]}}).encode(),
    ):
        if bad is None:
            cache.unlink()
        else:
            cache.write_bytes(bad)
        _new_process(cache)
        parsed = _parses(monkeypatch)
        assert names() == {"__init__.py", "a.py", "c.py"}, bad
        assert sorted(parsed) == ["__init__.py", "a.py", "c.py"], bad
        _new_process(cache)
        parsed = _parses(monkeypatch)
        assert names() == {"__init__.py", "a.py", "c.py"} and parsed == [], bad


def test_the_import_cache_keeps_no_file_changed_within_its_clock_tick(tmp_path, monkeypatch):
    """A file changed less than two seconds before the scan is parsed but not written to the
    cache file (a second edit in the same tick of the file system's clock could keep its
    size and times); a cache file that cannot be written is no error."""
    monkeypatch.setattr(deps, "_STORE", None)
    pkg = tmp_path / "dprank"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("")
    cache = tmp_path / "imports.json"
    files = {"__init__.py", "a.py"}
    _new_process(cache)
    assert {Path(f).name for f in module_files("dprank.a", tmp_path)} == files
    assert not cache.exists()  # nothing to keep
    monkeypatch.setattr(deps, "_SETTLED_NS", 0)
    _new_process(cache)
    assert {Path(f).name for f in module_files("dprank.a", tmp_path)} == files
    assert len(json.loads(cache.read_text())["files"]) == 2
    _new_process(tmp_path / "dprank" / "a.py" / "imports.json")  # under a file: unwritable
    assert {Path(f).name for f in module_files("dprank.a", tmp_path)} == files


def test_arrays_round_trip_and_atomic_write(tmp_path):
    wins = (np.random.default_rng(0).random((7, 5, 5)) < 0.5).astype(np.uint8)
    path = tmp_path / "x.npz"
    save_arrays(path, wins=wins, theta=np.arange(3.0))
    back = load_arrays(path)
    np.testing.assert_array_equal(back["wins"], wins)
    np.testing.assert_array_equal(back["theta"], np.arange(3.0))
    # a block file: each cell's arrays under its prefix, win matrices packed too
    path2 = tmp_path / "block.npz"
    save_arrays(
        path2, compress=True, **with_prefix(0, {"wins": wins}), **with_prefix(1, {"wins": wins[:2]})
    )
    with np.load(path2) as raw:
        assert "c0__wins__packed" in raw.files and "c1__wins__packed" in raw.files
    back = load_arrays(path2)
    np.testing.assert_array_equal(cell_arrays(back, 1)["wins"], wins[:2])
    assert list(cell_arrays(back, 0)) == ["wins"]
    path2.unlink()
    target = tmp_path / "y.csv"
    with pytest.raises(RuntimeError), atomic_path(target) as tmp:
        Path(tmp).write_text("half")
        raise RuntimeError("crash")
    assert not target.exists() and list(tmp_path.iterdir()) == [path]


def test_summarise_mean_sd_se():
    frame = pd.DataFrame(
        {
            "cell": ["a"] * 4 + ["b"] * 2,
            "replicate": [0, 1, 2, 3, 0, 1],
            "value": [1, 2, 3, 4, 5, 5.0],
        }
    )
    out = summarise(frame).set_index("cell")
    assert out.loc["a", "mean"] == 2.5 and out.loc["a", "reps"] == 4
    assert out.loc["a", "sd"] == pytest.approx(np.std([1, 2, 3, 4], ddof=1))
    assert out.loc["a", "se"] == pytest.approx(out.loc["a", "sd"] / 2)
    with pytest.raises(ValueError, match="counted twice"):
        summarise(pd.concat([frame, frame]))


def test_atomic_outputs_get_the_usual_permissions(tmp_path):
    import os
    import stat

    with atomic_path(tmp_path / "out.txt") as tmp:
        Path(tmp).write_text("x")
    mode = stat.S_IMODE((tmp_path / "out.txt").stat().st_mode)
    mask = os.umask(0)
    os.umask(mask)
    assert mode == 0o666 & ~mask


def test_every_declared_figure_and_table_has_a_generated_target_rule_and_no_hand_written_one():
    import re
    from pathlib import Path

    import yaml

    root = Path(__file__).resolve().parents[1]
    rules = "".join(p.read_text() for p in (root / "workflow/rules").glob("*.smk"))
    names = set()
    for path in (root / "workflow/papers").glob("*.yaml"):
        names |= {f"{path.stem}_{i}" for i in yaml.safe_load(path.read_text())["items"]}
    assert {"paper_a_fig8", "paper_b2_table1", "paper_b2_fig14", "paper_b1_table1"} <= names
    # the target names the Snakefile's header lists are all declared
    text = (root / "Snakefile").read_text().split("Targets:", 1)[1].split("Report:", 1)[0]
    header = " ".join(line.lstrip("# ") for line in text.splitlines())
    ranges = re.findall(r"(paper_\w+?)(\d+) \.\.\. \1(\d+)", header)
    assert len(ranges) == 4, ranges  # A figures, B1 figures, B2 figures and tables
    for stem, lo, hi in ranges:
        assert {f"{stem}{k}" for k in range(int(lo), int(hi) + 1)} <= names, stem
    assert "paper_b1_table1" in header and "paper_b1_table1" in names
    # no hand-written per-item rule: items.smk generates them all
    assert not re.findall(r"^rule paper_\w+_(fig|table)\d+:", rules, flags=re.M)


def test_results_manifest_hashes_seeded_results_only(tmp_path):
    from dprank_papers.workflow import results_manifest

    files = {
        "paper_a_edge/exp1/paper/summary.csv": b"a,b\n1,2\n",
        "paper_a_edge/exp1/paper/estimates/n8/chunk0.npz": b"\x00\x01",
        "benchmarks/estimate/x.tsv": b"s\n1.0\n",
        "logs/estimate/x.log": b"started",
        "figures/paper_a/fig1_paper.pdf": b"%PDF",
        "paper_b2/timing/scaling.csv": b"seconds\n0.1\n",
        "report/runtime.csv": b"rule,s\n",
    }
    for rel, data in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_bytes(data)
    manifest = results_manifest(tmp_path)
    assert list(manifest) == sorted(
        ["paper_a_edge/exp1/paper/estimates/n8/chunk0.npz", "paper_a_edge/exp1/paper/summary.csv"]
    )
    before = manifest["paper_a_edge/exp1/paper/summary.csv"]
    (tmp_path / "paper_a_edge/exp1/paper/summary.csv").write_bytes(b"a,b\n1,3\n")
    assert results_manifest(tmp_path)["paper_a_edge/exp1/paper/summary.csv"] != before
    assert results_manifest(tmp_path, exclude=()).keys() == {*files}
    # the smoke run's results/smoke is not part of the paper-scale manifest, and its own
    # manifest is the same whether it lies inside results/ or not
    smoke = tmp_path / "smoke"
    (smoke / "paper_a_edge/exp1/paper").mkdir(parents=True)
    (smoke / "paper_a_edge/exp1/paper/summary.csv").write_bytes(b"a,b\n0,0\n")
    assert set(results_manifest(tmp_path)) == set(manifest)
    assert list(results_manifest(smoke)) == ["paper_a_edge/exp1/paper/summary.csv"]


def _killed_write(target: Path) -> Path:
    """The temporary a write of ``target`` leaves when its process is killed (kill -9)."""
    code = (
        "import os, signal, sys\n"
        "from dprank.base.io import atomic_path\n"
        "with atomic_path(sys.argv[1]) as tmp:\n"
        "    tmp.write_bytes(b'half')\n"
        "    os.kill(os.getpid(), signal.SIGKILL)\n"
    )
    target.parent.mkdir(parents=True, exist_ok=True)
    before = set(target.parent.iterdir())
    proc = subprocess.run([sys.executable, "-c", code, str(target)], check=False)
    assert proc.returncode == -9 and not target.exists()
    (left,) = set(target.parent.iterdir()) - before
    return left


def test_stale_temporaries_are_recognised_removed_for_this_run_and_never_hashed(tmp_path):
    from dprank.base.io import atomic_target
    from dprank_papers.workflow import remove_stale_temporaries, results_manifest

    pdf = tmp_path / "figures/paper_a/fig5_paper.pdf"
    png = tmp_path / "figures/paper_a/fig5_paper.png"
    other = tmp_path / "paper_b2/x/summary.csv"
    stale = {f: _killed_write(f) for f in (pdf, png, other)}
    assert atomic_target(stale[pdf]) == pdf and stale[pdf].name.startswith(".fig5_paper.pdf.")
    assert atomic_target(pdf) is None and atomic_target(tmp_path / ".hidden.tmp") is None
    own = tmp_path / "figures/.notes.tmp"  # not the pattern of atomic_path: kept
    own.write_text("mine")
    (tmp_path / "figures/paper_a/fig5_paper.csv").write_text("a\n1\n")
    # the manifest never counts a temporary, whatever the exclusions
    assert set(results_manifest(tmp_path, exclude=())) == {
        "figures/.notes.tmp",
        "figures/paper_a/fig5_paper.csv",
    }
    # only the temporaries of the outputs the starting run writes (it holds their lock)
    removed = remove_stale_temporaries(tmp_path, [str(pdf), str(png)])
    assert sorted(removed) == sorted([stale[pdf], stale[png]])
    assert stale[other].exists() and own.exists() and not stale[pdf].exists()
    assert remove_stale_temporaries(tmp_path) == [stale[other]]
    assert own.exists() and remove_stale_temporaries(tmp_path / "missing") == []


def _locked(workdir: Path, owners: list[str] | None) -> Path:
    locks = workdir / ".snakemake" / "locks"
    locks.mkdir(parents=True)
    (locks / "0.input.lock").write_text("a\n")
    (locks / "0.output.lock").write_text("b\n")
    if owners is not None:
        (locks / LOCK_OWNERS).write_text("".join(f"{o}\n" for o in owners))
    return locks


def _dead_pid() -> int:
    proc = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        check=True,
        capture_output=True,
        text=True,
    )
    return int(proc.stdout)


def test_stale_lock_of_a_dead_snakemake_is_released(tmp_path):
    host, dead = socket.gethostname(), _dead_pid()
    locks = _locked(tmp_path, [f"{host} {dead}"])
    assert release_stale_lock(tmp_path) == [dead]
    assert not locks.exists()


@pytest.mark.parametrize(
    "owners",
    [
        None,  # taken outside this workflow (or killed before onstart): no record
        ["{host} {alive}"],  # still running
        ["{host} {dead}", "{host} {alive}"],  # one of two runs still running
        ["elsewhere.example {dead}"],  # another host: its processes cannot be seen
        ["garbled"],
    ],
)
def test_lock_is_kept_unless_certainly_stale(tmp_path, owners):
    values = {"host": socket.gethostname(), "alive": os.getpid(), "dead": _dead_pid()}
    locks = _locked(tmp_path, None if owners is None else [o.format(**values) for o in owners])
    assert release_stale_lock(tmp_path) == []
    assert (locks / "0.input.lock").exists()


def test_lock_owner_is_recorded_next_to_the_lock(tmp_path):
    record_lock_owner(tmp_path)  # no lock: nothing to record
    assert not (tmp_path / ".snakemake").exists()
    locks = _locked(tmp_path, None)
    record_lock_owner(tmp_path)
    assert (locks / LOCK_OWNERS).read_text() == f"{socket.gethostname()} {os.getpid()}\n"


def test_scheduler_timers_are_coalesced():
    """Many re-evaluation requests while a timer is pending give one wake-up, not one each;
    the wake-up re-arms, so the loop still runs once per timespan."""

    class Scheduler:
        def __init__(self):
            self._open_jobs = threading.Semaphore(0)

        def _schedule_reevalutation(self, delay):
            raise AssertionError("not patched")

    assert coalesce_scheduler_timers(Scheduler) and coalesce_scheduler_timers(Scheduler)
    s = Scheduler()
    for _ in range(50):
        s._schedule_reevalutation(0.05)
    assert s._open_jobs.acquire(timeout=5)
    assert not s._open_jobs.acquire(timeout=0.3)  # one timer ran, not 50
    s._schedule_reevalutation(0.05)  # the pass the wake-up triggered arms the next timer
    assert s._open_jobs.acquire(timeout=5)
    # and Snakemake's own scheduler still has the method this replaces
    from snakemake.scheduling.job_scheduler import JobScheduler

    assert coalesce_scheduler_timers()
    assert JobScheduler._schedule_reevalutation._dprank_coalesced


_FAULTS = """
import resource, numpy as np
a = np.exp(np.linspace(-2.0, 2.0, 300))
np.log(np.add.outer(a, a))  # first touch of the heap
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for _ in range(100):
    d = np.add.outer(a, a)
    s = np.divide(a[:, None], d)
    v = np.subtract(1.0, s)
    del d, s, v
print(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
"""


@pytest.mark.skipif(
    not sys.platform.startswith("linux") or os.confstr("CS_GNU_LIBC_VERSION") is None,
    reason="glibc's malloc settings",
)
def test_malloc_settings_make_solver_temporaries_reuse_memory():
    # the n x n temporaries of one Newton step (720 KB each at n = 300), 100 times: with the
    # workflow's settings glibc reuses the freed blocks instead of mapping fresh pages
    env = {k: v for k, v in os.environ.items() if not k.startswith("MALLOC_")}
    run = subprocess.run(
        [sys.executable, "-c", _FAULTS],
        env={**env, **MALLOC_TUNING},
        capture_output=True,
        text=True,
        check=True,
    )
    # a fresh mapping would fault 3 x 176 pages per step: 52,800 in all
    assert int(run.stdout) < 2_000
    assert int(MALLOC_TUNING["MALLOC_MMAP_THRESHOLD_"]) <= 32 * 2**20  # glibc's maximum


def test_missing_configfile_becomes_snakemakes_own_error(tmp_path):
    """dprank_papers._snakemake_configfile: a path that is not a file reaches Snakemake's
    ``except FileNotFoundError`` (its one-line WorkflowError); a file is read unchanged;
    patching twice wraps once; the environment's .pth registers the finder without importing
    the dprank package."""
    import importlib

    from snakemake_interface_common.exceptions import WorkflowError

    from dprank_papers import _snakemake_configfile as fix

    module = importlib.import_module(fix.TARGET)
    assert getattr(module._load_configfile, "__wrapped__", None) is not None  # by the .pth
    wrapped = module._load_configfile
    fix.patch(module)
    assert module._load_configfile is wrapped
    for missing in (tmp_path / "nope.yaml", str(tmp_path)):
        with pytest.raises(WorkflowError, match=f"Config file {missing} not found"):
            module.load_configfile(missing)
    good = tmp_path / "c.yaml"
    good.write_text("a: 1\nb: [2, 3]\n")
    assert module.load_configfile(good) == {"a": 1, "b": [2, 3]}
    pth = fix.install(tmp_path)
    assert pth.name.endswith(".pth") and pth.read_text().startswith("import ")
    assert repr(str(Path(fix.__file__).resolve())) in pth.read_text()
    # the environment's .pth does not import the dprank package at start-up
    # nor importlib.abc (which brings importlib.resources: tens of ms of every start-up)
    out = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; print('dprank' in sys.modules, 'importlib.abc' in sys.modules)",
        ],
        capture_output=True,
        text=True,
        check=True,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": ""},
    ).stdout
    assert out.strip() == "False False"
