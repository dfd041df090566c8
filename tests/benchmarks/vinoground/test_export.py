"""Vinoground's export hook (``benchmarks/vinoground/export.py``): the text and video response files of the official
``get_score_all.py``, in the JSONs' order, every answer as given (an empty one too: get_score_all.py skips the rest of
its pair, as our official reading does)."""

from __future__ import annotations

import pytest

from temporal_tasks.benchmarks.vinoground.export import export
from temporal_tasks.harness.kit import DataError
from tests.helpers.files import read_jsonl


def _p(question_id: str, answer: str, gold: str = "A") -> tuple[dict, dict]:
    return {"question_id": question_id, "answer": answer, "gold": gold}, {}


def test_text_and_video_files_in_the_official_order(tmp_path):
    lines = [_p("1_neg_text", "B"), _p("0_neg_video", "", "B"), _p("10_pos_text", "A."), _p("0_pos_text", "A"),
             _p("1_pos_text", "b")]  # fmt: skip
    written = export({"vinoground_group": lines}, tmp_path)
    assert written == [tmp_path / "vinoground_group" / "textscore-response.jsonl",
                       tmp_path / "vinoground_group" / "videoscore-response.jsonl"]  # fmt: skip
    text, video = (read_jsonl(p) for p in written)
    assert [r["idx"] for r in text] == ["0_pos", "1_pos", "1_neg", "10_pos"]  # by pair number, pos before neg
    assert text[1] == {"idx": "1_pos", "response": "b", "question_id": "1_pos_text", "gold": "A"}
    assert video == [{"idx": "0_neg", "response": "", "question_id": "0_neg_video", "gold": "B"}]  # as given


def test_a_task_without_video_questions_gets_no_video_file(tmp_path):
    written = export({"vinoground_text": [_p("3_pos_text", "A")], "vinoground_video": [_p("3_neg_video", "B")]},
                     tmp_path)  # fmt: skip
    assert [p.relative_to(tmp_path).as_posix() for p in written] == [
        "vinoground_text/textscore-response.jsonl", "vinoground_video/videoscore-response.jsonl",
    ]  # fmt: skip
    assert export({"empty": []}, tmp_path) == []


def test_a_question_id_not_of_vinoground_is_a_clear_error(tmp_path):
    with pytest.raises(DataError, match=r"vinoground_group: question_id '0_pos' is not '<pair>_<pos\|neg>_"):
        export({"vinoground_group": [_p("0_pos", "A")]}, tmp_path)
