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


_DATA_FILES_PATCHED = "_temporal_tasks_resolves_data_files"


def resolves_data_files(load_yaml_config: Callable[..., dict], folder: str, name: str) -> bool:
    """Whether lmms-eval's ``utils.load_yaml_config`` resolves a task's relative ``data_files`` against the YAML's
    folder (``folder``, which holds the file ``name``), as lmms-eval does since 2026-07-07 (0.7.3, main after
    v0.7.2); before, ``datasets`` resolved them against the working directory."""
    config = {"dataset_path": "json", "dataset_kwargs": {"data_files": {"test": name}}}
    loaded = load_yaml_config(yaml_config=config, yaml_dir=folder)
    return os.path.isabs(loaded["dataset_kwargs"]["data_files"]["test"])


def _resolved(value: Any, folder: str) -> Any:
    # lmms-eval's own rule (utils._resolve_local_data_files): a relative path that exists in the YAML's folder.
    if isinstance(value, str):
        candidate = os.path.join(folder, value)
        return candidate if value and not os.path.isabs(value) and os.path.isfile(candidate) else value
    if isinstance(value, dict):
        return {k: _resolved(v, folder) for k, v in value.items()}
    if isinstance(value, list):
        return [_resolved(v, folder) for v in value]
    return value


def resolve_data_files(utils: Any, our_dirs: Callable[[], list[str]], placeholder: str) -> bool:
    """On an lmms-eval whose ``utils.load_yaml_config`` leaves a task's relative ``data_files`` to the working
    directory (0.7.0 to 0.7.2), resolve those of the YAMLs in ``our_dirs()`` against the YAML's folder, as later
    lmms-eval does for every task: our placeholder split then loads from any working directory.

    Detected by behaviour (:func:`resolves_data_files`, on our first folder and its ``placeholder`` file), not by
    version; nothing is patched where lmms-eval does it. The YAML's own includes go through the wrapper too (the
    function calls itself through the module). Idempotent; returns whether it patched now.
    """
    original = getattr(utils, "load_yaml_config", None)
    if original is None or getattr(original, _DATA_FILES_PATCHED, False):
        return False
    dirs = [os.path.join(d, "") for d in our_dirs()]
    if not dirs or resolves_data_files(original, dirs[0], placeholder):
        return False

    @functools.wraps(original)
    def load_yaml_config(yaml_path=None, yaml_config=None, yaml_dir=None, mode="full"):
        config = original(yaml_path=yaml_path, yaml_config=yaml_config, yaml_dir=yaml_dir, mode=mode)
        folder = os.path.realpath(yaml_dir or os.path.dirname(yaml_path or ""))
        kwargs = config.get("dataset_kwargs") if isinstance(config, dict) else None
        if (
            isinstance(kwargs, dict)
            and "data_files" in kwargs
            and any(os.path.join(folder, "").startswith(d) for d in dirs)
        ):
            config = {**config, "dataset_kwargs": {**kwargs, "data_files": _resolved(kwargs["data_files"], folder)}}
        return config

    setattr(load_yaml_config, _DATA_FILES_PATCHED, True)
    utils.load_yaml_config = load_yaml_config
    return True
