"""The surface a benchmark's author declares against: its spec, the registry, and the contracts of its hooks.

- :mod:`.spec`: :class:`Benchmark`, what a benchmark declares once, and its metrics (:class:`MetricList`,
  :class:`Metric`, :class:`Strata`, :class:`Difference`, :class:`Custom`, :class:`PerCategory`);
- :mod:`.registry`: every registered benchmark (entry-point group ``temporal_tasks.benchmarks``);
- :mod:`.contracts`: the docs and payloads a benchmark hands over, each hook's contract and the records hooks
  exchange with the tools.

What a benchmark's code calls to do its work (its loader's file helpers, ``process_docs`` / ``process_results``,
answer parsers, derived visuals, synthetic clips) and its YAMLs name is :mod:`temporal_tasks.harness.kit`; the two
modules are a benchmark's whole surface (docs/adding-a-benchmark.md).
"""

from temporal_tasks.api.contracts import (
    HOOKS,
    Answer,
    CheckHook,
    Doc,
    ExportHook,
    FileImport,
    FixtureHook,
    ImportContext,
    ImporterHook,
    Option,
    Part,
    Payload,
    PrebuildHook,
    SourceFile,
    ViewHook,
)
from temporal_tasks.api.registry import get, names, of_task, registered
from temporal_tasks.api.spec import (
    STABILITY,
    Benchmark,
    Custom,
    Difference,
    InvalidPolicy,
    Metric,
    MetricList,
    PerCategory,
    Strata,
    slug,
)

__all__ = [
    "HOOKS", "STABILITY", "Answer", "Benchmark", "CheckHook", "Custom", "Difference", "Doc", "ExportHook",
    "FileImport", "FixtureHook", "ImportContext", "ImporterHook", "InvalidPolicy", "Metric", "MetricList", "Option",
    "Part", "Payload", "PerCategory", "PrebuildHook", "SourceFile", "Strata", "ViewHook", "get", "names", "of_task",
    "registered", "slug",
]  # fmt: skip
