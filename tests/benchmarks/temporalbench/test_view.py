"""TemporalBench's failure shapes (``benchmarks/temporalbench/view.py``): a video's binary questions."""

from __future__ import annotations

from temporal_tasks.benchmarks.temporalbench.view import shape


def _q(pred: str | None, correct: bool) -> dict:
    return {"pred": pred, "correct": correct}


def test_the_same_letter_to_every_question_is_position_bias():
    assert shape([_q("A", True), _q("A", False), _q("A", False)]) == "same answer (A) to every question"
    assert shape([_q(None, False), _q(None, False)]) == "same answer (None) to every question"


def test_one_several_or_every_question_wrong():
    assert shape([_q("A", True), _q("B", False), _q("A", True)]) == "one question wrong"
    assert shape([_q("A", False), _q("B", False), _q("A", True)]) == "several questions wrong"
    assert shape([_q("A", False), _q("B", False)]) == "every question wrong"


def test_a_single_question_is_never_called_position_bias():
    assert shape([_q("B", False)]) == "one question wrong"  # one wrong of one: the first rule wins
    assert shape([{"pred": "A"}]) == "one question wrong"  # no "correct": counted wrong


def test_nothing_wrong_leaves_the_shape_to_the_generic_rules():
    # An empty group, or one whose answers all read as right, has no wrong question to describe: it used to read
    # "every question wrong" and "several questions wrong".
    assert shape([]) is None
    assert shape([_q("A", True), _q("B", True)]) is None
    assert shape([_q("A", True), _q("A", True)]) is None
