"""The edge-list comparison type (dprank.data.comparisons)."""

import numpy as np
import pytest

from dprank.data.comparisons import Comparisons


def _random_wins(rng, n, p):
    mask = np.triu(rng.random((n, n)) < p, 1)
    cnt = rng.integers(1, 4, size=(n, n)) * mask
    wins_upper = rng.binomial(cnt, 0.5)
    return (wins_upper + (cnt - wins_upper).T).astype(float)


def test_round_trip_dense():
    rng = np.random.default_rng(1)
    wins = _random_wins(rng, 30, 0.3)
    c = Comparisons.from_wins(wins)
    np.testing.assert_array_equal(c.to_wins(), wins)
    assert c.n_comparisons == wins.sum()


def test_pair_statistics_aggregates_both_orders():
    c = Comparisons.from_winner_loser([0, 2, 2, 1], [2, 0, 0, 3], n_items=5)
    ps = c.pair_statistics()
    np.testing.assert_array_equal(ps.a, [0, 1])
    np.testing.assert_array_equal(ps.b, [2, 3])
    np.testing.assert_array_equal(ps.n, [3, 1])
    np.testing.assert_array_equal(ps.w, [1, 1])
    np.testing.assert_array_equal(c.degrees(), [1, 1, 1, 1, 0])
    k, lab = c.components()
    assert k == 3
    assert lab[0] == lab[2] and lab[1] == lab[3] and lab[4] not in (lab[0], lab[1])


def test_with_records_keeps_items_and_labels_only():
    c = Comparisons.from_winner_loser([0, 1], [1, 2], n_items=3, labels=["a", "b", "c"])
    c = Comparisons(
        n_items=3, i=c.i, j=c.j, y=c.y, count=c.count, labels=c.labels, user=[0, 1], ties=True
    )
    other = c.with_records([2], [0], [1.0], [2.0])
    assert other.n_items == 3 and other.labels.tolist() == ["a", "b", "c"]
    assert other.user is None and not other.ties and not other.weighted  # not taken from c
    np.testing.assert_array_equal(other.to_wins()[2], [2.0, 0.0, 0.0])
    weighted = c.with_records([0], [1], [0.25], [0.5], weighted=True)
    assert weighted.weighted and weighted.n_comparisons == 0.5
    with pytest.raises(ValueError):
        c.with_records(
            [0], [3], [1.0], [1.0]
        )  # an item out of range, checked as by the constructor


def test_real_valued_outcomes_and_users():
    c = Comparisons(
        n_items=3,
        i=[0, 1, 1],
        j=[1, 0, 2],
        y=[0.7, -0.4, 1.0],
        count=[2, 1, 1],
        user=[0, 1, 1],
        user_epsilon=[1.0, 2.0],
    )
    ps = c.pair_statistics()
    np.testing.assert_allclose(ps.w, [2 * 0.7 + 1.4, 1.0])
    np.testing.assert_array_equal(c.per_user_counts(), [2, 2])
    assert c.n_users == 2


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"i": [0, 1], "j": [1, 1]}, "itself"),
        ({"i": [0, -1], "j": [1, 2]}, "negative"),
        ({"i": [0, 5], "j": [1, 2]}, "out of range"),
        ({"i": [0, 1], "j": [1, 2], "y": [np.nan, 1.0]}, "not finite"),
        ({"i": [0, 1], "j": [1, 2], "count": [1.0, -2.0]}, "positive"),
        ({"i": [0, 1], "j": [1, 2], "count": [1.0, 0.0]}, "positive"),
        ({"i": [0.5, 1], "j": [1, 2]}, "integer"),
        ({"i": [0, np.nan], "j": [1, 2]}, "NaN"),
    ],
)
def test_bad_input(kwargs, match):
    args = {"n_items": 3, "y": [1.0, 1.0], "count": [1.0, 1.0]} | kwargs
    with pytest.raises(ValueError, match=match):
        Comparisons(**args)


def test_bad_dense_input():
    with pytest.raises(ValueError, match="non-negative"):
        Comparisons.from_wins([[0, -1], [1, 0]])
    with pytest.raises(ValueError, match="NaN"):
        Comparisons.from_wins([[0, np.nan], [1, 0]])
    with pytest.raises(ValueError, match="diagonal"):
        Comparisons.from_wins([[1, 1], [1, 0]])
