"""The typed contracts between a benchmark package and the rest of temporal-tasks.

A new benchmark's author reads these types, not prose: the docs a loader yields (:class:`Doc`), the payload
``process_results`` hands every aggregation (:class:`Payload`), the signature of each hook a
:class:`~temporal_tasks.api.spec.Benchmark` may declare (the ``Protocol`` classes, :data:`HOOKS`) and the records
the hooks exchange with the tools (:class:`Part`, :class:`SourceFile`, :class:`Answer`, :class:`FileImport`).
:func:`check_hooks` checks a spec's hooks against them when it registers.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, TypedDict

from temporal_tasks.api.spec import Custom
from temporal_tasks.base.errors import DataError

__all__ = [
    "HOOKS",
    "Answer",
    "CheckHook",
    "Doc",
    "ExportHook",
    "FileImport",
    "FixtureHook",
    "ImportContext",
    "ImporterHook",
    "Option",
    "Part",
    "Payload",
    "PrebuildHook",
    "Reading",
    "SourceFile",
    "ViewHook",
    "check_hooks",
]


class Option(TypedDict, total=False):
    """One option of a question, for the robust parser: its label, full text and other names."""

    label: str  # "A", "B", "yes", "no"
    text: str
    names: list[str]  # e.g. "the second segment"


class _DocCore(TypedDict):
    question_id: str  # stable: the benchmark's own id where one exists
    group_id: str  # "<benchmark>/<group>": the unit scored all-or-nothing
    role: str  # the question's place in its group ("q0_v1", "text_0", ...)
    group_size: int  # how many questions the full group has (incomplete groups are left out, and counted)
    prompt: str  # the benchmark's prompt, verbatim
    gold: str  # the gold label, in the parser's labels
    parser: str  # the registered answer parser (temporal_tasks.answers.parsing.get_parser)
    videos: list[str]  # the video paths the model sees


class Doc(_DocCore, total=False):
    """One question as every loader yields it (``process_docs``): the core fields, then optional ones."""

    options: list[Option]  # the question's options (the robust parser reads option texts and names)
    categories: list[str]  # category tags: ``<metric>_<category>`` keys (slugged)


class _ReadingCore(TypedDict):
    pred: str | None  # the reading of the mode in force; None: unreadable
    pred_robust: str | None
    pred_official: str | None
    correct: bool
    truncated: bool  # cut off inside an opened, never-closed <think>
    answer_empty: bool  # the answer is "": an official scorer reading response[0] raises (Metric.official_read_first)
    parser_errors: int  # exceptions raised by our parser (bugs of ours, counted apart)


class Reading(_ReadingCore, total=False):
    """One answer's readings (one entry of ``Payload.repeats`` under ``--repeats k``)."""

    answer_missing: bool  # no answer at all (scoring.payloads.NO_ANSWER; Metric.official_missing); absent: False


class _PayloadCore(Reading):
    question_id: str
    group_id: str
    role: str
    group_size: int
    categories: list[str]
    answer: str
    gold: str
    parser: str
    parser_mode: str  # "robust" or "official"
    option_keys: Any  # the options in the compact form rescore re-reads them with


class Payload(_PayloadCore, total=False):
    """What ``process_results`` gives each metric key of a question, and every aggregation reads."""

    repeats: list[Reading]  # --repeats k > 1: every repeat's readings (repeat 0 is the top level)


# --------------------------------------------------------------------------- what the hooks exchange


@dataclass
class Part:
    """One checked part of a benchmark's copy (``check-data``): its counts, problems (errors) and warnings.

    ``key`` names the part in its spec's ``published`` sizes (by convention it starts with the benchmark's name);
    ``check-data`` sets each count's published value and decodes the videos in ``decode``.
    """

    key: str
    title: str
    counts: list[tuple[str, int, int | None]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    absent: str = ""
    decode: list[str] = field(default_factory=list)

    def count(self, what: str, found: int) -> None:
        """Record a count (shown beside its published value; a difference is a warning)."""
        self.counts.append((what, found, None))

    def load(self, load: Callable[[], list]) -> list | None:
        """``load()``, or None with its data problem recorded as this part's error."""
        try:
            return load()
        except DataError as exc:
            self.problems.append(str(exc))
        except SystemExit as exc:  # loaders called by lmms-eval stop this way; here it is just a problem
            self.problems.append(str(exc))
        return None

    def decode_sample(self, videos: Sequence[str], k: int) -> None:
        """Have ``k`` videos spread over the sorted list (first, ..., last) decoded: catches unreadable containers."""
        unique = sorted(set(videos))
        if unique and k > 0:
            m = min(k, len(unique))  # spread the picks over the m taken, so asking for more than there are takes all
            picks = [unique[round(i * (len(unique) - 1) / max(1, m - 1))] for i in range(m)]
            self.decode += [p for p in dict.fromkeys(picks) if p not in self.decode]

    @property
    def differs(self) -> bool:
        """Whether a count differs from its published value (a warning: such a copy still runs)."""
        return any(pub is not None and found != pub for _, found, pub in self.counts)


@dataclass
class SourceFile:
    """One answer file of an official pipeline as read: its rows (JSON objects or CSV rows), how, and its sha256."""

    path: Path
    kind: str  # "json list", "json lines" or "csv"
    records: list[dict]
    sha256: str

    @property
    def fields(self) -> set[str]:
        """Every key that occurs in a row."""
        return {k for r in self.records for k in r}

    def wrong_format(self, benchmark: str, expected: str) -> DataError:
        """The error for a file that is not one of ``benchmark``'s answer formats (names the fields expected)."""
        found = sorted(self.fields)[:12]
        return DataError(
            f"{self.path}: not a {benchmark} answer file. Expected {expected}; found a {self.kind} with fields "
            f"{found}. Pass the benchmark the answers are for (--benchmark) and the files its scripts wrote."
        )


@dataclass
class Answer:
    """One answer of a source file, mapped to our question (``question_id`` None: no question of ours)."""

    task: str
    key: str  # the source's own id of the answer, for reports ("index 17", "row 3 gt_A")
    question_id: str | None
    response: str | None = None  # None: a null output (kept as an empty answer: unreadable)
    loglikelihood: dict[str, float] | None = None  # probability-score formats: {"Yes": log p, "No": log p}


@dataclass
class FileImport:
    """What a benchmark's importer made of one file: the format it recognised and the answers."""

    format: str
    answers: list[Answer]
    notes: list[str] = field(default_factory=list)  # e.g. "12 responses were lists: the first element is used"


class ImportContext(Protocol):
    """What an ``importer`` hook may ask for: the docs of a task (loaded once) and the other files given."""

    sources: list[SourceFile]

    def docs(self, task: str) -> list[dict]:
        """The docs of ``task`` as its ``process_docs`` builds them."""
        ...

    def is_task(self, name: str) -> bool:
        """Whether ``name`` is one of this benchmark's tasks (not a group)."""
        ...


# --------------------------------------------------------------------------- the hooks


class CheckHook(Protocol):
    """``Benchmark.check``: the :class:`Part` s ``check-data`` reports, from the benchmark's files (its
    ``temporal_tasks.data.sources.BenchmarkData``) and the number of videos to decode per part."""

    def __call__(self, data: Any, sample: int, /) -> list[Part]: ...


class ExportHook(Protocol):
    """``Benchmark.export``: per task, each samples line's ``(payload with its answer, logged doc)``, and the folder;
    out, the files written in the official scorers' format."""

    def __call__(self, answers: Mapping[str, list[tuple[dict, dict]]], out: Path, /) -> list[Path]: ...


class ImporterHook(Protocol):
    """``Benchmark.importer``: one official answer file in, its answers mapped to our question ids out."""

    def __call__(self, source: SourceFile, context: ImportContext, /) -> FileImport: ...


class ViewHook(Protocol):
    """``Benchmark.view``: a failed group's re-read payloads in, its failure shape out (None: the generic ones)."""

    def __call__(self, members: Sequence[dict], /) -> str | None: ...


class FixtureHook(Protocol):
    """``Benchmark.fixture`` / ``fixture_full``: write the synthetic copy under ``root/<name>``, return its folder."""

    def __call__(self, root: Path, /) -> Path: ...


class PrebuildHook(Protocol):
    """``Benchmark.prebuild``: build the derived videos for N frames into the cache; return the files built."""

    def __call__(self, num_frames: int | None, /) -> Sequence[Path]: ...


# Each hook a spec may declare, and its contract.
HOOKS: dict[str, type] = {
    "check": CheckHook,
    "export": ExportHook,
    "importer": ImporterHook,
    "view": ViewHook,
    "fixture": FixtureHook,
    "fixture_full": FixtureHook,
    "prebuild": PrebuildHook,
}


def check_hooks(spec: Any) -> None:
    """Every hook ``spec`` declares resolves and takes the arguments its contract passes; its ``parsers`` module and
    ``Custom`` metric functions resolve, its ``references`` file exists. A ``ValueError`` names the first that does
    not (a typo stops at registration, not in the middle of a command)."""
    refs: list[tuple[str, str, type | None]] = [
        (name, getattr(spec, name), proto) for name, proto in HOOKS.items() if getattr(spec, name) is not None
    ]
    refs += [("parsers", spec.parsers, None)] if spec.parsers else []
    refs += [
        (f"metric {key}", value.function, None)
        for ml in spec.metric_lists
        for key, value in ml.values.items()
        if isinstance(value, Custom)
    ]
    for name, ref, proto in refs:
        try:
            found = spec.resolve(ref)
        except (ImportError, AttributeError) as exc:
            raise ValueError(f"{spec.name}: {name} = {ref!r} does not resolve ({exc}); fix the reference.") from None
        if proto is None:
            continue
        wanted = len(inspect.signature(proto.__call__).parameters) - 1  # but self
        try:
            inspect.signature(found).bind(*range(wanted))
        except (TypeError, ValueError):
            raise ValueError(
                f"{spec.name}: hook {name} = {ref!r} does not take the {wanted} argument(s) of {proto.__name__}."
            ) from None
    if spec.references and not spec.resource(spec.references).is_file():
        raise ValueError(f"{spec.name}: references = {spec.references!r} is no file in {spec.package}.")
