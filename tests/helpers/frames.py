"""Frames read back independently of the package's video code, and the frame indices each sampler must pick,
restated."""

from __future__ import annotations

from pathlib import Path

import numpy as np


def decode_frames(path: Path) -> tuple[np.ndarray, float]:
    """Every frame of ``path`` (int16, for differences) and its average frame rate, read with PyAV (decord2 3.3 and
    3.4 cannot read 96-pixel-wide videos such as a letterboxed paired video: tests/video/test_frames_decoders.py)."""
    import av

    with av.open(str(path)) as container:
        stream = container.streams.video[0]
        frames = [f.to_ndarray(format="rgb24") for f in container.decode(stream)]
        return np.stack(frames).astype(np.int16), float(stream.average_rate)


def uniform_expected(total: int, k: int) -> list[int]:
    """ "k frames uniformly over the whole clip", restated: first and last frame included, evenly spaced in
    between, rounded to the nearest frame."""
    if k == 1:
        return [(total - 1) // 2]
    return [int(np.floor((total - 1) * j / (k - 1) + 0.5)) for j in range(k)]


def mad(a: np.ndarray, b: np.ndarray) -> float:
    """The mean absolute difference of two frames."""
    return float(np.abs(a - b).mean())


def all_frames(path: Path) -> np.ndarray:
    import av

    with av.open(str(path)) as container:
        return np.stack([f.to_ndarray(format="rgb24") for f in container.decode(video=0)])


def uniform_nearest(total: int, k: int) -> list[int]:
    """k frames from first to last, nearest index (the fixture's counts never hit a .5 tie)."""
    return [round(i * (total - 1) / (k - 1)) for i in range(k)]


def mid_second(total: int, native_fps: int, fps: float) -> list[int]:
    """VELOCITI's clip_utils: one frame at t = 0.5/fps, 1.5/fps, … over the whole clip."""
    n = int(total / native_fps * fps)
    return [min(int((i + 0.5) / fps * native_fps), total - 1) for i in range(n)]
