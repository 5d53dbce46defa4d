"""The authors' fixed noise vector: emulation of R's set.seed(13); runif(n)."""

from pathlib import Path

import numpy as np
import pandas as pd

from dprank_papers.rrng import r_fixed_laplace, r_runif

REF = pd.read_csv(Path(__file__).parent / "data" / "r_seed13_fixed_noise_prefix.csv", comment="#")


def test_runif_bit_identical_to_r():
    u = r_runif(len(REF), 13)
    np.testing.assert_array_equal(u, REF["u"].to_numpy())


def test_laplace_transform_matches_r_to_one_ulp():
    w = r_fixed_laplace(len(REF), 13)
    # R's log() and numpy's differ in the last bit for a few entries
    np.testing.assert_allclose(w, REF["w"].to_numpy(), rtol=4e-16, atol=0)


def test_prefix_property_and_other_seed():
    # runif(n) is a prefix of runif(m), m > n: every n shares one vector
    np.testing.assert_array_equal(r_runif(10, 13), r_runif(700, 13)[:10])
    assert not np.array_equal(r_runif(10, 14), r_runif(10, 13))
    u = r_runif(10_000, 13)
    assert 0 < u.min() and u.max() < 1
