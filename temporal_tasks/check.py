"""``temporal-tasks check-data``: validate the benchmark copies in seconds, before any GPU hour.

No model and no lmms-eval run: each benchmark's own loader reads and validates its files (the
same checks a run makes at load: fields, ids, groups, every video present and non-empty with a
video header, archives that open), then a few videos per part are decoded as a run would.
Counts are shown beside the published ones; a difference is a warning (a copy with other counts
still runs), any other problem is an error that names its file and makes the exit status 1.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from temporal_tasks.data import ENV_DATA_DIR, HF_REPOS, BenchmarkData, DataError

BENCHMARKS = ("timeblind", "vinoground", "temporalbench", "velociti")
TITLES = {
    "timeblind": "TimeBlind",
    "vinoground": "Vinoground",
    "temporalbench": "TemporalBench",
    "velociti": "VELOCITI",
}
SAMPLE = 3  # videos decoded per part

# Published sizes (papers and dataset cards; specs/hub_layouts.md). None: no published figure.
PUBLISHED = {
    ("timeblind", "rows"): 2400, ("timeblind", "instances"): 600,
    ("vinoground", "pairs"): 500, ("vinoground", "clips"): 1000, ("vinoground", "questions"): 2000,
    ("temporalbench short QA", "questions"): 9867, ("temporalbench short QA", "videos"): 2179,
    ("temporalbench long QA", "questions"): 5485, ("temporalbench captions", "captions"): 1891,
    ("velociti", "rows"): 8792, ("velociti", "subset rows per test"): 150,
}  # fmt: skip


@dataclass
class Part:
    """One checked part of a benchmark: its counts, problems (errors) and warnings."""

    key: str
    title: str
    counts: list[tuple[str, int, int | None]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    absent: str = ""

    def count(self, what: str, found: int) -> None:
        """Record a count beside its published value; a difference is a warning."""
        self.counts.append((what, found, PUBLISHED.get((self.key, what))))

    @property
    def differs(self) -> bool:
        """Whether a count differs from its published value (a warning: such a copy still runs)."""
        return any(pub is not None and found != pub for _, found, pub in self.counts)


@dataclass
class Report:
    """The result of one benchmark."""

    name: str
    root: Path | None
    parts: list[Part] = field(default_factory=list)
    absent: str = ""
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems and all(not p.problems for p in self.parts)


def _load(part: Part, load: Callable[[], list]) -> list | None:
    try:
        return load()
    except DataError as exc:
        part.problems.append(str(exc))
    except SystemExit as exc:  # loaders called by lmms-eval stop this way; here it is just a problem
        part.problems.append(str(exc))
    return None


def _decode_sample(part: Part, videos: Sequence[str], k: int) -> None:
    """Decode ``k`` videos spread over the sorted list (first, ..., last): catches unreadable containers."""
    from temporal_tasks.video import decode_check

    unique = sorted(set(videos))
    if not unique or k <= 0:
        return
    picks = [unique[round(i * (len(unique) - 1) / max(1, k - 1))] for i in range(min(k, len(unique)))]
    for path in dict.fromkeys(picks):
        try:
            decode_check(path)
        except Exception as exc:  # decoders raise many classes on a broken file
            part.problems.append(f"{path}: cannot decode it ({type(exc).__name__}: {exc}). Fix: re-download it.")


def _timeblind(data: BenchmarkData, k: int) -> list[Part]:
    from temporal_tasks.benchmarks.timeblind import tasks as timeblind

    part = Part("timeblind", "data.jsonl + videos/ (timeblind_iacc)")
    docs = _load(part, lambda: timeblind.load_docs(data))
    if docs is not None:
        videos = [v for d in docs for v in d["videos"]]
        part.count("rows", len(docs))
        part.count("instances", len({d["group_id"] for d in docs}))
        part.count("videos", len(set(videos)))
        _decode_sample(part, videos, k)
    return [part]


def _vinoground(data: BenchmarkData, k: int) -> list[Part]:
    from temporal_tasks.benchmarks.vinoground import tasks as vg

    clips = Part("vinoground", f"{vg.CSV_NAME} + JSONs + {vg.CLIPS_ZIP} (text, video, group)")
    docs = _load(clips, lambda: vg.load_docs(data, variant="group"))
    if docs is not None:
        videos = [v for d in docs for v in d["videos"]]
        clips.count("pairs", len({d["index"] for d in docs}))
        clips.count("clips", len(set(videos)))
        clips.count("questions", len(docs))
        _decode_sample(clips, videos, k)
    concat = Part("vinoground official", f"{vg.CONCAT_ZIP} (vinoground_group_official)")
    if not (data.root / vg.CONCAT_ZIP).is_file() and not (data.root / vg.CONCAT_DIR).is_dir():
        concat.absent = f"no {vg.CONCAT_ZIP}: vinoground_group_official cannot run (the other tasks can)"
        return [clips, concat]
    docs = _load(concat, lambda: vg.load_docs(data, variant="official"))
    if docs is not None:
        videos = [d["videos"][0] for d in docs if d["kind"] == "video"]
        concat.count("concatenated videos", len(set(videos)))
        _decode_sample(concat, videos, k)
    return [clips, concat]


def _temporalbench(data: BenchmarkData, k: int) -> list[Part]:
    from temporal_tasks.benchmarks.temporalbench import tasks as tb

    parts = []
    for key, title, file_key, load in (
        ("temporalbench short QA", "short QA (temporalbench_short_mba)", "short_qa",
         lambda: tb.load_qa("short_qa", data)),
        ("temporalbench long QA", "long QA (temporalbench_long_mba)", "long_qa", lambda: tb.load_qa("long_qa", data)),
        ("temporalbench captions", "captions (temporalbench_caption_sim)", "short_caption",
         lambda: tb.load_caption_docs(data)),
    ):  # fmt: skip
        part = Part(key, f"{tb.FILES[file_key]}: {title}")
        parts.append(part)
        if not (data.root / tb.FILES[file_key]).is_file():
            part.absent = f"no {tb.FILES[file_key]}: this part's task cannot run"
            continue
        docs = _load(part, load)
        if docs is None:
            continue
        videos = [v for d in docs for v in d["videos"]]
        if file_key == "short_caption":
            part.count("captions", len(docs))
        else:
            part.count("questions", len(docs))
        part.count("videos", len(set(videos)))
        _decode_sample(part, videos, k)
    return parts


def _velociti(data: BenchmarkData, k: int) -> list[Part]:
    from temporal_tasks.benchmarks.velociti import tasks as velociti

    part = Part("velociti", "annotation table + velociti_videos.zip (every task)")
    rows = _load(part, lambda: velociti.load_rows(data))
    if rows is not None:
        part.count("rows", len(rows))
        per_test = {t: sum(1 for r in rows if r["in_subset"] and r["test_name"] == t) for t in velociti.ALL_TESTS}
        part.count("subset rows per test", min(per_test.values()))
        if len(set(per_test.values())) > 1:
            part.warnings.append(f"the subset rows differ between tests: {per_test}")
        videos = [r["video"] for r in rows]
        part.count("videos", len(set(videos)))
        _decode_sample(part, videos, k)
    return [part]


CHECKS: dict[str, Callable[[BenchmarkData, int], list[Part]]] = {
    "timeblind": _timeblind, "vinoground": _vinoground, "temporalbench": _temporalbench, "velociti": _velociti,
}  # fmt: skip


def locate(name: str) -> tuple[BenchmarkData | None, str]:
    """The copy to check (never downloads): the offline folder, else the HF cache's snapshot; or why absent."""
    env = os.environ.get(ENV_DATA_DIR)
    if env:
        root = Path(env).expanduser().resolve() / name
        if not root.is_dir():
            return None, f"no folder {root}"
        return BenchmarkData(name, root, offline=True), ""
    try:
        from huggingface_hub import snapshot_download

        root = Path(snapshot_download(repo_id=HF_REPOS[name], repo_type="dataset", local_files_only=True))
    except Exception:  # not in the HF cache (LocalEntryNotFoundError) or the hub library is unusable
        return None, f"not in the Hugging Face cache ({HF_REPOS[name]}; {ENV_DATA_DIR} is unset)"
    # offline=True: checking must never download, not even a missing archive
    return BenchmarkData(name, root, offline=True), ""


def check(benchmarks: Sequence[str] | None = None, sample: int = SAMPLE) -> list[Report]:
    """Check every benchmark (or the named ones); absent ones are problems only when named."""
    named = list(benchmarks or [])
    unknown = sorted(set(named) - set(BENCHMARKS))
    if unknown:
        raise ValueError(f"unknown benchmark(s) {unknown}; known: {list(BENCHMARKS)}")
    reports = []
    for name in named or BENCHMARKS:
        data, why = locate(name)
        report = Report(name, data.root if data else None)
        if data is None:
            report.absent = why
            if named:
                report.problems.append(f"{name}: absent ({why}), but --benchmark {name} asks for it.")
        else:
            report.parts = CHECKS[name](data, sample)
        reports.append(report)
    return reports


def render(reports: Sequence[Report], seconds: float | None = None) -> str:
    """The report as text: a table per benchmark, then its problems and warnings."""
    lines = []
    for r in reports:
        title = TITLES[r.name]
        if r.absent:
            lines.append(f"{title}: {'MISSING' if r.problems else 'absent'} ({r.absent})")
            lines.extend(f"  ERROR {p}" for p in r.problems)
            lines.append("")
            continue
        lines.append(f"{title}: {'ok' if r.ok else 'PROBLEMS'} ({r.root})")
        for part in r.parts:
            lines.append(f"  {part.title}")
            if part.absent:
                lines.append(f"    absent: {part.absent}")
                continue
            if part.counts:
                width = max(len(w) for w, _, _ in part.counts)
                lines.append(f"    {'':<{width}}  {'found':>8}  {'published':>9}")
                for what, found, published in part.counts:
                    pub = f"{published:,}" if published is not None else "-"
                    mark = "" if published is None or found == published else "  <- differs"
                    lines.append(f"    {what:<{width}}  {found:>8,}  {pub:>9}{mark}")
            for p in part.problems:
                lines.append("    ERROR " + p.replace("\n", "\n      "))
            notes = ["counts differ from the published ones (<-): another copy, still usable"] if part.differs else []
            for w in [*notes, *part.warnings]:
                lines.append(f"    warning: {w}")
        lines.append("")
    n_bad = sum(not r.ok for r in reports)
    took = f" in {seconds:.1f} s" if seconds is not None else ""
    lines.append(
        f"check-data: {n_bad} benchmark(s) with problems{took}; fix them before a GPU run."
        if n_bad
        else f"check-data: every present benchmark is ready{took}."
    )
    return "\n".join(lines)


def main(benchmarks: Sequence[str] | None = None, sample: int = SAMPLE, *, quiet: bool = True) -> int:
    """Run the check, print the report; 0 if every present (and every named) benchmark is usable, else 1."""
    if quiet:  # the command's own process: the loaders' progress lines would bury the tables
        from temporal_tasks.log import logger

        logger.remove()
        logger.add(sys.stderr, level="WARNING", format="{level}: {message}")
    start = time.perf_counter()
    reports = check(benchmarks, sample)
    print(render(reports, time.perf_counter() - start), flush=True)
    return 0 if all(r.ok for r in reports) else 1
