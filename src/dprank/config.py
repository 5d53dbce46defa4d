"""Validation of the workflow configuration against its JSON schema.

The workflow calls :func:`validate_config` when the Snakefile is parsed, so a
bad config stops the run before any job starts, with a message naming every
offending key and what it must look like.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from pathlib import Path

import jsonschema
import yaml

__all__ = ["ConfigError", "load_schema", "validate_config"]


class ConfigError(ValueError):
    """The configuration does not satisfy the schema or a cross-key rule."""


def load_schema(path: str | Path) -> dict:
    """Read a YAML JSON-schema file."""
    with open(path) as fh:
        return yaml.safe_load(fh)


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
    return problems


def validate_config(config: dict, schema: dict | str | Path) -> dict:
    """Validate ``config`` in place (filling schema defaults) and return it.

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
    if messages:
        lines = "\n".join(f"  - {m}" for m in messages)
        raise ConfigError(
            f"invalid configuration ({len(messages)} problem{'s' if len(messages) > 1 else ''}):\n"
            f"{lines}\nEvery key is described in workflow/schemas/config.schema.yaml "
            "and commented in config.yaml."
        )
    return config
