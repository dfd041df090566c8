"""Vinoground's official-format export: the response files ``get_score_all.py`` reads."""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

from temporal_tasks.api import ExportHook
from temporal_tasks.harness.kit import DataError, write_jsonl

_ID = re.compile(r"^(?P<pair>\d+)_(?P<side>pos|neg)_(?P<kind>text|video)$")


def export(answers: Mapping[str, list[tuple[dict, dict]]], out: Path) -> list[Path]:
    """``<task>/textscore-response.jsonl`` and ``<task>/videoscore-response.jsonl`` per task.

    Official ``get_score_all.py --results DIR`` treats every folder of ``DIR`` as a model and reads
    ``idx`` (``"<pair>_pos"``/``"<pair>_neg"``, the dataset JSONs' key) and ``response`` from each
    line. ``question_id`` and ``gold`` are extra keys it ignores. A task without text (video)
    questions gets no text (video) file; the official scorer needs both, so it skips such a folder.
    Every answer is written as given, an empty one too: the official scorer raises on it and skips the
    rest of its pair, as our official reading does, so it gives the run's official numbers.
    """
    written = []
    for task, lines in answers.items():
        kinds: dict[str, list[tuple[int, int, dict]]] = {"text": [], "video": []}
        for p, _doc in lines:
            if p.get("answer_missing"):
                continue  # no line: get_score_all.py raises on it and skips the rest of the pair, as on ""
            m = _ID.match(str(p["question_id"]))
            if m is None:
                raise DataError(f"{task}: question_id {p['question_id']!r} is not '<pair>_<pos|neg>_<text|video>'.")
            rec = {
                "idx": f"{m['pair']}_{m['side']}",
                "response": p["answer"],
                "question_id": p["question_id"],
                "gold": p["gold"],
            }
            kinds[m["kind"]].append((int(m["pair"]), m["side"] != "pos", rec))
        for kind, recs in kinds.items():
            if recs:
                recs.sort(key=lambda r: r[:2])  # the JSONs' order: 0_pos, 0_neg, 1_pos, ...
                path = out / task / f"{kind}score-response.jsonl"
                written.append(write_jsonl(path, [r for *_, r in recs]))
    return written


_EXPORT: ExportHook = export  # the spec's ``export`` hook, as the contract types it
