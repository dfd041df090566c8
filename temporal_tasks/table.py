"""The payload table (the core's ``_update`` step) and the cache of one aggregation pass.

Payloads become arrays once per payload set: one row per distinct (group, role). A task's metric
keys all aggregate the same payload objects (its category keys a subset of them), so the table of
the set being aggregated, and every metric computed from it, is kept until a different payload set
arrives; then the old pass is freed. Correctness never depends on a cache hit.

Each metric key hands over its own list of the same objects. A list is resolved to a table once per pass: a
list met before is recognised by its length and the identities at 64 spread positions, then confirmed by
list ``==`` (one C loop over pointers, about a millisecond a million); any other list is matched to the
pass's payloads by identity (a subset: a category key) or starts a new pass. So a million payloads are read
once per field, not once per metric key.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import operator
import sys
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from temporal_tasks.compat import aggregation_selection
from temporal_tasks.errors import DataError, exit_run
from temporal_tasks.run_state import STATE

Payload = Mapping[str, Any]
_REQUIRED = object()  # no default: a missing field is an error


def slug(name: str) -> str:
    """Metric-key form of a category name: lowercase, non-alphanumerics to ``_``."""
    out = []
    prev_us = False
    for ch in name.strip().lower():
        if ch.isascii() and ch.isalnum():
            out.append(ch)
            prev_us = False
        elif not prev_us:
            out.append("_")
            prev_us = True
    return "".join(out).strip("_")


# --------------------------------------------------------------------------- a payload's row, ready-made

# The bits of :func:`row_flags`: what the table needs of a payload beyond its group and role, in one small int.
CORRECT, INVALID, TRUNCATED, DISAGREE, READINGS, REPEATS = 1, 2, 4, 8, 16, 32
ERRORS_SHIFT = 6  # parser_errors sits above the bits (0 errors: an int below 64, one shared object)
KEY_SHIFT = 16  # RowPayload.row_key: the group's identity above the flags (flags of up to 1,023 errors fit below)


def row_flags(payload: Payload) -> int:
    """The payload's flags: ``correct`` (truthiness), an unreadable ``pred`` (``== None``), ``truncated``
    (truthiness; missing is false), robust and official readings that differ (``!=``) and whether both are
    there, whether it holds ``repeats``, and its ``parser_errors`` count. The one definition the table reads
    (missing ``correct`` or ``pred`` raises ``KeyError``: a payload must have them)."""
    correct, pred = payload["correct"], payload["pred"]
    flags = CORRECT * bool(correct) | INVALID * (pred is None or bool(pred == None))  # noqa: E711 - as numpy's ==
    flags |= TRUNCATED * bool(payload.get("truncated", False)) | REPEATS * ("repeats" in payload)
    if "pred_robust" in payload and "pred_official" in payload:
        flags |= READINGS | DISAGREE * bool(payload["pred_robust"] != payload["pred_official"])
    return flags | max(0, int(payload.get("parser_errors") or 0)) << ERRORS_SHIFT


@functools.lru_cache(maxsize=4096)
def _category_key(categories: tuple) -> tuple[str, ...]:
    # One shared tuple per distinct category list (a few per benchmark), so that a million payloads hold a few
    # objects and the table factorizes them by identity in C.
    return tuple(dict.fromkeys(slug(str(c)) for c in categories))


class RowPayload(dict):
    """A payload that carries its table row ready-made (group, role, :func:`row_flags`, category slugs).

    Computed once, when ``process_results`` makes the payload (a few microseconds beside a model's answer), so an
    aggregation reads each of a million payloads in one attribute pass per column instead of several dict
    lookups and a Python call. Any change through the dict's methods recomputes it; a payload that lacks a field
    the row needs has no row, and the table reads it as a plain dict (the same numbers: :func:`row_flags` is
    the one definition). Group ids and roles are interned strings, so equal ids are one object and factorize by
    identity (the table still checks values).
    """

    __slots__ = ("row_group", "row_key", "row_role", "row_size", "row_categories")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._stamp()

    def _stamp(self) -> None:
        try:
            group, role, size, flags = self["group_id"], self["role"], int(self["group_size"]), row_flags(self)
            categories = _category_key(tuple(self.get("categories") or ()))
            if type(group) is not str or type(role) is not str or flags >> KEY_SHIFT:
                raise TypeError("only string ids are interned; over 1,023 parser errors do not fit the key")
        except Exception:  # noqa: BLE001 - no row: the table reads it as a plain dict (and raises there)
            for name in RowPayload.__slots__:
                with contextlib.suppress(AttributeError):
                    delattr(self, name)
            return
        # Interned: equal group ids are one object in this process (a payload unpickled from another rank is
        # made here again), so the identity is the value and a million groups factorize as integers. The key
        # packs that identity (over 16: distinct live objects are further apart than that) above the flags, so
        # one attribute pass reads both.
        self.row_group = sys.intern(group)
        self.row_key = (id(self.row_group) >> 4) << KEY_SHIFT | flags  # valid while the payload holds row_group
        self.row_role = sys.intern(role)
        self.row_size = size
        self.row_categories = categories

    def __setitem__(self, key: Any, value: Any) -> None:
        super().__setitem__(key, value)
        self._stamp()

    def __delitem__(self, key: Any) -> None:
        super().__delitem__(key)
        self._stamp()

    def update(self, *args: Any, **kwargs: Any) -> None:  # noqa: D102
        super().update(*args, **kwargs)
        self._stamp()

    def setdefault(self, key: Any, default: Any = None) -> Any:  # noqa: D102
        out = super().setdefault(key, default)
        self._stamp()
        return out

    def pop(self, *args: Any) -> Any:  # noqa: D102
        out = super().pop(*args)
        self._stamp()
        return out

    def popitem(self) -> tuple:  # noqa: D102
        out = super().popitem()
        self._stamp()
        return out

    def clear(self) -> None:  # noqa: D102
        super().clear()
        self._stamp()

    def __ior__(self, other: Any) -> RowPayload:
        super().__ior__(other)
        self._stamp()
        return self

    def __reduce__(self):  # noqa: ANN204 - pickles as its dict; the row is computed again on loading
        return (type(self), (dict(self),))


def _slot_column(items: Sequence[Any], slot: str, dtype: Any) -> np.ndarray | None:
    """Each payload's ready-made ``slot`` in one C-level pass; None when one has none (a plain dict)."""
    try:
        return np.fromiter(map(operator.attrgetter(slot), items), dtype, len(items))
    except AttributeError:
        return None


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
        first = _first_positions(id_codes)
        codes, uniques = _factorize_objects([values[i] for i in first.tolist()])
        return codes[id_codes], uniques
    return _factorize_objects(values)


def _factorize_keyed(
    items: Sequence[Any], keys: np.ndarray
) -> tuple[np.ndarray, Callable[[], np.ndarray], np.ndarray, np.ndarray]:
    """First-seen group codes of ready-made rows (:class:`RowPayload`) from their group ``keys``, the group ids
    (made on first use), where each code first occurs, and the key of each code. The rows hold interned strings,
    so identity is equality and the keys (integers the payloads hold) factorize in C without touching the strings."""
    import pandas as pd

    # A group's questions usually come one after another: hash only the first key of each run of equal keys.
    starts = np.flatnonzero(np.concatenate(([True], keys[1:] != keys[:-1]))) if len(keys) else np.zeros(0, np.intp)
    run_codes, distinct = pd.factorize(keys[starts], sort=False)
    narrow = run_codes.astype(np.int32 if len(distinct) < 2**31 else np.int64)
    codes = np.repeat(narrow, np.diff(np.append(starts, len(keys))))
    first = starts[_first_positions(run_codes)]

    @functools.cache
    def names() -> np.ndarray:
        return _objects(list(map(operator.attrgetter("row_group"), _gather(items, first))))

    return codes, names, first, distinct


def _first_of_each(key: np.ndarray) -> np.ndarray:
    """Positions of the first occurrence of each value of ``key`` (non-negative codes), in order."""
    top = int(key.max()) if len(key) else -1
    if top < 8 * len(key) + 1024 and (not len(key) or key.min() >= 0):  # a dense range: mark, no hashing
        seen = np.zeros(top + 1, dtype=bool)
        seen[key] = True
        if int(np.count_nonzero(seen)) == len(key):
            return np.arange(len(key))  # no repeated question (the usual case)
    import pandas as pd

    return np.flatnonzero(~pd.Series(key).duplicated().to_numpy())  # hashing, no sort


def _gather(items: Sequence[Any], at: np.ndarray) -> list:
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


def _first_positions(codes: np.ndarray) -> np.ndarray:
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
    repeat_correct: np.ndarray | None = field(default=None, repr=False)
    repeat_invalid: np.ndarray | None = field(default=None, repr=False)
    consensus: tuple[np.ndarray, np.ndarray] | None = field(default=None, repr=False)
    _views: dict = field(default_factory=dict, repr=False)  # repeat r / "consensus" -> its table (matrices memoised)
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
                self, correct=self.repeat_correct[:, r], invalid=self.repeat_invalid[:, r], _matrices=None, flags=None,
                repeat_correct=None, repeat_invalid=None, consensus=None, _views={},
            )  # fmt: skip
        return self._views[r]

    def for_consensus(self) -> PayloadTable:
        """The table of each question's majority reading across the repeats."""
        assert self.consensus is not None
        if "consensus" not in self._views:
            self._views["consensus"] = replace(
                self, correct=self.consensus[0], invalid=self.consensus[1], _matrices=None, flags=None,
                repeat_correct=None, repeat_invalid=None, consensus=None, _views={},
            )  # fmt: skip
        return self._views["consensus"]

    @classmethod
    def build(cls, items: Sequence[Payload], label: str) -> PayloadTable:
        n = len(items)
        row_keys = _slot_column(items, "row_key", np.int64)
        if row_keys is not None:  # ready-made rows (RowPayload): one attribute pass per column
            flags = (row_keys & ((1 << KEY_SHIFT) - 1)).astype(np.uint16)  # small arrays: less memory to stream
            group_codes, group_names, first, key_index = _factorize_keyed(items, row_keys >> KEY_SHIFT)
            role_codes, role_names = _factorize_objects(_slot_column(items, "row_role", object))
            group_size = _slot_column(_gather(items, first), "row_size", np.int64)
        else:
            flags, key_index = np.fromiter(map(row_flags, items), np.int64, n), None
            group_codes, names = _factorize(_column(items, "group_id"))
            group_names = np.asarray(names, dtype=object)
            role_codes, role_names = _factorize(_column(items, "role"))
            group_size = _group_sizes(items, group_codes, len(group_names))
        correct, invalid = (flags & CORRECT) != 0, (flags & INVALID) != 0
        errors = int((flags >> ERRORS_SHIFT).sum())  # over every payload given, repeated answers included
        roles = max(1, len(role_names))
        key = group_codes.astype(np.int32 if len(group_size) * roles < 2**31 else np.int64) * roles + role_codes
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
        k = _repeat_count(items, label) if (flags & REPEATS).any() else 1
        if k > 1:
            rep_correct, rep_invalid, cons_correct, cons_invalid = _repeat_readings([items[i] for i in keep], k)
            table.repeat_correct, table.repeat_invalid = rep_correct, rep_invalid
            table.consensus = (cons_correct, cons_invalid)
        return table

    def subset(self, rows: np.ndarray, items: Sequence[Payload]) -> PayloadTable:
        """The table restricted to ``rows``, for ``items`` (one payload per row, in that order)."""
        table = PayloadTable(
            items, np.arange(len(rows)), self.group[rows], self.role[rows], self.correct[rows], self.invalid[rows],
            self.group_size, self.group_labels, self.role_names,
            flags=None if self.flags is None else self.flags[rows],
            parser_errors=0 if self.flags is None else int((self.flags[rows] >> ERRORS_SHIFT).sum()),
        )  # fmt: skip
        if self.repeat_correct is not None and self.repeat_invalid is not None and self.consensus is not None:
            table.repeat_correct, table.repeat_invalid = self.repeat_correct[rows], self.repeat_invalid[rows]
            table.consensus = (self.consensus[0][rows], self.consensus[1][rows])
        return table

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
        """``(present, correct, invalid, complete, group codes)``: role matrices of the groups seen (memoised).

        Only role-tuple units need these (a few roles per group); per-question and whole-group units are
        counted per row (:meth:`count_per_group`).
        """
        if self._matrices is None:
            seen, rows, complete = self.groups()
            present = self.role_matrix(rows, np.ones(len(self.group), bool))
            correct = self.role_matrix(rows, self.correct)
            invalid = self.role_matrix(rows, self.invalid)
            self._matrices = (present, correct, invalid, complete, seen)
        return self._matrices

    def count_per_group(self, mask: np.ndarray) -> np.ndarray:
        """Per complete group (in :meth:`groups` order), how many of its rows ``mask`` holds for."""
        seen, rows, complete = self.groups()
        if "complete_rows" not in self._shared:
            self._shared["complete_rows"] = (complete[rows], (np.cumsum(complete) - 1)[rows], int(complete.sum()))
        in_complete, index, n_complete = self._shared["complete_rows"]
        return np.bincount(index[in_complete & mask], minlength=n_complete)

    def group_rows(self, seen: np.ndarray) -> np.ndarray:
        """Per table row, its group's row in the role matrices."""
        where = np.full(len(self.group_size), -1, dtype=np.int64)
        where[seen] = np.arange(len(seen))
        return where[self.group]

    def role_matrix(self, rows: np.ndarray, values: np.ndarray, fill: Any = False) -> np.ndarray:
        """A (group, role) matrix of per-row ``values``."""
        n_groups = int(rows.max()) + 1 if len(rows) else 0
        out = np.full((n_groups, len(self.role_names)), fill, dtype=values.dtype)
        out[rows, self.role] = values
        return out


def _group_sizes(items: Sequence[Payload], group_codes: np.ndarray, groups: int) -> np.ndarray:
    """Expected members per group code: the group's first payload's ``group_size``."""
    first = _first_positions(group_codes)
    missing = np.flatnonzero(group_codes < 0)[:1]  # a payload without a group: code -1, as pandas codes it
    if len(missing):
        first = np.sort(np.concatenate((first, missing)))
    at = first.tolist()
    firsts = list(operator.itemgetter(*at)(items)) if len(at) > 1 else [items[i] for i in at]  # C-level gather
    sizes = np.fromiter(map(int, _column(firsts, "group_size")), np.int64, len(first))
    group_size = np.zeros(groups, dtype=np.int64)
    group_size[group_codes[first][::-1]] = sizes[::-1]  # the first payload's size wins (also for code -1)
    return group_size


def _repeat_count(items: Sequence[Payload], label: str) -> int:
    """k: the length of the payloads' ``repeats`` list (1 when they have none); all payloads must agree."""
    # Called only when a payload's flags say it holds ``repeats`` (:data:`REPEATS`).
    if not any(map(operator.contains, items, itertools.repeat("repeats"))):
        return 1
    given = list(filter(None, map(operator.methodcaller("get", "repeats"), items)))
    counts = set(map(len, given))
    if len(given) < len(items):
        counts.add(1)
    if len(counts) > 1:
        raise ValueError(
            f"{label or 'scoring'}: the answers have different numbers of repeats ({sorted(counts)}); the payloads "
            "come from different runs (--repeats differs). Score each run's samples on their own."
        )
    return counts.pop() if counts else 1


def majority(readings: Sequence[Any]) -> Any:
    """The reading most of ``readings`` agree on; ``None`` (unreadable) on a tie for the most votes."""
    top = Counter(readings).most_common(2)
    if not top or (len(top) > 1 and top[0][1] == top[1][1]):
        return None
    return top[0][0]


def _repeat_readings(items: Sequence[Payload], k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per payload: (rows, k) correct and invalid arrays, and the majority reading's correct and invalid.

    Column-wise, as :func:`majority` per payload: a reading's votes are counted by equality (a dict, as
    ``Counter`` counts), and a tie for the most votes is unreadable.
    """
    n = len(items)
    repeats = _column(items, "repeats")
    readings = [list(map(operator.itemgetter(r), repeats)) for r in range(k)]
    preds = [_column(rep, "pred", None) for rep in readings]
    correct = np.stack([_objects(_column(rep, "correct", None)).astype(bool) for rep in readings], axis=1)
    invalid = np.stack([np.fromiter(map(operator.is_, p, itertools.repeat(None)), bool, n) for p in preds], axis=1)
    codes_of = {v: i for i, v in enumerate(dict.fromkeys(itertools.chain.from_iterable(preds)))}
    values = _objects(list(codes_of))
    codes = np.stack([np.fromiter(map(codes_of.__getitem__, p), np.int64, n) for p in preds], axis=1)
    votes = (codes[:, :, None] == codes[:, None, :]).sum(axis=2)  # per reading, how many readings agree with it
    top = votes.max(axis=1) if k else np.zeros(n, dtype=np.int64)
    tie = (votes == top[:, None]).sum(axis=1) > top  # several readings share the most votes
    winner = values[codes[np.arange(n), votes.argmax(axis=1)]] if k else np.full(n, None, dtype=object)
    winner[tie] = None
    cons_invalid = np.fromiter(map(operator.is_, winner.tolist(), itertools.repeat(None)), bool, n)
    same = np.fromiter(map(operator.eq, winner.tolist(), _column(items, "gold", None)), object, n).astype(bool)
    return correct, invalid, ~cons_invalid & same, cons_invalid


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


# --------------------------------------------------------------------------- one aggregation pass


@dataclass
class _Pass:
    items: list  # a copy of the pass's payloads, kept alive so that the identities in ``_ids`` stay valid
    table: PayloadTable
    memo: dict[tuple, Any] = field(default_factory=dict)  # (key, id of a table of this pass) -> result
    # fingerprint of a payload list -> [(a copy of that list, its table)]: lists met before (each metric key of a
    # task gets its own list of the same objects), so that a list is resolved once per pass
    lists: dict[tuple, list[tuple[list, PayloadTable]]] = field(default_factory=dict)
    _ids: Any = None  # pandas Index of the table rows' payload identities (built on the first subset query)
    columns: dict = field(default_factory=dict)  # category rows and the payloads as an array, built on first use

    def rows_of(self, items: Sequence[Payload]) -> np.ndarray:
        """Each payload's table row, or -1 when it is not one of the table's payloads."""
        if self._ids is None:
            import pandas as pd

            ids = np.fromiter(map(id, self.items), np.uint64, len(self.items))
            self._ids = pd.Index(ids[self.table.source])  # unique: a repeated object is a dropped duplicate
        return self._ids.get_indexer(np.fromiter(map(id, items), np.uint64, len(items)))

    def may_hold(self, items: Sequence[Payload]) -> bool:
        """False when one of a few spread payloads of ``items`` is surely not one of the pass's (found through its
        ready-made group key and that group's few rows); True when it cannot tell or all are."""
        keys = self.table.group_key_index
        if keys is None or not items:
            return True
        for i in sorted({0, len(items) // 2, len(items) - 1}):
            payload = items[i]
            key = getattr(payload, "row_key", None)
            if key is None:
                return True
            code = np.flatnonzero(keys == key >> KEY_SHIFT)
            if not len(code):
                return False
            rows = self.table.source[self.table.group == code[0]].tolist()
            if not any(self.items[r] is payload for r in rows):
                return False
        return True

    def category_rows(self, items: Sequence[Payload]) -> tuple[np.ndarray, list] | None:
        """The table rows of ``items`` (and a list of them the pass owns) when they are exactly the rows of one of
        its first payload's category slugs, in table order (a ``<metric>_<category>`` key's list: lmms-eval keeps
        the questions' order), else None.

        Found from the ready-made rows' category slugs (:class:`RowPayload`) and confirmed by list ``==`` against
        those rows' payloads, so a guess that does not hold costs a compare and falls back to identity lookups.
        """
        table = self.table
        categories = getattr(items[0], "row_categories", None) if items else None
        if not categories or len(table.source) != len(self.items):  # a pass with repeated answers: by identity
            return None
        if "categories" not in self.columns:
            column = _slot_column(self.items, "row_categories", object)
            self.columns["categories"] = None if column is None else _factorize_objects(column)  # a few shared tuples
        if self.columns["categories"] is None:
            return None
        codes, uniques = self.columns["categories"]
        given = items if isinstance(items, list) else list(items)
        for category in categories:
            if ("category", category) not in self.columns:
                hit = np.fromiter((category in u for u in uniques), bool, len(uniques))
                self.columns[("category", category)] = np.flatnonzero(hit[codes])
            rows = self.columns[("category", category)]
            if len(rows) != len(given) or not all(given[i] is self.items[rows[i]] for i in _probes(len(given))):
                continue  # identities at spread positions first: a list equal only in content is not compared
            copy = self.objects()[rows].tolist()
            if copy == given:
                return rows, copy
        return None

    def objects(self) -> np.ndarray:
        """The pass's payloads as an object array (C-level gathers: no Python int per index)."""
        if "objects" not in self.columns:
            self.columns["objects"] = np.fromiter(self.items, object, len(self.items))
        return self.columns["objects"]

    def known(self, items: Sequence[Payload]) -> PayloadTable | None:
        """The table of a list met before in this pass (the same objects in the same order), else None."""
        for seen, table in self.lists.get(_fingerprint(items), ()):
            if _same(seen, items):
                return table
        return None

    def remember(self, items: list, table: PayloadTable) -> None:
        """Remember ``items`` (a list the pass owns: no caller changes it) as resolved to ``table``."""
        self.lists.setdefault(_fingerprint(items), []).append((items, table))


# The pass being aggregated lives in the run state (reset with each evaluation), read and replaced only here.


def _get_pass() -> _Pass | None:
    return STATE.scoring_pass


def _set_pass(new: _Pass) -> None:
    STATE.scoring_pass = new  # one reference swap: readers see the old pass or the new one


def reset_pass() -> None:
    """Forget the current pass (tests; a long-lived process between runs)."""
    STATE.scoring_pass = None


def _same(a: Sequence[Any], b: Sequence[Any]) -> bool:
    """Whether ``a`` and ``b`` hold the same payloads in the same order (``a`` a list the pass made)."""
    if a is b:
        return True
    if len(a) != len(b) or not isinstance(b, list):
        return len(a) == len(b) and all(map(operator.is_, a, b))
    # Callers check the fingerprint (identities at 64 spread positions) first, so a fresh list of fresh payloads
    # equal in content (the next task's, a rescore's) never gets here. Then list ``==`` is one C loop that
    # compares pointers and only calls ``__eq__`` on two different objects: that is identity at memory speed
    # (~1 ms a million), and two different payloads it finds equal in content give the same table anyway.
    try:
        return bool(a == b)
    except Exception:  # noqa: BLE001 - a payload value whose == cannot be a bool: not the same list
        return False


def _probes(n: int) -> range:
    """Up to 65 spread positions of a list of ``n`` (the same as :func:`_fingerprint`'s)."""
    return range(0, n, max(1, n // 64)) if n else range(0)


def _fingerprint(items: Sequence[Any]) -> tuple:
    n = len(items)
    if not n:
        return (0,)
    step = max(1, n // 64)
    return (n, *(id(items[i]) for i in range(0, n, step)), id(items[-1]))


def _twins(items: Sequence[Payload]) -> Sequence[Payload]:
    # A payload with a ``twin`` (payloads.PrimaryPayload: the lean samples file's full copy under the primary
    # key) stands for that shared object, so that one table serves every metric key of a task.
    if not items or getattr(items[0], "twin", None) is None:
        return items
    try:
        return list(map(operator.attrgetter("twin"), items))
    except AttributeError:
        return items


def payload_table(items: Sequence[Payload], label: str = "") -> PayloadTable:
    """The table of ``items``: the pass's own, a subset of it found by identity, or a new pass."""
    given = items
    items = _twins(items)
    current = _get_pass()
    if current is not None:
        table = current.known(items)
        if table is not None:
            return table
        found = current.category_rows(items)
        if found is None:
            rows = _rows_in(current, items)
            found = None if rows is None else (rows, list(items) if items is given else items)
        if found is not None:
            rows, copy = found
            table = current.table.subset(rows, copy)
            current.remember(copy, table)
            return table
    check_scored_selected(label)  # once per pass: before the first number of a task is computed
    kept = list(items) if items is given else items  # the pass's own list (_twins made a new one)
    table = PayloadTable.build(kept, label)
    new = _Pass(kept, table)
    new.remember(kept, table)
    _set_pass(new)
    return table


def check_scored_selected(label: str = "") -> None:
    """Inside an lmms-eval aggregation: stop unless the answers cover every question the run selected.

    lmms-eval's ``--cache_requests true`` keys its request cache by task name, shot count, rank and world
    size only, so a cache written for a smaller data folder replays a stale subset of requests: the
    scores would be over that subset while ``n-samples`` names the whole set. Outside an aggregation
    (``rescore``, tests) this does nothing (see :func:`temporal_tasks.compat.aggregation_selection`).
    """
    found = aggregation_selection()
    if found is None:
        return
    task, selected, answered = found
    if answered and answered < selected:
        exit_run(
            DataError(
                f"{task or label}: the run selected {selected} questions (the data after --limit/--offset, all "
                f"ranks) but only {answered} were answered. The likely cause is a stale lmms-eval request cache: "
                "--cache_requests true reuses the requests built by an earlier run of this task (the cache is keyed "
                "by task name, shots, rank and world size only, not by the data). Rerun with --cache_requests "
                "refresh (or without --cache_requests). No score is reported over a silent subset."
            )
        )


def _rows_in(current: _Pass, items: Sequence[Payload]) -> np.ndarray | None:
    """Rows of ``items`` in the pass's table when each is one of its payloads, once; else None."""
    if len(items) > len(current.table.source) or not current.may_hold(items):
        return None  # a new payload set (the next task's): no identity lookup of a million payloads
    rows = current.rows_of(items)
    if (rows < 0).any() or (len(rows) and np.bincount(rows).max() > 1):
        return None
    return rows


def memo(key: tuple, items: Sequence[Any], compute: Callable[[], Any]) -> Any:
    """``compute()`` once per (key, payload list) within the current pass."""
    if not items:
        return compute()
    table = payload_table(items)  # makes sure the pass is this payload set's
    current = _get_pass()
    assert current is not None
    fp = (key, id(table))  # the pass keeps its tables alive: an id is never reused within it
    if fp not in current.memo:
        current.memo[fp] = compute()
    return current.memo[fp]
