"""TemporalBench answers from the official pipeline (or our export); ``idx`` is our question id.

Format: the prediction files the official scorers read, ``OUT/temporalbench_short_qa/<name>.jsonl`` (likewise
``temporalbench_long_qa``; ``temporalbench_short_caption`` for ``get_captioning_score.py``): one
``{"idx": ..., "response": ...}`` line per question. A list response gives its first element. Our export
adds ``video_name`` and ``gold``: they must agree with our doc.

The task is the file's name where it is one of our TemporalBench tasks (our export's ``<task>.jsonl``), else
the folder's part: ``short_qa`` -> ``temporalbench_short_mba``, ``long_qa`` -> ``temporalbench_long_mba``,
``short_caption`` -> ``temporalbench_caption_sim``; else the ``idx`` prefix (``short_video/``, ``long_video/``).
"""

from __future__ import annotations

from temporal_tasks.api import Answer, FileImport, ImportContext, ImporterHook, SourceFile
from temporal_tasks.harness.kit import DataError, first_response

from . import NAME

PART_TASKS = {
    f"{NAME}_short_qa": f"{NAME}_short_mba",
    f"{NAME}_long_qa": f"{NAME}_long_mba",
    f"{NAME}_short_caption": f"{NAME}_caption_sim",
}
_PREFIX_TASKS = {"short_video/": f"{NAME}_short_mba", "long_video/": f"{NAME}_long_mba"}
_EXPECTED = (
    "one {'idx': ..., 'response': ...} object per line, in temporalbench_short_qa/, temporalbench_long_qa/ or "
    "temporalbench_short_caption/ (the folders get_qa_acc.py and get_captioning_score.py read)"
)


def _task_of(source: SourceFile, ctx: ImportContext) -> str:
    if ctx.is_task(source.path.stem):
        return source.path.stem
    if source.path.parent.name in PART_TASKS:
        return PART_TASKS[source.path.parent.name]
    first = str(source.records[0].get("idx", ""))
    for prefix, task in _PREFIX_TASKS.items():
        if first.startswith(prefix):
            return task
    raise DataError(
        f"{source.path}: cannot tell which TemporalBench part this file answers: put it in a folder named "
        f"{' / '.join(PART_TASKS)} (the layout the official scorers read), or name it after one of our tasks."
    )


def read(source: SourceFile, ctx: ImportContext) -> FileImport:
    """Map one TemporalBench prediction file to our question ids; see the module docstring."""
    if source.kind == "csv" or not {"idx", "response"} <= source.fields:
        raise source.wrong_format(NAME, _EXPECTED)
    task = _task_of(source, ctx)
    docs = {str(d["question_id"]): d for d in ctx.docs(task)}
    answers, wrong, lists = [], [], 0
    for rec in source.records:
        idx = rec.get("idx")
        response, was_list = first_response(rec.get("response"))
        lists += was_list
        qid = str(idx) if idx is not None else None
        doc = docs.get(qid or "")
        if doc is not None:
            if "video_name" in rec and str(rec["video_name"]) != str(doc["group_id"]):
                wrong.append(f"idx {idx!r}: video_name {rec['video_name']!r} (ours: {doc['group_id']!r})")
            if "gold" in rec and rec["gold"] != doc["gold"]:
                wrong.append(f"idx {idx!r}: gold {str(rec['gold'])[:40]!r} (ours: {str(doc['gold'])[:40]!r})")
        answers.append(Answer(task, f"idx {idx!r}", qid, response))
    if wrong:
        raise DataError(
            f"{source.path}: {len(wrong)} answer(s) disagree with our {task} questions, e.g. {' | '.join(wrong[:3])}. "
            "The file was made on other TemporalBench data; import it against the data it was made on."
        )
    notes = [f"{lists} response(s) were lists: the first element is the answer"] if lists else []
    official = not ({"video_name", "gold"} & source.fields)
    part = source.path.parent.name if source.path.parent.name in PART_TASKS else task
    fmt = f"TemporalBench {part} predictions" + (" (official scorer input)" if official else " (our export)")
    return FileImport(fmt, answers, notes)


_IMPORTER: ImporterHook = read  # the spec's ``importer`` hook, as the contract types it
