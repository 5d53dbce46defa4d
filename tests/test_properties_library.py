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

from dprank import audit, audit_release, inputs, intervals, ledger, methods, noise, release
from dprank import items as _items
from dprank.audit import command_channels as _channels
from dprank.comparisons import Comparisons

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
    lambda e, kw: e <= kw["epsilon"] and math.isclose(e, kw["epsilon"], rel_tol=1e-9),
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
    kw(items=_LABELS.filter(lambda x: len({s.strip(" ") for s in x}) == len(x))),
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


test_rejects_bad_argument, test_accepts_valid_arguments = property_tests(
    CASES, BUILDERS, CHECKS, bad_examples=5, valid_examples=5
)
