"""The identities of a list's items at memory speed: a copy of the list's own pointer array (CPython).

An aggregation pass confirms that a metric key's list holds exactly some of its payloads, in order. In Python that
takes either ``map(id, items)`` (a Python int per item, ~30 ms a million) or a copy of the list (``list(items)``,
a gather, then ``==``), which writes every item's reference count: at a million payloads spread over gigabytes,
a cache miss per payload, and it grows faster than the payload count. The identities themselves sit in one
array inside the list object (``id()`` of an item is its address), so copying that array is a memcpy.

:func:`list_ids` does that where the interpreter lays lists out as CPython does (``PyObject_VAR_HEAD``, then the
item array), which is checked once, at import, on a probe list; anywhere else (another interpreter, a
free-threaded build, a tuple or any other sequence) it is ``map(id, ...)``: the same numbers, slower.
"""

from __future__ import annotations

import ctypes
import struct
import sys
from collections.abc import Sequence
from typing import Any

import numpy as np

__all__ = ["fast", "list_ids"]

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
