"""TemporalBench's official-format export: the ``{"idx", "response"}`` lines its scorers read."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from pathlib import Path

from temporal_tasks.api import ExportHook
from temporal_tasks.harness.kit import DataError, official_response, write_jsonl


def export(answers: Mapping[str, list[tuple[dict, dict]]], out: Path) -> list[Path]:
    """``temporalbench_<part>/<task>.jsonl``: the ``{"idx", "response"}`` lines official scorers read.

    ``get_qa_acc.py --data_json temporalbench_short_qa.json --output_folder DIR`` scores every file
    of ``DIR/temporalbench_short_qa/`` (likewise ``long_qa``; ``get_captioning_score.py`` reads
    ``DIR/temporalbench_short_caption/``). ``video_name`` (the MBA group) and ``gold`` are extra keys.
    Caption answers are written verbatim (the similarity scorer accepts an empty one).
    """
    written = []
    for task, lines in answers.items():
        parts: dict[str, list[dict]] = defaultdict(list)
        for p, doc in lines:
            caption = p.get("role") == "caption"
            if p.get("answer_missing") and not caption:
                continue  # no line: get_qa_acc.py counts only the questions its file has one for
            part = "short_caption" if caption else p.get("part") or doc.get("part")
            if part not in ("short_qa", "long_qa", "short_caption"):
                raise DataError(f"{task}: cannot tell whether {p['question_id']!r} is short or long QA (no 'part').")
            rec = {"idx": p["question_id"], "response": p["answer"] if caption else official_response(p["answer"])}
            if not caption:
                rec["video_name"] = p["group_id"]
            rec["gold"] = p["gold"]
            parts[part].append(rec)
        for part, recs in parts.items():
            written.append(write_jsonl(out / f"temporalbench_{part}" / f"{task}.jsonl", recs))
    return written


_EXPORT: ExportHook = export  # the spec's ``export`` hook, as the contract types it
