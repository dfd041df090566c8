"""The payload table (the core's ``_update`` step): what the metrics read of a list of payloads, as numpy arrays.

:func:`row_flags` is the one definition of a payload's flags. :class:`Columns` reads each payload once: group, role,
expected group size, flags. A :class:`PayloadTable` is those columns at some positions, one row per distinct
(group, role): a repeated answer counts once; two questions claiming one role of a group is an error. A table of
some of a list's payloads (a category key's) is made from that list's columns, so payloads are read once.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

Payload = Mapping[str, Any]

# The bits of row_flags. A payload's parser_errors count sits above them.
CORRECT, INVALID, TRUNCATED, DISAGREE, READINGS, REPEATS, EMPTY, MISSING = 1, 2, 4, 8, 16, 32, 64, 128
ERRORS_SHIFT = 8


def row_flags(payload: Payload) -> int:
    """The payload's flags: ``correct`` (truthiness), an unreadable ``pred`` (``None``), ``truncated``, an empty
    answer (``answer_empty``; missing is false) and no answer at all (``answer_missing``: a replayed question its
    responses file has no line for; missing is false), robust and official readings that differ (``!=``) and whether it
    has both, whether it holds ``repeats``, and its ``parser_errors`` count. A payload must have ``correct`` and
    ``pred`` (``KeyError``)."""
    flags = CORRECT if payload["correct"] else 0
    if payload["pred"] is None:
        flags |= INVALID
    if payload.get("truncated"):
        flags |= TRUNCATED
    if payload.get("answer_empty"):
        flags |= EMPTY
    if payload.get("answer_missing"):
        flags |= MISSING
    if "repeats" in payload:
        flags |= REPEATS
    if "pred_robust" in payload and "pred_official" in payload:
        flags |= READINGS | (DISAGREE if payload["pred_robust"] != payload["pred_official"] else 0)
    errors = payload.get("parser_errors")
    return flags | max(0, int(errors)) << ERRORS_SHIFT if errors else flags


def reading_flags(reading: Payload) -> int:
    """The flags of one reading of ``repeats`` (``--repeats k``), as :func:`row_flags` but lenient: a missing
    ``correct`` is wrong, a missing ``pred`` unreadable, a missing ``truncated`` or ``answer_empty`` false."""
    flags = CORRECT * bool(reading.get("correct")) | INVALID * (reading.get("pred") is None)
    flags |= TRUNCATED * bool(reading.get("truncated", False)) | EMPTY * bool(reading.get("answer_empty", False))
    if "pred_robust" in reading and "pred_official" in reading:
        flags |= READINGS | DISAGREE * bool(reading["pred_robust"] != reading["pred_official"])
    return flags


def payload_reading(items: Sequence[Payload], label: str = "") -> str | None:
    """The answer reading the payloads were read in: their ``parser_mode`` (``robust`` or ``official``).

    It decides the invalid-answer policy of a metric that has an official one (:func:`temporal_tasks.scoring.metrics.
    policy`), never the environment at scoring time. A payload without the field (older samples files; payloads
    without a text answer to read, e.g. log-likelihood scores) has no say; None when no payload records a mode
    (scored as ``robust``, the default mode). Payloads read in different modes are an error: a list of payloads
    is one run's answers, read one way.
    """
    modes = {p.get("parser_mode") for p in items}
    modes.discard(None)
    if len(modes) > 1 or not modes <= {"robust", "official"}:
        raise ValueError(
            f"{label or 'scoring'}: the answers were read in readings {sorted(map(str, modes))}; one list of "
            "payloads must be read in one mode, robust or official (they come from different runs or settings). "
            "Score each run's samples on their own, or re-read them in one mode: temporal-tasks rescore --parser "
            "robust|official."
        )
    return modes.pop() if modes else None


def majority(readings: Sequence[Any]) -> Any:
    """The reading most of ``readings`` agree on; ``None`` (unreadable) on a tie for the most votes."""
    top = Counter(readings).most_common(2)
    if not top or (len(top) > 1 and top[0][1] == top[1][1]):
        return None
    return top[0][0]


def repeat_flags(payload: Payload) -> list[int]:
    """A ``--repeats k`` payload's k readings' :func:`reading_flags`, then its majority reading's (``CORRECT`` when
    it equals ``gold``, ``INVALID`` when unreadable or tied; never ``EMPTY``: it is no one answer). One answer per
    question: its :func:`row_flags`."""
    readings = payload.get("repeats")
    if not readings:
        return [row_flags(payload)]
    winner = majority([reading.get("pred") for reading in readings])
    consensus = INVALID if winner is None else CORRECT * bool(winner == payload.get("gold"))
    return [*map(reading_flags, readings), consensus]


@dataclass
class Columns:
    """Every payload's group and role (codes into ``group_names`` / ``role_names``), expected group size and
    :func:`row_flags`; with ``--repeats k``, ``readings``: per payload its k readings' flags and the majority's;
    ``reading``: the reading they were read in (:func:`payload_reading`)."""

    group: np.ndarray
    role: np.ndarray
    size: np.ndarray
    flags: np.ndarray
    readings: np.ndarray | None
    group_names: list[str]
    role_names: list[str]
    reading: str | None = None

    @classmethod
    def read(cls, items: Sequence[Payload], label: str, answers: bool = True) -> Columns:
        """One pass over ``items``; ``answers=False``: groups and roles only (flags 0: payloads without answers)."""
        groups: dict[Any, int] = {}
        roles: dict[Any, int] = {}
        group = np.array([groups.setdefault(p["group_id"], len(groups)) for p in items], dtype=np.int64)
        role = np.array([roles.setdefault(p["role"], len(roles)) for p in items], dtype=np.int64)
        size = np.array([int(p["group_size"]) for p in items], dtype=np.int64)
        flags = np.array([row_flags(p) for p in items] if answers else [0] * len(items), dtype=np.int64)
        readings = None
        if flags.size and np.bitwise_or.reduce(flags) & REPEATS:
            per = [repeat_flags(p) for p in items]
            counts = {len(r) - 1 if len(r) > 1 else 1 for r in per}
            if len(counts) > 1:
                raise ValueError(
                    f"{label or 'scoring'}: the answers have different numbers of repeats ({sorted(counts)}); the "
                    "payloads come from different runs (--repeats differs). Score each run's samples on their own."
                )
            if counts.pop() > 1:
                readings = np.array(per, dtype=np.int64)
        reading = payload_reading(items, label) if answers else None
        return cls(group, role, size, flags, readings, list(groups), list(roles), reading)


@dataclass
class PayloadTable:
    """Payloads as arrays, one row per distinct (group, role), in payload order.

    Per row: ``source`` (its payload's index in ``items``), ``group`` (its group's index in ``group_ids`` and
    ``complete``), ``role`` (a code into ``role_names``), and ``(rows, w)`` arrays ``correct``, ``invalid``,
    ``empty`` (an empty answer), ``missing`` (no answer at all, in every reading): one column per reading (w = 1;
    with ``--repeats k``, w = k + 1: each repeat's reading, then the majority's). ``reading_flags``: (rows, k)
    flags of each answer. ``complete``: per group, whether every expected member is here. ``reading``: the reading
    the payloads were read in (:func:`payload_reading`). Group order carries no meaning: metrics are sums over
    groups.
    """

    items: Sequence[Payload]
    source: np.ndarray
    group: np.ndarray
    role: np.ndarray
    correct: np.ndarray
    invalid: np.ndarray
    empty: np.ndarray
    missing: np.ndarray
    reading_flags: np.ndarray
    complete: np.ndarray
    group_ids: list[str]
    role_names: list[str]
    duplicates: int
    parser_errors: int
    reading: str | None

    @property
    def repeats(self) -> int:
        """How many answers each question has (1 without ``--repeats``)."""
        return self.reading_flags.shape[1]

    @classmethod
    def build(
        cls, items: Sequence[Payload], columns: Columns, at: np.ndarray | None = None, label: str = ""
    ) -> PayloadTable:
        """The table of ``items``, whose columns are ``columns`` (at positions ``at`` of them, when ``items`` are
        some of the payloads ``columns`` were read from)."""
        at = np.arange(len(items)) if at is None else at
        key = columns.group[at] * max(1, len(columns.role_names)) + columns.role[at]
        keep = np.sort(np.unique(key, return_index=True)[1])  # the first answer to each question
        if len(keep) < len(at):
            _check_duplicates(items, key, keep, label)
        rows = at[keep]
        groups, group = np.unique(columns.group[rows], return_inverse=True)
        first = np.unique(group, return_index=True)[1]  # a group's first payload says its expected size
        complete = np.bincount(group, minlength=len(groups)) == columns.size[rows][first]
        flags = columns.flags[rows]
        each = flags[:, None] if columns.readings is None else columns.readings[rows]
        readings = each if columns.readings is None else each[:, :-1]
        missing = np.broadcast_to(((flags & MISSING) != 0)[:, None], each.shape)  # a question's, not a reading's
        return cls(
            items, keep, group, columns.role[rows], (each & CORRECT) != 0, (each & INVALID) != 0, (each & EMPTY) != 0,
            missing, readings, complete,
            [columns.group_names[g] for g in groups.tolist()], columns.role_names, len(at) - len(keep),
            int((columns.flags[at] >> ERRORS_SHIFT).sum()), columns.reading,
        )  # fmt: skip

    def values(self, field: str, default: Any = None) -> list:
        """Per row, the payload field ``field`` (``default`` where a payload lacks it)."""
        return [self.items[i].get(field, default) for i in self.source.tolist()]

    def per_group(self, mask: np.ndarray) -> np.ndarray:
        """Per group (all seen, complete or not), how many of its rows ``mask`` holds for: (groups, w) of a
        (rows, w) mask."""
        width = mask.shape[1]
        cells = self.group[:, None] * width + np.arange(width)
        return np.bincount(cells[mask], minlength=len(self.complete) * width).reshape(-1, width)

    def role_matrix(self, values: np.ndarray, fill: Any = False) -> np.ndarray:
        """A (group, role, ...) matrix of per-row ``values``."""
        out = np.full((len(self.complete), len(self.role_names), *values.shape[1:]), fill, dtype=values.dtype)
        out[self.group, self.role] = values
        return out

    def first_values(self, field: str) -> list:
        """Per group, the field ``field`` of its first row's payload (a group's stratum)."""
        first = np.unique(self.group, return_index=True)[1]
        return [self.items[i].get(field) for i in self.source[first].tolist()]


def _check_duplicates(items: Sequence[Payload], key: np.ndarray, keep: np.ndarray, label: str) -> None:
    """A repeated (group, role) is a repeated answer to one question, or two questions claiming one role: an error."""
    owner = dict(zip(key[keep].tolist(), keep.tolist(), strict=True))
    for i, k in enumerate(key.tolist()):
        j = owner[k]
        if i != j and items[i].get("question_id") != items[j].get("question_id"):
            raise ValueError(
                f"{label or 'scoring'}: questions {items[j].get('question_id')!r} and {items[i].get('question_id')!r} "
                f"both claim role {items[i]['role']!r} of group {items[i]['group_id']!r}; the annotation file "
                "has a duplicate - fix it and rerun."
            )
