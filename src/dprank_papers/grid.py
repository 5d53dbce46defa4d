"""Experiment grids: cell names, cell parameters and replicate chunks.

A *cell* is one point of an experiment grid that gets its own data (for
example ``n=300, p=0.25``); a *chunk* is a contiguous range of its replicates,
the unit of work of one job (whose stage function's keyword arguments a study
builds with :class:`StudyStages`). Names are built from parameter values, never
from positions, so editing a grid leaves other cells' files (and seeds) alone.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from dprank.base import checks as _checks

__all__ = [
    "GRID_STUDY_FUNCTIONS",
    "CellGrid",
    "NewtonSettings",
    "StageJob",
    "StudyStages",
    "cell_blocks",
    "cell_name",
    "chunk_of",
    "chunk_ranges",
    "chunk_replicates",
    "experiment_chunk_size",
    "experiment_chunks",
    "find_cell",
    "fmt_value",
    "parse_value",
    "section_chunk_count",
]


def fmt_value(value: object) -> str:
    """Short, exact text of a grid value: ``1.0 -> '1'``, ``0.25 -> '0.25'``, ``inf -> 'inf'``."""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        if value.is_integer():
            return str(int(value))
        return repr(value)
    return str(value)


def parse_value(text: str) -> int | float:
    """Inverse of :func:`fmt_value` for numbers."""
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {text!r}")
    if text in ("inf", "-inf"):
        return float(text)
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        raise ValueError(f"text {text!r} is not a number written by fmt_value") from None


def cell_name(params: Mapping[str, object], order: Iterable[str]) -> str:
    """File-name-safe cell label, e.g. ``n300_p0.25`` or ``n350_p1_eps0.1``."""
    order = list(order)
    missing = [key for key in order if key not in params]
    if missing:
        raise ValueError(f"params lack the keys {missing} of order {order}")
    return "_".join(f"{key}{fmt_value(params[key])}" for key in order)


def cell_blocks(
    names: list[str],
    cells: list[dict],
    order: Iterable[str],
    job_keys: Iterable[str] | None,
) -> dict[str, list[str]]:
    """Job label -> the names of the cells that one job (per chunk) covers, in grid order.

    Cells sharing their values of ``job_keys`` form one *block*, labelled by
    those values (``n300`` for ``job_keys: [n]``; ``all`` for ``job_keys: []``);
    with ``job_keys`` ``None`` every cell is its own block, labelled by its
    cell name. Seeds are keyed by cell and replicate, so the blocks change no
    number; they only trade per-job start-up cost against parallelism (as the
    ``job_keys`` of Paper B2).
    """
    _same_length(names, cells)
    order = list(order)
    if job_keys is None:
        return {name: [name] for name in names}
    keys = [k for k in order if k in set(job_keys)]
    out: dict[str, list[str]] = {}
    for name, params in zip(names, cells, strict=True):
        out.setdefault(cell_name(params, keys) or "all", []).append(name)
    return out


def _same_length(names, cells) -> None:
    if len(names) != len(cells):
        raise ValueError(
            f"names and cells must list the same cells, got {len(names)} names "
            f"and {len(cells)} cells"
        )


def chunk_ranges(reps: int, chunk_size: int) -> list[tuple[int, int]]:
    """``[(start, stop), ...]`` covering ``range(reps)`` in chunks of ``chunk_size``."""
    reps = _checks.count(reps, "reps", 1)
    chunk_size = _checks.count(chunk_size, "chunk_size", 1)
    return [(s, min(s + chunk_size, reps)) for s in range(0, reps, chunk_size)]


def chunk_of(reps: int, chunk_size: int, index: int) -> tuple[int, int]:
    """The replicate range of chunk ``index``."""
    ranges = chunk_ranges(reps, chunk_size)
    if (
        isinstance(index, bool)
        or not isinstance(index, numbers.Integral)
        or not 0 <= index < len(ranges)
    ):
        raise ValueError(f"index = {index!r}: chunk out of range 0..{len(ranges) - 1}")
    return ranges[index]


def find_cell(cells: list[dict], names: list[str], name: str) -> dict:
    """The parameters of the cell labelled ``name`` (``cells`` and ``names`` in grid order)."""
    _same_length(names, cells)
    for params, label in zip(cells, names, strict=True):
        if label == name:
            return params
    raise KeyError(f"no cell {name!r} in this experiment; cells: {names}")


def experiment_chunk_size(chunk_size: int, exp: Mapping) -> int:
    """Replicates per job: the experiment's ``chunk_size``, else ``chunk_size``.

    ``chunk_size`` is the workflow's top-level default (the workflow glue reads
    it from the config).
    """
    if exp.get("chunk_size"):
        return _checks.count(exp["chunk_size"], "exp['chunk_size']", 1)
    return _checks.count(chunk_size, "chunk_size", 1)


def experiment_chunks(chunk_size: int, exp: Mapping) -> list[tuple[int, int]]:
    """The replicate ranges of the jobs of every cell of an experiment (default ``chunk_size``)."""
    reps = _checks.count(exp["reps"], "exp['reps']", 1)
    return chunk_ranges(reps, experiment_chunk_size(chunk_size, exp))


def chunk_replicates(chunk_size: int, exp: Mapping, chunk: int | None) -> list[int] | None:
    """The replicate indices of job ``chunk`` of an experiment (``None`` for no chunk)."""
    if chunk is None:
        return None
    start, stop = experiment_chunks(chunk_size, exp)[int(chunk)]
    return list(range(start, stop))


def section_chunk_count(section: Mapping, experiment: str, chunk_size: int) -> int:
    """Number of replicate chunks of every cell of ``experiment``.

    ``section`` is a study's config section (``paper_a_edge``, ``paper_b2``, ...) with
    its ``experiments``, ``chunk_size`` the workflow's default replicates per job.
    """
    return len(experiment_chunks(chunk_size, section["experiments"][experiment]))


#: The functions a study module built on :class:`CellGrid` and :class:`StudyStages` exposes to
#: the workflow's rules (``workflow/rules/common.smk``), beside its ``METHODS`` and ``PROTOCOLS``.
GRID_STUDY_FUNCTIONS = (
    "block_names",
    "blocks",
    "cell_names",
    "cell_params",
    "cells",
    "chunk_count",
    "stage_kwargs",
)


class CellGrid:
    """A study's cells as named grid points, and the blocks of cells its jobs cover.

    Parameters
    ----------
    cells : callable
        Experiment -> the parameter dicts of its cells, in grid order.
    keys : callable
        Experiment -> the keys that name a cell (:func:`cell_name`'s ``order``).
    """

    def __init__(
        self,
        cells: Callable[[Mapping], list[dict]],
        keys: Callable[[Mapping], Iterable[str]],
    ) -> None:
        self._cells = cells
        self._keys = keys

    def cell_names(self, exp: Mapping) -> list[str]:
        """File-name labels of the cells, e.g. ``n300_p0.25``."""
        keys = tuple(self._keys(exp))
        return [cell_name(c, keys) for c in self._cells(exp)]

    def blocks(self, exp: Mapping) -> dict[str, list[str]]:
        """Job label -> the names of its cells (cells sharing the values of ``job_keys``)."""
        return cell_blocks(
            self.cell_names(exp), self._cells(exp), self._keys(exp), exp.get("job_keys")
        )

    def block_names(self, exp: Mapping) -> list[str]:
        """Labels of the experiment's jobs (per chunk and stage): its blocks of cells."""
        return list(self.blocks(exp))

    def cell_params(self, exp: Mapping, name: str) -> dict:
        """The parameters of the cell labelled ``name``."""
        return find_cell(self._cells(exp), self.cell_names(exp), name)

    def functions(self) -> tuple[Callable, Callable, Callable, Callable]:
        """``(cell_names, blocks, block_names, cell_params)``, as a study module exposes them."""
        return self.cell_names, self.blocks, self.block_names, self.cell_params


@dataclass(frozen=True)
class NewtonSettings:
    """The Newton solver's settings of an estimate stage (a study section's ``solver``).

    They travel together from the config to every fit of the stage
    (:func:`dprank.fit.mle.fit_penalized_mle` and its batch form).

    Attributes
    ----------
    xtol : float
        Stop when the max-norm of the Newton step is at most ``xtol``.
    max_iter : int
        The most Newton steps of one fit.
    """

    xtol: float
    max_iter: int


@dataclass(frozen=True)
class StageJob:
    """What one job of a study's stage is built from (:class:`StudyStages`).

    Attributes
    ----------
    seed : int
        The workflow's root seed.
    experiment : str
        The experiment's name.
    exp : Mapping
        The experiment's config.
    cell : dict
        The cell's parameters.
    replicates : list of int or None
        The chunk's replicates (``None`` without a chunk).
    protocol : str or None
        The protocol of the job (Paper A: ``paper`` or ``authors``).
    constants, solver : Mapping
        The study section's ``constants`` and ``solver``.
    """

    seed: int
    experiment: str
    exp: Mapping
    cell: dict
    replicates: list[int] | None
    protocol: str | None
    constants: Mapping
    solver: Mapping

    def seeded(self) -> dict:
        """``seed, experiment, cell``: the arguments of a stage that draws (seeds key on them)."""
        return {"seed": int(self.seed), "experiment": self.experiment, "cell": self.cell}

    def newton(self) -> NewtonSettings:
        """The solver settings of an estimate stage (the section's ``solver``)."""
        return NewtonSettings(float(self.solver["xtol"]), int(self.solver["max_iter"]))


class StudyStages:
    """A study's stage keyword arguments (the workflow rules' ``params``), one builder a stage.

    Only what a job's result depends on goes in, so Snakemake reruns exactly the jobs
    whose settings changed.

    Parameters
    ----------
    cell_params : callable
        ``(exp, name) -> dict``: the parameters of the cell labelled ``name``
        (:meth:`CellGrid.cell_params`).
    simulate, privatize, estimate, evaluate : callable
        ``StageJob -> dict``: the keyword arguments of that stage's function.
    """

    def __init__(
        self,
        cell_params: Callable[[Mapping, str], dict],
        simulate: Callable[[StageJob], dict],
        privatize: Callable[[StageJob], dict],
        estimate: Callable[[StageJob], dict],
        evaluate: Callable[[StageJob], dict],
    ) -> None:
        self._cell_params = cell_params
        self._stages = {
            "simulate": simulate,
            "privatize": privatize,
            "estimate": estimate,
            "evaluate": evaluate,
        }

    def stage_kwargs(
        self,
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

        ``section`` is the study's config section (its ``experiments``, ``constants`` and
        ``solver``), ``seed`` the workflow's seed and ``chunk_size`` its default
        replicates per job.
        """
        exp = section["experiments"][experiment]
        job = StageJob(
            seed=seed,
            experiment=experiment,
            exp=exp,
            cell=self._cell_params(exp, cell),
            replicates=chunk_replicates(chunk_size, exp, chunk),
            protocol=protocol,
            constants=section["constants"],
            solver=section["solver"],
        )
        if stage not in self._stages:
            raise ValueError(f"unknown stage {stage!r}")
        return self._stages[stage](job)
