"""TimeBlind's full-size fixture writer (``benchmarks/timeblind/fixture_full.py``): 2,400 rows / 600 instances,
1,200 videos linked to two tiny clips, every row tagged once fine-grained and once coarse."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from temporal_tasks.benchmarks.timeblind.fixture_full import COARSE, FINE, write


@pytest.fixture(scope="module")
def copy(tmp_path_factory):
    return write(tmp_path_factory.mktemp("tbl_full"))


def _rows(copy: Path) -> list[dict]:
    return [json.loads(x) for x in (copy / "data.jsonl").read_text(encoding="utf-8").splitlines()]


def test_published_counts_and_halves(copy):
    rows = _rows(copy)
    assert [r["index"] for r in rows] == list(range(2400))
    assert Counter(r["type"] for r in rows) == {"yes_no": 1200, "multiple_choice": 1200}
    assert all(r["type"] == "yes_no" for r in rows[:1200])  # the first half, as in the release
    assert rows[1200]["video_path"] == "TimeBlind/videos/mcq_vid_00000_0.mp4"
    assert rows[1199]["video_path"] == "TimeBlind/videos/vid_00299_1.mp4"


def test_1200_videos_from_two_clips_and_no_leftovers(copy):
    videos = sorted((copy / "videos").iterdir())
    assert len(videos) == 1200 and {Path(r["video_path"]).name for r in _rows(copy)} == {v.name for v in videos}
    assert len({v.read_bytes() for v in videos}) == 2  # every _0 one clip, every _1 the other
    assert sorted(p.name for p in copy.iterdir()) == ["data.jsonl", "tags.json", "videos"]  # no .clip files left


def test_every_row_has_one_fine_and_one_coarse_tag(copy):
    tags = json.loads((copy / "tags.json").read_text(encoding="utf-8"))
    assert set(tags) == set(FINE) | set(COARSE)
    for names in (FINE, COARSE):
        tagged = Counter(i for name in names for i in tags[name])
        assert set(tagged) == set(range(2400)) and set(tagged.values()) == {1}
