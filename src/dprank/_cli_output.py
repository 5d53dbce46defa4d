"""The ``dprank`` command's outputs: messages, progress, and files written all or nothing.

Private to :mod:`dprank.cli` (which imports these names): its usage error,
standard error messages and the progress display, the writers of the ranking CSV
(byte for byte what pandas writes), the JSON records and the plot, the check
that no output overwrites an input or another output, and :func:`_write_outputs`,
which writes every output through a temporary name so that a failed run leaves
nothing behind.
"""

from __future__ import annotations

import io
import json
import math
import sys
import threading
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from pathlib import Path

import numpy as np

PROG = "dprank"


class UsageError(Exception):
    """A user error found after parsing: printed as one line, exit status 2."""


def _stderr(message: str) -> None:
    print(f"{PROG}: {message}", file=sys.stderr)


class _Progress:
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


def _write_outputs(
    outputs: Sequence[tuple[str | None, Callable[[io.TextIOBase | Path], None]]],
) -> None:
    """Write every ``(path, writer)`` through a temporary name; ``"-"`` is standard output.

    The files appear together only once every writer has succeeded.
    """
    from .io import atomic_path

    with ExitStack() as stack:
        to_stdout = []
        for path, writer in outputs:
            mode = None
            if isinstance(path, _Private):
                path, mode = path.path, 0o600
            if path is None:
                continue
            if path == "-":
                to_stdout.append(writer)
                continue
            tmp = stack.enter_context(atomic_path(path, mode=mode))
            writer(tmp)
        for writer in to_stdout:
            buffer = io.StringIO()
            writer(buffer)
            sys.stdout.write(buffer.getvalue())
            sys.stdout.flush()


def _csv_writer(frame) -> Callable:
    """Writes ``frame`` (a data frame, or a dict of column arrays) as pandas' ``to_csv`` does."""
    if isinstance(frame, dict):
        return _columns_writer(frame)

    def write(target) -> None:
        frame.to_csv(target, index=False, lineterminator="\n")

    return write


_ROWS_PER_BLOCK = 8192  # rows of the ranking turned into text at a time


def _columns_writer(columns: dict[str, np.ndarray]) -> Callable:
    """A CSV of column arrays, byte for byte what pandas writes of them, without pandas.

    The text of each value is numpy's (``astype(str)``: the shortest round-trip
    spelling of a float, ``True``/``False``), quoted by :mod:`csv` as needed,
    which is how ``DataFrame.to_csv(index=False, lineterminator="\\n")`` spells
    the ranking's string, integer, float and boolean columns. The text is made
    in blocks of rows, so the memory it takes does not grow with the items.
    """
    import csv

    arrays = [np.asarray(values) for values in columns.values()]
    rows = len(arrays[0]) if arrays else 0
    if any(len(values) != rows for values in arrays):
        raise ValueError("the columns must have the same length")

    def write(target) -> None:
        fh = open(target, "w", newline="", encoding="utf-8") if isinstance(target, Path) else target
        try:
            writer = csv.writer(fh, lineterminator="\n")
            writer.writerow(list(columns))
            for start in range(0, rows, _ROWS_PER_BLOCK):
                block = [values[start : start + _ROWS_PER_BLOCK] for values in arrays]
                writer.writerows(zip(*(b.astype(str).tolist() for b in block), strict=True))
        finally:
            if fh is not target:
                fh.close()

    return write


def _json_writer(record: dict) -> Callable:
    return _text_writer(json.dumps(record, indent=2, allow_nan=True) + "\n")


def _text_writer(text: str) -> Callable:
    """Writes ``text`` (UTF-8) to a path or a text stream."""

    def write(target) -> None:
        if isinstance(target, Path):
            target.write_text(text, encoding="utf-8")
        else:
            target.write(text)

    return write


class _Private:
    """An output written with mode 0600 (the audit record)."""

    def __init__(self, path: str | None):
        self.path = path


def _check_paths(inputs: dict[str, str], outputs: dict[str, str | None]) -> None:
    """Refuse an output that is an input or another output (links and relative paths resolved).

    ``inputs`` and ``outputs`` map an option name (``COMPARISONS``, ``--out``,
    ...) to its path; ``None`` and ``"-"`` (standard output) are skipped.
    """
    seen: dict[Path, str] = {}
    for name, path in inputs.items():
        seen.setdefault(Path(path).resolve(), f"the input {name} ({path})")
    for name, path in outputs.items():
        if path is None or path == "-":
            continue
        resolved = Path(path).resolve()
        if resolved in seen:
            raise UsageError(
                f"{name} {path} is also {seen[resolved]}: choose another file name "
                "(an output must never overwrite an input or another output)"
            )
        seen[resolved] = f"the output {name} ({path})"


def _plain(value):
    """JSON-ready copy of a value (numpy scalars and arrays to Python)."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, np.ndarray):
        return _plain(value.tolist())
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, (float, np.floating)):
        v = float(value)
        return v if math.isfinite(v) else str(v)
    return value


def _plot_writer(ranking, path: str, max_items: int = 50) -> Callable:
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
