"""``temporal-tasks report``: Markdown, CSV and PNG bar charts from lmms-eval results JSONs.

Several runs (models) are shown side by side, next to published numbers from each benchmark's
``references.json`` ("(paper)" rows, grey hatched bars). The layout of each benchmark's section comes
from its spec (:mod:`temporal_tasks.api.registry`); tasks and metrics no spec knows are still reported,
generically. The parts: :mod:`.results` (reading results files), :mod:`.references` (published numbers),
:mod:`.layout` (a benchmark's sections from its spec), :mod:`.views` (runs and papers arranged per task),
:mod:`.tables` (Markdown and CSV), :mod:`.charts` (PNGs), :mod:`.summary` (``temporal-tasks summary``)
and :mod:`.commands` (writing the report, the subcommands).
"""

from __future__ import annotations

from typing import Any

from temporal_tasks.tools.report.commands import add_report_parser, add_summary_parser, main_report, write_report
from temporal_tasks.tools.report.layout import (
    NOT_CHARTED,
    SHORTCUT_LABELS,
    BenchmarkLayout,
    benchmark_of,
    benchmarks,
    classify,
    metric_label,
    metric_labels,
)
from temporal_tasks.tools.report.references import Reference, load_references, reference_files
from temporal_tasks.tools.report.results import (
    RunResults,
    Value,
    find_results,
    load_run,
    model_label,
    parse_task_metrics,
)
from temporal_tasks.tools.report.summary import provenance_lines, summary_rows, summary_table
from temporal_tasks.tools.report.tables import fmt_value

__all__ = [
    "BENCHMARKS",
    "NOT_CHARTED",
    "SHORTCUT_LABELS",
    "BenchmarkLayout",
    "Reference",
    "RunResults",
    "Value",
    "add_report_parser",
    "add_summary_parser",
    "benchmark_of",
    "benchmarks",
    "classify",
    "find_results",
    "fmt_value",
    "load_references",
    "load_run",
    "main_report",
    "metric_label",
    "metric_labels",
    "model_label",
    "parse_task_metrics",
    "provenance_lines",
    "reference_files",
    "summary_rows",
    "summary_table",
    "write_report",
]


def __getattr__(name: str) -> Any:
    # BENCHMARKS: the layouts of the registered benchmarks, read on use so that late registrations count.
    if name == "BENCHMARKS":
        return benchmarks()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
