"""The ledger through the command line: --ledger, --budget and dprank ledger (issue 37)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from dprank.cli import main

GAMES = "winner,loser,user\nA,B,ann\nB,C,ann\nA,C,bo\nC,B,bo\nB,A,cy\n"


def run(argv, capsys) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def games(tmp_path):
    path = tmp_path / "games.csv"
    path.write_text(GAMES)
    return path


def test_third_release_past_the_budget_exits_2_and_writes_nothing(tmp_path, games, capsys):
    ledger = tmp_path / "games.ledger"
    rank = ["rank", games, "--privacy", "edge", "--epsilon", "1", "--method", "mle"]
    rank += ["--ledger", ledger]
    for k in (1, 2):
        code, _, err = run([*rank, "--budget", "2.5", "--out", tmp_path / f"r{k}.csv"], capsys)
        assert code == 0, err
        assert f"spent epsilon {float(k)} of the budget 2.5" in err
    before = ledger.read_bytes()
    code, _, err = run([*rank, "--budget", "2.5", "--out", tmp_path / "r3.csv"], capsys)
    assert code == 2
    assert "spent epsilon 2.0" in err and "asks for 1.0" in err and "budget 2.5" in err
    assert not (tmp_path / "r3.csv").exists() and not (tmp_path / "r3.json").exists()
    assert ledger.read_bytes() == before
    code, out, _ = run(["ledger", ledger], capsys)
    assert code == 0
    assert "spent at the comparison level: epsilon 2.0, delta 0.0" in out
    assert out.count("edge_mle") == 2


def test_privatize_is_recorded_at_the_user_level(tmp_path, games, capsys):
    ledger = tmp_path / "games.ledger"
    args = ["privatize", games, "--epsilon", "0.5", "--ledger", ledger]
    assert run([*args, "--out", tmp_path / "rel.csv"], capsys)[0] == 0
    (ds,) = json.loads(ledger.read_text())["datasets"].values()
    assert [(r["command"], r["privacy_unit"], r["epsilon"]) for r in ds["releases"]] == [
        ("privatize", "user", 0.5)
    ]
    code, _, err = run([*args, "--budget", "0.9", "--out", tmp_path / "rel2.csv"], capsys)
    assert code == 2 and "spent epsilon 0.5 at the user level" in err
    assert not (tmp_path / "rel2.csv").exists()


def test_ledger_options_are_checked(tmp_path, games, capsys):
    code, _, err = run(
        ["rank", games, "--privacy", "edge", "--epsilon", "1", "--budget", "2"], capsys
    )
    assert code == 2 and "--budget needs --ledger" in err
    code, _, err = run(
        ["rank", games, "--privacy", "none", "--ledger", tmp_path / "l", "--out", tmp_path / "o"],
        capsys,
    )
    assert code == 2 and "--ledger" in err
    (tmp_path / "bad.ledger").write_text("{}")
    code, _, err = run(["ledger", tmp_path / "bad.ledger"], capsys)
    assert code == 2 and f"ledger {tmp_path / 'bad.ledger'}: not a dprank ledger" in err


def test_concurrent_commands_keep_every_record(tmp_path, games):
    ledger = tmp_path / "games.ledger"
    procs = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "dprank",
                "rank",
                str(games),
                "--privacy",
                "edge",
                "--epsilon",
                "1",
                "--ledger",
                str(ledger),
                "--budget",
                "3",
                "--quiet",
                "--out",
                str(tmp_path / f"r{k}.csv"),
            ],
            stderr=subprocess.PIPE,
        )
        for k in range(4)
    ]
    codes = sorted(p.wait() for p in procs)
    assert codes == [0, 0, 0, 2]
    assert len(list(tmp_path.glob("r*.csv"))) == 3
    (ds,) = json.loads(ledger.read_text())["datasets"].values()
    assert len(ds["releases"]) == 3
