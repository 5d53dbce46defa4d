"""Paper-style tables (cells, pivot, CSV/Markdown/LaTeX writers) and the reader of the
published Paper B tables in ../shared/reference/paper-b/."""

import math
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from dprank_papers.tables import (
    KEY_COLUMNS,
    MISSING,
    PUBLISHED_DIGITS,
    format_cell,
    format_pvalue,
    latex_escape,
    pivot_table,
    read_published_table,
    to_csv,
    to_latex,
    to_markdown,
)

ROOT = Path(__file__).resolve().parents[1]
# the published Paper B tables: a copy in the repository if one is added, else ../shared
_CANDIDATES = [
    ROOT / "resources" / "published" / "paper_b",
    ROOT.parent / "shared" / "reference" / "paper-b",
]
REFERENCE = next((d for d in _CANDIDATES if any(d.glob("*.csv"))), _CANDIDATES[-1])
PUBLISHED = sorted(REFERENCE.glob("*.csv")) if REFERENCE.is_dir() else []
needs_reference = pytest.mark.skipif(
    not PUBLISHED, reason=f"published Paper B tables not found under {REFERENCE}"
)


# ---------------------------------------------------------------- cells


def test_format_cell():
    assert format_cell(0.0757, 0.003, 4) == "0.0757 (0.0030)"
    assert format_cell(0.11037, 0.01934, 4) == "0.1104 (0.0193)"
    assert format_cell(0.63, np.nan, 3) == "0.630"
    assert format_cell(0.63, None, 3) == "0.630"
    assert format_cell(np.nan, 0.1, 4) == MISSING == "–"
    assert format_cell(None, None, 4, missing="NA") == "NA"
    assert format_cell(-1e-6, 0.0, 4) == "0.0000 (0.0000)"  # no "-0.0000"
    assert format_cell(np.float32(0.5), np.int64(0), 2) == "0.50 (0.00)"


def test_format_pvalue():
    assert format_pvalue(5.513e-5) == "5.5e-5"
    assert format_pvalue(7.3966e-4) == "7.4e-4"
    assert format_pvalue(1.0864e-17) == "1.1e-17"
    assert format_pvalue(0.01234) == "0.012"
    assert format_pvalue(0.5) == "0.5"
    assert format_pvalue(0.0) == "0"
    assert format_pvalue(np.nan) == MISSING


def test_latex_escape():
    assert latex_escape(r"a_b & 50% $x$ #1 {y} ~ ^ \ –") == (
        r"a\_b \& 50\% \$x\$ \#1 \{y\} \textasciitilde{} \textasciicircum{} "
        r"\textbackslash{} --"
    )
    assert latex_escape("plain 0.0757 (0.0030)") == "plain 0.0757 (0.0030)"


# ---------------------------------------------------------------- pivot and writers


def _small_frame():
    return pd.DataFrame(
        {
            "model": ["BTL", "BTL", "TM", "TM"],
            "metric": ["l2_over_sqrt_m"] * 4,
            "L": [100, 200, 100, 200],
            "mean": [0.11037, 0.077, 0.0779, np.nan],
            "dispersion": [0.0301, 0.01934, 0.0203, np.nan],
            "dispersion_kind": ["sd"] * 4,
        }
    )


def test_pivot_layout():
    table = pivot_table(_small_frame(), index=["model", "metric"], columns="L", digits=4)
    assert list(table.columns) == ["L = 100", "L = 200"]
    assert table.index.names == ["model", "metric"]
    assert table.loc[("BTL", "l2_over_sqrt_m"), "L = 100"] == "0.1104 (0.0301)"
    assert table.loc[("TM", "l2_over_sqrt_m"), "L = 200"] == MISSING
    assert table.attrs["dispersion_kinds"] == ("sd",)
    # order of first appearance, not sorted; absent cells are MISSING
    frame = _small_frame().iloc[[3, 2, 1]]
    table = pivot_table(frame, index="model", columns=["L"], digits=2)
    assert list(table.index) == ["TM", "BTL"] and list(table.columns) == ["L = 200", "L = 100"]
    assert table.loc["BTL", "L = 100"] == MISSING
    # several column keys: numeric as "name = value", strings bare (B2 Table 8 headers)
    frame = _small_frame().assign(metric="K")
    table = pivot_table(frame, index="metric", columns=["L", "model"], digits=4)
    assert list(table.columns) == ["L = 100, BTL", "L = 200, BTL", "L = 100, TM", "L = 200, TM"]


def test_pivot_kinds_and_checks():
    summary = _small_frame().rename(columns={"dispersion": "sd"}).drop(columns="dispersion_kind")
    table = pivot_table(summary, "model", "L", 4, dispersion="sd")
    assert table.attrs["dispersion_kinds"] == ("sd",)
    assert pivot_table(summary, "model", "L", 4, dispersion=None).iloc[0, 0] == "0.1104"
    mixed = _small_frame().assign(dispersion_kind=["sd", "se", "se", None])
    assert pivot_table(mixed, "model", "L", 4).attrs["dispersion_kinds"] == ("sd", "se")
    with pytest.raises(ValueError, match="'sd' or 'se'"):
        pivot_table(_small_frame().assign(dispersion_kind="iqr"), "model", "L", 4)
    with pytest.raises(ValueError, match="several rows"):
        pivot_table(_small_frame(), "model", "metric", 4)
    with pytest.raises(ValueError, match="lacks"):
        pivot_table(_small_frame(), "model", "Delta", 4)
    with pytest.raises(ValueError, match="both rows and columns"):
        pivot_table(_small_frame(), "L", "L", 4)


MARKDOWN = """\
Table 5: errors. In parentheses: sample SD over replicates.

| model | metric | L = 100 | L = 200 |
|:---|:---|---:|---:|
| BTL | l2_over_sqrt_m | 0.1104 (0.0301) | 0.0770 (0.0193) |
| TM | l2_over_sqrt_m | 0.0779 (0.0203) | – |
"""

LATEX = r"""\begin{table}[htbp]
\centering
\caption{Errors \& 50\% of \$m\$. In parentheses: sample SD over replicates.}
\label{tab:b2_5}
\begin{tabular}{llrr}
\toprule
model & metric & L = 100 & L = 200 \\
\midrule
BTL & l2\_over\_sqrt\_m & 0.1104 (0.0301) & 0.0770 (0.0193) \\
TM & l2\_over\_sqrt\_m & 0.0779 (0.0203) & -- \\
\bottomrule
\end{tabular}
\end{table}
"""

CSV = """\
model,metric,L = 100,L = 200
BTL,l2_over_sqrt_m,0.1104 (0.0301),0.0770 (0.0193)
TM,l2_over_sqrt_m,0.0779 (0.0203),–
"""


def test_writers_exact_strings():
    table = pivot_table(_small_frame(), index=["model", "metric"], columns="L", digits=4)
    assert to_markdown(table, "Table 5: errors.") == MARKDOWN
    assert to_latex(table, "Errors & 50% of $m$", "tab:b2_5") == LATEX
    assert to_csv(table) == CSV


def test_writer_options():
    table = pivot_table(_small_frame().assign(metric="K"), ["metric", "model"], "L", 4)
    md = to_markdown(table, note=False, sparsify=True)
    assert md.splitlines() == [
        "| metric | model | L = 100 | L = 200 |",
        "|:---|:---|---:|---:|",
        "| K | BTL | 0.1104 (0.0301) | 0.0770 (0.0193) |",
        "|  | TM | 0.0779 (0.0203) | – |",
    ]
    assert to_markdown(table).startswith("In parentheses: sample SD over replicates.\n\n|")
    tex = to_latex(table, r"$m^{-1/2}\|\hat\theta-\theta\|_2$", escape_caption=False, note=False)
    assert r"\caption{$m^{-1/2}\|\hat\theta-\theta\|_2$}" in tex and r"\label" not in tex
    piped = pivot_table(_small_frame(), "model", "L", 4, label=lambda k: f"a|{k['L']}")
    assert "| model | a\\|100 | a\\|200 |" in to_markdown(piped)


# ---------------------------------------------------------------- published tables

# rows and NA means per file (docs/papers/paper-b.md#s10)
EXPECTED_ROWS = {
    "B2-Table1": (10, 0),
    "B2-Table2": (20, 6),
    "B2-Table3": (18, 0),
    "B2-Table4": (12, 0),
    "B2-Table5": (48, 0),
    "B2-Table6": (72, 0),
    "B2-Table7": (72, 0),
    "B2-Table8": (54, 3),
    "B2-Table9": (54, 0),
    "B2-Table10": (16, 2),
    "B2-Table11": (4, 0),
    "B1-Table1": (6, 0),  # 3 schemes x 2 metrics, long form
}
SE_KIND = {"sd_over_replicates": ("3", "5", "6", "7", "8", "9"), "se_of_mean": ("2", "10", "11")}


def _name(path):
    return path.stem.split("_")[0]


@needs_reference
@pytest.mark.parametrize("path", PUBLISHED, ids=lambda p: p.stem)
def test_read_published_table(path):
    tab = read_published_table(path)
    assert list(tab.columns[: len(KEY_COLUMNS)]) == list(KEY_COLUMNS)
    for col in ("mean", "dispersion", "se_kind", "dispersion_kind", "digits", "flag"):
        assert col in tab.columns
    means = tab["mean"].to_numpy(dtype=float)
    assert np.isfinite(means).any()
    assert np.all(np.isfinite(means[~np.isnan(means)]))
    disp = tab["dispersion"].to_numpy(dtype=float)
    assert np.all(disp[~np.isnan(disp)] >= 0)
    assert set(tab["se_kind"]) <= {"sd_over_replicates", "se_of_mean", "none"}
    name = _name(path)
    if name in EXPECTED_ROWS:
        rows, na = EXPECTED_ROWS[name]
        assert (len(tab), int(np.isnan(means).sum())) == (rows, na)
    number = name.removeprefix("B2-Table")
    for kind, tables in SE_KIND.items():
        if name.startswith("B2-Table") and number in tables:
            with_disp = tab[tab["dispersion"].notna()]
            assert len(with_disp) > 0 and set(with_disp["se_kind"]) == {kind}
            assert set(with_disp["dispersion_kind"]) == {kind[:2]}


@needs_reference
@pytest.mark.parametrize(
    "path", [p for p in PUBLISHED if _name(p) in PUBLISHED_DIGITS], ids=lambda p: p.stem
)
def test_published_digits_reproduce_printed_cells(path):
    """Every fixed-notation mean and parenthetical has PUBLISHED_DIGITS decimals, and
    format_cell with that number rewrites the printed text exactly."""
    digits = PUBLISHED_DIGITS[_name(path)]
    raw = pd.read_csv(path, dtype=str, keep_default_na=False, comment="#")
    value = "aggregate_rank" if "aggregate_rank" in raw else "mean"
    se = raw["se"] if "se" in raw else pd.Series("", index=raw.index)
    fixed = re.compile(r"\d+(\.\d+)?")
    checked = 0
    for text, disp in zip(raw[value], se, strict=True):
        if not fixed.fullmatch(text):
            continue  # NA cells and Table 2's p-values (5.5e-05)
        has_disp = disp not in ("", "NA")
        expected = f"{text} ({disp})" if has_disp else text
        assert format_cell(float(text), float(disp) if has_disp else None, digits) == expected
        checked += 1
    assert checked > 0
    tab = read_published_table(path)
    assert set(tab["digits"].dropna()) == {digits}


@needs_reference
def test_published_table_pivots_like_the_paper():
    tab = read_published_table(REFERENCE / "B2-Table10_scenarioV_estimation_errors.csv")
    table = pivot_table(tab, ["model", "metric"], "method", PUBLISHED_DIGITS["B2-Table10"])
    assert list(table.columns) == [
        "local_adrr",
        "edge_noisy_obj",
        "local_laplace",
        "local_classic_rr",
    ]
    assert table.loc[("BTL", "l2_over_sqrt_m")].tolist() == [
        "0.0882 (0.0019)",
        "0.1327 (0.0045)",
        "0.2221 (0.0057)",
        "0.3545 (0.0012)",
    ]
    assert table.loc[("TM", "linf"), "edge_noisy_obj"] == MISSING
    assert table.attrs["dispersion_kinds"] == ("se",)
    assert "standard error of the mean" in to_markdown(table, "Table 10")


@needs_reference
def test_published_special_layouts():
    ranks = read_published_table(REFERENCE / "B2-Table1_car_attributes_ranking.csv")
    assert sorted(ranks["mean"]) == list(range(1, 11))
    assert ranks.loc[ranks["mean"] == 1, "car_id"].item() == "6"  # car 6 is preferred
    behaviour = read_published_table(REFERENCE / "B1-Table1_scheme_behavior.csv")
    assert sorted(behaviour["mean"]) == [-1, -1, 0, 0, 1, 1]
    quoted = read_published_table(REFERENCE / "B2-text_numbers.csv").set_index("text")
    assert quoted.loc["5/9", "mean"] == pytest.approx(5 / 9)
    assert quoted.loc["42 of 60 (70%)", "mean"] == pytest.approx(0.7)
    assert quoted.loc["6.98%", "mean"] == pytest.approx(0.0698)
    assert quoted.loc["~19", "qualifier"] == "~"
    assert math.isnan(quoted.loc["car 6 / car 3", "mean"])


def test_read_unknown_layout(tmp_path):
    path = tmp_path / "odd.csv"
    path.write_text("a,b\n1,2\n")
    with pytest.raises(ValueError, match="unrecognised"):
        read_published_table(path)


# ----------------------------------------------------------------- the papers' layout and labels


def _summary(metrics, methods=("local_adrr",), **grid):
    """A small summary frame: every combination of the grid keys, metric and method."""
    import itertools

    keys = list(grid)
    rows = []
    for values in itertools.product(*grid.values()):
        for metric in metrics:
            for method in methods:
                rows.append(
                    {
                        **dict(zip(keys, values, strict=True)),
                        "metric": metric,
                        "method": method,
                        "mean": 0.1,
                        "sd": 0.01,
                        "se": 0.001,
                    }
                )
    return pd.DataFrame(rows)


def _b2_spec(name):
    import yaml

    root = Path(__file__).resolve().parents[1]
    return yaml.safe_load((root / "workflow/papers/paper_b2.yaml").read_text())["items"][name]


def test_table11_rows_are_btl_and_tm():
    from dprank_papers.tables import paper_table

    summary = _summary(
        ["kendall_tau_K"], ("local_adrr", "local_count", "local_laplace"), model=["btl", "tm"]
    )
    table = paper_table(summary, _b2_spec("table11"), "table11")
    assert [key[0] for key in table.index] == ["BTL", "TM"]
    assert list(table.columns) == ["ADRR", "Count Method"]
    assert list(table.index.names) == ["Model", "Error"]


def test_table5_blocks_in_the_papers_order():
    from dprank_papers.tables import paper_table

    summary = _summary(["linf", "l2_over_sqrt_m"], model=["tm", "btl"], m=[10, 20], L=[100, 200])
    table = paper_table(summary, _b2_spec("table5"), "table5")
    blocks = list(dict.fromkeys((k[0], k[1]) for k in table.index))
    l2, linf = "m^(-1/2) ‖θ̂ − θ*‖₂", "‖θ̂ − θ*‖∞"
    assert blocks == [(l2, "BTL"), (l2, "TM"), (linf, "BTL"), (linf, "TM")]


def test_tables_8_and_9_group_rows_by_m_and_columns_by_model():
    from dprank_papers.tables import paper_table

    summary = _summary(
        ["kendall_tau_K"], model=["btl", "tm"], delta=[0.05, 0.1], m=[10, 20], L=[100, 200]
    )
    table = paper_table(summary, _b2_spec("table8"), "table8")
    assert [k[0] for k in table.index] == [10, 10, 20, 20]
    assert list(table.columns) == [
        "L = 100, BTL",
        "L = 200, BTL",
        "L = 100, TM",
        "L = 200, TM",
    ]


def test_no_table_file_holds_a_code_name():
    """Every B2 simulation table, written as Markdown, LaTeX and HTML, with the papers' labels."""
    import re

    from dprank_papers.tables import (
        CODE_NAMES,
        PAPER_LAYOUTS,
        paper_table,
        to_html,
        to_latex,
        to_markdown,
    )

    root = Path(__file__).resolve().parents[1]
    import yaml

    items = yaml.safe_load((root / "workflow/papers/paper_b2.yaml").read_text())["items"]
    specs = {n: s for n, s in items.items() if n.startswith("table") and "made_by" not in s}
    values = {"model": ["btl", "tm"], "m": [10], "L": [100], "scheme": [1], "delta": [0.1]}
    for name, spec in specs.items():
        layout = PAPER_LAYOUTS.get(name, spec)
        keys = {*spec["index"], *spec["columns"], *layout["index"], *layout["columns"]}
        grid = {k: v for k, v in values.items() if k in keys}
        summary = _summary(spec["metrics"], spec.get("methods", ["local_adrr"]), **grid)
        shown = paper_table(summary, spec, name)
        texts = [
            to_markdown(shown, sparsify=True),
            to_html(shown),
            to_latex(paper_table(summary, spec, name, tex=True), escape=False),
        ]
        for text in texts:
            found = [c for c in CODE_NAMES if re.search(rf"(?<![A-Za-z]){re.escape(c)}", text)]
            assert not found, (name, found)


def test_the_html_page_is_a_table():
    from html.parser import HTMLParser

    from dprank_papers.tables import pivot_table, to_html

    frame = pd.DataFrame({"m": [10, 20], "L": [100, 100], "mean": [0.1, 0.2], "sd": [1.0, 2.0]})
    page = to_html(pivot_table(frame, "m", "L", 4, dispersion="sd"), "Caption <b>")

    class Cells(HTMLParser):
        def __init__(self):
            super().__init__()
            self.tags, self.text = [], []

        def handle_starttag(self, tag, attrs):
            self.tags.append(tag)

        def handle_data(self, data):
            self.text.append(data)

    parser = Cells()
    parser.feed(page)
    assert parser.tags.count("table") == 1 and parser.tags.count("tr") == 3
    assert "0.2000 (2.0000)" in parser.text and "Caption <b>. In parentheses" in "".join(
        parser.text
    )


def test_pvalue_text_as_printed():
    from dprank_papers.tables import pvalue_text

    assert pvalue_text(5.5e-5) == "5.5 × 10⁻⁵"
    assert pvalue_text(5.5e-5, tex=True) == r"$5.5 \times 10^{-5}$"
    assert pvalue_text(0.012) == "0.012"


def test_coverage_table_names_methods_by_label_not_registry_name():
    """The intervals study's Markdown table and its notes call methods by their labels."""
    import re

    from _frames import coverage_summary

    from dprank.methods import all_methods, get_method
    from dprank_papers.studies.intervals import coverage_markdown

    summary = coverage_summary()
    summary["meets"] = [True, False]
    text = coverage_markdown(summary, 0.95, 0.93, 0.85)
    rows = [line.split(" | ") for line in text.splitlines() if line.startswith("| ")]
    assert [r[1] for r in rows[1:]] == [get_method(m).label for m in summary["method"]]
    names = [m.name for m in all_methods() if m.name != m.label]
    found = [n for n in names if re.search(rf"(?<![A-Za-z_]){n}(?![A-Za-z_])", text)]
    assert not found
    assert "Falls short: local_design: score intervals cover 0.900 on average" in text


def test_html_long_text_cells_wrap_numbers_do_not():
    """A reason or verdict in words is left-aligned and wraps; numbers stay on one line."""
    from dprank_papers.tables import to_html

    reason = "needs a complete tournament: every pair of the 20 items compared exactly once"
    frame = pd.DataFrame(
        {"Method": ["One-shot", "ADRR"], "Fits": ["0", "9"], "Note": [reason, "short"]}
    )
    page = to_html(frame.set_index("Method"))
    assert "<td class='num'>0</td>" in page and f"<td class='text'>{reason}</td>" in page
    assert "<td class='text'>short</td>" in page  # one alignment per column
    assert (
        "td.text{text-align:left;" in page and "td.num{text-align:right;white-space:nowrap}" in page
    )
