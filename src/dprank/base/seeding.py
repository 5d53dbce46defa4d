"""Deterministic random streams keyed by (experiment, cell, replicate, stream).

Every random draw of the project comes from a :class:`numpy.random.Generator`
built here from one root seed. The key of a draw never depends on the order in
which jobs run, on how replicates are chunked, or on the position of a cell in
a grid: cells are identified by a stable hash of their parameter values, so
adding a grid point leaves every existing cell's draws unchanged.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from enum import IntEnum

import numpy as np

from . import _checks

__all__ = ["SHARED", "Stream", "cell_key", "generator", "stable_id", "uniforms"]

#: Replicate index used for draws shared by all replicates (e.g. one theta per run).
SHARED = 2**32 - 1


class Stream(IntEnum):
    """Independent random streams of one replicate."""

    THETA = 0
    DATA = 1
    NOISE_MLE = 2
    NOISE_COUNT = 3
    NOISE_ONESHOT = 4
    TIEBREAK = 5
    RELEASE = 6
    AUDIT = 7
    EPSILON = 8  # per-user privacy budgets (Paper B)
    BOOTSTRAP = 9  # interval bootstrap (dprank.intervals)


def _canonical(value: object) -> str:
    """Canonical text of a parameter value (floats by repr; inf as 'inf')."""
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        v = float(value)
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        if v.is_integer():
            return str(int(v))
        if math.isnan(v):
            raise ValueError("a seed key holds NaN: random streams need well-defined parameters")
        return repr(v)
    if type(value).__str__ is object.__str__ and type(value).__repr__ is object.__repr__:
        # '<... object at 0x...>' changes from run to run: the seeds would too
        raise ValueError(f"{type(value).__name__} objects cannot key random streams")
    return str(value)


def stable_id(*parts: object) -> int:
    """A 63-bit integer that depends only on the text of ``parts``.

    Unlike :func:`hash`, the value is the same in every process and on every
    machine (BLAKE2b of the canonical text), so it can key random streams.
    """
    import hashlib  # where a stream is keyed (its OpenSSL library: about 5 ms to load)

    text = "\x1f".join(_canonical(p) for p in parts)
    digest = hashlib.blake2b(text.encode(), digest_size=8).digest()
    return int.from_bytes(digest, "little") >> 1


def cell_key(params: dict[str, object]) -> int:
    """Stable id of an experiment cell from its parameters (order-insensitive)."""
    if not isinstance(params, Mapping):
        raise TypeError(f"params must be a mapping of parameter names to values, got {params!r}")
    items = sorted(params.items())
    parts = []
    for k, v in items:
        try:
            parts.append(f"{k}={_canonical(v)}")
        except ValueError as exc:
            raise ValueError(f"params[{k!r}]: {exc}") from None
    return stable_id(*parts)


def generator(
    root: int, experiment: str, cell: int, replicate: int, stream: Stream
) -> np.random.Generator:
    """The generator for one (experiment, cell, replicate, stream).

    Parameters
    ----------
    root : int
        The root seed of the whole project (``seed`` in the config).
    experiment : str
        Experiment name; hashed with :func:`stable_id`.
    cell : int
        Cell id from :func:`cell_key` (or any stable integer).
    replicate : int
        Replicate index, or :data:`SHARED` for draws common to all replicates.
    stream : Stream
        Which stream of that replicate.
    """
    root = _checks.count(root, "root")
    if not isinstance(experiment, str):
        raise TypeError(f"experiment must be a str (the experiment's name), got {experiment!r}")
    cell = _checks.count(cell, "cell")
    replicate = _checks.count(replicate, "replicate")
    if isinstance(stream, (bool, np.bool_)) or stream not in set(Stream):
        raise ValueError(
            f"stream must be a Stream ({', '.join(s.name for s in Stream)}), got {stream!r}"
        )
    ss = np.random.SeedSequence(
        int(root), spawn_key=(stable_id(experiment), int(cell), int(replicate), int(stream))
    )
    return np.random.Generator(np.random.PCG64(ss))


def uniforms(
    rng: np.random.Generator, shape, pool=None, workers: int = 1, min_per_thread: int = 1 << 20
) -> np.ndarray:
    """``rng.random(shape)``, the same numbers, drawn by up to ``workers`` threads.

    A float64 uniform takes exactly one 64-bit output of the bit generator, so
    the block ``[lo, hi)`` of the serial draw is what a copy of the generator
    advanced by ``lo`` steps draws next (:meth:`numpy.random.PCG64.advance`).
    Each thread of ``pool`` fills its own block from such a copy (numpy drops
    the GIL while it fills an array); ``rng`` is then advanced past all of
    them, so later draws are also those of the serial code. Generators other
    than PCG64, or fewer than ``min_per_thread`` numbers per thread, draw
    serially.

    Parameters
    ----------
    rng : numpy.random.Generator
        The stream (a :func:`generator`); advanced by the number of values drawn.
    shape : int or tuple of int
    pool : concurrent.futures.Executor, optional
        Thread pool to draw with; ``None`` draws in this thread.
    workers : int
        Number of blocks (threads) at most.
    min_per_thread : int
        Smallest block worth a thread.
    """
    _checks.rng(rng)
    _checks.shape(shape, "shape")
    _checks.count(workers, "workers", 1)
    _checks.count(min_per_thread, "min_per_thread", 1)
    out = np.empty(shape)
    flat = out.reshape(-1)
    bitgen = rng.bit_generator
    blocks = min(int(workers), flat.size // max(1, int(min_per_thread)))
    if pool is None or blocks < 2 or type(bitgen) is not np.random.PCG64:
        rng.random(out=out)
        return out
    state = bitgen.state
    bounds = np.linspace(0, flat.size, blocks + 1).astype(np.int64)

    def fill(lo: int, hi: int) -> None:
        copy = np.random.PCG64()
        copy.state = state
        np.random.Generator(copy.advance(lo)).random(out=flat[lo:hi])

    list(pool.map(fill, bounds[:-1].tolist(), bounds[1:].tolist()))
    bitgen.advance(flat.size)
    # advance() clears the buffered 32-bit half-word, which drawing doubles keeps
    after = bitgen.state
    after["has_uint32"], after["uinteger"] = state["has_uint32"], state["uinteger"]
    bitgen.state = after
    return out
