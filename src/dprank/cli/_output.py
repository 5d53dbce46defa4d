"""The ``dprank`` command's outputs: messages, progress, and files written all or nothing.

Private to :mod:`dprank.cli` (which imports these names): its usage error,
standard error messages and the progress display, the writers of the ranking CSV
(byte for byte what pandas writes), the JSON records and the plot, and the
:class:`OutputPlan` of a command: every output checked before any work (never an
input or another output, a regular file or absent, in a folder where a file can be
created), written to temporaries, then committed together, so that a refusal, a
failure, a full disk, a broken pipe or a signal leaves every existing file as it was.
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import os
import signal
import stat
import sys
import tempfile
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

PROG = "dprank"


class UsageError(Exception):
    """A user error found after parsing: printed as one line, exit status 2."""


def to_stderr(message: str) -> None:
    with contextlib.suppress(OSError, ValueError, AttributeError):  # a closed terminal
        print(f"{PROG}: {message}", file=sys.stderr)


class Terminated(BaseException):
    """SIGTERM or SIGHUP, raised in the main thread as SIGINT raises KeyboardInterrupt."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum

    @property
    def name(self) -> str:
        return signal.Signals(self.signum).name


@contextlib.contextmanager
def signals_raise():
    """While the command runs, SIGTERM and SIGHUP raise :class:`Terminated`.

    By default they end the process at once, leaving the temporaries of a write behind;
    raised as an exception (like SIGINT's KeyboardInterrupt) they unwind the command, so
    the :class:`OutputPlan` removes its temporaries. A signal the caller ignores (``nohup``
    ignores SIGHUP) stays ignored; the previous handlers are restored on exit.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum, frame):
        raise Terminated(signum)

    with _handled((signal.SIGTERM, signal.SIGHUP), handler):
        yield


@contextlib.contextmanager
def _handled(signals, handler):
    """``handler`` for each of ``signals`` that the caller does not ignore, in the block."""
    previous = {}
    for sig in signals:
        if signal.getsignal(sig) is not signal.SIG_IGN:
            previous[sig] = signal.signal(sig, handler)
    try:
        yield
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)


class Progress:
    """Stage progress on standard error (tqdm), only on a terminal and only after about 2 s.

    tqdm's ``delay`` keeps quick runs silent; a timer shows the display once a
    stage has run for the delay even if it makes no updates (a long fit).
    """

    DELAY = 2.0

    def __init__(self, stages: int, quiet: bool):
        self.bar = self.timer = None
        if not quiet and sys.stderr.isatty():
            from tqdm import tqdm

            self.bar = tqdm(
                total=stages,
                delay=self.DELAY,
                file=sys.stderr,
                leave=False,
                unit="step",
                desc=PROG,
                bar_format="{desc} ({n_fmt}/{total_fmt} steps, {elapsed})",
            )
            self.timer = threading.Timer(self.DELAY, self._show)
            self.timer.daemon = True
            self.timer.start()

    def _show(self) -> None:
        bar = self.bar
        if bar is not None:
            bar.refresh()

    def stage(self, name: str) -> None:
        if self.bar is not None:
            self.bar.set_description_str(f"{PROG}: {name}", refresh=False)

    def done(self) -> None:
        if self.bar is not None:
            self.bar.update(1)

    def close(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
        bar, self.bar = self.bar, None
        if bar is not None:
            bar.close()


def csv_writer(frame) -> Callable:
    """Writes ``frame`` (a data frame, or a dict of column arrays) as pandas' ``to_csv`` does.

    Text cells that a spreadsheet would evaluate are escaped first
    (:func:`dprank.base._csv_cells.escape_table`).
    """
    from ..base._csv_cells import escape_table

    frame = escape_table(frame)
    if isinstance(frame, dict):
        return _columns_writer(frame)

    def write(target) -> None:
        frame.to_csv(target, index=False, lineterminator="\n")

    return write


_ROWS_PER_BLOCK = 8192  # rows of the ranking turned into text at a time

#: The characters that make :mod:`csv` quote a field (the delimiter, a quote, line ends).
_QUOTED = ',"\r\n'


def _needs_quotes(values: np.ndarray) -> bool:
    """Whether a field of the column ``values`` holds a character of :data:`_QUOTED`.

    Numbers and booleans never do; a numpy text column is searched by its characters'
    codes (its padding is NUL, which is none of them), any other column by its text.
    """
    if values.dtype.kind in "biuf":
        return False
    if values.dtype.kind == "U":
        if values.dtype.itemsize == 0 or values.size == 0:
            return False
        codes = np.ascontiguousarray(values).view(np.uint32)
        return bool(np.isin(codes, np.array([ord(ch) for ch in _QUOTED], np.uint32)).any())
    text = "\x00".join(map(str, values.tolist()))
    return any(ch in text for ch in _QUOTED)


def _columns_writer(columns: dict[str, np.ndarray]) -> Callable:
    """A CSV of column arrays, byte for byte what pandas writes of them, without pandas.

    The text of each value is Python's (``repr`` of a float: the shortest round-trip
    spelling, which is also numpy's ``astype(str)``; ``True``/``False``), quoted by
    :mod:`csv` as needed, which is how ``DataFrame.to_csv(index=False,
    lineterminator="\\n")`` spells the ranking's string, integer, float and boolean
    columns. Where no text field holds a delimiter, a quote or a line end (labels
    rarely do) the extension writes the rows (:func:`dprank.base._compiled.csv_rows`,
    no Python object per field); else :mod:`csv` quotes them, from the fields' texts
    (floats by :func:`dprank.base._compiled.format_floats`). The text is made in blocks
    of rows, so the memory it takes does not grow with the items.
    """
    import csv

    arrays = [np.asarray(values) for values in columns.values()]
    rows = len(arrays[0]) if arrays else 0
    if any(len(values) != rows for values in arrays):
        raise ValueError("the columns must have the same length")
    plain = not any(_needs_quotes(values) for values in arrays)

    def text(values: np.ndarray) -> list[str]:
        if values.dtype.kind == "f":
            from ..base._compiled import format_floats

            return format_floats(values)
        if values.dtype.kind in "iub":
            return list(map(str, values.tolist()))
        if values.dtype.kind == "U":
            return values.tolist()  # str already
        return values.astype(str).tolist()

    def write_plain(target) -> None:
        from ..base._compiled import csv_rows

        header = io.StringIO()
        csv.writer(header, lineterminator="\n").writerow(list(columns))
        binary = isinstance(target, Path)
        fh = open(target, "wb") if binary else target
        try:
            put = fh.write if binary else (lambda data: fh.write(data.decode("utf-8")))
            put(header.getvalue().encode("utf-8"))
            for start in range(0, rows, _ROWS_PER_BLOCK):
                put(csv_rows([values[start : start + _ROWS_PER_BLOCK] for values in arrays]))
        finally:
            if fh is not target:
                fh.close()

    def write(target) -> None:
        import gc

        if plain:
            write_plain(target)
            return
        fh = open(target, "w", newline="", encoding="utf-8") if isinstance(target, Path) else target
        collecting = gc.isenabled()
        gc.disable()  # a string per cell and no cycles: nothing for the collector to find
        try:
            writer = csv.writer(fh, lineterminator="\n")
            writer.writerow(list(columns))
            for start in range(0, rows, _ROWS_PER_BLOCK):
                block = [text(values[start : start + _ROWS_PER_BLOCK]) for values in arrays]
                writer.writerows(zip(*block, strict=True))
        finally:
            if collecting:
                gc.enable()
            if fh is not target:
                fh.close()

    return write


def json_writer(record: dict) -> Callable:
    return text_writer(json.dumps(record, indent=2, allow_nan=True) + "\n")


def text_writer(text: str) -> Callable:
    """Writes ``text`` (UTF-8) to a path or a text stream."""

    def write(target) -> None:
        if isinstance(target, Path):
            target.write_text(text, encoding="utf-8")
        else:
            target.write(text)

    return write


class Private:
    """An output written with mode 0600 (the audit record)."""

    def __init__(self, path: str | None):
        self.path = path


class OutputError(Exception):
    """An output that could not be written: a full disk, a broken pipe, a closed standard
    output. Printed as one line naming the file and the cause; exit status 1."""


#: What a path that is not a regular file is, by :mod:`stat`'s test of its mode.
_NOT_REGULAR = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISSOCK, "a socket"),
)


def _strerror(exc: OSError) -> str:
    return exc.strerror or str(exc)


@dataclass
class _Output:
    """One declared output of an :class:`OutputPlan`."""

    option: str  # the option that names it (--out, --plot, ...)
    path: str  # as given; "-" is standard output
    target: Path | None = None  # the file written (links resolved); None for "-"
    external: bool = False  # checked here, written by its own module (the ledger)
    mode: int | None = None  # 0o600 for a private record
    tmp: Path | None = None  # its staged temporary
    text: str | None = None  # what goes to standard output

    @property
    def name(self) -> str:
        return "standard output" if self.path == "-" else f"{self.option} {self.path}"


class OutputPlan:
    """Every output of one command: checked before any work, staged, then committed together.

    A command declares its inputs and outputs once, at the start (``OutputPlan(inputs,
    outputs)``, which checks them); computes; then writes every output with
    :meth:`write` (or :meth:`stage`, then :meth:`commit`). The three steps:

    1. **check** (on construction, before anything is read or written): no output is an
       input or another output (paths compared after resolving links); each is a regular
       file or absent (a directory, a device node, a FIFO or a socket is refused: writing
       "into" it would replace it or block); its folder exists and a file can be created
       in it (a probe file, created and removed at once: unlike permission bits this also
       holds for root, and it finds read-only file systems); an existing file is writable;
       standard output (``-``) is open. A refusal is a :class:`UsageError` and writes
       nothing at all.
    2. **stage**: each writer writes a temporary ``.<name>.XXXXXXXX.tmp`` beside its
       target (the pattern of :func:`dprank.base.io.atomic_path`, which the workflow's clean-up
       knows), flushed to disk (``fsync``); what goes to standard output is kept in memory.
       A failure (a full disk, an interrupt) removes every temporary and leaves every
       existing file as it was.
    3. **commit**: standard output is written first (a broken pipe or a full disk there
       leaves no file replaced), then every temporary is renamed onto its target, with
       SIGINT, SIGTERM and SIGHUP held back until the last rename (a signal then ends
       the command with every output in place, never half of them); the folders are
       synced. The slot between stage and commit is where a record that must
       be durable before any output is visible (the privacy ledger) is written:
       ``write(outputs, before_commit=...)``.

    Outputs marked ``external`` (the ledger) are checked in step 1 but written by their
    own module. Write failures raise :class:`OutputError` naming the output and the cause.
    """

    def __init__(
        self,
        inputs: Mapping[str, str | None],
        outputs: Mapping[str, str | Private | None],
        *,
        external: Sequence[str] = (),
    ):
        self.outputs: dict[str, _Output] = {}
        self._committed = False
        seen: dict[Path, str] = {}
        for name, path in inputs.items():
            if path is not None and path != "-":
                seen.setdefault(Path(path).resolve(), f"the input {name} ({path})")
        for option, path in outputs.items():
            mode = None
            if isinstance(path, Private):
                path, mode = path.path, 0o600
            if path is None:
                continue
            out = _Output(option, os.fspath(path), external=option in external, mode=mode)
            if out.path != "-":
                out.target = Path(out.path).resolve()
                if out.target in seen:
                    raise UsageError(
                        f"{option} {out.path} is also {seen[out.target]}: choose another file "
                        "name (an output must never overwrite an input or another output)"
                    )
                seen[out.target] = f"the output {option} ({out.path})"
            self.outputs[option] = out
        for out in self.outputs.values():
            self._check(out)

    # ------------------------------------------------------------------ 1. check
    @staticmethod
    def _check(out: _Output) -> None:
        if out.target is None:
            if _stdout_closed():
                raise OutputError("cannot write standard output: it is closed")
            return
        where = f"{out.option} {out.path}"
        try:
            st = os.stat(out.target)
        except FileNotFoundError:
            st = None
        except NotADirectoryError:
            raise UsageError(
                f"{where}: a part of its folder is a file, not a folder; give another file name"
            ) from None
        except OSError as exc:
            raise UsageError(f"{where}: cannot be examined ({_strerror(exc)})") from None
        if st is not None:
            for test, kind in _NOT_REGULAR:
                if test(st.st_mode):
                    hint = " (use '-' for standard output)" if out.option == "--out" else ""
                    raise UsageError(
                        f"{where} is {kind}, not a regular file: give a file name to "
                        f"create or replace{hint}; nothing was written"
                    )
            if not os.access(out.target, os.W_OK):
                raise UsageError(
                    f"{where} is read-only: make it writable or give another file name; "
                    "nothing was written"
                )
        folder = out.target.parent
        if not folder.is_dir():
            shown = os.path.dirname(out.path) or os.fspath(folder)
            raise UsageError(f"{where}: its folder {shown} does not exist; create it first")
        try:
            fd, probe = tempfile.mkstemp(prefix=f".{out.target.name}.", suffix=".tmp", dir=folder)
        except OSError as exc:
            shown = os.path.dirname(out.path) or "."
            raise UsageError(
                f"{where}: cannot create a file in its folder {shown} "
                f"({_strerror(exc)}); nothing was written"
            ) from None
        os.close(fd)
        os.unlink(probe)

    # ------------------------------------------------------------------ 2. stage
    def stage(self, outputs: Sequence[tuple[str | Private | None, Callable]]) -> None:
        """Write every ``(path, writer)`` to its temporary (or memory for ``-``).

        ``path`` must be one the plan declared (None is skipped); ``writer`` takes a
        :class:`~pathlib.Path` to write, or a text stream for standard output. On any
        failure every temporary is removed (:class:`OutputError` for an ``OSError``).
        """
        by_path = {out.path: out for out in self.outputs.values() if not out.external}
        try:
            for path, writer in outputs:
                if isinstance(path, Private):
                    path = path.path
                if path is None:
                    continue
                out = by_path.get(os.fspath(path))
                if out is None:
                    raise ValueError(f"output {path!r} was not declared in the plan")
                self._stage_one(out, writer)
        except BaseException:
            self.discard()
            raise

    @staticmethod
    def _stage_one(out: _Output, writer: Callable) -> None:
        if out.target is None:
            buffer = io.StringIO()
            writer(buffer)
            out.text = buffer.getvalue()
            return
        try:
            fd, tmp = tempfile.mkstemp(
                prefix=f".{out.target.name}.", suffix=".tmp", dir=out.target.parent
            )
            os.close(fd)
            out.tmp = Path(tmp)
            writer(out.tmp)
            # mkstemp creates 0600; give the usual mode unless asked otherwise
            os.chmod(out.tmp, (0o666 & ~_umask()) if out.mode is None else out.mode)
            fd = os.open(out.tmp, os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
        except OSError as exc:
            raise OutputError(
                f"cannot write {out.name}: {_strerror(exc)}; nothing was written"
            ) from None

    # ------------------------------------------------------------------ 3. commit
    def commit(self) -> None:
        """Standard output first, then every staged file renamed onto its target, together."""
        try:
            for out in self.outputs.values():
                if out.text is not None:
                    write_stdout(out.text)
        except BaseException:
            self.discard()
            raise
        staged = [out for out in self.outputs.values() if out.tmp is not None]
        with _signals_deferred():
            try:
                for out in staged:
                    os.replace(out.tmp, out.target)
                    out.tmp = None
                self._committed = True
            except OSError as exc:
                self.discard()
                raise OutputError(f"cannot write {out.name}: {_strerror(exc)}") from None
        for folder in {out.target.parent for out in staged}:
            with contextlib.suppress(OSError):  # make the renames durable
                fd = os.open(folder, os.O_RDONLY)
                try:
                    os.fsync(fd)
                finally:
                    os.close(fd)

    def write(
        self,
        outputs: Sequence[tuple[str | Private | None, Callable]],
        before_commit: Callable[[], None] | None = None,
    ) -> None:
        """:meth:`stage`, then ``before_commit()`` (if given), then :meth:`commit`.

        When ``before_commit`` raises, the temporaries are removed and nothing is
        committed. SIGINT, SIGTERM and SIGHUP are held back from ``before_commit`` to the
        last rename: a release's record and its outputs appear together or not at all.
        """
        self.stage(outputs)
        # a signal from here on waits until the record and every output are in place
        with _signals_deferred():
            if before_commit is not None:
                try:
                    before_commit()
                except BaseException:
                    self.discard()
                    raise
            self.commit()

    def discard(self) -> None:
        """Remove every staged temporary (a failed or interrupted run leaves nothing)."""
        for out in self.outputs.values():
            out.text = None
            if out.tmp is not None:
                with contextlib.suppress(FileNotFoundError):
                    out.tmp.unlink()
                out.tmp = None

    def __enter__(self) -> OutputPlan:
        return self

    def __exit__(self, *exc_info) -> None:
        if not self._committed:
            self.discard()


#: The signals that end a command: held back while its outputs are renamed into place.
_ENDING_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


@contextlib.contextmanager
def _signals_deferred():
    """Hold SIGINT, SIGTERM and SIGHUP back for the block; deliver one that came, after it.

    Python runs signal handlers in the main thread whatever thread the kernel picked, so a
    signal mask would not hold them back: the handlers are swapped for one that notes the
    signal, and the first noted signal is raised again once the old handlers are back.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    noted: list[int] = []

    def note(signum, frame):
        noted.append(signum)

    try:
        with _handled(_ENDING_SIGNALS, note):
            yield
    finally:
        if noted:
            signal.raise_signal(noted[0])


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _stdout_closed() -> bool:
    """Whether standard output is closed (the shell's ``>&-``): Python then sets it to None."""
    if sys.stdout is None:
        return True
    try:
        os.fstat(sys.stdout.fileno())
    except (OSError, ValueError, io.UnsupportedOperation):
        # not a file descriptor (a test's capture) or a closed one
        return isinstance(sys.stdout, io.TextIOWrapper) and sys.stdout.closed
    return False


def write_stdout(text: str) -> None:
    """Write and flush ``text`` to standard output; :class:`OutputError` if that fails."""
    if _stdout_closed():
        raise OutputError("cannot write standard output: it is closed")
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except OSError as exc:
        silence_stdout()
        raise OutputError(f"cannot write standard output: {_strerror(exc)}") from None


def silence_stdout() -> None:
    """Point standard output at /dev/null after a failed write (a broken pipe, a full disk).

    Python flushes ``sys.stdout`` again at exit; on the broken descriptor that would print
    a second error ("Exception ignored ... BrokenPipeError") after our one line.
    """
    with contextlib.suppress(OSError, ValueError, AttributeError, io.UnsupportedOperation):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)


def plain(value):
    """JSON-ready copy of a value (numpy scalars and arrays to Python)."""
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, np.ndarray):
        return plain(value.tolist())
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, (float, np.floating)):
        v = float(value)
        return v if math.isfinite(v) else str(v)
    return value


def plot_writer(ranking, path: str, max_items: int = 50) -> Callable:
    """Dot plot of the scores with item labels (the best ``max_items`` items)."""
    fmt = Path(path).suffix.lstrip(".").lower() or "png"

    def write(target) -> None:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        frame = ranking.to_frame().head(max_items)
        if "score" not in frame:  # the one-shot release: its top k only, no scores
            frame = frame.assign(score=-frame["rank"].astype(float))
        k = len(frame)
        fig, ax = plt.subplots(figsize=(6.0, 1.0 + 0.22 * k))
        pos = np.arange(k)[::-1]
        ax.plot(frame["score"], pos, "o", color="0.2")
        ax.set_yticks(pos, frame["item"].tolist(), fontsize=8)
        ax.set_xlabel("score (higher is better)")
        shown = f"top {k} of {ranking.n_items}" if k < ranking.n_items else f"{k} items"
        eps = "" if ranking.epsilon is None else f", eps = {ranking.epsilon:g}"
        ax.set_title(f"{ranking.method.name}{eps} ({shown})", fontsize=9)
        ax.grid(axis="x", color="0.9")
        fig.tight_layout()
        fig.savefig(target, format=fmt, metadata={"Software": None} if fmt == "png" else None)
        plt.close(fig)

    return write
