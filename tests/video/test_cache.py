"""The build cache (``video/cache.py``): one builder per file across the threads of a process, under lmms-eval's own
lock patch."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from temporal_tasks.video import cache


@pytest.fixture
def lmms_eval_filelocks(monkeypatch):
    """lmms-eval's own FileLock patch (``evaluator._enable_reentrant_filelocks``, applied by every evaluation):
    one FileLock object per lock path for the whole process. Undone after the test."""
    import filelock
    import filelock._api as filelock_api
    from lmms_eval import evaluator

    monkeypatch.setattr(filelock_api.FileLockMeta, "__call__", filelock_api.FileLockMeta.__call__)
    patch = evaluator._enable_reentrant_filelocks
    monkeypatch.setattr(patch, "_patched", getattr(patch, "_patched", False), raising=False)
    patch()
    return filelock.FileLock


def test_two_threads_of_one_process_under_lmms_evals_lock_patch_build_a_file_once(tmp_path, lmms_eval_filelocks):
    target = tmp_path / "paired_videos" / "n9" / "same.mp4"
    target.parent.mkdir(parents=True)
    builders: list[str] = []
    both = threading.Barrier(2)
    outcomes: dict[str, str] = {}

    def build(path: Path) -> None:
        builders.append(threading.current_thread().name)
        time.sleep(0.3)  # long enough for the other thread to come in, if the lock let it
        cache.atomic_write(path, lambda tmp: tmp.write_bytes(b"built"))

    def ask() -> None:
        both.wait()
        outcomes[threading.current_thread().name] = cache.build_once(target, build)

    threads = [threading.Thread(target=ask, name=f"asker-{i}") for i in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert len(builders) == 1, f"built {len(builders)} times, by {builders}: the lock let both threads in"
    assert sorted(outcomes.values()) == ["built", "cached"] and target.read_bytes() == b"built"
    assert not cache.lock_path(target).exists()
    # the patch was in force: one FileLock object per path (checked after the run: the first call makes the object)
    lock = str(cache.lock_path(target))
    assert lmms_eval_filelocks(lock) is lmms_eval_filelocks(lock, thread_local=False)
