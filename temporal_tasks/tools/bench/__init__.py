"""``temporal-tasks bench``: what the plugin itself costs, measured side by side in one run.

Every figure is a ratio (or an absolute time next to its reference) taken in the same process,
so a noisy machine moves numerator and denominator together. Rows:

* ``paired_build_speedup_vs_ffmpeg``: ffmpeg's full decode + re-encode concatenation of two clips
  with a 2 s black gap at its default settings (how the official Vinoground files are made) / our
  builder at N=32; ``..._vs_ffmpeg_ultrafast``: the same with ffmpeg at our encoder's settings.
* ``paired_build_vs_decode_floor``: our builder / decoding just the 2*floor((N-1)/2) frames it
  uses with the builder's own reader (decord2 where installed, else PyAV) — the cost nobody can avoid.
* ``cache_hit_ms``: median time to get an already-built paired video.
* ``overhead_fraction``: our per-question work with a warm cache (doc, prompt, visual path,
  parse, payload) / lmms-eval's dummy model decoding 8 frames of the same video.
* ``aggregate_temporalbench_short_seconds``: every metric key of a full-size TemporalBench short run (9,867
  questions, CIs read); ``aggregate_100k_seconds``: every TimeBlind metric (CIs and categories included) over
  100,000 payloads (and, for information, 1,000,000, with the peak memory of that step);
  ``aggregate_repeats_5_vs_1``: the full-size TemporalBench short run's aggregation with ``--repeats 5`` over
  the same with one answer per question (:mod:`temporal_tasks.tools.bench.scoring`).
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
import tempfile
from pathlib import Path
from typing import Any

from temporal_tasks.tools.bench.samples import SAMPLES_KB_LIMIT, bench_samples
from temporal_tasks.tools.bench.scoring import SHORT_QUESTIONS, bench_aggregate, bench_repeats
from temporal_tasks.tools.bench.videos import (
    NUM_FRAMES,
    VINO_LATENCY_MS,
    VINO_PAIRS,
    bench_overhead,
    bench_paired,
    bench_vinoground_cold_warm,
    make_clips,
)

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
    samples_data: str = "full",
) -> dict:
    """Run every row; returns the measurements (plus targets met). ``vinoground_pairs=0`` skips the CLI row."""
    work = Path(tempfile.mkdtemp(prefix="temporal-tasks-bench-"))
    try:
        clip_pairs = make_clips(work, pairs, seconds)
        result: dict[str, Any] = {
            "pairs": pairs,
            "clip_seconds": seconds,
            "num_frames": NUM_FRAMES,
            "cpus": os.cpu_count(),
        }
        result.update(bench_paired(clip_pairs, work))
        result.update(bench_overhead(clip_pairs, work))
        result.update(bench_aggregate(payloads))
        if repeats_questions > 0:
            result.update(bench_repeats(questions=repeats_questions))
        if samples:
            result.update(bench_samples(work, full=samples_data == "full"))
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
    p.add_argument(
        "--samples-data",
        choices=["full", "small"],
        default="full",
        help="data of the samples-file rows: the full-size copies (default; the target's figure) or the small "
        "fixtures (a quick check that the rows run)",
    )
    p.set_defaults(func=_cmd_bench)
    return p


def _cmd_bench(args: argparse.Namespace) -> int:
    result = run(
        args.pairs, args.seconds, args.payloads, args.vinoground_pairs, args.latency_ms, args.order,
        args.vinoground_repeats, repeats_questions=args.repeats_questions, samples_data=args.samples_data,
    )  # fmt: skip
    print(format_table(result))
    if args.json:
        print(json.dumps(result))
    return 0
