"""Paper A, individual DP simulations (Experiments 5-7, Figures 5-7).

An experiment (a ``paper_a_individual.experiments`` entry of the config) is a
grid over the number of items ``n``, the number of users ``m`` and the privacy
level ``epsilon``. Every grid point is a *cell* with its own data, as in the
authors' code, which redrew everything (theta, noise, data) for every
repetition of every cell (docs/papers/paper-a.md#s2-1). Each user compares
``L`` pairs drawn uniformly with replacement.

Protocols (docs/papers/paper-a.md#s0 and #s2-7):

``paper``
    The algorithms as stated: errors measured against the centred truth,
    top-k = the ``k`` largest scores, ties among noise-free counts at random.
``authors``
    The authors' code: uncentred truth (the estimate is centred, so log
    relative l2 cannot fall below about -0.22), and "top-k" = the last ``k``
    entries of ``numpy.argpartition(x, k)`` with numpy's generic introselect
    (:mod:`dprank_papers.introselect`), which misses part of the true top-k; noisy
    counts ranked by a stable argsort.

Both protocols share the data and the noise draws (fresh for every
replicate: the individual-DP code has no fixed noise vector), so their
differences come from the evaluation rules alone.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping

from ...grid import GRID_STUDY_FUNCTIONS, CellGrid, StageJob, StudyStages, section_chunk_count

__all__ = ["METHODS", "PROTOCOLS", *GRID_STUDY_FUNCTIONS]

METHODS = ("individual_mle", "individual_counts_as_published")
PROTOCOLS = ("paper", "authors")
_KEYS = ("n", "m", "eps")


def cells(exp: Mapping) -> list[dict]:
    """Parameter dicts of the experiment's cells, in grid order."""
    return [
        {"n": int(n), "m": int(m), "eps": float(eps)}
        for n, m, eps in itertools.product(exp["n"], exp["m"], exp["epsilon"])
    ]


def _keys(exp: Mapping) -> tuple[str, ...]:
    return _KEYS


#: the grid's functions (:meth:`dprank_papers.grid.CellGrid.functions`)
cell_names, blocks, block_names, cell_params = CellGrid(cells, _keys).functions()
chunk_count = section_chunk_count


def _simulate(job: StageJob) -> dict:
    return {**job.seeded(), "L": int(job.constants["L"]), "replicates": job.replicates}


def _privatize(job: StageJob) -> dict:
    return {
        **job.seeded(),
        "L": int(job.constants["L"]),
        "kappa1": float(job.constants["kappa1"]),
        "replicates": job.replicates,
        "protocol": job.protocol,
    }


def _estimate(job: StageJob) -> dict:
    return {
        "cell": job.cell,
        "protocol": job.protocol,
        "L": int(job.constants["L"]),
        "kappa2": float(job.constants["kappa2"]),
        "solver": job.newton(),
    }


def _evaluate(job: StageJob) -> dict:
    return {"cell": job.cell, "protocol": job.protocol}


#: Keyword arguments of a stage function for one job (the rule's ``params``;
#: :meth:`dprank_papers.grid.StudyStages.stage_kwargs`)
stage_kwargs = StudyStages(cell_params, _simulate, _privatize, _estimate, _evaluate).stage_kwargs
