"""Inputs from streams, and one normal form of labels for every reader.

Standard input (``dprank rank -``), ``/dev/stdin``, a process substitution
``<(...)`` and a FIFO are read once, as streams, and give what the same bytes
give from a file (the format from ``--format`` where the bytes cannot tell).
Labels are normalised by :func:`dprank.data.inputs.normalize_label` (NFC, whitespace
stripped from both ends) in CSV, TSV, Parquet, JSON lines and data frames; a
UTF-8 byte-order mark and blank lines at the end are accepted.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import threading
import unicodedata
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dprank.api import rank
from dprank.data.inputs import InputError, comparisons_from_frame, normalize_label, read_comparisons

ROWS = [("a", "b"), ("b", "c"), ("c", "a"), ("a", "c"), ("b", "a")]


def _csv(rows=ROWS, sep=",") -> bytes:
    return ("winner" + sep + "loser\n" + "".join(f"{w}{sep}{x}\n" for w, x in rows)).encode()


def _summary(table):
    c = table.comparisons
    ps = c.pair_statistics()
    return (
        c.labels.tolist(),
        [getattr(ps, k).tolist() for k in ("a", "b", "n", "w")],
        table.n_rows,
    )


def _command(args, stdin=None, cwd=None):
    return subprocess.run(
        [sys.executable, "-m", "dprank", *args],
        input=stdin,
        capture_output=True,
        cwd=cwd,
        timeout=120,
    )


def test_standard_input_as_dash_and_dev_stdin_rank_as_the_file(tmp_path):
    path = tmp_path / "games.csv"
    path.write_bytes(_csv())
    ref = _command(["rank", str(path), "--privacy", "none", "--out", "-", "--quiet"])
    assert ref.returncode == 0, ref.stderr
    for source in ("-", "/dev/stdin"):
        got = _command(["rank", source, "--privacy", "none", "--out", "-", "--quiet"], _csv())
        assert got.returncode == 0, got.stderr.decode()
        assert got.stdout == ref.stdout


def test_a_process_substitution_ranks_as_the_file(tmp_path):
    path = tmp_path / "games.csv"
    path.write_bytes(_csv())
    ref = _command(["rank", str(path), "--privacy", "none", "--out", "-", "--quiet"])
    script = f'"{sys.executable}" -m dprank rank <(cat "{path}") --privacy none --out - --quiet'
    got = subprocess.run(["bash", "-c", script], capture_output=True, timeout=120)
    assert got.returncode == 0, got.stderr.decode()
    assert got.stdout == ref.stdout


def test_a_fifo_is_read_once_as_a_stream(tmp_path):
    fifo = tmp_path / "games.fifo"
    os.mkfifo(fifo)
    data = _csv()

    def write():
        with open(fifo, "wb") as fh:
            fh.write(data)

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    code = (
        "from dprank.data.inputs import read_comparisons; "
        f"t = read_comparisons({str(fifo)!r}); print(t.n_rows, t.sha256)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    writer.join(timeout=10)
    assert out.returncode == 0, out.stderr
    import hashlib

    assert out.stdout.split() == [str(len(ROWS)), hashlib.sha256(data).hexdigest()]


def test_a_stream_gives_the_files_comparisons_and_hash(tmp_path):
    path = tmp_path / "games.csv"
    path.write_bytes(_csv())
    from_file = read_comparisons(path)
    from_stream = read_comparisons(io.BytesIO(_csv()))
    assert _summary(from_stream) == _summary(from_file)
    assert from_stream.sha256 == from_file.sha256
    with pytest.raises(InputError, match=r"^standard input, line 1: the file is empty"):
        read_comparisons(io.BytesIO(b""))


def test_parquet_and_json_lines_on_standard_input(tmp_path):
    frame = pd.DataFrame(ROWS, columns=["winner", "loser"])
    pq = tmp_path / "g.parquet"
    frame.to_parquet(pq)
    ref = _summary(read_comparisons(tmp_path / "g.parquet"))
    # Parquet is told by its magic bytes; JSON lines by its first character or --format
    assert _summary(read_comparisons(io.BytesIO(pq.read_bytes()))) == ref
    lines = "".join(json.dumps({"winner": w, "loser": x}) + "\n" for w, x in ROWS).encode()
    assert _summary(read_comparisons(io.BytesIO(lines))) == ref
    assert _summary(read_comparisons(io.BytesIO(lines), format="jsonl")) == ref
    got = _command(
        ["rank", "-", "--format", "parquet", "--privacy", "none", "--out", "-", "--quiet"],
        pq.read_bytes(),
    )
    assert got.returncode == 0, got.stderr.decode()
    file_out = _command(["rank", str(pq), "--privacy", "none", "--out", "-", "--quiet"])
    assert got.stdout == file_out.stdout


def test_tsv_on_standard_input_by_its_header_or_format():
    ref = _summary(read_comparisons(io.BytesIO(_csv())))
    assert _summary(read_comparisons(io.BytesIO(_csv(sep="\t")))) == ref
    assert _summary(read_comparisons(io.BytesIO(_csv(sep="\t")), format="tsv")) == ref


def test_json_lines_values_and_errors(tmp_path):
    path = tmp_path / "g.jsonl"
    path.write_text(
        '{"item_a": 1, "item_b": "x", "outcome": true, "note": [1]}\n'
        '{"item_a": "x", "item_b": 2, "outcome": 0}\n'
    )
    c = read_comparisons(path, aggregate=False).comparisons
    assert c.labels.tolist() == ["1", "2", "x"] and c.y.tolist() == [1.0, 0.0]
    path.write_text('{"winner": "a", "loser": "b"}\n{"winner": "a"}\n')
    with pytest.raises(InputError, match=r"line 2, column 2 \(loser\): missing value"):
        read_comparisons(path)
    path.write_text('{"winner": "a", "loser": "b"}\nnot json\n')
    with pytest.raises(InputError, match=r"line 2: is not a JSON object"):
        read_comparisons(path)


def test_a_byte_order_mark_and_blank_lines_at_the_end_are_accepted(tmp_path):
    ref = _summary(read_comparisons(io.BytesIO(_csv())))
    path = tmp_path / "g.csv"
    for text in (b"\xef\xbb\xbf" + _csv(), _csv() + b"\n", _csv() + b"\n  \n\r\n", _csv()[:-1]):
        path.write_bytes(text)
        assert _summary(read_comparisons(path)) == ref
    path.write_bytes(b"\xef\xbb\xbfwinner,loser\r\na,b\r\n\r\n")
    assert read_comparisons(path).n_rows == 1
    # a blank line with rows after it is still a missing value
    path.write_bytes(b"winner,loser\na,b\n\nb,c\n")
    with pytest.raises(InputError, match=r"line 3, column 1 \(winner\): missing value"):
        read_comparisons(path)


@pytest.mark.parametrize("fmt", ["csv", "tsv", "parquet", "jsonl", "frame"])
def test_labels_have_one_normal_form_in_every_reader(tmp_path, fmt):
    composed, decomposed = "Zo\u00eb", "Zoe\u0308"
    rows = [
        ("a ", " b"),
        ("a", "b"),
        ("\u00a0a\u2003", composed),
        (decomposed, "b\u2003"),
        ("  c", "a"),
    ]
    frame = pd.DataFrame(rows, columns=["winner", "loser"])
    if fmt == "frame":
        table = comparisons_from_frame(frame)
    else:
        path = tmp_path / f"g.{fmt}"
        if fmt == "parquet":
            frame.to_parquet(path)
        elif fmt == "jsonl":
            path.write_text("".join(json.dumps({"winner": w, "loser": x}) + "\n" for w, x in rows))
        elif fmt == "tsv":
            path.write_text("winner\tloser\n" + "".join(f"{w}\t{x}\n" for w, x in rows))
        else:
            path.write_text("winner,loser\n" + "".join(f"{w},{x}\n" for w, x in rows))
        table = read_comparisons(path, aggregate=False)
    c = table.comparisons
    assert c.labels.tolist() == ["Zoë", "a", "b", "c"]
    expected = [("a", "b"), ("a", "b"), ("a", "Zoë"), ("Zoë", "b"), ("c", "a")]
    labels = c.labels.tolist()
    assert [(labels[i], labels[j]) for i, j in zip(c.i, c.j, strict=True)] == expected


def test_a_label_that_is_only_whitespace_is_missing(tmp_path):
    path = tmp_path / "g.csv"
    path.write_text("winner,loser\na,b\nb,\u00a0\u2003\n")
    with pytest.raises(InputError, match=r"line 3, column 2 \(loser\): missing value"):
        read_comparisons(path)
    path.write_text("winner,loser\na,b\nb,b\u00a0\n")  # the same item once normalised
    with pytest.raises(InputError, match=r"line 3, column 1 \(winner\): self-comparison: item 'b'"):
        read_comparisons(path)


def test_the_command_ranks_normalised_labels_as_one_item(tmp_path):
    plain = tmp_path / "plain.csv"
    plain.write_bytes(_csv())
    spaced = tmp_path / "spaced.csv"
    spaced.write_bytes(
        b"winner , loser\n" + b"".join(f" {w}\u00a0,\t{x} \n".encode() for w, x in ROWS)
    )
    one = rank(read_comparisons(plain).comparisons, privacy="none")
    two = rank(read_comparisons(spaced).comparisons, privacy="none")
    assert one.to_frame().equals(two.to_frame())


@settings(max_examples=200, deadline=None)
@given(st.text())
def test_normalisation_is_idempotent_and_strips_both_ends(text):
    once = normalize_label(text)
    assert normalize_label(once) == once
    assert once == once.strip()
    assert unicodedata.is_normalized("NFC", once)


def test_normalize_label_takes_text_only():
    with pytest.raises(TypeError, match="label must be a str"):
        normalize_label(3)


def test_a_label_table_with_many_labels_keeps_them_apart(tmp_path):
    """Integer and text labels by the thousand, over blocks: the codes of a sort."""
    rng = np.random.default_rng(4)
    words = np.array([f"w{k}" for k in range(3000)] + [str(k) for k in range(3000)])
    a = rng.integers(0, words.size, 20000)
    b = (a + rng.integers(1, words.size, 20000)) % words.size
    path = tmp_path / "many.csv"
    rows = "".join(f"{words[x]},{words[y]}\n" for x, y in zip(a, b, strict=True))
    path.write_text("winner,loser\n" + rows)
    c = read_comparisons(path, aggregate=False, block_size=4096).comparisons
    labels = np.unique(words[np.concatenate([a, b])].astype(str))
    assert sorted(c.labels.tolist()) == sorted(labels.tolist())
    got = c.labels[c.i]
    np.testing.assert_array_equal(got, words[a])
    np.testing.assert_array_equal(c.labels[c.j], words[b])
    Path(path).unlink()


def test_privatize_reads_standard_input(tmp_path):
    rows = [("a", "b", "u1"), ("b", "c", "u1"), ("c", "a", "u2")]
    data = ("winner,loser,user\n" + "".join(f"{w},{x},{u}\n" for w, x, u in rows)).encode()
    out = tmp_path / "released.csv"
    argv = ["privatize", "-", "--epsilon", "1", "--insecure-seed", "3", "--out", str(out)]
    got = _command([*argv, "--quiet", "--items-from-data"], data)
    assert got.returncode == 0, got.stderr.decode()
    released = pd.read_csv(out)
    assert len(released) == 3 and set(released["user"]) == {"u1", "u2"}
