"""The payload table (the core's ``_update`` step) and the cache of one aggregation pass.

Payloads become arrays once per payload set: one row per distinct (group, role). A task's metric
keys all aggregate the same payload objects (its category keys a subset of them), so the table of
the set being aggregated, and every metric computed from it, is kept until a different payload set
arrives; then the old pass is freed. Correctness never depends on a cache hit.
"""

from __future__ import annotations

import operator
import threading
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from temporal_tasks.compat import aggregation_selection
from temporal_tasks.errors import DataError, exit_run

Payload = Mapping[str, Any]


def _factorize(values: list) -> tuple[np.ndarray, list]:
    # pandas hashes a million strings in ~50 ms (lmms-eval has it imported already); a dict loop is 10x slower.
    import pandas as pd

    array = np.empty(len(values), dtype=object)
    array[:] = values
    codes, uniques = pd.factorize(array, sort=False)
    return np.asarray(codes, dtype=np.int64), list(uniques)


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
    group_names: np.ndarray
    role_names: np.ndarray
    duplicates: int = 0
    _matrices: tuple | None = field(default=None, repr=False)
    # ``--repeats k`` (k > 1): per row and repeat, (rows, k) arrays; ``consensus``: the majority reading's
    # (correct, invalid) per row (a tie is unreadable). None with one answer per question.
    repeat_correct: np.ndarray | None = field(default=None, repr=False)
    repeat_invalid: np.ndarray | None = field(default=None, repr=False)
    consensus: tuple[np.ndarray, np.ndarray] | None = field(default=None, repr=False)
    _views: dict = field(default_factory=dict, repr=False)  # repeat r / "consensus" -> its table (matrices memoised)
    _shared: dict = field(default_factory=dict, repr=False)  # per-row field values, shared with the repeat views

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
                repeat_correct=None, repeat_invalid=None, consensus=None, _views={},
            )  # fmt: skip
        return self._views[r]

    def for_consensus(self) -> PayloadTable:
        """The table of each question's majority reading across the repeats."""
        assert self.consensus is not None
        if "consensus" not in self._views:
            self._views["consensus"] = replace(
                self, correct=self.consensus[0], invalid=self.consensus[1], _matrices=None,
                repeat_correct=None, repeat_invalid=None, consensus=None, _views={},
            )  # fmt: skip
        return self._views["consensus"]

    @classmethod
    def build(cls, items: Sequence[Payload], label: str) -> PayloadTable:
        n = len(items)
        group_codes, group_names = _factorize(list(map(operator.itemgetter("group_id"), items)))
        role_codes, role_names = _factorize(list(map(operator.itemgetter("role"), items)))
        correct = np.fromiter(map(bool, map(operator.itemgetter("correct"), items)), bool, n)
        preds = np.empty(n, dtype=object)
        preds[:] = list(map(operator.itemgetter("pred"), items))
        invalid = np.equal(preds, None)
        sizes = np.fromiter(map(int, map(operator.itemgetter("group_size"), items)), np.int64, n)
        key = group_codes * max(1, len(role_names)) + role_codes
        import pandas as pd

        repeated = pd.Series(key).duplicated().to_numpy()  # hashing, no sort
        keep = np.flatnonzero(~repeated)
        if len(keep) < n:
            _check_duplicates(items, key, keep, label)
        group_size = np.zeros(len(group_names), dtype=np.int64)
        group_size[group_codes[::-1]] = sizes[::-1]  # the first payload's size wins
        table = cls(
            items, keep, group_codes[keep], role_codes[keep], correct[keep], invalid[keep], group_size,
            np.asarray(group_names, dtype=object), np.asarray(role_names, dtype=object), n - len(keep),
        )  # fmt: skip
        k = _repeat_count(items, label)
        if k > 1:
            rep_correct, rep_invalid, cons_correct, cons_invalid = _repeat_readings([items[i] for i in keep], k)
            table.repeat_correct, table.repeat_invalid = rep_correct, rep_invalid
            table.consensus = (cons_correct, cons_invalid)
        return table

    def subset(self, rows: np.ndarray, items: Sequence[Payload]) -> PayloadTable:
        """The table restricted to ``rows``, for ``items`` (one payload per row, in that order)."""
        table = PayloadTable(
            items, np.arange(len(rows)), self.group[rows], self.role[rows], self.correct[rows], self.invalid[rows],
            self.group_size, self.group_names, self.role_names,
        )  # fmt: skip
        if self.repeat_correct is not None and self.repeat_invalid is not None and self.consensus is not None:
            table.repeat_correct, table.repeat_invalid = self.repeat_correct[rows], self.repeat_invalid[rows]
            table.consensus = (self.consensus[0][rows], self.consensus[1][rows])
        return table

    def values(self, key: str, default: Any = None) -> np.ndarray:
        """Per row, the payload field ``key`` (``default`` where a payload lacks it), as an object array."""
        out = np.empty(len(self.items), dtype=object)
        out[:] = list(map(operator.methodcaller("get", key, default), self.items))
        return out if len(self.source) == len(self.items) else out[self.source]

    def field_slugs(self, key: str, slug: Callable[[str], str]) -> np.ndarray:
        """Per row, ``slug`` of the payload field ``key`` (memoised: the same for every repeat of the rows)."""
        cache_key = ("slugs", key)
        if cache_key not in self._shared:
            self._shared[cache_key] = np.asarray([slug(v or "") for v in self.values(key)], dtype=object)
        return self._shared[cache_key]

    def repeat_values(self, key: str, r: int, default: Any = None) -> np.ndarray:
        """Per row, the field ``key`` of repeat ``r``'s reading (``payload["repeats"][r]``), as an object array."""
        out = np.empty(len(self.items), dtype=object)
        out[:] = [p["repeats"][r].get(key, default) for p in self.items]
        return out if len(self.source) == len(self.items) else out[self.source]

    def matrices(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """``(present, correct, invalid, complete, group codes)``: role matrices of the groups seen (memoised).

        Group order does not matter downstream: metrics are sums and the bootstrap only sees the
        multiset of per-group outcomes.
        """
        if self._matrices is None:
            seen = np.flatnonzero(np.bincount(self.group, minlength=len(self.group_names)))
            rows = self.group_rows(seen)
            present = self.role_matrix(rows, np.ones(len(self.group), bool))
            correct = self.role_matrix(rows, self.correct)
            invalid = self.role_matrix(rows, self.invalid)
            complete = present.sum(axis=1) == self.group_size[seen]
            self._matrices = (present, correct, invalid, complete, seen)
        return self._matrices

    def group_rows(self, seen: np.ndarray) -> np.ndarray:
        """Per table row, its group's row in the role matrices."""
        where = np.full(len(self.group_names), -1, dtype=np.int64)
        where[seen] = np.arange(len(seen))
        return where[self.group]

    def role_matrix(self, rows: np.ndarray, values: np.ndarray, fill: Any = False) -> np.ndarray:
        """A (group, role) matrix of per-row ``values``."""
        n_groups = int(rows.max()) + 1 if len(rows) else 0
        out = np.full((n_groups, len(self.role_names)), fill, dtype=values.dtype)
        out[rows, self.role] = values
        return out


def _repeat_count(items: Sequence[Payload], label: str) -> int:
    """k: the length of the payloads' ``repeats`` list (1 when they have none); all payloads must agree."""
    # C-level maps: this runs over every payload of every new pass (a million in the bench)
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
    """Per payload: (rows, k) correct and invalid arrays, and the majority reading's correct and invalid."""
    n = len(items)
    correct = np.zeros((n, k), dtype=bool)
    invalid = np.zeros((n, k), dtype=bool)
    cons_correct = np.zeros(n, dtype=bool)
    cons_invalid = np.zeros(n, dtype=bool)
    for i, p in enumerate(items):
        reps = p["repeats"]
        preds = [rep.get("pred") for rep in reps]
        correct[i] = [bool(rep.get("correct")) for rep in reps]
        invalid[i] = [pred is None for pred in preds]
        pred = majority(preds)
        cons_invalid[i] = pred is None
        cons_correct[i] = pred is not None and pred == p.get("gold")
    return correct, invalid, cons_correct, cons_invalid


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
    items: list  # kept alive so that the identities in ``ids`` stay valid
    table: PayloadTable
    memo: dict[tuple, tuple[list, Any]] = field(default_factory=dict)
    _ids: Any = None  # pandas Index of the table rows' payload identities (built on the first subset query)

    def rows_of(self, items: Sequence[Payload]) -> np.ndarray:
        """Each payload's table row, or -1 when it is not one of the table's payloads."""
        if self._ids is None:
            import pandas as pd

            ids = np.fromiter(map(id, self.items), np.uint64, len(self.items))
            self._ids = pd.Index(ids[self.table.source])  # unique: a repeated object is a dropped duplicate
        return self._ids.get_indexer(np.fromiter(map(id, items), np.uint64, len(items)))


_pass_lock = threading.Lock()
_current: list[_Pass] = []


def _same(a: Sequence[Any], b: Sequence[Any]) -> bool:
    # The same payload objects, by identity (C-level, stops at the first difference). Never ``==``: a fresh
    # payload set equal in content to the pass's (the next task's, a rescore) would be compared dict by dict.
    return len(a) == len(b) and all(map(operator.is_, a, b))


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
        return [p.twin for p in items]
    except AttributeError:
        return items


def payload_table(items: Sequence[Payload], label: str = "") -> PayloadTable:
    """The table of ``items``: the pass's own, a subset of it found by identity, or a new pass."""
    items = _twins(items)
    with _pass_lock:
        current = _current[0] if _current else None
    if current is not None:
        if items is current.items or _same(current.items, items):
            return current.table
        rows = _rows_in(current, items)
        if rows is not None:
            return current.table.subset(rows, items)
    check_scored_selected(label)  # once per pass: before the first number of a task is computed
    kept = list(items)
    table = PayloadTable.build(kept, label)
    with _pass_lock:
        _current[:] = [_Pass(kept, table)]
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
    rows = current.rows_of(items)
    if (rows < 0).any() or (len(rows) and np.bincount(rows).max() > 1):
        return None
    return rows


def memo(key: tuple, items: Sequence[Any], compute: Callable[[], Any]) -> Any:
    """``compute()`` once per (key, payload list) within the current pass."""
    if not items:
        return compute()
    payload_table(items)  # makes sure the pass is this payload set's
    with _pass_lock:
        current = _current[0]
    fp = (key, *_fingerprint(items))
    hit = current.memo.get(fp)
    if hit is not None and _same(hit[0], items):
        return hit[1]
    result = compute()
    current.memo[fp] = (list(items), result)
    return result


def reset_pass() -> None:
    """Forget the current pass (tests; a long-lived process between runs)."""
    with _pass_lock:
        _current.clear()
