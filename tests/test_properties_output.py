"""Property-based tests of the public library, part five: the workflow's outputs and inputs.

The functions that read the real data sets (from the data mirror), the command line, the
privacy-budget ledger, the comparison with the published numbers, the paper tables, the
report pages and the documentation's includes, and the two Snakemake helpers (with a
fake ``snakemake`` object and a stand-in scheduler class). The same two kinds of test as
:mod:`test_properties`: a bad value of one argument raises ``ValueError`` or
``TypeError`` naming it, and valid arguments give an answer, checked where it has a
defining property (a win matrix counts the comparisons, a tolerance is its formula, a
runtime table counts the benchmark files, what a ledger records is what it lists).
Files go to one temporary folder of this module; the real data sets are read from the
data folder of tests/_data.py (``$DPRANK_DATA_MIRROR``, or the data downloaded), and the
cases that need it are skipped without one.
"""

from __future__ import annotations

import hashlib
import itertools
import sys
import tempfile
import threading
import types
from functools import cache
from pathlib import Path

import _data
import numpy as np
import pandas as pd
from hypothesis import strategies as st
from test_properties import NAN, kw, property_tests, registry

from dprank import cli, ledger
from dprank import ledger as _ledger
from dprank.base import yamlfile
from dprank.data import datasets, exports, realdata
from dprank.data.comparisons import Comparisons
from dprank.methods import _default_methods, all_methods
from dprank_papers import (
    _papers,
    compare,
    default_methods,
    docs_generate,
    docs_includes,
    docs_timing,
    docs_values,
    report,
    tables,
    workflow,
)

ROOT = Path(__file__).resolve().parents[1]
_TMP = tempfile.TemporaryDirectory(prefix="dprank-properties-output-")
TMP = Path(_TMP.name)
_COUNTER = itertools.count()

case, CASES, BUILDERS, CHECKS = registry()

BAD_PATH = [None, 3, "", ["a"]]
BAD_FRAME = ["x", None, np.ones((2, 2))]
BAD_Z = [-1.0, NAN, "4", None]
BAD_REPS = [0, -1, 0.5, "200", None]


def _fresh(stem: str) -> Path:
    """A new path in the temporary folder (one per generated example)."""
    return TMP / f"{stem}{next(_COUNTER)}"


def _mirror() -> Path:
    """The real data sets' folder; skips the test without one (tests/_data.py)."""
    return _data.mirror()


def _strategy(builder):
    """A strategy of what ``builder(draw)`` returns."""
    return st.composite(lambda draw: builder(draw))()


def _csv(path: Path) -> pd.DataFrame:
    return pd.read_csv(path, comment="#")


# ------------------------------------------------------------------------ workflow helpers
def _job_logger(snakemake, name=None):
    """Enter and leave :func:`dprank_papers.workflow.job_logger` (its checks run on entry)."""
    with workflow.job_logger(snakemake, name) as log:
        log.info("inside the job")
    return Path(snakemake.log[0]).read_text() if snakemake.log else ""


_job_logger.__wrapped__ = workflow.job_logger


def _snakemake(draw):
    rule = draw(st.sampled_from(["rule_a", "collect"]))
    log = [str(_fresh("logs") / f"{rule}.log")] if draw(st.booleans()) else []
    return types.SimpleNamespace(
        rule=rule, log=log, input=[str(ROOT / "config.yaml")], wildcards={"n": "3"}
    )


case(
    _job_logger,
    lambda draw: {
        "snakemake": _snakemake(draw),
        "name": draw(st.none() | st.sampled_from(["job", "other"])),
    },
    lambda text, kw: (
        not kw["snakemake"].log
        or (
            f"start {kw['name'] or kw['snakemake'].rule} {{'n': '3'}}" in text
            and "inside the job" in text
            and "done in" in text
        )
    ),
    snakemake=[None, "x", 3],
    name=[3, b"x", ["a"]],
)


def _scheduler(draw):
    """A stand-in for Snakemake's JobScheduler (a fresh class, with or without the timer)."""
    with_timer = draw(st.booleans())

    class Scheduler:
        def __init__(self):
            self._open_jobs = threading.Semaphore(0)

    if with_timer:
        Scheduler._schedule_reevalutation = lambda self, delay: None
    return {"scheduler_class": Scheduler}


def _check_coalesce(patched, kw):
    cls = kw["scheduler_class"]
    if not hasattr(cls, "_schedule_reevalutation"):
        return patched is False
    scheduler = cls()
    scheduler._schedule_reevalutation(60.0)  # a daemon timer that does not fire in the test
    threads = threading.active_count()
    scheduler._schedule_reevalutation(60.0)  # coalesced: no second timer
    return (
        patched is True
        and scheduler._dprank_timer_pending
        and threading.active_count() == threads
        and workflow.coalesce_scheduler_timers(cls) is True  # patching twice is harmless
    )


case(
    workflow.coalesce_scheduler_timers,
    _scheduler,
    _check_coalesce,
    scheduler_class=["x", 3, object()],
)

# ------------------------------------------------------------------------ the command line
_ITEMS = [f"item{k}" for k in range(4)]
_RANK_INPUT = TMP / "comparisons.csv"
pd.DataFrame(
    [(_ITEMS[a], _ITEMS[b]) for a, b in itertools.permutations(range(4), 2) if a < b or a == 3],
    columns=["winner", "loser"],
).to_csv(_RANK_INPUT, index=False)


def _argv(draw):
    out = _fresh("ranked").with_suffix(".csv")
    privacy = draw(
        st.sampled_from([["--privacy", "none"], ["--privacy", "edge", "--epsilon", "1"]])
    )
    seed = ["--insecure-seed", str(draw(st.integers(0, 99)))]
    return {"argv": ["rank", str(_RANK_INPUT), *privacy, *seed, "--out", str(out), "--quiet"]}


def _check_main(code, kw):
    ranked = pd.read_csv(kw["argv"][kw["argv"].index("--out") + 1])["item"].tolist()
    # item0 wins 3 of its 4 comparisons, item2 1 of 4: first and last without noise
    nonprivate = "none" not in kw["argv"] or (ranked[0], ranked[-1]) == ("item0", "item2")
    return code == 0 and sorted(ranked) == _ITEMS and nonprivate


case(cli.main, _argv, _check_main, argv=["rank", 3, [3], ("rank", None)])


# ------------------------------------------------------------------------ real data
_REGISTRY = datasets.load_registry(ROOT / "resources" / "datasets.yaml")
_FILES = {"cems": "cems/CEMS.rda", "immig": "immig/immig.RData"}


def _fetch_args(draw):
    return {
        "name": draw(st.sampled_from(["immig", "car_preferences"])),
        "registry": _REGISTRY,
        "dest_dir": _fresh("fetched"),
        "mirror": _mirror(),
    }


def _check_fetch(paths, kw):
    files = _REGISTRY[kw["name"]].files
    return len(paths) == len(files) and all(
        hashlib.sha256(p.read_bytes()).hexdigest() == f.sha256
        for p, f in zip(paths, files, strict=True)
    )


case(
    datasets.fetch,
    _fetch_args,
    _check_fetch,
    name=["bogus", None, 3],
    registry=["x", None, {"immig": 3}],
    dest_dir=BAD_PATH,
    mirror=[3, ["a"]],
    mirror_hint=[3, None],
)


@cache
def _read(name: str) -> pd.DataFrame:
    path = _mirror() / _FILES[name]
    return realdata.read_cems(path) if name == "cems" else realdata.read_immig(path)


def _reader(name):
    return lambda draw: {"path": _mirror() / _FILES[name]}


case(
    realdata.read_cems,
    _reader("cems"),
    lambda r, kw: r.equals(_read("cems")) and {"school1", "win1", "tied"} <= set(r.columns),
    path=BAD_PATH,
)
case(
    realdata.read_immig,
    _reader("immig"),
    lambda r, kw: r.equals(_read("immig")) and set(realdata.IMMIG_PAIRS) <= set(r.columns),
    path=BAD_PATH,
)


def _load_args(draw):
    name = draw(st.sampled_from(realdata.REAL_DATASETS))
    return {"name": name, "path": _mirror() / _FILES[name]}


def _check_load(data, kw):
    matrix = realdata.cems_win_matrix if kw["name"] == "cems" else realdata.immig_win_matrix
    items, wins = matrix(_read(kw["name"]))
    return data.items == items and np.array_equal(data.wins, wins) and data.n == len(items)


case(
    realdata.load_real_dataset,
    _load_args,
    _check_load,
    name=["bogus", None, 3],
    path=BAD_PATH,
)

# Small CEMS-like and immig-like frames: the win matrix counts the decided comparisons.
_SCHOOLS = realdata.CEMS_ITEMS[:4]


def _cems_frame(draw):
    rows = []
    for student in range(draw(st.integers(1, 3))):
        for a, b in itertools.combinations(_SCHOOLS, 2):
            outcome = draw(st.sampled_from(["first", "second", "tie", "missing"]))
            win1, win2, tied = {
                "first": (1.0, 0.0, 0.0),
                "second": (0.0, 1.0, 0.0),
                "tie": (0.0, 0.0, 1.0),
                "missing": (NAN, NAN, NAN),
            }[outcome]
            rows.append((float(student + 1), a, b, win1, win2, tied))
    return {
        "preferences": pd.DataFrame(
            rows, columns=["student", "school1", "school2", "win1", "win2", "tied"]
        )
    }


def _immig_frame(draw):
    n = draw(st.integers(1, 5))
    values = draw(
        st.lists(
            st.lists(st.sampled_from([1.0, -1.0, 0.0, NAN]), min_size=6, max_size=6),
            min_size=n,
            max_size=n,
        )
    )
    return {"frame": pd.DataFrame(values, columns=list(realdata.IMMIG_PAIRS))}


def _counts(comparisons: pd.DataFrame, items) -> np.ndarray:
    wins = np.zeros((len(items),) * 2, dtype=np.int64)
    for winner, loser in zip(comparisons["winner"], comparisons["loser"], strict=True):
        wins[items.index(winner), items.index(loser)] += 1
    return wins


def _decided(frame: pd.DataFrame) -> int:
    return int(((frame["win1"] != frame["win2"]) & (frame["tied"] == 0)).sum())


BAD_PREFS = [*BAD_FRAME, pd.DataFrame({"school1": ["a"]})]
case(
    realdata.cems_win_matrix,
    _cems_frame,
    lambda r, kw: (
        r[1].sum() == _decided(kw["preferences"])
        and np.array_equal(r[1], _counts(realdata.cems_comparisons(kw["preferences"]), list(r[0])))
    ),
    preferences=BAD_PREFS,
)
case(
    realdata.cems_comparisons,
    _cems_frame,
    lambda r, kw: (
        len(r) == _decided(kw["preferences"]) and list(r.columns) == ["winner", "loser", "user"]
    ),
    preferences=BAD_PREFS,
)
BAD_IMMIG = [*BAD_FRAME, pd.DataFrame({"V12": [1.0]})]
case(
    realdata.immig_win_matrix,
    _immig_frame,
    lambda r, kw: (
        r[0] == realdata.IMMIG_ITEMS
        and r[1].sum() == int(np.isin(kw["frame"].to_numpy(), (1.0, -1.0)).sum())
        and np.array_equal(r[1], _counts(realdata.immig_comparisons(kw["frame"]), list(r[0])))
    ),
    frame=[*BAD_IMMIG, pd.DataFrame({c: [2.0] for c in realdata.IMMIG_PAIRS})],
)
case(
    realdata.immig_comparisons,
    _immig_frame,
    lambda r, kw: len(r) == int(np.isin(kw["frame"].to_numpy(), (1.0, -1.0)).sum()),
    frame=BAD_IMMIG,
)


def _export_args(draw):
    return {
        "name": "immig",
        "data_dir": _fresh("export"),
        "mirror": _mirror(),
        "local_dirs": draw(st.sampled_from([[], None])),
    }


case(
    exports.export_frame,
    _export_args,
    lambda r, kw: r.equals(realdata.immig_comparisons(_read("immig"))),
    name=["bogus", None, 3],
    data_dir=BAD_PATH,
    registry_path=[3, "", ["a"]],
    mirror=[3, ["a"]],
    local_dirs=["x", 3, [3]],
)

# ------------------------------------------------------------------------ the ledger
_DATA = Comparisons.from_winner_loser([0, 1, 2, 0], [1, 2, 0, 2], n_items=3)
_ENTRY = ledger.Release(
    command="rank", mechanism="edge_mle", privacy_unit="comparison", epsilon=1.0
)
_LEDGER = TMP / "ledger.json"
for _eps in (0.5, 1.0):
    with ledger.release_to(
        _LEDGER,
        _DATA,
        ledger.Release(command="rank", mechanism="m", privacy_unit="comparison", epsilon=_eps),
        name="data.csv",
    ):
        pass


def _release_to(ledger, data, entry, *, budget=None, name=None):
    """Enter and leave :func:`dprank.ledger.release_to`: a release recorded in the ledger."""
    with _ledger.release_to(ledger, data, entry, budget=budget, name=name) as receipt:
        pass
    return receipt


_release_to.__wrapped__ = ledger.release_to


def _release_args(draw, places=("path", "ledger", "none")):
    where = draw(st.sampled_from(places))
    path = _fresh("ledger").with_suffix(".json")
    return {
        "ledger": {"path": path, "ledger": ledger.Ledger(path), "none": None}[where],
        "data": _DATA,
        "entry": _ENTRY,
        "budget": None if where == "none" else draw(st.none() | st.floats(1.0, 10.0)),
        "name": draw(st.none() | st.just("data.csv")),
    }


def _check_release(receipt, kw):
    if kw["ledger"] is None:
        return receipt is None
    path = kw["ledger"].path if isinstance(kw["ledger"], ledger.Ledger) else kw["ledger"]
    (summary,) = ledger.Ledger(path).summary()
    return [r.epsilon for r in summary.releases] == [1.0] and summary.name == kw["name"]


# data, entry and name are checked where there is a ledger (without one, nothing is recorded)
case(
    _release_to,
    lambda draw: _release_args(draw, ("path", "ledger")),
    data=["x", None],
    entry=["x", None],
    name=[3, ["a"]],
)
case(
    _release_to,
    _release_args,
    _check_release,
    ledger=[3, ["a"], ""],
    budget=[0.0, -1.0, NAN, "1"],
)
case(
    ledger.main_ledger,
    kw(path=st.sampled_from([_LEDGER, str(_LEDGER)])),
    lambda text, kw: (
        text == ledger.format_summary(ledger.Ledger(_LEDGER).summary(), kw["path"])
        and text.count("\n  20") == 2
    ),
    path=BAD_PATH,
)
_SUMMARIES = ledger.Ledger(_LEDGER).summary()
case(
    ledger.format_summary,
    kw(summaries=st.sampled_from([_SUMMARIES, []]), path=st.just(_LEDGER)),
    lambda text, kw: (
        text.startswith(f"ledger {_LEDGER}: {len(kw['summaries'])} data set")
        and text.endswith("\n")
        and text.count("data.csv") == len(kw["summaries"])
    ),
    summaries=["x", None, [3]],
    path=BAD_PATH,
)

# ------------------------------------------------------------------------ comparison
_PUB_A = ROOT / "resources" / "published" / "paper_a"
_EDGE = _csv(_PUB_A / "edge_dp_fig1-3_summary.csv")
_OVERLAP = _csv(_PUB_A / "edge_dp_exp2_vs_exp3_overlap.csv")
_DIGITIZED = _csv(_PUB_A / "individual_dp_fig5-8_digitized.csv")
_PRINTED = _csv(_PUB_A / "individual_dp_fig7_printed_rerun.csv")
_OFFSETS = st.lists(st.floats(-0.2, 0.2), min_size=6, max_size=6)


def _rows(frame: pd.DataFrame, draw, k: int = 6) -> pd.DataFrame:
    start = draw(st.integers(0, len(frame) - k))
    return frame.iloc[start : start + k].reset_index(drop=True)


def _edge_args(draw):
    published = _rows(_EDGE, draw)
    offsets = np.array(draw(_OFFSETS))
    ours = pd.DataFrame(
        {
            "experiment": published["experiment"].map(compare.EDGE_EXPERIMENTS),
            "n": published["n"],
            "p": published["p"],
            "epsilon": published["epsilon"],
            "method": published["method"].map(compare.EDGE_METHODS),
            "metric": published["metric"],
            "mean": published["mean"] + offsets,
            "se": published["se"],
            "reps": 6,
        }
    )
    keep = draw(st.integers(0, len(ours)))  # the rest: cells we did not run
    return {
        "published": published,
        "ours": ours.iloc[:keep],
        "overlap": _OVERLAP,
        "z": draw(st.floats(0, 6)),
    }


def _check_verdicts(result: pd.DataFrame, n_published: int) -> bool:
    ran = result[result["verdict"] != "not run"]
    judged = ran["verdict"].isin(["within", "outside"])
    return (
        len(result) == n_published
        and bool(judged.all())
        and bool(((ran["diff"].abs() <= ran["tolerance"]) == (ran["verdict"] == "within")).all())
    )


def _check_edge(result, kw):
    spread = compare.rerun_spread(kw["overlap"])
    ran = result[result["verdict"] != "not run"]
    expected = ran["metric"].map(spread).astype(float) + kw["z"] * np.hypot(
        ran["ours_se"], ran["published_se"]
    )
    return (
        _check_verdicts(result, len(kw["published"]))
        and (result["verdict"] != "not run").sum() == len(kw["ours"])
        and np.allclose(ran["tolerance"], expected)
    )


case(
    compare.compare_edge,
    _edge_args,
    _check_edge,
    published=[*BAD_FRAME, pd.DataFrame({"experiment": ["exp1_vs_n"]})],
    ours=[*BAD_FRAME, pd.DataFrame({"mean": [1.0]})],
    overlap=[*BAD_FRAME, pd.DataFrame({"metric": ["log_rel_l2"]})],
    z=BAD_Z,
)
case(
    compare.rerun_spread,
    kw(overlap=st.sampled_from([_OVERLAP, _OVERLAP.iloc[:5]])),
    lambda r, kw: (
        r == {m: float(g["diff"].abs().max()) for m, g in kw["overlap"].groupby("metric")}
    ),
    overlap=[*BAD_FRAME, pd.DataFrame({"metric": ["x"]})],
)


def _individual_args(draw):
    digitized = _rows(_DIGITIZED[_DIGITIZED["figure"].isin(compare.INDIVIDUAL_EXPERIMENTS)], draw)
    printed = _rows(_PRINTED, draw, 3)
    cells = []
    fixed = {"exp5": {"m": 1000}, "exp6": {"n": 16}, "exp7": {"n": 16}}
    for _, r in digitized.iterrows():
        experiment = compare.INDIVIDUAL_EXPERIMENTS[r["figure"]]
        cell = dict(
            fixed[experiment], experiment=experiment, method=compare.INDIVIDUAL_METHODS[r["method"]]
        )
        cell.update({r["x_var"]: float(r["x"]), r["series_var"]: float(r["series"])})
        cells.append({**cell, "metric": r["metric"], "mean": r["y_digitized"]})
    for _, r in printed.iterrows():
        cells.append(
            {
                "experiment": "exp7",
                "n": r["n"],
                "m": r["m"],
                "epsilon": r["epsilon"],
                "method": compare.INDIVIDUAL_METHODS[r["method"]],
                "metric": r["metric"],
                "mean": r["mean"],
            }
        )
    ours = pd.DataFrame(cells).drop_duplicates(
        ["experiment", "n", "m", "epsilon", "method", "metric"]
    )
    ours["mean"] += draw(st.floats(-0.2, 0.2))
    ours = ours.assign(sd=0.1, se=0.01, reps=10)
    return {
        "digitized": digitized,
        "printed": printed,
        "ours": ours,
        "z": draw(st.floats(0, 6)),
        "published_reps": draw(st.integers(1, 500)),
    }


case(
    compare.compare_individual,
    _individual_args,
    lambda r, kw: _check_verdicts(r, len(kw["digitized"]) + len(kw["printed"])),
    digitized=[*BAD_FRAME, pd.DataFrame({"figure": ["Figure 5"]})],
    printed=[*BAD_FRAME, pd.DataFrame({"n": [16]})],
    ours=[*BAD_FRAME, pd.DataFrame({"mean": [1.0]})],
    z=BAD_Z,
    published_reps=BAD_REPS,
)


def _real_args(draw):
    digitized = _rows(_DIGITIZED[_DIGITIZED["panel"].isin(compare.REAL_PANELS)], draw)
    ours = pd.DataFrame(
        {
            "dataset": digitized["panel"].map(compare.REAL_PANELS),
            "method": digitized["method"].map(compare.INDIVIDUAL_METHODS),
            "metric": digitized["metric"],
            "epsilon": digitized["x"].astype(float),
            "mean": digitized["y_digitized"] + draw(st.floats(-0.2, 0.2)),
            "sd": 0.1,
            "se": 0.01,
            "reps": 100,
        }
    ).drop_duplicates(["dataset", "method", "metric", "epsilon"])
    return {
        "digitized": digitized,
        "ours": ours,
        "z": draw(st.floats(0, 6)),
        "published_reps": draw(st.integers(1, 2000)),
    }


def _check_real(result, kw):
    ran = result[result["verdict"] != "not run"]
    r = kw["digitized"]["axis_fit_residual"].to_numpy()
    tol = kw["z"] * 0.1 * np.sqrt(1 / 100 + 1 / kw["published_reps"]) + r
    return _check_verdicts(result, len(kw["digitized"])) and np.allclose(ran["tolerance"], tol)


case(
    compare.compare_real,
    _real_args,
    _check_real,
    digitized=[*BAD_FRAME, pd.DataFrame({"panel": ["a (CEMS)"]})],
    ours=[*BAD_FRAME, pd.DataFrame({"mean": [1.0]})],
    z=BAD_Z,
    published_reps=BAD_REPS,
)

_B2_TABLE5 = tables.read_published_table(
    ROOT / "resources" / "published" / "paper_b" / "B2-Table5_scenarioI_estimation_errors.csv"
)


def _b2_args(draw):
    published = _rows(_B2_TABLE5, draw)
    ours = pd.DataFrame(
        {
            "model": published["model"].str.lower(),
            "metric": published["metric"],
            "method": published["method"],
            "m": published["m"].astype(int),
            "L": published["L"].astype(int),
            "mean": published["mean"] + np.array(draw(_OFFSETS)) / 10,
            "se": 0.002,
            "reps": 200,
        }
    )
    return {
        "published": published,
        "ours": ours,
        "figure": "B2 Table 5",
        "z": draw(st.floats(0, 6)),
        "published_reps": draw(st.integers(1, 500)),
    }


def _check_b2(result, kw):
    se_pub = kw["published"]["dispersion"].to_numpy() / np.sqrt(kw["published_reps"])
    tol = kw["z"] * np.hypot(0.002, se_pub)
    return (
        _check_verdicts(result, len(kw["published"]))
        and np.allclose(result["tolerance"], tol)
        and (result["figure"] == kw["figure"]).all()
    )


case(
    compare.compare_b2_table,
    _b2_args,
    _check_b2,
    published=[*BAD_FRAME, pd.DataFrame({"metric": ["linf"]})],
    ours=[*BAD_FRAME, pd.DataFrame({"mean": [1.0]})],
    figure=[3, None],
    z=BAD_Z,
    published_reps=BAD_REPS,
)


def _car_args(draw):
    m = draw(st.integers(2, 5))
    published = draw(st.permutations(range(1, m + 1)))
    ranks = {model: draw(st.permutations(range(1, m + 1))) for model in ("btl", "tm", "count")}
    table2 = pd.DataFrame(
        [
            ("BTL", "kendall_tau_K_vs_Table1_ranking", "local_adrr", 0.0757, 0.0030),
            ("BTL", "paired_t_statistic_vs_ADRR", "local_count", 4.12, NAN),
            ("BTL", "paired_t_pvalue_vs_ADRR", "local_count", 5.5e-5, NAN),
        ],
        columns=["model", "metric", "method", "mean", "dispersion"],
    )
    ours = pd.DataFrame(
        [
            ("btl", "local_adrr", draw(st.floats(0, 0.2)), 0.003, NAN, NAN),
            ("btl", "local_count", 0.08, 0.003, draw(st.floats(-10, 10)), 0.01),
        ],
        columns=["model", "method", "mean", "se", "t", "p"],
    )
    return {
        "table1": pd.DataFrame({"car_id": range(1, m + 1), "mean": [float(r) for r in published]}),
        "table2": table2,
        "ranks": ranks,
        "ours": ours,
        "z": draw(st.floats(0, 6)),
    }


def _check_car(result, kw):
    t1 = result[result["figure"] == "B2 Table 1"]
    equal = [
        float(kw["ranks"][model][car - 1]) == float(mean)
        for car, mean in zip(kw["table1"]["car_id"], kw["table1"]["mean"], strict=True)
        for model in ("btl", "tm", "count")
    ]
    return len(t1) == 3 * len(kw["table1"]) and list(t1["verdict"] == "within") == equal


case(
    compare.compare_car,
    _car_args,
    _check_car,
    table1=[*BAD_FRAME, pd.DataFrame({"mean": [1.0]})],
    table2=[*BAD_FRAME, pd.DataFrame({"mean": [1.0]})],
    ranks=["x", None, {"btl": [1, 2]}],
    ours=[*BAD_FRAME, pd.DataFrame({"mean": [1.0]})],
    z=BAD_Z,
)

VERDICTS = ["within", "outside", "not run", "not in source", "not judged"]


def _comparison(draw):
    n = draw(st.integers(0, 8))
    return pd.DataFrame(
        {
            "figure": draw(
                st.lists(st.sampled_from(["Figure 1", "Figure 2"]), min_size=n, max_size=n)
            ),
            "verdict": draw(st.lists(st.sampled_from(VERDICTS), min_size=n, max_size=n)),
            "in_paper_figure": draw(st.lists(st.booleans(), min_size=n, max_size=n)),
            "diff": draw(st.lists(st.floats(-1, 1), min_size=n, max_size=n)),
        },
        columns=["figure", "verdict", "in_paper_figure", "diff"],
    )


def _check_summary(lines, kw):
    c = kw["comparison"]
    judged = c["verdict"].isin(["within", "outside"])
    return (
        int(lines["compared"].sum()) == int(judged.sum())
        and int(lines["within"].sum()) == int((c["verdict"] == "within").sum())
        and lines.attrs["not_run"] == int((c["verdict"] == "not run").sum())
    )


case(
    compare.summary_lines,
    lambda draw: {"comparison": _comparison(draw)},
    _check_summary,
    comparison=[*BAD_FRAME, pd.DataFrame({"figure": ["x"]})],
    by=[3, None, "bogus"],
)

# ------------------------------------------------------------------------ tables
_SUMMARY = pd.DataFrame(
    [
        {
            "model": model,
            "method": method,
            "metric": metric,
            "L": L,
            "mean": 0.5 + L / 1000,
            "sd": 0.1,
        }
        for model in ("tm", "btl")
        for method in ("local_classic_rr", "local_adrr", "local_laplace")
        for metric in ("linf", "l2_over_sqrt_m", "converged")
        for L in (10, 100)
    ]
)
_METRICS = st.lists(
    st.sampled_from(["linf", "l2_over_sqrt_m"]), min_size=1, max_size=2, unique=True
)
_METHODS = st.lists(
    st.sampled_from(["local_classic_rr", "local_adrr", "local_laplace"]),
    min_size=1,
    max_size=3,
    unique=True,
)


def _spec(draw):
    return {
        "metrics": draw(_METRICS),
        "methods": draw(_METHODS),
        "index": ["model", "metric"],
        "columns": ["method", "L"],
        "digits": draw(st.integers(1, 4)),
        "dispersion": draw(st.sampled_from(["sd", "none"])),
    }


def _check_order(rows, kw):
    spec = kw["spec"]
    return (
        len(rows) == 2 * 2 * len(spec["metrics"]) * len(spec["methods"])
        and list(rows["model"].unique()) == ["BTL", "TM"]
        and list(rows["metric"].unique()) == spec["metrics"]
    )


BAD_SPEC = ["x", None, {"metrics": ["linf"]}]
case(
    tables.order_rows,
    kw(summary=st.just(_SUMMARY), spec=_strategy(_spec)),
    _check_order,
    summary=[*BAD_FRAME, pd.DataFrame({"mean": [1.0]})],
    spec=BAD_SPEC,
)
case(
    tables.paper_table,
    kw(
        summary=st.just(_SUMMARY),
        spec=_strategy(_spec),
        name=st.none() | st.just("table0"),
        tex=st.booleans(),
    ),
    lambda t, kw: (
        t.shape == (2 * len(kw["spec"]["metrics"]), 2 * len(kw["spec"]["methods"]))
        and t.map(lambda c: isinstance(c, str)).all().all()
    ),
    summary=[*BAD_FRAME, pd.DataFrame({"mean": [1.0]})],
    spec=BAD_SPEC,
    name=[3, ["a"]],
    tex=["yes", None, 2],
)


def _pivot_args(draw):
    frame = _SUMMARY[_SUMMARY["metric"] == draw(st.sampled_from(["linf", "converged"]))]
    index, columns = draw(st.sampled_from([("model", ["method", "L"]), (["model", "method"], "L")]))
    return {
        "frame": frame,
        "index": index,
        "columns": columns,
        "digits": draw(st.integers(0, 5)),
        "dispersion": draw(st.sampled_from(["sd", None])),
    }


def _check_pivot(t, kw):
    n_rows = 2 if kw["index"] == "model" else 6
    first = kw["frame"].iloc[0]
    return t.shape == (n_rows, 12 // n_rows) and str(t.iloc[0, 0]).startswith(
        f"{first['mean']:.{kw['digits']}f}"
    )


case(
    tables.pivot_table,
    _pivot_args,
    _check_pivot,
    frame=[*BAD_FRAME, pd.DataFrame({"mean": [1.0]})],
    index=[3, None, "bogus", ["L"]],
    columns=[3, None, "bogus"],
    digits=[-1, 0.5, "2", None],
    mean=[3, None, "bogus"],
    dispersion=[3, "bogus"],
    kind=[3, None],
    label=["x", 3],
    missing=[None, 3],
)
_PUB_B = sorted((ROOT / "resources" / "published" / "paper_b").glob("*.csv"))
case(
    tables.read_published_table,
    kw(path=st.sampled_from(_PUB_B)),
    lambda t, kw: list(t.columns[:14]) == tables.TIDY and len(t) > 0,
    path=BAD_PATH,
)

# ------------------------------------------------------------------------ report pages
FIGURES = ["Figure 2", "Figure 10", "B2 Table 5"]


def _lines(draw):
    figures = draw(st.lists(st.sampled_from(FIGURES), min_size=1, max_size=3, unique=True))
    compared = draw(st.lists(st.integers(0, 20), min_size=len(figures), max_size=len(figures)))
    within = [draw(st.integers(0, c)) for c in compared]
    return pd.DataFrame(
        {
            "figure": figures,
            "compared": compared,
            "within": within,
            "plotted_compared": compared,
            "plotted_within": within,
            "max_abs_diff": [0.1] * len(figures),
        }
    )


def _check_agreement(text, kw):
    parts = text.split("; ")
    s = kw["summaries"].set_index("figure")
    return len(parts) == len(kw["names"]) and all(
        p == f"{n}: {s.loc[n, 'within']} / {s.loc[n, 'compared']} within"
        if n in s.index
        else p == f"{n}: not compared in this run"
        for n, p in zip(kw["names"], parts, strict=True)
    )


BAD_LINES = [*BAD_FRAME, pd.DataFrame({"figure": ["Figure 2"]})]
case(
    report.agreement,
    kw(
        summaries=_strategy(_lines),
        names=st.lists(st.sampled_from(FIGURES), min_size=1, max_size=3),
    ),
    _check_agreement,
    summaries=BAD_LINES,
    names=["Figure 2", 3, None, [3]],
)
_ENTRY_KEYS = ("paper", "item", "departure", "reason", "effect")


def _deviations(draw):
    n = draw(st.integers(1, 3))
    return [
        {
            **{k: f"{k} {i}" for k in _ENTRY_KEYS},
            **({"comparison": ["Figure 2"]} if draw(st.booleans()) else {}),
        }
        for i in range(n)
    ]


BAD_ENTRIES = ["x", None, [3], [{"paper": "A"}]]
case(
    report.deviations_html,
    kw(entries=_strategy(_deviations), summaries=_strategy(_lines)),
    lambda html, kw: (
        html.count("<tr><td>") == len(kw["entries"])
        and all(e["reason"] in html for e in kw["entries"])
    ),
    entries=BAD_ENTRIES,
    summaries=BAD_LINES,
)


def _parts(draw):
    return {
        part: _lines(draw)
        for part in draw(st.lists(st.sampled_from(["Paper A", "Paper B2"]), unique=True))
    }


case(
    report.overview_html,
    kw(summaries=_strategy(_parts)),
    lambda html, kw: (
        all(
            f"<td class='num'>{f['within'].sum()} / {f['compared'].sum()}</td>" in html
            for f in kw["summaries"].values()
        )
        and html.count("<tr><td>") == len(kw["summaries"])
    ),
    summaries=["x", None, {"Paper A": 3}, {"Paper A": pd.DataFrame({"figure": ["x"]})}],
)


def _write_benchmarks(root: Path, files, seconds: float = 2.0) -> list[Path]:
    for k, f in enumerate(files):
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text(f"s\th:m:s\tmax_rss\n{seconds}\t0:00:02\t{100 + k}\n")
    return list(files)


def _runtime_args(draw):
    root = _fresh("bench")
    stages = draw(st.lists(st.sampled_from(["a/x", "a/b/cell1", "a/b/cell2"]), max_size=4))
    files = [
        root / s / (f"chunk{k}.tsv" if "cell" in s else "job.tsv") for k, s in enumerate(stages)
    ]
    return {"files": _write_benchmarks(root, dict.fromkeys(files)), "root": root}


case(
    report.runtime_by_stage,
    _runtime_args,
    lambda r, kw: (
        int(r["jobs"].sum()) == len(kw["files"])
        and np.isclose(r["seconds_sum"].sum(), 2.0 * len(kw["files"]))
    ),
    files=["x", None, [3], lambda kw: [TMP / "elsewhere.tsv"]],
    root=BAD_PATH,
)


# ------------------------------------------------------------------------ documentation includes
def _named_summaries(draw):
    names = draw(
        st.lists(st.sampled_from(list(docs_includes.COMPARISONS)), min_size=1, unique=True)
    )
    return {name: _lines(draw) for name in names}


def _check_agreement_table(text, kw):
    rows = text.strip().splitlines()[2:]
    papers = {docs_includes.COMPARISONS[n] for n in kw["summaries"]}
    totals = {
        p: sum(
            int(f["within"].sum())
            for n, f in kw["summaries"].items()
            if docs_includes.COMPARISONS[n] == p
        )
        for p in papers
    }
    return len(rows) == len(papers) and all(f"| {w} / " in "".join(rows) for w in totals.values())


BAD_SUMMARIES = ["x", None, {"paper_z": pd.DataFrame()}, {"paper_a_edge": "x"}]
case(
    docs_includes.benchmark_header,
    kw(command=st.text(min_size=1), note=st.text()),
    lambda r, kw: (
        r.startswith(docs_includes.BENCHMARK_HEADER + kw["command"])
        and r.endswith("do not edit by hand. -->\n")
    ),
    command=[3, None, b"x"],
    note=[3, b"x"],
)
case(
    docs_includes.agreement_table,
    lambda draw: {"summaries": _named_summaries(draw)},
    _check_agreement_table,
    summaries=BAD_SUMMARIES,
)
case(
    docs_includes.fidelity_table,
    lambda draw: {"summary": _lines(draw)},
    lambda text, kw: len(text.strip().splitlines()) == 2 + len(kw["summary"]),
    summary=BAD_LINES,
)


def _audit(draw):
    n = draw(st.integers(1, 4))
    return pd.DataFrame(
        {
            "paper": draw(
                st.lists(st.sampled_from(["paper_a", "paper_b", "control"]), min_size=n, max_size=n)
            ),
            "audit": [f"mechanism {k}" for k in range(n)],
            "claimed_eps": draw(st.lists(st.floats(0.1, 5), min_size=n, max_size=n)),
            "lower_bound": draw(st.lists(st.floats(0, 5), min_size=n, max_size=n)),
            "exact_eps": draw(st.lists(st.none() | st.floats(0, 5), min_size=n, max_size=n)),
            "verdict": draw(
                st.lists(st.sampled_from(["consistent", "VIOLATION"]), min_size=n, max_size=n)
            ),
        }
    )


case(
    docs_includes.audit_table,
    lambda draw: {"audit": _audit(draw)},
    lambda text, kw: (
        len(text.strip().splitlines()) == 2 + len(kw["audit"])
        and text.count("**VIOLATION**")
        == int(
            ((kw["audit"]["verdict"] == "VIOLATION") & (kw["audit"]["paper"] != "control")).sum()
        )
    ),
    audit=[*BAD_FRAME, pd.DataFrame({"paper": ["paper_a"]})],
)


def _dev_table_args(draw):
    return {
        "entries": _deviations(draw),
        "summaries": _lines(draw) if draw(st.booleans()) else None,
    }


case(
    docs_includes.deviations_table,
    _dev_table_args,
    lambda text, kw: len(text.strip().splitlines()) == 2 + len(kw["entries"]),
    entries=BAD_ENTRIES,
    summaries=["x", 3],
)

# ------------------------------------------------------------------------ the default methods
_LEVEL_METHODS = {
    "edge": ["edge_mle", "edge_counts", "edge_noisy_obj", "edge_one_shot"],
    "local": ["local_adrr", "local_classic_rr", "local_laplace"],
}


def _benchmark_summary(draw):
    """A benchmark summary: mean Kendall distances per (dataset, eps) of some methods."""
    rows = []
    for names in _LEVEL_METHODS.values():
        methods_ = draw(st.lists(st.sampled_from(names), min_size=1, unique=True))
        for method in methods_:
            for dataset in ("d1", "d2"):
                for eps in (1.0, 4.0):
                    mean = draw(st.floats(0, 1))
                    rows.append(
                        {"dataset": dataset, "method": method, "accounting": "user", "eps": eps}
                        | {"metric": "kendall", "mean": mean}
                    )
    return pd.DataFrame(rows)


def _check_ranking(table, kw):
    ok = set(table["privacy"]) <= set(default_methods.LEVELS)
    for _, level in table.groupby("privacy"):
        ok &= list(level["mean_rank"]) == sorted(level["mean_rank"])
        ok &= int(level["default"].sum()) == int(level["candidate"].any())
    return ok


BAD_LEVEL = ["central", None, 3]
case(
    default_methods.candidates,
    kw(privacy=st.sampled_from(list(default_methods.LEVELS))),
    lambda names, kw: names and all(n in {m.name for m in all_methods()} for n in names),
    privacy=BAD_LEVEL,
)
case(
    default_methods.ranking,
    lambda draw: {"summary": _benchmark_summary(draw)},
    _check_ranking,
    summary=[*BAD_FRAME, pd.DataFrame({"method": ["edge_mle"]})],
)


def _ranking_args(draw):
    table = default_methods.ranking(_benchmark_summary(draw))
    choices = [
        p for p in table["privacy"].unique() if table[table["privacy"] == p]["candidate"].any()
    ]
    return {"table": table, "privacy": draw(st.sampled_from(choices))}


case(
    default_methods.choose,
    _ranking_args,
    lambda name, kw: name in default_methods.candidates(kw["privacy"]),
    table=[*BAD_FRAME, pd.DataFrame({"privacy": ["edge"]})],
    privacy=BAD_LEVEL,
)
case(
    report.natural_key,
    kw(
        name=st.lists(st.integers(0, 20), min_size=2, max_size=2).map(lambda v: f"fig{v[0]}_{v[1]}")
    ),
    lambda key, kw: key == report.natural_key(kw["name"]),
)

# ------------------------------------------------------------------------ the quoted values
_VALUES = {"a": {"value": "2 s", "kind": "quoted", "source": "x"}}
BAD_VALUES = ["x", None, {"a": "x"}, {"a": {"value": 3}}, {"a": {"value": "1\n2"}}]


def _values_file(draw):
    path = _fresh("values").with_suffix(".yaml")
    docs_values.write_values(path, _VALUES)
    return {"path": path}


case(
    docs_timing.format_duration,
    kw(seconds=st.floats(0, 10_000)),
    lambda text, kw: text.endswith(" s"),
    seconds=[-1.0, NAN, float("inf"), "1", None],
)
case(
    docs_timing.format_bytes,
    kw(size=st.integers(0, 10**10)),
    lambda text, kw: text.endswith(" MB"),
    size=[-1.0, NAN, float("inf"), "1", None],
    unit=["GB", None],
)
case(
    docs_values.load_values,
    _values_file,
    lambda values, kw: values == _VALUES,
    path=[None, 3],
)
case(
    docs_values.write_values,
    lambda draw: {"path": _fresh("values").with_suffix(".yaml"), "values": _VALUES},
    lambda _, kw: docs_values.load_values(kw["path"]) == _VALUES,
    path=[None, 3],
    values=BAD_VALUES,
)
case(
    docs_values.marked,
    kw(text=st.sampled_from(["x <!--v:a-->1 s<!--/v--> y", "none"])),
    lambda found, kw: found == ([("a", "1 s")] if "v:a" in kw["text"] else []),
    text=[None, 3],
)
case(
    docs_values.apply_values,
    kw(text=st.sampled_from(["x <!--v:a-->1 s<!--/v--> y", "none"]), values=st.just(_VALUES)),
    lambda text, kw: "1 s" not in text,
    text=[None, 3],
    values=BAD_VALUES,
)


def _root(draw):
    root = _fresh("root")
    (root / "docs").mkdir(parents=True)
    quoted = draw(st.sampled_from(["2 s", "1 s"]))
    (root / "README.md").write_text(f"took <!--v:a-->{quoted}<!--/v-->\n")
    return {"root": root, "values": _VALUES}


case(
    docs_values.stale_marks,
    _root,
    lambda problems, kw: (
        len(problems) == ("<!--v:a-->1 s" in (kw["root"] / "README.md").read_text())
    ),
    root=[None, 3],
    values=BAD_VALUES,
)
case(
    docs_values.documentation_files,
    lambda draw: {"root": _root(draw)["root"]},
    lambda pages, kw: pages == [kw["root"] / "README.md"],
    root=[None, 3],
)
_LOADED = docs_values.load_values(ROOT / "docs" / "includes" / "values.yaml")
case(
    docs_values.measure_values,
    lambda draw: {
        "values": _LOADED,
        "root": ROOT,
        "results": _fresh("results"),
        "names": draw(st.lists(st.sampled_from(["registered_methods", "report_size"]))),
    },
    lambda new, kw: set(new) == set(kw["values"]),
    values=BAD_VALUES,
    root=[None, 3],
    results=[None, 3],
    names=["abc", 3],
)
case(
    docs_timing.time_command,
    lambda draw: {"name": "t", "command": [sys.executable, "-c", "pass"], "results": _fresh("r")},
    lambda record, kw: record["returncode"] == 0 and (kw["results"] / "measured/t.json").is_file(),
    name=[None, 3],
    command=["python", [], [3]],
    results=[None, 3],
)


def _timed_results(draw):
    results = _fresh("r")
    docs_timing.time_command("t", [sys.executable, "-c", "pass"], results)
    return {"results": results, "name": draw(st.sampled_from(["t", "absent"]))}


case(
    docs_timing.timed_record,
    _timed_results,
    lambda record, kw: (record is None) == (kw["name"] == "absent"),
    name=[None, 3],
    results=[None, 3],
)

# ------------------------------------------------------------------------ generated documentation
case(
    docs_generate.cli_synopses,
    kw(width=st.integers(40, 120)),
    lambda out, kw: "rank" in out and out["rank"].startswith("dprank rank [-h]"),
    width=[0, 39, "80", None],
)
case(
    docs_generate.synopsis_include,
    kw(name=st.just("rank"), usage=st.just("dprank rank [-h]")),
    lambda text, kw: text.startswith("<!--") and "```text\ndprank rank [-h]\n```" in text,
    name=[None, 3],
    usage=[None, 3],
)
case(
    docs_generate.findings_include,
    kw(findings=st.just("a: b.\n\nc: d.\n")),
    lambda text, kw: text.endswith("c: d.\n"),
    findings=[None, 3],
)
case(
    docs_generate.results_include,
    kw(what=st.just("a study (results/x.md)"), body=st.just("| a |\n|---|\n| 1 |\n")),
    lambda text, kw: text.startswith("<!--") and text.endswith("| 1 |\n"),
    what=[None, 3],
    body=[None, 3],
)
_SCALE_FIT = pd.DataFrame(
    {
        "epsilon": [1.0, float("inf")],
        "constant": [2.951, 2.15],
        "r2": [0.94, -1.0],
        "rms_log_residual": [0.022, 0.05],
        "max_abs_log_residual": [0.036, 0.087],
        "slope_measured": [0.059, 0.023],
        "slope_rate": [0.072, 0.055],
    }
)
case(
    docs_generate.scale_fit_table,
    kw(fit=st.just(_SCALE_FIT)),
    lambda text, kw: "| 1 | 2.95 | 0.94 |" in text and "| inf | 2.15 | -1.00 |" in text,
    fit=[*BAD_FRAME, _SCALE_FIT.drop(columns="r2")],
)
_SCALE_SUMMARY = pd.DataFrame(
    [
        (n, eps, method, metric, mean)
        for n, shift in ((1000, 0.0), (100000, 0.1))
        for eps in (1.0, float("inf"))
        for method, metric, _ in docs_generate.SCALE_SUMMARY_COLUMNS
        for mean in [0.5 + shift]
    ],
    columns=["n", "epsilon", "method", "metric", "mean"],
)
case(
    docs_generate.scale_summary_table,
    kw(summary=st.just(_SCALE_SUMMARY)),
    lambda text, kw: "| inf | 0.500 -> 0.600 | 0.500 -> 0.600 |" in text,
    summary=[*BAD_FRAME, _SCALE_SUMMARY.drop(columns="mean")],
)

_S3_FIT = pd.DataFrame(
    {"p": [0.5, 1.0], "eps0_grid": [2.75, 1.75], "eps0": [2.76, 1.84]}
    | {"rms_log_ratio_grid": [0.064, 0.1], "best": [True, False]}
)
case(
    docs_generate.sensitivity_fit_table,
    kw(fit=st.just(_S3_FIT)),
    lambda text, kw: "| **0.5** | **2.75 -> 2.76** | **0.064** |" in text and "| 1 |" in text,
    fit=[*BAD_FRAME, _S3_FIT.drop(columns="best")],
)
_S3_CHECK = pd.DataFrame(
    [
        (label, 0.5, eps0, table, 72, within, 0.05)
        for label, eps0 in (("the default", 2.75), ("the fit on B2 Table 6", 2.76))
        for table, within in (("B2 Table 6", 54), ("B2 Table 7", 65))
    ],
    columns=["label", "p", "eps0", "table", "compared", "within", "rms_log_ratio"],
)
case(
    docs_generate.sensitivity_check_table,
    kw(check=st.just(_S3_CHECK)),
    lambda text, kw: "| fit on Table 6: p = 0.5, eps0 = 2.76 | 54 / 72 within" in text,
    check=[*BAD_FRAME, _S3_CHECK.drop(columns="within"), _S3_CHECK.iloc[:1]],
)

_S5_CELLS = pd.DataFrame(
    {
        "figure": ["B2 Table 11"] * 2,
        "model": ["btl", "btl"],
        "method": ["local_adrr"] * 2,
        "metric": ["kendall_tau_K"] * 2,
        "theta_half": [1.0, 2.0],
        "p": [0.5, 1.0],
        "lambda_c": [1.0, 0.1],
        "verdict": ["outside", "within"],
        "diff": [0.027, -0.0005],
        "ours_mean": [0.0494, 0.0216],
        "published_mean": [0.0221, 0.0221],
    }
)
case(
    docs_generate.sensitivity_targets_table,
    kw(cells=st.just(_S5_CELLS), default=st.just({"theta_half": 1, "p": 0.5, "lambda_c": 1})),
    lambda text, kw: "| Table 11 ADRR K, BTL | 0.0221 | 0.0494 | 0.0216 (2, 1, 0.1) | 1 |" in text,
    cells=[*BAD_FRAME, _S5_CELLS.drop(columns="verdict")],
    default=[None, {"p": 0.5}],
)


def _study_results(draw):
    results = _fresh("results")
    (results / "beyond").mkdir(parents=True)
    _SCALE_FIT.to_csv(results / "beyond" / "scale_fit.csv", index=False)
    return {"root": _fresh("root"), "results": results}


case(
    docs_generate.results_includes,
    _study_results,
    lambda files, kw: {p.name for p in files} == {"beyond_scale_fit.md"},
    root=[None, 3],
    results=[None, 3],
)
case(
    docs_generate.ranking_from_module,
    lambda draw: {"ranking_constant": _default_methods.RANKING},
    lambda table, kw: len(table) == sum(len(v) for v in kw["ranking_constant"].values()),
    ranking_constant=["x", None, {"edge": "x"}, {"edge": [("edge_mle", 1.0)]}],
)
case(
    docs_generate.default_method_files,
    lambda draw: {
        "root": _fresh("root"),
        "table": docs_generate.ranking_from_module(_default_methods.RANKING),
    },
    lambda files, kw: {p.name for p in files} == {"_default_methods.py", "default_methods.md"},
    root=[None, 3],
    table=[*BAD_FRAME, pd.DataFrame({"privacy": ["edge"]})],
)

# The smoke configuration: every Paper A figure, and the B2 experiments with a grid.


def _merged(base, over):
    """``over`` merged into ``base`` key by key, as Snakemake merges config files."""
    if not (isinstance(base, dict) and isinstance(over, dict)):
        return over
    return {
        k: _merged(base[k], over[k]) if k in base and k in over else over.get(k, base.get(k))
        for k in {**base, **over}
    }


_CONFIG = _merged(
    yamlfile.read_yaml(ROOT / "config.yaml"), yamlfile.read_yaml(ROOT / ".test" / "config.yaml")
)
# the declarations as the workflow loads them (paper -> its items) and the studies' sections
_PAPERS = _papers.load_papers(
    ROOT / "workflow" / "papers", ROOT / "workflow" / "schemas" / "papers.schema.yaml", _CONFIG
)
_B2_EXPERIMENTS = ["scenario1", "scenario3", "scenario4", "hessian_m"]
_CONFIG["paper_b2"]["experiments"] = {
    e: _CONFIG["paper_b2"]["experiments"][e] for e in _B2_EXPERIMENTS
}
_BENCH = TMP / "benchmarks"
# what the workflow glue passes: the declarations, the studies' sections, the protocols, the
# chunk size
_ITEMS_A = _PAPERS["paper_a"]["items"]
_ITEMS_B2 = _PAPERS["paper_b2"]["items"]
_SECTIONS = {
    s: _CONFIG[s] for s in ("paper_a_edge", "paper_a_individual", "paper_a_real", "paper_b2")
}
_B2 = _CONFIG["paper_b2"]
_RUN = {"protocols": _CONFIG["protocols"], "chunk_size": _CONFIG["chunk_size"]}
_FIGURES_A = docs_includes.paper_a_figures(_ITEMS_A)
for _figure in _FIGURES_A:
    _write_benchmarks(
        _BENCH, docs_includes.figure_jobs(_ITEMS_A, _SECTIONS, _figure, _BENCH, **_RUN)
    )
for _experiment in _B2_EXPERIMENTS:
    _write_benchmarks(
        _BENCH,
        docs_includes.b2_experiment_jobs(_B2, _experiment, _BENCH, chunk_size=_RUN["chunk_size"]),
    )
BAD_ITEMS = ["x", None, {"fig1": "x"}, {"fig1": {"experiments": ["exp1"]}}]
BAD_SECTIONS = ["x", None, {"paper_a_edge": _SECTIONS["paper_a_edge"]}]
BAD_SECTION = ["x", None, {"figures": {}}]
BAD_PROTOCOLS = ["paper", None, [3]]
BAD_CHUNK = [0, -1, 2.5, "3", None]
BAD_BENCH = [None, 3, "", ["a"]]


def _under(paths, bench) -> bool:
    return len(paths) > 0 and all(Path(p).is_relative_to(bench) for p in paths)


case(
    docs_includes.figure_jobs,
    kw(
        items=st.just(_ITEMS_A),
        sections=st.just(_SECTIONS),
        figure=st.sampled_from(_FIGURES_A),
        bench=st.just(_BENCH),
        protocols=st.just(_RUN["protocols"]),
        chunk_size=st.just(_RUN["chunk_size"]),
    ),
    lambda r, kw: _under(r, kw["bench"]) and r[-1].name == f"{kw['figure']}.tsv",
    items=BAD_ITEMS,
    sections=BAD_SECTIONS,
    figure=[3, None, "fig99"],
    bench=BAD_BENCH,
    protocols=BAD_PROTOCOLS,
    chunk_size=BAD_CHUNK,
)
case(
    docs_includes.b2_experiment_jobs,
    kw(
        section=st.just(_B2),
        experiment=st.sampled_from(_B2_EXPERIMENTS),
        bench=st.just(_BENCH),
        chunk_size=st.just(_RUN["chunk_size"]),
    ),
    lambda r, kw: _under(r, kw["bench"] / "paper_b2" / kw["experiment"]),
    section=BAD_SECTION,
    experiment=[3, None, "bogus"],
    bench=BAD_BENCH,
    chunk_size=BAD_CHUNK,
)


def _check_runtime(text, kw, labels, jobs):
    rows = [line.split("|") for line in text.strip().splitlines()[2:]]
    return (
        len(rows) == len(labels)
        and [int(r[-4]) for r in rows] == jobs
        and all(int(r[-3]) == round(2.0 * j) for r, j in zip(rows, jobs, strict=True))
    )


case(
    docs_includes.runtime_paper_a_table,
    kw(
        items=st.just(_ITEMS_A),
        sections=st.just(_SECTIONS),
        bench=st.sampled_from([_BENCH, str(_BENCH)]),
        protocols=st.just(_RUN["protocols"]),
        chunk_size=st.just(_RUN["chunk_size"]),
    ),
    lambda text, kw: _check_runtime(
        text,
        kw,
        _FIGURES_A,
        [
            len(docs_includes.figure_jobs(_ITEMS_A, _SECTIONS, f, _BENCH, **_RUN))
            for f in _FIGURES_A
        ],
    ),
    items=BAD_ITEMS,
    sections=BAD_SECTIONS,
    bench=[*BAD_BENCH, TMP / "nothing"],
    protocols=BAD_PROTOCOLS,
    chunk_size=BAD_CHUNK,
)
case(
    docs_includes.runtime_paper_b2_table,
    kw(
        section=st.just(_B2),
        items=st.just(_ITEMS_B2),
        bench=st.sampled_from([_BENCH, str(_BENCH)]),
        chunk_size=st.just(_RUN["chunk_size"]),
    ),
    lambda text, kw: _check_runtime(
        text,
        kw,
        _B2_EXPERIMENTS,
        [
            len(docs_includes.b2_experiment_jobs(_B2, e, _BENCH, chunk_size=_RUN["chunk_size"]))
            for e in _B2_EXPERIMENTS
        ],
    ),
    section=BAD_SECTION,
    items=BAD_ITEMS,
    bench=[*BAD_BENCH, TMP / "nothing"],
    chunk_size=BAD_CHUNK,
)


def _includes_args(draw):
    return {
        "outdir": _fresh("includes"),
        "papers": _PAPERS,
        "sections": _SECTIONS,
        **_RUN,
        "bench": _BENCH,
        "summaries": _named_summaries(draw),
        "audit": _audit(draw),
        "deviations": _deviations(draw),
    }


def _check_includes(paths, kw):
    names = {p.name for p in paths}
    fidelity = {f"fidelity_{n}.md" for n in kw["summaries"]}
    return names == {
        "runtime_paper_a.md",
        "runtime_paper_b2.md",
        "agreement.md",
        "audit.md",
        "deviations.md",
    } | fidelity and all(p.read_text().startswith(docs_includes.HEADER) for p in paths)


case(
    docs_includes.write_includes,
    _includes_args,
    _check_includes,
    outdir=BAD_PATH,
    papers=["x", None, {"paper_a": _PAPERS["paper_a"]}, {"paper_a": {}, "paper_b2": {}}],
    sections=[*BAD_SECTIONS, {**_SECTIONS, "paper_b2": {"figures": {}}}],
    protocols=BAD_PROTOCOLS,
    chunk_size=BAD_CHUNK,
    bench=BAD_BENCH,
    summaries=BAD_SUMMARIES,
    audit=BAD_FRAME,
    deviations=BAD_ENTRIES,
)


# ------------------------------------------------------------------------ the tests


test_rejects_bad_argument, test_accepts_valid_arguments = property_tests(
    CASES, BUILDERS, CHECKS, bad_examples=4, valid_examples=4
)
