"""TimeBlind (Li et al.): 600 instances x 4 trials; Acc, Q-Acc, V-Acc and I-Acc.

Layout (HF ``BaiqiL/TimeBlind``): ``data.jsonl`` rows ``{"index", "video_path", "question",
"answer", "type"}``, videos under ``videos/`` (``video_path`` starts with ``TimeBlind/``), and
optionally ``tags.json`` (``{tag: [row indices]}``, from the official GitHub repo).

Gold is positional, as in the official scorer: ``index // 4`` is the instance and ``index % 4``
the trial (q0 v0, q0 v1, q1 v0, q1 v1) with gold yes,no,no,yes (A,B,B,A). The ``answer`` field
is only checked: a disagreement is one warning (the count and the first rows), or a stop with
``TEMPORAL_TASKS_STRICT=1``. Structural problems (missing trials, mixed types, duplicate indices,
missing videos) always stop.
"""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path

from temporal_tasks.api import Option, slug
from temporal_tasks.benchmarks.timeblind import METRIC_LIST, ROLES, TAGS
from temporal_tasks.benchmarks.timeblind.parsers import MC, YES_NO
from temporal_tasks.harness.kit import (
    YES_NO_OPTIONS,
    BenchmarkData,
    DataError,
    answers,
    benchmark_data,
    cache_root,
    check_files_exist,
    check_unique,
    docs_dataset,
    fetch_json_once,
    get_parser,
    make_payload,
    option,
    read_json,
    read_jsonl,
    require_fields,
    results_for,
    settings,
    warn_once,
)

NAME = "timeblind"
GOLD = {"yes_no": ("yes", "no", "no", "yes"), "multiple_choice": ("A", "B", "B", "A")}
SUFFIX = {"yes_no": " Please output Yes or No.", "multiple_choice": " Please output A or B."}
PARSER = {"yes_no": YES_NO.name, "multiple_choice": MC.name}
FIELDS = ("index", "video_path", "question", "answer", "type")
NEEDS = ("data.jsonl", "tags.json", "videos/*")  # what an online run downloads (allow_patterns)
# tags.json is in the official GitHub repo, not on the Hub (specs/hub_layouts.md); HEAD = its default branch.
TAGS_URL = "https://raw.githubusercontent.com/Baiqi-Li/TimeBlind/HEAD/tags.json"

_INLINE_OPTIONS = re.compile(r"\bOption\s*A\s*[:：]\s*(?P<a>.*?)\s*\bOption\s*B\s*[:：]\s*(?P<b>.*?)\s*$", re.S)


def question_options(question: str, kind: str) -> list[Option]:
    """The options of a trial: Yes/No, or the ``Option A: … Option B: …`` texts inside an MC question."""
    if kind == "yes_no":
        return [o.copy() for o in YES_NO_OPTIONS]
    m = _INLINE_OPTIONS.search(question)
    if m is None:  # no inline options: the letters alone (rules 1-2 still read "B", "Option B")
        return [option("A"), option("B")]
    return [option("A", m.group("a")), option("B", m.group("b"))]


def _video_relpath(video_path: str) -> str:
    # data.jsonl paths are relative to the code repo ("TimeBlind/videos/..."), not the HF repo root.
    path = video_path.replace("\\", "/")
    return path[len("TimeBlind/") :] if path.startswith("TimeBlind/") else path


def tags_file(data: BenchmarkData) -> Path | None:
    """tags.json beside data.jsonl, else ``$TEMPORAL_TASKS_TIMEBLIND_TAGS``, else (online) the official one, cached."""
    beside = data.file("tags.json", required=False)
    if beside is not None:
        return beside
    given = settings.timeblind_tags()
    if given is not None:
        if given.is_file():
            return given
        warn_once(f"timeblind: {settings.ENV_TIMEBLIND_TAGS}={given} is not a file.")
    if data.offline:
        return None
    return fetch_json_once(TAGS_URL, cache_root() / NAME / "tags.json")


def load_tags(data: BenchmarkData, n_rows: int) -> dict[int, list[str]]:
    """``{row index: [tags]}``, or ``{}`` with one warning line; never stops the run (tags only add keys)."""
    path = tags_file(data)
    if path is not None:
        try:
            return _tags_by_row(path, n_rows)
        except DataError as exc:
            problem = str(exc)
    else:
        problem = f"no tags.json beside {data.root / 'data.jsonl'}" + ("" if data.offline else f" nor at {TAGS_URL}")
    warn_once(
        f"timeblind: {problem}; the per-category keys instance_acc_<tag> are off. To turn them on, put tags.json "
        f"from github.com/Baiqi-Li/TimeBlind beside data.jsonl or set {settings.ENV_TIMEBLIND_TAGS}=/path/to/tags.json."
    )
    return {}


def _tags_by_row(path: Path, n_rows: int) -> dict[int, list[str]]:
    raw = read_json(path)
    if not isinstance(raw, dict):
        raise DataError(f"{path}: expected an object {{tag: [row indices]}}, got {type(raw).__name__}.")
    by_row: dict[int, list[str]] = defaultdict(list)
    unknown = sorted(tag for tag in raw if slug(tag) not in TAGS)  # the spec's tags, as metric keys spell them
    if unknown:
        warn_once(f"{path}: tags {unknown} are not official TimeBlind tags; no metric key is reported for them.")
    for tag, rows in raw.items():
        if not isinstance(rows, list) or not all(isinstance(r, int) for r in rows):
            raise DataError(f"{path}: tag {tag!r} must map to a list of integer row indices.")
        out_of_range = [r for r in rows if not 0 <= r < n_rows]
        if out_of_range:
            raise DataError(f"{path}: tag {tag!r} lists rows {out_of_range[:5]} that data.jsonl does not have.")
        for r in rows:
            by_row[r].append(tag)
    return by_row


def _report_disagreement(ann: Path, disagree: list[tuple[int, str]]) -> None:
    # The official scorer never reads `answer`: gold is positional. A real instance with two identical
    # questions makes the two disagree, so this is a warning unless the user asked for strictness.
    shown = "\n  ".join(text for _, text in disagree[:20])
    head = (
        f"{ann}: the 'answer' field disagrees with the positional gold of the official scorer in "
        f"{len(disagree)} row(s):\n  {shown}"
    )
    if settings.strict():  # stop on data the official scorer tolerates (here: `answer` vs. position)
        raise DataError(
            f"{head}\nFix: restore the official row order (index//4 = instance, index%4 = q0v0,q0v1,q1v0,q1v1) or "
            f"re-download data.jsonl; or unset {settings.ENV_STRICT} to score with the positional gold like the "
            "official scorer."
        )
    warn_once(
        f"{head}\nScoring uses the positional gold, exactly as the official scorer (which never reads 'answer'); "
        f"set {settings.ENV_STRICT}=1 to stop instead."
    )


def load_docs(data: BenchmarkData | None = None) -> list[dict]:
    """Read and validate TimeBlind into our doc schema (stops on any structural inconsistency)."""
    data = data or benchmark_data(NAME, needs=NEEDS)
    ann = data.file("data.jsonl")
    rows = read_jsonl(ann)
    if not rows:
        raise DataError(f"{ann}: no rows. Re-download data.jsonl from {data.root}.")
    for lineno, row in enumerate(rows, 1):
        require_fields(row, FIELDS, f"{ann} row {lineno}")
        if row["type"] not in GOLD:
            raise DataError(f"{ann} row {lineno}: type {row['type']!r} is neither 'yes_no' nor 'multiple_choice'.")
        if not isinstance(row["index"], int) or row["index"] < 0:
            raise DataError(f"{ann} row {lineno}: index {row['index']!r} is not a non-negative integer.")
    check_unique((str(r["index"]) for r in rows), str(ann))

    groups: dict[int, list[dict]] = defaultdict(list)
    for row in rows:
        groups[row["index"] // 4].append(row)
    broken = {g: sorted(r["index"] % 4 for r in members) for g, members in groups.items() if len(members) != 4}
    if broken:
        sample = list(broken.items())[:5]
        raise DataError(
            f"{ann}: {len(broken)} instance(s) do not have the 4 trials index//4 requires, e.g. "
            f"{', '.join(f'instance {g} has trials {t}' for g, t in sample)}. The file is truncated or reordered."
        )

    disagree = []
    for row in rows:
        if len({r["type"] for r in groups[row["index"] // 4]}) != 1:
            raise DataError(f"{ann}: instance {row['index'] // 4} mixes question types.")
        kind, role = row["type"], row["index"] % 4
        gold = GOLD[kind][role]
        stated = get_parser(PARSER[kind]).parse(str(row["answer"]), "robust")
        if stated != gold:
            text = f"index {row['index']} ({kind}, trial {ROLES[role]}): answer {row['answer']!r}"
            disagree.append((row["index"], f"{text}, position implies {gold!r}"))
    if disagree:
        _report_disagreement(ann, sorted(disagree))

    tags = load_tags(data, max(r["index"] for r in rows) + 1)

    videos = {r["index"]: data.root / _video_relpath(r["video_path"]) for r in rows}
    check_files_exist(
        videos.values(), f"timeblind ({ann})",
        f"copy the videos/ folder of {data.root.name} from the HF repo BaiqiL/TimeBlind into {data.root}",
    )  # fmt: skip

    docs = []
    for row in sorted(rows, key=lambda r: r["index"]):
        idx, kind = row["index"], row["type"]
        docs.append(
            {
                "question_id": str(idx),
                "group_id": f"timeblind/{idx // 4}",
                "role": ROLES[idx % 4],
                "group_size": 4,
                "prompt": f"{row['question']}{SUFFIX[kind]}",
                "gold": GOLD[kind][idx % 4],
                "parser": PARSER[kind],
                "options": question_options(row["question"], kind),
                "videos": [str(videos[idx])],
                "categories": [*tags.get(idx, []), kind],
                "index": idx,
                "type": kind,
            }
        )
    return docs


def process_docs(dataset):  # noqa: ARG001 - lmms-eval hands us a placeholder split
    """lmms-eval ``process_docs``: replace the placeholder split by the validated TimeBlind docs."""
    return docs_dataset(load_docs)


def process_results(doc: dict, results: list) -> dict[str, dict]:
    """One payload under every metric key this trial feeds."""
    payload = make_payload(doc, answers(results))
    return results_for(payload, METRIC_LIST, payload["categories"])
