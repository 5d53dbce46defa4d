"""`make test` on a machine without network and without a data mirror.

The tests that need the real data sets are skipped, all with one reason, so that pytest's
summary shows one line saying how to provide them (tests/_data.py); CI runs the whole suite
without network too (.ci/run, .ci/offline), with the mirror.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: What a fresh clone lacks: what a run, the set-up or the tests make (and git's own files)
LEFT_OUT = {".git", ".venv", "results", ".snakemake", "site", "wheelhouse", "resources/data"}


def _ignore(folder: str, names: list[str]) -> set[str]:
    rel = Path(folder).relative_to(ROOT)
    return {n for n in names if (rel / n).as_posix() in LEFT_OUT or n == "__pycache__"}


def _offline_env(tmp: Path) -> dict[str, str]:
    """No data mirror, every proxy pointing at a closed port (pooch and requests go through
    them: the download fails at once), and pytest's own files in ``tmp``."""
    env = {k: v for k, v in os.environ.items() if k != "DPRANK_DATA_MIRROR"}
    nowhere = "http://127.0.0.1:9"
    for key in ("http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"):
        env[key] = nowhere
    env["no_proxy"] = env["NO_PROXY"] = ""
    env["PIP_NO_INDEX"] = "1"
    env["TMPDIR"] = str(tmp)
    return env


@pytest.mark.workflow
def test_without_network_and_mirror_the_data_tests_skip_with_one_line(tmp_path):
    clone = tmp_path / "clone"
    shutil.copytree(ROOT, clone, ignore=_ignore, symlinks=True)
    (tmp_path / "tmp").mkdir()
    command = [sys.executable, "-m", "pytest", "-m", "data", "-q", "-p", "no:cacheprovider"]
    offline = ROOT / ".ci" / "offline"
    if os.geteuid() == 0 and shutil.which("unshare") and shutil.which("ip"):
        command = [str(offline), *command]  # the real thing: no network at all
    proc = subprocess.run(
        command, cwd=clone, env=_offline_env(tmp_path / "tmp"), capture_output=True, text=True
    )
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-3000:]
    skipped = [line for line in out.splitlines() if line.startswith("SKIPPED")]
    assert len(skipped) == 1, skipped
    assert "DPRANK_DATA_MIRROR=/path/to/mirror" in skipped[0]
    counts = re.search(r"(\d+) skipped", out)
    assert counts and int(counts.group(1)) >= 30, out[-500:]
    assert not re.search(r"\d+ (failed|errors?)\b", out), out[-2000:]
    assert "passed" not in out.splitlines()[-1]  # every data test skipped, none ran
