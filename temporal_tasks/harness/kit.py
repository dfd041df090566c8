"""What a benchmark's code calls, in one import: ``from temporal_tasks.harness import kit``.

With :mod:`temporal_tasks.api` (what it declares), this is a benchmark author's whole surface; each name is
documented where it lives.

- reading its files: :func:`benchmark_data` (an offline folder or the Hub), :class:`BenchmarkData`,
  :func:`read_json`, :func:`read_jsonl`, :func:`require_fields`, :func:`check_unique`, :func:`check_files_exist`,
  :func:`content_dirs`, :func:`find_in`; every inconsistency a :class:`DataError` naming the file and the fix;
- its tasks' hooks: :func:`docs_dataset` (``process_docs``), :func:`answers`, :func:`make_payload`,
  :func:`results_for` (``process_results``);
- reading answers: :class:`Parser` and :func:`register_parser` (in the module its spec names as ``parsers``),
  the robust rules :func:`robust_yes_no`, :func:`make_robust_letter`, :func:`option`, :func:`line_options`,
  :data:`YES_NO_OPTIONS`, and the official ones :func:`official_first_char`, :func:`official_response`,
  :func:`first_response`, :func:`finite_or_none`;
- its settings: :mod:`settings <temporal_tasks.base.settings>` (``TEMPORAL_TASKS_*``: ``settings.strict()``, ...);
- its synthetic copy (``fixture`` hooks): the clips :func:`moving`, :func:`resizing`, :func:`appearing`,
  :func:`write_video`, :func:`write_frames`; and :func:`write_jsonl`, :func:`atomic_write`, :func:`warn_once`.
"""

from temporal_tasks.answers.official_rules import finite_or_none, first_response, official_first_char, official_response
from temporal_tasks.answers.options import YES_NO_OPTIONS, line_options, option
from temporal_tasks.answers.parsing import Parser, make_robust_letter, register_parser, robust_yes_no
from temporal_tasks.base import settings
from temporal_tasks.base.errors import DataError
from temporal_tasks.base.files import atomic_write, write_jsonl
from temporal_tasks.base.log import warn_once
from temporal_tasks.data.fixtures.clips import appearing, moving, resizing, write_frames, write_video
from temporal_tasks.data.sources import (
    BenchmarkData,
    benchmark_data,
    check_files_exist,
    check_unique,
    content_dirs,
    find_in,
    read_json,
    read_jsonl,
    require_fields,
)
from temporal_tasks.harness.task_docs import docs_dataset
from temporal_tasks.scoring.payloads import answers, make_payload, results_for

__all__ = [
    "YES_NO_OPTIONS", "BenchmarkData", "DataError", "Parser", "answers", "appearing", "atomic_write",
    "benchmark_data", "check_files_exist", "check_unique", "content_dirs", "docs_dataset", "find_in", "finite_or_none",
    "first_response", "line_options", "make_payload", "make_robust_letter", "moving", "official_first_char",
    "official_response", "option", "read_json", "read_jsonl", "register_parser", "require_fields", "resizing",
    "results_for", "robust_yes_no", "settings", "warn_once", "write_frames", "write_jsonl", "write_video",
]  # fmt: skip
