"""TimeBlind's importer hook (``benchmarks/timeblind/importer.py``): the predictions ``evaluate.py`` writes, to our
ids, every loss counted; wrong data or format is a clear error."""

from __future__ import annotations

import hashlib
import json

import pytest

from temporal_tasks.data.sources import DataError
from temporal_tasks.harness.provenance import imported_provenance
from temporal_tasks.tools.importer import RECORD, RESPONSES, import_answers
from tests.helpers.benchmarks.timeblind import data_rows, official_predictions
from tests.helpers.files import read_jsonl

# ----------------------------------------------------------------------------- counting (small fixtures)


def test_timeblind_official_predictions_every_loss_counted(offline_env, tmp_path):
    rows = data_rows(offline_env)
    outputs: dict[int, str | None] = {r["index"]: ("Yes" if r["type"] == "yes_no" else "A") for r in rows}
    outputs[1] = None  # a null output: kept as an empty answer
    del outputs[6]  # a question without answer: instance 1 incomplete
    preds = official_predictions(rows, outputs)
    preds.append(dict(preds[0], model_output="No"))  # a second, different answer to index 0
    preds.append({"index": 999, "video_path": "TimeBlind/videos/x.mp4", "question": "?", "model_output": "Yes"})
    preds[3]["model_name"] = "glm_v"  # extra keys of results files are ignored
    src = tmp_path / "predictions.json"
    src.write_text(json.dumps(preds, indent=2), encoding="utf-8")

    record = import_answers("timeblind", [src], tmp_path / "out")
    counts = record["tasks"]["timeblind_iacc"]
    assert {k: counts[k] for k in ("questions", "answered", "unknown", "duplicates", "conflicting_duplicates", "null",
                                   "missing", "groups", "incomplete_groups")} == {
        "questions": 16, "answered": 15, "unknown": 1, "duplicates": 1, "conflicting_duplicates": 1, "null": 1,
        "missing": 1, "groups": 4, "incomplete_groups": 1,
    }  # fmt: skip
    assert counts["examples"]["unknown"] == ["predictions.json: index 999"]
    assert counts["examples"]["missing"] == ["6"] and counts["examples"]["incomplete_groups"] == ["timeblind/1"]
    (f,) = record["files"]
    assert f["sha256"] == hashlib.sha256(src.read_bytes()).hexdigest()
    assert f["format"].startswith("TimeBlind evaluate.py predictions") and f["records"] == 17
    lines = {x["question_id"]: x for x in read_jsonl(tmp_path / "out" / RESPONSES)}
    assert set(lines) == {str(i) for i in range(16)} - {"6"}
    assert lines["0"] == {"task": "timeblind_iacc", "question_id": "0", "response": "Yes"}  # the first answer kept
    assert lines["1"]["response"] == ""
    assert json.loads((tmp_path / "out" / RECORD).read_text()) == record
    # the provenance part of a --score run: the source, N unknown (null) unless given
    assert imported_provenance(record, "timeblind_iacc") == {
        "benchmark": "timeblind", "files": [{"name": "predictions.json", "sha256": f["sha256"], "format": f["format"]}],
        "num_frames": None, "counts": {k: v for k, v in counts.items() if k != "examples"},
    }  # fmt: skip
    again = import_answers("timeblind", [src], tmp_path / "out", num_frames=32)
    assert imported_provenance(again, "timeblind_iacc")["num_frames"] == 32
    with pytest.raises(DataError, match="--num-frames 0"):
        import_answers("timeblind", [src], tmp_path / "out", num_frames=0)


def test_timeblind_wrong_data_or_format_is_a_clear_error(offline_env, tmp_path):
    rows = data_rows(offline_env)
    preds = official_predictions(rows, {r["index"]: "Yes" for r in rows})
    preds[5]["video_path"] = "TimeBlind/videos/vid_00099_1.mp4"
    bad = tmp_path / "predictions.json"
    bad.write_text(json.dumps(preds), encoding="utf-8")
    with pytest.raises(DataError, match=r"predictions\.json: 1 answer\(s\) do not match.*index 5: video_path"):
        import_answers("timeblind", [bad], tmp_path / "out")
    preds = official_predictions(rows, {r["index"]: "Yes" for r in rows})
    preds[2]["question"] = "Is the sky green? Please output Yes or No."
    bad.write_text(json.dumps(preds), encoding="utf-8")
    with pytest.raises(DataError, match=r"index 2: question"):
        import_answers("timeblind", [bad], tmp_path / "out")
    # another benchmark's file: names the file and the fields expected
    vino = tmp_path / "textscore-response.jsonl"
    vino.write_text(json.dumps({"idx": "0_pos", "response": "A"}) + "\n", encoding="utf-8")
    with pytest.raises(DataError, match=r"textscore-response\.jsonl: not a timeblind answer file\. Expected .*index"):
        import_answers("timeblind", [vino], tmp_path / "out")
    with pytest.raises(DataError, match=r"predictions\.json: not a vinoground answer file.*textscore-response"):
        import_answers("vinoground", [bad], tmp_path / "out")
    # TimeBlind-shaped, but no index is one of ours
    far = tmp_path / "far.json"
    far.write_text(json.dumps([{"index": 10_000 + i, "model_output": "Yes"} for i in range(4)]), encoding="utf-8")
    with pytest.raises(DataError, match=r"far\.json: none of its 4 answers"):
        import_answers("timeblind", [far], tmp_path / "out")
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"idx": "0_pos", "response": "A"}\n{oops\n', encoding="utf-8")
    with pytest.raises(DataError, match=r"broken\.jsonl:2: not valid JSON"):
        import_answers("vinoground", [broken], tmp_path / "out")
