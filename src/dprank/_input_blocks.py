"""Validating and coding a comparison file's blocks (private to :mod:`dprank.inputs`).

:func:`dprank.inputs.read_comparisons` streams a file in blocks of pyarrow
arrays; :class:`_BlockReader` validates each block with array operations (the
messages of :mod:`dprank.inputs`, with the file's line numbers), codes its item
and user labels (:class:`_Labels`, one factorisation per block) and keeps the
coded columns, or sums them over item pairs as they stream.
"""

from __future__ import annotations

import numpy as np

from ._csv_cells import unescape_cell
from .inputs import _label_order, _Where


def _string_parts(arr) -> tuple[np.ndarray, np.ndarray]:
    """Offsets and bytes of a pyarrow string array (no copy)."""
    buffers = arr.buffers()
    offsets = np.frombuffer(buffers[1], dtype=np.int32)[arr.offset : arr.offset + len(arr) + 1]
    data = np.frombuffer(buffers[2], dtype=np.uint8) if buffers[2] is not None else np.empty(0)
    return offsets, data


_NUMPY_TYPES = {"int32": np.int32, "int64": np.int64, "double": np.float64}


def _numpy(arr) -> np.ndarray:
    """A pyarrow array of int32, int64 or float64 without nulls as numpy, by its buffer.

    No copy, and without pyarrow's ``to_numpy``, which imports pandas (a quarter
    of a second of ``dprank rank``'s start-up); other arrays go through it.
    """
    dtype = _NUMPY_TYPES.get(str(arr.type))
    if dtype is None or arr.null_count:
        return arr.to_numpy(zero_copy_only=False)
    data = arr.buffers()[1]
    return np.frombuffer(data, dtype=dtype)[arr.offset : arr.offset + len(arr)]


def _as_strings(arr, trim: bool):
    """``arr`` as a pyarrow string array; spaces around CSV fields dropped."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if isinstance(arr, np.ndarray):  # parsed integers beside text labels
        arr = pa.array(arr)
    if arr.type != pa.string():
        arr = pc.cast(arr, pa.string())
    if trim and len(arr):
        offsets, data = _string_parts(arr)
        full = offsets[1:] > offsets[:-1]
        starts, ends = offsets[:-1][full], offsets[1:][full] - 1
        if np.any(data[starts] == 32) or np.any(data[ends] == 32):
            arr = pc.utf8_trim(arr, characters=" ")
    return arr


def _empty(arr) -> np.ndarray:
    """Rows of a string array that are null or empty."""
    offsets, _ = _string_parts(arr)
    empty = offsets[1:] == offsets[:-1]
    if arr.null_count:
        empty |= arr.is_null().to_numpy(zero_copy_only=False)
    return np.flatnonzero(empty)


def _canonical_integers(arr):
    """The strings as pyarrow int64 if every one is an integer spelled as Python prints it.

    None where a field is not (``007``, ``+7``, ``-0``, text, more than 18
    characters): a byte test on each field's first two characters, then
    pyarrow's cast checks the digits.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    offsets, data = _string_parts(arr)
    if not len(arr):
        return pc.cast(arr, pa.int64())
    lengths = np.diff(offsets)
    if lengths.min() < 1 or lengths.max() > 18:
        return None
    first = data[offsets[:-1]]
    digit_or_minus = (first == 45) | ((first >= 48) & (first <= 57))
    if not np.all(digit_or_minus) or np.any((first == 48) & (lengths > 1)):
        return None
    minus = first == 45
    if np.any(minus):
        if lengths[minus].min() < 2 or np.any(data[offsets[:-1][minus] + 1] == 48):
            return None
    try:
        return pc.cast(arr, pa.int64())
    except pa.ArrowInvalid:
        return None


def _to_float(text) -> float:
    try:
        return float(text)
    except (TypeError, ValueError):
        return float("nan")


class _BlockReader:
    """Validates a file's blocks and keeps what the comparisons need (coded, or summed by pair)."""

    def __init__(
        self,
        source,
        names,
        layout,
        *,
        eps_name,
        need_epsilon,
        real_outcomes,
        aggregate,
        row_word,
        first_row,
    ):
        from .comparisons import PairSums

        self.source, self.names, self.layout = source, names, layout
        self.eps_name, self.need_epsilon, self.real_outcomes = eps_name, need_epsilon, real_outcomes
        self.row_word, self.first_row = row_word, first_row
        self.trim = row_word == "line"  # CSV: spaces around a field are not part of it
        self.items = _Labels()
        self.users = _Labels() if "user" in names else None
        self.user_eps = np.empty(0)
        self.pairs = PairSums() if aggregate else None
        self.parts: dict[str, list[np.ndarray]] = {}
        self.n_rows = 0

    def add(self, start: int, columns: dict, last: bool) -> None:
        """Validate one block (rows ``start ..``) and keep its coded columns.

        ``columns``: pyarrow arrays, or int64 numpy arrays (plain integer text).
        """
        n = len(next(iter(columns.values())))
        upto = None if last and start == 0 else start + n - 1 + self.first_row
        where = _Where(self.source, self.names, self.first_row + start, self.row_word, upto)
        wl = self.layout == "winner,loser"
        first_name, second_name = ("winner", "loser") if wl else ("item_a", "item_b")
        first = self._labels(columns[first_name], first_name, where)
        second = self._labels(columns[second_name], second_name, where)
        if isinstance(first, np.ndarray) and isinstance(second, np.ndarray):
            codes = self.items.encode(np.concatenate([first, second]))
        else:
            import pyarrow as pa

            codes = self.items.encode(
                pa.concat_arrays([_as_strings(first, False), _as_strings(second, False)])
            )
        i, j = codes[:n], codes[n:]
        y = None
        if not wl:
            y, shown = self._numbers(columns["outcome"], "outcome", where)
            if not self.real_outcomes:
                bad = np.flatnonzero((y != 0) & (y != 1))
                if bad.size:
                    raise where.error(
                        f"outcome must be 1 (item_a won) or 0 (item_b won), got {shown(bad[0])!r}",
                        bad,
                        "outcome",
                    )
        same = np.flatnonzero(i == j)
        if same.size:
            raise where.error(
                f"self-comparison: item {self.items.label(i[same[0]])!r} is on both sides",
                same,
                first_name,
            )
        count = None
        if "count" in columns:
            count, shown = self._numbers(columns["count"], "count", where)
            bad = np.flatnonzero((count <= 0) | (count != np.round(count)) | (count >= 2.0**53))
            if bad.size:
                raise where.error(
                    f"count must be a positive whole number below 2^53, got {shown(bad[0])!r}",
                    bad,
                    "count",
                )
        user = None
        if self.users is not None:
            labels = self._labels(columns["user"], "user", where)
            user = self.users.encode(labels)
        if self.need_epsilon:
            self._budgets(columns[self.eps_name], user, where)
        if self.pairs is not None:
            self.pairs.add(i, j, y, count)
        else:
            for name, values in (("i", i), ("j", j), ("y", y), ("count", count), ("user", user)):
                if values is not None:
                    self.parts.setdefault(name, []).append(values)
        self.n_rows += n

    def _labels(self, arr, name: str, where: _Where):
        """The column as int64 numpy (integer labels) or pyarrow strings, checked for gaps."""
        if isinstance(arr, np.ndarray):  # plain integer text, parsed
            return arr
        import pyarrow as pa
        import pyarrow.compute as pc

        if pa.types.is_integer(arr.type):
            if arr.null_count:
                bad = np.flatnonzero(arr.is_null().to_numpy(zero_copy_only=False))
                raise where.error(f"missing value in column '{name}'", bad, name)
            return _numpy(pc.cast(arr, pa.int64()))
        arr = _as_strings(arr, self.trim)
        bad = _empty(arr)
        if bad.size:
            raise where.error(f"missing value in column '{name}'", bad, name)
        as_int = _canonical_integers(arr)
        return arr if as_int is None else _numpy(as_int)

    def _numbers(self, arr, name: str, where: _Where):
        """``(values, shown)``: the column as float64 and the spelling of row ``k``."""
        if isinstance(arr, np.ndarray):  # plain integer text, parsed
            values = arr.astype(np.float64)

            def shown(k):
                return str(arr[int(k)])

        else:
            values, shown = self._arrow_numbers(arr, name, where)
        bad = np.flatnonzero(~np.isfinite(values))
        if bad.size:
            raise where.error(f"'{name}' must be a number, got {shown(bad[0])!r}", bad, name)
        return values, shown

    def _arrow_numbers(self, arr, name: str, where: _Where):
        """:meth:`_numbers` of a pyarrow array (numbers, or text read as float)."""
        import pyarrow as pa
        import pyarrow.compute as pc

        if (
            pa.types.is_integer(arr.type)
            or pa.types.is_floating(arr.type)
            or pa.types.is_boolean(arr.type)
        ):
            if arr.null_count:
                bad = np.flatnonzero(arr.is_null().to_numpy(zero_copy_only=False))
                raise where.error(f"missing value in column '{name}'", bad, name)
            values = _numpy(pc.cast(arr, pa.float64()))
        else:
            arr = _as_strings(arr, self.trim)
            bad = _empty(arr)
            if bad.size:
                raise where.error(f"missing value in column '{name}'", bad, name)
            try:
                values = _numpy(pc.cast(arr, pa.float64()))
            except pa.ArrowInvalid:
                values = np.array([_to_float(s) for s in arr.to_pylist()], dtype=np.float64)

        def shown(k):
            return arr[int(k)].as_py()

        return values, shown

    def _budgets(self, arr, user: np.ndarray, where: _Where) -> None:
        name = self.eps_name
        eps, shown = self._numbers(arr, name, where)
        bad = np.flatnonzero(~(eps > 0))
        if bad.size:
            raise where.error(
                f"the budget '{name}' must be positive, got {shown(bad[0])!r}", bad, name
            )
        known = self.user_eps
        if known.size < self.users.size:
            known = np.concatenate([known, np.full(self.users.size - known.size, np.nan)])
        fresh = np.isnan(known)
        first_eps = np.full(known.size, np.nan)
        first_eps[user[::-1]] = eps[::-1]  # each user's first row in this block
        known[fresh] = first_eps[fresh]
        self.user_eps = known
        bad = np.flatnonzero(known[user] != eps)
        if bad.size:
            raise where.error(
                f"user {self.users.label(user[bad[0]])!r} has different budgets "
                f"'{name}' on different rows (one release budget per user)",
                bad,
                name,
            )

    def finish(self):
        """``(comparisons, user labels or None)`` with items and users in label order."""
        from .comparisons import Comparisons

        rank, labels = self.items.finish()
        if self.pairs is not None:
            ps = self.pairs.result(rank, labels.size)
            return Comparisons._from_whole_pair_sums(ps, labels=labels), None
        parts = {name: np.concatenate(p) for name, p in self.parts.items() if p}
        m = self.n_rows
        user = user_labels = user_eps = None
        if self.users is not None:
            urank, user_labels = self.users.finish()
            user = urank[parts["user"]]
            if self.need_epsilon:
                user_eps = np.empty(user_labels.size)
                user_eps[urank] = self.user_eps
        comparisons = Comparisons(
            n_items=int(labels.size),
            i=rank[parts["i"]],
            j=rank[parts["j"]],
            y=parts["y"] if "y" in parts else np.ones(m),
            count=parts["count"] if "count" in parts else np.ones(m),
            user=user,
            labels=labels,
            user_epsilon=user_eps,
        )
        return comparisons, user_labels


class _Labels:
    """Provisional integer ids of labels, new ones numbered as the blocks bring them.

    Integer labels are looked up in a table over their value range while the
    labels are dense in it (else each block is sorted once and its distinct
    labels searched among those seen before); text is factorised by pyarrow's
    hash, once per block, and only the block's distinct labels looked up.
    :meth:`finish` gives the final codes, in label order.
    """

    def __init__(self):
        self.ints = True
        self.values = np.empty(0, dtype=np.int64)  # integer labels, by id
        # ids by value: a table over the values' range while they are dense enough
        # (``lookup[v - lo]``, -1 for unseen), else a sorted search
        self.lo, self.lookup = 0, np.empty(0, dtype=np.int64)
        self.sorted_values = np.empty(0, dtype=np.int64)
        self.sorted_ids = np.empty(0, dtype=np.int64)
        self.text: dict[str, int] = {}
        self.text_labels: list[str] = []

    @property
    def size(self) -> int:
        return int(self.values.size) if self.ints else len(self.text_labels)

    def label(self, code) -> str:
        return str(self.values[int(code)]) if self.ints else self.text_labels[int(code)]

    def encode(self, arr) -> np.ndarray:
        """Ids of the labels in ``arr`` (int64 numpy array, or pyarrow strings)."""
        if isinstance(arr, np.ndarray):
            if self.ints:
                return self._encode_ints(arr)
            import pyarrow as pa

            arr = pa.array(arr)
        if self.ints:  # the first text: integer labels so far keep their (canonical) spelling
            self.text_labels = [str(v) for v in self.values.tolist()]
            self.text = {s: k for k, s in enumerate(self.text_labels)}
            self.ints = False
        return self._encode_text(_as_strings(arr, False))

    def _encode_ints(self, x: np.ndarray) -> np.ndarray:
        lo, hi = int(x.min()), int(x.max())
        if self.lookup is not None:
            if self.values.size:
                lo, hi = min(lo, self.lo), max(hi, self.lo + self.lookup.size - 1)
            if hi - lo <= 2 * x.size + 65536:  # by value: a table over the range, no hashing
                return self._encode_by_table(x, lo, hi)
            self.lookup = None  # labels too spread out for a table: sorted search from now on
            order = np.argsort(self.values, kind="stable")
            self.sorted_values, self.sorted_ids = self.values[order], order
        uniq, local = np.unique(x, return_inverse=True)
        pos = np.searchsorted(self.sorted_values, uniq)
        found = pos < self.sorted_values.size
        found[found] = self.sorted_values[pos[found]] == uniq[found]
        ids = np.empty(uniq.size, dtype=np.int64)
        ids[found] = self.sorted_ids[pos[found]]
        new = np.flatnonzero(~found)
        if new.size:
            ids[new] = self.values.size + np.arange(new.size)
            self.values = np.concatenate([self.values, uniq[new]])
            order = np.argsort(self.values, kind="stable")
            self.sorted_values, self.sorted_ids = self.values[order], order
        return ids[local]

    def _encode_by_table(self, x: np.ndarray, lo: int, hi: int) -> np.ndarray:
        """Ids by a table over the labels' range ``lo .. hi`` (-1: not seen yet)."""
        if not self.values.size or lo < self.lo or hi >= self.lo + self.lookup.size:
            table = np.full(hi - lo + 1, -1, dtype=np.int64)
            if self.values.size:
                table[self.lo - lo : self.lo - lo + self.lookup.size] = self.lookup
            self.lookup, self.lo = table, lo
        shifted = x - self.lo if self.lo else x
        ids = self.lookup[shifted]
        missing = ids < 0
        if missing.any():  # new labels: the next ids, in the order of their values
            present = np.zeros(self.lookup.size, dtype=bool)
            present[shifted[missing]] = True
            new = np.flatnonzero(present)
            self.lookup[new] = np.arange(self.values.size, self.values.size + new.size)
            self.values = np.concatenate([self.values, new + self.lo])
            ids = self.lookup[shifted]
        return ids

    def _encode_text(self, arr) -> np.ndarray:
        import pyarrow.compute as pc

        encoded = pc.dictionary_encode(arr)
        local = _numpy(encoded.indices)
        table, labels = self.text, self.text_labels
        ids = np.empty(len(encoded.dictionary), dtype=np.int64)
        for k, s in enumerate(encoded.dictionary.to_pylist()):
            s = unescape_cell(s)  # a cell the command wrote escaped reads as its label
            code = table.get(s)
            if code is None:
                code = table[s] = len(labels)
                labels.append(s)
            ids[k] = code
        return ids[local]

    def finish(self) -> tuple[np.ndarray, np.ndarray]:
        """``(rank, labels)``: the final code of each id, and the labels in code order."""
        if self.ints:
            order = np.argsort(self.values, kind="stable")
            values = self.values[order]
            # as text no wider than the longest label (str alone gives 21 characters each)
            width = max(len(str(values[0])), len(str(values[-1]))) if values.size else 1
            labels = values.astype(f"U{width}")
        else:
            labels = np.asarray(self.text_labels, dtype=object)
            order = _label_order(labels)
            labels = labels[order].astype(str)
        rank = np.empty(order.size, dtype=np.int64)
        rank[order] = np.arange(order.size)
        return rank, labels
