"""Vinoground's failure shapes (``benchmarks/vinoground/view.py``): which side of a pair failed, and whether the model
gave one answer to both questions of that side."""

from __future__ import annotations

from temporal_tasks.benchmarks.vinoground.view import shape


def _m(role: str, pred: str, correct: bool) -> dict:
    return {"role": role, "pred": pred, "correct": correct}


RIGHT_TEXT = [_m("pos_text", "A", True), _m("neg_text", "B", True)]
RIGHT_VIDEO = [_m("pos_video", "B", True), _m("neg_video", "A", True)]


def test_one_side_wrong_with_and_without_the_same_answer():
    assert shape([*RIGHT_TEXT, _m("pos_video", "A", False), _m("neg_video", "A", True)]) == (
        "video wrong only (same answer to both video questions)"
    )
    assert shape([*RIGHT_TEXT, _m("pos_video", "A", False), _m("neg_video", "B", False)]) == "video wrong only"
    assert shape([_m("pos_text", "B", False), _m("neg_text", "B", True), *RIGHT_VIDEO]) == (
        "text wrong only (same answer to both text questions)"
    )


def test_both_sides_wrong():
    same = [_m("pos_text", "B", False), _m("neg_text", "B", True), _m("pos_video", "A", False),
            _m("neg_video", "A", True)]  # fmt: skip
    assert shape(same) == "text and video wrong, same answer within each"
    mixed = [*same[:2], _m("pos_video", "A", False), _m("neg_video", "B", False)]
    assert shape(mixed) == "text and video wrong"


def test_a_right_pair_or_no_members_has_no_shape():
    assert shape([*RIGHT_TEXT, *RIGHT_VIDEO]) is None
    assert shape([]) is None


def test_a_side_with_one_question_is_never_the_same_answer():
    # the text variant alone, or a --limit run: one question of the side
    assert shape([_m("pos_text", "A", False)]) == "text wrong only"
