"""The identities of a list's items at memory speed: a copy of the list's own pointer array (CPython).

An aggregation pass confirms that a metric key's list holds exactly some of its payloads, in order. In Python that
takes either ``map(id, items)`` (a Python int per item, ~30 ms a million) or a copy of the list (``list(items)``,
a gather, then ``==``), which writes every item's reference count: at a million payloads spread over gigabytes,
a cache miss per payload, and it grows faster than the payload count. The identities themselves sit in one
array inside the list object (``id()`` of an item is its address), so copying that array is a memcpy.

:func:`list_ids` does that where the interpreter lays lists out as CPython does (``PyObject_VAR_HEAD``, then the
item array), which is checked once, at import, on a probe list; anywhere else (another interpreter, a
free-threaded build, a tuple or any other sequence) it is ``map(id, ...)``: the same numbers, slower.
:func:`same_items` compares two lists' identities a slice at a time, so that confirming a million items allocates
no fresh million-item array (whose first touch, page by page, costs more than the compare).
"""

from __future__ import annotations

import ctypes
import operator
import struct
import sys
from collections.abc import Sequence
from typing import Any

import numpy as np

__all__ = ["attribute_ids", "fast", "list_ids", "same_items"]

_WORD = struct.calcsize("P")
_HEAD = struct.Struct("nP")  # a list's ob_size and ob_item (its item array), after ob_refcnt and ob_type


def _layout() -> int | None:
    """Where a list's ``(ob_size, ob_item)`` sit, when this interpreter lays lists out as CPython does; else None."""
    if sys.implementation.name != "cpython":
        return None
    probe = [object(), object(), object()]
    offset = 2 * _WORD
    try:
        # ctypes.string_at copies with the GIL held (it is a PYFUNCTYPE): the list cannot change meanwhile.
        size, pointer = _HEAD.unpack(ctypes.string_at(id(probe) + offset, _HEAD.size))
        if size == len(probe) and pointer:
            found = struct.unpack(f"{len(probe)}P", ctypes.string_at(pointer, len(probe) * _WORD))
            if found == tuple(map(id, probe)):
                return offset
    except (OSError, ValueError, struct.error):  # pragma: no cover - an interpreter whose lists differ
        pass
    return None  # pragma: no cover - checked on CPython only


_OFFSET = _layout()  # configuration of this interpreter, fixed at import (not run state)


def fast() -> bool:
    """Whether :func:`list_ids` copies the pointer array (CPython's list layout found) rather than ``map(id)``."""
    return _OFFSET is not None


def list_ids(items: Sequence[Any]) -> np.ndarray:
    """``id()`` of each item of ``items``, as a ``uintp`` array of its own (read-only).

    For a ``list`` on CPython, a copy of the list's pointer array: no item is touched. The list must not change
    while this runs (another thread changing a list that an aggregation reads would be a bug anyway).
    """
    n = len(items)
    if _OFFSET is not None and type(items) is list and n:
        size, pointer = _HEAD.unpack(ctypes.string_at(id(items) + _OFFSET, _HEAD.size))
        if size == n and pointer:
            return np.frombuffer(ctypes.string_at(pointer, n * _WORD), np.uintp)
    return np.fromiter(map(id, items), np.uintp, n)


_CHUNK = 1 << 15  # items per slice: 256 KiB of pointers, memory that is reused from slice to slice


def attribute_ids(items: Sequence[Any], name: str) -> np.ndarray:
    """``id()`` of attribute ``name`` of each item, as an ``intp`` array (``AttributeError`` where one lacks it).

    For attributes that hold a few shared objects: reading one is a reference to an object that stays in a cache,
    where an integer attribute is an object of its own per item to read. Made a slice at a time, so no
    million-item list of them exists.
    """
    n = len(items)
    out = np.empty(n, np.intp)
    get = operator.attrgetter(name)
    for start in range(0, n, _CHUNK):
        objects = list(map(get, items[start : start + _CHUNK]))
        out[start : start + len(objects)] = list_ids(objects)
    return out


def _pointers(items: list, start: int, stop: int) -> bytes | None:
    """A copy of ``items``' pointers ``start:stop`` (None when that is not within the list now)."""
    size, pointer = _HEAD.unpack(ctypes.string_at(id(items) + _OFFSET, _HEAD.size))
    if not pointer or not 0 <= start <= stop <= size:
        return None
    return ctypes.string_at(pointer + start * _WORD, (stop - start) * _WORD)


def same_items(items: Sequence[Any], source: list, at: np.ndarray | None = None) -> bool:
    """Whether ``items[i] is source[i]`` for every ``i`` (``source[at[i]]`` with ``at``, which must increase), the
    lengths agreeing: the identities of both lists compared a slice at a time, touching no item."""
    n = len(items)
    if n != (len(source) if at is None else len(at)):
        return False
    if _OFFSET is None or type(items) is not list or type(source) is not list:
        return all(map(operator.is_, items, source if at is None else map(source.__getitem__, at.tolist())))
    for start in range(0, n, _CHUNK):
        stop = min(start + _CHUNK, n)
        mine = _pointers(items, start, stop)
        if at is None:
            theirs = _pointers(source, start, stop)
            if mine is None or theirs is None or mine != theirs:
                return False
            continue
        where = at[start:stop]
        low = int(where[0])
        span = _pointers(source, low, int(where[-1]) + 1)  # at increases: its slice lies in this span of source
        if mine is None or span is None:
            return False
        if not np.array_equal(np.frombuffer(mine, np.uintp), np.frombuffer(span, np.uintp)[where - low]):
            return False
    return True
