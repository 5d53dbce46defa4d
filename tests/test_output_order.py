"""The ranking's rows come best first: ``Ranking.columns`` and ``Ranking.order`` order the
items as the stable sort of their ranks does, with or without ties."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from dprank.api import _by_rank


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(1, 12), max_size=12), st.booleans())
def test_by_rank_is_the_stable_sort(ranks, permutation):
    rng = np.random.default_rng(len(ranks))
    ranks = rng.permutation(len(ranks)) + 1 if permutation else np.array(ranks, dtype=np.int64)
    expected = np.argsort(ranks, kind="stable")
    got = _by_rank(np.asarray(ranks, dtype=np.int64))
    assert got.dtype == expected.dtype and np.array_equal(got, expected)


def test_by_rank_at_scale():
    rng = np.random.default_rng(0)
    ranks = rng.permutation(100_000) + 1
    assert np.array_equal(_by_rank(ranks), np.argsort(ranks, kind="stable"))
    ranks[5] = ranks[6]  # a tie (and a place left empty): the sort
    assert np.array_equal(_by_rank(ranks), np.argsort(ranks, kind="stable"))
