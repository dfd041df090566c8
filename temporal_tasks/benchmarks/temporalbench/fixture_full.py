"""The synthetic TemporalBench copy at the published sizes: short QA 9,867 questions on 2,179 videos, long QA
5,485 on 1,574, 1,891 captions (rows with only ``idx, video_name, question, GT``, as the official caption scorer
reads)."""

from __future__ import annotations

import json
import random
import tempfile
from pathlib import Path

from temporal_tasks.api import FixtureHook
from temporal_tasks.benchmarks.temporalbench.fixture import CAPTION_PROMPT, PROMPT
from temporal_tasks.harness.kit import clips, even_sizes, write_zip

SEED = 13
SHORT_VIDEOS, SHORT_QUESTIONS = 2179, 9867
LONG_VIDEOS, LONG_QUESTIONS = 1574, 5485
CAPTIONS = 1891
# The source datasets (``dataset`` values) and categories as the official files spell them, in the official print
# order (their slugs are the spec's SOURCES and CAPTION_CATEGORIES; a test checks).
OFFICIAL_SOURCES = ("ActivityNet", "Charades", "COIN", "EgoExo4D", "Movie_Description", "Oops", "FineGym")
OFFICIAL_CATEGORIES = (
    "Action Order", "Action Frequency", "Action Type", "Motion Magnitude",
    "Motion Direction/Orientation", "Action Effector", "Event Order", "Others",
)  # fmt: skip
LONG_SOURCES = ("ActivityNet", "Charades", "COIN", "EgoExo4D", "FineGym")


def write(root: Path) -> Path:
    """``root/temporalbench/`` at the published counts; long videos in one zip per source dataset."""
    out = Path(root) / "temporalbench"
    out.mkdir(parents=True, exist_ok=True)
    rng = random.Random(SEED)
    with tempfile.TemporaryDirectory() as tmp:
        blobs = clips(Path(tmp))

    def qa(prefix: str, n_videos: int, n_questions: int, sources: tuple[str, ...], with_category: bool):
        rows, videos = [], []
        for v, size in enumerate(even_sizes(n_videos, n_questions)):
            source = sources[v % len(sources)]
            name = f"{prefix}/{source}/clip{v:05d}_start_0.0_end_{5 + v % 7}.0.mp4"
            videos.append((source, name))
            for k in range(size):
                gt = rng.choice("AB")
                question = PROMPT.format(a=f"caption {v}.{k} one", b=f"caption {v}.{k} two")
                row = {"idx": f"{name}_{k}", "video_name": name, "dataset": source, "question": question, "GT": gt}
                if with_category:
                    row["category"] = OFFICIAL_CATEGORIES[(v + k) % len(OFFICIAL_CATEGORIES)]
                rows.append(row)
        return rows, videos

    short_rows, short_videos = qa("short_video", SHORT_VIDEOS, SHORT_QUESTIONS, OFFICIAL_SOURCES, True)
    long_rows, long_videos = qa("long_video", LONG_VIDEOS, LONG_QUESTIONS, LONG_SOURCES, False)
    write_zip(out / "short_video.zip", ((name, blobs[i % 4]) for i, (_s, name) in enumerate(short_videos)))
    for source in LONG_SOURCES:
        members = [(name, blobs[i % 4]) for i, (s, name) in enumerate(long_videos) if s == source]
        write_zip(out / f"long_video_{source}.zip", members)
    captions = [{"idx": f"{name}_caption", "video_name": name, "question": CAPTION_PROMPT, "GT": f"reference {n}"}
                for n, (_source, name) in enumerate(short_videos[:CAPTIONS])]  # fmt: skip
    for fname, rows in (
        ("temporalbench_short_qa.json", short_rows),
        ("temporalbench_long_qa.json", long_rows),
        ("temporalbench_short_caption.json", captions),
    ):
        (out / fname).write_text(json.dumps(rows), encoding="utf-8")
    return out


_FIXTURE_FULL: FixtureHook = write  # the spec's ``fixture_full`` hook, as the contract types it
