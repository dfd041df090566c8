"""TimeBlind's failure shapes for ``temporal-tasks view``: an instance is two questions on two videos (roles
``q<question>_v<video>``) and counts only when all four answers are right."""

from __future__ import annotations

from collections.abc import Sequence

from temporal_tasks.api import ViewHook

SAME = "same answer on both videos"
ONE_VIDEO = "right on one video only"
BOTH_WRONG = "wrong on both videos"


def shape(members: Sequence[dict]) -> str | None:
    """Same answer on both videos (each question answered alike whatever the video: the video was not used), else
    right on one video only (both questions right on one video), else wrong on both videos."""
    roles = {str(m.get("role")): m for m in members}
    questions = sorted({r.split("_")[0] for r in roles})
    videos = sorted({r.split("_")[1] for r in roles if "_" in r})
    if len(questions) != 2 or len(videos) != 2 or len(roles) != 4:
        return None  # not a full instance: the generic shapes apply
    if all(roles[f"{q}_{videos[0]}"].get("pred") == roles[f"{q}_{videos[1]}"].get("pred") for q in questions):
        return SAME
    right = [all(roles[f"{q}_{v}"].get("correct") for q in questions) for v in videos]
    return ONE_VIDEO if any(right) else BOTH_WRONG


_VIEW: ViewHook = shape  # the spec's ``view`` hook, as the contract types it
