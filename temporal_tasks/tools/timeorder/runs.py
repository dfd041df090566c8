"""Reading the runs ``timeorder`` pairs: every task of every run found, with its provenance, model and payloads
(one reading per repeat of a ``--repeats k`` run)."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from temporal_tasks.base.errors import DataError
from temporal_tasks.tools.compare import (
    read_task,
)
from temporal_tasks.tools.provenance import from_results
from temporal_tasks.tools.runs import find_runs


@dataclass
class TaskRun:
    """One task of one run: its samples file, provenance record and model; payloads read on first use."""

    task: str
    run: str  # the run's name, <folder>/<stamp>
    file: Path
    record: dict | None
    model: str
    _items: dict[str, list] | None = field(default=None, repr=False)

    @property
    def n(self) -> int | None:
        """N of the run (its provenance ``frames.n``), or None when unknown."""
        n = ((self.record or {}).get("frames") or {}).get("n")
        return n if isinstance(n, int) else None

    def items(self) -> dict[str, list]:
        """``{metric key: payloads}`` of the task, read once (as ``compare`` reads them)."""
        if self._items is None:
            self._items, record = read_task(self.task, self.file)
            self.record = self.record if self.record is not None else record
        return self._items

    @property
    def repeats(self) -> int:
        """k of a ``--repeats k`` run (1 otherwise), from its payloads."""
        for payloads in self.items().values():
            for p in payloads:
                return len(p.get("repeats") or ()) or 1
        return 1

    def key_items(self, key: str, repeat: int | None = None) -> list:
        """The payloads of ``key``; of a ``--repeats k`` run, one repeat's reading (``repeat``, default the first)."""
        items = self.items().get(key) or []
        return items if self.repeats == 1 else repeat_items(items, repeat or 0)


def repeat_items(items: list, repeat: int) -> list:
    """The payloads of a ``--repeats k`` run as a run of repeat ``repeat`` alone: its reading in place of the
    top-level one (repeat 0's), no ``repeats`` list, so the aggregations score that repeat as a run of its own."""
    out = []
    for p in items:
        readings = p.get("repeats")
        if not readings:
            out.append(p)
            continue
        one = {k: v for k, v in p.items() if k != "repeats"}
        one.update(readings[repeat])
        out.append(one)
    return out


def model_of(results: dict) -> str:
    """The model of a results file as a comparable identity: lmms-eval's model type, and the model it loaded
    (``model_name``, else ``pretrained=`` of ``--model_args``) when named."""
    cfg = results.get("config") or {}
    name = results.get("model_name") or ""
    for part in str(cfg.get("model_args") or "").split(","):
        key, sep, value = part.partition("=")
        if sep and key.strip() == "pretrained" and not name:
            name = value.strip()
    return f"{cfg.get('model') or '?'}" + (f" ({name})" if name else "")


def collect(paths: Iterable[str | Path]) -> list[TaskRun]:
    """Every task of every run (with ``--log_samples`` files) found under ``paths``, oldest run first."""
    paths = list(paths)
    for raw in paths:
        if not Path(raw).exists():
            raise DataError(
                f"{raw}: no such file or folder (pass run folders holding lmms-eval's --log_samples files)."
            )
    out = []
    for run in find_runs(paths):
        if not run.samples:
            continue
        results: dict = {}
        if run.results is not None:
            try:
                results = json.loads(run.results.read_text(encoding="utf-8"))
            except (OSError, json.JSONDecodeError) as exc:
                raise DataError(f"{run.results}: not a readable results JSON ({exc}).") from None
        records = from_results(results)
        for task, file in sorted(run.samples.items()):
            out.append(TaskRun(task, run.name, file, records.get(task), model_of(results)))
    if not out:
        raise DataError(f"no *_samples_<task>.jsonl file under {[str(p) for p in paths]}; run lmms-eval --log_samples.")
    return out
