"""TimeBlind's official-format export: ``<task>_predictions.json`` for the official ``get_scores``."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

from temporal_tasks.api import ExportHook


def export(answers: Mapping[str, list[tuple[dict, dict]]], out: Path) -> list[Path]:
    """``<task>_predictions.json`` per task: the ``{index, type, model_output}`` list official ``get_scores`` reads."""
    written = []
    for task, lines in answers.items():
        preds = []
        for p, _doc in lines:
            kind = "yes_no" if p["parser"] == "timeblind_yes_no" else "multiple_choice"
            preds.append({"index": int(p["question_id"]), "type": kind, "model_output": p["answer"]})
        preds.sort(key=lambda r: r["index"])
        path = out / f"{task}_predictions.json"
        path.write_text(json.dumps(preds, indent=1, ensure_ascii=False), encoding="utf-8")
        written.append(path)
    return written


_EXPORT: ExportHook = export  # the spec's ``export`` hook, as the contract types it
