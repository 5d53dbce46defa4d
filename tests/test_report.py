"""Report pages: runtime per stage from benchmark files, deviations with measured agreement."""

import pandas as pd
import yaml

from dprank.report import deviations_html, runtime_by_stage


def _bench(path, seconds, rss):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"s\th:m:s\tmax_rss\n{seconds}\t0:00:01\t{rss}\n")
    return path


def test_runtime_groups_chunks_by_stage(tmp_path):
    root = tmp_path / "benchmarks"
    files = [
        _bench(root / "paper_b2/s1/metrics/modelbtl/chunk0.tsv", 2.0, 100),
        _bench(root / "paper_b2/s1/metrics/modeltm/chunk0.tsv", 3.0, 150),
        _bench(root / "paper_b2/s1/metrics/modeltm/chunk1.tsv", 1.0, 120),
        _bench(root / "figures/paper_b2/fig4.tsv", 0.5, 90),
    ]
    table = runtime_by_stage(files, root).set_index("stage")
    assert table.loc["paper_b2/s1/metrics", "jobs"] == 3
    assert table.loc["paper_b2/s1/metrics", "seconds_sum"] == 6.0
    assert table.loc["paper_b2/s1/metrics", "seconds_max"] == 3.0
    assert table.loc["paper_b2/s1/metrics", "max_rss_mb"] == 150
    assert table.loc["figures/paper_b2/fig4", "jobs"] == 1


def test_deviations_page_escapes_and_reports_agreement():
    entries = [
        {
            "paper": "B2",
            "item": "Table <11>",
            "departure": "a & b",
            "reason": "r",
            "effect": "e",
            "comparison": ["B2 Table 11", "B2 Table 99"],
        },
        {"paper": "A", "item": "x", "departure": "d", "reason": "r", "effect": "e"},
    ]
    summaries = pd.DataFrame([{"figure": "B2 Table 11", "within": 0, "compared": 4}])
    page = deviations_html(entries, summaries)
    assert "Table &lt;11&gt;" in page and "a &amp; b" in page
    assert "B2 Table 11: 0 / 4 within" in page
    assert "B2 Table 99: not compared in this run" in page


def test_every_curated_deviation_is_complete():
    entries = yaml.safe_load(open("resources/deviations.yaml"))["deviations"]
    assert len(entries) >= 10
    for e in entries:
        assert {"paper", "item", "departure", "reason", "effect"} <= set(e)
        assert e["paper"] in {"A", "B1", "B2"}


def test_report_categories_are_the_documented_ones():
    """Every report() item sits in one of the report's seven categories."""
    import ast
    import re
    from pathlib import Path

    allowed = {"Paper A", "Paper B1", "Paper B2", "Benchmark", "Agreement with the papers"}
    allowed |= {"Audit", "Runtime"}
    rules = "".join(p.read_text() for p in Path("workflow/rules").glob("*.smk"))
    literal = re.findall(r'\bcategory="([^"]*)"', rules)
    called = re.findall(r"\bcategory=(\w+),", rules)
    assert literal and set(literal) <= allowed, set(literal) - allowed
    common = Path("workflow/rules/common.smk").read_text()
    assert set(called) <= {"report_paper"}
    mapping = re.search(r"REPORT_PAPER = (\{.*?\})", common).group(1)
    assert set(ast.literal_eval(mapping).values()) <= allowed


def _comparison_labels():
    """Every line name the comparison rules write into results/comparison/*_summary.csv."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[1] / "resources" / "published"
    labels = {"Figure 7 (printed rerun)", "B1 Table 1", "B1 text (Scenario III)"}
    labels.add("B1 text (MovieLens)")
    for f in (root / "paper_a").glob("*.csv"):
        frame = pd.read_csv(f, comment="#")
        if "figure" in frame:
            labels |= {str(v) for v in frame["figure"].dropna() if str(v).startswith("Figure")}
    for f in (root / "paper_b").glob("B2-Table*.csv"):
        labels.add("B2 Table " + f.name.split("_")[0].removeprefix("B2-Table"))
    return labels


def test_every_deviation_names_a_comparison_line():
    """A name the summaries do not hold would print 'not compared in this run' for ever."""
    from pathlib import Path

    from dprank.report import load_deviations

    labels = _comparison_labels()
    assert {"Figure 5", "Figure 8", "B2 Table 11"} <= labels
    path = Path(__file__).resolve().parents[1] / "resources" / "deviations.yaml"
    named = {n for e in load_deviations(path) for n in e.get("comparison", [])}
    assert named and named <= labels, sorted(named - labels)
