"""The build cache: where built files live, content hashes, atomic writes, and one builder per file across processes.

Every built file (paired videos, the shortcut variants' files) is keyed by the contents of its inputs
(:func:`content_hash`), written atomically (:func:`atomic_write`: a temporary file, then a rename, so a
reader sees no file or the whole file) and built once across threads and processes (:func:`build_once`:
a lock file next to the target names the one builder; a lock left by a dead process is taken over).
:class:`FileBuild` describes one such file; :func:`cached_file` returns it, built first if missing.
"""

from __future__ import annotations

import functools
import hashlib
import os
import socket
import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from pathlib import Path

from temporal_tasks.files import atomic_write, cache_dir

__all__ = [
    "HOST",
    "FileBuild",
    "atomic_write",
    "build_once",
    "cache_folder",
    "cached_file",
    "content_hash",
    "file_key",
    "is_ready",
    "lock_is_stale",
    "lock_path",
    "try_lock",
]

HOST = socket.gethostname()  # written into lock files: a lock of this host names a process that can be checked
_LOCK_STALE_SECONDS = 600.0  # a lock whose owner cannot be checked (another host) is taken over after this


def cache_folder(root: str | os.PathLike | None = None) -> Path:
    """``root`` when given, else the package's cache folder (:func:`temporal_tasks.files.cache_dir`)."""
    return Path(root) if root is not None else cache_dir()


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


def try_lock(lock: Path) -> bool:
    """Create ``lock`` (``O_EXCL``: one winner) naming this host and process; False when someone holds it."""
    try:
        fd = os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
    except FileExistsError:
        return False
    with os.fdopen(fd, "w") as fh:
        fh.write(f"{HOST} {os.getpid()}\n")
    return True


def lock_is_stale(lock: Path) -> bool:
    """True when the lock's owner is gone (dead process on this host, or an old lock from elsewhere)."""
    try:
        owner = lock.read_text().split()
        age = time.time() - lock.stat().st_mtime
    except OSError:
        return False  # just released: the caller looks again
    if len(owner) == 2 and owner[0] == HOST and owner[1].isdigit():
        try:
            os.kill(int(owner[1]), 0)
        except ProcessLookupError:
            return True
        except OSError:
            pass
        return False
    return age > _LOCK_STALE_SECONDS


def build_once(target: Path, build: Callable[[Path], object], *, wait: bool = True) -> str:
    """Make ``target`` exist with ``build(target)`` (an atomic writer), at most once across threads and processes.

    A lock file next to the target (created with ``O_EXCL``) names the one builder; everyone else
    waits for the target to appear (``wait=True``) or returns ``"busy"`` at once. A lock left by a
    dead process is taken over. Returns ``"cached"``, ``"built"`` or ``"busy"``.
    """
    lock = lock_path(target)
    while True:
        if is_ready(target):
            return "cached"
        target.parent.mkdir(parents=True, exist_ok=True)
        if try_lock(lock):
            try:
                if is_ready(target):  # finished by someone else between our check and the lock
                    return "cached"
                build(target)
                return "built"
            finally:
                lock.unlink(missing_ok=True)
        if lock_is_stale(lock):
            lock.unlink(missing_ok=True)
            continue
        if not wait:
            return "busy"
        time.sleep(0.05)


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
