"""Make lmms-eval see our tasks without any flag: what runs when lmms-eval loads.

lmms-eval has no task entry point. Two routes cover every way it builds a TaskManager (and, for
``lmms_eval.evaluator``, every evaluation start, where the package's run state is reset):

* ``temporal_tasks_hook.pth`` imports the top-level module ``temporal_tasks_hook`` at interpreter start-up, which
  only puts a tiny finder on ``sys.meta_path`` (nothing of this package is imported then); when lmms-eval imports
  ``lmms_eval.tasks`` or ``lmms_eval.evaluator``, the finder calls :func:`patch_tasks` or :func:`patch_evaluator`
  right after that module has executed.
* :func:`register` is also called by our ``lmms_eval.models`` entry point, which lmms-eval loads
  itself (covers editable installs, where the ``.pth`` file is not installed).

Both are idempotent and do nothing if lmms-eval is never imported.
"""

from __future__ import annotations

import os
import sys

# install: what an older temporal_tasks_hook.pth (`import temporal_tasks.harness.hook; ....install()`) still calls
from temporal_tasks_hook import install

__all__ = ["install", "patch_evaluator", "patch_tasks", "register"]

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


def patch_tasks(module) -> None:
    """Append our task folders to ``module.TaskManager``'s (``lmms_eval.tasks``) and repair its cached requests."""
    from temporal_tasks.base.redaction import install_log_redaction

    install_log_redaction()
    from temporal_tasks.api.task_template import PLACEHOLDER
    from temporal_tasks.compat import patch_task_manager, resolve_data_files, restore_cached_visuals

    restore_cached_visuals()  # lmms-eval 0.7.3 loses doc_to_visual on a --cache_requests hit
    patch_task_manager(module, _our_dirs)  # our folders go last: a built-in task can never be shadowed
    # lmms-eval 0.7.0 to 0.7.2 look for our placeholder split in the working directory
    resolve_data_files(getattr(module, "utils", None), _our_dirs, PLACEHOLDER)


def patch_evaluator(module) -> None:
    """Start a fresh run state at each evaluation (``module``: ``lmms_eval.evaluator``)."""
    from temporal_tasks.base.run_state import reset, reset_keeping_deferred
    from temporal_tasks.compat import wrap_evaluation_entry_points

    # Each evaluation starts from a fresh run state; `evaluate(lm, task_dict)` keeps the docs its tasks deferred.
    wrap_evaluation_entry_points(module, reset, reset_keeping_deferred)


def register() -> None:
    """Patch ``lmms_eval.tasks.TaskManager`` now (imports lmms-eval's task module), and the evaluator if loaded."""
    import lmms_eval.tasks as tasks_module

    patch_tasks(tasks_module)
    evaluator = sys.modules.get(_EVALUATOR)
    if evaluator is not None and hasattr(evaluator, "simple_evaluate"):  # not while it is still being imported
        patch_evaluator(evaluator)
