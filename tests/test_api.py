"""dprank.rank and the input reader: the documented example, input types, labels, validation."""

from __future__ import annotations

import doctest

import numpy as np
import pandas as pd
import pytest

import dprank
import dprank.api
from dprank.api import DisconnectedWarning, method_name
from dprank.data.comparisons import Comparisons
from dprank.data.inputs import InputError, comparisons_from_frame, read_comparisons


def test_docstring_example_runs():
    result = doctest.testmod(dprank.api)
    assert result.attempted >= 4 and result.failed == 0


def test_rank_is_exported_lazily():
    assert dprank.rank is dprank.api.rank
    assert dprank.Ranking is dprank.api.Ranking


def _games():
    winners = ["a", "a", "b", "c", "a", "d", "b", "d"]
    losers = ["b", "c", "c", "d", "d", "c", "d", "b"]
    return winners, losers


def test_data_frame_arrays_win_matrix_and_comparisons_agree():
    winners, losers = _games()
    frame = pd.DataFrame({"winner": winners, "loser": losers})
    from_frame = dprank.rank(frame, privacy="edge", epsilon=1.0, rng=3)
    from_arrays = dprank.rank((winners, losers), privacy="edge", epsilon=1.0, rng=3)
    from_dict = dprank.rank({"winner": winners, "loser": losers}, "edge", 1.0, rng=3)
    np.testing.assert_array_equal(from_frame.scores, from_arrays.scores)
    np.testing.assert_array_equal(from_frame.scores, from_dict.scores)
    wins = Comparisons(
        n_items=4,
        i=from_frame_codes(frame)[0],
        j=from_frame_codes(frame)[1],
        y=np.ones(8),
        count=np.ones(8),
    ).to_wins()
    from_matrix = dprank.rank(wins, privacy="edge", epsilon=1.0, rng=3)
    np.testing.assert_allclose(from_matrix.scores, from_frame.scores, rtol=1e-9, atol=1e-9)
    assert dprank.rank(frame, privacy="none").order.tolist()[0] == "a"


def from_frame_codes(frame):
    c = comparisons_from_frame(frame).comparisons
    return c.i, c.j


def test_item_a_item_b_outcome_layout_equals_winner_loser():
    winners, losers = _games()
    flip = np.arange(len(winners)) % 2 == 0
    frame = pd.DataFrame(
        {
            "item_a": np.where(flip, losers, winners),
            "item_b": np.where(flip, winners, losers),
            "outcome": np.where(flip, 0, 1),
        }
    )
    a = dprank.rank(frame, privacy="none")
    b = dprank.rank(pd.DataFrame({"winner": winners, "loser": losers}), privacy="none")
    np.testing.assert_allclose(a.scores, b.scores, atol=1e-10)


def test_count_column_equals_repeated_rows():
    frame = pd.DataFrame({"winner": ["a", "b", "c"], "loser": ["b", "c", "a"], "count": [3, 1, 2]})
    repeated = frame.loc[frame.index.repeat(frame["count"]), ["winner", "loser"]]
    a = dprank.rank(frame, privacy="none")
    b = dprank.rank(repeated, privacy="none")
    np.testing.assert_allclose(a.scores, b.scores, atol=1e-10)
    assert a.n_comparisons == 6


def test_top_k_and_errors():
    winners, losers = _games()
    frame = pd.DataFrame({"winner": winners, "loser": losers})
    result = dprank.rank(frame, privacy="none", top_k=2)
    assert result.to_frame()["in_top_k"].tolist() == [True, True, False, False]
    with pytest.raises(ValueError, match="top_k"):
        dprank.rank(frame, privacy="none", top_k=5)
    with pytest.raises(ValueError, match="needs epsilon"):
        dprank.rank(frame, privacy="edge")
    with pytest.raises(ValueError, match="positive"):
        dprank.rank(frame, privacy="edge", epsilon=-1)
    with pytest.raises(ValueError, match="no method 'borda'"):
        dprank.rank(frame, privacy="edge", epsilon=1, method="borda")
    with pytest.raises(ValueError, match="needs the item universe declared"):
        dprank.rank(frame, privacy="individual", epsilon=1, max_per_user=2)
    with pytest.raises(InputError, match="no 'user' column"):
        dprank.rank(frame, privacy="individual", epsilon=1, max_per_user=2, items_from_data=True)
    with pytest.raises(ValueError, match="btl"):  # Algorithm 1's perturbed MLE
        dprank.rank(frame, privacy="edge", epsilon=1, method="mle", model="tm")


def test_disconnected_graph_warns_with_the_number_of_components():
    frame = pd.DataFrame({"winner": ["a", "c", "e"], "loser": ["b", "d", "f"]})
    with pytest.warns(DisconnectedWarning, match="3 components"):
        result = dprank.rank(frame, privacy="edge", epsilon=1.0, rng=0)
    assert result.n_components == 3 and np.all(np.isfinite(result.scores))


def test_method_names():
    """Without a method, the level's default (dprank.methods._default_methods, from the
    benchmark)."""
    from dprank.methods._default_methods import DEFAULT_METHOD

    assert method_name("edge") == f"edge_{DEFAULT_METHOD['edge']}"
    assert method_name("local") == f"local_{DEFAULT_METHOD['local']}"
    assert method_name("edge", "mle") == "edge_mle"
    assert method_name("none", "counts") == "nonprivate_counts"
    assert method_name("individual", "counts", as_published=True) == (
        "individual_counts_as_published"
    )
    with pytest.raises(ValueError):
        method_name("edge", "counts", as_published=True)


# --------------------------------------------------------------------------- reader


def test_labels_keep_their_spelling_and_integers_sort_numerically(tmp_path):
    path = tmp_path / "x.csv"
    path.write_text("winner,loser\n10,9\n2,10\n9,1\n")
    c = read_comparisons(path).comparisons
    assert c.labels.tolist() == ["1", "2", "9", "10"]
    path.write_text("winner,loser\n007,7\n7,1\n")
    c = read_comparisons(path).comparisons
    assert c.labels.tolist() == ["1", "007", "7"]
    path.write_text("winner,loser\n1,x\n")
    assert read_comparisons(path).comparisons.labels.tolist() == ["1", "x"]


def test_integer_and_text_reading_give_the_same_comparisons(tmp_path):
    rng = np.random.default_rng(0)
    a = rng.integers(0, 30, 200)
    b = (a + rng.integers(1, 30, 200)) % 30
    ints, text = tmp_path / "ints.csv", tmp_path / "text.csv"
    pd.DataFrame({"winner": a, "loser": b, "user": a % 7}).to_csv(ints, index=False)
    pd.DataFrame({"winner": a, "loser": b, "user": a % 7}).astype(str).assign(pad=" ").to_csv(
        text, index=False
    )
    c1, c2 = read_comparisons(ints).comparisons, read_comparisons(text).comparisons
    for name in ("i", "j", "user", "labels"):
        np.testing.assert_array_equal(getattr(c1, name), getattr(c2, name))


def test_tsv_and_header_case(tmp_path):
    path = tmp_path / "x.tsv"
    path.write_text("Item_A\tITEM_B\tOutcome\tUser\nx y\tz\t1\tu\n")
    table = read_comparisons(path)
    assert table.layout == "item_a,item_b,outcome"
    assert table.comparisons.labels.tolist() == ["x y", "z"]


def test_local_budgets_must_agree_within_a_user(tmp_path):
    path = tmp_path / "x.csv"
    path.write_text("item_a,item_b,outcome,user,epsilon\na,b,1,u,1\nb,c,0,u,2\n")
    with pytest.raises(InputError, match=r"line 3, column 5 \(epsilon\).*different budgets"):
        read_comparisons(path, need_users=True, need_epsilon=True)


def test_data_frame_errors_name_the_row():
    frame = pd.DataFrame({"winner": ["a", "b", None], "loser": ["b", "c", "a"]})
    with pytest.raises(InputError, match=r"row 2, column 1 \(winner\): missing value"):
        comparisons_from_frame(frame)


def test_as_published_always_warns():
    frame = pd.DataFrame({"winner": ["a", "b"], "loser": ["b", "c"], "user": ["u", "v"]})
    for kwargs in ({"method": "counts", "as_published": True}, {"method": "counts_as_published"}):
        with pytest.warns(UserWarning, match="2 eps-DP"):
            dprank.rank(
                frame,
                privacy="individual",
                epsilon=1.0,
                max_per_user=1,
                items=list("abc"),
                **kwargs,
            )


def test_ledger_in_the_api_refuses_a_release_past_the_budget(tmp_path):
    from dprank.ledger import BudgetExceeded, Ledger

    winners, losers = _games()
    frame = pd.DataFrame({"winner": winners, "loser": losers})
    path = tmp_path / "budget.ledger"
    for _ in range(2):
        dprank.rank(frame, privacy="edge", epsilon=1.0, ledger=path, budget=2.5)
    with pytest.raises(BudgetExceeded, match=r"budget 2\.5"):
        dprank.rank(frame, privacy="edge", epsilon=1.0, ledger=path, budget=2.5)
    (summary,) = Ledger(path).summary()
    assert summary.comparison.epsilon == 2.0 and len(summary.releases) == 2
    with pytest.raises(ValueError, match="ledger"):
        dprank.rank(frame, privacy="none", ledger=path)


@pytest.mark.parametrize("top_k", [None, 2])
def test_ranking_csv_without_pandas_is_pandas_csv(tmp_path, top_k):
    """``dprank rank`` writes ``Ranking.columns`` with csv: the bytes of ``to_frame().to_csv``."""
    from dprank.cli._output import csv_writer

    games = pd.DataFrame(
        {
            "winner": ["a,b", "c", 'q"x', "d", "a,b", "c", "e", "d"],
            "loser": ["c", 'q"x', "d", "e", "d", "e", "a,b", 'q"x'],
        }
    )
    ranking = dprank.rank(games, privacy="none", top_k=top_k)
    columns = ranking.columns()
    assert list(columns) == list(ranking.to_frame().columns)
    ours, theirs = tmp_path / "ours.csv", tmp_path / "theirs.csv"
    csv_writer(columns)(ours)
    csv_writer(ranking.to_frame())(theirs)
    assert ours.read_bytes() == theirs.read_bytes()
    assert b'"a,b"' in ours.read_bytes() and b'"q""x"' in ours.read_bytes()


def test_ranking_design_is_the_public_design_on_first_use():
    from dprank.intervals import public_design

    data = Comparisons.from_winner_loser([0, 1, 2, 0, 3], [1, 2, 3, 2, 0])
    ranking = dprank.rank(data, privacy="edge", epsilon=1.0, method="counts", rng=1)
    assert ranking._design is None  # not computed by rank (no intervals imported for it)
    expected = public_design(data, "edge_counts")
    design = ranking.design
    assert ranking.design is design  # computed once
    assert type(design) is type(expected)
    assert design.n_items == expected.n_items
    for name in ("a", "b", "count"):
        np.testing.assert_array_equal(getattr(design, name), getattr(expected, name))
