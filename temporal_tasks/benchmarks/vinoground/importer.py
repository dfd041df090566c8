"""Vinoground answers from the official pipeline (or our export), mapped to ``<pair>_<pos|neg>_<text|video>``.

Format: the response files ``get_score_all.py --results DIR`` reads, ``DIR/<model>/textscore-response.jsonl``
and ``videoscore-response.jsonl``: one ``{"idx": "<pair>_pos" | "<pair>_neg", "response": ...}`` line per
question. The kind (text or video) comes from the file name, which must start with ``textscore`` or
``videoscore`` (the per-model scripts write ``textscore-frame{n}-response.jsonl``). A list response (the
Qwen scripts write ``[text]``) gives its first element, as the scorer's ``response[0]`` does. Our export adds
``question_id`` and ``gold``: they must agree with our doc.

The task is the folder's name where it is one of our Vinoground tasks (our export's layout); otherwise
``vinoground_group`` when text and video answers are both given, else ``vinoground_text`` / ``vinoground_video``.
"""

from __future__ import annotations

import re

from temporal_tasks.api import Answer, FileImport, ImportContext, ImporterHook, SourceFile
from temporal_tasks.harness.kit import DataError, first_response

from . import NAME

_FILE = re.compile(r"^(?P<kind>text|video)score.*\.jsonl?$")
_IDX = re.compile(r"^(?P<pair>\d+)_(?P<side>pos|neg)$")
_EXPECTED = (
    "textscore-response.jsonl / videoscore-response.jsonl files (the names get_score_all.py reads) with "
    "one {'idx': '<pair>_pos|neg', 'response': ...} object per line"
)


def _task_of(kind: str, source: SourceFile, ctx: ImportContext) -> str:
    folder = source.path.parent.name
    if ctx.is_task(folder):
        return folder
    other = "video" if kind == "text" else "text"
    if any(
        (m := _FILE.match(s.path.name)) and m["kind"] == other and not ctx.is_task(s.path.parent.name)
        for s in ctx.sources
    ):
        return f"{NAME}_group"
    return f"{NAME}_{kind}"


def read(source: SourceFile, ctx: ImportContext) -> FileImport:
    """Map one Vinoground response file to our question ids; see the module docstring."""
    m = _FILE.match(source.path.name)
    if source.kind == "csv" or m is None or not {"idx", "response"} <= source.fields:
        raise source.wrong_format(NAME, _EXPECTED)
    kind = m["kind"]
    task = _task_of(kind, source, ctx)
    docs = {str(d["question_id"]): d for d in ctx.docs(task)}
    answers, wrong, lists = [], [], 0
    for rec in source.records:
        idx = rec.get("idx")
        key = f"idx {idx!r}"
        response, was_list = first_response(rec.get("response"))
        lists += was_list
        qid = f"{idx}_{kind}" if isinstance(idx, str) and _IDX.match(idx) else None
        if qid is not None and qid in docs:
            doc = docs[qid]
            if "question_id" in rec and str(rec["question_id"]) != qid:
                wrong.append(f"{key}: question_id {rec['question_id']!r} in a {kind} file (ours: {qid!r})")
            if "gold" in rec and rec["gold"] != doc["gold"]:
                wrong.append(f"{key}: gold {rec['gold']!r} (ours: {doc['gold']!r})")
        answers.append(Answer(task, key, qid, response))
    if wrong:
        raise DataError(
            f"{source.path}: {len(wrong)} answer(s) disagree with our {task} questions, e.g. {' | '.join(wrong[:3])}. "
            "The file was made on other Vinoground data; import it against the data it was made on."
        )
    notes = [f"{lists} response(s) were lists: the first element is the answer (as response[0])"] if lists else []
    official = "question_id" not in source.fields
    fmt = f"Vinoground {kind}score response file" + (" (get_score_all.py input)" if official else " (our export)")
    return FileImport(fmt, answers, notes)


_IMPORTER: ImporterHook = read  # the spec's ``importer`` hook, as the contract types it
