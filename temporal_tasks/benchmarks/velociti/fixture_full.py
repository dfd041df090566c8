"""The synthetic VELOCITI copy at the published size: 8,792 rows, 150 per test in the subset."""

from __future__ import annotations

import tempfile
from pathlib import Path

from temporal_tasks.api import FixtureHook
from temporal_tasks.benchmarks.velociti import TESTS
from temporal_tasks.harness.kit import clips, write_zip

PER_TEST, SUBSET, VIDEOS = 1099, 150, 700  # 8 tests x 1,099 = 8,792 rows


def write(root: Path) -> Path:
    """``root/velociti/`` at 8,792 rows (1,099 per test, the first 150 of each in the subset)."""
    import pandas as pd

    out = Path(root) / "velociti"
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        blobs = clips(Path(tmp))
    ids = [f"v_full{n:04d}_seg_{n % 20}_{n % 20 + 10}" for n in range(VIDEOS)]
    write_zip(out / "velociti_videos.zip", ((f"velociti_videos/{v}.mp4", blobs[n % 4]) for n, v in enumerate(ids)))
    records = []
    for k in range(PER_TEST):
        for t, test in enumerate(TESTS):  # interleaved: rows of one test are not contiguous
            n = k * len(TESTS) + t
            event = f"(Ev{1 + n % 5}, Ev{2 + n % 4})" if test in ("coref", "chrono") else f"Ev{1 + n % 5}"
            records.append({"video_id": ids[n % len(ids)], "test_name": test, "event": event,
                            "pos": f"row {n}: a red square moves right.", "neg": f"row {n}: a red square moves left.",
                            "in_subset": k < SUBSET})  # fmt: skip
    pd.DataFrame.from_records(records).to_parquet(out / "test-data.parquet", index=False)
    return out


_FIXTURE_FULL: FixtureHook = write  # the spec's ``fixture_full`` hook, as the contract types it
