"""``temporal-tasks check-data``: validate the benchmark copies in seconds, before any GPU hour.

No model and no lmms-eval run: each benchmark's ``check`` hook (its spec's, e.g.
``benchmarks/<name>/check.py``) has its own loader read and validate its files (the same checks a
run makes at load: fields, ids, groups, every video present and non-empty with a video header,
archives that open) into :class:`Part` s, then a few videos per part are decoded as a run would.
Counts are shown beside the published ones; a difference is a warning (a copy with other counts
still runs), any other problem is an error that names its file and makes the exit status 1.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from temporal_tasks.api.contracts import Part
from temporal_tasks.api.registry import get, registered
from temporal_tasks.base import settings
from temporal_tasks.base.log import logger
from temporal_tasks.base.settings import ENV_DATA_DIR
from temporal_tasks.data.sources import BenchmarkData, hf_repo
from temporal_tasks.video import decode_check

SAMPLE = 3  # videos decoded per part


def published(key: str, what: str) -> int | None:
    """The published size of ``what`` in the part ``key`` (a spec's ``published``), or None if none is published."""
    for spec in registered().values():
        if (key, what) in spec.published:
            return spec.published[(key, what)]
    return None


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


def locate(name: str) -> tuple[BenchmarkData | None, str]:
    """The copy to check (never downloads): the offline folder, else the HF cache's snapshot; or why absent."""
    folder = settings.data_dir()
    if folder is not None:
        root = folder.resolve() / name
        if not root.is_dir():
            return None, f"no folder {root}"
        return BenchmarkData(name, root, offline=True), ""
    try:
        from huggingface_hub import snapshot_download

        root = Path(snapshot_download(repo_id=hf_repo(name), repo_type="dataset", local_files_only=True))
    except Exception:  # not in the HF cache (LocalEntryNotFoundError) or the hub library is unusable
        return None, f"not in the Hugging Face cache ({hf_repo(name)}; {ENV_DATA_DIR} is unset)"
    # offline=True: checking must never download, not even a missing archive
    return BenchmarkData(name, root, offline=True), ""


def check(benchmarks: Sequence[str] | None = None, sample: int = SAMPLE) -> list[Report]:
    """Check every benchmark (or the named ones); absent ones are problems only when named."""
    named = list(benchmarks or [])
    checkable = [name for name, spec in registered().items() if spec.check is not None]
    unknown = sorted(set(named) - set(registered()))
    if unknown:
        raise ValueError(f"unknown benchmark(s) {unknown}; known: {list(registered())}")
    unchecked = sorted(set(named) - set(checkable))
    if unchecked:
        raise ValueError(f"benchmark(s) {unchecked} declare no data check; checkable: {checkable}")
    reports = []
    for name in named or checkable:
        data, why = locate(name)
        report = Report(name, data.root if data else None)
        if data is None:
            report.absent = why
            if named:
                report.problems.append(f"{name}: absent ({why}), but --benchmark {name} asks for it.")
        else:
            report.parts = [_finish(part) for part in get(name).required_hook("check")(data, sample)]
        reports.append(report)
    return reports


def _finish(part: Part) -> Part:
    """A part as its hook left it, with each count's published value and the sampled videos decoded."""
    part.counts = [(what, found, published(part.key, what)) for what, found, _ in part.counts]
    for path in part.decode:
        try:
            decode_check(path)
        except Exception as exc:  # decoders raise many classes on a broken file
            part.problems.append(f"{path}: cannot decode it ({type(exc).__name__}: {exc}). Fix: re-download it.")
    return part


def render(reports: Sequence[Report], seconds: float | None = None) -> str:
    """The report as text: a table per benchmark, then its problems and warnings."""
    lines = []
    for r in reports:
        title = get(r.name).title
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
        logger.remove()
        logger.add(sys.stderr, level="WARNING", format="{level}: {message}")
    start = time.perf_counter()
    reports = check(benchmarks, sample)
    print(render(reports, time.perf_counter() - start), flush=True)
    return 0 if all(r.ok for r in reports) else 1
