"""Make lmms-eval see our tasks without any flag.

lmms-eval 0.7.3 has no task entry point. Two hooks cover every way it builds a TaskManager (and, for
``lmms_eval.evaluator``, every evaluation start, where the package's run state is reset):

* ``install()`` runs from ``temporal_tasks_hook.pth`` at interpreter start-up. It only puts a
  tiny finder on ``sys.meta_path``; nothing is imported until ``lmms_eval.tasks`` itself is
  imported, and then the TaskManager is patched right after that module has executed.
* ``register()`` is also called by our ``lmms_eval.models`` entry point, which lmms-eval loads
  itself (covers editable installs, where the ``.pth`` file is not installed).

Both are idempotent and do nothing if lmms-eval is never imported.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import os
import sys

_TARGET = "lmms_eval.tasks"
_EVALUATOR = "lmms_eval.evaluator"


def _our_dirs() -> list[str]:
    """Our tasks directory and the YAML folder of every benchmark another package registers."""
    from temporal_tasks import tasks_dir

    try:
        from temporal_tasks.harness.task_configs import task_dirs

        return [os.path.realpath(d) for d in task_dirs()]
    except Exception as exc:  # a broken third-party registration must not hide our own tasks
        sys.stderr.write(f"temporal-tasks: registered benchmarks not loaded: {exc}\n")
        return [os.path.realpath(tasks_dir())]


def _patch(module) -> None:
    from temporal_tasks.base.redaction import install_log_redaction

    install_log_redaction()
    from temporal_tasks.compat import patch_task_manager, restore_cached_visuals

    restore_cached_visuals()  # lmms-eval 0.7.3 loses doc_to_visual on a --cache_requests hit
    patch_task_manager(module, _our_dirs)  # our folders go last: a built-in task can never be shadowed


def _patch_evaluator(module) -> None:
    from temporal_tasks.base.run_state import reset, reset_keeping_deferred
    from temporal_tasks.compat import wrap_evaluation_entry_points

    # Each evaluation starts from a fresh run state; `evaluate(lm, task_dict)` keeps the docs its tasks deferred.
    wrap_evaluation_entry_points(module, reset, reset_keeping_deferred)


_PATCHES = {_TARGET: _patch, _EVALUATOR: _patch_evaluator}


def register() -> None:
    """Patch ``lmms_eval.tasks.TaskManager`` now (imports lmms-eval's task module), and the evaluator if loaded."""
    import lmms_eval.tasks as tasks_module

    _patch(tasks_module)
    evaluator = sys.modules.get(_EVALUATOR)
    if evaluator is not None and hasattr(evaluator, "simple_evaluate"):  # not while it is still being imported
        _patch_evaluator(evaluator)


class _Loader(importlib.abc.Loader):
    def __init__(self, inner, patch):
        self._inner = inner
        self._patch = patch

    def __getattr__(self, name):  # get_resource_reader, is_package, ... go to the real loader
        return getattr(self._inner, name)

    def create_module(self, spec):
        return self._inner.create_module(spec)

    def exec_module(self, module):
        self._inner.exec_module(module)
        try:
            self._patch(module)
        except Exception as exc:  # never break lmms-eval because of us
            sys.stderr.write(f"temporal-tasks: could not register tasks with lmms-eval: {exc}\n")


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path, target=None):
        patch = _PATCHES.get(fullname)
        if patch is None:
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is None or spec.loader is None:
            return None
        spec.loader = _Loader(spec.loader, patch)
        return spec


def install() -> None:
    """Put the lazy finder on ``sys.meta_path`` (idempotent, cheap)."""
    if any(isinstance(f, _Finder) for f in sys.meta_path):
        return
    module = sys.modules.get(_TARGET)
    if module is not None:  # already imported: patch directly
        register()
        return
    sys.meta_path.insert(0, _Finder())
