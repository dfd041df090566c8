"""Per-group ``[right units, units]`` counts of a payload table (the scoring core's ``_reduce`` step), in numpy.

Questions and whole groups (``"each"``, ``"all"``) are counted per row with ``bincount``: no (group, role)
matrix, which for a benchmark whose roles are its question ids (TemporalBench: a video's questions) would be
groups x questions. Role-tuple units (a few roles per group: TimeBlind, Vinoground, VELOCITI) use the role matrices.
:func:`temporal_tasks.scoring.group_counts` picks one and applies the ``drop_group`` policy.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from temporal_tasks.table import PayloadTable


def row_counts(table: PayloadTable, units: str, policy: str, mine: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """``(right, units)`` per complete group for ``units`` ``"each"`` or ``"all"``; ``mine``: the rows that are
    this key's questions (None: every row); ``policy`` ``"drop"`` takes unreadable answers out."""
    unit = np.ones(len(table.group), dtype=bool) if mine is None else mine
    members = table.count_per_group(unit)
    if table.correct.ndim == 2:  # every reading at once (PayloadTable.for_readings): counts per group and reading
        unit, members = unit[:, None], members[:, None]
    bad = table.count_per_group(unit & table.invalid)
    if units == "each":
        right = table.count_per_group(unit & table.correct)
        return right, members - bad * (policy == "drop")
    any_member = members > 0
    right = ((table.count_per_group(unit & ~table.correct) == 0) & any_member).astype(np.int64)
    total = any_member.astype(np.int64)
    if policy == "drop":
        dropped = bad > 0
        right, total = right * ~dropped, total * ~dropped
    return right, total


def unit_counts(
    table: PayloadTable,
    units: Sequence[Sequence[str]],
    policy: str,
    mine: np.ndarray | None,
    score_field: str | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """``(right, units)`` per complete group for role-tuple ``units``: a unit is right when all its members are
    correct, or with ``score_field`` when its first role's score is above its second's."""
    present, correct, bad, complete, seen = table.complete_matrices()
    if mine is not None or score_field is not None:
        rows = table.group_rows(seen)
    if mine is not None:  # only this key's questions are units; the rest only complete the group
        present = present & table.role_matrix(rows, mine)[complete]
    if score_field is not None:
        scores = table.values(score_field)
        scores = np.array([np.nan if v is None else float(v) for v in scores], dtype=float)
        score = table.role_matrix(rows, scores, fill=np.nan)[complete]
    if correct.ndim == 3:  # every reading at once (PayloadTable.for_readings): a last axis, one entry per reading
        present = present[:, :, None]
        if score_field is not None:
            score = score[:, :, None]
    code = {name: i for i, name in enumerate(table.role_names.tolist())}
    right = np.zeros(correct.shape[:1] + correct.shape[2:], dtype=np.int64)
    total = np.zeros(correct.shape[:1] + correct.shape[2:], dtype=np.int64)
    for unit in units:
        cols = [code.get(r) for r in unit]
        if any(c is None for c in cols):
            continue  # a role no evaluated question has: no group can hold this unit
        applies = present[:, cols].all(axis=1)
        if policy == "drop":
            applies = applies & ~bad[:, cols].any(axis=1)
        if score_field is not None:
            a, b = score[:, cols[0]], score[:, cols[1]]
            with np.errstate(invalid="ignore"):
                ok = ~np.isnan(a) & ~np.isnan(b) & (a > b)
        else:
            ok = correct[:, cols].all(axis=1)
        total += applies
        right += applies & ok
    return right, total
