"""A payload's table row, ready-made: what the scoring table reads of a payload, computed once when
``process_results`` makes it.

:func:`row_flags` is the one definition of a payload's flags (correct, unreadable, cut off while thinking, readings
that disagree, ``--repeats``, parser errors), for ready-made rows and plain dicts alike. :class:`RowPayload`
carries them with its interned group and role, so an aggregation over a million payloads reads each column in
one attribute pass instead of several dict lookups per payload.
"""

from __future__ import annotations

import contextlib
import functools
import operator
import sys
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

Payload = Mapping[str, Any]


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


def reading_flags(reading: Payload) -> int:
    """The flags of one reading of ``repeats`` (``--repeats k``): as :func:`row_flags`, but a reading may lack any
    field (a missing ``correct`` is wrong, a missing ``pred`` unreadable, a missing ``truncated`` false)."""
    pred = reading.get("pred")
    flags = CORRECT * bool(reading.get("correct")) | INVALID * (pred is None)
    flags |= TRUNCATED * bool(reading.get("truncated", False))
    if "pred_robust" in reading and "pred_official" in reading:
        flags |= READINGS | DISAGREE * bool(reading["pred_robust"] != reading["pred_official"])
    return flags


def majority(readings: Sequence[Any]) -> Any:
    """The reading most of ``readings`` agree on; ``None`` (unreadable) on a tie for the most votes."""
    top = Counter(readings).most_common(2)
    if not top or (len(top) > 1 and top[0][1] == top[1][1]):
        return None
    return top[0][0]


def repeat_row(payload: Payload) -> bytes | None:
    """A ``--repeats k`` payload's readings as k + 1 bytes: each reading's :func:`reading_flags`, then its majority
    reading's (``CORRECT`` when it equals ``gold``, ``INVALID`` when unreadable or tied). None without
    (non-empty) ``repeats``. The one definition the table reads, ready-made in :class:`RowPayload`."""
    readings = payload.get("repeats")
    if not readings:
        return None
    winner = majority([reading.get("pred") for reading in readings])
    consensus = INVALID if winner is None else CORRECT * bool(winner == payload.get("gold"))
    return bytes([*map(reading_flags, readings), consensus])


@functools.lru_cache(maxsize=4096)
def category_key(categories: tuple) -> tuple[str, ...]:
    # One shared tuple per distinct category list (a few per benchmark), so that a million payloads hold a few
    # objects and the table factorizes them by identity in C.
    return tuple(dict.fromkeys(slug(str(c)) for c in categories))


class RowPayload(dict):
    """A payload that carries its table row ready-made (group, role, group size, :func:`row_flags`, category slugs,
    :func:`repeat_row`).

    Computed once, when ``process_results`` makes the payload (a few microseconds beside a model's answer), so an
    aggregation reads each of a million payloads in one attribute pass per column instead of several dict
    lookups and a Python call. Any change through the dict's methods recomputes it; a payload that lacks a field
    the row needs has no row, and the table reads it as a plain dict (the same numbers: :func:`row_flags` is
    the one definition). Group ids and roles are interned strings, so equal ids are one object in this process and
    the table factorizes them by identity.
    """

    __slots__ = ("row_group", "row_key", "row_role", "row_kind", "row_categories", "row_repeats")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._stamp()

    def _stamp(self) -> None:
        try:
            group, role, size, flags = self["group_id"], self["role"], int(self["group_size"]), row_flags(self)
            categories = category_key(tuple(self.get("categories") or ()))
            repeats = repeat_row(self) if flags & REPEATS else None
            if type(group) is not str or type(role) is not str or flags >> KEY_SHIFT or not 0 <= size < 1 << KEY_SHIFT:
                raise TypeError("only string ids are interned; flags and group sizes must fit below the key")
        except Exception:  # noqa: BLE001 - no row: the table reads it as a plain dict (and raises there)
            for name in RowPayload.__slots__:
                with contextlib.suppress(AttributeError):
                    delattr(self, name)
            return
        # Interned: equal group ids (roles) are one object in this process (a payload unpickled from another rank
        # is made here again), so the identity is the value and a million of them factorize as integers. Each key
        # packs such an identity (over 16: distinct live objects are further apart than that) above a small
        # field, so one attribute pass reads both; the payload holds the objects, so the identities stay valid.
        self.row_group = sys.intern(group)
        self.row_key = (id(self.row_group) >> 4) << KEY_SHIFT | flags
        self.row_role = sys.intern(role)
        self.row_kind = (id(self.row_role) >> 4) << KEY_SHIFT | size
        self.row_categories = categories  # shared: equal category lists are (almost always) one tuple
        self.row_repeats = repeats

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


def slot_column(items: Sequence[Any], slot: str, dtype: Any) -> np.ndarray | None:
    """Each payload's ready-made ``slot`` in one C-level pass; None when one has none (a plain dict)."""
    try:
        return np.fromiter(map(operator.attrgetter(slot), items), dtype, len(items))
    except AttributeError:
        return None
