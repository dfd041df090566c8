"""Task discovery and task configs: lmms-eval's TaskManager, a task config's metadata, the ``include:`` merge."""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Callable
from types import FrameType
from typing import Any

_TASKS_PATCHED = "_temporal_tasks_patched"


def patch_task_manager(module: Any, extra_dirs: Callable[[], list[str]]) -> bool:
    """Make ``module.TaskManager`` also index the folders ``extra_dirs()`` returns (idempotent).

    They are appended after the caller's ``include_path``: lmms-eval lets earlier directories win, so a
    built-in task can never be shadowed. Returns whether the patch was applied now.
    """
    manager = getattr(module, "TaskManager", None)
    if manager is None or getattr(manager, _TASKS_PATCHED, False):
        return False
    original = manager.initialize_tasks

    def initialize_tasks(self, include_path=None, include_defaults=True):
        if include_path is None:
            paths = []
        elif isinstance(include_path, str):
            paths = [include_path]
        else:
            paths = list(include_path)
        given = {os.path.realpath(p) for p in paths}
        paths.extend(d for d in extra_dirs() if d not in given)
        return original(self, include_path=paths, include_defaults=include_defaults)

    initialize_tasks.__wrapped__ = original  # type: ignore[attr-defined]  # functools' mark of a wrapper
    manager.initialize_tasks = initialize_tasks
    setattr(manager, _TASKS_PATCHED, True)
    return True


def task_config_name(config: Any) -> str:
    """The task name of an lmms-eval task config (``""`` when it has none)."""
    return str(getattr(config, "task", "") or "")


def add_task_metadata(config: Any, key: str, value: Any) -> None:
    """Store ``value`` under ``key`` in the config's ``metadata`` (a fresh dict: never shared between tasks).

    lmms-eval writes ``metadata`` into the results JSON (``configs.<task>.metadata``) via ``dump_config``.
    """
    old = config.metadata if isinstance(config.metadata, dict) else {}
    config.metadata = {**old, key: value}


def merge_includes(cfg: dict, load: Callable[[str], dict]) -> dict:
    """``cfg`` with its ``include:`` chain merged as lmms-eval's ``utils.load_yaml_config`` does.

    ``load(name)`` returns the included file's config, itself merged. Shallow: the file's own keys win,
    and among several includes the *first* wins (lmms-eval loads them last to first). ``cfg`` is changed.
    """
    includes = cfg.pop("include", None)
    if includes is None:
        return cfg
    merged: dict = {}
    for inc in reversed([includes] if isinstance(includes, str) else list(includes)):
        merged.update(load(inc))
    merged.update(cfg)
    return merged


_ENTRY_WRAPPED = "_temporal_tasks_entry"


def wrap_evaluation_entry_points(
    module: Any, on_start: Callable[[], None], on_evaluate: Callable[[], None] | None = None
) -> bool:
    """Make ``module.simple_evaluate`` (``lmms_eval.evaluator``) call ``on_start()`` first, and ``module.evaluate``
    call ``on_evaluate()`` (default ``on_start``) first when a script calls it directly.

    ``simple_evaluate`` starts an evaluation and builds its tasks. Inside it, ``evaluate`` continues the same
    evaluation (nothing is called). A script that builds its tasks itself and then calls ``evaluate(lm,
    task_dict)`` starts the evaluation at ``evaluate``, after its tasks were built: ``on_evaluate`` must keep what
    those tasks left for their first request. lmms-eval's CLI calls ``evaluator.simple_evaluate`` through the
    module, so wrapping the attribute covers it. Idempotent; returns whether the functions were wrapped now.
    """
    simple, evaluate = getattr(module, "simple_evaluate", None), getattr(module, "evaluate", None)
    if simple is None or evaluate is None or getattr(simple, _ENTRY_WRAPPED, False):
        return False

    @functools.wraps(simple)
    def simple_evaluate(*args, **kwargs):
        on_start()
        return simple(*args, **kwargs)

    @functools.wraps(evaluate)
    def evaluate_(*args, **kwargs):
        if not _inside_simple_evaluate():
            (on_evaluate or on_start)()
        return evaluate(*args, **kwargs)

    setattr(simple_evaluate, _ENTRY_WRAPPED, True)
    setattr(evaluate_, _ENTRY_WRAPPED, True)
    module.simple_evaluate, module.evaluate = simple_evaluate, evaluate_
    return True


def _inside_simple_evaluate() -> bool:
    frame: FrameType | None = sys._getframe(2)
    while frame is not None:
        if frame.f_code.co_name == "simple_evaluate" and "model_args" in frame.f_locals:
            return True
        frame = frame.f_back
    return False
