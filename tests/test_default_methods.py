"""The default method of each privacy level: the best candidate on the benchmark of methods.

The committed ``src/dprank/methods/_default_methods.py`` (written by
``python -m dprank_papers.docs_generate`` from the benchmark's
``results/tables/benchmark/defaults.csv``) holds the defaults and the ranking they come
from; the command and :func:`dprank.rank` use them, docs/cli.md shows them.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from dprank import api
from dprank.cli import main
from dprank.methods import _default_methods, all_methods, get_method
from dprank_papers.default_methods import LEVELS, NOT_A_DEFAULT, candidates, choose, ranking
from dprank_papers.docs_generate import default_method_files, ranking_from_module

ROOT = Path(__file__).resolve().parents[1]


def test_candidates_are_the_methods_that_can_rank_any_file():
    for privacy, prefix in LEVELS.items():
        names = candidates(privacy)
        assert names and all(n.startswith(prefix + "_") for n in names)
        for name in names:
            method = get_method(name)
            assert not method.needs_complete_graph and name not in NOT_A_DEFAULT
            assert method.release_ok
    assert "edge_one_shot" not in candidates("edge")  # a complete tournament and --top-k
    assert "individual_counts_as_published" not in candidates("individual")  # 2 eps-DP
    assert "local_laplace" not in candidates("local")  # reads a Laplace release
    assert "local_adrr" in candidates("local") and "individual_mle" in candidates("individual")
    with pytest.raises(ValueError, match="privacy must be one of"):
        candidates("central")


def _summary(means: dict[str, list[float]], datasets=("d1", "d2"), eps=(1.0, 10.0)):
    """A benchmark summary: method -> mean Kendall distance per (dataset, eps) cell."""
    rows = []
    for method, values in means.items():
        cells = [(d, e) for d in datasets for e in eps]
        for (d, e), v in zip(cells, values, strict=True):
            accounting = "none" if method.startswith("nonprivate") else "user"
            rows.append(
                {
                    "dataset": d,
                    "method": method,
                    "accounting": accounting,
                    "eps": np.nan if accounting == "none" else e,
                    "metric": "kendall",
                    "mean": v,
                }
            )
            rows.append({**rows[-1], "metric": "top_k", "mean": 1 - v})  # not counted
    if "local_adrr" in means:  # the dashed per-comparison reading is not counted either
        rows.append({**rows[-1], "method": "local_adrr", "accounting": "comparison", "mean": 0})
    return pd.DataFrame(rows)


def test_ranking_scores_the_mean_rank_over_the_cells_and_picks_the_best_candidate():
    summary = _summary(
        {
            "edge_mle": [0.30, 0.10, 0.30, 0.10],
            "edge_counts": [0.20, 0.05, 0.25, 0.12],  # best in 3 of 4 cells
            "edge_noisy_obj": [0.40, 0.20, 0.40, 0.20],
            "individual_counts_as_published": [0.01, 0.01, 0.01, 0.01],  # best, never default
            "individual_mle": [0.20, 0.10, 0.20, 0.10],
            "local_adrr": [0.5, 0.3, 0.5, 0.3],
            "local_laplace": [0.4, 0.2, 0.4, 0.2],
            "local_debiased_rr": [0.6, 0.3, 0.6, 0.3],
        }
    )
    table = ranking(summary)
    edge = table[table["privacy"] == "edge"].set_index("method")
    assert edge.loc["edge_counts", "mean_rank"] == pytest.approx((1 + 1 + 1 + 2) / 4)
    assert edge.loc["edge_mle", "mean_rank"] == pytest.approx((2 + 2 + 2 + 1) / 4)
    assert (edge["cells"] == 4).all() and edge["default"].sum() == 1
    assert bool(edge.loc["edge_counts", "default"])
    assert choose(table, "edge") == "edge_counts"
    individual = table[table["privacy"] == "individual"]
    assert individual["method"].iloc[0] == "individual_counts_as_published"  # ranked first ...
    assert choose(table, "individual") == "individual_mle"  # ... but not a candidate
    local = table[table["privacy"] == "local"].set_index("method")
    assert not local.loc["local_laplace", "candidate"] and choose(table, "local") == "local_adrr"
    assert "none" not in set(table["privacy"])  # no non-private rows in this summary
    with pytest.raises(ValueError, match="no candidate of privacy 'none'"):
        choose(table, "none")
    # ties share their mean rank; the smaller mean distance then decides
    tied = ranking(
        _summary(
            {"nonprivate_mle": [0.1, 0.1, 0.1, 0.1], "nonprivate_counts": [0.1, 0.1, 0.1, 0.2]},
            eps=(1.0,),
            datasets=("d1", "d2", "d3", "d4"),
        )
    )
    assert list(tied["method"]) == ["nonprivate_mle", "nonprivate_counts"]
    # a method that did not run on every cell is not ranked
    partial = _summary({"edge_mle": [0.3, 0.1, 0.3, 0.1], "edge_counts": [0.2, 0.1, 0.2, 0.1]})
    partial = partial.drop(index=partial.index[(partial["method"] == "edge_counts")][:2])
    assert list(ranking(partial)["method"]) == ["edge_mle"]


def test_the_committed_defaults_are_the_best_candidates_of_the_committed_ranking():
    """A method whose eligibility changes fails here until `python -m
    dprank_papers.docs_generate` regenerates the constants. A method added since the last run
    of the benchmark of methods is in no committed ranking: it is no default until the next
    run ranks it (the papers' methods and the non-private references are always ranked)."""
    table = ranking_from_module(_default_methods.RANKING)
    assert set(_default_methods.DEFAULT_METHOD) == set(LEVELS)
    for privacy, prefix in LEVELS.items():
        best = choose(table, privacy)
        assert _default_methods.DEFAULT_METHOD[privacy] == best.removeprefix(prefix + "_")
        ranked = set(table[table["privacy"] == privacy]["method"])
        unranked = [get_method(m) for m in set(candidates(privacy)) - ranked]
        assert all(m.paper == "-" and m.private for m in unranked), (
            f"{privacy}: run the benchmark again"
        )
        level = table[table["privacy"] == privacy]
        assert list(level["mean_rank"]) == sorted(level["mean_rank"])  # best first
        assert (level["cells"] > 0).all() and level["mean_kendall"].between(0, 1).all()
    registered = {m.name for m in all_methods()}
    assert set(table["method"]) <= registered
    assert api.DEFAULT_METHOD is _default_methods.DEFAULT_METHOD
    for path, text in default_method_files(ROOT, table).items():
        assert path.read_text() == text, f"{path.name}: run python -m dprank_papers.docs_generate"


def _write_games(path: Path, flip: bool) -> Path:
    rows = ["winner,loser,user"]
    for u in range(30):
        a, b = ("x", "y") if (u % 3 or flip) else ("y", "z")
        rows.append(f"{a},{b},u{u}")
    path.write_text("\n".join(rows) + "\n")
    return path


def test_rank_says_which_default_it_used_and_names_the_others(tmp_path, capsys):
    """Without --method: one line on standard error, the same for any data (no data in it)."""
    notes = []
    for flip in (False, True):
        data = _write_games(tmp_path / f"g{flip}.csv", flip)
        out = tmp_path / f"r{flip}.csv"
        code = main(["rank", str(data), "--privacy", "edge", "--epsilon", "1", "--out", str(out)])
        _, err = capsys.readouterr()
        assert code == 0, err
        notes.append([line for line in err.splitlines() if "default of --privacy" in line])
    assert len(notes[0]) == 1 and notes[0] == notes[1]
    default = _default_methods.DEFAULT_METHOD["edge"]
    assert f"method {default} (" in notes[0][0] and "others: --method" in notes[0][0]
    others = [c.removeprefix("edge_") for c in ("edge_mle", "edge_counts", "edge_noisy_obj")]
    assert all(o in notes[0][0] for o in others if o != default)
    for extra in (["--method", "mle"], ["--quiet"]):
        code = main(
            ["rank", str(data), "--privacy", "edge", "--epsilon", "1", "--out", str(out), *extra]
        )
        _, err = capsys.readouterr()
        assert code == 0 and "default of --privacy" not in err, extra
