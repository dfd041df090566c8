"""Shortcut analyses: the same questions with no visual input, one frame, or shuffled frames.

Every benchmark paper checks that its questions need the video's temporal order (TimeBlind
Table 4, VELOCITI §5.5, Vinoground's 0-frame row). The variant tasks ``<task>_blind``,
``<task>_single_frame`` and ``<task>_shuffled`` reuse the main task's YAML (``include:``), so
docs, prompt, parser and aggregation are the main task's; only ``doc_to_visual`` changes:

* :func:`blind_visual`: no visual at all (API models send 0 images);
* :func:`single_frame_visual`: one PIL image, one of the N uniformly sampled frames, picked with a seed
  derived from the question id (reproducible; different questions get independent picks);
* :func:`shuffled_visual`: a video of the same N uniformly sampled frames in a seeded random order.

N is the paired-video rule of :mod:`temporal_tasks.video` (``TEMPORAL_TASKS_NUM_FRAMES``, default
32), so a model sampling N frames uniformly sees exactly these frames. The shuffle is seeded by
the clip's contents: every question on one clip (VELOCITI's C+ and C-, TimeBlind's two questions
per video) sees the same shuffled video, and the cache holds one file per clip. Built files are
keyed by content, N and seed, written atomically and reused; :func:`cached_visual` is the one
build-or-reuse entry point, so a background builder (or :func:`prebuild`) can prepare them before a run.

Vinoground's video-score questions show two clips in one paired video (clip A, black, clip B).
There, ``single_frame`` is a 3-frame paired video (one seeded frame of each clip, one black frame
between), and ``shuffled`` shuffles each clip's frames *within* its half and keeps the black gap:
the model can still tell which clip is A and which is B, only the temporal order is gone.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from temporal_tasks.data import DataError

SEED_VERSION = "1"  # part of every seed and cache key: bump when the frame choice or the layout changes
VARIANTS = ("blind", "single_frame", "shuffled")


def num_frames() -> int:
    """N: ``TEMPORAL_TASKS_NUM_FRAMES`` (the paired-video rule), a clear error if it is malformed."""
    from temporal_tasks.video import num_frames_from_env

    try:
        return num_frames_from_env()
    except ValueError as exc:
        raise DataError(str(exc)) from None


def seed_for(*parts: object) -> int:
    """A 64-bit seed from ``parts`` (stable across processes and Python versions, unlike ``hash``)."""
    raw = "|".join(["temporal-tasks/shortcuts", f"v{SEED_VERSION}", *map(str, parts)])
    return int.from_bytes(hashlib.sha256(raw.encode()).digest()[:8], "little")


def frame_choice(question_id: str, n: int) -> int:
    """Which of the N sampled frames the single-frame variant shows for ``question_id``."""
    return int(np.random.default_rng(seed_for("single_frame", question_id, n)).integers(n))


def shuffle_order(content: str, n: int) -> np.ndarray:
    """The seeded permutation of ``n`` frames for a clip whose content hash is ``content`` (never the identity)."""
    order = np.random.default_rng(seed_for("shuffled", content, n)).permutation(n)
    if n > 1 and np.array_equal(order, np.arange(n)):
        order = np.roll(order, 1)  # "shuffled" must differ from the original order
    return order


def _cache_root(cache_root: Path | None) -> Path:
    if cache_root is not None:
        return Path(cache_root)
    from temporal_tasks.data import cache_dir

    return cache_dir()


def _key(*parts: object) -> str:
    from temporal_tasks.video import BUILDER_VERSION, _codec

    raw = "|".join(map(str, (*parts, _codec()[0], f"v{BUILDER_VERSION}", f"s{SEED_VERSION}")))
    return hashlib.sha1(raw.encode()).hexdigest()[:20]


def _write_png(frame: np.ndarray, out: Path) -> Path:
    from PIL import Image

    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.stem}.{os.getpid()}.{os.urandom(4).hex()}.tmp.png")
    try:
        Image.fromarray(frame).save(tmp, format="PNG")
        os.replace(tmp, out)  # atomic: a concurrent reader sees no file or the whole file
    finally:
        if tmp.exists():
            tmp.unlink()
    return out


# --------------------------------------------------------------------------- single clips


def shuffled_cache_path(video: str | os.PathLike, n: int, cache_root: Path | None = None) -> Path:
    """Where the shuffled N-frame video of ``video`` lives (keyed by its contents, N and the seed)."""
    from temporal_tasks.video import content_hash

    key = _key("shuffled", content_hash(video), n)
    return _cache_root(cache_root) / "shortcuts" / "shuffled" / f"n{n}" / f"{key}.mp4"


def build_shuffled_video(video: str | os.PathLike, out: str | os.PathLike, n: int) -> Path:
    """Write ``out``: the N uniformly sampled frames of ``video`` in :func:`shuffle_order` (always rebuilds)."""
    from temporal_tasks.video import _atomic_write, _frame_rate, _sample_clip, content_hash

    clip = _sample_clip(Path(video), n)
    order = shuffle_order(content_hash(video), n)
    return _atomic_write(list(clip.frames[order]), _frame_rate(n, clip.duration), Path(out))


def cached_shuffled_video(video: str | os.PathLike, n: int, cache_root: Path | None = None) -> tuple[Path, bool]:
    """The shuffled video from the cache, built first if missing; returns ``(path, built_now)``."""
    path = shuffled_cache_path(video, n, cache_root)
    if path.is_file() and path.stat().st_size > 0:
        return path, False
    return build_shuffled_video(video, path, n), True


def cached_single_frame(
    video: str | os.PathLike, question_id: str, n: int, cache_root: Path | None = None
) -> tuple[Path, bool]:
    """The PNG of the frame :func:`frame_choice` picks among ``video``'s N sampled frames; ``(path, built_now)``."""
    from temporal_tasks.video import _sample_clip, content_hash

    pick = frame_choice(question_id, n)
    key = _key("single_frame", content_hash(video), n, pick)
    path = _cache_root(cache_root) / "shortcuts" / "single_frame" / f"n{n}" / f"{key}.png"
    if path.is_file() and path.stat().st_size > 0:
        return path, False
    return _write_png(_sample_clip(Path(video), n).frames[pick], path), True


# --------------------------------------------------------------------------- Vinoground paired videos


def _paired_frames(first: Path, second: Path, k: int, gap: int, pick_first, pick_second) -> list[np.ndarray]:
    """Clip A's chosen frames, ``gap`` black frames, clip B's chosen frames, letterboxed to one size."""
    from temporal_tasks.video import _common_size, _letterbox, _sample_clip

    a, b = _sample_clip(first, k).frames, _sample_clip(second, k).frames
    height, width = _common_size(a, b)
    a, b = _letterbox(a[pick_first], height, width), _letterbox(b[pick_second], height, width)
    return [*a, *np.zeros((gap, height, width, 3), dtype=np.uint8), *b]


def cached_paired_shortcut(
    first: str | os.PathLike, second: str | os.PathLike, variant: str, question_id: str, n: int,
    cache_root: Path | None = None,
) -> tuple[Path, bool]:  # fmt: skip
    """A paired video for a shortcut variant: ``shuffled`` (N frames, each clip shuffled within its half) or
    ``single_frame`` (3 frames: one seeded frame of each clip's k sampled frames, one black frame between)."""
    from temporal_tasks.video import _atomic_write, _frame_rate, _sample_clip, content_hash, paired_layout

    first, second = Path(first), Path(second)
    k, gap = paired_layout(n)
    ha, hb = content_hash(first), content_hash(second)
    if variant == "shuffled":
        picks, total = (shuffle_order(ha, k), shuffle_order(hb, k)), n
    elif variant == "single_frame":
        picks, gap, total = ([frame_choice(f"{question_id}/A", k)], [frame_choice(f"{question_id}/B", k)]), 1, 3
    else:
        raise ValueError(f"no paired video for the {variant!r} variant")
    key = _key("paired", variant, ha, hb, n, *(p.tolist() if hasattr(p, "tolist") else p for p in picks))
    path = _cache_root(cache_root) / "shortcuts" / f"paired_{variant}" / f"n{n}" / f"{key}.mp4"
    if path.is_file() and path.stat().st_size > 0:
        return path, False
    frames = _paired_frames(first, second, k, gap, *picks)
    seconds = _sample_clip(first, k).duration + _sample_clip(second, k).duration
    return _atomic_write(frames, _frame_rate(total, seconds), path), True


# --------------------------------------------------------------------------- doc_to_visual hooks


def _single_video(doc: dict, variant: str) -> str:
    videos: Sequence[str] = doc.get("videos") or []
    if len(videos) != 1:
        raise DataError(
            f"{variant}: question {doc.get('question_id')!r} has {len(videos)} videos; this variant needs exactly one."
        )
    return videos[0]


def blind_visual(doc: dict) -> list:  # noqa: ARG001 - the doc is the main task's, its video is left out
    """``doc_to_visual`` of ``<task>_blind``: nothing, so the model sees the prompt only."""
    return []


def single_frame_visual(doc: dict) -> list:
    """``doc_to_visual`` of ``<task>_single_frame``: one PIL image (a paired video for two-clip questions)."""
    path, _ = cached_visual(doc, "single_frame", num_frames())
    if doc.get("paired"):
        return [str(path)]
    from PIL import Image

    with Image.open(path) as img:
        return [img.convert("RGB")]


def shuffled_visual(doc: dict) -> list[str]:
    """``doc_to_visual`` of ``<task>_shuffled``: the path of the shuffled N-frame video (built on first use)."""
    path, _ = cached_visual(doc, "shuffled", num_frames())
    return [str(path)]


def cached_visual(doc: dict, variant: str, n: int) -> tuple[Path, bool]:
    """The cached file behind ``doc``'s ``variant`` visual (built first if missing): ``(path, built_now)``.

    The one entry point for builders: :func:`single_frame_visual` and :func:`shuffled_visual` read the same files.
    """
    if variant not in ("single_frame", "shuffled"):
        raise ValueError(f"the {variant!r} variant has no file to build (known: single_frame, shuffled)")
    if doc.get("paired"):
        return cached_paired_shortcut(*doc["videos"], variant, doc["question_id"], n)
    if variant == "shuffled":
        return cached_shuffled_video(_single_video(doc, variant), n)
    return cached_single_frame(_single_video(doc, variant), doc["question_id"], n)


def prebuild(docs: Sequence[dict], variant: str, n: int | None = None, workers: int | None = None) -> list[Path]:
    """Build every cached visual of ``variant`` for ``docs`` now (e.g. before a GPU run); returns their paths.

    Threads, as for the paired videos: decord and PyAV release the GIL while decoding and encoding.
    """
    from concurrent.futures import ThreadPoolExecutor

    n = n or num_frames()
    workers = max(1, min(len(docs), workers or os.cpu_count() or 1))
    with ThreadPoolExecutor(max_workers=workers) as pool:
        return [path for path, _built in pool.map(lambda d: cached_visual(d, variant, n), docs)]
