"""Reading run provenance records back: from a results file, compared between two runs, described in one line.

The record itself, its shape and how a run writes it: :mod:`temporal_tasks.harness.provenance`. ``compare``
refuses runs whose :data:`COMPARABLE_FIELDS` differ (without ``--force``); ``report``, ``summary`` and ``view``
print :func:`describe`.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping
from typing import Any

__all__ = ["COMPARABLE_FIELDS", "answers_source", "describe", "differences", "from_results", "reading_of"]

# The fields that change what the model sees or what is scored: a difference in one of them makes two
# runs' numbers incomparable (``compare`` refuses them without --force).
COMPARABLE_FIELDS = ("frames.n", "paired_layout", "reading", "data.annotations_sha256", "data.videos_sha256",
                     "data.revision", "shortcut", "cut")  # fmt: skip


def from_results(results: Mapping) -> dict[str, dict]:
    """``{task: provenance record}`` of an lmms-eval results dict (tasks without one are left out)."""
    out = {}
    for task, cfg in (results.get("configs") or {}).items():
        meta = cfg.get("metadata") if isinstance(cfg, dict) else None
        if isinstance(meta, dict) and isinstance(meta.get("provenance"), dict):
            out[task] = meta["provenance"]
    for task, rec in (results.get("provenance") or {}).items():  # rescored results keep it at the top level
        if isinstance(rec, dict):
            out.setdefault(task, rec)
    return out


def _get(record: Mapping, dotted: str) -> Any:
    value: Any = record
    for part in dotted.split("."):
        value = value.get(part) if isinstance(value, Mapping) else None
    return value


def reading_of(record: Mapping) -> str | None:
    """The answer reading behind the numbers: a rescore's (``rescored.reading``), else the run's."""
    rescored = record.get("rescored")
    return (rescored or {}).get("reading") or record.get("reading")


def differences(base: Mapping, new: Mapping, ignore: Collection[str] = ()) -> list[str]:
    """The comparable fields (:data:`COMPARABLE_FIELDS`) whose values differ, as ``"field: a != b"``.

    ``ignore``: fields that differ by design between the two (``timeorder``: a shortcut variant against its main
    task differs in ``shortcut``, the visual input, and nothing else may differ)."""
    out = []
    if bool(base.get("imported")) != bool(new.get("imported")):
        out.append(f"answers: {answers_source(base)} != {answers_source(new)}")
    for field in COMPARABLE_FIELDS:
        if field in ignore:
            continue
        a, b = _get(base, field), _get(new, field)
        if field == "reading":  # a rescore's reading replaces the run's
            a, b = reading_of(base), reading_of(new)
        if a != b:
            out.append(f"{field}: {_shown(base, field, a)} != {_shown(new, field, b)}")
    return out


def answers_source(record: Mapping) -> str:
    """``"lmms-eval run"``, or ``"imported from FILE (sha256 …)"`` for answers brought in by ``import``."""
    imported = record.get("imported")
    if not imported:
        return "lmms-eval run"
    files = ", ".join(f"{f.get('name')} (sha256 {str(f.get('sha256'))[:12]})" for f in imported.get("files") or [])
    return f"imported from {files or 'unknown files'}"


def _shown(record: Mapping, field: str, value: Any) -> str:
    if field == "frames.n" and value is None and record.get("imported"):
        return "unknown (imported)"
    return json.dumps(value, default=str)


def describe(record: Mapping) -> str:
    """One line: reading, N and its source, layout, data source and fingerprints, seed, cut."""
    frames = record.get("frames") or {}
    parts = [f"reading {record.get('reading')}"]
    if frames.get("n") is not None:
        parts.append(f"N={frames['n']} ({frames.get('source')}; {frames.get('applies_to')})")
    else:
        parts.append(f"N: {frames.get('source', '?')}")
    layout = record.get("paired_layout")
    if layout:
        parts.append(f"paired {layout['frames_per_clip']}+{layout['black_frames']}+{layout['frames_per_clip']}")
    data = record.get("data") or {}
    if data.get("kind") == "hub":
        where = f"{data.get('repo')}@{(data.get('revision') or '?')[:12]}"
    else:
        where = str(data.get("path", data.get("kind")))
    parts.append(
        f"data {where} ({data.get('questions')} questions, {data.get('videos')} videos, "
        f"annotations {str(data.get('annotations_sha256'))[:12]}, videos {str(data.get('videos_sha256'))[:12]})"
    )
    if record.get("shortcut"):
        sc = record["shortcut"]
        seed = sc.get("seed_version")  # the blind variant draws nothing: no seed
        parts.append(f"shortcut {sc.get('variant')}" + (f" seed v{seed}" if seed is not None else ""))
    cut = record.get("cut") or {}
    if cut.get("limit") is not None or cut.get("offset"):
        parts.append(f"cut limit={cut.get('limit')} offset={cut.get('offset')}")
    if record.get("imported"):
        parts.append(f"answers {answers_source(record)}")
    if record.get("rescored"):
        parts.append(f"rescored with reading {record['rescored'].get('reading')}")
    parts.append(f"temporal-tasks {record.get('temporal_tasks')}")
    return "; ".join(parts)
