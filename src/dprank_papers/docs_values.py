"""The numbers the documentation quotes from a run, one named value per measured quantity.

README.md and the pages of ``docs/`` quote numbers that a run, a benchmark or the code itself
determines: times, sizes, counts, ratios, lists of outputs. Each such quantity is written once,
in ``docs/includes/values.yaml``, under a name, with what measures it; every place that quotes
it is marked with the name::

    At paper scale the report is <!--v:report_size-->14.9 MB<!--/v-->.

(an HTML comment: invisible on GitHub and in the site). ``python -m dprank_papers.docs_generate``
(part of ``make docs-includes``) measures every value whose source is present (the derived
values always; a run's values from ``results/``, where
:data:`dprank_papers.docs_measures.MEASURES` finds them), keeps the others as last measured,
and rewrites every marked place from ``values.yaml``;
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

A value that depends on the machine and its load (a time, a job's seconds, a fitted slope of
times) also names the run it was measured in (``run``: the machine, the date, the load), so
that a page's time and the run it came from can be told apart from the last run's; a time
measured anew takes the ``run`` given to ``python -m dprank_papers.docs_generate --run``.

This module holds the values file and the marked places; :mod:`dprank_papers.docs_measures`
says how each value is measured (reading a run's files through ``dprank_papers._docs_readers``)
and :mod:`dprank_papers.docs_timing` times a command and formats times and sizes.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from dprank.base import checks as _checks

from .docs_measures import MEASURES
from .docs_timing import time_command

__all__ = [
    "KINDS",
    "MARK",
    "apply_values",
    "documentation_files",
    "load_values",
    "marked",
    "measure_values",
    "stale_marks",
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
# `python -m dprank_papers.docs_generate` to rewrite the pages. A time also names the run it
# was measured in (`run`: machine, date, load; `docs_generate --run`).
"""


# --------------------------------------------------------------------------- the values file


def load_values(path: str | Path) -> dict[str, dict]:
    """The values of ``values.yaml``: name -> ``{"value", "kind", "source"}`` (and ``"run"``
    where the value names the run it was measured in).

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
        if (
            not isinstance(entry, dict)
            or not {"value", "kind", "source"} <= set(entry)
            or (set(entry) - {"value", "kind", "source", "run"})
        ):
            raise ValueError(f"{where}: an entry has value, kind and source (and maybe run)")
        if "run" in entry and not (isinstance(entry["run"], str) and entry["run"].strip()):
            raise ValueError(f"{where}: run must be text naming the run")
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


def measure_values(
    values: Mapping[str, Mapping],
    root: str | Path,
    results: str | Path,
    names: Iterable[str] | None = None,
    run: str | None = None,
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
        Measure only these (default: every name of
        :data:`dprank_papers.docs_measures.MEASURES` that ``values`` holds, and
        those of its derived values).
    run : str, optional
        The run whose ``results`` these are (machine, date, load): the ``run`` of each time
        it measures (:attr:`dprank_papers.docs_measures.Measure.timing`); without it a time
        keeps its run where its value is unchanged and names none where it changed (which
        ``tests/test_docs.py`` refuses).

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
    if run is not None:
        _checks.text(run, "run")
    for name in wanted:
        if name not in MEASURES:
            continue
        how = MEASURES[name]
        value = how.measure(root, results)
        if value is None:
            continue
        entry = {"value": value, "kind": how.kind, "source": how.source}
        old = out.get(name, {})
        if how.timing and run is not None:
            entry["run"] = run
        elif how.timing and "run" in old and old["value"] == value:
            entry["run"] = old["run"]
        out[name] = entry
    return out


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
