"""The numbers the documentation quotes from a run, one named value per measured quantity.

README.md and the pages of ``docs/`` quote numbers that a run, a benchmark or the code itself
determines: times, sizes, counts, ratios, lists of outputs. Each such quantity is written once,
in ``docs/includes/values.yaml``, under a name, with what measures it; every place that quotes
it is marked with the name::

    At paper scale the report is <!--v:report_size-->14.9 MB<!--/v-->.

(an HTML comment: invisible on GitHub and in the site). ``python -m dprank_papers.docs_generate``
(part of ``make docs-includes``) measures every value whose source is present (the derived
values always; a run's values from ``results/``, where :data:`MEASURES` finds them), keeps the
others as last measured, and rewrites every marked place from ``values.yaml``;
``tests/test_docs.py`` fails when a marked place differs from its value or names no value, so
two pages cannot quote two different numbers for one quantity.

Kinds of value (``kind`` in ``values.yaml``):

- ``derived``: computed from the checkout alone (the registered methods, the papers'
  declarations, ``snakemake -n``); regenerated on every call and checked by the tests;
- ``results``: read from a run's ``results/`` (the report's size, ...): regenerated when the
  run's files are there;
- ``timed``: a command's wall time, CPU time and peak memory, recorded by
  ``python -m dprank_papers.docs_values time NAME -- COMMAND ...`` into
  ``results/measured/NAME.json`` and read from there;
- ``quoted``: copied from a benchmark's printed output by whoever ran it (``source`` names the
  command); kept as it is until the benchmark writes a file this module can read.
"""

from __future__ import annotations

import json
import os
import re
import resource
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from dprank import checks as _checks

__all__ = [
    "KINDS",
    "MARK",
    "MEASURES",
    "Measure",
    "apply_values",
    "format_bytes",
    "format_duration",
    "load_values",
    "marked",
    "measure_values",
    "stale_marks",
    "time_command",
    "write_values",
]

#: A marked place in Markdown: ``<!--v:NAME-->TEXT<!--/v-->`` (the text is the value)
MARK = re.compile(r"<!--v:(?P<name>[a-z][a-z0-9_]*)-->(?P<text>.*?)<!--/v-->", re.S)

#: The kinds of value (see the module's docstring)
KINDS = ("derived", "results", "timed", "quoted")

_HEADER = """\
# Every number the README and docs/ quote from a run, a benchmark or the code, by name.
# Generated and kept by `python -m dprank_papers.docs_generate` (make docs-includes): derived values
# are recomputed on every call, results and timed values when their run's files are present;
# quoted values are copied from the output of the command in `source`. The pages mark each
# place that quotes a value as <!--v:NAME-->VALUE<!--/v-->; tests/test_docs.py checks that
# every marked place equals its value here. Edit a value here (never in a page), then run
# `python -m dprank_papers.docs_generate` to rewrite the pages.
"""


# --------------------------------------------------------------------------- formatting


def format_duration(seconds: float) -> str:
    """``"8.4 s"`` below a minute, ``"3 min 55 s"`` above."""
    seconds = _checks.real(seconds, "seconds")
    if not 0 <= seconds < float("inf"):
        raise ValueError(f"seconds must be finite and >= 0, got {seconds}")
    if seconds < 60:
        return f"{seconds:.1f} s" if seconds < 10 else f"{seconds:.0f} s"
    minutes, rest = divmod(round(seconds), 60)
    return f"{minutes} min {rest} s"


def format_bytes(size: float, unit: str = "MB") -> str:
    """``size`` bytes in decimal megabytes (``"14.9 MB"``, ``"161 MB"``)."""
    size = _checks.real(size, "size")
    if not 0 <= size < float("inf"):
        raise ValueError(f"size must be finite and >= 0, got {size}")
    if unit != "MB":
        raise ValueError(f"unit must be 'MB', got {unit!r}")
    mb = size / 1e6
    return f"{mb:.1f} MB" if mb < 100 else f"{mb:.0f} MB"


# --------------------------------------------------------------------------- the values file


def load_values(path: str | Path) -> dict[str, dict]:
    """The values of ``values.yaml``: name -> ``{"value", "kind", "source"}``.

    Raises
    ------
    ValueError
        If an entry lacks one of the three keys, has an unknown kind or a value that is not
        one line of text.
    """
    _checks.path(path, "path")
    import yaml

    data = yaml.safe_load(Path(path).read_text()) or {}
    if not isinstance(data, dict):
        raise ValueError(f"{path}: must map value names to entries")
    for name, entry in data.items():
        where = f"{path}: {name}"
        if not isinstance(name, str) or not re.fullmatch(r"[a-z][a-z0-9_]*", name):
            raise ValueError(f"{where}: a name is lower-case letters, digits and _")
        if not isinstance(entry, dict) or set(entry) != {"value", "kind", "source"}:
            raise ValueError(f"{where}: an entry has exactly value, kind and source")
        if entry["kind"] not in KINDS:
            raise ValueError(f"{where}: kind must be one of {KINDS}, got {entry['kind']!r}")
        if not isinstance(entry["value"], str) or "\n" in entry["value"] or not entry["value"]:
            raise ValueError(f"{where}: the value must be one line of text")
    return data


def _check_entries(values, name: str) -> None:
    """``values`` maps names to entries with a one-line text ``value`` (:func:`load_values`)."""
    _checks.mapping(values, name)
    for key, entry in values.items():
        _checks.mapping(entry, f"{name}[{key!r}]", ("value",))
        if not isinstance(entry["value"], str) or "\n" in entry["value"]:
            raise ValueError(f"{name}[{key!r}]['value'] must be one line of text")


def write_values(path: str | Path, values: Mapping[str, Mapping]) -> None:
    """Write ``values`` (as :func:`load_values` returns them) sorted by name, atomically."""
    _checks.path(path, "path")
    _check_entries(values, "values")
    import yaml

    body = yaml.safe_dump(
        {name: dict(values[name]) for name in sorted(values)},
        sort_keys=False,
        allow_unicode=True,
        width=95,
    )
    path = Path(path)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(_HEADER + body)
    tmp.replace(path)


# --------------------------------------------------------------------------- marked places


def marked(text: str) -> list[tuple[str, str]]:
    """``(name, quoted text)`` of every marked place of ``text``, in order."""
    _checks.text(text, "text")
    return [(m["name"], m["text"]) for m in MARK.finditer(text)]


def apply_values(text: str, values: Mapping[str, Mapping]) -> str:
    """``text`` with every marked place set to its value.

    Raises
    ------
    KeyError
        If a marked place names no value (the message names it).
    """
    _checks.text(text, "text")
    _check_entries(values, "values")

    def replace(m: re.Match) -> str:
        name = m["name"]
        if name not in values:
            raise KeyError(f"the marked value {name!r} is not in values.yaml")
        return f"<!--v:{name}-->{values[name]['value']}<!--/v-->"

    return MARK.sub(replace, text)


def documentation_files(root: str | Path) -> list[Path]:
    """README.md, CHANGELOG.md and every Markdown page under ``docs/`` (the includes too)."""
    _checks.path(root, "root")
    root = Path(root)
    pages = [root / "README.md", root / "CHANGELOG.md", *sorted((root / "docs").rglob("*.md"))]
    return [page for page in pages if page.is_file()]


def stale_marks(root: str | Path, values: Mapping[str, Mapping]) -> list[str]:
    """One line per marked place that differs from its value or names none (empty: all current)."""
    _checks.path(root, "root")
    _check_entries(values, "values")
    problems = []
    for path in documentation_files(root):
        text = path.read_text()
        rel = path.relative_to(root).as_posix()
        for m in MARK.finditer(text):
            line = text.count("\n", 0, m.start()) + 1
            name, quoted = m["name"], m["text"]
            if name not in values:
                problems.append(f"{rel}:{line}: <!--v:{name}--> names no value of values.yaml")
            elif quoted != values[name]["value"]:
                problems.append(
                    f"{rel}:{line}: {name} reads {quoted!r}, values.yaml {values[name]['value']!r}"
                )
    return problems


# --------------------------------------------------------------------------- measuring


@dataclass(frozen=True)
class Measure:
    """How one value is measured.

    Attributes
    ----------
    kind : str
        One of :data:`KINDS` (not ``quoted``: those are copied by hand from their command).
    source : str
        What measures it, as ``values.yaml`` says.
    measure : callable
        ``measure(root, results) -> str or None``: the value from the checkout ``root`` and the
        run's ``results`` folder, or None when its source is not there.
    """

    kind: str
    source: str
    measure: Callable[[Path, Path], str | None]


def _file_size(rel: str) -> Callable[[Path, Path], str | None]:
    def measure(root: Path, results: Path) -> str | None:
        path = results / rel
        return format_bytes(path.stat().st_size) if path.is_file() else None

    return measure


def _results_size(root: Path, results: Path) -> str | None:
    """The paper-scale results/ with the report (its smoke/ sub-folder left out)."""
    if not (results / "report.html").is_file():
        return None
    smoke = results / "smoke"
    total = 0
    for dirpath, dirnames, filenames in os.walk(results):
        if Path(dirpath) == results and smoke.is_dir():
            dirnames[:] = [d for d in dirnames if d != "smoke"]
        total += sum((Path(dirpath) / f).lstat().st_size for f in filenames)
    return format_bytes(total)


def timed_record(results: Path, name: str) -> dict | None:
    """``results/measured/<name>.json`` as :func:`time_command` wrote it, or None."""
    path = results / "measured" / f"{name}.json"
    return json.loads(path.read_text()) if path.is_file() else None


def _timed(name: str, field: str) -> Callable[[Path, Path], str | None]:
    def measure(root: Path, results: Path) -> str | None:
        record = timed_record(results, name)
        if record is None:
            return None
        if field == "peak_rss_bytes":
            return format_bytes(record[field])
        if field == "wall_seconds":
            return format_duration(record[field])
        return f"{record[field]:.0f} s"  # CPU seconds

    return measure


def _registered_methods(root: Path, results: Path) -> str:
    from dprank.methods import all_methods

    return str(len(all_methods()))


def _b2_overlays(root: Path, results: Path) -> str:
    """The B2 figures drawn with an overlay of published numbers, and the tables they show."""
    import yaml

    items = yaml.safe_load((root / "workflow/papers/paper_b2.yaml").read_text())["items"]
    figures, tables = [], set()
    for item, spec in items.items():
        published = spec.get("published")
        if item.startswith("fig") and isinstance(published, list):
            figures.append(int(item[3:]))
            tables |= {int(t.removeprefix("table")) for t in published}
    figures.sort()
    return f"Figures {', '.join(map(str, figures))} (Tables {_span(sorted(tables))})"


def _span(numbers: Sequence[int]) -> str:
    """``[5, 6, 7, 8]`` -> ``"5-8"``; gaps give ``"5-7, 9"``."""
    parts, start = [], None
    for i, n in enumerate(numbers):
        start = n if start is None else start
        if i + 1 == len(numbers) or numbers[i + 1] != n + 1:
            parts.append(f"{start}-{n}" if n > start else str(n))
            start = None
    return ", ".join(parts)


def planned_jobs(root: Path, *args: str) -> int:
    """The jobs ``snakemake -n --forceall`` plans in ``root`` (the "total" of its job table)."""
    proc = subprocess.run(
        [sys.executable, "-m", "snakemake", *args, "-n", "--forceall", "--quiet", "rules"],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
        env={
            **os.environ,
            "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        },
    )
    text = proc.stdout + proc.stderr
    match = re.search(r"^total\s+(\d+)", text, flags=re.M)
    if proc.returncode != 0 or match is None:
        raise RuntimeError(f"snakemake -n {' '.join(args)} in {root} failed:\n{text[-2000:]}")
    return int(match.group(1))


def _agreement(names: Sequence[str], what: str) -> Callable[[Path, Path], str | None]:
    """Cells within tolerance / compared (``what="ratio"``), outside (``"outside"``) or the
    items with cells outside and how many (``"items"``: ``Table 6 (18), Table 7 (7)``) over the
    comparison summaries ``results/comparison/<name>_summary.csv``."""

    def measure(root: Path, results: Path) -> str | None:
        import pandas as pd

        paths = [results / "comparison" / f"{name}_summary.csv" for name in names]
        if not all(p.is_file() for p in paths):
            return None
        frame = pd.concat([pd.read_csv(p) for p in paths])
        within, compared = int(frame["within"].sum()), int(frame["compared"].sum())
        if what == "ratio":
            return f"{within} / {compared}"
        if what == "outside":
            return str(compared - within)
        from .report import natural_key

        outside = {
            str(r["figure"]).removeprefix("B2 ").removeprefix("B1 "): int(
                r["compared"] - r["within"]
            )
            for _, r in frame.iterrows()
            if r["compared"] > r["within"]
        }
        return ", ".join(
            f"{k} ({v})" for k, v in sorted(outside.items(), key=lambda kv: natural_key(kv[0]))
        )

    return measure


def _audit_bound(audit: str, digits: int) -> Callable[[Path, Path], str | None]:
    """The privacy audit's lower bound on eps of one audit (``results/audit/privacy.csv``)."""

    def measure(root: Path, results: Path) -> str | None:
        import pandas as pd

        path = results / "audit" / "privacy.csv"
        if not path.is_file():
            return None
        frame = pd.read_csv(path).set_index("audit")
        return f"{float(frame.loc[audit, 'lower_bound']):.{digits}g}"

    return measure


def _audit_field(audit: str, column: str, spec: str) -> Callable[[Path, Path], str | None]:
    """One number of one audit of ``results/audit/privacy.csv``, formatted with ``spec``."""

    def measure(root: Path, results: Path) -> str | None:
        import pandas as pd

        path = results / "audit" / "privacy.csv"
        if not path.is_file():
            return None
        frame = pd.read_csv(path).set_index("audit")
        return format(float(frame.loc[audit, column]), spec)

    return measure


def _job_seconds(pattern: str, what: str) -> Callable[[Path, Path], str | None]:
    """Job seconds of the benchmark files ``results/benchmarks/<pattern>`` (a glob; Snakemake's
    ``benchmark:`` files, column ``s``): ``what="sum"`` (``"500 s"``), ``"range"``
    (``"55-71 s"``), ``"jobs"`` (how many files) or ``"sum_range"`` (``"500 s (8 jobs of
    55-71 s)"``); None when no file matches."""

    def measure(root: Path, results: Path) -> str | None:
        import pandas as pd

        files = sorted((results / "benchmarks").glob(pattern))
        if not files:
            return None
        seconds = [float(pd.read_csv(f, sep="\t")["s"].iloc[0]) for f in files]
        total = f"{sum(seconds):.0f} s"
        span = f"{min(seconds):.0f}-{max(seconds):.0f} s"
        return {
            "sum": total,
            "range": span,
            "jobs": str(len(files)),
            "sum_range": f"{total} ({len(files)} jobs of {span})",
        }[what]

    return measure


def _largest_memory_estimate(sections: Sequence[str], label: bool) -> Callable:
    """The largest job's memory estimate (``dprank_papers.config.estimate_cell_memory``) over the
    cells of ``config.yaml`` in ``sections``, in GB to two digits (and the paper's name)."""
    labels = {"paper_a_edge": "Paper A", "paper_a_individual": "Paper A"}
    labels |= {"paper_b1": "Paper B1", "paper_b2": "Paper B2"}

    def measure(root: Path, results: Path) -> str:
        import yaml

        from .config import estimate_cell_memory, memory_cells

        config = yaml.safe_load((root / "config.yaml").read_text())
        need, section = max(
            (estimate_cell_memory(sec, cell, reps), sec)
            for _, sec, cell, reps in memory_cells(config)
            if sec in sections
        )
        text = f"{need / 1e9:.2g} GB"
        return f"{text} ({labels[section]})" if label else text

    return measure


def _b2_timing(what: str, m: int = 0, L: int = 0) -> Callable[[Path, Path], str | None]:
    """Figure 10 of B2 (``results/paper_b2/timing/``): the median aggregation time of cell
    ``(m, L)`` (``what="median"``) or a fitted log-log slope (``"slope_log_L:seconds_total"``,
    ...) of ``scaling.csv``."""

    def measure(root: Path, results: Path) -> str | None:
        import pandas as pd

        folder = results / "paper_b2" / "timing"
        if what == "median":
            path = folder / "replicates.csv"
            if not path.is_file():
                return None
            frame = pd.read_csv(path)
            cell = frame[
                (frame["metric"] == "seconds_aggregate") & (frame["m"] == m) & (frame["L"] == L)
            ]
            median = float(cell["value"].median())
            return f"{median:.2g} s" if median >= 0.01 else f"{median:.1g} s"
        path = folder / "scaling.csv"
        if not path.is_file():
            return None
        column, metric = what.split(":")
        frame = pd.read_csv(path).set_index("metric")
        return f"{float(frame.loc[metric, column]):.2f}"

    return measure


def _scale(what: str) -> Callable[[Path, Path], str | None]:
    """A number of the scale study (``results/beyond/summary.csv`` and ``scale_fit.csv``):
    ``se_log`` / ``se_hamming`` (the largest standard error of a log-scale metric / of a
    Hamming error), ``hamming_flat`` (the largest change of a mean Hamming error from the
    smallest to the largest n), ``linf_nonprivate`` (the mean log relative l_inf error of the
    MLE without privacy at the smallest and the largest n), ``hamming_eps1`` (counting against
    the MLE at eps 1 and the largest n), ``r2_private`` (r2 over eps 0.5 and 1) and
    ``r2_eps2.5``."""

    def measure(root: Path, results: Path) -> str | None:
        import pandas as pd

        if what.startswith("r2"):
            path = results / "beyond" / "scale_fit.csv"
            if not path.is_file():
                return None
            r2 = pd.read_csv(path).set_index("epsilon")["r2"]
            if what == "r2_private":
                return f"{r2.loc[[0.5, 1.0]].min():.2f}-{r2.loc[[0.5, 1.0]].max():.2f}"
            return f"{r2.loc[2.5]:.2f}"
        path = results / "beyond" / "summary.csv"
        if not path.is_file():
            return None
        frame = pd.read_csv(path)
        if what == "se_log":
            return f"{frame[frame['metric'].str.startswith('log_')]['se'].max():.3f}"
        if what == "se_hamming":
            return f"{frame[frame['metric'] == 'rel_hamming']['se'].max():.3f}"
        means = frame.set_index(["method", "metric", "epsilon", "n"])["mean"]
        small, large = frame["n"].min(), frame["n"].max()
        if what == "hamming_flat":
            ham = frame[frame["metric"] == "rel_hamming"]
            change = [
                abs(means[(m, "rel_hamming", e, large)] - means[(m, "rel_hamming", e, small)])
                for m, e in ham[["method", "epsilon"]].drop_duplicates().itertuples(index=False)
            ]
            return f"{max(change):.3f}"
        if what == "linf_nonprivate":
            a, b = (means[("edge_mle", "log_rel_linf", float("inf"), n)] for n in (small, large))
            return f"{a:.2f} to {b:.2f}"
        counting = means[("edge_counts", "rel_hamming", 1.0, large)]
        mle = means[("edge_mle", "rel_hamming", 1.0, large)]
        return f"{counting:.2f} against {mle:.2f}"

    return measure


def _scale_ridge(root: Path, results: Path) -> str:
    """The paper's ridge ``2 sqrt(n p log n)`` of the scale study's smallest and largest n
    (config section ``beyond_scale``: n, degree = n p)."""
    import math

    import yaml

    section = yaml.safe_load((root / "config.yaml").read_text())["beyond_scale"]
    degree = float(section["degree"])
    lo, hi = (2 * math.sqrt(degree * math.log(n)) for n in (min(section["n"]), max(section["n"])))
    return f"{lo:.0f} to {hi:.0f}"


def _arena(
    dataset: str, privacy: str, epsilons: Sequence[float], column: str, spec: str, join: str
) -> Callable[[Path, Path], str | None]:
    """Numbers of the arena study's price of privacy (``results/tables/arena/
    price_of_privacy.csv``): ``column`` of ``dataset`` under ``privacy`` at each of ``epsilons``
    (``"all"``: every row; ``dataset="all"``: every data set), formatted with ``spec``
    (``"%"``: a percentage) and joined by ``join``: ``"range"`` (``"0.997 to 1.000"``),
    ``"min"`` or a separator (``" and "``, ``", "``)."""

    def measure(root: Path, results: Path) -> str | None:
        import pandas as pd

        path = results / "tables" / "arena" / "price_of_privacy.csv"
        if not path.is_file():
            return None
        frame = pd.read_csv(path)
        if dataset != "all":
            frame = frame[frame["dataset"] == dataset]
        if privacy != "all":
            frame = frame[(frame["privacy"] == privacy) & frame["epsilon"].isin(epsilons)]
            frame = frame.set_index("epsilon").loc[list(epsilons)]
        numbers = [float(x) for x in frame[column]]

        def fmt(x: float) -> str:
            return f"{x * 100:.0f}%" if spec == "%" else format(x, spec)

        if join == "range":
            return f"{fmt(min(numbers))} to {fmt(max(numbers))}"
        if join == "min":
            return fmt(min(numbers))
        return join.join(fmt(x) for x in numbers)

    return measure


def _manifest_files(smoke: bool) -> Callable[[Path, Path], str | None]:
    """How many files the SHA-256 manifest of a run holds
    (:func:`dprank_papers.workflow.results_manifest` of ``results/`` or ``results/smoke/``; None
    when that run's report is not there)."""

    def measure(root: Path, results: Path) -> str | None:
        from .workflow import results_manifest

        folder = results / "smoke" if smoke else results
        if not (folder / "report").is_dir():
            return None
        return str(len(results_manifest(folder)))

    return measure


def _sensitivity(what: str) -> Callable[[Path, Path], str | None]:
    """A number of the sensitivity study's Scenario V: ``default_within`` (cells within
    tolerance of those compared at the main study's setting, ``results/sensitivity/
    settings.csv``) or ``tm_adrr_closest`` (the closest of Table 11's TM ADRR Kendall
    distances over the settings, ``results/sensitivity/cells.csv``)."""

    def measure(root: Path, results: Path) -> str | None:
        import numpy as np
        import pandas as pd

        from .config import sensitivity_default_of

        if what == "default_within":
            path = results / "sensitivity" / "settings.csv"
            if not path.is_file():
                return None
            frame = pd.read_csv(path)
            at = np.ones(len(frame), dtype=bool)
            for key, value in sensitivity_default_of(root).items():
                at &= np.isclose(frame[key].astype(float), float(value))
            row = frame[at].iloc[0]
            return f"{int(row['within'])} of the {int(row['compared'])}"
        path = results / "sensitivity" / "cells.csv"
        if not path.is_file():
            return None
        cells = pd.read_csv(path)
        part = cells[
            (cells["figure"] == "B2 Table 11")
            & (cells["metric"] == "kendall_tau_K")
            & (cells["method"] == "local_adrr")
            & (cells["model"].astype(str).str.upper() == "TM")
        ]
        near = part.iloc[int(np.argmin(part["diff"].abs().to_numpy()))]
        return f"{near['ours_mean']:.4f}"

    return measure


def _items(comparison: str, items: Sequence[str], what: str) -> Callable[[Path, Path], str | None]:
    """Cells of some items of one comparison summary (``results/comparison/<comparison>_
    summary.csv``): ``what="ratio"`` (``"11 / 11"``, within / compared) or ``"outside"``."""

    def measure(root: Path, results: Path) -> str | None:
        import pandas as pd

        path = results / "comparison" / f"{comparison}_summary.csv"
        if not path.is_file():
            return None
        frame = pd.read_csv(path).set_index("figure").loc[list(items)]
        within, compared = int(frame["within"].sum()), int(frame["compared"].sum())
        return f"{within} / {compared}" if what == "ratio" else str(compared - within)

    return measure


def _b2_cells(figure: str, cells: Sequence[tuple[str, str, str]], spec: str = ".3f") -> Callable:
    """Our means of some cells of one B2 table (``results/comparison/paper_b2.csv``), each
    ``(model, metric, method)``, formatted with ``spec`` and joined by `` / ``; ``cells`` of
    one ``("outside", "", method)``: how many of the method's cells are outside tolerance."""

    def measure(root: Path, results: Path) -> str | None:
        import pandas as pd

        path = results / "comparison" / "paper_b2.csv"
        if not path.is_file():
            return None
        frame = pd.read_csv(path)
        frame = frame[frame["figure"] == figure]
        if cells[0][0] == "outside":
            part = frame[frame["method"] == cells[0][2]]
            return str(int((part["verdict"] == "outside").sum()))
        out = []
        for model, metric, method in cells:
            row = frame[
                (frame["model"].astype(str).str.upper() == model)
                & (frame["metric"] == metric)
                & (frame["method"] == method)
            ]
            out.append(format(float(row["ours_mean"].iloc[0]), spec))
        return " / ".join(out)

    return measure


def _paper_a_outside(figure: str, panel: str, metric: str, eps: float | None, what: str):
    """Cells of Paper A's edge-DP comparison (``results/comparison/paper_a_edge.csv``) outside
    tolerance, of one figure and (where not empty) panel, metric and eps: how many
    (``what="count"``) or the range of their absolute differences (``"diff_range"``,
    ``"0.04-0.07"``)."""

    def measure(root: Path, results: Path) -> str | None:
        import pandas as pd

        path = results / "comparison" / "paper_a_edge.csv"
        if not path.is_file():
            return None
        frame = pd.read_csv(path)
        sel = (frame["figure"] == figure) & (frame["verdict"] == "outside")
        if panel:
            sel &= frame["panel"] == panel
        if metric:
            sel &= frame["metric"] == metric
        if eps is not None:
            sel &= frame["epsilon"] == eps
        if what == "count":
            return str(int(sel.sum()))
        diff = frame.loc[sel, "diff"].abs()
        return f"{diff.min():.2f}-{diff.max():.2f}"

    return measure


def _b2_figure_r(figure: str, models: Sequence[str], metrics: Sequence[str]) -> Callable:
    """Pearson r of a B2 figure's fit (``results/figures/paper_b2/<figure>.csv``, column
    ``r``) to two decimals, one per metric joined by `` / ``; of several models, one text when
    they agree to two decimals, else each model's joined by ``; ``."""

    def measure(root: Path, results: Path) -> str | None:
        import pandas as pd

        path = results / "figures" / "paper_b2" / f"{figure}.csv"
        if not path.is_file():
            return None
        r = pd.read_csv(path).groupby(["model", "metric"])["r"].first()
        texts = [" / ".join(f"{float(r[(m, k)]):.2f}" for k in metrics) for m in models]
        return texts[0] if len(set(texts)) == 1 else "; ".join(texts)

    return measure


def _b1_figure(figure: str, select: Mapping, spec: str, join: str = "") -> Callable:
    """Means of the rows of a B1 figure's data (``results/figures/paper_b1/<figure>.csv``)
    that match ``select`` (column -> value), formatted with ``spec``: the one row's
    (``join=""``), their range (``"range"``, ``"0.72-0.76"``) or each method's in the order of
    ``select["method"]`` (a tuple) joined by ``join``."""

    def measure(root: Path, results: Path) -> str | None:
        import pandas as pd

        path = results / "figures" / "paper_b1" / f"{figure}.csv"
        if not path.is_file():
            return None
        frame = pd.read_csv(path)
        methods = select.get("method")
        for column, value in select.items():
            if column == "method" and isinstance(value, tuple):
                continue
            frame = frame[frame[column] == value]
        if join == "range":
            return f"{frame['mean'].min():{spec}}-{frame['mean'].max():{spec}}"
        if isinstance(methods, tuple):
            means = frame.set_index("method")["mean"]
            return join.join(f"{float(means[m]):{spec}}" for m in methods)
        (mean,) = frame["mean"]
        return f"{float(mean):{spec}}"

    return measure


def _halved_k(what: str) -> Callable[[Path, Path], str | None]:
    """Table 11's Kendall distances of the main study (the sensitivity study's default
    setting) read as normalised by m (m - 1): halved (``what="values"``: ``"ADRR BTL 0.0247,
    ADRR TM 0.0162, count BTL 0.0303 and count TM 0.0209"``) and how many are then within
    the comparison's tolerance (``"within"``: ``"2 of 4"``), from
    ``results/comparison/paper_b2.csv`` as
    :func:`dprank_papers.studies.paper_b2.sensitivity.findings` computes them."""

    def measure(root: Path, results: Path) -> str | None:
        import numpy as np
        import pandas as pd

        path = results / "comparison" / "paper_b2.csv"
        if not path.is_file():
            return None
        frame = pd.read_csv(path)
        kd = frame[(frame["figure"] == "B2 Table 11") & (frame["metric"] == "kendall_tau_K")]
        order = {("local_adrr", "BTL"): 0, ("local_adrr", "TM"): 1}
        order |= {("local_count", "BTL"): 2, ("local_count", "TM"): 3}
        kd = kd.assign(
            _o=[order[(m, str(x).upper())] for m, x in zip(kd["method"], kd["model"], strict=True)]
        ).sort_values("_o")
        half = kd["ours_mean"] / 2
        if what == "values":
            names = {"local_adrr": "ADRR", "local_count": "count"}
            parts = [
                f"{names[m]} {str(x).upper()} {h:.4f}"
                for m, x, h in zip(kd["method"], kd["model"], half, strict=True)
            ]
            return ", ".join(parts[:-1]) + " and " + parts[-1]
        z = kd["tolerance"] / np.hypot(kd["ours_se"], kd["published_se"])
        tol = z * np.hypot(kd["ours_se"] / 2, kd["published_se"])
        inside = (half - kd["published_mean"]).abs() <= tol
        return f"{int(inside.sum())} of {len(kd)}"

    return measure


def _nonconverged(what: str) -> Callable[[Path, Path], str | None]:
    """Scenario V's fits that did not converge (``results/sensitivity/scenario5/*.csv``,
    metric ``converged``): ``"groups"`` (``"66 of the 480"``: groups with any, of all),
    ``"worst"`` (``"65%"``: the worst group's share) or ``"worst_setting"``
    (``"h = 2, p = 0.25, c = 0.1"``)."""

    def measure(root: Path, results: Path) -> str | None:
        import pandas as pd

        files = sorted((results / "sensitivity" / "scenario5").glob("*.csv"))
        if not files:
            return None
        frame = pd.concat([pd.read_csv(f) for f in files], ignore_index=True)
        conv = frame[frame["metric"] == "converged"]
        failed = conv[conv["mean"] < 1]
        if what == "groups":
            return f"{len(failed)} of the {len(conv)}"
        if failed.empty:
            return None
        worst = failed.sort_values("mean", kind="stable").iloc[0]
        if what == "worst":
            return f"{1 - worst['mean']:.0%}"
        return f"h = {worst['theta_half']:g}, p = {worst['p']:g}, c = {worst['lambda_c']:g}"

    return measure


#: Every value this module measures, by name (the ``quoted`` values of values.yaml are not here)
MEASURES: dict[str, Measure] = {
    "registered_methods": Measure(
        "derived", "len(dprank.methods.all_methods())", _registered_methods
    ),
    "b2_overlays": Measure(
        "derived",
        "the B2 figures of workflow/papers/paper_b2.yaml with published tables",
        _b2_overlays,
    ),
    "paper_jobs": Measure(
        "derived",
        "snakemake -n --forceall (the jobs of the default target all at paper scale)",
        lambda root, results: str(planned_jobs(root)),
    ),
    "smoke_jobs": Measure(
        "derived",
        "snakemake -n --forceall --configfile .test/config.yaml",
        lambda root, results: str(planned_jobs(root, "--configfile", ".test/config.yaml")),
    ),
    "agreement_paper_a": Measure(
        "results",
        "cells within / compared, results/comparison/paper_a_{edge,individual}_summary.csv",
        _agreement(["paper_a_edge", "paper_a_individual"], "ratio"),
    ),
    "outside_paper_a": Measure(
        "results",
        "cells outside, results/comparison/paper_a_{edge,individual}_summary.csv",
        _agreement(["paper_a_edge", "paper_a_individual"], "outside"),
    ),
    "agreement_paper_b2": Measure(
        "results",
        "cells within / compared, results/comparison/paper_b2_summary.csv",
        _agreement(["paper_b2"], "ratio"),
    ),
    **{
        f"outside_{paper}_items": Measure(
            "results",
            "items with cells outside (cells), results/comparison/"
            + (f"{{{','.join(names)}}}" if len(names) > 1 else names[0])
            + "_summary.csv",
            _agreement(names, "items"),
        )
        for paper, names in (
            ("paper_a", ["paper_a_edge", "paper_a_individual"]),
            ("paper_b2", ["paper_b2"]),
            ("paper_b1", ["paper_b1"]),
        )
    },
    "agreement_paper_b1": Measure(
        "results",
        "cells within / compared, results/comparison/paper_b1_summary.csv",
        _agreement(["paper_b1"], "ratio"),
    ),
    "audit_alg3_counts_bound": Measure(
        "results",
        "lower bound of 'Alg. 3 counts (individual), vector', results/audit/privacy.csv",
        _audit_bound("Alg. 3 counts (individual), vector", 4),
    ),
    "audit_fixed_noise_bound": Measure(
        "results",
        "lower bound of 'Alg. 2 counts (edge), fixed noise', results/audit/privacy.csv",
        _audit_bound("Alg. 2 counts (edge), fixed noise", 3),
    ),
    "audit_job_seconds": Measure(
        "results",
        "job seconds of rule audit_privacy, results/benchmarks/audit/privacy.tsv",
        _job_seconds("audit/privacy.tsv", "sum"),
    ),
    **{
        name: Measure(
            "results",
            f"{column} of '{audit}', results/audit/privacy.csv",
            _audit_field(audit, column, spec),
        )
        for name, audit, column, spec in (
            ("audit_one_shot_exact", "One-shot top-1 (edge)", "exact_eps", ".2g"),
            ("audit_one_shot_bound", "One-shot top-1 (edge)", "lower_bound", ".3f"),
            ("audit_mle_individual_flip", "Alg. 3 MLE (individual), flip", "lower_bound", ".3g"),
            (
                "audit_mle_individual_replaced",
                "Alg. 3 MLE (individual), replaced",
                "lower_bound",
                ".3g",
            ),
        )
    },
    "b2_mixed_effects_fit_seconds": Measure(
        "results",
        "job seconds of the fit of B2's mixed-effects experiment, "
        "results/benchmarks/paper_b2/mixed_effects/metrics/*/*.tsv",
        _job_seconds("paper_b2/mixed_effects/metrics/*/*.tsv", "sum"),
    ),
    "b2_timing_job_seconds": Measure(
        "results",
        "job seconds of B2's Figure 10 timing job, results/benchmarks/paper_b2/timing/timing.tsv",
        _job_seconds("paper_b2/timing/timing.tsv", "sum"),
    ),
    **{
        f"arena_{name}": Measure(
            "results",
            (
                f"{column} of {dataset}, {privacy} DP, eps {', '.join(map(str, eps))}"
                if eps
                else f"least {column} of every row"
            )
            + ", results/tables/arena/price_of_privacy.csv",
            _arena(dataset, privacy, eps, column, spec, join),
        )
        for name, dataset, privacy, eps, column, spec, join in (
            ("edge_tau", "chatbot_arena", "edge", (0.5, 1, 2, 4, 8), "kendall", ".3f", "range"),
            (
                "none_tie_classes",
                "chatbot_arena",
                "none",
                (float("inf"),),
                "tie_classes",
                ".0f",
                "",
            ),
            ("cems_edge_tau", "cems", "edge", (1, 0.5), "kendall", ".2f", ", "),
            ("local_tau_high", "chatbot_arena", "local", (8, 4), "kendall", ".3f", " and "),
            ("local_overlap_eps2", "chatbot_arena", "local", (2,), "top_overlap", "%", ""),
            ("local_classes_eps2", "chatbot_arena", "local", (2,), "tie_classes", ".0f", ""),
            ("local_overlap_eps1", "chatbot_arena", "local", (1,), "top_overlap", ".2f", ""),
            ("local_classes_eps1", "chatbot_arena", "local", (1,), "tie_classes", ".0f", ""),
            ("local_tau_eps05", "chatbot_arena", "local", (0.5,), "kendall", ".2f", ""),
            ("local_overlap_eps05", "chatbot_arena", "local", (0.5,), "top_overlap", ".2f", ""),
            ("local_coverage_eps05", "chatbot_arena", "local", (0.5,), "rank_coverage", "%", ""),
            ("cems_voter_tau_high", "cems", "individual", (2, 4, 8), "kendall", ".2f", "range"),
            ("cems_voter_tau_eps1", "cems", "individual", (1,), "kendall", ".2f", ""),
            ("cems_voter_tau_eps05", "cems", "individual", (0.5,), "kendall", ".2f", ""),
            ("coverage_min", "all", "all", (), "rank_coverage", "%", "min"),
        )
    },
    "manifest_paper_files": Measure(
        "results",
        "files of dprank_papers.workflow.results_manifest(results) after a full run",
        _manifest_files(smoke=False),
    ),
    "manifest_smoke_files": Measure(
        "results",
        "files of dprank_papers.workflow.results_manifest(results/smoke) after a smoke run "
        "(make slurm-test compares them)",
        _manifest_files(smoke=True),
    ),
    "sensitivity_default_within": Measure(
        "results",
        "cells within / compared at the main study's Scenario V setting, "
        "results/sensitivity/settings.csv",
        _sensitivity("default_within"),
    ),
    "sensitivity_tm_adrr_closest": Measure(
        "results",
        "the closest TM ADRR Kendall distance of Table 11 over the settings, "
        "results/sensitivity/cells.csv",
        _sensitivity("tm_adrr_closest"),
    ),
    **{
        f"fidelity_b2_{name}": Measure(
            "results",
            f"cells {'within / compared' if what == 'ratio' else 'outside'} of "
            f"{' and '.join(items)}, results/comparison/paper_b2_summary.csv",
            _items("paper_b2", items, what),
        )
        for name, items, what in (
            ("scenario3_outside", ("B2 Table 6", "B2 Table 7"), "outside"),
            ("table10_outside", ("B2 Table 10",), "outside"),
            ("table11_outside", ("B2 Table 11",), "outside"),
            ("table1_ratio", ("B2 Table 1",), "ratio"),
            ("table2_ratio", ("B2 Table 2",), "ratio"),
        )
    },
    **{
        f"fidelity_b2_{name}": Measure(
            "results",
            f"{figure}: "
            + (
                f"cells of {cells[0][2]} outside tolerance"
                if cells[0][0] == "outside"
                else "our mean of " + " / ".join(" ".join(c) for c in cells)
            )
            + ", results/comparison/paper_b2.csv",
            _b2_cells(figure, cells, spec),
        )
        for name, figure, cells, spec in (
            (
                "t10_adrr_btl",
                "B2 Table 10",
                (("BTL", "l2_over_sqrt_m", "local_adrr"), ("BTL", "linf", "local_adrr")),
                ".3f",
            ),
            (
                "t10_classic_rr_btl",
                "B2 Table 10",
                (("BTL", "l2_over_sqrt_m", "local_classic_rr"),),
                ".3f",
            ),
            (
                "t10_classic_rr_tm",
                "B2 Table 10",
                (("TM", "l2_over_sqrt_m", "local_classic_rr"),),
                ".3f",
            ),
            (
                "t10_classic_rr_outside",
                "B2 Table 10",
                (("outside", "", "local_classic_rr"),),
                ".3f",
            ),
            ("t10_noisy_obj_linf", "B2 Table 10", (("BTL", "linf", "edge_noisy_obj"),), ".3f"),
            ("t11_adrr_btl", "B2 Table 11", (("BTL", "kendall_tau_K", "local_adrr"),), ".3f"),
            ("t11_adrr_tm", "B2 Table 11", (("TM", "kendall_tau_K", "local_adrr"),), ".3f"),
            ("t11_count_btl", "B2 Table 11", (("BTL", "kendall_tau_K", "local_count"),), ".3f"),
            ("t11_count_tm", "B2 Table 11", (("TM", "kendall_tau_K", "local_count"),), ".3f"),
            (
                "t2_adrr_btl",
                "B2 Table 2",
                (("BTL", "kendall_tau_K_vs_Table1_ranking", "local_adrr"),),
                ".4f",
            ),
            (
                "t2_count_btl",
                "B2 Table 2",
                (("BTL", "kendall_tau_K_vs_Table1_ranking", "local_count"),),
                ".4f",
            ),
            (
                "t2_classic_rr_btl",
                "B2 Table 2",
                (("BTL", "kendall_tau_K_vs_Table1_ranking", "local_classic_rr"),),
                ".4f",
            ),
            (
                "t2_laplace_btl",
                "B2 Table 2",
                (("BTL", "kendall_tau_K_vs_Table1_ranking", "local_laplace"),),
                ".4f",
            ),
            (
                "t2_t_count_btl",
                "B2 Table 2",
                (("BTL", "paired_t_statistic_vs_ADRR", "local_count"),),
                ".2f",
            ),
            (
                "t2_t_classic_rr_btl",
                "B2 Table 2",
                (("BTL", "paired_t_statistic_vs_ADRR", "local_classic_rr"),),
                ".2f",
            ),
            (
                "t2_t_laplace_btl",
                "B2 Table 2",
                (("BTL", "paired_t_statistic_vs_ADRR", "local_laplace"),),
                ".2f",
            ),
        )
    },
    **{
        f"fidelity_a_{name}": Measure(
            "results",
            (
                "cells outside"
                if what == "count"
                else "range of |ours - published| of the cells outside"
            )
            + f" of {figure}"
            + (f" ({panel})" if panel else "")
            + (f", {metric}" if metric else "")
            + (f", eps {eps:g}" if eps is not None else "")
            + ", results/comparison/paper_a_edge.csv",
            _paper_a_outside(figure, panel, metric, eps, what),
        )
        for name, figure, panel, metric, eps, what in (
            ("fig2a_eps05_outside", "Figure 2", "a", "", 0.5, "count"),
            ("fig2a_eps05_diff", "Figure 2", "a", "", 0.5, "diff_range"),
            ("fig2a_eps1_outside", "Figure 2", "a", "", 1.0, "count"),
            ("fig1_linf_outside", "Figure 1", "", "log_rel_linf", None, "count"),
            ("fig1_l2_outside", "Figure 1", "", "log_rel_l2", None, "count"),
            ("fig1_hamming_outside", "Figure 1", "", "rel_hamming", None, "count"),
        )
    },
    **{
        f"fidelity_b2_{name}": Measure(
            "results",
            f"Pearson r of {figure}, {' and '.join(models)}, {' / '.join(metrics)}, "
            f"results/figures/paper_b2/{figure}.csv",
            _b2_figure_r(figure, models, metrics),
        )
        for name, figure, models, metrics in (
            ("fig14_r_btl", "fig14", ("btl",), ("l2_over_sqrt_m", "linf")),
            ("fig14_r_tm", "fig14", ("tm",), ("l2_over_sqrt_m", "linf")),
            ("fig5_r_l2", "fig5", ("btl", "tm"), ("l2_over_sqrt_m",)),
            ("fig5_r_linf", "fig5", ("btl", "tm"), ("linf",)),
        )
    },
    **{
        f"fidelity_b1_{name}": Measure(
            "results",
            f"mean of {figure} at {', '.join(f'{k} {v}' for k, v in select.items())}"
            + (" (range)" if join == "range" else "")
            + f", results/figures/paper_b1/{figure}.csv",
            _b1_figure(figure, select, spec, join),
        )
        for name, figure, select, spec, join in (
            (
                "fig4_kendall",
                "fig4",
                {"model": "btl", "L": 400, "m": 30, "delta": 0.2, "metric": "kendall_tau_K"},
                ".2g",
                "",
            ),
            (
                "fig4_hk",
                "fig4",
                {
                    "model": "btl",
                    "L": 400,
                    "m": 30,
                    "delta": 0.2,
                    "metric": "topK_hamming_HK_K=m/2",
                },
                "g",
                "",
            ),
            (
                "fig6_classic_rr_linf",
                "fig6",
                {"model": "btl", "L": 400, "method": "local_classic_rr", "metric": "linf"},
                ".2f",
                "range",
            ),
            (
                "fig6_adrr_laplace_linf",
                "fig6",
                {
                    "model": "btl",
                    "L": 400,
                    "m": 10,
                    "metric": "linf",
                    "method": ("local_adrr", "local_laplace"),
                },
                ".3f",
                " and ",
            ),
        )
    },
    "sensitivity_halved_k": Measure(
        "results",
        "Table 11's Kendall distances at the default halved, results/comparison/paper_b2.csv",
        _halved_k("values"),
    ),
    "sensitivity_halved_k_within": Measure(
        "results",
        "Table 11's halved Kendall distances within tolerance, results/comparison/paper_b2.csv",
        _halved_k("within"),
    ),
    **{
        f"sensitivity_nonconverged_{what}": Measure(
            "results",
            f"Scenario V fits that did not converge ({what}), results/sensitivity/scenario5/*.csv",
            _nonconverged(what),
        )
        for what in ("groups", "worst", "worst_setting")
    },
    "memory_largest_paper_job": Measure(
        "derived",
        "dprank_papers.config.estimate_cell_memory, largest cell of the papers' sections of "
        "config.yaml",
        _largest_memory_estimate(
            ("paper_a_edge", "paper_a_individual", "paper_b1", "paper_b2"), label=True
        ),
    ),
    "memory_largest_scale_job": Measure(
        "derived",
        "dprank_papers.config.estimate_cell_memory, largest cell of beyond_scale in config.yaml",
        _largest_memory_estimate(("beyond_scale",), label=False),
    ),
    "memory_largest_benchmark_job": Measure(
        "derived",
        "dprank_papers.config.estimate_cell_memory, largest cell of benchmark in config.yaml",
        _largest_memory_estimate(("benchmark",), label=False),
    ),
    "b2_timing_median_largest": Measure(
        "results",
        "median aggregation seconds at (m, L) = (160, 3200), "
        "results/paper_b2/timing/replicates.csv",
        _b2_timing("median", 160, 3200),
    ),
    "b2_timing_median_smallest": Measure(
        "results",
        "median aggregation seconds at (m, L) = (10, 200), results/paper_b2/timing/replicates.csv",
        _b2_timing("median", 10, 200),
    ),
    **{
        f"b2_timing_slope_{metric}_{var.lower()}": Measure(
            "results",
            f"slope_log_{var} of seconds_{metric}, results/paper_b2/timing/scaling.csv",
            _b2_timing(f"slope_log_{var}:seconds_{metric}"),
        )
        for metric in ("aggregate", "total")
        for var in ("L", "m")
    },
    **{
        f"sensitivity_{part}_seconds": Measure(
            "results",
            f"job seconds of results/benchmarks/sensitivity/{pattern}",
            _job_seconds(f"sensitivity/{pattern}", what),
        )
        for part, pattern, what in (
            ("scenario3_grid", "scenario3/grid/*.tsv", "sum_range"),
            ("scenario3_fit", "scenario3/fit.tsv", "sum"),
            ("scenario5", "scenario5/*.tsv", "sum_range"),
            ("summary_figure", "[sf]*.tsv", "sum"),
        )
    },
    **{
        f"scale_{what.replace('.', '_')}": Measure(
            "results",
            f"{description}, results/beyond/"
            + ("scale_fit.csv" if what.startswith("r2") else "summary.csv"),
            _scale(what),
        )
        for what, description in (
            ("se_log", "largest standard error of a log-scale metric"),
            ("se_hamming", "largest standard error of a Hamming error"),
            ("hamming_flat", "largest change of a mean Hamming error, smallest to largest n"),
            (
                "linf_nonprivate",
                "mean log rel. l_inf error of the MLE, eps inf, n smallest, largest",
            ),
            ("hamming_eps1", "mean Hamming error, counting against MLE, eps 1, largest n"),
            ("r2_private", "r2 of the rate fit, least and largest over eps 0.5 and 1"),
            ("r2_eps2.5", "r2 of the rate fit at eps 2.5"),
        )
    },
    "scale_ridge": Measure(
        "derived",
        "2 sqrt(n p log n) at the smallest and largest n of config.yaml's beyond_scale",
        _scale_ridge,
    ),
    "report_size": Measure(
        "results",
        "size of results/report.html (make report after make reproduce)",
        _file_size("report.html"),
    ),
    "results_size": Measure(
        "results",
        "size of results/ with the report, results/smoke/ left out",
        _results_size,
    ),
    **{
        f"{run}_{field}": Measure(
            "timed",
            f"python -m dprank_papers.docs_values time {run} -- {command}",
            _timed(run, key),
        )
        for run, command in (
            ("full_run", ".venv/bin/snakemake --cores 2 (clean clone, empty results/)"),
            ("smoke_run", ".venv/bin/snakemake --cores 2 --configfile .test/config.yaml"),
            ("report", ".venv/bin/snakemake --report results/report.html ... (make report)"),
            ("benchmark_run", ".venv/bin/snakemake --cores 2 benchmark"),
            ("beyond_scale_run", ".venv/bin/snakemake --cores 2 beyond_scale"),
            ("sensitivity_run", ".venv/bin/snakemake --cores 2 sensitivity"),
        )
        for field, key in (
            ("wall", "wall_seconds"),
            ("user_cpu", "user_seconds"),
            ("system_cpu", "system_seconds"),
            ("peak", "peak_rss_bytes"),
        )
    },
}


def measure_values(
    values: Mapping[str, Mapping],
    root: str | Path,
    results: str | Path,
    names: Iterable[str] | None = None,
) -> dict[str, dict]:
    """``values`` with every measurable value measured anew.

    Parameters
    ----------
    values : mapping
        The present values (:func:`load_values`); kept where nothing measures them now.
    root : path
        The checkout.
    results : path
        The run's results folder (``results``).
    names : iterable of str, optional
        Measure only these (default: every name of :data:`MEASURES` that ``values`` holds, and
        those of its derived values).

    Returns
    -------
    dict
        The new values (a copy; ``values`` is not changed).
    """
    _check_entries(values, "values")
    _checks.path(root, "root")
    _checks.path(results, "results")
    root, results = Path(root), Path(results)
    out = {name: dict(entry) for name, entry in values.items()}
    wanted = list(values) if names is None else _checks.strings(names, "names")
    for name in wanted:
        if name not in MEASURES:
            continue
        how = MEASURES[name]
        value = how.measure(root, results)
        if value is not None:
            out[name] = {"value": value, "kind": how.kind, "source": how.source}
    return out


# --------------------------------------------------------------------------- timing a command


def time_command(name: str, command: Sequence[str], results: str | Path = "results") -> dict:
    """Run ``command``; record its wall time, CPU time and peak memory as ``name``.

    The record, ``results/measured/<name>.json``, holds ``wall_seconds``, ``user_seconds``,
    ``system_seconds`` (of the command and every process it waited for) and ``peak_rss_bytes``
    (the largest resident set of any one of them, as ``/usr/bin/time -v`` reports it), the
    command, its exit status, the machine's CPU count and load average at start and end.
    The record is written only when the command succeeds.

    Returns
    -------
    dict
        The record.
    """
    _checks.text(name, "name")
    command = _checks.strings(command, "command")
    if not command:
        raise ValueError("command must name a program")
    _checks.path(results, "results")
    load_start = os.getloadavg()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    code = subprocess.call(list(command))
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    record = {
        "command": list(command),
        "returncode": code,
        "wall_seconds": round(wall, 2),
        "user_seconds": round(after.ru_utime - before.ru_utime, 2),
        "system_seconds": round(after.ru_stime - before.ru_stime, 2),
        "peak_rss_bytes": after.ru_maxrss * 1024,  # Linux: kilobytes
        "cpus": os.cpu_count(),
        "load_average_start": round(load_start[0], 2),
        "load_average_end": round(os.getloadavg()[0], 2),
    }
    if code == 0:
        path = Path(results) / "measured" / f"{name}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(record, indent=1) + "\n")
    return record


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m dprank_papers.docs_values time NAME -- COMMAND ...``."""
    import argparse

    parser = argparse.ArgumentParser(
        prog="python -m dprank_papers.docs_values",
        description="Time a command and record it as a value the documentation quotes "
        "(results/measured/NAME.json; python -m dprank_papers.docs_generate then writes it into "
        "docs/includes/values.yaml and the pages).",
    )
    sub = parser.add_subparsers(dest="action", required=True)
    timing = sub.add_parser("time", help="run COMMAND and record its time and memory")
    timing.add_argument("name", help="the run's name (full_run, smoke_run, report, ...)")
    timing.add_argument("command", nargs=argparse.REMAINDER, help="-- COMMAND ...")
    timing.add_argument("--results", default="results", help="the results folder")
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("give the command after --")
    record = time_command(args.name, command, args.results)
    print(json.dumps(record, indent=1), file=sys.stderr)
    return record["returncode"]


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
