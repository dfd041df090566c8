"""Flags of one answer and the failure shape of a failed group (generic; a benchmark's ``view`` hook refines it).

A benchmark's ``view`` hook is ``(members) -> str``: the shape of a failed group from its members' re-read
payloads (``role``, ``gold``, ``pred``, ``pred_robust``, ``pred_official``, ``correct``, ``truncated``). The
shapes are counted per task in the viewer's summary ("same answer on both videos: 12").
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

UNREADABLE = "unreadable"
CUT_OFF = "cut_off"
DISAGREE = "disagree"
REPEATS_DIFFER = "repeats_differ"


def member_flags(payload: dict) -> list[str]:
    """The flags of one answer: unreadable, cut off while thinking, readings disagree, repeats that differ."""
    flags = []
    if "parser" in payload and payload.get("pred") is None:
        flags.append(UNREADABLE)
    if payload.get("truncated"):
        flags.append(CUT_OFF)
    if "pred_robust" in payload and payload.get("pred_robust") != payload.get("pred_official"):
        flags.append(DISAGREE)
    repeats = payload.get("repeats")
    if repeats and len({str(rep.get("pred")) for rep in repeats}) > 1:
        flags.append(REPEATS_DIFFER)
    return flags


def generic_shape(members: Sequence[dict]) -> str:
    """A failed group's shape when the benchmark declares none: cut off, unreadable, every answer wrong,
    the same answer to every question, or some right."""
    if any(m.get("truncated") for m in members):
        return "cut off while thinking"
    if any("parser" in m and m.get("pred") is None for m in members):
        return "unreadable answer"
    if len(members) > 1 and len({str(m.get("pred")) for m in members}) == 1:
        return "same answer to every question"
    if not any(m.get("correct") for m in members):
        return "every answer wrong"
    wrong = sum(not m.get("correct") for m in members)
    return f"{wrong} of {len(members)} wrong"


def group_shape(members: Sequence[dict], hook: Callable[[Sequence[dict]], str | None] | None = None) -> str:
    """The shape of a failed group: the benchmark's hook when it names one, else :func:`generic_shape`.

    Unreadable and cut-off answers come first whatever the benchmark: they explain the failure before any
    pattern of readable answers does.
    """
    if any(m.get("truncated") for m in members):
        return "cut off while thinking"
    if any("parser" in m and m.get("pred") is None for m in members):
        return "unreadable answer"
    shape = hook(members) if hook is not None else None
    return shape or generic_shape(members)
