"""Write a run's answers in each benchmark's official submission / scorer input format.

``temporal-tasks export --benchmark B SAMPLES... --out DIR`` reads lmms-eval ``--log_samples``
files of our tasks and writes the files the official scorer reads. Each benchmark declares its
exporter as the ``export`` hook of its spec (``temporal_tasks/benchmarks/<name>/export.py``, whose
docstrings describe the formats); this module holds what they share and the dispatcher.

Text answers are exported raw: the official scorers parse them, so the numbers match a run in
official parser mode (``TEMPORAL_TASKS_PARSER=official``, or ``temporal-tasks rescore --parser official``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from temporal_tasks.benchmarks import Benchmark, registered
from temporal_tasks.errors import DataError
from temporal_tasks.rescore import find_sample_files
from temporal_tasks.samples import line_payload

__all__ = ["exporters", "export", "official_response", "payloads_with_docs", "question_payloads", "write_jsonl"]


def question_payloads(lines: Iterable[dict]) -> list[dict]:
    """One payload per sample line, answer included (see :mod:`temporal_tasks.samples`)."""
    return [payload for payload, _doc in payloads_with_docs(lines)]


def payloads_with_docs(lines: Iterable[dict]) -> list[tuple[dict, dict]]:
    """``(payload, logged doc)`` per sample line; the doc is ``{}`` where the line has none (lmms-eval 0.7.3)."""
    out = []
    for line in lines:
        payload = line_payload(line)  # lean lines: the answer comes back from filtered_resps
        if payload is not None:
            doc = line.get("doc")
            out.append((payload, doc if isinstance(doc, dict) else {}))
    return out


def official_response(answer: str) -> str:
    """The raw answer, except that an empty one becomes a single space.

    Vinoground's and TemporalBench's scorers take ``response[0]``: an empty string raises there
    (TemporalBench stops; Vinoground skips the rest of the pair, so a right video answer would be
    lost). A space is just as wrong under the first-character rule and scores the same as our run.
    """
    return answer if answer else " "


def write_jsonl(path: Path, records: list[dict]) -> Path:
    """Write ``records`` as JSON lines (UTF-8, non-ASCII kept) into ``path``, creating its folder."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8") as fh:
        for rec in records:
            fh.write(json.dumps(rec, ensure_ascii=False) + "\n")
    return path


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

    The benchmark's ``export`` hook gets the samples files of its own tasks (task -> file) and the folder.
    """
    available = exporters()
    if benchmark not in available:
        raise DataError(f"no exporter for {benchmark!r}; available: {sorted(available)}")
    spec = available[benchmark]
    files = find_sample_files(samples)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    return spec.hook("export")(_tasks_of(files, spec), out)
