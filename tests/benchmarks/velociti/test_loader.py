"""VELOCITI's loader (``benchmarks/velociti/loader.py``): docs from the fixture's table, where the table may be,
and every bad table named."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from temporal_tasks.benchmarks.velociti import fixture as fixture
from temporal_tasks.benchmarks.velociti import loader as velociti_loader
from temporal_tasks.benchmarks.velociti import tasks as velociti
from temporal_tasks.data.sources import BenchmarkData, DataError

# ----------------------------------------------------------------------------- loader


def test_fixture_docs(offline_env):
    docs = velociti.load_docs(kind="entail")
    assert len(docs) == 2 * len(fixture.ROWS)
    assert [d["question_id"] for d in docs[:4]] == ["0_pos", "0_neg", "1_pos", "1_neg"]
    first = docs[0]
    assert first["prompt"] == velociti_loader.ENTAIL_PROMPT.format(caption=fixture.ROWS[0][3])
    assert first["prompt"].endswith("Just answer with either Yes or No. ")  # trailing space kept
    assert "\nHere is a caption that describes the video: " in first["prompt"]
    assert docs[1]["prompt"].endswith("No. ") and fixture.ROWS[0][4] in docs[1]["prompt"]
    assert first["gold"] == "yes" and docs[1]["gold"] == "no" and first["group_id"] == docs[1]["group_id"]
    # video_id given as "<id>.mp4" (row 2) resolves to the same file as the bare id (row 3).
    assert docs[4]["videos"] == docs[6]["videos"] and Path(docs[4]["videos"][0]).is_file()
    assert docs[4]["videos"][0].endswith("velociti_videos/v_fixOrder003_seg_5_15.mp4")
    assert {d["categories"][0] for d in docs} == set(velociti_loader.TESTS)
    subset = velociti.load_docs(kind="entail", subset=True)
    assert [d["row"] for d in subset[::2]] == list(range(8))
    mc = velociti.load_docs(kind="mc")
    assert [d["question_id"] for d in mc[:2]] == ["0_mc_posA", "0_mc_posB"]
    pos, neg = fixture.ROWS[0][3], fixture.ROWS[0][4]
    assert mc[0]["prompt"] == velociti_loader.MC_PROMPT.format(cap1=pos, cap2=neg)
    assert mc[1]["prompt"] == velociti_loader.MC_PROMPT.format(cap1=neg, cap2=pos)
    assert mc[0]["gold"] == "A" and mc[1]["gold"] == "B"
    assert mc[0]["prompt"].endswith("Just print either A or B.")
    both = velociti.load_docs()  # default: every question of every task (e.g. for replay files)
    assert len(both) == 64 and len({d["question_id"] for d in both}) == 64


@pytest.fixture
def copy_root(offline_env, tmp_path) -> Path:
    """A private copy of the VELOCITI fixture to break."""
    root = tmp_path / "velociti"
    shutil.copytree(offline_env / "velociti", root)
    return root


def _table(root: Path):
    import pandas as pd

    return pd.read_parquet(root / fixture.TABLE)


def _data(root: Path) -> BenchmarkData:
    return BenchmarkData("velociti", root, offline=True)


def test_loader_finds_table_under_data_and_accepts_identical_copies(copy_root):
    frame = _table(copy_root)
    (copy_root / "data").mkdir()
    half = len(frame) // 2
    frame.iloc[:half].to_parquet(copy_root / "data" / "test-00000-of-00002.parquet", index=False)
    frame.iloc[half:].to_parquet(copy_root / "data" / "test-00001-of-00002.parquet", index=False)
    assert len(velociti.load_docs(_data(copy_root), kind="entail")) == 32  # root file == the two shards joined
    (copy_root / fixture.TABLE).unlink()
    assert len(velociti.load_docs(_data(copy_root), kind="entail")) == 32  # shards alone


def test_loader_errors(copy_root):
    frame = _table(copy_root)
    data = _data(copy_root)
    # conflicting tables
    (copy_root / "data").mkdir()
    frame.iloc[:4].to_parquet(copy_root / "data" / "other.parquet", index=False)
    with pytest.raises(DataError, match="several annotation tables that differ"):
        velociti.load_docs(data)
    shutil.rmtree(copy_root / "data")
    # a missing shard
    (copy_root / "data").mkdir()
    frame.to_parquet(copy_root / "data" / "test-00000-of-00002.parquet", index=False)
    with pytest.raises(DataError, match="incomplete"):
        velociti.load_docs(data)
    shutil.rmtree(copy_root / "data")
    # v1 test names
    frame.assign(test_name=["agent_iden"] + list(frame.test_name[1:])).to_parquet(copy_root / fixture.TABLE)
    with pytest.raises(DataError, match="VELOCITI v1"):
        velociti.load_docs(data)
    # missing column
    frame.drop(columns=["in_subset"]).to_parquet(copy_root / fixture.TABLE)
    with pytest.raises(DataError, match=r"missing column\(s\) \['in_subset'\]"):
        velociti.load_docs(data)
    # empty caption
    frame.assign(neg=[""] + list(frame.neg[1:])).to_parquet(copy_root / fixture.TABLE)
    with pytest.raises(DataError, match="row 0: neg"):
        velociti.load_docs(data)
    # missing video
    frame.assign(video_id=["v_nowhere"] + list(frame.video_id[1:])).to_parquet(copy_root / fixture.TABLE)
    with pytest.raises(DataError, match="v_nowhere.mp4"):
        velociti.load_docs(data)
    # no table at all
    (copy_root / fixture.TABLE).unlink()
    with pytest.raises(DataError, match=r"no annotation table"):
        velociti.load_docs(data)


def test_process_docs_exits_cleanly_on_bad_data(offline_env, tmp_path, monkeypatch):
    (tmp_path / "velociti").mkdir()
    monkeypatch.setenv("TEMPORAL_TASKS_DATA_DIR", str(tmp_path))
    with pytest.raises(SystemExit, match="no annotation table"):
        velociti.process_docs(None)
