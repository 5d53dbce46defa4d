"""Releases, the ledger's errors and the composition of releases.

Re-exported by :mod:`dprank.ledger`, whose docstring describes the ledger.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from fractions import Fraction

import numpy as np

FORMAT = "dprank-ledger"
VERSION = 2
#: Privacy units a release can protect (those of :data:`dprank.methods.PRIVACY_UNITS`
#: that spend a budget).
PRIVACY_UNITS = ("comparison", "user")


class LedgerError(ValueError):
    """A ledger file that cannot be used: the message names the file and the problem."""


class LedgerWriteError(LedgerError):
    """The ledger could not be written (a full disk, a read-only file system): the release
    was not recorded, so nothing was released. The command exits 1, as for any output that
    cannot be written, not 2 (a usage error)."""


class BudgetExceeded(ValueError):
    """A release refused: it would take its data set's total past the budget.

    Attributes
    ----------
    fingerprint : str
        The data set.
    privacy_unit : str
        The level at which the budget was checked.
    spent : float or None
        Total ``epsilon`` before the release (``None``: unbounded).
    requested : float
        The release's ``epsilon``.
    budget : float
    """

    def __init__(self, message, *, fingerprint, privacy_unit, spent, requested, budget):
        super().__init__(message)
        self.fingerprint = fingerprint
        self.privacy_unit = privacy_unit
        self.spent = spent
        self.requested = requested
        self.budget = budget


# --------------------------------------------------------------------------- releases


def check_number(name, value, *, low, high=math.inf, low_open=False) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise ValueError(f"{name} must be a number, got {value!r}")
    x = float(value)
    if not math.isfinite(x) or x < low or (low_open and x == low) or x >= high:
        lo = "(" if low_open else "["
        raise ValueError(f"{name} must be finite and in {lo}{low}, {high}), got {value!r}")
    return x


@dataclass(frozen=True)
class Release:
    """One release of a data set, as the ledger records it.

    Parameters
    ----------
    command : str
        What made it (``"rank"``, ``"privatize"``).
    mechanism : str
        The registered method or release mechanism (``"edge_mle"``, ``"rr"``).
    privacy_unit : {"comparison", "user"}
        What the guarantee protects.
    epsilon : float
        Positive and finite (for local DP with budgets that differ between
        users: the largest).
    delta : float
        In ``[0, 1)``; 0 for pure DP.
    bounds : mapping of str to number
        Declared bounds the guarantee rests on; ``max_per_user`` (a positive
        integer ``L``: no user made more than ``L`` comparisons) turns a
        comparison-level release into a user-level one (:func:`compose`).
    time : str or None
        UTC time (ISO 8601) the release was recorded; set by the ledger.

    Raises
    ------
    ValueError
        An unknown privacy unit, an empty command or mechanism, an ``epsilon``
        or ``delta`` out of range, or a bound that is not a number (or a
        ``max_per_user`` that is not a positive integer).
    """

    command: str
    mechanism: str
    privacy_unit: str
    epsilon: float
    delta: float = 0.0
    bounds: Mapping[str, float] = field(default_factory=dict)
    time: str | None = None

    def __post_init__(self):
        for name in ("command", "mechanism"):
            value = getattr(self, name)
            if not isinstance(value, str) or not value.strip():
                raise ValueError(f"{name} must be a non-empty string, got {value!r}")
        if self.privacy_unit not in PRIVACY_UNITS:
            raise ValueError(
                f"privacy_unit must be one of {PRIVACY_UNITS}, got {self.privacy_unit!r} "
                "(a non-private release spends an unbounded budget and is not recorded)"
            )
        epsilon = check_number("epsilon", self.epsilon, low=0.0, low_open=True)
        delta = check_number("delta", self.delta, low=0.0, high=1.0)
        if not isinstance(self.bounds, Mapping):
            raise ValueError(f"bounds must be a mapping of names to numbers, got {self.bounds!r}")
        bounds = {}
        for key, value in self.bounds.items():
            if not isinstance(key, str) or not key:
                raise ValueError(f"bound names must be non-empty strings, got {key!r}")
            bounds[key] = check_number(f"bound {key}", value, low=-math.inf)
            if bounds[key] == int(bounds[key]):
                bounds[key] = int(bounds[key])
        L = bounds.get("max_per_user")
        if L is not None and not (isinstance(L, int) and L >= 1):
            raise ValueError(f"bound max_per_user must be a positive integer, got {L!r}")
        if self.time is not None and not isinstance(self.time, str):
            raise ValueError(f"time must be an ISO 8601 string, got {self.time!r}")
        object.__setattr__(self, "epsilon", epsilon)
        object.__setattr__(self, "delta", delta)
        object.__setattr__(self, "bounds", bounds)

    @property
    def max_per_user(self) -> int | None:
        """The declared per-user bound ``L``, or None."""
        return self.bounds.get("max_per_user")

    def to_json(self) -> dict:
        """The record as the ledger file stores it (:data:`_RECORD_FIELDS`, in that order)."""
        record = {name: getattr(self, name) for name in _RECORD_FIELDS}
        record["bounds"] = dict(self.bounds)
        return record

    @classmethod
    def from_json(cls, record) -> Release:
        """A record of the ledger file (:class:`ValueError` if malformed)."""
        if not isinstance(record, dict) or set(record) != set(_RECORD_FIELDS):
            raise ValueError(f"a release must have exactly the fields {sorted(_RECORD_FIELDS)}")
        return cls(**record)


#: The fields of a release's record in the ledger file, in the file's order: every field of
#: :class:`Release`, the time it was recorded first.
_RECORD_FIELDS = ("time", *(f.name for f in fields(Release) if f.name != "time"))


# --------------------------------------------------------------------------- composition


def exact(x: float) -> Fraction:
    return Fraction(repr(float(x)))


@dataclass(frozen=True)
class Composition:
    """The privacy a data set has spent at one privacy unit (:func:`compose`).

    Attributes
    ----------
    privacy_unit : str
    epsilon, delta : float or None
        The totals; ``None`` when unbounded.
    n_releases : int
        Releases composed (every release counts at both units).
    note : str
        How the totals were reached (or why they are unbounded).
    """

    privacy_unit: str
    epsilon: float | None
    delta: float | None
    n_releases: int
    note: str

    @property
    def bounded(self) -> bool:
        """Whether the totals are finite."""
        return self.epsilon is not None


def _plural(n: int, what: str) -> str:
    return f"{n} {what}" + ("" if n == 1 else "s")


def compose_exact(releases, unit) -> tuple[Fraction | None, float | None, str]:
    if unit not in PRIVACY_UNITS:
        raise ValueError(f"privacy_unit must be one of {PRIVACY_UNITS}, got {unit!r}")
    eps, deltas = Fraction(0), []
    same = [r for r in releases if r.privacy_unit == unit]
    other = [r for r in releases if r.privacy_unit != unit]
    for r in same:
        eps += exact(r.epsilon)
        deltas.append(r.delta)
    if unit == "comparison":
        for r in other:  # user-level DP implies comparison-level DP at the same (eps, delta)
            eps += exact(r.epsilon)
            deltas.append(r.delta)
        parts = [_plural(len(same), "comparison-level release")] if same else []
        if other:
            parts.append(_plural(len(other), "user-level release") + " at face value")
        note = "basic composition of " + " and ".join(parts) if parts else "no releases"
        return eps, math.fsum(deltas), note
    unbounded = [r for r in other if r.max_per_user is None]
    if unbounded:
        note = (
            f"unbounded: {_plural(len(unbounded), 'comparison-level release')} without a "
            "declared per-user bound (max_per_user), which cannot be converted to a user-level "
            "guarantee"
        )
        return None, None, note
    for r in other:  # group privacy for groups of L comparisons
        L = r.max_per_user
        eps += L * exact(r.epsilon)
        deltas.append(L * math.exp((L - 1) * r.epsilon) * r.delta if r.delta else 0.0)
    parts = [_plural(len(same), "user-level release")] if same else []
    if other:
        parts.append(
            _plural(len(other), "comparison-level release") + " at L * epsilon (group privacy)"
        )
    note = "basic composition of " + " and ".join(parts) if parts else "no releases"
    return eps, math.fsum(deltas), note


def compose(releases, privacy_unit: str) -> Composition:
    """The total privacy loss of ``releases`` at ``privacy_unit`` (the rules of the module).

    Parameters
    ----------
    releases : iterable of Release
        The releases of one data set.
    privacy_unit : {"comparison", "user"}

    Returns
    -------
    Composition
        Comparison level: the sums of every release's ``epsilon`` and ``delta``
        (basic composition; a user-level guarantee is also a comparison-level
        one). User level: the sums over user-level releases plus, for each
        comparison-level release with a declared ``max_per_user`` ``L``,
        ``L epsilon`` and ``L exp((L - 1) epsilon) delta`` (group privacy);
        unbounded (``None``) when a comparison-level release declares no ``L``.
    """
    try:
        releases = list(releases)
    except TypeError:
        raise TypeError(
            f"releases must be an iterable of Release, got {type(releases).__name__}"
        ) from None
    bad = [r for r in releases if not isinstance(r, Release)]
    if bad:
        raise TypeError(f"releases must hold Release entries, got {type(bad[0]).__name__}")
    eps, delta, note = compose_exact(releases, privacy_unit)
    return Composition(
        privacy_unit=privacy_unit,
        epsilon=None if eps is None else float(eps),
        delta=delta,
        n_releases=len(releases),
        note=note,
    )
