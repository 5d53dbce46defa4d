"""Paper A, edge DP simulations (Experiments 1-4, Figures 1-4).

An experiment (a ``paper_a_edge.experiments`` entry of the config) is a grid
over the number of items ``n``, the edge probability ``p`` and the privacy
levels ``epsilon``. Its *cells* are the ``(n, p)`` points (also ``epsilon`` when
``data_per_epsilon``, as in the authors' Experiment 4, which simulated every
grid row separately). Every replicate of a cell is one Erdos-Renyi data set on
which all methods and all of the cell's epsilons are fitted.

Protocols (docs/papers/paper-a.md#s0):

``paper``
    Algorithms 1 and 2 as the paper states them: fresh Laplace noise for every
    fit, ridge ``gamma = max(c0 sqrt(n p log n), 4 kappa2 / eps)`` (Propositions
    2.1-2.2), ties of noise-free counts broken at random.
``authors``
    The authors' R code: one fixed perturbation vector from
    ``set.seed(13); runif(n)`` in every replicate (only rescaled by ``8/eps``),
    ``gamma = c0 sqrt(n p log n)`` also at ``eps = inf``, ties to the lower
    index (R's stable ``order``).

Both protocols use the same data and the same counting and one-shot noise
draws, so their differences come from the mechanisms alone.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping

from dprank.base import checks as _checks
from dprank.objective import edge_ridge

from ...grid import GRID_STUDY_FUNCTIONS, CellGrid, StageJob, StudyStages, section_chunk_count

__all__ = ["METHODS", "PROTOCOLS", *GRID_STUDY_FUNCTIONS, "edge_gamma", "fit_epsilons"]

METHODS = ("edge_mle", "edge_counts", "edge_one_shot")
PROTOCOLS = ("paper", "authors")


def _cell_keys(exp: Mapping) -> tuple[str, ...]:
    return ("n", "p", "eps") if exp.get("data_per_epsilon", False) else ("n", "p")


def cells(exp: Mapping) -> list[dict]:
    """Parameter dicts of the experiment's cells, in grid order."""
    out = []
    if exp.get("data_per_epsilon", False):
        for n, p, eps in itertools.product(exp["n"], exp["p"], exp["epsilon"]):
            out.append({"n": int(n), "p": float(p), "eps": float(eps)})
    else:
        for n, p in itertools.product(exp["n"], exp["p"]):
            out.append({"n": int(n), "p": float(p)})
    return out


#: the grid's functions (:meth:`dprank_papers.grid.CellGrid.functions`)
cell_names, blocks, block_names, cell_params = CellGrid(cells, _cell_keys).functions()
chunk_count = section_chunk_count


def fit_epsilons(exp: Mapping, cell: Mapping) -> list[float]:
    """The privacy levels fitted on a cell's data sets."""
    if "eps" in cell:
        return [float(cell["eps"])]
    return [float(e) for e in exp["epsilon"]]


def edge_gamma(n: int, p: float, eps: float, protocol: str, c0: float, kappa2: float) -> float:
    """Ridge coefficient of Algorithm 1 under edge DP.

    ``c0 sqrt(n p log n)`` (:func:`dprank.objective.edge_ridge`) is the rate-optimal
    choice of Proposition 2.2 (the authors use ``c0 = 2``, also at ``eps = inf``). The
    ``paper`` protocol also enforces Proposition 2.1's privacy condition
    ``gamma >= 4 kappa2 / eps``; with the code's ``kappa2 = 1/4`` it never binds on the
    papers' grids (see docs/papers/paper-a.md#a11, on whether 1/4 is the right ``kappa2``).
    """
    _checks.count(n, "n", 2)
    _checks.probability(p, "p", low_open=True)
    _checks.positive(eps, "eps")
    if protocol not in ("paper", "authors"):
        raise ValueError(f"protocol must be 'paper' or 'authors', got {protocol!r}")
    _checks.positive_finite(c0, "c0")
    _checks.positive_finite(kappa2, "kappa2")
    base = edge_ridge(n, p, c0)
    if protocol == "authors" or math.isinf(eps):
        return base
    return max(base, 4.0 * kappa2 / eps)


def _simulate(job: StageJob) -> dict:
    return {**job.seeded(), "theta_per": list(job.exp["theta_per"]), "replicates": job.replicates}


def _methods(job: StageJob) -> dict:
    """``protocol, methods``: what the stages after the data run."""
    return {"protocol": job.protocol, "methods": list(job.exp["methods"])}


def _privatize(job: StageJob) -> dict:
    constants = job.constants
    return {
        **job.seeded(),
        "epsilons": fit_epsilons(job.exp, job.cell),
        "replicates": job.replicates,
        **_methods(job),
        "kappa1": float(constants["kappa1"]),
        "r_seed": int(constants["r_seed"]),
    }


def _estimate(job: StageJob) -> dict:
    constants = job.constants
    ridge = {"c0": float(constants["c0"]), "kappa2": float(constants["kappa2"])}
    return {"cell": job.cell, **_methods(job), **ridge, "solver": job.newton()}


def _evaluate(job: StageJob) -> dict:
    return {"cell": job.cell}


#: Keyword arguments of a stage function for one job (the rule's ``params``;
#: :meth:`dprank_papers.grid.StudyStages.stage_kwargs`)
stage_kwargs = StudyStages(cell_params, _simulate, _privatize, _estimate, _evaluate).stage_kwargs
