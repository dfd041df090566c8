"""The replay model (``harness/replay.py``): its responses file, and standing in for a GPU model (visuals fetched,
latency, order)."""

from __future__ import annotations

import time

import pytest

from temporal_tasks.data.sources import DataError
from temporal_tasks.harness.replay import read_responses

# ----------------------------------------------------------------------------- the replay model as a stand-in


def _replay(tmp_path, **kwargs):
    from temporal_tasks.harness.replay import TemporalReplay

    responses = tmp_path / "r.jsonl"
    responses.write_text("".join(f'{{"question_id": "q{i}", "response": "r{i}"}}\n' for i in range(3)))
    return TemporalReplay(responses=str(responses), **kwargs)


def test_replay_stand_in_fetches_visuals_sleeps_and_keeps_answers_in_place(tmp_path):
    from types import SimpleNamespace

    model = _replay(tmp_path, latency_ms="40", order="length")
    docs = [{"question_id": f"q{i}"} for i in range(3)]
    model.task_dict = {"t": {"test": docs}}
    asked: list[str] = []

    def doc_to_visual(doc):
        asked.append(doc["question_id"])
        return []

    prompts = ["short", "the longest prompt", "middle one"]
    requests = [SimpleNamespace(args=(p, {}, doc_to_visual, i, "t", "test")) for i, p in enumerate(prompts)]
    start = time.perf_counter()
    assert model.generate_until(requests) == ["r0", "r1", "r2"]  # answers stay with their requests
    assert time.perf_counter() - start >= 0.12
    assert asked == ["q1", "q2", "q0"]  # served longest prompt first, each visual fetched once
    plain = _replay(tmp_path)
    plain.task_dict = model.task_dict
    asked.clear()
    assert plain.generate_until(requests) == ["r0", "r1", "r2"] and asked == []  # plain replay: no visuals


@pytest.mark.parametrize("bad", [{"latency_ms": "abc"}, {"latency_ms": "-5"}, {"order": "random"}])
def test_replay_rejects_bad_stand_in_args(tmp_path, bad):
    with pytest.raises(SystemExit, match="temporal_replay"):
        _replay(tmp_path, **bad)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"question_id": "1", "response": "A"}\n{oops\n', r"responses\.jsonl:2: not valid JSON"),
        ('{"question_id": "1", "response": "A"}\n{"question_id": "1", "response": "B"}\n', r":2: .*appears twice"),
        ('["A"]\n', r":1: each line must be an object"),
        ('{"question_id": "1"}\n', r':1: no "response"'),
        ('{"question_id": "1", "response": 3}\n', r':1: "response" must be a string'),
        ('{"question_id": "1", "loglikelihood": {"Yes": "high"}}\n', r':1: "loglikelihood" must map'),
    ],
)
def test_replay_file_errors_name_the_line(tmp_path, content, message):
    path = tmp_path / "responses.jsonl"
    path.write_text(content)
    with pytest.raises(DataError, match=message):
        read_responses(path)


def test_replay_file_reads(tmp_path):
    path = tmp_path / "r.jsonl"
    path.write_text(
        '{"question_id": 7, "response": "Yes"}\n\n{"question_id": "8", "loglikelihood": {"Yes": -0.1}}\n'
        '{"question_id": 7, "task": "other_task", "response": "No"}\n'
    )
    assert set(read_responses(path)) == {(None, "7"), (None, "8"), ("other_task", "7")}
    with pytest.raises(DataError, match="does not exist"):
        read_responses(tmp_path / "missing.jsonl")
