"""Plain numbers in the running text of README.md and docs/ (decimals, percentages, "N of M",
1e-9): each is a marked value of docs/includes/values.yaml (measured from a run or quoted from
its command, tests/test_docs.py checks the marks), or listed here with its reason.

tests/test_docs.py::test_timings_sizes_and_ratios_are_marked checks numbers with a unit (times,
sizes, ratios); this file checks those without. Left out of the scan: marked values, code
(blocks and spans), HTML comments, link targets, references to the papers' numbered parts
("Theorem 2.1", "section 5.1", "eq. (2.2)", "Proposition 3.1") and version numbers
("Python >= 3.11"); the generated includes (docs/includes/) and the papers' pages (docs/papers/:
the papers' settings and published numbers, and the evidence for each documented choice).

Counts (an integer and what it counts: "96 games", "18 release paths", "35 jobs", "32
minutes") are scanned too (:func:`counts`), with their own two lists, :data:`NOT_RUN_COUNTS`
and :data:`TYPED_RUN_COUNTS`; a count that the code declares (the harness's release paths and
games, the scale study's jobs) is a derived value of values.yaml, recomputed from the code.

Two lists of plain numbers, per page:

- :data:`NOT_RUN_OUTPUTS`: numbers no run produces: settings (eps, p, levels, tolerances, the
  grids of config.yaml), the papers' published numbers, constants and formulas' values;
- :data:`TYPED_RUN_OUTPUTS`: numbers a run or a benchmark did produce that are still typed
  (each with the command or test that produced them): what remains of issue 50's "every
  number generated"; a number moves from here to values.yaml, never the other way.
"""

import re
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]

#: Pages left out, with the reason
UNCHECKED_PAGES: dict[str, str] = {}

_SETTING = "a setting (config.yaml, a default or the text's example), not a run's output"
_PUBLISHED = "a number printed in the paper"
_LEVEL = "a confidence level or threshold of a rule"
_DP_DELTA = "Paper B's delta = 1e-6 (A10), a setting"

NOT_RUN_OUTPUTS = {
    "README.md": {
        "0.1": "the target Kendall distance of the benchmark's table (a threshold)",
        "2.5": "2.5 million comparisons: the size of the benchmark's data, a setting",
    },
    "docs/audit.md": {
        **dict.fromkeys(("0.95", "95%"), _LEVEL),
        "1e-6": _DP_DELTA,
        "0.02": "1/(2 sqrt(n p log n)) at the paper's n >= 100: a formula's value",
        **dict.fromkeys(("0.2", "1.0"), "the arguments of the audit call shown"),
    },
    "docs/benchmark.md": {
        **dict.fromkeys(("0.1", "0.2", "0.5"), "the benchmark's eps grid (config.yaml)"),
        **dict.fromkeys(("0.05",), "the thresholds of the benchmark's table (with 0.1)"),
        "95%": _LEVEL,
        "1e-6": _DP_DELTA,
    },
    "docs/cli.md": {
        **dict.fromkeys(("0.95", "90%"), _LEVEL),
        "1e-6": _DP_DELTA,
        "1e-9": "the accepted range of a weight (1e-9 to 1e9), a check of the command",
    },
    "docs/fidelity.md": {
        **dict.fromkeys(
            ("0.25", "0.5", "0.625", "0.1", "0.2", "0.8", "2.75", "1e-6"),
            "the cells' settings (p, eps, Delta, budgets, ridge) of config.yaml",
        ),
        **dict.fromkeys(
            (
                "0.088",
                "0.189",
                "0.355",
                "0.377",
                "0.258",
                "0.022",
                "0.011",
                "0.037",
                "0.021",
                "0.0757",
                "0.0859",
                "0.0841",
                "0.1198",
                "4.12",
                "3.43",
                "9.43",
                "6.98%",
                "0.9",
            ),
            _PUBLISHED,
        ),
        "0.033": "the difference between the authors' two published runs (their data)",
        "5%": "the significance level",
        "40.7": "m (m - 1) / 2 x L comparisons of the largest cell (config.yaml)",
        "0.053": "the fit of the documented choice A6 (docs/papers/paper-b.md#a6)",
        "0.317": "an independent re-simulation outside this project",
    },
    "docs/intervals.md": {
        **dict.fromkeys(("1%", "90%"), "the method's thresholds (a chi-square quantile, a span)"),
        "80%": "the Laplace share of the errors' variance in the calibration test, a setting",
        "0.01": "the calibration test's bound (tests/test_interval_calibration.py)",
        **dict.fromkeys(
            ("1.25", "1.5", "1.75", "2.5"),
            "a factor of the calibration's levels (1, 1.25, 1.5, 1.75, 2, 2.5, 3, 4, 6), a setting",
        ),
        "1.7": "Thurstone's scale against BTL's, a constant",
        "5%": "the candidate totals' merge bound (MERGE_SD of dprank.intervals), a setting",
        **dict.fromkeys(
            ("0.05", "0.95", "0.80", "0.016", "0.70"),
            "binomial arithmetic at the rerun's 20 replicates (--reps 20): steps of 1/20, "
            "P(Binomial(20, 0.95) <= 16), the smallest of 5000 such items",
        ),
        **dict.fromkeys(
            ("0.02", "1.1"),
            "the issue's targets (debiased calibration error, rank width against the "
            "bootstrap's): constants of dprank_papers._docs_intervals and the study's meets",
        ),
        **dict.fromkeys(("0.3", "0.5"), "designs' settings (tight_eps8's sd, local budgets)"),
    },
    "docs/leaderboard.md": {
        **dict.fromkeys(("0.95", "95%"), _LEVEL),
        "2.72": "e^1, the constant of the guarantee in words",
        "0.5": "the eps grid of the arena study (config.yaml)",
    },
    "docs/performance.md": {
        **dict.fromkeys(
            ("0.01", "0.1", "0.25", "0.7", "0.85", "0.3", "2.5"),
            "the benchmarks' settings (ridge, densities, the routing threshold, 2.5 million pairs)",
        ),
        **dict.fromkeys(
            ("1e-9", "1e-6", "1e-12", "1e-15"),
            "the solvers' tolerances and the checks' bounds",
        ),
    },
    "docs/privacy.md": {
        **dict.fromkeys(("0.1",), "the eps of the battery (0.1, 1, 8)"),
        **dict.fromkeys(("0.525", "0.731", "0.99966"), "e^eps / (1 + e^eps): the DP bound"),
        **dict.fromkeys(("0.034", "0.39", "3.27"), "OpenDP's accounting of the requests"),
        **dict.fromkeys(("95%", "90%", "20%", "1%"), "the harness's levels and its rules"),
        **dict.fromkeys(("1e-9", "1e-5"), "the output noise's scale, a setting"),
    },
    "docs/protocols.md": {
        **dict.fromkeys(("0.25", "0.5"), "the settings of the fits compared"),
        "1e-10": "our solver's tolerance",
        "1e-5": "cvxpy's default accuracy (its documentation)",
        "-0.22": "log relative l2 at the authors' floor: a formula's value",
        "24%": "the authors' top-k miss rate at n = 16 (their data, docs/papers/paper-a.md)",
        **dict.fromkeys(("-0.011", "-0.004"), "the authors' stored results (their data)"),
    },
    "docs/robustness.md": {"0.5": "a bad input of the example (a count of 0.5)"},
    "docs/scale-study.md": {
        **dict.fromkeys(("0.5", "2.5"), "the study's eps grid (config.yaml)"),
    },
    "docs/sensitivity.md": {
        **dict.fromkeys(
            ("0.1", "0.2", "0.25", "0.3", "0.5", "0.75", "1.5"),
            "the study's grids (config.yaml section sensitivity)",
        ),
        **dict.fromkeys(("0.0112", "0.0221", "0.0374", "0.0206"), _PUBLISHED),
    },
    "docs/slurm.md": {"1.5": "the profile's memory rule (1.5 x the peak)"},
    "docs/sparse.md": {
        **dict.fromkeys(
            ("0.01", "0.1", "0.25", "0.3", "0.7", "1.2", "2.5"),
            "the benchmarks' settings (ridge, densities, Pareto's exponent, 2.5 million "
            "comparisons, the routing threshold)",
        ),
        **dict.fromkeys(
            ("1e-4", "1e-5", "1e-6", "1e-8", "1e-10", "1e-13"),
            "the solvers' tolerances and the checks' bounds",
        ),
    },
}


TYPED_RUN_OUTPUTS = {
    "docs/privacy.md": {},
}

#: A plain number: a decimal, a percentage, "N of M", 1e-9 (not one with a unit: the unit
#: check's; not a part of a version such as 0.4.3)
_PLAIN = re.compile(
    r"(?<![\w.^/=#+-])([+-]?\d+\.\d+%?|\d+%|\d[\d,]* of (?:the )?\d[\d,]*|\d(?:\.\d+)?e-\d+)"
    r"(?![\w^%]|\.\d|\s?(?:s|ms|min|MB|MiB|GB|GiB)\b)"
)
#: Words before a number that make it a reference, not a quantity
_REFERENCE = re.compile(
    r"(?:[Ss]ection|Theorem|Proposition|Prop\.|Lemma|Corollary|Algorithm|Definition|Remark|"
    r"Appendix|Python|eq\.|objective)(?:\s*>=)?\s+\(?$"
)


def plain_numbers(text: str) -> list[str]:
    """The plain numbers of ``text`` outside marked values, code, comments and references."""
    text = re.sub(r"<!--v:[a-z0-9_]+-->.*?<!--/v-->", "V", text, flags=re.S)
    text = re.sub(r"<!--.*?-->", "", text, flags=re.S)
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    text = re.sub(r"`[^`\n]*`", "", text)
    text = re.sub(r"\]\([^)]*\)", "]", text)
    return [
        m.group(1)
        for m in _PLAIN.finditer(text)
        if not _REFERENCE.search(text[max(0, m.start() - 20) : m.start()])
    ]


def _pages() -> list[str]:
    pages = ["README.md", *(p.relative_to(ROOT).as_posix() for p in (ROOT / "docs").rglob("*.md"))]
    return sorted(
        p
        for p in pages
        if not p.startswith(("docs/includes/", "docs/papers/")) and p not in UNCHECKED_PAGES
    )


@pytest.mark.parametrize("page", _pages())
def test_plain_numbers_are_values_or_listed(page):
    """A plain number of a page is a marked value or listed (NOT_RUN_OUTPUTS: not a run's;
    TYPED_RUN_OUTPUTS: a run's, still typed); a new hand-typed number fails here."""
    found = set(plain_numbers((ROOT / page).read_text()))
    listed = set(NOT_RUN_OUTPUTS.get(page, {})) | set(TYPED_RUN_OUTPUTS.get(page, {}))
    assert found - listed == set(), (
        "mark these as values (docs/includes/values.yaml) or list them here with the reason"
    )


def test_the_lists_name_only_numbers_the_pages_hold():
    """An entry whose number left its page (now a value, or reworded) leaves the lists."""
    for lists in (NOT_RUN_OUTPUTS, TYPED_RUN_OUTPUTS):
        for page, numbers in lists.items():
            stale = set(numbers) - set(plain_numbers((ROOT / page).read_text()))
            assert stale == set(), (page, stale)
            assert all(reason for reason in numbers.values())
    for page, numbers in TYPED_RUN_OUTPUTS.items():
        assert not set(numbers) & set(NOT_RUN_OUTPUTS.get(page, {})), page


def test_the_scan_finds_plain_numbers():
    text = "r 0.87 / 0.77, 42 of 60 (70%), 3.78%, 9e-9, -0.21 and +0.09; "
    text += "`0.5` 2.5 s 4.9x Theorem 2.1, section 5.1, eq. (2.2), Python >= 3.11, leaderbot 0.4.3 "
    text += "<!--v:a-->0.3<!--/v--> <!-- 0.4 --> [a](b-1.2.md)"
    assert plain_numbers(text) == [
        "0.87",
        "0.77",
        "42 of 60",
        "70%",
        "3.78%",
        "9e-9",
        "-0.21",
        "+0.09",
    ]
    for page in UNCHECKED_PAGES:
        assert (ROOT / page).is_file(), page


def test_the_deviations_quote_the_values_of_the_pages():
    """resources/deviations.yaml (the deviations table, copied into the report) quotes the
    authors_ties benchmark too: its text holds each of those values, so the two cannot
    disagree."""
    from dprank_papers.docs_values import load_values

    values = load_values(ROOT / "docs/includes/values.yaml")
    text = " ".join((ROOT / "resources/deviations.yaml").read_text().split())
    names = [n for n in values if n.startswith("authors_ties_")]
    assert len(names) == 4
    for name in names:
        assert values[name]["value"] in text, name


# ------------------------------------------------------------------- counts

#: What a count counts: the things a run or the code produces (jobs, games, paths, rows,
#: fits, ...), a setting sizes (replicates, items, cells, settings) or a run takes (minutes)
_NOUNS = (
    r"games?|release paths?|paths?|jobs?|tests?|methods?|distinguishers?|checks?|overlays?|"
    r"cells?|rules?|modules?|files?|pages?|minutes?|hours?|seconds?|runs?|rows?|fits?|"
    r"figures?|tables?|attacks?|mechanisms?|outputs?|calls?|steps?|iterations?|replicates?|"
    r"items?|failures?|errors?|warnings?|properties|entries|lines?|columns?|plots?|"
    r"deviations?|choices?|data sets?|downloads?|releases?|studies|benchmarks?|scenarios?|"
    r"solvers?|settings?|targets?|passes|evaluations?"
)
#: A count: an integer (``1,000``, ``2 million``), at most one word, then what it counts
_COUNT = re.compile(
    r"(?<![\w.^/=#+<>-])(?:\d{1,3}(?:,\d{3})+|\d+)(?:\s+million)?(?![\w.%^,]|\.\d)"
    rf"\s+(?:[a-z-]+\s+)?(?:{_NOUNS})\b"
)


def counts(text: str) -> list[str]:
    """The counts of ``text`` ("96 games", "1,000 runs", "32 minutes") outside marked values,
    code, comments and link targets, each with its words as the page has them (one space)."""
    text = re.sub(r"<!--v:[a-z0-9_]+-->.*?<!--/v-->", "V", text, flags=re.S)
    text = re.sub(r"<!--.*?-->", "", text, flags=re.S)
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    text = re.sub(r"`[^`]*`", "", text)
    text = re.sub(r"\]\([^)]*\)", "]", text)
    return [
        " ".join(m.group(0).split())
        for m in _COUNT.finditer(text)
        if not _REFERENCE.search(text[max(0, m.start() - 20) : m.start()])
    ]


_REPLICATES = "the number of replicates, a setting (config.yaml)"
#: Counts with what they count that no run produces, per page, with the reason
NOT_RUN_COUNTS = {
    "docs/architecture.md": {"850 lines": "the modules' ceiling (tests/test_package_boundary.py)"},
    "docs/audit.md": {
        "200,000 runs": "the audit's trials, a setting",
        "5 items": "the audit's inputs (n = 5), a setting",
    },
    "docs/benchmark.md": dict.fromkeys(("800 replicates", "200 replicates"), _REPLICATES),
    "docs/cli.md": {
        "50 items": "the plot's limit (--plot), a setting",
        "250 items": "the interval law's switch (auto), a setting",
    },
    "docs/fidelity.md": {
        "200 replicates": _REPLICATES,
        **dict.fromkeys(("3 cells", "2 cells"), "empty cells of the paper's tables (published)"),
        "80 settings": "Scenario V's grid (config.yaml), a setting",
    },
    "docs/intervals.md": {
        **dict.fromkeys(
            ("250 items", "2000 items", "5000 items"),
            "the method's switches (bootstrap, exact covariance, draws), a setting",
        ),
        "20 releases": "the method's calibration of the noise (releases simulated), a setting",
        "20 replicates": "the replicates of the rerun's command (--reps 20), a setting",
        "3 above item": "'item 3 above item 4': a name, not a count",
    },
    "docs/leaderboard.md": {"10 replicates": _REPLICATES},
    "docs/performance.md": {
        "100 replicates fit": _REPLICATES,
        "100 per second": "Snakemake's default --max-jobs-per-timespan",
        "536 rows": "65 536 rows (2^16): the pair-list path's sample, a constant",
        "3 passes": "the radix sort's passes for up to 2^17 items, a formula's value",
        "25 million rows": "the benchmark's input size, a setting",
        "64 items": "the routing threshold, a setting",
    },
    "docs/privacy.md": {
        "140,000 items": "the public bound the check refuses past, a setting",
        **dict.fromkeys(("5 items", "60 items"), "the games' inputs, a setting"),
        "3 standard errors": "the harness's rule (a game holds)",
        **dict.fromkeys(
            ("120 runs", "30 runs", "1,000 runs", "500 counted runs"),
            "the harness's runs per data set (dprank.audit.harness.PROFILES), a setting",
        ),
    },
    "docs/protocols.md": {"120 replicates": _REPLICATES},
    "docs/reproducing.md": {"200 replicates": _REPLICATES},
    "docs/scale-study.md": {
        "700 items": "Paper A's Figure 1's largest n (published)",
        "20 per job": "the study's replicates per job, a setting",
    },
    "docs/sensitivity.md": {
        **dict.fromkeys(
            ("200 per setting", "50 per cell", "200 per cell", "200 replicates"), _REPLICATES
        ),
        "80 settings": "Scenario V's grid (config.yaml), a setting",
        "72 cells": "the cells of B2's Table 6 (published)",
    },
    "docs/sparse.md": {
        "4,000 items": "the benchmark's input size, a setting",
        "64 items": "the routing threshold, a setting",
    },
}

#: Counts a run or the code produced that are still typed, per page, with the command
TYPED_RUN_COUNTS: dict[str, dict[str, str]] = {}


@pytest.mark.parametrize("page", _pages())
def test_counts_are_values_or_listed(page):
    """A count of a page (an integer and what it counts: jobs, games, release paths, runs,
    minutes) is a marked value or listed (NOT_RUN_COUNTS: a setting, a constant, a published
    number; TYPED_RUN_COUNTS: a run's, still typed); a count typed anew fails here."""
    found = set(counts((ROOT / page).read_text()))
    listed = set(NOT_RUN_COUNTS.get(page, {})) | set(TYPED_RUN_COUNTS.get(page, {}))
    assert found - listed == set(), (
        "mark these as values (docs/includes/values.yaml) or list them here with the reason"
    )


def test_the_count_lists_name_only_counts_the_pages_hold():
    for lists in (NOT_RUN_COUNTS, TYPED_RUN_COUNTS):
        for page, found in lists.items():
            stale = set(found) - set(counts((ROOT / page).read_text()))
            assert stale == set(), (page, stale)
            assert all(reason for reason in found.values())
    for page, found in TYPED_RUN_COUNTS.items():
        assert not set(found) & set(NOT_RUN_COUNTS.get(page, {})), page


def test_the_scan_finds_counts():
    text = "In the full profile (96 games, 14 release paths, 32 minutes) with 1,000 runs and "
    text += "2 million `stat` calls; Algorithm 1 fit once, `3 jobs`, <!--v:a-->18<!--/v--> paths, "
    text += "Python 3.11 lines, 0.5 runs, 65 536 rows"
    assert counts(text) == [
        "96 games",
        "14 release paths",
        "32 minutes",
        "1,000 runs",
        "2 million calls",
        "536 rows",
    ]


def test_the_density_table_bears_out_its_page():
    """docs/sparse.md concludes from the table benchmarks/density_threshold.py writes (its
    include) that the dense fast path does not pay for edge-list input: every ratio is above
    1 (a new run that finds otherwise fails here, and the page's words must change)."""
    page = (ROOT / "docs/sparse.md").read_text()
    assert '--8<-- "includes/sparse_density_threshold.md"' in page
    assert "the dense fast path does not pay" in page
    text = (ROOT / "docs/includes/sparse_density_threshold.md").read_text()
    assert text.startswith("<!-- Generated by a benchmark: `")
    rows = [line.split("|")[2:-2] for line in text.splitlines() if re.match(r"\| \d", line)]
    ratios = [float(cell) for row in rows for cell in row]  # the last column is the load
    assert len(rows) >= 3 and len(ratios) == 6 * len(rows)
    assert min(ratios) > 1, min(ratios)


def test_the_quoted_solver_ratios_are_the_tables():
    """performance.md quotes the Paper A cases of the table bench_edge_mle.py writes (its
    include, docs/includes/performance_edge_mle.md): the quoted value (values.yaml's
    bench_edge_mle_ratios) is that table's, so a new run of the benchmark that is not
    copied into the value fails here. The warm ratio is scipy's time over the warm one (both
    rounded in the table: within 2%)."""
    from dprank_papers.docs_values import load_values

    text = (ROOT / "docs/includes/performance_edge_mle.md").read_text()
    lines = [line for line in text.splitlines() if line.startswith("|")]
    header = [c.strip() for c in lines[0].strip("|").split("|")]
    rows = {}
    for line in lines[2:]:
        row = dict(zip(header, (c.strip() for c in line.strip("|").split("|")), strict=True))
        rows[(row["n"], row["p"])] = row
    values = load_values(ROOT / "docs/includes/values.yaml")
    quoted = [
        float(x) for x in re.findall(r"(\d+(?:\.\d+)?)x", values["bench_edge_mle_ratios"]["value"])
    ]
    assert len(quoted) == 4
    for (cold, warm), key in zip(
        (quoted[:2], quoted[2:]), (("700", "1"), ("300", "0.25")), strict=True
    ):
        row = rows[key]
        assert cold == float(row["scipy / dprank"]), key
        table_warm = float(row["scipy L-BFGS-B (ms)"]) / float(row["dprank, warm start (ms)"])
        assert abs(warm - table_warm) <= 0.02 * table_warm, (key, warm, table_warm)


def test_the_authors_optimiser_values_are_the_benchmarks():
    """docs/protocols.md quotes benchmarks/authors_optimiser.py (R's BFGS against the exact
    minimiser on 18 seeded fits, a few seconds): each quoted value (values.yaml's
    authors_optimiser_*) is the field of the benchmark's last line, run here."""
    import contextlib
    import io
    import runpy

    from dprank_papers.docs_values import load_values

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        module = runpy.run_path(str(ROOT / "benchmarks/authors_optimiser.py"))
        assert module["main"]([]) == 0
    last = out.getvalue().strip().splitlines()[-1]
    fields = dict(
        re.fullmatch(r"(.+?) (\d.*)", part).groups() for part in last.removeprefix("# ").split("; ")
    )
    values = load_values(ROOT / "docs/includes/values.yaml")
    for name, field in (
        ("fits", "fits"),
        ("distance", "distance"),
        ("lower", "lower"),
        ("metrics", "metrics"),
        ("same_topk", "same top-k"),
    ):
        assert values[f"authors_optimiser_{name}"]["value"] == fields[field], (name, last)


def test_the_sparse_values_are_the_printed_output():
    """docs/sparse.md prints bench_scale.py's output and quotes it (values.yaml's sparse_*
    values of that run): each quoted step, evaluation count, objective gap, distance and the
    load is the printed output's, so a new output pasted without its values fails here."""
    from dprank_papers.docs_values import load_values

    page = (ROOT / "docs/sparse.md").read_text()
    block = re.search(r"```\n(# x86_64.*?)```", page, flags=re.S).group(1)
    rows = {}
    for line in block.splitlines():
        cells = line.split()
        if len(cells) >= 11 and cells[0] in "abc" and not line.startswith("#"):
            rows[(cells[0], int(cells[1]), cells[5])] = cells
    values = {k: v["value"] for k, v in load_values(ROOT / "docs/includes/values.yaml").items()}
    load = float(re.search(r"load (\d+\.\d+)", block).group(1))
    assert values["sparse_bench_load"] == f"{load:.1f}"
    scipy = {d: rows[(d, 100000, "scipy-lbfgsb")] for d in "abc"}
    for d in "abc":
        assert float(values[f"sparse_{d}_gap"]) == float(scipy[d][9]), d
    for d in "bc":
        steps = re.search(r"(\d+) Newton steps", " ".join(rows[(d, 100000, "ours")][11:]))
        assert values[f"sparse_{d}_steps"] == steps.group(1), d
    for d in "abc":
        evaluations = re.search(r"(\d+) evaluations", " ".join(scipy[d][11:])).group(1)
        assert values[f"sparse_{d}_evaluations"] == evaluations, d
    assert float(values["sparse_c_scipy_distance"]) == float(scipy["c"][8])
    assert float(values["sparse_choix_opt_distance"]) == float(rows[("a", 1000, "choix-opt")][8])
    converged = [
        abs(float(r[9]))
        for (_, _, solver), r in rows.items()
        if solver not in ("ours", "choix-ilsr") and "STOPPED" not in " ".join(r)
    ]
    assert max(converged) <= float(values["sparse_gap_bound"]) < 2 * max(converged)


def test_the_grid_distances_are_the_legacy_releases():
    """docs/privacy.md says that at the perturbed MLE as released before issue 44 (grid noise,
    solved to float precision) the penalised gradient of the true data lies on the noise grid
    (values.yaml's privacy_grid_distance_data, in grid units) and a neighbour's does not
    (privacy_grid_distance_neighbour: another user's pairs in place of user 0's): each is the
    median over 20 data sets of the largest distance of an item's gradient (less item 0's, the
    sum-to-zero fit's freedom) to the grid, computed here."""
    from dprank.data.comparisons import Comparisons
    from dprank.fit.mle import fit_penalized_mle
    from dprank.privacy.mechanisms import individual_gamma, individual_mle_noise_scale
    from dprank.privacy.noise import NoiseSource, grid_exponent
    from dprank_papers.docs_values import load_values

    n, users, per_user, eps, L = 6, 12, 2, 1.0, 2
    gamma, lam = individual_gamma(eps, L), individual_mle_noise_scale(eps, L)
    k = grid_exponent(lam)

    def distance(c, theta):
        p = 1 / (1 + np.exp(-(theta[c.i] - theta[c.j])))
        g = np.bincount(c.i, p - c.y, n) - np.bincount(c.j, p - c.y, n) + gamma * theta
        z = np.ldexp(g - g[0], -k)
        return np.abs(z - np.rint(z))[1:].max()

    own, other = [], []
    for seed in range(20):
        rng = np.random.default_rng(seed)
        i = rng.integers(0, n, per_user * users)
        j = (i + rng.integers(1, n, i.size)) % n
        y = (rng.random(i.size) < 0.6).astype(float)
        user = np.repeat(np.arange(users), per_user)
        c = Comparisons(n_items=n, i=i, j=j, y=y, count=np.ones(i.size), user=user)
        b = NoiseSource.from_seed(seed).laplace(lam, n)
        theta = fit_penalized_mle(c, gamma, b, sum_zero=True).theta
        i1, j1, target = i.copy(), j.copy(), user == 0
        i1[target] = rng.integers(0, n, per_user)
        j1[target] = (i1[target] + rng.integers(1, n, per_user)) % n
        c1 = Comparisons(n_items=n, i=i1, j=j1, y=y, count=np.ones(i.size), user=user)
        own.append(distance(c, theta))
        other.append(distance(c1, theta))
    values = load_values(ROOT / "docs/includes/values.yaml")
    data = float(values["privacy_grid_distance_data"]["value"])
    assert 10.0 ** round(np.log10(np.median(own))) == data, np.median(own)
    neighbour = values["privacy_grid_distance_neighbour"]["value"]
    assert f"{np.median(other):.1f}" == neighbour, np.median(other)


# ------------------------------------------------------------------- generated from runs


def _fake_root(tmp_path: Path) -> Path:
    """A copy of what python -m dprank_papers.docs_generate reads and writes of the checkout."""
    import shutil

    root = tmp_path / "root"
    root.mkdir()
    for name in ("README.md", "CHANGELOG.md", "config.yaml"):
        shutil.copy(ROOT / name, root / name)
    shutil.copytree(ROOT / "docs", root / "docs")
    (root / "workflow" / "papers").mkdir(parents=True)
    shutil.copy(ROOT / "workflow/papers/paper_b2.yaml", root / "workflow/papers/paper_b2.yaml")
    return root


def _changed(root: Path) -> dict[str, str]:
    """The documentation files of ``root`` that differ from the checkout's: name -> text."""
    return {
        path.relative_to(root).as_posix(): path.read_text()
        for path in sorted((root / "docs").rglob("*"))
        if path.is_file() and path.read_text() != (ROOT / path.relative_to(root)).read_text()
    }


def test_the_harness_and_arena_runs_fill_their_places(tmp_path):
    """docs/privacy.md's games, time and verdict of the last full harness run and
    docs/leaderboard.md's time of the arena study are values that docs_generate --run fills
    from the files those runs leave (docs_values time ... -> results/measured/<run>.json, the
    harness's results/tables/audit/privacy_harness.csv): here a fake run's files, in a copy."""
    import json

    import pandas as pd

    from dprank_papers.docs_generate import main
    from dprank_papers.docs_values import load_values

    root = _fake_root(tmp_path)
    results = root / "results"
    (results / "measured").mkdir(parents=True)
    for name, seconds in (("privacy_harness_run", 2501.4), ("arena_run", 1187.0)):
        record = {"wall_seconds": seconds, "user_seconds": 1.0, "system_seconds": 1.0}
        record |= {"peak_rss_bytes": 10**8, "load_average_start": 3.0, "load_average_end": 2.5}
        (results / "measured" / f"{name}.json").write_text(json.dumps(record))
    (results / "tables" / "audit").mkdir(parents=True)
    pd.DataFrame({"verdict": ["holds"] * 107 + ["fails"]}).to_csv(
        results / "tables" / "audit" / "privacy_harness.csv", index=False
    )
    assert main(["--root", str(root), "--no-dry-run", "--run", "a fake run"]) == 0
    changed = _changed(root)
    assert set(changed) == {"docs/privacy.md", "docs/leaderboard.md", "docs/includes/values.yaml"}
    privacy = " ".join(changed["docs/privacy.md"].split())
    assert "played <!--v:harness_run_games-->108<!--/v--> games" in privacy
    assert "in <!--v:privacy_harness_run_wall-->41 min 41 s<!--/v--> on" in privacy
    assert "<!--v:harness_run_verdict-->failed in 1 of 108 games<!--/v-->" in privacy
    assert "<!--v:arena_run_wall-->19 min 47 s<!--/v--> on two" in changed["docs/leaderboard.md"]
    values = load_values(root / "docs/includes/values.yaml")
    assert values["arena_run_wall"]["run"] == "a fake run"
    assert values["privacy_harness_run_wall"]["run"] == "a fake run"
    assert "run" not in values["harness_run_games"]  # a count, not a time


def test_the_scheduler_counts_come_from_the_benchmarks_record(tmp_path):
    """docs/performance.md's counts of the Snakemake process and its CPU time are values
    read from benchmarks/scheduler_profile.py's record (the median of each mode's runs);
    the page says which run (smoke or paper scale) they come from."""
    import json

    from dprank_papers.docs_measures import MEASURES

    results = tmp_path / "results"
    (results / "measured").mkdir(parents=True)

    def run(mode, passes, cpu):
        counts = {"passes": passes, "size_checks": 10 * passes, "stat_calls": 200 * passes}
        return counts | {"jobs": 168, "mode": mode, "cpu_seconds": cpu}

    runs = [run("coalesced", 150, 9.0), run("snakemake", 12156, 101.2)]
    runs += [run("coalesced", 170, 11.0), run("snakemake", 10000, 99.0)]
    record = {"configfile": ".test/config.yaml", "runs": runs}
    (results / "measured" / "scheduler_profile.json").write_text(json.dumps(record))

    def measure(name):
        return MEASURES[f"scheduler_{name}"].measure(ROOT, results)

    assert measure("run") == "168 jobs of the smoke run"
    assert measure("counts_snakemake") == (
        "11,078 passes, 110,780 input-size checks and 2.2 million `stat` calls"
    )
    assert measure("counts_coalesced") == (
        "160 passes, 1,600 input-size checks and 32,000 `stat` calls"
    )
    assert measure("cpu_seconds") == "10 s of CPU, against 100 s"
    record["configfile"] = None
    record["runs"][0]["jobs"] = 158
    (results / "measured" / "scheduler_profile.json").write_text(json.dumps(record))
    assert measure("run") == "158-168 jobs of the paper-scale run"
    assert MEASURES["scheduler_run"].measure(ROOT, tmp_path) is None  # no record: kept


def test_the_scheduler_benchmark_counts_calls_and_keeps_the_timers_out():
    """benchmarks/scheduler_profile.py's counters count every call (threads too) and pass
    arguments and results through; its "snakemake" mode marks Snakemake's own timer method
    so that dprank_papers.workflow.coalesce_scheduler_timers leaves it in place."""
    import asyncio
    import itertools
    import runpy
    import threading

    from dprank_papers.workflow import coalesce_scheduler_timers

    count = runpy.run_path(str(ROOT / "benchmarks/scheduler_profile.py"))["_count"]

    class Owner:
        def plain(self, x, y=1):
            return x + y

        async def coroutine(self, x):
            return 2 * x

        def _schedule_reevalutation(self, delay):
            return delay

    plain, coroutine = itertools.count(), itertools.count()
    count(Owner, "plain", plain)
    count(Owner, "coroutine", coroutine, asynchronous=True)
    owner = Owner()
    threads = [
        threading.Thread(target=lambda: [owner.plain(1) for _ in range(500)]) for _ in range(2)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert owner.plain(2, y=5) == 7 and next(plain) == 1001
    assert asyncio.run(owner.coroutine(4)) == 8 and next(coroutine) == 1
    original = Owner._schedule_reevalutation
    original._dprank_coalesced = True  # what the "snakemake" mode does
    assert coalesce_scheduler_timers(Owner) and Owner._schedule_reevalutation is original


def test_the_intervals_rerun_writes_the_studys_table(tmp_path):
    """benchmarks/intervals_rerun.py (docs/intervals.md's table of fewer replicates) runs the
    coverage study's own functions on the designs and seed of config.yaml and writes their
    table as an include whose first line names the command; a small run here."""
    import runpy

    import pandas as pd

    from dprank_papers.docs_includes import BENCHMARK_HEADER
    from dprank_papers.studies.intervals import coverage_table

    main = runpy.run_path(str(ROOT / "benchmarks/intervals_rerun.py"))["main"]
    argv = ["--designs", "counts_eps1", "--reps", "2", "--n-boot", "20"]
    argv += ["--markdown", str(tmp_path), "--csv", str(tmp_path / "summary.csv")]
    assert main(argv) == 0
    text = (tmp_path / "intervals_rerun.md").read_text()
    first, table = text.split("\n", 1)
    assert first.startswith(BENCHMARK_HEADER + "python benchmarks/intervals_rerun.py --designs")
    assert "2 replicates per design, n_boot 20, seed 20251122" in first
    summary = pd.read_csv(tmp_path / "summary.csv")
    assert list(summary["design"]) == ["counts_eps1"] and summary["replicates"].tolist() == [2]
    assert table == coverage_table(summary)
    # --from-csv: the same table from the kept summary, running nothing
    again = tmp_path / "again"
    again.mkdir()
    assert main(["--from-csv", str(tmp_path / "summary.csv"), "--markdown", str(again)]) == 0
    first, table_again = (again / "intervals_rerun.md").read_text().split("\n", 1)
    assert table_again == table and "2 replicates per design" in first


def _rerun_summary(change: dict | None = None):
    """A fake summary of benchmarks/intervals_rerun.py (the columns of
    dprank_papers.studies.intervals.summarise, one row per design of config.yaml): design i
    covers ranks 0.950 + 0.002 i, its rank intervals are 1 + 0.01 i times as wide as the
    bootstrap's (``edge_n5000``'s 1600 places wide); only ``wide_eps2`` misses the calibration
    target; ``change`` sets cells (design -> column -> value)."""
    import pandas as pd
    import yaml

    from dprank_papers.studies.intervals import describe, selected_designs

    section = yaml.safe_load((ROOT / "config.yaml").read_text())["intervals"]
    rows = []
    for i, (name, spec) in enumerate(selected_designs(section).items()):
        row = {"design": name, "method": spec["method"]}
        row |= {"epsilon": float(spec.get("epsilon", np.nan)), "n_items": spec["n_items"]}
        row |= {"data": describe(spec), "replicates": 20}
        for prefix, cover in (("", 0.95 + 0.002 * i), ("boot_", 0.96 - 0.001 * i)):
            width = (5.0 + i) * (200 if name == "edge_n5000" else 1)
            width /= 1.0 if prefix == "" else 1 + 0.01 * i
            row |= {
                f"{prefix}score_cover": cover - 0.01,
                f"{prefix}score_cover_min": 0.8,
                f"{prefix}score_items_below": 0,
                f"{prefix}score_width": 1.0 + 0.1 * i,
                f"{prefix}score_width_median": 1.0 + 0.1 * i,
                f"{prefix}score_unbounded": 0.0,
                f"{prefix}rank_cover": cover,
                f"{prefix}rank_cover_min": 0.5 + 0.02 * i,
                f"{prefix}rank_items_below": 0,
                f"{prefix}rank_width": width,
                f"{prefix}rank_width_median": round(width),
                f"{prefix}brier": 0.03,
                f"{prefix}ece": 0.02,
                f"{prefix}ece_floor": 0.01,
                f"{prefix}ece_debiased": 0.03 if name == "wide_eps2" else 0.01,
            }
        rows.append(row | {"brier_base": 0.09, "meets": name != "wide_eps2"})
        for column, value in (change or {}).get(name, {}).items():
            rows[-1][column] = value
    return pd.DataFrame(rows)


def test_the_intervals_rerun_fills_its_section(tmp_path):
    """docs/intervals.md's rerun section states what the rerun's summary
    (results/measured/intervals_rerun.csv, benchmarks/intervals_rerun.py --csv) holds:
    python -m dprank_papers.docs_generate fills its numbers from a fake summary in a copy,
    and a changed summary changes them; nothing else changes. --from-csv writes the table
    of that summary, which the values agree with."""
    import runpy

    from dprank.base.io import write_csv
    from dprank_papers.docs_generate import main
    from dprank_papers.docs_includes import BENCHMARK_HEADER
    from dprank_papers.docs_values import load_values
    from dprank_papers.studies.intervals import coverage_table

    page = (ROOT / "docs/intervals.md").read_text()
    assert '--8<-- "includes/intervals_rerun.md"' in page
    root = _fake_root(tmp_path)
    csv = root / "results" / "measured" / "intervals_rerun.csv"
    csv.parent.mkdir(parents=True)
    write_csv(csv, _rerun_summary())
    assert main(["--root", str(root), "--no-dry-run"]) == 0
    changed = _changed(root)
    assert set(changed) <= {"docs/intervals.md", "docs/includes/values.yaml"}
    text = " ".join(changed.get("docs/intervals.md", page).split())
    expected = {
        "er_ratio": "1.00 to 1.09",  # designs 0, 1, 2 and 9 of config.yaml
        "er_rank_cover": "0.950 to 0.968",
        "er_boot_rank_cover": "0.951 to 0.960",
        "sparse_places": "5 of 40 places",
        "heavy_places": "9 of 200 and 10 of 200 places",
        "heavy_boot_rank_cover_min": "0.58 and 0.60",
        "n5000_score_width": "1.3",
        "n5000_places": "1600 of 5000 places",  # the table's 1.6e+03
        "short_meets": "15 of 16",
        "short_ece": "`wide_eps2` (0.030)",
        "short_cover": "none",
        "short_items_below": "none",
        "short_wider": ", ".join(
            f"`{r.design}` ({r.rank_width / r.boot_rank_width:.2f})"
            for r in _rerun_summary().itertuples()
            if float(f"{r.rank_width / r.boot_rank_width:.2f}") > 1.1  # as the table shows it
        ),
        "short_rank_below_boot": "`edge_eps1_sparse` (0.950 against 0.960), "
        "`edge_eps4_dense` (0.952 against 0.959), `edge_n20` (0.954 against 0.958), "
        "`edge_n5000` (0.956 against 0.957)",
    }
    for name, value in expected.items():
        assert f"<!--v:intervals_rerun_{name}-->{value}<!--/v-->" in text, name
    assert "<!--v:intervals_targets-->0.93 on average and 0.85 for each item<!--/v-->" in text
    values = load_values(root / "docs/includes/values.yaml")
    assert values["intervals_rerun_er_ratio"]["value"] == expected["er_ratio"]

    # a changed summary changes the page
    change = {"edge_n20": {"ece_debiased": 0.05, "meets": False, "rank_items_below": 2}}
    write_csv(csv, _rerun_summary(change))
    assert main(["--root", str(root), "--no-dry-run"]) == 0
    text = " ".join((root / "docs/intervals.md").read_text().split())
    for name, value in (
        ("short_ece", "`edge_n20` (0.050), `wide_eps2` (0.030)"),
        ("short_meets", "14 of 16"),
        ("short_items_below", "`edge_n20` (0 for scores, 2 for ranks)"),
        ("er_ratio", "1.00 to 1.09"),
    ):
        assert f"<!--v:intervals_rerun_{name}-->{value}<!--/v-->" in text, name
    assert "<!--v:intervals_rerun_short_not_located-->none<!--/v-->" in text

    # the include again from the kept summary, running nothing; its cells are the values'
    bench = runpy.run_path(str(ROOT / "benchmarks/intervals_rerun.py"))
    assert bench["main"](["--from-csv", str(csv), "--markdown", str(tmp_path)]) == 0
    first, table = (tmp_path / "intervals_rerun.md").read_text().split("\n", 1)
    assert first.startswith(BENCHMARK_HEADER + "python benchmarks/intervals_rerun.py --from-csv")
    assert "20 replicates per design" in first
    assert table == coverage_table(bench["read_summary"](csv))
    row = next(line for line in table.splitlines() if line.startswith("| edge_n20 |"))
    assert "| 0.954 (0.54, 2) |" in row and "/ 0.050 |" in row and row.endswith("| 1.02 |")

    # a design whose intervals locate no item (the command leaves every cell empty): listed
    # as such, and its widths are not held against the bootstrap's
    wide = {"rank_width": 29.0, "boot_rank_width": 8.0, "located": 0.0}
    write_csv(csv, _rerun_summary({"individual_fewer": wide}))
    assert main(["--root", str(root), "--no-dry-run"]) == 0
    text = " ".join((root / "docs/intervals.md").read_text().split())
    located = "<!--v:intervals_rerun_short_not_located-->`individual_fewer` (ratio 3.62,"
    assert located in text
    wider = text.split("<!--v:intervals_rerun_short_wider-->")[1].split("<!--/v-->")[0]
    assert "individual_fewer" not in wider


def _summary_from_rerun_table(text: str):
    """The summary back from the rerun's table (docs/includes/intervals_rerun.md) as far as
    its cells hold it: the numbers as printed, ``n_items`` from config.yaml, the bootstrap's
    mean rank width from the ratio and ``meets`` by the study's rule."""
    import pandas as pd
    import yaml

    section = yaml.safe_load((ROOT / "config.yaml").read_text())["intervals"]
    number = r"(-?[\d.e+-]+|inf)"
    rows = []
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().split("|")[1:-1]]
        if len(cells) not in (13, 14) or cells[0] in ("design", "---"):
            continue
        r = {"design": cells[0], "n_items": section["designs"][cells[0]]["n_items"]}
        for prefix, cell in (("score", cells[4]), ("rank", cells[6])):
            cover, low, below = re.fullmatch(rf"{number} \({number}, (\d+)\)", cell).groups()
            r |= {f"{prefix}_cover": float(cover), f"{prefix}_cover_min": float(low)}
            r[f"{prefix}_items_below"] = int(below)
        r["score_width_median"] = float(cells[5])
        r["rank_width"], r["rank_width_median"] = map(float, cells[7].split(" / "))
        r["brier"], r["brier_base"] = map(
            float, re.fullmatch(rf"{number} \({number}\)", cells[8]).groups()
        )
        ece = re.fullmatch(rf"{number} \({number}\) / {number}", cells[9]).groups()
        r["ece"], r["ece_floor"], r["ece_debiased"] = map(float, ece)
        for prefix, cell in (("boot_score", cells[10]), ("boot_rank", cells[11])):
            cover, low = re.fullmatch(rf"{number} \({number}\)", cell).groups()
            r |= {f"{prefix}_cover": float(cover), f"{prefix}_cover_min": float(low)}
        r["boot_rank_width"] = r["rank_width"] / float(cells[12])
        if len(cells) == 14:
            r["located"] = float(cells[13])
        r["meets"] = bool(
            min(r["score_cover"], r["rank_cover"]) >= section["target"]
            and r["score_items_below"] + r["rank_items_below"] == 0
            and r["brier"] < r["brier_base"]
            and r["ece_debiased"] <= 0.02
        )
        rows.append(r)
    return pd.DataFrame(rows)


def test_the_intervals_words_agree_with_the_rerun_table(tmp_path):
    """The numbers docs/intervals.md's rerun section gives in words (values.yaml's
    intervals_rerun_*, measured from the rerun's summary) are those of the table it includes
    (docs/includes/intervals_rerun.md, written by the same run): a table copied in without
    running python -m dprank_papers.docs_generate on its summary fails here."""
    from dprank_papers.docs_measures import MEASURES
    from dprank_papers.docs_values import load_values

    results = tmp_path / "results"
    (results / "measured").mkdir(parents=True)
    text = (ROOT / "docs/includes/intervals_rerun.md").read_text()
    summary = _summary_from_rerun_table(text)
    assert len(summary) >= 16, "one row per design of config.yaml"
    summary.to_csv(results / "measured/intervals_rerun.csv", index=False)
    values = load_values(ROOT / "docs/includes/values.yaml")
    names = [n for n in values if n.startswith("intervals_rerun_")]
    assert len(names) >= 40
    for name in names:
        assert MEASURES[name].measure(ROOT, results) == values[name]["value"], name


def test_no_line_starts_with_a_marked_value():
    """A line that starts with a marked value (``<!--v:NAME-->``) opens a raw HTML block in
    the site's Markdown: its paragraph or list item is cut there and the value shows as a
    paragraph of its own. A word of the sentence goes before it on its line."""
    from dprank_papers.docs_values import documentation_files

    starts = [
        f"{page.relative_to(ROOT)}:{number}"
        for page in documentation_files(ROOT)
        for number, line in enumerate(page.read_text().splitlines(), 1)
        if line.lstrip().startswith("<!--v:")
    ]
    assert starts == []
