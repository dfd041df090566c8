"""The provenance record of a run: what produced each task's numbers, in one stable, documented shape.

Built in ``process_docs`` (:func:`temporal_tasks.harness.task_docs.docs_dataset`) from the docs just loaded and the
run's settings, and stored in the task config's ``metadata`` as ``metadata.provenance``. lmms-eval then

* writes it into the results JSON under ``configs.<task>.metadata.provenance`` (``dump_config``), and
* hashes it into the task fingerprint of its response cache (``--use_cache``, ``ResponseCache.create`` hashes
  ``dump_config()`` after the tasks are built), so a cached answer is reused only when the frame count, the
  paired-video layout, the data (annotations, video names and sizes) and the shortcut seed are all the same.

Shape (``version`` 1; fields are only ever added):

``version``, ``temporal_tasks`` (package version), ``task``, ``benchmark``, ``reading`` (``robust`` /
``official``: the answer reading of the headline numbers), ``frames`` (``{n, source, applies_to}``: N and
where it comes from; ``applies_to`` is ``"paired videos"`` or ``"shortcut files"`` when we build the frames
the model sees, ``"model"`` when the model samples the original videos itself), ``paired_layout``
(``{frames_per_clip, black_frames}`` or null), ``data`` (``{kind: "hub", repo, revision}`` or
``{kind: "local", path}``, plus ``questions``, ``videos``, ``annotations_sha256`` over the questions as read,
``videos_sha256`` over each video's file name and size: stat only, no video is read), ``shortcut``
(``{variant, seed_version}`` or null), ``cut`` (``{limit, offset}`` of the run) and ``encode_cache``
(``{defect, repaired}``: whether the installed lmms-eval's encode cache repeated video frames in our probe, null when
it has no such path, and whether our repair was in place; :mod:`temporal_tasks.compat.encode_cache`; absent in
records written before it). Runs of answers imported
from another pipeline (``temporal-tasks import --score``) add ``imported`` (``{benchmark, files: [{name, sha256,
format}], num_frames, counts}``); their ``frames.n`` is the N given to the import, or null (unknown).

This module writes the record; the tools read, compare and describe it (:mod:`temporal_tasks.tools.provenance`).
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from temporal_tasks import __version__
from temporal_tasks.api.registry import registered
from temporal_tasks.base.settings import answer_reading
from temporal_tasks.compat import add_task_metadata, building_task_config, evaluation_frames, task_config_name
from temporal_tasks.compat.run_context import model_frame_setting, run_context
from temporal_tasks.video import paired_layout, resolve_num_frames
from temporal_tasks.video.shortcut_files import SEED_VERSION, SHORTCUT_VARIANTS

PROVENANCE_VERSION = 1

# The doc fields that define a question (``videos`` is left out: absolute paths differ between machines).
_QUESTION_FIELDS = (
    "question_id", "group_id", "role", "group_size", "prompt", "gold", "parser", "options", "categories",
)  # fmt: skip


def _sha256(parts: Iterable[str]) -> str:
    h = hashlib.sha256()
    for part in parts:
        h.update(part.encode("utf-8", "surrogatepass"))
        h.update(b"\0")
    return h.hexdigest()


def annotations_fingerprint(docs: Iterable[Mapping]) -> str:
    """sha256 over every question as read (ids, prompt, gold, options, categories), in doc order."""
    return _sha256(
        json.dumps([d.get(k) for k in _QUESTION_FIELDS], sort_keys=True, ensure_ascii=False, default=str) for d in docs
    )


def video_files(docs: Iterable[Mapping]) -> list[str]:
    """The distinct video paths of ``docs``, sorted."""
    return sorted({str(v) for d in docs for v in (d.get("videos") or [])})


def videos_fingerprint(paths: Iterable[str]) -> str:
    """sha256 over each video's file name and size (``os.stat`` only: cheap, no video is read)."""
    parts = []
    for path in paths:
        try:
            size = os.stat(path).st_size
        except OSError:
            size = -1
        parts.append(f"{Path(path).name}\t{size}")
    return _sha256(sorted(parts))


def data_record(docs: Sequence[Mapping], sources: list | None = None) -> dict:
    """The ``data`` part: where the files are (Hub commit or local folder) and the content fingerprints."""
    out: dict[str, Any] = {}
    src = (sources or [None])[-1]
    if src is not None and not src.offline:
        spec = registered().get(src.name)
        out = {"kind": "hub", "repo": spec.hf_repo if spec else src.name, "revision": src.revision}
    elif src is not None:
        out = {"kind": "local", "path": str(src.root)}
    else:
        out = {"kind": "unknown"}
    videos = video_files(docs)
    out.update(
        questions=len(docs),
        videos=len(videos),
        annotations_sha256=annotations_fingerprint(docs),
        videos_sha256=videos_fingerprint(videos),
    )
    return out


def frames_record(docs: Sequence[Mapping]) -> tuple[dict, dict | None]:
    """``(frames, paired_layout)``: N, where it comes from, and what it applies to."""
    setting = model_frame_setting()
    built = any(d.get("paired") for d in docs) or any(d.get("shortcut_frames") for d in docs)
    if built:
        try:
            n, source = resolve_num_frames(setting)
        except ValueError:
            n, source = 0, "invalid"
        applies = "shortcut files" if any(d.get("shortcut_frames") for d in docs) else "paired videos"
        layout = None
        if any(d.get("paired") for d in docs) and n >= 3:
            k, black = paired_layout(n)
            layout = {"frames_per_clip": k, "black_frames": black}
        return {"n": n, "source": source, "applies_to": applies}, layout
    if setting is not None:
        source = setting.describe() if hasattr(setting, "describe") else f"--model_args {setting[0]}={setting[1]}"
        return {"n": setting[1], "source": source, "applies_to": "model"}, None
    return {"n": None, "source": "the model's default", "applies_to": "model"}, None


def shortcut_record(docs: Sequence[Mapping], task: str) -> dict | None:
    """The seeded shortcut variant of the task (its seed version), or None."""
    for variant in SHORTCUT_VARIANTS:
        if task.endswith(f"_{variant}"):
            return {"variant": variant, "seed_version": SEED_VERSION if variant != "blind" else None}
    if any(d.get("shortcut_task") for d in docs):
        return {"variant": str(docs[0].get("shortcut_task")), "seed_version": SEED_VERSION}
    return None


def build_record(
    task: str, docs: Sequence[Mapping], sources: list | None = None, encode_cache: Mapping | None = None
) -> dict:
    """The provenance record of ``task`` run on ``docs`` (see the module docstring for the shape); ``encode_cache``:
    what the probe of lmms-eval's encode cache found and did (:class:`temporal_tasks.compat.encode_cache.
    EncodeCacheCheck`), left out when not given."""
    frames, layout = frames_record(docs)
    imported = imported_answers(task)
    if imported is not None:
        # the answers come from another pipeline: N is what it used, unknown unless the import was told
        n = imported.get("num_frames")
        frames = {"n": n, "source": "import --num-frames" if n else "unknown (imported answers)",
                  "applies_to": "imported answers"}  # fmt: skip
        layout = None
    ctx = run_context()
    src = (sources or [None])[-1]
    record = {
        "version": PROVENANCE_VERSION,
        "temporal_tasks": __version__,
        "task": task,
        "benchmark": getattr(src, "name", None) or _benchmark_of(docs),
        "reading": answer_reading(),
        "frames": frames,
        "paired_layout": layout,
        "data": data_record(docs, sources),
        "shortcut": shortcut_record(docs, task),
        "cut": {"limit": ctx.limit, "offset": ctx.offset},
    }
    if encode_cache is not None:
        record["encode_cache"] = dict(encode_cache)
    if imported is not None:
        record["imported"] = imported
    return record


def imported_answers(task: str) -> dict | None:
    """Where the answers of a ``temporal_replay imported=...`` run come from (``import --score``), else None."""
    found = evaluation_frames()
    record = getattr(found.model, "imported", None) if found is not None else None
    if not isinstance(record, dict):
        return None
    return imported_provenance(record, task)


def imported_provenance(record: dict, task: str | None = None) -> dict:
    """The ``imported`` part of a run's provenance: source files with sha256 and format, N, and the task's counts."""
    counts = dict((record.get("tasks") or {}).get(task) or {})
    counts.pop("examples", None)
    return {
        "benchmark": record.get("benchmark"),
        "files": [
            {k: f.get(k) for k in ("name", "sha256", "format")}
            for f in record.get("files") or []
            if task is None or task in f.get("tasks", [task])  # the files that answered this task
        ],
        "num_frames": record.get("num_frames"),
        "counts": counts or None,
    }


def _benchmark_of(docs: Sequence[Mapping]) -> str | None:
    gid = str(docs[0].get("group_id", "")) if docs else ""
    return gid.split("/", 1)[0] if "/" in gid else None


def attach(docs: Sequence[Mapping], sources: list | None = None, encode_cache: Mapping | None = None) -> dict | None:
    """Build the record and store it in the running task's ``metadata`` (a fresh dict: never shared between tasks).

    Outside an lmms-eval run (no task being built) nothing is stored and None is returned.
    """
    config = building_task_config()
    if config is None:
        return None
    record = build_record(task_config_name(config), docs, sources, encode_cache)
    add_task_metadata(config, "provenance", record)
    return record
