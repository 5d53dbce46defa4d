"""A privacy-budget ledger: the releases of each data set and the budget they have spent together.

Every private release of the same data spends privacy on the same people: three
``epsilon = 1`` rankings of one file are, together, a ``3``-DP release (their
average removes much of the noise). A :class:`Ledger` is a JSON file that records
each release against a keyed fingerprint of its input data and refuses one that
would take the data set's total past a budget, in the manner of Tumult Analytics'
sessions and OpenDP's odometers.

The files
    The ledger is a JSON object ``{"format": "dprank-ledger", "version": 2,
    "ledger_id": ..., "records": [...]}``: a chain of records, each
    ``{"seq": k, "prev": MAC of record k - 1 (the ledger id for the first),
    "type": ..., ..., "mac": HMAC-SHA256(key, the record's other fields)}``.
    Types: ``created``; ``release`` (UTC time, data set fingerprint, name,
    command, mechanism, privacy unit, ``epsilon``, ``delta``, declared bounds;
    :class:`Release`); ``budget`` (a privacy unit and its ``epsilon``);
    ``migrated``. The key is *not* in the ledger: it is in the key file
    (:func:`default_key_file`; ``$DPRANK_LEDGER_KEYS`` names another), mode
    ``0600``, which also remembers each ledger's path, number of records and
    last MAC. So an edited record (its MAC), a deleted, inserted or reordered
    record (the chain), a truncated ledger or an older copy put back (the count
    and head in the key file), and a deleted ledger where the key file says one
    existed are detected, and the ledger is refused with a message naming what
    happened. A data set's ``FINGERPRINT`` is ``HMAC-SHA256(key, canonical
    content)`` (:func:`canonical_content`: the multiset of pairs and outcomes,
    labels normalised as the readers normalise them, users left out), so the
    ledger holds no raw data, no plain hash of the data or its file and no seed.
Budgets
    Budgets are records of the ledger, one per privacy unit, and apply to every
    data set of the ledger and to every release, with or without a ``budget``
    argument. A release's ``budget`` sets the first one or lowers it; raising
    one takes :meth:`Ledger.set_budget` (``dprank ledger FILE --set-budget EPS
    --unit UNIT``).
Writing before releasing
    :meth:`Ledger.release` checks the budgets before the release is computed;
    the release calls :meth:`Receipt.commit` after its outputs are written to
    temporary files and before any becomes visible, and the record is then
    appended and fsync'ed (with its folder), and its head stored in the key
    file. A record that cannot be written raises, and the release shows nothing.
Permissions and concurrency
    Both files are written with mode ``0600`` (owner only) and replaced
    atomically: under an exclusive :func:`fcntl.flock` on a lock file beside the
    ledger (``FILE.lock``), held from the budget check to the record, the new
    content goes to a temporary file in the same folder that then replaces the
    ledger (:func:`os.replace`). A reader sees the old or the new ledger, never
    a mix, and two concurrent releases never lose a record nor both pass a
    budget check that only one of them fits.

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
      A local release (``dprank privatize``) protects each comparison's
      outcome at its user's ``epsilon``: it is a comparison-level release,
      and with a declared ``max_per_user`` ``L`` it costs ``L epsilon`` at the
      user level.

    A budget bounds the total ``epsilon`` at its privacy unit; ``delta`` totals
    are reported, not budgeted. Sums are exact for decimal inputs (``0.1 + 0.2``
    is ``0.3``).

What the ledger protects against, and what not
    A data owner's accidental overspend: re-running a release on the same data
    (in another row order, layout or file format, with or without users: the
    fingerprint is of the comparisons, not of the file's bytes), and a budget
    reset by editing, truncating or deleting the ledger without the key file.
    It does not follow data across changes: a copy with one row more, fewer or
    altered is a new data set to it, and it is no defence against someone who
    can run releases without the ledger, or who deletes both the ledger and the
    key file. Whoever holds the key file can test whether a candidate data set
    is in a ledger, hence the owner-only modes.

The code is split by topic into private submodules, all re-exported here:
``_releases`` (:class:`Release`, the errors, :func:`compose`), ``_content`` (canonical
content and fingerprints), ``_keys`` (the key file) and ``_store`` (the :class:`Ledger`
file and its text summary).

Examples
--------
>>> import tempfile, os
>>> from dprank.data.comparisons import Comparisons
>>> from dprank.ledger import Ledger, Release
>>> games = Comparisons.from_winner_loser([0, 0, 1], [1, 2, 2], labels=["a", "b", "c"])
>>> folder = tempfile.mkdtemp()
>>> ledger = Ledger(os.path.join(folder, "ledger.json"), key_file=os.path.join(folder, "keys.json"))
>>> entry = Release("rank", "edge_mle", "comparison", epsilon=1.0)
>>> with ledger.release(games, entry, budget=2.5) as receipt:
...     pass  # compute the release, write it to temporary files, then:
...     receipt.commit()  # the record, fsync'ed; only now make the release visible
>>> receipt.spent_after
1.0
"""

from __future__ import annotations

from ._content import canonical_content, fingerprint
from ._keys import KEY_FILE_ENV, KeyFile, default_key_file
from ._receipts import DataSetSummary, Receipt
from ._releases import (
    FORMAT,
    PRIVACY_UNITS,
    VERSION,
    BudgetExceeded,
    Composition,
    LedgerError,
    LedgerWriteError,
    Release,
    compose,
)
from ._store import Ledger, release_to
from ._text import format_summary, main_ledger

__all__ = [
    "FORMAT",
    "KEY_FILE_ENV",
    "PRIVACY_UNITS",
    "VERSION",
    "BudgetExceeded",
    "Composition",
    "DataSetSummary",
    "KeyFile",
    "Ledger",
    "LedgerError",
    "LedgerWriteError",
    "Receipt",
    "Release",
    "canonical_content",
    "compose",
    "default_key_file",
    "fingerprint",
    "format_summary",
    "main_ledger",
    "release_to",
]
