"""A tiny ToyBench copy: 4 videos x 2 questions, laid out as its (imaginary) dataset repo."""

from __future__ import annotations

import json
from pathlib import Path

from temporal_tasks.api import FixtureHook
from temporal_tasks.harness import kit

DIRECTIONS = ("left_to_right", "right_to_left", "top_to_bottom", "bottom_to_top")
QUESTIONS = {
    "left_to_right": "Does the square move to the right?",
    "right_to_left": "Does the square move to the left?",
    "top_to_bottom": "Does the square move down?",
    "bottom_to_top": "Does the square move up?",
}
OPPOSITE = {"left_to_right": "right_to_left", "right_to_left": "left_to_right",
            "top_to_bottom": "bottom_to_top", "bottom_to_top": "top_to_bottom"}  # fmt: skip


def write(root: Path) -> Path:
    """Write ``root/toybench/`` (questions.jsonl, videos/) and return it."""
    out = Path(root) / "toybench"
    rows = []
    for pair, direction in enumerate(DIRECTIONS):
        video = f"videos/clip_{pair}.mp4"
        kit.write_video(out / video, kit.moving(direction))
        for role, (asked, answer) in zip(("q0", "q1"), ((direction, "yes"), (OPPOSITE[direction], "no")), strict=True):
            rows.append({"id": f"{pair}_{role}", "video": video, "pair": pair, "role": role,
                         "question": QUESTIONS[asked], "answer": answer, "category": "motion"})  # fmt: skip
    with open(out / "questions.jsonl", "w", encoding="utf-8") as fh:
        fh.writelines(json.dumps(r) + "\n" for r in rows)
    return out


_FIXTURE: FixtureHook = write  # the spec's ``fixture`` hook, as the contract types it
