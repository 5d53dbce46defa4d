"""Studies: the experiment families of the papers, one subpackage each.

Each study subpackage provides the stage functions the workflow's generic
rules call (``simulate``, ``privatize``, ``estimate``, ``evaluate`` modules)
and, in its ``__init__``, the grid logic (cells and the epsilons fitted per
cell). Stage modules are separate files so that editing an estimator reruns
estimation and what follows, but not data generation.
"""

import importlib
from types import ModuleType

#: study name (the config section) -> subpackage
STUDIES = {
    "paper_a_edge": "dprank.studies.paper_a_edge",
    "paper_a_individual": "dprank.studies.paper_a_individual",
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
