"""Vinoground: the official scorer (``get_score_all.py``) transcribed with its two readings, and an answer set with
its numbers by hand."""

from __future__ import annotations

import csv
import json
from pathlib import Path

from temporal_tasks.answers.parsing import get_parser

# ----------------------------------------------------------------------------- official oracle


def official_get_score_all(root: Path, answers: dict[str, str], parse) -> dict[str, float]:
    """Independent transcription of the official ``get_score_all.py`` on the files in ``root``.

    For csv row i the pair's text items are ``text_json[2i], text_json[2i+1]`` (and the same for
    video); an item is right when ``parse(response) == GT`` (officially: the first character,
    compared case-insensitively). text = both text items right, video = both video items right,
    group = both; categories are ``["all", major] + minor.split(";")``. Percent over pairs.
    """
    rows = list(csv.DictReader(open(root / "vinoground.csv", encoding="utf-8")))
    text = json.loads((root / "vinoground_textscore.json").read_text())
    video = json.loads((root / "vinoground_videoscore.json").read_text())
    count: dict[str, int] = {}
    right = {"text": {}, "video": {}, "group": {}}
    for i, row in enumerate(rows):
        cats = ["all", row["major"], *row["minor"].split(";")]

        def ok(item, kind):
            return parse(answers.get(f"{item['idx']}_{kind}", "")) == item["GT"].lower()

        t = ok(text[2 * i], "text") and ok(text[2 * i + 1], "text")
        v = ok(video[2 * i], "video") and ok(video[2 * i + 1], "video")
        for c in cats:
            count[c] = count.get(c, 0) + 1
            for name, value in (("text", t), ("video", v), ("group", t and v)):
                right[name][c] = right[name].get(c, 0) + int(value)
    out = {}
    for name in ("text", "video", "group"):
        for c, n in count.items():
            if c:
                key = f"{name}_score" if c == "all" else f"{name}_score_{c}"
                out[key] = 100.0 * right[name][c] / n
    return out


def official_first_char(response: str) -> str:
    """The official reading: the first character, lower-cased."""
    return response[:1].lower()


def robust_parse(response: str) -> str | None:
    """Our robust reading, lower-cased as the official scorer compares."""
    label = get_parser("first_char_ab").parse(response, "robust")
    return None if label is None else label.lower()


# Fixture gold: text 0:B,B 1:A,B 2:A,A 3:B,A; video 0:A,A 1:B,A 2:B,B 3:A,B (pos, neg).
ANSWERS = {
    "0_pos_text": "B", "0_neg_text": "b", "0_pos_video": "A", "0_neg_video": "A.",  # pair 0 all right
    "1_pos_text": "A", "1_neg_text": "B", "1_pos_video": "A", "1_neg_video": "A",  # video pos wrong
    "2_pos_text": "B", "2_neg_text": "A", "2_pos_video": "B", "2_neg_video": "B",  # text pos wrong
    "3_pos_text": "(B)",  # official: '(' -> invalid, wrong; robust: B, right
    "3_neg_text": "a",  # both: A, right
    "3_pos_video": "",  # both: invalid, wrong
    "3_neg_video": "Answer: B",  # official: first char 'A' -> wrong; robust: B, right
}  # fmt: skip


# By hand. Pair 0 (action; interaction, cyclical): text, video, group right. Pair 1 (object): text only.
# Pair 2 (viewpoint; contextual): video only. Pair 3 (action; spatial): official nothing right; robust text
# right (video has the empty answer). Invalid answers: official "(B)" and "" (2/16); robust "" (1/16).
EXPECTED = {
    "official": {
        "text_score": 50.0, "video_score": 50.0, "group_score": 25.0, "invalid_rate": 12.5,
        "text_score_action": 50.0, "video_score_action": 50.0, "group_score_action": 50.0,
        "text_score_object": 100.0, "video_score_object": 0.0, "group_score_object": 0.0,
        "text_score_viewpoint": 0.0, "video_score_viewpoint": 100.0, "group_score_viewpoint": 0.0,
        "text_score_interaction": 100.0, "video_score_interaction": 100.0, "group_score_interaction": 100.0,
        "text_score_cyclical": 100.0, "video_score_cyclical": 100.0, "group_score_cyclical": 100.0,
        "text_score_spatial": 0.0, "video_score_spatial": 0.0, "group_score_spatial": 0.0,
        "text_score_contextual": 0.0, "video_score_contextual": 100.0, "group_score_contextual": 0.0,
    },
    "robust": {
        "text_score": 75.0, "video_score": 50.0, "group_score": 25.0, "invalid_rate": 6.25,
        "text_score_action": 100.0, "video_score_action": 50.0, "group_score_action": 50.0,
        "text_score_object": 100.0, "video_score_object": 0.0, "group_score_object": 0.0,
        "text_score_viewpoint": 0.0, "video_score_viewpoint": 100.0, "group_score_viewpoint": 0.0,
        "text_score_interaction": 100.0, "video_score_interaction": 100.0, "group_score_interaction": 100.0,
        "text_score_cyclical": 100.0, "video_score_cyclical": 100.0, "group_score_cyclical": 100.0,
        "text_score_spatial": 100.0, "video_score_spatial": 0.0, "group_score_spatial": 0.0,
        "text_score_contextual": 0.0, "video_score_contextual": 100.0, "group_score_contextual": 0.0,
    },
}  # fmt: skip


PARSE = {"official": official_first_char, "robust": robust_parse}


def official_scores(root: Path, mode: str) -> dict[str, float]:
    """The official scores of :data:`ANSWERS` on the copy under ``root``, read in ``mode``."""
    return official_get_score_all(root / "vinoground", ANSWERS, PARSE[mode])
