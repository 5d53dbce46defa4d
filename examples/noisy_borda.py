"""Noisy Borda: each item's net wins plus Laplace noise, private for each user's comparisons.

The example method of docs/contributing.md ("Add a method"): copied to
``src/dprank/methods/noisy_borda.py`` and registered in ``dprank.methods`` it becomes
``individual_noisy_borda`` (``dprank rank --privacy individual --method noisy_borda``)
and keeps the method contract (:func:`dprank.testing.check_method`). It is also the
benchmark's example plug-in (docs/benchmark.md, ``examples/benchmark-config.yaml``:
:func:`fit`).

The Borda score of an item is its net number of wins (wins minus losses). One user's
at most ``L`` comparisons, replaced by any other ``L``, change the net wins by at most
4 per comparison in l1 (2 when removed, 2 when added back), so ``Laplace(4 L / eps)``
noise on every score makes the scores ``eps``-DP for a user's whole set of comparisons
(the Laplace mechanism). ``L`` is the declared bound ``max_per_user`` of a release; a
simulation that declares none (the benchmark of methods) takes the most comparisons of
any user, which its design fixes.

The noise comes from ``rng``: a :class:`dprank.privacy.noise.NoiseSource` in a release
(:func:`dprank.rank`, ``dprank rank``: exact samplers on the operating system's secure
generator) or a seeded :class:`numpy.random.Generator` in a simulation (the benchmark);
:func:`dprank.privacy.noise.as_noise_source` takes either, so one line serves both.
"""

from __future__ import annotations

import numpy as np

from dprank.data.comparisons import Comparisons
from dprank.privacy.noise import as_noise_source


def net_wins(c: Comparisons) -> np.ndarray:
    """Comparisons won minus comparisons lost, per item (counts weighted)."""
    won = c.count * c.y  # comparisons won by i in each record
    lost = c.count * (1.0 - c.y)
    n = c.n_items
    return np.bincount(c.i, won - lost, n) + np.bincount(c.j, lost - won, n)


def noise_scale(eps: float, L: int) -> float:
    """``4 L / eps``: the l1 sensitivity of the net wins to one user's ``L`` comparisons."""
    return 4.0 * L / eps


def noisy_borda(c: Comparisons, eps: float, rng, max_per_user: int | None = None) -> dict:
    """The release: noisy net wins, and its public calibration.

    Parameters
    ----------
    c : dprank.data.comparisons.Comparisons
        Raw comparisons with users.
    eps : float
        The budget for each user's whole set of comparisons.
    rng : dprank.privacy.noise.NoiseSource or numpy.random.Generator
        Source of the noise.
    max_per_user : int, optional
        The declared bound ``L`` on one user's comparisons (a release declares it).

    Returns
    -------
    dict
        ``scores`` (``(n_items,)``, higher = better) and ``details`` (the noise and its
        scale: what the release's public record states): the fields of a
        :class:`dprank.methods.Fit`.
    """
    counts = c.per_user_counts()
    L = int(max_per_user) if max_per_user is not None else int(np.ceil(np.max(counts)))
    sensitivity = 4.0 * L
    # |net wins| <= every comparison of the users, at most L each (public: L and the users)
    bound = float(L) * float(c.n_users)
    scores = as_noise_source(rng).laplace_mechanism(net_wins(c), sensitivity, eps, bound=bound)
    details = {"noise": "laplace", "noise_scale": noise_scale(eps, L), "sensitivity": sensitivity}
    return {"scores": scores, "details": details}


def fit(comparisons: Comparisons, eps, rng, *, max_per_user=None, **_) -> np.ndarray:
    """The benchmark's plug-in call (docs/benchmark.md): the noisy net wins alone."""
    return noisy_borda(comparisons, float(eps), rng, max_per_user)["scores"]
