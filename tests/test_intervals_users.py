"""Individual-DP intervals where the users' numbers of comparisons are not declared (issue 46)."""

import numpy as np
import pandas as pd
import pytest

from dprank.cli import main
from dprank.data.comparisons import Comparisons
from dprank.intervals import UserDesign, intervals
from dprank.intervals._interval_designs import envelope
from dprank.methods import get_method

N_ITEMS, USERS, L = 16, 500, 10


def _fewer(seed=5):
    """Users comparing 1 + Geometric(1/2) pairs (mean 3), far fewer than the bound L."""
    rng = np.random.default_rng(seed)
    theta = np.linspace(1.5, -1.5, N_ITEMS)
    per = np.minimum(L, 1 + rng.geometric(0.5, USERS))
    user = np.repeat(np.arange(USERS), per)
    i = rng.integers(0, N_ITEMS, user.size)
    j = (i + rng.integers(1, N_ITEMS, user.size)) % N_ITEMS
    y = (rng.random(user.size) < 1 / (1 + np.exp(-(theta[i] - theta[j])))).astype(np.int64)
    ones = np.ones(user.size, dtype=np.int64)
    return Comparisons(n_items=N_ITEMS, i=i, j=j, y=y, count=ones, user=user)


@pytest.fixture(scope="module")
def release():
    data = _fewer()
    return get_method("individual_mle").fit(data, 4.0, np.random.default_rng(1))


def test_the_frame_says_which_totals_it_holds_for(release):
    free = intervals(
        release.scores, "individual_mle", 4.0, UserDesign(N_ITEMS, USERS, L), n_boot=30, rng=2
    )
    totals, located = free.attrs["totals"], free.attrs["located_per_design"]
    assert len(totals) == len(located) == free.attrs["designs"] >= 2
    assert totals[0] >= USERS and totals[-1] == USERS * L and totals == sorted(totals)
    # the union is at most as informative as the design at the largest total alone
    assert int(free["informative"].sum()) <= located[-1]
    declared = intervals(
        release.scores,
        "individual_mle",
        4.0,
        UserDesign(N_ITEMS, USERS, L, min_per_user=L),
        n_boot=30,
        rng=2,
    )
    assert declared.attrs["totals"] == [USERS * L] and declared.attrs["designs"] == 1
    assert declared.attrs["located_per_design"] == [int(declared["informative"].sum())]


def test_the_command_names_the_undeclared_users_as_the_reason(tmp_path, capsys):
    data = _fewer()
    path = tmp_path / "users.csv"
    pd.DataFrame({"item_a": data.i, "item_b": data.j, "outcome": data.y, "user": data.user}).to_csv(
        path, index=False
    )
    argv = ["rank", str(path), "--privacy", "individual", "--epsilon", "4", "--method", "mle"]
    argv += ["--max-per-user", str(L), "--items-from-data", "--intervals", "0.95"]
    argv += ["--insecure-seed", "1", "--out", str(tmp_path / "out.csv")]
    assert main(argv) == 0
    err = capsys.readouterr().err
    note = [line for line in err.splitlines() if "note: --intervals" in line]
    assert len(note) == 1, err
    assert "not located" in note[0] or "does not locate" in note[0]
    assert "--min-per-user" in note[0] and f"to {USERS * L} comparisons" in note[0]
    # declaring the least per user removes the range, and the reason with it
    assert main([*argv, "--min-per-user", str(L)]) == 0
    assert "--min-per-user K" not in capsys.readouterr().err


def test_candidates_started_from_their_neighbours_give_the_cold_intervals(release, monkeypatch):
    """The asymptotic form starts each candidate total's solvers from the previous one's
    solutions: the intervals are those of solves from scratch, to the solvers' tolerance."""
    import dprank.intervals as iv

    def run():
        return intervals(
            release.scores, "individual_mle", 4.0, UserDesign(N_ITEMS, USERS, L),
            kind="asymptotic", top_k=3, n_boot=30, rng=2,
        )  # fmt: skip

    warm = run()
    analyse = iv._analyse
    monkeypatch.setattr(iv, "_analyse", lambda *a: analyse(*a[:7], None, *a[8:]))  # no warm start
    cold = run()
    assert warm.attrs["designs"] == cold.attrs["designs"] >= 2
    assert warm.attrs["totals"] == cold.attrs["totals"]
    assert not np.array_equal(warm["estimate"], cold["estimate"])  # other starts, other bits
    for column in ("rank_lo", "rank_hi", "tie_class", "informative", "p_top_k"):
        assert np.array_equal(warm[column], cold[column]), column
    for column in ("estimate", "score_lo", "score_hi"):
        np.testing.assert_allclose(warm[column], cold[column], rtol=1e-6, atol=1e-7)


def test_an_envelope_holds_every_candidates_estimate_interval():
    """The design standing for merged candidates: each item's normal at the level holds every
    candidate's; an item censored by any candidate is censored, with the union's bound."""
    import dprank.intervals as iv

    rng = np.random.default_rng(8)
    n, alpha = 50, 0.05
    worlds = []
    for shift in (0.0, 0.02, -0.03):
        t = rng.normal(0, 1, n) + shift
        v = rng.uniform(0.1, 0.3, n)
        up = rng.random(n) < 0.05
        down = ~up & (rng.random(n) < 0.05)
        lo, hi = np.where(down, -np.inf, t - 2 * np.sqrt(v)), np.where(up, np.inf, t + 2)
        worlds.append(
            iv._World(t, v, np.full(n, 1 / n), lo, hi, lo, hi, ~(up | down), up, down, True)
        )
    env = envelope(worlds, alpha)
    z = 1.959963984540054
    assert np.array_equal(env.up, np.logical_or.reduce([w.up for w in worlds]))
    assert np.array_equal(env.finite, np.logical_and.reduce([w.finite for w in worlds]))
    f = env.finite
    for w in worlds:
        sd, esd = np.sqrt(w.v[f]), np.sqrt(env.v[f])
        assert np.all(env.t[f] - z * esd <= w.t[f] - z * sd + 1e-12)
        assert np.all(env.t[f] + z * esd >= w.t[f] + z * sd - 1e-12)
        assert np.all(env.score_lo <= w.score_lo) and np.all(env.score_hi >= w.score_hi)
    assert np.isposinf(env.v[~f]).all()


def test_only_candidates_the_release_cannot_tell_apart_share_a_rank_computation(monkeypatch):
    """Noisy counts of many items give their total within a few percent, which the noise of
    each item's total swamps: one rank computation for the three candidates. Algorithm 3's
    MLE with only L declared spans m to m L: one each."""
    import dprank.intervals as iv

    calls = []
    rank_parts = iv._rank_parts
    monkeypatch.setattr(iv, "_rank_parts", lambda *a, **k: calls.append(1) or rank_parts(*a, **k))
    rng = np.random.default_rng(3)
    n, users = 1000, 5000  # L comparisons each: their noisy sum within 1%
    i = rng.integers(0, n, users * L)
    j = (i + rng.integers(1, n, i.size)) % n
    theta = np.linspace(1.5, -1.5, n)
    y = (rng.random(i.size) < 1 / (1 + np.exp(-(theta[i] - theta[j])))).astype(np.int64)
    user = np.repeat(np.arange(users), L)
    many = Comparisons(n_items=n, i=i, j=j, y=y, count=np.ones(i.size), user=user)
    counts = get_method("individual_counts").fit(many, 1.0, np.random.default_rng(1))
    frame = intervals(
        counts.scores, "individual_counts", 1.0, UserDesign(n, users, L), rng=2,
        calibration=counts.details,
    )  # fmt: skip
    totals, located = frame.attrs["totals"], frame.attrs["located_per_design"]
    assert len(totals) == 3 and totals[-1] / totals[0] < 1.05
    assert len(calls) == 1 and len(set(located)) == 1
    calls.clear()
    design = UserDesign(N_ITEMS, USERS, L)
    mle = get_method("individual_mle").fit(_fewer(), 4.0, np.random.default_rng(1))
    frame = intervals(mle.scores, "individual_mle", 4.0, design, rng=2, kind="asymptotic")
    assert len(calls) == frame.attrs["designs"] >= 2
