"""VELOCITI's ``check-data`` hook (``benchmarks/velociti/check.py``): the annotation table's rows, the subset's
balance over the tests, the videos, counted against the table read here with pandas."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from temporal_tasks.benchmarks.velociti import fixture
from temporal_tasks.benchmarks.velociti.check import parts
from temporal_tasks.data.sources import benchmark_data


def test_counts_rows_subset_and_videos(offline_env):
    (part,) = parts(benchmark_data("velociti", root=offline_env), 2)
    table = pd.read_parquet(offline_env / "velociti" / "test-data.parquet")
    subset_per_test = table[table["in_subset"]].groupby("test_name").size()
    videos = {v.removesuffix(".mp4") for v in table["video_id"]}  # one id carries the suffix, the same video
    assert part.counts == [("rows", len(table), None), ("subset rows per test", int(subset_per_test.min()), None),
                           ("videos", len(videos), None)]  # fmt: skip
    assert [c[1] for c in part.counts] == [16, 1, 3]
    assert part.problems == part.warnings == [] and part.key == "velociti"
    assert len(part.decode) == 2 and all(Path(v).is_file() for v in part.decode)


def _copy_with_table(tmp_path: Path, edit) -> Path:
    copy = fixture.write(tmp_path)
    table = pd.read_parquet(copy / fixture.TABLE)
    edit(table).to_parquet(copy / fixture.TABLE, index=False)
    return tmp_path


def test_an_unbalanced_subset_is_a_warning_with_the_counts(offline_env, tmp_path):
    def all_control_rows_in_subset(table: pd.DataFrame) -> pd.DataFrame:
        table.loc[table["test_name"] == "control", "in_subset"] = True
        return table

    (part,) = parts(benchmark_data("velociti", root=_copy_with_table(tmp_path, all_control_rows_in_subset)), 1)
    assert ("subset rows per test", 1, None) in part.counts  # the smallest test's
    (warning,) = part.warnings
    assert warning.startswith("the subset rows differ between tests: ") and "'control': 2" in warning
    assert "'chrono': 1" in warning and part.problems == []


def test_a_broken_table_is_a_problem_naming_it(offline_env, tmp_path):
    (part,) = parts(benchmark_data("velociti", root=_copy_with_table(tmp_path, lambda t: t.drop(columns="neg"))), 1)
    assert len(part.problems) == 1 and "test-data.parquet" in part.problems[0]
    assert part.counts == [] and part.decode == []
