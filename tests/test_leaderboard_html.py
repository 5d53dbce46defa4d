"""The HTML leaderboard opened from disk in headless Chromium: it renders, runs and sorts."""

import os
import re
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from dprank.cli import main

CHROMIUM = Path("/usr/bin/chromium")
pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists() and os.environ.get("CI") != "true",
    reason="headless Chromium (Debian's chromium at /usr/bin/chromium) is not installed",
)


def _dom(page: Path, profile: Path, fragment: str = "") -> str:
    """The page's DOM after its script ran, by headless Chromium (no network, fresh profile)."""
    argv = [
        str(CHROMIUM),
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--no-first-run",
        "--disable-component-update",
        "--disable-sync",
        f"--user-data-dir={profile}",
        "--virtual-time-budget=2000",
        "--dump-dom",
        page.as_uri() + fragment,
    ]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=120, check=True)
    return done.stdout


def _rows(dom: str) -> list[str]:
    body = dom.split("<tbody>", 1)[1].split("</tbody>", 1)[0]
    return re.findall(r'<td class="item" data-value="([^"]*)"', body)


def test_the_leaderboard_page_renders_sorts_and_states_its_privacy(tmp_path):
    rng = np.random.default_rng(1)
    models = [f"model-{k}" for k in range(8)]
    rows = []
    for a in range(8):
        for b in range(a + 1, 8):
            for _ in range(30):
                p = 1 / (1 + np.exp(-(b - a) / 3))
                u = rng.random()
                winner = "model_a" if u < 0.75 * p else ("tie" if u < 0.85 else "model_b")
                rows.append((models[a], models[b], winner))
    votes = tmp_path / "votes.csv"
    pd.DataFrame(rows, columns=["model_a", "model_b", "winner"]).to_csv(votes, index=False)
    page = tmp_path / "leaderboard.html"
    argv = ["rank", votes, "--privacy", "edge", "--epsilon", 2, "--model", "davidson"]
    argv += ["--scale", "elo", "--html", page, "--out", tmp_path / "lb.csv", "--quiet"]
    assert main([str(a) for a in argv]) == 0
    ranking = pd.read_csv(tmp_path / "lb.csv")

    dom = _dom(page, tmp_path / "profile1")
    assert 'data-ready="true"' in dom  # the script ran
    assert _rows(dom) == ranking["item"].tolist()  # as written: by rank
    assert dom.count("<svg") == 8 and "<line" in dom  # one interval drawn per model
    assert "Differential privacy for each vote, epsilon = 2" in dom

    dom = _dom(page, tmp_path / "profile2", "#sort=score:asc")
    assert 'data-sorted="score:asc"' in dom
    assert _rows(dom) == ranking["item"].tolist()[::-1]  # lowest score first
    dom = _dom(page, tmp_path / "profile3", "#sort=item:desc")
    assert _rows(dom) == sorted(ranking["item"].tolist(), reverse=True)
