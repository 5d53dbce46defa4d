"""A comparison file that changes while it is read: one message, never a crash or a torn read.

A regular CSV file is parsed where the system maps it (``dprank.data._input_stream._map``).
Where another process truncates it meanwhile, a page of the mapping past the new end
raises SIGBUS, which by default ends the process with no message; its pages are guarded
(``mapguard.c``: they read as zeros and the reading stops). A file that shrinks, grows or
is written to while it is read, mapped or read into a buffer, gives one error naming the
file (the exit code of the command's other input errors) and no output. The changes are
made at fixed points of the reading (the first block handed on, or the compiled parser's
second call), from hooks of the child process that runs the command: no timing race.
"""

from __future__ import annotations

import json
import mmap
import os
import signal
import subprocess
import sys
from pathlib import Path
from unittest import mock

import numpy as np
import pytest

from dprank.base import _compiled
from dprank.data import _input_blocks, _input_stream
from dprank.data.inputs import InputError, read_comparisons

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGBUS"), reason="no SIGBUS (Windows)")

PAGE = mmap.PAGESIZE
EXIT_USAGE = 2
ADVICE = "; read it once nothing writes to it any more (or read a copy of it)"

#: The child: ``dprank rank FILE`` with a change of FILE at a fixed point of its reading.
CHILD = r"""
import json, os, resource, sys
from unittest import mock
resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # no core file of an unguarded run
from dprank import cli
from dprank.base import _compiled
from dprank.data import _input_blocks, inputs

path, out, change, where, guarded = sys.argv[1:6]
inputs._BLOCK_BYTES = 1 << 16  # many blocks from a small file
lost = []


def change_file():
    size = os.path.getsize(path)
    if change == "shrink":  # to a third: whole pages past the new end
        os.truncate(path, size // 3)
    elif change == "shrink-in-page":  # within the last page: no page past the end
        os.truncate(path, size - size % %(page)d + 10)
    elif change == "grow":  # a line being appended, not finished yet
        with open(path, "ab") as fh:
            fh.write(b"5,")
    elif change == "rewrite":  # the same size, written in place
        with open(path, "r+b") as fh:
            fh.seek(size // 2)
            fh.write(b"9")
        os.utime(path, ns=(0, os.stat(path).st_mtime_ns + 10**9))


calls = []


def hook(real):
    def hooked(*args, **kwargs):
        calls.append(1)
        if len(calls) == (1 if where == "between" else 2):
            change_file()
        return real(*args, **kwargs)

    return hooked


if where == "between":  # after the first block is handed on, before the next is cut
    _input_blocks.BlockReader.add = hook(_input_blocks.BlockReader.add)
else:  # inside the compiled parser: its own loop meets the lost pages
    _compiled.parse_csv = hook(_compiled.parse_csv)

real_close = _compiled.MappedPages.close


def close(self):
    got = real_close(self)
    lost.append(got)
    return got


_compiled.MappedPages.close = close
if guarded == "unguarded":  # the guard taken away: what the reading did before it
    class NoGuard:
        guarded, lost = True, False

        def __init__(self, mapping):
            pass

        def close(self):
            return False

    _compiled.MappedPages = NoGuard
code = cli.main(["rank", path, "--items-from-data", "--privacy", "edge", "--epsilon", "1",
                 "--insecure-seed", "7", "--out", out])
print("RESULT " + json.dumps({"code": code, "lost": lost, "arrow": "pyarrow" in sys.modules}))
""".replace("%(page)d", str(PAGE))


def _write_games(path: Path, rows: int = 120_000) -> int:
    """A CSV file of ``rows`` integer comparisons (about 1 MB: 16 blocks of 64 KiB)."""
    rng = np.random.default_rng(3)
    a = rng.integers(0, 500, rows)
    b = (a + rng.integers(1, 500, rows)) % 500
    body = "".join(f"{x},{y}\n" for x, y in zip(a, b, strict=True))
    path.write_text("winner,loser\n" + body)
    return path.stat().st_size


def _child(tmp_path: Path, change: str, where: str, guarded: str = "guarded"):
    path = tmp_path / "games.csv"
    _write_games(path)
    out = tmp_path / "out" / "ranking.csv"
    out.parent.mkdir()
    got = subprocess.run(
        [sys.executable, "-c", CHILD, str(path), str(out), change, where, guarded],
        capture_output=True,
        text=True,
        timeout=300,
    )
    result = None
    for line in got.stdout.splitlines():
        if line.startswith("RESULT "):
            result = json.loads(line[len("RESULT ") :])
    return got, result, path, out


@pytest.mark.parametrize(
    ("change", "where", "lost", "message"),
    [
        ("shrink", "between", True, "the file became shorter while it was read"),
        ("shrink", "parser", True, "the file became shorter while it was read"),
        ("shrink-in-page", "between", False, "the file became shorter while it was read"),
        ("grow", "between", False, "the file grew while it was read"),
        ("grow", "parser", False, "the file grew while it was read"),
        ("rewrite", "between", False, "the file was written to while it was read"),
    ],
)
def test_a_file_changed_while_mapped_is_one_error_and_no_output(
    tmp_path, change, where, lost, message
):
    got, result, path, out = _child(tmp_path, change, where)
    assert got.returncode == 0, (got.returncode, got.stderr)  # the child ran to its end
    assert result["code"] == EXIT_USAGE
    # one line: the file's name and what happened (no byte, line or offset of its content)
    lines = got.stderr.splitlines()
    assert lines[-1] == f"dprank: error: {path}: {message}{ADVICE}"
    assert [line for line in lines if "error" in line or "Traceback" in line] == lines[-1:]
    assert list(out.parent.iterdir()) == []  # no ranking, no record, nothing half-written
    # where pages past the new end were read (and only there), the guard answered their fault
    assert result["lost"] == [lost]
    # a changed file's rest is not handed to pyarrow's text reader (whose threads, still
    # reading ahead as the process exits, can abort it: exit status -6)
    assert result["arrow"] is False


def test_the_same_truncation_unguarded_ends_the_process_with_sigbus(tmp_path):
    """What the guard prevents: the truncation of the test above, read without it."""
    got, result, _, _ = _child(tmp_path, "shrink", "parser", "unguarded")
    assert got.returncode == -signal.SIGBUS, (got.returncode, got.stderr)
    assert result is None


_PASS_ON = r"""
import faulthandler, mmap, os, resource, signal, sys
resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
from dprank.base._compiled import MappedPages
guarded_path, other_path, how = sys.argv[1:4]
if how == "faulthandler":
    faulthandler.enable()
ga = open(guarded_path, "rb")
ma = mmap.mmap(ga.fileno(), 0, access=mmap.ACCESS_READ)
guard = MappedPages(ma)
assert guard.guarded
if how == "kill":
    os.kill(os.getpid(), signal.SIGBUS)
else:  # a fault in a mapping that is not guarded
    gb = open(other_path, "rb")
    mb = mmap.mmap(gb.fileno(), 0, access=mmap.ACCESS_READ)
    os.truncate(other_path, 0)
    mb[len(mb) - 1]
print("survived")
"""


@pytest.mark.parametrize("how", ["fault", "faulthandler", "kill"])
def test_a_sigbus_outside_a_guarded_mapping_is_passed_on(tmp_path, how):
    """Another mapping's fault, or SIGBUS sent by a process, is taken as before the guard
    (the default action, or the handler in place before it: faulthandler's report)."""
    a, b = tmp_path / "a.bin", tmp_path / "b.bin"
    a.write_bytes(b"x" * (3 * PAGE))
    b.write_bytes(b"y" * (3 * PAGE))
    got = subprocess.run(
        [sys.executable, "-c", _PASS_ON, str(a), str(b), how],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert got.returncode == -signal.SIGBUS, (got.returncode, got.stderr)
    assert "survived" not in got.stdout
    assert ("Fatal Python error: Bus error" in got.stderr) == (how == "faulthandler")


def test_the_handler_is_in_place_only_while_a_file_is_mapped(tmp_path):
    path = tmp_path / "games.csv"
    _write_games(path, 20_000)
    during = []
    real_add = _input_blocks.BlockReader.add

    def add(self, *args):
        during.append(_compiled.sigbus_guarded())
        return real_add(self, *args)

    before = _compiled.sigbus_guarded()
    with mock.patch.object(_input_blocks.BlockReader, "add", add):
        table = read_comparisons(path, block_size=1 << 14)
    assert table.n_rows == 20_000
    assert not before and not _compiled.sigbus_guarded()
    assert during and all(during)


def test_growth_and_writes_are_found_in_a_buffered_read_and_other_formats(tmp_path):
    """The check is the reading's, not the mapping's: a file read into a buffer (as where
    it cannot be mapped) or in JSON lines says the same."""
    path = tmp_path / "games.csv"
    _write_games(path, 20_000)
    jsonl = tmp_path / "games.jsonl"
    jsonl.write_text("".join(f'{{"winner": "{k}", "loser": "{k + 1}"}}\n' for k in range(5000)))

    def changing(target, change):
        real_add = _input_blocks.BlockReader.add
        done = []

        def add(self, *args):
            if not done:
                done.append(1)
                change(target)
            return real_add(self, *args)

        return mock.patch.object(_input_blocks.BlockReader, "add", add)

    def grow(p):
        with open(p, "ab") as fh:
            fh.write(b"5,")

    def shrink(p):
        os.truncate(p, p.stat().st_size // 2)

    cases = [
        (path, grow, "grew"),
        (path, shrink, "became shorter"),
        (jsonl, grow, "grew"),
        (jsonl, shrink, "became shorter"),
    ]
    for target, change, word in cases:
        original = target.read_bytes()
        with (
            changing(target, change),
            mock.patch.object(_input_stream, "_map", lambda inp: None),
            pytest.raises(InputError) as caught,
        ):
            read_comparisons(target, block_size=1 << 12)
        assert str(caught.value) == f"{target}: the file {word} while it was read{ADVICE}"
        target.write_bytes(original)
        assert read_comparisons(target).n_rows in (20_000, 5000)  # unchanged: read as ever


_THREADS = r"""
import os, resource, sys, threading
resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
from dprank.data import _input_blocks
from dprank.data.inputs import InputError, read_comparisons
cut_path, kept_path = sys.argv[1:3]
both = threading.Barrier(2, timeout=60)
real_add = _input_blocks.BlockReader.add
first = threading.local()


def add(self, *args):
    if not getattr(first, "seen", False):
        first.seen = True
        both.wait()  # both files mapped and guarded at once
        if threading.current_thread().name == "cut":
            os.truncate(cut_path, os.path.getsize(cut_path) // 3)
        both.wait()
    return real_add(self, *args)


_input_blocks.BlockReader.add = add
results = {}


def read(name, path):
    try:
        results[name] = read_comparisons(path, block_size=1 << 14).n_rows
    except InputError as exc:
        results[name] = str(exc)


threads = [threading.Thread(target=read, name=n, args=(n, p))
           for n, p in (("cut", cut_path), ("kept", kept_path))]
for t in threads:
    t.start()
for t in threads:
    t.join()
print(results["cut"])
print(results["kept"])
"""


def test_two_files_read_at_once_one_truncated(tmp_path):
    """Two threads each read a mapped file; one is truncated while both are mapped: it
    alone gives the error, the other reads whole."""
    cut, kept = tmp_path / "cut.csv", tmp_path / "kept.csv"
    _write_games(cut, 40_000)
    _write_games(kept, 40_000)
    got = subprocess.run(
        [sys.executable, "-c", _THREADS, str(cut), str(kept)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert got.returncode == 0, (got.returncode, got.stderr)
    assert got.stdout.splitlines() == [
        f"{cut}: the file became shorter while it was read{ADVICE}",
        "40000",
    ]


def test_an_unchanged_file_is_not_flagged_by_a_stream_or_a_file(tmp_path):
    """A stream has no size to compare; a file read whole and left alone raises nothing."""
    path = tmp_path / "games.csv"
    _write_games(path, 1000)
    assert read_comparisons(path).n_rows == 1000
    with open(path, "rb") as fh:
        assert read_comparisons(fh).n_rows == 1000
    assert not _compiled.sigbus_guarded()  # no guard left behind
