"""The benchmark of methods (issue 19): every method on one interface, the plug-in slot, failures.

The fast tests run the library on a small tournament; ``test_benchmark_workflow_*``
run ``snakemake benchmark`` on a tiny configuration in a temporary copy of the
repository (marked ``workflow``).
"""

from __future__ import annotations

import json
import math
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml
from test_workflow import _embedded_html, _table_cells

from dprank.data.comparisons import Comparisons
from dprank.methods import all_methods, get_method
from dprank_papers.studies import benchmark as bm

ROOT = Path(__file__).resolve().parents[1]


def tournament() -> tuple[bm.BenchmarkData, np.ndarray]:
    """Every pair of 6 items compared once (so the one-shot method runs), 5 users of 3."""
    n = 6
    theta = np.linspace(1.0, -1.0, n)
    iu, ju = np.triu_indices(n, k=1)
    rng = np.random.default_rng(3)
    y = (rng.random(iu.size) < 1 / (1 + np.exp(theta[ju] - theta[iu]))).astype(float)
    user = np.arange(iu.size) % 5
    c = Comparisons(n_items=n, i=iu, j=ju, y=y, count=np.ones(iu.size), user=user)
    return bm.BenchmarkData(c, theta, 2, True), theta


@pytest.mark.parametrize("name", [m.name for m in all_methods()])
def test_every_registered_method_returns_finite_scores_of_the_right_shape(name):
    data, _ = tournament()
    method = get_method(name)
    rows = bm.run_method(method, "t", [data], [0.5, 5.0], seed=1)
    expected = 1 if method.trust_model == "none" else 2 * len(bm.accountings(method))
    assert len(rows) == expected
    assert rows[["kendall", "top_k"]].notna().all().all()
    assert rows["kendall"].between(0, 1).all() and rows["top_k"].between(0, 1).all()
    out = method.run(data.comparisons, bm.user_budgets(method, data.comparisons, 1.0, "user"),
                     np.random.default_rng(0))  # fmt: skip
    assert out.scores.shape == (6,) and np.all(np.isfinite(out.scores))


def test_the_registry_holds_every_method_of_the_issue():
    names = {m.name for m in all_methods()}
    assert {
        "edge_mle", "edge_counts", "edge_one_shot", "edge_noisy_obj", "individual_mle",
        "individual_counts", "individual_counts_as_published", "local_classic_rr",
        "local_debiased_rr", "local_adrr", "local_laplace", "local_count",
        "nonprivate_mle", "nonprivate_counts",
    } <= names  # fmt: skip
    for m in all_methods():
        assert m.privacy_unit in ("comparison", "user", "none")
        assert m.trust_model in ("central", "local", "none")


def test_budgets_are_matched_per_user():
    data, _ = tournament()
    c = data.comparisons
    counts = c.per_user_counts()  # 3 per user
    assert bm.user_budgets(get_method("individual_mle"), c, 2.0, "user") == 2.0
    assert bm.user_budgets(get_method("edge_mle"), c, 2.0, "user") == pytest.approx(2.0 / 3)
    local = get_method("local_adrr")
    np.testing.assert_allclose(bm.user_budgets(local, c, 2.0, "user"), 2.0 / counts)
    np.testing.assert_allclose(bm.user_budgets(local, c, 2.0, "comparison"), 2.0)
    assert math.isinf(bm.user_budgets(get_method("nonprivate_mle"), c, 2.0, "none"))


def test_plugin_loader_accepts_the_example_and_rejects_a_bad_path(monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT))
    entry = {"function": "examples.noisy_borda:fit", "privacy_unit": "user"}
    method = bm.load_method("noisy_borda", {**entry, "trust_model": "central"})
    data, _ = tournament()
    rows = bm.run_method(method, "t", [data], [1.0, 10.0], seed=1)
    assert len(rows) == 2 and rows["kendall"].notna().all()
    with pytest.raises(ValueError, match=r"'nope'.*examples\.no_such_module:fit"):
        bm.load_method("nope", {**entry, "trust_model": "central",
                                "function": "examples.no_such_module:fit"})  # fmt: skip
    with pytest.raises(ValueError, match=r"'nope'.*no attribute"):
        bm.load_method("nope", {**entry, "trust_model": "central",
                                "function": "examples.noisy_borda:fitt"})  # fmt: skip
    with pytest.raises(ValueError, match=r"'nope'.*package.module:function"):
        bm.load_method("nope", {**entry, "trust_model": "central", "function": "noisy_borda"})


@pytest.mark.parametrize(
    ("body", "match"),
    [
        ("raise RuntimeError('boom')", r"'broken' failed on t .*RuntimeError: boom"),
        ("return np.zeros(3)", r"'broken' returned scores of shape \(3,\), expected \(6,\)"),
        ("return np.full(c.n_items, np.nan)", r"'broken' returned 6 non-finite"),
    ],
)
def test_a_broken_method_fails_alone_with_its_name(tmp_path, monkeypatch, body, match):
    (tmp_path / "brokenmod.py").write_text(
        f"import numpy as np\n\ndef fit(c, eps, rng, **_):\n    {body}\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    sys.modules.pop("brokenmod", None)
    broken = bm.load_method(
        "broken",
        {"function": "brokenmod:fit", "privacy_unit": "user", "trust_model": "central"},
    )
    data, _ = tournament()
    with pytest.raises(bm.MethodFailure, match=match):
        bm.run_method(broken, "t", [data], [1.0], seed=1)
    # the others are untouched by it
    ok = bm.run_method(get_method("individual_counts"), "t", [data], [1.0], seed=1)
    assert len(ok) == 1


def test_seed_keys_give_identical_results_and_methods_their_own_noise():
    data, _ = tournament()
    a = bm.run_method(get_method("edge_counts"), "t", [data, data], [0.5, 1.0], seed=7)
    b = bm.run_method(get_method("edge_counts"), "t", [data, data], [0.5, 1.0], seed=7)
    cols = ["kendall", "top_k", "l2"]
    pd.testing.assert_frame_equal(a[cols], b[cols])
    # same seed, two methods with the same mechanism but different names: different noise
    key = lambda name: bm.cell_key({"dataset": "t", "method": name, "acc": "user", "eps": 1.0})  # noqa: E731
    g1 = bm.generator(7, bm.EXPERIMENT, key("edge_counts"), 0, bm.Stream.NOISE_MLE)
    g2 = bm.generator(7, bm.EXPERIMENT, key("individual_counts"), 0, bm.Stream.NOISE_MLE)
    assert g1.random() != g2.random()
    # the data of a synthetic replicate do not depend on the method
    spec = {"n": 8, "users": 20, "L": 3, "theta_law": "uniform2"}
    c1, t1 = bm.synthetic_replicate("s", spec, 1, 4)
    c2, t2 = bm.synthetic_replicate("s", spec, 1, 4)
    np.testing.assert_array_equal(c1.y, c2.y)
    np.testing.assert_array_equal(t1, t2)


def test_the_one_shot_method_is_not_applicable_without_a_tournament():
    spec = {"n": 8, "users": 30, "L": 3, "theta_law": "uniform2"}
    c, theta = bm.synthetic_replicate("s", spec, 1, 0)
    data = bm.BenchmarkData(c, theta, 2, True)
    with pytest.raises(bm.MethodInputError, match="complete tournament"):
        bm.run_method(get_method("edge_one_shot"), "s", [data], [1.0], seed=1)


def test_threshold_table_and_finding_come_from_the_numbers():
    rows = []
    for method, tm, means in (
        ("c", "central", [0.3, 0.08, 0.04]),
        ("l", "local", [0.4, 0.2, 0.09]),
    ):
        for eps, m in zip([0.5, 2.0, 8.0], means, strict=True):
            for r, dev in enumerate((-0.01, 0.01)):
                rows.append(
                    {"dataset": "d", "method": method, "trust_model": tm,
                     "privacy_unit": "user", "accounting": "user", "eps": eps,
                     "replicate": r, "kendall": m + dev, "top_k": 0.0, "l2": np.nan}
                )  # fmt: skip
    summary = bm.summarise(pd.DataFrame(rows))
    table = bm.threshold_table(summary, [0.1, 0.05])
    got = table.set_index(["method", "threshold"])["eps"]
    assert got[("c", 0.1)] == 2.0 and got[("c", 0.05)] == 8.0
    assert got[("l", 0.1)] == 8.0 and math.isnan(got[("l", 0.05)])
    text = bm.finding("d", table, summary, 8.0)
    assert "about 4x the eps of central DP" in text
    assert "by no local method up to eps = 8" in text


def _two_method_summary() -> pd.DataFrame:
    """A benchmark summary of one central, one local and one non-private method."""
    rows = []
    for method, tm, means in (
        ("edge_mle", "central", [0.3, 0.08, 0.04]),
        ("local_adrr", "local", [0.4, 0.2, 0.09]),
        ("nonprivate_mle", "none", [0.01]),
    ):
        eps_grid = [math.inf] if tm == "none" else [0.5, 2.0, 8.0]
        for acc in {"central": ["user"], "local": ["user", "comparison"], "none": ["none"]}[tm]:
            for eps, m in zip(eps_grid, means, strict=True):
                for r, dev in enumerate((-0.01, 0.01)):
                    rows.append(
                        {"dataset": "d", "method": method, "trust_model": tm,
                         "privacy_unit": "user" if tm != "none" else "none", "accounting": acc,
                         "eps": eps, "replicate": r, "kendall": m + dev, "top_k": 0.1,
                         "l2": np.nan}
                    )  # fmt: skip
    return bm.summarise(pd.DataFrame(rows))


LABELS = {m.name: m.label for m in all_methods()}
CODE_NAMES = ("edge_mle", "local_adrr", "nonprivate_mle")


def test_method_labels_come_from_the_notes():
    notes = [{"method": "edge_mle", "label": "Perturbed MLE (Alg. 1)"}, {"method": "plug"}]
    assert bm.method_labels(notes) == {"edge_mle": "Perturbed MLE (Alg. 1)", "plug": "plug"}


def test_benchmark_legend_uses_the_labels():
    from dprank_papers.plotting.benchmark import plot_benchmark

    fig = plot_benchmark(_two_method_summary(), "d", "note", LABELS)
    texts = [t.get_text() for t in fig.legends[0].get_texts()]
    assert "Perturbed MLE (Alg. 1), central" in texts
    assert {"ADRR, local", "ADRR, eps per comparison", "Non-private MLE"} <= set(texts)
    assert not [t for t in texts if any(c in t for c in CODE_NAMES)], texts
    # without labels the names remain (a plug-in without a label)
    fig = plot_benchmark(_two_method_summary(), "d", "note")
    assert "edge_mle, central" in [t.get_text() for t in fig.legends[0].get_texts()]


def test_benchmark_tables_and_findings_use_the_labels():
    summary = _two_method_summary()
    table = bm.threshold_table(summary, [0.1])
    assert set(table["method"]) == {"edge_mle", "local_adrr"}  # the CSV keeps the names
    wide = bm.threshold_markdown_frame(table, LABELS)
    assert list(wide.index.names) == ["Data set", "Method", "Trust model", "Budget per"]
    assert set(wide.index.get_level_values("Method")) == {"Perturbed MLE (Alg. 1)", "ADRR"}
    text = bm.finding("d", table, summary, 8.0, LABELS)
    assert "the best central method, Perturbed MLE (Alg. 1), needs eps = 2" in text
    assert "the best local method, ADRR, eps = 8" in text
    assert not [c for c in CODE_NAMES if c in text], text
    notes = pd.DataFrame(
        [
            {"dataset": "d", "method": "edge_mle", "label": LABELS["edge_mle"],
             "trust_model": "central", "privacy_unit": "comparison", "status": "ok",
             "fits": 6, "seconds_per_fit": 0.01234, "message": ""},
            {"dataset": "d", "method": "edge_one_shot", "label": LABELS["edge_one_shot"],
             "trust_model": "central", "privacy_unit": "comparison",
             "status": "not_applicable", "fits": 0, "seconds_per_fit": None,
             "message": "needs a complete tournament"},
        ]
    )  # fmt: skip
    timing = bm.timing_frame(notes)
    assert list(timing.index.get_level_values("Method")) == [
        "Perturbed MLE (Alg. 1)",
        "One-shot top-k (Qiao et al.)",
    ]
    assert list(timing["Seconds per fit"]) == ["0.0123", "–"]
    assert timing.loc[("d", "One-shot top-k (Qiao et al.)"), "Note"] == (
        "needs a complete tournament"
    )


# --------------------------------------------------------------------------- workflow


COPY = ["Snakefile", "config.yaml", ".test", "workflow", "scripts", "src", "resources",
        "envs", "profiles", "examples"]  # fmt: skip


def _copy(dest: Path) -> Path:
    dest.mkdir(parents=True, exist_ok=True)
    for name in COPY:
        src = ROOT / name
        if src.is_dir():
            ignore = shutil.ignore_patterns("__pycache__", "data") if name == "resources" else None
            shutil.copytree(
                src, dest / name, ignore=ignore or shutil.ignore_patterns("__pycache__")
            )
        else:
            shutil.copy2(src, dest / name)
    return dest


def _snakemake(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    import os

    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    return subprocess.run(
        [sys.executable, "-m", "snakemake", *args], cwd=cwd, env=env,
        capture_output=True, text=True, check=False,
    )  # fmt: skip


TINY = {
    "benchmark": {
        "epsilon": [1.0, 10.0],
        "datasets": ["btl20", "cems"],
        "methods": ["individual_counts", "local_adrr", "edge_one_shot"],
        "synthetic": {"btl20": {"n": 20, "users": 100, "L": 5, "theta_law": "uniform2", "reps": 2}},
        "real": {"cems": {"reps": 2}},
    }
}


@pytest.mark.workflow
def test_benchmark_workflow_runs_the_example_and_isolates_a_broken_method(tmp_path, mirror):
    repo = _copy(tmp_path / "repo")
    (repo / "brokenmod.py").write_text(
        "def fit(c, eps, rng, **_):\n    raise RuntimeError('boom')\n"
    )
    config = yaml.safe_load((ROOT / "examples" / "benchmark-config.yaml").read_text())
    config = {"benchmark": {**TINY["benchmark"], **config["benchmark"]}}
    config["benchmark"]["plugins"]["broken"] = {
        "function": "brokenmod:fit", "privacy_unit": "user", "trust_model": "central",
    }  # fmt: skip
    (repo / "tiny.yaml").write_text(yaml.safe_dump(config))
    args = ("benchmark", "--cores", "2", "--configfile", ".test/config.yaml", "tiny.yaml")
    proc = _snakemake(repo, *args, "--keep-going")
    assert proc.returncode != 0
    log = (repo / "results/smoke/logs/benchmark/cems/broken.log").read_text()
    assert "method 'broken' failed on cems" in log and "RuntimeError: boom" in log
    for d in ("btl20", "cems"):  # every other method completed
        for m in ("individual_counts", "local_adrr", "edge_one_shot", "noisy_borda"):
            assert (repo / f"results/smoke/benchmark/{d}/{m}.json").exists(), (d, m)
    note = json.loads((repo / "results/smoke/benchmark/cems/edge_one_shot.json").read_text())
    assert note["status"] == "not_applicable" and "complete tournament" in note["message"]
    # allow_failures: the failure is recorded and the figures and tables are built
    config["benchmark"]["allow_failures"] = True
    (repo / "tiny.yaml").write_text(yaml.safe_dump(config))
    proc = _snakemake(repo, *args)
    assert proc.returncode == 0, proc.stderr[-3000:]
    for d in ("btl20", "cems"):
        for ext in ("pdf", "png", "csv"):
            assert (repo / f"results/smoke/figures/benchmark/{d}.{ext}").stat().st_size > 0
        fig = pd.read_csv(repo / f"results/smoke/figures/benchmark/{d}.csv")
        assert "noisy_borda" in set(fig["method"])
    table = pd.read_csv(repo / "results/smoke/tables/benchmark/thresholds.csv")
    assert "noisy_borda" in set(table["method"])
    for ext in ("md", "tex"):
        assert "noisy" in (repo / f"results/smoke/tables/benchmark/thresholds.{ext}").read_text()
    timing = pd.read_csv(repo / "results/smoke/tables/benchmark/timing.csv").set_index(
        ["dataset", "method"]
    )
    assert timing.loc[("cems", "broken"), "status"] == "failed"
    assert timing.loc[("cems", "individual_counts"), "seconds_per_fit"] > 0
    findings = (repo / "results/smoke/tables/benchmark/findings.md").read_text()
    assert findings.startswith("btl20: ") and "\n\ncems: " in findings
    # methods by their labels, also where one did not run (its reason without its name)
    assert "One-shot top-k (Qiao et al.) did not run (not applicable): needs a" in findings
    assert "edge_one_shot" not in findings and "local_adrr" not in findings
    # the report shows the threshold and timing tables inline, methods by their labels
    report = repo / "report.html"
    proc = _snakemake(
        repo, "--report", str(report), "--report-stylesheet", "workflow/report/style.css",
        "benchmark", "--configfile", ".test/config.yaml", "tiny.yaml",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    pages = _embedded_html(report.read_text())
    for name, header in (("thresholds.html", "K <= 0.1"), ("timing.html", "Seconds per fit")):
        rows = _table_cells(pages[name])
        assert header in rows[0] and len(rows) > 4, (name, rows[:2])
        assert all(len(row) == len(rows[0]) for row in rows), name
        methods = {row[rows[0].index("Method")] for row in rows[1:]} - {""}
        assert "ADRR" in methods and "Noisy counts (Alg. 3)" in methods, methods
        assert not methods & {"local_adrr", "individual_counts"}, methods
    assert not [n for n in pages if n.endswith(".csv")]


@pytest.mark.workflow
def test_benchmark_workflow_rejects_a_bad_plugin_path_before_any_job(tmp_path):
    repo = _copy(tmp_path / "repo")
    config = {"benchmark": {**TINY["benchmark"], "plugins": {"bad": {
        "function": "examples.nothing_here:fit", "privacy_unit": "user",
        "trust_model": "central"}}}}  # fmt: skip
    (repo / "tiny.yaml").write_text(yaml.safe_dump(config))
    proc = _snakemake(
        repo, "benchmark", "-n", "--cores", "1", "--configfile", ".test/config.yaml", "tiny.yaml"
    )
    assert proc.returncode != 0
    # Snakemake prints a workflow's parse error to stdout or stderr depending on its logger.
    assert "benchmark method 'bad': cannot load 'examples.nothing_here:fit'" in (
        proc.stdout + proc.stderr
    )


def test_example_snippet_names_the_example_function():
    text = textwrap.dedent((ROOT / "examples" / "benchmark-config.yaml").read_text())
    entry = yaml.safe_load(text)["benchmark"]["plugins"]["noisy_borda"]
    assert entry["function"] == "examples.noisy_borda:fit"
