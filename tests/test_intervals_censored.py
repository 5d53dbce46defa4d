"""Rank intervals of releases whose graph is public (edge DP) with many censored items.

Items compared a handful of times get noisy win totals beyond what they can attain, and
scores unbounded on a side. Under edge DP the graph is public, so such an item's noisy
total has an exact likelihood: it enters the rank intervals' posterior draws by it, and
the other items' intervals need not leave room for every censored item at once (which
made them span most places on heavy-tailed graphs, issue 46). Under individual DP the
declared design is only a bound, and the rule that does leave room is kept
(tests/test_intervals.py::test_rank_intervals_count_every_censored_item_that_may_lie_above).
"""

import numpy as np

from dprank.data.models import BTL
from dprank.intervals import EdgeDesign, intervals
from dprank.methods import get_method


def _hub_design(n=40, hub=15, seed=3):
    """``hub`` items compared 30 times with each other, the rest 3 times with a few of them."""
    rng = np.random.default_rng(seed)
    a, b = np.triu_indices(n, 1)
    both = (a < hub) & (b < hub)
    keep = both | ((a < hub) & (rng.random(a.size) < 0.3))
    return EdgeDesign(n, a[keep], b[keep], np.where(both, 30.0, 3.0)[keep]), rng


def test_censored_items_with_an_exact_likelihood_do_not_widen_every_other_item():
    des, rng = _hub_design()
    n = des.n_items
    theta = rng.normal(0.0, 1.0, n)
    theta -= theta.mean()
    meth = get_method("edge_mle")
    fit = meth.fit(des.simulate(theta, BTL, rng), 2.0, rng)
    f = intervals(fit.scores, meth, 2.0, des, rng=5, calibration=fit.details, n_boot=40)
    up = np.isposinf(f.score_hi.to_numpy())
    down = np.isneginf(f.score_lo.to_numpy())
    fin = ~up & ~down
    lo, hi = f.rank_lo.to_numpy(), f.rank_hi.to_numpy()
    assert up.sum() >= 10 and down.sum() >= 10 and fin.sum() >= 5
    # the items unbounded above may be the best, those unbounded below the last
    assert np.all(lo[up] == 1) and np.all(hi[down] == n)
    # the well-compared items: some are placed above most of the items unbounded above
    # (each of those is ranked by its total's likelihood, not at the top of the scale)
    assert np.sum(hi[fin] < 1 + up.sum()) >= 2
    assert np.sum(lo[fin] > n - down.sum()) >= 2
    assert np.all(lo <= hi) and lo.min() >= 1 and hi.max() <= n
