"""The audit stage: every mechanism audited, seeded, and the broken control caught."""

from dprank.studies.privacy_audit import run_audits

SMOKE = {
    "eps": 1.0,
    "alpha": 0.05,
    "trials": 20000,
    "fit_trials": 200,
    "n": 5,
    "L": 5,
    "delta": 1e-6,
}


def test_stage_flags_the_broken_control_and_the_findings_only():
    table = run_audits(SMOKE, seed=3).set_index("audit")
    flagged = set(table.index[table["verdict"] == "VIOLATION"])
    assert "Laplace LDP, half the noise (broken)" in flagged
    # reusing one noise vector makes neighbouring releases distinguishable
    assert "Alg. 2 counts (edge), fixed noise" in flagged
    for name in ("classic RR", "debiased RR (ADRR)", "Laplace LDP", "Alg. 2 counts (edge)"):
        assert table.loc[name, "verdict"] == "consistent"
        assert 0.5 < table.loc[name, "lower_bound"] <= 1.0  # tight for the simple mechanisms
    assert (table["confidence"] == 0.95).all()


def test_stage_is_reproducible():
    a, b = run_audits(SMOKE, seed=3), run_audits(SMOKE, seed=3)
    assert a["lower_bound"].tolist() == b["lower_bound"].tolist()
