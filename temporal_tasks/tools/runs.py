"""One run per results set: find lmms-eval runs in files and folders, pick one, read its samples safely.

lmms-eval writes one run as ``<stamp>_results.json`` plus ``<stamp>_samples_<task>.jsonl`` per task
(``--log_samples``), in one folder per model; ``<stamp>`` is the start time to the second. A folder
often holds several runs (reruns, other settings). ``rescore``, ``summary``, ``report`` and ``compare``
read a run as one results file and the samples files written with it, never the newest file of each
task (that mixes runs). Where a folder holds several runs, the newest complete one is used and named,
or ``--run`` chooses. Two runs started in the same second share file names (lmms-eval overwrites the
results and appends both runs' answers to one samples file): :func:`read_samples` stops on such a file.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from temporal_tasks.base.errors import DataError

__all__ = ["Run", "SAMPLES_NAME", "choose_run", "find_runs", "read_samples", "runs_in_folders"]

SAMPLES_NAME = re.compile(r"^(?P<stamp>.*)_samples_(?P<task>.+)\.jsonl$")
RESULTS_NAME = re.compile(r"^(?P<stamp>.*)_results\.json$")


@dataclass
class Run:
    """One lmms-eval run: its folder, stamp, results file (None if it wrote none) and samples per task."""

    folder: Path
    stamp: str
    results: Path | None = None
    samples: dict[str, Path] = field(default_factory=dict)

    @property
    def name(self) -> str:
        """``<folder>/<stamp>``: how outputs and errors name the run (and what ``--run`` matches)."""
        return f"{self.folder}/{self.stamp}"

    @property
    def complete(self) -> bool:
        """It wrote its results file and, if it logged samples, they name the results' tasks."""
        return self.results is not None

    def matches(self, wanted: str) -> bool:
        """``--run`` value: the stamp, the results or a samples file, or ``<folder>/<stamp>``."""
        wanted = wanted.rstrip("/")
        if wanted in (self.stamp, self.name):
            return True
        files = [self.results, *self.samples.values()]
        return any(f is not None and (str(f) == wanted or f.name == wanted) for f in files)


def _add(runs: dict[tuple[Path, str], Run], file: Path) -> str | None:
    """Add ``file`` to its run in ``runs``; returns the run's stamp (None: not an lmms-eval output file)."""
    folder = file.parent
    m = RESULTS_NAME.match(file.name)
    if m:
        run = runs.setdefault((folder, m["stamp"]), Run(folder, m["stamp"]))
        run.results = file
        return run.stamp
    m = SAMPLES_NAME.match(file.name)
    if m:
        run = runs.setdefault((folder, m["stamp"]), Run(folder, m["stamp"]))
        run.samples[m["task"]] = file
        return run.stamp
    return None


def find_runs(paths: Iterable[str | Path]) -> list[Run]:
    """Every run among ``paths`` (files, or folders searched recursively), oldest first.

    A results or samples file given by name counts as its run (the other files of its stamp in its
    folder join it).
    """
    runs: dict[tuple[Path, str], Run] = {}
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            for file in sorted(path.rglob("*.json*")):
                if file.is_file():
                    _add(runs, file)
        elif path.is_file():
            stamp = _add(runs, path)
            if stamp is None:
                raise DataError(
                    f"{path}: not an lmms-eval output file (expected <stamp>_results.json or "
                    "<stamp>_samples_<task>.jsonl)."
                )
            for sibling in path.parent.glob(f"{glob_escape(stamp)}_*.json*"):
                if sibling.is_file():
                    _add(runs, sibling)
        else:
            raise DataError(f"{path}: no such file or folder.")
    return sorted(runs.values(), key=_age)


def glob_escape(text: str) -> str:
    """``text`` with glob wildcards escaped (stamps may hold ``[`` in odd setups)."""
    return re.sub(r"([*?\[])", r"[\1]", text)


def _age(run: Run) -> tuple:
    # The results file is written last, when the run ends; without one, the newest samples file. File times
    # first: a stamp is a start time in the run's local zone, and `rescored_results.json` has none.
    files = [run.results] if run.results is not None else list(run.samples.values())
    newest = max((f.stat().st_mtime for f in files), default=0.0)
    return newest, run.stamp, str(run.folder)


def choose_run(runs: list[Run], wanted: str | None = None, *, what: str = "samples") -> tuple[Run, str]:
    """The one run to read, and a note naming it (empty when there was no choice to make).

    ``wanted`` (``--run``) picks by stamp, file or ``<folder>/<stamp>``. Else: the only run, or the newest
    complete one (with ``what`` files) when there are several.
    """
    if not runs:
        raise DataError("no lmms-eval run found (expected <stamp>_results.json / <stamp>_samples_<task>.jsonl).")
    if wanted:
        hits = [r for r in runs if r.matches(wanted)]
        if len(hits) != 1:
            listed = ", ".join(r.name for r in runs)
            raise DataError(
                f"--run {wanted}: {'no' if not hits else 'more than one'} run matches; the runs found: {listed}."
            )
        return hits[0], f"run {hits[0].name} (chosen with --run)"
    usable = [r for r in runs if (r.samples if what == "samples" else r.results)]
    if not usable:
        raise DataError(f"none of the runs found ({', '.join(r.name for r in runs)}) has {what} files.")
    if len(usable) == 1:
        return usable[0], ""
    complete = [r for r in usable if r.complete] or usable
    chosen = complete[-1]
    others = [r.stamp if r.folder == chosen.folder else r.name for r in usable if r is not chosen]
    note = (
        f"run {chosen.name}: the newest complete run of {len(usable)} found (also: {', '.join(others)}); "
        "pass --run STAMP to choose another"
    )
    return chosen, note


def runs_in_folders(paths: Iterable[str | Path], wanted: str | None = None) -> tuple[list[Run], list[str]]:
    """One run per folder (for ``report``/``summary``, which compare models): each folder's newest complete run,
    or the ``--run`` one. Returns the runs (those with a results file) and notes naming the choices made."""
    runs = [r for r in find_runs(paths) if r.results is not None]
    if wanted:
        run, note = choose_run(runs, wanted, what="results")
        return [run], [note]
    by_folder: dict[Path, list[Run]] = {}
    for run in runs:
        by_folder.setdefault(run.folder, []).append(run)
    chosen, notes = [], []
    for group in by_folder.values():
        run, note = choose_run(group, what="results")
        chosen.append(run)
        if note:
            notes.append(note)
    return chosen, notes


def read_samples(path: str | Path) -> list[dict]:
    """The sample lines of one ``--log_samples`` file.

    A broken line stops with its number. Answers from two runs in one file (the same question twice
    with different answers: two runs started in the same second append to one file) stop with an error
    naming the file; the same answer twice (a replayed shard) is kept once, as the scoring does.
    """
    path = Path(path)
    lines: list[dict] = []
    seen: dict[str, tuple[int, object]] = {}
    with open(path, encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                raise DataError(f"{path}:{lineno}: not valid JSON ({exc.msg}).") from None
            qid, answer = _question_and_answer(record)
            if qid is not None:
                first = seen.get(qid)
                if first is None:
                    seen[qid] = (lineno, answer)
                elif first[1] != answer:
                    raise DataError(
                        f"{path}: question {qid!r} is answered twice with different answers (lines {first[0]} and "
                        f"{lineno}): the file holds answers from two runs (two runs started in the same second "
                        "share file names and lmms-eval appends to the same samples file). Rerun one of them "
                        "into its own --output_path; its answers cannot be told apart here."
                    )
            lines.append(record)
    return lines


def _question_and_answer(record: dict) -> tuple[str | None, object]:
    # Our payloads sit under the metric keys; any one of them names the question. The raw answer is
    # lmms-eval's own filtered_resps (lean samples files keep it only there), else the payload's copy.
    for key, value in record.items():
        if key != "doc" and isinstance(value, dict) and "question_id" in value:
            answer = record["filtered_resps"] if "filtered_resps" in record else value.get("answer", value.get("pred"))
            return str(value["question_id"]), json.dumps(answer, sort_keys=True, default=str)
    return None, None
