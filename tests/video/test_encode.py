"""Writing frames as a video file (``video/encode.py``): the constant frame rate, the codec, the encoder."""

from __future__ import annotations

from fractions import Fraction

import av
import numpy as np

from temporal_tasks.video import encode


def test_the_frame_rate_makes_n_frames_last_the_clips_time_within_bounds():
    assert encode.frame_rate(32, 8.0) == Fraction(4)
    assert encode.frame_rate(30, 9.0) == Fraction(10, 3)  # constant, exact: 30 frames in 9 s
    assert encode.frame_rate(3, 60.0) == Fraction(1, 4)  # never slower than 1/4 fps
    assert encode.frame_rate(1000, 1.0) == Fraction(60)  # nor faster than 60
    assert encode.frame_rate(8, 0.0) == Fraction(1)  # no duration known


def test_the_codec_is_h264_without_b_frames_where_pyav_has_it():
    name, options = encode.codec()
    if "libx264" in av.codecs_available:
        assert name == "libx264" and options["bf"] == "0"
    else:
        assert name == "mpeg4"


def test_a_built_video_holds_exactly_the_frames_written_at_the_rate_given(tmp_path):
    rng = np.random.default_rng(0)
    frames = [np.full((32, 48, 3), v, dtype=np.uint8) for v in (0, 128, 255)] + [
        rng.integers(0, 256, (32, 48, 3), dtype=np.uint8)
    ]
    out = encode.save_video(frames, Fraction(2), tmp_path / "v.mp4")
    with av.open(str(out)) as container:
        stream = container.streams.video[0]
        decoded = [f.to_ndarray(format="rgb24") for f in container.decode(stream)]
        assert float(stream.average_rate) == 2.0
    assert len(decoded) == 4 and decoded[0].shape == (32, 48, 3)
    assert [int(round(float(f.mean()))) for f in decoded[:3]] == [0, 128, 255]  # order kept (lossy, flat frames)
    assert [p.name for p in tmp_path.iterdir()] == ["v.mp4"]  # written atomically: no temporary left
