"""Plain integer CSV text, parsed by the compiled loop, reads as the text reader reads it.

``dprank.inputs`` parses blocks of plain integer text with
``dprank._sparse_c.parse_plain_integers`` and hands the rest of the file to
pyarrow's text reader from the first block that is not plain. Every file must
give the same comparisons, or the same message, either way.
"""

import re
import subprocess
import sys
import tempfile
from pathlib import Path
from unittest import mock

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dprank import _sparse_c
from dprank.inputs import InputError, read_comparisons

needs_c = pytest.mark.skipif(
    not _sparse_c.available(), reason="the compiled library is not built (make setup)"
)


@needs_c
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (b"1,2\n3,4\n", [[1, 3], [2, 4]]),
        (b"1,2\n3,4", [[1, 3], [2, 4]]),  # the last line without its end
        (b"1,2\r\n30,4\r\n", [[1, 30], [2, 4]]),
        (b"0,2\n", [[0], [2]]),
        (b"123456789012345678,1\n", [[123456789012345678], [1]]),
        (b"", [[], []]),
        (b"01,2\n", None),  # a leading zero: the label "01", text
        (b"1,,2\n", None),  # an empty field
        (b"1,2,\n", None),
        (b"1,2\n\n", None),  # an empty line
        (b"1,2,3\n", None),  # a line of three fields
        (b"1\n", None),
        (b"-1,2\n", None),
        (b"1234567890123456789,1\n", None),  # 19 digits
        (b"1,2\r3,4\n", None),  # a lone carriage return
        (b" 1,2\n", None),
        (b"1.0,2\n", None),
        ("é,2\n".encode(), None),
    ],
)
def test_the_compiled_parser_reads_plain_integers_and_declines_anything_else(text, expected):
    out = _sparse_c.parse_plain_integers(text, len(text), 2, [0, 1], ",")
    if expected is None:
        assert out is None
    else:
        assert out is not None and out.dtype == np.int64
        assert out.tolist() == expected


@needs_c
def test_the_parser_writes_only_the_fields_asked_for_in_their_slots():
    text = b"5\t6\t7\n8\t9\t10\n"
    out = _sparse_c.parse_plain_integers(text, len(text), 3, [1, -1, 0], "\t")
    assert out.tolist() == [[7, 10], [5, 8]]


# fields: plain integers, and spellings the text reader must take (labels, errors)
_PLAIN = st.sampled_from(["0", "1", "2", "3", "7", "10", "12", "40"])
_OTHER = st.sampled_from(["007", "-3", " 5", "a", "", "1.5", "99999999999999999999", "+4", "x y"])
_FIELD = st.one_of(_PLAIN, _PLAIN, _PLAIN, _OTHER)


@st.composite
def _files(draw):
    count = draw(st.booleans())
    header = "winner,loser,count" if count else "winner,loser"
    width = 3 if count else 2
    rows = draw(
        st.lists(
            st.lists(_FIELD, min_size=width, max_size=width)
            | st.lists(_PLAIN, min_size=1, max_size=4),  # sometimes a line of another length
            min_size=0,
            max_size=30,
        )
    )
    end = draw(st.sampled_from(["\n", "\r\n"]))
    last = draw(st.booleans())  # a line end after the last line
    body = end.join(",".join(r) for r in rows)
    text = header + end + body + (end if last and rows else "")
    # blocks longer than a line (the text reader needs the header in its first block)
    return text.encode(), draw(st.sampled_from([48, 64, 100, 1 << 20]))


def _outcome(path: Path, block_size: int, aggregate: bool):
    try:
        table = read_comparisons(path, block_size=block_size, aggregate=aggregate)
    except InputError as exc:
        # the count of further offending rows is that of the block read (the message
        # says up to which line), and the two readers cut their blocks differently
        return ("error", re.sub(r" \(\d+ more such rows?[^)]*\)", "", str(exc)))
    c = table.comparisons
    ps = c.pair_statistics()
    return (
        "ok",
        table.n_rows,
        c.n_items,
        c.labels.tolist(),
        [getattr(ps, k).tolist() for k in ("a", "b", "n", "w")],
        None if aggregate else [c.i.tolist(), c.j.tolist(), c.count.tolist()],
    )


@needs_c
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_files(), st.booleans())
def test_plain_blocks_then_text_read_every_file_as_the_text_reader_alone(file, aggregate):
    text, block_size = file
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "c.csv"
        path.write_bytes(text)
        parsed = _outcome(path, block_size, aggregate)
        with mock.patch.object(_sparse_c, "available", return_value=False):
            as_text = _outcome(path, block_size, aggregate)
    assert parsed == as_text


@needs_c
def test_a_file_whose_late_block_is_not_plain_is_read_as_the_text_reader_reads_it(tmp_path):
    rng = np.random.default_rng(5)
    a = rng.integers(0, 50, 4000)
    b = (a + rng.integers(1, 50, 4000)) % 50
    lines = [f"{x},{y}" for x, y in zip(a, b, strict=True)]
    lines[3500] = "007,3"  # a text label, far past the first blocks
    path = tmp_path / "late.csv"
    path.write_text("winner,loser\n" + "\n".join(lines) + "\n")
    parsed = _outcome(path, 4096, True)
    with mock.patch.object(_sparse_c, "available", return_value=False):
        as_text = _outcome(path, 4096, True)
    assert parsed == as_text
    assert "007" in parsed[3] and "7" in parsed[3] and len(parsed[3]) == 51  # two labels
    # a missing field late in the file: the same message and line either way
    lines[3500] = "5,"
    path.write_text("winner,loser\n" + "\n".join(lines) + "\n")
    parsed = _outcome(path, 4096, True)
    assert parsed[0] == "error" and "line 3502" in parsed[1]
    with mock.patch.object(_sparse_c, "available", return_value=False):
        assert _outcome(path, 4096, True) == parsed


def test_integer_labels_spread_beyond_a_table_keep_their_codes(tmp_path):
    # dense labels first (coded by a table over their range), then one far away (sorted search)
    rng = np.random.default_rng(2)
    a = rng.integers(0, 30, 3000)
    b = (a + rng.integers(1, 30, 3000)) % 30
    a[-5:] = 10**15 + np.arange(5)
    path = tmp_path / "spread.csv"
    path.write_text("winner,loser\n" + "".join(f"{x},{y}\n" for x, y in zip(a, b, strict=True)))
    c = read_comparisons(path, aggregate=False, block_size=512).comparisons
    labels = np.unique(np.concatenate([a, b]))
    assert c.labels.tolist() == [str(v) for v in labels]
    np.testing.assert_array_equal(c.i, np.searchsorted(labels, a))
    np.testing.assert_array_equal(c.j, np.searchsorted(labels, b))


@needs_c
def test_reading_plain_integer_text_does_not_import_pyarrow(tmp_path):
    path = tmp_path / "plain.csv"
    path.write_text("winner,loser\n1,2\n2,3\n3,1\n")
    code = (
        "import sys; from dprank.inputs import read_comparisons; "
        f"t = read_comparisons({str(path)!r}); "
        "assert t.n_rows == 3, t; print('pyarrow' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
