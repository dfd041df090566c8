"""Our task tree as data: task and group names, and their YAML configs with ``include:`` resolved.

Below the CLI on purpose: ``rescore``, ``report`` and the CLI all need the task list, and
only ``__main__`` may import :mod:`temporal_tasks.cli`. Reads YAML text only; imports no lmms-eval.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable
from pathlib import Path

import yaml

from temporal_tasks import tasks_dir
from temporal_tasks.api.registry import registered
from temporal_tasks.base.errors import DataError
from temporal_tasks.compat import merge_includes

_NAME_LINE = re.compile(r"^(task|group):\s*([A-Za-z0-9_\-]+)\s*$")


def task_dirs() -> list[str]:
    """The YAML folders to hand lmms-eval: our tasks directory, then each other registered benchmark's folder."""
    ours = Path(tasks_dir()).resolve()
    dirs = [str(ours)]
    for spec in registered().values():
        folder = spec.task_folder().resolve()
        if ours not in (folder, *folder.parents) and str(folder) not in dirs:
            dirs.append(str(folder))
    return dirs


def our_tasks() -> dict[str, tuple[str, str]]:
    """Every registered benchmark's task and group names: ``{name: (kind, yaml path)}`` (templates have no name)."""
    found: dict[str, tuple[str, str]] = {}
    for path in sorted(p for d in task_dirs() for p in Path(d).rglob("*.yaml")):
        for line in path.read_text(encoding="utf-8").splitlines():
            m = _NAME_LINE.match(line)
            if m:
                found[m.group(2)] = (m.group(1), str(path))
                break
    return found


class _TaskLoader(yaml.SafeLoader):
    """YAML loader that keeps ``!function a.b.c`` as the tuple ``("!function", "a.b.c")``."""


def _function_tag(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> tuple[str, str]:
    return ("!function", loader.construct_scalar(node))


_TaskLoader.add_constructor("!function", _function_tag)


def load_task_yaml(path: Path) -> dict:
    """A task YAML with its ``include:`` chain merged as lmms-eval does (:func:`.compat.merge_includes`)."""
    with open(path, encoding="utf-8") as fh:
        cfg = yaml.load(fh, Loader=_TaskLoader) or {}
    return merge_includes(cfg, lambda inc: load_task_yaml(path.parent / inc))


def task_config(task: str) -> dict:
    """Our task's YAML as a dict (``include:`` resolved, ``!function`` kept as tuples)."""
    tasks = our_tasks()
    if task not in tasks:
        raise DataError(f"{task!r} is not one of our tasks ({', '.join(sorted(tasks))}); it cannot be rescored.")
    return load_task_yaml(Path(tasks[task][1]))


def resolve_function(ref: object, what: str = "the reference") -> Callable:
    """The function behind a config's ``("!function", "a.b.c")`` tuple (imported from the installed package,
    as lmms-eval does when no file ``a/b.py`` sits beside the YAML); ``what`` names it in the error."""
    if not (isinstance(ref, tuple) and len(ref) == 2 and ref[0] == "!function"):
        raise DataError(f"{what} ({ref!r}) is not a !function reference.")
    module, _, name = ref[1].rpartition(".")
    return getattr(importlib.import_module(module), name)
