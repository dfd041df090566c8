"""TimeBlind answers from the official pipeline (or our export), mapped to our question ids (the row ``index``).

Formats (a JSON list of objects, one per trial):

- official ``evaluate.py``'s ``results/predictions.json``: ``index``, ``video_path``, ``question`` (the prompt
  sent, i.e. the question with its "Please output ..." suffix), ``model_output`` (null possible, or a thinking
  model's full text); ``llm_judge.py`` rewrites ``model_output`` in the same shape, and results files such as
  the repository's ``glm_v_timeblind.json`` add keys (``model_name``, ``error``, ``ts``) that are ignored;
- our export's ``<task>_predictions.json``: ``index``, ``type``, ``model_output``.

``video_path``, ``question`` and ``type``, where present, must agree with our doc of that index: a mismatch
means another data release or benchmark, and stops the import naming the file and the fields.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath

from temporal_tasks.api import Answer, FileImport, ImportContext, ImporterHook, SourceFile
from temporal_tasks.harness.kit import DataError

from . import NAME
from .tasks import SUFFIX

MAIN_TASK = "timeblind_iacc"
_EXPORTED = re.compile(r"^(?P<task>.+)_predictions\.json$")
_EXPECTED = (
    "a JSON list of objects with 'index' and 'model_output' (official evaluate.py's results/predictions.json: "
    "index, video_path, question, model_output; or our export's <task>_predictions.json: index, type, model_output)"
)


def _task_of(source: SourceFile, ctx: ImportContext) -> str:
    m = _EXPORTED.match(source.path.name)
    return m["task"] if m and ctx.is_task(m["task"]) else MAIN_TASK


def _mismatches(rec: dict, doc: dict) -> list[str]:
    """The fields of ``rec`` that disagree with our doc of the same index."""
    out = []
    if "video_path" in rec:
        theirs = PurePosixPath(str(rec["video_path"]).replace("\\", "/")).name
        ours = PurePosixPath(str(doc["videos"][0]).replace("\\", "/")).name
        if theirs != ours:
            out.append(f"video_path {rec['video_path']!r} (ours: .../{ours})")
    if "question" in rec:
        # evaluate.py stores the prompt sent (question + suffix); accept the bare question too
        asked = str(rec["question"]).strip()
        bare = doc["prompt"][: -len(SUFFIX[doc["type"]])] if doc["prompt"].endswith(SUFFIX[doc["type"]]) else None
        if asked not in (doc["prompt"].strip(), (bare or "").strip()):
            out.append(f"question {str(rec['question'])[:80]!r} (ours: {doc['prompt'][:80]!r})")
    if "type" in rec and rec["type"] != doc["type"]:
        out.append(f"type {rec['type']!r} (ours: {doc['type']!r})")
    return out


def read(source: SourceFile, ctx: ImportContext) -> FileImport:
    """Map one TimeBlind predictions file to our question ids (``str(index)``); see the module docstring."""
    if source.kind != "json list" or not {"index", "model_output"} <= source.fields:
        raise source.wrong_format(NAME, _EXPECTED)
    official = "video_path" in source.fields or "question" in source.fields
    fmt = (
        "TimeBlind evaluate.py predictions (index, video_path, question, model_output)"
        if official
        else "temporal-tasks export predictions (index, type, model_output)"
    )
    task = _task_of(source, ctx)
    docs = {int(d["index"]): d for d in ctx.docs(task)}
    answers, wrong, bad_output = [], [], []
    for pos, rec in enumerate(source.records):
        idx = rec.get("index")
        key = f"index {idx!r}" if "index" in rec else f"item {pos} (no index)"
        output = rec.get("model_output")
        if output is not None and not isinstance(output, str):
            bad_output.append(key)
            output = None
        if not isinstance(idx, int) or isinstance(idx, bool) or idx not in docs:
            answers.append(Answer(task, key, None, output))
            continue
        problems = _mismatches(rec, docs[idx])
        if problems:
            wrong.append(f"index {idx}: {'; '.join(problems)}")
        answers.append(Answer(task, key, str(idx), output))
    if wrong:
        raise DataError(
            f"{source.path}: {len(wrong)} answer(s) do not match our {task} questions of the same index, e.g. "
            f"{' | '.join(wrong[:3])}. The file was made on other TimeBlind data (or another benchmark); import it "
            "against the data it was made on (TEMPORAL_TASKS_DATA_DIR)."
        )
    notes = []
    if bad_output:
        notes.append(
            f"{len(bad_output)} model_output value(s) are neither text nor null (e.g. {bad_output[:3]}); "
            "kept as null (unreadable)"
        )
    return FileImport(fmt, answers, notes)


_IMPORTER: ImporterHook = read  # the spec's ``importer`` hook, as the contract types it
