"""Paper B (B2) Scenario I stage functions: chunk invariance, protocol of the release, errors."""

import numpy as np

from dprank.studies import paper_b2

CELL = {"model": "btl", "m": 10, "L": 60}


def test_replicates_do_not_depend_on_chunking():
    whole = paper_b2.simulate_chunk(3, "scenario1", CELL, 0.5, [1.0, 5.0], [0, 1, 2, 3])
    part = paper_b2.simulate_chunk(3, "scenario1", CELL, 0.5, [1.0, 5.0], [2, 3])
    for key in ("theta", "B", "S", "N"):
        np.testing.assert_array_equal(whole[key][2:], part[key])
    assert np.allclose(whole["theta"].sum(axis=1), 0)
    # ADRR weights sum to one over users, so N_ij (observed weight of a pair) is about p
    assert abs(whole["N"].mean() - 0.5) < 5 * 0.5 / np.sqrt(60 * whole["N"].size)
    assert np.all((whole["B"] > np.tanh(0.5) ** 2) & (whole["B"] < np.tanh(2.5) ** 2))


def test_estimates_shrink_with_more_users():
    errors = []
    for L in (40, 400):
        cell = {**CELL, "L": L}
        data = paper_b2.simulate_chunk(5, "scenario1", cell, 0.5, [1.0, 5.0], range(30))
        frame = paper_b2.estimate_chunk(data, cell, 1.0, 1e-8, 100)
        assert (frame[frame["metric"] == "converged"]["value"] == 1).all()
        errors.append(frame[frame["metric"] == "l2_over_sqrt_m"]["value"].mean())
    # the error falls like 1/sqrt(L): a tenfold L gives about a third
    assert 0.2 < errors[1] / errors[0] < 0.45
