"""Shared test configuration: the Hypothesis profiles and a key file for ledgers.

``ci`` (the default) is derandomized, so every run of ``make test`` tries the same
examples and a failure reproduces; ``dev`` draws new examples on each run and tries
more of them, for looking for new failures by hand (``HYPOTHESIS_PROFILE=dev pytest
tests/test_properties.py``). Neither has a deadline: the machines that run the tests
are shared, and a timing is no property of the library.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci",
    derandomize=True,
    deadline=None,
    max_examples=20,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "dev",
    deadline=None,
    max_examples=200,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


@pytest.fixture(autouse=True)
def _ledger_key_file(tmp_path_factory, monkeypatch):
    """Every test's ledgers keep their keys in a key file of its own, never in the home folder."""
    folder = tmp_path_factory.mktemp("ledger-keys")
    monkeypatch.setenv("DPRANK_LEDGER_KEYS", os.fspath(folder / "ledger-keys.json"))
