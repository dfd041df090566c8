"""Per-question rates over the complete groups of an aggregation pass: unreadable, readings that disagree, a flag.

Beside the group metrics of :mod:`temporal_tasks.scoring`, and over the same payload table (one per pass), so
``invalid_rate``, ``parse_disagreement`` and ``truncated_rate`` count exactly the questions the metrics score.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from temporal_tasks.bootstrap import percent
from temporal_tasks.rows import DISAGREE, READINGS, TRUNCATED, Payload
from temporal_tasks.scoring_pass import payload_table
from temporal_tasks.table import PayloadTable

__all__ = ["complete_groups", "question_rate"]


def question_rate(items: Sequence[Payload], flag: str, label: str = "") -> float:
    """Percent of scored questions (complete groups) whose ``flag`` holds.

    ``flag``: ``"invalid"`` (unreadable answer), ``"disagree"`` (robust and official readings differ;
    payloads without both readings are not counted), or a payload field such as ``"truncated"``
    (missing counts as false).
    """
    if not items:
        return math.nan
    table = payload_table(items, label)
    if table.repeats > 1:  # every answer counts: k x questions
        rates = [_question_hits(table.for_repeat(r), flag, r) for r in range(table.repeats)]
        return percent(sum(h for h, _ in rates), sum(n for _, n in rates))
    hits, counted = _question_hits(table, flag)
    return percent(hits, counted)


def _question_hits(table: PayloadTable, flag: str, repeat: int | None = None) -> tuple[int, int]:
    """``(questions whose flag holds, questions counted)`` of one table (one repeat's readings)."""

    def values(key: str, default: object) -> tuple[np.ndarray, bool]:  # and whether every payload has the field
        if repeat is None:
            return table.field_values(key, default)
        return table.repeat_values(key, repeat, default), False

    _seen, rows, complete = table.groups()
    counted = complete[rows]  # the questions of complete groups
    if flag == "invalid":
        return int((counted & table.invalid).sum()), int(counted.sum())
    bit = _FLAG_BITS.get(flag)
    if bit is not None and table.flags is not None:  # row_flags (a repeat's view: reading_flags), read once
        if flag == "disagree":  # only payloads holding both readings are counted
            counted = counted & ((table.flags & READINGS) != 0)
        return int((counted & ((table.flags & bit) != 0)).sum()), int(counted.sum())
    if flag == "disagree":
        (robust, robust_full), (official, official_full) = (
            values("pred_robust", _MISSING),
            values("pred_official", _MISSING),
        )
        if not (robust_full and official_full):  # compare with the marker only where a payload lacks a reading
            counted = counted & (robust != _MISSING) & (official != _MISSING)
        hits = robust != official
    else:
        hits = values(flag, False)[0].astype(bool)  # truthiness, as bool() of each (missing counts as false)
    return int((counted & hits).sum()), int(counted.sum())


_FLAG_BITS = {"disagree": DISAGREE, "truncated": TRUNCATED}
_MISSING = object()


def complete_groups(items: Sequence[Payload]) -> int:
    """How many groups of ``items`` are complete (every member answered)."""
    members: dict[str, set] = {}
    sizes: dict[str, int] = {}
    for p in items:
        members.setdefault(p["group_id"], set()).add(p["role"])
        sizes.setdefault(p["group_id"], int(p["group_size"]))
    return sum(len(roles) == sizes[gid] for gid, roles in members.items())
