"""Published numbers shown beside the runs: each benchmark's ``references.json`` (spec field ``references``).

A file is ``{"about": ..., "entries": [...]}``; an entry is one model in one setting from one table:
``benchmark`` (the spec's title), ``model``, ``setting``, ``tasks`` (ours it compares with), ``source``
(``{"paper", "table"}``), ``metrics`` (our result keys, ``<m>_ci_low``/``_ci_high`` for a CI), and optionally
``label`` (display name) and ``note``. ``temporal-tasks report --references FILE`` reads one such file instead.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from temporal_tasks.api.registry import Benchmark, registered
from temporal_tasks.tools.report.results import CI_SUFFIXES, Value


@dataclass
class Reference:
    """Published numbers of one model in one setting (merged over the tables that report it)."""

    benchmark: str
    model: str
    setting: str
    tasks: tuple[str, ...]
    display: str = ""  # the entry's optional "label", for models that appear in several settings
    metrics: dict[str, Value] = field(default_factory=dict)
    sources: dict[str, str] = field(default_factory=dict)  # metric -> "paper, table"
    papers: list[str] = field(default_factory=list)
    tables: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def label(self) -> str:
        """Row label in tables and legends (without the "(paper)" / "paper:" marker)."""
        return self.display or self.model


def reference_files() -> list[tuple[Path, Benchmark]]:
    """The packaged reference files and their benchmarks: one per registered benchmark that declares one, in
    registry order."""
    return [(spec.resource(spec.references), spec) for spec in registered().values() if spec.references]


def load_references(path: str | Path | None = None) -> list[Reference]:
    """Reference entries, merged per (benchmark, model, setting, tasks) across the tables that report them.

    ``path``: one reference file to read instead of the packaged ones (every benchmark's, in registry order).
    """
    files: list[tuple[Path, Benchmark | None]] = [(Path(path), None)] if path is not None else [*reference_files()]
    merged: dict[tuple, Reference] = {}
    for file, spec in files:
        for entry in json.loads(file.read_text(encoding="utf-8"))["entries"]:
            if spec is not None and entry["benchmark"] != spec.title:
                # The report shows an entry under the benchmark it names: one in another's file is a mistake.
                raise ValueError(
                    f"{file}: the entry for {entry['model']!r} names the benchmark {entry['benchmark']!r}, but this "
                    f"file holds {spec.name}'s references: move it to that benchmark's references.json "
                    f"or set its benchmark to {spec.title!r}."
                )
            _merge(merged, entry)
    return list(merged.values())


def _merge(merged: dict[tuple, Reference], entry: dict) -> None:
    """Add one entry to the reference of its (benchmark, model, setting, tasks, label)."""
    key = (entry["benchmark"], entry["model"], entry["setting"], tuple(entry["tasks"]), entry.get("label", ""))
    ref = merged.setdefault(key, Reference(*key))
    src = entry["source"]
    paper, table = (src.get("paper", ""), src.get("table", "")) if isinstance(src, dict) else (str(src), "")
    for item, seen in ((paper, ref.papers), (table, ref.tables)):
        if item and item not in seen:
            seen.append(item)
    raw = entry["metrics"]
    for metric, value in raw.items():
        if metric.endswith(CI_SUFFIXES) and metric.rsplit("_ci_", 1)[0] in raw:
            continue
        ref.metrics[metric] = Value(float(value), raw.get(f"{metric}_ci_low"), raw.get(f"{metric}_ci_high"))
        ref.sources[metric] = ", ".join(x for x in (paper, table) if x)
    note = entry.get("note") or []
    for text in [note] if isinstance(note, str) else note:
        if text not in ref.notes:
            ref.notes.append(text)
