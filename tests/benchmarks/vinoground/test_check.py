"""Vinoground's ``check-data`` hook (``benchmarks/vinoground/check.py``): the clips part (pairs, clips, questions)
and the concatenated videos, counted against the CSV and JSONs read here."""

from __future__ import annotations

import csv
import json
from pathlib import Path

from temporal_tasks.benchmarks.vinoground import fixture
from temporal_tasks.benchmarks.vinoground.check import parts
from temporal_tasks.data.sources import benchmark_data


def test_counts_pairs_clips_questions_and_concatenated_videos(offline_env):
    clips, concat = parts(benchmark_data("vinoground", root=offline_env), 2)
    root = offline_env / "vinoground"
    with open(root / "vinoground.csv", encoding="utf-8", newline="") as fh:
        pairs = [row["index"] for row in csv.DictReader(fh)]
    text = json.loads((root / "vinoground_textscore.json").read_text())
    video = json.loads((root / "vinoground_videoscore.json").read_text())
    # every pair has a positive and a negative clip; each is asked a text and a video question
    assert clips.counts == [("pairs", len(pairs), None), ("clips", 2 * len(pairs), None),
                            ("questions", len(text) + len(video), None)]  # fmt: skip
    assert concat.counts == [("concatenated videos", len({q["video_name"] for q in video}), None)]
    assert [c[1] for p in (clips, concat) for c in p.counts] == [4, 8, 16, 6]
    assert (clips.key, concat.key) == ("vinoground", "vinoground official")
    for part in (clips, concat):
        assert part.problems == part.warnings == [] and part.absent == ""
        assert len(part.decode) == 2 and all(Path(v).is_file() for v in part.decode)


def test_without_the_concatenated_zip_only_that_part_is_absent(offline_env, tmp_path):
    copy = fixture.write(tmp_path)
    (copy / "vinoground_videos_concated.zip").unlink()
    clips, concat = parts(benchmark_data("vinoground", root=tmp_path), 1)
    assert concat.absent == (
        "no vinoground_videos_concated.zip: vinoground_group_official cannot run (the other tasks can)"
    )
    assert concat.counts == [] and clips.counts[0] == ("pairs", 4, None) and clips.problems == []


def test_a_missing_csv_is_a_problem_naming_it(offline_env, tmp_path):
    copy = fixture.write(tmp_path)
    (copy / "vinoground.csv").unlink()
    clips, _concat = parts(benchmark_data("vinoground", root=tmp_path), 1)
    assert clips.problems and "vinoground.csv" in clips.problems[0] and clips.counts == []
