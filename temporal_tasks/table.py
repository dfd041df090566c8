"""The payload table (the core's ``_update`` step): payloads as arrays, one row per distinct (group, role).

Built once per payload set (see :mod:`temporal_tasks.scoring_pass`) from the payloads' ready-made rows
(:class:`temporal_tasks.rows.RowPayload`, one attribute pass per column) or, for plain dicts, field by field with
the same :func:`temporal_tasks.rows.row_flags`.
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from temporal_tasks.rows import (
    CORRECT,
    ERRORS_SHIFT,
    INVALID,
    KEY_SHIFT,
    REPEATS,
    Payload,
    repeat_row,
    row_flags,
    slot_column,
)

_REQUIRED = object()  # no default: a missing field is an error


def _factorize(values: list) -> tuple[np.ndarray, list]:
    """pandas' first-seen codes and uniques of ``values`` (by equality; ``None`` codes -1, as pandas does)."""
    # pandas hashes a million strings in ~50 ms (lmms-eval has it imported already); a dict loop is 10x slower.
    import pandas as pd

    n = len(values)
    sample = values[:1024]
    if n > 4096 and len(set(map(id, sample))) * 4 <= len(sample):
        # Shared objects (role names are a benchmark's constants): factorize the identities, which are integers,
        # then the few distinct objects by value. Same codes and uniques as by value: the first object of each
        # value is the first identity of it in first-seen order.
        id_codes, _ids = pd.factorize(np.fromiter(map(id, values), np.intp, n), sort=False)
        first = first_positions(id_codes)
        codes, uniques = _factorize_objects([values[i] for i in first.tolist()])
        return codes[id_codes], uniques
    return _factorize_objects(values)


def _factorize_keyed(
    items: Sequence[Any], keys: np.ndarray
) -> tuple[np.ndarray, Callable[[], np.ndarray], np.ndarray, np.ndarray]:
    """First-seen group codes of ready-made rows (:class:`RowPayload`) from their group ``keys``, the group ids
    (made on first use), where each code first occurs, and the key of each code. The rows hold interned strings,
    so identity is equality and the keys (integers the payloads hold) factorize in C without touching the strings."""
    run_codes, lengths, first, distinct = factorize_runs(keys)
    codes = np.repeat(run_codes.astype(np.int32 if len(distinct) < 2**31 else np.int64), lengths)

    @functools.cache
    def names() -> np.ndarray:
        return _objects(list(map(operator.attrgetter("row_group"), gather(items, first))))

    return codes, names, first, distinct


def factorize_runs(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Integer ``keys`` factorized run by run: ``(run codes, run lengths, where each code first occurs, each code's
    key)``, codes in first-seen order. A group's questions usually come one after another (and share their
    categories), so only the first key of each run of equal keys is hashed."""
    import pandas as pd

    starts = np.flatnonzero(np.concatenate(([True], keys[1:] != keys[:-1]))) if len(keys) else np.zeros(0, np.intp)
    run_keys = keys[starts]
    lengths = np.empty_like(starts)  # each run's length: to the next start, the last to the end
    np.subtract(starts[1:], starts[:-1], out=lengths[:-1])
    lengths[-1:] = len(keys) - starts[-1:]
    if _distinct(run_keys):  # each run its own group (the usual case): first-seen codes are 0, 1, ...
        return np.arange(len(run_keys)), lengths, starts, run_keys
    run_codes, distinct = pd.factorize(run_keys, sort=False)
    return run_codes, lengths, starts[first_positions(run_codes)], distinct


def _distinct(values: np.ndarray) -> bool:
    """Whether no value of ``values`` (integers) repeats: by sorting, which numpy does about ten times faster than
    pandas hashes (and with no hash table's memory)."""
    head = np.sort(values[:1024])  # a repeat among the first few settles it early
    ranked = head if bool((head[1:] == head[:-1]).any()) else np.sort(values)
    return not bool((ranked[1:] == ranked[:-1]).any())


def _factorize_roles(items: Sequence[Any], keys: np.ndarray, chunk: int = 1 << 16) -> tuple[np.ndarray, list]:
    """First-seen role codes of ready-made rows from their role ``keys`` (interned: identity is equality), and the
    role of each code."""
    import pandas as pd

    head, distinct = pd.factorize(keys[:4096], sort=False)  # a benchmark's few roles all occur in its first groups
    codes = None
    if 0 < len(distinct) <= 256:
        # Few roles: each key's code by a binary search among them (no hash table over a million keys), kept
        # only if every key is one of them. In chunks: the positions (8 bytes a key) stay in a cache and their
        # memory is reused, where a million of them at once would be fresh pages to fault in.
        order = np.argsort(distinct)  # sorted position -> first-seen code
        ranked, code_of = distinct[order], order.astype(np.uint8)
        codes = np.empty(len(keys), np.uint8)
        for i in range(0, len(keys), chunk):
            part = keys[i : i + chunk]
            at = np.searchsorted(ranked, part)
            np.minimum(at, len(ranked) - 1, out=at)
            if not bool(np.array_equal(ranked[at], part)):
                codes = None  # a role the prefix did not see
                break
            codes[i : i + chunk] = code_of[at]  # first-seen codes, as pandas gives them
    if codes is None:
        codes, distinct = pd.factorize(keys, sort=False)
    first = first_positions(codes[: len(head)])
    if len(first) < len(distinct):
        first = first_positions(codes)
    return codes, [items[i].row_role for i in first.tolist()]


def _keys_increase(group: np.ndarray, role: np.ndarray, roles: int, wide: type, chunk: int = 1 << 16) -> bool:
    """Whether the row keys ``group * roles + role`` strictly increase, made a chunk at a time: at a million rows
    the whole key would be fresh memory, and it is only needed when a question repeats."""
    last = None
    for i in range(0, len(group), chunk):
        part = np.multiply(group[i : i + chunk], roles, dtype=wide)
        part += role[i : i + chunk]
        if (last is not None and part[0] <= last) or not bool((part[1:] > part[:-1]).all()):
            return False
        last = part[-1]
    return True


def _first_of_each(key: np.ndarray) -> np.ndarray:
    """Positions of the first occurrence of each value of ``key`` (non-negative codes), in order. For keys that do
    not increase: the usual case, increasing keys, is told by :func:`_keys_increase` without making them."""
    top = int(key.max())
    if top < 8 * len(key) + 1024 and (not len(key) or key.min() >= 0):  # a dense range: mark, no hashing
        seen = np.zeros(top + 1, dtype=bool)
        seen[key] = True
        if int(np.count_nonzero(seen)) == len(key):
            return _positions(len(key))  # no repeated question (the usual case)
    import pandas as pd

    return np.flatnonzero(~pd.Series(key).duplicated().to_numpy())  # hashing, no sort


def _positions(n: int) -> np.ndarray:
    """0, 1, ..., n - 1 in the smallest index type, read-only (a table's :meth:`PayloadTable.positions`)."""
    out = np.arange(n, dtype=np.int32 if n < 2**31 else np.intp)
    out.flags.writeable = False
    return out


def gather(items: Sequence[Any], at: np.ndarray) -> list:
    """``[items[i] for i in at]`` in one C-level call."""
    index = at.tolist()
    if len(index) > 1:
        return list(operator.itemgetter(*index)(items))
    return [items[i] for i in index]


def _factorize_objects(values: list | np.ndarray) -> tuple[np.ndarray, list]:
    import pandas as pd

    if isinstance(values, np.ndarray):
        array = values
    else:
        array = np.empty(len(values), dtype=object)
        array[:] = values
    codes, uniques = pd.factorize(array, sort=False)
    return np.asarray(codes, dtype=np.int64), list(uniques)


def first_positions(codes: np.ndarray) -> np.ndarray:
    """Where each code first occurs, in code order, for pandas' first-seen codes (-1, a missing value, skipped)."""
    # A first-seen code first appears exactly where it exceeds every code before it.
    before = np.maximum.accumulate(np.concatenate(([-1], codes[:-1]))) if len(codes) else codes
    return np.flatnonzero(codes > before)


def _column(items: Sequence[Payload], key: str, default: Any = _REQUIRED) -> list:
    """Each payload's field ``key`` (``default`` where one lacks it; required when no default is given)."""
    # One C-level pass over the dicts per field: reading a million payloads costs these passes. ``itemgetter``
    # is twice as fast as a bound ``get``, so a missing field is found by its KeyError.
    try:
        return list(map(operator.itemgetter(key), items))
    except KeyError:
        if default is _REQUIRED:
            raise
        return list(map(operator.methodcaller("get", key, default), items))


def _objects(values: list) -> np.ndarray:
    array = np.empty(len(values), dtype=object)
    array[:] = values
    return array


@dataclass
class PayloadTable:
    """Payloads as arrays: one row per distinct (group, role), kept in first-seen order.

    Built once per payload set and shared by every metric key over it, so aggregating a million
    payloads costs one pass over the dicts plus numpy work.
    """

    items: Sequence[Payload] = field(repr=False)
    source: np.ndarray  # row -> index in ``items``
    group: np.ndarray  # group code per row
    role: np.ndarray  # role code per row
    correct: np.ndarray
    invalid: np.ndarray
    group_size: np.ndarray  # expected members, per group code
    group_labels: Any = field(repr=False)  # the group ids per code: an array, or a cached function that makes it
    role_names: np.ndarray
    duplicates: int = 0
    # per row, :func:`row_flags` of the top-level (repeat 0) reading; None in a repeat's or the consensus' view
    flags: np.ndarray | None = field(default=None, repr=False)
    parser_errors: int = 0  # parser exceptions over every payload given (repeats included)
    group_key_index: np.ndarray | None = field(default=None, repr=False)  # ready-made rows: the key of each group code
    _matrices: tuple | None = field(default=None, repr=False)
    # ``--repeats k`` (k > 1): per row and repeat, (rows, k) arrays; ``consensus``: the majority reading's
    # (correct, invalid) per row (a tie is unreadable). None with one answer per question.
    repeat_flags: np.ndarray | None = field(default=None, repr=False)  # (rows, k) reading_flags
    repeat_correct: np.ndarray | None = field(default=None, repr=False)
    repeat_invalid: np.ndarray | None = field(default=None, repr=False)
    consensus: tuple[np.ndarray, np.ndarray] | None = field(default=None, repr=False)
    _views: dict = field(default_factory=dict, repr=False)  # repeat r / "readings" -> its table (matrices memoised)
    _shared: dict = field(default_factory=dict, repr=False)  # per-row field values, shared with the repeat views

    @property
    def group_names(self) -> np.ndarray:
        """The group id of each group code (made on first use: most passes never need the strings)."""
        return self.group_labels() if callable(self.group_labels) else self.group_labels

    @property
    def repeats(self) -> int:
        """How many answers each question has (1 without ``--repeats``)."""
        return 1 if self.repeat_correct is None else int(self.repeat_correct.shape[1])

    def for_repeat(self, r: int) -> PayloadTable:
        """The table of repeat ``r`` alone (same rows and groups, that repeat's readings)."""
        assert self.repeat_correct is not None and self.repeat_invalid is not None
        if r not in self._views:
            self._views[r] = replace(
                self, correct=self.repeat_correct[:, r], invalid=self.repeat_invalid[:, r], _matrices=None,
                flags=None if self.repeat_flags is None else self.repeat_flags[:, r], repeat_flags=None,
                repeat_correct=None, repeat_invalid=None, consensus=None, _views={},
            )  # fmt: skip
        return self._views[r]

    def for_readings(self) -> PayloadTable:
        """Every reading at once: ``correct`` and ``invalid`` are (rows, k + 1) arrays, the k repeats' readings and
        then the majority's, so one reduction gives each reading's per-group counts as (groups, k + 1) arrays
        (:mod:`temporal_tasks.reduction` takes both shapes). Same rows and groups (memoised)."""
        assert self.repeat_correct is not None and self.repeat_invalid is not None and self.consensus is not None
        if "readings" not in self._views:
            self._views["readings"] = replace(
                self, correct=np.column_stack([self.repeat_correct, self.consensus[0]]),
                invalid=np.column_stack([self.repeat_invalid, self.consensus[1]]), _matrices=None, flags=None,
                repeat_flags=None, repeat_correct=None, repeat_invalid=None, consensus=None, _views={},
            )  # fmt: skip
        return self._views["readings"]

    @classmethod
    def build(cls, items: Sequence[Payload], label: str) -> PayloadTable:
        n = len(items)
        row_keys = slot_column(items, "row_key", np.int64)
        if row_keys is not None:  # ready-made rows (RowPayload): one attribute pass per column
            # In place, in small dtypes and few passes: at a million rows these arrays no longer fit a cache.
            flags = row_keys.astype(np.uint16)  # the flags are the low KEY_SHIFT (16) bits: the cast keeps them
            row_keys >>= KEY_SHIFT  # now the group keys
            group_codes, group_names, first, key_index = _factorize_keyed(items, row_keys)
            kinds = slot_column(items, "row_kind", np.int64)
            group_size = kinds[first] & ((1 << KEY_SHIFT) - 1)
            kinds >>= KEY_SHIFT  # now the role keys
            role_codes, role_names = _factorize_roles(items, kinds)
        else:
            flags, key_index = np.fromiter(map(row_flags, items), np.int64, n), None
            group_codes, names = _factorize(_column(items, "group_id"))
            group_names = np.asarray(names, dtype=object)
            role_codes, role_names = _factorize(_column(items, "role"))
            group_size = _group_sizes(items, group_codes, len(group_names))
        correct, invalid = (flags & CORRECT) != 0, (flags & INVALID) != 0
        present = int(np.bitwise_or.reduce(flags)) if n else 0  # every bit some payload has
        # parser errors over every payload given, repeated answers included
        errors = int((flags >> ERRORS_SHIFT).sum()) if present >> ERRORS_SHIFT else 0
        roles = max(1, len(role_names))
        wide = np.int32 if len(group_size) * roles < 2**31 else np.int64
        if _keys_increase(group_codes, role_codes, roles, wide):
            keep = _positions(n)  # no repeat (the usual case: a group's questions in a row, roles in order)
        else:
            key = np.multiply(group_codes, roles, dtype=wide)
            key += role_codes.astype(wide, copy=False)
            keep = _first_of_each(key)
        if len(keep) < n:
            _check_duplicates(items, key, keep, label)
            group_codes, role_codes, flags = group_codes[keep], role_codes[keep], flags[keep]
            correct, invalid = correct[keep], invalid[keep]
        table = cls(
            items, keep, group_codes, role_codes, correct, invalid,
            group_size, group_names, np.asarray(role_names, dtype=object), n - len(keep),
            flags=flags, parser_errors=errors, group_key_index=key_index,
        )  # fmt: skip
        if len(keep) == n:  # every payload a row: the source is the positions (one array for both)
            table._shared["positions"] = keep
        if present & REPEATS:
            rows = _repeat_rows(items)
            k = _repeat_count(rows, label)
            if k > 1:  # per row, k readings' flags and the majority reading's
                kept = rows if len(keep) == n else gather(rows, keep)
                readings = np.frombuffer(b"".join(kept), np.uint8).reshape(len(keep), k + 1)
                table.repeat_flags = each = readings[:, :k]
                table.repeat_correct, table.repeat_invalid = (each & CORRECT) != 0, (each & INVALID) != 0
                table.consensus = ((readings[:, k] & CORRECT) != 0, (readings[:, k] & INVALID) != 0)
        return table

    def subset(self, rows: np.ndarray, items: Sequence[Payload]) -> PayloadTable:
        """The table restricted to ``rows``, for ``items`` (one payload per row, in that order)."""
        flags = None if self.flags is None else self.flags[rows]
        table = PayloadTable(
            items, self.positions()[: len(rows)], self.group[rows], self.role[rows],
            self.correct[rows], self.invalid[rows],
            self.group_size, self.group_labels, self.role_names,
            flags=flags, parser_errors=0 if flags is None else int((flags >> ERRORS_SHIFT).sum()),
        )  # fmt: skip
        if self.repeat_correct is not None and self.repeat_invalid is not None and self.consensus is not None:
            table.repeat_correct, table.repeat_invalid = self.repeat_correct[rows], self.repeat_invalid[rows]
            table.repeat_flags = None if self.repeat_flags is None else self.repeat_flags[rows]
            table.consensus = (self.consensus[0][rows], self.consensus[1][rows])
        return table

    def positions(self) -> np.ndarray:
        """0, 1, ... one per row (read-only; memoised: subsets of the table take views of it)."""
        return self.shared("positions", lambda: _positions(len(self.group)))

    def shared(self, key: Any, compute: Callable[[], Any]) -> Any:
        """``compute()`` once per table and its repeat views (per-row facts that do not depend on the reading)."""
        if key not in self._shared:
            self._shared[key] = compute()
        return self._shared[key]

    def values(self, key: str, default: Any = None) -> np.ndarray:
        """Per row, the payload field ``key`` (``default`` where a payload lacks it), as an object array."""
        return self.field_values(key, default)[0]

    def field_values(self, key: str, default: Any = None) -> tuple[np.ndarray, bool]:
        """:meth:`values`, and whether every payload has the field (then no row holds ``default``)."""
        try:
            column, full = list(map(operator.itemgetter(key), self.items)), True
        except KeyError:
            column, full = _column(self.items, key, default), False
        out = _objects(column)
        return (out if len(self.source) == len(self.items) else out[self.source]), full

    def field_slugs(self, key: str, slug: Callable[[str], str]) -> np.ndarray:
        """Per row, ``slug`` of the payload field ``key`` (memoised: the same for every repeat of the rows)."""
        cache_key = ("slugs", key)
        if cache_key not in self._shared:
            values = self.values(key).tolist()
            try:  # a few distinct values (categories): slug each once
                slugs = {v: slug(v or "") for v in dict.fromkeys(values)}
                out = list(map(slugs.__getitem__, values))
            except TypeError:  # an unhashable value
                out = [slug(v or "") for v in values]
            self._shared[cache_key] = np.asarray(out, dtype=object)
        return self._shared[cache_key]

    def repeat_values(self, key: str, r: int, default: Any = None) -> np.ndarray:
        """Per row, the field ``key`` of repeat ``r``'s reading (``payload["repeats"][r]``), as an object array."""
        cache_key = ("repeat", r)
        if cache_key not in self._shared:  # repeat r's reading dicts, gathered once per table
            self._shared[cache_key] = list(map(operator.itemgetter(r), _column(self.items, "repeats")))
        out = _objects(_column(self._shared[cache_key], key, default))
        return out if len(self.source) == len(self.items) else out[self.source]

    def groups(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(seen, rows, complete)``: the group codes seen, each row's index among them, and per group seen
        whether every expected member is here (memoised; shared with the repeat views: it is the same rows).

        Group order does not matter downstream: metrics are sums and the bootstrap only sees the
        multiset of per-group outcomes.
        """
        if "groups" not in self._shared:
            members = np.bincount(self.group, minlength=len(self.group_size))
            seen = np.flatnonzero(members)
            self._shared["groups"] = (seen, self.group_rows(seen), members[seen] == self.group_size[seen])
        return self._shared["groups"]

    def matrices(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """``(present, correct, invalid, complete, group codes)``: role matrices of the groups seen.

        Only role-tuple units need these (a few roles per group); per-question and whole-group units are
        counted per row (:meth:`count_per_group`).
        """
        seen, rows, complete = self.groups()
        present = self.role_matrix(rows, np.ones(len(self.group), bool))
        return present, self.role_matrix(rows, self.correct), self.role_matrix(rows, self.invalid), complete, seen

    def complete_matrices(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """:meth:`matrices` with ``present``, ``correct`` and ``invalid`` kept to the complete groups (memoised)."""
        if self._matrices is None:
            present, correct, invalid, complete, seen = self.matrices()
            self._matrices = (present[complete], correct[complete], invalid[complete], complete, seen)
        return self._matrices

    def count_per_group(self, mask: np.ndarray) -> np.ndarray:
        """Per complete group (in :meth:`groups` order), how many of its rows ``mask`` holds for; a (rows, w) mask
        gives (groups, w) counts, one per column."""
        seen, rows, complete = self.groups()
        if "complete_rows" not in self._shared:
            # Each row's complete group, or a last bin that collects the rows of incomplete groups (dropped below).
            n_complete = int(complete.sum())
            bins = np.where(complete, np.cumsum(complete) - 1, n_complete).astype(np.int32)
            self._shared["complete_rows"] = (rows if n_complete == len(complete) else bins[rows], n_complete)
        index, n_complete = self._shared["complete_rows"]
        if mask.ndim == 1:
            return np.bincount(index[mask], minlength=n_complete + 1)[:n_complete]
        # (rows, w): one count per group and column, in one bincount over the cells (each cell's bin, memoised)
        width = mask.shape[1]
        cells = self.shared(("cells", width), lambda: index.astype(np.intp)[:, None] * width + np.arange(width))
        return np.bincount(cells[mask], minlength=(n_complete + 1) * width).reshape(-1, width)[:n_complete]

    def group_rows(self, seen: np.ndarray) -> np.ndarray:
        """Per table row, its group's row in the role matrices (memoised for the groups seen)."""
        cache_key = ("group_rows", id(seen))
        if cache_key not in self._shared or self._shared[cache_key][0] is not seen:
            where = np.full(len(self.group_size), -1, dtype=np.int32 if len(seen) < 2**31 else np.int64)
            where[seen] = np.arange(len(seen))  # with every group seen, 0, 1, ...: the rows are the codes
            self._shared[cache_key] = (seen, self.group if len(seen) == len(where) else where[self.group])
        return self._shared[cache_key][1]

    def role_matrix(self, rows: np.ndarray, values: np.ndarray, fill: Any = False) -> np.ndarray:
        """A (group, role) matrix of per-row ``values`` ((group, role, w) of (rows, w) values)."""
        n_groups = int(rows.max()) + 1 if len(rows) else 0
        out = np.full((n_groups, len(self.role_names), *values.shape[1:]), fill, dtype=values.dtype)
        out[rows, self.role] = values
        return out


def _group_sizes(items: Sequence[Payload], group_codes: np.ndarray, groups: int) -> np.ndarray:
    """Expected members per group code: the group's first payload's ``group_size``."""
    first = first_positions(group_codes)
    missing = np.flatnonzero(group_codes < 0)[:1]  # a payload without a group: code -1, as pandas codes it
    if len(missing):
        first = np.sort(np.concatenate((first, missing)))
    at = first.tolist()
    firsts = list(operator.itemgetter(*at)(items)) if len(at) > 1 else [items[i] for i in at]  # C-level gather
    sizes = np.fromiter(map(int, _column(firsts, "group_size")), np.int64, len(first))
    group_size = np.zeros(groups, dtype=np.int64)
    group_size[group_codes[first][::-1]] = sizes[::-1]  # the first payload's size wins (also for code -1)
    return group_size


def _repeat_rows(items: Sequence[Payload]) -> list:
    """Each payload's :func:`temporal_tasks.rows.repeat_row`: ready-made (one attribute pass) or computed."""
    try:
        return list(map(operator.attrgetter("row_repeats"), items))
    except AttributeError:  # a plain dict (rescore, tests) or a payload without a row
        return list(map(repeat_row, items))


def _repeat_count(rows: Sequence[bytes | None], label: str) -> int:
    """k: how many readings each payload's ``repeats`` holds (1 without); all payloads must agree."""
    counts = set(map(len, filter(None, rows)))
    counts = {c - 1 for c in counts}  # a row is k reading bytes and the majority's
    if None in rows:
        counts.add(1)
    if len(counts) > 1:
        raise ValueError(
            f"{label or 'scoring'}: the answers have different numbers of repeats ({sorted(counts)}); the payloads "
            "come from different runs (--repeats differs). Score each run's samples on their own."
        )
    return counts.pop() if counts else 1


def _check_duplicates(items: Sequence[Payload], key: np.ndarray, first: np.ndarray, label: str) -> None:
    owner = dict(zip(key[first].tolist(), first.tolist(), strict=True))
    for i, k in enumerate(key.tolist()):
        j = owner[k]
        if i != j and items[i]["question_id"] != items[j]["question_id"]:
            raise ValueError(
                f"{label or 'scoring'}: questions {items[j]['question_id']!r} and {items[i]['question_id']!r} "
                f"both claim role {items[i]['role']!r} of group {items[i]['group_id']!r}; the annotation file "
                "has a duplicate - fix it and rerun."
            )
