"""The two frame readers agree: the decord path (the ``decord2`` package) and the PyAV fallback.

On the fixtures' clips, on the paired videos built from them, and on an AV1 clip written here, which the decord
path must read itself: identical frames (decord2 3.3 bundles FFmpeg 8.0, PyAV 15 FFmpeg 7.1; measured identical,
and identical to decord 0.6.0's, on MPEG-4 Part 2, H.264, VP9 and AV1). Two defects of decord2 the reader must
survive: videos 16, 24, 32, 48, 96 or 144 pixels wide (of every even width from 16 to 2,048) come back with a
wrong channel count and ``get_batch`` raises; and 3.4.0, imported before torch, made torch crash (pyproject.toml
keeps it out). docs/data.md ("The video decoder") says what these mean for a run.
"""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import av
import numpy as np
import pytest

from temporal_tasks import video
from temporal_tasks.data.fixtures import write_fixtures
from temporal_tasks.data.fixtures.clips import moving, write_frames, write_video
from temporal_tasks.video import frames

decord = pytest.importorskip("decord")

SAMPLINGS = [8, 32, ("fps", 1.0)]  # uniform (fewer and more frames than the clips have) and VELOCITI's sampler


@pytest.fixture(scope="module")
def fixture_clips(tmp_path_factory) -> list[Path]:
    """Every clip of the small fixtures: the loose files and those inside the zip archives."""
    root = tmp_path_factory.mktemp("fixtures")
    write_fixtures(root / "data")
    clips = sorted((root / "data").rglob("*.mp4"))
    for archive in sorted((root / "data").rglob("*.zip")):
        with zipfile.ZipFile(archive) as zf:
            for name in zf.namelist():
                if name.endswith(".mp4"):
                    out = root / "unzipped" / archive.stem / name
                    out.parent.mkdir(parents=True, exist_ok=True)
                    out.write_bytes(zf.read(name))
                    clips.append(out)
    return clips


@pytest.fixture(scope="module")
def av1_clip(tmp_path_factory) -> Path:
    if "libaom-av1" not in av.codecs_available:
        pytest.skip("PyAV was built without the libaom-av1 encoder: no AV1 clip can be written here")
    path = tmp_path_factory.mktemp("av1") / "square.mp4"
    return write_video(path, moving("left_to_right"), num_frames=16, fps=8, codec="libaom-av1")


def _codec(path: Path) -> str:
    with av.open(str(path)) as container:
        return container.streams.video[0].codec_context.name


def _both_paths(path: Path, how: frames.Sampling) -> tuple[frames.Clip, frames.Clip]:
    by_decord = frames._decode_decord(path, how)
    assert by_decord is not None, f"{path}: the decord path fell back"
    return by_decord, frames._decode_pyav(path, how)


@pytest.mark.parametrize("how", SAMPLINGS, ids=str)
def test_fixture_clips_same_frames_through_both_paths(fixture_clips, how):
    assert len(fixture_clips) >= 20  # every benchmark's clips, loose and zipped
    for path in fixture_clips:
        a, b = _both_paths(path, how)
        assert (a.indices, a.total) == (b.indices, b.total), path
        assert a.native_fps == pytest.approx(b.native_fps) and a.duration == pytest.approx(b.duration), path
        # identical, pixel for pixel (decord2 3.4's FFmpeg 8.1 rounds MPEG-4 Part 2, whose standard fixes the
        # inverse DCT only to an accuracy, one level away from PyAV on a few values: this is where it shows)
        assert np.array_equal(a.frames, b.frames), path


@pytest.mark.parametrize("n", [8, 32])
def test_paired_videos_identical_through_both_paths(fixture_clips, tmp_path, monkeypatch, n):
    pairs = [(p, p.with_name(p.name.replace("_pos", "_neg"))) for p in fixture_clips if p.name.endswith("_pos.mp4")]
    assert len(pairs) >= 4  # Vinoground's pos/neg clips
    frames.clear_frame_cache()
    by_decord = [video.build_paired_video(a, b, tmp_path / f"decord_{i}.mp4", n) for i, (a, b) in enumerate(pairs)]
    monkeypatch.setattr(frames, "_decode_decord", lambda path, k: None)  # every clip through PyAV
    frames.clear_frame_cache()
    by_pyav = [video.build_paired_video(a, b, tmp_path / f"pyav_{i}.mp4", n) for i, (a, b) in enumerate(pairs)]
    frames.clear_frame_cache()
    for x, y in zip(by_decord, by_pyav, strict=True):
        assert _codec(x) == _codec(y)
        # same sampled frames, same single-threaded encoder settings: the same file, byte for byte
        assert x.read_bytes() == y.read_bytes(), (x, y)


def test_av1_read_by_decord_without_fallback(av1_clip, monkeypatch):
    assert _codec(av1_clip) in {"libdav1d", "av1", "libaom-av1"}
    reference = frames._decode_pyav(av1_clip, 8)

    def no_fallback(path, k):
        raise AssertionError(f"{path}: the decord path fell back to PyAV")

    monkeypatch.setattr(frames, "_decode_pyav", no_fallback)
    frames.clear_frame_cache()
    clip = frames.sample_clip(av1_clip, 8)
    frames.clear_frame_cache()
    assert clip.total == 16 and clip.frames.shape == (8, 64, 64, 3)
    assert clip.indices == reference.indices
    assert np.array_equal(clip.frames, reference.frames)  # AV1 fixes every output bit: identical to PyAV's


def test_old_decord_that_cannot_open_av1_falls_back_to_pyav(av1_clip, monkeypatch):
    # decord 0.6.0 (still pinned by other packages; it installs the same `decord` module) raises this on AV1
    reference = frames._decode_decord(av1_clip, 8)
    assert reference is not None

    def old_reader(*args, **kwargs):
        raise decord.DECORDError("video_reader.cc:151: ERROR cannot find video stream with wanted index: -1")

    monkeypatch.setattr(decord, "VideoReader", old_reader)
    frames.clear_frame_cache()
    clip = frames.sample_clip(av1_clip, 8)
    frames.clear_frame_cache()
    assert clip.indices == reference.indices
    assert np.array_equal(clip.frames, reference.frames)


@pytest.mark.parametrize("width", [96, 144])
def test_widths_decord2_cannot_read_come_from_pyav(tmp_path, width):
    # decord2 3.4 pads these rows to a multiple of the width and reads (48, 96, 4) frames; get_batch raises, and
    # the reader must then take PyAV's frames (if a later decord2 reads them, its frames must be PyAV's too)
    rng = np.random.default_rng(width)
    path = write_frames(tmp_path / "narrow.mp4", [rng.integers(0, 255, (48, width, 3), dtype=np.uint8)] * 6)
    frames.clear_frame_cache()
    clip = frames.sample_clip(path, 4)
    frames.clear_frame_cache()
    reference = frames._decode_pyav(path, 4)
    assert clip.frames.shape == (4, 48, width, 3)
    assert clip.indices == reference.indices and np.array_equal(clip.frames, reference.frames)


def test_torch_still_works_when_decord_is_imported_first():
    # decord2 3.4.0 dlopens every library of the nvidia-* wheels (torch's CUDA build brings them) with RTLD_GLOBAL
    # at import; torch imported after it then crashed (segfault) in a CPU matrix product. A fresh interpreter:
    pytest.importorskip("torch")
    code = "import decord, torch; print(torch.nn.Linear(128, 256)(torch.randn(64, 128)).shape)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, f"exit {out.returncode}: {out.stderr[-2000:]}"
    assert "torch.Size([64, 256])" in out.stdout
