"""TimeBlind's export hook (``benchmarks/timeblind/export.py``): ``<task>_predictions.json`` as the official
``get_scores`` reads it, sorted by index, the question type from the parser."""

from __future__ import annotations

import json

import pytest

from temporal_tasks.benchmarks.timeblind.export import export
from temporal_tasks.harness.kit import DataError


def _p(question_id: str, parser: str, answer: str) -> tuple[dict, dict]:
    return {"question_id": question_id, "parser": parser, "answer": answer}, {}


def test_predictions_sorted_by_index_with_their_type(tmp_path):
    answers = {
        "timeblind_iacc": [
            _p("9", "timeblind_mc", "B"),
            _p("2", "timeblind_yes_no", "Yes, it does."),
            _p("10", "timeblind_yes_no", ""),
        ],  # fmt: skip
    }
    (path,) = export(answers, tmp_path)
    assert path == tmp_path / "timeblind_iacc_predictions.json"
    assert json.loads(path.read_text(encoding="utf-8")) == [
        {"index": 2, "type": "yes_no", "model_output": "Yes, it does."},
        {"index": 9, "type": "multiple_choice", "model_output": "B"},
        {"index": 10, "type": "yes_no", "model_output": ""},  # written as given: get_scores reads it as wrong
    ]


def test_one_file_per_task_and_non_ascii_kept(tmp_path):
    answers = {"a": [_p("0", "timeblind_yes_no", "Oui — yes")], "b": [_p("1", "timeblind_mc", "A")]}
    written = export(answers, tmp_path)
    assert [p.name for p in written] == ["a_predictions.json", "b_predictions.json"]
    assert "Oui — yes" in written[0].read_text(encoding="utf-8")


def test_a_task_without_lines_gets_an_empty_list(tmp_path):
    (path,) = export({"timeblind_iacc": []}, tmp_path)
    assert json.loads(path.read_text()) == []


def test_a_payload_not_read_by_a_timeblind_parser_is_a_clear_error(tmp_path):
    for payload in (
        {"question_id": "3", "answer": "Yes"},  # no parser: not a generate task's payload
        {"question_id": "3", "parser": "first_char_ab", "answer": "A"},  # another benchmark's rule
    ):
        with pytest.raises(DataError, match=r"timeblind_iacc: question '3' was not read by a TimeBlind answer parser"):
            export({"timeblind_iacc": [(payload, {})]}, tmp_path)
    with pytest.raises(DataError, match=r"question_id 'q7' is not TimeBlind's integer index"):
        export({"timeblind_iacc": [_p("q7", "timeblind_mc", "A")]}, tmp_path)
    assert not list(tmp_path.iterdir())  # nothing half-written
