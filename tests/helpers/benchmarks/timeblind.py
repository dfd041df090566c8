"""TimeBlind: the official scorer (``build_answers`` + ``get_scores``) transcribed, the rows of a copy, answer sets,
and the predictions file its ``evaluate.py`` writes."""

from __future__ import annotations

import json
import re
import unicodedata
from collections import defaultdict
from pathlib import Path

from temporal_tasks.answers.parsing import get_parser

# ----------------------------------------------------------------------------- official oracle
# Independent transcriptions of github Baiqi-Li/TimeBlind ``utils.py`` at HEAD 644fdf4c: ``extract_answer``,
# ``build_answers`` and ``get_scores``, their control flow and exceptions included.


def official_extract_answer(output_string: object, task_type: str = "yes_no") -> int:
    """``extract_answer``: 1 (yes/A), 0 (no/B), -1. An empty or blank output is -1 before anything else; an output
    that is truthy but not a string (a number, a list) raises TypeError in ``unicodedata.normalize``."""
    if not output_string or not str(output_string).strip():
        return -1
    if task_type not in ("yes_no", "multiple_choice"):
        raise ValueError("task_type must be 'yes_no' or 'multiple_choice'")
    text = re.sub(r"\s+", " ", unicodedata.normalize("NFKC", output_string or "")).strip()  # type: ignore[arg-type]
    if task_type == "yes_no":
        for pat in (
            r"(?i)(?:final(?: answer)?|answer|prediction)\s*[:：]\s*(yes|no)\b",
            r"(?i)\b(yes|no)\b(?=[\s\.\,\!\?\)]|$)",
        ):
            m = re.search(pat, text)
            if m:
                return 1 if m.group(1).lower() == "yes" else 0
        return -1
    firsts = (
        r"(?i)(?:final(?: answer)?|answer|prediction)\s*[:：]\s*([AB])\b",
        r"(?i)(?:option|choice)\s*[:：]?\s*([AB])\b",
        r"(?i)[\(\[\{]\s*([AB])\s*[\)\]\}]",
        r"(?i)\b([AB])\s*[\.\)]\b",
    )
    for pat in firsts:
        m = re.search(pat, text)
        if m:
            return 1 if m.group(1).upper() == "A" else 0
    last = r"(?i)(?<![A-Za-z0-9/])([AB])(?![A-Za-z0-9/])"
    keyword = re.search(r"(?i)\b(final(?: answer)?|answer|prediction)\b", text)
    if keyword:
        for piece in (text[: keyword.start()], text[keyword.end() :]):
            m = re.search(last, piece)
            if m:
                return 1 if m.group(1).upper() == "A" else 0
    m = re.search(last, text)
    if m:
        return 1 if m.group(1).upper() == "A" else 0
    return -1


def official_build_answers(predictions: list[dict], dataset: list[dict]) -> dict[str, dict[str, float]]:
    """``build_answers``: predictions grouped by ``index // 4`` (a later prediction of one index replaces an earlier
    one; one without an index is skipped); per instance, inside ``try``, an instance without all four roles, an
    index out of range or an ``extract_answer`` that raises makes the instance all -1 (``except Exception``). An
    instance with no prediction at all is not in the result (nor in N)."""
    sample_groups: dict[int, dict[int, dict]] = {}
    for pred in predictions:
        idx = pred.get("index")
        if idx is None:
            continue
        sample_groups.setdefault(idx // 4, {})[idx % 4] = pred
    max_idx = len(dataset) - 1
    answers = {}
    for sample_id, group in sample_groups.items():
        try:
            if len(group) != 4 or not all(r in group for r in (0, 1, 2, 3)):
                raise ValueError(f"Sample {sample_id} is incomplete")
            indices = [group[r].get("index") for r in (0, 1, 2, 3)]
            if not all(0 <= i <= max_idx for i in indices):
                raise IndexError("Index out of bounds")
            labels = [official_extract_answer(group[r].get("model_output"), dataset[i]["type"])
                      for r, i in zip((0, 1, 2, 3), indices, strict=True)]  # fmt: skip
        except Exception:  # noqa: BLE001 - the official ``except Exception``: the whole instance is -1
            labels = [-1, -1, -1, -1]
        answers[str(sample_id)] = dict(zip(("q0_i0", "q0_i1", "q1_i0", "q1_i1"), map(float, labels), strict=True))
    return answers


def official_get_scores(labels: dict[int, int]) -> dict[str, float]:
    """``build_answers`` + ``get_scores`` on already extracted labels, as percentages.

    ``labels`` maps row index -> 1 (yes/A), 0 (no/B) or -1 (unreadable). Gold is positional
    (1,0,0,1); an incomplete group is all -1 and still counts in N (``get_scores``: N = instances with a
    prediction).
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


def official_scores_of_predictions(predictions: list[dict], dataset: list[dict]) -> dict[str, float]:
    """The official numbers of a predictions file: :func:`official_build_answers`, then ``get_scores``."""
    built = official_build_answers(predictions, dataset)
    labels = {4 * int(sid) + r: int(g[role]) for sid, g in built.items()
              for r, role in enumerate(("q0_i0", "q0_i1", "q1_i0", "q1_i1"))}  # fmt: skip
    return official_get_scores(labels)


def official_labels(rows: list[dict], answers: dict[str, str], mode: str) -> dict[int, int]:
    """Parse each answer with our parser of ``mode``, mapped to the official 1/0/-1 convention (the rule alone; the
    official extraction itself is :func:`official_extract_answer`)."""
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
