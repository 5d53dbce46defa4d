"""Arena votes in (dprank.data.arena), leaderboards out (dprank.leaderboard, dprank rank)."""

import json
import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from dprank.cli import main
from dprank.data.arena import ArenaVotes, arena_frame, is_arena_file, read_arena
from dprank.data.inputs import InputError, read_comparisons
from dprank.leaderboard import ELO_PER_LOGIT, rank_upper_bound, tie_classes

MIRROR = Path(os.environ.get("DPRANK_DATA_MIRROR", "/nonexistent"))
SNAPSHOT = MIRROR / "chatbot_arena" / "chatbotarena_20240814.json"

BATTLES = """model_a,model_b,winner,judge,turn
gpt,claude,model_a,u1,1
claude,gpt,model_a,u2,1
gpt,llama,tie,u1,1
llama,claude,tie (bothbad),u3,2
gpt,llama,model_a,u2,1
claude,llama,model_b,u3,1
gpt,claude,tie,u4,1
llama,gpt,model_b,u4,1
"""


def _write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return path


def run(argv, capsys):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def _as_records(text):
    frame = pd.read_csv(pd.io.common.StringIO(text))
    return frame.to_dict(orient="records")


def test_every_form_of_the_same_votes_reads_alike(tmp_path):
    csv = _write(tmp_path, "b.csv", BATTLES)
    tsv = _write(tmp_path, "b.tsv", BATTLES.replace(",", "\t"))
    records = _as_records(BATTLES)
    jsonl = _write(tmp_path, "b.jsonl", "\n".join(json.dumps(r) for r in records) + "\n")
    array = _write(tmp_path, "b.json", json.dumps(records))
    forms = [read_arena(p) for p in (csv, tsv, jsonl, array)]
    for votes in forms:
        assert votes.models.tolist() == ["claude", "gpt", "llama"]
        assert votes.totals() == {"model_a": 3.0, "model_b": 2.0, "tie": 2.0, "tie (bothbad)": 1.0}
        assert votes.user_labels.tolist() == ["u1", "u2", "u3", "u4"]
        for field in ("a", "b", "wins_a", "wins_b", "ties", "both_bad", "user"):
            np.testing.assert_array_equal(getattr(votes, field), getattr(forms[0], field))
    assert all(is_arena_file(p) for p in (csv, tsv, jsonl, array))
    assert not is_arena_file(_write(tmp_path, "w.csv", "winner,loser\na,b\n"))


def test_pairs_are_oriented_and_the_both_bad_rule_switches(tmp_path):
    votes = read_arena(_write(tmp_path, "b.csv", BATTLES))
    # claude (0) vs gpt (1): one win each (one as model_a, one as model_b) and one tie
    k = np.flatnonzero((votes.a == 0) & (votes.b == 1))
    assert votes.wins_a[k].sum() == 1 and votes.wins_b[k].sum() == 1 and votes.ties[k].sum() == 1
    tie = votes.comparisons("tie").pair_statistics()
    drop = votes.comparisons("drop").pair_statistics()
    assert tie.n.sum() == 8 and drop.n.sum() == 7  # the both-bad vote is a tie or gone
    assert tie.t.sum() == 3 and drop.t.sum() == 2
    with pytest.raises(ValueError, match="both_bad"):
        votes.comparisons("half")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (BATTLES.replace("model_b,u3,1", "claude,u3,1"), "line 7.*winner must be model_a"),
        (BATTLES.replace("gpt,llama,tie,u1", "gpt,,tie,u1"), "line 4.*missing value"),
        (BATTLES.replace("llama,gpt,model_b", "gpt,gpt,model_b"), "line 9.*self-comparison"),
        ("model_a,winner\nx,model_a\n", "lacks \\['model_b'\\]"),
    ],
)
def test_a_bad_battle_file_names_the_line(tmp_path, text, message):
    path = _write(tmp_path, "bad.csv", text)
    with pytest.raises(InputError, match=message):
        read_arena(path)


def test_count_tables_are_checked(tmp_path):
    good = {"models": ["a", "b", "c"], "X": [[0, 1], [2, 1]], "Y": [[3, 1, 2, 0], [1, 1, 0, 4]]}
    votes = read_arena(_write(tmp_path, "t.json", json.dumps(good)))
    assert votes.layout == "count table" and votes.totals()["tie (bothbad)"] == 4
    # pair [2, 1] is stored oriented (1, 2) with its counts swapped
    k = np.flatnonzero((votes.a == 1) & (votes.b == 2))[0]
    assert (votes.wins_a[k], votes.wins_b[k]) == (1.0, 1.0)
    for bad, message in (
        ({**good, "Y": [[3, 1, 2, 0]]}, "one row of 3 or 4 counts"),
        ({**good, "X": [[0, 0], [2, 1]]}, "pair 1.*not two different"),
        ({**good, "Y": [[3, -1, 2, 0], [1, 1, 0, 4]]}, "non-negative whole"),
        ({"models": ["a"]}, "no 'X'"),
    ):
        with pytest.raises(InputError, match=message):
            read_arena(_write(tmp_path, "bad.json", json.dumps(bad)))
    with pytest.raises(InputError, match="no voters"):
        read_arena(_write(tmp_path, "t.json", json.dumps(good)), need_users=True)


def test_the_export_round_trips_the_four_outcomes(tmp_path):
    votes = read_arena(_write(tmp_path, "b.csv", BATTLES))
    frame = arena_frame(votes)
    assert list(frame.columns) == ["model_a", "model_b", "winner", "judge", "count"]
    path = tmp_path / "again.csv"
    frame.to_csv(path, index=False)
    again = read_arena(path)
    for field in ("a", "b", "wins_a", "wins_b", "ties", "both_bad", "user"):
        np.testing.assert_array_equal(getattr(again, field), getattr(votes, field))
    one_per_vote = arena_frame(votes, counts=False)
    assert len(one_per_vote) == 8 and "count" not in one_per_vote


def test_the_reader_dispatches_arena_files(tmp_path):
    table = read_comparisons(_write(tmp_path, "b.csv", BATTLES), need_users=True)
    c = table.comparisons
    assert c.ties and c.n_items == 3 and c.n_users == 4 and table.layout.startswith("model_a")
    assert read_comparisons(tmp_path / "b.csv", both_bad="drop").comparisons.n_comparisons == 7


def test_leaderboard_columns_on_a_hand_example():
    lo = np.array([1.0, 0.5, -1.0, -3.0])
    hi = np.array([2.0, 1.5, 0.8, -1.5])
    score = (lo + hi) / 2
    # model 3's interval lies below all others: rank UB 1 + 3; model 2 is below model 0 only
    assert rank_upper_bound(lo, hi).tolist() == [1, 1, 2, 4]
    assert tie_classes(score, lo, hi).tolist() == [1, 1, 2, 3]


def _arena_file(tmp_path, n=6, votes_per_pair=40, seed=0, judges=None):
    from dprank.objective import DAVIDSON

    rng = np.random.default_rng(seed)
    theta = np.linspace(1.5, -1.5, n)
    rows = []
    for a in range(n):
        for b in range(a + 1, n):
            pa, pt, pb = DAVIDSON.probabilities(np.array([theta[a] - theta[b]]), -0.5)
            draws = rng.choice(3, size=votes_per_pair, p=[pa[0], pt[0], pb[0]])
            for k, o in enumerate(draws):
                judge = f"v{(a * n + b + k) % judges}" if judges else None
                rows.append((f"m{a}", f"m{b}", ("model_a", "tie", "model_b")[o], judge))
    frame = pd.DataFrame(rows, columns=["model_a", "model_b", "winner", "judge"])
    if not judges:
        frame = frame.drop(columns="judge")
    path = tmp_path / "arena.csv"
    frame.to_csv(path, index=False)
    return path


def test_rank_writes_a_leaderboard_on_the_elo_scale(tmp_path, capsys):
    path = _arena_file(tmp_path)
    out = tmp_path / "lb.csv"
    argv = ["rank", path, "--privacy", "edge", "--epsilon", 2, "--model", "davidson"]
    argv += ["--scale", "elo", "--anchor", "m3=1000", "--intervals", 0.9, "--insecure-seed", 4]
    code, _, err = run([*argv, "--out", out], capsys)
    assert code == 0, err
    frame = pd.read_csv(out)
    assert list(frame.columns) == [
        "item", "score", "rank", "score_lo", "score_hi", "rank_lo", "rank_hi", "rank_ub",
        "tie_class", "votes",
    ]  # fmt: skip
    assert frame.loc[frame["item"] == "m3", "score"].item() == pytest.approx(1000.0)
    assert frame["item"].tolist()[:2] == ["m0", "m1"]
    assert (frame["votes"] == 200).all()  # public under edge DP: 5 opponents x 40 votes
    assert (frame["rank_ub"] <= frame["rank"]).all()
    # one logit is 400/ln(10) points: the spread of the true scores, 3 logits, is ~521 points
    spread = frame["score"].max() - frame["score"].min()
    assert 0.6 * 3 * ELO_PER_LOGIT < spread < 1.4 * 3 * ELO_PER_LOGIT
    record = json.loads(out.with_suffix(".json").read_text())
    assert record["mechanism"] == "edge_ties" and record["model"] == "davidson"
    assert record["scale"]["anchor"] == {"model": "m3", "value": 1000.0}
    again = tmp_path / "again.csv"
    assert run([*argv, "--out", again], capsys)[0] == 0
    assert again.read_bytes() == out.read_bytes()  # the seed reproduces noise and bootstrap
    code, _, err = run([*argv[:-6], "--anchor", "nobody=1000", "--scale", "elo"], capsys)
    assert code == 2 and "no model named 'nobody'" in err


def test_the_html_page_is_self_contained_and_says_what_is_private(tmp_path, capsys):
    path = _arena_file(tmp_path)
    page = tmp_path / "lb.html"
    argv = ["rank", path, "--privacy", "edge", "--epsilon", 1, "--model", "davidson"]
    code, _, err = run([*argv, "--html", page, "--out", tmp_path / "lb.csv"], capsys)
    assert code == 0, err
    text = page.read_text()
    assert "http://" not in text and "https://" not in text and "<link" not in text
    assert "Differential privacy for each vote, epsilon = 1" in text
    assert text.count("<svg") == 6 and 'id="leaderboard"' in text
    code, _, err = run([*argv, "--html", "-"], capsys)
    assert code == 2 and "--html needs a file name" in err


def test_voter_level_and_local_releases_of_votes_with_ties(tmp_path, capsys):
    path = _arena_file(tmp_path, judges=50)
    items = tmp_path / "items.csv"
    items.write_text("item\n" + "".join(f"m{k}\n" for k in range(6)))
    out = tmp_path / "v.csv"
    argv = ["rank", path, "--privacy", "individual", "--epsilon", 2, "--max-per-user", 20]
    argv += ["--model", "davidson", "--intervals", 0.9, "--out", out]
    code, _, err = run(argv, capsys)
    assert code == 2 and "--items" in err  # the items are declared, as for every method
    code, _, err = run([*argv, "--items", items], capsys)
    assert code == 0, err
    frame = pd.read_csv(out)
    assert (
        "votes" in frame
        and json.loads(out.with_suffix(".json").read_text())["mechanism"] == "individual_ties"
    )
    released = tmp_path / "released.csv"
    argv = ["privatize", path, "--epsilon", 3, "--items", items, "--out", released]
    code, _, err = run(argv, capsys)
    assert code == 0, err
    rel = pd.read_csv(released)
    assert list(rel.columns) == ["model_a", "model_b", "winner", "judge", "count", "epsilon"]
    assert set(rel["winner"]) <= {"model_a", "model_b", "tie"}
    assert (rel["model_a"] < rel["model_b"]).all()  # oriented: the order tells nothing
    record = json.loads(released.with_suffix(".json").read_text())
    assert record["mechanism"] == "rr3" and record["outcomes"] == 3
    local = tmp_path / "l.csv"
    rank = ["rank", released, "--privacy", "local", "--out", local]
    code, _, err = run(rank, capsys)  # a two-outcome method on votes with ties
    assert code == 2 and "'rr3' release" in err and "--model davidson" in err
    code, _, err = run([*rank, "--model", "davidson"], capsys)
    assert code == 0, err
    assert json.loads(local.with_suffix(".json").read_text())["mechanism"] == "local_ties"
    assert pd.read_csv(local)["item"].tolist()[0] in ("m0", "m1")
    code, _, err = run(["privatize", path, "--epsilon", 3, "--items", items, "--mechanism",
                        "laplace", "--out", tmp_path / "lap.csv"], capsys)  # fmt: skip
    assert code == 2 and "three-outcome randomized response" in err
    released.with_suffix(".json").unlink()  # no release record: not a local release
    code, _, err = run([*rank, "--model", "davidson"], capsys)
    assert code == 2 and "was not written by dprank privatize" in err


def test_two_outcome_methods_refuse_votes_with_ties(tmp_path, capsys):
    path = _arena_file(tmp_path)
    code, _, err = run(["rank", path, "--privacy", "edge", "--epsilon", 1], capsys)
    assert code == 2 and "votes with ties" in err and "--model davidson" in err
    code, _, err = run(["rank", path, "--privacy", "none", "--out", tmp_path / "h.csv"], capsys)
    assert code == 0, err  # non-private Bradley-Terry: ties count as half wins


@pytest.mark.skipif(not SNAPSHOT.is_file(), reason="the arena snapshot needs DPRANK_DATA_MIRROR")
def test_the_snapshot_exports_and_ranks(tmp_path, capsys):
    out = tmp_path / "arena.csv"
    code, _, err = run(["datasets", "export", "chatbot_arena", "--out", out], capsys)
    assert code == 0, err
    votes = read_arena(out)
    assert votes.n_models == 129 and votes.a.size == 3460
    assert votes.totals() == {
        "model_a": 595570.0, "model_b": 498305.0, "tie": 281121.0, "tie (bothbad)": 295254.0
    }  # fmt: skip
    same = read_arena(SNAPSHOT)
    np.testing.assert_array_equal(votes.both_bad, same.both_bad)
    lb = tmp_path / "lb.csv"
    code, _, err = run(["rank", out, "--privacy", "none", "--model", "davidson", "--out", lb],
                       capsys)  # fmt: skip
    assert code == 0, err
    assert pd.read_csv(lb)["item"].iloc[0] == "chatgpt-4o-latest"


def test_arena_votes_default_to_no_users():
    votes = ArenaVotes(
        np.array(["a", "b"]), np.array([0]), np.array([1]), *(np.ones(1) for _ in range(4))
    )
    assert votes.user is None and votes.comparisons().user is None


def test_arena_inputs_from_streams_and_every_format(tmp_path):
    """The one-pass reader of dprank.data.inputs hands arena inputs to dprank.data.arena: a stream
    (standard input, a pipe) reads as the file does, CSV, TSV, Parquet, JSON lines, a JSON
    array and a count table alike, and the sha256 is that of the bytes read."""
    import hashlib
    import io

    import pyarrow as pa
    import pyarrow.parquet as pq

    from dprank.data.inputs import file_sha256

    records = _as_records(BATTLES)
    forms = {
        "b.csv": BATTLES.encode(),
        "b.tsv": BATTLES.replace(",", "\t").encode(),
        "b.jsonl": ("\n".join(json.dumps(r) for r in records) + "\n").encode(),
        "b.json": json.dumps(records).encode(),
    }
    parquet = tmp_path / "b.parquet"
    pq.write_table(pa.Table.from_pylist(records), parquet)
    forms["b.parquet"] = parquet.read_bytes()
    reference = read_comparisons(_write(tmp_path, "ref.csv", BATTLES), need_users=True)
    ref_stats = reference.comparisons.pair_statistics()
    for name, data in forms.items():
        path = tmp_path / name
        path.write_bytes(data)
        fmt = {"b.tsv": "tsv", "b.parquet": "parquet"}.get(name)
        for source in (path, io.BytesIO(data)):
            table = read_comparisons(source, need_users=True, format=fmt)
            c = table.comparisons
            assert c.ties and c.labels.tolist() == ["claude", "gpt", "llama"], name
            assert table.user_labels.tolist() == ["u1", "u2", "u3", "u4"], name
            stats = c.pair_statistics()
            for field in ("a", "b", "n", "w", "t"):
                np.testing.assert_array_equal(getattr(stats, field), getattr(ref_stats, field))
            assert table.sha256 == hashlib.sha256(data).hexdigest() == file_sha256(path)
    table = {"models": ["a", "b"], "X": [[0, 1]], "Y": [[3, 1, 2, 1]]}
    text = json.dumps(table, indent=1).encode()  # a JSON document over several lines
    got = read_comparisons(io.BytesIO(text), both_bad="drop").comparisons
    assert got.ties and got.n_comparisons == 6


def test_arena_names_are_read_in_the_readers_normal_form(tmp_path):
    """Model and voter names: NFC, surrounding spaces dropped, the spreadsheet escape of the
    command's outputs undone (dprank.data.inputs.normalize_label), as for every input."""
    text = (
        "model_a,model_b,winner,judge\n"
        " Zoe\u0308 ,'=cmd,model_a, u1\n"
        "Zo\u00eb,=cmd,tie,u1 \n"
        "'=cmd,Zo\u00eb,model_b,u2\n"
    )
    votes = read_arena(_write(tmp_path, "n.csv", text))
    assert votes.models.tolist() == ["=cmd", "Zo\u00eb"]
    assert votes.user_labels.tolist() == ["u1", "u2"]
    # one pair: Zoë (the pair's second model) won twice, one tie
    assert set(votes.a.tolist()) == {0} and set(votes.b.tolist()) == {1}
    assert votes.totals() == {"model_a": 0.0, "model_b": 2.0, "tie": 1.0, "tie (bothbad)": 0.0}
    blank = "model_a,model_b,winner\n  ,b,model_a\n"
    with pytest.raises(InputError, match=r"line 2.*missing value in field 'model_a'"):
        read_arena(_write(tmp_path, "blank.csv", blank))


def test_rank_reads_an_arena_file_from_standard_input(tmp_path):
    import subprocess
    import sys

    path = _arena_file(tmp_path)
    argv = [sys.executable, "-m", "dprank", "rank", "-", "--privacy", "edge", "--epsilon", "1"]
    argv += ["--model", "davidson", "--insecure-seed", "1", "--out", "-", "--quiet"]
    got = subprocess.run(argv, input=path.read_bytes(), capture_output=True, check=False)
    assert got.returncode == 0, got.stderr.decode()
    frame = pd.read_csv(pd.io.common.StringIO(got.stdout.decode()))
    assert sorted(frame["item"]) == [f"m{k}" for k in range(6)]
    same = tmp_path / "file.csv"
    code = main(["rank", str(path), "--privacy", "edge", "--epsilon", "1", "--model", "davidson",
                 "--insecure-seed", "1", "--out", str(same), "--quiet"])  # fmt: skip
    assert code == 0 and same.read_text() == got.stdout.decode()
