"""VELOCITI's small fixture writer (``benchmarks/velociti/fixture.py``): the annotation table (16 rows, 2 per test,
the first of each in the subset) and the video zip."""

from __future__ import annotations

import zipfile

import pandas as pd
import pytest

from temporal_tasks.benchmarks.velociti import TESTS
from temporal_tasks.benchmarks.velociti.fixture import TABLE, write


@pytest.fixture(scope="module")
def copy(tmp_path_factory):
    return write(tmp_path_factory.mktemp("vel"))


def test_layout_table_and_zip(copy):
    assert copy.name == "velociti" and sorted(p.name for p in copy.iterdir()) == [TABLE, "velociti_videos.zip"]
    table = pd.read_parquet(copy / TABLE)
    assert list(table.columns) == ["video_id", "test_name", "event", "pos", "neg", "in_subset"]
    assert len(table) == 16 and table.groupby("test_name").size().to_dict() == dict.fromkeys(TESTS, 2)
    with zipfile.ZipFile(copy / "velociti_videos.zip") as zf:
        members = sorted(zf.namelist())
    assert members == sorted({f"velociti_videos/{v.removesuffix('.mp4')}.mp4" for v in table["video_id"]})
    assert len(members) == 3


def test_the_first_row_of_each_test_is_in_the_subset(copy):
    table = pd.read_parquet(copy / TABLE)
    first = ~table["test_name"].duplicated()
    assert (table["in_subset"] == first).all() and table["in_subset"].sum() == 8


def test_one_video_id_carries_the_mp4_suffix(copy):
    ids = pd.read_parquet(copy / TABLE)["video_id"]
    assert sum(v.endswith(".mp4") for v in ids) == 1
