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


def _records(rng, kind, n=40, m=600):
    """Records of one kind, as int64 and float64 arrays (the compiled checks' input)."""
    if kind.startswith("sorted"):  # distinct pairs in (a, b) order, either item first
        a, b = np.triu_indices(n, 1)
        keep = np.sort(rng.choice(a.size, m, replace=False))
        a, b = a[keep], b[keep]
        flip = rng.random(m) < 0.5
        i, j = np.where(flip, b, a), np.where(flip, a, b)
    else:  # repeated pairs in any order
        i = rng.integers(0, n, m)
        j = (i + rng.integers(1, n, m)) % n
    y = (rng.random(m) < 0.4).astype(float)
    count = np.ones(m)
    if kind in ("sorted-real", "real"):  # released local-DP outcomes, weights
        y = rng.normal(0.5, 2.0, m)
        count = rng.choice([1.0, 0.5, 2.25, 1e-17], m)
    if kind in ("sorted-counts", "counts"):
        count = rng.integers(1, 5, m).astype(float)
    if kind == "ties":
        y = rng.choice([0.0, 0.5, 1.0], m)
    if kind == "sorted-overflow":  # finite records whose outcome sums overflow
        y = np.where(rng.random(m) < 0.5, 1e300, 0.0)
        count = np.full(m, 1e10)
    return i.astype(np.int64), j.astype(np.int64), y, count


@pytest.mark.parametrize(
    "kind",
    ["sorted", "sorted-real", "sorted-counts", "sorted-overflow", "binary", "counts", "real",
     "ties"],
)  # fmt: skip
def test_compiled_checks_give_the_numpy_records_and_pairs(kind):
    """Records checked and copied by the compiled pass (int64 and float64 arrays) and by the
    checks one at a time (lists): the same records and the same pair statistics, bit for
    bit, dtypes included, through the sorted, radix and numpy aggregations."""
    from dprank.base import _compiled
    from dprank.fit.sparse import SparseData

    rng = np.random.default_rng(len(kind))
    i, j, y, count = _records(rng, kind)
    flags = {"weighted": kind in ("real", "sorted-real"), "ties": kind == "ties"}
    fast = Comparisons(n_items=40, i=i, j=j, y=y, count=count, **flags)
    slow = Comparisons(
        n_items=40, i=i.tolist(), j=j.tolist(), y=y.tolist(), count=count.tolist(), **flags
    )
    assert "records" in fast._cache and "records" not in slow._cache
    assert (fast._cache["records"] & _compiled.RECORDS_SORTED > 0) == kind.startswith("sorted")
    i[0] = j[0]  # the inputs were copied
    assert fast.i[0] != fast.j[0] and not fast.i.flags.writeable
    for name in ("i", "j", "y", "count"):
        got, want = getattr(fast, name), getattr(slow, name)
        assert got.dtype == want.dtype and got.tobytes() == want.tobytes()
    with np.errstate(over="ignore"):  # numpy's product overflows where the sums do
        got, want = fast.pair_statistics(), slow.pair_statistics()
    for name in ("a", "b", "n", "w", "t"):
        x, ref = getattr(got, name), getattr(want, name)
        if ref is None:
            assert x is None
            continue
        assert x.dtype == ref.dtype and x.tobytes() == ref.tobytes(), name
    # sorted statistics of finite sums need no second look (nor do the radix sort's whole
    # numbers); overflowed sums are refused
    checked = kind.startswith("sorted") and kind != "sorted-overflow"
    assert got.sorted_by_construction == (checked or want.sorted_by_construction)
    if kind == "sorted-overflow":
        assert not np.all(np.isfinite(got.w))
        with pytest.raises(ValueError, match="finite"):
            SparseData(fast)
    else:
        got_rows, want_rows = SparseData(fast).rows(), SparseData(slow).rows()
        for x, ref in zip(got_rows, want_rows, strict=True):
            np.testing.assert_array_equal(x, ref)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"i": [0, 1, 2], "j": [1, 1, 2]}, r"record 1 compares item 1 with itself"),
        ({"i": [0, -1, 2], "j": [1, 2, 2]}, r"i\[1\] = -1 is negative"),
        ({"i": [0, 1, 2], "j": [1, 2, 3]}, r"j\[2\] = 3 is out of range"),
        ({"y": [1.0, np.inf, np.nan]}, r"y\[1\] = inf is not finite"),
        ({"count": [1.0, 2.0, 1.5]}, r"count\[2\] = 1.5 must be a positive whole number"),
        ({"count": [1.0, np.nan, 1.0]}, r"count\[1\] = nan is not finite"),
        ({"count": [1.0, 1.0, -0.0]}, r"count\[2\] = -0.0 must be positive"),
        ({"y": [1.0, 0.25, 0.0], "ties": True}, r"y\[1\] = 0.25 is no outcome"),
        ({"count": [1.0, 0.5, 0.0], "weighted": True}, r"count\[2\] = 0.0 must be positive"),
    ],
)
def test_compiled_checks_name_the_first_bad_record(kwargs, match):
    """A bad record of int64 and float64 arrays (the compiled checks) is named as the checks
    one at a time name it (lists): the same message."""
    args = {"n_items": 3, "i": [0, 1, 0], "j": [1, 2, 2], "y": [1.0, 0.0, 1.0],
            "count": [1.0, 1.0, 1.0]} | kwargs  # fmt: skip
    arrays = dict(args)
    for name, dtype in (("i", np.int64), ("j", np.int64), ("y", float), ("count", float)):
        arrays[name] = np.asarray(args[name], dtype=dtype)
    with pytest.raises(ValueError, match=match) as fast:
        Comparisons(**arrays)
    with pytest.raises(ValueError, match=match) as slow:
        Comparisons(**args)
    assert str(fast.value) == str(slow.value)
