"""Frame sampling and reading (``video/frames.py``): uniform indices, the official mid-second sampler, and the timing
of the sampled frames."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from temporal_tasks import video
from temporal_tasks.data.fixtures.clips import write_video
from temporal_tasks.video import encode
from tests.helpers.frames import all_frames, mid_second, uniform_expected, uniform_nearest

pytest.importorskip("decord")


def test_fps_indices_follow_the_official_mid_second_sampler():
    from temporal_tasks.video import fps_indices

    # the spec's example: a 10 s clip at 24 fps -> frames 12, 36, ..., 228
    assert fps_indices(240, 24.0, 1.0).tolist() == list(range(12, 240, 24))
    assert fps_indices(20, 2.0, 1.0).tolist() == mid_second(20, 2, 1.0) == list(range(1, 20, 2))
    assert fps_indices(300, 29.97, 1.0).tolist() == [int((i + 0.5) * 30) for i in range(10)]  # rate rounded
    assert fps_indices(5, 10.0, 1.0).tolist() == [2]  # shorter than one interval: the middle frame


def test_read_frames_reports_the_timing_of_the_sampled_frames(tmp_path):
    from temporal_tasks.video import read_frames_with_metadata

    path = write_video(tmp_path / "c.mp4", lambda t: np.full((64, 64, 3), int(255 * t), np.uint8), 20, 2)
    frames, meta = read_frames_with_metadata(path, fps=1)
    assert frames.shape == (10, 64, 64, 3)
    assert meta["frames_indices"] == list(range(1, 20, 2)) and meta["total_num_frames"] == 20
    assert meta["fps"] == pytest.approx(2.0) and meta["duration"] == pytest.approx(10.0)
    assert np.array_equal(frames, all_frames(path)[meta["frames_indices"]])
    frames, meta = read_frames_with_metadata(path, num_frames=8)
    assert meta["frames_indices"] == uniform_nearest(20, 8) and len(frames) == 8


def test_uniform_indices():
    assert video.uniform_indices(40, 15).tolist() == uniform_expected(40, 15)
    assert video.uniform_indices(4, 6).tolist() == [0, 1, 1, 2, 2, 3]
    assert video.uniform_indices(9, 1).tolist() == [4]
    assert isinstance(encode.frame_rate(32, 9.875), Fraction)
