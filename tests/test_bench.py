"""`temporal-tasks bench` runs end to end (small sizes) and prints one JSON object last. No timing asserted."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest

KEYS = (
    "paired_build_speedup_vs_ffmpeg", "paired_build_vs_decode_floor", "cache_hit_ms", "overhead_fraction",
    "aggregate_1m_seconds", "aggregate_1m_peak_mb", "aggregate_1m_vs_100k",
)  # fmt: skip


@pytest.mark.slow
def test_bench_json_last_line():
    out = subprocess.run(
        [sys.executable, "-m", "temporal_tasks", "bench", "--json", "--pairs", "2", "--seconds", "2",
         "--payloads", "20000"],
        capture_output=True, text=True, timeout=600, check=True,
    )  # fmt: skip
    result = json.loads(out.stdout.strip().splitlines()[-1])
    for key in KEYS:
        assert key in result
    assert result["paired_build_vs_decode_floor"] > 0 and result["overhead_fraction"] > 0
    assert set(result["targets_met"]) <= set(KEYS)
    if shutil.which("ffmpeg") is None:
        assert result["paired_build_speedup_vs_ffmpeg"] is None and "ffmpeg" in result["note_ffmpeg"]
    else:
        assert result["paired_build_speedup_vs_ffmpeg"] > 0
    assert "| paired_build_vs_decode_floor |" in out.stdout
