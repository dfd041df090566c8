"""Write a run's answers in each benchmark's official submission / scorer input format.

``temporal-tasks export --benchmark B SAMPLES... --out DIR`` reads lmms-eval ``--log_samples``
files of our tasks and writes the files the official scorer reads. Each benchmark declares its
exporter as the ``export`` hook of its spec (``temporal_tasks/benchmarks/<name>/export.py``, whose
docstrings describe the formats); this module holds what they share and the dispatcher.

Text answers are exported raw: the official scorers parse them, so the numbers match a run in
official reading (``TEMPORAL_TASKS_PARSER=official``, or ``temporal-tasks rescore --parser official``).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from temporal_tasks.api.registry import Benchmark, registered
from temporal_tasks.base.errors import DataError
from temporal_tasks.tools.rescore import find_sample_files
from temporal_tasks.tools.runs import read_samples
from temporal_tasks.tools.samples import line_payload

__all__ = ["exporters", "export", "payloads_with_docs"]


def payloads_with_docs(lines: Iterable[dict]) -> list[tuple[dict, dict]]:
    """``(payload, logged doc)`` per sample line; the doc is ``{}`` where the line has none (lmms-eval 0.7.3). A
    question with no answer at all (``answer_missing``: a replayed question without a response) has the answer
    ``""``; an exporter whose official file has a line per answer writes none for it."""
    out = []
    for line in lines:
        payload = line_payload(line)  # lean lines: the answer comes back from filtered_resps
        if payload is not None:
            if payload.get("answer_missing"):
                payload["answer"] = ""
            doc = line.get("doc")
            out.append((payload, doc if isinstance(doc, dict) else {}))
    return out


# The fields every payload our ``process_results`` writes carries, which exporters read without a check of their own.
_PAYLOAD_FIELDS = ("question_id", "group_id", "role", "gold")


def _checked(task: str, file: Path, pairs: list[tuple[dict, dict]]) -> list[tuple[dict, dict]]:
    """``pairs`` unchanged, or a DataError naming the file and question whose payload lacks a field exporters read."""
    for payload, _doc in pairs:
        missing = [name for name in _PAYLOAD_FIELDS if name not in payload]
        if missing:
            raise DataError(
                f"{file}: question {payload.get('question_id')!r} of {task} has no {', '.join(missing)}; export reads "
                "the --log_samples files lmms-eval writes for our tasks as written (re-run with --log_samples)."
            )
    return pairs


def _tasks_of(files: dict[str, Path], spec: Benchmark) -> dict[str, Path]:
    picked = {t: f for t, f in files.items() if spec.owns_task(t)}
    if not picked:
        raise DataError(f"no samples of a {spec.name}* task among {sorted(files)}; run lmms-eval with --log_samples.")
    return picked


def exporters() -> dict[str, Benchmark]:
    """The benchmarks that declare an ``export`` hook, by name (the ``--benchmark`` choices)."""
    return {name: spec for name, spec in registered().items() if spec.export is not None}


def __getattr__(name: str) -> Any:
    # ``EXPORTERS``: the name the CLI imports; computed on use so that late registrations count.
    if name == "EXPORTERS":
        return exporters()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def export(benchmark: str, samples: Iterable[str | Path], out_dir: str | Path) -> list[Path]:
    """Export ``benchmark``'s answers from samples files into ``out_dir``; returns the files written.

    The benchmark's ``export`` hook gets, per task of its own, each samples line's ``(payload, doc)``, and the folder.
    """
    available = exporters()
    if benchmark not in available:
        raise DataError(f"no exporter for {benchmark!r}; available: {sorted(available)}")
    spec = available[benchmark]
    files = find_sample_files(samples)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    answers = {
        task: _checked(task, file, payloads_with_docs(read_samples(file)))
        for task, file in _tasks_of(files, spec).items()
    }
    return spec.required_hook("export")(answers, out)
