"""Tests of dprank_papers.introselect, the port of numpy's generic argpartition.

Reference: numpy's own generic introselect, run in a subprocess with
``NPY_DISABLE_CPU_FEATURES`` set. On numpy 2.4.6 for x86 this switches off the
AVX2/AVX-512 x86-simd-sort ``argselect`` that would otherwise handle a single
``kth`` (docs/papers/paper-a.md#s0 item 5 and #s2-7). A table of golden
cases, produced once by that generic path, checks the port on every machine.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from dprank_papers import introselect
from dprank_papers.introselect import argpartition_generic, authors_top_k

nan = np.nan
inf = np.inf

#: Disables the SIMD dispatch targets of numpy 2.4.6 on x86 (docs/papers/paper-a.md#s2-7).
GENERIC_ENV = {"NPY_DISABLE_CPU_FEATURES": "X86_V3 X86_V4 AVX512_ICL AVX512_SPR"}

# ---------------------------------------------------------------------------
# Golden cases: (x, kth, np.argpartition(x, kth)) from numpy 2.4.6's generic
# introselect (x86-64, NPY_DISABLE_CPU_FEATURES as above). The SIMD path of the
# same machine gives a different answer for all but two of them ([1.0, 0.0]
# and [2.0, 0.0, 1.0]).
# ---------------------------------------------------------------------------

# fmt: off
GOLDEN_1D = [
    # Spec setting (theta* rounded to 2 decimals), n = 16, k = 4.
    ([0.0, 0.0, 0.0, 0.0, -0.67, -0.43, -0.53, -1.16, -1.05, -0.45, -1.6, -0.49, -0.51, -0.83,
      -1.05, -1.08], 4,
     [10, 7, 15, 14, 8, 13, 6, 4, 12, 9, 5, 11, 3, 2, 1, 0]),
    ([0.0, 0.0, 0.0, 0.0, -1.33, -0.8, -0.69, -1.54, -1.29, -0.41, -1.45, -1.33, -0.39, -0.67,
      -0.96, -0.79], 4,
     [7, 10, 4, 11, 8, 14, 5, 15, 1, 9, 6, 3, 12, 13, 2, 0]),
    # Ties.
    ([2.0, 1.0, 3.0, 1.0, 1.0, 2.0, 2.0, 2.0, 2.0, 3.0, 3.0, 3.0], 3,
     [3, 1, 4, 7, 5, 8, 0, 6, 2, 9, 10, 11]),
    ([4.0, 3.0, 2.0, 5.0, 2.0, 1.0, 5.0, 0.0, 5.0, 3.0, 0.0, 0.0, 2.0, 0.0, 0.0, 3.0, 5.0, 2.0,
      4.0, 5.0], 7,
     [7, 13, 11, 10, 14, 5, 2, 12, 17, 9, 18, 15, 4, 1, 0, 8, 16, 6, 3, 19]),
    # Signed zeros compare equal.
    ([0.0, -0.0, 1.0, -0.0, 0.0, -1.0, 0.0, -0.0, 2.0, -0.0], 5,
     [5, 4, 7, 6, 0, 9, 1, 3, 8, 2]),
    # NaN sorts last; infinities.
    ([3.0, nan, 1.0, 4.0, nan, 1.0, 5.0, 9.0, 2.0], 4,
     [5, 8, 2, 0, 3, 6, 7, 1, 4]),
    ([inf, 1.5, nan, -inf, 0.5, inf, -2.0, nan, 3.0, -inf, 0.0], 6,
     [9, 3, 6, 10, 4, 1, 8, 0, 7, 2, 5]),
    # kth == n - 1: numpy's max-scan shortcut for inexact types.
    ([2.0, 7.0, 7.0, 1.0, nan, 7.0, 3.0, 0.0], 7,
     [0, 1, 2, 3, 7, 5, 6, 4]),
    # kth - low < 3: dumb_select.
    ([5.0, 3.0, 8.0, 3.0, 1.0, 9.0, 1.0, 4.0, 0.0, 2.0], 0,
     [8, 1, 2, 3, 4, 5, 6, 7, 0, 9]),
    ([5.0, 3.0, 8.0, 3.0, 1.0, 9.0, 1.0, 4.0, 0.0, 2.0], 2,
     [8, 4, 6, 3, 1, 5, 2, 7, 0, 9]),
    ([1.0, 0.0], 1, [1, 0]),
    ([2.0, 0.0, 1.0], 1, [1, 2, 0]),
    # Even numbers then odd numbers: reaches the median-of-medians-of-5 fallback.
    ([0.0, 2.0, 4.0, 6.0, 8.0, 10.0, 12.0, 14.0, 16.0, 18.0, 20.0, 22.0, 24.0, 26.0, 28.0, 30.0,
      32.0, 34.0, 36.0, 38.0, 40.0, 42.0, 44.0, 46.0, 1.0, 3.0, 5.0, 7.0, 9.0, 11.0, 13.0, 15.0,
      17.0, 19.0, 21.0, 23.0, 25.0, 27.0, 29.0, 31.0, 33.0, 35.0, 37.0, 39.0, 41.0, 43.0, 45.0,
      47.0], 9,
     [24, 0, 1, 25, 2, 26, 3, 27, 4, 28, 5, 29, 6, 30, 7, 8, 31, 32, 9, 33, 34, 10, 11, 35, 36,
      37, 38, 39, 40, 16, 15, 14, 13, 12, 17, 41, 42, 43, 19, 18, 20, 44, 45, 21, 22, 46, 23,
      47]),
    # np.roll(np.arange(33.0), 16).
    ([17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0, 24.0, 25.0, 26.0, 27.0, 28.0, 29.0, 30.0, 31.0,
      32.0, 0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0,
      16.0], 20,
     [17, 16, 31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19, 18, 32, 0, 1, 2, 3, 4, 5, 6,
      8, 7, 9, 13, 15, 10, 11, 12, 14]),
    ([0.63, 0.51, 0.5, 0.25, 0.01, 0.19, 0.69, 0.2, 0.37, 0.0, 0.83, 0.15, 0.27, 0.88, 0.51, 0.85,
      0.64, 0.74, 0.09, 0.54, 0.51, 0.87, 0.36, 0.6, 0.06], 12,
     [9, 24, 18, 3, 4, 5, 11, 7, 12, 22, 8, 2, 20, 1, 14, 23, 19, 0, 17, 10, 15, 21, 13, 6, 16]),
    ([0.39, 0.32, 0.15, 0.82, 0.38, 0.98, 0.59, 0.61, 0.64, 0.68, 0.15, 0.44, 0.24, 0.4, 0.1,
      0.97, 0.22, 0.67, 0.3, 0.87, 0.66, 0.13, 0.85, 0.94, 0.9, 0.57, 0.15, 0.19, 0.93, 0.55,
      0.18, 0.88], 8,
     [10, 26, 2, 27, 21, 30, 16, 14, 12, 9, 8, 11, 0, 13, 7, 1, 6, 17, 18, 19, 20, 4, 22, 29, 3,
      25, 31, 24, 28, 23, 5, 15]),
    ([2.0, 1.0, 1.0, 1.0, 0.0, 1.0, 2.0, 1.0, 0.0, 0.0, 2.0, 0.0, 2.0, 2.0, 1.0, 1.0, 2.0, 1.0,
      1.0, 0.0, 1.0, 2.0, 0.0, 0.0, 2.0, 1.0, 2.0, 0.0, 2.0, 0.0, 1.0, 2.0, 0.0, 1.0, 2.0, 1.0,
      0.0, 1.0, 1.0, 2.0], 30,
     [29, 19, 2, 3, 4, 5, 38, 7, 8, 9, 37, 11, 36, 35, 14, 15, 34, 17, 18, 1, 20, 33, 22, 23, 32,
      25, 31, 27, 30, 0, 16, 12, 6, 10, 28, 13, 26, 21, 24, 39]),
]

GOLDEN_2D = (
    [[3.0, 1.0, 0.0, 2.0, 1.0, 3.0, 4.0],
     [1.0, 4.0, 2.0, 2.0, 3.0, 3.0, 4.0],
     [4.0, 0.0, 2.0, 4.0, 1.0, 0.0, 2.0]], 3,
    [[2, 1, 4, 3, 0, 5, 6],
     [0, 3, 2, 5, 4, 1, 6],
     [1, 5, 4, 6, 2, 0, 3]],
)

GOLDEN_NEGATIVE_KTH = (
    [6.0, 6.0, 7.0, 5.0, 1.0, 7.0, 3.0, 7.0, 7.0, 8.0, 0.0, 7.0, 5.0, 4.0, 7.0], -3,
    [10, 0, 13, 3, 4, 12, 6, 1, 11, 7, 2, 5, 14, 8, 9],
)
# fmt: on


@pytest.mark.parametrize(("x", "kth", "expected"), GOLDEN_1D)
def test_golden_cases(x, kth, expected):
    got = argpartition_generic(np.array(x, dtype=np.float64), kth)
    assert got.dtype == np.intp
    assert got.tolist() == expected


def test_golden_2d_rows_and_negative_kth():
    x, kth, expected = GOLDEN_2D
    assert argpartition_generic(np.array(x), kth).tolist() == expected
    x, kth, expected = GOLDEN_NEGATIVE_KTH
    assert argpartition_generic(np.array(x), kth).tolist() == expected
    assert argpartition_generic(np.array(x), len(x) + kth).tolist() == expected


def test_median_of_medians_fallback_is_exercised(monkeypatch):
    """The even/odd golden case goes through median_of_median5 (and still matches numpy)."""
    calls = []
    original = introselect._median_of_median5

    def counting(*args):
        calls.append(args[-1])
        return original(*args)

    monkeypatch.setattr(introselect, "_median_of_median5", counting)
    x, kth, expected = GOLDEN_1D[12]
    assert len(x) == 48
    assert argpartition_generic(np.array(x), kth).tolist() == expected
    assert calls


def test_multiple_kth_match_numpy_in_process():
    """Several kth never take numpy's SIMD path (``nkth == 1`` only), so compare in process.

    This exercises the shared pivot stack, including more than
    ``NPY_MAX_PIVOT_STACK`` pivots.
    """
    rng = np.random.default_rng(31)
    for t in range(300):
        n = int(rng.integers(2, 300))
        x = rng.integers(0, max(2, n // 2), n).astype(np.float64) if t % 2 else rng.random(n)
        kth = rng.integers(-n, n, int(rng.integers(2, min(n, 80) + 2)))
        np.testing.assert_array_equal(argpartition_generic(x, kth), np.argpartition(x, kth))


def _assert_valid_partition(x: np.ndarray, idx: np.ndarray, kth: int) -> None:
    """``x[idx]`` is partitioned at ``kth`` in numpy's order (NaN last)."""
    assert sorted(idx.tolist()) == list(range(x.size))
    key = np.where(np.isnan(x), np.inf, x)  # NaN last; ties with +inf only by position
    nan_rank = np.isnan(x).astype(int)
    part = x[idx]
    pk, pnan = key[idx], nan_rank[idx]
    ref = np.sort(x)  # numpy sorts NaN last
    if np.isnan(ref[kth]):
        assert np.isnan(part[kth])
    else:
        assert part[kth] == ref[kth]
    # before kth: (nan, value) <= that of kth; after: >=
    lo = (pnan[:kth] < pnan[kth]) | ((pnan[:kth] == pnan[kth]) & (pk[:kth] <= pk[kth]))
    hi = (pnan[kth + 1 :] > pnan[kth]) | (
        (pnan[kth + 1 :] == pnan[kth]) & (pk[kth + 1 :] >= pk[kth])
    )
    assert lo.all() and hi.all()


def test_result_is_a_valid_partition():
    rng = np.random.default_rng(12)
    for t in range(2000):
        n = int(rng.integers(1, 80))
        if t % 3 == 0:
            x = rng.integers(0, max(2, n // 4), n).astype(np.float64)
        elif t % 3 == 1:
            x = rng.normal(size=n)
            x[rng.random(n) < 0.15] = nan
        else:
            x = rng.random(n)
        kth = int(rng.integers(0, n))
        _assert_valid_partition(x, argpartition_generic(x, kth), kth)


def test_authors_top_k_misses_part_of_true_top_k():
    """Seeded example (golden case 2): the authors' set keeps only 2 of the 4 zeros."""
    theta = np.array(GOLDEN_1D[1][0])
    assert np.sort(np.argsort(-theta, kind="stable")[:4]).tolist() == [0, 1, 2, 3]
    got = authors_top_k(theta, 4)
    assert got.tolist() == [0, 2, 12, 13]
    assert len(set(got.tolist()) & {0, 1, 2, 3}) == 2


def test_input_validation_and_shapes():
    with pytest.raises(ValueError, match="out of bounds"):
        argpartition_generic(np.arange(5.0), 5)
    with pytest.raises(ValueError, match="out of bounds"):
        argpartition_generic(np.arange(5.0), -6)
    with pytest.raises(TypeError):
        argpartition_generic(np.arange(5.0), 1.5)
    with pytest.raises(ValueError):
        argpartition_generic(np.float64(1.0), 0)
    with pytest.raises(ValueError):
        authors_top_k(np.arange(4.0), 4)
    assert argpartition_generic(np.empty(0), 0).shape == (0,)
    x = np.random.default_rng(0).random((2, 3, 9))
    got = argpartition_generic(x, 4)
    assert got.shape == x.shape
    np.testing.assert_array_equal(got[1, 2], argpartition_generic(x[1, 2], 4))


# ---------------------------------------------------------------------------
# Bit-exact comparison with numpy's generic path in a subprocess
# ---------------------------------------------------------------------------

_CHILD = textwrap.dedent(
    """
    import json, sys
    import numpy as np
    try:
        from numpy._core._multiarray_umath import __cpu_dispatch__, __cpu_features__
    except ImportError:  # numpy 1.x
        from numpy.core._multiarray_umath import __cpu_dispatch__, __cpu_features__

    data = np.load(sys.argv[1])
    out = {}
    for name in ("f", "i"):
        vals, offs, kths = data[name + "_vals"], data[name + "_offs"], data[name + "_kth"]
        res = [np.argpartition(vals[offs[j]:offs[j + 1]], kths[j]) for j in range(kths.size)]
        out[name] = np.concatenate(res) if res else np.empty(0, dtype=np.intp)
    theta = data["theta"]
    rows = [np.argpartition(row, int(data["k"])) for row in theta]
    out["theta"] = np.stack(rows) if rows else np.empty(theta.shape, dtype=np.intp)
    np.savez(sys.argv[2], **out)
    x86_simd = ("AVX2", "AVX512", "X86_V3", "X86_V4")
    enabled = [f for f in __cpu_dispatch__ if f.startswith(x86_simd) and __cpu_features__.get(f)]
    print(json.dumps({"numpy": np.__version__, "simd_enabled": enabled}))
    """
)

N_THETA, THETA_N, THETA_K = 2000, 16, 4


def _random_cases(rng: np.random.Generator, count: int, dtype) -> list[tuple[np.ndarray, int]]:
    """Seeded inputs: lengths 2..64, kth anywhere (also negative), many ties."""
    cases = []
    for t in range(count):
        n = int(rng.integers(2, 65))
        kind = t % 5
        if dtype is np.int64:
            x = rng.integers(-5, 6, n)
        elif kind == 0:
            x = rng.random(n)
        elif kind == 1:
            x = rng.integers(0, max(2, n // 3), n).astype(np.float64)
        elif kind == 2:
            x = rng.choice([-0.0, 0.0, 1.0, -1.0, 2.0], n)
        elif kind == 3:
            x = rng.integers(0, 6, n).astype(np.float64)
            x[rng.random(n) < 0.2] = nan
        else:
            x = rng.normal(size=n)
            x[rng.random(n) < 0.1] = rng.choice([inf, -inf, nan])
        kth = int(rng.integers(-n, n)) if t % 7 == 0 else int(rng.integers(0, n))
        cases.append((x.astype(dtype), kth))
    return cases


def _theta_draws(seed: int = 2025) -> np.ndarray:
    """Spec section 2.1: theta* = concat(zeros(k), log(U)), U ~ Unif(0.2, 0.7), n = 16."""
    rng = np.random.default_rng(seed)
    return np.stack(
        [
            np.concatenate([np.zeros(THETA_K), np.log(rng.uniform(0.2, 0.7, THETA_N - THETA_K))])
            for _ in range(N_THETA)
        ]
    )


def _pack(cases: list[tuple[np.ndarray, int]], prefix: str) -> dict[str, np.ndarray]:
    lengths = [x.size for x, _ in cases]
    return {
        prefix + "_vals": np.concatenate([x for x, _ in cases]),
        prefix + "_offs": np.concatenate([[0], np.cumsum(lengths)]),
        prefix + "_kth": np.array([k for _, k in cases], dtype=np.int64),
    }


@pytest.fixture(scope="module")
def numpy_reference(tmp_path_factory):
    """Cases and numpy's answers with and without the SIMD-disabling variable.

    Returns a dict, or a string saying why numpy could not be run.
    """
    rng = np.random.default_rng(20250601)
    float_cases = _random_cases(rng, 3000, np.float64)
    int_cases = _random_cases(rng, 300, np.int64)
    theta = _theta_draws()
    tmp = tmp_path_factory.mktemp("introselect")
    inp = tmp / "cases.npz"
    np.savez(inp, **_pack(float_cases, "f"), **_pack(int_cases, "i"), theta=theta, k=THETA_K)
    script = tmp / "child.py"
    script.write_text(_CHILD)

    runs = {}
    for label, extra in (("generic", GENERIC_ENV), ("default", {})):
        env = {k: v for k, v in os.environ.items() if k != "NPY_DISABLE_CPU_FEATURES"}
        env.update(extra)
        out = tmp / f"{label}.npz"
        proc = subprocess.run(
            [sys.executable, str(script), str(inp), str(out)],
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        if proc.returncode != 0:
            return f"numpy subprocess ({label}) failed: {proc.stderr.strip()[-500:]}"
        info = json.loads(proc.stdout.strip().splitlines()[-1])
        with np.load(out) as res:
            runs[label] = {"info": info, **{k: res[k] for k in res.files}}
    return {"float": float_cases, "int": int_cases, "theta": theta, **runs}


def _why_not_generic(ref) -> str | None:
    """Why the subprocess run cannot be taken as numpy's generic path (None if it can).

    Untrusted when the variable changed nothing AND numpy still reports x86
    SIMD dispatch targets enabled. Where numpy has no SIMD argselect at all
    (non-x86, or numpy 1.x) the outputs are also unchanged, but no x86 target
    is enabled, and numpy runs the generic path anyway.
    """
    if isinstance(ref, str):
        return ref
    gen, default = ref["generic"], ref["default"]
    identical = all(np.array_equal(gen[k], default[k]) for k in ("f", "i", "theta"))
    still_on = gen["info"]["simd_enabled"]
    if identical and still_on:
        return (
            f"NPY_DISABLE_CPU_FEATURES did not switch off SIMD dispatch on this machine "
            f"(numpy {gen['info']['numpy']}: {still_on} still enabled, outputs unchanged), "
            "so numpy's generic introselect is not available for comparison; the golden "
            "cases still test the port"
        )
    return None


def _generic_or_none(ref) -> dict | None:
    return None if _why_not_generic(ref) else ref["generic"]


def _generic_or_skip(ref) -> dict:
    """The generic-path run, or skip if it cannot be trusted to be generic."""
    reason = _why_not_generic(ref)
    if reason:
        pytest.skip(reason)
    return ref["generic"]


def _split(flat: np.ndarray, cases) -> list[np.ndarray]:
    offs = np.concatenate([[0], np.cumsum([x.size for x, _ in cases])])
    return [flat[offs[j] : offs[j + 1]] for j in range(len(cases))]


def test_bit_exact_against_numpy_generic(numpy_reference):
    gen = _generic_or_skip(numpy_reference)
    for name, key in (("float", "f"), ("int", "i")):
        cases = numpy_reference[name]
        expected = _split(gen[key], cases)
        mismatches = [
            j
            for j, ((x, kth), exp) in enumerate(zip(cases, expected, strict=True))
            if not np.array_equal(argpartition_generic(x, kth), exp)
        ]
        assert not mismatches, (
            f"{name}: {len(mismatches)} of {len(cases)} differ, e.g. {mismatches[:5]}"
        )
    theta = numpy_reference["theta"]
    np.testing.assert_array_equal(argpartition_generic(theta, THETA_K), gen["theta"])


def _miss_rates(selections: np.ndarray) -> np.ndarray:
    """Per draw: 1 - |selected ∩ {0..k-1}| / k (the true top-k of theta* is {0..k-1})."""
    return 1.0 - (selections < THETA_K).sum(axis=1) / THETA_K


def test_authors_top_k_miss_rate_matches_spec(numpy_reference):
    """Spec section 0 item 5: about 24 % of the true top-k is missed (n = 16, k = 4).

    Measured here (seed 2025, 2000 draws, numpy 2.4.6 generic path): 0.2385
    (standard error 0.0046); the SIMD path of the same numpy misses nothing.
    """
    theta = _theta_draws()
    ours = _miss_rates(np.stack([authors_top_k(row, THETA_K) for row in theta]))
    gen = _generic_or_none(numpy_reference)
    if gen is None:
        # numpy's generic path could not be run here, so compare with the documented
        # value (~0.24) with a wide band instead of a measured reference.
        assert 0.15 < ours.mean() < 0.35
        return
    ref = _miss_rates(gen["theta"][:, -THETA_K:])
    se = ref.std(ddof=1) / np.sqrt(ref.size)
    assert abs(ours.mean() - ref.mean()) <= 5 * se
    assert 0.15 < ref.mean() < 0.35


def test_golden_cases_agree_with_subprocess_when_available(numpy_reference, tmp_path):
    """Guards the golden table itself against a typo: recompute it with numpy's generic path."""
    _generic_or_skip(numpy_reference)
    cases = [(np.array(x, dtype=np.float64), k) for x, k, _ in GOLDEN_1D]
    inp = tmp_path / "golden.npz"
    out = tmp_path / "golden_out.npz"
    empty = {"i_vals": np.empty(0, np.int64), "i_offs": np.zeros(1, np.int64)}
    empty["i_kth"] = np.empty(0, np.int64)
    np.savez(inp, **_pack(cases, "f"), **empty, theta=np.empty((0, 2)), k=1)
    script = tmp_path / "child.py"
    script.write_text(_CHILD)
    env = {**os.environ, **GENERIC_ENV}
    subprocess.run(
        [sys.executable, str(script), str(inp), str(out)], env=env, check=True, capture_output=True
    )
    with np.load(out) as res:
        got = _split(res["f"], cases)
    assert [g.tolist() for g in got] == [exp for _, _, exp in GOLDEN_1D]
