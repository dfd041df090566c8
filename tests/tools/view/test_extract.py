"""The viewer's reading of an answer (``tools/view/extract.py``): reasoning folded, the read part marked."""

from __future__ import annotations

from temporal_tasks.tools.view.extract import read_span
from tests.helpers.payloads import CUT_OFF_SQUARE, THOUGHT_THEN_ANSWER


def test_read_span_folds_reasoning_and_marks_the_read_part():
    answer = THOUGHT_THEN_ANSWER.format("Yes")
    k, h = read_span(answer, cut_off=False)
    assert answer[:k].endswith("</think>") and answer[h[0] : h[1]] == "Yes"
    assert read_span(CUT_OFF_SQUARE, cut_off=True) == (len(CUT_OFF_SQUARE), None)
    assert read_span("No.", cut_off=False) == (0, None)
