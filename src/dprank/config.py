"""Validation of the workflow configuration against its JSON schema.

The workflow calls :func:`validate_config` when the Snakefile is parsed, so a
bad config stops the run before any job starts, with a message naming every
offending key and what it must look like. Besides the schema and the rules
between keys, it checks the config against the machine: every simulation cell
must fit in memory (:func:`estimate_cell_memory` against ``memory_limit_gb``,
default the machine's memory) and a data mirror (config key ``data_mirror`` or
``$DPRANK_DATA_MIRROR``) must be an existing folder.
"""

from __future__ import annotations

import copy
import itertools
import os
from collections.abc import Iterator, Mapping
from pathlib import Path

import jsonschema

from dprank.yamlfile import read_yaml

__all__ = [
    "ConfigError",
    "estimate_cell_memory",
    "load_schema",
    "machine_memory",
    "validate_config",
]

#: The environment variable that overrides the config key ``data_mirror``
#: (as :func:`dprank.datasets.resolve_mirror` reads it).
MIRROR_ENV_VAR = "DPRANK_DATA_MIRROR"
#: Working float64 arrays of one fit's size a job holds at once (the solvers' data,
#: probabilities, weights, Hessian or its factors, steps): a deliberately round upper bound.
_WORK_ARRAYS = 8
#: Users whose comparisons Paper B's simulations draw at once (dprank.ldp.DEFAULT_CHUNK_USERS).
_B_USER_CHUNK = 256
#: Released comparisons per chunk of the B2 timing experiment (dprank.studies.paper_b2.timing).
_B_TIMING_CHUNK = 4_000_000


class ConfigError(ValueError):
    """The configuration does not satisfy the schema or a cross-key rule."""


def load_schema(path: str | Path) -> dict:
    """Read a YAML JSON-schema file."""
    return read_yaml(path)


def _where(error: jsonschema.ValidationError) -> str:
    parts = []
    for p in error.absolute_path:
        parts.append(f"[{p}]" if isinstance(p, int) else (f".{p}" if parts else str(p)))
    return "".join(parts) or "<top level>"


def _explain(error: jsonschema.ValidationError) -> str:
    where = _where(error)
    if error.validator == "additionalProperties":
        allowed = sorted(error.schema.get("properties", {}))
        hint = (
            f"allowed keys here: {', '.join(allowed)}"
            if allowed
            else "no other keys are allowed here"
        )
        return f"{where}: {error.message} ({hint}; check for a typo)"
    bounds = {"exclusiveMinimum": ">", "minimum": ">=", "exclusiveMaximum": "<", "maximum": "<="}
    if error.validator in bounds:
        bound = f"{bounds[error.validator]} {error.validator_value}"
        return f"{where}: must be {bound}, got {error.instance!r}"
    if error.validator == "required":
        return f"{where}: {error.message}"
    if (
        error.validator == "type"
        and error.validator_value == "boolean"
        and isinstance(error.instance, str)
        and error.instance.lower() in ("true", "false")
    ):
        # Snakemake's --config reads only True and False (capitalised) as booleans
        value = error.instance.lower() == "true"
        cli = f"--config {where}={value} on the command line, " if where.isidentifier() else ""
        return (
            f"{where}: {error.instance!r} is a string, not a boolean; write "
            f"{cli}{str(value).lower()} in YAML"
        )
    desc = error.schema.get("description") if isinstance(error.schema, dict) else None
    return f"{where}: {error.message}" + (f" (expected: {desc})" if desc else "")


def _resolve(schema, root):
    while isinstance(schema, dict) and "$ref" in schema:
        node = root
        for part in schema["$ref"].lstrip("#/").split("/"):
            node = node[part]
        schema = node
    return schema


def _fill_defaults(instance, schema, root):
    schema = _resolve(schema, root)
    if not isinstance(instance, dict) or not isinstance(schema, dict):
        return
    props = schema.get("properties", {})
    for key, sub in props.items():
        sub = _resolve(sub, root)
        if key not in instance and "default" in sub:
            instance[key] = copy.deepcopy(sub["default"])
        if key in instance:
            _fill_defaults(instance[key], sub, root)
    extra = schema.get("additionalProperties")
    if isinstance(extra, dict):
        for key, value in instance.items():
            if key not in props:
                _fill_defaults(value, extra, root)


def _cross_checks(config: Mapping) -> list[str]:
    problems = []
    edge = config.get("paper_a_edge", {})
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
    for section in ("paper_a_edge", "paper_a_individual"):
        study = config.get(section, {})
        defined = sorted(study.get("experiments", {}))
        for name, fig in study.get("figures", {}).items():
            for exp in fig.get("experiments", []):
                if exp not in defined:
                    problems.append(
                        f"{section}.figures.{name}.experiments: {exp!r} is not defined under "
                        f"{section}.experiments (defined: {defined})"
                    )
    if section := config.get("intervals"):
        from .studies.intervals import check_section as check_intervals

        problems.extend(check_intervals(section))
    if scale := config.get("beyond_scale"):
        from .studies.beyond_scale import check_section

        problems.extend(check_section(scale))
    if sens := config.get("sensitivity"):
        from .studies.paper_b2.sensitivity import check_section as check_sensitivity

        problems.extend(check_sensitivity(sens, config.get("paper_b2") or {}))
    bench = config.get("benchmark") or {}
    if bench:
        from .methods import all_methods

        known = [m.name for m in all_methods()]
        for name in bench.get("methods") or []:
            if name not in known:
                problems.append(
                    f"benchmark.methods: {name!r} is not a registered method "
                    f"(registered: {', '.join(known)})"
                )
        for name in bench.get("plugins") or {}:
            if name in known:
                problems.append(
                    f"benchmark.plugins.{name}: the name is taken by a registered method"
                )
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
    R = max(int(replicates), 1)
    f8 = 8
    if section == "paper_a_edge":
        n2 = int(cell["n"]) ** 2
        return R * n2 + _WORK_ARRAYS * f8 * n2
    if section == "paper_a_individual":
        n2 = int(cell["n"]) ** 2
        return R * n2 * f8 * (1 + _WORK_ARRAYS)
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


def _memory_cells(config: Mapping) -> Iterator[tuple[str, str, dict, int]]:
    """(section, experiment, cell sizes, replicates per job) of the largest jobs."""
    top_chunk = int(config.get("chunk_size", 1))
    for section in ("paper_a_edge", "paper_a_individual"):
        for name, exp in config.get(section, {}).get("experiments", {}).items():
            reps = min(int(exp.get("chunk_size") or top_chunk), int(exp.get("reps", 1)))
            for n in sorted(set(exp.get("n", []))):
                yield section, name, {"n": n}, reps
    for section in ("paper_b1", "paper_b2"):
        for name, exp in (config.get(section) or {}).get("experiments", {}).items():
            grid, draws = exp.get("grid", {}), exp.get("draws") or {}
            ms = grid.get("m") or draws.get("m") or []
            Ls = grid.get("L") or draws.get("L") or []
            kind = exp.get("kind", "adrr")
            for m, L in itertools.product(sorted(set(ms)), sorted(set(Ls))):
                yield section, name, {"m": m, "L": L, "kind": kind}, 1


def _memory_checks(config: Mapping, machine: int | None) -> list[str]:
    limit_gb = config.get("memory_limit_gb")
    if limit_gb is not None:
        limit, source = float(limit_gb) * 1e9, f"memory_limit_gb = {limit_gb}"
    elif machine is not None:
        limit, source = float(machine), f"this machine's memory, {machine / 1e9:.3g} GB"
    else:
        return []
    problems = []
    for section, name, cell, reps in _memory_cells(config):
        need = estimate_cell_memory(section, cell, reps)
        if need > limit:
            sizes = ", ".join(f"{k} = {v}" for k, v in cell.items() if k != "kind")
            problems.append(
                f"{section}.experiments.{name}: the cell with {sizes} needs about "
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
    config: dict, schema: dict | str | Path, check_environment: bool = True
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

    Raises
    ------
    ConfigError
        Listing every violation, each with its key path and the fix.
    """
    if not isinstance(schema, dict):
        schema = load_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    errors = sorted(validator.iter_errors(config), key=lambda e: list(map(str, e.absolute_path)))
    messages = [_explain(e) for e in errors]
    if not messages:
        _fill_defaults(config, schema, schema)
        messages = _cross_checks(config)
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
