"""The privacy-budget ledger: budget checks, composition, atomic concurrent updates, no raw data."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import multiprocessing
import os
import re
import stat
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dprank.data.comparisons import Comparisons
from dprank.data.inputs import comparisons_from_frame, read_comparisons
from dprank.ledger import (
    BudgetExceeded,
    Ledger,
    LedgerError,
    Release,
    canonical_content,
    compose,
    fingerprint,
    main_ledger,
)

EDGE = Release("rank", "edge_mle", "comparison", epsilon=1.0)

GAMES = pd.DataFrame(
    {
        "winner": ["item_alpha_7", "item_beta_8", "item_alpha_7", "item_gamma_9", "item_beta_8"],
        "loser": ["item_beta_8", "item_gamma_9", "item_gamma_9", "item_alpha_7", "item_alpha_7"],
        "user": ["user_bob_42", "user_bob_42", "user_carol_43", "user_carol_43", "user_dan_44"],
    }
)


def _table(frame=GAMES):
    return comparisons_from_frame(frame)


# --------------------------------------------------------------------------- the budget


def test_third_release_past_the_budget_is_refused_and_records_nothing(tmp_path):
    ledger = Ledger(tmp_path / "ledger.json")
    data = _table()
    for k in range(2):
        with ledger.release(data, EDGE, budget=2.5) as receipt:
            assert (receipt.spent_before, receipt.spent_after) == (float(k), float(k + 1))
    before = ledger.path.read_bytes()
    ran = False
    with pytest.raises(BudgetExceeded) as info:
        with ledger.release(data, EDGE, budget=2.5):
            ran = True
    assert not ran  # refused before the release is computed
    message = str(info.value)
    assert "spent epsilon 2.0" in message and "asks for 1.0" in message
    assert "would make 3.0" in message and "budget 2.5" in message
    assert os.fspath(ledger.path) in message
    assert (info.value.spent, info.value.requested, info.value.budget) == (2.0, 1.0, 2.5)
    assert ledger.path.read_bytes() == before
    (summary,) = ledger.summary()
    assert len(summary.releases) == 2
    assert summary.comparison.epsilon == 2.0
    text = main_ledger(ledger.path)
    assert "spent at the comparison level: epsilon 2.0, delta 0.0" in text
    assert text.count("edge_mle") == 2


def test_a_failed_release_records_nothing(tmp_path):
    ledger = Ledger(tmp_path / "ledger.json")
    with pytest.raises(RuntimeError):
        with ledger.release(_table(), EDGE, budget=5):
            raise RuntimeError("the output could not be written")
    assert not ledger.path.exists()  # not even an empty ledger
    ledger.record(_table(), EDGE)
    with pytest.raises(RuntimeError):
        with ledger.release(_table(), EDGE):
            raise RuntimeError("again")
    (summary,) = ledger.summary()
    assert len(summary.releases) == 1


def test_budget_refused_on_a_new_ledger_creates_no_file(tmp_path):
    ledger = Ledger(tmp_path / "ledger.json")
    big = Release("rank", "edge_mle", "comparison", epsilon=3.0)
    with pytest.raises(BudgetExceeded, match=re.escape("spent epsilon 0.0")):
        ledger.record(_table(), big, budget=2.5)
    assert not ledger.path.exists()


def test_budget_sums_are_exact_for_decimals(tmp_path):
    ledger = Ledger(tmp_path / "ledger.json")
    for eps in (0.1, 0.2):
        ledger.record(_table(), Release("rank", "edge_mle", "comparison", eps), budget=0.3)
    with pytest.raises(BudgetExceeded, match=re.escape("spent epsilon 0.3")):
        ledger.record(_table(), Release("rank", "edge_mle", "comparison", 1e-9), budget=0.3)


def test_each_data_set_has_its_own_budget(tmp_path):
    ledger = Ledger(tmp_path / "ledger.json")
    other = _table(GAMES.iloc[:4])
    ledger.record(_table(), EDGE, budget=1, name="games.csv")
    ledger.record(other, EDGE, budget=1, name="games-4.csv")
    with pytest.raises(BudgetExceeded):
        ledger.record(other, EDGE, budget=1)
    summaries = ledger.summary()
    assert [s.name for s in summaries] == ["games.csv", "games-4.csv"]
    assert [s.comparison.epsilon for s in summaries] == [1.0, 1.0]


def test_bad_budget_and_entry_are_named(tmp_path):
    ledger = Ledger(tmp_path / "ledger.json")
    for budget in (0, -1, float("nan"), float("inf"), "2"):
        with pytest.raises(ValueError, match="budget"):
            ledger.record(_table(), EDGE, budget=budget)
    with pytest.raises(TypeError, match="Release"):
        ledger.record(_table(), {"epsilon": 1})
    assert not ledger.path.exists()


@pytest.mark.parametrize(
    ("fields", "match"),
    [
        ({"privacy_unit": "none"}, "privacy_unit"),
        ({"epsilon": 0.0}, "epsilon"),
        ({"epsilon": float("nan")}, "epsilon"),
        ({"epsilon": float("inf")}, "epsilon"),
        ({"delta": 1.0}, "delta"),
        ({"delta": -0.1}, "delta"),
        ({"command": ""}, "command"),
        ({"bounds": {"max_per_user": 2.5}}, "max_per_user"),
        ({"bounds": {"max_per_user": 0}}, "max_per_user"),
        ({"bounds": {"max_per_user": "3"}}, "max_per_user"),
    ],
)
def test_release_validation(fields, match):
    args = {"command": "rank", "mechanism": "edge_mle", "privacy_unit": "comparison"}
    args["epsilon"] = 1.0
    args.update(fields)
    with pytest.raises(ValueError, match=match):
        Release(**args)


# --------------------------------------------------------------------------- composition


def _edge(eps, L=None, delta=0.0):
    bounds = {} if L is None else {"max_per_user": L}
    return Release("rank", "edge_mle", "comparison", eps, delta, bounds)


def _user(eps, delta=0.0):
    return Release("rank", "individual_counts", "user", eps, delta)


def test_composition_per_privacy_unit():
    releases = [_edge(1.0, L=3), _edge(0.5, L=2), _user(0.25)]
    comparison = compose(releases, "comparison")
    assert comparison.epsilon == 1.75  # a user-level release is also comparison-level DP
    assert compose(releases, "user").epsilon == 3 * 1.0 + 2 * 0.5 + 0.25  # group privacy
    unbounded = compose([*releases, _edge(0.1)], "user")
    assert unbounded.epsilon is None and unbounded.delta is None
    assert "unbounded" in unbounded.note and "max_per_user" in unbounded.note
    assert compose([*releases, _edge(0.1)], "comparison").epsilon == 1.85
    assert compose([], "user").epsilon == 0.0


def test_composition_of_delta():
    assert compose([_user(1.0, 1e-6), _edge(1.0, delta=1e-6)], "comparison").delta == 2e-6
    L, eps, delta = 3, 0.5, 1e-6
    got = compose([_edge(eps, L=L, delta=delta)], "user").delta
    assert got == pytest.approx(L * np.exp((L - 1) * eps) * delta, rel=1e-15)


def test_user_level_budget_counts_edge_releases_at_L_epsilon(tmp_path):
    ledger = Ledger(tmp_path / "ledger.json")
    data = _table()
    ledger.record(data, _edge(0.5, L=2))
    with ledger.release(data, _user(1.0), budget=2.0) as receipt:
        assert (receipt.spent_before, receipt.spent_after) == (1.0, 2.0)
    with pytest.raises(BudgetExceeded, match=re.escape("spent epsilon 2.0 at the user level")):
        ledger.record(data, _user(0.5), budget=2.0)
    # the comparison-level total counts both releases at face value: 1.5
    with pytest.raises(
        BudgetExceeded, match=re.escape("spent epsilon 1.5 at the comparison level")
    ):
        ledger.record(data, _edge(0.6, L=2), budget=2.0)


def test_user_level_budget_refused_when_an_edge_release_has_no_bound(tmp_path):
    ledger = Ledger(tmp_path / "ledger.json")
    ledger.record(_table(), _edge(0.1))
    with pytest.raises(BudgetExceeded, match="unbounded") as info:
        ledger.record(_table(), _user(0.1), budget=100)
    assert info.value.spent is None
    with ledger.release(_table(), _user(0.1)) as receipt:  # without a budget it is recorded
        pass
    assert "unbounded total at the user level" in receipt.describe()
    text = main_ledger(ledger.path)
    assert "spent at the user level: unbounded" in text


# --------------------------------------------------------------------------- concurrency


def _add_records(path, n, budget):
    ledger = Ledger(path)
    data = _table()
    kept = 0
    for _ in range(n):
        try:
            ledger.record(data, EDGE, budget=budget)
            kept += 1
        except BudgetExceeded:
            pass
    return kept


@pytest.mark.parametrize(("n", "budget", "expected"), [(10, None, 40), (5, 7, 7)])
def test_concurrent_processes_keep_every_record(tmp_path, n, budget, expected):
    path = tmp_path / "ledger.json"
    with multiprocessing.get_context("spawn").Pool(4) as pool:
        kept = pool.starmap(_add_records, [(path, n, budget)] * 4)
    assert sum(kept) == expected
    (summary,) = Ledger(path).summary()
    assert len(summary.releases) == expected
    assert summary.comparison.epsilon == float(expected)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ledger.json", "ledger.json.lock"]


# --------------------------------------------------------------------------- the file


def test_file_is_owner_only(tmp_path):
    old = os.umask(0)
    try:
        ledger = Ledger(tmp_path / "ledger.json")
        ledger.record(_table(), EDGE)
        ledger.record(_table(), EDGE)
    finally:
        os.umask(old)
    for path in (ledger.path, tmp_path / "ledger.json.lock"):
        assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_file_holds_no_raw_data_file_hash_or_seed(tmp_path):
    csv = tmp_path / "games.csv"
    GAMES.to_csv(csv, index=False)
    table = read_comparisons(csv, need_users=True)
    ledger = Ledger(tmp_path / "ledger.json")
    entry = Release("rank", "individual_counts", "user", 1.0, bounds={"max_per_user": 2})
    ledger.record(table, entry)
    text = ledger.path.read_text()
    for label in [*GAMES["winner"], *GAMES["user"], "item_", "user_"]:
        assert label not in text
    content = canonical_content(table)
    for digest in (table.sha256, hashlib.sha256(csv.read_bytes()).hexdigest()):
        assert digest not in text
    assert hashlib.sha256(content).hexdigest() not in text
    state = json.loads(text)
    assert set(state) == {"format", "version", "ledger_id", "records"}
    created, record = state["records"]
    assert created["type"] == "created"
    assert set(record) == {
        "seq",
        "prev",
        "mac",
        "type",
        "dataset",
        "name",
        "time",
        "command",
        "mechanism",
        "privacy_unit",
        "epsilon",
        "delta",
        "bounds",
    }
    assert record["time"].endswith("Z")
    assert "seed" not in text
    assert record["dataset"] == ledger.fingerprint(table)
    assert ledger.key.hex() not in text  # the key lives in the key file
    assert record["dataset"] == fingerprint(table, ledger.key)


@pytest.mark.parametrize(
    ("content", "match"),
    [
        ("not json at all", "not valid JSON"),
        ('{"format": "dprank-ledger", "version": 1, "key": ', "not valid JSON"),
        ('{"records": []}', "not a dprank ledger"),
        ("[1, 2]", "not a dprank ledger"),
        ('{"format": "dprank-ledger", "version": 9, "key": "", "datasets": {}}', "version 9"),
        ('{"format": "dprank-ledger", "version": 1, "key": "zz", "datasets": {}}', "key"),
        (
            '{"format": "dprank-ledger", "version": 1, "key": "' + "ab" * 32 + '", "datasets": {}}',
            "version-1 ledger.*--migrate",
        ),
        ('{"format": "dprank-ledger", "version": 2, "ledger_id": "x", "records": []}', "corrupted"),
        (
            '{"format": "dprank-ledger", "version": 2, "ledger_id": "x", "records": [{}]}',
            "its key is not in the key file",
        ),
    ],
)
def test_corrupted_or_foreign_file_is_named_and_left_alone(tmp_path, content, match):
    path = tmp_path / "ledger.json"
    path.write_text(content)
    ledger = Ledger(path)
    with pytest.raises(LedgerError, match=match) as info:
        ledger.summary()
    assert f"ledger {path}" in str(info.value)
    with pytest.raises(LedgerError, match=match):
        ledger.record(_table(), EDGE)
    assert path.read_text() == content


def test_missing_file_and_folder_are_named(tmp_path):
    with pytest.raises(LedgerError, match="no such file") as info:
        main_ledger(tmp_path / "none.json")
    assert os.fspath(tmp_path / "none.json") in str(info.value)
    with pytest.raises(LedgerError, match="does not exist"):
        Ledger(tmp_path / "no" / "ledger.json").record(_table(), EDGE)
    with pytest.raises(LedgerError, match="is a directory"):
        Ledger(tmp_path).summary()


# --------------------------------------------------------------------------- fingerprints


KEY = bytes(range(32))


def test_fingerprint_is_the_same_for_the_same_comparisons_in_any_form(tmp_path):
    reference = fingerprint(read_comparisons(_write(tmp_path, GAMES, "a.csv")), KEY)
    flipped = pd.DataFrame(
        {
            "item_a": GAMES["loser"],
            "item_b": GAMES["winner"],
            "outcome": 0,
            "user": GAMES["user"],
        }
    )
    repeated = pd.concat([GAMES.iloc[[0, 0]], GAMES.iloc[1:3]])
    counted = repeated.drop_duplicates().assign(count=[2, 1, 1])
    tests = {
        "shuffled": GAMES.sample(frac=1, random_state=3),
        "item_a,item_b,outcome": flipped,
        "extra column": GAMES.assign(note="x"),
    }
    for what, frame in tests.items():
        for name in ("b.csv", "b.tsv"):
            got = fingerprint(read_comparisons(_write(tmp_path, frame, name)), KEY)
            assert got == reference, (what, name)
    assert fingerprint(_table(repeated), KEY) == fingerprint(_table(counted), KEY)
    assert fingerprint(_table(repeated), KEY) != reference


def test_fingerprint_differs_for_changed_data_and_keys():
    reference = fingerprint(_table(), KEY)
    changed = {
        "row removed": GAMES.iloc[1:],
        "outcome reversed": GAMES.assign(winner=GAMES["loser"], loser=GAMES["winner"]),
        "item renamed": GAMES.replace("item_gamma_9", "item_delta"),
        "row repeated": pd.concat([GAMES, GAMES.iloc[:1]]),
    }
    for what, frame in changed.items():
        assert fingerprint(_table(frame), KEY) != reference, what
    assert fingerprint(_table(), bytes(32)) != reference


def test_fingerprint_of_comparisons_without_labels_uses_indices():
    c = Comparisons.from_winner_loser([0, 1], [1, 2])
    same = Comparisons(n_items=3, i=[2, 0], j=[1, 1], y=[0.0, 1.0], count=1)
    assert fingerprint(c, KEY) == fingerprint(same, KEY)
    # two items with one label cannot be built any more: Comparisons refuses them
    with pytest.raises(ValueError, match="repeats"):
        Comparisons.from_winner_loser([0, 1], [1, 2], labels=["a", "a", "b"])
    with pytest.raises(TypeError, match="Comparisons"):
        fingerprint([(0, 1)], KEY)


def test_fingerprint_does_not_depend_on_user_names_or_numbers():
    reference = fingerprint(_table(), KEY)
    renamed = {"user_bob_42": "zed", "user_carol_43": "amy", "user_dan_44": "7"}
    assert fingerprint(_table(GAMES.replace(renamed)), KEY) == reference
    c = _table().comparisons
    perm = np.array([2, 0, 1])  # the API caller's own user numbering
    renumbered = Comparisons(c.n_items, c.i, c.j, c.y, c.count, perm[c.user], c.labels)
    assert fingerprint(renumbered, KEY) == reference
    # what the mechanisms protect is the multiset of pairs and outcomes: the users are no part
    same = {
        "one user's comparisons": GAMES.assign(user=["user_bob_42"] * 5),
        "comparison moved to another user": GAMES.assign(
            user=["user_bob_42", "user_carol_43", "user_carol_43", "user_bob_42", "user_dan_44"]
        ),
        "no users": GAMES.drop(columns="user"),
    }
    for what, frame in same.items():
        assert fingerprint(_table(frame), KEY) == reference, what


def test_fingerprint_normalises_labels_as_the_reader(tmp_path):
    reference = fingerprint(_table(GAMES.drop(columns="user")), KEY)
    text = "winner,loser\n" + "".join(
        f"{w} ,{loser}  \n" for w, loser in zip(GAMES["winner"], GAMES["loser"], strict=True)
    )
    (tmp_path / "spaces.csv").write_text(text)
    assert fingerprint(read_comparisons(tmp_path / "spaces.csv"), KEY) == reference
    spaced = GAMES.assign(winner=GAMES["winner"] + " ")  # a frame: normalised in the content
    assert fingerprint(_table(spaced), KEY) == fingerprint(_table(GAMES), KEY)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 5), st.integers(0, 5), st.booleans(), st.integers(0, 2)),
        min_size=1,
        max_size=25,
    ).filter(lambda rows: all(a != b for a, b, _, _ in rows)),
    st.randoms(use_true_random=False),
)
def test_fingerprint_is_order_and_orientation_invariant(rows, rnd):
    labels = np.array([f"it{k}" for k in range(6)])

    def build(records):
        a, b, won, user = (np.array(col) for col in zip(*records, strict=True))
        frame = pd.DataFrame({"item_a": labels[a], "item_b": labels[b], "outcome": won.astype(int)})
        frame["user"] = [f"u{k}" for k in user]
        return comparisons_from_frame(frame)

    shuffled = [(b, a, not w, u) if rnd.random() < 0.5 else (a, b, w, u) for a, b, w, u in rows]
    rnd.shuffle(shuffled)
    assert fingerprint(build(rows), KEY) == fingerprint(build(shuffled), KEY)
    a, b, w, u = rows[0]
    changed = [(a, b, not w, u), *rows[1:]]  # one comparison's outcome reversed
    assert fingerprint(build(changed), KEY) != fingerprint(build(rows), KEY)


def _write(tmp_path, frame, name):
    path = tmp_path / name
    frame.to_csv(path, index=False, sep="\t" if name.endswith(".tsv") else ",")
    return path


def test_module_example_runs():
    import doctest

    import dprank.ledger

    result = doctest.testmod(dprank.ledger)
    assert result.attempted > 0 and result.failed == 0


def test_the_block_may_settle_delta_but_not_epsilon(tmp_path):
    ledger = Ledger(tmp_path / "ledger.json")
    with ledger.release(_table(), EDGE, name="games.csv") as receipt:
        receipt.entry = dataclasses.replace(receipt.entry, delta=1 / 9)
    (summary,) = ledger.summary()
    assert summary.releases[0].delta == 1 / 9
    before = ledger.path.read_bytes()
    with pytest.raises(ValueError, match="only its delta or bounds"):
        with ledger.release(_table(), EDGE, budget=2) as receipt:
            receipt.entry = dataclasses.replace(receipt.entry, epsilon=5.0)
    assert ledger.path.read_bytes() == before


def test_release_to_an_optional_ledger(tmp_path):
    from dprank.ledger import release_to

    with release_to(None, _table(), EDGE) as receipt:
        assert receipt is None
    with pytest.raises(ValueError, match="budget needs a ledger"):
        release_to(None, _table(), EDGE, budget=1.0)
    path = tmp_path / "ledger.json"
    with release_to(path, _table(), EDGE, budget=1.5) as receipt:
        pass
    assert receipt.describe().endswith(
        "spent epsilon 1.0 of the budget 1.5 at the comparison level"
    )
    with pytest.raises(BudgetExceeded):
        with release_to(Ledger(path), _table(), EDGE, budget=1.5):
            pass


def test_docs_example_prints_what_the_page_shows(tmp_path, monkeypatch, capsys):
    page = (Path(__file__).resolve().parents[1] / "docs" / "ledger.md").read_text()
    (code,) = re.findall(r"```python\n(.*?)```", page, flags=re.S)
    games, shown = re.findall(r"```text\n(.*?)```", page, flags=re.S)[:2]
    monkeypatch.chdir(tmp_path)
    (tmp_path / "games.csv").write_text(games)
    exec(compile(code, "ledger.md", "exec"), {})
    printed = capsys.readouterr().out

    def normal(text):
        text = re.sub(r"\b[0-9a-f]{12}\b", "FINGERPRINT", text)
        return re.sub(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", "TIME", text)

    assert normal(printed) == normal(shown)
