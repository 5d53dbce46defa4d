"""Platform-independent port of numpy's generic (non-SIMD) ``argpartition``.

The authors of Paper A take the "top-k" of a score vector ``x`` to be the last
``k`` entries of ``np.argpartition(x, k)`` (docs/papers/paper-a.md#s0 item 5,
#s2-5 and #s2-7). ``argpartition`` only guarantees that position ``k``
holds the element of rank ``k``; which indices land in the other positions
depends on numpy's selection algorithm. The authors' machine (Python 3.9,
macOS) ran numpy's generic ``introselect``. numpy >= 2.0 on x86 instead sends a
single ``kth`` on 4- and 8-byte types to the x86-simd-sort ``argselect``
(AVX2 / AVX-512), which gives different index arrays. On numpy 2.4.6 the generic
path can be forced with ``NPY_DISABLE_CPU_FEATURES="X86_V3 X86_V4 AVX512_ICL
AVX512_SPR"`` set before numpy is imported. This module gives the generic
result on every platform.

Source of the algorithm: numpy ``numpy/_core/src/npysort/selection.cpp``
(numpy 2.x; ``numpy/core/src/npysort/selection.cpp`` in numpy 1.22-1.26, and
``selection.c.src`` before that). Ported functions: ``introselect_`` in its
``arg`` variant (which permutes the index array ``tosort`` and compares
``v[tosort[i]]``), ``dumb_select_``, ``median3_swap_``, ``median5_``,
``median_of_median5_``, ``unguarded_partition_`` and ``store_pivot`` with the
pivot stack of size ``NPY_MAX_PIVOT_STACK = 50``. The comparison is
``Tag::less`` (``DOUBLE_LT``): ``a < b or (isnan(b) and not isnan(a))``, which
puts NaN last. As in ``PyArray_ArgPartition``, the index array starts as
``arange(n)``, negative ``kth`` are wrapped and several ``kth`` are sorted and
processed in increasing order, sharing one pivot stack per row.

Between numpy 1.2x and 2.x the comparisons and swaps of the generic algorithm
are unchanged. The only differences are in when pivots are pushed onto the
pivot stack. That stack is read only by a later ``kth`` of the same call, so a
single integer ``kth`` gives the same result in both. This module follows the
numpy 2.x code.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

__all__ = ["NPY_MAX_PIVOT_STACK", "argpartition_generic", "authors_top_k"]

#: Size of the pivot stack of ``PyArray_ArgPartition`` (``npy_partition.h``).
NPY_MAX_PIVOT_STACK = 50


# ---------------------------------------------------------------------------
# Building blocks. ``v`` is a list of sort keys without NaN (see _keys), ``t``
# the index list being permuted (numpy's ``tosort``). Positions are absolute
# positions in ``t``; ``base`` plays the role of numpy's ``tosort + offset``.
# ---------------------------------------------------------------------------


def _store_pivot(pivot: int, kth: int, pivots: list[int] | None) -> None:
    """``store_pivot``: push a pivot position that later ``kth`` may reuse."""
    if pivots is None:
        return
    if pivot == kth and len(pivots) == NPY_MAX_PIVOT_STACK:
        pivots[-1] = pivot
    elif pivot >= kth and len(pivots) < NPY_MAX_PIVOT_STACK:
        pivots.append(pivot)


def _median3_swap(v: list, t: list[int], low: int, mid: int, high: int) -> None:
    """``median3_swap_``: median of three to ``low``, smallest to ``low + 1``."""
    if v[t[high]] < v[t[mid]]:
        t[high], t[mid] = t[mid], t[high]
    if v[t[high]] < v[t[low]]:
        t[high], t[low] = t[low], t[high]
    if v[t[low]] < v[t[mid]]:
        t[low], t[mid] = t[mid], t[low]
    t[mid], t[low + 1] = t[low + 1], t[mid]


def _median5(v: list, t: list[int], b: int) -> int:
    """``median5_``: offset (1, 2 or 3) of the median of ``t[b:b + 5]``, with swaps."""
    if v[t[b + 1]] < v[t[b]]:
        t[b + 1], t[b] = t[b], t[b + 1]
    if v[t[b + 4]] < v[t[b + 3]]:
        t[b + 4], t[b + 3] = t[b + 3], t[b + 4]
    if v[t[b + 3]] < v[t[b]]:
        t[b + 3], t[b] = t[b], t[b + 3]
    if v[t[b + 4]] < v[t[b + 1]]:
        t[b + 4], t[b + 1] = t[b + 1], t[b + 4]
    if v[t[b + 2]] < v[t[b + 1]]:
        t[b + 2], t[b + 1] = t[b + 1], t[b + 2]
    if v[t[b + 3]] < v[t[b + 2]]:
        return 1 if v[t[b + 3]] < v[t[b + 1]] else 3
    return 2


def _unguarded_partition(v: list, t: list[int], pivot, ll: int, hh: int) -> tuple[int, int]:
    """``unguarded_partition_``: Hoare partition without bound checks; returns ``(ll, hh)``."""
    while True:
        ll += 1
        while v[t[ll]] < pivot:
            ll += 1
        hh -= 1
        while pivot < v[t[hh]]:
            hh -= 1
        if hh < ll:
            return ll, hh
        t[ll], t[hh] = t[hh], t[ll]


def _median_of_median5(v: list, t: list[int], b: int, num: int) -> int:
    """``median_of_median5_`` on ``t[b:b + num]``; returns the pivot offset from ``b``."""
    nmed = num // 5
    for i in range(nmed):
        subleft = b + 5 * i
        m = _median5(v, t, subleft)
        t[subleft + m], t[b + i] = t[b + i], t[subleft + m]
    if nmed > 2:
        _introselect(v, t, b, nmed, nmed // 2, None, True)
    return nmed // 2


def _dumb_select(v: list, t: list[int], b: int, num: int, kth: int) -> None:
    """``dumb_select_``: selection sort of the first ``kth + 1`` places of ``t[b:b + num]``."""
    for i in range(kth + 1):
        minidx = i
        minval = v[t[b + i]]
        for k in range(i + 1, num):
            val = v[t[b + k]]
            if val < minval:
                minidx = k
                minval = val
        t[b + i], t[b + minidx] = t[b + minidx], t[b + i]


def _introselect(
    v: list,
    t: list[int],
    b: int,
    num: int,
    kth: int,
    pivots: list[int] | None,
    inexact: bool,
) -> None:
    """``introselect_`` (arg variant) on ``t[b:b + num]``; ``kth`` is relative to ``b``."""
    low = 0
    high = num - 1

    while pivots:
        p = pivots[-1]
        if p > kth:
            high = p - 1
            break
        if p == kth:
            return
        low = p + 1
        pivots.pop()

    if kth - low < 3:
        _dumb_select(v, t, b + low, high - low + 1, kth - low)
        _store_pivot(kth, kth, pivots)
        return
    if inexact and kth == num - 1:
        # numpy's shortcut for partition(d, (x, -1)), used to detect NaN.
        maxidx = low
        maxval = v[t[b + low]]
        for k in range(low + 1, num):
            val = v[t[b + k]]
            if not val < maxval:
                maxidx = k
                maxval = val
        t[b + kth], t[b + maxidx] = t[b + maxidx], t[b + kth]
        return

    depth_limit = 2 * (num.bit_length() - 1)  # npy_get_msb(num) * 2

    while low + 1 < high:
        ll = low + 1
        hh = high
        if depth_limit > 0 or hh - ll < 5:
            mid = low + (high - low) // 2
            _median3_swap(v, t, b + low, b + mid, b + high)
        else:
            mid = ll + _median_of_median5(v, t, b + ll, hh - ll)
            t[b + mid], t[b + low] = t[b + low], t[b + mid]
            ll -= 1
            hh += 1
        depth_limit -= 1

        ll, hh = _unguarded_partition(v, t, v[t[b + low]], b + ll, b + hh)
        ll -= b
        hh -= b
        t[b + low], t[b + hh] = t[b + hh], t[b + low]

        if hh != kth:
            _store_pivot(hh, kth, pivots)
        if hh >= kth:
            high = hh - 1
        if hh <= kth:
            low = ll

    if high == low + 1 and v[t[b + high]] < v[t[b + low]]:
        t[b + high], t[b + low] = t[b + low], t[b + high]
    _store_pivot(kth, kth, pivots)


# ---------------------------------------------------------------------------
# Public interface
# ---------------------------------------------------------------------------


def _keys(row: np.ndarray, inexact: bool) -> list:
    """Sort keys with the order of numpy's ``Tag::less`` and without NaN.

    Without NaN the keys are the values themselves (``-0.0 == 0.0`` as in C).
    With NaN, values are replaced by dense ranks in which all NaN share the
    largest rank: the algorithm only asks ``less(a, b)``, so this gives the
    same comparisons as ``DOUBLE_LT`` while letting Python's ``<`` be used.
    """
    vals = row.tolist()
    if inexact and any(a != a for a in vals):
        _, inverse = np.unique(row, return_inverse=True, equal_nan=True)
        return inverse.tolist()
    return vals


def _argpartition_row(vals: list, kths: list[int], inexact: bool) -> list[int]:
    """One row: arange index list, then ``introselect_`` for each sorted ``kth``."""
    t = list(range(len(vals)))
    pivots: list[int] = []
    for kth in kths:
        _introselect(vals, t, 0, len(vals), kth, pivots, inexact)
    return t


def argpartition_generic(x: np.ndarray, kth: int | Sequence[int]) -> np.ndarray:
    """``np.argpartition(x, kth)`` as computed by numpy's generic introselect.

    Returns exactly the index array that numpy's non-SIMD ``introselect``
    returns for ``np.argpartition(x, kth)`` (default ``kind='introselect'``,
    ``axis=-1``), independent of platform, CPU features and numpy version.

    Parameters
    ----------
    x : array_like
        Real values, 1-D or N-D; N-D arrays are partitioned along the last
        axis, one row at a time. Floating-point input (float64 is the tested
        case) follows ``DOUBLE_LT``: NaN sorts last, ``-0.0 == 0.0``. Integer
        and boolean input use exact comparisons and skip numpy's
        ``kth == n - 1`` shortcut, as numpy does for non-inexact types.
    kth : int or sequence of int
        Element index(es) to partition by; negative values count from the
        end. Several values are processed in increasing order with a shared
        pivot stack, as numpy does.

    Returns
    -------
    numpy.ndarray
        ``intp`` array with the shape of ``x``: indices that partition ``x``
        along its last axis.

    Raises
    ------
    ValueError
        If ``x`` is 0-d, or a ``kth`` is out of bounds.
    TypeError
        If ``x`` is not real-valued, or ``kth`` is not integral.

    Notes
    -----
    The algorithm is ``introselect_`` from numpy's
    ``numpy/_core/src/npysort/selection.cpp``: ``dumb_select`` if
    ``kth - low < 3``, a max scan if ``kth == n - 1`` (floating types),
    otherwise median-of-3 quickselect with a median-of-medians-of-5 fallback
    after ``2 * floor(log2(n))`` rounds. See the module docstring.

    Examples
    --------
    >>> argpartition_generic([3.0, 1.0, 2.0, 5.0, 4.0, 0.0], 2).tolist()
    [5, 1, 2, 3, 4, 0]
    """
    arr = np.asarray(x)
    if arr.ndim == 0:
        raise ValueError("x must have at least one dimension (argpartition_generic)")
    if arr.dtype.kind == "f":
        inexact = True
    elif arr.dtype.kind in "biu":
        inexact = False
    else:
        raise TypeError(f"x must hold real numbers (argpartition_generic), got {arr.dtype}")

    n = arr.shape[-1]
    kth_arr = np.asarray(kth)
    if kth_arr.dtype.kind not in "iu" or kth_arr.ndim > 1:
        raise TypeError("kth must be an integer or a 1-D sequence of integers")
    kths = []
    for k in kth_arr.reshape(-1).tolist():
        kk = k + n if k < 0 else k
        if arr.size != 0 and not 0 <= kk < n:
            raise ValueError(f"kth(={k}) out of bounds ({n})")
        kths.append(kk)
    kths.sort()

    out = np.empty(arr.shape, dtype=np.intp)
    if arr.size == 0:
        return out
    rows = arr.reshape(-1, n)
    flat_out = out.reshape(-1, n)
    for r in range(rows.shape[0]):
        flat_out[r] = _argpartition_row(_keys(rows[r], inexact), kths, inexact)
    return out


def authors_top_k(x: np.ndarray, k: int) -> np.ndarray:
    """What Paper A's individual-DP code calls "top-k": last ``k`` of ``argpartition(x, k)``.

    The authors compute ``A(x) = np.argpartition(x, k)[-k:]`` for the
    Hamming metrics of Figures 5-7 (docs/papers/paper-a.md#s2-5,
    ``hit_at_k`` and ``hit_at_k_by_count``). This function gives that set as
    numpy's generic introselect computes it (:func:`argpartition_generic`),
    which is the algorithm the authors' numpy ran, so the result does not
    depend on this machine's CPU or numpy build (docs/papers/paper-a.md#s2-7, option A).

    This is **not** the set of the ``k`` largest entries in general.
    ``argpartition(x, k)`` only puts the element of rank ``k`` (0-based,
    ascending) at position ``k``, with smaller or equal elements before it
    and larger or equal ones after it. The last ``k`` positions therefore hold
    some ``k`` of the ``n - k - 1`` elements above rank ``k``, and which ones
    depends on the selection algorithm. The true top-k would be
    ``argpartition(x, n - k)[-k:]``. On the authors' setting
    (``theta* = concat(zeros(4), log(U))``, ``U ~ Unif(0.2, 0.7)``, n = 16,
    k = 4) this set misses about 24 % of the true top-k on average, which
    gives the error floor near 0.25 of Figures 5-7 (d) (docs/papers/paper-a.md#s0
    item 5).

    Parameters
    ----------
    x : (n,) array_like
        Scores (higher is better in the authors' intent).
    k : int
        Set size, ``1 <= k < n``. ``k = n`` is an error in the authors' call,
        since ``argpartition(x, n)`` is out of bounds.

    Returns
    -------
    numpy.ndarray
        The ``k`` selected indices, sorted ascending (``intp``).

    See Also
    --------
    dprank.fit.ranking.top_k : the true top-k with explicit tie-breaking.
    """
    arr = np.asarray(x)
    if arr.ndim != 1:
        raise ValueError(f"x must be a 1-D array (authors_top_k), got shape {arr.shape}")
    if arr.dtype.kind not in "biuf":
        raise TypeError(f"x must hold real numbers, got {arr.dtype}")
    if isinstance(k, (bool, np.bool_)) or not isinstance(k, (int, np.integer)):
        raise TypeError(f"k must be an integer in 1..{arr.shape[0] - 1}, got {k!r}")
    k = int(k)
    if not 1 <= k < arr.shape[0]:
        raise ValueError(f"k must be in 1..{arr.shape[0] - 1}, got {k}")
    return np.sort(argpartition_generic(arr, k)[-k:])
