"""Every channel of every release path of the command, on neighbouring data (issue 44).

For each release path (``dprank rank`` with each privacy level and method,
``dprank privatize`` with each mechanism, and the local pipeline privatize ->
rank) the command runs on pairs of neighbouring files under the path's own
neighbour relation, and every channel but the released values must be
byte-identical: exit status, standard output, standard error, which files
appear and their public content (:mod:`dprank.audit.command_channels`). The
neighbours are the ones that used to give a release away: a user whose pair
decides connectivity, a user who alone compares an item, a flipped outcome, a
user with many comparisons, and extreme budgets where the noise grid was coarser
than the counts.

Each pair is a small DP game: runs on ``D`` and ``D'`` (fresh noise each time)
and the distinguisher "the channel signature is ``D``'s"; with identical
channels its advantage is 0 and the Clopper-Pearson lower bound on epsilon is 0.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from dprank.audit import epsilon_lower_bound
from dprank.audit.command_channels import (
    channel_differences,
    channel_signature,
    channels,
    run_command,
)

ITEMS = list("abcdefg")
#: five users' comparisons that connect items a..f (g is compared by nobody)
BASE = [
    ("a", "b", "u1"),
    ("b", "c", "u1"),
    ("c", "a", "u2"),
    ("d", "e", "u2"),
    ("e", "f", "u3"),
    ("f", "d", "u3"),
    ("a", "c", "u4"),
    ("e", "d", "u4"),
    ("b", "a", "u5"),
    ("f", "e", "u5"),
]


def _frame(rows, count=False) -> pd.DataFrame:
    frame = pd.DataFrame(rows, columns=["winner", "loser", "user"])
    if count:
        frame["count"] = [1 + k % 3 for k in range(len(frame))]
    return frame


#: individual DP: D and D' replace one user's (u6's) comparisons
INDIVIDUAL_NEIGHBOURS = {
    # u6's pair is the only bridge between {a, b, c} and {d, e, f}
    "connectivity": ([*BASE, ("c", "d", "u6")], [*BASE, ("a", "b", "u6")]),
    # only u6 compares g
    "sole item": ([*BASE, ("a", "g", "u6")], [*BASE, ("a", "b", "u6")]),
    # u6 with many comparisons (beyond the declared bound) or one
    "heavy user": (
        BASE + [("a", "d", "u6")] * 12 + [("g", "b", "u6")] * 5,
        [*BASE, ("a", "d", "u6")],
    ),
    # a flipped outcome of one user
    "flipped": ([*BASE, ("c", "d", "u6")], [*BASE, ("d", "c", "u6")]),
}
#: edge DP (and the local releases): one outcome flipped, the pairs and users fixed
EDGE_NEIGHBOURS = {
    "flipped": ([*BASE, ("c", "d", "u6")], [*BASE, ("d", "c", "u6")]),
    # the flip changes the parity of two items' wins (the grid of extreme budgets)
    "parity": ([*BASE, ("a", "b", "u6")], [*BASE, ("b", "a", "u6")]),
}

TRIALS = 2  # runs per side: fresh noise, the same channels


def _write_inputs(folder, rows, count=False) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    frame = _arena(rows) if len(rows[0]) == 4 else _frame(rows, count)
    frame.to_csv(folder / "data.csv", index=False)
    pd.DataFrame({"item": ITEMS}).to_csv(folder / "items.csv", index=False)


def _game(tmp_path, name, pair, argv, count=False) -> list:
    """Run ``argv`` TRIALS times on each neighbour; assert identical channels; the runs.

    Rows of three fields are comparisons ``winner, loser, user``; rows of four are arena
    votes ``model_a, model_b, winner, judge`` (votes with ties).
    """
    runs = {0: [], 1: []}
    for side, rows in enumerate(pair):
        for trial in range(TRIALS):
            folder = tmp_path / f"{name}-{side}-{trial}"
            _write_inputs(folder, rows, count)
            runs[side].append(run_command(argv, folder, inputs=("data.csv", "items.csv")))
    reference = runs[0][0]
    for run in runs[0][1:] + runs[1]:
        assert channel_differences(reference, run) == [], (name, argv)
    # the game: "the signature is D's" happens on every run of both sides
    sig = channel_signature(reference)
    k0 = sum(channel_signature(r) == sig for r in runs[0])
    k1 = sum(channel_signature(r) == sig for r in runs[1])
    assert epsilon_lower_bound(k1, TRIALS, k0, TRIALS) == 0.0
    return runs[0] + runs[1]


RANK_INDIVIDUAL = [
    ["--method", "mle"],
    ["--method", "counts"],
    ["--method", "counts", "--as-published"],
]


@pytest.mark.parametrize("case", sorted(INDIVIDUAL_NEIGHBOURS))
@pytest.mark.parametrize("method", RANK_INDIVIDUAL, ids=lambda m: "-".join(m[1:]))
def test_rank_individual_channels(tmp_path, case, method):
    argv = ["rank", "data.csv", "--privacy", "individual", "--epsilon", "1", "--max-per-user", 4]
    argv += [*method, "--items", "items.csv", "--top-k", 3, "--out", "ranking.csv"]
    argv += ["--audit-record", "audit.json", "--ledger", "ledger.json", "--budget", 50]
    runs = _game(tmp_path, case, INDIVIDUAL_NEIGHBOURS[case], argv)
    assert {r.exit_status for r in runs} == {0}, runs[0].stderr
    ranking = pd.read_csv(tmp_path / f"{case}-0-0" / "ranking.csv")
    assert sorted(ranking["item"]) == ITEMS  # g is ranked though nobody compared it
    assert "components" not in runs[0].stderr


def test_a_user_with_a_huge_count_is_bounded_like_any_other(tmp_path):
    """A row with a count of 10^12 is bounded to L without expanding it (no memory failure)."""
    heavy = pd.DataFrame([*BASE, ("c", "d", "u6")], columns=["winner", "loser", "user"])
    runs = []
    for side, count in enumerate((10**12, 1)):
        folder = tmp_path / str(side)
        folder.mkdir()
        heavy.assign(count=[1] * len(BASE) + [count]).to_csv(folder / "data.csv", index=False)
        pd.DataFrame({"item": ITEMS}).to_csv(folder / "items.csv", index=False)
        argv = ["rank", "data.csv", "--privacy", "individual", "--epsilon", "1"]
        argv += ["--max-per-user", 4, "--items", "items.csv", "--out", "r.csv"]
        runs.append(run_command(argv, folder, inputs=("data.csv", "items.csv")))
    assert runs[0].exit_status == 0, runs[0].stderr
    assert channel_differences(*runs) == []


def test_the_private_facts_go_to_the_audit_record(tmp_path):
    """What used to be on standard error (the components) is in the audit record only."""
    argv = ["rank", "data.csv", "--privacy", "individual", "--epsilon", "1", "--max-per-user", 4]
    argv += ["--items", "items.csv", "--out", "ranking.csv", "--audit-record", "audit.json"]
    d, d1 = INDIVIDUAL_NEIGHBOURS["connectivity"]
    notes = []
    for side, rows in enumerate((d, d1)):
        folder = tmp_path / str(side)
        _write_inputs(folder, rows)
        run = run_command(argv, folder, inputs=("data.csv", "items.csv"))
        assert run.exit_status == 0, run.stderr
        notes.append(json.loads((folder / "audit.json").read_text())["notes"])
    # g is never compared: 2 components with u6's bridge, 3 without
    assert "2 components" in notes[0][0] and "3 components" in notes[1][0]


def test_refusals_depend_on_public_parameters_only(tmp_path):
    """Without declared items an individual release is refused, the same way for both."""
    argv = ["rank", "data.csv", "--privacy", "individual", "--epsilon", "1", "--max-per-user", 4]
    runs = _game(tmp_path, "refused", INDIVIDUAL_NEIGHBOURS["sole item"], [*argv, "--out", "r.csv"])
    assert {r.exit_status for r in runs} == {2} and "--items" in runs[0].stderr
    assert runs[0].files == {}


RANK_EDGE = [
    ["--method", "mle", "--epsilon", "1"],
    ["--method", "counts", "--epsilon", "1"],
    ["--method", "noisy_obj", "--epsilon", "1"],
    ["--method", "counts", "--epsilon", "1e-9"],  # a noise grid once coarser than the counts
    ["--method", "counts", "--epsilon", "1e9"],
    ["--method", "mle", "--epsilon", "1e-9"],
    ["--method", "mle", "--epsilon", "1e9"],
    ["--method", "counts", "--epsilon", "2", "--intervals", "0.9"],  # post-processing
]


@pytest.mark.parametrize("case", sorted(EDGE_NEIGHBOURS))
@pytest.mark.parametrize("method", RANK_EDGE, ids=lambda m: "-".join(m[1::2]))
def test_rank_edge_channels(tmp_path, case, method):
    argv = ["rank", "data.csv", "--privacy", "edge", *method, "--top-k", 2]
    argv += ["--out", "ranking.csv", "--audit-record", "audit.json", "--ledger", "l.json"]
    runs = _game(tmp_path, case, EDGE_NEIGHBOURS[case], argv)
    assert {r.exit_status for r in runs} == {0}, runs[0].stderr


def test_rank_edge_with_declared_items_and_standard_output(tmp_path):
    argv = ["rank", "data.csv", "--privacy", "edge", "--epsilon", "1", "--items", "items.csv"]
    runs = _game(tmp_path, "stdout", EDGE_NEIGHBOURS["flipped"], [*argv, "--out", "-"])
    assert {r.exit_status for r in runs} == {0}
    assert channels(runs[0])["stdout"][2] == tuple((x,) for x in ITEMS)


def test_one_shot_top_k_channels(tmp_path):
    """The one-shot method needs a complete tournament: neighbours flip one game of it."""
    import itertools

    games = [(a, b, f"u{k}") for k, (a, b) in enumerate(itertools.combinations("abcde", 2))]
    flipped = [(games[0][1], games[0][0], games[0][2]), *games[1:]]
    argv = ["rank", "data.csv", "--privacy", "edge", "--epsilon", "1", "--method", "one_shot"]
    runs = _game(tmp_path, "one-shot", (games, flipped), [*argv, "--top-k", 2, "--out", "r.csv"])
    assert {r.exit_status for r in runs} == {0}, runs[0].stderr


PRIVATIZE = [
    ["--mechanism", "rr"],
    ["--mechanism", "laplace"],
    ["--mechanism", "rr", "--max-per-user", 10],
]


@pytest.mark.parametrize("count", [False, True], ids=["rows", "counts"])
@pytest.mark.parametrize("mechanism", PRIVATIZE, ids=lambda m: "-".join(map(str, m[1:])))
def test_privatize_then_rank_local_channels(tmp_path, mechanism, count):
    """The local pipeline on neighbours that flip one outcome (pairs and users are public)."""
    privatize = ["privatize", "data.csv", "--epsilon", "1", *mechanism, "--items", "items.csv"]
    privatize += ["--out", "released.csv", "--ledger", "l.json", "--audit-record", "a.json"]
    pair = EDGE_NEIGHBOURS["flipped"]
    runs = _game(tmp_path, "privatize", pair, privatize, count=count)
    assert {r.exit_status for r in runs} == {0}, runs[0].stderr
    methods = (
        ["laplace"] if "laplace" in mechanism else ["adrr", "debiased_rr", "classic_rr", "count"]
    )
    for method in methods:
        rank = ["rank", "released.csv", "--privacy", "local", "--method", method]
        outs = []
        for side in (0, 1):
            for trial in range(TRIALS):
                folder = tmp_path / f"privatize-{side}-{trial}"
                outs.append(run_command([*rank, "--out", f"{method}.csv"], folder))
        for run in outs[1:]:
            assert channel_differences(outs[0], run) == [], method
        assert outs[0].exit_status == 0, outs[0].stderr
        record = json.loads((tmp_path / "privatize-0-0" / f"{method}.json").read_text())
        assert record["privacy_unit"] == "comparison"
        assert record["local_release"].startswith("dprank privatize")


def test_privatize_heavy_user_channels(tmp_path):
    """A user with many comparisons against one with a few, all outcomes flipped."""
    heavy = BASE + [("a", "d", "u6")] * 9
    flipped = BASE + [("d", "a", "u6")] * 9
    argv = ["privatize", "data.csv", "--epsilon", "1", "--items", "items.csv"]
    argv += ["--max-per-user", 3, "--out", "released.csv", "--audit-record", "a.json"]
    runs = _game(tmp_path, "heavy", (heavy, flipped), argv)
    assert {r.exit_status for r in runs} == {0}, runs[0].stderr


def test_the_channel_helper_sees_what_used_to_leak(tmp_path):
    """The distinguisher works: a message that depends on the data is a difference."""
    from dprank.audit.command_channels import CommandRun

    a = CommandRun(("rank",), 0, "", "dprank: warning: the comparison graph has 2 components\n")
    b = CommandRun(("rank",), 0, "", "")
    assert channel_differences(a, b) and channel_signature(a) != channel_signature(b)
    c = CommandRun(("rank",), 0, "", "", {"r.csv": b"item,score\nx,1.5\ny,0.2\n"})
    d = CommandRun(("rank",), 0, "", "", {"r.csv": b"item,score\ny,3.0\nx,-1\n"})
    assert channel_differences(c, d) == []  # the values and their order are the release
    e = CommandRun(("rank",), 0, "", "", {"r.csv": b"item,score\ny,3.0\nz,-1\n"})
    assert channel_differences(c, e)  # the item set is not
    assert np.all([channel_signature(c) == channel_signature(d)])


def test_the_intervals_summaries_are_masked_as_values():
    """How many items the release does not locate, and in how many tie classes it falls, are
    functions of the released intervals: masked in the record and in the note; any other
    message still counts."""
    from dprank.audit.command_channels import CommandRun

    def run(located, classes, note):
        record = {"intervals": {"items_not_located": located, "tie_classes": classes}}
        files = {"r.json": json.dumps(record).encode()}
        return CommandRun(("rank",), 0, "", note, files)

    a = run(0, 3, "")
    b = run(2, 1, "dprank: note: --intervals 0.95: 2 of 6 items are not located by the release\n")
    assert channel_differences(a, b) == []
    c = run(5, 1, "dprank: note: --intervals 0.95: 5 of 6 items are not located by the release\n")
    assert channel_differences(b, c) == []
    d = run(5, 1, "dprank: warning: the comparison graph has 2 components\n")
    assert channel_differences(c, d)


def test_the_html_channel_masks_values_and_keeps_the_rest():
    """An HTML leaderboard: its values and row order are the release; items, columns and text
    are channels (a leak in the page's words or its item set is a difference)."""
    from dprank.audit.command_channels import CommandRun
    from dprank.leaderboard import html_page

    def page(items, scores, statement_eps=1.0):
        cols = {"item": np.array(items), "score": np.array(scores), "rank": np.array([1, 2])}
        record = {"privacy": "edge", "private": True, "epsilon": statement_eps}
        return html_page(cols, record, title="Leaderboard: data.csv").encode()

    a = CommandRun(("rank",), 0, "", "", {"b.html": page(["x", "y"], [1.5, 0.2])})
    b = CommandRun(("rank",), 0, "", "", {"b.html": page(["y", "x"], [3.0, -1.0])})
    c = CommandRun(("rank",), 0, "", "", {"b.html": page(["x", "z"], [1.5, 0.2])})
    assert channel_differences(a, b) == []
    assert channel_differences(a, c)


# --------------------------------------------------------------------------- votes with ties


def _arena(rows) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["model_a", "model_b", "winner", "judge"])


#: the comparisons of BASE as arena votes, a tie added for each of u1, u3 and u5
VOTES = [(w, x, "model_a", u) for w, x, u in BASE] + [
    ("a", "c", "tie", "u1"),
    ("d", "f", "tie", "u3"),
    ("b", "c", "tie (bothbad)", "u5"),
]
#: edge DP with ties: one vote's outcome changed among win, tie and loss
TIES_EDGE_NEIGHBOURS = {
    "win-loss": ([*VOTES, ("c", "d", "model_a", "u6")], [*VOTES, ("c", "d", "model_b", "u6")]),
    # a win turned into a tie moves the points by a half (the parity of the grid)
    "win-tie": ([*VOTES, ("a", "b", "model_a", "u6")], [*VOTES, ("a", "b", "tie", "u6")]),
}
#: voter-level DP with ties: u6's votes replaced
TIES_VOTER_NEIGHBOURS = {
    "connectivity": ([*VOTES, ("c", "d", "tie", "u6")], [*VOTES, ("a", "b", "model_a", "u6")]),
    "sole item": ([*VOTES, ("a", "g", "tie", "u6")], [*VOTES, ("a", "b", "tie", "u6")]),
    "heavy voter": (
        VOTES + [("a", "d", "model_b", "u6")] * 12 + [("g", "b", "tie", "u6")] * 5,
        [*VOTES, ("a", "d", "model_a", "u6")],
    ),
}


@pytest.mark.parametrize("case", sorted(TIES_EDGE_NEIGHBOURS))
@pytest.mark.parametrize("eps", ["1", "1e-9", "1e9"])
def test_rank_edge_ties_channels(tmp_path, case, eps):
    """edge_ties (the default of --model davidson under edge DP), with the leaderboard's
    outputs: the Elo scale, intervals, the HTML page; extreme budgets included."""
    argv = ["rank", "data.csv", "--privacy", "edge", "--epsilon", eps, "--model", "davidson"]
    argv += ["--scale", "elo", "--html", "board.html", "--out", "ranking.csv"]
    argv += ["--audit-record", "audit.json", "--ledger", "l.json"]
    runs = _game(tmp_path, case, TIES_EDGE_NEIGHBOURS[case], argv)
    assert {r.exit_status for r in runs} == {0}, runs[0].stderr
    assert {"ranking.csv", "ranking.json", "board.html"} <= set(runs[0].files)


@pytest.mark.parametrize("case", sorted(TIES_VOTER_NEIGHBOURS))
def test_rank_individual_ties_channels(tmp_path, case):
    argv = ["rank", "data.csv", "--privacy", "individual", "--epsilon", "1", "--max-per-user", 4]
    argv += ["--model", "davidson", "--items", "items.csv", "--intervals", "0.9"]
    argv += ["--out", "ranking.csv", "--audit-record", "audit.json", "--ledger", "l.json"]
    runs = _game(tmp_path, case, TIES_VOTER_NEIGHBOURS[case], argv)
    assert {r.exit_status for r in runs} == {0}, runs[0].stderr
    ranking = pd.read_csv(tmp_path / f"{case}-0-0" / "ranking.csv")
    assert sorted(ranking["item"]) == ITEMS  # g is ranked though nobody (or only u6) voted on it


def test_individual_ties_refused_without_declared_items(tmp_path):
    argv = ["rank", "data.csv", "--privacy", "individual", "--epsilon", "1", "--max-per-user", 4]
    argv += ["--model", "davidson", "--out", "r.csv"]
    runs = _game(tmp_path, "refused", TIES_VOTER_NEIGHBOURS["sole item"], argv)
    assert {r.exit_status for r in runs} == {2} and "--items" in runs[0].stderr
    assert runs[0].files == {}


def test_privatize_votes_with_ties_then_rank_local_channels(tmp_path):
    """Three-outcome randomized response of an arena file, then the local ties fit."""
    privatize = ["privatize", "data.csv", "--epsilon", "1", "--items", "items.csv"]
    privatize += ["--out", "released.csv", "--ledger", "l.json", "--audit-record", "a.json"]
    runs = _game(tmp_path, "privatize", TIES_EDGE_NEIGHBOURS["win-loss"], privatize)
    assert {r.exit_status for r in runs} == {0}, runs[0].stderr
    record = json.loads(runs[0].files["released.json"])
    assert record["mechanism"] == "rr3" and record["outcomes"] == 3
    rank = ["rank", "released.csv", "--privacy", "local", "--model", "davidson"]
    outs = []
    for side in (0, 1):
        for trial in range(TRIALS):
            folder = tmp_path / f"privatize-{side}-{trial}"
            outs.append(run_command([*rank, "--out", "ties.csv"], folder))
    for run in outs[1:]:
        assert channel_differences(outs[0], run) == []
    assert outs[0].exit_status == 0, outs[0].stderr
    ranked = json.loads((tmp_path / "privatize-0-0" / "ties.json").read_text())
    assert ranked["mechanism"] == "local_ties"
    assert ranked["local_release"].startswith("dprank privatize")
