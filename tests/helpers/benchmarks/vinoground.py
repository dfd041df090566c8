"""Vinoground: the official scorer (``get_score_all.py``) transcribed, our robust reading on the same pairs, answer
sets with their numbers by hand, and answers of every kind in every position of a pair."""

from __future__ import annotations

import csv
import itertools
import json
from collections.abc import Mapping
from pathlib import Path

from temporal_tasks.answers.parsing import get_parser

# ----------------------------------------------------------------------------- official oracle

MISSING = object()  # an answer left out of the response files (no line with its idx)


def _read_copy(root: Path) -> tuple[list, list, list]:
    with open(root / "vinoground.csv", encoding="utf-8") as fh:
        vino = list(csv.reader(fh))[1:]
    text_gt = json.loads((root / "vinoground_textscore.json").read_text())
    video_gt = json.loads((root / "vinoground_videoscore.json").read_text())
    return vino, text_gt, video_gt


def _keys(category_all: dict, counts: dict[str, dict]) -> dict[str, float]:
    out = {}
    for name in ("text", "video", "group"):
        for cat, n in category_all.items():
            key = f"{name}_score" if cat == "all" else f"{name}_score_{cat}"
            out[key] = 100.0 * counts[name][cat] / n
    return out


def official_get_score_all(root: Path, answers: Mapping[str, object]) -> dict[str, float]:
    """Independent transcription of ``get_score_all.py`` (github Vinoground/Vinoground, last changed in 2602b94e,
    unchanged at HEAD 1543a2a1), one model, on the copy in ``root``; percentages, unrounded (it prints ``:.2f``).

    ``answers`` maps ``<idx>_text`` / ``<idx>_video`` (``idx`` = ``"<pair>_pos|neg"``) to the raw ``response`` of
    the official response files: a string, a list (the Qwen scripts'), None, ...; a key left out is a line missing
    from the file. The control flow is the official one: for csv row i the pair is ``json[2i], json[2i+1]`` (pos,
    neg); its categories are counted first, then ``text(pos) and text(neg)`` (``and`` short-circuits), then the same
    for video, each answer read as ``response[0][:len(GT)].lower() == GT.lower()`` (the ``if "qwen" or ...``
    branch is always taken), all in one ``try`` whose bare ``except: continue`` skips the rest of the pair: an
    empty, missing or non-string answer that is reached raises, and a text one costs the pair its video credit.
    """
    vino, text_gt_data, video_gt_data = _read_copy(root)
    text_pred2content = {k.removesuffix("_text"): v for k, v in answers.items() if k.endswith("_text")}
    video_pred2content = {k.removesuffix("_video"): v for k, v in answers.items() if k.endswith("_video")}
    for pred2content in (text_pred2content, video_pred2content):
        for idx in [k for k, v in pred2content.items() if v is MISSING]:
            del pred2content[idx]

    def get_text_correct_wrong(item: dict) -> bool:
        gt = item["GT"]
        return text_pred2content[item["idx"]][0][: len(gt)].lower() == gt.lower()  # type: ignore[index]

    def get_video_correct_wrong(item: dict) -> bool:
        gt = item["GT"]
        return video_pred2content[item["idx"]][0][: len(gt)].lower() == gt.lower()  # type: ignore[index]

    text_gt_pair_data = [[text_gt_data[2 * i], text_gt_data[2 * i + 1]] for i in range(len(text_gt_data) // 2)]
    video_gt_pair_data = [[video_gt_data[2 * i], video_gt_data[2 * i + 1]] for i in range(len(video_gt_data) // 2)]
    category_all: dict[str, int] = {}
    counts: dict[str, dict[str, int]] = {"text": {}, "video": {}, "group": {}}
    for i in range(len(text_gt_pair_data)):
        try:
            categories = ["all", vino[i][1]]
            categories.extend(vino[i][2].split(";"))
            if categories[-1] == "":
                categories.pop(-1)
            for cat in categories:
                if cat not in category_all:
                    category_all[cat] = 0
                    for name in counts:
                        counts[name][cat] = 0
            is_curr_right = True
            pos, neg = text_gt_pair_data[i]
            for cat in categories:
                category_all[cat] += 1
            if get_text_correct_wrong(pos) and get_text_correct_wrong(neg):
                for cat in categories:
                    counts["text"][cat] += 1
            else:
                is_curr_right = False
            pos, neg = video_gt_pair_data[i]
            if get_video_correct_wrong(pos) and get_video_correct_wrong(neg):
                for cat in categories:
                    counts["video"][cat] += 1
            else:
                is_curr_right = False
            if is_curr_right:
                for cat in categories:
                    counts["group"][cat] += 1
        except Exception:  # noqa: BLE001 - the official bare ``except: continue``
            continue
    return _keys(category_all, counts)


def robust_scores(root: Path, answers: Mapping[str, object]) -> dict[str, float]:
    """Our robust reading on the same pairs and categories: each answer read by the robust parser (an empty,
    missing or non-string answer is unreadable, wrong), nothing skipped."""
    vino, text_gt, video_gt = _read_copy(root)
    category_all: dict[str, int] = {}
    counts: dict[str, dict[str, int]] = {"text": {}, "video": {}, "group": {}}

    def ok(item: dict, kind: str) -> bool:
        value = answers.get(f"{item['idx']}_{kind}", "")
        return robust_parse(value if isinstance(value, str) else "") == item["GT"].lower()

    for i, row in enumerate(vino):
        cats = ["all", row[1], *[c for c in row[2].split(";") if c]]
        t = ok(text_gt[2 * i], "text") and ok(text_gt[2 * i + 1], "text")
        v = ok(video_gt[2 * i], "video") and ok(video_gt[2 * i + 1], "video")
        for c in cats:
            category_all[c] = category_all.get(c, 0) + 1
            for name, value in (("text", t), ("video", v), ("group", t and v)):
                counts[name][c] = counts[name].get(c, 0) + int(value)
    return _keys(category_all, counts)


def robust_parse(response: str) -> str | None:
    """Our robust reading, lower-cased as the official scorer compares."""
    label = get_parser("first_char_ab").parse(response, "robust")
    return None if label is None else label.lower()


# Answers of every kind, for every position of a pair: the gold letter, the other letter, empty, unreadable, a
# first character that is the gold letter inside free text, null, and missing.
KINDS = ("right", "wrong", "empty", "unreadable", "first_char", "null", "missing")


def answer_of(kind: str, gold: str) -> object:
    """The raw answer of ``kind`` to a question whose gold letter is ``gold``."""
    other = "B" if gold == "A" else "A"
    return {"right": gold, "wrong": other.lower(), "empty": "", "unreadable": "(" + gold + ")",
            "first_char": f"{gold}nswer: {other}", "null": None, "missing": MISSING}[kind]  # fmt: skip


def every_pair_pattern() -> list[tuple[str, str, str, str]]:
    """Every assignment of :data:`KINDS` to a pair's four answers (pos_text, neg_text, pos_video, neg_video)."""
    return list(itertools.product(KINDS, repeat=4))


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


def official_scores(root: Path, mode: str, answers: Mapping[str, object] = ANSWERS) -> dict[str, float]:
    """The scores of ``answers`` (default :data:`ANSWERS`) on the copy under ``root``: ``official``, the official
    script's; ``robust``, our robust reading's."""
    score = official_get_score_all if mode == "official" else robust_scores
    return score(root / "vinoground", answers)
