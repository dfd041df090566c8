"""The video rows of ``temporal-tasks bench``: paired builds against ffmpeg and the decode floor, cache hits, the
per-question overhead, and a Vinoground run with an empty cache against the same with a full one."""

from __future__ import annotations

import functools
import json
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from itertools import combinations
from pathlib import Path

import numpy as np

from temporal_tasks import video
from temporal_tasks.base import settings
from temporal_tasks.benchmarks.timeblind import tasks as timeblind
from temporal_tasks.benchmarks.vinoground import tasks as vg
from temporal_tasks.data.sources import benchmark_data
from temporal_tasks.harness import doc_hooks

NUM_FRAMES = 32
VINO_PAIRS = 50
VINO_LATENCY_MS = 300.0


def _timed(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def _median_time(fn: Callable[[], object], repeat: int) -> float:
    return statistics.median(_timed(fn) for _ in range(repeat))


def make_clips(out: Path, pairs: int, seconds: float, width: int = 640, height: int = 360, fps: int = 30) -> list:
    """Realistic inputs: ``pairs`` pairs of textured moving-square clips (H.264, 30 fps)."""
    import av

    rng = np.random.default_rng(0)
    clips = []
    for i in range(2 * pairs):
        path = out / f"clip_{i:03d}.mp4"
        base = rng.integers(0, 255, (height, width, 3), dtype=np.uint8)  # texture: realistic bitrate
        with av.open(str(path), mode="w") as container:
            stream = container.add_stream("libx264" if "libx264" in av.codecs_available else "mpeg4", rate=fps)
            stream.width, stream.height, stream.pix_fmt = width, height, "yuv420p"
            stream.options = {"preset": "ultrafast", "g": str(fps)} if stream.name == "libx264" else {}
            total = int(seconds * fps)
            for t in range(total):
                frame = base.copy()
                x = int((width - 60) * t / max(1, total - 1)) if i % 2 == 0 else int((width - 60) * (1 - t / total))
                frame[150:210, x : x + 60] = (230, 40, 40)
                for packet in stream.encode(av.VideoFrame.from_ndarray(frame, format="rgb24")):
                    container.mux(packet)
            for packet in stream.encode():
                container.mux(packet)
        clips.append(path)
    return [(clips[2 * i], clips[2 * i + 1]) for i in range(pairs)]


def _ffmpeg_concat(first: Path, second: Path, out: Path, fast: bool = False) -> None:
    # Full decode + re-encode with a 2 s black gap, the way the official concatenated files are made:
    # ffmpeg's defaults (libx264 preset medium, all cores). fast=True is a stricter baseline:
    # preset ultrafast on one thread, like our encoder settings.
    cmd = [
        "ffmpeg", "-v", "error", "-y", "-i", str(first), "-f", "lavfi", "-i", "color=black:s=640x360:r=30:d=2",
        "-i", str(second), "-filter_complex", "[0:v]setsar=1[a];[1:v]setsar=1[g];[2:v]setsar=1[b];"
        "[a][g][b]concat=n=3:v=1:a=0[v]", "-map", "[v]", "-c:v", "libx264",
        *(["-preset", "ultrafast", "-threads", "1"] if fast else []), str(out),
    ]  # fmt: skip
    subprocess.run(cmd, check=True)


def bench_paired(pairs: list, work: Path) -> dict:
    """Builder vs ffmpeg vs the decode floor, and the cache hit."""
    k, _gap = video.paired_layout(NUM_FRAMES)
    out: dict = {}
    ours, floor, ff, ff_fast = [], [], [], []
    for i, (a, b) in enumerate(pairs):

        def decode_only(a=a, b=b) -> None:
            # the builder's own reader (decord2 where installed, else PyAV): the same decoder on both sides
            for clip in (a, b):
                video.sample_clip(Path(clip), k)

        video.clear_frame_cache()  # no help from an earlier build: each timing decodes from scratch
        floor.append(_timed(decode_only))
        video.clear_frame_cache()
        ours.append(_timed(functools.partial(video.build_paired_video, a, b, work / f"ours_{i}.mp4", NUM_FRAMES)))
        if shutil.which("ffmpeg"):
            ff.append(_timed(functools.partial(_ffmpeg_concat, a, b, work / f"ff_{i}.mp4")))
            ff_fast.append(_timed(functools.partial(_ffmpeg_concat, a, b, work / f"ffu_{i}.mp4", fast=True)))
    out["paired_build_seconds"] = statistics.median(ours)
    out["decode_floor_seconds"] = statistics.median(floor)
    out["paired_build_vs_decode_floor"] = out["paired_build_seconds"] / out["decode_floor_seconds"]
    if ff:
        out["ffmpeg_concat_seconds"] = statistics.median(ff)
        out["paired_build_speedup_vs_ffmpeg"] = out["ffmpeg_concat_seconds"] / out["paired_build_seconds"]
        out["ffmpeg_ultrafast_1thread_seconds"] = statistics.median(ff_fast)
        out["paired_build_speedup_vs_ffmpeg_ultrafast"] = (
            out["ffmpeg_ultrafast_1thread_seconds"] / out["paired_build_seconds"]
        )
    else:
        out["paired_build_speedup_vs_ffmpeg"] = None
        out["note_ffmpeg"] = "ffmpeg not found: install it (apt-get install ffmpeg) to measure this row"
    a, b = pairs[0]
    video.cached_paired_video(a, b, NUM_FRAMES, work / "cache")  # build once
    out["cache_hit_ms"] = 1000 * _median_time(lambda: video.cached_paired_video(a, b, NUM_FRAMES, work / "cache"), 200)
    return out


def bench_overhead(pairs: list, work: Path) -> dict:
    """Our per-question cost on a TimeBlind-layout copy of the clips vs the dummy model's 8-frame decode."""
    from lmms_eval.models.model_utils.load_video import read_video

    root = work / "data" / "timeblind"
    (root / "videos").mkdir(parents=True)
    rows = []
    for k, (a, b) in enumerate(pairs):
        shutil.copy(a, root / "videos" / f"vid_{k:05d}_0.mp4")
        shutil.copy(b, root / "videos" / f"vid_{k:05d}_1.mp4")
        for role, (q, v) in enumerate([(0, 0), (0, 1), (1, 0), (1, 1)]):
            rows.append({"index": 4 * k + role, "video_path": f"TimeBlind/videos/vid_{k:05d}_{v}.mp4",
                         "question": f"Does the square move {'right' if q == 0 else 'left'}?",
                         "answer": ("yes", "no", "no", "yes")[role], "type": "yes_no"})  # fmt: skip
    (root / "data.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))

    def load_docs() -> list[dict]:
        return timeblind.load_docs(benchmark_data("timeblind", root=work / "data"))

    load_docs()  # warm: imports, file-system cache
    repeat = 20
    load = _median_time(load_docs, 5)
    docs = load_docs()

    def per_question() -> None:
        for doc in docs:
            doc_hooks.doc_to_text(doc)
            doc_hooks.doc_to_visual(doc)
            timeblind.process_results(doc, ["The answer is Yes."])

    ours = load / len(docs) + _median_time(per_question, repeat) / len(docs)
    decode = statistics.median(_timed(functools.partial(read_video, d["videos"][0], num_frm=8)) for d in docs[:8])
    return {"per_question_ms": 1000 * ours, "dummy_decode_8_frames_ms": 1000 * decode,
            "overhead_fraction": ours / decode}  # fmt: skip


_CAPTIONS = (
    "the square moves from the left to the right",
    "the square moves from the right to the left",
    "a red square slides across a textured background until it reaches the far edge of the frame",
    "the square stops",
    "someone drags the red block slowly to the other side, then the camera holds still",
)


def write_vinoground_layout(root: Path, clip_pairs: list, num_pairs: int) -> list[str]:
    """A Vinoground copy (csv, both JSONs, unzipped clip folder) of ``num_pairs`` pairs; returns the question ids.

    Pairs reuse the generated clips in distinct combinations (no two pairs share both clips), so every
    paired video is a different file, as in the real dataset.
    """

    clips = [c for pair in clip_pairs for c in pair]
    combos = list(combinations(range(len(clips)), 2))
    folder = root / vg.CLIPS_DIR
    folder.mkdir(parents=True)
    rows, text, video, qids = [], [], [], []
    for i in range(num_pairs):
        x, y = combos[i % len(combos)]
        caps = {"pos": f"{_CAPTIONS[i % 5]} (take {i})", "neg": f"{_CAPTIONS[(i + 2) % 5]} (take {i})"}
        for side, clip in (("pos", clips[x]), ("neg", clips[y])):
            try:
                (folder / f"{i}_{side}.mp4").symlink_to(Path(clip).resolve())
            except OSError:  # no symlinks here: copy
                shutil.copy(clip, folder / f"{i}_{side}.mp4")
        rows.append(f'{i},action,cyclical,"{caps["pos"]}","{caps["neg"]}"\n')
        for side in vg.SIDES:
            other = "neg" if side == "pos" else "pos"
            gt = "A" if i % 2 == 0 else "B"  # both questions A (or B): two orders, two paired videos
            a, b = (caps[side], caps[other]) if gt == "A" else (caps[other], caps[side])
            text.append({"idx": f"{i}_{side}", "video_name": f"{vg.CLIPS_DIR}/{i}_{side}.mp4", "GT": gt,
                         "question": f"Which caption best describes this video?\nA. {a}\nB. {b}\n"
                                     "Answer with the option's letter from the given choices directly."})  # fmt: skip
            video.append({"idx": f"{i}_{side}", "video_name": f"{vg.CONCAT_DIR}/{i}.mp4", "GT": gt,
                          "question": "Which video segment matches this caption? Note: The video contains two "
                                      f"segments separated by a 2-second black frame. Caption: {caps[side]}\n"
                                      "A. First segment (before black frame)\nB. Second segment (after black frame)\n"
                                      "Answer with the option's letter from the given choices directly."})  # fmt: skip
            qids += [f"{i}_{side}_text", f"{i}_{side}_video"]
    (root / vg.CSV_NAME).write_text("index,major,minor,pos_cap,neg_cap\n" + "".join(rows), encoding="utf-8")
    (root / vg.TEXT_JSON).write_text(json.dumps(text), encoding="utf-8")
    (root / vg.VIDEO_JSON).write_text(json.dumps(video), encoding="utf-8")
    return qids


def _lmms_eval_wall_time(work: Path, name: str, model_args: str, env: dict) -> float:
    out = work / name
    cmd = [sys.executable, "-m", "lmms_eval", "--model", "temporal_replay", "--model_args", model_args,
           "--tasks", "vinoground_group", "--batch_size", "1", "--output_path", str(out),
           "--verbosity", "DEBUG"]  # fmt: skip
    start = time.perf_counter()
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, cwd=work)
    seconds = time.perf_counter() - start
    (work / f"{name}.log").write_text(proc.stdout + proc.stderr, encoding="utf-8")
    if proc.returncode != 0 or not list(out.rglob("*_results.json")):
        raise RuntimeError(f"bench: the vinoground_group run failed:\n{(proc.stdout + proc.stderr)[-4000:]}")
    return seconds


def bench_vinoground_cold_warm(
    clip_pairs: list,
    work: Path,
    num_pairs: int = VINO_PAIRS,
    latency_ms: float = VINO_LATENCY_MS,
    order: str = "doc",
    repeats: int = 1,
) -> dict:
    """A ``vinoground_group`` CLI run with an empty cache over the same run with a warm cache.

    ``repeats`` > 1 alternates cold and warm runs that many times and divides the medians (a noisy machine).
    """
    work = work / "vinoground_run"
    data = work / "data"
    qids = write_vinoground_layout(data / "vinoground", clip_pairs, num_pairs)
    responses = work / "responses.jsonl"
    responses.write_text("".join(json.dumps({"question_id": q, "response": "A"}) + "\n" for q in qids))
    cache = work / "cache"
    env = settings.child_environment({
        settings.ENV_DATA_DIR: str(data), settings.ENV_CACHE_DIR: str(cache), "HF_HUB_OFFLINE": "1",
        "HF_DATASETS_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false",
        settings.ENV_NUM_FRAMES: None,  # N follows the model's frame argument
    })  # fmt: skip
    # visuals=true: the replay model reads each visual as a GPU model would, so the paired videos are built for it
    # (plain replay reads none and gets none built), whatever --latency-ms is
    model_args = (
        f"responses={responses},latency_ms={latency_ms:g},visuals=true,order={order},max_num_frames={NUM_FRAMES}"
    )
    colds, warms = [], []
    for r in range(max(1, repeats)):
        shutil.rmtree(cache, ignore_errors=True)
        colds.append(_lmms_eval_wall_time(work, f"cold{r}", model_args, env))
        built = len(list((cache / "paired_videos").rglob("*.mp4")))
        warms.append(_lmms_eval_wall_time(work, f"warm{r}", model_args, env))
    cold, warm = statistics.median(colds), statistics.median(warms)
    return {"vinoground_pairs": num_pairs, "vinoground_questions": len(qids), "vinoground_paired_videos": built,
            "vinoground_latency_ms": latency_ms, "vinoground_repeats": len(colds), "vinoground_cold_seconds": cold,
            "vinoground_warm_seconds": warm, "vinoground_cold_over_warm": cold / warm}  # fmt: skip
