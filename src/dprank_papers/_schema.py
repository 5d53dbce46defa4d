"""The JSON schema of the configuration and of the papers' declarations: the validator
(numbers finite unless ``allowInfinite``), the messages that name a key, the defaults.

Private to :mod:`dprank_papers` (:mod:`dprank_papers.config` and
:mod:`dprank_papers._papers` read it; neither imports the other for it).
"""

from __future__ import annotations

import copy
import math
from pathlib import Path

import jsonschema

from dprank.base import checks as _checks
from dprank.base.yamlfile import read_yaml

#: Schema keyword of a number that may be infinite (``.inf``); numbers are finite otherwise.
ALLOW_INFINITE = "allowInfinite"


class ConfigError(ValueError):
    """The configuration does not satisfy the schema or a cross-key rule."""


def load_schema(path: str | Path) -> dict:
    """Read a YAML JSON-schema file."""
    _checks.path(path, "path")
    return read_yaml(path)


_TYPE = jsonschema.Draft202012Validator.VALIDATORS["type"]


def _finite_type(validator, types, instance, schema):
    """The ``type`` keyword, with numbers finite unless the schema says ``allowInfinite``."""
    if (
        isinstance(instance, float)
        and math.isinf(instance)
        and not schema.get(ALLOW_INFINITE, False)
        and "number" in ([types] if isinstance(types, str) else types)
    ):
        yield jsonschema.ValidationError(
            f"must be a finite number, got {instance!r} (.inf is allowed only for privacy "
            "levels where it means non-private)"
        )
        return
    yield from _TYPE(validator, types, instance, schema)


#: Draft 2020-12 with finite numbers (``allowInfinite: true`` lets ``.inf`` through).
Validator = jsonschema.validators.extend(jsonschema.Draft202012Validator, {"type": _finite_type})


def key_path(path) -> str:
    parts = []
    for p in path:
        parts.append(f"[{p}]" if isinstance(p, int) else (f".{p}" if parts else str(p)))
    return "".join(parts) or "<top level>"


def error_key(error: jsonschema.ValidationError) -> str:
    return key_path(error.absolute_path)


def explain(error: jsonschema.ValidationError) -> str:
    where = error_key(error)
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


def fill_defaults(instance, schema, root):
    schema = _resolve(schema, root)
    if not isinstance(instance, dict) or not isinstance(schema, dict):
        return
    props = schema.get("properties", {})
    for key, sub in props.items():
        sub = _resolve(sub, root)
        if key not in instance and "default" in sub:
            instance[key] = copy.deepcopy(sub["default"])
        if key in instance:
            fill_defaults(instance[key], sub, root)
    extra = schema.get("additionalProperties")
    if isinstance(extra, dict):
        for key, value in instance.items():
            if key not in props:
                fill_defaults(value, extra, root)
