"""The privacy harness's declarations: release paths, neighbours, outputs, distinguishers.

Private: import these names from :mod:`dprank.audit.harness`, which describes the harness.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..base import _checks
from ..data.comparisons import Comparisons
from ..privacy.noise import NoiseSource

# --------------------------------------------------------------------------- the declarations


@dataclass(frozen=True)
class Neighbours:
    """Two neighbouring data sets under a path's relation.

    Attributes
    ----------
    name : str
        A label (``"flip (0, 1)"``, ``"replace user 0"``).
    d0, d1 : Comparisons
        The data sets (same items and labels; users where the path needs them).
    target0, target1 : tuple of (winner, loser) item pairs
        Individual DP: the target user's comparisons in ``d0`` and ``d1`` (the
        attacker's pair-set search enumerates candidates of this size); empty otherwise.
    others : Comparisons or None
        Individual DP: everybody else's comparisons (known to the attacker).
    view1 : Comparisons or None
        What the mechanism sees of ``d1`` where it differs from ``d1`` and the attacker
        knows it (a heavy user's identical comparisons, bounded to ``L`` copies);
        ``None``: ``d1``.
    """

    name: str
    d0: Comparisons
    d1: Comparisons
    target0: tuple = ()
    target1: tuple = ()
    others: Comparisons | None = None
    view1: Comparisons | None = None

    @property
    def seen0(self) -> Comparisons:
        """The attacker's model of what the mechanism sees of ``d0``."""
        return self.d0

    @property
    def seen1(self) -> Comparisons:
        """The attacker's model of what the mechanism sees of ``d1``."""
        return self.d1 if self.view1 is None else self.view1


@dataclass(frozen=True)
class Channel:
    """Everything one run of the command made visible besides the released values."""

    exit_status: int
    stdout: bytes
    stderr: bytes
    files: Mapping[str, bytes]


@dataclass(frozen=True)
class Output:
    """One run of a release path.

    Attributes
    ----------
    values : (m,) numpy.ndarray
        The released numbers: the scores by item index (``nan`` for an item whose
        score is not released), or a local release's outcomes in row order.
    ranks : (n,) numpy.ndarray or None
        Released ranks by item index (``k + 1`` for an item outside a released top ``k``).
    record : dict
        The public record.
    channel : Channel or None
        The command's other channels (``None`` through the API).
    """

    values: np.ndarray
    ranks: np.ndarray | None
    record: Mapping
    channel: Channel | None = None


@dataclass(frozen=True)
class ReleasePath:
    """One release path: what it runs, on which neighbours, and what it claims.

    Attributes
    ----------
    name : str
        Its label, the command line it stands for (``"rank --privacy edge --method mle"``).
    kind : str
        What the attacker knows about the output law: ``"counts"``, ``"mle_edge"``,
        ``"noisy_obj"``, ``"mle_individual"``, ``"top_k"``, ``"local_rr"``,
        ``"local_laplace"``, ``"local_rank"``, or for votes with ties ``"ties_edge"``,
        ``"ties_individual"`` and ``"local_rr3"`` (:data:`DISTINGUISHERS` use it).
    relation : str
        The neighbour relation, in words.
    neighbours : callable ``eps -> list of Neighbours``
        The worst-case pairs it is played on.
    claim : callable ``eps -> (eps, delta)``
        The guarantee claimed for a requested budget.
    command : callable ``(data_csv, eps, workdir) -> list of argv``
        The ``dprank`` command lines of one run (each ``argv`` without the program
        name; several run in order, the last one's output is the release).
    api : callable ``(Comparisons, eps, NoiseSource) -> Output``
        One run through the library.
    read : callable ``(workdir, Neighbours) -> (values, ranks, record)``
        The release from the command's files.
    options : dict
        What the runners and distinguishers need (``privacy``, ``method``,
        ``max_per_user``, ``top_k``, ``mechanism``; ``intervals``, ``intervals_method``,
        ``min_per_user`` for ``rank --intervals``; ``unmasked_channels``: also play the
        text channels with their numbers kept); ``source: "system"`` for a path
        whose sampler cannot run on seeded bits (NoisyObj's OpenDP Gaussian): its games
        draw from the operating system's generator whatever :func:`play` is asked.
    """

    name: str
    kind: str
    relation: str
    neighbours: Callable[[float], list[Neighbours]]
    claim: Callable[[float], tuple[float, float]]
    command: Callable[[Path, float, Path], list[list[str]]] | None
    api: Callable[[Comparisons, float, NoiseSource], Output] | None
    read: Callable[[Path, Neighbours], tuple] | None = None
    options: Mapping = field(default_factory=dict)


@dataclass(frozen=True)
class Game:
    """One game: a path, a budget, a neighbour pair and the way it is run (``api``, ``command``)."""

    path: ReleasePath
    eps: float
    neighbours: Neighbours
    via: str

    @property
    def claim(self) -> tuple[float, float]:
        return self.path.claim(self.eps)


@dataclass(frozen=True)
class Distinguisher:
    """One attack: statistics of the outputs whose thresholds may tell ``D0`` from ``D1``.

    Attributes
    ----------
    name : str
    build : callable ``(game, sel0, sel1) -> stat``
        Given the game and the selection halves (lists of :class:`Output` on ``D0``
        and ``D1``; a learning attack trains on them), a function ``stat(outputs)``
        returning a ``(len(outputs), m)`` array: ``m`` candidate statistics, of which
        the harness picks one with its threshold on the selection half.
    applies : callable ``game -> bool``
        Whether the attack makes sense for the game (its path's kind, ``via``).
    channel : bool
        It reads :attr:`Output.channel` (command runs only).
    """

    name: str
    build: Callable
    applies: Callable[[Game], bool] = lambda game: True
    channel: bool = False


# --------------------------------------------------------------------------- registries

#: Release paths by name (:func:`register_path`).
PATHS: dict[str, ReleasePath] = {}
#: Distinguishers by name (:func:`register_distinguisher`).
DISTINGUISHERS: dict[str, Distinguisher] = {}


def _register(table: dict, entry, kind: type, argument: str, what: str, replace: bool):
    """Add ``entry`` to ``table`` under its name, after the checks both registries share.

    Parameters
    ----------
    table : dict
        :data:`PATHS` or :data:`DISTINGUISHERS`.
    entry : ReleasePath or Distinguisher
        What to add (it must be a ``kind``).
    kind : type
        The class the registry holds.
    argument, what : str
        The argument's name and what the registry holds, for the messages.
    replace : bool
        Overwrite an entry of the same name (otherwise a ``ValueError``).

    Returns
    -------
    ReleasePath or Distinguisher
        ``entry``.
    """
    if not isinstance(entry, kind):
        raise TypeError(f"{argument} must be a {kind.__name__}, got {type(entry).__name__}")
    _checks.flag(replace, "replace")
    if entry.name in table and not replace:
        raise ValueError(f"a {what} named {entry.name!r} is already registered")
    table[entry.name] = entry
    return entry


def register_path(path: ReleasePath, *, replace: bool = False) -> ReleasePath:
    """Add a release path to :data:`PATHS` (``replace=True`` to overwrite a name)."""
    return _register(PATHS, path, ReleasePath, "path", "release path", replace)


def register_distinguisher(d: Distinguisher, *, replace: bool = False) -> Distinguisher:
    """Add a distinguisher to :data:`DISTINGUISHERS` (``channel=True``: the command's channels)."""
    return _register(DISTINGUISHERS, d, Distinguisher, "d", "distinguisher", replace)


def accuracy_bound(eps: float, delta: float = 0.0) -> float:
    """The best success rate of guessing ``D0`` or ``D1`` (prior 1/2) from an
    ``(eps, delta)``-DP release: ``(e^eps + delta) / (e^eps + 1)``.

    Raises
    ------
    ValueError, TypeError
        If ``eps`` is not a number ``>= 0`` (``inf`` allowed) or ``delta`` not in ``[0, 1]``.
    """
    _checks.non_negative(eps, "eps", finite=False)
    _checks.probability(delta, "delta")
    if math.isinf(eps):
        return 1.0
    return min(1.0, (1.0 + delta * math.exp(-eps)) / (1.0 + math.exp(-eps)))


def statistic(fn: Callable, columns=()) -> Callable:
    """Mark ``fn`` (``outputs -> (T, m) array``) as a statistic with named columns.

    Raises
    ------
    TypeError
        If ``fn`` is not callable or ``columns`` not a list of str.
    """
    if not callable(fn):
        raise TypeError(f"fn must be a function of the outputs, got {type(fn).__name__}")
    fn.columns = _checks.strings(
        list(columns) if isinstance(columns, tuple) else columns, "columns"
    )
    return fn
