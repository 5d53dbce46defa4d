"""docs/contributing.md's recipes, followed literally in a temporary copy of the repository.

"Add a figure": one declaration in ``workflow/papers/paper_b2.yaml`` (an existing chart type
over an existing smoke experiment, so no plotting function) and one in
``workflow/papers/paper_a.yaml`` (its panels declared, no plotting function). "Add a paper": a
declarations file reusing Paper B2's study. All are built at smoke scale; their target rules
must exist, their files appear and their captions reach the report.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
import yaml

pytestmark = pytest.mark.workflow

ROOT = Path(__file__).resolve().parents[1]
#: What the workflow needs (the real data sets are not: the toy items use simulations only)
COPY = ["Snakefile", "config.yaml", ".test", "workflow", "scripts", "src", "resources", "envs"]
SMOKE = ["--configfile", ".test/config.yaml"]
FIGURE_CAPTION = "Toy figure: the l_inf error of ADRR in Scenario I against L (one declaration)."
PAPER_CAPTION = "Toy paper figure: the l2 error of ADRR in Scenario I, from Paper B2's study."
A_CAPTION = "Toy Paper A figure: the l_inf error of the perturbed MLE in Experiment 1 against n."

#: Step 1 of "Add a figure": the declaration, appended to the paper's items
TOY_FIGURE = f"""
  fig99:
    experiment: scenario1
    panels: [{{metric: linf}}]
    series: [model, m]
    caption: "{FIGURE_CAPTION}"
"""

#: Step 1 of "Add a figure" in Paper A: the declaration (its one panel), appended to its items
TOY_A_FIGURE = f"""
  fig99:
    study: paper_a_edge
    experiments: [exp1]
    comparison: paper_a_edge
    panels:
      - {{metric: log_rel_linf, methods: [edge_mle], x: n, series: epsilon, ylabel: l_inf}}
    caption: "{A_CAPTION}"
"""

#: Step 3 of "Add a paper": the declarations file (its study: Paper B2's)
TOY_PAPER = f"""
kind: paper_b
study: paper_b2
category: Paper B2
items:
  fig1:
    experiment: scenario1
    panels: [{{metric: l2_over_sqrt_m, model: btl}}]
    series: [m]
    caption: "{PAPER_CAPTION}"
"""


def _snakemake(cwd: Path, *args: str) -> str:
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    proc = subprocess.run(
        [sys.executable, "-m", "snakemake", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, f"snakemake {' '.join(args)}:\n{proc.stdout}\n{proc.stderr}"
    return proc.stdout + proc.stderr


@pytest.fixture(scope="module")
def repo(tmp_path_factory) -> Path:
    """A copy of the repository with the toy figure and the toy paper declared."""
    dest = tmp_path_factory.mktemp("contributing")
    for name in COPY:
        src = ROOT / name
        if src.is_dir():
            ignore = ("__pycache__", "data") if name == "resources" else ("__pycache__",)
            shutil.copytree(src, dest / name, ignore=shutil.ignore_patterns(*ignore))
        else:
            shutil.copy2(src, dest / name)
    papers = dest / "workflow/papers"
    with (papers / "paper_b2.yaml").open("a") as f:
        f.write(TOY_FIGURE)
    with (papers / "paper_a.yaml").open("a") as f:
        f.write(TOY_A_FIGURE)
    (papers / "paper_toy.yaml").write_text(TOY_PAPER)
    return dest


def test_the_declarations_are_valid_yaml_with_the_toy_items(repo):
    b2 = yaml.safe_load((repo / "workflow/papers/paper_b2.yaml").read_text())
    assert b2["items"]["fig99"]["caption"] == FIGURE_CAPTION
    toy = yaml.safe_load((repo / "workflow/papers/paper_toy.yaml").read_text())
    assert toy["items"]["fig1"]["caption"] == PAPER_CAPTION
    a = yaml.safe_load((repo / "workflow/papers/paper_a.yaml").read_text())
    assert a["items"]["fig99"]["caption"] == A_CAPTION


def test_the_targets_resolve_in_a_dry_run(repo):
    out = _snakemake(
        repo, "paper_b2_fig99", "paper_a_fig99", "paper_toy_fig1", "paper_toy", "-n", *SMOKE
    )
    assert "results/smoke/figures/paper_b2/fig99.pdf" in out
    assert "results/smoke/figures/paper_a/fig99_authors.pdf" in out
    assert "results/smoke/figures/paper_toy/fig1.pdf" in out
    # each joins its paper's aggregate target, and with it `all`
    assert "figures/paper_b2/fig99.pdf" in _snakemake(repo, "paper_b2", "-n", *SMOKE)
    assert "figures/paper_a/fig99_paper.pdf" in _snakemake(repo, "paper_a", "-n", *SMOKE)
    out = _snakemake(repo, "all", "-n", *SMOKE)
    assert "figures/paper_b2/fig99.pdf" in out and "figures/paper_toy/fig1.pdf" in out
    # a bad declaration stops the workflow before any job, naming the file and the key
    bad = repo / "workflow/papers/paper_bad.yaml"
    bad.write_text(TOY_PAPER.replace("series: [m]", "series: [m]\n    colour: red"))
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "snakemake", "-n", *SMOKE],
            cwd=repo,
            capture_output=True,
            text=True,
            check=False,
        )
    finally:
        bad.unlink()
    assert proc.returncode != 0
    assert re.search(r"paper_bad\.yaml: items\.fig1.*colour", proc.stdout + proc.stderr)


def test_the_toy_figure_and_paper_are_built_and_captioned_in_the_report(repo):
    targets = ("paper_b2_fig99", "paper_a_fig99", "paper_toy")
    _snakemake(repo, *targets, "--cores", "1", *SMOKE)
    paths = ("paper_b2/fig99", "paper_toy/fig1", "paper_a/fig99_paper", "paper_a/fig99_authors")
    for path in paths:
        for ext in ("pdf", "png", "csv"):
            assert (repo / "results/smoke/figures" / f"{path}.{ext}").stat().st_size > 0, path
    plotted = (repo / "results/smoke/figures/paper_toy/fig1.csv").read_text()
    assert "l2_over_sqrt_m" in plotted
    # the Paper A figure plots its one declared panel
    a = pd.read_csv(repo / "results/smoke/figures/paper_a/fig99_authors.csv")
    assert set(a["panel"]) == {"a"} and set(a["metric"]) == {"log_rel_linf"}
    assert set(a["method"]) == {"edge_mle"} and len(a) > 0
    # the report reads each figure's caption from its declaration
    report = repo / "toy.html"
    _snakemake(repo, *targets, "--report", str(report), *SMOKE)
    html = report.read_text()
    assert FIGURE_CAPTION in html and PAPER_CAPTION in html and A_CAPTION in html
