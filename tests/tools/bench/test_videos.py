"""The inputs of ``temporal-tasks bench``'s video rows (``tools/bench/videos.py``): the generated clips and the
Vinoground copy built from them, small (the timings themselves are ``bench``'s, never a unit test's)."""

from __future__ import annotations

import csv
import json

import av

from temporal_tasks.benchmarks.vinoground import tasks as vg
from temporal_tasks.data.sources import benchmark_data
from temporal_tasks.tools.bench.videos import make_clips, write_vinoground_layout


def test_make_clips_writes_pairs_of_the_asked_size(tmp_path):
    pairs = make_clips(tmp_path, pairs=2, seconds=0.25, width=64, height=48, fps=8)
    assert [(a.name, b.name) for a, b in pairs] == [("clip_000.mp4", "clip_001.mp4"), ("clip_002.mp4", "clip_003.mp4")]
    with av.open(str(pairs[1][0])) as container:
        stream = container.streams.video[0]
        assert (stream.width, stream.height) == (64, 48)
        assert sum(1 for _ in container.decode(video=0)) == 2  # 0.25 s at 8 fps


def test_the_vinoground_layout_loads_and_reuses_clips_in_distinct_pairs(tmp_path, monkeypatch):
    monkeypatch.setenv("TEMPORAL_TASKS_CACHE_DIR", str(tmp_path / "cache"))
    clips = make_clips(tmp_path, pairs=2, seconds=0.25, width=32, height=32, fps=8)
    root = tmp_path / "data" / "vinoground"
    qids = write_vinoground_layout(root, clips, num_pairs=3)
    assert qids == [f"{i}_{s}_{k}" for i in range(3) for s in ("pos", "neg") for k in ("text", "video")]
    with open(root / vg.CSV_NAME, encoding="utf-8", newline="") as fh:
        assert [r["index"] for r in csv.DictReader(fh)] == ["0", "1", "2"]
    # 4 clips give 6 distinct pairs of clips: no two of the 3 pairs link the same two files
    links = [tuple((root / vg.CLIPS_DIR / f"{i}_{s}.mp4").resolve() for s in ("pos", "neg")) for i in range(3)]
    assert len(set(links)) == 3
    text = json.loads((root / vg.TEXT_JSON).read_text())
    assert [q["GT"] for q in text] == ["A", "A", "B", "B", "A", "A"]  # both questions of a pair, alternating
    docs = vg.load_docs(benchmark_data("vinoground", root=root.parent), variant="text")
    assert sorted(d["question_id"] for d in docs) == sorted(q for q in qids if q.endswith("_text"))
