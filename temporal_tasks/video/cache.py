"""The build cache: where built files live, content hashes, atomic writes, and one builder per file across processes.

Every built file (paired videos, the shortcut variants' files) is keyed by the contents of its inputs
(:func:`content_hash`), written atomically (:func:`atomic_write`: a temporary file, then a rename, so a
reader sees no file or the whole file) and built once across threads and processes (:func:`build_once`:
the one builder holds an OS file lock beside the target, released by the kernel if its process dies).
:class:`FileBuild` describes one such file; :func:`cached_file` returns it, built first if missing.
"""

from __future__ import annotations

import functools
import hashlib
import os
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from pathlib import Path

from filelock import FileLock, Timeout

from temporal_tasks.base.files import atomic_write, cache_root

__all__ = [
    "FileBuild",
    "atomic_write",
    "build_once",
    "cache_folder",
    "cached_file",
    "content_hash",
    "file_key",
    "is_ready",
    "lock_path",
]


def cache_folder(root: str | os.PathLike | None = None) -> Path:
    """``root`` when given, else the package's cache folder (:func:`temporal_tasks.base.files.cache_root`)."""
    return Path(root) if root is not None else cache_root()


def file_key(path: Path) -> tuple[str, int, int]:
    """``(resolved path, size, mtime)``: a file's identity for in-process memos (a changed file is a new key)."""
    st = path.stat()
    return (str(path.resolve()), st.st_size, st.st_mtime_ns)


def content_hash(path: str | os.PathLike) -> str:
    """SHA-1 of a file's bytes, memoised per (path, size, mtime) in this process."""
    path = Path(path)
    return _hash_of(path, file_key(path))


@functools.lru_cache(maxsize=65536)
def _hash_of(path: Path, key: tuple) -> str:  # noqa: ARG001 - ``key`` (path, size, mtime) is the cache key
    # A cache of a pure function of the file's bytes: a changed file has a new key, so this is not run state.
    h = hashlib.sha1()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def is_ready(path: Path) -> bool:
    """Whether ``path`` is a finished file (atomic writes never leave an empty or torn one)."""
    try:
        return path.stat().st_size > 0
    except OSError:
        return False


def lock_path(target: Path) -> Path:
    """The lock file of ``target``'s builder: ``.<name>.lock`` beside it."""
    return target.with_name(f".{target.name}.lock")


def build_once(target: Path, build: Callable[[Path], object], *, wait: bool = True) -> str:
    """Make ``target`` exist with ``build(target)`` (an atomic writer), at most once across threads and processes.

    The one builder holds a ``filelock`` on ``.<name>.lock`` beside the target (an OS lock: the kernel
    releases it when its process dies, so a killed builder's lock is taken over at once); everyone else waits
    for that lock (``wait=True``) and then finds the target built, or returns ``"busy"`` at once. The lock file
    is removed by its holder. Returns ``"cached"``, ``"built"`` or ``"busy"``.
    """
    if is_ready(target):
        return "cached"
    target.parent.mkdir(parents=True, exist_ok=True)
    # thread_local: each thread holds its own descriptor, so threads of one process exclude each other too
    # (lmms-eval makes FileLock objects singletons per path; a shared counter would let a second thread in).
    lock = FileLock(lock_path(target), thread_local=True)
    try:
        lock.acquire(timeout=-1 if wait else 0)
    except Timeout:
        return "busy"
    try:
        if is_ready(target):  # built by the holder we waited for, or between our check and the lock
            return "cached"
        build(target)
        return "built"
    finally:
        # The lock file goes while still held, so none is left in the cache: a process waiting on it then finds the
        # target built; after a failed build at worst two processes rebuild it, each atomically.
        lock_path(target).unlink(missing_ok=True)
        lock.release()


@dataclass(frozen=True)
class FileBuild:
    """One cached file to build: ``key`` (its identity), ``target()`` (its path, computed when needed: it may
    hash the inputs), ``build(path)`` (an atomic writer), and ``what``/``hint`` naming it in an error."""

    key: Hashable
    target: Callable[[], Path]
    build: Callable[[Path], object]
    what: str
    hint: str = "Check that the clip decodes (re-download it if not)."


def cached_file(job: FileBuild) -> tuple[Path, bool]:
    """``job``'s file from the cache, built first if missing (once across processes); ``(path, built_now)``."""
    path = job.target()
    if is_ready(path):
        return path, False
    return path, build_once(path, job.build) == "built"
