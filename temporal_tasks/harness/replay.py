"""``temporal_replay``: an lmms-eval model that answers from a file of recorded responses.

``--model temporal_replay --model_args responses=FILE.jsonl``, one line per question:
``{"question_id": "...", "response": "..."}`` (with ``--repeats k``, ``"response"`` may be a list of k
answers: repeat r gets the r-th) and, for log-likelihood tasks, optionally
``"loglikelihood": {"Yes": -0.1, "No": -2.4}`` (log-probabilities of each continuation).
A line may name its ``"task"``: question ids are unique within a task, not across
benchmarks, so one file can serve several tasks (a task-specific line wins over a plain one).

Uses: score answers collected elsewhere (API batch jobs) through the exact pipeline, and let
tests assert exact metric values through the real CLI.

It reads no visuals, and says so (``reads_visuals = False``, see :func:`temporal_tasks.compat.model_reads_visuals`):
the tasks then build no paired video or shortcut file ahead for it. ``latency_ms=300`` makes it stand in for a
GPU model when measuring a run: each request first gets its visuals (``doc_to_visual``, as a real model does),
then sleeps. ``visuals=true`` (implied by ``latency_ms`` above 0; ``visuals=false`` turns it off) is that reading:
the instance then declares ``reads_visuals = True``, so the tasks build ahead for it as for a GPU model.
``max_num_frames=8`` stands for a real model's frame setting: it is kept as the instance attribute
``max_num_frames`` (as lmms-eval's Qwen models keep theirs), from which the tasks take N.
``order=length`` answers requests longest prompt first, as lmms-eval's Collator orders them for
the simple Qwen/LLaVA models (``order=doc``, the default, keeps lmms-eval's order).
``imported=DIR/import.json`` (set by ``temporal-tasks import --score``) names the record of answers imported
from another pipeline; it is kept as the attribute ``imported``, from which the provenance record says so.
"""

from __future__ import annotations

import json
import math
import time
from pathlib import Path

from lmms_eval.api.model import lmms

from temporal_tasks.base.errors import DataError, exit_run
from temporal_tasks.base.log import logger
from temporal_tasks.compat import loglikelihood_args, request_context, request_doc, request_visuals
from temporal_tasks.scoring.payloads import NO_ANSWER


def read_responses(path: str | Path) -> dict[tuple[str | None, str], dict]:
    """Read a replay file into ``{(task or None, question_id): record}``; a malformed line stops with its number."""
    path = Path(path)
    if not path.is_file():
        raise DataError(f"temporal_replay: responses file {path} does not exist. Fix: pass responses=FILE.jsonl.")
    records: dict[tuple[str | None, str], dict] = {}
    with open(path, encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            if not line.strip():
                continue
            where = f"{path}:{lineno}"
            try:
                rec = json.loads(line)
            except json.JSONDecodeError as exc:
                raise DataError(
                    f"{where}: not valid JSON ({exc.msg}). Each line must be "
                    '{"question_id": "...", "response": "..."}.'
                ) from None
            if not isinstance(rec, dict) or "question_id" not in rec:
                raise DataError(f'{where}: each line must be an object with "question_id" and "response".')
            if "response" not in rec and "loglikelihood" not in rec:
                raise DataError(f'{where}: no "response" (or "loglikelihood") for question {rec["question_id"]!r}.')
            response = rec.get("response")
            if isinstance(response, list):
                if not response or not all(isinstance(r, str | None) for r in response):
                    raise DataError(
                        f'{where}: "response" of question {rec["question_id"]!r} must be a string or a non-empty '
                        "list of strings (one answer per --repeats repeat)."
                    )
            elif "response" in rec and not isinstance(response, str | None):
                raise DataError(f'{where}: "response" must be a string, got {type(rec["response"]).__name__}.')
            ll = rec.get("loglikelihood")
            if ll is not None and (
                not isinstance(ll, dict) or not all(isinstance(v, int | float) for v in ll.values())
            ):
                raise DataError(f'{where}: "loglikelihood" must map continuations to numbers (log-probabilities).')
            task = rec.get("task")
            if task is not None and not isinstance(task, str):
                raise DataError(f'{where}: "task" must be a task name (string).')
            key = (task, str(rec["question_id"]))
            if key in records:
                raise DataError(
                    f"{where}: question_id {key[1]!r}{f' of task {task!r}' if task else ''} appears twice. "
                    "Keep one answer per question."
                )
            records[key] = rec
    return records


def _flag(value: bool | str, name: str) -> bool:
    """A true/false model arg (lmms-eval passes ``true``/``false`` as text, or a bool); a clear stop otherwise."""
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("1", "true", "yes"):
        return True
    if text in ("0", "false", "no"):
        return False
    exit_run(DataError(f"temporal_replay: {name}={value!r}; use {name}=true or {name}=false."))


class TemporalReplay(lmms):
    """Replays recorded answers keyed by our ``question_id``; works with several processes."""

    # Replay never opens a video, so nothing is built ahead for it; an instance that stands in for a GPU model
    # (visuals=true, latency_ms=) reads them and sets its own True.
    reads_visuals: bool = False

    def __init__(
        self,
        responses: str = "",
        device: str = "cpu",
        latency_ms: float = 0.0,
        visuals: bool | str | None = None,
        order: str = "doc",
        max_num_frames: int | str | None = None,
        imported: str = "",
        **kwargs,
    ) -> None:
        super().__init__()
        # A real video model's frame setting, kept as the instance attribute Qwen models use, so tests can
        # check how N is taken from a model instance (``evaluate(lm, ...)``); replay itself reads no frames.
        self.max_num_frames: int | None = None
        if max_num_frames is not None and max_num_frames != "":
            try:
                self.max_num_frames = int(max_num_frames)
            except (TypeError, ValueError):
                exit_run(DataError(f"temporal_replay: max_num_frames={max_num_frames!r} is not a whole number."))
        if not responses:
            exit_run(DataError("temporal_replay: pass --model_args responses=FILE.jsonl (one JSON answer per line)."))
        try:
            self._latency = float(latency_ms) / 1000.0
        except (TypeError, ValueError):
            exit_run(DataError(f"temporal_replay: latency_ms={latency_ms!r} is not a number of milliseconds."))
        if self._latency < 0:
            exit_run(DataError(f"temporal_replay: latency_ms={latency_ms} is negative."))
        if order not in ("doc", "length"):
            exit_run(DataError(f"temporal_replay: order={order!r}; use order=doc or order=length."))
        self._order = order
        # a stand-in for a GPU model gets its visuals like one; plain replay stays instant
        self.reads_visuals = self._latency > 0 if visuals is None else _flag(visuals, "visuals")
        import torch

        try:
            self._records = read_responses(responses)
        except DataError as exc:
            exit_run(exc)  # lmms-eval would swallow a model-construction error and exit 0
        self._path = responses
        self._question_ids: dict[tuple[str, str], tuple[object, list[str]]] = {}
        # answers imported from another pipeline (tools.importer): their source, for the provenance record
        self.imported: dict | None = None
        if imported:
            try:
                self.imported = json.loads(Path(imported).read_text(encoding="utf-8"))
            except (OSError, ValueError) as exc:
                exit_run(DataError(f"temporal_replay: imported={imported} is not a readable import record ({exc})."))
        self._device = torch.device(device)
        self._init_distributed()

    def _init_distributed(self) -> None:
        from accelerate import Accelerator

        accelerator = Accelerator(cpu=self._device.type == "cpu")
        if accelerator.num_processes > 1:
            self.accelerator = accelerator
            self._rank = accelerator.process_index
            self._world_size = accelerator.num_processes

    @property
    def device(self):
        """lmms-eval moves nothing here, but multi-process runs require the attribute."""
        return self._device

    def _doc(self, task: str, split: str, doc_id: int) -> dict:
        return self.task_dict[task][split][doc_id]

    def _question_id(self, task: str, split: str, doc_id: int) -> str:
        docs = self.task_dict[task][split]
        cached = self._question_ids.get((task, split))
        if cached is None or cached[0] is not docs:  # a later evaluation in this process brings new docs
            # one column read per task: a row read decodes every field of the doc (a row of a full-size
            # TemporalBench or VELOCITI task costs more than the rest of a replayed answer)
            column = docs["question_id"] if hasattr(docs, "column_names") else [d["question_id"] for d in docs]
            cached = self._question_ids[(task, split)] = (docs, [str(q) for q in column])
        return cached[1][doc_id]

    def _record(self, task: str, split: str, doc_id: int, missing: list[str]) -> dict | None:
        qid = self._question_id(task, split, doc_id)
        rec = self._records.get((task, qid)) or self._records.get((None, qid))
        if rec is None:
            missing.append(qid)
        return rec

    def _report_missing(self, missing: list[str], what: str, then: str) -> None:
        if missing:
            logger.warning(
                f"temporal_replay: {len(missing)} question(s) have no {what} in {self._path} ({then}), "
                f"e.g. {missing[:5]}"
            )

    def _serve(self, req) -> None:
        """What a real model does before answering: get the visuals, then take ``latency_ms``."""
        if self.reads_visuals:
            doc_id, task, split = request_doc(req)
            request_visuals(req)(self._doc(task, split, doc_id))
        if self._latency:
            time.sleep(self._latency)

    def generate_until(self, requests) -> list[str]:
        """Answer each request with the recorded response; a question with none gets :data:`~temporal_tasks.scoring.
        payloads.NO_ANSWER` (no answer at all: a line missing from an official answer file)."""
        out = [""] * len(requests)
        missing: list[str] = []
        indices = list(range(len(requests)))
        if self._order == "length":  # lmms-eval's Collator: longest prompt first, ties by prompt
            indices.sort(key=lambda i: (-len(str(request_context(requests[i]))), str(request_context(requests[i]))))
        # --repeats k: lmms-eval sends each request k times (the same Instance, in a row); the r-th copy, in
        # lmms-eval's order, is repeat r and gets the r-th answer of a list "response".
        repeat_of: dict[int, int] = {}
        seen: dict[tuple, int] = {}
        for i, req in enumerate(requests):
            doc_id, task, split = request_doc(req)
            key = (task, split, doc_id)
            repeat_of[i] = seen.get(key, 0)
            seen[key] = repeat_of[i] + 1
        for i in indices:
            req = requests[i]
            doc_id, task, split = request_doc(req)
            self._serve(req)
            rec = self._record(task, split, doc_id, missing)
            out[i] = NO_ANSWER if rec is None else self._answer(rec, repeat_of[i], int(getattr(req, "repeats", 1) or 1))
        self._report_missing(
            missing,
            "response",
            "no answer: unreadable and wrong in the robust reading; in the official reading as the benchmark's "
            "official scorer treats a missing line",
        )
        return out

    def _answer(self, rec: dict, r: int, k: int) -> str:
        """Repeat ``r`` of ``k``'s answer: the record's string, or the r-th of its list of k answers."""
        response = rec.get("response")
        if isinstance(response, list):
            if len(response) != k:
                exit_run(
                    DataError(
                        f"temporal_replay: {self._path}: question {rec['question_id']!r} has a list of "
                        f"{len(response)} responses but the run asks for {k} answer(s) per question (--repeats "
                        f"{k}). Give exactly {k} responses (one per repeat) or a single string."
                    )
                )
            response = response[r]
        return response or ""

    def loglikelihood(self, requests) -> list[tuple[float, bool]]:
        """Return lmms-eval's loss convention: the negative log-probability of the continuation."""
        out: list[tuple[float, bool]] = []
        missing: list[str] = []
        for req in requests:
            _ctx, continuation, _visual, doc_id, task, split = loglikelihood_args(req)
            self._serve(req)
            if callable(continuation):  # plain `loglikelihood` tasks pass doc_to_target itself
                continuation = continuation(self._doc(task, split, doc_id))
            continuation = str(continuation)
            rec = self._record(task, split, doc_id, missing)
            table = (rec or {}).get("loglikelihood") or {}
            key = continuation.strip() if continuation.strip() in table else continuation
            if key not in table:
                if rec is not None:
                    missing.append(f"{rec['question_id']}:{continuation!r}")
                out.append((math.inf, False))  # probability 0
                continue
            out.append((-float(table[key]), False))
        self._report_missing(missing, "loglikelihood", "probability 0")
        return out

    def generate_until_multi_round(self, requests) -> list[str]:
        """Same as ``generate_until``."""
        return self.generate_until(requests)
