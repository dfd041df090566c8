"""A task's docs: ``process_docs`` through a validating loader, the run checks, and docs without side effects.

:func:`docs_dataset` is what every task's ``process_docs`` returns through: the run checks (zero-shot, one
``--config`` setting, ``--baseline``), the loader (a data problem ends the run with its message), and the provenance
record.
Inside :func:`docs_only` the same ``process_docs`` gives the docs alone, with no build started, which is how
shared code (``rescore`` of a ``--predict_only`` run, the shortcut variants) reads any task's docs.
"""

from __future__ import annotations

import contextlib
import contextvars
import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from temporal_tasks.base.errors import DataError, exit_run
from temporal_tasks.base.log import info_once, warn_once
from temporal_tasks.base.settings import ENV_REPAIR_FRAMES, folders, repair_frames
from temporal_tasks.compat import building_task_config, config_entries_env, run_baseline, task_config_name
from temporal_tasks.compat.encode_cache import EncodeCacheCheck, repair_encode_cache
from temporal_tasks.compat.run_context import run_context
from temporal_tasks.data.sources import collect_sources
from temporal_tasks.harness.provenance import attach
from temporal_tasks.video.schedule import builds_paused


def check_zero_shot() -> None:
    """Stop with a clear error when the run asks for few-shot examples (``--num_fewshot`` above 0)."""
    shots = run_context().num_fewshot
    if shots is not None and shots > 0:
        exit_run(
            DataError(
                f"--num_fewshot {shots}: these temporal-reasoning tasks are zero-shot (each benchmark scores the "
                "model on its own question, as the papers do, and has no few-shot split). Drop --num_fewshot or "
                "pass --num_fewshot 0."
            )
        )


def check_config_env() -> None:
    """Stop when the entries of a multi-entry ``--config`` file set our ``TEMPORAL_TASKS_*`` variables differently.

    lmms-eval exports every entry's ``env:`` before the first entry runs, so each entry would run with the
    last value (e.g. an entry asking for ``TEMPORAL_TASKS_PARSER: official`` scored ``robust``).
    """
    entries = config_entries_env()
    if not entries:
        return
    ours = sorted({k for e in entries for k in e if k.startswith("TEMPORAL_TASKS_")})
    differ = [k for k in ours if len({e.get(k) for e in entries}) > 1]
    if differ:
        values = "; ".join(f"{k}: " + ", ".join(f"entry {i + 1}={e.get(k, '(unset)')}" for i, e in enumerate(entries))
                           for k in differ)  # fmt: skip
        exit_run(
            DataError(
                f"--config: the entries set {', '.join(differ)} differently ({values}), but lmms-eval exports every "
                "entry's env before the first run, so all entries would run with the last value. Put per-entry "
                "settings in each entry's model_args (e.g. max_num_frames=8) or task names (e.g. a task's "
                "_official variant), or run one --config file per setting (README: lmms-eval flags)."
            )
        )


def check_baseline() -> None:
    """lmms-eval's ``--baseline`` (a per-question paired t-test on a ``score`` field) skips our tasks: say so once."""
    baseline = run_baseline()
    if baseline:
        warn_once(
            f"temporal-tasks: --baseline {baseline} does not apply to our tasks (lmms-eval's per-question paired "
            "t-test needs a 'score' field, and our metrics are all-or-nothing over groups of dependent questions). "
            "Compare two runs with `temporal-tasks compare BASE_DIR NEW_DIR` (paired bootstrap over groups)."
        )


# Inside docs_only(): process_docs returns the docs themselves and starts no video builds (rescore, shortcuts).
# The value is the name of the task whose docs are wanted ("" when the caller does not say).
_DOCS_ONLY: contextvars.ContextVar[str | None] = contextvars.ContextVar("temporal_tasks_docs_only", default=None)


@contextlib.contextmanager
def docs_only(task: str = "") -> Iterator[None]:
    """Inside this block a task's ``process_docs`` returns its docs as a list and starts no background builds.

    So shared code gets any task's docs from its config's ``process_docs`` alone, with no table of loaders:
    ``predict_only`` rescoring and the shortcut variants (which copy their main task's docs) use :func:`task_docs`.
    """
    token = _DOCS_ONLY.set(task)
    try:
        with builds_paused():  # the scheduler of derived visuals starts and parks nothing
            yield
    finally:
        _DOCS_ONLY.reset(token)


def task_docs(
    process_docs: Callable[[Any], Any],
    task: str = "",
    data_dir: str | os.PathLike | None = None,
    cache_dir: str | os.PathLike | None = None,
) -> list[dict]:
    """The docs a task's ``process_docs`` function yields, without builds, provenance or run checks.

    ``data_dir`` / ``cache_dir``: the data and cache folders to load them from (default: the settings', from the
    environment); lmms-eval's ``process_docs`` takes the dataset alone, so they reach the loader through
    :func:`temporal_tasks.base.settings.folders`.
    """
    with docs_only(task), folders(data_dir, cache_dir):
        return list(process_docs(None))


def building_task_name() -> str:
    """The task whose ``process_docs`` runs now: :func:`task_docs`'s, else lmms-eval's task being built ("")."""
    named = _DOCS_ONLY.get()
    if named:
        return named

    config = building_task_config()
    return task_config_name(config) if config is not None else ""


def check_encode_cache() -> EncodeCacheCheck:
    """Repair lmms-eval's frame-repeating encode cache where the probe finds it (:mod:`temporal_tasks.compat.
    encode_cache`; ``TEMPORAL_TASKS_REPAIR_FRAMES=0`` leaves it as it is), and say once per evaluation what was found
    and done: a time-order benchmark must not be scored on repeated frames without the run saying so."""
    enabled = repair_frames()
    check = repair_encode_cache(enabled)
    if check.defect and not check.repaired:
        why = "" if enabled else f" ({ENV_REPAIR_FRAMES}=0)"
        warn_once(f"temporal-tasks: {check.detail}{why}", key="encode-cache")
    else:
        info_once(f"temporal-tasks: {check.detail}", key="encode-cache")
    return check


def docs_dataset(load: Callable[[], Sequence[Mapping[str, Any]]]):
    """Build the ``datasets.Dataset`` of a task from a validating loader, for ``process_docs``.

    A data problem ends the process with its message and exit status 1
    (:func:`temporal_tasks.base.errors.exit_run`), and so does ``--num_fewshot`` above 0 (these benchmarks are
    zero-shot; lmms-eval would crash later); ``--baseline`` gets one warning (:func:`check_baseline`). The
    docs' provenance record is stored in the running task's ``metadata`` (:mod:`temporal_tasks.harness.provenance`).
    """
    if _DOCS_ONLY.get() is not None:  # docs_only(): the docs alone (DataError propagates to the caller)
        return load()
    import datasets

    check_zero_shot()
    check_config_env()
    check_baseline()

    try:
        with collect_sources() as sources:
            docs = load()
        # The run's provenance goes into the task config's metadata: the results JSON and the response-cache
        # key (--use_cache) both include it, so changed videos, N or seed never reuse a cached answer.
        attach(docs, sources, check_encode_cache().record())
    except DataError as exc:
        exit_run(exc)
    return datasets.Dataset.from_list(docs)
