"""TemporalBench's loader (``benchmarks/temporalbench/loader.py``): docs from the fixture, and every bad or unusual
layout of the annotations and archives named."""

from __future__ import annotations

import shutil
import zipfile
from pathlib import Path

import pytest

from temporal_tasks.benchmarks.temporalbench import loader as temporalbench_loader
from temporal_tasks.benchmarks.temporalbench import tasks as tb
from temporal_tasks.data.sources import DataError
from tests.helpers.benchmarks.temporalbench import (
    V1,
    V4,
    data_rows,
    drop_caption_sources,
    edit_data,
)

# ----------------------------------------------------------------------------- loader


def test_loader_builds_docs(offline_env):
    short = tb.load_qa("short_qa")
    long = tb.load_qa("long_qa")
    assert len(short) == 12 and len(long) == 11
    first = short[0]
    assert first["question_id"] == f"{V1}_0" and first["group_id"] == V1 and first["group_size"] == 3
    assert first["prompt"] == data_rows(offline_env, "short_qa")[0]["question"]  # verbatim
    assert first["prompt"].startswith("Which caption best describes this video?\nA. ")
    assert first["categories"] == ["Charades", "Motion Direction/Orientation"]
    assert first["video_categories"] == ["Action Type", "Event Order", "Motion Direction/Orientation"]
    assert Path(first["videos"][0]).is_file() and first["videos"][0].endswith(V1)
    assert sorted({d["group_size"] for d in short + long}) == [1, 2, 3, 4, 5, 6]
    # long rows use source_dataset (and an empty category); the split archive was joined and unpacked
    assert {d["source"] for d in long} == {"COIN", "Charades", "ActivityNet"}
    assert all(d["category"] == "" and d["video_categories"] == [] for d in long)
    assert all(Path(d["videos"][0]).is_file() for d in long)
    assert len(temporalbench_loader.load_docs()) == 23
    captions = tb.load_caption_docs()
    assert [c["source"] for c in captions] == ["Charades", "COIN", "Movie_Description"]
    assert captions[0]["gold"] == "A red square moves from the left edge to the right edge."
    # one group per video, its size the video's question count
    assert list({d["group_id"]: d["group_size"] for d in short}.values()) == [3, 6, 1, 2]


@pytest.fixture
def copy(fixture_root, tmp_path, monkeypatch):
    """A private copy of the TemporalBench fixture that a test may change."""
    shutil.copytree(fixture_root / "temporalbench", tmp_path / "temporalbench")
    monkeypatch.setenv("TEMPORAL_TASKS_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("TEMPORAL_TASKS_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "temporalbench"


def test_source_key_missing_is_a_clear_error(copy):
    edit_data(copy, "short_qa", lambda rows: [{k: v for k, v in r.items() if k != "dataset"} for r in rows])
    with pytest.raises(DataError, match=r"item 0 .*neither 'dataset' nor 'source_dataset'"):
        tb.load_qa("short_qa")


def test_caption_rows_need_no_source_field(copy):
    drop_caption_sources(copy)
    captions = tb.load_caption_docs()
    assert len(captions) == 3 and {c["source"] for c in captions} == {""}
    assert all(c["categories"] == [] for c in captions)
    assert captions[0]["gold"] == "A red square moves from the left edge to the right edge."


def test_dataset_key_wins_over_source_dataset(copy):
    edit_data(copy, "long_qa", lambda rows: [dict(r, dataset="EgoExo4D") for r in rows])
    assert {d["source"] for d in tb.load_qa("long_qa")} == {"EgoExo4D"}


def test_unpacked_videos_are_used_without_archives(copy):
    with zipfile.ZipFile(copy / "short_video.zip") as zf:
        zf.extractall(copy)
    (copy / "short_video.zip").unlink()
    docs = tb.load_qa("short_qa")
    assert docs[0]["videos"][0] == str(copy / V1)


def test_numbered_split_parts_and_archives_without_prefix(copy):
    # `long_video.zip.001`/`.002` pieces work like `long_video_part_aa`/`_ab`; a short-video zip
    # holding `<Dataset>/<clip>.mp4` (no `short_video/` prefix) is found too.
    (copy / "long_video_part_aa").rename(copy / "long_video.zip.001")
    (copy / "long_video_part_ab").rename(copy / "long_video.zip.002")
    assert all(Path(d["videos"][0]).is_file() for d in tb.load_qa("long_qa"))
    with zipfile.ZipFile(copy / "short_video.zip") as zf:
        members = {n: zf.read(n) for n in zf.namelist()}
    with zipfile.ZipFile(copy / "short_video.zip", "w") as zf:
        for name, blob in members.items():
            zf.writestr(name.removeprefix("short_video/"), blob)
    assert tb.load_qa("short_qa")[0]["videos"][0].endswith("Charades/AB12C_start_1.0_end_5.0.mp4")


def test_missing_long_archive_names_the_video(copy):
    for part in copy.glob("long_video_part_*"):
        part.unlink()
    with pytest.raises(DataError, match=r"(?s)2 video file\(s\) missing.*CH_long_07\.mp4.*long_video_part_"):
        tb.load_qa("long_qa")


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda rows: [dict(rows[0], GT="C"), *rows[1:]], r"GT must be 'A' or 'B'"),
        (lambda rows: [*rows, rows[0]], r"duplicate question ids"),
        (lambda rows: [dict(rows[0], dataset="COIN"), *rows[1:]], r"name source\(s\) \['COIN', 'Charades'\]"),
        (lambda rows: [{k: v for k, v in r.items() if k != "GT"} for r in rows], r"missing field\(s\) \['GT'\]"),
        (lambda rows: [], r"non-empty JSON list"),
    ],
)
def test_bad_annotations(copy, edit, message):
    edit_data(copy, "short_qa", edit)
    with pytest.raises(DataError, match=message):
        tb.load_qa("short_qa")


def test_fixture_layout(fixture_root):
    root = fixture_root / "temporalbench"
    names = {p.name for p in root.iterdir()}
    assert {
        *temporalbench_loader.FILES.values(),
        "short_video.zip",
        "long_video_COIN.zip",
        "long_video_part_aa",
    } <= names
    with zipfile.ZipFile(root / "short_video.zip") as zf:
        assert f"{V4}" in zf.namelist()
    assert all("source_dataset" in r and "dataset" not in r for r in data_rows(fixture_root, "long_qa"))
    assert all("dataset" in r and r["category"] for r in data_rows(fixture_root, "short_qa"))
