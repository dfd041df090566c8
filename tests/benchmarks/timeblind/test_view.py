"""TimeBlind's failure shapes (``benchmarks/timeblind/view.py``): an instance is two questions on two videos."""

from __future__ import annotations

from temporal_tasks.benchmarks.timeblind.view import BOTH_WRONG, ONE_VIDEO, SAME, shape

GOLD = {"q0_v0": "yes", "q0_v1": "no", "q1_v0": "no", "q1_v1": "yes"}


def _instance(**preds: str | None) -> list[dict]:
    members = []
    for role, gold in GOLD.items():
        pred = preds.get(role, gold)
        members.append({"role": role, "pred": pred, "correct": pred == gold})
    return members


def test_each_question_answered_alike_on_both_videos_is_the_same_answer_shape():
    assert shape(_instance(q0_v1="yes", q1_v0="yes")) == SAME  # yes, yes / yes, yes
    assert shape(_instance(q0_v0="no", q1_v1="no")) == SAME  # no, no / no, no


def test_both_questions_right_on_one_video_only():
    assert shape(_instance(q1_v1="no")) == ONE_VIDEO  # video 0 right, video 1 has one wrong
    assert shape(_instance(q0_v0="no")) == ONE_VIDEO  # video 1 right (q0 reads "no" on both: not the same shape)


def test_wrong_on_both_videos():
    assert shape(_instance(q0_v0="no", q0_v1="yes")) == BOTH_WRONG  # q0 flipped: one wrong on each video


def test_an_incomplete_instance_is_left_to_the_generic_shapes():
    assert shape(_instance()[:3]) is None
    assert shape([]) is None
    assert shape([{"pred": "yes"}] * 4) is None  # no roles
    odd = [{"role": r, "pred": "yes", "correct": False} for r in ("q0_v0", "q0_v1", "q1_v0", "q2_v1")]
    assert shape(odd) is None  # three questions named
