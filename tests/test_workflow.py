"""The Snakemake workflow: dry runs, the smoke run, reproducibility and reruns.

The repository is copied to a temporary directory so that the tests can edit
files and configs without touching the checkout.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest
import yaml

from dprank.data.datasets import sha256
from dprank_papers.workflow import results_manifest

pytestmark = pytest.mark.workflow

ROOT = Path(__file__).resolve().parents[1]
COPY = [
    "Snakefile",
    "config.yaml",
    ".test",
    "workflow",
    "scripts",
    "src",
    "resources",
    "envs",
    "profiles",  # profiles/default applies to every call, as in a clone
]
TARGET_RULES = (
    {
        "all",
        "paper_a",
        "paper_a_compare",
        "fetch_data",
        "paper_a_real_wins",
        "paper_b1",
        "paper_b1_table1",
        "paper_b2",
    }
    | {f"paper_b1_fig{i}" for i in range(2, 8)}
    | {f"paper_b2_fig{i}" for i in range(3, 15)}
    | {f"paper_b2_table{i}" for i in range(1, 12)}
    | {f"paper_a_fig{i}" for i in range(1, 9)}
)
FIGURES = [f"fig{i}" for i in range(1, 9)]
#: results_dir of .test/config.yaml: smoke runs write apart from the paper-scale results/
SMOKE_RESULTS = "results/smoke"


def copy_repo(dest: Path) -> Path:
    dest.mkdir(parents=True, exist_ok=True)
    for name in COPY:
        src = ROOT / name
        if src.is_dir():
            # resources/data holds fetched data sets: the copy fetches its own
            ignore = shutil.ignore_patterns("__pycache__", "data") if name == "resources" else None
            shutil.copytree(
                src, dest / name, ignore=ignore or shutil.ignore_patterns("__pycache__")
            )
        else:
            shutil.copy2(src, dest / name)
    return dest


def _env() -> dict[str, str]:
    """The tests' environment; the real data sets come from $DPRANK_DATA_MIRROR where a test
    needs them (the fixture ``mirror``, tests/_data.py, sets it)."""
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    return env


def snakemake(cwd: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    proc = subprocess.run(
        [sys.executable, "-m", "snakemake", *args],
        cwd=cwd,
        env=_env(),
        capture_output=True,
        text=True,
        check=False,
    )
    if check and proc.returncode != 0:
        raise AssertionError(f"snakemake {' '.join(args)} failed:\n{proc.stdout}\n{proc.stderr}")
    return proc


def planned_jobs(cwd: Path, *args: str) -> list[tuple[str, str]]:
    """(rule, output) of every job a dry run would execute (target rules left out)."""
    proc = snakemake(cwd, "-n", *args)
    text = proc.stdout + proc.stderr
    jobs = []
    for block in re.split(r"\n(?=(?:local)?rule \w+:)", text):
        m = re.match(r"(?:local)?rule (\w+):", block.strip())
        if not m or m.group(1) in TARGET_RULES:
            continue
        out = re.search(r"output: (.*)", block)
        jobs.append((m.group(1), out.group(1) if out else ""))
    return jobs


def write_config(cwd: Path, edit) -> str:
    cfg = yaml.safe_load((cwd / ".test/config.yaml").read_text())
    edit(cfg)
    path = cwd / "edited.yaml"
    path.write_text(yaml.safe_dump(cfg))
    return str(path)


@pytest.fixture(scope="session")
def smoke(tmp_path_factory, mirror) -> Path:
    """A copy of the repository with the whole smoke DAG run (--cores 2).

    With ``DPRANK_SMOKE_MANIFEST`` set, the SHA-256 manifest of its seeded results
    is written there, before any test edits the copy: tests/cluster/run_slurm.sh
    (run by .ci/run after the tests) checks the Slurm run against it.
    """
    cwd = copy_repo(tmp_path_factory.mktemp("smoke"))
    snakemake(cwd, "--cores", "2", "--configfile", ".test/config.yaml")
    manifest = json.dumps(results_manifest(cwd / SMOKE_RESULTS), indent=0, sort_keys=True)
    (cwd / SMOKE_MANIFEST).write_text(manifest)  # before any test edits the copy
    if path := os.environ.get("DPRANK_SMOKE_MANIFEST"):
        Path(path).write_text(manifest)
    # The scale, sensitivity and intervals studies (not part of `all`) at their smoke size,
    # after the manifest of `all`.
    snakemake(
        cwd,
        "beyond_scale",
        "sensitivity",
        "intervals",
        "--cores",
        "2",
        "--configfile",
        ".test/config.yaml",
    )
    return cwd


SMOKE_MANIFEST = "smoke-manifest.json"


def test_smoke_scale_study(smoke):
    """The scale study's small version: figure, numbers, and one rate constant per eps."""
    config = yaml.safe_load((smoke / ".test/config.yaml").read_text())["beyond_scale"]
    fit = pd.read_csv(smoke / "results/smoke/beyond/scale_fit.csv")
    assert sorted(fit["epsilon"]) == sorted(config["epsilon"])
    assert (fit["constant"] > 0).all() and (fit["n_values"] == len(config["n"])).all()
    summary = pd.read_csv(smoke / "results/smoke/beyond/summary.csv")
    assert set(summary["n"]) == set(config["n"]) and (summary["reps"] == config["reps"]).all()
    assert (smoke / "results/smoke/figures/beyond/scale.png").stat().st_size > 10_000
    assert len(pd.read_csv(smoke / "results/smoke/figures/beyond/scale.csv")) > 0


def test_smoke_sensitivity_study(smoke):
    """The sensitivity study's small version: the fit, the held-out check, every setting."""
    config = yaml.safe_load((smoke / ".test/config.yaml").read_text())["sensitivity"]
    fit = pd.read_csv(smoke / "results/smoke/sensitivity/scenario3/fit.csv")
    assert sorted(fit["p"]) == sorted(config["scenario3"]["p"]) and fit["best"].sum() >= 1
    eps0 = config["scenario3"]["eps0"]
    assert fit["eps0"].between(min(eps0), max(eps0)).all()
    check = pd.read_csv(smoke / "results/smoke/sensitivity/scenario3/check_summary.csv")
    assert set(check["table"]) == {"B2 Table 6", "B2 Table 7"}
    # every cell of the smoke grid that the paper prints, at both settings
    assert (check["compared"] == 8).all()
    settings = pd.read_csv(smoke / "results/smoke/sensitivity/settings.csv")
    s5 = config["scenario5"]
    assert len(settings) == len(s5["theta_half"]) * len(s5["p"]) * len(s5["lambda_c"])
    # Tables 10 (ADRR, Laplace, classic RR: 12 cells) and 11 (4 cells); NoisyObj not run
    assert (settings["compared"] == 16).all()
    findings = (smoke / "results/smoke/sensitivity/findings.md").read_text()
    assert "Scenario III, fitted on Table 6 alone" in findings and "At the default" in findings
    # the cells by the papers' labels, not the metrics' and methods' code names
    assert "B2 Table 11, ADRR, Full ranking error (BTL): printed" in findings
    assert not [c for c in ("kendall_tau_K", "l2_over_sqrt_m", "local_classic_rr") if c in findings]
    assert (smoke / "results/smoke/figures/sensitivity/sensitivity.png").stat().st_size > 10_000
    assert (smoke / "results/smoke/report/sensitivity/findings.html").exists()


def test_smoke_intervals_study(smoke):
    """The intervals' coverage study, small: every selected design in the table and figure."""
    config = yaml.safe_load((smoke / ".test/config.yaml").read_text())["intervals"]
    table = pd.read_csv(smoke / SMOKE_RESULTS / "tables/intervals/coverage.csv")
    assert table["design"].tolist() == config["selected"]
    assert table["n_items"].tolist() == [config["designs"][d]["n_items"] for d in table["design"]]
    assert (table["replicates"] == config["reps"]).all()
    assert table[["score_cover", "rank_cover"]].stack().between(0, 1).all()
    # located: the share of (item, replicate) rows whose intervals locate the item
    for r in table.itertuples():
        rows = pd.read_csv(smoke / SMOKE_RESULTS / f"intervals/{r.design}.csv", comment="#")
        assert r.located == pytest.approx(rows["informative"].mean(), abs=1e-12)
    md = (smoke / SMOKE_RESULTS / "tables/intervals/coverage.md").read_text()
    assert all(name in md for name in config["selected"])
    assert (smoke / SMOKE_RESULTS / "figures/intervals/coverage.png").stat().st_size > 10_000
    assert len(pd.read_csv(smoke / SMOKE_RESULTS / "figures/intervals/coverage.csv")) == 2 * len(
        table
    )


def test_full_config_dry_run(tmp_path):
    cwd = copy_repo(tmp_path)
    jobs = planned_jobs(cwd, "paper_a")
    rules = {r for r, _ in jobs}
    assert {
        "simulate_comparisons",
        "privatize",
        "estimate",
        "compute_metrics",
        "aggregate_metrics",
        "plot_paper_a_figure",
        "compare_paper_a_edge",
        "compare_paper_a_individual",
        "fetch_cems",
        "fetch_immig",
        "real_data_wins",
        "real_data_metrics",
    } <= rules
    # paper scale writes results/ (results_dir: results), never the smoke run's results/smoke
    outputs = [f for r, o in jobs if not r.startswith("fetch_") for f in o.split(", ")]
    assert outputs and all(f.startswith("results/") for f in outputs)
    assert not [f for f in outputs if f.startswith(f"{SMOKE_RESULTS}/")]
    b2 = {r for r, _ in planned_jobs(cwd, "paper_b2")}
    assert {"simulate_releases", "fit_paper_b", "table_paper_b", "compare_paper_b2"} <= b2
    # Paper A at paper scale: one job per stage, experiment and chunk (job_keys: [])
    config = yaml.safe_load((cwd / "config.yaml").read_text())
    chunks = {
        (study, name): -(-exp["reps"] // (exp.get("chunk_size") or config["chunk_size"]))
        for study in ("paper_a_edge", "paper_a_individual")
        for name, exp in config[study]["experiments"].items()
    }
    assert all(
        exp["job_keys"] == []
        for s in ("paper_a_edge", "paper_a_individual")
        for exp in config[s]["experiments"].values()
    )
    counts = {r: sum(1 for rule, _ in jobs if rule == r) for r in rules}
    assert counts["simulate_comparisons"] == sum(chunks.values())
    for rule in ("privatize", "estimate", "compute_metrics"):
        # one job per block and chunk writes both protocols' files
        assert counts[rule] == sum(chunks.values()), rule
        assert all("/paper/" in o and "/authors/" in o for r, o in jobs if r == rule), rule
    stages = {"simulate_comparisons", "privatize", "estimate", "compute_metrics"}
    assert all("/all/chunk" in o for r, o in jobs if r in stages)
    figures = {o for r, o in jobs if r == "plot_paper_a_figure"}
    for fig in FIGURES[:-1]:
        for protocol in ("paper", "authors"):
            assert any(f"{fig}_{protocol}.pdf" in o for o in figures), (fig, protocol)
    # Figure 8: one figure for both protocols (their means are equal there)
    single = [o for r, o in jobs if r == "plot_paper_a_single"]
    assert len(single) == 1 and "/fig8.pdf" in single[0]


def test_quoted_job_counts_are_the_dry_runs(tmp_path):
    """The job counts the docs quote (docs/includes/values.yaml) are what snakemake plans."""
    from dprank_papers.docs_measures import MEASURES
    from dprank_papers.docs_values import load_values

    cwd = copy_repo(tmp_path)
    values = load_values(ROOT / "docs/includes/values.yaml")
    counted = [name for name in values if values[name]["kind"] == "derived"]
    counted = [name for name in counted if name.endswith("_jobs")]
    assert {"paper_jobs", "smoke_jobs"} <= set(counted)
    for name in counted:
        assert values[name]["value"] == MEASURES[name].measure(cwd, cwd / "results"), name
    # the rerun counts quoted from a finished run's copy (snakemake -n after an edit) are this
    # plan less what the edit leaves alone (the tests below check which rules rerun, smoke)
    from dprank_papers._docs_readers import planned_job_table

    table = planned_job_table(cwd)
    kept = sum(c for r, c in table.items() if r.startswith("fetch_") or r == "real_data_wins")
    assert values["rerun_after_solver_edit"]["value"] == str(table["total"] - kept)
    plots = ("plot_paper_a_figure", "plot_paper_a_single", "runtime_report", "report_page_runtime")
    assert values["rerun_after_plot_edit"]["value"] == str(sum(table[r] for r in plots))


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        (lambda c: c.update(sead=1), "'sead' was unexpected"),
        (
            lambda c: c["paper_a_edge"]["experiments"]["exp1"].update(epsilon=[0.5, -1.0]),
            "must be > 0, got -1.0",
        ),
        (lambda c: c["paper_a_edge"]["experiments"]["exp2"].update(rep=3), "'rep' was unexpected"),
        (
            lambda c: c["paper_a_edge"]["experiments"]["exp1"].update(n=[1_000_000]),
            "exp1: the cell with n = 1000000 needs about",
        ),
        (lambda c: c.update(data_mirror="/nonexistent"), "data_mirror: the folder '/nonexistent'"),
        (
            lambda c: c["paper_a_edge"]["experiments"]["exp1"].update(epsilon=[float("nan"), 1.0]),
            "paper_a_edge.experiments.exp1.epsilon[0]: NaN is not a value here",
        ),
        (
            lambda c: c["paper_a_edge"]["experiments"]["exp1"].update(p=[float("nan")]),
            "paper_a_edge.experiments.exp1.p[0]: NaN is not a value here",
        ),
        (
            lambda c: c["paper_b2"]["experiments"]["scenario1"].update(eps={"range": [5.0, 1.0]}),
            "paper_b2.experiments.scenario1.eps.range: a range [low, high] must not descend",
        ),
        (
            lambda c: c["paper_a_real"].update(epsilon=[float("inf"), 4.0]),
            "paper_a_real.epsilon[0]: must be a finite number, got inf",
        ),
        (
            lambda c: c["beyond_scale"].update(n=[100_000_000]),
            "beyond_scale: the cell with n = 100000000, degree = 20 needs about",
        ),
        (
            lambda c: c["benchmark"]["synthetic"]["btl20"].update(n=1_000_000),
            "benchmark.synthetic.btl20: the cell with n = 1000000",
        ),
    ],
)
def test_bad_config_fails_before_any_job(tmp_path, edit, expected):
    cwd = copy_repo(tmp_path)
    proc = snakemake(cwd, "--cores", "1", "--configfile", write_config(cwd, edit), check=False)
    assert proc.returncode != 0
    assert expected in proc.stdout + proc.stderr
    assert "invalid configuration" in proc.stdout + proc.stderr
    assert not (cwd / "results").exists()


def test_nested_config_overrides_are_typed_and_a_missing_configfile_is_named(tmp_path):
    """--config passes nested values as strings: they are read as YAML where the schema
    expects another type. A missing --configfile (or a folder given as one) stops Snakemake
    before the Snakefile runs with one line naming it, no traceback (docs/robustness.md,
    dprank_papers._snakemake_configfile)."""
    cwd = copy_repo(tmp_path)
    proc = snakemake(
        cwd, "-n", *SMOKE, "--config", "paper_a_real={reps: 5, epsilon: [0.5, 4]}", check=False
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "invalid configuration" not in proc.stdout + proc.stderr
    proc = snakemake(cwd, "-n", *SMOKE, "--config", "paper_a_real={reps: five}", check=False)
    assert proc.returncode != 0
    assert "paper_a_real.reps: 'five' is not of type 'integer'" in proc.stdout + proc.stderr
    for missing in ("nope.yaml", "workflow"):  # a missing file, a folder
        proc = snakemake(cwd, "-n", "--configfile", missing, check=False)
        assert proc.returncode == 1
        out = proc.stdout + proc.stderr
        assert f"Config file {missing} not found." in out
        assert "Traceback" not in out and "File " not in out, out
        assert not (cwd / "results").exists()


def test_smoke_outputs(smoke):
    figdir = smoke / "results/smoke/figures/paper_a"
    for fig in FIGURES:
        for protocol in ("paper", "authors") if fig != "fig8" else ("",):
            stem = f"{fig}_{protocol}" if protocol else fig
            for ext in ("pdf", "png"):
                assert (figdir / f"{stem}.{ext}").stat().st_size > 10_000
            table = pd.read_csv(figdir / f"{stem}.csv")
            panels = set(table["panel"])
            assert panels == ({"a", "b"} if fig in ("fig4", "fig8") else {"a", "b", "c", "d"})
            assert table["mean"].notna().all()
    # one Figure 8: both protocols' rows, equal means
    fig8 = pd.read_csv(figdir / "fig8.csv")
    by = [c for c in fig8 if c not in ("protocol", "mean", "sd", "se")]
    means = fig8.pivot_table(index=by, columns="protocol", values="mean")
    assert (means["paper"] == means["authors"]).all() and len(means) == len(fig8) // 2
    for name in ("paper_a_edge", "paper_a_individual"):
        summary = pd.read_csv(smoke / f"results/smoke/comparison/{name}_summary.csv")
        assert (summary["within"] <= summary["compared"]).all()
    # Paper B (B2): every figure, every table in three formats, the comparison
    for fig in range(3, 15):
        assert (smoke / f"results/smoke/figures/paper_b2/fig{fig}.png").stat().st_size > 10_000
        assert len(pd.read_csv(smoke / f"results/smoke/figures/paper_b2/fig{fig}.csv")) > 0
    markdown = (smoke / "results/smoke/tables/paper_b2/table5.md").read_text()
    assert "| BTL |" in markdown and "(0." in markdown
    assert "\\toprule" in (smoke / SMOKE_RESULTS / "tables/paper_b2/table5.tex").read_text()
    table10 = (smoke / SMOKE_RESULTS / "tables/paper_b2/table10.md").read_text()
    assert "| TM | m^(-1/2) ‖θ̂ − θ*‖₂ |" in table10 and "|  | ‖θ̂ − θ*‖∞ |" in table10
    assert "standard error" in table10
    assert "| Classic RR |" in table10 and "ClassicRR" not in table10
    assert (
        "("
        not in (smoke / SMOKE_RESULTS / "tables/paper_b2/table4.md").read_text().split("|", 1)[1]
    )
    compared = pd.read_csv(smoke / SMOKE_RESULTS / "comparison/paper_b2.csv")
    assert {f"B2 Table {i}" for i in range(1, 12)} == set(compared["figure"])
    # car data: the non-private rankings are B2 Table 1's, whatever the replicate count
    table1 = compared[compared["figure"] == "B2 Table 1"]
    assert len(table1) == 30 and (table1["verdict"] == "within").all()
    table2 = (smoke / SMOKE_RESULTS / "tables/paper_b2/table2.md").read_text()
    assert "| Paired t-test: p-value |" in table2 and "t statistic (ours) |" in table2
    # B2 Table 1's row labels as printed; B1 Table 1's three columns, its .tex within the page
    car1 = (smoke / SMOKE_RESULTS / "tables/paper_b2/table1.md").read_text()
    assert "| Aspects |" in car1 and "| Body type |" in car1
    b1 = (smoke / SMOKE_RESULTS / "tables/paper_b1/table1.md").read_text()
    assert next(line for line in b1.splitlines() if line.startswith("| ")).count("|") == 4
    b1_tex = (smoke / SMOKE_RESULTS / "tables/paper_b1/table1.tex").read_text()
    assert "\\resizebox{\\textwidth}" in b1_tex and "\\begin{tabular}{lrr}" in b1_tex
    # no printed table holds a code name (metric, column or registered method)
    from dprank.methods import all_methods
    from dprank_papers.tables import CODE_NAMES

    names = [*CODE_NAMES, *(m.name for m in all_methods() if m.name != m.label)]
    for path in (smoke / SMOKE_RESULTS / "tables").rglob("*"):
        if path.suffix in (".md", ".tex", ".html"):
            text = path.read_text()
            found = [n for n in names if re.search(rf"(?<![A-Za-z_]){n}(?![A-Za-z_])", text)]
            assert not found, (path.name, found)
    # overlays: the published points over ours; one comparison table per paper
    for path in (
        "paper_a/fig1_authors_overlay.png",
        "paper_a/fig8_overlay.png",
        "paper_b2/fig4_overlay.png",
        "paper_b2/fig9_overlay.png",
    ):
        assert (smoke / "results/smoke/figures" / path).stat().st_size > 10_000, path
    paper_a = pd.read_csv(smoke / "results/smoke/comparison/paper_a.csv")
    assert "ours_paper_protocol_mean" in paper_a and set(paper_a["part"]) == {"edge", "individual"}
    fig8 = paper_a[paper_a["figure"] == "Figure 8"]
    assert fig8["ours_paper_protocol_mean"].notna().any()  # both protocols beside the paper
    b1 = pd.read_csv(smoke / "results/smoke/comparison/paper_b1_summary.csv")
    assert "B1 Table 1" in set(b1["figure"])
    # privacy audit: every mechanism, the broken control flagged
    audit = pd.read_csv(smoke / "results/smoke/audit/privacy.csv").set_index("audit")
    assert audit.loc["Laplace LDP, half the noise (broken)", "verdict"] == "VIOLATION"
    assert audit.loc["classic RR", "verdict"] == "consistent"
    # Paper B (B1): Figures 2-7 and Table 1 from the measured trends
    for fig in range(2, 8):
        assert (smoke / f"results/smoke/figures/paper_b1/fig{fig}.png").stat().st_size > 10_000
    b1_table1 = pd.read_csv(smoke / "results/smoke/tables/paper_b1/table1.csv")
    assert len(b1_table1) == 3 and "linf observed" in b1_table1.columns
    scaling = pd.read_csv(smoke / "results/smoke/paper_b2/timing/scaling.csv")
    assert set(scaling["metric"]) == {"seconds_aggregate", "seconds_solve", "seconds_total"}
    # the real data's win matrices come out of the fetched files
    wins = pd.read_csv(smoke / "results/smoke/paper_a_real/cems/wins.csv", index_col=0)
    assert wins.to_numpy().sum() == 3967
    # every metric chunk: all fits converged
    paths = list((smoke / SMOKE_RESULTS).glob("paper_a_*/*/*/metrics/*/chunk*.csv"))
    paths += list((smoke / "results/smoke/paper_a_real").glob("*/*/metrics.csv"))
    paths += list((smoke / "results/smoke/paper_b2").glob("*/metrics/*/chunk*.csv"))
    assert len(paths) >= 36  # 22 Paper A block chunks, 4 real-data runs, 10 B2 chunks (smoke)
    for path in paths:
        rows = pd.read_csv(path)
        # the TM objective of the Laplace plug-in can be unbounded (noisy, negative
        # statistics): its non-converged fits are kept and counted, not required away
        if "method" in rows:
            rows = rows[rows["method"] != "local_laplace"]
        conv = rows[rows["metric"] == "converged"]["value"]
        assert (conv == 1).all(), path
    # Paper A's data and noise are temporary (keep_intermediates: false); estimates stay
    results = smoke / SMOKE_RESULTS
    assert not list(results.glob("paper_a_*/*/data/*/*.npz"))
    assert not list(results.glob("paper_a_*/*/*/noise/*/*.npz"))
    assert list(results.glob("paper_a_*/*/*/estimates/*/*.npz"))
    # logs and benchmarks for every job
    assert list((smoke / "results/smoke/logs").rglob("*.log"))
    assert list((smoke / "results/smoke/benchmarks").rglob("*.tsv"))
    assert "Nothing to be done" in (lambda p: p.stdout + p.stderr)(
        snakemake(smoke, "-n", "--configfile", ".test/config.yaml")
    )


def _embedded_html(report: str) -> dict[str, str]:
    """The HTML items of a Snakemake report: file name -> decoded page."""
    import base64

    pattern = r"data:text/html;charset=[^;]+;filename=([^;]+);base64,([A-Za-z0-9+/=]+)"
    return {m[0]: base64.b64decode(m[1]).decode() for m in re.findall(pattern, report)}


def _table_cells(page: str) -> list[list[str]]:
    """The rows of the first <table> of an HTML page, as lists of cell texts."""
    from html.parser import HTMLParser

    class Parser(HTMLParser):
        def __init__(self):
            super().__init__()
            self.rows, self.depth, self.cell = [], 0, None

        def handle_starttag(self, tag, attrs):
            if tag == "table":
                self.depth += 1
            elif tag == "tr" and self.depth == 1:
                self.rows.append([])
            elif tag in ("td", "th") and self.depth == 1:
                self.cell = ""

        def handle_endtag(self, tag):
            if tag in ("td", "th") and self.cell is not None:
                self.rows[-1].append(self.cell)
                self.cell = None
            elif tag == "table":
                self.depth += 1  # only the first table

        def handle_data(self, data):
            if self.cell is not None:
                self.cell += data

    parser = Parser()
    parser.feed(page)
    return parser.rows


REPORT_STYLE = "workflow/report/style.css"


@pytest.fixture(scope="session")
def smoke_report(smoke) -> Path:
    """The smoke run's report, with the studies the fixture ``smoke`` built."""
    report = smoke / "results/smoke/report.html"
    studies = ("beyond_scale", "sensitivity", "intervals")
    snakemake(
        smoke, "--report", str(report), "--report-stylesheet", REPORT_STYLE, "all", *studies,
        "--configfile", ".test/config.yaml",
    )  # fmt: skip
    return report


def _report_variable(html: str, name: str):
    """A JSON variable of the report's own scripts (``results``, ``categories``,
    ``rulegraph_spec``: each in ``<script id=...>``, after the libraries)."""
    script = {"rulegraph_spec": "rulegraph"}.get(name, name)
    m = re.search(rf'<script id="{script}">\s*var {name} = (.*?);\s*</script>', html, flags=re.S)
    assert m, name
    return json.loads(m.group(1))


def test_report_holds_every_figure_table_and_page(smoke, smoke_report):
    report, style = smoke_report, REPORT_STYLE
    html = report.read_text()
    assert f"<style>{(smoke / style).read_text()}</style>" in html  # the stylesheet, embedded
    names = [f"fig{i}_{p}.png" for i in range(1, 8) for p in ("paper", "authors")]
    names += ["paper_a/fig8.png", "paper_a/fig8_overlay.png"]
    names += [f"paper_b2/fig{i}.png" for i in range(3, 15)]
    names += [f"paper_b1/fig{i}.png" for i in range(2, 8)]
    # every table inline: an HTML page each (also the comparison summaries, audit, runtime)
    names += [f"paper_b2/table{i}.html" for i in range(1, 12)] + ["paper_b1/table1.html"]
    pages = ("paper_a_edge", "paper_a_individual", "paper_b2", "paper_b1", "audit", "runtime")
    names += [f"pages/{page}.html" for page in pages]
    names += ["deviations.html", "overview.html"]
    missing = [n for n in names if n not in html]
    assert not missing, missing
    assert "Paper B (B2) Figure 14" in html  # captions name the paper item
    # the table items render as HTML tables: decode the embedded pages and parse them
    pages = _embedded_html(html)
    tables = [n for n in pages if n.startswith("table")]
    assert len(tables) == 11, sorted(pages)  # B2 Tables 1-11 (and B1 Table 1, same name)
    studies = ["scale_fit.html", "intervals_coverage.html", "sensitivity_settings.html"]
    studies.append("sensitivity_scenario3.html")
    for name in [*tables, "paper_b2.html", "audit.html", "runtime.html", "overview.html", *studies]:
        cells = _table_cells(pages[name])
        assert len(cells) >= 2 and all(len(row) == len(cells[0]) for row in cells), name
    deviations = (smoke / SMOKE_RESULTS / "report/deviations.html").read_text()
    assert "B2 Table 11:" in deviations and "within" in deviations
    runtime = pd.read_csv(smoke / "results/smoke/report/runtime.csv")
    assert runtime["jobs"].sum() > 100 and (runtime["seconds_sum"] > 0).all()


def _natural(name: str) -> list:
    return [(0, int(t), "") if t.isdigit() else (1, 0, t) for t in re.split(r"(\d+)", name)]


def test_report_runtime_table_sorts_numerically(smoke_report):
    """fig3 before fig10: the stages of the runtime page compare their numbers as numbers."""
    rows = _table_cells(_embedded_html(smoke_report.read_text())["runtime.html"])
    stages = [row[0] for row in rows[1:]]
    assert len(stages) > 20 and stages == sorted(stages, key=_natural)
    figures = [s for s in stages if s.startswith("figures/paper_b2/fig")]
    assert figures.index("figures/paper_b2/fig3") < figures.index("figures/paper_b2/fig10")


def test_report_comparison_captions_match_their_columns(smoke_report):
    """A summary with a difference column says so; B1's (words and counts) has none and its
    caption promises none."""
    html = smoke_report.read_text()
    pages, results = _embedded_html(html), _report_variable(html, "results")
    captions = {Path(path).name: entry["caption"] for path, entry in results.items()}
    for name in ("paper_a_edge.html", "paper_b2.html", "paper_b1.html"):
        header = _table_cells(pages[name])[0]
        has_column = "Largest |difference|" in header
        for caption in (captions[name], pages[name].split("<table>")[0]):
            assert ("largest absolute difference" in caption) == has_column, name
            assert ("ours, difference," in caption) == has_column, name
    assert "Largest |difference|" not in _table_cells(pages["paper_b1.html"])[0]


def test_report_rule_graph_draws_each_rule_once(smoke_report):
    """Snakemake draws a rule once per depth of the DAG at which it has jobs: the report pages
    and the B figures come out of pipelines of different lengths, so each has its own rule."""
    spec = _report_variable(smoke_report.read_text(), "rulegraph_spec")
    nodes = [n["rule"] for d in spec["data"] if d["name"] == "node-data" for n in d["values"]]
    assert len(nodes) > 30
    repeated = sorted({n for n in nodes if nodes.count(n) > 1})
    assert repeated == [], repeated
    assert "plot_paper_b_figure" in nodes and "report_page_audit" in nodes


def test_report_agreement_overview_comes_first(smoke_report):
    """The report lists a category's subcategories by name (localeCompare): the overview of
    "Agreement with the papers" comes before the deviations and the per-paper summaries."""
    categories = _report_variable(smoke_report.read_text(), "categories")
    names = sorted(categories["Agreement with the papers"], key=str.casefold)
    assert names[0] == "All papers (overview)", names
    assert names.index("Deviations") > 0 and len(names) >= 4


def _chromium() -> str:
    """Debian's chromium; absent: a skip on a developer's machine, a failure in CI."""
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    if path is None:
        if os.environ.get("CI") == "true":
            pytest.fail("chromium is missing: CI installs Debian's chromium (.ci/run)")
        pytest.skip(
            "needs Debian's chromium for the report's screenshot (apt-get install chromium)"
        )
    return path


def _headless(chromium: str, profile: Path, *args: str) -> subprocess.CompletedProcess:
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
    flags += ["--no-first-run", "--disable-component-update", "--disable-sync"]
    flags += [f"--user-data-dir={profile}", "--window-size=1400,900"]
    return subprocess.run(
        [chromium, *flags, *args], capture_output=True, text=True, timeout=180, check=False
    )


#: Injected into the audit page: its width once laid out, sent to the report around it
_MEASURE = (
    "<script>window.addEventListener('load', function () {"
    "var d = document.documentElement, t = document.querySelector('table');"
    "parent.postMessage({dprank: 1, scrollWidth: d.scrollWidth, clientWidth: d.clientWidth,"
    " tableRight: t.getBoundingClientRect().right}, '*');});</script>"
)
#: Injected into the report: open the audit page as a reader does (its item, then its view)
#: and write what the page measured into the document
_OPEN_AUDIT = (
    "<script>window.addEventListener('message', function (e) {"
    "if (!e.data || !e.data.dprank) return;"
    "var frame = document.querySelector('iframe'), pane = frame.parentElement,"
    " root = document.documentElement;"
    "e.data.paneScrollWidth = pane.scrollWidth; e.data.paneClientWidth = pane.clientWidth;"
    "e.data.windowScrollWidth = root.scrollWidth; e.data.windowClientWidth = root.clientWidth;"
    "document.title = 'dprank-measure ' + JSON.stringify(e.data);});"  # no element: no layout
    "window.addEventListener('load', function () {"
    "var key = Object.keys(results).find(function (k) { return /pages\\/audit\\.html$/.test(k); });"
    "setTimeout(function () { app.showResultInfo(key); }, 300);"
    "setTimeout(function () {"
    "app.setView({content: 'html', contentPath: results[key].data_uri, resultPath: key});"
    "}, 600); });</script>"
)


def test_report_audit_table_fits_a_1400_px_window(smoke_report, tmp_path):
    """The audit table, opened in the report in a 1400 px window (headless Chromium), is no
    wider than its frame: no horizontal scrolling. The screenshot is kept beside the copy."""
    chromium = _chromium()
    html = smoke_report.read_text()
    results = _report_variable(html, "results")
    key = next(k for k in results if k.endswith("pages/audit.html"))
    uri = results[key]["data_uri"]
    head, data = uri.split(";base64,")
    page = base64.b64decode(data).decode().replace("</body>", _MEASURE + "</body>")
    measured = html.replace(uri, head + ";base64," + base64.b64encode(page.encode()).decode())
    before, end, after = measured.rpartition("</body>")  # the last: scripts hold the word too
    measured = before + _OPEN_AUDIT + end + after
    copy = tmp_path / "report.html"
    copy.write_text(measured)
    proc = _headless(
        chromium, tmp_path / "profile", "--virtual-time-budget=15000", "--dump-dom", copy.as_uri()
    )
    m = re.search(r"<title>dprank-measure (.*?)</title>", proc.stdout)
    assert m, proc.stderr[-2000:]
    width = json.loads(m.group(1).replace("&quot;", '"'))
    assert width["clientWidth"] > 600, width  # the frame beside the description
    assert width["scrollWidth"] <= width["clientWidth"], f"the audit table overflows: {width}"
    assert width["paneScrollWidth"] <= width["paneClientWidth"], f"the pane scrolls: {width}"
    assert width["windowScrollWidth"] <= width["windowClientWidth"], f"the window scrolls: {width}"
    shot = tmp_path / "audit-1400px.png"
    proc = _headless(
        chromium,
        tmp_path / "profile2",
        "--virtual-time-budget=15000",
        f"--screenshot={shot}",
        copy.as_uri(),
    )
    assert shot.is_file(), proc.stderr[-2000:]
    assert int.from_bytes(shot.read_bytes()[16:20], "big") == 1400  # PNG width


#: A small part of the smoke DAG (17 jobs, several running at once on 2 cores)
RESUME_TARGET = "results/smoke/paper_a_individual/exp5/paper/summary.csv"


def _incomplete(cwd: Path) -> list[Path]:
    """Outputs Snakemake has marked as being made (by a job that is or was running)."""
    markers = cwd / ".snakemake/incomplete"
    if not markers.is_dir():
        return []
    return [Path(base64.urlsafe_b64decode(m.name).decode()) for m in markers.iterdir()]


def _start_and_kill(cwd: Path, command: list[str], log: Path) -> None:
    """Start ``snakemake *command``; SIGKILL it while a job runs, once another has finished.

    Only the Snakemake process is killed (``kill -9 <pid>``), as a crash of it would;
    its job processes, orphaned, run to their end, which is waited for.
    """
    with open(log, "a") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "snakemake", *command],
            cwd=cwd,
            env=_env(),
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group: the orphans can be waited for
        )
    metadata = cwd / ".snakemake/metadata"
    while proc.poll() is None:
        if _incomplete(cwd) and metadata.is_dir() and any(metadata.iterdir()):
            os.kill(proc.pid, signal.SIGKILL)
            break
        time.sleep(0.02)
    proc.wait()
    with contextlib.suppress(ProcessLookupError):
        while True:  # until no process of the group is left
            os.killpg(proc.pid, 0)
            time.sleep(0.05)


def test_resume_after_sigkill_with_the_same_command(smoke, tmp_path):
    """kill -9 of Snakemake mid-run, then the same command: the run completes by itself.

    profiles/default (rerun-incomplete) reruns the jobs the killed run left marked
    incomplete, and the workflow releases the dead run's lock; the results equal those
    of the uninterrupted smoke run byte for byte.
    """
    cwd = copy_repo(tmp_path / "repo")
    command = [RESUME_TARGET, "--cores", "2", "--configfile", ".test/config.yaml"]
    for _ in range(5):  # a kill can land just as the last running job ends: kill again
        _start_and_kill(cwd, command, tmp_path / "killed.log")
        if _incomplete(cwd) or (cwd / RESUME_TARGET).exists():
            break
    assert not (cwd / RESUME_TARGET).exists(), "the run ended before it could be killed"
    marked = _incomplete(cwd)
    assert marked and (cwd / ".snakemake/locks").is_dir()
    # without the workflow profile, Snakemake refuses to go on (an orphaned job finished
    # its output after the kill: an existing file marked incomplete)
    if any((cwd / f).exists() for f in marked):
        plain = snakemake(cwd, *command, "-n", "--workflow-profile", "none", check=False)
        assert "rerun-incomplete" in plain.stdout + plain.stderr
    snakemake(cwd, *command)
    assert not _incomplete(cwd)
    resumed = results_manifest(cwd / SMOKE_RESULTS)
    reference = json.loads((smoke / SMOKE_MANIFEST).read_text())
    assert resumed and resumed == {k: reference[k] for k in resumed}


def _metrics(cwd: Path, study: str, experiment: str, protocol: str) -> pd.DataFrame:
    files = sorted(
        (cwd / f"results/smoke/{study}/{experiment}/{protocol}/metrics").glob("*/chunk*.csv")
    )
    frame = pd.concat([pd.read_csv(f, dtype=str) for f in files])
    return frame.sort_values(list(frame.columns)).reset_index(drop=True)


def test_bit_identical_across_cores_and_chunk_sizes(smoke, tmp_path):
    cwd = copy_repo(tmp_path)

    def rechunk(c):
        c["chunk_size"] = 2
        c["keep_intermediates"] = True
        edge, ind = (c[s]["experiments"] for s in ("paper_a_edge", "paper_a_individual"))
        edge["exp1"]["job_keys"] = []  # one block (the smoke run: one per n)
        edge["exp4_eps"]["job_keys"] = None  # a job per cell
        ind["exp6"]["job_keys"] = ["m"]
        c["paper_a_individual"]["experiments"]["exp6"]["chunk_size"] = 4
        c["paper_b2"]["experiments"]["scenario2"]["chunk_size"] = 8
        c["paper_b2"]["experiments"]["scenario2"]["job_keys"] = None  # a job per cell
        c["paper_b2"]["experiments"]["scenario5"]["chunk_size"] = 2

    config = write_config(cwd, rechunk)
    targets = [
        f"results/smoke/{s}/{e}/{p}/summary.csv"
        for s, e in (
            ("paper_a_edge", "exp1"),
            ("paper_a_edge", "exp4_eps"),
            ("paper_a_individual", "exp6"),
        )
        for p in ("paper", "authors")
    ]
    targets += [f"results/smoke/paper_b2/{e}/replicates.csv" for e in ("scenario2", "scenario5")]
    snakemake(
        cwd, *targets, "--cores", "1", "--configfile", config
    )  # --configfile takes several values
    # keep_intermediates keeps the data and noise files (one per block and chunk)
    assert len(list((cwd / "results/smoke/paper_a_edge/exp1/data").glob("*/chunk*.npz"))) == 3
    assert len(list((cwd / "results/smoke/paper_a_edge/exp4_eps/paper/noise").glob("*/*.npz"))) == 4
    for target in targets:
        assert (cwd / target).read_bytes() == (smoke / target).read_bytes(), target
        if "paper_b2" in target:
            continue
        study, exp, protocol, _ = target.split("/")[-4:]
        pd.testing.assert_frame_equal(
            _metrics(cwd, study, exp, protocol), _metrics(smoke, study, exp, protocol)
        )


class _Edited:
    """Append a line to a file, then restore its content and modification time."""

    def __init__(self, path: Path, line: str):
        self.path, self.line = path, line

    def __enter__(self):
        self.text = self.path.read_text()
        self.stat = self.path.stat()
        self.path.write_text(self.text + self.line)
        return self

    def __exit__(self, *exc):
        self.path.write_text(self.text)
        os.utime(self.path, ns=(self.stat.st_atime_ns, self.stat.st_mtime_ns))


SMOKE = ("--configfile", ".test/config.yaml")


def test_editing_a_plot_script_reruns_only_figures(smoke):
    with _Edited(smoke / "scripts/plot_paper_a_figure.py", "# edited\n"):
        rules = {r for r, _ in planned_jobs(smoke, *SMOKE)}
    # the figures with their overlay versions (one job each) and the runtime page (which
    # reads every benchmark)
    assert rules == {
        "plot_paper_a_figure",
        "plot_paper_a_single",
        "runtime_report",
        "report_page_runtime",
    }
    assert planned_jobs(smoke, *SMOKE) == []


def test_editing_the_solver_reruns_estimation_and_only_recreates_its_inputs(smoke):
    with _Edited(smoke / "src/dprank/fit/mle.py", "# edited\n"):
        jobs = planned_jobs(smoke, *SMOKE)
    rules = {r for r, _ in jobs}
    assert {"estimate", "compute_metrics", "aggregate_metrics", "plot_paper_a_figure"} <= rules
    assert "real_data_metrics" in rules  # the real-data releases are fitted by it too
    assert not rules & {"fetch_cems", "fetch_immig", "real_data_wins"}
    # the temporary data and noise files are re-created for exactly the re-estimated jobs
    # (a job's outputs: one file per protocol)
    outputs = [(r, f) for r, o in jobs for f in o.split(", ")]
    estimates = [f for r, f in outputs if r == "estimate"]
    assert len(estimates) == 2 * len([r for r, _ in jobs if r == "estimate"])
    # every Paper A block and chunk (the solver fits them all)
    assert set(estimates) == {
        f.relative_to(smoke).as_posix()
        for f in smoke.glob("results/smoke/paper_a_*/*/*/estimates/*/chunk*.npz")
    }
    data = {
        o.replace("/paper/", "/").replace("/authors/", "/").replace("estimates", "data")
        for o in estimates
    }
    noise = {o.replace("estimates", "noise") for o in estimates}
    assert {f for r, f in outputs if r == "simulate_comparisons"} == data
    assert {f for r, f in outputs if r == "privatize"} == noise


def test_editing_the_metrics_reruns_only_metrics_and_what_follows(smoke):
    evaluate = smoke / "src/dprank_papers/studies/paper_a_individual/evaluate.py"
    with _Edited(evaluate, "# edited\n"):
        jobs = planned_jobs(smoke, *SMOKE)
    rules = {r for r, _ in jobs}
    # no data, noise or fit: the estimates file holds the truth the metrics need
    assert not rules & {"simulate_comparisons", "privatize", "estimate"}
    metrics = {f for r, o in jobs if r == "compute_metrics" for f in o.split(", ")}
    assert metrics and all(f.startswith("results/smoke/paper_a_individual/") for f in metrics)
    # one job per experiment writes both protocols' summaries
    assert {o for r, o in jobs if r == "aggregate_metrics"} == {
        ", ".join(
            f"results/smoke/paper_a_individual/{e}/{p}/summary.csv" for p in ("paper", "authors")
        )
        for e in ("exp5", "exp6", "exp7")
    }


def test_changing_one_grid_reruns_only_its_cells(smoke):
    def add_n(c):
        c["paper_a_edge"]["experiments"]["exp1"]["n"].append(56)

    jobs = planned_jobs(smoke, "--configfile", write_config(smoke, add_n))
    per_cell = [
        o
        for r, o in jobs
        if r in {"simulate_comparisons", "privatize", "estimate", "compute_metrics"}
    ]
    # smoke exp1 has job_keys [n]: a block per n, so the new n is a block of its own
    assert per_cell and all("/exp1/" in o and "/n56/" in o for o in per_cell)
    assert [o for r, o in jobs if r == "aggregate_metrics"] == [
        ", ".join(f"results/smoke/paper_a_edge/exp1/{p}/summary.csv" for p in ("paper", "authors"))
    ]
    # Figure 1 (its data changed) and, with it, the overlays of Figures 1-4: the edge-DP
    # comparison table they show changed (each figure's job draws its overlay too)
    plots = [o for r, o in jobs if r == "plot_paper_a_figure"]
    assert any("/fig1_paper.pdf" in o for o in plots)
    assert plots and all(re.search(r"/fig[1-4]_", o) for o in plots)

    def replot(c):
        c["items"]["paper_a"]["fig2"]["x_values"] = [0.25, 1.0]

    jobs = planned_jobs(smoke, "--configfile", write_config(smoke, replot))
    assert {r for r, _ in jobs} == {"plot_paper_a_figure", "runtime_report", "report_page_runtime"}
    assert all("/fig2_" in o for r, o in jobs if r == "plot_paper_a_figure")


def test_a_run_removes_the_temporaries_killed_jobs_left_and_the_manifest_skips_them(
    tmp_path, mirror
):
    """kill -9 of a job leaves ``.<name>.XXXXXXXX.tmp`` beside its output
    (dprank.base.io.atomic_path):
    the next run that writes that output removes it when it starts; a temporary of an output
    the run does not write (another run may be writing it) stays, and no manifest counts it."""
    cwd = copy_repo(tmp_path)
    wins = cwd / SMOKE_RESULTS / "paper_a_real/cems/wins.csv"
    stale = wins.with_name(".wins.csv.k1ll3d_9.tmp")
    elsewhere = cwd / SMOKE_RESULTS / "figures/paper_a/.fig5_paper.pdf.a1b2c3d4.tmp"
    unrelated = wins.with_name(".wins.csv.notes.tmp")  # not atomic_path's pattern
    for path in (stale, elsewhere, unrelated):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"half a file")
    target = wins.relative_to(cwd).as_posix()
    proc = snakemake(cwd, target, "--cores", "1", *SMOKE)
    assert "removed 1 temporary file(s) of killed jobs" in proc.stderr
    assert wins.exists() and not stale.exists()
    assert elsewhere.exists() and unrelated.exists()
    manifest = results_manifest(cwd / SMOKE_RESULTS, exclude=())
    assert "paper_a_real/cems/wins.csv" in manifest
    assert not any(name.endswith("a1b2c3d4.tmp") for name in manifest)


def test_a_job_reading_an_edited_or_damaged_data_file_fails_with_both_hashes(tmp_path, mirror):
    """Files of resources/data/ are checked where a job reads them, not only when fetched:
    one edited line of prefs1.csv, a truncated CEMS.rda (no raw BadGzipFile)."""
    cwd = copy_repo(tmp_path)
    snakemake(cwd, "fetch_car_preferences", "fetch_cems", "--cores", "1", *SMOKE)
    prefs = cwd / "resources/data/car_preferences/prefs1.csv"
    cems = cwd / "resources/data/cems/CEMS.rda"
    registry = yaml.safe_load((cwd / "resources/datasets.yaml").read_text())["datasets"]
    expected = {f["path"]: f["sha256"] for d in registry.values() for f in d["files"]}
    lines = prefs.read_text().splitlines(keepends=True)
    lines[1] = lines[1].replace("1", "2", 1)
    prefs.write_text("".join(lines))
    cems.write_bytes(cems.read_bytes()[:2000])
    targets = [
        f"{SMOKE_RESULTS}/paper_b2/car/table2.csv",
        f"{SMOKE_RESULTS}/paper_a_real/cems/wins.csv",
    ]
    proc = snakemake(cwd, *targets, "--cores", "1", "--keep-going", *SMOKE, check=False)
    text = proc.stdout + proc.stderr
    assert proc.returncode != 0
    for path in (prefs, cems):
        rel = path.relative_to(cwd / "resources/data").as_posix()
        assert f"resources/data/{rel} (data set" in text, rel
        assert expected[rel] in text and sha256(path) in text, rel
    assert "delete it and run the same command again" in text
    assert "BadGzipFile" not in text
    assert not any((cwd / t).exists() for t in targets)


def _rebuild_command(text: str) -> list[str]:
    """The command a damaged input's message says rebuilds it (``snakemake ... --forcerun P``)."""
    match = re.search(r"Rebuild it \(and what reads it\): snakemake (.+?), then run", text)
    assert match, text
    return match.group(1).split()


def test_a_damaged_intermediate_stops_its_reader_with_both_values_and_the_rebuild_command(
    tmp_path,
):
    """Every stage checks what it reads against the manifest its producer wrote beside it
    (dprank_papers.stage_manifests): a truncated metrics chunk (CSV, read by aggregate_metrics), the
    two protocols' chunks swapped with their manifests, and one bit of an estimates file
    (npz, read by compute_metrics) each stop the job with both values; the message's rebuild
    command restores the same bytes, and the manifests are no results."""
    cwd = copy_repo(tmp_path)
    exp5 = f"{SMOKE_RESULTS}/paper_a_individual/exp5"
    target = f"{exp5}/paper/summary.csv"
    snakemake(cwd, target, "--cores", "2", *SMOKE)
    before = results_manifest(cwd / exp5)
    assert set(before) == {
        f"{p}/{k}" for p in ("paper", "authors") for k in ("summary.csv", *_CHUNKS)
    }
    assert (cwd / exp5 / "paper/.summary.csv.manifest.json").is_file()
    assert not list((cwd / exp5).glob("data/*/.*.manifest.json"))  # temporary: removed

    # 1. a truncated CSV: rows, sizes and hashes, and the command that rebuilds it
    chunk = cwd / exp5 / "paper/metrics/all/chunk0.csv"
    whole = chunk.read_bytes()
    chunk.write_bytes(whole[: len(whole) // 2])
    proc = snakemake(cwd, target, "--cores", "1", *SMOKE, check=False)
    text = proc.stdout + proc.stderr
    assert proc.returncode != 0 and "is not what rule compute_metrics wrote" in text
    rows = whole.count(b"\n") - 1
    assert f"declared {len(whole)} bytes, {rows} rows" in text
    assert f"found {len(whole) // 2} bytes" in text and sha256(chunk) in text
    command = _rebuild_command(text)
    assert command[:2] == [chunk.relative_to(cwd).as_posix(), "--cores"]
    assert "--configfile .test/config.yaml" in " ".join(command)
    snakemake(cwd, *command)
    assert chunk.read_bytes() == whole
    snakemake(cwd, target, "--cores", "1", *SMOKE)

    # 2. the two protocols' chunks swapped, each with its manifest
    other = cwd / exp5 / "authors/metrics/all/chunk0.csv"
    for a, b in ((chunk, other), (_manifest(chunk), _manifest(other))):
        a_bytes, b_bytes = a.read_bytes(), b.read_bytes()
        a.write_bytes(b_bytes)  # rewritten: newer than what reads them
        b.write_bytes(a_bytes)
    proc = snakemake(cwd, target, "--cores", "1", *SMOKE, check=False)
    text = proc.stdout + proc.stderr
    assert proc.returncode != 0 and "its manifest declares another file" in text
    snakemake(cwd, *_rebuild_command(text))  # compute_metrics writes both protocols' chunks
    snakemake(cwd, target, "--cores", "1", *SMOKE)
    assert results_manifest(cwd / exp5) == before

    # 3. one bit of an estimates file (npz): compute_metrics refuses it
    estimates = cwd / exp5 / "paper/estimates/all/chunk0.npz"
    data = bytearray(estimates.read_bytes())
    data[len(data) // 2] ^= 0x01
    estimates.write_bytes(bytes(data))
    proc = snakemake(cwd, target, "--cores", "1", *SMOKE, check=False)
    text = proc.stdout + proc.stderr
    assert proc.returncode != 0 and "is not what rule estimate wrote" in text
    assert sha256(estimates) in text
    assert _rebuild_command(text)[-1] == estimates.relative_to(cwd).as_posix()


_CHUNKS = ("metrics/all/chunk0.csv", "estimates/all/chunk0.npz")


def test_a_figure_is_not_drawn_from_a_truncated_summary(smoke, tmp_path):
    """The probe of the issue: Figure 5's summary cut in half, then ``paper_a_fig5`` (it drew
    9 of 17 points with exit status 0); in a copy of the smoke run."""
    cwd = tmp_path / "copy"
    shutil.copytree(smoke, cwd, symlinks=True)
    summary = cwd / SMOKE_RESULTS / "paper_a_individual/exp5/paper/summary.csv"
    whole = summary.read_bytes()
    summary.write_bytes(whole[: len(whole) // 2])
    proc = snakemake(cwd, "paper_a_fig5", "--cores", "1", *SMOKE, check=False)
    text = proc.stdout + proc.stderr
    assert proc.returncode != 0
    assert "summary.csv is not what rule aggregate_metrics wrote" in text
    rows = whole.count(b"\n") - 1
    assert f"declared {len(whole)} bytes, {rows} rows" in text
    assert "--forcerun results/smoke/paper_a_individual/exp5/paper/summary.csv" in text


def _manifest(path: Path) -> Path:
    from dprank_papers.stage_manifests import manifest_path

    return manifest_path(path)


def test_an_absurd_declared_bound_is_warned_about_before_any_job(tmp_path):
    """``paper_a_real.datasets.cems.L: 1.0e+12`` is valid but makes Figure 8 noise: the
    workflow names the key in a warning when it is parsed, before the DAG and any job."""
    cwd = copy_repo(tmp_path)

    def edit(cfg):
        cfg["paper_a_real"]["datasets"]["cems"]["L"] = 1.0e12

    proc = snakemake(cwd, "-n", "--configfile", write_config(cwd, edit))
    warning = "dprank: warning: paper_a_real.datasets.cems.L = 1e+12 is 6.67e+10 times"
    assert proc.stderr.count(warning) == 1  # printed while the Snakefile is parsed
    assert "dprank: warning" not in (lambda p: p.stdout + p.stderr)(snakemake(cwd, "-n", *SMOKE))


def test_the_paper_runs_file_count_needs_the_papers_summaries(tmp_path):
    """A study beyond the papers (``snakemake intervals``) writes report pages too: the count
    of a full run's files is measured only where the papers' summaries are, the smoke run's
    where its report is."""
    from dprank_papers._docs_readers import manifest_files
    from dprank_papers.workflow import results_manifest

    results = tmp_path / "results"
    (results / "report" / "pages").mkdir(parents=True)
    (results / "report" / "pages" / "intervals_coverage.html").write_text("<p>study</p>")
    assert manifest_files(smoke=False)(tmp_path, results) is None
    (results / "comparison").mkdir()
    (results / "comparison" / "paper_b2_summary.csv").write_text("cell\n")
    full = manifest_files(smoke=False)(tmp_path, results)
    assert full == str(len(results_manifest(results))) and int(full) >= 1
    assert manifest_files(smoke=True)(tmp_path, results) is None
    (results / "smoke" / "report").mkdir(parents=True)
    (results / "smoke" / "report" / "a.html").write_text("a")
    assert manifest_files(smoke=True)(tmp_path, results) == str(
        len(results_manifest(results / "smoke"))
    )
