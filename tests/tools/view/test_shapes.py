"""The viewer's failure shapes (``tools/view/shapes.py``): member flags and each group's shape."""

from __future__ import annotations

from temporal_tasks.api.registry import get
from temporal_tasks.tools.view.shapes import group_shape, member_flags


def _m(role: str, gold: str, pred: str | None, **extra) -> dict:
    return {"role": role, "gold": gold, "pred": pred, "correct": pred == gold, "parser": "p", **extra}


def test_member_flags_and_failure_shapes():
    flags = member_flags(_m("a", "yes", None, pred_robust=None, pred_official="yes", truncated=True))
    assert flags == ["unreadable", "cut_off", "disagree"]
    assert member_flags(_m("a", "yes", "yes", repeats=[{"pred": "yes"}, {"pred": "no"}])) == ["repeats_differ"]
    timeblind = get("timeblind").hook("view")
    gold = {"q0_v0": "yes", "q0_v1": "no", "q1_v0": "no", "q1_v1": "yes"}

    def instance(**preds: str) -> list[dict]:
        return [_m(role, g, preds.get(role, g)) for role, g in gold.items()]

    assert group_shape(instance(q0_v1="yes", q1_v0="yes"), timeblind) == "same answer on both videos"
    assert group_shape(instance(q1_v1="no"), timeblind) == "right on one video only"
    assert group_shape(instance(q0_v0="no", q0_v1="yes"), timeblind) == "wrong on both videos"
    assert group_shape(instance(q0_v0=None), timeblind) == "unreadable answer"
    velociti = get("velociti").hook("view")
    assert group_shape([_m("pos", "yes", "yes"), _m("neg", "no", "yes")], velociti) == "Yes to both captions"
    assert group_shape([_m("posA", "A", "A"), _m("posB", "B", "A")], velociti) == "same letter (A) in both orders"
    # no hook: the generic shapes
    assert group_shape([_m("0", "yes", "no"), _m("1", "no", "yes")]) == "every answer wrong"
    assert group_shape([_m("0", "yes", "yes"), _m("1", "no", "yes")]) == "same answer to every question"
