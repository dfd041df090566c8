"""Vinoground's small fixture writer (``benchmarks/vinoground/fixture.py``): 4 pairs = 16 questions in the official
layout (CSV, both JSONs at the root and inside the zips, both zips), the options shuffled as the gold says."""

from __future__ import annotations

import csv
import json
import zipfile

import pytest

from temporal_tasks.benchmarks.vinoground.fixture import questions, write


@pytest.fixture(scope="module")
def copy(tmp_path_factory):
    return write(tmp_path_factory.mktemp("vino"))


def test_layout(copy):
    assert copy.name == "vinoground"
    assert sorted(p.name for p in copy.iterdir()) == [
        "vinoground.csv", "vinoground_textscore.json", "vinoground_videos.zip", "vinoground_videos_concated.zip",
        "vinoground_videoscore.json",
    ]  # fmt: skip
    with open(copy / "vinoground.csv", encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert [r["index"] for r in rows] == ["0", "1", "2", "3"]
    assert rows[0]["pos_cap"] == "the red square appears before the blue square" and rows[1]["minor"] == ""


def test_zips_hold_every_clip_and_their_own_json_copy(copy):
    text = json.loads((copy / "vinoground_textscore.json").read_text())
    video = json.loads((copy / "vinoground_videoscore.json").read_text())
    with zipfile.ZipFile(copy / "vinoground_videos.zip") as zf:
        names = set(zf.namelist())
        assert json.loads(zf.read("vinoground_videos/vinoground_textscore.json")) == text
    assert names == {q["video_name"] for q in text} | {"vinoground_videos/vinoground_textscore.json"}
    assert len(names) == 9  # 8 clips + the JSON
    with zipfile.ZipFile(copy / "vinoground_videos_concated.zip") as zf:
        names = set(zf.namelist())
        assert json.loads(zf.read("vinoground_videos_concated/vinoground_videoscore.json")) == video
    # both orders of every pair are there, even those no question names
    assert names == {f"vinoground_videos_concated/{i}{r}.mp4" for i in range(4) for r in ("", "_reverse")} | {
        "vinoground_videos_concated/vinoground_videoscore.json"
    }


def test_questions_in_the_official_order_with_the_gold_option_right():
    text, video = questions()
    assert (
        [q["idx"] for q in text] == [f"{i}_{s}" for i in range(4) for s in ("pos", "neg")] == [q["idx"] for q in video]
    )
    # pair 0, pos: GT B, so the positive caption is option B
    assert text[0]["GT"] == "B" and "\nB. the red square appears before the blue square\n" in text[0]["question"]
    # pair 1, pos: GT A; its video question: GT B, the clip it describes second (the neg-first video)
    assert text[2]["GT"] == "A" and "\nA. the small square turns into a big square\n" in text[2]["question"]
    assert (video[2]["GT"], video[2]["video_name"]) == ("B", "vinoground_videos_concated/1_reverse.mp4")
    assert (video[0]["GT"], video[0]["video_name"]) == ("A", "vinoground_videos_concated/0.mp4")
