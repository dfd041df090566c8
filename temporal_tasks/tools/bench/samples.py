"""The samples-file rows of ``temporal-tasks bench``: bytes per question of each main task's ``--log_samples`` file
on full-size data, written by lmms-eval's own writer."""

from __future__ import annotations

from pathlib import Path

from temporal_tasks.data.fixtures import write_fixtures
from temporal_tasks.harness.doc_hooks import doc_to_target, doc_to_text
from temporal_tasks.harness.task_configs import resolve_function, task_config
from temporal_tasks.tools.samples import docs_of_task

SAMPLES_KB_LIMIT = 2.5  # KB per question of a samples file, empty answers; with long answers plus two copies
SAMPLE_TASKS = (
    "timeblind_iacc", "vinoground_group", "temporalbench_short_mba", "temporalbench_long_mba",
    "velociti_strictvle", "velociti_mc",
)  # fmt: skip


def samples_bytes_per_question(task: str, answer: str, work: Path, data: Path) -> float:
    """Bytes per question of ``task``'s ``--log_samples`` file, written by lmms-eval's own writer.

    Each line is built as lmms-eval 0.7.3's evaluator builds it (``_process_document_results``: doc, target,
    arguments, resps, filtered_resps, token counts, doc hash, then our ``process_results`` keys) for every
    question of the data under ``data`` (archives extracted into ``work/cache``), all answering ``answer``, and
    saved with ``EvaluationTracker.save_results_samples``.
    """
    from lmms_eval.loggers.evaluation_tracker import EvaluationTracker

    docs = docs_of_task(task, data, work / "cache")
    process_results = resolve_function(task_config(task)["process_results"])
    gen = {"max_new_tokens": 32, "do_sample": False, "temperature": 0, "until": ["\n\n"]}
    samples = []
    for i, doc in enumerate(docs):
        samples.append(
            {
                "doc_id": i, "doc": doc, "target": doc_to_target(doc), "arguments": [doc_to_text(doc), gen],
                "resps": [[answer]], "filtered_resps": [answer], "token_counts": [None],
                "doc_hash": "0" * 64, **process_results(doc, [answer]),
            }
        )  # fmt: skip
    out = work / f"samples_{task}_{len(answer)}"
    tracker = EvaluationTracker(output_path=str(out))
    tracker.general_config_tracker.model_name_sanitized = "bench"
    tracker.date_id = "bench"
    tracker.save_results_samples(task, samples)
    (written,) = out.rglob(f"*_samples_{task}.jsonl")
    return written.stat().st_size / len(docs)


def bench_samples(
    work: Path, tasks: tuple[str, ...] = SAMPLE_TASKS, answer_chars: int = 2000, *, full: bool = True
) -> dict:
    """``samples_kb_per_question``: the worst task's bytes per question (KB) on full-size data, empty answers;
    ``samples_kb_per_question_long``: with ``answer_chars``-character answers, less two copies of the answer.

    ``full=False`` measures the small fixtures instead: a quick check that the row works, not the target's figure.
    """
    data = work / ("full_data" if full else "small_data")
    write_fixtures(data, sorted({t.split("_")[0] for t in tasks}), full=full)
    empty = {t: samples_bytes_per_question(t, "", work, data) / 1000 for t in tasks}
    long = "x" * answer_chars
    extra = {t: (samples_bytes_per_question(t, long, work, data) - 2 * answer_chars) / 1000 for t in tasks}
    worst, worst_long = max(empty, key=lambda t: empty[t]), max(extra, key=lambda t: extra[t])
    return {
        "samples_kb_per_question": empty[worst], "samples_worst_task": worst,
        "samples_kb_per_question_long": extra[worst_long], "samples_worst_task_long": worst_long,
        "samples_kb_by_task": {t: round(v, 3) for t, v in empty.items()}, "samples_data": "full" if full else "small",
    }  # fmt: skip
