"""Tests of the B2 car-data study (B2 section 5.2, Tables 1-2, Figure 14)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from dprank_papers.studies.paper_b2_car import (
    TABLE1_ORDER,
    intransitivity,
    nonprivate_fits,
    read_car_data,
    simulate_replicate,
    simulate_replicates,
    table1_ranks,
    table2,
    tidy_replicates,
)

ROOT = Path(__file__).resolve().parents[1]
M, P = 10, 45


@pytest.fixture(scope="module")
def folder(mirror) -> Path:
    return mirror / "car_preferences"


@pytest.fixture(scope="module")
def car(folder):
    return read_car_data(folder, allow_missing=True)


@pytest.fixture(scope="module")
def fits(car):
    return nonprivate_fits(car.y, car.m, car.observed)


def _pair(i: int, j: int, m: int = M) -> int:
    """Index of car pair (i, j) (1-based ids, i < j) in triu_indices order."""
    iu, ju = np.triu_indices(m, 1)
    return int(np.flatnonzero((iu == i - 1) & (ju == j - 1))[0])


# ---------------------------------------------------------------------------
# reader


def test_reader_shapes_and_attributes(car):
    assert car.y.shape == (60, P) and car.y.dtype == np.uint8
    assert car.observed.shape == (60, P) and car.observed.dtype == bool
    assert car.users.tolist() == list(range(1, 61))
    assert car.m == 10 and car.item_ids.tolist() == list(range(1, 11))
    # B2 Table 1, car by car
    assert car.items["Body"].tolist() == [
        "SUV", "Sedan", "Sedan", "Sedan", "SUV", "SUV", "Sedan", "SUV", "Sedan", "SUV",
    ]  # fmt: skip
    assert (
        car.items["Transmission"].tolist()
        == ["Manual", "Auto", "Manual", "Manual", "Manual"] + ["Auto"] * 5
    )
    assert car.items["Engine"].tolist() == [
        "2.5L", "5.5L", "4.5L", "6.2L", "3.5L", "3.5L", "3.5L", "2.5L", "3.5L", "4.5L",
    ]  # fmt: skip
    hy, non = "Hybrid", "Non-Hybrid"
    assert car.items["Fuel"].tolist() == [non, hy, non, non, non, hy, hy, hy, non, non]


def test_reader_counts_per_user_and_controls_dropped(folder, car):
    raw = pd.read_csv(folder / "prefs1.csv", skipinitialspace=True)
    assert car.n_control_rows == int((raw["Is Control"] == 1).sum()) > 0
    real = raw[raw["Is Control"] == 0]
    per_user = real.groupby("User ID").size().reindex(car.users).to_numpy()
    np.testing.assert_array_equal(car.observed.sum(axis=1), per_user)
    assert car.observed.sum() == len(real)
    # the shipped file is not the complete 60 x 45 grid B2 describes (PROVENANCE.md)
    assert (car.observed.sum(axis=1) == P).sum() == 47
    with pytest.raises(ValueError, match="exactly 45 comparisons"):
        read_car_data(folder)
    # a control row repeats user 1's pair (1, 9) reversed: "1 beats 9" (control)
    # against "9 beats 1" (real answer); the real answer is kept
    u1 = raw[(raw["User ID"] == 1) & raw["Item1 ID"].isin((1, 9)) & raw["Item2 ID"].isin((1, 9))]
    assert sorted(u1[["Item1 ID", "Is Control"]].values.tolist()) == [[1, 1], [9, 0]]
    assert car.y[0, _pair(1, 9)] == 0
    # user 59's only (1, 9) answer is a control row: dropped, so the pair is unobserved
    u59 = raw[(raw["User ID"] == 59) & raw["Item1 ID"].isin((1, 9)) & raw["Item2 ID"].isin((1, 9))]
    assert u59["Is Control"].tolist() == [1]
    assert not car.observed[58, _pair(1, 9)]


def test_reader_y_matches_prefs(folder, car):
    # spot checks: the first rows of prefs1.csv, user 1: "9,3", "7,9", "9,1"
    assert car.y[0, _pair(3, 9)] == 0  # 9 beats 3
    assert car.y[0, _pair(7, 9)] == 1  # 7 beats 9
    assert car.y[0, _pair(1, 9)] == 0  # 9 beats 1
    # every non-control row
    raw = pd.read_csv(folder / "prefs1.csv", skipinitialspace=True)
    real = raw[raw["Is Control"] == 0]
    for u, w, lo in real[["User ID", "Item1 ID", "Item2 ID"]].itertuples(index=False):
        k = _pair(min(w, lo), max(w, lo))
        assert car.observed[u - 1, k]
        assert car.y[u - 1, k] == int(w < lo)
    assert not car.y[~car.observed].any()


def _write_folder(tmp_path: Path, prefs: pd.DataFrame, folder: Path) -> Path:
    for name in ("items1.csv", "users1.csv"):
        (tmp_path / name).write_text((folder / name).read_text())
    prefs.to_csv(tmp_path / "prefs1.csv", index=False)
    return tmp_path


def test_reader_complete_synthetic_data(tmp_path, folder):
    rng = np.random.default_rng(0)
    iu, ju = np.triu_indices(M, 1)
    rows = []
    for u in range(1, 61):
        for i, j in zip(iu + 1, ju + 1, strict=True):
            w, lo = (i, j) if rng.random() < 0.5 else (j, i)
            rows.append((u, w, lo, 0))
        rows.append((u, lo, w, 1))  # a control row, reversed answer
    prefs = pd.DataFrame(rows, columns=["User ID", "Item1 ID", "Item2 ID", "Is Control"])
    car = read_car_data(_write_folder(tmp_path, prefs, folder))
    assert car.complete and car.observed.sum(axis=1).tolist() == [P] * 60
    assert car.n_control_rows == 60
    real = prefs[prefs["Is Control"] == 0]
    expect = (real["Item1 ID"] < real["Item2 ID"]).to_numpy().reshape(60, P)
    np.testing.assert_array_equal(car.y, expect.astype(np.uint8))
    # a duplicated answer is an error
    dup = pd.concat([prefs, prefs.iloc[[0]]])
    with pytest.raises(ValueError, match="twice"):
        read_car_data(_write_folder(tmp_path, dup, folder))


# ---------------------------------------------------------------------------
# intransitivity


def test_intransitivity_hand_example():
    # m = 3, pairs (1,2), (1,3), (2,3)
    y = np.array(
        [
            [1, 1, 1],  # 1 > 2, 1 > 3, 2 > 3: transitive, wins (2, 1, 0)
            [1, 0, 1],  # 1 > 2, 3 > 1, 2 > 3: cycle, wins (1, 1, 1)
            [0, 0, 0],  # 2 > 1, 3 > 1, 3 > 2: transitive, wins (0, 1, 2)
        ],
        dtype=np.uint8,
    )
    out = intransitivity(y, 3)
    assert out["n_users"] == 3 and out["n_intransitive"] == 1
    assert out["n_conflicts"] == 0 and out["n_ties"] == 3  # the cycle's ties are no conflicts
    np.testing.assert_array_equal(out["wins"], [[2, 1, 0], [1, 1, 1], [0, 1, 2]])
    # m = 4: 1 > 2, 1 > 3, 4 > 1, 2 > 3, 2 > 4, 3 > 4 -> wins (2, 2, 1, 1);
    # 4 > 1 conflicts (1 < 2), 1 > 2 and 3 > 4 are ties
    y4 = np.array([[1, 1, 0, 1, 1, 1]], dtype=np.uint8)
    out4 = intransitivity(y4, 4)
    assert out4["n_intransitive"] == 1 and out4["n_conflicts"] == 1 and out4["n_ties"] == 2
    assert out4["conflict_share"] == pytest.approx(1 / 6)
    # with 4 > 1 unobserved: wins (2, 2, 1, 0), no conflict, 5 comparisons
    out5 = intransitivity(y4, 4, observed=np.array([[1, 1, 0, 1, 1, 1]], dtype=bool))
    assert out5["n_comparisons"] == 5 and out5["n_conflicts"] == 0
    np.testing.assert_array_equal(out5["wins"], [[2, 2, 1, 0]])


def test_intransitivity_car_users(car):
    out = intransitivity(car.y, car.m, car.observed)
    assert out["n_intransitive"] == 42  # B2 section 5.2: 42 of 60 users
    assert out["n_comparisons"] == 2675


# ---------------------------------------------------------------------------
# non-private fits (B2 Table 1)


def test_table1_ranks():
    r = table1_ranks()
    assert r[6 - 1] == 1 and r[3 - 1] == 10 and r[10 - 1] == 2
    assert tuple(int(i) + 1 for i in np.argsort(r)) == TABLE1_ORDER


def test_nonprivate_rankings_match_table1(fits):
    for name in ("btl", "tm", "count"):
        assert fits["orders"][name] == TABLE1_ORDER, name
        np.testing.assert_array_equal(fits["ranks"][name], table1_ranks())
    assert fits["agree"] and not fits["count_ties"]
    assert fits["converged"] == {"btl": True, "tm": True}
    for theta in fits["theta"].values():
        assert abs(theta.sum()) < 1e-10


# ---------------------------------------------------------------------------
# replicates (B2 Table 2, Figure 14)


def _frame(out):
    return pd.DataFrame(out["rows"]).sort_values(["model", "method", "metric"], ignore_index=True)


def test_replicate_reproducible_and_independent(car, fits):
    args = (car.y, car.m, fits, 11)
    a = simulate_replicate(*args, 3, observed=car.observed)
    b = simulate_replicate(*args, 3, observed=car.observed)
    pd.testing.assert_frame_equal(_frame(a), _frame(b))
    np.testing.assert_array_equal(a["eps"], b["eps"])
    # replicate 3 is the same whether or not other replicates run, in any order
    many = simulate_replicates(*args, [5, 3, 0], observed=car.observed)
    got = many[many["replicate"] == 3].sort_values(["model", "method", "metric"], ignore_index=True)
    pd.testing.assert_frame_equal(got, _frame(a))
    # other replicates and other seeds differ
    c = simulate_replicate(*args, 4, observed=car.observed)
    assert c["A"] != a["A"] and not np.array_equal(c["eps"], a["eps"])
    d = simulate_replicate(car.y, car.m, fits, 12, 3, observed=car.observed)
    assert d["A"] != a["A"]


def test_replicate_rows(car, fits):
    out = simulate_replicate(car.y, car.m, fits, 1, 0, observed=car.observed)
    df = pd.DataFrame(out["rows"])
    assert 0.2 <= out["A"] <= 2.0
    assert np.all((out["eps"] >= out["A"]) & (out["eps"] <= out["A"] + 1))
    assert out["B"] == pytest.approx(np.mean(np.tanh(out["eps"] / 2) ** 2))
    k = df[df["metric"] == "kendall_tau_K"]
    assert len(k) == 8 and set(k["method"]) == {
        "local_adrr",
        "local_count",
        "local_classic_rr",
        "local_laplace",
    }
    count = k[k["method"] == "local_count"]
    assert count["model"].tolist() == ["btl", "tm"] and count["value"].nunique() == 1
    adrr = df[df["method"] == "local_adrr"]
    assert sorted(adrr["metric"]) == sorted(["kendall_tau_K", "l2_over_sqrt_m", "linf"] * 2)
    assert df["value"].between(0, 5).all()


def test_table2_paired_t_matches_scipy():
    rng = np.random.default_rng(5)
    R = 40
    base = rng.random(R)
    rows = []
    for model, shift in (("btl", 0.0), ("tm", 0.01)):
        for method, add in (
            ("local_adrr", 0.0),
            ("local_count", 0.05),
            ("local_classic_rr", 0.02),
            ("local_laplace", 0.1),
        ):
            vals = base + shift + add + 0.05 * rng.standard_normal(R)
            for r, v in enumerate(vals):
                rows.append(
                    {"replicate": r, "method": method, "model": model, "metric": "kendall_tau_K",
                     "value": v}
                )  # fmt: skip
    rows.append(
        {"replicate": 0, "method": "local_adrr", "model": "btl", "metric": "linf", "value": 9.0}
    )
    tab = table2(rows)
    df = pd.DataFrame(rows)
    assert len(tab) == 8
    for _, row in tab.iterrows():
        sel = df[(df["model"] == row["model"]) & (df["metric"] == "kendall_tau_K")]
        v = sel[sel["method"] == row["method"]].sort_values("replicate")["value"].to_numpy()
        ref = sel[sel["method"] == "local_adrr"].sort_values("replicate")["value"].to_numpy()
        assert row["mean"] == pytest.approx(v.mean())
        assert row["se"] == pytest.approx(stats.sem(v))
        if row["method"] == "local_adrr":
            assert np.isnan(row["t"])
            continue
        expect = stats.ttest_rel(v, ref)
        assert row["t"] == pytest.approx(expect.statistic, rel=1e-12)
        assert row["p"] == pytest.approx(expect.pvalue, rel=1e-10)
        assert row["df"] == R - 1
    # unpaired replicates are refused
    with pytest.raises(ValueError, match="different replicates"):
        table2([r for r in rows if not (r["method"] == "local_adrr" and r["replicate"] == 0)])


def test_adrr_beats_laplace(car, fits):
    rows = simulate_replicates(car.y, car.m, fits, 2024, range(30), observed=car.observed)
    tab = table2(rows).set_index(["model", "method"])
    for model in ("btl", "tm"):
        assert tab.loc[(model, "local_adrr"), "mean"] < tab.loc[(model, "local_laplace"), "mean"]
    assert rows["converged"].all()


def test_tidy_replicates_adds_convergence_and_privacy_constant_rows():
    rows = pd.DataFrame(
        [
            {
                "replicate": r,
                "A": 1.0,
                "B": 0.1 * (r + 1),
                "method": meth,
                "model": mod,
                "metric": met,
                "value": 0.5,
                "converged": meth != "local_laplace",
            }
            for r in (0, 1)
            for mod in ("btl", "tm")
            for meth, met in (
                ("local_adrr", "kendall_tau_K"),
                ("local_adrr", "linf"),
                ("local_laplace", "linf"),
            )
        ]
    )
    tidy = tidy_replicates(rows)
    assert list(tidy.columns) == ["model", "replicate", "method", "metric", "value"]
    conv = tidy[tidy["metric"] == "converged"]
    assert len(conv) == 2 * 2 * 2 and conv[conv["method"] == "local_laplace"]["value"].eq(0).all()
    b = tidy[tidy["metric"] == "B"].set_index(["model", "replicate"])["value"]
    assert b.loc[("tm", 1)] == 0.2 and len(b) == 4
    assert len(tidy) == len(rows) + 8 + 4
