"""The synthetic Vinoground copy at the published size: 500 pairs / 1,000 clips / 2,000 questions."""

from __future__ import annotations

import csv
import json
import random
import tempfile
from pathlib import Path

from temporal_tasks.api import FixtureHook
from temporal_tasks.benchmarks.vinoground.fixture import TEXT_Q, VIDEO_Q
from temporal_tasks.harness.kit import clips, write_zip

SEED = 12
PAIRS = 500


def write(root: Path) -> Path:
    """``root/vinoground/`` at 500 pairs: CSV, both JSONs (root and inside the zips), both zips."""
    out = Path(root) / "vinoground"
    out.mkdir(parents=True, exist_ok=True)
    rng = random.Random(SEED)
    with tempfile.TemporaryDirectory() as tmp:
        blobs = clips(Path(tmp))
    majors = ("action", "object", "viewpoint")
    minors = ("", "interaction", "cyclical", "spatial", "contextual", "interaction;cyclical")
    text, video, csv_rows = [], [], []
    for i in range(PAIRS):
        caps = {
            "pos": f"pair {i}: the red square moves before the blue one",
            "neg": f"pair {i}: the blue one moves first",
        }
        csv_rows.append([i, majors[i % 3], minors[i % len(minors)], f"yt{i:05d}a", 0, 10, caps["pos"],
                         f"yt{i:05d}b", 5, 15, caps["neg"]])  # fmt: skip
        for side in ("pos", "neg"):
            other = "neg" if side == "pos" else "pos"
            gt = rng.choice("AB")
            a, b = (caps[side], caps[other]) if gt == "A" else (caps[other], caps[side])
            text.append({"idx": f"{i}_{side}", "video_name": f"vinoground_videos/{i}_{side}.mp4",
                         "question": TEXT_Q.format(a=a, b=b), "GT": gt})  # fmt: skip
            gt = rng.choice("AB")
            name = f"{i}.mp4" if (gt == "A") == (side == "pos") else f"{i}_reverse.mp4"
            video.append({"idx": f"{i}_{side}", "video_name": f"vinoground_videos_concated/{name}",
                          "question": VIDEO_Q.format(cap=caps[side]), "GT": gt})  # fmt: skip
    text_json, video_json = json.dumps(text).encode(), json.dumps(video).encode()
    pair_clips = [(f"vinoground_videos/{i}_{s}.mp4", blobs[(2 * i + (s == "neg")) % 4])
                  for i in range(PAIRS) for s in ("pos", "neg")]  # fmt: skip
    write_zip(out / "vinoground_videos.zip", [*pair_clips, ("vinoground_videos/vinoground_textscore.json", text_json)])
    concat = [(f"vinoground_videos_concated/{i}{r}.mp4", blobs[(i + bool(r)) % 4])
              for i in range(PAIRS) for r in ("", "_reverse")]  # fmt: skip
    write_zip(out / "vinoground_videos_concated.zip",
              [*concat, ("vinoground_videos_concated/vinoground_videoscore.json", video_json)])  # fmt: skip
    (out / "vinoground_textscore.json").write_bytes(text_json)
    (out / "vinoground_videoscore.json").write_bytes(video_json)
    with open(out / "vinoground.csv", "w", encoding="utf-8", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(["index", "major", "minor", "pos_vid", "pos_start", "pos_end", "pos_cap",
                         "neg_vid", "neg_start", "neg_end", "neg_cap"])  # fmt: skip
        writer.writerows(csv_rows)
    return out


_FIXTURE_FULL: FixtureHook = write  # the spec's ``fixture_full`` hook, as the contract types it
