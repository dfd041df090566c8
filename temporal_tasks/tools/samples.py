"""Reading lmms-eval ``--log_samples`` lines of our tasks back into payloads (rescore, export, report, compare).

A line of a full run holds the question's payload once, under its primary metric key (without the raw
answer), and ``{"same_as": <primary key>}`` under every other metric key it fed (see
:func:`temporal_tasks.scoring.payloads.share`); the answer is lmms-eval's own ``filtered_resps``. Older files with
the whole payload (answer included) under every key read the same way.

A line of a ``--predict_only`` run has no payload (its only metric is lmms-eval's ``bypass``):
:func:`rebuild_lines` rebuilds the payloads from the task's data, after checking that the data are those the
run saw (its provenance record, and each line's target and prompt).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from temporal_tasks.base.errors import DataError
from temporal_tasks.harness.provenance import data_record
from temporal_tasks.harness.task_configs import resolve_function, task_config
from temporal_tasks.harness.task_docs import task_docs
from temporal_tasks.scoring.payloads import SAME_AS
from temporal_tasks.tools.provenance import from_results
from temporal_tasks.tools.runs import read_samples


def answer_of(line: dict) -> str:
    """The answer lmms-eval handed ``process_results`` (``filtered_resps``, else ``resps``), as ``first_answer``."""
    value: Any = line.get("filtered_resps", line.get("resps"))
    while isinstance(value, list):  # [[answer]] / [answer] when lmms-eval did not flatten it
        value = value[0] if value else ""
    return "" if value is None else str(value)


def line_payload(line: dict) -> dict | None:
    """The full payload of one sample line (answer included), or None when the line holds none."""
    for value in line.values():
        if isinstance(value, dict) and "group_id" in value and "question_id" in value:
            if "answer" in value or "parser" not in value:
                return value  # an older file (answer in every copy), or a payload without a text answer
            return {**value, "answer": answer_of(line)}
    return None


def fed_keys(line: dict) -> list[str]:
    """The metric keys this line's question fed (its payload or a ``same_as`` reference)."""
    return [
        k for k, v in line.items() if isinstance(v, dict) and (SAME_AS in v or ("group_id" in v and "question_id" in v))
    ]


def line_payloads(lines: Iterable[dict]) -> list[dict]:
    """The payload of each line that has one."""
    return [p for p in map(line_payload, lines) if p is not None]


def is_predict_only(lines: list[dict]) -> bool:
    """True for lines of a ``--predict_only`` run: answers (``filtered_resps``) but no payload of ours."""
    return (
        bool(lines)
        and all("bypass" in ln or "filtered_resps" in ln for ln in lines)
        and not any(line_payload(ln) for ln in lines)
    )


def results_file_of(samples: Path) -> Path | None:
    """The ``<date>_results.json`` written with ``<date>_samples_<task>.jsonl``, if it is there."""
    stem = samples.name.split("_samples_", 1)[0]
    found = samples.with_name(f"{stem}_results.json")
    return found if found.is_file() else None


def run_provenance(samples: Path, task: str) -> dict | None:
    """The provenance record of ``task`` in the results JSON beside ``samples`` (None if absent)."""
    results = results_file_of(samples)
    if results is None:
        return None
    try:
        data = json.loads(results.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return None
    return from_results(data).get(task)


def docs_of_task(
    task: str, data_dir: str | os.PathLike | None = None, cache_dir: str | os.PathLike | None = None
) -> list[dict]:
    """The docs of ``task`` as its ``process_docs`` builds them (no video built:
    :mod:`temporal_tasks.harness.task_docs`), from the data and cache folders given (default: the settings')."""
    process_docs = resolve_function(task_config(task).get("process_docs"), f"{task}'s process_docs")
    return task_docs(process_docs, task, data_dir, cache_dir)


def rebuild_lines(task: str, lines: list[dict], where: Path, provenance: dict | None) -> list[dict]:
    """Sample lines of a ``--predict_only`` run with the payloads a full run logs (from the task's data).

    The data must be those the run saw: the run's provenance fingerprints (when its results JSON is beside the
    samples) and each line's ``target`` and prompt must match; otherwise a ``DataError`` says what differs.
    """
    docs = docs_of_task(task)
    if provenance is not None:
        now, then = data_record(docs), provenance.get("data") or {}
        for field in ("annotations_sha256", "videos_sha256"):
            if then.get(field) and then[field] != now[field]:
                raise DataError(
                    f"{where}: the {task} data here are not those of the run ({field} {now[field][:12]} here, "
                    f"{then[field][:12]} in the run's provenance). Point TEMPORAL_TASKS_DATA_DIR (or the Hub "
                    f"snapshot) at the data the run used, then rescore again."
                )
    process_results = resolve_function(task_config(task)["process_results"])
    out = []
    bad: list[str] = []
    for lineno, line in enumerate(lines, 1):
        doc_id = line.get("doc_id")
        if not isinstance(doc_id, int) or not 0 <= doc_id < len(docs):
            raise DataError(
                f"{where}:{lineno}: doc_id {doc_id!r} is not one of the {len(docs)} questions of {task} in the "
                "data here; rescore with the data the run used."
            )
        doc = docs[doc_id]
        target, prompt = line.get("target"), line.get("input")
        if (target is not None and str(target) != str(doc["gold"])) or (
            isinstance(prompt, str) and doc.get("prompt") and doc["prompt"] not in prompt
        ):
            bad.append(f"line {lineno} (doc_id {doc_id}, question {doc['question_id']})")
            continue
        value = line.get("filtered_resps", line.get("resps"))
        results = [value] if not isinstance(value, list) else value
        if results and isinstance(results[0], str) or not results:
            results = [answer_of(line)]
        out.append({**line, **process_results(doc, results)})
    if bad:
        raise DataError(
            f"{where}: {len(bad)} line(s) do not match the {task} questions in the data here (target or prompt "
            f"differ), e.g. {', '.join(bad[:3])}. Rescore with the data the run used."
        )
    return out


def scorable_lines(task: str, file: Path) -> tuple[list[dict], dict | None, bool]:
    """``(lines with payloads, the run's provenance or None, predict_only)`` of one samples file.

    A ``--predict_only`` file is rebuilt from the task's data (:func:`rebuild_lines`); a file with no payload
    to score raises a ``DataError`` saying why and what to do.
    """
    lines = read_samples(file)
    record = run_provenance(file, task)
    predict_only = is_predict_only(lines)
    if predict_only:
        lines = rebuild_lines(task, lines, file, record)
    if not any(line_payload(line) for line in lines):
        what = "it is empty" if not lines else "its lines hold neither our payloads nor answers (filtered_resps)"
        raise DataError(
            f"{file}: cannot score {task}: {what}. Pass the *_samples_<task>.jsonl that lmms-eval wrote with "
            "--log_samples (or --predict_only) for this task, unedited."
        )
    return lines, record, predict_only
