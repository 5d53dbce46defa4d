"""The compiled text writers (``src/native/shortest.c``, ``module.c``) write repr's text.

The ranking CSV's rows are written by :func:`dprank.base._compiled.csv_rows` (its score
columns' text by the same shortest-digits code as :func:`dprank.base._compiled.format_floats`);
its text must be ``repr`` of each value to the byte (the command's output is
byte-identical to what pandas and Python write), for every double: the shortest
spellings, both notations and the switch between them, signed zeros, subnormals,
infinities and NaN.
"""

import struct

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dprank.base import _compiled
from dprank.cli._output import _columns_writer


def _reprs(values) -> list[str]:
    return list(map(repr, np.asarray(values, dtype=np.float64).tolist()))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.floats(allow_nan=True, allow_infinity=True), max_size=50))
def test_format_floats_is_repr(values):
    arr = np.array(values, dtype=np.float64)
    assert _compiled.format_floats(arr) == _reprs(arr)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 2**64 - 1), min_size=1, max_size=50))
def test_format_floats_is_repr_on_any_bits(words):
    """Every bit pattern, NaNs with payloads and subnormals included."""
    arr = np.array(words, dtype=np.uint64).view(np.float64)
    assert _compiled.format_floats(arr) == _reprs(arr)


def test_format_floats_edges():
    edges = [0.0, -0.0, 1.0, -1.0, 0.1, 1e16, 1e15, 9999999999999998.0, 1e-4, 1e-5,
             123456789012345678.0, 5e-324, 2.2250738585072014e-308, 1.7976931348623157e308,
             float("inf"), float("-inf"), float("nan"), 0.30000000000000004, 2.0**-1074,
             2.0**53, 2.0**53 + 2, 1 / 3]  # fmt: skip
    edges += [struct.unpack("<d", struct.pack("<Q", b))[0] for b in (1, 2**52, 2**63 + 1)]
    assert _compiled.format_floats(np.array(edges)) == _reprs(edges)


def test_format_floats_takes_what_it_is_given():
    """float32, strided and empty arrays are written as their float64 values; the raw
    extension refuses a buffer that is not float64 instead of reading it wrongly."""
    x = np.linspace(-3.0, 7.0, 31)
    assert _compiled.format_floats(x[::3]) == _reprs(x[::3])
    small = x.astype(np.float32)
    assert _compiled.format_floats(small) == _reprs(small)
    assert _compiled.format_floats(np.empty(0)) == []
    from dprank import _native

    with pytest.raises(TypeError, match="float64"):
        _native.format_floats(np.arange(3, dtype=np.int64))
    with pytest.raises(ValueError, match="contiguous"):
        _native.format_floats(np.arange(6.0).reshape(2, 3)[:, ::2])


def test_columns_writer_scores_byte_for_byte(tmp_path):
    """The ranking's writer: the same bytes as pandas' ``to_csv`` with the float columns."""
    import pandas as pd

    rng = np.random.default_rng(5)
    cols = {
        "item": np.array([f"i{k}" for k in range(20_000)]),
        "score": rng.normal(size=20_000) * 10.0 ** rng.integers(-8, 18, 20_000),
        "rank": np.arange(1, 20_001),
    }
    cols["score"][:3] = [0.0, -0.0, 1e16]
    path = tmp_path / "r.csv"
    _columns_writer(cols)(path)
    expected = pd.DataFrame(cols).to_csv(index=False, lineterminator="\n")
    assert path.read_text() == expected


def test_format_floats_is_repr_in_bulk():
    """Shortest digits by the extension's own method (shortest.c), not Python's dtoa: the
    same text on many doubles of every kind (any bits, scores, exact binary fractions,
    short decimals, powers of two and their neighbours, where the interval's ends and
    ties decide)."""
    rng = np.random.default_rng(49)
    powers = np.array([2.0**k for k in range(-1074, 1024)])
    parts = [
        rng.integers(0, 2**64, 200_000, dtype=np.uint64).view(np.float64),
        rng.standard_normal(100_000) * 10.0 ** rng.integers(-25, 25, 100_000),
        rng.integers(1, 2**53, 20_000) / 2.0 ** rng.integers(1, 60, 20_000),
        np.array([float(f"{m}e{e}") for m in range(1, 2000) for e in (-5, -4, 0, 15, 16, 22)]),
        np.concatenate([powers, np.nextafter(powers, 0), np.nextafter(powers, np.inf)]),
        np.arange(1, 5000, dtype=np.uint64).view(np.float64),
    ]
    for x in parts:
        assert _compiled.format_floats(x) == _reprs(x)


def test_pow5_table_is_generated_by_the_build_and_counts_in_its_digest(monkeypatch):
    """shortest.c's powers of five are written by the package build, not kept with the
    sources; their generator's text is part of the build's digest, so a build made with
    another table is stale."""
    from dprank.base import _native_build

    sources = _compiled.source_folder()
    if not (sources / "reader.c").is_file():
        pytest.skip("an installed package: the C sources are not beside it")
    assert not (sources / _native_build.GENERATED_HEADER).exists()
    built = _native_build.source_digest(sources)
    assert built == _compiled.lib().native_source_digest().decode()
    table = _native_build.pow5_table()
    monkeypatch.setattr(_native_build, "pow5_table", lambda: table.replace("1u,", "2u,", 1))
    assert _native_build.source_digest(sources) != built


def test_csv_rows_is_python_text():
    """The extension's rows: str() of each field (repr of a float), joined, UTF-8."""
    rng = np.random.default_rng(3)
    n = 3000
    cols = [
        np.array([f"é-{k}" for k in range(n)]),
        rng.normal(size=n),
        np.arange(n, dtype=np.int64) - 1500,
        np.arange(n, dtype=np.int32),
        np.arange(n, dtype=np.uint8),
        np.arange(n, dtype=np.uint64) * 2**50,
        np.arange(n) % 3 == 0,
        np.arange(n, dtype=np.float32) / 7,
        np.array(["x"] * n, dtype=object),
    ]
    cols[1][:4] = [np.nan, -np.inf, -0.0, 1e16]
    text = [
        [repr(v) if isinstance(v, float) else str(v) for v in np.asarray(c).tolist()] for c in cols
    ]
    expected = "".join(",".join(row) + "\n" for row in zip(*text, strict=True)).encode()
    assert _compiled.csv_rows(cols) == expected
    assert _compiled.csv_rows([np.empty(0)]) == b""
    ints = np.array([np.iinfo(np.int64).min, np.iinfo(np.int64).max])
    assert _compiled.csv_rows([ints]) == b"-9223372036854775808\n9223372036854775807\n"
    from dprank import _native

    with pytest.raises(ValueError, match="same length"):
        _native.format_csv((np.arange(3.0), np.arange(2.0)))
    with pytest.raises(TypeError, match="list of str"):
        _native.format_csv((np.arange(3, dtype=np.int16),))
    with pytest.raises(TypeError, match="non-str"):
        _native.format_csv(([1, 2],))


def test_columns_writer_stream_and_file_agree(tmp_path):
    """The plain rows (the extension's) and the quoted ones (csv's) to a file and to a
    text stream (standard output) are the same text, pandas' text."""
    import io

    import pandas as pd

    rng = np.random.default_rng(8)
    for labels in (["a", "b", "c", "d"], ["a,1", 'b"', "c", "d"]):
        cols = {
            "item": np.array(labels),
            "score": rng.normal(size=4),
            "rank": np.arange(1, 5),
            "flag": np.array([True, False, True, False]),
        }
        expected = pd.DataFrame(cols).to_csv(index=False, lineterminator="\n")
        path = tmp_path / "r.csv"
        _columns_writer(cols)(path)
        stream = io.StringIO()
        _columns_writer(cols)(stream)
        assert path.read_bytes() == expected.encode() and stream.getvalue() == expected


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(-(2**63), 2**63 - 1), max_size=50))
def test_ints_to_text_is_numpy_text_of_the_integers(values):
    """The integer labels' text (``ints_to_text``): numpy's cast to text as wide as the
    longest, to the byte (``-`` and the digits, as ``str`` writes them)."""
    arr = np.array(values, dtype=np.int64)
    width = max((len(str(v)) for v in values), default=1)
    got = _compiled.ints_to_text(arr)
    assert got.dtype == np.dtype(f"U{width}")
    assert got.tobytes() == arr.astype(f"U{width}").tobytes()
