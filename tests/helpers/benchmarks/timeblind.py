"""TimeBlind: the official scorer (``build_answers`` + ``get_scores``) transcribed, the rows of a copy, answer sets,
and the predictions file its ``evaluate.py`` writes."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

from temporal_tasks.answers.parsing import get_parser

# ----------------------------------------------------------------------------- official oracle


def official_get_scores(labels: dict[int, int]) -> dict[str, float]:
    """Independent transcription of TimeBlind's official ``build_answers`` + ``get_scores``.

    ``labels`` maps row index -> 1 (yes/A), 0 (no/B) or -1 (unreadable). Gold is positional
    (1,0,0,1); an incomplete group is all -1 and still counts in N. Returned as percentages.
    """
    groups: dict[int, dict[int, int]] = defaultdict(dict)
    for index, value in labels.items():
        groups[index // 4][index % 4] = value
    n = len(groups)
    q = v = b = i = 0
    for g in groups.values():
        if len(g) != 4:
            g = {0: -1, 1: -1, 2: -1, 3: -1}
        q0i0, q0i1, q1i0, q1i1 = g[0], g[1], g[2], g[3]
        video = (q0i0 == 1 and q1i0 == 0) + (q1i1 == 1 and q0i1 == 0)
        question = (q0i0 == 1 and q0i1 == 0) + (q1i1 == 1 and q1i0 == 0)
        v += video
        q += question
        b += (q0i0 == 1) + (q0i1 == 0) + (q1i0 == 0) + (q1i1 == 1)
        i += question == 2 and video == 2
    return {
        "trial_acc": 100 * b / (4 * n),
        "question_acc": 100 * q / (2 * n),
        "video_acc": 100 * v / (2 * n),
        "instance_acc": 100 * i / n,
    }


def official_labels(rows: list[dict], answers: dict[str, str], mode: str) -> dict[int, int]:
    """Parse each answer as the given mode would, mapped to the official 1/0/-1 convention."""
    out = {}
    for row in rows:
        kind = "timeblind_yes_no" if row["type"] == "yes_no" else "timeblind_mc"
        label = get_parser(kind).parse(answers.get(str(row["index"]), ""), mode)
        out[row["index"]] = {"yes": 1, "A": 1, "no": 0, "B": 0}.get(label, -1)
    return out


# Fixture: instances 0,1 yes/no (gold yes,no,no,yes), 2,3 MC (gold A,B,B,A).
CLEAN = {
    "0": "Yes", "1": "No.", "2": "no", "3": "yes",  # instance 0 all right
    "4": "Yes", "5": "Yes", "6": "No", "7": "Yes",  # instance 1: trial q0_v1 wrong
    "8": "A", "9": "(B)", "10": "The answer is B.", "11": "",  # instance 2: q1_v1 empty
    "12": "B", "13": "A", "14": "A", "15": "B",  # instance 3 all wrong
}  # fmt: skip


# By hand: trials 4+3+3+0 = 10/16; question units 2+1+1+0 = 4/8; video units 2+1+1+0 = 4/8;
# instances 1/4; invalid 1/16. Categories (fixture tags.json): direction = instances {0,3} -> 1/2, ...
CLEAN_EXPECTED = {
    "trial_acc": 62.5, "question_acc": 50.0, "video_acc": 50.0, "instance_acc": 25.0, "invalid_rate": 6.25,
    "instance_acc_direction": 50.0, "instance_acc_event_attribute": 50.0, "instance_acc_state_transition": 0.0,
    "instance_acc_event": 0.0, "instance_acc_temporal_relation": 0.0, "instance_acc_structural_event_logic": 0.0,
    "instance_acc_yes_no": 50.0, "instance_acc_multiple_choice": 0.0,
}  # fmt: skip

# Answers on which the two modes disagree (each noted with both readings).
TRICKY = dict(
    CLEAN,
    **{
        "0": "There is no doubt, so yes",  # official: first word "no" -> wrong; robust: "no doubt" is no answer -> yes
        "8": "<think>Option B is wrong</think> A",  # official: 'Option B' -> wrong; robust: A -> right
        "12": "I would say a",  # official: article 'a' -> A -> right; robust: invalid
        "13": "<|begin_of_box|>B<|end_of_box|>",  # both: B -> right
    },
)


def data_rows(root: Path) -> list[dict]:
    """The rows of the copy under ``root`` (``root/timeblind/data.jsonl``)."""
    return [json.loads(x) for x in (root / "timeblind" / "data.jsonl").read_text().splitlines()]


def rewrite_data_rows(root: Path, edit) -> None:
    """Rewrite the copy's ``data.jsonl`` in ``root`` with ``edit(rows)``."""
    rows = [json.loads(x) for x in (root / "data.jsonl").read_text().splitlines()]
    rows = edit(rows)
    (root / "data.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))


TIMEBLIND_SUFFIX = {"yes_no": " Please output Yes or No.", "multiple_choice": " Please output A or B."}


def official_predictions(rows: list[dict], outputs: dict[int, str | None]) -> list[dict]:
    """What TimeBlind's evaluate.py writes: index, video_path, question (with the suffix), model_output."""
    return [
        {
            "index": r["index"],
            "video_path": r["video_path"],
            "question": r["question"] + TIMEBLIND_SUFFIX[r["type"]],
            "model_output": outputs[r["index"]],
        }  # fmt: skip
        for r in rows
        if r["index"] in outputs
    ]
