"""``temporal-tasks check-data`` for TimeBlind: its counts beside the published ones, a few videos decoded."""

from __future__ import annotations

from temporal_tasks.api import CheckHook, Part
from temporal_tasks.benchmarks.timeblind import tasks as timeblind
from temporal_tasks.harness.kit import BenchmarkData


def parts(data: BenchmarkData, k: int) -> list[Part]:
    """The checked parts of the copy at ``data`` (``k`` videos decoded per part)."""
    part = Part("timeblind", "data.jsonl + videos/ (timeblind_iacc)")
    docs = part.load(lambda: timeblind.load_docs(data))
    if docs is not None:
        videos = [v for d in docs for v in d["videos"]]
        part.count("rows", len(docs))
        part.count("instances", len({d["group_id"] for d in docs}))
        part.count("videos", len(set(videos)))
        part.decode_sample(videos, k)
    return [part]


_CHECK: CheckHook = parts  # the spec's ``check`` hook, as the contract types it
