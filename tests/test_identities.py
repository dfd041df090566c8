"""The contract of :mod:`temporal_tasks.identities`: a list's pointer array read as ``id()`` of each item (CPython)."""

from __future__ import annotations

import sys
import sysconfig

import numpy as np
import pytest

from temporal_tasks import identities
from temporal_tasks.identities import attribute_ids, fast, list_ids, same_items


def test_this_interpreter_lays_lists_out_as_cpython_does():
    """The fast path is in force on CPython (CI's interpreter); elsewhere it falls back to map(id)."""
    free_threaded = bool(sysconfig.get_config_var("Py_GIL_DISABLED"))
    assert fast() == (sys.implementation.name == "cpython" and not free_threaded)


@pytest.mark.parametrize("n", [0, 1, 2, 3, 1000, 100_003])
def test_ids_of_a_list_are_map_id(n):
    items = [object() for _ in range(n // 2)] + [{"a": i} for i in range(n - n // 2)]
    items[::7] = [items[0]] * len(items[::7]) if items else []  # repeated objects too
    got = list_ids(items)
    assert got.dtype == np.uintp and got.tolist() == list(map(id, items))


def test_a_changed_list_gives_its_new_identities():
    items = [object() for _ in range(10)]
    before = list_ids(items)
    items.append(object())
    items[3] = object()
    del items[0]
    assert list_ids(items).tolist() == list(map(id, items)) and len(before) == 10


@pytest.mark.parametrize("kind", [tuple, lambda xs: type("L", (list,), {})(xs), lambda xs: (x for x in xs)])
def test_other_sequences_fall_back_to_map_id(kind):
    items = [object() for _ in range(50)]
    seq = kind(items)
    if not hasattr(seq, "__len__"):
        seq = list(seq)
    assert list_ids(seq).tolist() == list(map(id, items))


def test_the_copy_is_its_own():
    items = [object() for _ in range(5)]
    got = list_ids(items)
    items[:] = [object() for _ in range(5)]
    assert got.tolist() != list(map(id, items))  # the earlier copy keeps the earlier identities
    with pytest.raises(ValueError):
        got[0] = 1  # read-only


def _by_hand(items, source, at):
    expected = source if at is None else [source[i] for i in at.tolist()]
    return len(items) == len(expected) and all(a is b for a, b in zip(items, expected, strict=True))


@pytest.mark.parametrize("n", [0, 1, 5, 70_001])
def test_same_items_is_identity_item_by_item(n, monkeypatch):
    """Slice by slice (a small slice forces many), against a comparison by hand: equal lists, a subset at
    increasing positions, one item swapped (anywhere, also in a later slice), an equal-content copy, other
    lengths; the fallback (another sequence) gives the same answers."""
    monkeypatch.setattr(identities, "_CHUNK", 1000)
    rng = np.random.default_rng(n)
    source = [{"i": i} for i in range(n)]
    at = np.flatnonzero(rng.random(n) < 0.3).astype(np.int32)
    cases = [(list(source), None), ([source[i] for i in at.tolist()], at)]
    if n:
        swapped = list(source)
        swapped[-1] = {"i": n - 1}  # equal in content, another object
        cases += [(swapped, None), ([dict(d) for d in source], None), (list(source[:-1]), None)]
        if len(at):
            moved = [source[i] for i in at.tolist()]
            moved[len(moved) // 2] = source[(int(at[len(at) // 2]) + 1) % n]
            cases += [(moved, at), (moved[:-1], at)]
    for items, where in cases:
        want = _by_hand(items, source, where)
        assert same_items(items, source, where) == want
        assert same_items(tuple(items), source, where) == want  # not a list: item by item


class _Holder:
    __slots__ = ("shared",)

    def __init__(self, shared):
        self.shared = shared


@pytest.mark.parametrize("n", [0, 3, 70_001])
def test_attribute_ids_are_the_attributes_identities(n, monkeypatch):
    monkeypatch.setattr(identities, "_CHUNK", 1000)
    few = [object() for _ in range(3)]
    items = [_Holder(few[i % 3]) for i in range(n)]
    got = attribute_ids(items, "shared")
    assert got.dtype == np.intp and got.tolist() == [id(h.shared) for h in items]
    with pytest.raises(AttributeError):
        attribute_ids([*items, object()], "shared")
