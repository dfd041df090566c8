"""TemporalBench's export hook (``benchmarks/temporalbench/export.py``): captions in the official scorer's format."""

from __future__ import annotations

from temporal_tasks.tools.export import export
from tests.helpers.files import read_jsonl, write_samples_file


def test_temporalbench_caption_export(tmp_path):
    caps = [
        {"question_id": "short_video/COIN/a.mp4", "group_id": "short_video/COIN/a.mp4", "role": "caption",
         "answer": "", "gold": "A square moves."},
        {"question_id": "short_video/COIN/b.mp4", "group_id": "short_video/COIN/b.mp4", "role": "caption",
         "answer": "A red square.", "gold": "A red square grows."},
    ]  # fmt: skip
    f = write_samples_file(tmp_path / "20260101_samples_temporalbench_caption_sim.jsonl", caps)
    (path,) = export("temporalbench", [f], tmp_path / "out")
    assert path == tmp_path / "out" / "temporalbench_short_caption" / "temporalbench_caption_sim.jsonl"
    # get_captioning_score.py reads idx and response; a caption is written verbatim, even an empty one
    assert read_jsonl(path) == [
        {"idx": "short_video/COIN/a.mp4", "response": "", "gold": "A square moves."},
        {"idx": "short_video/COIN/b.mp4", "response": "A red square.", "gold": "A red square grows."},
    ]
