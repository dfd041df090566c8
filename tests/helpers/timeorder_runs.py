"""Run folders written by hand as lmms-eval writes them (a samples file per task, payloads from the task's own
``process_results``; a results JSON with each task's provenance), from known answers to TimeBlind's questions: what
the ``timeorder`` and report tests pair."""

from __future__ import annotations

import json
from pathlib import Path

MAIN = "timeblind_iacc"
TASKS = {"main": MAIN, "blind": f"{MAIN}_blind", "single_frame": f"{MAIN}_single_frame",
         "shuffled": f"{MAIN}_shuffled"}  # fmt: skip
FLIP = {"yes": "No", "no": "Yes", "A": "B", "B": "A"}


def docs() -> list[dict]:
    """The questions of the main task (TimeBlind, from TEMPORAL_TASKS_DATA_DIR)."""
    from temporal_tasks.tools.samples import docs_of_task

    return docs_of_task(MAIN)


def answers(questions: list[dict], right: set[int]) -> dict[str, str]:
    """Every question of the groups (TimeBlind instances) in ``right`` answered right; in the others, one wrong."""
    out, flipped = {}, set()
    for d in questions:
        group = int(str(d["group_id"]).rsplit("/", 1)[1])
        wrong = group not in right and group not in flipped
        flipped |= {group} if wrong else set()
        out[d["question_id"]] = FLIP[d["gold"]] if wrong else d["gold"]
    return out


def record(task: str, n: int | None = 8, **changes) -> dict:
    """A provenance record of ``task`` at N = ``n``; ``changes``: ``field__sub=value`` overrides."""
    variant = next((v for v in ("blind", "single_frame", "shuffled") if task.endswith(v)), None)
    out = {
        "version": 1, "task": task, "reading": "robust",
        "frames": {"n": n, "source": "--model_args max_num_frames", "applies_to": "model"}, "paired_layout": None,
        "data": {"kind": "local", "path": "/data", "annotations_sha256": "a" * 64, "videos_sha256": "b" * 64},
        "shortcut": None if variant is None else {"variant": variant, "seed_version": "1"},
        "cut": {"limit": None, "offset": 0},
    }  # fmt: skip
    for dotted, value in changes.items():
        *path, last = dotted.split("__")
        where = out
        for part in path:
            where = where[part]
        where[last] = value
    return out


def write_run(
    folder: Path,
    answers: dict[str, dict[str, str | list[str]]],
    *,
    stamp: str = "20261201_101010",
    model: str = "temporal_replay",
    records: dict[str, dict] | None = None,
    values: dict[str, dict[str, float]] | None = None,
) -> Path:
    """A run as lmms-eval writes it: a samples file per task (payloads from the task's own ``process_results``) and
    a results JSON holding each task's provenance record (``records``, default :func:`record`) and its reported
    ``values``."""
    from temporal_tasks.harness.task_configs import resolve_function, task_config

    folder.mkdir(parents=True, exist_ok=True)
    questions = docs()
    configs = {}
    for task, given in answers.items():
        process_results = resolve_function(task_config(task)["process_results"])
        with open(folder / f"{stamp}_samples_{task}.jsonl", "w", encoding="utf-8") as fh:
            for i, doc in enumerate(questions):
                answer = given[doc["question_id"]]  # a list: the k answers of a --repeats k run
                results = answer if isinstance(answer, list) else [answer]
                line = {"doc_id": i, "target": doc["gold"], "filtered_resps": answer, **process_results(doc, results)}
                fh.write(json.dumps(line) + "\n")
        configs[task] = {"metadata": {"provenance": (records or {}).get(task) or record(task)}}
    reported = {
        task: {"alias": task, **{f"{k},none": v for k, v in vals.items()}} for task, vals in (values or {}).items()
    }
    results = {"results": reported, "configs": configs, "config": {"model": model, "model_args": "responses=x"}}
    (folder / f"{stamp}_results.json").write_text(json.dumps(results), encoding="utf-8")
    return folder
