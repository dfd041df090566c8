"""The shortcut variants' files (``video/shortcut_files.py``): seeds, one reproducible frame, a seeded shuffle of the
sampled frames, paired clips kept apart, prebuilt files, and N."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from temporal_tasks import video
from temporal_tasks.base import settings
from temporal_tasks.data.fixtures.clips import moving, resizing, write_video
from temporal_tasks.data.sources import DataError
from temporal_tasks.harness import shortcuts
from temporal_tasks.video import shortcut_files

decord = pytest.importorskip("decord")


def _decode_all(path: Path) -> np.ndarray:
    reader = decord.VideoReader(str(path))
    return reader.get_batch(list(range(len(reader)))).asnumpy().astype(np.int16)


def _nearest(frames: np.ndarray, src: np.ndarray) -> list[int]:
    """For each frame, the index of the closest source frame (mean absolute difference), asserting it is close."""
    out = []
    for f in frames:
        dists = [float(np.abs(f - s.astype(np.int16)).mean()) for s in src]
        j = int(np.argmin(dists))
        assert dists[j] < 3.0, dists[j]
        out.append(j)
    return out


@pytest.fixture
def clip(tmp_path) -> Path:
    # 24 frames of a moving square: every uniformly sampled frame is distinct
    return write_video(tmp_path / "clip.mp4", moving("left_to_right"), num_frames=24)


# --------------------------------------------------------------------------- visuals


def test_seeds_are_stable_and_depend_on_the_question():
    assert shortcut_files.seed_for("a", 1) == shortcut_files.seed_for("a", 1) != shortcut_files.seed_for("a", 2)
    picks = [shortcut_files.frame_choice(str(q), 32) for q in range(200)]
    assert all(0 <= p < 32 for p in picks)
    assert len(set(picks)) > 20  # not one frame for everyone
    # a pinned value: a change of the seed derivation (and so of every published number) fails here
    assert [shortcut_files.frame_choice(q, 32) for q in ("0", "1", "2")] == [11, 16, 4]
    assert shortcut_files.shuffle_order("abc", 8).tolist() == [6, 1, 0, 2, 3, 7, 4, 5]
    for n in (2, 3, 8, 32):
        order = shortcut_files.shuffle_order("abc", n)
        assert sorted(order.tolist()) == list(range(n)) and order.tolist() != list(range(n))


def test_single_frame_is_one_reproducible_image(clip, tmp_path, monkeypatch):
    monkeypatch.setenv("TEMPORAL_TASKS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv(settings.ENV_NUM_FRAMES, "8")
    src = video.sample_clip(clip, 8).frames
    seen = {}
    for qid in [str(i) for i in range(12)]:
        doc = {"question_id": qid, "videos": [str(clip)]}
        first = shortcuts.single_frame_visual(doc)
        assert len(first) == 1 and first[0].mode == "RGB"
        again = np.asarray(shortcuts.single_frame_visual(doc)[0])
        assert np.array_equal(np.asarray(first[0]), again)  # same question, same frame
        # lossless: exactly the sampled frame frame_choice names
        assert np.array_equal(again, src[shortcut_files.frame_choice(qid, 8)])
        seen[qid] = _nearest(again[None].astype(np.int16), src)[0]
    assert len(set(seen.values())) >= 3, seen  # different questions, different frames
    # rebuilt from scratch (another machine, an emptied cache): the same frame
    for p in (tmp_path / "cache").rglob("*.png"):
        p.unlink()
    assert np.array_equal(np.asarray(shortcuts.single_frame_visual({"question_id": "5", "videos": [str(clip)]})[0]),
                          src[shortcut_files.frame_choice("5", 8)])  # fmt: skip


def test_shuffled_video_is_a_permutation_of_the_uniform_frames(clip, tmp_path, monkeypatch):
    monkeypatch.setenv("TEMPORAL_TASKS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv(settings.ENV_NUM_FRAMES, "8")
    [path] = shortcuts.shuffled_visual({"question_id": "0", "videos": [str(clip)]})
    frames = _decode_all(Path(path))
    assert len(frames) == 8
    # the uniformly sampled frames of the clip, decoded independently of the builder
    reader = decord.VideoReader(str(clip))
    idx = np.floor(np.linspace(0, len(reader) - 1, 8) + 0.5).astype(int).tolist()
    src = reader.get_batch(idx).asnumpy()
    order = _nearest(frames, src)
    assert sorted(order) == list(range(8)), order  # every sampled frame exactly once
    assert order != list(range(8))  # and not in the original order
    assert order == shortcut_files.shuffle_order(video.content_hash(clip), 8).tolist()
    # cached: a second question on the same clip gets the same file, not rebuilt
    mtime = Path(path).stat().st_mtime_ns
    again, built = shortcut_files.cached_visual({"question_id": "1", "videos": [str(clip)]}, "shuffled", 8)
    assert (str(again), built, again.stat().st_mtime_ns) == (path, False, mtime)
    assert shortcuts.shuffled_visual({"question_id": "1", "videos": [str(clip)]}) == [path]
    # N is part of the key
    other, built = shortcut_files.cached_visual({"question_id": "1", "videos": [str(clip)]}, "shuffled", 6)
    assert built and other != Path(path) and len(_decode_all(other)) == 6
    assert not list((tmp_path / "cache").rglob("*.tmp.mp4"))


def test_paired_variants_keep_the_clips_apart(tmp_path, monkeypatch):
    monkeypatch.setenv("TEMPORAL_TASKS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv(settings.ENV_NUM_FRAMES, "9")
    a = write_video(tmp_path / "a.mp4", moving("left_to_right"), num_frames=24)
    b = write_video(tmp_path / "b.mp4", resizing(True), num_frames=24)
    doc = {"question_id": "3_pos_video", "videos": [str(a), str(b)], "paired": True}
    k = 4  # (9 - 1) // 2 frames per clip, 1 black frame
    src_a, src_b = video.sample_clip(a, k).frames, video.sample_clip(b, k).frames
    frames = _decode_all(Path(shortcuts.shuffled_visual(doc)[0]))
    assert len(frames) == 9 and frames[k].max() < 20  # the black gap stays in the middle
    first, second = _nearest(frames[:k], src_a), _nearest(frames[k + 1 :], src_b)
    assert sorted(first) == list(range(k)) and sorted(second) == list(range(k))
    assert (first, second) != (list(range(k)), list(range(k)))
    single = _decode_all(Path(shortcuts.single_frame_visual(doc)[0]))
    # the main task's layout (k + black + k frames, so a model that samples N frames finds them), each half one
    # seeded frame of its clip, held
    assert len(single) == 9 and single[k].max() < 20
    assert _nearest(single[:k], src_a) == [shortcut_files.frame_choice("3_pos_video/A", k)] * k
    assert _nearest(single[k + 1 :], src_b) == [shortcut_files.frame_choice("3_pos_video/B", k)] * k


def test_variants_need_one_video_and_a_valid_n(monkeypatch, clip):
    with pytest.raises(Exception, match="exactly one"):
        shortcuts.shuffled_visual({"question_id": "x", "videos": []})
    monkeypatch.setenv(settings.ENV_NUM_FRAMES, "two")
    with pytest.raises(Exception, match="TEMPORAL_TASKS_NUM_FRAMES"):
        shortcuts.single_frame_visual({"question_id": "x", "videos": [str(clip)]})


def test_prebuild_fills_the_cache_the_tasks_read(offline_env, monkeypatch, tmp_path):
    from temporal_tasks.benchmarks.timeblind import tasks as timeblind

    monkeypatch.setenv("TEMPORAL_TASKS_CACHE_DIR", str(tmp_path / "cache"))
    docs = timeblind.load_docs()
    shuffled = shortcut_files.build_shortcut_files(docs, "shuffled", n=4, workers=2)
    assert len(shuffled) == len(docs) and all(p.is_file() for p in shuffled)
    assert len(set(shuffled)) == len({d["videos"][0] for d in docs})  # one file per clip
    frames = shortcut_files.build_shortcut_files(docs, "single_frame", n=4)
    assert all(p.suffix == ".png" and p.is_file() for p in frames)
    monkeypatch.setenv(settings.ENV_NUM_FRAMES, "4")
    # the tasks then only read: nothing is rebuilt
    assert all(not shortcut_files.cached_visual(d, v, 4)[1] for d in docs for v in ("shuffled", "single_frame"))
    assert shortcuts.shuffled_visual(docs[0]) == [str(shuffled[0])]
    with pytest.raises(ValueError, match="no file"):
        shortcut_files.cached_visual(docs[0], "blind", 4)


# --------------------------------------------------------------------------- N rule and background builds


def test_n_follows_the_models_frame_arg_unless_the_env_var_is_set(monkeypatch):
    from temporal_tasks.base import log

    warnings: list[str] = []
    monkeypatch.setattr(log.logger, "warning", warnings.append)
    monkeypatch.delenv(settings.ENV_NUM_FRAMES, raising=False)
    monkeypatch.setattr(sys, "argv", ["lmms_eval", "--model", "openai", "--model_args", "max_frames_num=8,x=1"])
    assert shortcut_files.shortcut_frames() == 8  # the command line lmms-eval was started with

    def simple_evaluate(model_args):  # noqa: ARG001 - read from this frame, as from lmms-eval's own
        return shortcut_files.shortcut_frames()

    assert simple_evaluate("nframes=12") == 12  # simple_evaluate's model args win over sys.argv
    monkeypatch.setattr(sys, "argv", ["lmms_eval"])
    assert shortcut_files.shortcut_frames() == video.DEFAULT_NUM_FRAMES
    monkeypatch.setenv(settings.ENV_NUM_FRAMES, "5")
    assert simple_evaluate("max_frames_num=8") == 5  # the env var wins; the warning names both values once
    assert simple_evaluate("max_frames_num=8") == 5
    assert len(warnings) == 1 and "TEMPORAL_TASKS_NUM_FRAMES=5" in warnings[0] and "max_frames_num=8" in warnings[0]
    monkeypatch.delenv(settings.ENV_NUM_FRAMES)
    with pytest.raises(DataError, match="max_frames_num=2.*at least 3 frames"):
        simple_evaluate("max_frames_num=2")
