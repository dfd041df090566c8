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

import itertools
import operator
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


def _factorize_objects(values: list) -> tuple[np.ndarray, list]:
    import pandas as pd

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
        group_codes, group_names = _factorize(_column(items, "group_id"))
        role_codes, role_names = _factorize(_column(items, "role"))
        correct = _objects(_column(items, "correct")).astype(bool)  # truthiness, as bool() of each
        invalid = np.equal(_objects(_column(items, "pred")), None)
        key = group_codes * max(1, len(role_names)) + role_codes
        import pandas as pd

        repeated = pd.Series(key).duplicated().to_numpy()  # hashing, no sort
        keep = np.flatnonzero(~repeated)
        if len(keep) < n:
            _check_duplicates(items, key, keep, label)
        table = cls(
            items, keep, group_codes[keep], role_codes[keep], correct[keep], invalid[keep],
            _group_sizes(items, group_codes, len(group_names)),
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
            members = np.bincount(self.group, minlength=len(self.group_names))
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
        where = np.full(len(self.group_names), -1, dtype=np.int64)
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
    # C-level maps: this runs over every payload of every new pass (a million in the bench). Without --repeats no
    # payload has the key, which a membership test finds fastest.
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

    def rows_of(self, items: Sequence[Payload]) -> np.ndarray:
        """Each payload's table row, or -1 when it is not one of the table's payloads."""
        if self._ids is None:
            import pandas as pd

            ids = np.fromiter(map(id, self.items), np.uint64, len(self.items))
            self._ids = pd.Index(ids[self.table.source])  # unique: a repeated object is a dropped duplicate
        return self._ids.get_indexer(np.fromiter(map(id, items), np.uint64, len(items)))

    def known(self, items: Sequence[Payload]) -> PayloadTable | None:
        """The table of a list met before in this pass (the same objects in the same order), else None."""
        for seen, table in self.lists.get(_fingerprint(items), ()):
            if _same(seen, items):
                return table
        return None

    def remember(self, items: Sequence[Payload], table: PayloadTable) -> None:
        self.lists.setdefault(_fingerprint(items), []).append((list(items), table))


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
    items = _twins(items)
    current = _get_pass()
    if current is not None:
        table = current.known(items)
        if table is not None:
            return table
        rows = _rows_in(current, items)
        if rows is not None:
            table = current.table.subset(rows, list(items))
            current.remember(items, table)
            return table
    check_scored_selected(label)  # once per pass: before the first number of a task is computed
    kept = list(items)
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
