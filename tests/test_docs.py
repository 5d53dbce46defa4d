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
    "intervals_rerun",
    "sparse_density_threshold",
    "performance_edge_mle",
    "performance_pairs",
    "performance_individual_mle",
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

#: Includes written from the results of studies outside ``all`` when results/ holds them
#: (python -m dprank_papers.docs_generate: dprank_papers.docs_generate.results_includes)
STUDY_INCLUDES = [
    "arena_price_of_privacy",
    "beyond_scale_fit",
    "beyond_scale_summary",
    "sensitivity_scenario3_fit",
    "sensitivity_scenario3_check",
    "sensitivity_scenario5",
]


def test_every_include_is_embedded_and_exists():
    embedded = set()
    for page in DOCS.glob("*.md"):
        embedded |= set(re.findall(r'--8<-- "includes/(\w+)\.md"', page.read_text()))
    assert embedded == set(INCLUDES) | set(CODE_INCLUDES) | set(STUDY_INCLUDES)
    for name in CODE_INCLUDES + STUDY_INCLUDES:
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
            "ece_floor": [0.008], "ece_debiased": [0.005],
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


def test_one_quantity_has_one_name():
    """Two pages that quote one quantity mark it with one name: no two values of values.yaml
    are measured by the same source (a timed run's fields share their command and differ by
    name: wall, user_cpu, system_cpu, peak). With every time, size and ratio of the pages
    marked (test_timings_sizes_and_ratios_are_marked) and every mark equal to its value
    (test_every_quoted_value_is_its_value_and_every_value_is_quoted), two pages cannot quote
    two numbers for one quantity."""
    from collections import defaultdict

    from dprank_papers.docs_values import load_values

    values = load_values(DOCS / "includes" / "values.yaml")
    by_source = defaultdict(list)
    for name, entry in values.items():
        by_source[name if entry["kind"] == "timed" else entry["source"]].append(name)
    assert {k: v for k, v in by_source.items() if len(v) > 1} == {}


def test_derived_values_are_current():
    """Values computed from the checkout alone (the job counts: tests/test_workflow.py)."""
    from dprank_papers.docs_measures import MEASURES
    from dprank_papers.docs_values import load_values

    values = load_values(DOCS / "includes" / "values.yaml")
    derived = [n for n, e in values.items() if e["kind"] == "derived" and not n.endswith("_jobs")]
    assert {"registered_methods", "b2_overlays", "memory_largest_paper_job", "scale_ridge"} <= set(
        derived
    )
    for name in derived:
        assert values[name]["value"] == MEASURES[name].measure(ROOT, ROOT / "results"), name
    assert values["b2_overlays"]["value"].startswith("Figures 4, 6, 7, 8, 9, 11, 12, 13")


def test_every_measured_value_names_its_measure():
    from dprank_papers.docs_measures import MEASURES
    from dprank_papers.docs_values import load_values

    for name, entry in load_values(DOCS / "includes" / "values.yaml").items():
        if entry["kind"] == "quoted":
            assert name not in MEASURES and entry["source"], name
        else:
            assert entry["kind"] == MEASURES[name].kind, name
            assert entry["source"] == MEASURES[name].source, name
            # a time names the run it was measured in (the machine, the date, the load)
            assert MEASURES[name].timing == ("run" in entry), name


#: Pages left out of the check below, with the reason
UNCHECKED_PAGES: dict[str, str] = {}

#: Numbers with a unit that the check below lets stand as text, per page, with the reason
#: (settings, facts of a machine, a library's constants: not the output of a run)
NOT_RUN_OUTPUTS = {
    "README.md": {"24 GB": "the development machine's memory"},
    "docs/getting-started.md": {"24 GB": "the development machine's memory"},
    "docs/reproducing.md": {
        "24 GB": "the development machine's memory",
        **dict.fromkeys(("0.15 s", "0.35 s", "0.75 s"), "import floors of docs/performance.md"),
    },
    "docs/performance.md": {
        "24 GB": "the development machine's memory",
        "0.3 s": "a target start-up time, not a measurement",
        "32 MiB": "glibc's mmap threshold limit and the setting of "
        "dprank_papers.workflow.MALLOC_TUNING",
        "4 MiB": "the block size the command reads in (dprank.data._input_stream)",
        "2 MiB": "the huge page size the label index asks the system for (src/native/reader.c)",
    },
    "docs/papers/paper-a.md": {"8 s": "8 s sqrt(...): the paper's noise scale (s a constant)"},
    "docs/slurm.md": {
        **dict.fromkeys(("5 min", "512 MB", "1 GB", "60 min", "4 GB"), "the profile's rules"),
    },
    "docs/sparse.md": {
        "120 s": "the peer's time limit (--peer-seconds, its default)",
        **dict.fromkeys(("4x", "50x"), "issue 34's targets"),
        "5x": "a design choice's speed-up measured once, no command kept (left as it was)",
    },
}

#: A time, a size or a ratio (``4.9x``; ``4 x sd`` and ``2.x`` are not) in running text
_QUANTITY = re.compile(
    r"(?<![\w.^])(\d[\d,.]*\s?(?:s|ms|min|MB|MiB|GB|GiB)(?![\w^])|\d(?:[\d,.]*\d)?x(?![\w^]))"
)


def _unmarked_quantities(text: str) -> list[str]:
    """The times, sizes and ratios of ``text`` outside marked values, code blocks and code spans."""
    text = re.sub(r"<!--v:[a-z0-9_]+-->.*?<!--/v-->", "V", text, flags=re.S)
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    text = re.sub(r"`[^`\n]*`", "", text)
    return _QUANTITY.findall(text)


def _checked_pages() -> list[str]:
    pages = ["README.md", *(p.relative_to(ROOT).as_posix() for p in sorted(DOCS.rglob("*.md")))]
    # the includes are generated (a run's tables, the synopses); values.yaml's pages are checked
    return [p for p in pages if not p.startswith("docs/includes/") and p not in UNCHECKED_PAGES]


@pytest.mark.parametrize("page", _checked_pages())
def test_timings_sizes_and_ratios_are_marked(page):
    """Every time, size or ratio in the README and docs/ (outside code) is a marked value of
    docs/includes/values.yaml (or in a generated include), so that it is measured by a run or
    quoted from a benchmark's command, once; a new hand-typed number fails here. The numbers
    with a unit that are not run outputs are listed, with their reason, in NOT_RUN_OUTPUTS."""
    found = set(_unmarked_quantities((ROOT / page).read_text()))
    assert found - set(NOT_RUN_OUTPUTS.get(page, {})) == set(), (
        "mark these as values (docs/includes/values.yaml) or list them in NOT_RUN_OUTPUTS"
    )


def test_the_check_of_unmarked_numbers_finds_them():
    text = "took 3 min 5 s, 4.9x, 12 MiB; `--timeout 5 s` and 4 x sd, numpy 2.x, "
    text += "<!--v:a-->2 s<!--/v-->"
    assert _unmarked_quantities(text) == ["3 min", "5 s", "4.9x", "12 MiB"]
    for page in UNCHECKED_PAGES:
        assert (ROOT / page).is_file(), page


def test_values_are_measured_from_a_run(tmp_path):
    """The results and timed values come out of a run's files; nothing else is touched."""
    from dprank_papers.docs_measures import MEASURES
    from dprank_papers.docs_timing import time_command
    from dprank_papers.docs_values import load_values, measure_values

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


def test_study_values_are_measured_from_their_files(tmp_path):
    """The sensitivity study's job seconds, the scale study's numbers and the audit's come
    out of the files those studies write; the scale study's includes are their tables."""
    from dprank_papers.docs_generate import results_includes
    from dprank_papers.docs_measures import MEASURES

    results = tmp_path / "results"
    grid = results / "benchmarks/sensitivity/scenario3/grid"
    grid.mkdir(parents=True)
    for name, seconds in (("btl_p0.5", 55.2), ("tm_p0.5", 70.6)):
        (grid / f"{name}.tsv").write_text(f"s\th:m:s\tmax_rss\n{seconds}\t0:01:00\t100\n")
    for name in ("summary", "figure"):
        (results / f"benchmarks/sensitivity/{name}.tsv").write_text("s\th:m:s\n4.1\t0:00:04\n")
    rows = [
        (n, 50 / n, eps, method, metric, mean + (0.01 if n == 10**5 else 0), se)
        for n in (1000, 10**5)
        for eps in (0.5, 1.0, 2.5, float("inf"))
        for method, metric, mean, se in (
            ("edge_mle", "log_rel_l2", 0.2, 0.01),
            ("edge_mle", "log_rel_linf", -0.113, 0.016),
            ("edge_mle", "rel_hamming", 0.517, 0.003),
            ("edge_counts", "rel_hamming", 0.383, 0.002),
        )
    ]
    (results / "beyond").mkdir()
    columns = ["n", "p", "epsilon", "method", "metric", "mean", "se"]
    pd.DataFrame(rows, columns=columns).assign(reps=100).to_csv(
        results / "beyond/summary.csv", index=False
    )

    def value(name):
        return MEASURES[name].measure(ROOT, results)

    assert value("sensitivity_scenario3_grid_seconds") == "126 s (2 jobs of 55-71 s)"
    assert value("sensitivity_summary_figure_seconds") == "8 s"
    assert value("sensitivity_scenario5_seconds") is None
    assert value("scale_se_log") == "0.016" and value("scale_se_hamming") == "0.003"
    assert value("scale_hamming_flat") == "0.010"
    assert value("scale_linf_nonprivate") == "-0.11 to -0.10"
    assert value("scale_hamming_eps1") == "0.39 against 0.53"
    assert value("scale_r2_private") is None  # no scale_fit.csv
    assert value("scale_ridge") == "37 to 48"  # config.yaml: n 10^3 to 10^5, n p = 50
    assert value("manifest_paper_files") is None  # no report: no full run here
    (results / "report").mkdir()
    assert value("manifest_paper_files") is None  # report pages alone: a study's, not a full run
    summary = results / "comparison" / "paper_b2_summary.csv"
    summary.parent.mkdir()
    summary.write_text("cell\n")
    assert value("manifest_paper_files") == "2"  # with beyond/summary.csv; benchmarks/ left out
    summary.unlink()
    summary.parent.rmdir()
    assert value("manifest_smoke_files") is None
    files = results_includes(ROOT, results)
    assert [p.name for p in files] == ["beyond_scale_summary.md"]
    _, table = parse_table(next(iter(files.values())))
    assert table[1] == [
        "1",
        "0.200 -> 0.210",
        "-0.113 -> -0.103",
        "0.517 -> 0.527",
        "0.383 -> 0.393",
    ]


def _price_of_privacy_from_include() -> pd.DataFrame:
    """The committed price-of-privacy include as the study's csv (rounded as printed)."""
    _, rows = parse_table((DOCS / "includes" / "arena_price_of_privacy.md").read_text())
    names = {"Chatbot Arena": "chatbot_arena", "CEMS": "cems"}
    privacy = {"voter": "individual"}
    return pd.DataFrame(
        [
            {
                "dataset": names[r[0].split(" (")[0]],
                "privacy": privacy.get(r[1], r[1]),
                "epsilon": float(r[2]),
                "kendall": float(r[3]),
                "top_overlap": float(r[4].split()[0]),
                "rank_coverage": float(r[5]),
                "tie_classes": float(r[6]),
            }
            for r in rows
        ]
    )


def test_the_arena_words_agree_with_the_arena_table(tmp_path):
    """The numbers docs/leaderboard.md gives in words are those of the price-of-privacy table
    it includes (each measured from results/tables/arena/price_of_privacy.csv)."""
    from dprank_papers.docs_measures import MEASURES
    from dprank_papers.docs_values import load_values

    folder = tmp_path / "results" / "tables" / "arena"
    folder.mkdir(parents=True)
    _price_of_privacy_from_include().to_csv(folder / "price_of_privacy.csv", index=False)
    values = load_values(DOCS / "includes" / "values.yaml")
    names = [n for n in values if n.startswith("arena_") and values[n]["kind"] == "results"]
    assert len(names) >= 15
    for name in names:
        assert MEASURES[name].measure(ROOT, tmp_path / "results") == values[name]["value"], name


def test_the_scale_study_words_agree_with_its_tables(tmp_path):
    """docs/scale-study.md's numbers in words are those of the two tables it includes (each
    measured from results/beyond/; the standard errors are not in the tables)."""
    from dprank_papers.docs_generate import SCALE_SUMMARY_COLUMNS
    from dprank_papers.docs_measures import MEASURES
    from dprank_papers.docs_values import load_values

    results = tmp_path / "results"
    (results / "beyond").mkdir(parents=True)
    _, rows = parse_table((DOCS / "includes" / "beyond_scale_fit.md").read_text())
    columns = ["epsilon", "constant", "r2", "rms_log_residual", "max_abs_log_residual"]
    columns += ["slope_measured", "slope_rate"]
    pd.DataFrame([[float(c) for c in r] for r in rows], columns=columns).to_csv(
        results / "beyond/scale_fit.csv", index=False
    )
    _, rows = parse_table((DOCS / "includes" / "beyond_scale_summary.md").read_text())
    records = [
        (n, float(r[0]), method, metric, float(cell.split(" -> ")[i]), 0.0)
        for r in rows
        for (method, metric, _), cell in zip(SCALE_SUMMARY_COLUMNS, r[1:], strict=True)
        for i, n in enumerate((1000, 100000))
    ]
    frame = pd.DataFrame(records, columns=["n", "epsilon", "method", "metric", "mean", "se"])
    frame.to_csv(results / "beyond/summary.csv", index=False)
    values = load_values(DOCS / "includes" / "values.yaml")
    names = ["scale_r2_private", "scale_r2_eps2_5", "scale_linf_nonprivate"]
    names += ["scale_hamming_eps1", "scale_hamming_flat", "scale_residual_private"]
    for name in names:
        assert MEASURES[name].measure(ROOT, results) == values[name]["value"], name


def test_the_sensitivity_words_agree_with_its_table(tmp_path):
    """docs/sensitivity.md's Scenario V numbers in words are measured from the files its
    table is written from: the closest TM ADRR distance is the table's, and the default's
    cells within tolerance come from settings.csv."""
    from dprank_papers.docs_generate import sensitivity_targets_table
    from dprank_papers.docs_measures import MEASURES
    from dprank_papers.docs_values import load_values

    values = load_values(DOCS / "includes" / "values.yaml")
    _, rows = parse_table((DOCS / "includes" / "sensitivity_scenario5.md").read_text())
    row = next(r for r in rows if r[0] == "Table 11 ADRR K, TM")
    assert row[3].split()[0] == values["sensitivity_tm_adrr_closest"]["value"]
    folder = tmp_path / "results" / "sensitivity"
    folder.mkdir(parents=True)
    settings = pd.DataFrame(
        {"theta_half": [1.0, 2.0], "p": [0.5, 0.5], "lambda_c": [1.0, 1.0]}
        | {"within": [8, 3], "compared": [16, 16], "rms_log_ratio": [0.1, 0.2]}
    )
    settings.to_csv(folder / "settings.csv", index=False)
    measure = MEASURES["sensitivity_default_within"].measure
    assert measure(ROOT, tmp_path / "results") == "8 of the 16"
    cells = pd.DataFrame(
        [
            ("B2 Table 11", "TM", "local_adrr", "kendall_tau_K", h, 0.5, 1.0, verdict, d)
            for h, verdict, d in ((1.0, "outside", 0.02), (2.0, "within", 0.008))
        ],
        columns=[
            "figure",
            "model",
            "method",
            "metric",
            "theta_half",
            "p",
            "lambda_c",
            "verdict",
            "diff",
        ],
    ).assign(published_mean=0.0112, ours_mean=lambda f: 0.0112 + f["diff"])
    cells.to_csv(folder / "cells.csv", index=False)
    assert MEASURES["sensitivity_tm_adrr_closest"].measure(ROOT, tmp_path / "results") == "0.0192"
    _, rows = parse_table(
        sensitivity_targets_table(cells, {"theta_half": 1, "p": 0.5, "lambda_c": 1})
    )
    assert rows == [["Table 11 ADRR K, TM", "0.0112", "0.0312", "0.0192 (2, 0.5, 1)", "1"]]
    s5 = folder / "scenario5"
    s5.mkdir()
    pd.DataFrame(
        {"theta_half": [1.0, 2.0, 2.0], "p": [0.5, 0.25, 0.25], "lambda_c": [1.0, 0.1, 1.0]}
        | {"model": "tm", "method": "local_laplace", "metric": "converged"}
        | {"mean": [0.995, 0.35, 1.0], "reps": 200}
    ).to_csv(s5 / "tm_p0.5.csv", index=False)
    nonconverged = {
        what: MEASURES[f"sensitivity_nonconverged_{what}"].measure(ROOT, tmp_path / "results")
        for what in ("groups", "worst", "worst_setting")
    }
    assert nonconverged == {
        "groups": "2 of the 3",
        "worst": "65%",
        "worst_setting": "h = 2, p = 0.25, c = 0.1",
    }


def test_the_fidelity_words_agree_with_its_tables(tmp_path):
    """The cell counts docs/fidelity.md gives in words (and the agreement values) are those of
    the per-item tables it includes: each measured from the comparison summaries those tables
    are written from."""
    from dprank_papers.docs_measures import MEASURES
    from dprank_papers.docs_values import load_values

    folder = tmp_path / "results" / "comparison"
    folder.mkdir(parents=True)
    for name in ("paper_a_edge", "paper_a_individual", "paper_b2", "paper_b1"):
        _, rows = parse_table((DOCS / "includes" / f"fidelity_{name}.md").read_text())
        summary = _summary(
            [
                (r[0], *map(int, r[1].split(" / ")[::-1]), 0, 0, 0.0)
                for r in rows
                if r[0] != "none compared in this run"
            ]
        )
        summary.to_csv(folder / f"{name}_summary.csv", index=False)
    values = load_values(DOCS / "includes" / "values.yaml")
    names = [
        n
        for n in values
        if n.startswith(("fidelity_b2_", "outside_", "agreement_"))
        and "_summary.csv" in values[n]["source"]
    ]
    assert len(names) >= 10
    for name in names:
        assert MEASURES[name].measure(ROOT, tmp_path / "results") == values[name]["value"], name
    # the cell-level values: from the comparison's cells (results/comparison/paper_b2.csv)
    cells = pd.DataFrame(
        [
            ("B2 Table 11", "TM", "kendall_tau_K", "local_adrr", 0.032454, "outside"),
            ("B2 Table 10", "BTL", "l2_over_sqrt_m", "local_classic_rr", 0.3193, "outside"),
            ("B2 Table 10", "TM", "l2_over_sqrt_m", "local_classic_rr", 0.3330, "within"),
        ],
        columns=["figure", "model", "metric", "method", "ours_mean", "verdict"],
    )
    cells.to_csv(folder / "paper_b2.csv", index=False)
    results = tmp_path / "results"
    assert MEASURES["fidelity_b2_t11_adrr_tm"].measure(ROOT, results) == "0.032"
    assert MEASURES["fidelity_b2_t10_classic_rr_btl"].measure(ROOT, results) == "0.319"
    assert MEASURES["fidelity_b2_t10_classic_rr_outside"].measure(ROOT, results) == "1"
    edge = pd.DataFrame(
        [
            ("Figure 2", "a", "log_rel_l2", 0.5, -0.0375, "outside"),
            ("Figure 2", "a", "log_rel_l2", 0.5, -0.0695, "outside"),
            ("Figure 2", "a", "log_rel_l2", 1.0, -0.05, "outside"),
            ("Figure 2", "a", "log_rel_l2", 0.5, -0.01, "within"),
        ],
        columns=["figure", "panel", "metric", "epsilon", "diff", "verdict"],
    )
    edge.to_csv(folder / "paper_a_edge.csv", index=False)
    assert MEASURES["fidelity_a_fig2a_eps05_outside"].measure(ROOT, results) == "2"
    assert MEASURES["fidelity_a_fig2a_eps05_diff"].measure(ROOT, results) == "0.04-0.07"
    assert MEASURES["fidelity_a_fig1_l2_outside"].measure(ROOT, results) == "0"
    figures = results / "figures" / "paper_b2"
    figures.mkdir(parents=True)
    pd.DataFrame(
        {"model": ["btl", "btl", "tm", "tm"], "metric": ["l2_over_sqrt_m", "linf"] * 2}
        | {"r": [0.869, 0.791, 0.871, 0.779]}
    ).to_csv(figures / "fig5.csv", index=False)
    assert MEASURES["fidelity_b2_fig5_r_l2"].measure(ROOT, results) == "0.87"
    assert MEASURES["fidelity_b2_fig5_r_linf"].measure(ROOT, results) == "0.79; 0.78"
    b1 = results / "figures" / "paper_b1"
    b1.mkdir(parents=True)
    pd.DataFrame(
        [
            ("btl", 400, m, metric, method, mean)
            for m, metric, method, mean in (
                (10, "linf", "local_classic_rr", 0.7185),
                (20, "linf", "local_classic_rr", 0.7553),
                (10, "linf", "local_adrr", 0.1084),
                (10, "linf", "local_laplace", 0.1526),
            )
        ],
        columns=["model", "L", "m", "metric", "method", "mean"],
    ).to_csv(b1 / "fig6.csv", index=False)
    assert MEASURES["fidelity_b1_fig6_classic_rr_linf"].measure(ROOT, results) == "0.72-0.76"
    assert (
        MEASURES["fidelity_b1_fig6_adrr_laplace_linf"].measure(ROOT, results) == "0.108 and 0.153"
    )


def test_marks_are_rewritten_and_unknown_names_refused():
    from dprank_papers.docs_values import apply_values, marked

    values = {"a": {"value": "2 s", "kind": "quoted", "source": "x"}}
    text = "took <!--v:a-->1 s<!--/v--> and <!--v:a-->3 s<!--/v-->"
    assert apply_values(text, values) == "took <!--v:a-->2 s<!--/v--> and <!--v:a-->2 s<!--/v-->"
    assert marked(text) == [("a", "1 s"), ("a", "3 s")]
    with pytest.raises(KeyError, match=r"'b' is not in values\.yaml"):
        apply_values("<!--v:b-->1<!--/v-->", values)


def test_a_time_names_its_run(tmp_path):
    """A time measured anew takes the run given (docs_generate --run); without one it keeps
    its run where its value is unchanged and names none where it changed (which
    test_every_measured_value_names_its_measure refuses); other values never name a run."""
    from dprank_papers.docs_values import load_values, measure_values

    results = tmp_path / "results"
    (results / "benchmarks" / "audit").mkdir(parents=True)
    tsv = results / "benchmarks" / "audit" / "privacy.tsv"
    values = load_values(DOCS / "includes" / "values.yaml")
    kept = values["audit_job_seconds"]
    seconds = float(kept["value"].removesuffix(" s"))
    tsv.write_text(f"s\th:m:s\n{seconds}\t0:00:13\n")
    (results / "report.html").write_bytes(b"x" * 1000)
    names = ["audit_job_seconds", "report_size"]
    same = measure_values(values, ROOT, results, names=names)
    assert same["audit_job_seconds"] == kept and "run" not in same["report_size"]
    tsv.write_text(f"s\th:m:s\n{seconds + 100}\t0:01:53\n")
    changed = measure_values(values, ROOT, results, names=names)
    assert "run" not in changed["audit_job_seconds"]
    named = measure_values(values, ROOT, results, names=names, run="a run of today")
    assert named["audit_job_seconds"]["run"] == "a run of today"
    assert "run" not in named["report_size"]
