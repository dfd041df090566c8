"""TemporalBench's small fixture writer (``benchmarks/temporalbench/fixture.py``): the official layout, its counts,
both spellings of the source field and both archive layouts of the long videos."""

from __future__ import annotations

import json
import zipfile

import pytest

from temporal_tasks.benchmarks.temporalbench.fixture import write


@pytest.fixture(scope="module")
def copy(tmp_path_factory):
    return write(tmp_path_factory.mktemp("tb"))


def _rows(copy, name: str) -> list[dict]:
    return json.loads((copy / name).read_text(encoding="utf-8"))


def test_layout_and_counts(copy):
    assert copy.name == "temporalbench"
    assert sorted(p.name for p in copy.iterdir()) == [
        "long_video_COIN.zip", "long_video_part_aa", "long_video_part_ab", "short_video.zip",
        "temporalbench_long_qa.json", "temporalbench_short_caption.json", "temporalbench_short_qa.json",
    ]  # fmt: skip
    short, long = _rows(copy, "temporalbench_short_qa.json"), _rows(copy, "temporalbench_long_qa.json")
    captions = _rows(copy, "temporalbench_short_caption.json")
    assert (len(short), len({r["video_name"] for r in short})) == (12, 4)
    assert (len(long), len({r["video_name"] for r in long})) == (11, 3)
    assert len(captions) == 3 and all(r["idx"] == r["video_name"] + "_caption" for r in captions)
    assert not any("FineGym" in r["video_name"] for r in captions)  # the official caption set has none


def test_short_rows_say_dataset_and_the_others_source_dataset(copy):
    assert all("dataset" in r and "source_dataset" not in r for r in _rows(copy, "temporalbench_short_qa.json"))
    for name in ("temporalbench_long_qa.json", "temporalbench_short_caption.json"):
        assert all("source_dataset" in r and "dataset" not in r for r in _rows(copy, name))


def test_the_gold_letter_holds_the_positive_caption(copy):
    first = _rows(copy, "temporalbench_short_qa.json")[0]
    assert first["idx"] == "short_video/Charades/AB12C_start_1.0_end_5.0.mp4_0" and first["GT"] == "A"
    assert (
        "A. A red square moves from the left edge to the right edge. \nB. A red square moves from the right "
        in (first["question"])
    )
    second = _rows(copy, "temporalbench_short_qa.json")[1]
    assert (
        second["GT"] == "B" and "\nB. A red square moves from the left edge to the right edge." in (second["question"])
    )
    assert {r["GT"] for r in _rows(copy, "temporalbench_long_qa.json")} == {"A", "B"}


def test_every_video_named_is_in_an_archive(copy, tmp_path):
    with zipfile.ZipFile(copy / "short_video.zip") as zf:
        assert set(zf.namelist()) == {r["video_name"] for r in _rows(copy, "temporalbench_short_qa.json")}
    # the older layout: the two pieces joined are one zip
    joined = tmp_path / "long_video.zip"
    joined.write_bytes((copy / "long_video_part_aa").read_bytes() + (copy / "long_video_part_ab").read_bytes())
    with zipfile.ZipFile(joined) as parts, zipfile.ZipFile(copy / "long_video_COIN.zip") as coin:
        assert coin.namelist() == ["long_video/COIN/coin_long_01.mp4"]
        named = {r["video_name"] for r in _rows(copy, "temporalbench_long_qa.json")}
        assert set(parts.namelist()) | set(coin.namelist()) == named
        assert parts.testzip() is None and len(parts.read("long_video/Charades/CH_long_07.mp4")) > 0


def test_writing_twice_is_the_same_copy(copy, tmp_path):
    again = write(tmp_path)
    for name in ("temporalbench_short_qa.json", "temporalbench_long_qa.json", "temporalbench_short_caption.json"):
        assert (again / name).read_bytes() == (copy / name).read_bytes()
