"""Reading run provenance records back: from a results file, compared between two runs, described in one line.

The record itself, its shape and how a run writes it: :mod:`temporal_tasks.harness.provenance`. ``compare``
refuses runs whose :data:`COMPARABLE_FIELDS` differ (without ``--force``); ``report``, ``summary`` and ``view``
print :func:`describe`.

:func:`from_results` adds one field on read, ``frames_sent`` (:func:`frames_sent`): whether the model may have been
sent repeated frames by lmms-eval's encode cache (an affected adapter without our repair), from the results'
``config.model_backend`` and the record's ``encode_cache``. ``compare`` refuses a run that may have repeated frames
beside one that cannot, and every line of :func:`describe` marks it.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping
from typing import Any

from temporal_tasks.compat.encode_cache import AFFECTED_ADAPTERS
from temporal_tasks.compat.run_context import parse_model_args

__all__ = [
    "COMPARABLE_FIELDS",
    "FRAMES_MAY_REPEAT",
    "answers_source",
    "describe",
    "differences",
    "frames_sent",
    "from_results",
    "reading_of",
]

# The fields that change what the model sees or what is scored: a difference in one of them makes two
# runs' numbers incomparable (``compare`` refuses them without --force).
COMPARABLE_FIELDS = ("frames.n", "paired_layout", "reading", "data.annotations_sha256", "data.videos_sha256",
                     "data.revision", "shortcut", "cut")  # fmt: skip


# The lmms-eval model names that resolve to an affected adapter (AFFECTED_ADAPTERS) in chat mode, lmms-eval's default;
# read when a results file has no model_backend.
_AFFECTED_MODELS = ("openai", "async_openai", "vllm", "litellm")
FRAMES_MAY_REPEAT = "may repeat"


def frames_sent(record: Mapping, config: Mapping | None) -> str:
    """How the run's model got its video frames: ``"intact"`` (its adapter does not go through lmms-eval's encode
    cache, or that cache did not repeat frames), ``"repaired"`` (it does, and our repair was in place) or
    :data:`FRAMES_MAY_REPEAT` (it does, without the repair: a record written before the repair existed, on an
    lmms-eval that had the defect, as every release we supported then did; or the repair switched off)."""
    config = config or {}
    backend = str(config.get("model_backend") or "").split(" ", 1)[0]
    if backend:
        affected = backend.rsplit(".", 1)[0] in AFFECTED_ADAPTERS
    else:
        affected = str(config.get("model") or "") in _AFFECTED_MODELS
    args = parse_model_args(config.get("model_args"))
    if not affected or args.get("pass_video_url", "").lower() in ("true", "1"):  # the server decodes the video
        return "intact"
    check = record.get("encode_cache")
    if not isinstance(check, Mapping):
        return FRAMES_MAY_REPEAT
    if check.get("defect") is False:
        return "intact"
    return "repaired" if check.get("repaired") else FRAMES_MAY_REPEAT


def from_results(results: Mapping) -> dict[str, dict]:
    """``{task: provenance record}`` of an lmms-eval results dict (tasks without one are left out), each with
    ``frames_sent`` (:func:`frames_sent`) added when the results name their model."""
    out = {}
    for task, cfg in (results.get("configs") or {}).items():
        meta = cfg.get("metadata") if isinstance(cfg, dict) else None
        if isinstance(meta, dict) and isinstance(meta.get("provenance"), dict):
            out[task] = meta["provenance"]
    for task, rec in (results.get("provenance") or {}).items():  # rescored results keep it at the top level
        if isinstance(rec, dict):
            out.setdefault(task, rec)
    config = results.get("config")
    if isinstance(config, Mapping) and (config.get("model_backend") or config.get("model")):
        out = {task: {**rec, "frames_sent": frames_sent(rec, config)} for task, rec in out.items()}
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
    risky = [r.get("frames_sent") == FRAMES_MAY_REPEAT for r in (base, new)]
    if risky[0] != risky[1]:
        shown = ["frames may have repeated (lmms-eval encode cache, unrepaired)" if r else "every frame sent once"
                 for r in risky]  # fmt: skip
        out.append(f"frames sent: {shown[0]} != {shown[1]}")
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
    if record.get("frames_sent") == FRAMES_MAY_REPEAT:
        parts.append(
            "⚠ the model may have been sent repeated frames (lmms-eval's encode cache, not repaired: docs/models.md); "
            "not comparable with a repaired run"
        )
    elif record.get("frames_sent") == "repaired":
        parts.append("frames repaired (lmms-eval's encode cache)")
    parts.append(f"temporal-tasks {record.get('temporal_tasks')}")
    return "; ".join(parts)
