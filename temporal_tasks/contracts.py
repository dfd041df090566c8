"""The typed contracts between a benchmark package and the rest of temporal-tasks.

A new benchmark's author reads these types, not prose: the docs a loader yields (:class:`Doc`), the payload
``process_results`` hands every aggregation (:class:`Payload`), and the signature of each hook a
:class:`~temporal_tasks.benchmarks.spec.Benchmark` may declare (the ``Protocol`` classes; ``spec.hook(name)``
returns one of them). The test suite's toy benchmark is written against them. A leaf module: types only.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol, TypedDict

__all__ = [
    "Aggregation",
    "CheckHook",
    "Doc",
    "DocsLoader",
    "ExportHook",
    "FixtureHook",
    "Option",
    "Payload",
    "PrebuildHook",
    "ProcessDocs",
    "ProcessResults",
    "Reading",
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
    parser: str  # the registered answer parser (temporal_tasks.parsing.get_parser)
    videos: list[str]  # the video paths the model sees


class Doc(_DocCore, total=False):
    """One question as every loader yields it (``process_docs``): the core fields, then optional ones."""

    options: list[Option]  # the question's options (the robust parser reads option texts and names)
    categories: list[str]  # category tags: ``<metric>_<category>`` keys (slugged)


class Reading(TypedDict):
    """One answer's readings (one entry of ``Payload.repeats`` under ``--repeats k``)."""

    pred: str | None  # the reading of the mode in force; None: unreadable
    pred_robust: str | None
    pred_official: str | None
    correct: bool
    truncated: bool  # cut off inside an opened, never-closed <think>
    parser_errors: int  # exceptions raised by our parser (bugs of ours, counted apart)


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


class DocsLoader(Protocol):
    """A loader: validates the benchmark's files and returns the docs (raises ``DataError`` naming the file)."""

    def __call__(self) -> list[Doc]: ...


class ProcessDocs(Protocol):
    """lmms-eval's ``process_docs``: the placeholder split in, the task's docs out (``task_docs.docs_dataset``)."""

    def __call__(self, dataset: Any, /) -> Any: ...


class ProcessResults(Protocol):
    """lmms-eval's ``process_results``: one question and its answer(s) in, ``{metric key: payload}`` out."""

    def __call__(self, doc: Doc, results: list[Any], /) -> dict[str, Payload]: ...


class Aggregation(Protocol):
    """An lmms-eval aggregation: the payloads of one metric key (all ranks) in, a percentage (0-100) out."""

    def __call__(self, items: list[Payload], /) -> float: ...


class CheckHook(Protocol):
    """``Benchmark.check``: the parts ``check-data`` reports, from the benchmark's files (``check.Part``)."""

    def __call__(self, data: Any, sample: int, /) -> list[Any]: ...


class ExportHook(Protocol):
    """``Benchmark.export``: samples files by task in, the files written in the official scorers' format out."""

    def __call__(self, samples: Mapping[str, Path], out: Path, /) -> list[Path]: ...


class FixtureHook(Protocol):
    """``Benchmark.fixture`` / ``fixture_full``: write the synthetic copy under ``root/<name>``, return its folder."""

    def __call__(self, root: Path, /) -> Path: ...


class PrebuildHook(Protocol):
    """``Benchmark.prebuild``: build the derived videos for N frames into the cache; return the files built."""

    def __call__(self, num_frames: int | None, /) -> Sequence[Path]: ...
