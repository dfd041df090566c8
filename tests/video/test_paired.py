"""Paired videos (``video/paired.py``): the layout (clip, black gap, clip) with uniform sampling, sizes, frame rate,
the PyAV fallback, the cache key, batch and concurrent builds, failures."""

from __future__ import annotations

import multiprocessing as mp
from pathlib import Path

import av
import numpy as np
import pytest

from temporal_tasks import video
from temporal_tasks.data.fixtures.clips import appearing, moving, resizing, write_video
from temporal_tasks.video import encode, frames, paired
from tests.helpers.frames import decode_frames, mad, uniform_expected


def _build_after_barrier(pairs: list, cache: str, barrier, queue) -> None:
    from temporal_tasks import video

    barrier.wait()
    paths = video.build_paired_videos([(Path(a), Path(b)) for a, b in pairs], 7, Path(cache), progress=False)
    queue.put([str(p) for p in paths])


def test_two_processes_build_the_same_50_paired_videos(tmp_path):
    import decord

    from temporal_tasks.data.fixtures.clips import moving, resizing, write_video

    scenes = [moving("left_to_right"), moving("right_to_left"), moving("top_to_bottom"), resizing(True),
              resizing(False)]  # fmt: skip
    clips = [write_video(tmp_path / f"c{i}.mp4", scenes[i % 5], num_frames=8 + i) for i in range(10)]
    pairs = [(str(a), str(b)) for a in clips for b in clips if a != b][:50]
    ctx = mp.get_context("spawn")
    barrier, queue = ctx.Barrier(2), ctx.Queue()
    procs = [ctx.Process(target=_build_after_barrier, args=(pairs, str(tmp_path / "cache"), barrier, queue))
             for _ in range(2)]  # fmt: skip
    for p in procs:
        p.start()
    results = [queue.get(timeout=300) for _ in procs]
    for p in procs:
        p.join(60)
        assert p.exitcode == 0
    assert results[0] == results[1] and len(set(results[0])) == 50
    for path in results[0]:
        assert len(decord.VideoReader(path)) == 7  # complete, decodable, exactly N frames
    built = list((tmp_path / "cache").rglob("*"))
    assert not [p for p in built if p.is_file() and ".tmp" in p.name]  # no torn temporary file left


def _assert_same_frames(out: np.ndarray, src: np.ndarray, indices: list[int]) -> None:
    """Each output frame is (up to re-encoding noise) the source frame at the expected index, and no other."""
    for j, idx in enumerate(indices):
        dists = [mad(out[j], s) for s in src]
        assert dists[idx] < 2.0, (j, idx, dists[idx])
        # the expected frame is the best match (ties allowed: some scenes hold still for a few frames)
        assert dists[idx] <= min(dists) + 0.25, (j, idx, int(np.argmin(dists)))


@pytest.fixture(scope="module")
def clips(tmp_path_factory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("clips")
    return {
        "right": write_video(d / "right.mp4", moving("left_to_right"), num_frames=40, fps=8),
        "down": write_video(d / "down.mp4", moving("top_to_bottom", "yellow"), num_frames=23, fps=8),
        "grow": write_video(d / "grow.mp4", resizing(True), num_frames=4, fps=8),
        "appear": write_video(d / "appear.mp4", appearing("red", "blue"), num_frames=16, fps=8),
    }


@pytest.mark.parametrize("n", [32, 3, 7, 8, 16])
def test_layout_black_gap_and_uniform_sampling(clips, tmp_path, n):
    first, second = clips["right"], clips["down"]
    out = video.build_paired_video(first, second, tmp_path / "p.mp4", n)
    frames, _ = decode_frames(out)
    k = (n - 1) // 2
    gap = n - 2 * k
    assert len(frames) == n  # exactly N frames, whatever the clip lengths (40 and 23)
    assert gap == (1 if n % 2 else 2)
    src1, _ = decode_frames(first)
    src2, _ = decode_frames(second)
    _assert_same_frames(frames[:k], src1, uniform_expected(len(src1), k))
    _assert_same_frames(frames[k + gap :], src2, uniform_expected(len(src2), k))
    for j in range(k, k + gap):  # the black frames sit between the clips
        assert frames[j].max() <= 12, j
    for j in (*range(k), *range(k + gap, n)):  # no clip frame is black (the scenes have a grey background)
        assert frames[j].mean() > 20, j


def test_n32_gives_15_15_and_2_black(clips, tmp_path):
    out = video.build_paired_video(clips["appear"], clips["right"], tmp_path / "p.mp4", 32)
    frames, _ = decode_frames(out)
    black = [j for j in range(32) if frames[j].max() <= 12]
    assert len(frames) == 32 and black == [15, 16]
    assert video.paired_layout(32) == (15, 2) and video.paired_layout(33) == (16, 1)


def test_order_follows_the_arguments(clips, tmp_path):
    ab = decode_frames(video.build_paired_video(clips["right"], clips["down"], tmp_path / "ab.mp4", 9))[0]
    ba = decode_frames(video.build_paired_video(clips["down"], clips["right"], tmp_path / "ba.mp4", 9))[0]
    assert mad(ab[0], ba[5]) < 2.0 and mad(ab[5], ba[0]) < 2.0
    assert mad(ab[0], ba[0]) > 2.0


def test_short_clip_repeats_frames(clips, tmp_path):
    # a 4-frame clip still contributes 15 frames (indices repeat), so the file has exactly 32
    frames, _ = decode_frames(video.build_paired_video(clips["grow"], clips["right"], tmp_path / "p.mp4", 32))
    assert len(frames) == 32
    src, _ = decode_frames(clips["grow"])
    _assert_same_frames(frames[:15], src, uniform_expected(4, 15))


def _write_sized(path: Path, height: int, width: int, n: int = 10) -> Path:

    with av.open(str(path), mode="w") as container:
        stream = container.add_stream("mpeg4", rate=10)
        stream.width, stream.height = width, height
        stream.pix_fmt = "yuv420p"
        stream.options = {"qscale": "2"}
        for _ in range(n):
            frame = np.full((height, width, 3), 200, dtype=np.uint8)
            for packet in stream.encode(av.VideoFrame.from_ndarray(frame, format="rgb24")):
                container.mux(packet)
        for packet in stream.encode():
            container.mux(packet)
    return path


def test_different_sizes_are_letterboxed(clips, tmp_path):
    wide = _write_sized(tmp_path / "wide.mp4", 48, 96)  # 4608 px > 64x64 = 4096 px: the common size is 48x96
    frames, _ = decode_frames(video.build_paired_video(clips["right"], wide, tmp_path / "p.mp4", 7))
    assert frames.shape == (7, 48, 96, 3)
    first = frames[0]
    # the square 64x64 clip is scaled to 48x48 (aspect kept) and centred: 24 black columns each side
    assert first[:, :20].max() <= 12 and first[:, -20:].max() <= 12
    assert first[:, 28:68].mean() > 20
    assert frames[6].mean() > 150  # the wide clip fills the frame


def test_frame_rate_is_constant_and_matches_total_duration(clips, tmp_path):
    # clips of 40 and 23 frames at 8 fps + the 2 s gap = 9.875 s; 32 frames over that is about 3.24 fps
    out = video.build_paired_video(clips["right"], clips["down"], tmp_path / "p.mp4", 32)
    _, fps = decode_frames(out)
    assert fps == pytest.approx(32 / (40 / 8 + 2 + 23 / 8), rel=0.02)

    with av.open(str(out)) as container:
        pts = [f.pts for f in container.decode(video=0)]
    steps = np.diff(pts)
    assert len(set(steps.tolist())) == 1  # constant: time proportions equal frame proportions


def test_pyav_fallback_gives_the_same_frames(clips, tmp_path, monkeypatch):
    a = video.build_paired_video(clips["right"], clips["down"], tmp_path / "a.mp4", 11)
    monkeypatch.setattr(frames, "_decode_decord", lambda path, k: None)
    frames.clear_frame_cache()
    b = video.build_paired_video(clips["right"], clips["down"], tmp_path / "b.mp4", 11)
    fa, _ = decode_frames(a)
    fb, _ = decode_frames(b)
    assert fa.shape == fb.shape
    assert max(mad(x, y) for x, y in zip(fa, fb, strict=True)) < 1.0


def test_cache_hit_order_and_n_in_key(clips, tmp_path, monkeypatch):
    calls = []
    real = video.build_paired_video

    def counting(*args, **kwargs):
        calls.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(paired, "build_paired_video", counting)
    p1, built1 = video.cached_paired_video(clips["right"], clips["down"], 9, tmp_path)
    p2, built2 = video.cached_paired_video(clips["right"], clips["down"], 9, tmp_path)
    assert built1 and not built2 and p1 == p2 and len(calls) == 1  # the second call is a cache hit
    p3, _ = video.cached_paired_video(clips["down"], clips["right"], 9, tmp_path)
    p4, _ = video.cached_paired_video(clips["right"], clips["down"], 11, tmp_path)
    assert len({p1, p3, p4}) == 3 and len(calls) == 3
    # keyed by contents: a byte-identical copy elsewhere hits the same file
    copy = tmp_path / "copy.mp4"
    copy.write_bytes(Path(clips["right"]).read_bytes())
    p5, built5 = video.cached_paired_video(copy, clips["down"], 9, tmp_path)
    assert p5 == p1 and not built5
    leftovers = [f for f in p1.parent.iterdir() if f.name.startswith(".")]
    assert leftovers == []  # atomic writes leave no temporary file behind


def test_batch_builder_builds_only_missing(clips, tmp_path):
    pairs = [(clips["right"], clips["down"]), (clips["down"], clips["right"]), (clips["right"], clips["down"])]
    paths = video.build_paired_videos(pairs, 5, tmp_path, progress=False)
    assert paths[0] == paths[2] and all(p.is_file() for p in paths)
    mtimes = [p.stat().st_mtime_ns for p in paths]
    assert video.build_paired_videos(pairs, 5, tmp_path, progress=False) == paths
    assert [p.stat().st_mtime_ns for p in paths] == mtimes


def test_concurrent_builders_agree(clips, tmp_path):
    from concurrent.futures import ThreadPoolExecutor

    # several ranks asking for the same missing video at once: each writes its own temporary file and
    # renames it into place, so every reader sees a complete file
    with ThreadPoolExecutor(4) as pool:
        results = list(
            pool.map(lambda _: video.cached_paired_video(clips["right"], clips["appear"], 13, tmp_path), range(8))
        )
    paths = {p for p, _ in results}
    assert len(paths) == 1
    (path,) = paths
    assert len(decode_frames(path)[0]) == 13
    assert [f.name for f in path.parent.iterdir()] == [path.name]


def test_failed_build_leaves_no_file(clips, tmp_path, monkeypatch):
    def broken(frames, fps, path):
        Path(path).write_bytes(b"half a file")
        raise RuntimeError("encoder died")

    monkeypatch.setattr(encode, "encode_video", broken)
    target = tmp_path / "out" / "p.mp4"
    with pytest.raises(RuntimeError):
        video.build_paired_video(clips["right"], clips["down"], target, 5)
    assert list(target.parent.iterdir()) == []  # neither a torn target nor a temp file


def test_too_few_frames_rejected(clips, tmp_path):
    with pytest.raises(ValueError, match="at least 3"):
        video.build_paired_video(clips["right"], clips["down"], tmp_path / "p.mp4", 2)


def test_parallel_batch_build_matches_serial(clips, tmp_path):
    pairs = [(clips["right"], clips["down"]), (clips["appear"], clips["grow"]), (clips["down"], clips["appear"])]
    serial = video.build_paired_videos(pairs, 9, tmp_path / "serial", progress=False, workers=1)
    parallel = video.build_paired_videos(pairs, 9, tmp_path / "parallel", progress=False, workers=3)
    for a, b in zip(serial, parallel, strict=True):
        fa, fb = decode_frames(a)[0], decode_frames(b)[0]
        assert fa.shape == fb.shape == (9, *fa.shape[1:])
        assert mad(fa, fb) == 0.0  # same frames, same encoder settings: identical pictures
