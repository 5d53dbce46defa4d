"""Slurm profile: per-rule requests from benchmark files, and the cluster test's checks."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pandas as pd
import pytest
import yaml

from dprank_papers.cluster import (
    BLOCK_BEGIN,
    BLOCK_END,
    UNMEASURED,
    render_resources_block,
    replace_block,
    rule_resources,
    summarise_benchmarks,
)

ROOT = Path(__file__).resolve().parents[1]
PROFILE = ROOT / "profiles/slurm/config.yaml"
HEADER = "s\th:m:s\tmax_rss\tmax_vms\tmax_uss\tmax_pss\tio_in\tio_out\tmean_load\tcpu_time\n"


def bench(path: Path, s: float, rss, cpu: float) -> Path:
    path.write_text(HEADER + f"{s}\t0:00:00\t{rss}\t1\t1\t1\t0\t0\t0\t{cpu}\n")
    return path


def test_summary_takes_the_worst_job_of_each_rule(tmp_path):
    files = {
        "estimate": [
            bench(tmp_path / "a.tsv", 10.0, 200.5, 9.5),
            bench(tmp_path / "b.tsv", 30.0, 150.0, 29.0),
            bench(tmp_path / "c.tsv", 0.5, "-", 2.0),  # too short to sample memory or CPU
        ],
        "deviations": [],
    }
    summary = summarise_benchmarks(files).set_index("rule")
    est = summary.loc["estimate"]
    assert est["jobs"] == 3
    assert est["seconds_max"] == 30.0 and est["seconds_sum"] == 40.5
    assert est["max_rss_mb"] == 200.5
    assert est["cpu_ratio_max"] == pytest.approx(29.0 / 30.0, abs=1e-3)  # 2.0/0.5 ignored
    assert summary.loc["deviations"].tolist() == [0, 0, 0, 0, 0]
    # a rule never measured gets a generous request, not the minimum
    assert rule_resources(summary.loc["deviations"]) == UNMEASURED
    assert UNMEASURED == {"runtime": 60, "mem_mb": 4096, "threads": 1}
    assert list(summary.index) == ["deviations", "estimate"]


def test_requests_have_headroom_minimums_and_rounding():
    small = {"seconds_max": 1.0, "max_rss_mb": 80.0, "cpu_ratio_max": 0.3}
    assert rule_resources(small) == {"runtime": 5, "mem_mb": 1024, "threads": 1}
    big = {"seconds_max": 601.0, "max_rss_mb": 3000.0, "cpu_ratio_max": 3.6}
    # runtime ceil(3 * 601 / 60) = 31; memory 1.5 * 3000 + 512 = 5012 -> 5120; threads 4
    assert rule_resources(big) == {"runtime": 31, "mem_mb": 5120, "threads": 4}
    assert rule_resources(big, runtime_factor=1.0, min_runtime=60)["runtime"] == 60


def test_block_is_deterministic_and_marks_exclusive_rules():
    summary = pd.DataFrame(
        [
            {"rule": "time_paper_b2", "seconds_max": 60, "max_rss_mb": 300, "cpu_ratio_max": 1},
            {"rule": "estimate", "seconds_max": 12, "max_rss_mb": 230, "cpu_ratio_max": 0.9},
        ]
    )
    block = render_resources_block(summary)
    assert block == render_resources_block(summary.iloc[::-1])
    parsed = yaml.safe_load(block)
    assert parsed["set-resources"]["estimate"] == {"runtime": 5, "mem_mb": 1024}
    assert parsed["set-resources"]["time_paper_b2"]["slurm_extra"] == "'--exclusive'"
    assert parsed["set-threads"] == {"estimate": 1, "time_paper_b2": 1}
    assert block.startswith(BLOCK_BEGIN) and block.rstrip().endswith(BLOCK_END)


def test_replace_block_needs_exactly_one_block():
    text = f"a: 1\n{BLOCK_BEGIN}\nold\n{BLOCK_END}\nb: 2\n"
    assert replace_block(text, f"{BLOCK_BEGIN}\nnew\n{BLOCK_END}\n") == (
        f"a: 1\n{BLOCK_BEGIN}\nnew\n{BLOCK_END}\nb: 2\n"
    )
    for bad in ("a: 1\n", text + text, f"{BLOCK_END}\n{BLOCK_BEGIN}\n"):
        with pytest.raises(ValueError, match="exactly one block"):
            replace_block(bad, "x")


def test_committed_profile_matches_the_committed_benchmarks():
    text = PROFILE.read_text()
    summary = pd.read_csv(ROOT / "resources/cluster/benchmarks.csv")
    assert replace_block(text, render_resources_block(summary)) == text, (
        "profiles/slurm/config.yaml is stale: run python benchmarks/slurm_resources.py "
        "--from-summary"
    )
    profile = yaml.safe_load(text)
    assert profile["executor"] == "slurm"
    assert "slurm_account" not in str(profile), "no account may be hard-coded"
    rules = set(
        re.findall(
            r"^\s*(?:rule (\w+):|name:\s*\n\s*f?\"(\w+))",
            "".join(p.read_text() for p in (ROOT / "workflow/rules").glob("*.smk")),
            flags=re.M,
        )
    )
    names = {a or b for a, b in rules}
    for key in ("set-resources", "set-threads", "groups"):
        unknown = set(profile[key]) - names
        assert not unknown, f"{key} names rules that do not exist: {sorted(unknown)}"
    assert set(profile["set-resources"]) == set(summary["rule"])
    assert set(profile["groups"].values()) == set(profile["group-components"])


def _checks():
    spec = importlib.util.spec_from_file_location("checks", ROOT / "tests/cluster/checks.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_resume_plan_check_reads_job_stats_and_the_rule_graph(tmp_path):
    checks = _checks()
    dry = (
        "Building DAG of jobs...\nJob stats:\njob              count\n"
        "-------------  -------\naudit_privacy        1\nall                  1\n"
        "total                2\n\n"
    )
    assert checks.job_stats(dry) == {"audit_privacy": 1, "all": 1}
    dot = (
        'digraph snakemake_dag {\n    0[label = "all", color = "0.1 0.6 0.85"];\n'
        '    1[label = "audit_privacy", color = "0.2 0.6 0.85"];\n'
        '    2[label = "estimate", color = "0.3 0.6 0.85"];\n'
        '    3[label = "deviations", color = "0.4 0.6 0.85"];\n'
        "    1 -> 0\n    2 -> 3\n    3 -> 0\n}\n"
    )
    assert checks.downstream(dot, "audit_privacy") == {"all"}
    assert checks.downstream(dot, "estimate") == {"deviations", "all"}
    (tmp_path / "dry.txt").write_text(dry)
    (tmp_path / "g.dot").write_text(dot)
    args = ["plan", str(tmp_path / "dry.txt"), str(tmp_path / "g.dot")]
    assert checks.main([*args, "audit_privacy"]) == 0
    (tmp_path / "dry.txt").write_text(dry.replace("all  ", "estimate"))
    assert checks.main([*args, "audit_privacy"]) == 1  # a finished upstream job would rerun
