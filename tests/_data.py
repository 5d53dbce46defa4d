"""The real data sets in the tests: where they come from, and one skip when they cannot.

The tests that read the registered data sets (``resources/datasets.yaml``) or run the
workflow on them take them from, in this order:

1. the data mirror ``$DPRANK_DATA_MIRROR`` (a folder laid out as ``<mirror>/<path>`` of
   the registry, e.g. ``cems/CEMS.rda``; what the workflow reads offline);
2. the checkout's own ``resources/data/`` when it holds every file, each matching its sha256
   (what ``make reproduce`` or the ``fetch_<dataset>`` rules leave there);
3. a download of every data set, once per test session, into a temporary folder, hash-checked
   (:func:`dprank.data.datasets.fetch`; needs network).

When none works (a machine without network and without a mirror), every such test is
skipped from the one line of :func:`mirror`, called before the test's fixtures
(``conftest.pytest_runtest_setup``), so pytest's summary (``-ra``) folds them all into one line
that says how to provide the data. ``DPRANK_DATA_MIRROR`` naming a missing folder is
an error (``conftest.pytest_configure``), never a skip: a mirror the user asked for must be used.
"""

from __future__ import annotations

import atexit
import functools
import os
import shutil
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ENV_VAR = "DPRANK_DATA_MIRROR"

#: The reason of every skip for want of the real data sets (one line in pytest's summary)
HOW_TO_PROVIDE = (
    f"needs the real data sets, not available here (no network to download them): set "
    f"{ENV_VAR}=/path/to/mirror, a folder laid out as resources/datasets.yaml's paths "
    f"(cems/CEMS.rda, ...; README.md, 'Offline')"
)


def configured() -> Path | None:
    """``$DPRANK_DATA_MIRROR`` as a path, or None when unset or empty."""
    value = os.environ.get(ENV_VAR, "")
    return Path(value).expanduser().resolve() if value else None


@functools.cache
def _resolve() -> Path | None:
    """The folder holding every data set (mirror layout), or None; resolved once per session.

    A folder found in steps 2 or 3 is exported as ``$DPRANK_DATA_MIRROR`` for the rest of the
    session, so that the Snakemake runs of the workflow tests (subprocesses, in copies of the
    repository without ``resources/data/``) read it instead of downloading again.
    """
    mirror = configured()
    if mirror is not None:
        return mirror
    from dprank.data.datasets import DataError, fetch, load_registry, verify_local

    registry = load_registry(ROOT / "resources" / "datasets.yaml")
    local = ROOT / "resources" / "data"
    files = [local / f.path for dataset in registry.values() for f in dataset.files]
    try:
        if all(path.is_file() for path in files) and verify_local(files, registry, local):
            os.environ[ENV_VAR] = str(local)
            return local
    except DataError:
        pass  # a damaged copy: download instead
    folder = Path(tempfile.mkdtemp(prefix="dprank-test-data-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    try:
        for name in registry:
            fetch(name, registry, folder, mirror=None)
    except DataError:
        return None
    os.environ[ENV_VAR] = str(folder)
    return folder


def mirror() -> Path:
    """The data folder (mirror layout) with every registered data set; skips the test without.

    Every skip for want of data comes from the one ``pytest.skip`` line below, with one
    reason, so that pytest's summary shows them as one line.
    """
    folder = _resolve()
    if folder is None:
        pytest.skip(HOW_TO_PROVIDE)
    return folder
