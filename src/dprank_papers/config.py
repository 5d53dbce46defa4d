"""Validation of the workflow configuration against its JSON schema.

The workflow calls :func:`validate_config` when the Snakefile is parsed, so a
bad config stops the run before any job starts, with a message naming every
offending key and what it must look like. Besides the schema and the rules
between keys, it checks the config against the machine: every simulation cell
must fit in memory (:func:`estimate_cell_memory` against ``memory_limit_gb``,
default the machine's memory) and a data mirror (config key ``data_mirror`` or
``$DPRANK_DATA_MIRROR``) must be an existing folder.

Values given on the command line (``--config``) arrive as strings below the top level
(Snakemake reads nested values with YAML's base loader); where the schema expects
another type, such a string is read as YAML first (``'paper_a_real={reps: 5}'``). NaN is
rejected everywhere, infinite values wherever the schema does not allow them
(``allowInfinite: true``: the privacy levels where ``.inf`` means non-private).
"""

from __future__ import annotations

import itertools
import math
import os
from collections.abc import Iterator, Mapping
from pathlib import Path

import jsonschema
import yaml

from dprank.base import checks as _checks

from ._schema import (
    ConfigError,
    Validator,
    explain,
    fill_defaults,
    key_path,
    load_schema,
)

__all__ = [
    "ConfigError",
    "bound_warnings",
    "estimate_cell_memory",
    "load_schema",
    "machine_memory",
    "validate_config",
]

#: The environment variable that overrides the config key ``data_mirror``
#: (as :func:`dprank.data.datasets.resolve_mirror` reads it).
MIRROR_ENV_VAR = "DPRANK_DATA_MIRROR"
#: Working float64 arrays of one fit's size a job holds at once (the solvers' data,
#: probabilities, weights, Hessian or its factors, steps): a deliberately round upper bound.
_WORK_ARRAYS = 8
#: Users whose comparisons Paper B's simulations draw at once
# (dprank.privacy.ldp.DEFAULT_CHUNK_USERS).
_B_USER_CHUNK = 256
#: Released comparisons per chunk of the B2 timing experiment
#: (dprank_papers.studies.paper_b2.timing).
_B_TIMING_CHUNK = 4_000_000
#: Arrays of one entry per compared pair a sparse fit holds at once (the scale study: pair
#: indices, outcomes and counts, the sampler's pair numbers, the solver's differences,
#: probabilities and weights): a deliberately round upper bound.
_SPARSE_PAIR_ARRAYS = 10
#: Arrays of one entry per comparison the benchmark holds per replicate (items, outcome,
#: count, user, the users' releases).
_BENCH_COMPARISON_ARRAYS = 8


def bound_warnings(config: Mapping) -> list[str]:
    """Declared bounds far above what the data can reach, each message naming its key.

    ``paper_a_real.datasets.<name>.L`` is the declared bound on one user's comparisons
    of a real data set: its noise scales grow with ``L``. Each respondent of those
    surveys compared every pair of items once, so no user has more comparisons than the
    data set's number of pairs; a larger ``L`` only adds noise (at ``L = 1e12`` Figure 8
    is noise). Valid, but almost certainly a typo: the workflow prints each message as a
    warning when it is parsed, before any job (``workflow/rules/common.smk``).

    Parameters
    ----------
    config : Mapping
        A configuration that satisfies the schema.

    Returns
    -------
    list of str
        One message per such key (empty when there is none).
    """
    _checks.mapping(config, "config")
    datasets = (config.get("paper_a_real") or {}).get("datasets") or {}
    if not datasets:
        return []
    from dprank.data.realdata import REAL_DATASET_L

    messages = []
    for name, entry in datasets.items():
        most = REAL_DATASET_L.get(name)
        declared = (entry or {}).get("L")
        if most is None or not isinstance(declared, (int, float)) or declared <= most:
            continue
        messages.append(
            f"paper_a_real.datasets.{name}.L = {declared:g} is {declared / most:.3g} times "
            f"the most comparisons any user of {name} has ({most}: every pair of its items "
            f"once); the noise grows with L, so Figure 8 shows noise. Declare L <= {most}"
        )
    return messages


def sensitivity_scenario5_default(config: Mapping) -> dict:
    """The sensitivity study's Scenario V default setting, as workflow/rules/sensitivity.smk's
    ``SENS_DEFAULT5`` builds it from ``config`` (the docs' generated tables use it)."""
    b2 = config["paper_b2"]
    experiment = b2["experiments"][config["sensitivity"]["scenario5"]["experiment"]]
    return {"theta_half": 1.0, "p": experiment.get("p"), "lambda_c": b2.get("lambda_c", 1.0)}


def sensitivity_default_of(root: str | Path) -> dict:
    """:func:`sensitivity_scenario5_default` of the checkout ``root``'s ``config.yaml`` (the main
    study's setting; workflow/rules/sensitivity.smk's ``SENS_DEFAULT5``)."""
    _checks.path(root, "root")
    return sensitivity_scenario5_default(yaml.safe_load((Path(root) / "config.yaml").read_text()))


def _nan_keys(value, path=()) -> Iterator[str]:
    """Key paths of every NaN in ``value`` (no config key takes NaN)."""
    if isinstance(value, float) and math.isnan(value):
        yield key_path(path)
    elif isinstance(value, Mapping):
        for k, v in value.items():
            yield from _nan_keys(v, (*path, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _nan_keys(v, (*path, i))


def _type_errors(errors) -> Iterator[jsonschema.ValidationError]:
    for error in errors:
        if error.validator in ("type", "enum", "const"):
            yield error
        yield from _type_errors(error.context or ())


def _parse_strings(config: dict, validator) -> None:
    """Read as YAML the strings that stand where the schema expects another type.

    Snakemake's ``--config key={a: 5}`` merges ``{"a": "5"}`` into the config: it reads
    values below the top level with YAML's base loader, which makes every scalar a string.
    Such a string (``"5"``, ``"true"``, ``"null"``, ``".inf"``, ``"[1, 2]"``) is replaced
    by its YAML value where that is not a string; strings where the schema wants a string
    stay as they are.
    """
    for _ in range(8):  # a parsed list or mapping may hold strings in turn
        changed = False
        for error in _type_errors(validator.iter_errors(config)):
            if not isinstance(error.instance, str) or not error.absolute_path:
                continue
            try:
                value = yaml.safe_load(error.instance)
            except yaml.YAMLError:
                continue
            if isinstance(value, str):
                continue
            *parents, last = error.absolute_path
            node = config
            for part in parents:
                node = node[part]
            if node[last] is error.instance:
                node[last] = value
                changed = True
        if not changed:
            return


def _range_checks(config: Mapping) -> list[str]:
    """Two-value ranges ``[low, high]`` must not descend."""
    pairs = []
    for section in ("paper_b1", "paper_b2"):
        for name, exp in ((config.get(section) or {}).get("experiments") or {}).items():
            where = f"{section}.experiments.{name}"
            for key in ("range", "shifted"):
                pairs.append((f"{where}.eps.{key}", (exp.get("eps") or {}).get(key)))
            for key in ("m", "L"):
                pairs.append((f"{where}.draws.{key}", (exp.get("draws") or {}).get(key)))
    car = (config.get("paper_b2") or {}).get("car") or {}
    pairs.append(("paper_b2.car.eps.shifted", (car.get("eps") or {}).get("shifted")))
    return [
        f"{where}: a range [low, high] must not descend, got {list(pair)} "
        f"(write [{pair[1]}, {pair[0]}])"
        for where, pair in pairs
        if pair is not None and len(pair) == 2 and pair[0] > pair[1]
    ]


def _cross_checks(config: Mapping, papers: Mapping | None = None) -> list[str]:
    """Checks across keys that the JSON schema cannot express, section by section."""
    problems = _range_checks(config)
    problems += _edge_checks(config.get("paper_a_edge", {}))
    if section := config.get("intervals"):
        from .studies.intervals import check_section as check_intervals

        problems.extend(check_intervals(section))
    if scale := config.get("beyond_scale"):
        from .studies.beyond_scale import check_section

        problems.extend(check_section(scale))
    if sens := config.get("sensitivity"):
        from .studies.paper_b2.sensitivity import check_section as check_sensitivity

        paper_b2 = dict(config.get("paper_b2") or {})
        if papers is not None:  # the declared tables (workflow/papers/), which it compares with
            from ._papers import study_items

            paper_b2["tables"] = study_items(papers, "paper_b2", "paper_b2", "table")
        problems.extend(check_sensitivity(sens, paper_b2))
    if bench := config.get("benchmark") or {}:
        problems += _benchmark_checks(bench)
    return problems


def _edge_checks(edge: Mapping) -> list[str]:
    """Paper A edge DP experiments: theta per n, distinct grid values, n >= 4."""
    problems = []
    for name, exp in edge.get("experiments", {}).items():
        where = f"paper_a_edge.experiments.{name}"
        theta_per = exp.get("theta_per", [])
        if "n" not in theta_per:
            problems.append(f"{where}.theta_per: must contain 'n' (theta has one entry per item)")
        if "eps" in theta_per and not exp.get("data_per_epsilon", False):
            problems.append(f"{where}.theta_per: 'eps' needs data_per_epsilon: true")
        for key in ("n", "p", "epsilon"):
            values = exp.get(key, [])
            if len(set(values)) != len(values):
                problems.append(f"{where}.{key}: values must be distinct, got {values}")
        if "n" in exp and any(n < 4 for n in exp["n"]):
            problems.append(f"{where}.n: every n must be >= 4 (top-k needs k = round(n/4) >= 1)")
    return problems


def _benchmark_checks(bench: Mapping) -> list[str]:
    """The benchmark's methods are registered, plugins new, data sets defined once."""
    from dprank.methods import all_methods

    problems = []
    known = [m.name for m in all_methods()]
    for name in bench.get("methods") or []:
        if name not in known:
            problems.append(
                f"benchmark.methods: {name!r} is not a registered method "
                f"(registered: {', '.join(known)})"
            )
    for name in bench.get("plugins") or {}:
        if name in known:
            problems.append(f"benchmark.plugins.{name}: the name is taken by a registered method")
    both = set(bench.get("synthetic") or {}) & set(bench.get("real") or {})
    if both:
        problems.append(f"benchmark: data set names used twice: {sorted(both)}")
    defined = [*(bench.get("synthetic") or {}), *(bench.get("real") or {})]
    for name in bench.get("datasets") or []:
        if name not in defined:
            problems.append(
                f"benchmark.datasets: {name!r} is not defined under benchmark.synthetic "
                f"or benchmark.real (defined: {', '.join(defined)})"
            )
    if not (bench.get("synthetic") or bench.get("real")):
        problems.append("benchmark: needs at least one data set (synthetic or real)")
    return problems


def machine_memory() -> int | None:
    """Physical memory of this machine in bytes (``os.sysconf``), or None if unknown."""
    try:
        pages, size = os.sysconf("SC_PHYS_PAGES"), os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        return None
    return int(pages) * int(size) if pages > 0 and size > 0 else None


def estimate_cell_memory(section: str, cell: Mapping, replicates: int = 1) -> int:
    """Bytes one job of a simulation cell needs, from the dense arrays it holds.

    An upper estimate (within a small factor) of the peak memory of the cell's
    largest job: the arrays whose size grows with the cell, not the interpreter
    (about 150 MB) or the fixed-size ones.

    * ``paper_a_edge`` (cell key ``n``): the chunk's ``(R, n, n)`` uint8 win
      matrices and a fit's dense ``n x n`` float64 arrays (Algorithm 1 and the
      counting method work on the full matrix).
    * ``paper_a_individual`` (``n``): ``(R, n, n)`` int64 win counts and the
      batched Newton solver's ``(R, n, n)`` float64 arrays.
    * ``paper_b1``/``paper_b2`` (``m``, ``L``, ``kind``): the comparisons of a
      chunk of users, ``(users, m(m-1)/2)`` (all ``L`` users at once for the
      ``mixed_effects`` and ``model_selection`` kinds), and the ``m x m``
      Hessian.
    * ``beyond_scale`` (``n``, ``degree``): the sparse data and fit of one
      replicate, arrays of one entry per compared pair (``n degree / 2``) and
      per item.
    * ``benchmark`` (a synthetic design's ``n``, ``users``, ``L``): a replicate's
      ``users L`` comparisons and the dense ``n x n`` arrays of the methods that
      work on win matrices.

    Parameters
    ----------
    section : str
        Config section of the experiment.
    cell : mapping
        The sizes of the cell (``n``; or ``m``, ``L`` and the experiment's ``kind``).
    replicates : int
        Replicates per job (the chunk size).

    Returns
    -------
    int
        Estimated bytes.
    """
    _checks.text(section, "section")
    if not isinstance(cell, Mapping):
        raise TypeError(
            f"cell must be a mapping of a study's parameters, got {type(cell).__name__}"
        )
    _checks.count(replicates, "replicates")
    R = max(int(replicates), 1)
    f8 = 8
    if section == "paper_a_edge":
        n2 = int(cell["n"]) ** 2
        return R * n2 + _WORK_ARRAYS * f8 * n2
    if section == "paper_a_individual":
        n2 = int(cell["n"]) ** 2
        return R * n2 * f8 * (1 + _WORK_ARRAYS)
    if section == "beyond_scale":
        n = int(cell["n"])
        pairs = n * float(cell["degree"]) / 2  # expected compared pairs, n p / 2 per item
        return int(_SPARSE_PAIR_ARRAYS * f8 * pairs + _WORK_ARRAYS * f8 * n)
    if section == "benchmark":
        n = int(cell["n"])
        comparisons = int(cell["users"]) * int(cell["L"])
        return _BENCH_COMPARISON_ARRAYS * f8 * comparisons + _WORK_ARRAYS * f8 * n * n
    if section in ("paper_b1", "paper_b2"):
        m, L = int(cell["m"]), int(cell["L"])
        pairs = m * (m - 1) // 2
        kind = cell.get("kind", "adrr")
        if kind in ("mixed_effects", "model_selection"):
            drawn = L * pairs
        elif kind == "timing":
            drawn = min(L * pairs, _B_TIMING_CHUNK)
        else:
            drawn = min(L, _B_USER_CHUNK) * pairs
        # per drawn comparison: outcome, observed flag, release and noise (~4 float64)
        return 4 * f8 * drawn + _WORK_ARRAYS * f8 * (pairs + m * m)
    raise ValueError(f"no memory estimate for config section {section!r}")


def memory_cells(config: Mapping) -> Iterator[tuple[str, str, dict, int]]:
    """(where, section, cell sizes, replicates per job) of the largest jobs."""
    top_chunk = int(config.get("chunk_size", 1))
    for section in ("paper_a_edge", "paper_a_individual"):
        for name, exp in config.get(section, {}).get("experiments", {}).items():
            reps = min(int(exp.get("chunk_size") or top_chunk), int(exp.get("reps", 1)))
            for n in sorted(set(exp.get("n", []))):
                yield f"{section}.experiments.{name}", section, {"n": n}, reps
    for section in ("paper_b1", "paper_b2"):
        for name, exp in (config.get(section) or {}).get("experiments", {}).items():
            grid, draws = exp.get("grid", {}), exp.get("draws") or {}
            ms = grid.get("m") or draws.get("m") or []
            Ls = grid.get("L") or draws.get("L") or []
            kind = exp.get("kind", "adrr")
            for m, L in itertools.product(sorted(set(ms)), sorted(set(Ls))):
                cell = {"m": m, "L": L, "kind": kind}
                yield f"{section}.experiments.{name}", section, cell, 1
    if scale := config.get("beyond_scale"):
        for n in sorted(set(scale.get("n", []))):
            cell = {"n": n, "degree": scale.get("degree", 0)}
            yield "beyond_scale", "beyond_scale", cell, 1
    bench = config.get("benchmark") or {}
    chosen = bench.get("datasets")
    for name, spec in (bench.get("synthetic") or {}).items():
        if chosen is None or name in chosen:
            cell = {k: spec[k] for k in ("n", "users", "L")}
            yield f"benchmark.synthetic.{name}", "benchmark", cell, 1


def _memory_checks(config: Mapping, machine: int | None) -> list[str]:
    limit_gb = config.get("memory_limit_gb")
    if limit_gb is not None:
        limit, source = float(limit_gb) * 1e9, f"memory_limit_gb = {limit_gb}"
    elif machine is not None:
        limit, source = float(machine), f"this machine's memory, {machine / 1e9:.3g} GB"
    else:
        return []
    problems = []
    for where, section, cell, reps in memory_cells(config):
        need = estimate_cell_memory(section, cell, reps)
        if need > limit:
            sizes = ", ".join(f"{k} = {v}" for k, v in cell.items() if k != "kind")
            problems.append(
                f"{where}: the cell with {sizes} needs about "
                f"{need / 1e9:.3g} GB ({reps} replicate{'s' if reps > 1 else ''} per job), "
                f"more than the limit ({source}); make it smaller, lower chunk_size, "
                "or raise memory_limit_gb"
            )
    return problems


def _mirror_checks(config: Mapping) -> list[str]:
    problems = []
    env = os.environ.get(MIRROR_ENV_VAR, "")
    if env and not Path(env).expanduser().is_dir():
        problems.append(
            f"environment variable {MIRROR_ENV_VAR}: the data mirror {env!r} does not exist "
            "or is no folder (unset it to use data_mirror or to download)"
        )
    value = config.get("data_mirror")
    if value not in (None, "") and not Path(str(value)).expanduser().is_dir():
        problems.append(
            f"data_mirror: the folder {value!r} does not exist or is no folder "
            "(null downloads the data sets)"
        )
    return problems


def validate_config(
    config: dict,
    schema: dict | str | Path,
    check_environment: bool = True,
    papers: Mapping | None = None,
) -> dict:
    """Validate ``config`` in place (filling schema defaults) and return it.

    Parameters
    ----------
    config : dict
        The workflow configuration.
    schema : dict or path
        The JSON schema (workflow/schemas/config.schema.yaml).
    check_environment : bool
        Also check the config against this machine: every cell's estimated memory
        within ``memory_limit_gb`` (default: the machine's memory) and the data
        mirror an existing folder. The workflow turns it off in the Snakemake
        processes that run jobs (the main process has checked).
    papers : Mapping, optional
        The papers' declared items (``dprank_papers._papers.load_papers``): the sensitivity study's
        tables must be declared ``paper_b2`` tables with published numbers (unchecked without).

    Raises
    ------
    ConfigError
        Listing every violation, each with its key path and the fix.
    """
    if not isinstance(config, dict):
        raise TypeError(
            f"config must be a dict (the parsed config file), got {type(config).__name__}"
        )
    if not isinstance(schema, dict):
        _checks.path(schema, "schema")
    _checks.flag(check_environment, "check_environment")
    if papers is not None:
        _checks.mapping(papers, "papers")
    if not isinstance(schema, dict):
        schema = load_schema(schema)
    validator = Validator(schema)
    _parse_strings(config, validator)
    nan = [f"{key}: NaN is not a value here (write a number)" for key in _nan_keys(config)]
    errors = sorted(validator.iter_errors(config), key=lambda e: list(map(str, e.absolute_path)))
    # a NaN is reported once, above, whatever else its key expects
    errors = [e for e in errors if not (isinstance(e.instance, float) and math.isnan(e.instance))]
    messages = nan + [explain(e) for e in errors]
    if not messages:
        fill_defaults(config, schema, schema)
        messages = _cross_checks(config, papers)
        if check_environment:
            messages += _mirror_checks(config) + _memory_checks(config, machine_memory())
    if messages:
        lines = "\n".join(f"  - {m}" for m in messages)
        raise ConfigError(
            f"invalid configuration ({len(messages)} problem{'s' if len(messages) > 1 else ''}):\n"
            f"{lines}\nEvery key is described in workflow/schemas/config.schema.yaml "
            "and commented in config.yaml."
        )
    return config
