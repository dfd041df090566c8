"""TemporalBench's data: the QA and caption files, the video archives, and the docs of every task.

Layout (HF ``microsoft/TemporalBench``): ``temporalbench_short_qa.json``,
``temporalbench_long_qa.json`` and ``temporalbench_short_caption.json`` (JSON lists of
``{"idx", "video_name", "question", "GT", "category"?, "dataset" | "source_dataset"}``; the source
field is required for QA, optional for captions), videos in
``short_video.zip`` (``short_video/<Dataset>/<clip>.mp4``) and ``long_video_<Dataset>.zip`` or the
older split archive ``long_video_part_aa`` ... (``long_video/...``).
"""

from __future__ import annotations

import hashlib
import re
import threading
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path

from temporal_tasks.api import slug
from temporal_tasks.benchmarks.temporalbench import CAPTION_CATEGORIES, SOURCES
from temporal_tasks.harness.kit import (
    BenchmarkData,
    DataError,
    atomic_write,
    benchmark_data,
    cache_root,
    check_files_exist,
    check_unique,
    content_dirs,
    extract_zip,
    line_options,
    logger,
    media_needed,
    option,
    read_json,
    require_fields,
    warn_once,
)

NAME = "temporalbench"
PARSER = "first_char_ab"  # official rule: GT.lower() == response[0].lower()

FILES = {
    "short_qa": "temporalbench_short_qa.json",
    "long_qa": "temporalbench_long_qa.json",
    "short_caption": "temporalbench_short_caption.json",
}
FIELDS = ("idx", "video_name", "question", "GT")
SOURCE_KEYS = ("dataset", "source_dataset")  # the official scorer reads "dataset"; the README shows the other

# --------------------------------------------------------------------------- archives


_SPLIT_PART = re.compile(r"^(?P<stem>.+?)_part_[a-z]{2,3}$|^(?P<zstem>.+\.zip)\.\d{3}$")
_join_lock = threading.Lock()


def split_archives(root: Path, prefix: str) -> dict[str, list[Path]]:
    """Split archives under ``root`` whose name starts with ``prefix``: ``{stem: [parts in order]}``."""
    found: dict[str, list[Path]] = defaultdict(list)
    for path in sorted(root.glob(f"{prefix}*")):
        m = _SPLIT_PART.match(path.name)
        if m and path.is_file():
            stem = m.group("stem") or m.group("zstem").removesuffix(".zip")
            found[stem].append(path)
    return dict(found)


def join_parts(parts: Sequence[Path], stem: str) -> Path:
    """Concatenate the parts of a split zip once into the cache (atomic) and return the joined zip."""
    key = hashlib.sha1()
    for p in parts:
        st = p.stat()
        key.update(f"{p.resolve()}|{st.st_size}|{st.st_mtime_ns};".encode())
    target = cache_root() / "joined" / NAME / f"{stem}-{key.hexdigest()[:12]}.zip"
    if target.is_file():
        return target

    def join(tmp: Path) -> None:
        with open(tmp, "wb") as out:
            for p in parts:
                with open(p, "rb") as fh:
                    while chunk := fh.read(1 << 24):
                        out.write(chunk)

    with _join_lock:
        try:
            return atomic_write(target, join)  # another process may have won: both copies are identical
        except OSError as exc:
            raise DataError(f"{NAME}: cannot join {[p.name for p in parts]} into {target} ({exc}).") from None


def _video_prefix(part: str) -> str:
    return "short_video" if part.startswith("short") else "long_video"


def needs(*parts: str) -> list[str]:
    """The repo files of ``parts`` (online ``allow_patterns``): their JSONs and only their video archives."""
    files = [FILES[p] for p in parts]
    return [*files, *dict.fromkeys(f"{_video_prefix(p)}*" for p in parts)]


def video_dirs(data: BenchmarkData, part: str) -> list[Path]:
    """Folders holding ``short_video/`` or ``long_video/``: the root, then every extracted archive."""
    prefix = _video_prefix(part)
    data.need([f"{prefix}*"])  # online: the archives, if the caller did not ask for them up front
    if not media_needed():
        return [data.root]  # language only: no archive is joined or extracted
    zips = sorted(p.name for p in data.root.glob(f"{prefix}*.zip") if p.is_file())
    dirs = content_dirs(data, zips)
    for stem, parts in sorted(split_archives(data.root, prefix).items()):
        dirs.append(extract_zip(join_parts(parts, stem), NAME))
    return dirs


def _resolve_video(dirs: Sequence[Path], video_name: str) -> Path:
    rel = video_name.replace("\\", "/").lstrip("/")
    for d in dirs:
        if (d / rel).is_file():
            return d / rel
    # Some archives hold <Dataset>/<clip>.mp4 without the short_video/ prefix.
    head, _, rest = rel.partition("/")
    if rest and head in ("short_video", "long_video"):
        for d in dirs[1:]:
            if (d / rest).is_file():
                return d / rest
    return dirs[0] / rel


# --------------------------------------------------------------------------- loading


def _rows(data: BenchmarkData, part: str, *, source_required: bool = True) -> tuple[Path, list[dict]]:
    path = data.file(FILES[part])
    rows = read_json(path)
    if isinstance(rows, dict):  # tolerate {"data": [...]}-style wrappers of a single list
        lists = [v for v in rows.values() if isinstance(v, list)]
        rows = lists[0] if len(lists) == 1 else rows
    if not isinstance(rows, list) or not rows:
        raise DataError(f"{path}: expected a non-empty JSON list of questions. Re-download it from {data.root}.")
    for i, row in enumerate(rows):
        where = f"{path} item {i}"
        if not isinstance(row, dict):
            raise DataError(f"{where}: expected an object, got {type(row).__name__}.")
        require_fields(row, FIELDS, where)
        if source_required and not any(k in row for k in SOURCE_KEYS):
            raise DataError(
                f"{where} (idx {row['idx']!r}): neither 'dataset' nor 'source_dataset' is present, so the source "
                f"dataset is unknown (has {sorted(row)}). Fix: re-download {path.name} from microsoft/TemporalBench "
                "or add the source field."
            )
        for key in ("idx", "video_name", "question"):
            if not isinstance(row[key], str) or not row[key].strip():
                raise DataError(f"{where}: {key!r} must be a non-empty string, got {row[key]!r}.")
    check_unique((r["idx"] for r in rows), str(path))
    return path, rows


def source_of(row: dict) -> str:
    """The row's source dataset: ``dataset`` wins over ``source_dataset`` (the official scorer reads ``dataset``)."""
    value = row.get("dataset") if row.get("dataset") not in (None, "") else row.get("source_dataset")
    return str(value or "")


def _check_keys(names: set[str], known: Sequence[str], what: str, path: Path) -> None:
    # the data spell them as the official files do ("Action Order"); the spec as metric keys do (their slugs)
    unknown = sorted(n for n in names if slug(n) not in {slug(k) for k in known})
    if unknown:
        warn_once(f"{path}: {what} {unknown} are not in the official data; no per-{what} metric key reports them.")


def load_qa(part: str, data: BenchmarkData | None = None) -> list[dict]:
    """Read and validate ``short_qa`` or ``long_qa`` into our doc schema (stops on any inconsistency)."""
    if part not in ("short_qa", "long_qa"):
        raise ValueError(f"part must be 'short_qa' or 'long_qa', got {part!r}")
    data = data or benchmark_data(NAME, needs=needs(part))
    path, rows = _rows(data, part)
    bad_gt = [(r["idx"], r["GT"]) for r in rows if not (isinstance(r["GT"], str) and r["GT"].upper() in ("A", "B"))]
    if bad_gt:
        raise DataError(f"{path}: GT must be 'A' or 'B'; {len(bad_gt)} row(s) are not, e.g. {bad_gt[:5]}.")

    by_video: dict[str, list[dict]] = defaultdict(list)
    for r in rows:
        by_video[r["video_name"]].append(r)
    for video, members in by_video.items():
        sources = {source_of(m) for m in members}
        if len(sources) != 1 or "" in sources:
            raise DataError(f"{path}: the questions of {video!r} name source(s) {sorted(sources)}; expected one.")
    _check_keys({source_of(r) for r in rows}, SOURCES, "source", path)
    categories = {str(r.get("category") or "") for r in rows} - {""}
    _check_keys(categories, CAPTION_CATEGORIES, "category", path)

    dirs = video_dirs(data, part)
    videos = {v: _resolve_video(dirs, v) for v in by_video}
    check_files_exist(
        videos.values(), f"{NAME} ({path.name})",
        f"put the videos of microsoft/TemporalBench in {data.root}: short_video.zip for short QA, the "
        "long_video_*.zip archives (or long_video_part_* pieces) for long QA, or their unpacked folders",
    )  # fmt: skip

    docs = []
    for r in rows:  # file order: --limit cuts what the user expects
        video = r["video_name"]
        category = str(r.get("category") or "")
        video_cats = sorted({str(m.get("category") or "") for m in by_video[video]} - {""})
        docs.append(
            {
                "question_id": r["idx"],
                "group_id": video,  # MBA group key of the official scorer
                "role": r["idx"],
                "group_size": len(by_video[video]),
                "prompt": r["question"],  # verbatim: it already holds both options and the instruction
                "gold": r["GT"].upper(),
                "parser": PARSER,
                # the captions as the prompt shows them ("A. …\nB. …"); letters alone if the layout differs
                "options": line_options(r["question"]) or [option("A"), option("B")],
                "videos": [str(videos[video])],
                "categories": [source_of(r), *([category] if category else [])],
                "source": source_of(r),
                "category": category,
                "video_categories": video_cats,
                "part": part,
            }
        )
    logger.info(f"{NAME}: {part}: {len(docs)} questions in {len(by_video)} groups (videos) from {path}")
    return docs


def load_docs(data: BenchmarkData | None = None) -> list[dict]:
    """Every binary QA doc (short then long); captions are in :func:`load_caption_docs`."""
    data = data or benchmark_data(NAME, needs=needs("short_qa", "long_qa"))
    return load_qa("short_qa", data) + load_qa("long_qa", data)


def load_caption_docs(data: BenchmarkData | None = None) -> list[dict]:
    """Read and validate the short-video captioning set (``GT`` is the reference caption)."""
    data = data or benchmark_data(NAME, needs=needs("short_caption"))
    # The official get_captioning_score.py reads only idx, video_name and GT: no source field needed.
    path, rows = _rows(data, "short_caption", source_required=False)
    bad = [r["idx"] for r in rows if not isinstance(r["GT"], str) or not r["GT"].strip()]
    if bad:
        raise DataError(f"{path}: GT must be the reference caption (a non-empty string); not so for {bad[:5]}.")
    dirs = video_dirs(data, "short_caption")
    videos = {r["video_name"]: _resolve_video(dirs, r["video_name"]) for r in rows}
    check_files_exist(
        videos.values(), f"{NAME} ({path.name})", f"put short_video.zip of microsoft/TemporalBench in {data.root}"
    )
    return [
        {
            "question_id": r["idx"],
            "group_id": r["idx"],
            "role": "caption",
            "group_size": 1,
            "prompt": r["question"],
            "gold": r["GT"],
            "parser": "",  # free text: no answer parser
            "videos": [str(videos[r["video_name"]])],
            "categories": [source_of(r)] if source_of(r) else [],
            "source": source_of(r),
            "part": "short_caption",
        }
        for r in rows
    ]
