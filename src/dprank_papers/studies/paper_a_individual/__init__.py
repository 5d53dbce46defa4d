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

from ...grid import cell_blocks, cell_name, chunk_replicates, experiment_chunks, find_cell

__all__ = [
    "METHODS",
    "PROTOCOLS",
    "block_names",
    "blocks",
    "cell_names",
    "cell_params",
    "cells",
    "chunk_count",
    "stage_kwargs",
]

METHODS = ("individual_mle", "individual_counts_as_published")
PROTOCOLS = ("paper", "authors")
_KEYS = ("n", "m", "eps")


def cells(exp: Mapping) -> list[dict]:
    """Parameter dicts of the experiment's cells, in grid order."""
    return [
        {"n": int(n), "m": int(m), "eps": float(eps)}
        for n, m, eps in itertools.product(exp["n"], exp["m"], exp["epsilon"])
    ]


def cell_names(exp: Mapping) -> list[str]:
    """File-name labels of the cells, e.g. ``n16_m1000_eps0.5``."""
    return [cell_name(c, _KEYS) for c in cells(exp)]


def blocks(exp: Mapping) -> dict[str, list[str]]:
    """Job label -> the names of its cells (cells sharing the values of ``job_keys``)."""
    return cell_blocks(cell_names(exp), cells(exp), _KEYS, exp.get("job_keys"))


def block_names(exp: Mapping) -> list[str]:
    """Labels of the experiment's jobs (per chunk and stage): its blocks of cells."""
    return list(blocks(exp))


def cell_params(exp: Mapping, name: str) -> dict:
    """The parameters of the cell labelled ``name``."""
    return find_cell(cells(exp), cell_names(exp), name)


def chunk_count(section: Mapping, experiment: str, chunk_size: int) -> int:
    """Number of replicate chunks of every cell of ``experiment``.

    ``section`` is the study's config section (``paper_a_individual``), ``chunk_size``
    the workflow's default replicates per job.
    """
    return len(experiment_chunks(chunk_size, section["experiments"][experiment]))


def stage_kwargs(
    stage: str,
    section: Mapping,
    experiment: str,
    cell: str,
    chunk: int | None = None,
    protocol: str | None = None,
    *,
    seed: int,
    chunk_size: int,
) -> dict:
    """Keyword arguments of a stage function for one job (the rule's ``params``).

    ``section`` is the study's config section (``paper_a_individual``), ``seed`` the
    workflow's seed and ``chunk_size`` its default replicates per job.
    """
    exp = section["experiments"][experiment]
    params = cell_params(exp, cell)
    constants, solver = section["constants"], section["solver"]
    replicates = chunk_replicates(chunk_size, exp, chunk)
    L = int(constants["L"])
    if stage == "simulate":
        return {
            "seed": int(seed),
            "experiment": experiment,
            "cell": params,
            "L": L,
            "replicates": replicates,
        }
    if stage == "privatize":
        return {
            "seed": int(seed),
            "experiment": experiment,
            "cell": params,
            "L": L,
            "kappa1": float(constants["kappa1"]),
            "replicates": replicates,
            "protocol": protocol,
        }
    if stage == "estimate":
        return {
            "cell": params,
            "protocol": protocol,
            "L": L,
            "kappa2": float(constants["kappa2"]),
            "xtol": float(solver["xtol"]),
            "max_iter": int(solver["max_iter"]),
        }
    if stage == "evaluate":
        return {"cell": params, "protocol": protocol}
    raise ValueError(f"unknown stage {stage!r}")
