"""The documentation site: its generated tables exist and are well formed, the generator
writes them from results, and the API reference covers every public module."""

import re
import sys
from pathlib import Path

import pandas as pd
import pytest

from dprank_papers.docs_includes import (
    BENCHMARK_HEADER,
    HEADER,
    agreement_table,
    audit_table,
    deviations_table,
    fidelity_table,
    markdown_table,
    runtime_paper_b2_table,
)
from dprank_papers.report import load_deviations

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
INCLUDES = [
    "runtime_paper_a",
    "runtime_paper_b2",
    "agreement",
    "audit",
    "deviations",
    "fidelity_paper_a_edge",
    "fidelity_paper_a_individual",
    "fidelity_paper_b2",
    "fidelity_paper_b1",
    "performance_reading",
    "performance_slope",
    "performance_fit",
    "intervals_coverage",
]


def parse_table(text: str) -> tuple[list[str], list[list[str]]]:
    """Header and rows of the one Markdown table in ``text``; fails if malformed."""
    body = [line for line in text.splitlines() if line.strip() and not line.startswith("<!--")]
    assert len(body) >= 3, "a header, a rule and at least one row"
    assert all(line.startswith("|") and line.endswith("|") for line in body), body

    def cells(line):
        return [c.strip() for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]

    header, rule, *rows = (cells(line) for line in body)
    assert all(re.fullmatch(r"---:?", c) for c in rule), rule
    assert len(rule) == len(header)
    for row in rows:
        assert len(row) == len(header), (header, row)
        assert all(c for c in row), f"empty cell in {row}"
    return header, rows


@pytest.mark.parametrize("name", INCLUDES)
def test_committed_include_is_a_table(name):
    path = DOCS / "includes" / f"{name}.md"
    assert path.exists(), f"{path} missing: run make docs-includes after a full run"
    text = path.read_text()
    assert text.startswith((HEADER, BENCHMARK_HEADER)), "first line: the command that wrote it"
    parse_table(text)


#: Includes generated from the code, not from a run's results
#: (python -m dprank_papers.docs_generate)
CODE_INCLUDES = [
    "cli_rank",
    "cli_privatize",
    "cli_datasets",
    "cli_methods",
    "cli_ledger",
    "default_methods",
    "benchmark_findings",
]


def test_every_include_is_embedded_and_exists():
    embedded = set()
    for page in DOCS.glob("*.md"):
        embedded |= set(re.findall(r'--8<-- "includes/(\w+)\.md"', page.read_text()))
    assert embedded == set(INCLUDES) | set(CODE_INCLUDES)
    for name in CODE_INCLUDES:
        assert (DOCS / "includes" / f"{name}.md").is_file(), name


def test_committed_includes_agree_with_each_other():
    """The per-paper totals equal the sums of the per-item tables; deviations match the yaml."""
    totals = {}
    for name, paper in [
        ("fidelity_paper_a_edge", "A"),
        ("fidelity_paper_a_individual", "A"),
        ("fidelity_paper_b2", "B2"),
        ("fidelity_paper_b1", "B1"),
    ]:
        _, rows = parse_table((DOCS / "includes" / f"{name}.md").read_text())
        for row in rows:
            within, compared = map(int, row[1].split(" / "))
            t = totals.setdefault(paper, [0, 0])
            t[0] += within
            t[1] += compared
    _, rows = parse_table((DOCS / "includes/agreement.md").read_text())
    assert {r[0].split()[0]: r[1] for r in rows} == {
        p: f"{w} / {c}" for p, (w, c) in totals.items()
    }
    _, rows = parse_table((DOCS / "includes/deviations.md").read_text())
    assert len(rows) == len(load_deviations(ROOT / "resources/deviations.yaml"))


def test_api_reference_covers_every_public_module():
    src = ROOT / "src"
    modules = set()
    for path in [*(src / "dprank").rglob("*.py"), *(src / "dprank_papers").rglob("*.py")]:
        parts = path.relative_to(src).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        if any(p.startswith("_") for p in parts):
            continue
        modules.add(".".join(parts))
    documented = set()
    for page in (DOCS / "api").glob("*.md"):
        documented |= set(re.findall(r"^::: ([\w.]+)$", page.read_text(), flags=re.M))
    assert modules - documented == set()
    assert documented - modules == set()


def test_library_page_example_runs():
    blocks = re.findall(r"```python\n(.*?)```", (DOCS / "library.md").read_text(), flags=re.S)
    assert blocks
    namespace: dict = {}
    exec(compile(blocks[0], "library.md", "exec"), namespace)
    assert namespace["fit"].converged


# ---------------------------------------------------------------------------
# the generator on small synthetic results


def _summary(rows):
    return pd.DataFrame(
        rows,
        columns=[
            "figure",
            "compared",
            "within",
            "plotted_compared",
            "plotted_within",
            "max_abs_diff",
        ],
    )


def test_markdown_table_rejects_ragged_rows_and_escapes_pipes():
    with pytest.raises(ValueError, match="2 cells"):
        markdown_table(["a", "b", "c"], [[1, 2]], "lll")
    with pytest.raises(ValueError, match="no rows"):
        markdown_table(["a"], [], "l")
    _, rows = parse_table(markdown_table(["a", "b"], [["x | y", 2]], "lr"))
    assert rows == [["x \\| y", "2"]]


def test_fidelity_and_agreement_from_summaries():
    edge = _summary(
        [
            ("Figure 2", 10, 8, 4, 4, 0.1234),
            ("Figure 10", 5, 5, 0, 0, 0.01),
            ("(not in paper)", 3, 3, 0, 0, 56965478.7),
        ]
    )
    b1 = _summary([("B1 Table 1", 6, 4, 6, 4, float("nan"))]).drop(columns="max_abs_diff")
    header, rows = parse_table(fidelity_table(edge))
    assert header[2] == "plotted points within / compared"
    assert [r[0] for r in rows] == ["(not in paper)", "Figure 2", "Figure 10"]  # natural order
    assert rows[1] == ["Figure 2", "8 / 10", "4 / 4", "0.123"]
    assert rows[2][2] == "-"
    assert rows[0][3] == "5.7e+07"
    header, rows = parse_table(fidelity_table(b1))
    assert header == ["Item", "cells within / compared"]  # plotted equals all: no column
    header, rows = parse_table(agreement_table({"paper_a_edge": edge, "paper_b1": b1}))
    assert rows[0][1:] == ["16 / 18", "Figure 2 (2)"]
    assert rows[1][1:] == ["4 / 6", "B1 Table 1 (2)"]
    _, rows = parse_table(fidelity_table(edge.iloc[:0]))
    assert rows == [["none compared in this run", "0 / 0", "-"]]
    with pytest.raises(ValueError, match="unknown comparison"):
        agreement_table({"paper_z": edge})


def test_audit_table_marks_violations():
    audit = pd.DataFrame(
        [
            ("paper_b", "classic RR", 1.0, 0.987, 1.0, "consistent"),
            ("paper_a", "Alg. 3 counts (individual), vector", 1.0, 1.981, 2.0, "VIOLATION"),
            ("paper_a", "fixed noise", 1.0, 10.23, None, "VIOLATION"),
            ("control", "broken", 1.0, 1.946, 2.0, "VIOLATION"),
        ],
        columns=["paper", "audit", "claimed_eps", "lower_bound", "exact_eps", "verdict"],
    )
    _, rows = parse_table(audit_table(audit))
    assert rows[0] == ["B", "classic RR", "1", "0.987", "1.000", "consistent"]
    assert rows[1][3:] == ["1.981", "2.000", "**VIOLATION**"]
    assert rows[2][3:] == ["10.2", "-", "**VIOLATION**"]
    assert rows[3][0] == "control" and rows[3][5] == "VIOLATION"


def test_deviations_table_reports_agreement():
    entries = [
        {
            "paper": "B2",
            "item": "T | 11",
            "departure": "d",
            "reason": "r",
            "effect": "e",
            "comparison": ["B2 Table 11"],
        },
        {"paper": "A", "item": "x", "departure": "d\nmore", "reason": "r", "effect": "e"},
    ]
    summaries = pd.DataFrame([{"figure": "B2 Table 11", "within": 0, "compared": 4}])
    _, rows = parse_table(deviations_table(entries, summaries))
    assert rows[0][1] == "T \\| 11" and rows[0][5] == "B2 Table 11: 0 / 4 within"
    assert rows[1][2] == "d more" and rows[1][5] == "-"


def test_runtime_table_from_benchmark_files(tmp_path):
    section = {"experiments": {"timing": {"kind": "timing"}}}
    items = {  # as declared in workflow/papers/paper_b2.yaml
        "table1": {"study": "paper_b2", "made_by": "car_tables_paper_b2"},
        "fig10": {"study": "paper_b2", "experiment": "timing"},
    }
    bench = tmp_path / "benchmarks"
    with pytest.raises(ValueError, match="1 of 1 benchmark files are missing"):
        runtime_paper_b2_table(section, items, bench, chunk_size=6)
    (bench / "paper_b2/timing").mkdir(parents=True)
    (bench / "paper_b2/timing/timing.tsv").write_text("s\th:m:s\tmax_rss\n57.6\t0:00:57\t256.7\n")
    _, rows = parse_table(runtime_paper_b2_table(section, items, bench, chunk_size=6))
    assert rows == [["`timing`", "Fig. 10", "1", "58", "257"]]


def test_intervals_include_is_written_from_the_study_table(tmp_path):
    from dprank_papers.docs_includes import write_intervals_include

    summary = pd.DataFrame(
        {
            "design": ["a"], "method": ["edge_mle"], "epsilon": [1.0], "data": ["ER"],
            "score_cover": [0.95], "score_cover_min": [0.9], "score_items_below": [0],
            "score_width_median": [1.0], "rank_cover": [0.96], "rank_cover_min": [0.9],
            "rank_items_below": [0], "rank_width": [3.0], "rank_width_median": [3.0],
            "brier": [0.05], "brier_base": [0.09], "ece": [0.01],
        }
    )  # fmt: skip
    path = write_intervals_include(tmp_path / "intervals_coverage.md", summary)
    text = path.read_text()
    assert text.startswith(HEADER)
    _, rows = parse_table(text)
    assert rows[0][0] == "a" and rows[0][1] == "Perturbed MLE (Alg. 1)"


# ---------------------------------------------------------------------------
# what needs no run: the command's synopses and the values the pages quote


def test_synopses_are_the_argument_parsers():
    """docs/includes/cli_*.md are what `dprank SUBCOMMAND --help` prints now (a flag added to
    the parser and not to the docs fails here: run python -m dprank_papers.docs_generate)."""
    from dprank_papers.docs_generate import _code_includes, cli_synopses

    files = _code_includes(ROOT)
    assert {p.stem for p in files} == {f"cli_{n}" for n in cli_synopses() if n != "dprank"}
    for path, text in files.items():
        assert path.read_text() == text, (
            f"{path.name} is stale: run python -m dprank_papers.docs_generate"
        )
    rank = (DOCS / "includes" / "cli_rank.md").read_text()
    from dprank.cli import build_parser

    sub = next(
        a for a in build_parser()._actions if getattr(a, "choices", None) and "rank" in a.choices
    )
    for action in sub.choices["rank"]._actions:
        for flag in action.option_strings:
            if action.help != "==SUPPRESS==" and flag.startswith("--") and flag != "--help":
                assert flag in rank, flag


def test_every_quoted_value_is_its_value_and_every_value_is_quoted():
    """A number the README or a page quotes from a run is marked with its name and equals
    docs/includes/values.yaml, so two pages cannot quote two numbers for one quantity."""
    from dprank_papers.docs_values import documentation_files, load_values, marked, stale_marks

    values = load_values(DOCS / "includes" / "values.yaml")
    assert stale_marks(ROOT, values) == []
    quoted = {name for page in documentation_files(ROOT) for name, _ in marked(page.read_text())}
    assert set(values) - quoted == set(), "values no page quotes"


def test_derived_values_are_current():
    """Values computed from the checkout alone (the job counts: tests/test_workflow.py)."""
    from dprank_papers.docs_values import MEASURES, load_values

    values = load_values(DOCS / "includes" / "values.yaml")
    for name in ("registered_methods", "b2_overlays"):
        assert values[name]["value"] == MEASURES[name].measure(ROOT, ROOT / "results"), name
    assert values["b2_overlays"]["value"].startswith("Figures 4, 6, 7, 8, 9, 11, 12, 13")


def test_every_measured_value_names_its_measure():
    from dprank_papers.docs_values import MEASURES, load_values

    for name, entry in load_values(DOCS / "includes" / "values.yaml").items():
        if entry["kind"] == "quoted":
            assert name not in MEASURES and entry["source"], name
        else:
            assert entry["kind"] == MEASURES[name].kind, name
            assert entry["source"] == MEASURES[name].source, name


@pytest.mark.parametrize("page", ["README.md", "docs/getting-started.md", "docs/reproducing.md"])
def test_timings_and_sizes_of_the_first_pages_are_marked(page):
    """Every time or size in the newcomer's pages (outside code) is a marked value; the
    machine's memory (24 GB) and the job start-up times of docs/performance.md are the only
    numbers with a unit left as text."""
    text = (ROOT / page).read_text()
    text = re.sub(r"<!--v:[a-z0-9_]+-->.*?<!--/v-->", "V", text, flags=re.S)
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    found = re.findall(r"(?<![\w.^])(\d[\d,.]*\s?(?:s|ms|min|MB|MiB|GB|GiB))\b", text)
    allowed = {"24 GB", "0.15 s", "0.35 s", "0.75 s"}
    assert set(found) - allowed == set()


def test_values_are_measured_from_a_run(tmp_path):
    """The results and timed values come out of a run's files; nothing else is touched."""
    from dprank_papers.docs_values import MEASURES, load_values, measure_values, time_command

    results = tmp_path / "results"
    (results / "comparison").mkdir(parents=True)
    _summary([("Figure 1", 10, 9, 10, 9, 0.1), ("Figure 10", 5, 2, 5, 2, 0.2)]).to_csv(
        results / "comparison/paper_a_edge_summary.csv", index=False
    )
    _summary([("Figure 8", 4, 4, 4, 4, 0.0)]).to_csv(
        results / "comparison/paper_a_individual_summary.csv", index=False
    )
    (results / "report.html").write_bytes(b"x" * 2_345_678)
    record = time_command("smoke_run", [sys.executable, "-c", "pass"], results)
    assert record["returncode"] == 0 and record["wall_seconds"] > 0
    values = load_values(DOCS / "includes" / "values.yaml")
    names = ["agreement_paper_a", "outside_paper_a", "outside_paper_a_items", "report_size"]
    names += ["smoke_run_wall", "agreement_paper_b2", "car_job_seconds"]
    new = measure_values(values, ROOT, results, names=names)
    assert new["agreement_paper_a"]["value"] == "15 / 19"
    assert new["outside_paper_a"]["value"] == "4"
    assert new["outside_paper_a_items"]["value"] == "Figure 1 (1), Figure 10 (3)"
    assert new["report_size"]["value"] == "2.3 MB"
    assert new["smoke_run_wall"]["value"].endswith(" s")
    for name in ("agreement_paper_b2", "car_job_seconds", "full_run_wall"):  # no source here
        assert new[name] == values[name], name
    assert MEASURES["smoke_run_wall"].kind == "timed"
    failed = time_command("full_run", [sys.executable, "-c", "raise SystemExit(3)"], results)
    assert failed["returncode"] == 3 and not (results / "measured/full_run.json").exists()


def test_marks_are_rewritten_and_unknown_names_refused():
    from dprank_papers.docs_values import apply_values, marked

    values = {"a": {"value": "2 s", "kind": "quoted", "source": "x"}}
    text = "took <!--v:a-->1 s<!--/v--> and <!--v:a-->3 s<!--/v-->"
    assert apply_values(text, values) == "took <!--v:a-->2 s<!--/v--> and <!--v:a-->2 s<!--/v-->"
    assert marked(text) == [("a", "1 s"), ("a", "3 s")]
    with pytest.raises(KeyError, match=r"'b' is not in values\.yaml"):
        apply_values("<!--v:b-->1<!--/v-->", values)
