"""A privacy-budget ledger: the releases of each data set and the budget they have spent together.

Every private release of the same data spends privacy on the same people: three
``epsilon = 1`` rankings of one file are, together, a ``3``-DP release (their
average removes much of the noise). A :class:`Ledger` is a JSON file that records
each release against a keyed fingerprint of its input data and refuses one that
would take the data set's total past a budget, in the manner of Tumult Analytics'
sessions and OpenDP's odometers.

The file
    A JSON object ``{"format": "dprank-ledger", "version": 1, "key": ...,
    "datasets": {FINGERPRINT: {"name": ..., "releases": [...]}}}``. ``key`` is a
    random 32-byte HMAC key (hex) made with the ledger; a data set's
    ``FINGERPRINT`` is ``HMAC-SHA256(key, canonical content)``
    (:func:`canonical_content`), so the ledger holds no raw data, no plain hash
    of the data or its file and no seed. Each release records its UTC time,
    command, mechanism, privacy unit, ``epsilon``, ``delta`` and declared bounds
    (:class:`Release`). ``name`` is an optional label the caller gives (the
    command line records the input file's name).
Permissions and concurrency
    The file is written with mode ``0600`` (owner only) and updated atomically:
    under an exclusive :func:`fcntl.flock` on a lock file beside it
    (``FILE.lock``), the new content goes to a temporary file in the same folder
    that then replaces the ledger (:func:`os.replace`). A reader sees the old or
    the new ledger, never a mix, and two concurrent releases never lose a record
    nor both pass a budget check that only one of them fits.

Composition rules (:func:`compose`)
    Releases compose by *basic composition*: ``k`` releases that are
    ``(epsilon_r, delta_r)``-DP are together ``(sum epsilon_r, sum delta_r)``-DP
    for the same privacy unit. Totals are kept per privacy unit:

    * **comparison level** (edge DP: one comparison changes): every release
      counts at its face value, user-level ones included (a change of one
      comparison is a change of one user's data, so ``epsilon`` user-level DP
      implies ``epsilon`` comparison-level DP);
    * **user level** (individual or local DP: all of one user's comparisons
      change): user-level releases count at face value; a comparison-level
      release counts through group privacy when it declares a per-user bound
      ``L`` (``bounds["max_per_user"]``: no user made more than ``L``
      comparisons): ``(L epsilon, L exp((L - 1) epsilon) delta)``, which is
      ``L epsilon`` for pure DP. Without a declared bound a comparison-level
      release gives no user-level guarantee at all, and the user-level total is
      *unbounded*; it is reported as such and a user-level budget cannot be met.

    A budget (:meth:`Ledger.release`) bounds the total ``epsilon`` at the
    privacy unit of the release asked for; ``delta`` totals are reported, not
    budgeted. Sums are exact for decimal inputs (``0.1 + 0.2`` is ``0.3``).

What the ledger protects against, and what not
    A data owner's accidental overspend: re-running a release on the same data
    (in another row order, layout or file format: the fingerprint is of the
    comparisons, not of the file's bytes). It does not follow data across
    changes: a copy with one row more, fewer or altered is a new data set to
    it, and it is no defence against someone who can run releases without the
    ledger. Whoever holds the ledger file holds its key and can test whether a
    candidate data set is in it, hence the owner-only mode.

The code is split by topic into private submodules, all re-exported here:
``_releases`` (:class:`Release`, the errors, :func:`compose`), ``_content`` (canonical
content and fingerprints) and ``_store`` (the :class:`Ledger` file and its text summary).

Examples
--------
>>> import tempfile, os
>>> from dprank.comparisons import Comparisons
>>> from dprank.ledger import Ledger, Release
>>> games = Comparisons.from_winner_loser([0, 0, 1], [1, 2, 2], labels=["a", "b", "c"])
>>> ledger = Ledger(os.path.join(tempfile.mkdtemp(), "ledger.json"))
>>> entry = Release("rank", "edge_mle", "comparison", epsilon=1.0)
>>> with ledger.release(games, entry, budget=2.5) as receipt:
...     pass  # compute and write the release here; an exception records nothing
>>> receipt.spent_after
1.0
"""

from __future__ import annotations

from ._content import canonical_content, fingerprint
from ._releases import (
    FORMAT,
    PRIVACY_UNITS,
    VERSION,
    BudgetExceeded,
    Composition,
    LedgerError,
    Release,
    compose,
)
from ._store import DataSetSummary, Ledger, Receipt, format_summary, main_ledger, release_to

__all__ = [
    "FORMAT",
    "PRIVACY_UNITS",
    "VERSION",
    "BudgetExceeded",
    "Composition",
    "DataSetSummary",
    "Ledger",
    "LedgerError",
    "Receipt",
    "Release",
    "canonical_content",
    "compose",
    "fingerprint",
    "format_summary",
    "main_ledger",
    "release_to",
]
