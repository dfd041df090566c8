"""``temporal-tasks check-data`` for Vinoground: the clips (text, video, group) and the concatenated videos."""

from __future__ import annotations

from temporal_tasks.api import CheckHook, Part
from temporal_tasks.benchmarks.vinoground import tasks as vg
from temporal_tasks.harness.kit import BenchmarkData


def parts(data: BenchmarkData, k: int) -> list[Part]:
    """The checked parts of the copy at ``data`` (``k`` videos decoded per part)."""
    clips = Part("vinoground", f"{vg.CSV_NAME} + JSONs + {vg.CLIPS_ZIP} (text, video, group)")
    docs = clips.load(lambda: vg.load_docs(data, variant="group"))
    if docs is not None:
        videos = [v for d in docs for v in d["videos"]]
        clips.count("pairs", len({d["index"] for d in docs}))
        clips.count("clips", len(set(videos)))
        clips.count("questions", len(docs))
        clips.decode_sample(videos, k)
    concat = Part("vinoground official", f"{vg.CONCAT_ZIP} (vinoground_group_official)")
    if not (data.root / vg.CONCAT_ZIP).is_file() and not (data.root / vg.CONCAT_DIR).is_dir():
        concat.absent = f"no {vg.CONCAT_ZIP}: vinoground_group_official cannot run (the other tasks can)"
        return [clips, concat]
    docs = concat.load(lambda: vg.load_docs(data, variant="official"))
    if docs is not None:
        videos = [d["videos"][0] for d in docs if d["kind"] == "video"]
        concat.count("concatenated videos", len(set(videos)))
        concat.decode_sample(videos, k)
    return [clips, concat]


_CHECK: CheckHook = parts  # the spec's ``check`` hook, as the contract types it
