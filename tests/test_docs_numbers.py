"""Plain numbers in the running text of README.md and docs/ (decimals, percentages, "N of M",
1e-9): each is a marked value of docs/includes/values.yaml (measured from a run or quoted from
its command, tests/test_docs.py checks the marks), or listed here with its reason.

tests/test_docs.py::test_timings_sizes_and_ratios_are_marked checks numbers with a unit (times,
sizes, ratios); this file checks those without. Left out of the scan: marked values, code
(blocks and spans), HTML comments, link targets, references to the papers' numbered parts
("Theorem 2.1", "section 5.1", "eq. (2.2)", "Proposition 3.1") and version numbers
("Python >= 3.11"); the generated includes (docs/includes/) and the papers' pages (docs/papers/:
the papers' settings and published numbers, and the evidence for each documented choice);
docs/intervals.md (rewritten by issue 46).

Two lists, per page:

- :data:`NOT_RUN_OUTPUTS`: numbers no run produces: settings (eps, p, levels, tolerances, the
  grids of config.yaml), the papers' published numbers, constants and formulas' values;
- :data:`TYPED_RUN_OUTPUTS`: numbers a run or a benchmark did produce that are still typed
  (each with the command or test that produced them): what remains of issue 50's "every
  number generated"; a number moves from here to values.yaml, never the other way.
"""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: Pages left out, with the reason
UNCHECKED_PAGES = {"docs/intervals.md": "rewritten by issue 46"}

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
    "docs/leaderboard.md": {
        **dict.fromkeys(("0.95", "95%"), _LEVEL),
        "2.72": "e^1, the constant of the guarantee in words",
        "0.5": "the eps grid of the arena study (config.yaml)",
    },
    "docs/performance.md": {
        **dict.fromkeys(
            ("0.01", "0.1", "0.25", "0.5", "0.7", "0.85", "0.3", "2.5"),
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
            ("0.01", "0.05", "0.1", "0.2", "0.25", "0.3", "0.4", "0.7", "1.0", "1.2", "2.5"),
            "the benchmarks' settings (ridge, densities, Pareto's exponent, 2.5 million "
            "comparisons, the routing threshold)",
        ),
        **dict.fromkeys(
            ("1e-4", "1e-5", "1e-6", "1e-8", "1e-10", "1e-13"),
            "the solvers' tolerances and the checks' bounds",
        ),
    },
}

_SOLVER = (
    "typed from python benchmarks/bench_edge_mle.py / bench_individual_mle.py (the latter "
    "writes performance_individual_mle.md with --markdown: to be run on an idle machine; a "
    "run at load 9.9 on 2026-11-29 was not committed)"
)
_DENSITY = "typed from python benchmarks/density_threshold.py (not yet written by it)"
_PAIRS = (
    "the n x n path over the pair-list path, measured before its last two speed-ups (the page "
    "says so), no command kept"
)
_HARNESS = (
    "the privacy harness's full profile (snakemake privacy_audit_full: results/tables/audit/"
    "privacy_harness.csv, 32 min; not among the last run's results): to be measured from it"
)
_SCALE = (
    "bench_scale.py's output printed on the page (the sparse_* values come from the same run): "
    "the objective gaps, choix's distance, the load"
)

TYPED_RUN_OUTPUTS = {
    "docs/performance.md": {
        **dict.fromkeys(
            (
                "1.26",
                "0.83",
                "9.5",
                "7.5",
                "2e-8",
                "4.95",
                "4.52",
                "27.9",
                "5.6",
                "4e-9",
                "19.8",
                "14.9",
                "183.5",
                "9.3",
                "0.92",
                "0.71",
                "3.1",
                "3.3",
                "1e-8",
                "17.5",
                "2.60",
                "0.30",
                "0.063",
                "2e-7",
                "7.4",
                "1.03",
                "0.26",
                "0.013",
                "5e-8",
                "3e-5",
            ),
            _SOLVER,
        ),
        **dict.fromkeys(
            (
                "1.41",
                "1.42",
                "1.36",
                "1.31",
                "0.99",
                "7.00",
                "3.75",
                "1.24",
                "1.00",
                "0.98",
                "7.98",
                "5.87",
                "1.88",
                "1.01",
            ),
            _PAIRS,
        ),
    },
    "docs/privacy.md": {
        **dict.fromkeys(
            (
                "44%",
                "54%",
                "0.52",
                "0.55",
                "0.69",
                "0.51",
                "0.57",
                "0.72",
                "0.53",
                "0.54",
                "0.64",
                "1.30",
                "1.000",
                "0.0017",
                "4.64",
            ),
            _HARNESS,
        ),
        **dict.fromkeys(("1e-7", "0.4"), "grid distances measured by hand"),
    },
    "docs/protocols.md": {
        **dict.fromkeys(("1.4e-3", "4e-4"), "the 18 fits against the authors' solver, by hand"),
    },
    "docs/sparse.md": {
        **dict.fromkeys(
            (
                "5.47",
                "4.82",
                "4.58",
                "3.38",
                "2.29",
                "1.39",
                "17.66",
                "12.28",
                "6.83",
                "3.73",
                "1.95",
                "1.43",
                "24.02",
                "13.88",
                "6.00",
                "3.40",
                "2.86",
                "2.17",
                "1.34",
                "29.2",
            ),
            _DENSITY,
        ),
        **dict.fromkeys(("2.3e-10", "4.6", "3e-10", "3.8e-11", "1.1", "4.9"), _SCALE),
    },
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
