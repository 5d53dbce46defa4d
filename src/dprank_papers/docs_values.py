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
