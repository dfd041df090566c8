"""The scoring core shared by every benchmark.

A *payload* is the per-question dict our ``process_results`` returns (see
:func:`temporal_tasks.harness.make_payload`). It carries ``question_id``, ``group_id``,
``role``, ``group_size``, the raw ``answer``, the ``gold`` label, the parsed ``pred``
(``None`` = unreadable) and ``correct``.

Aggregations receive payloads in any order (lmms-eval gathers ranks in rank order), so
everything here groups by ``group_id``/``role`` and never by position. A group with members
that were never evaluated (``--limit``/``--offset`` cut it) is left out of every denominator,
and one warning gives the count. All metrics are percentages in 0-100; a metric with nothing
to score is NaN, never a made-up 0.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from temporal_tasks.log import warn_once

Payload = Mapping[str, Any]
Units = Sequence[Sequence[str]] | Literal["each", "all"]
InvalidPolicy = Literal["wrong", "drop"]


@dataclass
class Groups:
    """Payloads grouped by ``group_id`` then ``role``; only complete groups are kept."""

    complete: dict[str, dict[str, Payload]] = field(default_factory=dict)
    left_out: int = 0
    duplicates: int = 0

    def payloads(self) -> Iterable[Payload]:
        """Every payload of every complete group."""
        for members in self.complete.values():
            yield from members.values()


def collect_groups(items: Iterable[Payload], *, label: str = "", report: bool = False) -> Groups:
    """Group payloads; drop incomplete groups (counted, and warned about once if ``report``)."""
    by_group: dict[str, dict[str, Payload]] = {}
    sizes: dict[str, int] = {}
    duplicates = 0
    for p in items:
        gid = p["group_id"]
        members = by_group.get(gid)
        if members is None:
            members = by_group[gid] = {}
            sizes[gid] = int(p["group_size"])
        role = p["role"]
        seen = members.get(role)
        if seen is not None:
            if seen["question_id"] != p["question_id"]:
                raise ValueError(
                    f"{label or 'scoring'}: questions {seen['question_id']!r} and {p['question_id']!r} both claim "
                    f"role {role!r} of group {gid!r}; the annotation file has a duplicate - fix it and rerun."
                )
            duplicates += 1  # the same question twice (e.g. a replayed shard); keep the first
            continue
        members[role] = p
    groups = Groups(duplicates=duplicates)
    for gid, members in by_group.items():
        if len(members) == sizes[gid]:
            groups.complete[gid] = members
        else:
            groups.left_out += 1
    if report and (groups.left_out or duplicates):
        msg = (
            f"{label}: scored {len(groups.complete)} complete groups; left out {groups.left_out} incomplete "
            f"group(s) whose other questions were not evaluated (--limit/--offset)"
        )
        if duplicates:
            msg += f"; ignored {duplicates} repeated answer(s) to the same question"
        warn_once(msg)
    return groups


def _unit_roles(units: Units, members: Mapping[str, Payload]) -> Iterable[Sequence[str]]:
    if units == "each":
        return [(r,) for r in members]
    if units == "all":
        return [tuple(members)]
    return units


def unit_accuracy(groups: Groups, units: Units, *, invalid: InvalidPolicy = "wrong") -> float:
    """Percent of units (role tuples within a group) whose members are all correct.

    ``units`` is a list of role tuples (e.g. ``[("q0_v0", "q0_v1"), ("q1_v0", "q1_v1")]``),
    ``"each"`` (every question on its own) or ``"all"`` (the whole group). With
    ``invalid="drop"`` a unit with an unreadable answer leaves the denominator (the rule of
    some official scorers); with ``"wrong"`` it counts as wrong.
    """
    correct = total = 0
    for members in groups.complete.values():
        for unit in _unit_roles(units, members):
            picked = [members[r] for r in unit]
            if invalid == "drop" and any(p["pred"] is None for p in picked):
                continue
            total += 1
            if all(p["correct"] for p in picked):
                correct += 1
    return percent(correct, total)


def invalid_rate(groups: Groups) -> float:
    """Percent of scored questions whose answer could not be parsed."""
    n = bad = 0
    for p in groups.payloads():
        n += 1
        if p["pred"] is None:
            bad += 1
    return percent(bad, n)


def percent(numerator: int, denominator: int) -> float:
    """``100 * numerator / denominator``, or NaN when there is nothing to score."""
    return 100.0 * numerator / denominator if denominator else math.nan


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
