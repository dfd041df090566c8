"""VELOCITI's export hook (``benchmarks/velociti/export.py``): incomplete rows left out, odd cells kept readable by
the official ``mcq``."""

from __future__ import annotations

import csv

from temporal_tasks.tools.export import export
from tests.helpers.benchmarks.velociti import velociti_mcq
from tests.helpers.files import write_samples_file


def test_velociti_export_leaves_out_incomplete_rows_and_odd_cells(tmp_path, monkeypatch):
    monkeypatch.delenv("TEMPORAL_TASKS_DATA_DIR", raising=False)  # no data on the exporting machine
    base = {"group_size": 2, "parser": "velociti_mc", "test": "chrono", "categories": ["chrono"]}

    def mc(row: int, role: str, answer: str) -> dict:
        return {**base, "question_id": f"{row}_mc_{role}", "group_id": f"velociti_mc/{row}", "role": role,
                "gold": role[-1], "answer": answer}  # fmt: skip

    payloads = [mc(0, "posA", "NA"), mc(0, "posB", "B is right"), mc(1, "posA", "A"), mc(2, "posB", "B"),
                mc(2, "posA", "A")]  # fmt: skip
    f = write_samples_file(tmp_path / "20260101_samples_velociti_mc.jsonl", payloads)
    (path,) = export("velociti", [f], tmp_path / "out")
    with open(path, encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert [r["row"] for r in rows] == ["0", "2"]  # row 1 has only one of its two questions
    assert rows[0]["video_id"] == rows[0]["pos"] == ""  # no table to take them from
    assert (rows[0]["gt_A"], rows[0]["gt_B"], rows[0]["response_A"]) == ("[unreadable]", "B is right", "NA")
    # pandas would read a bare NA as NaN (no .split()): the placeholder keeps mcq running; row 0 is dropped there
    assert velociti_mcq(path.parent) == {"chrono": (100.0, 100.0, 100.0)}
