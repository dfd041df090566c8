"""Vinoground (Zhang, Cai, Lee; arXiv 2410.02763): text, video and group score over 500 pairs.

Layout (HF ``HanSolo9682/Vinoground``): ``vinoground.csv`` (``index, major, minor, pos_cap,
neg_cap``, ...), ``vinoground_textscore.json`` and ``vinoground_videoscore.json`` (lists of
``{"idx": "0_pos", "video_name", "question", "GT"}``, at the root and/or inside the unzipped
folders), ``vinoground_videos.zip`` (``vinoground_videos/{i}_pos.mp4``, ``{i}_neg.mp4``) and
``vinoground_videos_concated.zip`` (the official pre-built two-clip videos, named by ``video_name``).

Prompts and gold letters come from the JSONs (the options are shuffled). Pair ``i`` is one group
with roles ``pos_text, neg_text, pos_video, neg_video``; a pair's text (video) score needs both
text (video) answers right, its group score all four. Scores are percentages over pairs.

Task variants: ``group`` (all questions; video-score questions see a paired video built by
:mod:`temporal_tasks.video` with the paper's frame split), ``official`` (the same, fed the
official pre-built files), ``text``, ``video`` and ``text_blind`` (text-score questions, no video).
"""

from __future__ import annotations

import csv
import re
from collections.abc import Callable, Sequence
from pathlib import Path

from temporal_tasks.api import MetricList, Option, PrebuildHook
from temporal_tasks.benchmarks.vinoground import CATEGORIES, MAJOR, METRIC_LISTS, NAME
from temporal_tasks.harness.kit import (
    BenchmarkData,
    BuildAhead,
    DataError,
    FileBuild,
    announce_frames,
    answers,
    benchmark_data,
    build_paired_videos,
    check_files_exist,
    check_unique,
    content_dirs,
    docs_dataset,
    find_in,
    line_options,
    logger,
    make_payload,
    num_frames_in_force,
    option,
    paired_build,
    read_json,
    request_num_frames,
    require_fields,
    results_for,
    warn_once,
)

PARSER = "first_char_ab"  # official get_score_all.py: first character of the answer, any case
CSV_NAME = "vinoground.csv"
TEXT_JSON = "vinoground_textscore.json"
VIDEO_JSON = "vinoground_videoscore.json"
CLIPS_ZIP = "vinoground_videos.zip"
CONCAT_ZIP = "vinoground_videos_concated.zip"
CLIPS_DIR = "vinoground_videos"
CONCAT_DIR = "vinoground_videos_concated"
CSV_FIELDS = ("index", "major", "minor", "pos_cap", "neg_cap")
JSON_FIELDS = ("idx", "video_name", "question", "GT")
SIDES = ("pos", "neg")

# variant -> (question kinds, its task's metric list in the spec: the keys process_results returns)
GROUP_LIST, TEXT_LIST, VIDEO_LIST = METRIC_LISTS
TASK_VARIANTS: dict[str, tuple[tuple[str, ...], MetricList]] = {
    "group": (("text", "video"), GROUP_LIST),
    "official": (("text", "video"), GROUP_LIST),
    "text": (("text",), TEXT_LIST),
    "video": (("video",), VIDEO_LIST),
    "text_blind": (("text",), TEXT_LIST),
}

_IDX = re.compile(r"^\s*(\d+)_(pos|neg)\s*$")
_SPACES = re.compile(r"\s+")


def needs(variant: str) -> list[str]:
    """The repo files a variant reads (online ``allow_patterns``): the CSV, its JSONs and the archives it shows."""
    kinds = TASK_VARIANTS[variant][0]
    files = [CSV_NAME, *([TEXT_JSON] if "text" in kinds else []), *([VIDEO_JSON] if "video" in kinds else [])]
    if variant != "text_blind":  # single clips: text questions and the paired videos are built from them
        files.append(CLIPS_ZIP)
    if variant == "official":  # the official pre-built two-clip videos
        files.append(CONCAT_ZIP)
    return files


# --------------------------------------------------------------------------- loading


def _read_csv(path: Path) -> dict[int, dict]:
    try:
        with open(path, encoding="utf-8-sig", newline="") as fh:
            reader = csv.DictReader(fh)
            fields = [f.strip() for f in reader.fieldnames or []]
            reader.fieldnames = fields
            rows = list(reader)
    except (OSError, csv.Error, UnicodeDecodeError) as exc:
        raise DataError(f"{path}: cannot read it as CSV ({exc}). Re-download {CSV_NAME}.") from None
    if not rows:
        raise DataError(f"{path}: no rows. Re-download {CSV_NAME}.")
    pairs: dict[int, dict] = {}
    unknown: set[str] = set()
    for lineno, row in enumerate(rows, 2):
        where = f"{path} line {lineno}"
        require_fields(row, CSV_FIELDS, where)
        raw_index = (row["index"] or "").strip()
        if not raw_index.isdigit():
            raise DataError(f"{where}: index {raw_index!r} is not a non-negative integer.")
        i = int(raw_index)
        if i in pairs:
            raise DataError(f"{where}: index {i} appears twice. Remove the repeated row.")
        major = (row["major"] or "").strip().lower()
        if not major:
            raise DataError(f"{where}: pair {i} has no major category (one of {list(MAJOR)}).")
        minors = [m.strip().lower() for m in (row["minor"] or "").split(";") if m.strip()]
        unknown.update(c for c in [major, *minors] if c not in CATEGORIES)
        for side in SIDES:
            if not (row[f"{side}_cap"] or "").strip():
                raise DataError(f"{where}: pair {i} has an empty {side}_cap.")
        pairs[i] = {"major": major, "minors": minors, "pos": row["pos_cap"].strip(), "neg": row["neg_cap"].strip()}
    if unknown:
        warn_once(f"{path}: categories {sorted(unknown)} are not Vinoground's; no metric key is reported for them.")
    return pairs


def _find_json(dirs: Sequence[Path], name: str) -> Path | None:
    # the official repo keeps the JSONs at the root; lmms-eval reads the copies inside the zips
    for d in dirs:
        for cand in (d / name, *sorted(d.glob(f"*/{name}"))):
            if cand.is_file():
                return cand
    return None


def _read_questions(path: Path, pairs: dict[int, dict], kind: str) -> dict[tuple[int, str], dict]:
    raw = read_json(path)
    if not isinstance(raw, list):
        raise DataError(f"{path}: expected a JSON list of questions, got {type(raw).__name__}. Re-download it.")
    out: dict[tuple[int, str], dict] = {}
    for n, item in enumerate(raw):
        where = f"{path} item {n}"
        if not isinstance(item, dict):
            raise DataError(f"{where}: expected an object, got {type(item).__name__}.")
        require_fields(item, JSON_FIELDS, where)
        m = _IDX.match(str(item["idx"]))
        if m is None:
            raise DataError(f"{where}: idx {item['idx']!r} is not '<pair>_pos' or '<pair>_neg'.")
        gold = str(item["GT"]).strip().upper()
        if gold not in ("A", "B"):
            raise DataError(f"{where} ({item['idx']}): GT {item['GT']!r} is neither 'A' nor 'B'.")
        if not isinstance(item["question"], str) or not item["question"].strip():
            raise DataError(f"{where} ({item['idx']}): empty question.")
        out[(int(m.group(1)), m.group(2))] = {**item, "GT": gold}
    check_unique((str(it["idx"]).strip() for it in raw if isinstance(it, dict)), str(path))
    extra = sorted({i for i, _ in out} - set(pairs))
    if extra:
        raise DataError(f"{path}: pairs {extra[:10]} are not in {CSV_NAME}. Use the files of one dataset release.")
    missing = [f"{i}_{s}" for i in sorted(pairs) for s in SIDES if (i, s) not in out]
    if missing:
        raise DataError(
            f"{path}: no {kind}-score question for {missing[:10]} ({len(missing)} in all). The file is truncated; "
            "re-download it."
        )
    return out


# Names a person uses for the video-score options ("The second segment.").
SEGMENT_NAMES = {
    "first": (
        "first segment",
        "first video",
        "first clip",
        "first part",
        "before the black frame",
        "before black frame",
    ),
    "second": (
        "second segment",
        "second video",
        "second clip",
        "second part",
        "after the black frame",
        "after black frame",
    ),
}
VIDEO_OPTIONS = ("First segment (before black frame)", "Second segment (after black frame)")


def question_options(item: dict, kind: str, pair: dict, side: str) -> list[Option]:
    """The options of one question (``{"label", "text", "names"}``), read from its prompt.

    Text score: the two captions as the prompt shows them (else from the CSV: the GT letter is
    this side's caption). Video score: the two segments, with their names.
    """
    opts = line_options(str(item["question"]))
    if kind == "video":
        texts = [o["text"] for o in opts] if opts else list(VIDEO_OPTIONS)
        out = []
        for label, text in zip("AB", texts, strict=True):
            first = text.strip().lower().split(" ", 1)[0]
            out.append(option(label, text, SEGMENT_NAMES.get(first, ())))
        return out
    if opts:
        return opts
    other = "neg" if side == "pos" else "pos"
    caps = {item["GT"]: pair[side], ("B" if item["GT"] == "A" else "A"): pair[other]}
    return [option(label, caps[label]) for label in "AB"]


def _norm(text: str) -> str:
    return _SPACES.sub(" ", text).strip().lower()


def _check_captions(text_q: dict, video_q: dict, pairs: dict[int, dict], where: str) -> None:
    """Warn when a question's caption or GT does not follow from the CSV (a mismatched release)."""
    bad = []
    for (i, side), item in text_q.items():
        if f"{item['GT'].lower()}. {_norm(pairs[i][side])}" not in _norm(item["question"]):
            bad.append(f"{i}_{side}_text")
    for (i, side), item in video_q.items():
        if _norm(pairs[i][side]) not in _norm(item["question"]):
            bad.append(f"{i}_{side}_video")
    if bad:
        warn_once(
            f"{where}: {len(bad)} question(s) do not show the {CSV_NAME} caption where their GT says, e.g. "
            f"{bad[:5]}; the JSONs and the CSV may come from different releases (paired videos follow idx and GT)."
        )


def _resolve(dirs: Sequence[Path], relpath: str, folder: str) -> Path:
    """``relpath`` under the root or an extracted archive; tolerates a zip without its top folder and bare names."""
    rel = relpath.replace("\\", "/").lstrip("/")
    name = rel.rsplit("/", 1)[-1]
    for cand in dict.fromkeys((rel, rel.split("/", 1)[-1], f"{folder}/{name}", name)):
        found = find_in(dirs, cand)
        if found is not None:
            return found
    return dirs[0] / rel


def _num_frames(log: bool = False) -> int:
    """N: ``TEMPORAL_TASKS_NUM_FRAMES``, else the run's ``--model_args`` frame count, else 32."""
    return num_frames_in_force(NAME, log=log)


def load_docs(data: BenchmarkData | None = None, variant: str = "group", log_frames: bool = True) -> list[dict]:
    """Read and validate Vinoground into our doc schema for one task ``variant`` (see :data:`TASK_VARIANTS`).

    ``log_frames`` announces the N of the paired videos (on stderr, once per process)."""
    if variant not in TASK_VARIANTS:
        raise ValueError(f"unknown Vinoground variant {variant!r}; known: {sorted(TASK_VARIANTS)}")
    kinds, _scores = TASK_VARIANTS[variant]
    data = data or benchmark_data(NAME, needs=needs(variant))
    pairs = _read_csv(data.file(CSV_NAME))

    root_only = [data.root]
    text_json = _find_json(root_only, TEXT_JSON) if "text" in kinds else None
    video_json = _find_json(root_only, VIDEO_JSON) if "video" in kinds else None
    archives = []
    if variant != "text_blind" or text_json is None:
        archives.append(CLIPS_ZIP)  # single clips (and the text JSON, inside the zip)
    if variant == "official" or ("video" in kinds and video_json is None):
        archives.append(CONCAT_ZIP)
    dirs = content_dirs(data, archives)
    questions: dict[str, dict] = {}
    for kind, name, found in (("text", TEXT_JSON, text_json), ("video", VIDEO_JSON, video_json)):
        if kind not in kinds:
            continue
        path = found or _find_json(dirs, name)
        if path is None:
            raise DataError(data.missing_message(data.root / name, f"copy {name} from {data.root.name}'s HF repo"))
        questions[kind] = _read_questions(path, pairs, kind)
    if "text" in questions and "video" in questions:
        _check_captions(questions["text"], questions["video"], pairs, str(data.root))

    num_frames = _num_frames(log=log_frames) if variant in ("group", "video") else 0
    roles = [f"{side}_{kind}" for kind in kinds for side in SIDES]
    docs, needed = [], []
    for i in sorted(pairs):
        pair = pairs[i]
        for side in SIDES:
            for kind in kinds:
                item = questions[kind][(i, side)]
                paired = kind == "video" and variant != "official"
                if variant == "text_blind":
                    videos: list[str] = []
                elif paired:
                    # GT "A": the clip the caption describes comes first, so the JSON's GT stays valid
                    other = "neg" if side == "pos" else "pos"
                    order = (side, other) if item["GT"] == "A" else (other, side)
                    paths = [_resolve(dirs, f"{CLIPS_DIR}/{i}_{s}.mp4", CLIPS_DIR) for s in order]
                    videos = [str(p) for p in paths]
                    needed.extend(paths)
                else:
                    path = _resolve(dirs, str(item["video_name"]), CLIPS_DIR if kind == "text" else CONCAT_DIR)
                    videos = [str(path)]
                    needed.append(path)
                docs.append(
                    {
                        "question_id": f"{i}_{side}_{kind}",
                        "group_id": f"{NAME}/{i}",
                        "role": f"{side}_{kind}",
                        "group_size": len(roles),
                        "prompt": item["question"],
                        "gold": item["GT"],
                        "parser": PARSER,
                        "options": question_options(item, kind, pair, side),
                        "videos": videos,
                        "categories": [pair["major"], *pair["minors"]],
                        "index": i,
                        "kind": kind,
                        "variant": variant,
                        "paired": paired,
                        "num_frames": num_frames if paired else 0,
                        "video_name": str(item["video_name"]),
                    }
                )
    check_files_exist(
        needed, f"vinoground ({data.root})",
        f"copy {CLIPS_ZIP} and {CONCAT_ZIP} (or their unzipped folders) from the HF repo HanSolo9682/Vinoground "
        f"into {data.root}",
    )  # fmt: skip
    docs.sort(key=lambda d: (d["index"], roles.index(d["role"])))
    return docs


# --------------------------------------------------------------------------- visuals

BUILT_VARIANTS = ("group", "video")  # their video-score questions see a paired video we build


def paired_file(doc: dict, n: int) -> FileBuild | None:
    """The paired video a question needs at N = ``n`` frames; None for a single clip or an official file."""
    if not doc["paired"]:
        return None
    first, second = doc["videos"]
    return paired_build(first, second, n)


# The paired videos, built ahead of the requests (scope: the variant; a progress bar while questions wait).
PAIRED = BuildAhead(NAME, "paired video", paired_file, label=NAME, progress="vinoground: paired videos")


def _process_docs(variant: str) -> Callable:
    def load() -> list[dict]:
        when = PAIRED.decide(variant) if variant in BUILT_VARIANTS else None
        docs = load_docs(variant=variant, log_frames=announce_frames(when))
        PAIRED.plan(variant, docs, next((d["num_frames"] for d in docs if d["paired"]), 0), when)
        return docs

    def process_docs(dataset):  # noqa: ARG001 - lmms-eval hands us a placeholder split
        return docs_dataset(load)

    process_docs.__name__ = process_docs.__qualname__ = f"process_docs_{variant}"
    process_docs.__doc__ = f"lmms-eval ``process_docs`` of the ``{variant}`` variant: the validated Vinoground docs."
    return process_docs


process_docs_group = _process_docs("group")
process_docs_official = _process_docs("official")
process_docs_text = _process_docs("text")
process_docs_video = _process_docs("video")
process_docs_text_blind = _process_docs("text_blind")


def question_video(doc: dict) -> list[str]:
    """``doc_to_visual`` of the Vinoground tasks: the question's video, a single clip, the official file or the
    paired video.

    A paired video is usually built already in the background (:data:`PAIRED`); otherwise this waits for it, or
    builds it right away if nobody has started it.
    """
    if doc.get("paired"):
        n = request_num_frames(NAME, int(doc["num_frames"]))
        return [str(PAIRED.visual(doc.get("variant", ""), doc, n))]
    if "variant" in doc and "question_id" in doc:
        PAIRED.observe(doc["variant"], doc)  # where the model is in its order, for the background builds
    return list(doc["videos"])


# --------------------------------------------------------------------------- results and metrics


def process_results(doc: dict, results: list) -> dict[str, dict]:
    """One payload under every metric key the question's task reports."""
    payload = make_payload(doc, answers(results))
    return results_for(payload, TASK_VARIANTS[doc["variant"]][1], payload["categories"])


def prebuild(num_frames: int | None = None) -> list[Path]:
    """Build every paired video of ``vinoground_group`` into the cache now (progress bar); returns their paths."""
    n = num_frames or _num_frames()
    docs = [d for d in load_docs(variant="group") if d["paired"]]
    paths = build_paired_videos([tuple(d["videos"]) for d in docs], n, desc="vinoground: paired videos")
    logger.info(f"vinoground: {len(paths)} paired videos of {n} frames ready")
    return paths


_PREBUILD: PrebuildHook = prebuild  # the spec's ``prebuild`` hook, as the contract types it
