"""Writing frames as a video file: the codec, the constant frame rate, the encoder.

Every built video (paired videos, the shortcut variants' shuffled and paired files) is encoded here, as
H.264 without B-frames when PyAV has libx264 (MPEG-4 otherwise), at a constant frame rate, and written
atomically (:func:`save_video`).
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from pathlib import Path
from typing import Literal

import numpy as np

from temporal_tasks.video.cache import atomic_write

__all__ = ["BUILDER_VERSION", "codec", "encode_video", "frame_rate", "save_video"]

BUILDER_VERSION = "2"  # part of every built file's cache key: bump when the output of the builders changes


def frame_rate(num_frames: int, seconds: float) -> Fraction:
    """The constant rate at which ``num_frames`` frames last about ``seconds`` (between 1/4 and 60 fps)."""
    # constant rate, so time proportions equal frame proportions; about the official file's length
    fps = Fraction(num_frames / seconds).limit_denominator(1000) if seconds > 0 else Fraction(1)
    return min(max(fps, Fraction(1, 4)), Fraction(60))


def codec() -> tuple[Literal["libx264", "mpeg4"], dict[str, str]]:
    """``(codec name, encoder options)`` of built videos; the name is part of their cache keys."""
    import av

    if "libx264" in av.codecs_available:
        # no B-frames: every decoder counts and orders exactly the N frames written. ultrafast encodes
        # 32 frames of 720p about twice as fast as veryfast (bigger files); one thread per rank.
        return "libx264", {"crf": "18", "preset": "ultrafast", "bf": "0", "threads": "1"}
    return "mpeg4", {"qscale": "2"}


def encode_video(frames: Sequence[np.ndarray], fps: Fraction, path: Path) -> None:
    """Encode RGB ``frames`` (each ``(H, W, 3)`` uint8, one size) into the MP4 file ``path`` at ``fps``."""
    import av

    height, width = frames[0].shape[:2]
    name, options = codec()
    with av.open(str(path), mode="w", format="mp4") as container:
        stream = container.add_stream(name, rate=fps)
        stream.width, stream.height = width, height
        stream.pix_fmt = "yuv420p"
        stream.options = {**options}  # a Stream's options are typed dict[str, object]
        for frame in frames:
            for packet in stream.encode(av.VideoFrame.from_ndarray(np.ascontiguousarray(frame), format="rgb24")):
                container.mux(packet)
        for packet in stream.encode():
            container.mux(packet)


def save_video(frames: Sequence[np.ndarray], fps: Fraction, out_path: Path) -> Path:
    """:func:`encode_video` into ``out_path``, atomically (:func:`~temporal_tasks.video.cache.atomic_write`)."""
    # encode_video is looked up at call time (tests replace it)
    return atomic_write(out_path, lambda tmp: encode_video(frames, fps, tmp))
