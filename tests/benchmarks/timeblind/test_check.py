"""TimeBlind's ``check-data`` hook (``benchmarks/timeblind/check.py``): rows, instances and videos counted against
``data.jsonl`` read here, a few videos picked for decoding, a broken file named."""

from __future__ import annotations

import json
from pathlib import Path

from temporal_tasks.benchmarks.timeblind import fixture
from temporal_tasks.benchmarks.timeblind.check import parts
from temporal_tasks.data.sources import benchmark_data
from tests.helpers.benchmarks.timeblind import data_rows


def test_counts_rows_instances_and_videos(offline_env):
    (part,) = parts(benchmark_data("timeblind", root=offline_env), 3)
    rows = data_rows(offline_env)
    instances = {r["index"] // 4 for r in rows}  # four rows (two questions x two videos) per instance
    videos = {r["video_path"] for r in rows}
    assert part.counts == [("rows", len(rows), None), ("instances", len(instances), None),
                           ("videos", len(videos), None)]  # fmt: skip
    assert [c[1] for c in part.counts] == [16, 4, 8]
    assert part.key == "timeblind" and part.problems == part.warnings == [] and part.absent == ""
    assert len(part.decode) == 3 and all(Path(v).is_file() for v in part.decode)


def test_more_decodes_asked_than_videos_decodes_every_video_once(offline_env):
    (part,) = parts(benchmark_data("timeblind", root=offline_env), 50)
    videos = {Path(r["video_path"]).name for r in data_rows(offline_env)}
    assert sorted(Path(v).name for v in part.decode) == sorted(videos)  # all 8, each once


def test_a_broken_data_file_is_a_problem_naming_it(offline_env, tmp_path):
    copy = fixture.write(tmp_path)
    lines = (copy / "data.jsonl").read_text().splitlines()
    row = json.loads(lines[0])
    del row["answer"]
    (copy / "data.jsonl").write_text("\n".join([json.dumps(row), *lines[1:]]) + "\n")
    (part,) = parts(benchmark_data("timeblind", root=tmp_path), 1)
    assert len(part.problems) == 1 and "data.jsonl" in part.problems[0]
    assert part.counts == [] and part.decode == []
