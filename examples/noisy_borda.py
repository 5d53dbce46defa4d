"""A new method for the benchmark: a noisy Borda count (central, user-level DP).

The Borda score of an item is its net number of wins (wins minus losses). One
user's ``L`` comparisons, replaced by any other ``L``, change the net wins by at
most 4 per comparison in l1 (2 when removed, 2 when added back), so
``Laplace(4 L / eps)`` noise on every score makes the scores ``eps``-DP for a
user's whole set of comparisons (the Laplace mechanism). ``L`` is the most
comparisons of any user.

Switch it on in the benchmark with ``examples/benchmark-config.yaml``
(docs/benchmark.md, "Add a method").
"""

from __future__ import annotations

import numpy as np


def fit(comparisons, eps, rng: np.random.Generator, **options) -> np.ndarray:
    """Noisy net wins ("Borda") of every item.

    Parameters
    ----------
    comparisons : dprank.comparisons.Comparisons
        Raw comparisons with users.
    eps : float
        The budget for each user's whole set of comparisons.
    rng : numpy.random.Generator
        Source of the noise.

    Returns
    -------
    (n_items,) numpy.ndarray
        Scores, higher = better.
    """
    c = comparisons
    n = c.n_items
    won = c.count * c.y  # comparisons won by i in each record
    lost = c.count * (1.0 - c.y)
    net = np.bincount(c.i, won - lost, n) + np.bincount(c.j, lost - won, n)
    L = float(np.max(c.per_user_counts())) if c.user is not None else 1.0
    return net + rng.laplace(0.0, 4.0 * L / float(eps), size=n)
