"""Frames of a video: which to take (uniformly spaced, or VELOCITI-style per interval), decoded, memoised.

Only the needed frames are decoded (decord seeks; the PyAV fallback decodes once, converting only the needed
frames). :func:`read_frames` is the one reader of this package's models, so every model sees the frames the
docs describe; :func:`sample_clip` is the builders' (memoised: a clip serves two questions).
:func:`letterbox` and :func:`common_size` fit two clips' frames to one size.
"""

from __future__ import annotations

import functools
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from temporal_tasks.video.cache import file_key

__all__ = [
    "Clip",
    "Sampling",
    "clear_frame_cache",
    "common_size",
    "decode_check",
    "fps_indices",
    "letterbox",
    "read_frames",
    "read_frames_with_metadata",
    "sample_clip",
    "sample_indices",
    "uniform_indices",
]

_MAX_FRAME_CACHE = 4  # sampled-frame arrays kept per process (a clip serves two questions; 720p: ~40 MB each)


def uniform_indices(total: int, k: int) -> np.ndarray:
    """``k`` frame indices spread uniformly over ``total`` frames, first and last included.

    ``linspace(0, total-1, k)`` rounded half up; with ``k == 1`` the middle frame. Indices repeat when a
    clip has fewer than ``k`` frames, so the output always has exactly ``k`` frames.
    """
    if total <= 0:
        raise ValueError("a clip with no frames cannot be sampled")
    if k == 1:
        return np.array([(total - 1) // 2], dtype=np.int64)
    return np.floor(np.linspace(0, total - 1, k) + 0.5).astype(np.int64)


# --------------------------------------------------------------------------- decoding


@dataclass(frozen=True)
class Clip:
    """A clip's sampled frames and what a processor needs to know about their spacing."""

    frames: np.ndarray  # (k, H, W, 3) uint8
    duration: float  # seconds
    indices: tuple[int, ...] = ()  # the sampled frame numbers
    total: int = 0  # frames in the file
    native_fps: float = 0.0  # the file's frame rate (0 if unknown)


def clear_frame_cache() -> None:
    """Forget the memoised frames of this process (a benchmark timing each build from scratch)."""
    _decoded.cache_clear()


Sampling = int | tuple[str, float]
"""How to pick frames: ``k`` uniformly spaced frames, or ``("fps", f)`` (one frame mid-way through each ``1/f`` s)."""


def fps_indices(total: int, native_fps: float, fps: float) -> np.ndarray:
    """VELOCITI's sampler (``utils/clip_utils.process_video``): one frame at the middle of each ``1/fps`` seconds.

    Times ``t = (i + 0.5) / fps`` for every whole interval of the clip, frame ``int(t * round(native_fps))``
    (the official code rounds the native rate); a 10 s clip at ``fps=1`` gives 10 frames, at t = 0.5, …, 9.5 s.
    A clip shorter than one interval gives its middle frame. Without a usable native rate, ``total`` frames
    are taken as one second.
    """
    if total <= 0:
        raise ValueError("a clip with no frames cannot be sampled")
    if fps <= 0:
        raise ValueError(f"fps={fps}: must be positive")
    rate = round(native_fps) if native_fps and native_fps > 0 else total
    rate = max(rate, 1)
    n = int(total / rate * fps + 1e-9)
    if n == 0:
        return np.array([(total - 1) // 2], dtype=np.int64)
    t = (np.arange(n) + 0.5) / fps
    return np.minimum((t * rate).astype(np.int64), total - 1)


def sample_indices(total: int, native_fps: float, how: Sampling) -> np.ndarray:
    """The frame indices ``how`` (see :data:`Sampling`) picks from a clip of ``total`` frames at ``native_fps``."""
    if isinstance(how, tuple):
        return fps_indices(total, native_fps, how[1])
    return uniform_indices(total, how)


def sample_clip(path: Path, k: Sampling) -> Clip:
    """The clip's frames sampled as ``k`` says (see :data:`Sampling`), memoised (each clip serves two questions)."""
    return _decoded(file_key(path), path, k)


@functools.lru_cache(maxsize=_MAX_FRAME_CACHE)
def _decoded(key: tuple, path: Path, k: Sampling) -> Clip:  # noqa: ARG001 - ``key`` (path, size, mtime) is the cache key
    # A cache of a pure function of the file's bytes (a changed file is a new key), not run state.
    clip = _decode_decord(path, k)
    return clip if clip is not None else _decode_pyav(path, k)


def decode_check(path: str | os.PathLike, k: int = 2) -> int:
    """Decode ``k`` frames of ``path`` as a run would; raises if the container is unreadable. Returns k."""
    return len(sample_clip(Path(path), k).frames)


def read_frames(path: str | os.PathLike, num_frames: int | None = None, fps: float | None = None) -> np.ndarray:
    """Decoded RGB frames ``(T, H, W, 3)`` uint8 of one video: ``fps`` (VELOCITI's mid-interval sampler) when
    given, else ``num_frames`` uniformly spaced frames, first and last included (:func:`uniform_indices`).

    Shared by the models of this package so every one of them sees the frames the docs describe.
    """
    return read_frames_with_metadata(path, num_frames, fps)[0]


def read_frames_with_metadata(
    path: str | os.PathLike, num_frames: int | None = None, fps: float | None = None
) -> tuple[np.ndarray, dict]:
    """:func:`read_frames` plus Hugging Face ``VideoMetadata`` fields (``total_num_frames``, ``fps``,
    ``frames_indices``, ``duration``), so processors that encode time (Qwen2.5-VL's ``second_per_grid_ts``)
    know the real spacing of the frames."""
    if fps is not None and fps > 0:
        how: Sampling = ("fps", float(fps))
    elif num_frames is not None and num_frames > 0:
        how = int(num_frames)
    else:
        raise ValueError(f"read_frames: pass num_frames >= 1 or fps > 0 (got num_frames={num_frames}, fps={fps})")
    clip = sample_clip(Path(path), how)
    meta = {
        "total_num_frames": clip.total,
        "fps": clip.native_fps or None,
        "frames_indices": list(clip.indices),
        "duration": clip.duration,
    }
    return clip.frames, meta


def _decode_decord(path: Path, k: Sampling) -> Clip | None:
    """The clip read by decord (the ``decord2`` package; docs/data.md), or None when decord is not installed or
    raises on this file, the only two cases in which :func:`_decoded` reads it with PyAV instead."""
    try:
        import decord
    except ImportError:  # no decord2 wheel for this platform (pyproject.toml)
        return None
    try:
        reader = decord.VideoReader(str(path), ctx=decord.cpu(0), num_threads=1)
        total = len(reader)
        fps = float(reader.get_avg_fps() or 0.0)
        idx = sample_indices(total, fps, k)
        # get_batch seeks to the key frame before each needed frame; nothing else is converted.
        frames = reader.get_batch(idx.tolist()).asnumpy()
    except Exception:  # e.g. decord 0.6.0 on AV1 ("cannot find video stream"), a `decord` left broken by an uninstall
        return None
    duration = total / fps if fps > 0 else float(total)
    return Clip(np.ascontiguousarray(frames), duration, tuple(idx.tolist()), total, fps)


def _decode_pyav(path: Path, k: Sampling) -> Clip:
    import av

    with av.open(str(path)) as container:
        stream = container.streams.video[0]
        total = stream.frames
        if not total:  # no frame count in the header: count packets (no decoding)
            total = sum(1 for p in container.demux(stream) if p.size)
            container.seek(0)
        if not total:
            raise ValueError(f"{path}: no video frames")
        rate = float(stream.average_rate or stream.guessed_rate or 0)
        idx = sample_indices(total, rate, k)
        n_out = len(idx)
        wanted: dict[int, list[int]] = {}
        for pos, frame_no in enumerate(idx.tolist()):
            wanted.setdefault(frame_no, []).append(pos)
        last = int(idx.max())
        frames: list[np.ndarray | None] = [None] * n_out
        seen = None
        for n, frame in enumerate(container.decode(stream)):
            # one sequential pass; frames not needed are never converted to RGB
            if n in wanted:
                arr = frame.to_ndarray(format="rgb24")
                for pos in wanted[n]:
                    frames[pos] = arr
                seen = arr
            if n >= last:
                break
        # a header frame count can exceed what decodes: reuse the last decoded frame
        decoded: list[np.ndarray] = []
        for image in frames:
            if image is None:
                if seen is None:
                    raise ValueError(f"{path}: no frame could be decoded")
                image = seen
            decoded.append(image)
    duration = total / rate if rate > 0 else float(total)
    return Clip(np.stack(decoded), duration, tuple(idx.tolist()), total, rate)


# --------------------------------------------------------------------------- fitting two clips to one size


def _even(x: int) -> int:
    return x + (x % 2)


def letterbox(frames: np.ndarray, height: int, width: int) -> np.ndarray:
    """Resize keeping the aspect ratio, centred on a black ``height`` x ``width`` canvas."""
    h, w = frames.shape[1:3]
    if (h, w) == (height, width):
        return frames
    from PIL import Image
    from PIL.Image import Resampling

    scale = min(height / h, width / w)
    nh, nw = max(1, round(h * scale)), max(1, round(w * scale))
    out = np.zeros((len(frames), height, width, 3), dtype=np.uint8)
    top, left = (height - nh) // 2, (width - nw) // 2
    for i, frame in enumerate(frames):
        img = frame if (nh, nw) == (h, w) else np.asarray(Image.fromarray(frame).resize((nw, nh), Resampling.BILINEAR))
        out[i, top : top + nh, left : left + nw] = img
    return out


def common_size(a: np.ndarray, b: np.ndarray) -> tuple[int, int]:
    """``(height, width)`` two clips' frames (``(k, H, W, 3)`` arrays) are letterboxed into."""
    # the larger clip keeps its resolution; the other is letterboxed into it (even sizes for yuv420p)
    ha, wa = a.shape[1:3]
    hb, wb = b.shape[1:3]
    h, w = (ha, wa) if ha * wa >= hb * wb else (hb, wb)
    return _even(h), _even(w)
