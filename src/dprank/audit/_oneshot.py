"""Audit of the one-shot top-1 release (Paper A, Experiment 4): its exact law by quadrature.

Re-exported by :mod:`dprank.audit`.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from ..base import _checks
from ..privacy.mechanisms import one_shot_privacy_loss, standard_laplace
from ..privacy.oneshot import (
    one_shot_location_scale,
    one_shot_scores,
    one_shot_top1_probabilities,
    top1_probabilities,
)
from ._core import AuditResult, checked_audit

# ---------------------------------------------------------------------------
# one-shot top-k (Paper A, Experiment 4; dprank.privacy.oneshot)

#: Largest ``n`` for which :func:`one_shot_worst_neighbours` enumerates all tournaments.
_MAX_TOURNAMENT_N = 6


def _all_tournaments(n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every tournament on ``n`` items: bit ``e`` of the index says pair ``e``'s upper item won."""
    iu, ju = np.triu_indices(n, k=1)
    codes = np.arange(2**iu.size)
    upset = ((codes[:, None] >> np.arange(iu.size)) & 1).astype(np.float64)
    wins = np.zeros((codes.size, n, n))
    wins[:, iu, ju] = 1.0 - upset
    wins[:, ju, iu] = upset
    return wins, iu, ju


@functools.lru_cache(maxsize=8)
def _worst_one_shot_pair(n: int, eps: float) -> tuple[int, int, float]:
    wins, iu, _ = _all_tournaments(n)
    mu = np.full((wins.shape[0], n), np.nan)
    scale = np.full(wins.shape[0], np.nan)
    for r in range(wins.shape[0]):
        try:
            pi, sc = one_shot_location_scale(wins[r], eps)
        except (np.linalg.LinAlgError, ValueError):
            continue
        if np.all(np.isfinite(pi)) and math.isfinite(sc) and sc > 0:
            mu[r], scale[r] = pi, sc
    ok = np.isfinite(scale)
    log_p = np.full(mu.shape, np.nan)
    rows = np.flatnonzero(ok)
    for start in range(0, rows.size, 2048):
        chunk = rows[start : start + 2048]
        log_p[chunk] = np.log(top1_probabilities(mu[chunk], scale[chunk]))
    best = (-1, -1, -np.inf)
    codes = np.arange(wins.shape[0])
    for e in range(iu.size):
        partner = codes ^ (1 << e)
        keep = (codes < partner) & ok & ok[partner]
        loss = np.full(codes.size, -np.inf)
        loss[keep] = np.abs(log_p[keep] - log_p[partner[keep]]).max(axis=1)
        r = int(np.argmax(loss))
        if loss[r] > best[2]:
            best = (r, int(partner[r]), float(loss[r]))
    return best


def one_shot_worst_neighbours(n: int, eps: float) -> tuple[np.ndarray, np.ndarray, float]:
    """The edge-adjacent tournaments on which the one-shot top-1 release loses the most privacy.

    Enumerates all ``2^(n(n-1)/2)`` tournaments on ``n <= 6`` items (one
    comparison per pair, ``p = 1``, ``d = n``) and every single flipped
    outcome, computes both releases' exact laws
    (:func:`one_shot_top1_probabilities`) and keeps the pair maximising
    ``max_i |log P1_i - log P0_i|``, the exact pure-DP loss of the top-1
    release on that pair. Tournaments whose chain gives a non-finite noise
    scale or a failed stationary solve are skipped. Results are cached per
    ``(n, eps)``; for ``n = 5`` (1024 tournaments, 10 flips each) the search
    takes well under a second.

    Parameters
    ----------
    n : int
        Items, ``2 <= n <= 6``.
    eps : float
        Budget (positive, finite).

    Returns
    -------
    wins0, wins1 : (n, n) numpy.ndarray
        Win matrices differing in one comparison's outcome.
    loss : float
        Their exact loss.
    """
    n = _checks.count(n, "n", 2)
    if not 2 <= n <= _MAX_TOURNAMENT_N:
        raise ValueError(f"need 2 <= n <= {_MAX_TOURNAMENT_N} (exhaustive search)")
    _checks.positive_finite(eps, "eps")
    r0, r1, loss = _worst_one_shot_pair(n, float(eps))
    if r0 < 0:
        raise ValueError("no tournament pair with a finite noise scale")
    wins, _, _ = _all_tournaments(n)
    return wins[r0].copy(), wins[r1].copy(), loss


def audit_one_shot(
    eps: float,
    n: int,
    trials: int,
    rng: np.random.Generator,
    k: int = 1,
    p: float = 1.0,
    neighbours: tuple[np.ndarray, np.ndarray] | None = None,
    alpha: float = 0.05,
) -> AuditResult:
    """Audit the one-shot top-k method (Paper A, Experiment 4) under edge DP, for ``k = 1``.

    Each run releases the index of the largest of
    :func:`dprank.privacy.oneshot.one_shot_scores` (``pi + s W``, fresh standard
    Laplace ``W``), as the library does (ties, of probability zero, to the
    lower index). The claim is ``(eps, 1/n^2)``, the ``delta`` coded in
    :func:`dprank.privacy.oneshot.one_shot_noise_scale`. The statistic is the exact
    log-ratio ``log P1_i - log P0_i`` of the released item ``i``
    (:func:`one_shot_top1_probabilities`), a fixed function of the output;
    ``exact_eps`` is its largest absolute value, the exact pure-DP loss of
    the release on this pair.

    Parameters
    ----------
    eps : float
        Claimed budget (positive, finite).
    n : int
        Items.
    trials : int
        Runs per neighbour.
    rng : numpy.random.Generator
    k : int
        Size of the released set; only ``1`` is supported (the paper's
        ``k = n // 4`` is 1 for ``n = 5``).
    p : float
        Design probability (``d = n p``).
    neighbours : (wins0, wins1), optional
        Edge-adjacent win matrices; default :func:`one_shot_worst_neighbours`
        (requires ``p = 1``, i.e. tournaments).
    alpha : float

    Notes
    -----
    The noise scale depends on the data through the Dobrushin coefficient
    ``rho`` of the chain, so flipping one comparison changes the scale as
    well as the location ``pi``; the exact laws account for both.
    """
    audit_pair = checked_audit(eps, trials, rng, alpha, n=n)
    if k != 1:
        raise ValueError("only k = 1 is supported")
    if neighbours is None:
        if p != 1.0:
            raise ValueError("the worst-neighbour search needs p = 1 (tournaments)")
        wins0, wins1, _ = one_shot_worst_neighbours(n, eps)
    else:
        wins0, wins1 = (np.asarray(w, dtype=np.float64) for w in neighbours)
        if wins0.shape != (n, n) or wins1.shape != (n, n):
            raise ValueError(f"neighbours must be two ({n}, {n}) win matrices")
    log_ratio = np.log(one_shot_top1_probabilities(wins1, eps, p)) - np.log(
        one_shot_top1_probabilities(wins0, eps, p)
    )
    exact = float(np.abs(log_ratio).max())

    def sampler(wins):
        def draw(g, size):
            scores = one_shot_scores(wins, p, 1, eps, standard_laplace(g, (size, n)))
            return log_ratio[np.argmax(scores, axis=1)]

        return draw

    delta = one_shot_privacy_loss(eps, n_items=n).delta
    return audit_pair(
        f"one_shot_top1[n={n}]",
        sampler(wins0),
        sampler(wins1),
        claimed_delta=delta,
        exact_eps=exact,
    )
