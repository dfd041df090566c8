"""Vinoground's importer hook (``benchmarks/vinoground/importer.py``): an official results folder to our ids."""

from __future__ import annotations

import json

import pytest

from temporal_tasks.data.sources import DataError
from temporal_tasks.tools.importer import RESPONSES, import_answers
from tests.helpers.files import read_jsonl


def test_vinoground_official_results_folder(offline_env, tmp_path):
    model = tmp_path / "results" / "qwen2-vl"  # get_score_all.py --results DIR: a folder per model
    model.mkdir(parents=True)
    text = [{"idx": f"{i}_{s}", "response": ["A"]} for i in range(4) for s in ("pos", "neg")]  # qwen writes lists
    text.append({"idx": "7_pos", "response": "A"})  # no pair 7
    video = [{"idx": f"{i}_{s}", "response": None if i == 2 else "B"} for i in range(3) for s in ("pos", "neg")]
    (model / "textscore-response.jsonl").write_text("".join(json.dumps(x) + "\n" for x in text))
    (model / "videoscore-response.jsonl").write_text("".join(json.dumps(x) + "\n" for x in video))
    record = import_answers("vinoground", [tmp_path / "results"], tmp_path / "out")
    (counts,) = record["tasks"].values()
    assert list(record["tasks"]) == ["vinoground_group"]
    assert (counts["answered"], counts["unknown"], counts["null"], counts["missing"]) == (14, 1, 2, 2)
    assert counts["incomplete_groups"] == 1 and counts["examples"]["unknown"] == [
        "textscore-response.jsonl: idx '7_pos'"
    ]
    assert any("8 response(s) were lists" in n for f in record["files"] for n in f["notes"])
    lines = {x["question_id"]: x["response"] for x in read_jsonl(tmp_path / "out" / RESPONSES)}
    assert lines["0_pos_text"] == "A" and lines["1_neg_video"] == "B" and lines["2_pos_video"] == ""
    # a text file alone answers the text-only task
    record = import_answers("vinoground", [model / "textscore-response.jsonl"], tmp_path / "out2")
    assert list(record["tasks"]) == ["vinoground_text"]
    other = tmp_path / "answers.jsonl"
    other.write_text(json.dumps({"idx": "0_pos", "response": "A"}) + "\n")
    with pytest.raises(DataError, match=r"answers\.jsonl: not a vinoground answer file.*textscore-response\.jsonl"):
        import_answers("vinoground", [other], tmp_path / "out3")


def test_responses_the_official_scorer_raises_on_are_imported_empty(offline_env, tmp_path):
    """get_score_all.py reads response[0][:1]: a value it raises on becomes an empty answer (which skips the rest of
    its pair in the official reading, as there); [""], read there as a wrong answer, stays a non-empty one."""
    model = tmp_path / "results" / "m"
    model.mkdir(parents=True)
    values = {"0_pos": 7, "0_neg": {"a": "A"}, "1_pos": [5], "1_neg": [], "2_pos": [""], "2_neg": "", "3_pos": None}
    text = [{"idx": f"{i}_{s}", "response": values.get(f"{i}_{s}", "A")} for i in range(4) for s in ("pos", "neg")]
    (model / "textscore-response.jsonl").write_text("".join(json.dumps(x) + "\n" for x in text))
    record = import_answers("vinoground", [model / "textscore-response.jsonl"], tmp_path / "out")
    lines = {x["question_id"]: x["response"] for x in read_jsonl(tmp_path / "out" / RESPONSES)}
    assert [lines[f"{i}_text"] for i in values] == ["", "", "", "", '[""]', "", ""]
    assert lines["3_neg_text"] == "A"
    assert any(n.startswith("4 response(s) get_score_all.py cannot read") for f in record["files"] for n in f["notes"])
