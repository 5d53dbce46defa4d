"""Property-based tests of the public library, part two: noise, releases, audits, the ledger.

The same two kinds of test as :mod:`test_properties` (whose strategies and helpers
this file uses): a bad value of one argument raises ``ValueError`` or ``TypeError``
naming it, and valid generated arguments give an answer, checked where it has a cheap
defining property (an audit's verdict agrees with its bounds, a Laplace scale is
rounded up, an exact privacy loss is the budget). The Monte Carlo audits run with
a handful of trials: the checks are of their arguments and of the verdict's fields,
not of their power (``tests/test_audit.py`` and ``tests/test_privacy_audit.py``).
"""

from __future__ import annotations

import math
import re
import tempfile
from fractions import Fraction
from pathlib import Path

import numpy as np
import pandas as pd
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from test_properties import (
    BAD_COUNT1,
    BAD_POSITIVE_FINITE,
    BAD_PROB,
    BAD_RNG,
    BAD_WINS,
    INF,
    NAN,
    drop,
    generator,
    kw,
    property_tests,
    registry,
    win_matrix,
)

from dprank import audit, intervals, ledger, methods, testing
from dprank.audit import command_channels as _channels
from dprank.audit import command_release as audit_release
from dprank.audit import harness
from dprank.data import inputs
from dprank.data import items as _items
from dprank.data.comparisons import Comparisons
from dprank.privacy import noise, release

case, CASES, BUILDERS, CHECKS = registry()


BAD_EPS = [0.0, -1.0, NAN, INF, "1", None]
BAD_ALPHA = [0.0, 1.0, -0.5, NAN, "0.05"]
BAD_TRIALS = [0, 3, -1, 4.5, NAN, "10", None, True]
EPS = st.floats(0.2, 3.0)
TRIALS = st.integers(4, 8)

# ---- noise
case(
    noise.as_noise_source,
    kw(rng=st.none() | st.integers(0, 100) | generator()),
    lambda r, kw: isinstance(r, noise.NoiseSource) and r.secure == (kw["rng"] is None),
    rng=["abc", 1.5, True, np.random.RandomState(0)],
)
case(
    noise.grid_exponent,
    kw(scale=st.floats(1e-3, 1e6)),
    lambda k, kw: 2.0 ** (k + noise.GRID_BITS) <= kw["scale"] < 2.0 ** (k + noise.GRID_BITS + 1),
    scale=BAD_POSITIVE_FINITE,
)
case(
    noise.laplace_scale,
    kw(sensitivity=st.floats(0.1, 10), epsilon=st.floats(0.01, 10)),
    lambda b, kw: (
        Fraction(b) >= Fraction(kw["sensitivity"]) / Fraction(kw["epsilon"])
        and math.nextafter(b, 0) < kw["sensitivity"] / kw["epsilon"] * (1 + 1e-15)
    ),
    sensitivity=BAD_POSITIVE_FINITE,
    epsilon=BAD_POSITIVE_FINITE,
)
case(
    noise.rr_flip_threshold,
    kw(epsilon=st.floats(0.01, 30)),
    lambda t, kw: 0 < t <= 2**63 and t / 2**64 >= 1 / (math.exp(kw["epsilon"]) + 1) * (1 - 1e-12),
    epsilon=[0.0, -1.0, NAN, "1", None],
)
case(
    noise.rr_effective_epsilon,
    kw(epsilon=st.floats(0.01, 30)),
    # the threshold rounds 2^64 / (e^eps + 1) up to an integer: the loss falls short of eps by
    # up to about e^eps / 2^64 (6e-8 at eps = 28.5, 2e-8 relative at eps = 30)
    lambda e, kw: e <= kw["epsilon"] and math.isclose(e, kw["epsilon"], rel_tol=1e-7),
    epsilon=[0.0, -1.0, NAN, "1", None],
)

# ---- release
_users = Comparisons(
    n_items=3,
    i=[0, 1, 2, 0, 1],
    j=[1, 2, 0, 2, 0],
    y=[1.0, 0.0, 1.0, 1.0, 0.0],
    count=[2.0, 1.0, 3.0, 1.0, 1.0],
    user=[0, 0, 1, 1, 2],
)
_noise = generator().map(noise.NoiseSource.from_seed)
BAD_NOISE = ["abc", None, 7]
BAD_DATA = ["x", None, np.ones((3, 3))]


def _check_bound(r, kw):
    bounded, dropped = r
    per_user = bounded.per_user_counts()
    return per_user.max() <= kw["max_per_user"] and dropped == _users.n_comparisons - per_user.sum()


case(
    release.bound_user_contributions,
    kw(comparisons=st.just(_users), max_per_user=st.integers(1, 6), noise=_noise),
    _check_bound,
    comparisons=BAD_DATA,
    max_per_user=BAD_COUNT1,
    noise=BAD_NOISE,
)
case(
    release.local_release,
    kw(
        comparisons=st.just(_users),
        user_epsilon=hnp.arrays(np.float64, 3, elements=st.floats(0.1, 5)),
        noise=_noise,
        mechanism=st.sampled_from(["rr", "laplace"]),
        aggregate=st.booleans(),
    ),
    lambda r, kw: r.n_comparisons == _users.n_comparisons and r.n_users == 3,
    comparisons=BAD_DATA,
    user_epsilon=[np.zeros(3), -np.ones(3), np.full(3, NAN), np.ones(2), "1"],
    noise=BAD_NOISE,
    mechanism=["bogus", None],
    aggregate=["yes", None],
)


# ---- audits: a verdict whose fields agree with each other
def _verdict(r, kw):
    eps = kw.get("eps", kw.get("claimed_eps"))
    assert r.claimed_eps == eps and 0 <= r.lower_bound
    assert r.verdict == (
        "consistent" if r.lower_bound <= eps + audit.VERDICT_SLACK else "VIOLATION"
    )
    assert r.trials == kw["trials"] and 0 < r.confidence < 1
    return True


_audit_common = dict(eps=BAD_EPS, trials=BAD_TRIALS, rng=BAD_RNG, alpha=BAD_ALPHA)
for _f in (
    audit.audit_randomized_response,
    audit.audit_laplace_ldp,
    audit.broken_laplace_ldp,
    audit_release.audit_release_rr,
    audit_release.audit_release_laplace_ldp,
):
    case(_f, kw(eps=EPS, trials=TRIALS, rng=generator()), _verdict, **_audit_common)
case(
    audit.audit_debiased_rr,
    kw(eps=EPS, trials=TRIALS, rng=generator(), weight=st.floats(0.1, 3)),
    _verdict,
    weight=BAD_POSITIVE_FINITE,
    **_audit_common,
)
for _f in (
    audit.audit_noisy_counts_edge,
    audit_release.audit_release_counts_edge,
    audit_release.audit_release_mle_edge,
):
    case(
        _f,
        kw(eps=EPS, n=st.integers(3, 4), trials=TRIALS, rng=generator()),
        _verdict,
        n=[1, -1, 2.5, "3", None],
        **_audit_common,
    )
case(
    audit.audit_noisy_counts_individual,
    kw(eps=EPS, n=st.integers(3, 4), L=st.integers(1, 2), trials=TRIALS, rng=generator()),
    _verdict,
    n=[1, -1, 2.5, "3", None],
    L=BAD_COUNT1,
    **_audit_common,
)
case(
    audit_release.audit_release_counts_individual,
    kw(eps=EPS, n=st.integers(3, 4), L=st.integers(1, 2), trials=TRIALS, rng=generator()),
    _verdict,
    n=[1, -1, 2.5, "3", None],
    L=BAD_COUNT1,
    **_audit_common,
)
case(
    audit.audit_noisy_obj,
    kw(eps=EPS, delta=st.floats(1e-4, 0.1), trials=TRIALS, rng=generator()),
    _verdict,
    delta=[0.0, 1.0, -0.1, NAN, "0.1"],
    **_audit_common,
)
case(
    audit.audit_one_shot,
    kw(eps=EPS, n=st.integers(3, 4), trials=TRIALS, rng=generator()),
    _verdict,
    n=[1, -1, 2.5, "3", None],
    k=[2, 0, "1"],
    p=BAD_PROB,
    **_audit_common,
)
case(
    audit.audit_perturbed_mle_edge,
    kw(
        eps=EPS,
        n=st.just(3),
        trials=st.just(4),
        rng=generator(),
        adjacency=st.sampled_from(["flip", "replace"]),
    ),
    _verdict,
    n=[1, -1, 2.5, "3", None],
    adjacency=["bogus", None],
    statistic=["bogus", None],
    **_audit_common,
)
case(
    audit.audit_perturbed_mle_individual,
    kw(eps=EPS, n=st.just(3), L=st.just(1), trials=st.just(4), rng=generator()),
    _verdict,
    n=[1, -1, 2.5, "3", None],
    L=BAD_COUNT1,
    adjacency=["bogus", None],
    statistic=["bogus", None],
    **_audit_common,
)


def _two_point(y):
    return lambda g, size: np.full(size, float(y)) + g.laplace(0, 1.0, size)


case(
    audit.audit_mechanism,
    kw(
        name=st.just("laplace"),
        sample_d0=st.just(_two_point(0)),
        sample_d1=st.just(_two_point(1)),
        trials=TRIALS,
        rng=generator(),
        claimed_eps=EPS,
    ),
    lambda r, kw: r.claimed_eps == kw["claimed_eps"] and r.lower_bound >= 0,
    sample_d0=["x", None],
    sample_d1=["x", None],
    trials=BAD_TRIALS,
    rng=BAD_RNG,
    claimed_eps=BAD_EPS,
    claimed_delta=[-0.1, 1.0, NAN, "0"],
    alpha=BAD_ALPHA,
)
case(
    audit.clopper_pearson,
    kw(n=st.integers(1, 50), k=lambda kw: st.integers(0, kw["n"]), alpha=st.floats(0.01, 0.5)),
    lambda r, kw: 0 <= r[0] <= kw["k"] / kw["n"] <= r[1] <= 1,
    k=[-1, 0.5, "1", None, lambda kw: kw["n"] + 1],
    n=[0, -1, 2.5, "3", None],
    alpha=BAD_ALPHA,
)
case(
    audit.epsilon_lower_bound,
    kw(
        n0=st.integers(1, 50),
        n1=st.integers(1, 50),
        k0=lambda kw: st.integers(0, kw["n0"]),
        k1=lambda kw: st.integers(0, kw["n1"]),
    ),
    lambda r, kw: r >= 0,
    k0=[-1, 0.5, "1", lambda kw: kw["n0"] + 1],
    n0=[0, 2.5, "3", None],
    k1=[-1, 0.5, "1", lambda kw: kw["n1"] + 1],
    n1=[0, 2.5, "3", None],
    delta=[-0.1, 1.0, NAN, "0"],
    alpha=BAD_ALPHA,
)
case(
    audit.exact_rr_epsilon,
    kw(eps=st.floats(0.01, 20)),
    lambda r, kw: math.isclose(r, kw["eps"], rel_tol=1e-9),
    eps=BAD_EPS,
)
case(
    audit.coded_edge_gamma,
    kw(n=st.integers(2, 1000), p=st.floats(0.01, 1)),
    lambda g, kw: g > 0,
    n=[0, -1, 2.5, "3", None],
    p=[0.0, 1.5, NAN, "1"],
)
case(
    audit.private_edge_gamma,
    kw(eps=EPS, kappa2=st.floats(0.01, 1)),
    lambda g, kw: g > 0,
    eps=[0.0, -1.0, NAN, "1", None],
    kappa2=BAD_POSITIVE_FINITE,
)
case(
    audit.individual_mle_neighbours,
    kw(n=st.integers(3, 6), L=st.integers(1, 3), adjacency=st.sampled_from(["flip", "replace"])),
    lambda r, kw: r[0].shape == r[1].shape == (kw["n"], kw["n"]),
    n=[2, -1, 2.5, "3", None],
    L=BAD_COUNT1,
    adjacency=["bogus", None],
)
case(
    audit.perturbed_mle_neighbours,
    kw(n=st.integers(3, 6), adjacency=st.sampled_from(["flip", "replace"])),
    lambda r, kw: r[0].shape == r[1].shape == (kw["n"], kw["n"]) and abs(r[0] - r[1]).sum() == 2,
    n=[2, -1, 2.5, "3", None],
    adjacency=["bogus", None],
)
case(
    audit.one_shot_worst_neighbours,
    kw(n=st.integers(2, 4), eps=EPS),
    lambda r, kw: r[0].shape == r[1].shape == (kw["n"], kw["n"]) and r[2] >= 0,
    n=[1, 7, 2.5, "3", None],
    eps=BAD_EPS,
)


def _tournament(n):
    return st.just(np.triu(np.ones((n, n)), 1) + np.tril(np.ones((n, n)), -1))


case(
    audit.one_shot_top1_probabilities,
    drop(
        kw(n=st.integers(3, 5), wins=lambda kw: _tournament(kw["n"]), eps=EPS, p=st.just(1.0)), "n"
    ),
    lambda r, kw: np.isclose(r.sum(), 1.0) and np.all(r >= 0),
    wins=BAD_WINS,
    eps=BAD_EPS,
    p=BAD_PROB,
)
for _f in (audit.perturbed_mle_log_density, audit.constrained_perturbed_mle_log_density):
    case(
        _f,
        drop(
            kw(
                n=st.integers(3, 5),
                theta=lambda kw: hnp.arrays(
                    np.float64, (2, kw["n"]), elements=st.floats(-1, 1)
                ).map(lambda t: t - t.mean(axis=1, keepdims=True)),
                wins=lambda kw: win_matrix(kw["n"]),
                gamma=st.floats(0.1, 2),
                lam=st.floats(0.1, 2),
            ),
            "n",
        ),
        lambda r, kw: r.shape == (2,) and np.isfinite(r).all(),
        theta=[np.zeros(7), np.full(3, NAN), "x"],
        wins=BAD_WINS,
        gamma=BAD_POSITIVE_FINITE,
        lam=BAD_POSITIVE_FINITE,
    )

# ---- ledger
_entry = ledger.Release(
    command="rank", mechanism="edge_mle", privacy_unit="comparison", epsilon=1.0
)
case(
    ledger.canonical_content,
    kw(data=st.just(_users)),
    lambda b, kw: isinstance(b, bytes) and b == ledger.canonical_content(_users),
    data=["x", None, np.ones((3, 3))],
)
case(
    ledger.fingerprint,
    kw(data=st.just(_users), key=st.binary(min_size=16, max_size=32)),
    lambda f, kw: len(f) == 64 and int(f, 16) >= 0,
    data=["x", None],
    key=["k", None, 3],
)
case(
    ledger.compose,
    kw(
        releases=st.lists(
            st.floats(0.1, 2).map(
                lambda e: ledger.Release(
                    command="rank", mechanism="m", privacy_unit="comparison", epsilon=e
                )
            ),
            max_size=4,
        ),
        privacy_unit=st.just("comparison"),
    ),
    lambda c, kw: math.isclose(c.epsilon, sum(r.epsilon for r in kw["releases"])),
    releases=[None, 3, ["x"]],
    privacy_unit=["bogus", None],
)


# ---- intervals
_SMALL = Comparisons.from_winner_loser([0, 1, 2, 0, 1, 2], [1, 2, 0, 2, 0, 1], n_items=3)
_METHODS = st.sampled_from(["edge_counts", "edge_mle", "nonprivate_mle"])
case(
    intervals.supports,
    kw(method=st.sampled_from([m.name for m in methods.all_methods()])),
    lambda r, kw: isinstance(r, bool),
    method=[None, 3],
)
case(
    intervals.public_design,
    kw(comparisons=st.just(_SMALL), method=_METHODS),
    lambda d, kw: d.n_items == 3,
    comparisons=["x", None],
    method=["bogus", None],
    max_per_user=[0, -1, 0.5, "2"],
)
case(
    intervals.intervals,
    kw(
        scores=hnp.arrays(np.float64, 3, elements=st.floats(-1, 1)),
        method=st.just("edge_counts"),
        epsilon=st.floats(0.5, 5),
        design=st.just(intervals.public_design(_SMALL, "edge_counts")),
        n_boot=st.just(20),
        rng=generator(),
    ),
    lambda r, kw: len(r) == 3,
    scores=[np.zeros(4), np.full(3, NAN), "x"],
    method=["bogus", None],
    epsilon=[0.0, -1.0, NAN, "1"],
    design=["x", None],
    level=[0.0, 1.0, 1.5, NAN, "0.9"],
    top_k=[0, 4, 1.5, "1"],
    n_boot=[5, -1, 20.5, "20"],
    rng=["abc"],
    model=["bogus", None],
)

# ---- inputs
_FRAME = pd.DataFrame({"winner": ["a", "b", "c"], "loser": ["b", "c", "a"]})
_FLAGS = ["yes", None, 2]
case(
    inputs.comparisons_from_frame,
    kw(frame=st.just(_FRAME), real_outcomes=st.booleans()),
    lambda t, kw: t.comparisons.n_items == 3 and t.comparisons.n_records == 3,
    frame=["x", None, np.ones((3, 2))],
    source=[3, None],
    need_users=_FLAGS,
    need_epsilon=_FLAGS,
    real_outcomes=_FLAGS,
    epsilon_column=[3, None],
)
_CSV = Path(tempfile.mkdtemp(prefix="dprank-properties-")) / "games.csv"
_FRAME.to_csv(_CSV, index=False)
case(
    inputs.read_comparisons,
    kw(path=st.sampled_from([_CSV, str(_CSV)]), aggregate=st.booleans()),
    lambda t, kw: t.comparisons.n_items == 3 and t.comparisons.n_comparisons == 3,
    path=[None, 3, ""],
    need_users=_FLAGS,
    need_epsilon=_FLAGS,
    real_outcomes=_FLAGS,
    epsilon_column=[3, None],
    aggregate=_FLAGS,
    block_size=[0, -1, 0.5, "10"],
)


# ---- the privacy harness (dprank.audit.harness)
_PATH = "rank --privacy edge --method counts"
_TINY = [([_PATH], "api", (1.0,), 8)]
_EDGE = harness.edge_flip(3)(1.0)[0].d0
_SUMMARY = pd.DataFrame(
    [
        {
            "path": _PATH,
            "via": "api",
            "epsilon": 1.0,
            "neighbours": "flip (0, 1)",
            "trials": 8,
            "best_accuracy": 0.5,
            "accuracy_bound": 0.73,
            "three_se": 0.3,
            "best_distinguisher": "threshold",
            "eps_lower_bound": 0.0,
            "claimed_eps": 1.0,
            "verdict": "holds",
        }
    ]
)


def _same_graph(nb) -> bool:
    a, b = nb.d0.pair_statistics(), nb.d1.pair_statistics()
    return np.array_equal(a.a, b.a) and np.array_equal(a.n, b.n) and nb.d0.n_items == nb.d1.n_items


case(
    harness.accuracy_bound,
    kw(eps=st.floats(0.0, 30.0), delta=st.floats(0.0, 1.0)),
    lambda r, kw: (
        0.5 <= r <= 1.0
        and abs(r - min(1.0, (math.exp(kw["eps"]) + kw["delta"]) / (math.exp(kw["eps"]) + 1)))
        < 1e-12
    ),
    eps=[-1.0, NAN, "1", None],
    delta=BAD_PROB,
)
case(
    harness.path_id,
    kw(name=st.text(max_size=30)),
    lambda r, kw: re.fullmatch("[a-z0-9_]*", r) is not None,
    name=[1, None, b"x"],
)
case(
    harness.statistic,
    kw(fn=st.just(lambda outs: np.zeros((len(outs), 1))), columns=st.lists(st.text(max_size=4))),
    lambda r, kw: r.columns == list(kw["columns"]),
    fn=[1, None, "f"],
    columns=["ab", [1], 3],
)
case(
    harness.edge_flip,
    kw(n=st.integers(2, 5)),
    lambda r, kw: _same_graph(r(1.0)[0]) and r(1.0)[0].d0.n_items == kw["n"],
    n=[1, 0, 2.5, "3", None, True],
)
case(
    harness.user_replace,
    kw(n=st.integers(3, 5), L=st.integers(1, 3), heavy=st.booleans()),
    lambda r, kw: len(r(1.0)) == 1 + kw["heavy"] and r(1.0)[0].d0.n_users == r(1.0)[0].d1.n_users,
    n=[2, 1.5, "3", None],
    L=[0, -1, "2", None],
    heavy=[1, "yes", None],
)
case(
    harness.local_flip,
    kw(n=st.integers(2, 4), users=st.integers(1, 3)),
    lambda r, kw: _same_graph(r(1.0)[0]),
    n=[1, "2", None],
    users=[0, 1.5, None],
)
case(
    harness.one_shot_tournaments,
    kw(n=st.integers(3, 4)),
    lambda r, kw: r(1.0)[0].d0.n_items == kw["n"],
    n=[2, 7, "4", None],
)
case(
    harness.seeded_system_source,
    kw(source=st.integers(0, 100).map(noise.NoiseSource.from_seed)),
    lambda r, kw: hasattr(r, "__enter__"),
    source=[1, None, np.random.default_rng(0)],
)
case(
    harness.register_path,
    kw(path=st.sampled_from(sorted(harness.PATHS)).map(harness.PATHS.get), replace=st.just(True)),
    lambda r, kw: r is kw["path"] and harness.PATHS[r.name] is r,
    path=[1, "name", None],
    replace=[1, "yes", None],
)
case(
    harness.register_distinguisher,
    kw(
        d=st.sampled_from(sorted(harness.DISTINGUISHERS)).map(harness.DISTINGUISHERS.get),
        replace=st.just(True),
    ),
    lambda r, kw: harness.DISTINGUISHERS[r.name] is r,
    d=[1, "threshold", None],
    replace=[1, "yes", None],
)
case(
    harness.profile_games,
    kw(profile=st.sampled_from(["quick", "full", _TINY])),
    lambda r, kw: all(via in ("api", "command") and t >= 8 for _, via, _, t in r),
    profile=[
        "huge",
        3,
        None,
        [("x",)],
        [(["nope"], "api", (1.0,), 8)],
        [([_PATH], "cli", (1.0,), 8)],
    ],
)
case(
    harness.play,
    kw(path=st.just(_PATH), eps=EPS, trials=st.integers(8, 10), rng=generator()),
    lambda r, kw: len(r) == 1 and all(0.0 <= x["accuracy"] <= 1.0 for x in r[0].results),
    path=["nope", 3, None],
    eps=BAD_EPS,
    trials=[0, 7, 2.5, "8", None],
    rng=BAD_RNG,
    via=["cli", 1],
    alpha=BAD_ALPHA,
    source=["os", 1],
    distinguishers=[["nope"], "threshold", 3],
)
case(
    harness.run_path,
    kw(
        path=st.just(_PATH),
        data=st.just(_EDGE),
        eps=EPS,
        size=st.integers(1, 2),
        rng=generator(),
        via=st.just("api"),
    ),
    lambda r, kw: len(r) == kw["size"] and r[0].values.shape == (3,),
    path=["nope", None],
    data=[1, None, "x"],
    eps=BAD_EPS,
    size=[0, 1.5, "1", None],
    rng=BAD_RNG,
    via=["cli", 1],
)
case(
    harness.audit_table,
    kw(profile=st.just(_TINY), seed=st.integers(0, 10)),
    lambda r, kw: len(r[0]) == 1 and set(r[1]["path"]) == {_PATH},
    profile=["huge", [("x",)], None],
    seed=[-1, 1.5, "1", None],
    paths=[["nope"], "x", 3],
    source=["os", 1],
)
case(
    harness.summary_markdown,
    kw(summary=st.just(_SUMMARY), profile=st.text(max_size=5)),
    lambda r, kw: r.startswith("Privacy harness, profile") and r.count("\n") == 5,
    summary=[pd.DataFrame(), 1, None],
    profile=[1, None],
)


# ------------------------------------------------------------------------ the tests


# ---- declared items, the ledger's key file, the command's channels (issue 44)
case(
    noise.value_grid_exponent,
    kw(scale=st.floats(1e-3, 1e12)),
    lambda k, kw: k <= 0 and k == min(noise.grid_exponent(kw["scale"]), 0),
    scale=BAD_POSITIVE_FINITE,
)
_LABELS = st.lists(st.text("abcxyz=+-@' ", min_size=1, max_size=4), min_size=1, max_size=6)
case(
    _items.universe_of,
    # labels distinct and non-empty after the reader's normalisation (a leading quote of a
    # spreadsheet-formula guard and surrounding spaces go: "'=" is "=")
    kw(
        items=_LABELS.filter(
            lambda x: (
                len({_items.normalize_label(s) for s in x}) == len(x)
                and all(_items.normalize_label(s) for s in x)
            )
        )
    ),
    lambda u, kw: u.size == len(kw["items"]),
    items=["abc", None, 3, [], [""]],
    source=[None, 3],
)
_ITEMS_FILE = Path(tempfile.mkdtemp(prefix="dprank-items-")) / "items.csv"
_ITEMS_FILE.write_text("item,score\na,1\nb,2\n'=c,3\n")
case(
    _items.read_items,
    kw(path=st.sampled_from([_ITEMS_FILE, str(_ITEMS_FILE)])),
    lambda u, kw: u.labels.tolist() == ["=c", "a", "b"],
    path=[3, None, ""],
)
case(
    _items.restrict_to_items,
    kw(comparisons=st.just(_users), universe=st.just(_items.universe_of(["0", "1", "7"]))),
    lambda r, kw: r[0].n_items == 3 and r[1] == 5,  # records naming item 2 are dropped
    comparisons=["x", None],
    universe=[["0", "1"], None],
)
case(ledger.default_key_file, kw(), lambda p, kw: isinstance(p, Path) and p.name.endswith(".json"))
_RUN = _channels.CommandRun(("methods",), 0, "a\n", "", {"r.csv": b"item,score\nx,1\n"})
case(
    _channels.channels,
    kw(run=st.just(_RUN)),
    lambda c, kw: (
        c["exit_status"] == 0 and c["file r.csv"] == ("csv", ("item", "score"), (("x",),))
    ),
    run=["x", None],
)
case(
    _channels.channel_signature,
    kw(run=st.just(_RUN)),
    lambda s, kw: len(s) == 64,
    run=["x", None],
)
case(
    _channels.channel_differences,
    kw(a=st.just(_RUN), b=st.just(_RUN)),
    lambda d, kw: d == [],
    a=["x", None],
    b=["x", None],
)
case(
    _channels.run_command,
    kw(argv=st.just(["methods"]), folder=st.just(_ITEMS_FILE.parent)),
    lambda r, kw: r.exit_status == 0 and "edge_mle" in r.stdout,
    argv=["methods", None, 3],
    folder=[None, 3, _ITEMS_FILE],
    inputs=["items.csv", None],
)


# ---- the method contract (dprank.testing): cheap checks only (the suite's own tests run them)
_CONTRACT = st.sampled_from(["edge_counts", "individual_counts", "local_adrr", "edge_ties"])
_BAD_METHOD = [None, 3, "no_such_method"]
case(
    testing.check_method,
    kw(method=_CONTRACT, checks=st.just(["declaration"]), epsilon=EPS),
    lambda r, kw: r == {"declaration": "ok"},
    method=_BAD_METHOD,
    checks=["declaration", ["speed"], 3],
    epsilon=BAD_EPS,
)
case(
    testing.method_checks,
    kw(method=_CONTRACT, epsilon=EPS),
    lambda r, kw: [c.name for c in r] == list(testing.CHECKS),
    method=_BAD_METHOD,
    checks=["privacy", ["speed"], 3],
    epsilon=BAD_EPS,
)
case(
    testing.tiny_comparisons,
    kw(method=_CONTRACT, users=st.none() | st.booleans()),
    lambda c, kw: (
        c.n_items == 4
        and (c.user is not None)
        == bool(
            kw["users"] if kw["users"] is not None else methods.get_method(kw["method"]).needs_users
        )
    ),
    method=_BAD_METHOD,
    users=["yes", 1, 0.5],
)
case(
    testing.audit_claim,
    kw(method=_CONTRACT, eps=EPS),
    lambda r, kw: r[0] == kw["eps"] and r[1] == 0.0,
    method=_BAD_METHOD,
    eps=BAD_EPS,
)
case(
    testing.audit_path,
    kw(method=_CONTRACT, claim=st.just((1.0, 0.0))),
    lambda p, kw: p.claim(1.0) == (1.0, 0.0) and p.api is not None,
    method=[*_BAD_METHOD, "nonprivate_mle"],
    claim=[1.0, (0.0, 0.0), (1.0, 1.5), ("1", 0.0)],
)


test_rejects_bad_argument, test_accepts_valid_arguments = property_tests(
    CASES, BUILDERS, CHECKS, bad_examples=5, valid_examples=5
)
