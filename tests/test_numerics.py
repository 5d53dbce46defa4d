"""The pinned SIMD kernels (dprank_papers.numerics): what is set, where, and that it works."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from dprank_papers import numerics

ROOT = Path(__file__).resolve().parents[1]


def test_a_value_the_user_set_is_kept():
    pins = numerics.pinned_env({})
    if not pins:
        pytest.skip("no pin applies on this CPU")
    assert pins["OPENBLAS_CORETYPE"] == "Haswell"
    assert numerics.pinned_env({"OPENBLAS_CORETYPE": "Zen"}).get("OPENBLAS_CORETYPE") is None
    assert numerics.pinned_env(dict(pins)) == {}


def test_numpy_loads_without_the_targets_above_x86_64_v3():
    pins = numerics.pinned_env({})
    if "NPY_DISABLE_CPU_FEATURES" not in pins:
        pytest.skip("numpy dispatches nothing above x86-64-v3 here")
    code = (
        "from numpy._core._multiarray_umath import __cpu_features__ as f, __cpu_dispatch__ as d;"
        "print(sorted(t for t in d if f[t]))"
    )
    env = {k: v for k, v in os.environ.items() if k not in pins} | pins
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    ).stdout
    assert "X86_V4" not in out and "AVX512" not in out, out
    assert "X86_V3" in out, out


def test_the_module_prints_env_words():
    env = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_CORETYPE",)}
    env.pop("NPY_DISABLE_CPU_FEATURES", None)
    out = subprocess.run(
        [sys.executable, "-m", "dprank_papers.numerics"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert dict(w.split("=", 1) for w in out) == numerics.pinned_env({})


def test_the_workflow_and_make_test_set_it():
    assert "os.environ.update(pinned_env())" in (ROOT / "workflow/rules/common.smk").read_text()
    assert "dprank_papers.numerics" in (ROOT / "Makefile").read_text()
