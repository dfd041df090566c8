"""VELOCITI's data: the annotation table, its validation, and the docs of every task.

Layout (HF ``katha-ai-iiith/VELOCITI``): one annotation table (parquet, at the root or under
``data/``) with columns ``video_id, test_name, event, pos, neg, in_subset``, and
``velociti_videos.zip`` holding ``velociti_videos/{video_id}.mp4``. ``row`` is the 0-based
row number in the table's order; every question id derives from it.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from temporal_tasks.api import Option
from temporal_tasks.benchmarks.velociti import NAME, TESTS
from temporal_tasks.benchmarks.velociti.parsers import MC, YES_NO
from temporal_tasks.harness.kit import (
    YES_NO_OPTIONS,
    BenchmarkData,
    DataError,
    benchmark_data,
    check_files_exist,
    check_unique,
    content_dirs,
    find_in,
    logger,
    option,
    warn_once,
)

FIELDS = ("video_id", "test_name", "event", "pos", "neg", "in_subset")
V1_TESTS = ("agent_iden", "action_mod", "sequence", "ivat")
VIDEO_ZIP = "velociti_videos.zip"
VIDEO_DIR = "velociti_videos"
NEEDS = ("*.parquet", VIDEO_ZIP)  # what an online run downloads (allow_patterns; `*` crosses folders: data/)

# Official CVPR prompts (vidllm_eval.py), verbatim; the entailment one ends with a space.
ENTAIL_PROMPT = (
    "Carefully watch the video and pay attention to the sequence of events, the details and actions of persons.\n"
    "Here is a caption that describes the video: {caption}\n"
    "Based on your observation, does the given video entail the caption? Just answer with either Yes or No. "
)
MC_PROMPT = (
    "Carefully watch the video and pay attention to the sequence of events, the details and actions of persons. "
    "Here are two captions that describe the video. A) {cap1} B) {cap2}\n"
    "Based on your observation, select the caption that best describes the video. Just print either A or B."
)


# --------------------------------------------------------------------------- data


_SHARD = re.compile(r"^(?P<prefix>.+)-(?P<i>\d+)-of-(?P<n>\d+)\.parquet$")


def _tables(root: Path) -> list[list[Path]]:
    """Candidate annotation tables: each root ``*.parquet`` alone, ``data/`` shards grouped per split."""
    tables: list[list[Path]] = [[p] for p in sorted(root.glob("*.parquet"))]
    shards: dict[str, list[tuple[Path, re.Match[str]]]] = defaultdict(list)  # each shard with its name's parts
    data_dir = root / "data"
    for p in sorted(data_dir.rglob("*.parquet")) if data_dir.is_dir() else []:
        m = _SHARD.match(p.name)
        if m:
            shards[str(p.parent / m.group("prefix"))].append((p, m))
        else:
            tables.append([p])
    for prefix, found in sorted(shards.items()):
        files = [p for p, _ in found]
        want = int(found[0][1].group("n"))
        have = sorted(int(m.group("i")) for _, m in found)
        if have != list(range(want)):
            raise DataError(
                f"{NAME}: parquet shards {prefix}-*-of-{want:05d}.parquet are incomplete (have {have}). "
                "Fix: re-download the data/ folder of katha-ai-iiith/VELOCITI."
            )
        tables.append(sorted(files))
    return tables


def _read_table(files: Sequence[Path]):
    import pandas as pd

    try:
        frames = [pd.read_parquet(f) for f in files]
    except Exception as exc:  # pyarrow raises several classes for a broken file
        raise DataError(f"{NAME}: cannot read {files[0]} ({type(exc).__name__}: {exc}). Fix: re-download it.") from None
    return pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0].reset_index(drop=True)


def read_annotations(data: BenchmarkData) -> tuple[list[dict], str]:
    """The annotation rows in table order, and the name of the file(s) they came from.

    Several candidate tables are accepted only if they hold the same rows; otherwise the
    choice would silently change which rows (and row numbers) are evaluated.
    """
    tables = _tables(data.root)
    if not tables:
        raise DataError(
            f"{NAME}: no annotation table (*.parquet) in {data.root} or {data.root / 'data'}. Fix: copy the parquet "
            "file of the Hugging Face dataset katha-ai-iiith/VELOCITI into that folder (same layout as the repo)."
        )
    names = [", ".join(str(f.relative_to(data.root)) for f in files) for files in tables]
    frame = _read_table(tables[0])
    for files, name in zip(tables[1:], names[1:], strict=True):
        other = _read_table(files)
        if list(other.columns) != list(frame.columns) or not other.equals(frame):
            raise DataError(
                f"{NAME}: {data.root} holds several annotation tables that differ ({names[0]} vs {name}). "
                "Fix: keep only the official parquet file of katha-ai-iiith/VELOCITI."
            )
    where = f"{data.root / names[0]}"
    missing = [f for f in FIELDS if f not in frame.columns]
    if missing:
        raise DataError(
            f"{where}: missing column(s) {missing} (has {list(frame.columns)}). This is not the CVPR VELOCITI table; "
            "re-download katha-ai-iiith/VELOCITI."
        )
    if len(frame) == 0:
        raise DataError(f"{where}: the table has no rows. Re-download it.")
    return frame.to_dict("records"), where


def _as_bool(value: Any, where: str) -> bool:
    if isinstance(value, bool) or type(value).__name__ == "bool_":
        return bool(value)
    if isinstance(value, int | float) and value in (0, 1):
        return bool(value)
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    raise DataError(f"{where}: in_subset {value!r} is not a boolean. Re-download the table.")


def _text(value: Any, field: str, where: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise DataError(f"{where}: {field} {value!r} must be a non-empty string. Re-download the table.")
    return value


def _event(value: Any) -> str:
    # Opaque metadata (a string like "Ev3", or a tuple/list for multi-event tests); kept as text.
    if isinstance(value, str):
        return value
    if hasattr(value, "tolist"):
        value = value.tolist()
    if isinstance(value, list | tuple):
        return "(" + ", ".join(str(v) for v in value) + ")"
    return "" if value is None else str(value)


def load_rows(data: BenchmarkData | None = None) -> list[dict]:
    """Validated rows ``{row, video_id, test_name, event, pos, neg, in_subset, video}`` in table order."""
    data = data or benchmark_data(NAME, needs=NEEDS)
    raw, where = read_annotations(data)
    rows = []
    unknown: Counter = Counter()
    for i, r in enumerate(raw):
        at = f"{where} row {i}"
        test = r["test_name"]
        if test not in TESTS:
            unknown[str(test)] += 1
            continue
        video_id = _text(r["video_id"], "video_id", at).strip()
        rows.append(
            {
                "row": i,
                "video_id": video_id,
                "test_name": test,
                "event": _event(r["event"]),
                "pos": _text(r["pos"], "pos", at),
                "neg": _text(r["neg"], "neg", at),
                "in_subset": _as_bool(r["in_subset"], at),
            }
        )
    if unknown:
        v1 = sorted(set(unknown) & set(V1_TESTS))
        hint = " These are test names of the older VELOCITI v1, not the CVPR version." if v1 else ""
        raise DataError(
            f"{where}: unknown test_name value(s) {dict(unknown)}; expected {list(TESTS)}.{hint} "
            "Fix: use the current table of katha-ai-iiith/VELOCITI."
        )
    dirs = content_dirs(data, [VIDEO_ZIP])
    videos: dict[str, Path] = {}
    for r in rows:
        stem = r["video_id"].removesuffix(".mp4")
        if stem not in videos:
            found = find_in(dirs, f"{VIDEO_DIR}/{stem}.mp4") or find_in(dirs, f"{stem}.mp4")
            videos[stem] = found or data.root / VIDEO_DIR / f"{stem}.mp4"
        r["video"] = str(videos[stem])
    check_files_exist(
        videos.values(), f"{NAME} ({where})",
        f"copy {VIDEO_ZIP} of katha-ai-iiith/VELOCITI into {data.root} (it is extracted automatically), "
        f"or unzip it there so that {VIDEO_DIR}/<video_id>.mp4 exists",
    )  # fmt: skip
    counts = Counter(r["test_name"] for r in rows)
    subset = Counter(r["test_name"] for r in rows if r["in_subset"])
    logger.info(
        f"{NAME}: {len(rows)} rows from {where}; per test (full/subset): "
        + ", ".join(f"{t} {counts.get(t, 0)}/{subset.get(t, 0)}" for t in TESTS)
    )
    missing = [t for t in TESTS if not counts.get(t)]
    if missing:
        warn_once(f"{NAME}: {where} has no rows for test(s) {missing}; their metrics are NaN.")
    return rows


def _doc(
    r: dict, qid: str, group: str, role: str, prompt: str, gold: str, parser: str, options: list[Option], **extra: Any
) -> dict:
    return {
        "question_id": qid,
        "group_id": f"{group}/{r['row']}",
        "role": role,
        "group_size": 2,
        "prompt": prompt,
        "gold": gold,
        "parser": parser,
        "options": options,
        "videos": [r["video"]],
        "categories": [r["test_name"]],
        "row": r["row"],
        "video_id": r["video_id"],
        "test_name": r["test_name"],
        "event": r["event"],
        "in_subset": r["in_subset"],
        **extra,
    }


def entail_docs(rows: Iterable[dict]) -> list[dict]:
    """Two docs per row: C+ (gold yes) then C- (gold no), sharing the row's group."""
    docs = []
    for r in rows:
        for role, gold in (("pos", "yes"), ("neg", "no")):
            caption = r[role]
            prompt = ENTAIL_PROMPT.format(caption=caption)
            yes_no = [o.copy() for o in YES_NO_OPTIONS]
            docs.append(
                _doc(r, f"{r['row']}_{role}", "velociti", role, prompt, gold, YES_NO.name, yes_no, caption=caption)
            )
    return docs


def mc_docs(rows: Iterable[dict]) -> list[dict]:
    """Two docs per row: C+ as option A (gold A), then C+ as option B (gold B)."""
    docs = []
    for r in rows:
        for role, cap1, cap2, gold in (("posA", r["pos"], r["neg"], "A"), ("posB", r["neg"], r["pos"], "B")):
            prompt = MC_PROMPT.format(cap1=cap1, cap2=cap2)
            opts = [option("A", cap1), option("B", cap2)]
            docs.append(_doc(r, f"{r['row']}_mc_{role}", "velociti_mc", role, prompt, gold, MC.name, opts, caption=""))
    return docs


def load_docs(data: BenchmarkData | None = None, *, kind: str = "all", subset: bool = False) -> list[dict]:
    """VELOCITI docs: ``kind`` is ``entail`` (StrictVLE, both variants), ``mc``, or ``all`` (both, e.g. for
    replay files covering every task; their ids never collide); ``subset`` keeps the ``in_subset`` rows."""
    if kind not in ("entail", "mc", "all"):
        raise ValueError(f"kind must be 'entail', 'mc' or 'all', not {kind!r}")
    rows = load_rows(data)
    if subset:
        rows = [r for r in rows if r["in_subset"]]
        if not rows:
            raise DataError(f"{NAME}: no row has in_subset == True; the subset task has nothing to evaluate.")
    docs = (entail_docs(rows) if kind != "mc" else []) + (mc_docs(rows) if kind != "entail" else [])
    check_unique((d["question_id"] for d in docs), NAME)
    return docs
