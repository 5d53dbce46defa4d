"""Report pages: runtime per stage from benchmark files, deviations with measured agreement."""

import pandas as pd
import yaml

from dprank_papers.report import deviations_html, runtime_by_stage


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
    import re
    from pathlib import Path

    import yaml

    allowed = {"Paper A", "Paper B1", "Paper B2", "Benchmark", "Agreement with the papers"}
    allowed |= {"Audit", "Runtime"}
    rules = "".join(p.read_text() for p in Path("workflow/rules").glob("*.smk"))
    literal = re.findall(r'\bcategory="([^"]*)"', rules)
    called = re.findall(r"\bcategory=(\w+),", rules)
    assert literal and set(literal) <= allowed, set(literal) - allowed
    assert set(called) <= {"report_paper"}
    # report_paper: the category each paper declares (workflow/papers/<paper>.yaml)
    declared = {
        yaml.safe_load(p.read_text())["category"] for p in Path("workflow/papers").glob("*.yaml")
    }
    assert declared and declared <= allowed, declared - allowed


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

    from dprank_papers.report import load_deviations

    labels = _comparison_labels()
    assert {"Figure 5", "Figure 8", "B2 Table 11"} <= labels
    path = Path(__file__).resolve().parents[1] / "resources" / "deviations.yaml"
    named = {n for e in load_deviations(path) for n in e.get("comparison", [])}
    assert named and named <= labels, sorted(named - labels)


STYLE = "workflow/report/style.css"


def test_every_report_command_passes_the_stylesheet():
    """make report, make smoke and every report command of the docs pass the stylesheet."""
    import re
    from pathlib import Path

    assert Path(STYLE).is_file()
    makefile = Path("Makefile").read_text()
    assert re.search(rf"^REPORT_STYLE = --report-stylesheet {re.escape(STYLE)}$", makefile, re.M)
    recipes = [line for line in makefile.splitlines() if re.search(r"snakemake --report\b", line)]
    assert len(recipes) == 2 and all("$(REPORT_STYLE)" in line for line in recipes), recipes
    pages = [Path("README.md"), *Path("docs").glob("*.md"), Path("workflow/rules/report.smk")]
    commands = [
        (page.name, span)
        for page in pages
        for span in re.findall(r"`([^`\n]*--report results/[^`\n]*)`", page.read_text())
    ]
    assert commands
    missing = [c for c in commands if f"--report-stylesheet {STYLE}" not in c[1]]
    assert not missing, missing


def test_stylesheet_is_embedded_and_its_selectors_match_snakemakes_report(tmp_path):
    """Build a two-item report with the stylesheet: the CSS is in it, and the classes and
    the order of an item's description that its selectors rely on are Snakemake's."""
    import re
    import subprocess
    import sys
    from pathlib import Path

    (tmp_path / "caption.rst").write_text("A caption.\n")
    (tmp_path / "Snakefile").write_text(
        "rule fig:\n"
        "    output: report('fig.png', caption='caption.rst', category='A',"
        " labels={'figure': 'one'})\n"
        "    params: settings={'a': 1}\n"
        "    run:\n"
        "        import base64\n"
        "        open(output[0], 'wb').write(base64.b64decode("
        "'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=='))\n"
    )
    run = [sys.executable, "-m", "snakemake", "--cores", "1"]
    assert subprocess.run(run, cwd=tmp_path, capture_output=True).returncode == 0
    style = Path(STYLE).resolve()
    report = [*run, "--report", "r.html", "--report-stylesheet", str(style)]
    proc = subprocess.run(report, cwd=tmp_path, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-2000:]
    html = (tmp_path / "r.html").read_text()
    css = style.read_text()
    assert f"<style>{css}</style>" in html
    # the selectors: the description's width class, the caption's class, the image's place
    assert r"nav.w-1\/2" in css and '"w-1/2"' in html
    assert "li.prose + li + li + li + li ~ li" in css
    assert '"p-1 prose prose-invert prose-sm"' in html
    assert ".h-screen > .p-3 > img" in css and '"p-3" },\n' in html
    # the breadcrumb (its last entry the item's path) inside the description: one line,
    # as wide as its content, unless the stylesheet lets it wrap
    crumb = re.search(r'e\(\s*"nav",\s*\{ className: "([^"]+)" \},\s*e\(\s*"ol"', html)
    assert crumb and {"whitespace-nowrap", "min-w-fit"} <= set(crumb[1].split())
    assert r"nav.w-1\/2 nav.whitespace-nowrap {" in css and "white-space: normal" in css
    assert 'props = { className: "grow" }' in html and "li.grow" in css
    # an item's description: caption, size heading and size, rule heading and rule, then
    # the parameters (what the stylesheet hides)
    order = re.search(
        r"this\.getDescriptor\(\),\s*this\.getCaption\(\),\s*this\.getSize\(\),\s*"
        r"this\.getRule\(\),\s*this\.getParamsAndWildcards\(\),",
        html,
    )
    assert order, "Snakemake's result description changed: check workflow/report/style.css"
    for method in ("getSize", "getRule"):
        body = html[html.index(f"    {method}() {{") :]
        body = body[: body.index("\n    }\n")]
        assert body.count("ListHeading") == 1 and body.count("ListItem,") == 1, method


def test_no_report_item_is_a_csv_download():
    """Every table reaches the report as an HTML page (rule report_page, tables.to_html)."""
    import re
    from pathlib import Path

    rules = "".join(p.read_text() for p in sorted(Path("workflow/rules").glob("*.smk")))
    items = re.findall(r"report\(\s*(?:R\()?\s*f?\"([^\"]+)\"", rules)
    assert len(items) > 10, items
    csv = [item for item in items if not item.endswith((".png", ".html", ".pdf"))]
    assert not csv, csv


def test_make_report_includes_every_built_study():
    """Each study beyond the papers with report pages (report.smk) is a target of make report
    once one of its pages exists (the Makefile's REPORT_TARGETS)."""
    import re
    from pathlib import Path

    rules = Path("workflow/rules/report.smk").read_text()
    pages = re.findall(r'\(\s*"(\w+)",\s*"[^"]+",(?:\s*"[^"]+",){4}\s*"(\w+)",\s*\)', rules)
    studies = {study for _, study in pages}
    assert {"beyond_scale", "sensitivity", "intervals"} <= studies, pages
    makefile = Path("Makefile").read_text()
    included = set(re.findall(r"\$\(wildcard results/report/pages/(\w+)\.html\),(\w+)\)", makefile))
    missing = [s for s in studies if not any((p, s) in included for p, _ in pages)]
    assert not missing, missing


def test_csv_page_names_registered_methods_by_label():
    """The intervals study's coverage page (a CSV shown by csv_page): labels, not registry names."""
    import pandas as pd

    from dprank.methods import get_method
    from dprank_papers.report import csv_page

    frame = pd.DataFrame(
        {"design": ["a", "b", "c"], "method": ["edge_mle", "local_adrr", "Laplace"], "x": [1, 2, 3]}
    )
    page = csv_page(frame, "Coverage")
    for name in ("edge_mle", "local_adrr"):
        assert name not in page and f">{get_method(name).label}<" in page
    assert ">Laplace<" in page  # not a registered name: as written


def test_runtime_stages_in_natural_order(tmp_path):
    """fig3 before fig10 (the report's runtime page once sorted them as text)."""
    root = tmp_path / "benchmarks"
    names = ["figures/paper_b2/fig10", "figures/paper_b2/fig3", "figures/paper_b2/fig14"]
    names += ["paper_a_edge/exp10/summary", "paper_a_edge/exp2/summary", "audit/privacy"]
    files = [_bench(root / f"{n}.tsv", 1.0, 10) for n in names]
    stages = list(runtime_by_stage(files, root)["stage"])
    assert stages == [
        "audit/privacy",
        "figures/paper_b2/fig3",
        "figures/paper_b2/fig10",
        "figures/paper_b2/fig14",
        "paper_a_edge/exp2/summary",
        "paper_a_edge/exp10/summary",
    ]


def test_csv_page_says_a_column_of_one_value_once_and_aligns_by_kind():
    """The audit page fits the report's frame: a column with one value in every row goes into
    the caption; labels wrap at spaces and long texts anywhere, numbers never wrap."""
    from dprank_papers.report import csv_page

    frame = pd.DataFrame(
        {
            "audit": ["Alg. 3 counts (individual), vector", "classic RR"],
            "method": ["individual_counts", "local_classic_rr"],
            "mechanism": ["perturbed_mle_individual[replace, L=5] with a long name", "rr"],
            "confidence": [0.95, 0.95],
            "lower_bound": [1.9812, 0.98],
            "verdict": ["VIOLATION", "consistent"],
        }
    )
    page = csv_page(frame, "Privacy audit.")
    assert "Privacy audit. In every row: confidence 0.95." in page
    assert "<th>confidence</th>" not in page
    assert "<td class='label'>Noisy counts (Alg. 3)</td>" in page  # words with digits
    assert "<td class='text'>perturbed_mle_individual[replace" in page  # long: wraps anywhere
    assert "<td class='num'>1.981</td>" in page and "<td class='num'>VIOLATION</td>" in page
    single = csv_page(frame.iloc[:1], "One row.")  # one row: every column stays
    assert "<th>confidence</th>" in single and "In every row" not in single
