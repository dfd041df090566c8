"""Vinoground's failure shapes for ``temporal-tasks view``: a pair has text questions (``pos_text``, ``neg_text``:
which caption fits the video) and video questions (``pos_video``, ``neg_video``: which video fits the caption); the
group score needs all of them right."""

from __future__ import annotations

from collections.abc import Sequence

from temporal_tasks.api import ViewHook


def shape(members: Sequence[dict]) -> str | None:
    """Which side failed (text, video or both), and whether the model gave the same answer to both questions of
    the failed side (it did not tell the two captions, or the two videos, apart)."""
    roles = {str(m.get("role")): m for m in members}
    failed = []
    for kind in ("text", "video"):
        side = [roles[r] for r in (f"pos_{kind}", f"neg_{kind}") if r in roles]
        if side and not all(m.get("correct") for m in side):
            same = len(side) == 2 and side[0].get("pred") == side[1].get("pred")
            failed.append((kind, same))
    if not failed:
        return None
    if len(failed) == 2:
        return "text and video wrong" + (", same answer within each" if all(s for _k, s in failed) else "")
    kind, same = failed[0]
    return f"{kind} wrong only" + (f" (same answer to both {kind} questions)" if same else "")


_VIEW: ViewHook = shape  # the spec's ``view`` hook, as the contract types it
