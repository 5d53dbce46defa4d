"""Property-based tests of the public library, part three: files, configuration, tables.

The functions that read and write files (``dprank.base.io``, ``dprank.base.yamlfile``, hashes,
the data set registry, the workflow's lock and manifest helpers), validate the
configuration, format tables and size cluster jobs. The same two kinds of test as
:mod:`test_properties`: a bad value of one argument raises ``ValueError`` or
``TypeError`` naming it, and valid generated arguments give an answer, checked where
it has a cheap defining property (what is written reads back, a hash is the file's
sha256). Files go to one temporary folder of this module.
"""

from __future__ import annotations

import hashlib
import tempfile
import unicodedata
from pathlib import Path

import numpy as np
import pandas as pd
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from test_properties import BAD_WINS, NAN, kw, property_tests, registry

from dprank.base import io, yamlfile
from dprank.data import datasets, exports, inputs, realdata
from dprank_papers import cluster, config, deps, stage_manifests, tables, workflow

ROOT = Path(__file__).resolve().parents[1]
_TMP = tempfile.TemporaryDirectory(prefix="dprank-properties-")
TMP = Path(_TMP.name)
(TMP / "data.yaml").write_text("a: 1\nb: [x, y]\n")
(TMP / "data.csv").write_text("winner,loser\na,b\nb,c\n")
np.savez(TMP / "arrays.npz", x=np.arange(3.0))
(TMP / "work").mkdir()

case, CASES, BUILDERS, CHECKS = registry()


BAD_PATH = [None, 3, "", ["a"]]
BAD_FLAG = ["yes", None, 2]
NAMES = st.text("abcxyz_", min_size=1, max_size=6)
FRAMES = st.lists(st.integers(-5, 5), min_size=1, max_size=5).map(
    lambda v: pd.DataFrame({"a": v, "b": [float(x) / 2 for x in v]})
)


def _file(name):
    return st.just(TMP / name)


# ---- io
def _atomic_path(path, mode=None):
    """Enter and leave :func:`dprank.base.io.atomic_path` (its body runs on entry), writing a
    file."""
    with io.atomic_path(path, mode) as tmp:
        tmp.write_text("x")
    return Path(path).read_text()


_atomic_path.__wrapped__ = io.atomic_path
case(
    _atomic_path,
    kw(path=st.sampled_from([TMP / "atomic.txt", str(TMP / "atomic2.txt")])),
    lambda r, kw: r == "x",
    path=BAD_PATH,
    mode=["rw", -1, 0.5],
)
case(
    io.atomic_target,
    kw(path=_file("data.csv")),
    lambda r, kw: r is None or isinstance(r, Path),
    path=BAD_PATH,
)
case(
    io.save_arrays,
    kw(
        path=_file("saved.npz"),
        compress=st.booleans(),
        x=hnp.arrays(np.float64, st.integers(0, 4), elements=st.floats(-1, 1)),
    ),
    lambda r, kw: np.array_equal(io.load_arrays(kw["path"])["x"], kw["x"]),
    path=BAD_PATH,
    compress=BAD_FLAG,
)
case(
    io.load_arrays,
    kw(path=_file("arrays.npz")),
    lambda r, kw: np.array_equal(r["x"], np.arange(3.0)),
    path=BAD_PATH,
)
case(
    io.write_csv,
    kw(path=_file("written.csv"), frame=FRAMES),
    lambda r, kw: io.read_csv(kw["path"]).equals(kw["frame"]),
    path=BAD_PATH,
    frame=["x", None, np.ones((2, 2))],
)
case(
    io.read_csv,
    kw(path=_file("data.csv")),
    lambda r, kw: list(r.columns) == ["winner", "loser"] and len(r) == 2,
    path=BAD_PATH,
)
case(
    yamlfile.read_yaml,
    kw(path=_file("data.yaml")),
    lambda r, kw: r == {"a": 1, "b": ["x", "y"]},
    path=BAD_PATH,
)


# ---- labels
case(
    inputs.normalize_label,
    kw(label=st.text()),
    lambda r, kw: (
        r == unicodedata.normalize("NFC", kw["label"]).strip() and inputs.normalize_label(r) == r
    ),
    label=[3, None, b"a"],
)


# ---- hashes and the data set registry
def _is_sha256(r, kw):
    return r == hashlib.sha256(Path(kw["path"]).read_bytes()).hexdigest()


for _f in (inputs.file_sha256, datasets.sha256):
    case(
        _f,
        kw(path=st.sampled_from(["data.csv", "data.yaml"]).map(TMP.joinpath)),
        _is_sha256,
        path=BAD_PATH,
    )
case(
    datasets.load_registry,
    kw(path=st.just(ROOT / "resources" / "datasets.yaml")),
    lambda r, kw: {"cems", "immig"} <= set(r),
    path=BAD_PATH,
)
case(
    datasets.resolve_mirror,
    kw(config_value=st.none() | st.just(str(TMP))),
    lambda r, kw: r is None or isinstance(r, Path),
    config_value=[3, ["a"]],
)
case(
    datasets.verify_local,
    kw(paths=st.just([]), registry=st.just(ROOT / "resources" / "datasets.yaml")),
    lambda r, kw: r == [],
    paths=[None, "resources/data/cems/CEMS.rda", [3]],
)
case(exports.default_registry_path, lambda draw: {}, lambda r, kw: r.is_file())
case(
    exports.registry,
    kw(path=st.none() | st.just(ROOT / "resources" / "datasets.yaml")),
    lambda r, kw: {"cems", "immig"} <= set(r),
    path=[3, "", ["a"]],
)
_REGISTRY = exports.registry()
case(
    exports.local_copy,
    kw(dataset=st.sampled_from(sorted(_REGISTRY)).map(_REGISTRY.get), folders=st.just([TMP])),
    lambda r, kw: r is None,  # no data set's files in the temporary folder
    dataset=["cems", None],
    folders=[str(TMP), None, [3]],
)

# ---- workflow helpers
case(
    workflow.canonical,
    kw(
        value=st.recursive(
            st.integers() | st.text(max_size=3),
            lambda c: st.dictionaries(st.text(max_size=3), c, max_size=3) | st.lists(c, max_size=3),
            max_leaves=8,
        )
    ),
    lambda r, kw: workflow.canonical(r) == r and str(workflow.canonical(kw["value"])) == str(r),
)
case(
    workflow.results_manifest,
    kw(results=_file("work")),
    lambda r, kw: isinstance(r, dict),
    results=BAD_PATH,
)
case(
    workflow.remove_stale_temporaries,
    kw(root=_file("work")),
    lambda r, kw: r == [],
    root=BAD_PATH,
)
case(
    workflow.record_lock_owner,
    kw(workdir=_file("work")),
    lambda r, kw: r is None,
    workdir=BAD_PATH,
)
case(
    workflow.release_stale_lock,
    kw(workdir=_file("work")),
    lambda r, kw: isinstance(r, list),
    workdir=BAD_PATH,
)
# ---- stage manifests (dprank_papers.stage_manifests)
(TMP / "stages").mkdir()
(TMP / "stages" / "table.csv").write_text("a,b\n1,2\n3,4\n")
stage_manifests.write_stage_manifest(TMP / "stages" / "table.csv", TMP / "stages", "rule_a")
_STAGE_FILE = st.sampled_from(["table.csv", "data.csv", "arrays.npz"])
case(
    stage_manifests.manifest_path,
    kw(path=_STAGE_FILE.map(lambda n: TMP / n)),
    lambda r, kw: r.parent == kw["path"].parent and r.name == f".{kw['path'].name}.manifest.json",
    path=BAD_PATH,
)
case(
    stage_manifests.is_stage_manifest,
    kw(path=st.sampled_from([".x.csv.manifest.json", "x.csv", ".manifest.json", ".a.tmp"])),
    lambda r, kw: r == (kw["path"] == ".x.csv.manifest.json"),
    path=BAD_PATH,
)
case(
    stage_manifests.describe_file,
    kw(path=st.sampled_from(["data.csv", "arrays.npz"]).map(lambda n: TMP / n)),
    lambda r, kw: (
        r["sha256"] == hashlib.sha256(kw["path"].read_bytes()).hexdigest()
        and r["bytes"] == kw["path"].stat().st_size
        and r.get("rows", 2) == 2
    ),
    path=BAD_PATH,
)
case(
    stage_manifests.write_stage_manifest,
    kw(
        path=st.just(TMP / "stages" / "table.csv"),
        results=st.just(TMP / "stages"),
        rule=st.sampled_from(["rule_a", "aggregate_metrics"]),
    ),
    lambda r, kw: r.is_file() and kw["rule"] in r.read_text(),
    path=[*BAD_PATH, TMP / "data.csv"],  # the last: not inside results
    results=BAD_PATH,
    rule=[None, 3, ""],
)
case(
    stage_manifests.rebuild_command,
    kw(path=st.just("results/x.csv"), configfiles=st.sampled_from([(), (".test/config.yaml",)])),
    lambda r, kw: r.startswith("snakemake results/x.csv ") and "--forcerun results/x.csv" in r,
    path=BAD_PATH,
)
case(
    stage_manifests.check_stage_input,
    kw(path=st.just(TMP / "stages" / "table.csv"), results=st.just(TMP / "stages")),
    lambda r, kw: r["file"] == "table.csv" and r["rows"] == 2,
    path=BAD_PATH,
    results=BAD_PATH,
)
case(
    stage_manifests.remove_orphan_manifests,
    kw(root=_file("stages")),
    lambda r, kw: r == [],
    root=BAD_PATH,
)

case(
    deps.module_files,
    kw(
        module=st.sampled_from(["dprank.privacy.noise", "dprank.base.io"]),
        src=st.just(ROOT / "src"),
    ),
    lambda r, kw: any(f.endswith(kw["module"].split(".")[-1] + ".py") for f in r),
    module=[None, 3],
    src=BAD_PATH,
)

case(
    deps.script_files,
    kw(script=st.sampled_from(sorted((ROOT / "scripts").glob("*.py"))), src=st.just(ROOT / "src")),
    lambda r, kw: all(f.endswith(".py") for f in r),
    script=BAD_PATH,
    src=BAD_PATH,
    extra_modules=["dprank.privacy.noise", None, [3]],
)

# ---- configuration
_SCHEMA = ROOT / "workflow" / "schemas" / "config.schema.yaml"
case(
    config.load_schema,
    kw(path=st.just(_SCHEMA)),
    lambda r, kw: isinstance(r, dict) and "properties" in r,
    path=BAD_PATH,
)
case(config.machine_memory, lambda draw: {}, lambda r, kw: r is None or r > 0)
case(
    config.estimate_cell_memory,
    kw(
        section=st.sampled_from(["paper_a_edge", "paper_a_individual"]),
        cell=st.integers(2, 300).map(lambda n: {"n": n}),
        replicates=st.integers(1, 10),
    ),
    lambda r, kw: isinstance(r, int) and r >= 8 * kw["cell"]["n"] ** 2,
    section=[None, 3, "bogus"],
    cell=["x", None],
    replicates=[-1, 0.5, "2", None],
)
case(
    config.bound_warnings,
    kw(
        config=st.sampled_from([1, 15, 16, 1e12]).map(
            lambda L: {"paper_a_real": {"datasets": {"cems": {"L": L}, "immig": {"L": 6}}}}
        )
    ),
    lambda r, kw: (
        len(r) == (kw["config"]["paper_a_real"]["datasets"]["cems"]["L"] > 15)
        and all(m.startswith("paper_a_real.datasets.cems.L = ") for m in r)
    ),
    config=["x", None, [1]],
)
_TEST_CONFIG = yamlfile.read_yaml(ROOT / "config.yaml")
case(
    config.validate_config,
    kw(
        config=st.just(_TEST_CONFIG).map(dict),
        schema=st.just(_SCHEMA),
        check_environment=st.just(False),
    ),
    lambda r, kw: isinstance(r, dict) and set(_TEST_CONFIG) <= set(r),
    config=["x", None, [1]],
    schema=[None, 3],
    check_environment=BAD_FLAG,
)

# ---- tables
MEAN = st.floats(-100, 100, allow_nan=False)


def _starts_with_number(text: str, mean: float, digits: int) -> bool:
    """``text`` begins with ``mean`` to ``digits`` places (a rounded zero without its sign)."""
    expected = f"{mean:.{digits}f}"
    if float(expected) == 0:
        expected = expected.lstrip("-")
    return text.startswith(expected) or text.startswith(expected.replace("-", "−"))


case(
    tables.format_cell,
    kw(mean=MEAN, disp=st.none() | st.floats(0, 10), digits=st.integers(0, 5)),
    lambda r, kw: _starts_with_number(r, kw["mean"], kw["digits"]),
    mean=["x", [1.0]],
    disp=["x"],
    digits=[-1, 0.5, "2", None],
    missing=[None, 3],
)
case(
    tables.format_pvalue,
    kw(p=st.floats(1e-12, 1), sig=st.integers(1, 4)),
    lambda r, kw: np.isclose(float(r), kw["p"], rtol=10.0 ** (1 - kw["sig"])),
    p=["x", -0.5, [0.1]],
    sig=[0, -1, 0.5, "2"],
)
case(
    tables.pvalue_text,
    kw(p=st.floats(1e-12, 1), tex=st.booleans(), sig=st.integers(1, 4)),
    lambda r, kw: isinstance(r, str) and r,
    p=["x", -0.5],
    tex=BAD_FLAG,
    sig=[0, 0.5, "2"],
)
case(
    tables.latex_escape,
    kw(text=st.text("ab_%&$# ", max_size=8)),
    lambda r, kw: (
        r.replace("\\_", "")
        .replace("\\%", "")
        .replace("\\&", "")
        .replace("\\$", "")
        .replace("\\#", "")
        .count("%")
        == 0
    ),
    text=[3, None, b"x"],
)
case(tables.paper_label, kw(name=NAMES), lambda r, kw: isinstance(r, str))
for _f in (tables.to_csv, tables.to_markdown, tables.to_latex, tables.to_html):
    case(
        _f,
        kw(table=FRAMES.map(lambda f: f.astype(str))),
        lambda r, kw: isinstance(r, str) and r,
        table=["x", None, np.ones((2, 2))],
    )

# ---- real data tables
case(
    realdata.win_frame,
    kw(
        items=st.lists(NAMES, min_size=2, max_size=4, unique=True).map(tuple),
        wins=lambda kw: hnp.arrays(np.int64, (len(kw["items"]),) * 2, elements=st.integers(0, 3)),
    ),
    lambda r, kw: np.array_equal(r.to_numpy(), kw["wins"]) and tuple(r.columns) == kw["items"],
    items=[3, "ab", (1, 2)],
    wins=[*BAD_WINS, np.zeros((5, 5))],
)

# ---- cluster resources
_ROW = {"rule": "r", "jobs": 2, "seconds_max": 120.0, "max_rss_mb": 300.0, "cpu_ratio_max": 1.0}
case(
    cluster.rule_resources,
    kw(row=st.just(_ROW), runtime_factor=st.floats(1, 5), mem_factor=st.floats(1, 3)),
    lambda r, kw: r["runtime"] >= 5 and r["mem_mb"] >= 1024 and r["threads"] >= 1,
    row=["x", None, {"rule": "r"}],
    runtime_factor=[0.0, -1.0, NAN, "3"],
    mem_factor=[0.0, -1.0, NAN, "3"],
    min_runtime=[0, -1, 0.5],
    mem_step=[0, 0.5, "x"],
)
case(
    cluster.summarise_benchmarks,
    kw(files=st.lists(NAMES, max_size=3, unique=True).map(lambda r: {x: [] for x in r})),
    lambda r, kw: sorted(r["rule"]) == sorted(kw["files"]) and (r["jobs"] == 0).all(),
    files=["x", None, {"r": 3}],
)
case(
    cluster.render_resources_block,
    kw(summary=st.just(pd.DataFrame([_ROW]))),
    lambda r, kw: r.startswith(cluster.BLOCK_BEGIN) and "  r:" in r,
    summary=["x", None, pd.DataFrame({"a": [1]})],
)
_BLOCK = f"{cluster.BLOCK_BEGIN}\nold\n{cluster.BLOCK_END}\n"
case(
    cluster.replace_block,
    kw(text=st.just(f"a: 1\n{_BLOCK}b: 2\n"), block=st.just(f"{cluster.BLOCK_BEGIN}\nnew\n")),
    lambda r, kw: "new" in r and "old" not in r and r.startswith("a: 1\n"),
    text=[None, 3, "no block here"],
    block=[None, 3],
)


# ------------------------------------------------------------------------ the tests


test_rejects_bad_argument, test_accepts_valid_arguments = property_tests(
    CASES, BUILDERS, CHECKS, bad_examples=5, valid_examples=5
)
