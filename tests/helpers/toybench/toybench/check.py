"""``temporal-tasks check-data`` for ToyBench: its counts beside the published ones, a few videos decoded."""

from __future__ import annotations

from temporal_tasks.api import CheckHook, Part
from temporal_tasks.harness import kit


def parts(data: kit.BenchmarkData, k: int) -> list[Part]:
    """The checked parts of the copy at ``data`` (``k`` videos decoded per part)."""
    from toybench.tasks import NAME, load_docs

    part = Part(NAME, "questions.jsonl + videos/ (toybench_pair)")
    docs = part.load(lambda: load_docs(data))
    if docs is not None:
        videos = [v for d in docs for v in d["videos"]]
        part.count("questions", len(docs))
        part.count("videos", len(set(videos)))
        part.decode_sample(videos, k)
    return [part]


_CHECK: CheckHook = parts  # the spec's ``check`` hook, as the contract types it
