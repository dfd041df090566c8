"""TimeBlind's small fixture writer (``benchmarks/timeblind/fixture.py``): 4 instances = 16 rows on 8 videos, the
gold answers in the official pattern, the tags file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from temporal_tasks.benchmarks.timeblind.fixture import write


@pytest.fixture(scope="module")
def copy(tmp_path_factory):
    return write(tmp_path_factory.mktemp("tbl"))


def _rows(copy: Path) -> list[dict]:
    return [json.loads(x) for x in (copy / "data.jsonl").read_text(encoding="utf-8").splitlines()]


def test_layout_and_counts(copy):
    assert copy.name == "timeblind"
    assert sorted(p.name for p in copy.iterdir()) == ["data.jsonl", "tags.json", "videos"]
    rows = _rows(copy)
    assert [r["index"] for r in rows] == list(range(16))
    assert sorted(p.name for p in (copy / "videos").iterdir()) == sorted(
        f"{stem}_{v}.mp4" for stem in ("vid_00000", "vid_00001", "mcq_vid_00000", "mcq_vid_00001") for v in (0, 1)
    )
    # every row names a video that is there, under the release's "TimeBlind/videos/" prefix
    assert all(r["video_path"].startswith("TimeBlind/videos/") for r in rows)
    assert {Path(r["video_path"]).name for r in rows} == {p.name for p in (copy / "videos").iterdir()}


def test_an_instance_is_two_questions_on_two_videos_with_the_gold_pattern(copy):
    rows = _rows(copy)
    first, mc = rows[:4], rows[8:12]
    assert [Path(r["video_path"]).stem for r in first] == ["vid_00000_0", "vid_00000_1", "vid_00000_0", "vid_00000_1"]
    assert first[0]["question"] == first[1]["question"] != first[2]["question"] == first[3]["question"]
    assert [r["answer"] for r in first] == ["yes", "no", "no", "yes"]
    assert [r["answer"] for r in mc] == ["A", "B", "B", "A"] and {r["type"] for r in mc} == {"multiple_choice"}
    assert [r["type"] for r in rows].count("yes_no") == 8


def test_tags_name_rows_of_the_copy(copy):
    tags = json.loads((copy / "tags.json").read_text(encoding="utf-8"))
    assert set(tags) >= {"Direction", "Event", "Event_Attribute"}
    assert all(set(indices) <= set(range(16)) for indices in tags.values())
    # an instance's four rows share its tags
    for indices in tags.values():
        assert set(indices) == {4 * (i // 4) + r for i in indices for r in range(4)}
