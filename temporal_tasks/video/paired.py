"""Paired videos for two-clip questions: clip A, black frames, clip B, in exactly N frames.

Vinoground's video score asks which of two clips matches a caption, shown as one video. The
paper samples "(N-1)/2 frames from each clip and at least one black frame between them"; the
official files are plain concatenations, so what a model sees depends on clip lengths and on
its sampler. :func:`build_paired_video` writes the paper's input directly:

* ``k = (N - 1) // 2`` frames of the first clip, sampled uniformly over its whole length
  (:func:`~temporal_tasks.video.frames.uniform_indices`), then ``N - 2k`` black frames (1 for odd N,
  2 for even N), then ``k`` frames of the second clip;
* frames are letterboxed to one common size (aspect kept, black padding) when the clips differ;
* a constant frame rate, so a time-based sampler sees the three pieces in the same proportions
  as a frame-count sampler; it is chosen so the file lasts about as long as the official
  concatenation (both clips plus a 2-second gap).

A model that samples the same N frames uniformly (e.g. ``max_num_frames=32`` for N=32) then sees exactly
these frames (:func:`~temporal_tasks.video.frame_count.resolve_num_frames` takes N from the run's model args
when the env var is unset). :func:`cached_paired_video` keys built files by the clips' contents, N and the
order, writes them atomically, builds each once across processes and skips a rebuild on a cache hit
(:mod:`temporal_tasks.video.cache`). :class:`~temporal_tasks.video.builds.BackgroundBuilds` builds a rank's
files ahead of the model's requests.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
from tqdm import tqdm

from temporal_tasks.video.cache import FileBuild, build_once, cache_folder, cached_file, content_hash
from temporal_tasks.video.encode import BUILDER_VERSION, codec, frame_rate, save_video
from temporal_tasks.video.frames import common_size, letterbox, sample_clip

__all__ = [
    "GAP_SECONDS",
    "build_paired_video",
    "build_paired_videos",
    "cached_paired_video",
    "paired_build",
    "paired_cache_path",
    "paired_layout",
]

GAP_SECONDS = 2.0  # the paper's black gap; only used to pick the file's frame rate


def paired_layout(num_frames: int) -> tuple[int, int]:
    """``(frames per clip, black frames)`` for ``num_frames`` = N: ``((N-1)//2, N - 2*((N-1)//2))``."""
    if num_frames < 3:
        raise ValueError(f"num_frames={num_frames}: a paired video needs at least 3 frames")
    k = (num_frames - 1) // 2
    return k, num_frames - 2 * k


def build_paired_video(
    first: str | os.PathLike, second: str | os.PathLike, out_path: str | os.PathLike, num_frames: int = 32
) -> Path:
    """Write ``out_path``: N = ``num_frames`` frames, ``first`` clip, black frames, ``second`` clip.

    Each clip gives ``(N-1)//2`` uniformly sampled frames (:func:`~temporal_tasks.video.frames.uniform_indices`); the
    ``N - 2*((N-1)//2)`` black frames sit between them. Always rebuilds (see
    :func:`cached_paired_video` for the cached form); the write is atomic. Returns ``out_path``.
    """
    k, gap = paired_layout(num_frames)
    first, second, out_path = Path(first), Path(second), Path(out_path)
    a, b = sample_clip(first, k), sample_clip(second, k)
    height, width = common_size(a.frames, b.frames)
    black = np.zeros((gap, height, width, 3), dtype=np.uint8)
    frames = [*letterbox(a.frames, height, width), *black, *letterbox(b.frames, height, width)]
    fps = frame_rate(num_frames, a.duration + GAP_SECONDS + b.duration)
    return save_video(frames, fps, out_path)


def paired_cache_path(first: str | os.PathLike, second: str | os.PathLike, num_frames: int, cache_root: Path) -> Path:
    """Where the paired video of (``first``, ``second``, N) lives in ``cache_root``: keyed by contents, N, order."""
    name, _ = codec()
    raw = f"{content_hash(first)}|{content_hash(second)}|{num_frames}|{name}|v{BUILDER_VERSION}"
    key = hashlib.sha1(raw.encode()).hexdigest()[:20]
    return Path(cache_root) / "paired_videos" / f"n{num_frames}" / f"{key}.mp4"


def paired_build(
    first: str | os.PathLike, second: str | os.PathLike, num_frames: int, cache_root: Path | None = None
) -> FileBuild:
    """The :class:`FileBuild` of the paired video of ``first`` and ``second`` with N = ``num_frames``."""
    first, second, n = Path(first), Path(second), int(num_frames)
    root = cache_folder(cache_root)
    return FileBuild(
        key=("paired", str(first), str(second), n, str(root)),
        target=lambda: paired_cache_path(first, second, n, root),
        build=lambda out: build_paired_video(first, second, out, n),  # looked up at call time (tests replace it)
        what=f"the paired video of {first} and {second} (N={n})",
        hint="Check that both clips decode (re-download them if not).",
    )


def cached_paired_video(
    first: str | os.PathLike, second: str | os.PathLike, num_frames: int, cache_root: Path | None = None
) -> tuple[Path, bool]:
    """The paired video from the cache, built first if missing; returns ``(path, built_now)``."""
    return cached_file(paired_build(first, second, num_frames, cache_root))


def build_paired_videos(
    pairs: Iterable[tuple[str | os.PathLike, str | os.PathLike]],
    num_frames: int,
    cache_root: Path | None = None,
    *,
    progress: bool = True,
    desc: str = "building paired videos",
    workers: int | None = None,
) -> list[Path]:
    """Cached paired videos for many ``(first, second)`` pairs, with a progress bar when 8+ are missing."""
    pairs = list(pairs)
    cache_root = cache_folder(cache_root)
    jobs = [paired_build(a, b, num_frames, cache_root) for a, b in pairs]
    targets = [job.target() for job in jobs]
    missing = [i for i, t in enumerate(targets) if not t.is_file()]
    bar = None
    if progress and len(missing) >= 8:
        bar = tqdm(total=len(missing), desc=desc, unit="video")

    def build(i: int) -> None:
        # another process (a running evaluation's background builds) may own or have built it meanwhile
        build_once(targets[i], jobs[i].build)
        if bar is not None:
            bar.update(1)

    # decord and PyAV release the GIL while decoding/encoding, so threads use every core.
    workers = max(1, min(len(missing), workers or os.cpu_count() or 1))
    try:
        if workers == 1:
            for i in missing:
                build(i)
        else:
            with ThreadPoolExecutor(max_workers=workers) as pool:
                list(pool.map(build, missing))
    finally:
        if bar is not None:
            bar.close()
    return targets
