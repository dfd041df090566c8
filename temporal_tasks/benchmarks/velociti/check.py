"""``temporal-tasks check-data`` for VELOCITI: the annotation table, the subset's balance, a few videos."""

from __future__ import annotations

from temporal_tasks.api import CheckHook, Part
from temporal_tasks.benchmarks.velociti import loader as velociti
from temporal_tasks.harness.kit import BenchmarkData


def parts(data: BenchmarkData, k: int) -> list[Part]:
    """The checked parts of the copy at ``data`` (``k`` videos decoded per part)."""
    part = Part("velociti", "annotation table + velociti_videos.zip (every task)")
    rows = part.load(lambda: velociti.load_rows(data))
    if rows is not None:
        part.count("rows", len(rows))
        per_test = {t: sum(1 for r in rows if r["in_subset"] and r["test_name"] == t) for t in velociti.TESTS}
        part.count("subset rows per test", min(per_test.values()))
        if len(set(per_test.values())) > 1:
            part.warnings.append(f"the subset rows differ between tests: {per_test}")
        videos = [r["video"] for r in rows]
        part.count("videos", len(set(videos)))
        part.decode_sample(videos, k)
    return [part]


_CHECK: CheckHook = parts  # the spec's ``check`` hook, as the contract types it
