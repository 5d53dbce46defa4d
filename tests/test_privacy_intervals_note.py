"""The DP game on ``dprank rank --intervals``' note under individual DP (issue 46).

Where the undeclared range of the users' totals is what widens the intervals, the command
says so on standard error, with numbers (the totals the intervals hold for, how many items
the largest total alone would locate). That note must be a function of the release and the
declared bounds only. The game: a user file and its neighbour, one user's comparisons
changed (other pairs, other winners) or cut from the declared ``--max-per-user`` to one,
runs on each with the operating system's randomness (release and intervals), and the
privacy harness's battery of channel distinguishers: exit status, standard output and
error with their numbers masked and unmasked, the words of standard error, the public
files (the CSV's columns and rows, the record) with numbers masked. The note must be
triggered on both sides, and no distinguisher may bound epsilon above the claim.

The control: the same game with a leaky note (it names the data's number of comparisons,
the private fact the totals stand in for) must fail; the trials are chosen so that the
battery has that power at the claim (28 runs a side, 14 of them counted: a distinguisher
that is always right bounds epsilon at 0.70 > 0.5 with the battery's Bonferroni split).

The intervals' Monte Carlo size (the rank calibration's simulated worlds) is cut for speed
and the fast form (``--intervals-method asymptotic``) is taken: neither changes which inputs
the note reads.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from dprank.audit import _harness_paths as hp
from dprank.audit import harness

N, USERS, L, EPS, TRIALS = 6, 1200, 3, 0.5, 28
#: the channel distinguishers (the value ones are played by tests/test_privacy_harness.py)
BATTERY = [
    "exit_status",
    "stdout",
    "stderr",
    "public_files",
    "stdout_unmasked",
    "stderr_unmasked",
    "stderr_words",
]
OPTIONS = {
    "privacy": "individual",
    "method": "mle",
    "max_per_user": L,
    "intervals": 0.95,
    "intervals_method": "asymptotic",
    "unmasked_channels": True,
}
NOTE = "--min-per-user K"  # the wording of the undeclared users' reason


def _neighbours(eps):
    """Users 1..1199 compare one pair each (a cycle over the pairs, the lower index winning
    85% of the time, fixed); user 0 compares ``0 beats 1`` L times in ``D0``."""
    rng = np.random.default_rng(46)
    pairs = list(itertools.combinations(range(N), 2))
    others = []
    for k in range(USERS - 1):
        a, b = pairs[k % len(pairs)]
        others.append((a, b) if rng.random() < 0.85 else (b, a))
    users = np.arange(1, USERS)

    def data(target):
        return hp._comparisons(N, [*target, *others], np.r_[np.zeros(len(target)), users])

    known = hp._comparisons(N, others, users - 1)
    t0 = ((0, 1),) * L
    changed = tuple((N - 1, N - 2 - k) for k in range(L))  # other pairs, other winners
    cut = ((N - 1, 0),)  # one comparison left, within the declared bound
    return [
        harness.Neighbours("user 0 changed", data(t0), data(changed), t0, changed, known),
        harness.Neighbours("user 0 cut to one", data(t0), data(cut), t0, cut, known),
    ]


def _path(neighbours=_neighbours):
    return harness.ReleasePath(
        f"rank --privacy individual --method mle --max-per-user {L} --intervals 0.95",
        "mle_individual",
        "individual DP: one user's comparisons changed or cut; items, L, users public",
        neighbours,
        hp._method_claim(OPTIONS),
        hp._rank_command(OPTIONS),
        None,
        options=OPTIONS,
    )


@pytest.fixture
def quick_intervals(monkeypatch):
    from dprank.intervals import _interval_ranks

    monkeypatch.setattr(_interval_ranks, "CALIBRATION_ITEM_WORLDS", 50)


def test_the_note_is_a_function_of_the_release(quick_intervals):
    """The game on both neighbour pairs: the note is printed, no distinguisher finds a leak."""
    results = harness.play(
        _path(), EPS, TRIALS, np.random.default_rng(0), via="command", source="system",
        distinguishers=BATTERY,
    )  # fmt: skip
    assert len(results) == 2
    for res in results:
        assert {r["distinguisher"] for r in res.results} == set(BATTERY)
        assert res.holds, (res.neighbours, res.failures)


def test_the_note_is_triggered_on_both_sides(quick_intervals):
    """The game above plays the note it is about: the reason is printed on both sides."""
    for nb in _neighbours(EPS):
        game = harness.Game(_path(), EPS, nb, "command")
        for data in (nb.d0, nb.d1):
            runs = hp.game_runs(game, data, 6, harness.NoiseSource.system())
            texts = [o.channel.stderr.decode() for o in runs]
            assert sum(NOTE in t for t in texts) >= 3, (nb.name, texts)  # about 39 in 40
            assert {o.channel.exit_status for o in runs} == {0}
            assert all(f"to {USERS * L} comparisons" in t for t in texts if NOTE in t)


def test_the_game_finds_a_note_that_names_a_private_fact(quick_intervals, monkeypatch):
    """The control: a note that also names the data's number of comparisons is caught (by
    the unmasked text; masked, the number is hidden), so the game above has power."""
    from dprank.cli import _rank

    seen = {}
    original_with, original_why = _rank._with_intervals, _rank._undeclared_users

    def with_intervals(args, ranking, frame, name):
        seen["n"] = ranking.n_comparisons  # private: the data owner's audit record only
        return original_with(args, ranking, frame, name)

    def leaky(iv, not_located):
        why = original_why(iv, not_located) or "the release is vague"
        return f"{why} (the data hold {seen['n']} comparisons)"

    monkeypatch.setattr(_rank, "_with_intervals", with_intervals)
    monkeypatch.setattr(_rank, "_undeclared_users", leaky)
    cut = [nb for nb in _neighbours(EPS) if nb.name == "user 0 cut to one"]
    (res,) = harness.play(
        _path(lambda eps: cut), EPS, TRIALS, np.random.default_rng(1), via="command",
        source="system", distinguishers=BATTERY,
    )  # fmt: skip
    failed = {r["distinguisher"] for r in res.failures}
    assert {"stderr_unmasked", "stderr_words"} & failed, res.results
    assert not {"stderr", "exit_status"} & failed  # masked, the leaked number is hidden
