"""The task template's hooks (``harness/doc_hooks.py``): the filters hand ``process_results`` one answer or k."""

from __future__ import annotations

from temporal_tasks.harness import doc_hooks
from temporal_tasks.scoring import payloads


def test_filter_hands_over_one_answer_as_take_first_and_k_as_a_list():
    from lmms_eval.filters.selection import TakeFirstFilter

    resps = [["Yes"], [""], []]
    assert doc_hooks.AllAnswers().apply(resps, None) == list(TakeFirstFilter().apply(resps, None))
    assert doc_hooks.AllAnswers().apply([["a", "b", "c"]], None) == [["a", "b", "c"]]
    assert payloads.answers(["a"]) == "a" and payloads.answers(["a", "b"]) == ["a", "b"]
    assert payloads.answers([["a", "b"]]) == ["a", "b"] and payloads.answers([""]) == ""
    assert payloads.answers([]) == payloads.NO_ANSWER  # no answer handed at all: not an empty one
    assert payloads.first_answer([payloads.NO_ANSWER]) == ""
