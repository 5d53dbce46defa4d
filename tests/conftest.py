"""Shared test configuration: the Hypothesis profiles and a key file for ledgers.

``ci`` (the default) is derandomized, so every run of ``make test`` tries the same
examples and a failure reproduces; ``dev`` draws new examples on each run and tries
more of them, for looking for new failures by hand (``HYPOTHESIS_PROFILE=dev pytest
tests/test_properties.py``). Neither has a deadline: the machines that run the tests
are shared, and a timing is no property of the library.
"""

from __future__ import annotations

import os
import tempfile

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


# Ledgers keep their keys in a key file outside the ledger (dprank.ledger); the tests' ledgers
# use one of their own for the session, never the one in the home folder. It is set when
# this file is loaded, before the test modules (some make a ledger when imported), and the
# commands the tests start inherit it.
os.environ["DPRANK_LEDGER_KEYS"] = os.path.join(
    tempfile.mkdtemp(prefix="dprank-test-ledger-keys-"), "ledger-keys.json"
)
