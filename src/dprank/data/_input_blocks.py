"""Validating and coding a comparison file's blocks (private to :mod:`dprank.data.inputs`).

:func:`dprank.data.inputs.read_comparisons` streams a file in blocks
(:mod:`dprank.data._input_stream`); :class:`BlockReader` validates each block with
array operations (the messages of :mod:`dprank.data.inputs`, with the file's line
numbers), codes its item and user labels (:class:`_Labels`: the compiled label
tables, then the normalisation of the block's new distinct labels) and keeps
the coded columns, or sums them over item pairs as they stream
(:class:`dprank.data.comparisons.PairSums`: packed rows, summed at the end by a
compiled radix sort).

A block's columns are label ids already (the compiled CSV parser,
:class:`Coded`), int64 or float64 numpy arrays (numbers the compiled parser
read), or pyarrow arrays (the text reader, Parquet, JSON lines).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..base._csv_cells import normalize_label
from ._input_table import Where, label_order


class Coded(NamedTuple):
    """A label column as the compiled parser gives it: ids of its label table."""

    ids: np.ndarray

    def __len__(self) -> int:
        return int(self.ids.size)


def _string_parts(arr) -> tuple[np.ndarray, np.ndarray]:
    """Offsets (int64) and bytes of a pyarrow string or large_string array (bytes not copied)."""
    import pyarrow as pa

    buffers = arr.buffers()
    kind = np.int64 if pa.types.is_large_string(arr.type) else np.int32
    offsets = np.frombuffer(buffers[1], dtype=kind)[arr.offset : arr.offset + len(arr) + 1]
    data = np.frombuffer(buffers[2], dtype=np.uint8) if buffers[2] is not None else np.empty(0)
    return offsets.astype(np.int64, copy=False), data


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


def _as_strings(arr):
    """``arr`` as a pyarrow string array, whitespace stripped from both ends of each value."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if arr.type not in (pa.string(), pa.large_string()):
        arr = pc.cast(arr, pa.string())
    return pc.utf8_trim_whitespace(arr)


def _nulls(arr) -> np.ndarray | None:
    return arr.is_null().to_numpy(zero_copy_only=False) if arr.null_count else None


def _to_float(text) -> float:
    try:
        return float(text)
    except (TypeError, ValueError):
        return float("nan")


class BlockReader:
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
        expected_rows: int = 0,
    ):
        from .comparisons import PairSums

        self.source, self.names, self.layout = source, names, layout
        self.eps_name, self.need_epsilon, self.real_outcomes = eps_name, need_epsilon, real_outcomes
        self.row_word, self.first_row = row_word, first_row
        self.items = _Labels()
        self.users = _Labels() if "user" in names else None
        self.user_eps = np.empty(0)
        self.pairs = PairSums(expected_rows) if aggregate else None
        self.parts: dict[str, list[np.ndarray]] = {}
        self.n_rows = 0

    def tables(self) -> dict:
        """The label table of each label column (for the compiled CSV parser)."""
        wl = self.layout == "winner,loser"
        tables = dict.fromkeys(("winner", "loser") if wl else ("item_a", "item_b"), None)
        tables = {c: self.items.table for c in tables}
        if self.users is not None:
            tables["user"] = self.users.table
        return tables

    def add(self, start: int, columns: dict, last: bool) -> None:
        """Validate one block (rows ``start ..``) and keep its coded columns."""
        n = len(next(iter(columns.values())))
        # the blocks before had no offending row: in the last block the count is the file's
        upto = None if last else start + n - 1 + self.first_row
        where = Where(self.source, self.names, self.first_row + start, self.row_word, upto)
        wl = self.layout == "winner,loser"
        first_name, second_name = ("winner", "loser") if wl else ("item_a", "item_b")
        first = self.items.encode(columns[first_name], first_name, where)
        second = self.items.encode(columns[second_name], second_name, where)
        i, j = self.items.settle({first_name: first, second_name: second}, where)
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
            raw = self.users.encode(columns["user"], "user", where)
            (user,) = self.users.settle({"user": raw}, where)
        if self.need_epsilon:
            self._budgets(columns[self.eps_name], user, where)
        if self.pairs is not None:
            self.pairs.add(i, j, y, count)
        else:  # copies: the compiled parser writes its next block into the same buffers
            for name, values in (("i", i), ("j", j), ("y", y), ("count", count), ("user", user)):
                if values is not None:
                    self.parts.setdefault(name, []).append(np.array(values))
        self.n_rows += n

    def _numbers(self, arr, name: str, where: Where):
        """``(values, shown)``: the column as float64 and the spelling of row ``k``."""
        if isinstance(arr, np.ndarray):  # integers the compiled parser read (exact)
            values = arr.astype(np.float64, copy=False)

            def shown(k):
                return str(int(values[int(k)]))

        else:
            values, shown = self._arrow_numbers(arr, name, where)
        bad = np.flatnonzero(~np.isfinite(values))
        if bad.size:
            raise where.error(f"'{name}' must be a number, got {shown(bad[0])!r}", bad, name)
        return values, shown

    def _arrow_numbers(self, arr, name: str, where: Where):
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
            arr = _as_strings(arr)
            bad = np.flatnonzero(
                pc.fill_null(pc.equal(pc.utf8_length(arr), 0), True).to_numpy(zero_copy_only=False)
            )
            if bad.size:
                raise where.error(f"missing value in column '{name}'", bad, name)
            try:
                values = _numpy(pc.cast(arr, pa.float64()))
            except pa.ArrowInvalid:
                values = np.array([_to_float(s) for s in arr.to_pylist()], dtype=np.float64)

        def shown(k):
            return arr[int(k)].as_py()

        return values, shown

    def _budgets(self, arr, user: np.ndarray, where: Where) -> None:
        name = self.eps_name
        eps, shown = self._numbers(arr, name, where)
        where.positive_budgets(eps, name, shown)
        known = self.user_eps
        size = self.users.size
        if known.size < size:
            known = np.concatenate([known, np.full(size - known.size, np.nan)])
        fresh = np.isnan(known)
        first_eps = np.full(known.size, np.nan)
        first_eps[user[::-1]] = eps[::-1]  # each user's first row in this block
        known[fresh] = first_eps[fresh]
        self.user_eps = known
        where.one_budget_per_user(known, user, eps, name, self.users.label)

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
                canon = self.users.canonical()
                user_eps[urank[canon]] = self.user_eps[canon]
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


#: the bytes of the characters :func:`dprank.data._input_table.label_order` takes for a number's
_NUMBER_BYTES = np.zeros(256, dtype=bool)
_NUMBER_BYTES[np.frombuffer(b"0123456789+-.eE \t", dtype=np.uint8)] = True


class _Labels:
    """Ids of a column kind's labels (items, or users), in the normalised form of every label.

    The compiled :class:`dprank.base._compiled.LabelTable` numbers the labels as they
    first appear (ASCII whitespace stripped; integers by value). After each block,
    its new labels that hold non-ASCII text are decoded and normalised
    (:func:`dprank.data.inputs.normalize_label`: NFC, whitespace stripped); one that
    changes is made an alias of its normalised form, so ``"Zoë"`` in either Unicode
    form, or with a no-break space after it, is one item. Only distinct labels are
    normalised: the cost follows the labels, not the rows. :meth:`finish` gives
    the final codes, in label order.
    """

    def __init__(self):
        from ..base._compiled import LabelTable

        self.table = LabelTable()
        self.seen = 0  # ids whose normalisation is settled
        self.alias: np.ndarray | None = None  # id -> id of its normalised form, once one differs
        self.texts: dict[int, str] = {}  # the non-ASCII labels, decoded

    @property
    def size(self) -> int:
        return len(self.table)

    def encode(self, col, name: str, where: Where) -> np.ndarray:
        """Provisional ids of a label column (a missing or blank label is an error)."""
        if isinstance(col, Coded):
            return col.ids
        if isinstance(col, np.ndarray):
            return self.table.encode_ints(col)
        import pyarrow as pa
        import pyarrow.compute as pc

        if pa.types.is_integer(col.type):
            if col.null_count:
                bad = np.flatnonzero(col.is_null().to_numpy(zero_copy_only=False))
                raise where.error(f"missing value in column '{name}'", bad, name)
            return self.table.encode_ints(_numpy(pc.cast(col, pa.int64())))
        if col.type not in (pa.string(), pa.large_string()):
            col = pc.cast(col, pa.string())
        offsets, data = _string_parts(col)
        ids = self.table.encode_texts(data, offsets, _nulls(col))
        bad = np.flatnonzero(ids == -2)
        if bad.size:
            raise where.error(f"missing value in column '{name}'", bad, name)
        return ids

    def settle(self, columns: dict[str, np.ndarray], where: Where) -> list[np.ndarray]:
        """Normalise the labels new since the last block; the columns' ids of normalised labels."""
        hi = self.size
        if hi > self.seen:
            self._normalise_new(columns, where, hi)
        if self.alias is None:
            return list(columns.values())
        return [self.alias[ids] for ids in columns.values()]

    def _normalise_new(self, columns, where: Where, hi: int) -> None:
        lo = self.seen
        _, lengths, text = self.table.export(lo, hi)
        raw = np.frombuffer(text, dtype=np.uint8)
        # ASCII whitespace is trimmed as the labels are coded; what is left to normalise:
        # labels beyond ASCII (NFC, Unicode spaces) and the spreadsheet escape ('=...)
        if raw.size and (raw.max() >= 0x80 or np.any(raw == 0x27)):
            texts = np.flatnonzero(lengths > 0)
            ends = np.cumsum(lengths[texts])
            starts = ends - lengths[texts]
            odd = (np.maximum.reduceat(raw, starts) >= 0x80) | (raw[starts] == 0x27)
            for k, s, e in zip(texts[odd], starts[odd], ends[odd], strict=True):
                self._normalise(int(lo + k), text[s:e], columns, where)
        self.seen = self.size
        if self.alias is not None and self.alias.size < self.seen:
            self.alias = np.concatenate(
                [self.alias, np.arange(self.alias.size, self.seen, dtype=np.int64)]
            )

    def _normalise(self, code: int, raw: bytes, columns, where: Where) -> None:
        """Decode and normalise label ``code``; alias it where its normal form differs."""
        try:
            label = raw.decode("utf-8")
        except UnicodeDecodeError:
            name, rows = self._rows_of(code, columns)
            raise where.error(
                "is not a UTF-8 text file (this field is not UTF-8)", rows, name
            ) from None
        norm = normalize_label(label)
        if norm == label:
            self.texts[code] = label
            return
        if not norm:
            name, rows = self._rows_of(code, columns)
            raise where.error(f"missing value in column '{name}'", rows, name)
        target = self.table.encode_text(norm)
        if target >= self.seen and target not in self.texts and not norm.isascii():
            self.texts[target] = norm
        if self.alias is None:
            self.alias = np.arange(self.size, dtype=np.int64)
        elif self.alias.size < self.size:
            self.alias = np.concatenate(
                [self.alias, np.arange(self.alias.size, self.size, dtype=np.int64)]
            )
        self.alias[code] = self.alias[target]

    @staticmethod
    def _rows_of(code: int, columns) -> tuple[str, np.ndarray]:
        for name, ids in columns.items():
            rows = np.flatnonzero(ids == code)
            if rows.size:
                return name, rows
        return next(iter(columns)), np.zeros(1, dtype=np.int64)  # pragma: no cover

    def canonical(self) -> np.ndarray:
        """The ids that are labels in normal form (the others are aliases of one)."""
        ids = np.arange(self.size, dtype=np.int64)
        return ids if self.alias is None else ids[self.alias[: self.size] == ids]

    def label(self, code) -> str:
        code = int(code)
        if code in self.texts:
            return self.texts[code]
        values, lengths, text = self.table.export(code, code + 1)
        return str(int(values[0])) if lengths[0] < 0 else text.decode("utf-8", "replace")

    def finish(self) -> tuple[np.ndarray, np.ndarray]:
        """``(rank, labels)``: the final code of each id, and the labels in code order."""
        from ..base._compiled import ints_to_text

        canon = self.canonical()
        values, all_lengths, text = self.table.export(0, self.size)
        values, lengths = values[canon], all_lengths[canon]
        if np.all(lengths < 0):  # integer labels: numeric order
            # one id per integer (the table keys them by value): no ties, so the default sort
            # (several times faster than the stable merge sort on 10^5 labels) gives the order
            order = np.argsort(values)
            # as text no wider than the longest label (str alone gives 21 characters each)
            labels = ints_to_text(values[order])
        else:
            fast = self._ascii_order(canon, all_lengths, text)
            if fast is not None:
                order, labels = fast
            else:  # as numpy text once: ordered (label_order takes it as it is), permuted
                labels = np.array(self._texts(canon, values, all_lengths, text), dtype=str)
                order = label_order(labels)
                labels = labels[order]
        rank_canon = np.empty(order.size, dtype=np.int64)
        rank_canon[order] = np.arange(order.size)
        rank = np.empty(self.size, dtype=np.int64)
        rank[canon] = rank_canon
        if self.alias is not None:
            rank = rank[self.alias[: self.size]]
        return rank, labels

    def _ascii_order(self, canon, all_lengths, text):
        """``(order, labels)`` of :meth:`finish` for text labels in plain ASCII (no NUL,
        not every character a number's), without a Python string per label; else None.

        Each label's bytes, padded with zeros to whole 8-byte words, are the words'
        big-endian integers: their order (of the bytes in which labels differ) is the order
        of the texts, as :func:`label_order` sorts them (numpy text: by code point, the
        shorter first where one begins the other).
        """
        lengths = all_lengths[canon]
        if self.texts or self.alias is not None or not lengths.size:
            return None
        if lengths.min() <= 0 or lengths.max() > 64:  # an integer label, or a long text
            return None
        raw = np.frombuffer(text, dtype=np.uint8)
        if raw.min() == 0 or raw.max() >= 0x80 or _NUMBER_BYTES[raw].all():
            return None  # beyond ASCII, a NUL, or perhaps numbers (label_order's own test)
        # no aliases and no integers: the labels' bytes are `text`, in id order
        width = int(lengths.max())
        words = -(-width // 8)
        padded = np.zeros((canon.size, 8 * words), dtype=np.uint8)
        if lengths.min() == width:  # one length: the bytes are the rows
            padded[:, :width] = raw.reshape(canon.size, width)
        else:  # byte k of label r to padded[r, k]: its offset moved by the padding before it
            first = np.cumsum(lengths) - lengths
            shift = np.arange(canon.size) * (8 * words) - first
            padded.reshape(-1)[np.repeat(shift, lengths) + np.arange(raw.size)] = raw
        # the labels are distinct (one id per text), so the order is the only one; a byte
        # place where every label has the same byte orders nothing: the order is that of the
        # places where labels differ, packed into words (big-endian integers), and where they
        # fit in one word, one sort of distinct numbers (numpy's default sort, several times
        # faster than lexsort's stable merge sort on 10^5 labels)
        whole = padded.view(np.uint64)  # the places where a label differs from the first
        spread = np.bitwise_or.reduce(whole ^ whole[0], axis=0)
        differ = np.flatnonzero(spread.view(np.uint8))
        words = -(-differ.size // 8)
        packed = np.zeros((canon.size, 8 * words), dtype=np.uint8)
        packed[:, : differ.size] = padded[:, differ]
        keys = packed.view(">u8").astype(np.uint64)  # a row of words per label, native order
        if words == 1:
            order = np.argsort(keys[:, 0])
        elif words:
            order = np.lexsort([keys[:, w] for w in range(words - 1, -1, -1)])
        else:  # one label
            order = np.arange(canon.size)
        # numpy text of ASCII: each character's code as a 32-bit number (a widening copy,
        # several times faster than decoding bytes to text)
        labels = padded[order, :width].astype(np.uint32).view(f"U{width}").ravel()
        return order, labels

    def _texts(self, canon, values, all_lengths, text) -> list[str]:
        """Every canonical label as text (integers as Python prints them)."""
        lengths = all_lengths[canon]
        starts = np.zeros(self.size + 1, dtype=np.int64)
        np.cumsum(np.maximum(all_lengths, 0), out=starts[1:])
        out = np.empty(canon.size, dtype=object)
        ints = lengths < 0
        out[ints] = list(map(str, values[ints].tolist()))
        codes = canon[~ints]
        begin, size = starts[codes].tolist(), all_lengths[codes].tolist()
        decoded = text.decode("utf-8", "replace")
        if len(decoded) == len(text):  # ASCII: characters where the bytes are
            out[~ints] = [decoded[b : b + n] for b, n in zip(begin, size, strict=True)]
        else:
            out[~ints] = [
                text[b : b + n].decode("utf-8", "replace") for b, n in zip(begin, size, strict=True)
            ]
        if self.texts:  # the non-ASCII labels, decoded while reading
            where = np.full(self.size, -1, dtype=np.int64)
            where[canon] = np.arange(canon.size)
            for code, label in self.texts.items():
                if where[code] >= 0:
                    out[where[code]] = label
        return out.tolist()
