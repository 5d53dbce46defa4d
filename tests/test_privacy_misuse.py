"""Misuse that used to pass as private (issue 44): seeds, orders, raw local input, counts, cells.

Each release-path change plays the DP game where it has one: runs on
neighbouring data, a distinguisher, and a Clopper-Pearson lower bound on epsilon
that must stay within the claim.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import dprank
from dprank.audit import epsilon_lower_bound
from dprank.cli import main
from dprank.data.comparisons import Comparisons
from dprank.methods import all_methods, get_method, release_local
from dprank.privacy.noise import NoiseSource


def run(argv, capsys) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


# --------------------------------------------------------------------------- seeds


def _small() -> Comparisons:
    return Comparisons.from_winner_loser(
        [0, 1, 2, 0, 3, 1], [1, 2, 3, 2, 0, 3], user=[0, 0, 1, 1, 2, 2], labels=list("abcd")
    )


@pytest.mark.parametrize("method", [m for m in all_methods() if m.trust_model == "central"])
def test_a_fit_says_private_only_for_secure_noise(method):
    data = _small()
    options = {"max_per_user": 2} if method.privacy_unit == "user" else {}
    if method.name == "edge_one_shot":
        pytest.skip("needs a complete tournament")
    seeded = method.fit(data, 1.0, np.random.default_rng(0), **options)
    assert seeded.private is False
    assert method.fit(data, 1.0, NoiseSource.from_seed(3), **options).private is False
    secure = method.fit(data, 1.0, NoiseSource.system(), **options)
    assert secure.private is method.private


def test_a_ranking_from_a_seed_or_generator_is_not_private():
    data = _small()
    for rng in (0, np.random.default_rng(0), NoiseSource.from_seed(1)):
        ranking = dprank.rank(data, privacy="edge", epsilon=1.0, rng=rng)
        assert ranking.private is False and ranking.record()["private"] is False
        assert ranking.fit.private is False
    assert dprank.rank(data, privacy="edge", epsilon=1.0).private is True


# --------------------------------------------------------------------------- release_local


def _first_outcome_game(rng_of, trials: int) -> tuple[int, int]:
    """How often the first released record says "item a won", for D (a won twice) and D' (b)."""
    hits = []
    for y in (1.0, 0.0):
        data = Comparisons(n_items=2, i=[0], j=[1], y=[y], count=[2.0], user=[0], labels=["a", "b"])
        k = 0
        for t in range(trials):
            rel = release_local(data, np.array([1.0]), rng_of(t))
            first = rel.y[0] if rel.i[0] < rel.j[0] else 1.0 - rel.y[0]
            k += first == 1.0
        hits.append(k)
    return hits[0], hits[1]


def test_release_local_order_gives_nothing_away_with_a_numpy_generator():
    """Issue 44: the true outcome came first 97.9% of the time. Two comparisons changed: the
    order-based distinguisher must stay within 2 eps (it reached about 2.6)."""
    trials = 3000
    rng = np.random.default_rng(44)
    k_d, k_d1 = _first_outcome_game(lambda t: rng, trials)
    assert epsilon_lower_bound(k_d1, trials, k_d, trials) <= 2.0
    # canonical order: oriented, sorted by user, pair and released outcome, merged
    c = Comparisons.from_winner_loser([1, 0, 1], [0, 1, 0], count=[3, 1, 2], user=[0, 0, 1])
    rel = release_local(c, np.array([1.0, 2.0]), np.random.default_rng(1))
    assert np.all(rel.i < rel.j)
    keys = list(zip(rel.user, rel.i, rel.j, rel.y, strict=True))
    assert keys == sorted(set(keys))
    assert rel.count.sum() == 6


# --------------------------------------------------------------------------- rank --privacy local


RAW = "winner,loser,user\na,b,u1\nb,c,u1\nc,a,u2\na,c,u3\n"


def test_rank_local_refuses_raw_comparisons_naming_privatize(tmp_path, capsys):
    """Issue 44 and 50: raw comparisons with an epsilon column went through as private."""
    raw = tmp_path / "raw.csv"
    raw.write_text("item_a,item_b,outcome,user,epsilon\na,b,1,u1,1\nb,c,0,u2,1\n")
    code, _out, err = run(["rank", raw, "--privacy", "local", "--out", tmp_path / "r.csv"], capsys)
    assert code == 2 and "dprank privatize" in err and "--randomised-elsewhere" in err
    assert not (tmp_path / "r.csv").exists()
    no_eps = tmp_path / "noeps.csv"
    no_eps.write_text(RAW)
    code, _, err = run(["rank", no_eps, "--privacy", "local", "--out", "-"], capsys)
    assert code == 2 and "dprank privatize" in err and "no 'epsilon' column" not in err
    # declared: randomised elsewhere; the record says where the guarantee comes from
    argv = ["rank", raw, "--privacy", "local", "--items-from-data"]
    argv += ["--randomised-elsewhere", "the survey app's randomized response", "--out"]
    code, _, err = run([*argv, tmp_path / "r.csv"], capsys)
    assert code == 0, err
    record = json.loads((tmp_path / "r.json").read_text())
    assert "survey app" in record["local_release"] and record["privacy_unit"] == "comparison"


def test_rank_local_checks_the_privatize_record(tmp_path, capsys):
    raw = tmp_path / "raw.csv"
    raw.write_text(RAW)
    items = tmp_path / "items.csv"
    items.write_text("item\na\nb\nc\nd\n")
    released = tmp_path / "released.csv"
    argv = ["privatize", raw, "--epsilon", 1, "--items", items, "--out", released]
    assert run([*argv, "--insecure-seed", 3], capsys)[0] == 0
    record = json.loads((tmp_path / "released.json").read_text())
    assert record["items"] == ["a", "b", "c", "d"] and record["private"] is False
    code, _, err = run(
        ["rank", released, "--privacy", "local", "--out", tmp_path / "r.csv"], capsys
    )
    assert code == 0, err
    ranking = pd.read_csv(tmp_path / "r.csv")
    assert sorted(ranking["item"]) == ["a", "b", "c", "d"]  # d: declared, never compared
    ranked = json.loads((tmp_path / "r.json").read_text())
    assert ranked["private"] is False  # the release it ranks was made with a seed
    assert ranked["local_release"].startswith("dprank privatize, release record released.json")
    # an edited release no longer matches its record
    released.write_text(released.read_text().replace(",1,", ",0,", 1))
    code, _, err = run(["rank", released, "--privacy", "local", "--out", "-"], capsys)
    assert code == 2 and "sha256 differs" in err
    # a Laplace release is estimated by the laplace method only
    lap = tmp_path / "lap.csv"
    argv = ["privatize", raw, "--epsilon", 1, "--items", items, "--mechanism", "laplace"]
    assert run([*argv, "--out", lap], capsys)[0] == 0
    code, _, err = run(["rank", lap, "--privacy", "local", "--out", "-"], capsys)
    assert code == 2 and "--method laplace" in err
    assert (
        run(["rank", lap, "--privacy", "local", "--method", "laplace", "--out", "-"], capsys)[0]
        == 0
    )


# --------------------------------------------------------------------------- counts


def test_counts_beyond_exact_floats_are_refused(tmp_path, capsys):
    """Issue 44: a count of 1e20 was released exactly while the record said private."""
    path = tmp_path / "big.csv"
    path.write_text("winner,loser,count\na,b,1e20\nb,c,1\n")
    argv = ["rank", path, "--privacy", "edge", "--epsilon", 1, "--method", "counts", "--out", "-"]
    code, out, err = run(argv, capsys)
    assert code == 2 and "below 2^53" in err and out == ""
    with pytest.raises(ValueError, match="2\\^53"):
        NoiseSource.system().laplace_mechanism(np.array([3.0]), 2.0, 1.0, bound=2.0**53)


@pytest.mark.parametrize("eps", [1e-9, 2e-9, 1e-8])
def test_extreme_budgets_release_odd_and_even_counts_alike(eps):
    """Issue 44: with the noise grid above 1 an odd count was refused and an even one released.
    The grid is never coarser than the integers now: both neighbours are released."""
    noise = NoiseSource.system()
    for wins in (np.array([3.0, 1.0]), np.array([2.0, 2.0])):
        out = noise.laplace_mechanism(wins, 2.0, eps, bound=4.0)
        assert out.shape == (2,) and np.all(np.isfinite(out))
    # a refusal at a public parameter only: the noise scale 2^40 and beyond
    for wins in (np.array([3.0, 1.0]), np.array([2.0, 2.0])):
        with pytest.raises(ValueError, match="2\\^40"):
            noise.laplace_mechanism(wins, 2.0, 1e-13)


def test_extreme_budget_counts_through_the_api_are_private_and_finite():
    data = _small()
    for method, extra in (("counts", {}),):
        ranking = dprank.rank(data, privacy="edge", epsilon=1e-9, method=method, **extra)
        assert ranking.private and np.all(np.isfinite(ranking.scores))
        assert ranking.record()["noise"]["grid_exponent"] <= 0
    ranking = dprank.rank(
        data,
        privacy="individual",
        epsilon=1e-9,
        method="counts",
        max_per_user=2,
        items=list("abcd"),
    )
    assert ranking.record()["noise"]["grid_exponent"] <= 0


# --------------------------------------------------------------------------- spreadsheet cells

FORMULAS = ['=HYPERLINK("http://x")', "+SUM(1,2)", "-2+3", "@cmd", "\tx", "'=quoted", "-7"]


def test_every_csv_the_command_writes_escapes_formulas(tmp_path, capsys):
    """Issue 44: such labels were written verbatim to ranking.csv, where a spreadsheet runs them."""
    labels = FORMULAS
    rows = [(labels[k], labels[(k + 1) % len(labels)], f"@u{k}") for k in range(len(labels))]
    frame = pd.DataFrame(rows, columns=["winner", "loser", "user"])
    raw = tmp_path / "raw.csv"
    frame.to_csv(raw, index=False)
    out = tmp_path / "ranking.csv"
    assert run(["rank", raw, "--privacy", "edge", "--epsilon", 1, "--out", out], capsys)[0] == 0
    cells = pd.read_csv(out, dtype=str, keep_default_na=False)["item"].tolist()
    assert not any(c[:1] in "=+@\t" or (c[:1] == "-" and c != "-7") for c in cells)
    assert '\'=HYPERLINK("http://x")' in cells and "-7" in cells
    # the escaped ranking declares the same items: read back, the labels are the originals
    argv = ["rank", raw, "--privacy", "individual", "--epsilon", 1, "--max-per-user", 3]
    argv += ["--items", out, "--out", tmp_path / "ind.csv", "--audit-record", tmp_path / "a.json"]
    code, _, err = run(argv, capsys)
    assert code == 0, err
    assert json.loads((tmp_path / "a.json").read_text())["n_dropped_naming_undeclared_items"] == 0
    released = tmp_path / "released.csv"
    argv = ["privatize", raw, "--epsilon", 1, "--items", out, "--out", released]
    assert run(argv, capsys)[0] == 0
    rel = pd.read_csv(released, dtype=str, keep_default_na=False)
    for column in ("item_a", "item_b", "user"):
        assert not any(c[:1] in "=+@\t" for c in rel[column]), column
    code, _, err = run(
        ["rank", released, "--privacy", "local", "--out", tmp_path / "l.csv"], capsys
    )
    assert code == 0, err
    assert set(pd.read_csv(tmp_path / "l.csv", dtype=str, keep_default_na=False)["item"]) == set(
        cells
    )


# --------------------------------------------------------------------------- declared items


def test_declared_items_rank_every_item_and_drop_the_others():
    frame = pd.DataFrame(
        {"winner": ["a", "b", "x", "a"], "loser": ["b", "c", "a", "c"], "user": [1, 2, 3, 3]}
    )
    ranking = dprank.rank(
        frame, privacy="individual", epsilon=1.0, max_per_user=2, items=["a", "b", "c", "zed"]
    )
    assert sorted(ranking.items) == ["a", "b", "c", "zed"]
    assert ranking.audit_record()["n_dropped_naming_undeclared_items"] == 1
    assert "declared" in ranking.record()["items"]
    ranking = dprank.rank(
        frame, privacy="individual", epsilon=1.0, max_per_user=2, items_from_data=True
    )
    assert sorted(ranking.items) == ["a", "b", "c", "x"]
    assert "declared public" in ranking.record()["items"]
    with pytest.raises(ValueError, match="twice"):
        dprank.rank(frame, privacy="edge", epsilon=1.0, items=["a", "a "])
    with pytest.raises(ValueError, match="not both"):
        dprank.rank(frame, privacy="edge", epsilon=1.0, items=["a"], items_from_data=True)


def test_the_items_file_is_checked(tmp_path, capsys):
    raw = tmp_path / "raw.csv"
    raw.write_text(RAW)
    argv = ["rank", raw, "--privacy", "individual", "--epsilon", 1, "--max-per-user", 2]
    for text, message in (
        ("name\na\n", "no 'item' column"),
        ("item\na\nb\na\n", "declared twice"),
        ("item\n", "declares no item"),
    ):
        (tmp_path / "items.csv").write_text(text)
        code, _, err = run([*argv, "--items", tmp_path / "items.csv", "--out", "-"], capsys)
        assert code == 2 and message in err, err
    code, _, err = run([*argv, "--items", tmp_path / "none.csv", "--out", "-"], capsys)
    assert code == 2 and "no such file" in err


def test_the_local_release_unit_is_the_comparison():
    method = get_method("local_adrr")
    assert method.trust_model == "local"
    raw = _small()
    released = release_local(raw, np.ones(raw.n_users), NoiseSource.system())
    ranking = dprank.rank(released, privacy="local", items=list("abcd"))
    record = ranking.record()
    assert record["privacy_unit"] == "comparison" and "L * epsilon" in record["privacy_unit_note"]
    assert "not verified" in record["local_release"]


def test_a_local_release_costs_L_epsilon_per_user():
    """The DP game at the user level: 10 comparisons at 0.5 each are far more than 0.5-DP for
    their user (the old ledger charge), and within 10 x 0.5 = 5 (the charge now)."""
    from dprank.privacy.release import local_release

    n, L, eps = 20000, 10, 0.5
    users = np.repeat(np.arange(n), L)
    hits = []
    for y in (1.0, 0.0):  # D: the user's ten outcomes all "a won"; D': all "b won"
        data = Comparisons(
            n_items=2,
            i=np.zeros(n * L, int),
            j=np.ones(n * L, int),
            y=np.full(n * L, y),
            count=1.0,
            user=users,
        )
        rel = local_release(data, np.full(n, eps), NoiseSource.from_seed(7))
        wins = np.bincount(rel.user, weights=rel.y * rel.count, minlength=n)
        hits.append(int(np.sum(wins >= 8)))  # the event "8 or more released wins for a"
    bound = epsilon_lower_bound(hits[1], n, hits[0], n)
    assert 2 * eps < bound <= L * eps
