"""Input checks shared by the public functions: one vectorised pass, one clear message.

Each check costs one pass over the array (no per-element Python) and returns the
array as numpy sees it, so a function validates its input once at the top.
"""

from __future__ import annotations

import numpy as np


def binary(y, name: str) -> np.ndarray:
    """``y`` as an array, after checking that every entry is 0 or 1 (a comparison outcome)."""
    y = np.asarray(y)
    if y.size == 0 or y.dtype == bool:
        return y
    if y.dtype.kind == "u":
        bad = y.max() > 1
    elif y.dtype.kind == "i":
        bad = y.min() < 0 or y.max() > 1
    else:
        bad = not np.all((y == 0) | (y == 1))
    if bad:
        first = y[(y != 0) & (y != 1)].flat[0].item()
        raise ValueError(f"{name} must hold 0/1 comparison outcomes, got {first!r}")
    return y


def no_nan(x, name: str) -> np.ndarray:
    """``x`` as an array, after checking that it holds no NaN."""
    x = np.asarray(x)
    if x.dtype.kind in "fc" and np.isnan(x).any():
        raise ValueError(f"{name} contains NaN ({int(np.isnan(x).sum())} of {x.size} entries)")
    return x


def positive(value, name: str) -> float:
    """``value`` as a float, after checking that it is > 0 (``inf`` allowed, NaN not)."""
    v = float(value)
    if not v > 0:
        raise ValueError(f"{name} must be positive, got {value!r}")
    return v


def count(value, name: str, minimum: int = 0) -> int:
    """``value`` as an int, after checking that it is an integer >= ``minimum``."""
    if isinstance(value, bool) or not float(value).is_integer() or value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return int(value)
