"""What the ledger hands back: the receipt of a release and the summary of a data set.

Private to :mod:`dprank.ledger`, which re-exports both.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

from ._releases import Composition, LedgerError, Release, compose


@dataclass
class Receipt:
    """What :meth:`Ledger.release` found: the data set and its budget before and after.

    Attributes
    ----------
    fingerprint : str
    privacy_unit : str
        The unit of the release.
    spent_before, spent_after : float
        Total ``epsilon`` at that unit without and with this release
        (``math.inf`` where the user-level total is unbounded).
    budget : float or None
        The ledger's budget at that unit (None: none set).
    entry : Release
        What will be recorded. The ``with`` block may replace it by one that
        differs only in ``delta`` or ``bounds`` (a ``delta`` known only after the
        fit) before :meth:`commit`; a change of anything else, ``epsilon`` above
        all, is refused.
    totals : dict
        For each privacy unit with a budget: ``(spent_after, budget)``.
    """

    fingerprint: str
    privacy_unit: str
    spent_before: float
    spent_after: float
    budget: float | None
    entry: Release
    totals: dict = field(default_factory=dict)
    committed: bool = False
    _commit: Callable[[], None] | None = field(default=None, repr=False)

    def commit(self) -> None:
        """Write the record now: appended, fsync'ed, and its head in the key file.

        Call it before any output of the release becomes visible (the command
        line calls it after the outputs are written to temporary files and
        before they are renamed into place); the ``with`` block of
        :meth:`Ledger.release` calls it on leaving if nobody did. A second call
        does nothing. Raises :class:`LedgerError` when the record cannot be
        written; then the release must not be made visible.
        """
        if self.committed:
            return
        if self._commit is None:
            raise LedgerError("this receipt belongs to no open release (use Ledger.release)")
        self._commit()
        self.committed = True

    def describe(self) -> str:
        """One line for the user: the data set's totals and the budgets (no fingerprint)."""
        if math.isinf(self.spent_after):
            own = (
                f"this data set has an unbounded total at the {self.privacy_unit} level (a "
                "comparison-level release declares no max_per_user)"
            )
        else:
            own = f"this data set has spent epsilon {self.spent_after!r}"
            if self.privacy_unit in self.totals:
                own += f" of the budget {self.totals[self.privacy_unit][1]!r}"
            own += f" at the {self.privacy_unit} level"
        others = [
            f"epsilon {spent!r} of the budget {budget!r} at the {unit} level"
            for unit, (spent, budget) in self.totals.items()
            if unit != self.privacy_unit
        ]
        return own + "".join(f"; {o}" for o in others)


@dataclass(frozen=True)
class DataSetSummary:
    """A data set of the ledger: its releases and what they spent (:meth:`Ledger.summary`).

    Attributes
    ----------
    fingerprint : str
        ``v1:...`` for a data set of a migrated version-1 ledger.
    name : str or None
    releases : tuple of Release
        In the order they were recorded.
    comparison, user : Composition
        Totals at the comparison and the user level.
    """

    fingerprint: str
    name: str | None
    releases: tuple[Release, ...]
    comparison: Composition
    user: Composition

    def spent(self, privacy_unit: str) -> Composition:
        """The totals at ``privacy_unit``."""
        return compose(self.releases, privacy_unit)
