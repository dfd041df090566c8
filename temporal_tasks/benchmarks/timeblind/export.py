"""TimeBlind's official-format export: ``<task>_predictions.json`` for the official ``get_scores``."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

from temporal_tasks.api import ExportHook
from temporal_tasks.harness.kit import DataError

# The official ``type`` of a question, by the parser our task read it with.
_TYPES = {"timeblind_yes_no": "yes_no", "timeblind_mc": "multiple_choice"}


def export(answers: Mapping[str, list[tuple[dict, dict]]], out: Path) -> list[Path]:
    """``<task>_predictions.json`` per task: the ``{index, type, model_output}`` list official ``get_scores`` reads."""
    written = []
    for task, lines in answers.items():
        preds = []
        for p, _doc in lines:
            if p.get("answer_missing"):
                continue  # no line, as the official evaluate.py has none for a question it did not answer
            qid = p.get("question_id")
            kind = _TYPES.get(str(p.get("parser")))
            if kind is None:
                raise DataError(
                    f"{task}: question {qid!r} was not read by a TimeBlind answer parser (parser "
                    f"{p.get('parser')!r}); export takes the --log_samples files of timeblind_* generate tasks."
                )
            if not str(qid).isdigit():
                raise DataError(f"{task}: question_id {qid!r} is not TimeBlind's integer index; was the file edited?")
            preds.append({"index": int(str(qid)), "type": kind, "model_output": p["answer"]})
        preds.sort(key=lambda r: r["index"])
        path = out / f"{task}_predictions.json"
        path.write_text(json.dumps(preds, indent=1, ensure_ascii=False), encoding="utf-8")
        written.append(path)
    return written


_EXPORT: ExportHook = export  # the spec's ``export`` hook, as the contract types it
