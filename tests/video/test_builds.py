"""Background builds (``video/builds.py``): every planned file built, in the model's order once seen, a request
jumping the queue, locks of other processes and ranks, failures, interruption and shutdown."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import threading
import time
from itertools import permutations
from pathlib import Path

import pytest

from temporal_tasks import video
from temporal_tasks.data.fixtures.clips import appearing, moving, resizing, write_video
from temporal_tasks.video import cache, paired

decord = pytest.importorskip("decord")


@pytest.fixture(scope="module")
def clips(tmp_path_factory) -> list[Path]:
    d = tmp_path_factory.mktemp("bgclips")
    scenes = [moving("left_to_right"), moving("top_to_bottom", "yellow"), resizing(True), appearing("red", "blue")]
    return [write_video(d / f"c{i}.mp4", s, num_frames=10 + i, fps=8) for i, s in enumerate(scenes)]


def _requests(clips: list[Path]) -> list[tuple[str, str, tuple[str, str]]]:
    """12 requests, one per ordered clip pair; prompt lengths all differ and are not in request order."""
    pairs = list(permutations(clips, 2))
    lengths = [(7 * i) % 12 for i in range(len(pairs))]  # a permutation of 0..11
    return [(f"q{i}", "x" * (10 + lengths[i]), (str(a), str(b))) for i, (a, b) in enumerate(pairs)]


def _plan(builds: video.BackgroundBuilds, requests, num_frames: int, root: Path, **kwargs) -> int:
    """Plan paired-video requests ``(key, prompt, (first, second) or None)``: each pair's FileBuild."""
    specs = [(k, p, None if pair is None else video.paired_build(*pair, num_frames, root)) for k, p, pair in requests]
    return builds.plan_builds(specs, **kwargs)


def _get(builds: video.BackgroundBuilds, key, first, second, num_frames: int, root: Path) -> tuple[Path, bool]:
    """Request ``key``'s paired video: ``(path, waited)``."""
    return builds.get_build(key, video.paired_build(first, second, num_frames, root))


@pytest.fixture
def recorded(monkeypatch):
    """Replace the encoder step by a recorder: writes a stub file, logs the build order."""
    order: list[Path] = []
    lock = threading.Lock()

    def fake(first, second, out_path, num_frames=32):
        time.sleep(0.02)
        Path(out_path).parent.mkdir(parents=True, exist_ok=True)
        Path(out_path).write_bytes(b"stub")
        with lock:
            order.append(Path(out_path))
        return Path(out_path)

    monkeypatch.setattr(paired, "build_paired_video", fake)
    return order


def _wait_idle(builds: video.BackgroundBuilds, seconds: float = 30) -> None:
    end = time.monotonic() + seconds
    while builds.alive() and time.monotonic() < end:
        time.sleep(0.01)
    assert builds.alive() == 0


def test_background_builds_every_planned_video_then_the_threads_end(clips, tmp_path, monkeypatch):
    from temporal_tasks.base import log

    infos: list[str] = []
    monkeypatch.setattr(log.logger, "info", infos.append)
    builds = video.BackgroundBuilds("test", workers=2)
    reqs = _requests(clips)
    assert _plan(builds, reqs, 9, tmp_path) == 12
    _wait_idle(builds)
    for key, _prompt, (a, b) in reqs:
        path, waited = _get(builds, key, a, b, 9, tmp_path)
        assert not waited and path == video.paired_cache_path(a, b, 9, tmp_path)
        assert len(decord.VideoReader(str(path))) == 9
    assert "test: background build finished: 12 paired videos built, 0 already cached" in infos[0]
    assert "every paired-video question of this rank served; 0 waited" in infos[-1]
    assert not [t for t in threading.enumerate() if t.name.startswith("test-build")]
    assert not [p for p in (tmp_path / "paired_videos").rglob(".*")]  # no lock or temporary file left


def test_builds_follow_the_models_order_once_seen(clips, tmp_path, recorded):
    builds = video.BackgroundBuilds("test", workers=1)
    reqs = _requests(clips)
    _plan(builds, reqs, 9, tmp_path, start=False)
    by_length = sorted(reqs, key=lambda r: (-len(r[1]), r[1]))  # how the simple Qwen models order them
    for key, _prompt, (a, b) in by_length[:2]:
        _path, waited = _get(builds, key, a, b, 9, tmp_path)
        assert waited  # nothing was started: built right here, ahead of any queue
    builds.start()
    _wait_idle(builds)
    expected = [video.paired_cache_path(a, b, 9, tmp_path) for _k, _p, (a, b) in by_length]
    assert recorded == expected  # the two asked first, then the rest in the model's order


def test_doc_order_is_the_default(clips, tmp_path, recorded):
    builds = video.BackgroundBuilds("test", workers=1)
    reqs = _requests(clips)
    _plan(builds, reqs, 9, tmp_path)
    _wait_idle(builds)
    assert recorded == [video.paired_cache_path(a, b, 9, tmp_path) for _k, _p, (a, b) in reqs]


def test_a_request_jumps_the_queue(clips, tmp_path, recorded):
    builds = video.BackgroundBuilds("test", workers=1)
    reqs = _requests(clips)
    _plan(builds, reqs, 9, tmp_path)
    key, _prompt, (a, b) = reqs[-1]  # last in the queue
    path, _waited = _get(builds, key, a, b, 9, tmp_path)
    assert path.is_file() and recorded.index(path) < len(reqs) - 1
    _wait_idle(builds)
    assert len(recorded) == len(set(recorded)) == 12  # each built once


def test_a_file_locked_by_another_process_is_waited_for_not_rebuilt(clips, tmp_path, recorded):
    a, b = map(str, clips[:2])
    target = video.paired_cache_path(a, b, 9, tmp_path)
    target.parent.mkdir(parents=True)
    lock = cache.lock_path(target)
    # Another process holds the builder's lock, builds when told to, then releases it.
    code = (
        f"import filelock, sys; l = filelock.FileLock({str(lock)!r}); l.acquire(); print('held', flush=True); "
        f"sys.stdin.readline(); open({str(target)!r}, 'wb').write(b'theirs'); l.release()"
    )
    holder = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        builds = video.BackgroundBuilds("test", workers=1)
        _plan(builds, [("q", "p", (a, b))], 9, tmp_path)
        _wait_idle(builds)  # the worker saw the lock and moved on
        assert recorded == []

        def other_process_finishes() -> None:
            time.sleep(0.3)
            holder.stdin.write("go\n")
            holder.stdin.flush()

        threading.Thread(target=other_process_finishes).start()
        path, waited = _get(builds, "q", a, b, 9, tmp_path)
        assert waited and path == target and target.read_bytes() == b"theirs" and recorded == []
    finally:
        holder.kill()
        holder.wait(timeout=30)


def test_two_ranks_planning_the_same_videos_build_each_once(clips, tmp_path, recorded):
    # two ranks (here two schedulers) need the same files: the lock file lets one build, the other waits
    ranks = [video.BackgroundBuilds(f"rank{r}", workers=2) for r in range(2)]
    reqs = _requests(clips)
    for builds in ranks:
        _plan(builds, reqs, 9, tmp_path, start=False)
    for builds in ranks:
        builds.start()
    for builds in ranks:
        _wait_idle(builds)
    for builds in ranks:
        for key, _prompt, (a, b) in reqs:
            assert _get(builds, key, a, b, 9, tmp_path)[0].is_file()
    assert len(recorded) == len(set(recorded)) == 12


def test_a_lock_left_by_a_dead_process_is_taken_over(clips, tmp_path, recorded):
    a, b = map(str, clips[:2])
    target = video.paired_cache_path(a, b, 9, tmp_path)
    target.parent.mkdir(parents=True)
    lock = cache.lock_path(target)
    # A builder killed (SIGKILL) while holding the lock: its lock file stays behind, its OS lock does not.
    code = (
        f"import filelock, os, signal; filelock.FileLock({str(lock)!r}).acquire(); os.kill(os.getpid(), signal.SIGKILL)"
    )
    dead = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert dead.returncode == -9 and lock.exists()
    path, built = video.cached_paired_video(a, b, 9, tmp_path)
    assert built and recorded == [path] and not lock.exists()


def test_a_failed_build_names_the_clip_and_stops_the_run(clips, tmp_path, monkeypatch):
    bad = str(clips[2])

    def broken(first, second, out_path, num_frames=32):
        if bad in (str(first), str(second)):
            raise RuntimeError("moov atom not found")
        Path(out_path).write_bytes(b"stub")
        return Path(out_path)

    monkeypatch.setattr(paired, "build_paired_video", broken)
    builds = video.BackgroundBuilds("test", workers=2)
    reqs = _requests(clips)
    _plan(builds, reqs, 9, tmp_path)
    _wait_idle(builds)
    key, _prompt, (a, b) = next(r for r in reqs if bad not in r[2])
    with pytest.raises(SystemExit, match="moov atom not found") as err:
        _get(builds, key, a, b, 9, tmp_path)  # any next request stops, not only the broken one
    assert bad in str(err.value) and "paired video" in str(err.value)
    with pytest.raises(SystemExit):
        builds.observe(key)


_INTERRUPTED = """
import sys, time, threading
from pathlib import Path
from temporal_tasks import video
from temporal_tasks.video import paired

def slow(first, second, out_path, num_frames=32):
    time.sleep(0.3)
    Path(out_path).write_bytes(b"stub")
    return Path(out_path)

paired.build_paired_video = slow
clips = sys.argv[2:]
pairs = [(a, b) for a in clips for b in clips if a != b]
builds = video.BackgroundBuilds("leak", workers=2)
builds.plan_builds([(i, "p", video.paired_build(*p, 9, Path(sys.argv[1]))) for i, p in enumerate(pairs)])
time.sleep(0.4)
print("threads", builds.alive(), flush=True)
raise KeyboardInterrupt
"""


def test_an_interrupted_run_leaves_no_thread_lock_or_partial_file(clips, tmp_path):
    script = tmp_path / "interrupted.py"
    script.write_text(textwrap.dedent(_INTERRUPTED))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    start = time.monotonic()
    proc = subprocess.run(
        [sys.executable, str(script), str(tmp_path / "cache"), *map(str, clips)],
        capture_output=True, text=True, timeout=60, env=env,
    )  # fmt: skip
    assert "threads 2" in proc.stdout and "KeyboardInterrupt" in proc.stderr
    assert time.monotonic() - start < 30  # the 12 queued builds (3.6 s of work) are dropped, not waited for
    files = list((tmp_path / "cache").rglob("*"))
    built = [p for p in files if p.suffix == ".mp4" and not p.name.startswith(".")]
    assert 0 < len(built) < 12  # the builds under way finished; the rest were dropped
    assert not [p for p in files if p.name.startswith(".")]  # no lock or temporary file left


def test_shutdown_joins_the_threads(clips, tmp_path, recorded):
    builds = video.BackgroundBuilds("test", workers=2)
    _plan(builds, _requests(clips), 9, tmp_path)
    builds.shutdown()
    assert builds.alive() == 0 and len(recorded) < 12
