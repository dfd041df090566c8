"""TemporalBench's importer hook (``benchmarks/temporalbench/importer.py``): an official output folder to our ids."""

from __future__ import annotations

import json

import pytest

from temporal_tasks.data.sources import DataError
from temporal_tasks.tools.importer import import_answers


def test_temporalbench_official_output_folder(offline_env, tmp_path):
    short = json.loads((offline_env / "temporalbench" / "temporalbench_short_qa.json").read_text())
    folder = tmp_path / "outputs" / "temporalbench_short_qa"  # get_qa_acc.py --output_folder outputs
    folder.mkdir(parents=True)
    preds = [{"idx": q["idx"], "response": q["GT"]} for q in short[1:]]
    preds += [preds[0], {"idx": "short_video/none.mp4_0", "response": "A"}]
    (folder / "llava-frame1.jsonl").write_text("".join(json.dumps(p) + "\n" for p in preds))
    record = import_answers("temporalbench", [folder / "llava-frame1.jsonl"], tmp_path / "out")
    counts = record["tasks"]["temporalbench_short_mba"]
    assert (counts["answered"], counts["missing"], counts["duplicates"], counts["unknown"]) == (11, 1, 1, 1)
    assert counts["conflicting_duplicates"] == 0 and counts["incomplete_groups"] == 1
    assert "official scorer input" in record["files"][0]["format"]
    loose = tmp_path / "preds.jsonl"
    loose.write_text(json.dumps({"idx": "clip_0", "response": "A"}) + "\n")
    with pytest.raises(DataError, match=r"preds\.jsonl: cannot tell which TemporalBench part"):
        import_answers("temporalbench", [loose], tmp_path / "out2")
