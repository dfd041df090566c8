"""``view --frames K``: small thumbnails of the videos behind the failed (or flipped) groups, inline as JPEG data URIs.

The frames are read with :func:`temporal_tasks.video.frames.read_frames`, the reader this package's models use: K
uniformly spaced frames of each source video, first and last included (with K = the run's N, the frames our reader
hands a model; a paired video's N frames are built from K of each of its two clips in the same way). The videos come
from the benchmark data as the task's ``process_docs`` reads them, checked against the run's provenance fingerprints
so the thumbnails are of the videos the run saw.
"""

from __future__ import annotations

import base64
import io
from pathlib import Path

import numpy as np

from temporal_tasks.data.sources import DataError
from temporal_tasks.harness.provenance import data_record
from temporal_tasks.tools.samples import docs_of_task
from temporal_tasks.video.frames import read_frames

THUMB_HEIGHT = 64


def jpeg_uri(frame: np.ndarray, height: int = THUMB_HEIGHT) -> str:
    """One RGB frame, scaled to ``height`` pixels, as a ``data:image/jpeg;base64,…`` URI."""
    from PIL import Image

    image = Image.fromarray(np.asarray(frame, dtype=np.uint8))
    width = max(1, round(image.width * height / max(1, image.height)))
    image = image.resize((width, height))
    buf = io.BytesIO()
    image.save(buf, format="JPEG", quality=70)
    return "data:image/jpeg;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def _docs(task: str, provenance: list[dict | None]) -> dict[str, dict]:
    try:
        docs = docs_of_task(task)
    except DataError as exc:
        raise DataError(f"--frames needs the videos of {task}: {exc}") from None
    now = data_record(docs)
    for record in filter(None, provenance):
        then = record.get("data") or {}
        for field in ("annotations_sha256", "videos_sha256"):
            if then.get(field) and then[field] != now[field]:
                raise DataError(
                    f"--frames: the {task} data here are not those of the run ({field} {now[field][:12]} here, "
                    f"{then[field][:12]} in the run's provenance). Point TEMPORAL_TASKS_DATA_DIR at the data the run "
                    "used, or leave out --frames."
                )
    return {str(d["question_id"]): d for d in docs}


def _shown(group: dict) -> bool:
    # The groups a reader opens: failed in a run, or flipped between two.
    return any(r is not None and r["o"] == "failed" for r in group["r"])


def add_thumbnails(data: dict, k: int) -> int:
    """Add ``videos`` (``[[file name, [K data URIs]], …]``) to each task and ``v`` (indices into it) to the members
    of its failed groups. Returns how many thumbnails were embedded."""
    if k < 1:
        raise DataError(f"--frames {k}: give the number of thumbnails per video (1 or more).")
    total = 0
    for entry in data["tasks"]:
        groups = [g for g in entry["groups"] if _shown(g)]
        if not groups:
            entry["videos"] = []
            continue
        docs = _docs(entry["task"], [r.get("provenance") if r else None for r in entry["runs"]])
        index: dict[str, int] = {}
        videos: list[list] = []
        for group in groups:
            for run in group["r"]:
                if not run:  # the run has no samples of this task
                    continue
                for member in run["m"]:
                    doc = docs.get(member["q"])
                    if doc is None:
                        raise DataError(
                            f"--frames: question {member['q']!r} of {entry['task']} is not in the data here; point "
                            "TEMPORAL_TASKS_DATA_DIR at the data the run used."
                        )
                    refs = []
                    for path in doc.get("videos") or []:
                        if path not in index:
                            index[path] = len(videos)
                            videos.append([Path(path).name, [jpeg_uri(f) for f in read_frames(path, num_frames=k)]])
                            total += k
                        refs.append(index[path])
                    member["v"] = refs
        entry["videos"] = videos
    return total
