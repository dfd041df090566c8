"""``temporal-tasks bench``: what the plugin itself costs, measured side by side in one run.

Every figure is a ratio (or an absolute time next to its reference) taken in the same process,
so a noisy machine moves numerator and denominator together. Rows:

* ``paired_build_speedup_vs_ffmpeg``: ffmpeg's full decode + re-encode concatenation of two clips
  with a 2 s black gap at its default settings (how the official Vinoground files are made) / our
  builder at N=32; ``..._vs_ffmpeg_ultrafast``: the same with ffmpeg at our encoder's settings.
* ``paired_build_vs_decode_floor``: our builder / decoding just the 2*floor((N-1)/2) frames it
  uses with the same decoder (decord) — the cost nobody can avoid.
* ``cache_hit_ms``: median time to get an already-built paired video.
* ``overhead_fraction``: our per-question work with a warm cache (doc, prompt, visual path,
  parse, payload) / lmms-eval's dummy model decoding 8 frames of the same video.
* ``aggregate_temporalbench_short_seconds``: every metric key of a full-size TemporalBench short run (9,867
  questions, CIs read); ``aggregate_100k_seconds``: every TimeBlind metric (CIs and categories included) over
  100,000 payloads (and, for information, 1,000,000, with the peak memory of that step);
  ``aggregate_repeats_5_vs_1``: the full-size TemporalBench short run's aggregation with ``--repeats 5`` over
  the same with one answer per question (:mod:`temporal_tasks.tools.bench_scoring`).
* ``samples_kb_per_question``: bytes per question (KB) of the ``--log_samples`` file of the worst main task
  on full-size data with empty answers (lmms-eval's own writer); ``..._long``: with 2,000-character answers,
  less two copies of the answer.
* ``vinoground_cold_over_warm``: wall time of a ``vinoground_group`` run through the real lmms-eval
  CLI with an empty cache / the same run with every paired video cached, with the replay model
  standing in for a GPU model (``latency_ms=300`` per question, ``visuals=true``: each visual fetched, so the
  paired videos are built as for a GPU model); 50 pairs = 200
  questions by default, clips reused across pairs in distinct combinations.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from itertools import combinations
from pathlib import Path

import numpy as np

from temporal_tasks import video
from temporal_tasks.benchmarks.timeblind import tasks as timeblind
from temporal_tasks.benchmarks.vinoground import tasks as vg
from temporal_tasks.data.fixtures import write_fixtures
from temporal_tasks.harness import doc_hooks
from temporal_tasks.harness.doc_hooks import doc_to_target, doc_to_text
from temporal_tasks.harness.task_configs import resolve_function, task_config
from temporal_tasks.tools.bench_scoring import SHORT_QUESTIONS, bench_aggregate, bench_repeats
from temporal_tasks.tools.samples import task_docs

NUM_FRAMES = 32
SAMPLES_KB_LIMIT = 2.5  # KB per question of a samples file, empty answers; with long answers plus two copies
TARGETS = {
    "paired_build_speedup_vs_ffmpeg": (">=", 5.0),
    "paired_build_vs_decode_floor": ("<=", 2.0),
    "cache_hit_ms": ("<=", 1.0),
    "overhead_fraction": ("<=", 0.01),
    # the sizes people run (the largest task: 9,867 questions; ~50,000 answers with --repeats 5); a million
    # payloads is kept as information only (docs/performance.md says why)
    "aggregate_temporalbench_short_seconds": ("<=", 0.25),
    "aggregate_100k_seconds": ("<=", 1.5),
    "aggregate_repeats_5_vs_1": ("<=", 3.0),  # k answers per question: at most three times one answer's time
    "vinoground_cold_over_warm": ("<=", 1.05),
    "samples_kb_per_question": ("<=", SAMPLES_KB_LIMIT),
    "samples_kb_per_question_long": ("<=", SAMPLES_KB_LIMIT),
}
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
    import decord

    k, _gap = video.paired_layout(NUM_FRAMES)
    out: dict = {}
    ours, floor, ff, ff_fast = [], [], [], []
    for i, (a, b) in enumerate(pairs):
        video.clear_frame_cache()  # no help from an earlier build: each timing decodes from scratch

        def decode_only(a=a, b=b) -> None:
            for clip in (a, b):
                reader = decord.VideoReader(str(clip), ctx=decord.cpu(0), num_threads=1)
                reader.get_batch(video.uniform_indices(len(reader), k).tolist()).asnumpy()

        floor.append(_timed(decode_only))
        ours.append(_timed(lambda a=a, b=b, i=i: video.build_paired_video(a, b, work / f"ours_{i}.mp4", NUM_FRAMES)))
        if shutil.which("ffmpeg"):
            ff.append(_timed(lambda a=a, b=b, i=i: _ffmpeg_concat(a, b, work / f"ff_{i}.mp4")))
            ff_fast.append(_timed(lambda a=a, b=b, i=i: _ffmpeg_concat(a, b, work / f"ffu_{i}.mp4", fast=True)))
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
    old = os.environ.get("TEMPORAL_TASKS_DATA_DIR")
    os.environ["TEMPORAL_TASKS_DATA_DIR"] = str(work / "data")
    try:
        timeblind.load_docs()  # warm: imports, file-system cache
        repeat = 20
        load = _median_time(timeblind.load_docs, 5)
        docs = timeblind.load_docs()

        def per_question() -> None:
            for doc in docs:
                doc_hooks.doc_to_text(doc)
                doc_hooks.doc_to_visual(doc)
                timeblind.process_results(doc, ["The answer is Yes."])

        ours = load / len(docs) + _median_time(per_question, repeat) / len(docs)
    finally:
        if old is None:
            os.environ.pop("TEMPORAL_TASKS_DATA_DIR", None)
        else:
            os.environ["TEMPORAL_TASKS_DATA_DIR"] = old
    decode = statistics.median(_timed(lambda d=d: read_video(d["videos"][0], num_frm=8)) for d in docs[:8])
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
    env = dict(os.environ, TEMPORAL_TASKS_DATA_DIR=str(data), TEMPORAL_TASKS_CACHE_DIR=str(cache),
               HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1", TOKENIZERS_PARALLELISM="false")  # fmt: skip
    env.pop("TEMPORAL_TASKS_NUM_FRAMES", None)  # N follows the model's frame argument
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


SAMPLE_TASKS = (
    "timeblind_iacc", "vinoground_group", "temporalbench_short_mba", "temporalbench_long_mba",
    "velociti_strictvle", "velociti_mc",
)  # fmt: skip


def samples_bytes_per_question(task: str, answer: str, work: Path) -> float:
    """Bytes per question of ``task``'s ``--log_samples`` file, written by lmms-eval's own writer.

    Each line is built as lmms-eval 0.7.3's evaluator builds it (``_process_document_results``: doc, target,
    arguments, resps, filtered_resps, token counts, doc hash, then our ``process_results`` keys) for every
    question of the data in ``TEMPORAL_TASKS_DATA_DIR``, all answering ``answer``, and saved with
    ``EvaluationTracker.save_results_samples``.
    """
    from lmms_eval.loggers.evaluation_tracker import EvaluationTracker

    docs = task_docs(task)
    process_results = resolve_function(task_config(task)["process_results"])
    gen = {"max_new_tokens": 32, "do_sample": False, "temperature": 0, "until": ["\n\n"]}
    samples = []
    for i, doc in enumerate(docs):
        samples.append(
            {
                "doc_id": i, "doc": doc, "target": doc_to_target(doc), "arguments": [doc_to_text(doc), gen],
                "resps": [[answer]], "filtered_resps": [answer], "token_counts": [None],
                "doc_hash": "0" * 64, **process_results(doc, [answer]),
            }
        )  # fmt: skip
    out = work / f"samples_{task}_{len(answer)}"
    tracker = EvaluationTracker(output_path=str(out))
    tracker.general_config_tracker.model_name_sanitized = "bench"
    tracker.date_id = "bench"
    tracker.save_results_samples(task, samples)
    (written,) = out.rglob(f"*_samples_{task}.jsonl")
    return written.stat().st_size / len(docs)


def bench_samples(work: Path, tasks: tuple[str, ...] = SAMPLE_TASKS, answer_chars: int = 2000) -> dict:
    """``samples_kb_per_question``: the worst task's bytes per question (KB) on full-size data, empty answers;
    ``samples_kb_per_question_long``: with ``answer_chars``-character answers, less two copies of the answer."""
    data = work / "full_data"
    write_fixtures(data, sorted({t.split("_")[0] for t in tasks}), full=True)
    old = {k: os.environ.get(k) for k in ("TEMPORAL_TASKS_DATA_DIR", "TEMPORAL_TASKS_CACHE_DIR")}
    os.environ.update(TEMPORAL_TASKS_DATA_DIR=str(data), TEMPORAL_TASKS_CACHE_DIR=str(work / "cache"))
    try:
        empty = {t: samples_bytes_per_question(t, "", work) / 1000 for t in tasks}
        long = "x" * answer_chars
        extra = {t: (samples_bytes_per_question(t, long, work) - 2 * answer_chars) / 1000 for t in tasks}
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    worst, worst_long = max(empty, key=empty.get), max(extra, key=extra.get)
    return {
        "samples_kb_per_question": empty[worst], "samples_worst_task": worst,
        "samples_kb_per_question_long": extra[worst_long], "samples_worst_task_long": worst_long,
        "samples_kb_by_task": {t: round(v, 3) for t, v in empty.items()},
    }  # fmt: skip


def run(
    pairs: int = 12,
    seconds: float = 10.0,
    payloads: int = 1_000_000,
    vinoground_pairs: int = VINO_PAIRS,
    latency_ms: float = VINO_LATENCY_MS,
    order: str = "doc",
    repeats: int = 1,
    samples: bool = True,
    repeats_questions: int = SHORT_QUESTIONS,
) -> dict:
    """Run every row; returns the measurements (plus targets met). ``vinoground_pairs=0`` skips the CLI row."""
    work = Path(tempfile.mkdtemp(prefix="temporal-tasks-bench-"))
    try:
        clip_pairs = make_clips(work, pairs, seconds)
        result = {"pairs": pairs, "clip_seconds": seconds, "num_frames": NUM_FRAMES, "cpus": os.cpu_count()}
        result.update(bench_paired(clip_pairs, work))
        result.update(bench_overhead(clip_pairs, work))
        result.update(bench_aggregate(payloads))
        if repeats_questions > 0:
            result.update(bench_repeats(questions=repeats_questions))
        if samples:
            result.update(bench_samples(work))
        if vinoground_pairs > 0:
            result.update(bench_vinoground_cold_warm(clip_pairs, work, vinoground_pairs, latency_ms, order, repeats))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    result["targets_met"] = {
        key: (None if result.get(key) is None else (result[key] >= bound if op == ">=" else result[key] <= bound))
        for key, (op, bound) in TARGETS.items()
    }
    return result


def format_table(result: dict) -> str:
    """A Markdown table of the measurements."""
    lines = ["| measurement | value | target |", "|---|---:|---|"]
    for key, value in result.items():
        if key == "targets_met" or isinstance(value, dict):
            continue
        target = TARGETS.get(key)
        shown = f"{value:.4g}" if isinstance(value, float) else str(value)
        lines.append(f"| {key} | {shown} | {f'{target[0]} {target[1]:g}' if target else ''} |")
    return "\n".join(lines)


def add_bench_parser(subparsers) -> argparse.ArgumentParser:
    """The ``bench`` subcommand."""
    p = subparsers.add_parser("bench", help="measure the plugin's own cost (paired videos, overhead, aggregation)")
    p.add_argument("--json", action="store_true", help="also print one JSON object as the last line")
    p.add_argument("--pairs", type=int, default=12, help="clip pairs to generate (default 12)")
    p.add_argument("--seconds", type=float, default=10.0, help="clip length in seconds (default 10)")
    p.add_argument("--payloads", type=int, default=1_000_000, help="payloads to aggregate (default 1,000,000)")
    p.add_argument(
        "--vinoground-pairs",
        type=int,
        default=VINO_PAIRS,
        help=f"pairs of the Vinoground cold/warm CLI run (default {VINO_PAIRS}; 0 skips it)",
    )
    p.add_argument(
        "--latency-ms",
        type=float,
        default=VINO_LATENCY_MS,
        help=f"the stand-in model's time per question in that run (default {VINO_LATENCY_MS:g})",
    )
    p.add_argument(
        "--order",
        choices=["doc", "length"],
        default="doc",
        help="the stand-in model's request order: lmms-eval's (doc) or longest prompt first (length)",
    )
    p.add_argument(
        "--vinoground-repeats",
        type=int,
        default=1,
        help="alternate cold and warm runs this many times and divide the medians (default 1)",
    )
    p.add_argument(
        "--repeats-questions",
        type=int,
        default=SHORT_QUESTIONS,
        help=f"questions of the --repeats 5 aggregation row (default {SHORT_QUESTIONS:,}, full size; 0 skips it)",
    )
    p.set_defaults(func=_cmd_bench)
    return p


def _cmd_bench(args: argparse.Namespace) -> int:
    result = run(
        args.pairs, args.seconds, args.payloads, args.vinoground_pairs, args.latency_ms, args.order,
        args.vinoground_repeats, repeats_questions=args.repeats_questions,
    )  # fmt: skip
    print(format_table(result))
    if args.json:
        print(json.dumps(result))
    return 0
