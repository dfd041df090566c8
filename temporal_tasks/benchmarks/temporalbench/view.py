"""TemporalBench's failure shapes for ``temporal-tasks view``: a video's binary questions (the original caption
against each negative); its MBA counts only when every one is right."""

from __future__ import annotations

from collections.abc import Sequence

from temporal_tasks.api import ViewHook


def shape(members: Sequence[dict]) -> str | None:
    """The same letter to every question (position bias), one question wrong, or several wrong."""
    wrong = sum(not m.get("correct") for m in members)
    if wrong == 0:
        return None  # nothing wrong to describe (no members, or all right): the generic shapes say why it failed
    if len(members) > 1 and len({m.get("pred") for m in members}) == 1:
        return f"same answer ({members[0].get('pred')}) to every question"
    if wrong == 1:
        return "one question wrong"
    return "every question wrong" if wrong == len(members) else "several questions wrong"


_VIEW: ViewHook = shape  # the spec's ``view`` hook, as the contract types it
