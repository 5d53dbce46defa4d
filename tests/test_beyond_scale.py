"""The scale study beyond the papers (issue 17): rate, fit, seeds, chunking, config checks."""

import math

import numpy as np
import pandas as pd
import pytest

from dprank.fit.metrics import rel_hamming
from dprank_papers.studies import beyond_scale as bs

EPS = [1.0, math.inf]


def test_rate_is_theorem_2_1():
    n, p = 1000, 0.05
    assert bs.rate(n, p, 2.0) == pytest.approx(
        math.sqrt(math.log(n) / (n * p)) + math.log(n) / (n * p * 2.0)
    )
    assert bs.rate(n, p, math.inf) == pytest.approx(math.sqrt(math.log(n) / (n * p)))
    with pytest.raises(ValueError, match="eps > 0"):
        bs.rate(n, p, 0.0)


def test_edge_probability_needs_degree_below_n():
    assert bs.edge_probability(1000, 50) == 0.05
    with pytest.raises(ValueError, match="average degree"):
        bs.edge_probability(40, 50)


def _summary(constants, noise=0.0, rng=None):
    rows = []
    for eps, c in constants.items():
        for n in (1000, 4000, 16000, 64000):
            p = 50 / n
            y = math.log(c * bs.rate(n, p, eps)) + (noise * rng.standard_normal() if noise else 0)
            rows.append((n, p, eps, "edge_mle", "log_linf", y, 0.01, 10))
    cols = ["n", "p", "epsilon", "method", "metric", "mean", "se", "reps"]
    return pd.DataFrame(rows, columns=cols)


def test_fit_rate_recovers_known_constants_exactly():
    fit = bs.fit_rate(_summary({0.5: 3.0, math.inf: 0.7})).set_index("epsilon")
    assert fit.loc[0.5, "constant"] == pytest.approx(3.0)
    assert fit.loc[math.inf, "constant"] == pytest.approx(0.7)
    assert fit["r2"].to_numpy() == pytest.approx(1.0)
    assert fit["rms_log_residual"].to_numpy() == pytest.approx(0.0, abs=1e-12)
    assert fit["slope_measured"].to_numpy() == pytest.approx(fit["slope_rate"].to_numpy())


def test_fit_rate_reports_misfit():
    noisy = bs.fit_rate(_summary({1.0: 2.0}, noise=0.3, rng=np.random.default_rng(3)))
    assert noisy.loc[0, "rms_log_residual"] > 0.05
    assert noisy.loc[0, "r2"] < 1.0
    with pytest.raises(ValueError, match="log_linf"):
        bs.fit_rate(_summary({1.0: 2.0}).assign(metric="other"))


def test_chunks_cover_the_replicates_once():
    chunks = [bs.chunk_replicates(7, 3, c) for c in range(bs.chunk_count(7, 3))]
    assert [list(c) for c in chunks] == [[0, 1, 2], [3, 4, 5], [6]]
    with pytest.raises(ValueError, match="out of range"):
        bs.chunk_replicates(7, 3, 3)


def test_results_do_not_depend_on_the_chunking_and_repeat_exactly():
    whole = bs.run_chunk(120, 12, EPS, [0, 1, 2], seed=5)
    parts = pd.concat(
        [bs.run_chunk(120, 12, EPS, [0, 1], seed=5), bs.run_chunk(120, 12, EPS, [2], seed=5)]
    )
    cols = ["method", "metric", "epsilon", "replicate"]
    parts = parts.sort_values(cols, kind="stable").reset_index(drop=True)
    pd.testing.assert_frame_equal(whole, parts)
    pd.testing.assert_frame_equal(whole, bs.run_chunk(120, 12, EPS, [0, 1, 2], seed=5))
    other = bs.run_chunk(120, 12, EPS, [0, 1, 2], seed=6)
    assert not np.allclose(whole["value"], other["value"])


def test_chunk_metrics_are_sane():
    frame = bs.run_chunk(150, 15, EPS, [0, 1], seed=1)
    mle = frame[frame["method"] == "edge_mle"].pivot_table(
        index=["epsilon", "replicate"], columns="metric", values="value"
    )
    assert (mle["converged"] == 1).all()
    assert ((mle["rel_hamming"] >= 0) & (mle["rel_hamming"] <= 1)).all()
    # privacy costs accuracy: eps = 1 is worse than no noise on the same data
    assert mle.loc[1.0, "log_linf"].mean() > mle.loc[math.inf, "log_linf"].mean()
    counting = frame[frame["method"] == "edge_counts"]
    assert set(counting["metric"]) == {"rel_hamming"} and len(counting) == 4
    summary = bs.summarise(frame)
    assert (summary["reps"] == 2).all() and (summary["se"] >= 0).all()


def test_rel_hamming_one_set_path_equals_the_broadcast_one():
    rng = np.random.default_rng(0)
    sel = np.sort(rng.choice(50, 12, replace=False))
    truth = np.sort(rng.choice(50, 12, replace=False))
    batch = rel_hamming(np.stack([sel, truth]), truth[None, :])
    assert rel_hamming(sel, truth) == batch[0]
    assert rel_hamming(truth, truth) == 0.0


def test_config_check_names_the_bad_n_and_reps():
    problems = bs.check_section({"n": [40, 1000], "degree": 50, "reps": 3})
    assert problems == ["beyond_scale: n = 40 must exceed the average degree 50 (p = degree / n)"]
    problems = bs.check_section({"n": [100, 1000], "degree": 50, "reps": [3]})
    assert problems == [
        "beyond_scale.reps: 1 values for 2 values of n (give one number, or one per n)"
    ]


def test_reps_per_n():
    section = {"n": [100, 1000], "reps": [30, 10]}
    assert [bs.reps_for(section, n) for n in (100, 1000)] == [30, 10]
    assert bs.reps_for({"n": [100], "reps": 7}, 100) == 7


def test_scale_figure_names_the_methods_by_their_labels():
    from dprank.methods import get_method
    from dprank_papers.plotting.beyond_scale import plot_scale

    rows = []
    for method in ("edge_mle", "edge_counts"):
        for metric in ("log_rel_l2", "log_rel_linf", "rel_hamming", "log_linf"):
            for eps in EPS:
                for n in (200, 600):
                    rows.append((n, 20 / n, eps, method, metric, -1.0 - n / 1000, 0.01, 3))
    cols = ["n", "p", "epsilon", "method", "metric", "mean", "se", "reps"]
    summary = pd.DataFrame(rows, columns=cols)
    fig, numbers = plot_scale(summary, bs.fit_rate(summary), 20)
    texts = [fig._suptitle.get_text()] + [ax.get_title() for ax in fig.axes]
    texts += [t.get_text() for ax in fig.axes for t in ax.get_legend().get_texts()]
    shown = "\n".join(texts)
    assert get_method("edge_mle").label in shown and get_method("edge_counts").label in shown
    assert "edge_mle" not in shown and "edge_counts" not in shown
    assert set(numbers["method"]) == {"edge_mle", "edge_counts"}  # the CSV keeps names
