"""The shortcut variants' files: one seeded frame, or the N sampled frames in a seeded order, of a question's clip.

The task hooks that serve them are :mod:`temporal_tasks.harness.shortcuts`; this module samples, orders and encodes.

* single frame: one PNG, one of the N uniformly sampled frames, picked with a seed derived from the question id
  (:func:`frame_choice`: reproducible; different questions get independent picks);
* shuffled: a video of the same N uniformly sampled frames in a seeded order (:func:`shuffle_order`), seeded by
  the clip's contents, so every question on one clip sees the same file and the cache holds one file per clip.

Vinoground's video-score questions show two clips in one paired video (clip A, black, clip B). There, the single
frame is a paired video of the main task's layout (N frames: one seeded frame of each clip, held for that clip's
frames, the black gap between), and the shuffled video
shuffles each clip's frames *within* its half and keeps the black gap: the model can still tell which clip is A
and which is B, only the temporal order is gone.

Files are keyed by content, N and the seed version (:data:`SEED_VERSION`), written atomically and built once
across processes (:mod:`temporal_tasks.video.cache`); :func:`shortcut_build` describes each one as a
:class:`~temporal_tasks.video.cache.FileBuild`, which the background builds (:mod:`temporal_tasks.video.schedule`)
and :func:`build_shortcut_files` read alike.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

from temporal_tasks.base.errors import DataError
from temporal_tasks.video.cache import FileBuild, atomic_write, cache_folder, cached_file, content_hash
from temporal_tasks.video.encode import BUILDER_VERSION, codec, frame_rate, save_video
from temporal_tasks.video.frame_count import num_frames_in_force
from temporal_tasks.video.frames import common_size, letterbox, sample_clip
from temporal_tasks.video.paired import paired_layout

__all__ = [
    "SEED_VERSION",
    "BUILT_VARIANTS",
    "SHORTCUT_VARIANTS",
    "build_shortcut_files",
    "build_shuffled_video",
    "cached_visual",
    "frame_choice",
    "shortcut_frames",
    "seed_for",
    "shortcut_build",
    "shuffle_order",
    "shuffled_cache_path",
]

SEED_VERSION = "1"  # part of every seed and cache key: bump when the frame choice or the layout changes
# Every shortcut variant (temporal_tasks.harness.shortcuts), in the order tables show them, and those with a file
# to build (blind has none).
SHORTCUT_VARIANTS = ("blind", "single_frame", "shuffled")
BUILT_VARIANTS = SHORTCUT_VARIANTS[1:]


def shortcut_frames(label: str = "shortcuts", log: bool = False) -> int:
    """N: the paired-video rule (:func:`temporal_tasks.video.num_frames_in_force`: ``TEMPORAL_TASKS_NUM_FRAMES``,
    else the model's frame argument in ``--model_args``, else 32); a clear error if it is malformed."""
    return num_frames_in_force(label, log=log, what="shortcut visuals")


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


def _key(*parts: object) -> str:
    raw = "|".join(map(str, (*parts, codec()[0], f"v{BUILDER_VERSION}", f"s{SEED_VERSION}")))
    return hashlib.sha1(raw.encode()).hexdigest()[:20]


def _write_png(frame: np.ndarray, out: Path) -> Path:
    from PIL import Image

    return atomic_write(out, lambda tmp: Image.fromarray(frame).save(tmp, format="PNG"))


# --------------------------------------------------------------------------- single clips


def shuffled_cache_path(video: str | os.PathLike, n: int, cache_root: Path | None = None) -> Path:
    """Where the shuffled N-frame video of ``video`` lives (keyed by its contents, N and the seed)."""
    key = _key("shuffled", content_hash(video), n)
    return cache_folder(cache_root) / "shortcuts" / "shuffled" / f"n{n}" / f"{key}.mp4"


def build_shuffled_video(video: str | os.PathLike, out: str | os.PathLike, n: int) -> Path:
    """Write ``out``: the N uniformly sampled frames of ``video`` in :func:`shuffle_order` (always rebuilds)."""
    clip = sample_clip(Path(video), n)
    order = shuffle_order(content_hash(video), n)
    return save_video(list(clip.frames[order]), frame_rate(n, clip.duration), Path(out))


def _shuffled_build(video: str | os.PathLike, n: int, cache_root: Path | None = None) -> FileBuild:
    video, root = Path(video), cache_folder(cache_root)
    return FileBuild(
        key=("shuffled", str(video), n, str(root)),
        target=lambda: shuffled_cache_path(video, n, root),
        build=lambda out: build_shuffled_video(video, out, n),  # looked up at call time (tests replace it)
        what=f"the shuffled video of {video} (N={n})",
    )


def _single_frame_build(
    video: str | os.PathLike, question_id: str, n: int, cache_root: Path | None = None
) -> FileBuild:
    video, root, pick = Path(video), cache_folder(cache_root), frame_choice(question_id, n)

    def target() -> Path:
        key = _key("single_frame", content_hash(video), n, pick)
        return root / "shortcuts" / "single_frame" / f"n{n}" / f"{key}.png"

    return FileBuild(
        key=("single_frame", str(video), n, pick, str(root)),
        target=target,
        build=lambda out: _write_png(sample_clip(video, n).frames[pick], out),
        what=f"the single frame of {video} (frame {pick} of N={n})",
    )


# --------------------------------------------------------------------------- Vinoground paired videos


def _paired_frames(
    first: Path, second: Path, k: int, gap: int, pick_first: list[int], pick_second: list[int]
) -> list[np.ndarray]:
    """Clip A's chosen frames, ``gap`` black frames, clip B's chosen frames, letterboxed to one size."""
    a, b = sample_clip(first, k).frames, sample_clip(second, k).frames
    height, width = common_size(a, b)
    a, b = letterbox(a[pick_first], height, width), letterbox(b[pick_second], height, width)
    return [*a, *np.zeros((gap, height, width, 3), dtype=np.uint8), *b]


def _paired_layout(first: Path, second: Path, variant: str, question_id: str, n: int, root: Path):
    """``(path, k, gap, total, picks)`` of a paired shortcut video (hashes both clips)."""
    k, gap = paired_layout(n)
    ha, hb = content_hash(first), content_hash(second)
    picks: tuple[list[int], list[int]]  # the frames of each clip, in the order shown
    if variant == "shuffled":
        picks, total = (shuffle_order(ha, k).tolist(), shuffle_order(hb, k).tolist()), n
    elif variant == "single_frame":
        # one seeded frame of each clip, held for the clip's k frames: the main task's layout and length, so a model
        # that samples a fixed frame count (an API model's max_frames_num) finds N frames, as in the main task
        picks, total = ([frame_choice(f"{question_id}/A", k)] * k, [frame_choice(f"{question_id}/B", k)] * k), n
    else:
        raise ValueError(f"no paired video for the {variant!r} variant")
    key = _key("paired", variant, ha, hb, n, *picks)
    return root / "shortcuts" / f"paired_{variant}" / f"n{n}" / f"{key}.mp4", k, gap, total, picks


def _paired_build(
    first: str | os.PathLike, second: str | os.PathLike, variant: str, question_id: str, n: int,
    cache_root: Path | None = None,
) -> FileBuild:  # fmt: skip
    first, second, root = Path(first), Path(second), cache_folder(cache_root)
    if variant not in BUILT_VARIANTS:
        raise ValueError(f"no paired video for the {variant!r} variant")

    def build(out: Path) -> Path:
        _path, k, gap, total, picks = _paired_layout(first, second, variant, question_id, n, root)
        seconds = sample_clip(first, k).duration + sample_clip(second, k).duration
        return save_video(_paired_frames(first, second, k, gap, *picks), frame_rate(total, seconds), out)

    # single_frame picks depend on the question; shuffled ones only on the clips (one file per clip order)
    ident = question_id if variant == "single_frame" else ""
    return FileBuild(
        key=("paired", variant, str(first), str(second), ident, n, str(root)),
        target=lambda: _paired_layout(first, second, variant, question_id, n, root)[0],
        build=build,
        what=f"the {variant} paired video of {first} and {second} (N={n})",
        hint="Check that both clips decode (re-download them if not).",
    )


# --------------------------------------------------------------------------- a question's file


def _single_video(doc: dict, variant: str) -> str:
    videos: Sequence[str] = doc.get("videos") or []
    if len(videos) != 1:
        raise DataError(
            f"{variant}: question {doc.get('question_id')!r} has {len(videos)} videos; this variant needs exactly one."
        )
    return videos[0]


def shortcut_build(doc: dict, variant: str, n: int, cache_root: Path | None = None) -> FileBuild:
    """The :class:`~temporal_tasks.video.cache.FileBuild` of ``doc``'s ``variant`` file (N = ``n``)."""
    if variant not in BUILT_VARIANTS:
        raise ValueError(f"the {variant!r} variant has no file to build (known: single_frame, shuffled)")
    if doc.get("paired"):
        first, second = doc["videos"]
        return _paired_build(first, second, variant, doc["question_id"], n, cache_root)
    if variant == "shuffled":
        return _shuffled_build(_single_video(doc, variant), n, cache_root)
    return _single_frame_build(_single_video(doc, variant), doc["question_id"], n, cache_root)


def cached_visual(doc: dict, variant: str, n: int) -> tuple[Path, bool]:
    """The cached file behind ``doc``'s ``variant`` visual (built first if missing): ``(path, built_now)``.

    The one build-or-reuse entry point: the shortcut hooks, the background builds and :func:`build_shortcut_files`
    all go through :func:`shortcut_build`, so they read the same files.
    """
    return cached_file(shortcut_build(doc, variant, n))


def build_shortcut_files(
    docs: Sequence[dict], variant: str, n: int | None = None, workers: int | None = None
) -> list[Path]:
    """Build every cached ``variant`` file of ``docs`` now (e.g. before a GPU run); returns their paths.

    N is ``n``, else :func:`shortcut_frames`. Threads, as for the paired videos: decord and PyAV release the GIL while
    decoding and encoding.
    """
    n = n or shortcut_frames()
    workers = max(1, min(len(docs), workers or os.cpu_count() or 1))
    with ThreadPoolExecutor(max_workers=workers) as pool:
        return [path for path, _built in pool.map(lambda d: cached_visual(d, variant, n), docs)]
