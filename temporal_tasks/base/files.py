"""Files the package writes: the cache folder and the one atomic write.

Below everything but the settings, so the data layer, the video builds and the scorers share it.
"""

from __future__ import annotations

import json
import os
import shutil
import uuid
from collections.abc import Callable
from pathlib import Path

from temporal_tasks.base import settings

__all__ = ["atomic_write", "cache_root", "temporary_name", "write_jsonl"]


def cache_root() -> Path:
    """Our cache root (archives, built videos), created: :func:`temporal_tasks.base.settings.cache_dir`."""
    base = settings.cache_dir()
    base.mkdir(parents=True, exist_ok=True)
    return base


def temporary_name(path: Path) -> Path:
    """A unique hidden name beside ``path`` keeping its suffix (``.x.123.ab12cd34.tmp.mp4``): one per writer."""
    return path.with_name(f".{path.stem}.{os.getpid()}.{uuid.uuid4().hex[:8]}.tmp{path.suffix}")


def atomic_write(out_path: str | os.PathLike, write: Callable[[Path], object]) -> Path:
    """Write ``out_path`` atomically: ``write(tmp)`` fills a temporary path beside it, which is then renamed.

    Concurrent readers (other ranks, other processes) see no file or the whole file, never a torn one; the
    temporary path is removed when ``write`` fails. ``write`` may create a file or a folder at ``tmp``; for a
    folder another writer may have finished first, and its copy is kept. Returns ``out_path``.
    """
    out_path = Path(out_path)
    out_path.parent.mkdir(parents=True, exist_ok=True)
    tmp = temporary_name(out_path)
    try:
        write(tmp)
        try:
            os.replace(tmp, out_path)
        except OSError:
            # A folder: another writer renamed its complete copy first (renames are atomic); use that one.
            if not (tmp.is_dir() and out_path.is_dir()):
                raise
    finally:
        if tmp.is_dir():
            shutil.rmtree(tmp, ignore_errors=True)
        elif tmp.exists():
            tmp.unlink()
    return out_path


def write_jsonl(path: Path, records: list[dict]) -> Path:
    """Write ``records`` as JSON lines (UTF-8, non-ASCII kept) into ``path``, creating its folder."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8") as fh:
        for rec in records:
            fh.write(json.dumps(rec, ensure_ascii=False) + "\n")
    return path
