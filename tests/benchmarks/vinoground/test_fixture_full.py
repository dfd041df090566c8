"""Vinoground's full-size fixture writer (``benchmarks/vinoground/fixture_full.py``): 500 pairs, 1,000 clips,
2,000 questions, both orders of every concatenated video."""

from __future__ import annotations

import csv
import json
import zipfile

import pytest

from temporal_tasks.benchmarks.vinoground.fixture_full import write


@pytest.fixture(scope="module")
def copy(tmp_path_factory):
    return write(tmp_path_factory.mktemp("vino_full"))


def test_published_counts(copy):
    text = json.loads((copy / "vinoground_textscore.json").read_text())
    video = json.loads((copy / "vinoground_videoscore.json").read_text())
    assert len(text) == len(video) == 1000 and len(text) + len(video) == 2000
    with open(copy / "vinoground.csv", encoding="utf-8", newline="") as fh:
        assert [int(r["index"]) for r in csv.DictReader(fh)] == list(range(500))
    with zipfile.ZipFile(copy / "vinoground_videos.zip") as zf:
        clips = [n for n in zf.namelist() if n.endswith(".mp4")]
        assert len(clips) == 1000 and set(clips) == {q["video_name"] for q in text}
        assert json.loads(zf.read("vinoground_videos/vinoground_textscore.json")) == text
    with zipfile.ZipFile(copy / "vinoground_videos_concated.zip") as zf:
        concat = {n for n in zf.namelist() if n.endswith(".mp4")}
        assert len(concat) == 1000 and {q["video_name"] for q in video} <= concat


def test_the_gold_letter_and_the_video_order_agree(copy):
    for q in json.loads((copy / "vinoground_videoscore.json").read_text()):
        pair, side = q["idx"].split("_")
        pos_first = not q["video_name"].endswith("_reverse.mp4")
        # GT A: the captioned clip comes first (the positive one in <pair>.mp4, the negative in the reverse)
        assert (q["GT"] == "A") == (pos_first == (side == "pos")), q
        assert q["video_name"].removeprefix("vinoground_videos_concated/") in (f"{pair}.mp4", f"{pair}_reverse.mp4")
