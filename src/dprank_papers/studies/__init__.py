"""Studies: the experiment families of the papers, one subpackage each.

Each study subpackage provides the stage functions the workflow's generic
rules call (``simulate``, ``privatize``, ``estimate``, ``evaluate`` modules)
and, in its ``__init__``, the grid logic (cells and the epsilons fitted per
cell). Stage modules are separate files so that editing an estimator reruns
estimation and what follows, but not data generation.
"""

import importlib
from collections.abc import Mapping
from types import ModuleType

#: study name (the config section) -> subpackage
STUDIES = {
    "paper_a_edge": "dprank_papers.studies.paper_a_edge",
    "paper_a_individual": "dprank_papers.studies.paper_a_individual",
}

#: workflow stage -> module name inside a study subpackage
STAGES = ("simulate", "privatize", "estimate", "evaluate")


def study_module(study: str, stage: str | None = None) -> ModuleType:
    """Import a study's package, or one of its stage modules."""
    if study not in STUDIES:
        raise ValueError(f"unknown study {study!r}; known: {sorted(STUDIES)}")
    if stage is None:
        return importlib.import_module(STUDIES[study])
    if stage not in STAGES:
        raise ValueError(f"unknown stage {stage!r}; known: {STAGES}")
    return importlib.import_module(f"{STUDIES[study]}.{stage}")


def block_kwargs(
    study: str, stage: str, section: Mapping, experiment: str, block: str, *job, **keys
) -> dict:
    """The params of one job: ``{"cells": [stage kwargs of each cell of the block]}``.

    Each entry is exactly the study's ``stage_kwargs(stage, section, experiment, cell,
    *job, **keys)`` for one cell (seeds keyed by cell and replicate), so a block job
    computes what the cells' own jobs would; the job runs the stage function once per
    cell. ``job`` and ``keys`` are the rest of ``stage_kwargs``'s arguments
    (:meth:`dprank_papers.grid.StudyStages.stage_kwargs`: ``chunk``, ``protocol`` and the
    keywords ``seed``, the workflow's seed, and ``chunk_size``, its default replicates per
    job; the workflow glue reads them from the config). ``section`` is the study's config
    section.
    """
    module = study_module(study)
    found = module.blocks(section["experiments"][experiment])
    if block not in found:
        raise KeyError(f"no block {block!r} in {study}.{experiment}; blocks: {list(found)}")
    cells = [
        module.stage_kwargs(stage, section, experiment, name, *job, **keys) for name in found[block]
    ]
    return {"cells": cells}


def cell_prefix(i: int) -> str:
    """Prefix of the arrays of the ``i``-th cell of a block in a job's ``.npz`` file."""
    return f"c{i}__"


def with_prefix(i: int, arrays: Mapping) -> dict:
    """``arrays`` with names prefixed by :func:`cell_prefix` (one cell's share of a block file)."""
    pre = cell_prefix(i)
    return {pre + name: value for name, value in arrays.items()}


def cell_arrays(arrays: Mapping, i: int) -> dict:
    """The arrays of the ``i``-th cell of a block file, prefix removed."""
    pre = cell_prefix(i)
    return {k.removeprefix(pre): v for k, v in arrays.items() if k.startswith(pre)}
