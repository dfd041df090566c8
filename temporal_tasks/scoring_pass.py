"""The cache of one aggregation pass: each payload list an aggregation receives resolved to its table once.

Payloads become a :class:`~temporal_tasks.table.PayloadTable` once per payload set. A task's metric keys all
aggregate the same payload objects (its category keys a subset of them), so the table of the set being
aggregated, and every metric computed from it, is kept until a different payload set arrives; then the old
pass is freed. Correctness never depends on a cache hit.

Each metric key hands over its own list of the same objects. A list met before is recognised by its length and
the identities at 64 spread positions, then confirmed by list ``==`` (one C loop over pointers, about a
millisecond a million); a category key's list is found from the ready-made rows' category slugs and confirmed
by the identities of all its items, compared with the pass's list slice by slice
(:func:`temporal_tasks.identities.same_items`, which touches no payload); any other list is matched to the pass's
payloads by identity (a subset) or starts a new pass. A subset is remembered by its positions in the pass's list,
and its table gathers its payloads only when a metric reads a payload field. So a million payloads are read once
per column, not once per metric key.
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from temporal_tasks.compat import aggregation_selection
from temporal_tasks.errors import DataError, exit_run
from temporal_tasks.identities import attribute_ids, list_ids, same_items
from temporal_tasks.rows import KEY_SHIFT, Payload
from temporal_tasks.run_state import STATE
from temporal_tasks.table import PayloadTable, factorize_runs, gather

__all__ = ["check_scored_selected", "memo", "payload_table", "reset_pass"]


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

    def ids(self) -> np.ndarray:
        """The identities of the pass's payloads (:func:`temporal_tasks.identities.list_ids`, made on first use)."""
        if "ids" not in self.columns:
            self.columns["ids"] = list_ids(self.items)
        return self.columns["ids"]

    def rows_of(self, ids: np.ndarray) -> np.ndarray:
        """The table row of each payload identity in ``ids``, or -1 where it is not one of the table's payloads."""
        if self._ids is None:
            import pandas as pd

            self._ids = pd.Index(self.ids()[self.table.source])  # unique: a repeated object is a dropped duplicate
        return self._ids.get_indexer(ids)

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

    def category_rows(self, items: Sequence[Payload]) -> tuple[np.ndarray, _ItemsAt] | None:
        """The table rows of ``items`` (and their identities) when they are exactly the rows of one of its first
        payload's category slugs, in table order (a ``<metric>_<category>`` key's list: lmms-eval keeps the
        questions' order), else None.

        Found from the ready-made rows' category slugs (:class:`RowPayload`) and confirmed by the identities of
        every item (:func:`list_ids`: no payload is touched), so a guess that does not hold costs a compare and
        falls back to identity lookups.
        """
        table = self.table
        categories = getattr(items[0], "row_categories", None) if items else None
        if not categories or len(table.source) != len(self.items):  # a pass with repeated answers: by identity
            return None
        if "categories" not in self.columns:
            try:  # each payload's shared category tuple (its identity: the few tuples stay in a cache)
                keys = attribute_ids(self.items, "row_categories")
            except AttributeError:  # a payload without a ready-made row
                keys = None
            self.columns["categories"] = None if keys is None else self._category_runs(keys)
        if self.columns["categories"] is None:
            return None
        run_codes, lengths, uniques = self.columns["categories"]
        for category in categories:
            if ("category", category) not in self.columns:
                hit = np.fromiter((category in u for u in uniques), bool, len(uniques))[run_codes]
                # Kept for the pass: the positions' view when every payload has the category, else small ints.
                rows = table.positions() if hit.all() else np.flatnonzero(np.repeat(hit, lengths))
                self.columns[("category", category)] = rows.astype(table.positions().dtype, copy=False)
            rows = self.columns[("category", category)]
            if len(rows) != len(items) or not all(items[i] is self.items[rows[i]] for i in _probes(len(items))):
                continue  # identities at spread positions first: a list equal only in content is not compared
            # rows increase: as many as the payloads, they are 0, 1, ... (the whole list)
            expected = _ItemsAt(self.items, None if len(rows) == len(self.items) else rows)
            if _same(expected, items):
                return rows, expected
        return None

    def _category_runs(self, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray, list]:
        """Runs of payloads with one category tuple (by identity: a few shared tuples): each run's code, its length,
        and each code's tuple. A group's questions usually follow one another and share their categories."""
        run_codes, lengths, first, _keys = factorize_runs(keys)
        return run_codes, lengths, [self.items[i].row_categories for i in first.tolist()]

    def known(self, items: Sequence[Payload]) -> PayloadTable | None:
        """The table of a list met before in this pass (the same objects in the same order), else None."""
        for seen, table in self.lists.get(_fingerprint(items), ()):
            if _same(seen, items):
                return table
        return None

    def remember(self, items: list | _ItemsAt, table: PayloadTable) -> None:
        """Remember ``items`` as resolved to ``table``: a list the pass owns (no caller changes it), or some of the
        pass's payloads by their positions in its list (:class:`_ItemsAt`)."""
        self.lists.setdefault(_fingerprint(items), []).append((items, table))


# The pass being aggregated lives in the run state (reset with each evaluation), read and replaced only here.


def _get_pass() -> _Pass | None:
    return STATE.scoring_pass


def _set_pass(new: _Pass) -> None:
    STATE.scoring_pass = new  # one reference swap: readers see the old pass or the new one


def reset_pass() -> None:
    """Forget the current pass (tests; a long-lived process between runs)."""
    STATE.scoring_pass = None


@dataclass(frozen=True, eq=False)
class _ItemsAt:
    """Some of the pass's payloads, remembered by where they are: ``items[at]`` of a list the pass owns (``at``
    increasing), or all of ``items``. Compared slice by slice (:func:`same_items`), so a remembered subset costs
    no array of its own."""

    items: list
    at: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.items if self.at is None else self.at)

    def ids(self, positions: list[int]) -> list[int]:
        """The identities at ``positions`` of this list."""
        where = positions if self.at is None else self.at[positions].tolist()
        return [id(self.items[i]) for i in where]


def _same(a: Sequence[Any] | _ItemsAt, b: Sequence[Any]) -> bool:
    """Whether ``b`` holds the payloads ``a`` holds (a list the pass made, or some of its payloads), in order."""
    if isinstance(a, _ItemsAt):
        return same_items(b, a.items, a.at)
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
    """Up to 65 spread positions of a list of ``n`` (where :func:`_fingerprint` takes identities)."""
    return range(0, n, max(1, n // 64)) if n else range(0)


def _fingerprint(items: Sequence[Any] | _ItemsAt) -> tuple:
    """The length and the identities at :func:`_probes`' positions and the last, of a list (or :class:`_ItemsAt`)."""
    n = len(items)
    if not n:
        return (0,)
    if isinstance(items, _ItemsAt):
        return (n, *items.ids([*_probes(n), n - 1]))
    return (n, *map(id, _probe(n)(items)))


@functools.lru_cache(maxsize=256)
def _probe(n: int) -> Callable[[Sequence[Any]], tuple]:
    """The items at :func:`_probes`' positions and the last of a list of ``n`` (> 0), in one C-level call."""
    return operator.itemgetter(*_probes(n), n - 1)


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
        found = current.category_rows(items) or _rows_in(current, items)
        if found is not None:  # some of the pass's payloads: a subset of its table, remembered by their positions
            rows, ids = found
            whole = len(current.table.source) == len(current.items)  # every payload a row: source is positions
            table = current.table.subset(rows, _Gathered(current.items, rows if whole else current.table.source[rows]))
            current.remember(ids, table)
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


def _rows_in(current: _Pass, items: Sequence[Payload]) -> tuple[np.ndarray, _ItemsAt] | None:
    """Rows of ``items`` in the pass's table (and their identities) when each is one of its payloads, once; else
    None."""
    if len(items) > len(current.table.source) or not current.may_hold(items):
        return None  # a new payload set (the next task's): no identity lookup of a million payloads
    ids = list_ids(items)
    rows = current.rows_of(ids)
    if (rows < 0).any() or (len(rows) and np.bincount(rows).max() > 1):
        return None
    at = current.table.source[rows]
    if len(at) < 2 or bool((at[1:] > at[:-1]).all()):
        return rows, _ItemsAt(current.items, at)
    return rows, _ItemsAt(gather(current.items, at))  # another order: a list of them, which the pass owns


class _Gathered(Sequence):
    """The pass's payloads at some positions (a subset table's payloads), gathered on first use: most metric keys
    never read a payload field, and a gather writes every payload's reference count."""

    __slots__ = ("_at", "_items", "_list")

    def __init__(self, items: list, at: np.ndarray) -> None:
        self._items, self._at, self._list = items, at, None

    def _get(self) -> list:
        if self._list is None:
            self._list = gather(self._items, self._at)
        return self._list

    def __len__(self) -> int:
        return len(self._at)

    def __getitem__(self, i: Any) -> Any:
        return self._get()[i]

    def __iter__(self) -> Iterator[Any]:
        return iter(self._get())


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
