"""The comparison-file reader (dprank.data.inputs): blocks, Parquet, aggregation while reading."""

import json

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dprank.api import rank
from dprank.data.comparisons import Comparisons, PairSums, _aggregate, connected_components
from dprank.data.inputs import InputError, comparisons_from_frame, read_comparisons

EDGE_AND_NONE = [
    ("none", "mle", None, None),
    ("none", "counts", None, None),
    ("edge", "mle", 1.0, None),
    ("edge", "counts", 1.0, None),
    ("edge", "noisy_obj", 1.0, None),
]


def _games(rng, rows=3000, items=40):
    a = rng.integers(0, items, rows)
    b = (a + rng.integers(1, items, rows)) % items
    return a, b


def _same_pairs(c1: Comparisons, c2: Comparisons):
    p1, p2 = c1.pair_statistics(), c2.pair_statistics()
    assert c1.n_items == c2.n_items
    for name in ("a", "b", "n", "w"):
        np.testing.assert_array_equal(getattr(p1, name), getattr(p2, name))
    np.testing.assert_array_equal(c1.labels, c2.labels)


def test_aggregated_reading_gives_every_edge_and_nonprivate_method_the_same_result(tmp_path):
    rng = np.random.default_rng(3)
    a, b = _games(rng)
    count = rng.integers(1, 4, a.size)
    path = tmp_path / "g.csv"
    pd.DataFrame({"winner": a, "loser": b, "count": count}).to_csv(path, index=False)
    rows = read_comparisons(path, aggregate=False)
    summed = read_comparisons(path, block_size=1 << 12)
    assert summed.aggregated and not rows.aggregated
    assert summed.n_rows == rows.n_rows == a.size
    assert summed.comparisons.n_records < rows.comparisons.n_records
    assert summed.comparisons.n_comparisons == rows.comparisons.n_comparisons
    _same_pairs(rows.comparisons, summed.comparisons)
    # the cached statistics are those the records themselves aggregate to
    c = summed.comparisons
    again = _aggregate(c.n_items, c.i, c.j, c.y, c.count)
    np.testing.assert_array_equal(again.w, c.pair_statistics().w)
    # and they pass the constructor's checks, which from_pair_statistics skips
    checked = Comparisons(n_items=c.n_items, i=c.i, j=c.j, y=c.y, count=c.count, labels=c.labels)
    _same_pairs(checked, c)
    assert not c.i.flags.writeable and not c.count.flags.writeable
    for privacy, method, eps, top_k in EDGE_AND_NONE:
        kw = dict(privacy=privacy, method=method, epsilon=eps, top_k=top_k, rng=5)
        r1, r2 = rank(rows.comparisons, **kw), rank(summed.comparisons, **kw)
        np.testing.assert_array_equal(r1.scores, r2.scores, err_msg=method)
        np.testing.assert_array_equal(r1.ranks, r2.ranks)
    # the one-shot method needs a tournament: every pair once
    a, b = np.triu_indices(12, 1)
    swap = rng.random(a.size) < 0.4
    pd.DataFrame({"winner": np.where(swap, b, a), "loser": np.where(swap, a, b)}).to_csv(
        path, index=False
    )
    rows, summed = read_comparisons(path, aggregate=False), read_comparisons(path)
    assert summed.aggregated
    r1 = rank(rows.comparisons, privacy="edge", method="one_shot", epsilon=1.0, top_k=3, rng=5)
    r2 = rank(summed.comparisons, privacy="edge", method="one_shot", epsilon=1.0, top_k=3, rng=5)
    np.testing.assert_array_equal(r1.scores, r2.scores)


def test_blocks_give_the_same_comparisons_as_one_read(tmp_path):
    rng = np.random.default_rng(4)
    a, b = _games(rng, rows=2000, items=300)
    y = rng.integers(0, 2, a.size)
    labels = np.array([f"item {k}" for k in range(300)], dtype=object)
    path = tmp_path / "g.csv"
    frame = pd.DataFrame({"item_a": labels[a], "item_b": labels[b], "outcome": y, "user": a % 9})
    frame.to_csv(path, index=False)
    one = read_comparisons(path, need_users=True).comparisons
    many = read_comparisons(path, need_users=True, block_size=512).comparisons
    for name in ("i", "j", "y", "count", "user", "labels"):
        np.testing.assert_array_equal(getattr(one, name), getattr(many, name))
    framed = comparisons_from_frame(frame, need_users=True).comparisons
    for name in ("i", "j", "y", "user", "labels"):
        np.testing.assert_array_equal(getattr(one, name), getattr(framed, name))


def test_the_sha256_is_computed_only_where_asked_for(tmp_path):
    """``read_comparisons`` gives the sha256 of the bytes by default (the audit record's),
    and None with ``sha256=False`` (what ``dprank rank`` asks for without an audit record)."""
    import hashlib
    import io

    path = tmp_path / "g.csv"
    path.write_bytes(b"\xef\xbb\xbfwinner,loser\n1,2\n2,3\n3,1\n1,3\n")
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    assert read_comparisons(path).sha256 == digest
    assert read_comparisons(io.BytesIO(path.read_bytes())).sha256 == digest
    plain = read_comparisons(path, sha256=False)
    assert plain.sha256 is None
    _same_pairs(plain.comparisons, read_comparisons(path).comparisons)
    with pytest.raises(TypeError, match="sha256"):
        read_comparisons(path, sha256="no")


def test_integer_labels_then_text_in_a_later_block(tmp_path):
    lines = ["winner,loser"] + [f"{k + 1},{k}" for k in range(400)] + ["x,7", "007,7"]
    path = tmp_path / "g.csv"
    path.write_text("\n".join(lines) + "\n")
    one = read_comparisons(path, aggregate=False).comparisons
    many = read_comparisons(path, aggregate=False, block_size=256).comparisons
    # one text label: every label sorts as text, the integers keep their spelling
    assert one.labels.tolist() == sorted({s for ln in lines[1:] for s in ln.split(",")})
    for name in ("i", "j", "labels"):
        np.testing.assert_array_equal(getattr(one, name), getattr(many, name))


def test_parquet_equals_csv(tmp_path):
    rng = np.random.default_rng(5)
    a, b = _games(rng, rows=500, items=30)
    frame = pd.DataFrame({"Winner": a * 10, "loser": b * 10, "user": (a % 4).astype(str)})
    csv_path, pq_path = tmp_path / "g.csv", tmp_path / "g.parquet"
    frame.to_csv(csv_path, index=False)
    pq.write_table(pa.Table.from_pandas(frame), pq_path, row_group_size=128)
    c1 = read_comparisons(csv_path, need_users=True)
    c2 = read_comparisons(pq_path, need_users=True, block_size=100)
    for name in ("i", "j", "user", "labels"):
        np.testing.assert_array_equal(getattr(c1.comparisons, name), getattr(c2.comparisons, name))
    np.testing.assert_array_equal(c1.user_labels, c2.user_labels)
    _same_pairs(read_comparisons(csv_path).comparisons, read_comparisons(pq_path).comparisons)


def test_parquet_errors_name_the_row(tmp_path):
    path = tmp_path / "g.parquet"
    pq.write_table(pa.table({"winner": ["a", "b", None], "loser": ["b", "c", "a"]}), path)
    with pytest.raises(InputError, match=r"g.parquet, row 3, column 1 \(winner\): missing value"):
        read_comparisons(path)
    pq.write_table(pa.table({"winner": [1, 2], "loser": [2, 2]}), path)
    with pytest.raises(InputError, match=r"row 2, column 1 \(winner\): self-comparison"):
        read_comparisons(path)
    bad = tmp_path / "bad.parquet"
    bad.write_text("winner,loser\na,b\n")
    with pytest.raises(InputError, match="not a readable Parquet file"):
        read_comparisons(bad)


def test_repeated_header_column_is_refused(tmp_path):
    path = tmp_path / "g.csv"
    path.write_text("winner,loser,Winner\na,b,c\n")
    with pytest.raises(InputError, match=r"line 1: the header repeats the column\(s\) \['winner"):
        read_comparisons(path)
    path.write_text("winner,loser,note,note\na,b,x,y\n")  # ignored columns may repeat
    assert read_comparisons(path).n_rows == 1


def test_errors_in_a_later_block_name_their_line(tmp_path):
    lines = ["winner,loser"] + [f"a{k},b{k}" for k in range(300)] + ["c,", "d,"]
    lines += [f"e{k},f{k}" for k in range(300)]
    path = tmp_path / "g.csv"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(InputError, match=r"line 302, column 2 \(loser\): missing value") as one:
        read_comparisons(path)
    assert "1 more such row, line 303)" in str(one.value)
    with pytest.raises(InputError, match=r"line 302, column 2 \(loser\): missing value") as many:
        read_comparisons(path, block_size=256)
    assert "up to line" in str(many.value)


def test_blank_line_spaces_and_non_numbers(tmp_path):
    path = tmp_path / "g.csv"
    path.write_text("winner, loser, count\na, b, 2\n\nb, c, 1\n")
    with pytest.raises(InputError, match=r"line 3, column 1 \(winner\): missing value"):
        read_comparisons(path)
    path.write_text("winner, loser, count\na, b, 2\nb, c, 1\n")
    c = read_comparisons(path, aggregate=False).comparisons
    assert c.labels.tolist() == ["a", "b", "c"] and c.count.tolist() == [2.0, 1.0]
    path.write_text("winner,loser,count\na,b,2\nb,c,two\n")
    with pytest.raises(InputError, match=r"line 3, column 3 \(count\): 'count' must be a number"):
        read_comparisons(path)
    path.write_bytes(b"winner,loser\na,\xff\n")
    with pytest.raises(InputError, match="not a UTF-8 text file"):
        read_comparisons(path)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 12), st.integers(0, 12), st.booleans(), st.integers(1, 3)),
        min_size=1,
        max_size=80,
    ),
    st.integers(1, 30),
)
def test_pair_sums_over_blocks_equal_one_aggregation(records, block):
    records = [(i, j, y, c) for i, j, y, c in records if i != j]
    if not records:
        return
    i, j, y, c = (np.array(x) for x in zip(*records, strict=True))
    y = y.astype(float)
    sums, unit = PairSums(), PairSums()
    for s in range(0, i.size, block):
        sums.add(i[s : s + block], j[s : s + block], y[s : s + block], c[s : s + block])
        unit.add(i[s : s + block], j[s : s + block], y[s : s + block])
    n = 13
    expected = _aggregate(n, i, j, y, c.astype(float))
    got = sums.result(np.arange(n), n)
    for name in ("a", "b", "n", "w"):
        np.testing.assert_array_equal(getattr(got, name), getattr(expected, name))
    expected = _aggregate(n, i, j, y, np.ones(i.size))
    perm = np.random.default_rng(len(records)).permutation(n)  # renumbered items
    got = unit.result(np.argsort(perm), n)
    ref = _aggregate(n, np.argsort(perm)[i], np.argsort(perm)[j], y, np.ones(i.size))
    for name in ("a", "b", "n", "w"):
        np.testing.assert_array_equal(getattr(got, name), getattr(ref, name))
    assert got.n.sum() == expected.n.sum()


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 15), st.integers(0, 15)), max_size=40))
def test_connected_components_match_a_breadth_first_search(edges):
    """The compiled union-find against a plain search; components numbered by their
    smallest node, as scipy numbers them."""
    n = 16
    a = np.array([e[0] for e in edges], dtype=np.int64)
    b = np.array([e[1] for e in edges], dtype=np.int64)
    k, labels = connected_components(n, a, b)
    labels = labels.tolist()
    assert sorted(set(labels)) == list(range(k))
    smallest = [labels.index(x) for x in range(k)]  # each component's smallest node
    assert smallest == sorted(smallest)
    neighbours = {v: set() for v in range(n)}
    for u, v in edges:
        neighbours[u].add(v)
        neighbours[v].add(u)
    seen, count = {}, 0
    for v in range(n):
        if v in seen:
            continue
        stack, seen[v] = [v], count
        while stack:
            for w in neighbours[stack.pop()]:
                if w not in seen:
                    seen[w] = count
                    stack.append(w)
        count += 1
    assert k == count
    for u in range(n):
        for v in range(n):
            assert (labels[u] == labels[v]) == (seen[u] == seen[v])


def test_connected_components_of_long_paths_and_scipy_agree():
    rng = np.random.default_rng(8)
    n = 5000
    order = rng.permutation(n)
    a, b = order[:-1], order[1:]  # one path through every node, in random order
    keep = rng.random(a.size) < 0.999  # cut in a few places
    k, labels = connected_components(n, a[keep], b[keep])
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components as scipy_components

    adj = coo_matrix((np.ones(int(keep.sum())), (a[keep], b[keep])), shape=(n, n))
    k_ref, labels_ref = scipy_components(adj, directed=False)
    assert k == k_ref == int((~keep).sum()) + 1
    np.testing.assert_array_equal(labels, labels_ref)


@pytest.mark.parametrize("privacy", ["none", "edge"])
def test_command_ranks_parquet_as_it_ranks_the_same_csv(privacy, tmp_path, capsys):
    from dprank.cli import main

    rng = np.random.default_rng(9)
    a, b = _games(rng, rows=4000, items=60)
    frame = pd.DataFrame({"winner": [f"p{k}" for k in a], "loser": [f"p{k}" for k in b]})
    frame.to_csv(tmp_path / "g.csv", index=False)
    pq.write_table(pa.Table.from_pandas(frame), tmp_path / "g.parquet", row_group_size=1000)
    outputs = []
    for name in ("g.csv", "g.parquet"):
        out = tmp_path / f"{name}.ranking.csv"
        argv = ["rank", str(tmp_path / name), "--privacy", privacy, "--insecure-seed", "3"]
        argv += ["--epsilon", "1"] if privacy == "edge" else []
        audit = tmp_path / f"{name}.audit.json"
        assert main([*argv, "--quiet", "--out", str(out), "--audit-record", str(audit)]) == 0
        outputs.append(out.read_bytes())
        record = json.loads(audit.read_text())
        assert record["input"]["rows"] == 4000 and record["n_comparisons"] == 4000
    assert outputs[0] == outputs[1]
    capsys.readouterr()
