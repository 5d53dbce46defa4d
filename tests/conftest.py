"""Shared test configuration: the Hypothesis profiles, a key file for ledgers, the real data sets.

``ci`` (the default) is derandomized, so every run of ``make test`` tries the same
examples and a failure reproduces; ``dev`` draws new examples on each run and tries
more of them, for looking for new failures by hand (``HYPOTHESIS_PROFILE=dev pytest
tests/test_properties.py``). Neither has a deadline: the machines that run the tests
are shared, and a timing is no property of the library.

The fixture ``mirror`` is the folder of the real data sets (``tests/_data.py``: the data
mirror ``$DPRANK_DATA_MIRROR``, the checkout's verified ``resources/data/``, or a download);
without any of them every test that needs it is skipped with one reason, one line of the
summary.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import _data
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


# Ledgers keep their keys in a key file outside the ledger (dprank.ledger); the tests' ledgers
# use one of their own for the session, never the one in the home folder. It is set when
# this file is loaded, before the test modules (some make a ledger when imported), and the
# commands the tests start inherit it.
os.environ["DPRANK_LEDGER_KEYS"] = os.path.join(
    tempfile.mkdtemp(prefix="dprank-test-ledger-keys-"), "ledger-keys.json"
)


def pytest_report_header(config):
    """Whether this run's SIMD kernels are the workflow's (dprank_papers.numerics): the tests
    that compare a computed number with a documented one expect the pinned kernels, which
    `make test` sets before Python starts (numpy reads them once, as it loads)."""
    from dprank_papers.numerics import pinned_env

    missing = pinned_env()
    if not missing:
        return "numerics: pinned kernels (or none to pin on this CPU)"
    words = " ".join(f"{k}={v}" for k, v in missing.items())
    return f"numerics: NOT pinned; run `make test`, or `env {words} python -m pytest`"


def pytest_configure(config):
    """A data mirror named in ``$DPRANK_DATA_MIRROR`` must exist: an error, not skips."""
    mirror = _data.configured()
    if mirror is not None and not mirror.is_dir():
        raise pytest.UsageError(
            f"{_data.ENV_VAR}={os.environ[_data.ENV_VAR]}: no such folder; point it at the "
            f"data mirror (a folder with cems/CEMS.rda, ...) or unset it"
        )


@pytest.fixture(scope="session")
def mirror() -> Path:
    """The folder of every registered data set (mirror layout); skips without one."""
    return _data.mirror()


def pytest_runtest_setup(item):
    """A ``data`` test without the data sets is skipped here, before its fixtures: pytest
    reports a skip raised in a fixture at each test's own line, one summary line per test;
    raised here (tests/_data.py), every such skip has one location and one reason, one line."""
    if item.get_closest_marker("data") is not None:
        _data.mirror()


def pytest_collection_modifyitems(config, items):
    """Every test that needs the real data sets (fixture ``mirror``) is marked ``data``:
    ``pytest -m data`` runs them alone, ``-m "not data"`` the others."""
    for item in items:
        if "mirror" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.data)
