"""Make lmms-eval see temporal-tasks' tasks without any flag: the start-up half of the import hook.

lmms-eval has no task entry point. ``temporal_tasks_hook.pth`` (installed in site-packages by the wheel) imports
this module at every interpreter start-up and calls :func:`install`, which only puts a tiny finder on
``sys.meta_path``. When ``lmms_eval.tasks`` or ``lmms_eval.evaluator`` is imported, the finder lets the real loader
run the module, then hands it to :mod:`temporal_tasks.harness.hook`, which patches the TaskManager (our task
folders) or the evaluation entry points (a fresh run state per evaluation).

This module runs in every Python process of the environment, so it is its own top-level module (importing
``temporal_tasks.harness.hook`` would import the package and its ``__init__``) and imports nothing at start-up
but ``sys``: no ``importlib.abc`` (``sys.meta_path`` takes any object with ``find_spec``), no module of ours
(tests/harness/test_hook.py checks). Idempotent, and it does nothing if lmms-eval is never imported.
"""

import sys

# The lmms-eval modules we patch right after they execute, and the function of temporal_tasks.harness.hook that does.
_PATCHES = {"lmms_eval.tasks": "patch_tasks", "lmms_eval.evaluator": "patch_evaluator"}


class _Loader:
    """The real loader of a patched module; runs our patch once the module has executed."""

    def __init__(self, inner, patch: str):
        self._inner = inner
        self._patch = patch

    def __getattr__(self, name):  # get_resource_reader, is_package, ... go to the real loader
        return getattr(self._inner, name)

    def create_module(self, spec):
        return self._inner.create_module(spec)

    def exec_module(self, module) -> None:
        self._inner.exec_module(module)
        try:
            from temporal_tasks.harness import hook

            getattr(hook, self._patch)(module)
        except Exception as exc:  # never break lmms-eval because of us
            sys.stderr.write(f"temporal-tasks: could not register tasks with lmms-eval: {exc}\n")


class _Finder:
    """A ``sys.meta_path`` finder for the modules of :data:`_PATCHES` only; every other import passes through."""

    def find_spec(self, fullname, path, target=None):
        patch = _PATCHES.get(fullname)
        if patch is None:
            return None
        from importlib.machinery import PathFinder  # only now: lmms-eval is being imported

        spec = PathFinder.find_spec(fullname, path)
        if spec is None or spec.loader is None:
            return None
        spec.loader = _Loader(spec.loader, patch)  # type: ignore[assignment]  # duck-typed: no importlib.abc
        return spec


def install() -> None:
    """Put the lazy finder on ``sys.meta_path`` (idempotent, cheap); patch now if lmms-eval's tasks are loaded."""
    if any(isinstance(f, _Finder) for f in sys.meta_path):
        return
    if "lmms_eval.tasks" in sys.modules:  # already imported: patch directly
        from temporal_tasks.harness import hook

        hook.register()
        return
    sys.meta_path.insert(0, _Finder())
