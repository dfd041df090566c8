"""Bring a benchmark's official answer files into our runs: ``temporal-tasks import``, the inverse of ``export``.

``temporal-tasks import --benchmark B FILE... --out DIR`` reads answer files written by the benchmark's
own evaluation scripts (or by our ``export``), maps every answer to one of our questions and writes

* ``DIR/responses.jsonl``: a ``temporal_replay`` responses file (``{"task", "question_id", "response"}``
  lines, or ``"loglikelihood"`` for probability scores), and
* ``DIR/import.json``: the record of the source: each file's name, sha256 and the format recognised, and
  per task the counts of what could not be mapped cleanly.

Nothing is dropped silently: answers with no question of ours (unknown ids), second answers to one
question (duplicates: the first is kept), null outputs (kept as empty answers: unreadable, as the official
scorers read them) and questions without an answer (the ``--score`` run gives them no answer at all, which the
official reading scores as the official scorer scores a missing line: docs/results.md) are counted, printed and
kept in the record. A file of another benchmark or format stops with the file and the fields expected.

Each benchmark declares its reader as the ``importer`` hook of its spec
(``temporal_tasks/benchmarks/<name>/importer.py``, whose docstrings describe the formats); this module
holds the file reading, the accounting, the record and ``--score`` (one lmms-eval run of ``temporal_replay``
on the imported answers; the provenance record of that run says the answers were imported).
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import subprocess
import sys
from collections.abc import Iterable
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from temporal_tasks.api.contracts import Answer, FileImport, SourceFile
from temporal_tasks.api.registry import Benchmark, registered
from temporal_tasks.base import settings
from temporal_tasks.base.errors import DataError
from temporal_tasks.base.files import write_jsonl
from temporal_tasks.harness.task_configs import our_tasks
from temporal_tasks.tools.samples import docs_of_task

__all__ = ["Context", "import_answers", "importers", "read_source", "score", "summary_lines"]

RECORD_VERSION = 1
RESPONSES = "responses.jsonl"
RECORD = "import.json"
ANSWER_SUFFIXES = (".json", ".jsonl", ".csv")
EXAMPLES = 5  # ids shown per problem in the record and the printed summary


class Context:
    """What an ``importer`` hook may ask for (:class:`~temporal_tasks.api.contracts.ImportContext`): the docs of a
    task (loaded once) and the other files given."""

    def __init__(self, spec: Benchmark, sources: list[SourceFile]) -> None:
        self.spec = spec
        self.sources = sources
        self._docs: dict[str, list[dict]] = {}

    def docs(self, task: str) -> list[dict]:
        """The docs of ``task`` as its ``process_docs`` builds them (data from TEMPORAL_TASKS_DATA_DIR or the Hub)."""
        if task not in self._docs:
            self._docs[task] = docs_of_task(task)
        return self._docs[task]

    def is_task(self, name: str) -> bool:
        """Whether ``name`` is one of this benchmark's tasks (not a group)."""
        return self.spec.owns_task(name) and our_tasks().get(name, ("", None))[0] == "task"


# --------------------------------------------------------------------------- reading files


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def read_source(path: str | Path) -> SourceFile:
    """Read a JSON list, a JSON-lines file or a CSV file (by content; CSV by the ``.csv`` suffix)."""
    path = Path(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise DataError(f"{path}: cannot be read ({exc.strerror}).") from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise DataError(f"{path}: not UTF-8 text; expected a JSON, JSON-lines or CSV answer file.") from None
    if not text.strip():
        raise DataError(f"{path}: the file is empty; expected the answers the official script wrote.")
    if path.suffix.lower() == ".csv":
        reader = csv.DictReader(io.StringIO(text, newline=""))
        rows = [dict(r) for r in reader]
        if not reader.fieldnames:
            raise DataError(f"{path}: a CSV file without a header row.")
        return SourceFile(path, "csv", rows, _sha256(raw))
    try:
        whole = json.loads(text)
    except json.JSONDecodeError:
        whole = None
    if isinstance(whole, list):
        bad = [i for i, r in enumerate(whole) if not isinstance(r, dict)]
        if bad:
            raise DataError(f"{path}: item {bad[0]} of the JSON list is not an object; expected one object per answer.")
        return SourceFile(path, "json list", whole, _sha256(raw))
    rows = []
    for lineno, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except json.JSONDecodeError as exc:
            raise DataError(
                f"{path}:{lineno}: not valid JSON ({exc.msg}); expected a JSON list or one JSON object per line."
            ) from None
        if not isinstance(rec, dict):
            raise DataError(f"{path}:{lineno}: not a JSON object; expected one answer object per line.")
        rows.append(rec)
    return SourceFile(path, "json lines", rows, _sha256(raw))


def answer_files(paths: Iterable[str | Path]) -> list[Path]:
    """The files named, folders expanded to the ``.json``/``.jsonl``/``.csv`` files under them (sorted)."""
    out: list[Path] = []
    for p in paths:
        p = Path(p)
        if p.is_dir():
            found = sorted(f for f in p.rglob("*") if f.is_file() and f.suffix.lower() in ANSWER_SUFFIXES)
            if not found:
                raise DataError(f"{p}: no .json, .jsonl or .csv file in this folder.")
            out.extend(found)
        elif p.is_file():
            out.append(p)
        else:
            raise DataError(f"{p}: no such file or folder.")
    return list(dict.fromkeys(out))


# --------------------------------------------------------------------------- mapping and accounting


def importers() -> dict[str, Benchmark]:
    """The benchmarks that declare an ``importer`` hook, by name (the ``--benchmark`` choices)."""
    return {name: spec for name, spec in registered().items() if spec.importer is not None}


def _examples(items: list[str]) -> list[str]:
    return items[:EXAMPLES]


def _line(answer: Answer) -> dict:
    rec: dict[str, Any] = {"task": answer.task, "question_id": answer.question_id}
    if answer.loglikelihood is not None:
        rec["loglikelihood"] = answer.loglikelihood
    else:
        rec["response"] = answer.response if answer.response is not None else ""
    return rec


def _account(ctx: Context, imports: list[tuple[SourceFile, FileImport]]) -> tuple[list[dict], dict]:
    """Replay lines (one per answered question) and, per task, the counts of what did not map cleanly."""
    tasks = sorted({a.task for _src, fi in imports for a in fi.answers})
    lines: list[dict] = []
    counts: dict[str, dict] = {}
    for task in tasks:
        docs = ctx.docs(task)
        known = {str(d["question_id"]): d for d in docs}
        kept: dict[str, Answer] = {}
        unknown, duplicates, conflicting, nulls = [], [], [], []
        for src, fi in imports:
            for a in (a for a in fi.answers if a.task == task):
                where = f"{src.path.name}: {a.key}"
                if a.question_id is None or a.question_id not in known:
                    unknown.append(where)
                elif a.question_id in kept:
                    duplicates.append(where)
                    first = kept[a.question_id]
                    if (first.response, first.loglikelihood) != (a.response, a.loglikelihood):
                        conflicting.append(where)
                else:
                    kept[a.question_id] = a
                    if a.response is None and a.loglikelihood is None:
                        nulls.append(where)
        missing = [qid for qid in known if qid not in kept]
        incomplete = sorted({str(known[q]["group_id"]) for q in missing})
        counts[task] = {
            "questions": len(known),
            "answered": len(kept),
            "unknown": len(unknown),
            "duplicates": len(duplicates),
            "conflicting_duplicates": len(conflicting),
            "null": len(nulls),
            "missing": len(missing),
            "groups": len({str(d["group_id"]) for d in docs}),
            "incomplete_groups": len(incomplete),
            "examples": {
                name: _examples(items)
                for name, items in (
                    ("unknown", unknown),
                    ("duplicates", duplicates),
                    ("null", nulls),
                    ("missing", missing),
                    ("incomplete_groups", incomplete),
                )  # fmt: skip
                if items
            },
        }
        # doc order, so the responses file reads like the benchmark
        lines.extend(_line(kept[str(d["question_id"])]) for d in docs if str(d["question_id"]) in kept)
    return lines, counts


def _check_mapped(src: SourceFile, fi: FileImport, ctx: Context) -> None:
    """A file none of whose answers is one of our questions is the wrong benchmark or data: stop."""
    if not fi.answers:
        raise DataError(f"{src.path}: no answers in this {fi.format} file.")
    for task in {a.task for a in fi.answers}:
        known = {str(d["question_id"]) for d in ctx.docs(task)}
        if not any(a.question_id in known for a in fi.answers if a.task == task):
            keys = [a.key for a in fi.answers if a.task == task][:3]
            raise DataError(
                f"{src.path}: none of its {len(fi.answers)} answers ({fi.format}; e.g. {keys}) is a question of "
                f"{task}: the file is of another benchmark or split, or the data is not the one the answers were "
                "made on."
            )


def import_answers(
    benchmark: str, files: Iterable[str | Path], out_dir: str | Path, *, num_frames: int | None = None
) -> dict:
    """Import ``benchmark``'s answer files into ``out_dir``; returns the record (also written to ``import.json``)."""
    available = importers()
    if benchmark not in available:
        raise DataError(f"no importer for {benchmark!r}; available: {sorted(available)}")
    if num_frames is not None and num_frames < 1:
        raise DataError(f"--num-frames {num_frames}: give the number of frames the answers were made with (>= 1).")
    spec = available[benchmark]
    sources = [read_source(p) for p in answer_files(files)]
    ctx = Context(spec, sources)
    read = spec.required_hook("importer")
    imports = []
    for src in sources:
        fi = read(src, ctx)
        _check_mapped(src, fi, ctx)
        imports.append((src, fi))
    lines, counts = _account(ctx, imports)
    out = Path(out_dir)
    responses = write_jsonl(out / RESPONSES, lines)
    record = {
        "version": RECORD_VERSION,
        "benchmark": spec.name,
        "imported_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "num_frames": num_frames,
        "files": [
            {
                "path": str(src.path.resolve()),
                "name": src.path.name,
                "sha256": src.sha256,
                "format": fi.format,
                "records": len(src.records),
                "answers": len(fi.answers),
                "notes": fi.notes,
                "tasks": sorted({a.task for a in fi.answers}),
            }  # fmt: skip
            for src, fi in imports
        ],
        "tasks": counts,
        "responses": RESPONSES,
        "responses_sha256": _sha256(responses.read_bytes()),
    }
    (out / RECORD).write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return record


def summary_lines(record: dict) -> list[str]:
    """What ``import`` prints: the files and formats, then per task what was answered and what was not."""
    out = [f"{f['name']} (sha256 {f['sha256'][:12]}): {f['format']}, {f['answers']} answers" for f in record["files"]]
    out += [f"  note: {n}" for f in record["files"] for n in f["notes"]]
    for task, c in record["tasks"].items():
        out.append(
            f"{task}: {c['answered']} of {c['questions']} questions answered; {c['unknown']} unknown ids, "
            f"{c['duplicates']} duplicates ({c['conflicting_duplicates']} conflicting; first kept), {c['null']} null "
            f"outputs (scored as unreadable), {c['missing']} without an answer ({c['incomplete_groups']} of "
            f"{c['groups']} groups incomplete)"
        )
        out += [f"  {name}: {', '.join(map(str, ex))}" for name, ex in c["examples"].items()]
    return out


# --------------------------------------------------------------------------- provenance and scoring


def score_command(
    out_dir: str | Path, *, parser: str | None = None, extra_args: Iterable[str] = ()
) -> tuple[list[str], dict[str, str], Path]:
    """The lmms-eval run that scores an import's answers: (command, environment, results folder).

    The tasks are those the answers were imported for; the data is TEMPORAL_TASKS_DATA_DIR or the Hub, as
    for any run. ``parser`` sets TEMPORAL_TASKS_PARSER (the answer reading) for the run.
    """
    out = Path(out_dir).resolve()
    record = json.loads((out / RECORD).read_text(encoding="utf-8"))
    for path in (out / RESPONSES, out / RECORD):
        if "," in str(path):  # --model_args is split at commas
            raise DataError(f"{path}: the path holds a comma, which --model_args cannot carry; use another --out.")
    results = out / "results"
    cmd = [
        sys.executable, "-m", "lmms_eval", "--model", "temporal_replay",
        "--model_args", f"responses={out / RESPONSES},imported={out / RECORD}",
        "--tasks", ",".join(record["tasks"]), "--batch_size", "1", "--output_path", str(results), "--log_samples",
        *extra_args,
    ]  # fmt: skip
    env = settings.child_environment({settings.ENV_PARSER: parser} if parser else None)
    return cmd, env, results


def score(out_dir: str | Path, *, parser: str | None = None, extra_args: Iterable[str] = ()) -> Path:
    """Run lmms-eval with ``temporal_replay`` on an import's answers (:func:`score_command`); returns the results
    folder."""
    cmd, env, results = score_command(out_dir, parser=parser, extra_args=extra_args)
    print(f"[import] running: {' '.join(cmd)}", flush=True)
    proc = subprocess.run(cmd, env=env)
    if proc.returncode != 0 or not list(results.rglob("*_results.json")):
        raise DataError(f"lmms-eval did not score the imported answers (exit code {proc.returncode}; see above).")
    return results
