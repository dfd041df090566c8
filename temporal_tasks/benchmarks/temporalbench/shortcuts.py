"""TemporalBench's shortcut variants: the ``process_docs`` of ``<main>_single_frame`` and ``<main>_shuffled``.

The main task is :attr:`SPEC.shortcut_main <temporal_tasks.benchmarks.spec.Benchmark.shortcut_main>`; the
variants' docs are its docs, and their files are built ahead (:func:`temporal_tasks.shortcuts.variant_dataset`).
"""

from temporal_tasks.benchmarks.temporalbench import SPEC
from temporal_tasks.shortcuts import variant_dataset


def process_docs_single_frame(dataset):  # noqa: ARG001 - lmms-eval hands us a placeholder split
    """lmms-eval ``process_docs`` of the single-frame variant: the main task's docs, files built ahead."""
    return variant_dataset(SPEC.shortcut_main, "single_frame")


def process_docs_shuffled(dataset):  # noqa: ARG001 - lmms-eval hands us a placeholder split
    """lmms-eval ``process_docs`` of the shuffled variant: the main task's docs, files built ahead."""
    return variant_dataset(SPEC.shortcut_main, "shuffled")
