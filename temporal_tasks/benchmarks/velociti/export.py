"""VELOCITI's official-format export: one CSV per test in the columns its scorers read."""

from __future__ import annotations

import csv
from collections import defaultdict
from collections.abc import Mapping
from pathlib import Path

from temporal_tasks.api import ExportHook
from temporal_tasks.benchmarks.velociti.loader import _event, read_annotations
from temporal_tasks.benchmarks.velociti.parsers import official_mc, official_yes_no
from temporal_tasks.harness.kit import DataError, benchmark_data, settings

from . import NAME

_UNREADABLE = "[unreadable]"


def _mc_cell(answer: str) -> str:
    """The answer for metrics.py's ``gt_A``/``gt_B``: raw if its first token is A or B, else a placeholder.

    ``mcq`` calls ``ans.split()[0]``: an empty answer raises, and pandas turns cells such as ``""``,
    ``NA`` or ``1`` into floats that have no ``split``. Every other answer is invalid there anyway,
    so a fixed non-A/B placeholder scores the same; the raw text stays in ``response_A``/``response_B``.
    """
    return answer if official_mc(answer) is not None else _UNREADABLE


def _closed_label(answer: str) -> str:
    return {"yes": "Yes", "no": "No"}.get(official_yes_no(answer) or "", "error")


def _kind(payload: dict) -> str:
    if "p_yes" in payload:
        return "prob"
    return "mc" if payload.get("parser") == "velociti_mc" else "closed"


def _cells(kind: str, members: dict[str, dict]) -> dict[str, object]:
    if kind == "prob":
        # an undefined score is an empty cell: pandas reads NaN, which fails every comparison (wrong, as in our run)
        return {"pos_score": members["pos"]["p_yes"], "neg_score": members["neg"]["p_yes"]}
    if kind == "closed":
        pos, neg = members["pos"]["answer"], members["neg"]["answer"]
        labels = {"pos_pred": _closed_label(pos), "neg_pred": _closed_label(neg)}
        return labels | {"pos_response": pos, "neg_response": neg}
    a, b = members["posA"]["answer"], members["posB"]["answer"]
    return {"gt_A": _mc_cell(a), "gt_B": _mc_cell(b), "response_A": a, "response_B": b}


def _table() -> list[dict] | None:
    """The annotation rows of the offline copy (``TEMPORAL_TASKS_DATA_DIR``), or None.

    lmms-eval 0.7.3 does not log the doc, and our payloads carry the row and test but not the
    video or captions. Only an offline copy is consulted (never a download), and only its table:
    the videos need not be on the exporting machine.
    """
    if settings.data_dir() is None:
        return None
    try:
        rows, _where = read_annotations(benchmark_data(NAME))
    except (DataError, OSError):
        return None
    return rows


def _meta(row: int, test: str, doc: dict, table: list[dict] | None) -> dict[str, object]:
    """``row, video_id, test_name, event, pos, neg``: from the logged doc, else the table, else empty."""
    meta: dict[str, object] = {"row": row, "video_id": "", "test_name": test, "event": "", "pos": "", "neg": ""}
    if doc.get("video_id"):
        meta.update(video_id=doc["video_id"], event=doc.get("event", ""))
    elif table is not None and row < len(table) and table[row].get("test_name") == test:
        # the test name must agree, or the table is not the one the run used

        r = table[row]
        meta.update(video_id=str(r["video_id"]).strip(), event=_event(r["event"]), pos=r["pos"], neg=r["neg"])
    return meta


def export(answers: Mapping[str, list[tuple[dict, dict]]], out: Path) -> list[Path]:
    """``<task>/<test_name>.csv``: one row per annotation row, in the columns VELOCITI's scorers read.

    - ``velociti_strictvle_prob*``: ``pos_score``, ``neg_score`` = e(V, C+), e(V, C-) for
      ``metrics.py --eval_type entail`` (StrictVLE, ClassicVLE); an undefined score is left empty.
    - ``velociti_strictvle*`` (generated answers): ``pos_pred``, ``neg_pred`` = ``Yes``/``No``/``error``
      by the closed-model rule, for ``gemini/closed_model_metrics.py --eval_type entail``; the raw
      answers are in ``pos_response``, ``neg_response``.
    - ``velociti_mc*``: ``gt_A`` (C+ is option A) and ``gt_B`` (C+ is option B) for ``--eval_type mcq``;
      raw answers in ``response_A``, ``response_B``.

    Every file starts with ``row`` (0-based table row), ``video_id``, ``test_name``, ``event`` and
    the captions ``pos``/``neg``; all but ``row`` and ``test_name`` come from the offline copy's table
    (``TEMPORAL_TASKS_DATA_DIR``) and are empty without it. Only ``pos_score``, ``neg_score``,
    ``pos_pred``, ``neg_pred``, ``gt_A``, ``gt_B`` are names the official scripts read; the rest are ours.
    The scripts name each result by the file name, so a folder holds one task's tests only. Rows whose
    two questions are not both in the samples (e.g. ``--limit``) are left out, as our metrics do.
    """
    written = []
    table = None
    for task, lines in answers.items():
        rows: dict[int, dict[str, tuple[dict, dict]]] = defaultdict(dict)
        kinds = set()
        for p, doc in lines:
            kinds.add(_kind(p))
            rows[int(str(p["group_id"]).rsplit("/", 1)[-1])][p["role"]] = (p, doc)
        if len(kinds) != 1:
            raise DataError(f"{task}: mixes answer kinds {sorted(kinds)}; expected one VELOCITI task's samples.")
        (kind,) = kinds
        if table is None:
            table = _table() or []
        roles = ("posA", "posB") if kind == "mc" else ("pos", "neg")
        per_test: dict[str, list[dict]] = defaultdict(list)
        for row, members in sorted(rows.items()):
            if set(members) != set(roles):
                continue
            payload, doc = members[roles[0]]
            test = payload.get("test") or doc.get("test_name") or payload["categories"][0]
            record = _meta(row, test, doc, table)
            record.update(_cells(kind, {r: m[0] for r, m in members.items()}))
            per_test[test].append(record)
        for test, records in sorted(per_test.items()):
            path = out / task / f"{test}.csv"
            path.parent.mkdir(parents=True, exist_ok=True)
            with open(path, "w", encoding="utf-8", newline="") as fh:
                writer = csv.DictWriter(fh, fieldnames=list(records[0]))
                writer.writeheader()
                writer.writerows(records)  # floats as repr(): pandas reads back the exact value
            written.append(path)
    return written


_EXPORT: ExportHook = export  # the spec's ``export`` hook, as the contract types it
