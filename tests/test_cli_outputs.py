"""Nothing lost: the command's outputs are checked before any work and written all or nothing.

Every output (``--out``, ``--sidecar``, ``--plot``, ``--audit-record``, ``--ledger``) must be a
regular file or absent, in a folder where a file can be created; a refusal (exit 2), a full
disk, a broken pipe or a closed standard output (exit 1) and SIGINT, SIGTERM or SIGHUP leave
every existing file byte-identical and no temporary behind
(:class:`dprank.cli._output.OutputPlan`). The last test draws invocations over the
command's argument space (Hypothesis) and checks that any failing one changes no file.
"""

from __future__ import annotations

import contextlib
import errno
import io
import os
import signal
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dprank.cli import _rank as rank_command
from dprank.cli import main

GAMES = "winner,loser,user\na,b,u1\nb,c,u1\nc,a,u2\na,c,u2\nb,a,u3\na,b,u3\n"
ROOT = Path(__file__).resolve().parents[1]
OPTIONS = ("--out", "--sidecar", "--plot", "--audit-record", "--ledger")


# --------------------------------------------------------------------------- the folder


def _folder(root: Path) -> Path:
    """A working folder: the input, earlier outputs (and a ledger), a folder, a FIFO, a link."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "games.csv").write_text(GAMES)
    (root / "bad.csv").write_text("winner,loser\na,a\n")
    for name, text in (
        ("ranking.csv", "old ranking\n"),
        ("ranking.json", '{"old": true}\n'),
        ("ranking.png", "old plot"),
        ("audit.json", '{"old audit": true}\n'),
    ):
        (root / name).write_text(text)
    from dprank.data.comparisons import Comparisons
    from dprank.ledger import Ledger, Release

    games = Comparisons.from_winner_loser([0, 1], [1, 2], labels=["a", "b", "c"])
    Ledger(root / "ledger.json").record(games, Release("rank", "edge_mle", "comparison", 1.0))
    (root / "adir").mkdir()
    (root / "adir" / "inside.txt").write_text("kept")
    os.mkfifo(root / "pipe")
    (root / "tolink").symlink_to("games.csv")
    (root / "afile").write_text("a file, not a folder")
    return root


def _snapshot(root: Path) -> dict:
    """Every entry under ``root``: kind, mode and bytes (files) or target (links)."""
    out = {}
    for path in sorted(root.rglob("*")):
        st_ = os.lstat(path)
        rel = path.relative_to(root).as_posix()
        if stat.S_ISLNK(st_.st_mode):
            out[rel] = ("link", os.readlink(path))
        elif stat.S_ISREG(st_.st_mode):
            out[rel] = ("file", stat.S_IMODE(st_.st_mode), path.read_bytes())
        else:
            out[rel] = ("other", stat.S_IFMT(st_.st_mode))
    return out


def _temporaries(root: Path) -> list[str]:
    return sorted(p.name for p in root.rglob(".*.tmp"))


@contextlib.contextmanager
def _cwd(path: Path):
    old = os.getcwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(old)


def _run(root: Path, argv) -> tuple[int, str, str]:
    """``main(argv)`` in ``root``; (exit status, stdout, stderr); argparse's exits included."""
    out, err = io.StringIO(), io.StringIO()
    with _cwd(root), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main([str(a) for a in argv])
        except SystemExit as exc:
            code = exc.code
    return code, out.getvalue(), err.getvalue()


def _one_error_line(err: str) -> str:
    """The one error line of ``err`` (warnings, such as --insecure-seed's, aside)."""
    lines = [x for x in err.strip().splitlines() if not x.startswith("dprank: warning: ")]
    assert len(lines) == 1 and lines[0].startswith("dprank: error: "), err
    assert "Traceback" not in err
    return lines[0]


def _rank(option: str, value: str) -> list[str]:
    argv = ["rank", "games.csv", "--privacy", "edge", "--epsilon", "1", "--insecure-seed", "1"]
    argv += ["--out", "ranking.csv", "--plot", "ranking.png", "--audit-record", "audit.json"]
    argv += ["--ledger", "ledger.json"]
    if option == "--sidecar":
        return [*argv, "--sidecar", value]
    at = argv.index(option) + 1
    argv[at] = value
    return argv


@contextlib.contextmanager
def _tmpfs(path: Path, options: str):
    """A small tmpfs mounted at ``path`` (root with CAP_SYS_ADMIN); skips where not allowed."""
    path.mkdir(exist_ok=True)
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(path)],
        capture_output=True,
        check=False,
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here ({done.stderr.decode().strip()})")
    try:
        yield path
    finally:
        subprocess.run(["umount", str(path)], check=False)


# --------------------------------------------------------------------------- refusals

KINDS = {
    "directory": ("adir", "is a directory"),
    "device": ("/dev/null", "is a character device"),
    "fifo": ("pipe", "is a named pipe (FIFO)"),
    "link to the input": ("tolink", "is also the input"),
    "missing folder": ("nowhere/file", "does not exist"),
    "file as folder": ("afile/file", "is a file, not a folder"),
}


@pytest.mark.parametrize("kind", sorted(KINDS))
@pytest.mark.parametrize("option", OPTIONS)
def test_a_refused_output_leaves_every_file_as_it_was(option, kind, tmp_path):
    """The old ranking, record, plot, audit record and ledger stay byte-identical (they were
    replaced before the refusal when only ``--out`` was checked late); /dev/null stays a
    device; nothing is read or computed first (a FIFO is never opened)."""
    root = _folder(tmp_path / "w")
    value, expect = KINDS[kind]
    before = _snapshot(root)
    code, _, err = _run(root, _rank(option, value))
    assert code == 2, err
    line = _one_error_line(err)
    assert option in line and expect in line, line
    assert _snapshot(root) == before
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


@pytest.mark.parametrize("option", OPTIONS)
def test_an_output_in_a_read_only_folder_is_refused_before_anything_is_written(option, tmp_path):
    """A read-only folder: a probe file is created and removed, which (unlike permission bits)
    also stops root; as root the folder is a read-only tmpfs (skipped where none can be
    mounted)."""
    root = _folder(tmp_path / "w")
    ro = root / "ro"
    with contextlib.ExitStack() as stack:
        if os.geteuid() == 0:
            stack.enter_context(_tmpfs(ro, "ro,size=64k"))
        else:
            ro.mkdir()
            ro.chmod(0o555)
            stack.callback(ro.chmod, 0o755)
        before = _snapshot(root)
        code, _, err = _run(root, _rank(option, "ro/output.file"))
        assert code == 2, err
        line = _one_error_line(err)
        assert option in line and "cannot create a file in its folder ro" in line, line
        assert _snapshot(root) == before


def test_privatize_and_export_check_their_outputs_first(tmp_path):
    root = _folder(tmp_path / "w")
    before = _snapshot(root)
    for argv in (
        ["privatize", "games.csv", "--epsilon", "1", "--out", "adir"],
        ["privatize", "games.csv", "--epsilon", "1", "--out", "x.csv", "--ledger", "pipe"],
        ["datasets", "export", "cems", "--out", "/dev/null"],  # before any download
    ):
        code, _, err = _run(root, argv)
        assert code == 2, (argv, err)
        _one_error_line(err)
    assert _snapshot(root) == before


def test_a_link_to_a_regular_file_is_written_through(tmp_path):
    """An output that is a link to another (regular) file replaces that file; the link stays."""
    root = _folder(tmp_path / "w")
    (root / "elsewhere.csv").write_text("old")
    (root / "out.csv").symlink_to("elsewhere.csv")
    code, _, err = _run(root, ["rank", "games.csv", "--privacy", "none", "--out", "out.csv"])
    assert code == 0, err
    assert (root / "out.csv").is_symlink()
    assert (root / "elsewhere.csv").read_text().startswith("item,score,rank")
    assert _temporaries(root) == []


# --------------------------------------------------------------------------- write failures


def _fail_in(monkeypatch, writer_name: str, exc: BaseException):
    """Make the writer ``writer_name`` of ``dprank rank`` write a few bytes, then raise ``exc``."""
    original = getattr(rank_command, writer_name)

    def failing(*args, **kwargs):
        def write(target):
            if isinstance(target, Path):
                target.write_bytes(b"half a file")
            raise exc

        return write

    monkeypatch.setattr(rank_command, writer_name, failing)
    return original


@pytest.mark.parametrize("writer", ["csv_writer", "json_writer", "plot_writer"])
def test_a_full_disk_ends_with_one_line_exit_1_and_nothing_half_written(
    writer, tmp_path, monkeypatch
):
    """An injected ENOSPC in any writer: one line naming the file and the cause, exit 1, no
    traceback, the earlier files (and the ledger) byte-identical, no temporary left."""
    root = _folder(tmp_path / "w")
    _fail_in(monkeypatch, writer, OSError(errno.ENOSPC, os.strerror(errno.ENOSPC)))
    before = _snapshot(root)
    code, _, err = _run(root, _rank("--out", "ranking.csv"))
    assert code == 1, err
    line = _one_error_line(err)
    assert "No space left on device" in line and "cannot write --" in line, line
    assert _snapshot(root) == before
    assert _temporaries(root) == []


def test_a_stale_compiled_part_ends_with_its_message_exit_1_and_nothing_written(
    tmp_path, monkeypatch
):
    """A build whose compiled part is missing or older than its sources (an editable install
    not rebuilt): the message that says how to rebuild, one line, exit 1, no traceback, every
    file as it was; any other ImportError stays an internal error with its traceback."""
    from dprank.base._compiled import NativeMissingError

    root = _folder(tmp_path / "w")
    stale = NativeMissingError(
        "dprank's compiled part lacks the function 'f' of its C sources: it is older than "
        "this version; rebuild it with `make setup` (or `pip install -e .`)"
    )
    _fail_in(monkeypatch, "csv_writer", stale)
    before = _snapshot(root)
    code, _, err = _run(root, _rank("--out", "ranking.csv"))
    assert code == 1, err
    line = _one_error_line(err)
    assert "rebuild it with `make setup`" in line and "internal error" not in line, line
    assert _snapshot(root) == before
    assert _temporaries(root) == []

    _fail_in(monkeypatch, "csv_writer", ImportError("no module named 'x'"))
    code, _, err = _run(root, _rank("--out", "ranking.csv"))
    assert code == 1 and "internal error" in err and "Traceback" in err, err
    assert _snapshot(root) == before


def test_a_full_tmpfs_ends_with_one_line_and_leaves_the_old_files(tmp_path):
    """A real full disk: a 64 KiB tmpfs nearly filled (skipped where none can be mounted)."""
    root = _folder(tmp_path / "w")
    with _tmpfs(root / "small", "size=64k") as small:
        (small / "ranking.csv").write_text("old ranking\n")
        with contextlib.suppress(OSError):
            (small / "filler").write_bytes(b"x" * 64 * 1024)
        before = _snapshot(root)
        code, _, err = _run(
            root, ["rank", "games.csv", "--privacy", "none", "--out", "small/ranking.csv"]
        )
        assert code == 1, err
        line = _one_error_line(err)
        assert "small/ranking" in line and "No space left on device" in line, line
        assert _snapshot(root) == before


def _command(*args: str) -> list[str]:
    return [sys.executable, "-m", "dprank", *args]


def test_standard_output_full_broken_or_closed_ends_with_one_line_and_exit_1(tmp_path):
    root = _folder(tmp_path / "w")
    rank = ["rank", "games.csv", "--privacy", "none", "--out", "-", "--plot", "new.png"]
    before = _snapshot(root)
    # a full disk behind standard output
    with open("/dev/full", "w") as full:
        done = subprocess.run(
            _command(*rank), cwd=root, stdout=full, stderr=subprocess.PIPE, text=True
        )
    assert done.returncode == 1
    assert "cannot write standard output: No space left on device" in _one_error_line(done.stderr)
    # a broken pipe (the reader has gone): standard output is written first, so the plot is not
    proc = subprocess.Popen(
        _command(*rank), cwd=root, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    proc.stdout.close()
    assert proc.wait() == 1
    assert "cannot write standard output: Broken pipe" in _one_error_line(proc.stderr.read())
    proc.stderr.close()
    # standard output closed (the shell's >&-): refused before any work
    done = subprocess.run(
        ["sh", "-c", 'exec "$@" >&-', "sh", *_command(*rank)],
        cwd=root,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert done.returncode == 1
    assert "cannot write standard output: it is closed" in _one_error_line(done.stderr)
    assert _snapshot(root) == before
    # the listing commands too
    with open("/dev/full", "w") as full:
        done = subprocess.run(_command("methods"), stdout=full, stderr=subprocess.PIPE, text=True)
    assert done.returncode == 1 and "standard output" in _one_error_line(done.stderr)


# --------------------------------------------------------------------------- signals

_SELF_SIGNAL = """
import os, signal, sys
from pathlib import Path
import dprank.cli
import dprank.cli._rank as rank_command

original = rank_command.json_writer

def writer(record):
    write = original(record)
    def signalled(target):
        write(target)
        signal.raise_signal(getattr(signal, sys.argv[1]))  # this thread, outputs staged
    return signalled

rank_command.json_writer = writer
sys.exit(dprank.cli.main(sys.argv[2:]))
"""


@pytest.mark.parametrize("name, code", [("SIGINT", 130), ("SIGTERM", 143), ("SIGHUP", 129)])
def test_a_signal_while_writing_removes_every_temporary(name, code, tmp_path):
    """SIGTERM and SIGHUP clean up as SIGINT does: the signal arrives while the outputs are
    staged; no ``.X.csv.*.tmp`` stays, the earlier files are unchanged, one line says why."""
    root = _folder(tmp_path / "w")
    before = _snapshot(root)
    done = subprocess.run(
        [sys.executable, "-c", _SELF_SIGNAL, name, *_rank("--out", "ranking.csv")],
        cwd=root,
        capture_output=True,
        text=True,
    )
    assert done.returncode == code, done.stderr
    assert "Traceback" not in done.stderr
    assert _temporaries(root) == []
    assert _snapshot(root) == before
    lines = done.stderr.strip().splitlines()
    assert lines and lines[-1].startswith("dprank: "), done.stderr
    if name != "SIGINT":
        assert f"terminated by {name}" in lines[-1]


def test_a_signal_during_the_commit_waits_for_it(tmp_path, monkeypatch):
    """The renames run with SIGINT, SIGTERM and SIGHUP held back: a signal then ends the
    command only once every output is in place (never half of them)."""
    root = _folder(tmp_path / "w")
    import dprank.cli._output as output

    real = os.replace
    sent = []

    def replace(src, dst):
        if not sent:
            sent.append(dst)
            os.kill(os.getpid(), signal.SIGTERM)
        return real(src, dst)

    monkeypatch.setattr(output.os, "replace", replace)
    code, _, err = _run(root, _rank("--out", "ranking.csv"))
    monkeypatch.undo()
    assert code == 143, err
    assert (root / "ranking.csv").read_text().startswith("item,score,rank")
    assert (root / "ranking.png").read_bytes()[:4] == b"\x89PNG"
    assert (root / "audit.json").read_text() != '{"old audit": true}\n'
    assert _temporaries(root) == []


# --------------------------------------------------------------------------- any invocation

_VALUE = st.sampled_from(
    [
        "games.csv",
        "ranking.csv",
        "ranking.json",
        "ranking.png",
        "audit.json",
        "ledger.json",
        "new.csv",
        "new.json",
        "-",
        "adir",
        "pipe",
        "tolink",
        "/dev/null",
        "nowhere/x.csv",
        "afile/x",
        "ro/x.csv",
    ]
)
_INPUT = st.sampled_from(["games.csv", "bad.csv", "missing.csv", "adir", "tolink", "ranking.csv"])


@st.composite
def _argv(draw) -> list[str]:
    command = draw(st.sampled_from(["rank", "rank", "rank", "privatize"]))
    argv = [command, draw(_INPUT)]
    if command == "rank":
        argv += ["--privacy", draw(st.sampled_from(["edge", "individual", "local", "none"]))]
        options = {
            "--method": st.sampled_from(["mle", "counts", "one_shot", "adrr", "bogus"]),
            "--max-per-user": st.sampled_from(["1", "3", "0"]),
            "--top-k": st.sampled_from(["1", "2", "99"]),
            "--sidecar": _VALUE,
            "--plot": _VALUE,
            "--audit-record": _VALUE,
            "--intervals": st.sampled_from(["0.9", "1.5"]),
        }
    else:
        options = {"--mechanism": st.sampled_from(["rr", "laplace"])}
    options |= {
        "--epsilon": st.sampled_from(["1", "0", "abc", "1e-320"]),
        "--out": _VALUE,
        "--ledger": _VALUE,
        "--budget": st.sampled_from(["0.5", "100"]),
        "--insecure-seed": st.sampled_from(["3"]),
        "--seed": st.sampled_from(["3"]),
    }
    for option, values in options.items():
        if draw(st.booleans()):
            argv += [option, draw(values)]
    if command == "privatize" and "--out" not in argv:
        argv += ["--out", "new.csv"]
    return argv


@settings(max_examples=60)
@given(argv=_argv())
def test_any_failing_invocation_leaves_every_file_as_it_was(argv):
    """Over the command's argument space: an invocation that fails (any exit status but 0)
    leaves every file that existed before it byte-identical and creates none; one that
    succeeds changes no input and leaves no temporary."""
    with tempfile.TemporaryDirectory(prefix="dprank-any-invocation-") as tmp:
        root = _folder(Path(tmp) / "w")
        (root / "ro").mkdir()
        (root / "ro").chmod(0o555)
        try:
            before = _snapshot(root)
            code, _, err = _run(root, argv)
            after = _snapshot(root)
        finally:
            (root / "ro").chmod(0o755)
        assert "Traceback" not in err, (argv, err)
        assert _temporaries(root) == [], argv
        if code != 0:
            assert after == before, (argv, code, err)
        else:
            for name in ("games.csv", "bad.csv", "adir/inside.txt", "tolink", "pipe"):
                assert after[name] == before[name], (argv, name)


def test_a_text_column_is_quoted_exactly_where_csv_would_quote_it():
    """The ranking's writer joins fields directly only where csv quotes none: a numpy text
    column is searched by its character codes, any other by its text; numbers never."""
    from dprank.cli._output import _QUOTED, _needs_quotes

    assert not _needs_quotes(np.array([1.5, -2.0]))
    assert not _needs_quotes(np.array([3, 4]))
    assert not _needs_quotes(np.array([True]))
    assert not _needs_quotes(np.array([], dtype=str))
    assert not _needs_quotes(np.array(["", ""]))
    assert not _needs_quotes(np.array(["item-1", "naïve", "x y", "'a"]))
    for ch in _QUOTED:
        for values in (["ab", f"c{ch}d"], [f"{ch}", "z"], ["e", f"long label{ch}"]):
            assert _needs_quotes(np.array(values))
            assert _needs_quotes(np.array(values, dtype=object))
    assert not _needs_quotes(np.array([1, "a;b"], dtype=object))
