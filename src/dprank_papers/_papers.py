"""The papers' declared items: what each paper shows, read from ``workflow/papers/*.yaml``.

Workflow glue (private: the Snakefile reads it).

Each file declares one paper's figures (``fig<N>``) and tables (``table<N>``): the study
(config section) whose experiments an item shows, its chart or table settings, its caption
(the one place captions live) and the published numbers it is compared with. The workflow
(``workflow/rules/items.smk``) generates every item's target rule ``<paper>_<item>`` from
them. :func:`load_papers` reads and checks them before any job starts; the config's
``items:`` section may override an item's settings key by key (the smoke configuration
plots fewer x values).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from pathlib import Path

from dprank.base import checks as _checks
from dprank.base.yamlfile import read_yaml

from ._schema import ConfigError, Validator, error_key, explain, fill_defaults, load_schema

__all__ = ["META_KEYS", "item_settings", "load_papers", "study_items"]

#: Keys of an item that say where it comes from and how it is shown, not how it is drawn:
#: :func:`item_settings` leaves them out of the settings a plotting or table job receives.
META_KEYS = ("study", "caption", "comparison", "single", "made_by")

#: Keys every Paper A panel needs, its own or given beside ``panels:`` for all (the panel
#: keys are those of ``a_panel_keys`` in the schema; dprank_papers.plotting.paper_a draws them).
A_PANEL_REQUIRED = ("metric", "methods", "x", "series", "ylabel")


def load_papers(folder: str | Path, schema: str | Path, config: Mapping) -> dict[str, dict]:
    """Every paper declared in ``folder`` (``<paper>.yaml``), checked and completed.

    Parameters
    ----------
    folder : str or Path
        The declarations folder (``workflow/papers``).
    schema : str or Path
        Their JSON schema (``workflow/schemas/papers.schema.yaml``).
    config : Mapping
        The workflow config (read before :func:`dprank_papers.config.validate_config`, which takes
        the result): its ``items`` section overrides declared settings (paper -> item ->
        keys), and every item's study and experiments must be defined there.

    Returns
    -------
    dict
        paper -> its declaration, with each item's ``study`` set (the paper's default where
        the item names none) and the schema's defaults filled in.

    Raises
    ------
    ConfigError
        Naming the file and key of every problem (schema, unknown override, an undefined study
        or experiment).
    """
    _checks.path(folder, "folder")
    _checks.mapping(config, "config")
    root = load_schema(schema)
    validator = Validator(root)
    overrides = config.get("items") if isinstance(config.get("items"), Mapping) else {}
    papers, problems = {}, []
    files = sorted(Path(folder).glob("*.yaml"))
    for path in files:
        paper = path.stem
        decl = read_yaml(path) or {}
        where = f"{Path(folder).name}/{path.name}"
        if not isinstance(decl, dict) or not isinstance(decl.get("items"), dict):
            problems.append(f"{where}: must be a mapping with `items:` (fig<N>, table<N>)")
            continue
        for name, keys in (overrides.get(paper) or {}).items():
            if name not in decl["items"] or not isinstance(keys, Mapping):
                problems.append(f"items.{paper}.{name}: no such item in {where}")
            else:
                decl["items"][name] = {**decl["items"][name], **copy.deepcopy(keys)}
        errors = sorted(validator.iter_errors(decl), key=lambda e: error_key(e))
        if errors:
            problems += [f"{where}: {explain(e)}" for e in errors]
            continue
        fill_defaults(decl, root, root)
        for name, item in decl["items"].items():
            item.setdefault("study", decl.get("study"))
            if item.get("made_by") is None:
                fill_defaults(item, _item_schema(root, decl["kind"], name), root)
        if decl["kind"] == "paper_a" and paper != "paper_a":
            problems.append(
                f"{where}: kind: paper_a is Paper A's own (its rules write figures/paper_a/); "
                "a new paper reuses the paper_b rules"
            )
        problems += _cross_checks(where, decl, config)
        if decl["kind"] == "paper_a":
            problems += _panel_checks(where, decl)
        papers[paper] = decl
    for paper in overrides:
        if paper not in papers and not any(p.stem == paper for p in files):
            problems.append(f"items.{paper}: no paper {paper!r} in {Path(folder).name}/")
    if problems:
        raise ConfigError("invalid paper declarations:\n" + "\n".join(f"  - {p}" for p in problems))
    return papers


def _item_schema(root: Mapping, kind: str, name: str) -> Mapping:
    if kind == "paper_a":
        return root["$defs"]["a_figure"]
    return root["$defs"]["b_table" if name.startswith("table") else "b_figure"]


def _cross_checks(where: str, decl: Mapping, config: Mapping) -> list[str]:
    """Every item's study is a config section and its experiments are defined there."""
    problems = []
    for name, item in decl["items"].items():
        study = item["study"]
        section = config.get(study)
        if not isinstance(section, Mapping):
            problems.append(f"{where}: items.{name}.study: no config section {study!r}")
            continue
        if item.get("made_by"):
            continue
        defined = sorted(
            {
                *(section.get("experiments") or {}),
                *(section.get("datasets") or {}),
                *(["car"] if "car" in section else []),
                *(["movielens"] if "movielens" in section else []),
            }
        )
        named = item.get("experiments", item.get("experiment", []))
        named = [named] if isinstance(named, str) else list(named)
        named += [p["experiment"] for p in item.get("panels", []) if "experiment" in p]
        key = "experiments" if "experiments" in item else "experiment"
        for exp in named:
            if exp not in defined:
                problems.append(
                    f"{where}: items.{name}.{key}: {exp!r} is not defined under "
                    f"{study}.experiments (defined: {defined})"
                )
        for table in item.get("published", []) if name.startswith("fig") else []:
            if table not in decl["items"]:
                problems.append(f"{where}: items.{name}.published: no item {table!r}")
    return problems


def _panel_checks(where: str, decl: Mapping) -> list[str]:
    """Every Paper A panel has the keys it needs (its own or the figure's) and plots one of
    its figure's experiments."""
    problems = []
    for name, item in decl["items"].items():
        for i, panel in enumerate(item["panels"]):
            missing = [k for k in A_PANEL_REQUIRED if k not in panel and k not in item]
            if missing:
                problems.append(
                    f"{where}: items.{name}.panels[{i}]: lacks {missing} (give them in the "
                    f"panel or beside `panels:` for every panel)"
                )
            if panel.get("experiment", item["experiments"][0]) not in item["experiments"]:
                problems.append(
                    f"{where}: items.{name}.panels[{i}].experiment: {panel['experiment']!r} is "
                    f"not one of the figure's experiments {item['experiments']}"
                )
    return problems


def item_settings(item: Mapping) -> dict:
    """The settings a plotting or table job receives: the item without :data:`META_KEYS`."""
    _checks.mapping(item, "item")
    return {k: v for k, v in item.items() if k not in META_KEYS}


def study_items(papers: Mapping, paper: str, study: str, kind: str) -> dict[str, dict]:
    """The settings of every ``kind`` item (``"fig"`` or ``"table"``) of ``paper`` that shows
    ``study`` (tables made by a special rule left out).

    The view the comparison of B2's tables, :mod:`dprank_papers.docs_includes` and the sensitivity
    study read (item -> settings, in declaration order; tables with their caption).
    """
    _checks.mapping(papers, "papers")
    return {
        name: item_settings(item) | ({"caption": item["caption"]} if kind == "table" else {})
        for name, item in papers[paper]["items"].items()
        if item["study"] == study and name.startswith(kind) and not item.get("made_by")
    }
