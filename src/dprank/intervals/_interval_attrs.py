"""A frame attribute that pandas neither copies nor compares element by element."""

from __future__ import annotations

import numpy as np


class AttrArray:
    """An array kept in ``DataFrame.attrs``: ``numpy.asarray`` gives it back (read-only).

    pandas deep-copies ``attrs`` after each operation and compares them when it
    concatenates; this wrapper is shared rather than copied (its array is read-only)
    and compares by value, so that a frame of 10^5 items stays as quick to transform
    as one without it (a tuple of 10^5 floats is copied element by element).
    """

    __slots__ = ("_array",)

    def __init__(self, array):
        self._array = np.array(array, dtype=np.float64)
        self._array.flags.writeable = False

    def __array__(self, dtype=None, copy=None):
        out = self._array if dtype is None else self._array.astype(dtype)
        return out.copy() if copy and out is self._array else out

    def __deepcopy__(self, memo):
        return self

    def __eq__(self, other):
        return isinstance(other, AttrArray) and np.array_equal(self._array, other._array)

    def __hash__(self):
        return hash(self._array.tobytes())

    def __len__(self):
        return self._array.size

    def __repr__(self):
        return f"AttrArray({self._array!r})"
