"""VELOCITI's full-size fixture writer (``benchmarks/velociti/fixture_full.py``): 8,792 rows, 1,099 per test
interleaved, the first 150 of each test in the subset, 700 videos."""

from __future__ import annotations

import zipfile

import pandas as pd
import pytest

from temporal_tasks.benchmarks.velociti import TESTS
from temporal_tasks.benchmarks.velociti.fixture_full import write


@pytest.fixture(scope="module")
def table_and_copy(tmp_path_factory):
    copy = write(tmp_path_factory.mktemp("vel_full"))
    return pd.read_parquet(copy / "test-data.parquet"), copy


def test_published_counts(table_and_copy):
    table, copy = table_and_copy
    assert len(table) == 8792 and table.groupby("test_name").size().to_dict() == dict.fromkeys(TESTS, 1099)
    assert table[table["in_subset"]].groupby("test_name").size().to_dict() == dict.fromkeys(TESTS, 150)
    with zipfile.ZipFile(copy / "velociti_videos.zip") as zf:
        assert {n.removeprefix("velociti_videos/").removesuffix(".mp4") for n in zf.namelist()} == set(
            table["video_id"]
        )
    assert table["video_id"].nunique() == 700


def test_tests_interleaved_and_pair_events_for_coref_and_chrono(table_and_copy):
    table, _copy = table_and_copy
    assert list(table["test_name"][: len(TESTS)]) == list(TESTS)  # one row of each test, then again
    pairs = table["event"].str.startswith("(")
    assert set(table[pairs]["test_name"]) == {"coref", "chrono"}
    assert not pairs[~table["test_name"].isin(["coref", "chrono"])].any()
