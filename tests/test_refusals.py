"""Nothing wrong accepted: library calls and config values that used to pass silently.

Each of these once gave an answer (noise ranked as data, a scale of 0, a wrong budget
count, a figure of noise) or another library's message; now each is refused with one
message naming the argument or key, or, for a valid config value that is almost surely a
mistake, warned about before any job.
"""

from __future__ import annotations

import copy

import numpy as np
import pandas as pd
import pytest

import dprank
from dprank.base.yamlfile import read_yaml
from dprank.data.comparisons import Comparisons
from dprank.data.inputs import InputError
from dprank.methods import MethodInputError
from dprank.privacy.ldp import debias, laplace_release, randomized_response
from dprank.privacy.oneshot import one_shot_noise_scale
from dprank_papers.config import bound_warnings, validate_config


def test_a_win_matrix_without_comparisons_is_refused_like_an_empty_frame():
    with pytest.raises(InputError, match="the win matrix: no comparisons"):
        dprank.rank(np.zeros((3, 3)), privacy="edge", epsilon=1.0)
    with pytest.raises(InputError, match="no comparisons"):
        dprank.rank(pd.DataFrame({"winner": [], "loser": []}), privacy="edge", epsilon=1.0)
    empty = Comparisons(n_items=2, i=[], j=[], y=[], count=[])
    with pytest.raises(InputError, match="the comparisons: no comparisons"):
        dprank.rank(empty, privacy="none")


@pytest.mark.parametrize("epsilon", ["1", b"1", [1.0], None])
def test_epsilon_of_the_wrong_type_is_a_type_error(epsilon):
    games = pd.DataFrame({"winner": ["a", "b"], "loser": ["b", "c"]})
    error = ValueError if epsilon is None else TypeError  # None: "needs epsilon"
    with pytest.raises(error, match="epsilon"):
        dprank.rank(games, privacy="edge", epsilon=epsilon)
    assert dprank.rank(games, privacy="edge", epsilon=np.float32(1.0), rng=1).epsilon == 1.0


def _released(y) -> Comparisons:
    return Comparisons(
        n_items=3,
        i=np.array([0, 1, 0]),
        j=np.array([1, 2, 2]),
        y=np.asarray(y, dtype=float),
        count=np.ones(3),
        user=np.array([0, 1, 0]),
        user_epsilon=np.array([1.0, 1.0]),
    )


@pytest.mark.parametrize("method", ["classic_rr", "count", "adrr", "debiased_rr"])
def test_randomized_response_estimators_refuse_outcomes_other_than_0_and_1(method):
    with pytest.raises((MethodInputError, ValueError), match=r"0\.3"):
        dprank.rank(_released([0.3, 1, 0]), privacy="local", method=method, items_from_data=True)
    # the Laplace release's outcomes are real numbers: accepted there
    released = _released([0.3, 1, 0])
    assert (
        dprank.rank(released, privacy="local", method="laplace", items_from_data=True).n_items == 3
    )


def test_per_user_budgets_for_the_wrong_number_of_users_are_refused():
    c = _released([1, 1, 0])
    with pytest.raises(ValueError, match="user_epsilon holds 3 budgets for 2 users"):
        Comparisons(
            n_items=3, i=c.i, j=c.j, y=c.y, count=c.count, user=c.user, user_epsilon=[1.0] * 3
        )
    with pytest.raises(ValueError, match="user index 1 has no budget"):
        Comparisons(n_items=3, i=c.i, j=c.j, y=c.y, count=c.count, user=c.user, user_epsilon=[1])
    rng = np.random.default_rng(0)
    y = np.ones((2, 3), dtype=np.uint8)
    for release in (randomized_response, laplace_release):
        with pytest.raises(ValueError, match=r"eps has shape \(3,\) for data of shape \(2, 3\)"):
            release(y, [1.0, 2.0, 3.0], rng)
        assert release(y, [1.0, 2.0], rng).shape == (2, 3)  # one per user row
        assert release(y, 1.0, rng).shape == (2, 3)  # one for all
    with pytest.raises(ValueError, match="eps has shape"):
        debias(y, [1.0, 2.0, 3.0])


def test_the_one_shot_scale_needs_two_items():
    with pytest.raises(ValueError, match="n must be at least 2"):
        one_shot_noise_scale(n=1, k=1, d=1.0, rho=0.1, eps=1.0)
    assert one_shot_noise_scale(n=2, k=1, d=1.0, rho=0.1, eps=1.0) > 0


@pytest.mark.parametrize("column", ["winner", "loser", "user"])
def test_a_nullable_integer_column_with_na_names_the_cell(column):
    frame = pd.DataFrame(
        {
            "winner": pd.array([1, 2, 3], dtype="Int64"),
            "loser": pd.array([2, 3, 1], dtype="Int64"),
            "user": pd.array([7, 8, 9], dtype="Int64"),
        }
    )
    frame.loc[1, column] = pd.NA
    with pytest.raises(InputError, match=rf"row 1, column \d \({column}\): missing value"):
        dprank.rank(frame, privacy="individual", epsilon=1.0, max_per_user=2, items_from_data=True)


# --------------------------------------------------------------------------- config

_SCHEMA = "workflow/schemas/config.schema.yaml"


@pytest.fixture
def config():
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    return read_yaml(root / "config.yaml"), root / _SCHEMA


def test_an_absurd_declared_bound_is_warned_about_naming_the_key(config):
    cfg, schema = config
    assert bound_warnings(cfg) == []
    bad = copy.deepcopy(cfg)
    bad["paper_a_real"]["datasets"]["cems"]["L"] = 1e12
    (message,) = bound_warnings(bad)
    assert message.startswith("paper_a_real.datasets.cems.L = 1e+12 is 6.67e+10 times")
    assert "Declare L <= 15" in message
    validate_config(bad, schema, check_environment=True)  # valid: a warning, not an error
    bad["paper_a_real"]["datasets"]["immig"]["L"] = 7
    assert [m.split(" = ")[0] for m in bound_warnings(bad)] == [
        "paper_a_real.datasets.cems.L",
        "paper_a_real.datasets.immig.L",
    ]
