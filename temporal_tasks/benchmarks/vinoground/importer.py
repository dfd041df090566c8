"""Vinoground answers from the official pipeline (or our export), mapped to ``<pair>_<pos|neg>_<text|video>``.

Format: the response files ``get_score_all.py --results DIR`` reads, ``DIR/<model>/textscore-response.jsonl``
and ``videoscore-response.jsonl``: one ``{"idx": "<pair>_pos" | "<pair>_neg", "response": ...}`` line per
question. The kind (text or video) comes from the file name, which must start with ``textscore`` or
``videoscore`` (the per-model scripts write ``textscore-frame{n}-response.jsonl``). A list response (the
Qwen scripts write ``[text]``) gives its first element, as the scorer's ``response[0]`` does. A response the
scorer raises on (``response[0]`` of null, a number, an object, an empty list or one that does not start with
text) is imported as null, an empty answer, which skips the rest of its pair in the official reading as there;
a list starting with an empty string, which the scorer reads as a wrong answer without raising, is imported as
its JSON text (``[""]``: unreadable, not empty). Our export adds ``question_id`` and ``gold``: they must agree
with our doc.

The task is the folder's name where it is one of our Vinoground tasks (our export's layout); otherwise
``vinoground_group`` when text and video answers are both given, else ``vinoground_text`` / ``vinoground_video``.
"""

from __future__ import annotations

import json
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


def first_char_read_raises(value: object) -> bool:
    """Whether ``get_score_all.py`` raises reading a response-file value: it takes ``response[0][:len(GT)].lower()``,
    so an empty string, an empty list, a list whose first element is not text, null, a number or an object raise
    (and skip the rest of the pair); text and a list starting with text never do (``[""]`` reads as wrong)."""
    if isinstance(value, str):
        return value == ""
    if isinstance(value, list):
        return not value or not isinstance(value[0], str)
    return True


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
    answers, wrong, lists, raising = [], [], 0, []
    for rec in source.records:
        idx = rec.get("idx")
        key = f"idx {idx!r}"
        raw = rec.get("response")
        response, was_list = first_response(raw)
        lists += was_list
        if first_char_read_raises(raw):
            response = None
            if raw not in ("", None):
                raising.append(key)
        elif response == "":  # [""]: read as a wrong answer, not raised on (an empty answer would skip the pair)
            response = json.dumps(raw)
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
    if raising:
        notes.append(
            f"{len(raising)} response(s) get_score_all.py cannot read (response[0] raises: not text, an empty list or "
            f"one not starting with text; e.g. {raising[:3]}): imported as null, an empty answer"
        )
    official = "question_id" not in source.fields
    fmt = f"Vinoground {kind}score response file" + (" (get_score_all.py input)" if official else " (our export)")
    return FileImport(fmt, answers, notes)


_IMPORTER: ImporterHook = read  # the spec's ``importer`` hook, as the contract types it
