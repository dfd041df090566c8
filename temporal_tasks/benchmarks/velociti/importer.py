"""VELOCITI answers from the official pipeline (or our export): one CSV per test, mapped to our row questions.

Formats (the kind comes from the columns):

- official ``vidllm_eval.py --eval_type entail`` (``OUT/<model>/<test>.csv``): ``test_name``, ``video_id``,
  ``event``, ``pos_score``, ``neg_score`` = e(V, C+), e(V, C-) -> ``velociti_strictvle_prob``. A score e becomes
  the log-probabilities ``{"Yes": log e, "No": log(1 - e)}``, from which the task computes e again; an empty
  cell is an undefined score (wrong, as in our runs).
- official ``vidllm_eval.py --eval_type mcq``: ``gt_A`` (C+ is option A), ``gt_B`` (C+ is option B), the
  decoded answers -> ``velociti_mc``.
- our export: the same files with ``row`` (the table row) first, ``pos_pred``/``neg_pred`` with the raw
  ``pos_response``/``neg_response`` (closed-model entailment -> ``velociti_strictvle``), and the raw
  ``response_A``/``response_B`` beside ``gt_A``/``gt_B`` (the raw answers are imported where present).

The official files carry no row number: their rows are the test's rows in table order (``data.py`` filters
the table by ``test_name``), so the k-th line of a test is that test's k-th row; ``video_id`` must agree with
our row (a mismatch stops: other data). The task is the folder's name where it is one of our VELOCITI tasks
(our export's layout), else the one the columns name.
"""

from __future__ import annotations

import math
from collections import defaultdict

from temporal_tasks.api import Answer, FileImport, ImportContext, ImporterHook, SourceFile
from temporal_tasks.harness.kit import DataError, finite_or_none

from . import NAME

_KINDS = {  # kind: (default task, roles, columns read per role, raw-answer columns preferred where present)
    "prob": (f"{NAME}_strictvle_prob", ("pos", "neg"), ("pos_score", "neg_score"), None),
    "closed": (f"{NAME}_strictvle", ("pos", "neg"), ("pos_pred", "neg_pred"), ("pos_response", "neg_response")),
    "mc": (f"{NAME}_mc", ("posA", "posB"), ("gt_A", "gt_B"), ("response_A", "response_B")),
}
_EXPECTED = (
    "a CSV per test with test_name, video_id and pos_score, neg_score (vidllm_eval.py --eval_type entail) or "
    "gt_A, gt_B (--eval_type mcq), or our export's columns (row, ..., pos_pred, neg_pred / gt_A, gt_B)"
)


def _kind(fields: set[str]) -> str | None:
    if {"pos_score", "neg_score"} <= fields:
        return "prob"
    if {"gt_A", "gt_B"} <= fields:
        return "mc"
    if {"pos_pred", "neg_pred"} <= fields or {"pos_response", "neg_response"} <= fields:
        return "closed"
    return None


def _stem(video_id: object) -> str:
    return str(video_id or "").strip().split(".")[0]


def _loglikelihood(e: float) -> dict[str, float]:
    """Log-probabilities of Yes and No whose normalised ratio is ``e`` (the task's e(V, C) = p_yes / (p_yes + p_no))."""
    return {
        "Yes": math.log(e) if e > 0 else -math.inf,
        "No": math.log1p(-e) if e < 1 else -math.inf,
    }


def _answer(kind: str, cell: object) -> tuple[str | None, dict | None, bool]:
    """``(response, loglikelihood, out of range)`` of one cell; an empty cell is a null answer."""
    if kind == "prob":
        e = finite_or_none(cell)
        if e is None:
            return None, None, False
        if not 0.0 <= e <= 1.0:
            return None, None, True
        return None, _loglikelihood(e), False
    text = None if cell is None or not str(cell).strip() else str(cell)
    return text, None, False


def read(source: SourceFile, ctx: ImportContext) -> FileImport:
    """Map one VELOCITI per-test CSV to our question ids; see the module docstring."""
    kind = _kind(source.fields) if source.kind == "csv" else None
    if kind is None:
        raise source.wrong_format(NAME, _EXPECTED)
    default_task, roles, columns, raw_columns = _KINDS[kind]
    folder = source.path.parent.name
    task = folder if ctx.is_task(folder) else default_task
    docs = ctx.docs(task)
    by_row: dict[int, dict[str, dict]] = defaultdict(dict)
    for d in docs:
        by_row[int(d["row"])][d["role"]] = d
    rows_of_test: dict[str, list[int]] = defaultdict(list)
    for number in sorted(by_row):
        rows_of_test[next(iter(by_row[number].values()))["test_name"]].append(number)
    if raw_columns is not None and set(raw_columns) <= source.fields:
        columns = raw_columns  # our export: the raw answers, not the labels derived from them
    seen_of_test: dict[str, int] = defaultdict(int)
    answers, wrong, out_of_range = [], [], []
    for lineno, line in enumerate(source.records, 2):  # line 1 is the header
        test = str(line.get("test_name") or source.path.stem).strip()
        given = str(line.get("row") or "").strip()
        if given:
            row = int(given) if given.isdigit() else None
        else:  # official files: the k-th line of a test is its k-th table row
            k = seen_of_test[test]
            seen_of_test[test] += 1
            row = rows_of_test[test][k] if k < len(rows_of_test[test]) else None
        members = by_row.get(row) if row is not None else None
        if members is not None:
            doc = next(iter(members.values()))
            theirs, ours = _stem(line.get("video_id")), _stem(doc["video_id"])
            if doc["test_name"] != test or (theirs and theirs != ours):
                wrong.append(f"line {lineno}: test {test!r}, video_id {theirs!r} (our row {row}: {doc['test_name']!r}, "
                             f"{ours!r})")  # fmt: skip
        for role, column in zip(roles, columns, strict=True):
            response, ll, bad = _answer(kind, line.get(column))
            if bad:
                out_of_range.append(f"line {lineno} {column}")
            qid = str(members[role]["question_id"]) if members and role in members else None
            answers.append(Answer(task, f"{test} line {lineno} {column}", qid, response, ll))
    if wrong:
        raise DataError(
            f"{source.path}: {len(wrong)} line(s) disagree with our VELOCITI rows, e.g. {' | '.join(wrong[:3])}. The "
            "file was made on other VELOCITI data, or its lines are not in table order; import it against the data "
            "it was made on."
        )
    notes = []
    if out_of_range:
        notes.append(f"{len(out_of_range)} score(s) outside [0, 1] kept as null (e.g. {out_of_range[:3]})")
    fmt = {
        "prob": "VELOCITI entailment scores (pos_score, neg_score)",
        "closed": "VELOCITI closed-model entailment answers (pos_pred, neg_pred)",
        "mc": "VELOCITI multiple-choice answers (gt_A, gt_B)",
    }[kind] + (" (our export)" if "row" in source.fields else " (vidllm_eval.py output)")
    return FileImport(fmt, answers, notes)


_IMPORTER: ImporterHook = read  # the spec's ``importer`` hook, as the contract types it
