"""The ledger through the command line: --ledger, --budget and dprank ledger (issues 37, 44).

Issue 44's attacks on the ledger are tests here: a local release charged in its
unit (L eps per user), a budget that a later --budget cannot raise, a key
outside the ledger with MAC'ed and chained records (edited, deleted, truncated
records and a deleted ledger are refused), one fingerprint for one set of
outcomes, the record written before any output appears (kill -9, a full disk).
"""

from __future__ import annotations

import errno
import json
import os
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

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


def _releases(ledger: Path) -> list[dict]:
    return [r for r in json.loads(ledger.read_text())["records"] if r["type"] == "release"]


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
    assert "budget at the comparison level: epsilon 2.5" in out
    assert out.count("edge_mle") == 2


def test_privatize_is_charged_L_epsilon_at_the_user_level(tmp_path, capsys):
    """Issue 44: 10 comparisons per user at 0.5 are 5 at the user level, not 0.5."""
    rows = [f"i{k % 4},i{(k + 1) % 4},u{u}" for u in range(3) for k in range(10)]
    data = tmp_path / "ten.csv"
    data.write_text("winner,loser,user\n" + "\n".join(rows) + "\n")
    ledger = tmp_path / "ten.ledger"
    base = ["privatize", data, "--epsilon", "0.5", "--items-from-data", "--ledger", ledger]
    # with the declared bound the budget is at the user level: 10 * 0.5 = 5 > 1
    code, _, err = run(
        [*base, "--max-per-user", 10, "--budget", 1, "--out", tmp_path / "a.csv"], capsys
    )
    assert code == 2 and "asks for 5.0" in err and "user level" in err
    assert not (tmp_path / "a.csv").exists() and not ledger.exists()
    # a user-level budget and no bound: the user-level loss is unbounded, refused
    argv = [*base, "--budget", 10, "--budget-unit", "user", "--out", tmp_path / "b.csv"]
    code, _, err = run(argv, capsys)
    assert code == 2 and "unbounded" in err and "--max-per-user" in err
    # recorded in its own unit: comparison, with the bound L
    code, _, err = run([*base, "--max-per-user", 10, "--out", tmp_path / "c.csv"], capsys)
    assert code == 0, err
    (record,) = _releases(ledger)
    assert (record["command"], record["privacy_unit"], record["epsilon"]) == (
        "privatize",
        "comparison",
        0.5,
    )
    assert record["bounds"] == {"max_per_user": 10}
    code, out, _ = run(["ledger", ledger], capsys)
    assert "spent at the user level: epsilon 5.0" in out
    public = json.loads((tmp_path / "c.json").read_text())
    assert public["privacy_unit"] == "comparison" and public["epsilon_user_level"] == 5.0


def test_the_budget_is_stored_and_only_lowered_by_a_release(tmp_path, games, capsys):
    ledger = tmp_path / "games.ledger"
    rank = ["rank", games, "--privacy", "edge", "--epsilon", "1", "--ledger", ledger, "--quiet"]
    assert run([*rank, "--budget", "1.5", "--out", tmp_path / "r1.csv"], capsys)[0] == 0
    # a later, larger --budget is refused naming the command that raises it
    code, _, err = run([*rank, "--budget", "100", "--out", tmp_path / "r2.csv"], capsys)
    assert code == 2 and "--set-budget" in err and not (tmp_path / "r2.csv").exists()
    # without --budget the stored one applies
    code, _, err = run([*rank, "--out", tmp_path / "r3.csv"], capsys)
    assert code == 2 and "budget 1.5" in err
    # lowering is recorded; raising takes the explicit command
    assert (
        run([*rank, "--budget", "1.2", "--epsilon", "0.1", "--out", tmp_path / "r4.csv"], capsys)[0]
        == 0
    )
    code, _, err = run(["ledger", ledger, "--set-budget", "3", "--unit", "comparison"], capsys)
    assert code == 0 and "set to 3.0" in err
    assert run([*rank, "--out", tmp_path / "r5.csv"], capsys)[0] == 0
    code, out, _ = run(["ledger", ledger], capsys)
    assert "budget at the comparison level: epsilon 3.0" in out
    assert "spent at the comparison level: epsilon 2.1" in out


def test_the_key_lives_outside_the_ledger(tmp_path, games, capsys):
    ledger = tmp_path / "games.ledger"
    argv = ["rank", games, "--privacy", "edge", "--epsilon", "1", "--ledger", ledger]
    assert run([*argv, "--out", tmp_path / "r.csv"], capsys)[0] == 0
    keys = Path(os.environ["DPRANK_LEDGER_KEYS"])
    entries = json.loads(keys.read_text())["ledgers"].values()
    (entry,) = [e for e in entries if e["path"] == os.path.realpath(ledger)]
    assert entry["key"] not in ledger.read_text()
    assert stat.S_IMODE(keys.stat().st_mode) == 0o600
    assert stat.S_IMODE(ledger.stat().st_mode) == 0o600
    with pytest.raises(SystemExit):
        main(["ledger", "--help"])
    assert str(keys) in capsys.readouterr().out


def _edit(ledger: Path, change) -> None:
    state = json.loads(ledger.read_text())
    change(state["records"])
    ledger.write_text(json.dumps(state))


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda records: records[2].update(epsilon=0.001), "was edited"),
        (lambda records: records.pop(2), "does not follow"),
        (lambda records: records.pop(), "records were removed from its end"),
        (lambda records: records.clear(), "corrupted"),
    ],
)
def test_an_edited_deleted_or_truncated_record_is_refused(tmp_path, games, capsys, change, message):
    ledger = tmp_path / "games.ledger"
    rank = ["rank", games, "--privacy", "edge", "--epsilon", "1", "--ledger", ledger, "--quiet"]
    for k in range(3):
        assert run([*rank, "--budget", "3", "--out", tmp_path / f"r{k}.csv"], capsys)[0] == 0
    _edit(ledger, change)
    code, _, err = run([*rank, "--out", tmp_path / "r9.csv"], capsys)
    assert code == 2 and message in err
    assert not (tmp_path / "r9.csv").exists()
    code, _, err = run(["ledger", ledger], capsys)
    assert code == 2 and message in err


def test_a_deleted_ledger_is_detected_until_forgotten(tmp_path, games, capsys):
    ledger = tmp_path / "games.ledger"
    rank = ["rank", games, "--privacy", "edge", "--epsilon", "1", "--ledger", ledger, "--quiet"]
    assert run([*rank, "--budget", "1", "--out", tmp_path / "r1.csv"], capsys)[0] == 0
    ledger.unlink()
    code, _, err = run([*rank, "--budget", "1", "--out", tmp_path / "r2.csv"], capsys)
    assert code == 2 and "deleted or moved" in err and "--forget" in err
    assert not (tmp_path / "r2.csv").exists() and not ledger.exists()
    code, _, err = run(["ledger", ledger, "--forget"], capsys)
    assert code == 0 and "forgot" in err
    assert run([*rank, "--budget", "1", "--out", tmp_path / "r3.csv"], capsys)[0] == 0


def test_one_set_of_outcomes_is_one_data_set(tmp_path, capsys):
    """With or without users, reshuffled users, trailing spaces: the same edge-DP data."""
    forms = {
        "plain.csv": "winner,loser\nA,B\nB,C\nA,C\nC,B\nB,A\n",
        "users.csv": GAMES,
        "shuffled.csv": "winner,loser,user\nA,B,cy\nB,C,bo\nA,C,bo\nC,B,ann\nB,A,ann\n",
        "spaces.csv": "winner,loser,user\nA ,B,ann\nB, C ,ann\nA,C  ,bo\nC,B,bo\nB , A,cy\n",
    }
    ledger = tmp_path / "forms.ledger"
    for k, (name, text) in enumerate(forms.items()):
        (tmp_path / name).write_text(text)
        argv = ["rank", tmp_path / name, "--privacy", "edge", "--epsilon", "1"]
        argv += ["--ledger", ledger, "--budget", "3", "--out", tmp_path / f"r{k}.csv"]
        code, _, err = run(argv, capsys)
        assert code == (0 if k < 3 else 2), (name, err)
    code, out, _ = run(["ledger", ledger], capsys)
    assert out.startswith(f"ledger {ledger}: 1 data set")


def test_a_record_that_cannot_be_written_leaves_no_output(tmp_path, games, capsys, monkeypatch):
    """A full disk when the record is written: exit 1 (as for any output that cannot be
    written), one line naming the ledger and the cause, no output, the ledger unchanged."""
    from dprank.ledger import _store

    ledger = tmp_path / "games.ledger"
    rank = ["rank", games, "--privacy", "edge", "--epsilon", "1", "--ledger", ledger, "--quiet"]
    assert run([*rank, "--out", tmp_path / "r1.csv"], capsys)[0] == 0
    before = ledger.read_bytes()

    def full(path, text):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(_store, "write_durably", full)
    out = tmp_path / "r2.csv"
    code, stdout, err = run([*rank, "--out", out, "--audit-record", tmp_path / "a.json"], capsys)
    assert code == 1 and "No space left on device" in err and "nothing was released" in err
    assert err.strip().splitlines() == [
        f"dprank: error: ledger {ledger}: cannot be written (No "
        "space left on device): the release was not recorded, so nothing was released"
    ]
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(("r2", "a."))) == []
    assert ledger.read_bytes() == before
    code, stdout, err = run([*rank, "--out", "-"], capsys)
    assert code == 1 and stdout == ""  # standard output too: nothing before the record


def test_kill_9_after_the_ranking_appears_leaves_it_recorded(tmp_path, games):
    """The record is fsync'ed before the outputs are renamed into place: whenever the ranking
    exists, its release is in the ledger (issue 44 killed 10 of 10 releases unrecorded)."""
    big = tmp_path / "big.csv"
    rows = [f"i{k % 300},i{(k * 7 + 1) % 300}" for k in range(60000)]
    big.write_text(
        "winner,loser\n" + "\n".join(r for r in rows if r.split(",")[0] != r.split(",")[1]) + "\n"
    )
    ledger = tmp_path / "big.ledger"
    seen = 0
    for k in range(4):
        out = tmp_path / f"r{k}.csv"
        argv = [sys.executable, "-m", "dprank", "rank", str(big), "--privacy", "edge"]
        argv += ["--epsilon", "0.1", "--ledger", str(ledger), "--quiet", "--out", str(out)]
        proc = subprocess.Popen(argv, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 120
        while proc.poll() is None and not out.exists() and time.monotonic() < deadline:
            time.sleep(0.001)
        if out.exists():
            proc.send_signal(signal.SIGKILL)
            seen += 1
        proc.wait()
        if out.exists():
            assert len(_releases(ledger)) == k + 1, "an output on disk without its record"
        else:
            assert not ledger.exists() or len(_releases(ledger)) <= k + 1
    assert seen >= 1


def test_a_version_1_ledger_is_refused_and_migrates(tmp_path, games, capsys):
    ledger = tmp_path / "old.ledger"
    key = "ab" * 32
    from dprank.data.inputs import read_comparisons
    from dprank.ledger._content import legacy_fingerprint

    fp = legacy_fingerprint(read_comparisons(games, need_users=True), bytes.fromhex(key))
    release = {
        "time": "2026-01-01T00:00:00Z",
        "command": "rank",
        "mechanism": "edge_mle",
        "privacy_unit": "comparison",
        "epsilon": 2.0,
        "delta": 0.0,
        "bounds": {},
    }
    old = {"format": "dprank-ledger", "version": 1, "key": key}
    old["datasets"] = {fp: {"name": "games.csv", "releases": [release]}}
    ledger.write_text(json.dumps(old))
    rank = ["rank", games, "--privacy", "edge", "--epsilon", "1", "--ledger", ledger, "--quiet"]
    code, _, err = run([*rank, "--out", tmp_path / "r.csv"], capsys)
    assert code == 2 and "version-1 ledger" in err and f"dprank ledger {ledger} --migrate" in err
    code, _, err = run(["ledger", ledger, "--migrate"], capsys)
    assert code == 0 and "1 releases" in err
    assert json.loads((tmp_path / "old.ledger.v1").read_text()) == old
    # the old release is still charged to the same data: 2 + 1 > 2.5
    code, _, err = run([*rank, "--budget", "2.5", "--out", tmp_path / "r.csv"], capsys)
    assert code == 2 and "spent epsilon 2.0" in err
    assert run([*rank, "--budget", "3", "--out", tmp_path / "r.csv"], capsys)[0] == 0


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
    code, _, err = run(["ledger", tmp_path / "x.ledger", "--set-budget", "1"], capsys)
    assert code == 2 and "--unit" in err


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
    assert len(_releases(ledger)) == 3


def test_a_moved_ledger_is_followed_by_the_key_file(tmp_path, games, capsys):
    ledger, moved = tmp_path / "a.ledger", tmp_path / "b.ledger"
    rank = ["rank", games, "--privacy", "edge", "--epsilon", "1", "--quiet"]
    assert run([*rank, "--ledger", ledger, "--out", tmp_path / "r1.csv"], capsys)[0] == 0
    ledger.rename(moved)
    code, out, _ = run(["ledger", moved], capsys)
    assert code == 0 and "1 release" in out
    # the old path is free again: a new ledger may start there
    assert run([*rank, "--ledger", ledger, "--out", tmp_path / "r2.csv"], capsys)[0] == 0
