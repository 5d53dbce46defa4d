"""The contributing recipe "Add a method" (docs/contributing.md), followed to the letter.

A method is one function and one registry entry: the toy method below (wins minus
losses, non-private) is registered with one ``register(Method(...))`` and then
appears in ``dprank methods``, ranks a file with ``dprank rank --method toy`` and
runs in the benchmark of methods, with no other change anywhere.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from dprank.cli import main
from dprank.comparisons import Comparisons
from dprank.methods import Fit, Method, all_methods, get_method, register, unregister
from dprank_papers.studies import benchmark as bm

NAME = "nonprivate_toy"


def toy_fit(c: Comparisons, eps, rng, **_) -> Fit:
    """The one function: comparisons won minus comparisons lost, per item."""
    won = np.where(c.y == 1, c.i, c.j)
    lost = np.where(c.y == 1, c.j, c.i)
    return Fit(scores=np.bincount(won, c.count, c.n_items) - np.bincount(lost, c.count, c.n_items))


@pytest.fixture
def toy():
    """The one registry entry, removed again after the test."""
    method = register(
        Method(
            NAME,
            toy_fit,
            "-",
            "wins minus losses",
            "none",
            "none",
            models=(),
            description="toy method of the contributing recipe",
            label="Toy (wins - losses)",
        )
    )
    yield method
    unregister(NAME)


def test_the_toy_method_is_listed_by_dprank_methods(toy, capsys):
    assert main(["methods"]) == 0
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if line.startswith(NAME))
    assert "Toy (wins - losses)" in row and "wins minus losses" in row


def test_dprank_rank_ranks_a_hand_written_file_with_the_toy_method(toy, tmp_path, capsys):
    data = tmp_path / "games.csv"
    data.write_text("winner,loser\na,b\na,b\nb,c\na,c\nc,a\nb,d\nc,d\n")
    out = tmp_path / "ranking.csv"
    code = main(["rank", str(data), "--privacy", "none", "--method", "toy", "--out", str(out)])
    assert code == 0, capsys.readouterr().err
    ranking = pd.read_csv(out)
    scores = dict(zip(ranking["item"], ranking["score"], strict=True))
    # wins - losses: a 3 - 1, b 2 - 2, c 2 - 2, d 0 - 2
    assert scores == {"a": 2.0, "b": 0.0, "c": 0.0, "d": -2.0}
    assert ranking.loc[ranking["item"] == "a", "rank"].item() == 1
    assert ranking.loc[ranking["item"] == "d", "rank"].item() == 4
    assert NAME in out.with_suffix(".json").read_text()


def test_the_benchmark_of_methods_runs_the_toy_method(toy):
    assert toy in all_methods()
    method = bm.resolve_method(NAME, {})
    assert method is get_method(NAME)
    spec = {"n": 8, "users": 30, "L": 3, "theta_law": "uniform2"}
    c, theta = bm.synthetic_replicate("s", spec, 1, 0)
    rows = bm.run_method(method, "s", [bm.BenchmarkData(c, theta, 2, True)], [1.0], seed=1)
    assert len(rows) == 1 and (rows["method"] == NAME).all()
    assert rows["kendall"].between(0, 1).all() and rows["top_k"].between(0, 1).all()


def test_the_toy_method_is_gone_after_unregister(toy):
    unregister(NAME)
    with pytest.raises(KeyError, match="no registered method"):
        get_method(NAME)
    register(toy)  # the fixture's teardown unregisters it again
