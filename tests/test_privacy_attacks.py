"""Attacks on the releases as shipped: each one works on numpy noise and fails on the release.

* Floating-point bits (Mironov, CCS 2012): a released ``count + noise`` whose noise
  is numpy's ``Laplace = log(2U)`` of a 53-bit ``U`` can often be reproduced bit for
  bit only from the true count; the release's noise lies on a power-of-two grid, so
  every neighbouring count reproduces it as well.
* Seed search: noise derived from a small seed is removed by trying seeds.
* Row order and orientation of randomized response with counts.
* One heavy user moving a data-dependent noise scale.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

import dprank
from dprank.base.seeding import Stream, generator, stable_id
from dprank.cli import main
from dprank.data.comparisons import Comparisons
from dprank.methods import get_method
from dprank.privacy.noise import NoiseSource, grid_exponent
from dprank.privacy.release import local_release

# --------------------------------------------------------------------------- bit-level models


def _numpy_laplace_consistent(v: float, x: float, scale: float) -> bool:
    """Could ``v`` be ``x + scale * Generator.laplace(0, 1)`` for some 53-bit uniform ``U``?

    numpy draws ``U = k / 2^53`` and returns ``log(2U)`` (``U < 1/2``) or
    ``-log(2 - 2U)``; the release adds ``scale * L`` to ``x`` in float64.
    """
    target = (v - x) / scale
    mass = math.exp(target) / 2 if target < 0 else math.exp(-target) / 2
    k0 = mass * 2.0**53 if target < 0 else (1 - mass) * 2.0**53
    # v - x differs from the noise by the rounding of v: search the 53-bit values it allows
    width = int(2.0**53 * mass * (4 * math.ulp(v) / scale + 1e-15 * abs(target))) + 4
    inverse = (lambda u: math.log(u + u)) if target < 0 else (lambda u: -math.log(2.0 - u - u))
    for k in range(int(k0) - width, int(k0) + width + 1):
        if not 0 < k < 2**53:
            continue
        u = k * (1.0 / 9007199254740992.0)
        if (u >= 0.5) != (target >= 0):
            continue
        if x + scale * inverse(u) == v:
            return True
    return False


def _grid_consistent(v: float, x: float, k: int) -> bool:
    """Could ``v`` be ``x + 2^k Z`` (rounded once to float64) for an integer ``Z``?"""
    z0 = round(math.ldexp(v - x, -k))
    return any(x + math.ldexp(float(z), k) == v for z in range(z0 - 2, z0 + 3))


def _identified(released, truth, consistent) -> float:
    """Share of values whose true count is the only candidate of ``truth + {-1, 0, 1}`` left."""
    hits = 0
    for v, x in zip(released, truth, strict=True):
        left = [d for d in (-1, 0, 1) if consistent(float(v), float(x + d))]
        hits += left == [0]
    return hits / len(released)


def _tournament(n=60, m=150, seed=0) -> Comparisons:
    """``m`` comparisons of random pairs among ``n`` items: small counts, as in sparse data."""
    rng = np.random.default_rng(seed)
    a = rng.integers(0, n, m)
    b = (a + rng.integers(1, n, m)) % n
    return Comparisons.from_winner_loser(a, b, n_items=n)


def _with_users(c: Comparisons, per_user: int) -> Comparisons:
    user = np.arange(c.n_records) // per_user
    return Comparisons(n_items=c.n_items, i=c.i, j=c.j, y=c.y, count=c.count, user=user)


@pytest.mark.parametrize("privacy", ["edge", "individual"])
def test_floating_point_attack_fails_on_the_release(privacy):
    data = _tournament()
    if privacy == "individual":
        data = _with_users(data, 5)
    truth = np.bincount(data.i, data.y * data.count, data.n_items) + np.bincount(
        data.j, (1 - data.y) * data.count, data.n_items
    )
    eps = 1.0
    # control: numpy's Laplace (the simulation path) gives the true counts away
    name = f"{privacy}_counts"
    bound = {"max_per_user": 5} if privacy == "individual" else {}
    sim = get_method(name).fit(data, eps, np.random.default_rng(1), **bound)
    if privacy == "individual":
        bound["items_from_data"] = True  # the tournament's items are public
    scale = sim.details["noise_scale"]
    rate = _identified(sim.scores, truth, lambda v, x: _numpy_laplace_consistent(v, x, scale))
    assert rate > 0.2, rate  # the attack works on numpy noise
    # the release, attacked with the bit-level model of the sampler its record names:
    # noise on a power-of-two grid, where every neighbouring count fits as well
    rel = dprank.rank(data, privacy=privacy, epsilon=eps, method="counts", **bound)
    assert rel.private
    details = rel.fit.details
    if details.get("sampler") == "exact discrete Laplace on a power-of-two grid":
        k = details["grid_exponent"]
        model = lambda v, x: _grid_consistent(v, x, k)  # noqa: E731
    else:  # numpy's continuous Laplace, as the command drew it before
        model = lambda v, x: _numpy_laplace_consistent(v, x, details["noise_scale"])  # noqa: E731
    assert _identified(rel.scores, truth, model) <= 0.01


def test_floating_point_attack_fails_on_local_laplace_release():
    n = 400
    y = np.random.default_rng(0).integers(0, 2, n).astype(float)
    c = Comparisons(
        n_items=2, i=np.zeros(n), j=np.ones(n), y=y, count=np.ones(n), user=np.arange(n)
    )
    released = local_release(c, np.full(n, 1.0), NoiseSource.system(), "laplace")
    k = grid_exponent(1.0)
    left = [
        [t for t in (0.0, 1.0) if _grid_consistent(float(v), t, k)] for v in released.y.tolist()
    ]
    assert sum(len(w) == 1 for w in left) / n <= 0.01


# --------------------------------------------------------------------------- seeds


def _old_cli_noise(seed: int, n: int) -> np.ndarray:
    """The noise the command drew from ``--seed`` before releases were secured."""
    rng = generator(seed, "dprank.rank", stable_id("edge_counts"), 0, Stream.RELEASE)
    return 2.0 * rng.laplace(0.0, 1.0, size=n)


def _seed_search(scores, n_seeds=40):
    for seed in range(n_seeds):
        guess = scores - _old_cli_noise(seed, scores.size)
        if np.allclose(guess, np.round(guess), atol=1e-6):
            return seed
    return None


def test_seed_search_finds_nothing_in_a_release(tmp_path, capsys):
    data = _tournament(20, 300)
    frame = pd.DataFrame(
        {
            "winner": np.where(data.y == 1, data.i, data.j),
            "loser": np.where(data.y == 1, data.j, data.i),
        }
    )
    path = tmp_path / "games.csv"
    frame.to_csv(path, index=False)
    # the control: noise drawn as the command drew it from a seed is found at once
    truth = np.bincount(frame["winner"], minlength=20).astype(float)
    assert _seed_search(truth + _old_cli_noise(11, 20)) == 11
    # the release: a plain --seed is refused, and the secure noise matches no seed
    out = tmp_path / "r.csv"
    argv = ["rank", str(path), "--privacy", "edge", "--method", "counts", "--epsilon", "1"]
    assert main([*argv, "--seed", "11", "--out", str(out)]) == 2
    assert "--insecure-seed" in capsys.readouterr().err
    assert main([*argv, "--out", str(out)]) == 0
    released = pd.read_csv(out).sort_values("item")["score"].to_numpy()
    assert _seed_search(released) is None
    record = json.loads(out.with_suffix(".json").read_text())
    assert "seed" not in json.dumps(record)


# --------------------------------------------------------------------------- row order


def test_randomized_response_rows_reveal_nothing_by_order_or_orientation(tmp_path, capsys):
    rng = np.random.default_rng(3)
    n_pairs, eps = 3000, 0.5
    labels = np.array([f"i{k:04d}" for k in range(200)])
    a = rng.integers(0, 200, n_pairs)
    b = (a + rng.integers(1, 200, n_pairs)) % 200
    truth = rng.integers(0, 2, n_pairs)  # 1: item_a won
    raw = pd.DataFrame(
        {
            "winner": np.where(truth == 1, labels[a], labels[b]),
            "loser": np.where(truth == 1, labels[b], labels[a]),
            "user": [f"u{k}" for k in range(n_pairs)],
            "count": 6,
        }
    )
    path, out = tmp_path / "raw.csv", tmp_path / "rel.csv"
    raw.to_csv(path, index=False)
    argv = ["privatize", str(path), "--epsilon", str(eps), "--items-from-data"]
    assert main([*argv, "--out", str(out), "--quiet"]) == 0
    rel = pd.read_csv(out)
    bound = math.exp(eps) / (1 + math.exp(eps))  # the best any attacker can do per comparison
    tol = 4 * math.sqrt(0.25 / n_pairs)
    # order: among users released as two rows, guess "the first row is the true outcome"
    winner_of = dict(zip(raw["user"], raw["winner"], strict=True))
    correct = total = 0
    for user, rows in rel.groupby("user", sort=False):
        if len(rows) == 2:
            first = rows.iloc[0]
            guessed = first["item_a"] if first["outcome"] == 1 else first["item_b"]
            correct += guessed == winner_of[user]
            total += 1
    assert total > 500 and correct / total <= bound + tol
    # orientation: guess "item_a is the winner"
    first_a = rel.groupby("user")["item_a"].first()
    guess = (first_a == pd.Series(winner_of).reindex(first_a.index)).mean()
    assert guess <= bound + tol
    # independent flips: the released counts of a pair follow Binomial(6, p)
    flipped = rel.assign(winner=np.where(rel["outcome"] == 1, rel["item_a"], rel["item_b"])).assign(
        kept=lambda f: f["winner"] == f["user"].map(winner_of)
    )
    n_flipped = flipped[~flipped["kept"]].groupby("user")["count"].sum()
    n_flipped = n_flipped.reindex(raw["user"], fill_value=0)
    p = 1 / (math.exp(eps) + 1)
    assert abs(n_flipped.mean() - 6 * p) < 4 * math.sqrt(6 * p * (1 - p) / n_pairs)


# --------------------------------------------------------------------------- heavy user


def test_one_heavy_user_does_not_move_the_noise(tmp_path, capsys):
    rows = [(f"i{k % 7}", f"i{(k + 1 + k // 7) % 7}", f"u{k // 4}") for k in range(80)]
    raw = pd.DataFrame(rows, columns=["winner", "loser", "user"])
    raw = raw[raw["winner"] != raw["loser"]]
    heavy = pd.DataFrame(
        [(f"i{k % 7}", f"i{(k + 3) % 7}", "heavy") for k in range(40)],
        columns=["winner", "loser", "user"],
    )
    scales, dropped = [], []
    for frame, name in ((raw, "without"), (pd.concat([raw, heavy]), "with")):
        path = tmp_path / f"{name}.csv"
        frame.to_csv(path, index=False)
        out, audit = tmp_path / f"{name}_r.csv", tmp_path / f"{name}_audit.json"
        argv = ["rank", str(path), "--privacy", "individual", "--epsilon", "1"]
        argv += ["--method", "counts", "--max-per-user", "4", "--items-from-data"]
        argv += ["--out", str(out)]
        assert main([*argv, "--audit-record", str(audit)]) == 0
        scales.append(json.loads(out.with_suffix(".json").read_text())["noise"]["noise_scale"])
        dropped.append(json.loads(audit.read_text())["n_dropped_by_max_per_user"])
    assert scales[0] == scales[1] == 8.0  # Laplace(2L / eps) with the declared L = 4
    assert dropped == [0, 36]


def test_central_mechanisms_reject_outcomes_outside_0_1():
    c = Comparisons(n_items=3, i=[0, 1], j=[1, 2], y=[2.0, 1.0], count=[1, 1])
    with pytest.raises(ValueError, match="outcomes 0 or 1"):
        dprank.rank(c, privacy="edge", epsilon=1.0, method="counts")
