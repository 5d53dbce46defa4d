"""Reading YAML files: the config schema, the papers' declarations, the data set registry."""

from __future__ import annotations

from pathlib import Path

from . import _checks

__all__ = ["read_yaml"]


def read_yaml(path: str | Path):
    """Read a YAML file with PyYAML's safe loader, libyaml's where PyYAML has it.

    The C loader reads the config schema about 6 times faster than the pure-Python one,
    and every Snakemake start (each cluster job's too) reads it; both build the same data.
    PyYAML is imported here, on first use: a command that reads no YAML (``dprank rank``)
    does not pay for its import.
    """
    import yaml

    _checks.path(path, "path")
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    with open(path) as fh:
        return yaml.load(fh, Loader=loader)
