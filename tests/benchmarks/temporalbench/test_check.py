"""TemporalBench's ``check-data`` hook (``benchmarks/temporalbench/check.py``): short QA, long QA and captions checked
each on its own, counted against the annotation files read here."""

from __future__ import annotations

from pathlib import Path

from temporal_tasks.benchmarks.temporalbench import fixture
from temporal_tasks.benchmarks.temporalbench.check import parts
from temporal_tasks.data.sources import benchmark_data
from tests.helpers.benchmarks.temporalbench import data_rows


def _by_key(found) -> dict:
    return {p.key: p for p in found}


def test_counts_questions_captions_and_videos_of_each_part(offline_env):
    found = _by_key(parts(benchmark_data("temporalbench", root=offline_env), 2))
    assert list(found) == ["temporalbench short QA", "temporalbench long QA", "temporalbench captions"]
    for key, part, noun in (("temporalbench short QA", "short_qa", "questions"),
                            ("temporalbench long QA", "long_qa", "questions"),
                            ("temporalbench captions", "short_caption", "captions")):  # fmt: skip
        rows = data_rows(offline_env, part)
        got = found[key]
        assert got.counts == [(noun, len(rows), None), ("videos", len({r["video_name"] for r in rows}), None)]
        assert got.problems == got.warnings == [] and got.absent == ""
    # the small copy: 12 questions on 4 videos, 11 on 3, 3 captions (the fixture's docstring)
    assert [c[1] for p in found.values() for c in p.counts] == [12, 4, 11, 3, 3, 3]


def test_two_videos_of_each_part_are_picked_for_decoding(offline_env):
    for part in parts(benchmark_data("temporalbench", root=offline_env), 2):
        assert len(part.decode) == 2 and all(Path(v).is_file() for v in part.decode)
    assert all(p.decode == [] for p in parts(benchmark_data("temporalbench", root=offline_env), 0))


def test_an_absent_file_is_one_absent_part_and_the_others_still_count(offline_env, tmp_path):
    copy = fixture.write(tmp_path)
    (copy / "temporalbench_long_qa.json").unlink()
    found = _by_key(parts(benchmark_data("temporalbench", root=tmp_path), 1))
    long = found["temporalbench long QA"]
    assert long.absent == "no temporalbench_long_qa.json: this part's task cannot run"
    assert long.counts == [] and long.decode == []
    assert found["temporalbench short QA"].counts[0] == ("questions", 12, None)


def test_a_broken_annotation_file_is_a_problem_naming_it(offline_env, tmp_path):
    copy = fixture.write(tmp_path)
    rows = (copy / "temporalbench_short_qa.json").read_text().replace('"GT": "A"', '"GT": "C"')
    (copy / "temporalbench_short_qa.json").write_text(rows)
    short = _by_key(parts(benchmark_data("temporalbench", root=tmp_path), 1))["temporalbench short QA"]
    assert len(short.problems) == 1 and "temporalbench_short_qa.json" in short.problems[0]
    assert "GT must be 'A' or 'B'" in short.problems[0] and short.counts == []
