"""``temporal-tasks check-data`` for TemporalBench: short QA, long QA and captions, each on its own."""

from __future__ import annotations

from temporal_tasks.api import CheckHook, Part
from temporal_tasks.benchmarks.temporalbench import loader as tb
from temporal_tasks.harness.kit import BenchmarkData


def parts(data: BenchmarkData, k: int) -> list[Part]:
    """The checked parts of the copy at ``data`` (``k`` videos decoded per part); an absent file is one part."""
    parts = []
    for key, title, file_key, load in (
        ("temporalbench short QA", "short QA (temporalbench_short_mba)", "short_qa",
         lambda: tb.load_qa("short_qa", data)),
        ("temporalbench long QA", "long QA (temporalbench_long_mba)", "long_qa", lambda: tb.load_qa("long_qa", data)),
        ("temporalbench captions", "captions (temporalbench_caption_sim)", "short_caption",
         lambda: tb.load_caption_docs(data)),
    ):  # fmt: skip
        part = Part(key, f"{tb.FILES[file_key]}: {title}")
        parts.append(part)
        if not (data.root / tb.FILES[file_key]).is_file():
            part.absent = f"no {tb.FILES[file_key]}: this part's task cannot run"
            continue
        docs = part.load(load)
        if docs is None:
            continue
        videos = [v for d in docs for v in d["videos"]]
        if file_key == "short_caption":
            part.count("captions", len(docs))
        else:
            part.count("questions", len(docs))
        part.count("videos", len(set(videos)))
        part.decode_sample(videos, k)
    return parts


_CHECK: CheckHook = parts  # the spec's ``check`` hook, as the contract types it
