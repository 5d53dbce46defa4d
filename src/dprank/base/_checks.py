"""Argument checks shared by the public functions: one vectorised pass, one clear message.

Every check raises :class:`ValueError` (a bad value) or :class:`TypeError` (a value of
the wrong kind) whose message starts with the argument's name and says what was
expected, so a caller learns which argument to fix and how. Each costs at most one
pass over its input (no per-element Python), never copies or converts an array it
returns (``numpy.asarray`` of the input, so a computation that follows sees exactly
the values it saw before the check) and never touches a random generator.
"""

from __future__ import annotations

import math
import numbers
import os
import sys

import numpy as np

# ----------------------------------------------------------------------------- scalars


def real(value, name: str) -> float:
    """``value`` as a float; a :class:`TypeError` naming ``name`` if it is no real number."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (numbers.Real, np.ndarray)):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__} {value!r}")
    if isinstance(value, np.ndarray):
        if value.shape != () or value.dtype.kind not in "iuf":
            raise TypeError(f"{name} must be a real number, got an array of shape {value.shape}")
    return float(value)


def positive(value, name: str) -> float:
    """``value`` as a float, after checking that it is > 0 (``inf`` allowed, NaN not)."""
    v = real(value, name)
    if not v > 0:
        raise ValueError(f"{name} must be positive, got {value!r}")
    return v


def positive_finite(value, name: str) -> float:
    """``value`` as a float, after checking that it is > 0 and finite."""
    v = real(value, name)
    if not 0 < v < math.inf:
        raise ValueError(f"{name} must be positive and finite, got {value!r}")
    return v


def non_negative(value, name: str, *, finite: bool = True) -> float:
    """``value`` as a float, after checking that it is >= 0 (and finite unless ``finite=False``)."""
    v = real(value, name)
    if not v >= 0 or (finite and math.isinf(v)):
        what = "non-negative and finite" if finite else "non-negative"
        raise ValueError(f"{name} must be {what}, got {value!r}")
    return v


def probability(value, name: str, *, low_open: bool = False, high_open: bool = False) -> float:
    """``value`` as a float, after checking that it lies in ``[0, 1]`` (ends open on request)."""
    v = real(value, name)
    lo_ok = v > 0 if low_open else v >= 0
    hi_ok = v < 1 if high_open else v <= 1
    if not (lo_ok and hi_ok):
        interval = f"{'(' if low_open else '['}0, 1{')' if high_open else ']'}"
        raise ValueError(f"{name} must be a probability in {interval}, got {value!r}")
    return v


def count(value, name: str, minimum: int = 0) -> int:
    """``value`` as an int, after checking that it is an integer >= ``minimum``.

    ``True``/``False`` are refused (a flag passed where a count belongs).
    """
    if isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")
    if not isinstance(value, (numbers.Real, np.ndarray)):
        raise TypeError(
            f"{name} must be an integer >= {minimum}, got {type(value).__name__} {value!r}"
        )
    if isinstance(value, (int, np.integer)):  # exact, however large (no float round trip)
        if value < minimum:
            raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")
        return int(value)
    v = real(value, name)
    if not math.isfinite(v) or not v.is_integer() or v < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return int(v)


def flag(value, name: str) -> bool:
    """``value`` after checking that it is a bool (``True``/``False``, numpy's too)."""
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, got {type(value).__name__} {value!r}")
    return bool(value)


def rng(value, name: str = "rng", *, noise_source: bool = False) -> np.random.Generator:
    """``value`` after checking that it is a :class:`numpy.random.Generator` (no draw made).

    ``noise_source=True`` also accepts a :class:`dprank.privacy.noise.NoiseSource` (a release's
    exact samplers, where the function only uses what both offer).
    """
    if isinstance(value, np.random.Generator):
        return value
    if noise_source and _instance_of(value, "dprank.privacy.noise", "NoiseSource"):
        return value
    kinds = "a numpy.random.Generator" + (
        " or a dprank.privacy.noise.NoiseSource" if noise_source else ""
    )
    raise TypeError(
        f"{name} must be {kinds} (numpy.random.default_rng(seed)), got {type(value).__name__}"
    )


def _instance_of(value, module: str, cls: str) -> bool:
    """``isinstance(value, module.cls)`` without importing ``module``: a value of that class
    exists only once its module is loaded (the checks stay free of scipy and OpenDP)."""
    loaded = sys.modules.get(module)
    return loaded is not None and isinstance(value, getattr(loaded, cls))


def link(value, name: str = "link"):
    """``value`` after checking that it is a :class:`dprank.data.models.Link`."""
    if not _instance_of(value, "dprank.data.models", "Link"):
        raise TypeError(
            f"{name} must be a dprank.data.models.Link (dprank.data.models.get_link('btl')), "
            f"got {type(value).__name__}"
        )
    return value


def shape(value, name: str):
    """``value`` after checking that it is an array shape: an int >= 0 or a tuple of them."""
    dims = value if isinstance(value, (tuple, list)) else (value,)
    for d in dims:
        if isinstance(d, (bool, np.bool_)) or not isinstance(d, (int, np.integer)) or d < 0:
            raise ValueError(
                f"{name} must be a non-negative int or a tuple of them (a shape), got {value!r}"
            )
    return value


def path(value, name: str = "path"):
    """``value`` after checking that it is a file path: a non-empty str or an ``os.PathLike``."""
    if not isinstance(value, (str, os.PathLike)):
        raise TypeError(
            f"{name} must be a file path (a str or pathlib.Path), got {type(value).__name__} "
            f"{value!r}"
        )
    if isinstance(value, str) and not value:
        raise ValueError(f"{name} must be a file path, got the empty string")
    return value


def text(value, name: str) -> str:
    """``value`` after checking that it is a str."""
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a str, got {type(value).__name__} {value!r}")
    return value


def frame(value, name: str = "frame"):
    """``value`` after checking that it is a :class:`pandas.DataFrame`."""
    import pandas as pd

    if not isinstance(value, pd.DataFrame):
        raise TypeError(f"{name} must be a pandas DataFrame, got {type(value).__name__}")
    return value


# ----------------------------------------------------------------------------- arrays


_DIMS = {0: "a scalar", 1: "one-dimensional (a vector)", 2: "two-dimensional (a matrix)"}


def array(x, name: str, *, ndim: int | tuple[int, ...] | None = None, min_size: int = 0):
    """``numpy.asarray(x)`` after checking that it is a real numeric array.

    ``ndim`` is the number of dimensions required (or a tuple of those allowed);
    ``min_size`` the length of the last axis required at least. Booleans count as
    numeric (0/1).
    """
    try:
        arr = np.asarray(x)
    except (ValueError, TypeError) as exc:  # ragged nested lists
        raise ValueError(f"{name} must be a rectangular numeric array ({exc})") from None
    if arr.dtype.kind not in "biuf":
        raise TypeError(f"{name} must hold real numbers, got dtype {arr.dtype}")
    if ndim is not None:
        allowed = (ndim,) if isinstance(ndim, int) else ndim
        if arr.ndim not in allowed:
            want = " or ".join(_DIMS.get(d, f"{d}-d") for d in allowed)
            raise ValueError(f"{name} must be {want}, got shape {arr.shape}")
    if min_size and (arr.ndim == 0 or arr.shape[-1] < min_size):
        raise ValueError(f"{name} needs at least {min_size} entries, got shape {arr.shape}")
    return arr


def finite(x, name: str, **shape) -> np.ndarray:
    """:func:`array` that also checks that every entry is finite (no NaN, no inf)."""
    arr = array(x, name, **shape)
    if arr.dtype.kind == "f" and not np.isfinite(arr).all():
        bad = np.flatnonzero(~np.isfinite(arr.ravel()))
        raise ValueError(
            f"{name} must be finite: {bad.size} of {arr.size} entries are NaN or infinite "
            f"(the first is {arr.ravel()[bad[0]].item()!r})"
        )
    return arr


def no_nan(x, name: str) -> np.ndarray:
    """``x`` as an array, after checking that it holds no NaN."""
    x = np.asarray(x)
    if x.dtype.kind in "fc" and np.isnan(x).any():
        raise ValueError(f"{name} contains NaN ({int(np.isnan(x).sum())} of {x.size} entries)")
    return x


def binary(y, name: str) -> np.ndarray:
    """``y`` as an array, after checking that every entry is 0 or 1 (a comparison outcome)."""
    y = np.asarray(y)
    if y.size == 0 or y.dtype == bool:
        return y
    if y.dtype.kind == "u":
        bad = y.max() > 1
    elif y.dtype.kind == "i":
        bad = y.min() < 0 or y.max() > 1
    elif y.dtype.kind in "fc":
        bad = not np.all((y == 0) | (y == 1))
    else:
        raise TypeError(f"{name} must hold 0/1 comparison outcomes, got dtype {y.dtype}")
    if bad:
        first = y[(y != 0) & (y != 1)].flat[0].item()
        raise ValueError(f"{name} must hold 0/1 comparison outcomes, got {first!r}")
    return y


def win_matrix(wins, name: str = "wins", *, batch: bool = False, min_items: int = 1):
    """``numpy.asarray(wins)`` after checking it is a square matrix of finite counts >= 0.

    The shape is ``(n, n)``, or ``(..., n, n)`` with ``batch=True``; ``n >=
    min_items``. One pass for finiteness and sign; the diagonal is not looked at
    (the estimators ignore it).
    """
    w = array(wins, name)
    if w.ndim < 2 or (not batch and w.ndim != 2) or w.shape[-1] != w.shape[-2]:
        want = "(..., n, n)" if batch else "(n, n)"
        raise ValueError(f"{name} must be a square {want} win matrix, got shape {w.shape}")
    if w.shape[-1] < min_items:
        raise ValueError(f"{name} must have at least {min_items} items, got shape {w.shape}")
    if w.dtype.kind == "f" and not np.isfinite(w).all():
        raise ValueError(f"{name} must hold finite counts (it holds NaN or inf)")
    if w.dtype.kind in "if" and w.size and w.min() < 0:
        raise ValueError(f"{name} must hold non-negative counts, got {w.min().item()!r}")
    return w


def same_shape(a: np.ndarray, b: np.ndarray, names: str) -> None:
    """Check that two arrays have the same shape (``names`` e.g. ``'theta_hat and theta'``)."""
    if np.shape(a) != np.shape(b):
        raise ValueError(f"{names} must have the same shape, got {np.shape(a)} and {np.shape(b)}")


def same_last_axis(a: np.ndarray, b: np.ndarray, names: str) -> None:
    """Check that two arrays have the same length along their last axis (the items)."""
    la = np.shape(a)[-1] if np.ndim(a) else None
    lb = np.shape(b)[-1] if np.ndim(b) else None
    if la is None or la != lb:
        raise ValueError(
            f"{names} must have the same number of items (last axis), "
            f"got shapes {np.shape(a)} and {np.shape(b)}"
        )


def same_items(a: np.ndarray, b: np.ndarray, names: str) -> None:
    """:func:`same_last_axis`, and the other axes of the two arrays broadcast."""
    same_last_axis(a, b, names)
    try:
        np.broadcast_shapes(np.shape(a), np.shape(b))
    except ValueError:
        raise ValueError(
            f"{names} must broadcast, got shapes {np.shape(a)} and {np.shape(b)}"
        ) from None


def solver_options(tol, tol_name: str, max_iter, theta0) -> None:
    """Check a solver's common options: a tolerance, an iteration cap, a start (or None)."""
    non_negative(tol, tol_name)
    count(max_iter, "max_iter")
    if theta0 is not None:
        finite(theta0, "theta0")


def estimate_and_truth(theta_hat, theta) -> tuple[np.ndarray, np.ndarray]:
    """Both as arrays after checking they score the same items and broadcast.

    A NaN estimate is allowed (the error metrics give NaN); the truth must be finite.
    """
    theta_hat = array(theta_hat, "theta_hat", min_size=1)
    theta = finite(theta, "theta", min_size=1)
    same_items(theta_hat, theta, "theta_hat and theta")
    return theta_hat, theta


# ----------------------------------------------------------------------------- tables, files


def optional_path(value, name: str):
    """``value`` after checking that it is None or a file path (see :func:`path`)."""
    return None if value is None else path(value, name)


def mapping(value, name: str, required=()):
    """``value`` after checking that it is a mapping (a dict or the like) holding the keys
    ``required``."""
    from collections.abc import Mapping

    if not isinstance(value, Mapping):
        raise TypeError(f"{name} must be a mapping (a dict), got {type(value).__name__} {value!r}")
    missing = [k for k in required if k not in value]
    if missing:
        raise ValueError(f"{name} lacks the key(s) {missing}; it has {list(value)}")
    return value


def strings(value, name: str) -> list:
    """``value`` as a list, after checking that it is a sequence of str (not one str)."""
    if isinstance(value, (str, bytes)) or not isinstance(value, (list, tuple)):
        raise TypeError(f"{name} must be a list of str, got {type(value).__name__} {value!r}")
    bad = [v for v in value if not isinstance(v, str)]
    if bad:
        raise TypeError(f"{name} must be a list of str, got the element {bad[0]!r}")
    return list(value)


def columns(value, name: str, required) -> None:
    """Check that ``value`` is a :class:`pandas.DataFrame` with the columns ``required``."""
    frame(value, name)
    missing = [c for c in required if c not in value.columns]
    if missing:
        raise ValueError(
            f"{name} lacks the columns {missing}; it has {[str(c) for c in value.columns]}"
        )


def records(value, name: str, keys) -> list:
    """``value`` as a list, after checking that it is a sequence of mappings with ``keys``."""
    from collections.abc import Mapping

    if isinstance(value, (str, bytes, Mapping)) or not isinstance(value, (list, tuple)):
        raise TypeError(f"{name} must be a list of mappings, got {type(value).__name__} {value!r}")
    for i, entry in enumerate(value):
        if not isinstance(entry, Mapping):
            raise TypeError(f"{name}[{i}] must be a mapping, got {type(entry).__name__} {entry!r}")
        missing = [k for k in keys if k not in entry]
        if missing:
            raise ValueError(f"{name}[{i}] lacks the keys {missing}")
    return list(value)


# ----------------------------------------------------------------------------- stage arguments


def indices(value, name: str = "replicates") -> list[int]:
    """``value`` as a list of ints >= 0 (replicate numbers), after checking each."""
    from collections.abc import Iterable, Mapping

    if isinstance(value, (str, bytes, Mapping)) or not isinstance(value, Iterable):
        raise TypeError(
            f"{name} must be a sequence of integers >= 0, got {type(value).__name__} {value!r}"
        )
    return [count(v, name) for v in value]


def names(value, name: str, allowed=None) -> list[str]:
    """``value`` as a list of str (metrics, methods), each one of ``allowed`` if given."""
    from collections.abc import Iterable

    if isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
        raise TypeError(f"{name} must be a sequence of names, got {type(value).__name__} {value!r}")
    out = list(value)
    for v in out:
        text(v, name)
        if allowed is not None and v not in allowed:
            raise ValueError(f"{name}: unknown name {v!r}; known: {sorted(allowed)}")
    return out


def sequence(value, name: str) -> list:
    """``value`` as a list, after checking that it is a sequence (not a str, not a scalar)."""
    from collections.abc import Iterable, Mapping

    if isinstance(value, (str, bytes, Mapping)) or not isinstance(value, Iterable):
        raise TypeError(f"{name} must be a sequence, got {type(value).__name__} {value!r}")
    return list(value)


# ----------------------------------------------------------------------------- plotting


def instance(value, name: str, cls, what: str):
    """``value`` after checking that it is an instance of ``cls`` (``what`` describes it)."""
    if not isinstance(value, cls):
        raise TypeError(f"{name} must be {what}, got {type(value).__name__}")
    return value


def reals(value, name: str) -> np.ndarray:
    """``value`` as a float array (a check only: the caller keeps using ``value``)."""
    try:
        return np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must hold real numbers, got {value!r}") from None


def figure_spec(value, name: str = "spec", required=()):
    """A figure spec: a mapping with a non-empty ``panels`` list of mappings, each with a
    ``metric``, and the keys ``required``."""
    mapping(value, name, ("panels", *required))
    panels = value["panels"]
    if isinstance(panels, (str, bytes)) or not hasattr(panels, "__len__") or not len(panels):
        raise ValueError(f"{name}['panels'] must be a non-empty list of panels, got {panels!r}")
    for i, panel in enumerate(panels):
        mapping(panel, f"{name}['panels'][{i}]", ("metric",))
    return value


def ridge_and_perturbation(gamma, b, n: int, sum_zero: bool):
    """``(gamma, b)`` of objective (2.2), checked: ``gamma`` finite and ``>= 0`` (``> 0``
    unless ``sum_zero``), ``b`` an ``(n,)`` finite array (``None``: zeros), as float64."""
    value = real(gamma, "gamma")
    if not math.isfinite(value) or value < 0:
        raise ValueError(f"gamma must be finite and >= 0, got {gamma}")
    if value == 0 and not sum_zero:
        raise ValueError(
            "gamma = 0 needs sum_zero=True: the objective is then translation invariant"
        )
    b = np.zeros(n) if b is None else np.asarray(array(b, "b"), np.float64)
    if b.shape != (n,):
        raise ValueError(f"perturbation b must have shape ({n},), got {b.shape}")
    if not np.all(np.isfinite(b)):
        raise ValueError("perturbation b must be finite")
    return value, b
