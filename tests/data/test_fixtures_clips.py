"""The fixtures' synthetic clips (``data/fixtures/clips.py``): each scene where it should be at t=0 and t=1, and
``write_video``/``write_frames`` round-tripping through a real decoder."""

from __future__ import annotations

import av
import numpy as np
import pytest

from temporal_tasks.data.fixtures.clips import BG, COLORS, SIZE, appearing, moving, resizing, write_frames, write_video

RED, GREEN, BLUE = COLORS["red"], COLORS["green"], COLORS["blue"]


def _is(frame: np.ndarray, y: int, x: int, color) -> bool:
    return tuple(int(c) for c in frame[y, x]) == tuple(color)


def test_a_moving_square_starts_at_one_edge_and_ends_at_the_other():
    scene = moving("left_to_right")
    start, end = scene(0.0), scene(1.0)
    assert start.shape == (SIZE, SIZE, 3) and start.dtype == np.uint8
    # t=0: centre x=10 (10 + 44*0), half 7 -> columns 3..16; t=1: centre x=54 -> columns 47..60
    assert _is(start, 32, 10, RED) and _is(start, 32, 3, RED) and _is(start, 32, 17, BG) and _is(start, 32, 54, BG)
    assert _is(end, 32, 54, RED) and _is(end, 32, 46, BG) and _is(end, 32, 10, BG)
    down = moving("top_to_bottom", "yellow")
    assert _is(down(0.0), 10, 32, COLORS["yellow"]) and _is(down(1.0), 54, 32, COLORS["yellow"])
    assert _is(moving("right_to_left")(0.0), 32, 54, RED) and _is(moving("bottom_to_top")(1.0), 10, 32, RED)


def test_a_resizing_square_grows_or_shrinks_around_the_centre():
    grow = resizing(True)
    # half 4 at t=0 (rows/columns 28..35), half 26 at t=1 (6..57)
    assert _is(grow(0.0), 32, 28, GREEN) and _is(grow(0.0), 32, 27, BG) and _is(grow(0.0), 32, 36, BG)
    assert _is(grow(1.0), 6, 6, GREEN) and _is(grow(1.0), 5, 5, BG) and _is(grow(1.0), 57, 57, GREEN)
    shrink = resizing(False, "red")
    assert _is(shrink(0.0), 6, 6, RED) and _is(shrink(1.0), 6, 6, BG)


def test_appearing_squares_come_in_order():
    scene = appearing("red", "blue")
    assert (scene(0.0) == np.array(BG, dtype=np.uint8)).all()  # nothing yet
    assert _is(scene(0.2), 32, 20, RED) and _is(scene(0.2), 32, 44, BG)
    assert _is(scene(0.6), 32, 20, RED) and _is(scene(0.6), 32, 44, BLUE)


def _decoded(path) -> list[np.ndarray]:
    with av.open(str(path)) as container:
        return [f.to_ndarray(format="rgb24") for f in container.decode(video=0)]


def test_write_video_round_trips_the_frame_count_and_size(tmp_path):
    path = write_video(tmp_path / "sub" / "clip.mp4", moving("left_to_right"), num_frames=12, fps=4)
    frames = _decoded(path)
    assert path.is_file() and len(frames) == 12 and frames[0].shape == (SIZE, SIZE, 3)
    # near-lossless: the first frame's square is still red where the scene put it, and gone at the far edge
    assert np.abs(frames[0][32, 10].astype(int) - RED).max() < 30
    assert np.abs(frames[0][32, 54].astype(int) - BG).max() < 30
    assert list(tmp_path.joinpath("sub").iterdir()) == [path]  # an atomic write leaves no temporary file


def test_write_frames_at_its_fps(tmp_path):
    frames = [np.full((32, 48, 3), v, dtype=np.uint8) for v in (0, 128, 255)]
    path = write_frames(tmp_path / "f.mp4", frames, fps=3)
    with av.open(str(path)) as container:
        stream = container.streams.video[0]
        assert (stream.width, stream.height, stream.average_rate) == (48, 32, 3)
    assert len(_decoded(path)) == 3


def test_bad_codec_or_scene_size_is_a_clear_error(tmp_path):
    with pytest.raises(ValueError, match="codec 'h265' is not one of"):
        write_frames(tmp_path / "x.mp4", [np.zeros((8, 8, 3), np.uint8)], codec="h265")
    with pytest.raises(ValueError, match="scene size does not match the video size"):
        write_video(tmp_path / "y.mp4", moving("left_to_right"), num_frames=2, size=32)
    assert not list(tmp_path.iterdir())
