"""Write a run's answers in each benchmark's official submission / scorer input format.

``temporal-tasks export --benchmark B SAMPLES... --out DIR`` reads lmms-eval ``--log_samples``
files of our tasks and writes the files the official scorer reads. Adding a benchmark is one
function in ``EXPORTERS``:

- ``timeblind``: ``<task>_predictions.json`` for ``get_scores``;
- ``vinoground``: ``<task>/textscore-response.jsonl`` + ``videoscore-response.jsonl`` for ``get_score_all.py``;
- ``temporalbench``: ``temporalbench_<part>/<task>.jsonl`` for ``get_qa_acc.py`` / ``get_captioning_score.py``;
- ``velociti``: ``<task>/<test_name>.csv`` for ``metrics.py`` / ``gemini/closed_model_metrics.py``.

Text answers are exported raw: the official scorers parse them, so the numbers match a run in
official parser mode (``TEMPORAL_TASKS_PARSER=official``, or ``temporal-tasks rescore --parser official``).
"""

from __future__ import annotations

import csv
import json
import re
from collections import defaultdict
from collections.abc import Callable, Iterable
from pathlib import Path

from temporal_tasks.data import DataError
from temporal_tasks.rescore import find_sample_files, read_samples


def question_payloads(lines: Iterable[dict]) -> list[dict]:
    """One payload per sample line, answer included (see :mod:`temporal_tasks.samples`)."""
    return [payload for payload, _doc in payloads_with_docs(lines)]


def payloads_with_docs(lines: Iterable[dict]) -> list[tuple[dict, dict]]:
    """``(payload, logged doc)`` per sample line; the doc is ``{}`` where the line has none (lmms-eval 0.7.3)."""
    from temporal_tasks.samples import line_payload

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


def _write_jsonl(path: Path, records: list[dict]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8") as fh:
        for rec in records:
            fh.write(json.dumps(rec, ensure_ascii=False) + "\n")
    return path


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


_VINO_ID = re.compile(r"^(?P<pair>\d+)_(?P<side>pos|neg)_(?P<kind>text|video)$")


def export_vinoground(files: dict[str, Path], out: Path) -> list[Path]:
    """``<task>/textscore-response.jsonl`` and ``<task>/videoscore-response.jsonl`` per Vinoground task.

    Official ``get_score_all.py --results DIR`` treats every folder of ``DIR`` as a model and reads
    ``idx`` (``"<pair>_pos"``/``"<pair>_neg"``, the dataset JSONs' key) and ``response`` from each
    line. ``question_id`` and ``gold`` are extra keys it ignores. A task without text (video)
    questions gets no text (video) file; the official scorer needs both, so it skips such a folder.
    """
    written = []
    for task, file in _tasks_of(files, "vinoground").items():
        kinds: dict[str, list[tuple[int, int, dict]]] = {"text": [], "video": []}
        for p in question_payloads(read_samples(file)):
            m = _VINO_ID.match(str(p["question_id"]))
            if m is None:
                raise DataError(f"{file}: question_id {p['question_id']!r} is not '<pair>_<pos|neg>_<text|video>'.")
            rec = {
                "idx": f"{m['pair']}_{m['side']}",
                "response": official_response(p["answer"]),
                "question_id": p["question_id"],
                "gold": p["gold"],
            }
            kinds[m["kind"]].append((int(m["pair"]), m["side"] != "pos", rec))
        for kind, recs in kinds.items():
            if recs:
                recs.sort(key=lambda r: r[:2])  # the JSONs' order: 0_pos, 0_neg, 1_pos, ...
                path = out / task / f"{kind}score-response.jsonl"
                written.append(_write_jsonl(path, [r for *_, r in recs]))
    return written


def export_temporalbench(files: dict[str, Path], out: Path) -> list[Path]:
    """``temporalbench_<part>/<task>.jsonl``: the ``{"idx", "response"}`` lines official scorers read.

    ``get_qa_acc.py --data_json temporalbench_short_qa.json --output_folder DIR`` scores every file
    of ``DIR/temporalbench_short_qa/`` (likewise ``long_qa``; ``get_captioning_score.py`` reads
    ``DIR/temporalbench_short_caption/``). ``video_name`` (the MBA group) and ``gold`` are extra keys.
    Caption answers are written verbatim (the similarity scorer accepts an empty one).
    """
    written = []
    for task, file in _tasks_of(files, "temporalbench").items():
        parts: dict[str, list[dict]] = defaultdict(list)
        for p, doc in payloads_with_docs(read_samples(file)):
            caption = p.get("role") == "caption"
            part = "short_caption" if caption else p.get("part") or doc.get("part")
            if part not in ("short_qa", "long_qa", "short_caption"):
                raise DataError(f"{file}: cannot tell whether {p['question_id']!r} is short or long QA (no 'part').")
            rec = {"idx": p["question_id"], "response": p["answer"] if caption else official_response(p["answer"])}
            if not caption:
                rec["video_name"] = p["group_id"]
            rec["gold"] = p["gold"]
            parts[part].append(rec)
        for part, recs in parts.items():
            written.append(_write_jsonl(out / f"temporalbench_{part}" / f"{task}.jsonl", recs))
    return written


_UNREADABLE = "[unreadable]"


def _mc_cell(answer: str) -> str:
    """The answer for metrics.py's ``gt_A``/``gt_B``: raw if its first token is A or B, else a placeholder.

    ``mcq`` calls ``ans.split()[0]``: an empty answer raises, and pandas turns cells such as ``""``,
    ``NA`` or ``1`` into floats that have no ``split``. Every other answer is invalid there anyway,
    so a fixed non-A/B placeholder scores the same; the raw text stays in ``response_A``/``response_B``.
    """
    from temporal_tasks.benchmarks.velociti.tasks import official_mc

    return answer if official_mc(answer) is not None else _UNREADABLE


def _closed_label(answer: str) -> str:
    from temporal_tasks.benchmarks.velociti.tasks import official_yes_no

    return {"yes": "Yes", "no": "No"}.get(official_yes_no(answer) or "", "error")


def _velociti_kind(payload: dict) -> str:
    if "p_yes" in payload:
        return "prob"
    return "mc" if payload.get("parser") == "velociti_mc" else "closed"


def _velociti_cells(kind: str, members: dict[str, dict]) -> dict[str, object]:
    if kind == "prob":
        # an undefined score is an empty cell: pandas reads NaN, which fails every comparison (wrong, as in our run)
        return {"pos_score": members["pos"]["p_yes"], "neg_score": members["neg"]["p_yes"]}
    if kind == "closed":
        pos, neg = members["pos"]["answer"], members["neg"]["answer"]
        labels = {"pos_pred": _closed_label(pos), "neg_pred": _closed_label(neg)}
        return labels | {"pos_response": pos, "neg_response": neg}
    a, b = members["posA"]["answer"], members["posB"]["answer"]
    return {"gt_A": _mc_cell(a), "gt_B": _mc_cell(b), "response_A": a, "response_B": b}


def _velociti_table() -> list[dict] | None:
    """The annotation rows of the offline copy (``TEMPORAL_TASKS_DATA_DIR``), or None.

    lmms-eval 0.7.3 does not log the doc, and our payloads carry the row and test but not the
    video or captions. Only an offline copy is consulted (never a download), and only its table:
    the videos need not be on the exporting machine.
    """
    import os

    from temporal_tasks.benchmarks.velociti.tasks import read_annotations
    from temporal_tasks.data import ENV_DATA_DIR, benchmark_data

    if not os.environ.get(ENV_DATA_DIR):
        return None
    try:
        rows, _where = read_annotations(benchmark_data("velociti"))
    except (DataError, OSError):
        return None
    return rows


def _velociti_meta(row: int, test: str, doc: dict, table: list[dict] | None) -> dict[str, object]:
    """``row, video_id, test_name, event, pos, neg``: from the logged doc, else the table, else empty."""
    meta: dict[str, object] = {"row": row, "video_id": "", "test_name": test, "event": "", "pos": "", "neg": ""}
    if doc.get("video_id"):
        meta.update(video_id=doc["video_id"], event=doc.get("event", ""))
    elif table is not None and row < len(table) and table[row].get("test_name") == test:
        # the test name must agree, or the table is not the one the run used
        from temporal_tasks.benchmarks.velociti.tasks import _event

        r = table[row]
        meta.update(video_id=str(r["video_id"]).strip(), event=_event(r["event"]), pos=r["pos"], neg=r["neg"])
    return meta


def export_velociti(files: dict[str, Path], out: Path) -> list[Path]:
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
    for task, file in _tasks_of(files, "velociti").items():
        rows: dict[int, dict[str, tuple[dict, dict]]] = defaultdict(dict)
        kinds = set()
        for p, doc in payloads_with_docs(read_samples(file)):
            kinds.add(_velociti_kind(p))
            rows[int(str(p["group_id"]).rsplit("/", 1)[-1])][p["role"]] = (p, doc)
        if len(kinds) != 1:
            raise DataError(f"{file}: mixes answer kinds {sorted(kinds)}; expected one VELOCITI task's samples.")
        (kind,) = kinds
        if table is None:
            table = _velociti_table() or []
        roles = ("posA", "posB") if kind == "mc" else ("pos", "neg")
        per_test: dict[str, list[dict]] = defaultdict(list)
        for row, members in sorted(rows.items()):
            if set(members) != set(roles):
                continue
            payload, doc = members[roles[0]]
            test = payload.get("test") or doc.get("test_name") or payload["categories"][0]
            record = _velociti_meta(row, test, doc, table)
            record.update(_velociti_cells(kind, {r: m[0] for r, m in members.items()}))
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


EXPORTERS: dict[str, Callable[[dict[str, Path], Path], list[Path]]] = {
    "timeblind": export_timeblind,
    "vinoground": export_vinoground,
    "temporalbench": export_temporalbench,
    "velociti": export_velociti,
}


def export(benchmark: str, samples: Iterable[str | Path], out_dir: str | Path) -> list[Path]:
    """Export ``benchmark``'s answers from samples files into ``out_dir``; returns the files written."""
    if benchmark not in EXPORTERS:
        raise DataError(f"no exporter for {benchmark!r}; available: {sorted(EXPORTERS)}")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    return EXPORTERS[benchmark](find_sample_files(samples), out)
