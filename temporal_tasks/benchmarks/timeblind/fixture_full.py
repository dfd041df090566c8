"""The synthetic TimeBlind copy at the published size: 2,400 rows / 600 instances (``fixtures --full``)."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path

from temporal_tasks.api import FixtureHook
from temporal_tasks.benchmarks.timeblind.fixture import GOLD, INSTANCES
from temporal_tasks.harness.kit import clips

INSTANCES_FULL = 600  # the first half yes/no, the second multiple choice (as in the release)

FINE = (
    "Fine-Grained_Actions", "State_Transition", "Speed", "Force", "Magnitude", "Direction", "Duration",
    "Repetition", "Temporal_Relation", "Causal_Contingency", "Cross-Event_Comparison",
)  # fmt: skip
COARSE = ("Event", "Event_Attribute", "Structural Event Logic")


def write(root: Path) -> Path:
    """``root/timeblind/`` at 2,400 rows; the 1,200 videos are hard links to two tiny clips."""
    out = Path(root) / "timeblind"
    videos = out / "videos"
    videos.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        blobs = clips(Path(tmp))
        sources = [out / f".clip{i}.mp4" for i in range(2)]
        for src, blob in zip(sources, blobs, strict=False):
            src.write_bytes(blob)
    rows: list[dict] = []
    tags: dict[str, list[int]] = {t: [] for t in (*FINE, *COARSE)}
    half = INSTANCES_FULL // 2
    for k in range(INSTANCES_FULL):
        kind = "yes_no" if k < half else "multiple_choice"
        stem = f"vid_{k:05d}" if k < half else f"mcq_vid_{k - half:05d}"
        template = INSTANCES[(k % 2) + (0 if k < half else 2)]
        for v in (0, 1):
            target = videos / f"{stem}_{v}.mp4"
            if not target.exists():
                try:
                    os.link(sources[v], target)
                except OSError:  # a file system without hard links
                    shutil.copyfile(sources[v], target)
        for role, (question, video) in enumerate(
            [(template[4], 0), (template[4], 1), (template[5], 0), (template[5], 1)]
        ):
            index = 4 * k + role
            rows.append({"index": index, "video_path": f"TimeBlind/videos/{stem}_{video}.mp4", "question": question,
                         "answer": GOLD[kind][role], "type": kind})  # fmt: skip
        members = list(range(4 * k, 4 * k + 4))
        tags[FINE[k % len(FINE)]].extend(members)
        tags[COARSE[k % len(COARSE)]].extend(members)
    for src in sources:
        src.unlink()
    with open(out / "data.jsonl", "w", encoding="utf-8") as fh:
        fh.writelines(json.dumps(r) + "\n" for r in rows)
    (out / "tags.json").write_text(json.dumps(tags), encoding="utf-8")
    return out


_FIXTURE_FULL: FixtureHook = write  # the spec's ``fixture_full`` hook, as the contract types it
