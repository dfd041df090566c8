"""VELOCITI's failure shapes for ``temporal-tasks view``: StrictVLE asks yes/no of the positive (``pos``) and the
negative (``neg``) caption; MC asks with the captions in both orders (``posA``, ``posB``)."""

from __future__ import annotations

from collections.abc import Sequence

from temporal_tasks.api import ViewHook


def shape(members: Sequence[dict]) -> str | None:
    """StrictVLE: Yes to both captions, No to both, or both flipped. MC: the same letter in both orders (position
    bias) or wrong in both orders."""
    roles = {str(m.get("role")): m for m in members}
    if {"pos", "neg"} <= set(roles):
        pos, neg = roles["pos"].get("pred"), roles["neg"].get("pred")
        if pos == neg:
            return f"{str(pos).capitalize()} to both captions"
        return "both captions flipped"
    if {"posA", "posB"} <= set(roles):
        a, b = roles["posA"].get("pred"), roles["posB"].get("pred")
        return f"same letter ({a}) in both orders" if a == b else "wrong in both orders"
    return None


_VIEW: ViewHook = shape  # the spec's ``view`` hook, as the contract types it
