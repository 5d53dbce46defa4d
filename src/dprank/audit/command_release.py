"""Audits of the command line's release functions as shipped (exact samplers, declared bounds).

:mod:`dprank.audit` audits the papers' mechanisms with numpy's noise, as the
studies draw it. These audits run the code that ``dprank rank`` and ``dprank
privatize`` run on somebody's data: the registered methods with a
:class:`dprank.privacy.noise.NoiseSource` (the exact samplers), the contribution bound
of :func:`dprank.privacy.release.bound_user_contributions` and the local release of
:func:`dprank.privacy.release.local_release`. The bits come from a seeded source so that
the audit is reproducible; the samplers are the released ones.

Each audit runs the release on two neighbouring inputs under its privacy unit and
bounds epsilon from below with :func:`dprank.audit.audit_mechanism`.
"""

from __future__ import annotations

import functools

import numpy as np

from .. import audit
from ..data.comparisons import Comparisons
from ..methods import get_method
from ..privacy.noise import NoiseSource, laplace_scale, rr_effective_epsilon
from ..privacy.private_ties import edge_epsilon, individual_epsilon, local_epsilon
from ..privacy.release import bound_user_contributions, local_release

__all__ = [
    "audit_release_counts_edge",
    "audit_release_counts_individual",
    "audit_release_laplace_ldp",
    "audit_release_mle_edge",
    "audit_release_rr",
    "audit_release_rr3",
    "audit_release_ties_edge",
    "audit_release_ties_individual",
]


def _noise(rng: np.random.Generator) -> NoiseSource:
    return NoiseSource.from_seed(rng)


def _local_sampler(y: float, eps: float, mechanism: str, ties: bool = False):
    """``size`` runs of the shipped local release on one comparison with outcome ``y``.

    One call of :func:`dprank.privacy.release.local_release` on ``size`` users who each made
    that comparison: every comparison is released on its own, and the records
    come back ordered by user, so row ``k`` is run ``k``. ``ties``: a vote with three
    possible outcomes (``mechanism="rr"`` is then three-outcome randomized response).
    """

    def draw(g, size):
        c = Comparisons(
            n_items=2,
            i=np.zeros(size, np.int64),
            j=np.ones(size, np.int64),
            y=np.full(size, float(y)),
            count=np.ones(size),
            user=np.arange(size),
            ties=ties,
        )
        return local_release(c, np.full(size, eps), _noise(g), mechanism).y

    return draw


def _local_audit(name, eps, trials, rng, alpha, mechanism, exact, ties=False):
    """Audit the shipped local release of one comparison, outcome 0 vs 1 (:func:`_local_sampler`).

    ``exact(eps)`` is the release's exact loss; the arguments are checked first.
    """
    audit_pair = audit.checked_audit(eps, trials, rng, alpha)
    d0, d1 = (_local_sampler(y, eps, mechanism, ties) for y in (0.0, 1.0))
    return audit_pair(name, d0, d1, exact_eps=exact(eps))


def audit_release_rr(eps: float, trials: int, rng, alpha: float = 0.05):
    """``dprank privatize`` (randomized response): one comparison won vs lost."""
    name = "dprank privatize: randomized response (exact)"
    return _local_audit(name, eps, trials, rng, alpha, "rr", rr_effective_epsilon)


def audit_release_laplace_ldp(eps: float, trials: int, rng, alpha: float = 0.05):
    """``dprank privatize --mechanism laplace``: one outcome 0 vs 1 plus exact grid noise."""
    name = "dprank privatize --mechanism laplace (exact grid)"
    return _local_audit(
        name, eps, trials, rng, alpha, "laplace", lambda e: 1.0 / laplace_scale(1.0, e)
    )


def audit_release_counts_edge(eps: float, n: int, trials: int, rng, alpha: float = 0.05):
    """``dprank rank --privacy edge --method counts``: a tournament with one outcome flipped.

    The statistic is the log-likelihood ratio of the released vector under the two
    Laplace laws (``dprank.audit``'s count audits use the same).
    """
    audit_pair = audit.checked_audit(eps, trials, rng, alpha, n=n)
    wins0 = audit.complete_wins(n)
    wins1 = wins0.copy()
    wins1[0, 1], wins1[1, 0] = wins0[1, 0], wins0[0, 1]
    method = get_method("edge_counts")
    c0, c1 = Comparisons.from_wins(wins0), Comparisons.from_wins(wins1)
    m0 = np.asarray(c0.to_wins().sum(axis=1), dtype=np.float64)
    m1 = np.asarray(c1.to_wins().sum(axis=1), dtype=np.float64)
    scale = laplace_scale(2.0, eps)

    def draw(k, g, size):
        noise = _noise(g)
        x = noise.laplace_mechanism(np.broadcast_to((m0, m1)[k], (size, n)), 2.0, eps)
        return audit.laplace_llr(x, m0, m1, scale)

    def shipped(k, g, size):
        noise = _noise(g)
        x = np.vstack([method.fit((c0, c1)[k], eps, noise).scores for _ in range(size)])
        return audit.laplace_llr(x, m0, m1, scale)

    name = "dprank rank: edge counts (exact grid)"
    return _audit_shipped(audit_pair, name, draw, shipped, "edge counts")


def _audit_shipped(audit_pair, name: str, draw, shipped, what: str, **claims):
    """``audit_pair`` of the batched sampler ``draw(k, g, size)`` of neighbour ``k`` (0, 1).

    Before the audit, each neighbour's batched sampler is checked against its shipped
    release ``shipped(k, g, size)``: one row from one seeded source must be the same
    (one row at a time consumes the source like the shipped call does). ``claims``
    go to ``audit_pair`` (``exact_eps``).
    """
    samplers = []
    for k in (0, 1):
        batched = functools.partial(draw, k)
        x = batched(np.random.default_rng(2), 1)
        if not np.array_equal(x, shipped(k, np.random.default_rng(2), 1)):
            raise AssertionError(f"the audit's batched {what} is not the shipped release")
        samplers.append(batched)
    return audit_pair(name, *samplers, **claims)


def _score_gap_sampler(release):
    """``size`` shipped releases in a row from one source: ``scores[0] - scores[1]`` of each.

    ``release(noise)`` runs the shipped path once on a
    :class:`dprank.privacy.noise.NoiseSource` and returns the released scores.
    """

    def draw(g, size):
        noise = _noise(g)
        out = np.empty(size)
        for k in range(size):
            scores = release(noise)
            out[k] = scores[0] - scores[1]
        return out

    return draw


def _individual_data(n: int, L: int, heavy: int) -> tuple[Comparisons, Comparisons]:
    """Two neighbours under individual DP: user 0 has ``L`` comparisons, or ``heavy``.

    The other users compare every pair once. In ``D0`` user 0's comparisons all go
    to item 0 over item 1; in ``D1`` user 0 made ``heavy`` comparisons (more than
    the bound), all won by item 1.
    """
    a, b = np.triu_indices(n, 1)
    base_i, base_j = a, b
    base_user = np.arange(a.size) + 1

    def make(k, winner, loser):
        i = np.concatenate([np.full(k, winner), base_i])
        j = np.concatenate([np.full(k, loser), base_j])
        user = np.concatenate([np.zeros(k, np.int64), base_user])
        return Comparisons(n_items=n, i=i, j=j, y=np.ones(i.size), count=np.ones(i.size), user=user)

    return make(L, 0, 1), make(heavy, 1, 0)


def audit_release_counts_individual(
    eps: float, n: int, L: int, trials: int, rng, alpha: float = 0.05
):
    """``dprank rank --privacy individual --method counts --max-per-user L``, one heavy user.

    In ``D1`` the user made ``3 L`` comparisons: the shipped bound keeps ``L`` of
    them at random, so the noise (``Laplace(2L/eps)``) still covers the change.
    The statistic is the released count of item 0 minus that of item 1.
    """
    audit_pair = audit.checked_audit(eps, trials, rng, alpha, n=n, L=L)
    d0, d1 = _individual_data(n, L, 3 * L)
    method = get_method("individual_counts")

    def sampler(data):
        def release(noise):
            bounded, _ = bound_user_contributions(data, L, noise)
            return method.fit(bounded, eps, noise, max_per_user=L).scores

        return _score_gap_sampler(release)

    return audit_pair(
        "dprank rank: individual counts, declared L, heavy user (exact grid)",
        sampler(d0),
        sampler(d1),
    )


def audit_release_mle_edge(eps: float, n: int, trials: int, rng, alpha: float = 0.05):
    """``dprank rank --privacy edge`` (Algorithm 1 as released: exact noisy win totals, then
    the fit), one outcome flipped.

    The statistic is ``theta_0 - theta_1`` of the released estimate (a weaker
    statistic than the likelihood ratio of :func:`dprank.audit.audit_perturbed_mle_edge`;
    this audit checks the shipped path, that one the mechanism's analysis).
    """
    audit_pair = audit.checked_audit(eps, trials, rng, alpha, n=n)
    wins0 = audit.complete_wins(n)
    wins1 = wins0.copy()
    wins1[0, 1], wins1[1, 0] = wins0[1, 0], wins0[0, 1]
    method = get_method("edge_mle")

    def sampler(wins):
        data = Comparisons.from_wins(wins)
        return _score_gap_sampler(lambda noise: method.fit(data, eps, noise).scores)

    return audit_pair(
        "dprank rank: edge MLE, Algorithm 1 (exact noisy win totals)",
        sampler(wins0),
        sampler(wins1),
    )


# --------------------------------------------------------------------------- votes with ties


def _ties_votes(n: int, per_pair: int, extra=(), user=None) -> Comparisons:
    """Every pair of ``n`` items voted ``per_pair`` times (a win, a tie, a loss in turn), plus
    ``extra`` votes ``(i, j, y)``; with ``user``, each base vote its own voter and the extra
    votes voter 0."""
    a, b = np.triu_indices(n, 1)
    outcomes = np.array([1.0, 0.5, 0.0])
    i = np.repeat(a, per_pair)
    j = np.repeat(b, per_pair)
    y = np.tile(outcomes, i.size // 3 + 1)[: i.size]
    extra = np.asarray(extra, dtype=np.float64).reshape(-1, 3)
    i = np.concatenate([extra[:, 0].astype(np.int64), i])
    j = np.concatenate([extra[:, 1].astype(np.int64), j])
    y = np.concatenate([extra[:, 2], y])
    users = None
    if user is not None:
        users = np.concatenate([np.zeros(len(extra), np.int64), np.arange(i.size - len(extra)) + 1])
    return Comparisons(n_items=n, i=i, j=j, y=y, count=np.ones(i.size), user=users, ties=True)


def audit_release_ties_edge(eps: float, n: int, trials: int, rng, alpha: float = 0.05):
    """``dprank rank --privacy edge --model davidson`` (``edge_ties``): one vote moved from a
    win of item 0 to a win of item 1 (the points change by 1 each: the sensitivity 2).

    The statistic is the log-likelihood ratio of the released noisy points and ties
    (the mechanism's output, ``TiesRelease.statistic``, drawn on twice the statistic and
    halved; the fit is post-processing) under the two Laplace laws (exact loss ``eps``).
    The runs are drawn in one batch by the exact sampler; one run is checked against the
    shipped ``edge_ties`` fit.
    """
    audit_pair = audit.checked_audit(eps, trials, rng, alpha, n=n)
    from ..fit.ties import TieCounts
    from ..privacy.private_ties import item_points

    data = [_ties_votes(n, 3, extra=[(0, 1, y)]) for y in (1.0, 0.0)]
    means = [
        np.append(*item_points(TieCounts.from_pair_statistics(d.pair_statistics()))[:2])
        for d in data
    ]
    method = get_method("edge_ties")
    scale = laplace_scale(4.0, eps) / 2.0  # drawn on twice the statistic, then halved

    def draw(k, g, size):
        doubled = np.broadcast_to(2.0 * means[k], (size, n + 1))
        x = _noise(g).laplace_mechanism(doubled, 4.0, eps) / 2.0
        return audit.round_llr(audit.laplace_llr(x, means[0], means[1], scale))

    def shipped(k, g, size):
        x = np.vstack([method.fit(data[k], eps, _noise(g)).release.statistic])
        return audit.round_llr(audit.laplace_llr(x, means[0], means[1], scale))

    name = "dprank rank: edge ties, noisy points (exact grid)"
    exact = edge_epsilon(scale)
    return _audit_shipped(audit_pair, name, draw, shipped, "edge ties statistic", exact_eps=exact)


def audit_release_ties_individual(
    eps: float, n: int, L: int, trials: int, rng, alpha: float = 0.05
):
    """``dprank rank --privacy individual --model davidson --max-per-user L``, a heavy voter.

    In ``D0`` voter 0 cast ``L`` votes for item 0 over item 1; in ``D1`` ``3 L`` votes for
    item 1, of which the shipped bound keeps ``L``. The statistic is the log-likelihood
    ratio of the released cells "0 won" and "1 won" of the pair (0, 1) (``L`` apart in
    each: the ``2 L`` sensitivity of the table, exact loss ``eps``). The runs are drawn in
    one batch by the exact sampler on the bounded table; one run is checked against the
    shipped path (bound, then the ``individual_ties`` fit).
    """
    audit_pair = audit.checked_audit(eps, trials, rng, alpha, n=n, L=L)
    from ..fit.ties import TieCounts

    data = [
        _ties_votes(n, 3, extra=[(0, 1, 1.0)] * L, user=True),
        _ties_votes(n, 3, extra=[(0, 1, 0.0)] * (3 * L), user=True),
    ]
    method = get_method("individual_ties")
    P = n * (n - 1) // 2
    scale = laplace_scale(2.0 * L, eps)

    def cells(bounded):
        table = TieCounts.from_pair_statistics(bounded.pair_statistics())
        return np.concatenate(table.full_table())

    ref = []
    for d in data:
        bounded, _ = bound_user_contributions(d, L, _noise(np.random.default_rng(0)))
        ref.append(cells(bounded))
    pick = [0, P]  # pair (0, 1) is the first in triu order: its W and L cells
    m0, m1 = ref[0][pick], ref[1][pick]

    def draw(k, g, size):
        noise = _noise(g)
        bounded, _ = bound_user_contributions(data[k], L, noise)
        x = noise.laplace_mechanism(np.broadcast_to(cells(bounded), (size, 3 * P)), 2.0 * L, eps)
        return audit.round_llr(audit.laplace_llr(x[:, pick], m0, m1, scale))

    def shipped(k, g, size):
        noise = _noise(g)
        bounded, _ = bound_user_contributions(data[k], L, noise)
        x = method.fit(bounded, eps, noise, max_per_user=L).release.statistic[None, :]
        return audit.round_llr(audit.laplace_llr(x[:, pick], m0, m1, scale))

    name = "dprank rank: voter ties, declared L, heavy voter (exact grid)"
    exact = individual_epsilon(scale, L)
    return _audit_shipped(audit_pair, name, draw, shipped, "voter ties table", exact_eps=exact)


def audit_release_rr3(eps: float, trials: int, rng, alpha: float = 0.05):
    """``dprank privatize`` of votes with ties (three-outcome randomized response): one vote
    won by item 0 vs won by item 1; the statistic is the released outcome."""
    name = "dprank privatize: three-outcome randomized response (exact)"
    return _local_audit(name, eps, trials, rng, alpha, "rr", local_epsilon, ties=True)
