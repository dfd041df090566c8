"""What a benchmark's code calls and its YAMLs name, in one import: ``from temporal_tasks.harness import kit``.

With :mod:`temporal_tasks.api` (what it declares), this is a benchmark author's whole surface, ours included: no
benchmark imports any other module of ours (``tests/architecture/test_surface.py`` checks). Each name is documented
where it lives.

- reading its files: :func:`benchmark_data` (an offline folder or the Hub), :class:`BenchmarkData`,
  :func:`read_json`, :func:`read_jsonl`, :func:`require_fields`, :func:`check_unique`, :func:`check_files_exist`,
  :func:`content_dirs`, :func:`find_in`, :func:`extract_zip`, :func:`media_needed`, :func:`fetch_json_once`,
  :func:`cache_root`; every inconsistency a :class:`DataError` naming the file and the fix;
- its tasks' hooks: :func:`docs_dataset` (``process_docs``), :func:`answers`, :func:`first_answer`,
  :func:`make_payload`, :func:`question_fields`, :func:`results_for` (``process_results``), :func:`loss_value`
  (a ``multiple_choice`` result's loss);
- reading answers: :class:`Parser` and :func:`register_parser` (in the module its spec names as ``parsers``),
  :func:`get_parser`, the robust rules :func:`robust_yes_no`, :func:`make_robust_letter`, :func:`option`,
  :func:`line_options`, :data:`YES_NO_OPTIONS`, :func:`truncated_thinking`, and the official ones
  :func:`official_first_char`, :func:`official_response`, :func:`first_response`, :func:`finite_or_none`;
- derived visuals (files built from its videos, e.g. Vinoground's paired videos): :class:`BuildAhead` (the one
  scheduler: the benchmark says which :class:`FileBuild` a doc needs, e.g. :func:`paired_build`),
  :func:`announce_frames`, :func:`num_frames_in_force`, :func:`request_num_frames`, :func:`build_paired_videos`;
- its settings: :mod:`settings <temporal_tasks.base.settings>` (``TEMPORAL_TASKS_*``: ``settings.strict()``, ...);
- its synthetic copy (``fixture`` hooks): the clips :func:`moving`, :func:`resizing`, :func:`appearing`,
  :func:`write_video`, :func:`write_frames`, :data:`SIZE`; full-size copies: :func:`clips` (the scenes encoded),
  :func:`write_zip`, :func:`even_sizes`; and :func:`write_jsonl`, :func:`atomic_write`, :func:`warn_once`,
  :data:`logger`.

The YAML-facing hooks, named ``!function temporal_tasks.harness.kit.<hook>`` (docs/adding-a-benchmark.md):

- every task's :func:`doc_to_visual`, :func:`doc_to_text`, :func:`doc_to_target` and the filter :class:`AllAnswers`
  (all four in the shared task template ``tasks/_common_template_yaml``), and :class:`FirstOfRepeats`, the filter of
  a log-likelihood task;
- the shortcut variants: :func:`blind_visual`, :func:`single_frame_visual`, :func:`shuffled_visual`, and
  :func:`process_docs_single_frame`, :func:`process_docs_shuffled` (the spec's ``shortcut_main`` docs).
"""

from temporal_tasks.answers.answer_text import truncated_thinking
from temporal_tasks.answers.official_rules import finite_or_none, first_response, official_first_char, official_response
from temporal_tasks.answers.options import YES_NO_OPTIONS, line_options, option
from temporal_tasks.answers.parsing import Parser, get_parser, make_robust_letter, register_parser, robust_yes_no
from temporal_tasks.base import settings
from temporal_tasks.base.errors import DataError
from temporal_tasks.base.files import atomic_write, write_jsonl
from temporal_tasks.base.log import logger, warn_once
from temporal_tasks.compat import loss_value
from temporal_tasks.data.fixtures.clips import SIZE, appearing, moving, resizing, write_frames, write_video
from temporal_tasks.data.fixtures.full import clips, even_sizes, write_zip
from temporal_tasks.data.sources import (
    BenchmarkData,
    benchmark_data,
    cache_root,
    check_files_exist,
    check_unique,
    content_dirs,
    extract_zip,
    fetch_json_once,
    find_in,
    media_needed,
    read_json,
    read_jsonl,
    require_fields,
)
from temporal_tasks.harness.doc_hooks import AllAnswers, FirstOfRepeats, doc_to_target, doc_to_text, doc_to_visual
from temporal_tasks.harness.shortcuts import (
    blind_visual,
    process_docs_shuffled,
    process_docs_single_frame,
    shuffled_visual,
    single_frame_visual,
)
from temporal_tasks.harness.task_docs import docs_dataset
from temporal_tasks.scoring.payloads import answers, first_answer, make_payload, question_fields, results_for
from temporal_tasks.video import (
    BuildAhead,
    FileBuild,
    announce_frames,
    build_paired_videos,
    num_frames_in_force,
    paired_build,
    request_num_frames,
)

__all__ = [
    "SIZE", "YES_NO_OPTIONS", "AllAnswers", "BenchmarkData", "BuildAhead", "DataError", "FileBuild",
    "FirstOfRepeats", "Parser", "announce_frames", "answers", "appearing", "atomic_write", "benchmark_data",
    "blind_visual", "build_paired_videos", "cache_root", "check_files_exist", "check_unique", "clips", "content_dirs",
    "doc_to_target", "doc_to_text", "doc_to_visual", "docs_dataset", "even_sizes", "extract_zip", "fetch_json_once",
    "find_in", "finite_or_none", "first_answer", "first_response", "get_parser", "line_options", "logger",
    "loss_value", "make_payload", "make_robust_letter", "media_needed", "moving", "num_frames_in_force",
    "official_first_char", "official_response", "option", "paired_build", "process_docs_shuffled",
    "process_docs_single_frame", "question_fields", "read_json", "read_jsonl", "register_parser",
    "request_num_frames", "require_fields", "resizing", "results_for", "robust_yes_no", "settings", "shuffled_visual",
    "single_frame_visual", "truncated_thinking", "warn_once", "write_frames", "write_jsonl", "write_video",
    "write_zip",
]  # fmt: skip
