"""Write a run's answers in each benchmark's official submission / scorer input format.

``temporal-tasks export --benchmark B SAMPLES... --out DIR`` reads lmms-eval ``--log_samples``
files of our tasks and writes the files the official scorer reads. Adding a benchmark is one
function in ``EXPORTERS``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from pathlib import Path

from temporal_tasks.data import DataError
from temporal_tasks.rescore import find_sample_files, read_samples


def question_payloads(lines: Iterable[dict]) -> list[dict]:
    """One payload per sample line (the same payload sits under every metric key of the line)."""
    out = []
    for line in lines:
        for value in line.values():
            if isinstance(value, dict) and "question_id" in value and "group_id" in value:
                out.append(value)
                break
    return out


def _tasks_of(files: dict[str, Path], prefix: str) -> dict[str, Path]:
    picked = {t: f for t, f in files.items() if t.startswith(prefix)}
    if not picked:
        raise DataError(f"no samples of a {prefix}* task among {sorted(files)}; run lmms-eval with --log_samples.")
    return picked


def export_timeblind(files: dict[str, Path], out: Path) -> list[Path]:
    """``timeblind_predictions.json``: the list of ``{index, type, model_output}`` official ``get_scores`` reads."""
    written = []
    for task, file in _tasks_of(files, "timeblind").items():
        preds = []
        for p in question_payloads(read_samples(file)):
            kind = "yes_no" if p["parser"] == "timeblind_yes_no" else "multiple_choice"
            preds.append({"index": int(p["question_id"]), "type": kind, "model_output": p["answer"]})
        preds.sort(key=lambda r: r["index"])
        path = out / f"{task}_predictions.json"
        path.write_text(json.dumps(preds, indent=1, ensure_ascii=False), encoding="utf-8")
        written.append(path)
    return written


EXPORTERS: dict[str, Callable[[dict[str, Path], Path], list[Path]]] = {
    "timeblind": export_timeblind,
}


def export(benchmark: str, samples: Iterable[str | Path], out_dir: str | Path) -> list[Path]:
    """Export ``benchmark``'s answers from samples files into ``out_dir``; returns the files written."""
    if benchmark not in EXPORTERS:
        raise DataError(f"no exporter for {benchmark!r}; available: {sorted(EXPORTERS)}")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    return EXPORTERS[benchmark](find_sample_files(samples), out)
