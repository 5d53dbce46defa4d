"""The registered real data sets in the input format of ``dprank rank`` (``dprank datasets``).

Each data set of ``resources/datasets.yaml`` is read from the workflow's verified
local copies in ``resources/data/`` (the data folder beside the registry) when they
are all there, hash-checked again (:func:`dprank.data.datasets.verify_local`); otherwise it
is fetched as the workflow does (:func:`dprank.data.datasets.fetch`: from the data mirror
``$DPRANK_DATA_MIRROR`` or by download, hash-checked). It is turned into one
comparison per row, ``winner, loser, user``, with the library's own readers:

* ``cems``: the 3967 decided comparisons of 301 of the 303 students
  (:func:`dprank.data.realdata.cems_comparisons`);
* ``immig``: the 379 decided comparisons of 98 respondents
  (:func:`dprank.data.realdata.immig_comparisons`);
* ``car_preferences``: the 2675 non-control comparisons of 60 users, cars by id
  (:func:`dprank.data.realdata.read_car_data`);
* ``movielens_latest_small``: for the 40 most-rated movies (B1 section 5.3,
  :func:`dprank.data.realdata.read_ratings`), every pair of movies a
  user rated differently, the higher rating winning (movies by MovieLens id).
  Unlike B1's protocol, no comparison is made up for ties or unrated movies;
* ``chatbot_arena``: the 1,670,250 votes of the 2024-08-14 Chatbot Arena snapshot as an
  arena battle file with counts, ``model_a, model_b, winner, count`` (one row per pair and
  outcome, the four outcomes of :mod:`dprank.data.arena` kept apart; read back by ``dprank rank``).
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd

from ..base import _checks
from .datasets import ENV_VAR, Dataset, fetch, load_registry, resolve_mirror, verify_local

__all__ = [
    "EXPORTABLE",
    "MOVIELENS_MOVIES",
    "default_registry_path",
    "export_frame",
    "local_copy",
    "registry",
]

#: Movies kept from MovieLens (B1 uses the 40 most-rated).
MOVIELENS_MOVIES = 40


def default_registry_path() -> Path:
    """``resources/datasets.yaml`` of the source tree the package runs from, or else the copy
    an installed package ships (``dprank/datasets.yaml``, written by the package build)."""
    here = Path(__file__).resolve().parents[1]  # src/dprank
    source = here.parents[1] / "resources" / "datasets.yaml"
    return source if source.is_file() else here / "datasets.yaml"


#: How to supply a data mirror to the command (the end of its offline message).
CLI_MIRROR_HINT = (
    f"set the environment variable {ENV_VAR} to that folder "
    f"(export {ENV_VAR}=/path/to/mirror) and run the command again."
)


def registry(path: str | os.PathLike | None = None) -> dict[str, Dataset]:
    """The data set registry (default: :func:`default_registry_path`)."""
    if path is not None:
        _checks.path(path, "path")
    path = default_registry_path() if path is None else Path(path)
    if not path.is_file():
        raise FileNotFoundError(
            f"data set registry {path} not found (pass --registry resources/datasets.yaml)"
        )
    return load_registry(path)


def _cems(folder: Path) -> pd.DataFrame:
    from .realdata import cems_comparisons, read_cems

    return cems_comparisons(read_cems(folder / "cems" / "CEMS.rda"))


def _immig(folder: Path) -> pd.DataFrame:
    from .realdata import immig_comparisons, read_immig

    return immig_comparisons(read_immig(folder / "immig" / "immig.RData"))


def _car(folder: Path) -> pd.DataFrame:
    from .realdata import read_car_data

    data = read_car_data(folder / "car_preferences", allow_missing=True)
    iu, ju = np.triu_indices(data.m, k=1)
    rows, pairs = np.nonzero(data.observed)
    first_won = data.y[rows, pairs] == 1
    ids = data.item_ids.astype(str)
    return pd.DataFrame(
        {
            "winner": ids[np.where(first_won, iu[pairs], ju[pairs])],
            "loser": ids[np.where(first_won, ju[pairs], iu[pairs])],
            "user": data.users[rows].astype(str),
        }
    )


def _movielens(folder: Path) -> pd.DataFrame:
    from .realdata import read_ratings

    data = read_ratings(folder / "movielens_latest_small" / "ratings.csv", MOVIELENS_MOVIES)
    iu, ju = np.triu_indices(data.m, k=1)
    ri, rj = data.ratings[:, iu], data.ratings[:, ju]
    with np.errstate(invalid="ignore"):
        decided = ~np.isnan(ri) & ~np.isnan(rj) & (ri != rj)
        rows, pairs = np.nonzero(decided)
        first_won = ri[rows, pairs] > rj[rows, pairs]
    ids = data.movie_ids.astype(str)
    return pd.DataFrame(
        {
            "winner": ids[np.where(first_won, iu[pairs], ju[pairs])],
            "loser": ids[np.where(first_won, ju[pairs], iu[pairs])],
            "user": data.users[rows].astype(str),
        }
    )


def local_copy(dataset: Dataset, folders: list[str | os.PathLike]) -> Path | None:
    """The first of ``folders`` holding every file of ``dataset``, hash-checked.

    Parameters
    ----------
    dataset : Dataset
        A registered data set.
    folders : list of path-like
        Data folders laid out as ``<folder>/<path>`` (the workflow's ``resources/data``).

    Returns
    -------
    Path or None
        The folder, or None if none holds all the files.

    Raises
    ------
    dprank.data.datasets.DataError
        If the files are there but one does not match its registered sha256 (the
        message gives both hashes and how to restore it).
    """
    if not isinstance(dataset, Dataset):
        raise TypeError(
            f"dataset must be a registered dprank.data.datasets.Dataset, got {dataset!r}"
        )
    if isinstance(folders, (str, os.PathLike)) or not isinstance(folders, (list, tuple)):
        raise TypeError(f"folders must be a list of folders, got {folders!r}")
    for folder in folders:
        _checks.path(folder, "folders")
    for folder in map(Path, folders):
        paths = [folder / f.path for f in dataset.files]
        if all(p.is_file() for p in paths):
            verify_local(paths, {dataset.name: dataset}, folder)
            return folder
    return None


def _chatbot_arena(folder: Path) -> pd.DataFrame:
    from .arena import arena_frame, read_arena

    votes = read_arena(folder / "chatbot_arena" / "chatbotarena_20240814.json")
    return arena_frame(votes)


#: Data set name -> converter of its fetched folder to ``winner, loser, user`` rows (arena
#: votes: ``model_a, model_b, winner, count``).
EXPORTABLE = {
    "cems": _cems,
    "immig": _immig,
    "car_preferences": _car,
    "movielens_latest_small": _movielens,
    "chatbot_arena": _chatbot_arena,
}


def export_frame(
    name: str,
    data_dir: str | os.PathLike,
    *,
    registry_path: str | os.PathLike | None = None,
    mirror: str | os.PathLike | None = None,
    local_dirs: list[str | os.PathLike] | None = None,
) -> pd.DataFrame:
    """One registered data set as comparisons ``winner, loser, user``.

    Parameters
    ----------
    name : str
        A registered data set (see :data:`EXPORTABLE`).
    data_dir : path-like
        Where the verified files are put (``<data_dir>/<path>``) when they are fetched;
        files already there are used (hash-checked).
    registry_path : path-like, optional
        The registry file (default: the source tree's ``resources/datasets.yaml``).
    mirror : path-like, optional
        A data mirror; default ``$DPRANK_DATA_MIRROR`` (else download).
    local_dirs : list of path-like, optional
        Data folders whose copies are used when they hold every file of the data set
        (hash-checked); default the ``data`` folder beside the registry, the workflow's
        ``resources/data``.

    Returns
    -------
    pandas.DataFrame

    Raises
    ------
    dprank.data.datasets.DataError
        If a local copy does not match its sha256, or the files cannot be fetched
        (offline without ``$DPRANK_DATA_MIRROR``: the message names the variable).
    """
    _checks.text(name, "name")
    _checks.path(data_dir, "data_dir")
    _checks.optional_path(registry_path, "registry_path")
    _checks.optional_path(mirror, "mirror")
    if local_dirs is not None:
        if not isinstance(local_dirs, (list, tuple)):
            raise TypeError(f"local_dirs must be a list of folders, got {local_dirs!r}")
        for folder in local_dirs:
            _checks.path(folder, "local_dirs")
    path = default_registry_path() if registry_path is None else Path(registry_path)
    reg = registry(path)
    if name not in reg or name not in EXPORTABLE:
        raise ValueError(
            f"name: unknown data set {name!r}; registered: {sorted(set(reg) & set(EXPORTABLE))}"
        )
    if local_dirs is None:
        local_dirs = [path.parent / "data"]
    folder = local_copy(reg[name], [data_dir, *local_dirs])
    if folder is None:
        source = resolve_mirror(mirror)
        fetch(name, reg, data_dir, mirror=source, mirror_hint=CLI_MIRROR_HINT)
        folder = Path(data_dir)
    return EXPORTABLE[name](folder)
