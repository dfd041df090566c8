"""TemporalBench's full-size fixture writer (``benchmarks/temporalbench/fixture_full.py``): the published counts,
one long-video zip per source, caption rows with the four fields the caption scorer reads."""

from __future__ import annotations

import json
import zipfile
from collections import Counter

import pytest

from temporal_tasks.benchmarks.temporalbench.fixture_full import LONG_SOURCES, OFFICIAL_CATEGORIES, write


@pytest.fixture(scope="module")
def copy(tmp_path_factory):
    return write(tmp_path_factory.mktemp("tb_full"))


def _rows(copy, name: str) -> list[dict]:
    return json.loads((copy / name).read_text(encoding="utf-8"))


def test_published_counts(copy):
    short, long = _rows(copy, "temporalbench_short_qa.json"), _rows(copy, "temporalbench_long_qa.json")
    assert (len(short), len({r["video_name"] for r in short})) == (9867, 2179)
    assert (len(long), len({r["video_name"] for r in long})) == (5485, 1574)
    assert len(_rows(copy, "temporalbench_short_caption.json")) == 1891
    assert len({r["idx"] for r in short}) == 9867  # ids unique


def test_questions_spread_evenly_over_videos(copy):
    per_video = Counter(r["video_name"] for r in _rows(copy, "temporalbench_short_qa.json"))
    assert set(per_video.values()) == {4, 5}  # 9,867 / 2,179 = 4.53
    assert sum(1 for n in per_video.values() if n == 5) == 9867 - 4 * 2179


def test_categories_on_short_rows_only(copy):
    assert {r["category"] for r in _rows(copy, "temporalbench_short_qa.json")} == set(OFFICIAL_CATEGORIES)
    assert not any("category" in r for r in _rows(copy, "temporalbench_long_qa.json"))
    captions = _rows(copy, "temporalbench_short_caption.json")
    assert {tuple(sorted(r)) for r in captions} == {("GT", "idx", "question", "video_name")}


def test_every_video_is_in_its_zip(copy):
    with zipfile.ZipFile(copy / "short_video.zip") as zf:
        assert set(zf.namelist()) == {r["video_name"] for r in _rows(copy, "temporalbench_short_qa.json")}
    long_names = set()
    for source in LONG_SOURCES:
        with zipfile.ZipFile(copy / f"long_video_{source}.zip") as zf:
            assert all(n.startswith(f"long_video/{source}/") for n in zf.namelist())
            long_names |= set(zf.namelist())
    assert long_names == {r["video_name"] for r in _rows(copy, "temporalbench_long_qa.json")}
