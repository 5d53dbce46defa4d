"""Paper B (later version, B2): the simulation studies (Figures 3-13, Tables 3-11).

An *experiment* of the config section ``paper_b2`` (or ``paper_b1``: B1's
simulations are the same designs with one budget for all users) is a grid of cells (keys
among ``model``, ``scheme``, ``delta``, ``p``, ``m``, ``L``), each with its own
replicates, split into chunks; its ``kind`` says what a replicate is:

* ``adrr`` (default): ADRR on simulated releases, Scenarios I-IV
  (:mod:`.scenarios`);
* ``hessian``: the same releases, the smallest non-zero Hessian eigenvalue at
  ``theta*`` instead of a fit (Figure 3);
* ``scenario5``: random sizes and budgets, ADRR against the baselines
  (:mod:`.scenario5`);
* ``mixed_effects`` and ``model_selection``: supplement S.1.2 and S.1.3
  (:mod:`.extensions`);
* ``timing``: Figure 10 (:mod:`.timing`), run by its own rule.

Two stages per job: ``simulate`` (the releases, or raw data for the
non-private studies) and ``estimate`` (tidy per-replicate metric rows). A job
covers one *block* of cells (those sharing the experiment's ``job_keys``;
every cell its own block without them) and one chunk of replicates. Seeds are
keyed by cell and replicate, so neither the blocks nor the chunks change a
number; they only trade the per-job start-up cost against parallelism.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence

import numpy as np

from dprank.base import checks as _checks

from ...grid import cell_name, chunk_replicates, experiment_chunks
from . import extensions, scenario5, scenarios, timing
from ._frames import Frame, concat
from .scenarios import METRICS, scheme_epsilon, true_scores, user_budgets

__all__ = [
    "KINDS",
    "METRICS",
    "blocks",
    "cell_names",
    "cell_params",
    "cells",
    "chunk_count",
    "estimate_block",
    "estimate_chunk",
    "kind",
    "scheme_epsilon",
    "simulate_block",
    "simulate_chunk",
    "stage_kwargs",
    "timing",
    "true_scores",
    "user_budgets",
]

KINDS = ("adrr", "hessian", "scenario5", "mixed_effects", "model_selection", "timing")
_GRID_KEYS = ("model", "eps", "scheme", "delta", "p", "m", "L")
_TYPES = {
    "model": str,
    "eps": float,
    "scheme": int,
    "delta": float,
    "p": float,
    "m": int,
    "L": int,
}


def kind(exp: Mapping) -> str:
    """The experiment's kind (default ``adrr``)."""
    return str(exp.get("kind", "adrr"))


def cells(exp: Mapping) -> list[dict]:
    """Parameter dicts of the experiment's cells: the product of its grid."""
    keys = [k for k in _GRID_KEYS if k in exp["grid"]]
    values = [[_TYPES[k](v) for v in exp["grid"][k]] for k in keys]
    return [dict(zip(keys, combo, strict=True)) for combo in itertools.product(*values)]


def blocks(exp: Mapping) -> dict[str, list[dict]]:
    """Job label -> the cells of that job, in grid order.

    Cells sharing their values of the experiment's ``job_keys`` form one job,
    labelled by those values (e.g. ``modeltm_scheme2``; ``all`` for
    ``job_keys: []``); without ``job_keys`` every cell is its own job
    (e.g. ``modelbtl_m10_L100``).
    """
    keys = [k for k in _GRID_KEYS if k in exp["grid"]]
    if exp.get("job_keys") is not None:
        keys = [k for k in keys if k in exp["job_keys"]]
    out: dict[str, list[dict]] = {}
    for c in cells(exp):
        out.setdefault(cell_name(c, keys) or "all", []).append(c)
    return out


def cell_names(exp: Mapping) -> list[str]:
    """Labels of the experiment's jobs (per chunk): its blocks of cells."""
    return list(blocks(exp))


def cell_params(exp: Mapping, name: str) -> list[dict]:
    """The cells of the block labelled ``name``."""
    found = blocks(exp)
    if name not in found:
        raise KeyError(f"no block {name!r} in this experiment; blocks: {list(found)}")
    return found[name]


def _prefix(i: int) -> str:
    return f"c{i}__"


def _check_cells(cells) -> None:
    if isinstance(cells, (str, bytes, Mapping)) or not isinstance(cells, Sequence):
        raise TypeError(f"cells must be a sequence of cells (dicts), got {cells!r}")
    for cell in cells:
        if not isinstance(cell, Mapping):
            raise TypeError(f"cells must hold cells (dicts), got {cell!r}")


def simulate_block(cells: Sequence[Mapping], **kwargs) -> dict[str, np.ndarray]:
    """:func:`simulate_chunk` for every cell of a block; array names prefixed ``c<i>__``."""
    _check_cells(cells)
    out = {}
    for i, cell in enumerate(cells):
        for name, arr in simulate_chunk(cell=cell, **kwargs).items():
            out[_prefix(i) + name] = arr
    return out


def estimate_block(data: Mapping[str, np.ndarray], cells: Sequence[Mapping], **kwargs):
    """:func:`estimate_chunk` for every cell of a block (one frame)."""
    _checks.mapping(data, "data")
    _check_cells(cells)

    frames = []
    for i, cell in enumerate(cells):
        pre = _prefix(i)
        part = {k.removeprefix(pre): v for k, v in data.items() if k.startswith(pre)}
        frames.append(estimate_chunk(part, cell, **kwargs))
    return concat(frames)


def simulate_chunk(
    seed: int,
    experiment: str,
    cell: Mapping,
    p: float,
    eps: Mapping,
    replicates: Sequence[int],
    kind: str = "adrr",
    **options,
) -> dict[str, np.ndarray]:
    """The simulate stage of one chunk: arrays to store (see the kind's module).

    The arguments but ``kind`` and the ``options`` make the chunk (:class:`.scenarios.Chunk`).
    """
    chunk = scenarios.Chunk(seed, experiment, cell, p, replicates, eps)
    theta = options.get("theta", "uniform")
    if kind in ("adrr", "hessian"):
        return scenarios.simulate_chunk(chunk, theta)
    if kind == "scenario5":
        return scenario5.simulate_chunk(chunk, options.get("draws"), theta)
    if kind == "mixed_effects":
        return extensions.simulate_mixed_chunk(chunk, float(options["sigma"]))
    if kind == "model_selection":
        return extensions.simulate_selection_chunk(chunk)
    raise ValueError(f"experiment kind {kind!r} has no simulate stage; kinds: {KINDS}")


def estimate_chunk(
    data: Mapping[str, np.ndarray],
    cell: Mapping,
    lambda_c: float,
    gtol: float,
    max_iter: int,
    metrics: Sequence[str] = ("l2_over_sqrt_m", "linf"),
    kind: str = "adrr",
    **options,
) -> Frame:
    """The estimate stage of one chunk: tidy ``(cell, replicate, method, metric, value)`` rows.

    ``lambda_c``, ``gtol`` and ``max_iter`` (the config's) make the kind's
    :class:`.scenarios.FitSettings`.
    """
    settings = scenarios.FitSettings(lambda_c, gtol, max_iter)
    if kind == "adrr":
        return scenarios.estimate_chunk(data, cell, settings, metrics)
    if kind == "hessian":
        return scenarios.hessian_chunk(data, cell)
    if kind == "scenario5":
        return scenario5.estimate_chunk(
            data,
            cell,
            options["seed"],
            options["experiment"],
            settings,
            metrics,
            options.get("methods", scenario5.METHODS),
            float(options.get("noisy_obj_delta", 1e-6)),
        )
    if kind == "mixed_effects":
        return extensions.estimate_mixed_chunk(
            data,
            cell,
            float(options["sigma"]),
            float(options["lam"]),
            float(options["ridge"]),
            gtol,
            max_iter,
            metrics,
        )
    if kind == "model_selection":
        return extensions.estimate_selection_chunk(data, cell, settings)
    raise ValueError(f"experiment kind {kind!r} has no estimate stage; kinds: {KINDS}")


def chunk_count(section: Mapping, experiment: str, chunk_size: int) -> int:
    """Number of replicate chunks of every cell of ``experiment``.

    ``section`` is the study's config section (``paper_b2``, or another Paper B
    section of the same form), ``chunk_size`` the workflow's default replicates
    per job.
    """
    return len(experiment_chunks(chunk_size, section["experiments"][experiment]))


#: experiment keys passed through to the stage functions as options, per kind
_OPTIONS = {
    "adrr": ("theta",),
    "hessian": ("theta",),
    "scenario5": ("draws", "methods", "noisy_obj_delta", "theta"),
    "mixed_effects": ("sigma", "lam", "ridge"),
    "model_selection": (),
}


def stage_kwargs(
    stage: str,
    section: Mapping,
    experiment: str,
    cell: str | None,
    chunk: int | None = None,
    *,
    seed: int,
    chunk_size: int,
) -> dict | list:
    """Keyword arguments of a stage function for one job (the rule's ``params``).

    ``simulate`` and ``estimate``: of :func:`simulate_block` and
    :func:`estimate_block` for the block ``cell``; ``time``: a list, the
    keyword arguments of :func:`.timing.time_cell` for every cell (``chunk``: the
    fields of its :class:`.scenarios.Chunk`). ``section``
    is the study's config section (``paper_b2``), ``seed`` the workflow's seed
    and ``chunk_size`` its default replicates per job.
    """
    settings = section
    exp = settings["experiments"][experiment]
    k = kind(exp)
    options = {key: exp[key] for key in _OPTIONS.get(k, ()) if key in exp}
    solver = settings["solver"]
    if stage == "simulate":
        return {
            "seed": int(seed),
            "experiment": experiment,
            "cells": cell_params(exp, cell),
            "p": float(exp.get("p", 1.0)),
            "eps": dict(exp.get("eps", {})),
            "replicates": chunk_replicates(chunk_size, exp, chunk),
            "kind": k,
            **options,
        }
    if stage == "estimate":
        if k == "scenario5":
            options.update(seed=int(seed), experiment=experiment)
        return {
            "cells": cell_params(exp, cell),
            "lambda_c": float(settings["lambda_c"]),
            "metrics": list(exp["metrics"]),
            "gtol": float(solver["gtol"]),
            "max_iter": int(solver["max_iter"]),
            "kind": k,
            **options,
        }
    if stage == "time":
        return [
            {
                "chunk": {
                    "seed": int(seed),
                    "experiment": experiment,
                    "cell": c,
                    "p": float(exp["p"]),
                    "eps": dict(exp["eps"]),
                    "replicates": list(range(int(exp["reps"]))),
                },
                "lambda_c": float(settings["lambda_c"]),
                "gtol": float(solver["gtol"]),
                "max_iter": int(solver["max_iter"]),
            }
            for c in cells(exp)
        ]
    raise ValueError(f"unknown stage {stage!r}")
