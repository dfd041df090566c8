"""The contract of :mod:`temporal_tasks.identities`: a list's pointer array read as ``id()`` of each item (CPython)."""

from __future__ import annotations

import sys
import sysconfig

import numpy as np
import pytest

from temporal_tasks.identities import fast, list_ids


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
