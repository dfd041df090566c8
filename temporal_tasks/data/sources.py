"""One data layer for every benchmark: where the files are, archives, and clear errors.

Offline: ``TEMPORAL_TASKS_DATA_DIR`` holds one folder per benchmark laid out like its Hugging
Face dataset repo; no network call is made at all. Online (the variable unset): the files a task
needs (its annotation files and the archives of the videos it uses, as ``allow_patterns``) are
downloaded from the official repo with ``huggingface_hub.snapshot_download``, using the user's
stored login; the download is resumable and shows a progress bar. Each loader names its needs
(``benchmark_data(name, needs=...)``, and :meth:`BenchmarkData.need` for a later fallback);
this module is the only place that downloads.

Zip archives are extracted once into the cache (``TEMPORAL_TASKS_CACHE_DIR``, default
``~/.cache/temporal_tasks``) atomically: into a temporary folder, then renamed, so concurrent
ranks never see half an extraction.
"""

from __future__ import annotations

import contextlib
import contextvars
import hashlib
import json
import os
import re
import threading
import urllib.request
import zipfile
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from fnmatch import fnmatch
from pathlib import Path
from typing import Any, Literal, overload

from temporal_tasks.api.registry import get
from temporal_tasks.base import settings
from temporal_tasks.base.errors import DataError
from temporal_tasks.base.files import atomic_write, cache_root
from temporal_tasks.base.log import logger
from temporal_tasks.base.run_state import STATE
from temporal_tasks.base.settings import ENV_DATA_DIR


def hf_repo(name: str) -> str:
    """The Hugging Face dataset repo of benchmark ``name`` (its spec's ``hf_repo``); unknown names list the known."""
    return get(name).hf_repo


# The source log: which BenchmarkData the docs being loaded came from (the provenance record names it).
_SOURCES: contextvars.ContextVar[list | None] = contextvars.ContextVar("temporal_tasks_sources", default=None)


def note_source(data: Any) -> None:
    """Called by :func:`benchmark_data`: remember where the docs being loaded come from (for provenance)."""
    seen = _SOURCES.get()
    if seen is not None:
        seen.append(data)


class collect_sources:  # noqa: N801 - used as a context manager, reads like a function
    """``with collect_sources() as found:`` -> the :class:`~temporal_tasks.data.sources.BenchmarkData` used inside."""

    def __enter__(self) -> list:
        self.found: list = []
        self._token = _SOURCES.set(self.found)
        return self.found

    def __exit__(self, *exc: object) -> None:
        _SOURCES.reset(self._token)


# Language-only loading (lm-eval's text controls): no video archive is downloaded, extracted or checked.
_MEDIA = contextvars.ContextVar("temporal_tasks_media", default=True)
# Repo files that are media: video archives and their split parts, video folders, video files.
MEDIA_PATTERNS = (
    "*.zip", "*_part_*", "*.zip.*", "videos/*", "short_video*", "long_video*",
    "*.mp4", "*.mkv", "*.webm", "*.avi", "*.mov",
)  # fmt: skip


@contextlib.contextmanager
def language_only() -> Iterator[None]:
    """Load docs without their videos: media files are not fetched, extracted or checked inside this block.

    For text-only controls (``temporal_tasks.harness.lm_eval_tasks``), which drop the videos anyway; the annotation
    files are read and validated as usual.
    """
    token = _MEDIA.set(False)
    try:
        yield
    finally:
        _MEDIA.reset(token)


def media_needed() -> bool:
    """False inside :func:`language_only`."""
    return _MEDIA.get()


def _without_media(patterns: Iterable[str]) -> list[str]:
    return [p for p in patterns if not any(fnmatch(p, m) for m in MEDIA_PATTERNS)]


@dataclass(frozen=True)
class BenchmarkData:
    """Where one benchmark's files are: the repo-like root plus extracted archive folders."""

    name: str
    root: Path
    offline: bool
    revision: str | None = None  # online: the snapshot's commit, so later downloads add to the same one

    def need(self, patterns: Iterable[str]) -> None:
        """Make sure the files matching ``patterns`` (``allow_patterns`` globs) are here; downloads online only."""
        if self.offline:
            return
        wanted = list(patterns) if media_needed() else _without_media(patterns)
        if wanted:
            _fetch(self.name, wanted, self.revision)

    @overload
    def file(self, relpath: str, *, required: Literal[True] = True, hint: str = "") -> Path: ...

    @overload
    def file(self, relpath: str, *, required: bool, hint: str = "") -> Path | None: ...

    def file(self, relpath: str, *, required: bool = True, hint: str = "") -> Path | None:
        """A file of the repo layout, or a clear error if it is required and missing (None if it is optional)."""
        path = self.root / relpath
        if path.is_file():
            return path
        if required:
            raise DataError(self.missing_message(path, hint))
        return None

    def missing_message(self, path: Path, hint: str = "") -> str:
        where = (
            f"{ENV_DATA_DIR} points at {self.root.parent}"
            if self.offline
            else f"the snapshot of {hf_repo(self.name)} in {self.root}"
        )
        fix = hint or (
            f"copy it from the Hugging Face dataset repo {hf_repo(self.name)} into {self.root} "
            "(same layout as the repo)"
        )
        return f"{self.name}: missing {path} ({where}). Fix: {fix}."


def benchmark_data(
    name: str, needs: Sequence[str] | None = None, root: str | os.PathLike | None = None
) -> BenchmarkData:
    """Locate a benchmark: its offline copy ``<folder>/<name>`` when there is a data folder, else the HF snapshot.

    The data folder is ``root`` when given, else the settings' (``TEMPORAL_TASKS_DATA_DIR``,
    :func:`temporal_tasks.base.settings.data_dir`). ``needs``: the repo files the caller will read, as
    ``allow_patterns`` globs (``*`` crosses folders); online, only those are downloaded (``None``: the whole
    repo). Offline it is ignored.
    """
    repo = hf_repo(name)  # an unknown name stops here, listing the registered ones
    folder = Path(root).expanduser() if root is not None else settings.data_dir()
    if folder is not None:
        copy = folder.resolve() / name
        if not copy.is_dir():
            raise DataError(
                f"{name}: {ENV_DATA_DIR}={folder} but {copy} does not exist. Fix: put a copy of the Hugging Face "
                f"dataset repo {repo} there (same layout), e.g. `temporal-tasks fixtures --out {folder}` for the "
                f"synthetic test copy, or unset {ENV_DATA_DIR} to download it."
            )
        data = BenchmarkData(name, copy, offline=True)
        _note(data)
        return data
    if needs is not None and not media_needed():
        needs = _without_media(needs)
    snapshot = _fetch(name, None if needs is None else list(needs), None)
    data = BenchmarkData(name, snapshot, offline=False, revision=_revision(snapshot))
    _note(data)
    return data


def _note(data: BenchmarkData) -> None:
    note_source(data)  # the provenance record names the data source of the docs being loaded


_COMMIT = re.compile(r"^[0-9a-f]{40}$")
_fetch_lock = threading.Lock()


def _revision(root: Path) -> str | None:
    # The HF cache keeps a snapshot in snapshots/<commit>/; pinning it keeps every file of one run
    # from the same commit even if the repo changes between two downloads.
    return root.name if _COMMIT.match(root.name) else None


def _fetch(name: str, patterns: list[str] | None, revision: str | None) -> Path:
    """Download (resumably, with a progress bar) what is not fetched yet in this evaluation; return the snapshot."""
    with _fetch_lock:
        root, done = STATE.fetched.get(name, (None, set()))
        if root is not None and done is None:
            return root  # the whole repo is here
        covered = done or set()
        # A name or glob already covered by a fetched glob (e.g. short_video.zip by short_video*) is here.
        wanted = None if patterns is None else [p for p in patterns if not any(fnmatch(p, d) for d in covered)]
        if root is not None and wanted == []:
            return root
        root = _download(name, wanted, revision or (_revision(root) if root is not None else None))
        STATE.fetched[name] = (root, None if wanted is None else {*covered, *wanted})
        return root


def _download(name: str, patterns: list[str] | None = None, revision: str | None = None) -> Path:
    repo = hf_repo(name)
    if not repo:  # a registered benchmark without a Hub release: local copies only
        raise DataError(
            f"{name}: no Hugging Face dataset repo is declared for it, so it cannot be downloaded. "
            f"Fix: set {ENV_DATA_DIR} to a folder holding {name}/."
        )
    try:
        from huggingface_hub import snapshot_download
        from huggingface_hub.errors import GatedRepoError, LocalEntryNotFoundError, RepositoryNotFoundError
    except ImportError as exc:  # pragma: no cover - huggingface_hub is a dependency
        raise DataError(f"{name}: huggingface_hub is not installed; `pip install huggingface_hub`.") from exc
    what = "every file" if patterns is None else ", ".join(patterns)

    logger.info(f"{name}: fetching {what} of the Hugging Face dataset {repo} (resumable)")
    try:
        kwargs: dict[str, Any] = {"revision": revision} if revision else {}  # the first download pins nothing
        return Path(snapshot_download(repo_id=repo, repo_type="dataset", allow_patterns=patterns, **kwargs))
    except GatedRepoError:
        raise DataError(
            f"{name}: the Hugging Face dataset {repo} is gated and this login has no access. Fix: open "
            f"https://huggingface.co/datasets/{repo}, accept its terms, then `hf auth login` (or set HF_TOKEN); "
            f"or download it yourself and set {ENV_DATA_DIR}."
        ) from None
    except RepositoryNotFoundError:
        raise DataError(
            f"{name}: cannot see the Hugging Face dataset {repo} (not found, or gated and you are not logged in). "
            f"Fix: `hf auth login` with an account that accepted its terms, or set {ENV_DATA_DIR} to a local copy."
        ) from None
    except LocalEntryNotFoundError:
        raise DataError(
            f"{name}: could not download {repo} (offline, or HF_HUB_OFFLINE is set, and it is not in the HF cache). "
            f"Fix: set {ENV_DATA_DIR} to a folder holding {name}/ laid out like the repo."
        ) from None
    except Exception as exc:  # network errors come in many classes
        raise DataError(
            f"{name}: downloading {repo} failed ({type(exc).__name__}: {exc}). "
            f"Fix: check the network and your HF login, or set {ENV_DATA_DIR} to a local copy."
        ) from None


# --------------------------------------------------------------------------- reading


def read_jsonl(path: Path) -> list[dict]:
    """Read a JSON-lines file; a bad line stops with its line number."""
    rows = []
    with open(path, encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as exc:
                raise DataError(f"{path}:{lineno}: not valid JSON ({exc.msg}). Fix or re-download the file.") from None
            if not isinstance(row, dict):
                raise DataError(f"{path}:{lineno}: expected a JSON object, got {type(row).__name__}.")
            rows.append(row)
    return rows


def read_json(path: Path) -> object:
    """Read a JSON file with a clear error."""
    try:
        with open(path, encoding="utf-8") as fh:
            return json.load(fh)
    except json.JSONDecodeError as exc:
        raise DataError(f"{path}: not valid JSON (line {exc.lineno}: {exc.msg}). Fix or re-download it.") from None


def require_fields(row: dict, fields: Sequence[str], where: str) -> None:
    """Stop if ``row`` lacks one of ``fields``; ``where`` names file and row."""
    missing = [f for f in fields if f not in row]
    if missing:
        raise DataError(
            f"{where}: missing field(s) {missing} (has {sorted(row)}). The file does not follow the official "
            "layout; re-download it or rename the fields."
        )


def check_unique(ids: Iterable[str], where: str) -> None:
    """Stop on duplicate question ids."""
    seen: set[str] = set()
    dups: list[str] = []
    for qid in ids:
        if qid in seen:
            dups.append(qid)
        seen.add(qid)
    if dups:
        raise DataError(f"{where}: duplicate question ids {dups[:10]} ({len(dups)} in all). Remove the repeated rows.")


# Leading bytes of the containers video benchmarks ship (checked at load: no decoding, ~10 us a file).
_VIDEO_MAGIC = (
    (4, b"ftyp"),  # MP4 / MOV / M4V / 3GP
    (4, b"moov"), (4, b"mdat"), (4, b"free"), (4, b"wide"), (4, b"skip"),  # QuickTime without ftyp first
    (0, b"\x1a\x45\xdf\xa3"),  # Matroska / WebM
    (0, b"RIFF"),  # AVI
    (0, b"\x00\x00\x01\xba"), (0, b"\x00\x00\x01\xb3"),  # MPEG-PS
    (0, b"\x47"),  # MPEG-TS sync byte
    (0, b"FLV"), (0, b"OggS"),
)  # fmt: skip


def looks_like_video(path: Path) -> bool:
    """Whether the file starts like a video container (catches truncated or non-video files at load)."""
    with open(path, "rb") as fh:
        head = fh.read(12)
    return any(head[off : off + len(magic)] == magic for off, magic in _VIDEO_MAGIC)


def check_files_exist(paths: Iterable[Path], where: str, fix: str, *, videos: bool = True) -> None:
    """Stop before any model call if a video is missing, empty or not a video container, naming it.

    Skipped inside :func:`language_only` (the videos are not used there).
    """
    if videos and not media_needed():
        return
    missing, empty, corrupt = [], [], []
    for p in dict.fromkeys(paths):
        try:
            size = p.stat().st_size
        except OSError:
            missing.append(p)
            continue
        if size == 0:
            empty.append(p)
        elif videos and not looks_like_video(p):
            corrupt.append(p)
    if missing:
        shown = "\n  ".join(str(p) for p in missing[:10])
        raise DataError(f"{where}: {len(missing)} video file(s) missing:\n  {shown}\nFix: {fix}")
    if empty:
        shown = "\n  ".join(str(p) for p in empty[:10])
        raise DataError(f"{where}: {len(empty)} video file(s) are empty (0 bytes):\n  {shown}\nFix: {fix}")
    if corrupt:
        shown = "\n  ".join(str(p) for p in corrupt[:10])
        raise DataError(
            f"{where}: {len(corrupt)} file(s) are not readable videos (no known container header):\n  {shown}\n"
            f"Fix: {fix}"
        )


def http_get(url: str, timeout: float) -> bytes:
    """The body of ``url`` (urllib; the one small non-Hub download, kept apart so tests can replace it)."""
    with urllib.request.urlopen(url, timeout=timeout) as resp:  # noqa: S310 - a fixed https URL
        return resp.read()


def fetch_json_once(url: str, dest: Path, timeout: float = 10.0) -> Path | None:
    """``dest`` if cached, else ``url`` downloaded into it (only if it parses as JSON); None if that fails.

    A failed attempt is not repeated in the same evaluation, so many loads never wait on it twice.
    """
    if dest.is_file():
        return dest
    if url in STATE.failed_urls:
        return None

    try:
        body = http_get(url, timeout)
        json.loads(body)  # an error page or a captive portal must not be cached as the file
    except Exception as exc:  # network errors come in many classes; the caller degrades gracefully
        STATE.failed_urls.add(url)
        logger.info(f"could not fetch {url} ({type(exc).__name__}: {exc})")
        return None
    atomic_write(dest, lambda tmp: tmp.write_bytes(body))
    logger.info(f"fetched {url} into {dest}")
    return dest


# --------------------------------------------------------------------------- archives


def _archive_key(path: Path) -> str:
    st = path.stat()
    raw = f"{path.resolve()}|{st.st_size}|{st.st_mtime_ns}".encode()
    return hashlib.sha1(raw).hexdigest()[:12]


def extract_zip(archive: Path, bench: str) -> Path:
    """Extract ``archive`` once into the cache and return the folder; atomic and concurrency-safe."""
    target = cache_root() / "extracted" / bench / f"{archive.name.removesuffix('.zip')}-{_archive_key(archive)}"
    if target.is_dir():
        return target

    def extract(tmp: Path) -> None:
        tmp.mkdir(parents=True)
        try:
            with zipfile.ZipFile(archive) as zf:
                bad = zf.testzip()
                if bad is not None:
                    raise zipfile.BadZipFile(f"bad CRC for member {bad}")
                zf.extractall(tmp)
        except (zipfile.BadZipFile, OSError, EOFError) as exc:
            raise DataError(
                f"{bench}: cannot extract {archive} ({exc}). Fix: delete it and download it again."
            ) from None

    return atomic_write(target, extract)  # another process may finish first: its complete copy is used


def content_dirs(data: BenchmarkData, archives: Sequence[str]) -> list[Path]:
    """Folders to look for media in: the root, then each archive (already unpacked in the root or extracted).

    Online, the archives are downloaded first if the loader did not ask for them up front.
    """
    data.need(archives)
    dirs = [data.root]
    if not media_needed():
        return dirs  # language only: the archives' videos are not used
    for name in archives:
        zipped = data.root / name
        if zipped.is_file():
            dirs.append(extract_zip(zipped, data.name))
    return dirs


def find_in(dirs: Sequence[Path], relpath: str) -> Path | None:
    """The first ``dir/relpath`` that exists, or None."""
    for d in dirs:
        p = d / relpath
        if p.exists():
            return p
    return None
